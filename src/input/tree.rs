//! A parsed value, whole: for dialects that read an entire model (Murano)
//! rather than a few fields. Read from JSON or YAML alike; tags are dropped
//! (the tagged value stays), a key given twice is an error.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// A number, as YAML writes it back (`1`, `-2`, `1.5`, `.inf`).
    Number(String),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The value of a string key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match self {
            Node::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match self {
            Node::Seq(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Node::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    /// A string, number or boolean as text.
    pub fn scalar(&self) -> Option<String> {
        match self {
            Node::Str(s) => Some(s.clone()),
            Node::Number(n) => Some(n.clone()),
            Node::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// As JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The value written at `range` of `text` (where an object was read):
    /// a JSON value, a YAML document, an indented YAML mapping, or an item
    /// of a YAML list (`- ` before it). `None` when it cannot be read on
    /// its own (an alias of an anchor outside it).
    pub fn at(text: &str, range: std::ops::Range<usize>) -> Option<Node> {
        let body = text.get(range.clone())?;
        if body.starts_with(['{', '[']) {
            if let Ok(node) = serde_json::from_str::<Node>(body) {
                return Some(node);
            }
        }
        let line_start =
            text.as_bytes().get(..range.start).and_then(|b| memchr::memrchr(b'\n', b)).map_or(0, |i| i + 1);
        let before = text.get(line_start..range.start)?;
        let from_line = text.get(line_start..range.end)?;
        // An item of a YAML list whose span starts at its dash (`- kind: …`
        // at the start of a line): the item, not a list of one (the same
        // object in a List and alone is one object: tests/props_determinism.rs).
        let dash = body.starts_with("- ") || body.starts_with("-\n") || body.starts_with("-\r\n");
        if before.bytes().all(|c| c == b' ') && !dash {
            return super::yaml::from_str::<Node>(from_line).ok();
        }
        if dash || before.trim_end().trim_start() == "-" {
            let mut one = super::yaml::from_str::<Vec<Node>>(from_line).ok()?;
            return (one.len() == 1).then(|| one.remove(0));
        }
        None
    }

    /// Take entries `indices` (descending) out of the list at `path`; the
    /// key goes when the list is left empty (what `input::edit` does to the
    /// text, done to the value, so that `apply` can compare the two).
    pub fn remove_entries(&mut self, path: &[&str], indices: &[usize]) {
        let Some((last, parents)) = path.split_last() else { return };
        let mut map = self;
        for key in parents {
            let Node::Map(m) = map else { return };
            let Some((_, v)) = m.iter_mut().find(|(k, _)| k.as_str() == Some(key)) else { return };
            map = v;
        }
        let Node::Map(m) = map else { return };
        let Some(pos) = m.iter().position(|(k, _)| k.as_str() == Some(last)) else { return };
        if let Some((_, Node::Seq(items))) = m.get_mut(pos) {
            for &i in indices {
                if i < items.len() {
                    items.remove(i);
                }
            }
            if items.is_empty() {
                m.remove(pos);
            }
        }
    }

    /// The same value, whatever the order of mapping keys (JSON and YAML
    /// dumps of one object order them differently).
    pub fn same(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Map(a), Node::Map(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v.same(v2)))
            }
            (Node::Seq(a), Node::Seq(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y)),
            _ => self == other,
        }
    }
}

fn float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f.is_infinite() {
        if f < 0.0 { "-.inf" } else { ".inf" }.into()
    } else {
        ryu::Buffer::new().format_finite(f).to_string()
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<Node, E> {
                Ok(Node::Null)
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
                Node::deserialize(d)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Bool(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Number(v.to_string()))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
                // As serde_yaml's values hold them: as floats beyond 64 bits.
                match i64::try_from(v) {
                    Ok(v) => Ok(Node::Number(v.to_string())),
                    Err(_) => Ok(Node::Number(float(v as f64))),
                }
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
                match u64::try_from(v) {
                    Ok(v) => Ok(Node::Number(v.to_string())),
                    Err(_) => Ok(Node::Number(float(v as f64))),
                }
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Number(float(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Str(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
                Ok(Node::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some(v) = seq.next_element()? {
                    out.push(v);
                }
                Ok(Node::Seq(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut out: Vec<(Node, Node)> = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1024));
                while let Some(k) = map.next_key::<Node>()? {
                    if out.iter().any(|(have, _)| *have == k) {
                        let shown = k.scalar().unwrap_or_else(|| k.to_json());
                        return Err(de::Error::custom(format_args!("duplicate entry with key {shown:?}")));
                    }
                    let v = map.next_value()?;
                    out.push((k, v));
                }
                Ok(Node::Map(out))
            }
            fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Node, A::Error> {
                // A tagged YAML value: the value, without its tag.
                let (_, variant): (de::IgnoredAny, _) = data.variant()?;
                de::VariantAccess::newtype_variant::<Node>(variant)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_unit(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::Number(n) => match (n.parse::<u64>(), n.parse::<i64>(), n.parse::<f64>()) {
                (Ok(u), _, _) => s.serialize_u64(u),
                (_, Ok(i), _) => s.serialize_i64(i),
                (_, _, Ok(f)) => s.serialize_f64(f),
                _ => s.serialize_unit(),
            },
            Node::Str(t) => s.serialize_str(t),
            Node::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Node::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    match k {
                        Node::Str(key) => map.serialize_entry(key, v)?,
                        other => map.serialize_entry(&other.scalar().unwrap_or_else(|| other.to_json()), v)?,
                    }
                }
                map.end()
            }
        }
    }
}

/// A tree read as any type: numbers as serde_yaml's values hand them over.
impl<'de> Deserializer<'de> for &'de Node {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Node::Null => visitor.visit_unit(),
            Node::Bool(b) => visitor.visit_bool(*b),
            Node::Number(n) => {
                if let Ok(u) = n.parse::<u64>() {
                    visitor.visit_u64(u)
                } else if let Ok(i) = n.parse::<i64>() {
                    visitor.visit_i64(i)
                } else {
                    match n.as_str() {
                        ".inf" => visitor.visit_f64(f64::INFINITY),
                        "-.inf" => visitor.visit_f64(f64::NEG_INFINITY),
                        ".nan" => visitor.visit_f64(f64::NAN),
                        _ => match n.parse::<f64>() {
                            Ok(f) => visitor.visit_f64(f),
                            Err(_) => visitor.visit_borrowed_str(n),
                        },
                    }
                }
            }
            Node::Str(s) => visitor.visit_borrowed_str(s),
            Node::Seq(items) => visitor.visit_seq(de::value::SeqDeserializer::new(items.iter())),
            Node::Map(entries) => {
                visitor.visit_map(de::value::MapDeserializer::new(entries.iter().map(|(k, v)| (k, v))))
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self {
            Node::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct
        newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> de::IntoDeserializer<'de, de::value::Error> for &'de Node {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}
