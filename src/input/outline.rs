//! What a unit holds at its top level — its shape, its keys, and the text
//! of its string values — found without reading it whole. Dialects
//! recognise units by their outlines.

use std::borrow::Cow;
use std::ops::Range;

/// What a unit is at its top level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Map,
    Seq,
    /// A string, number or boolean.
    Scalar,
    Null,
}

impl Shape {
    /// How findings name it: "an object", "an array", "a scalar".
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Map => "an object",
            Shape::Seq => "an array",
            Shape::Scalar | Shape::Null => "a scalar",
        }
    }
}

/// What a top-level key holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Value<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// A number or a boolean.
    Other,
    Null,
    Map,
    Seq,
    /// A scalar whose text the outline does not decode (a block scalar).
    Unknown,
}

/// A top-level key and what it holds.
#[derive(Clone, Debug)]
pub struct Member<'a> {
    pub key: Cow<'a, str>,
    pub value: Value<'a>,
    /// Where the member is written (its key's line, or the member in JSON);
    /// the syntax layer finds the member's own keys from here.
    pub at: Range<usize>,
}

#[derive(Clone, Debug)]
pub struct Outline<'a> {
    pub shape: Shape,
    pub members: Vec<Member<'a>>,
    /// Every top-level key is listed. A unit read as it streams (an item of
    /// a large JSON list) shows only its first keys until it is read.
    pub complete: bool,
}

impl<'a> Outline<'a> {
    pub fn new(shape: Shape) -> Outline<'a> {
        Outline { shape, members: Vec::new(), complete: true }
    }

    pub fn member(&self, key: &str) -> Option<&Member<'a>> {
        self.members.iter().find(|m| m.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.member(key).map(|m| &m.value)
    }

    /// The string a key holds.
    pub fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether the key is there: `None` when the outline cannot tell yet.
    pub fn has(&self, key: &str) -> Option<bool> {
        match self.member(key) {
            Some(_) => Some(true),
            None if self.complete => Some(false),
            None => None,
        }
    }

    /// The same outline, owning its strings.
    pub fn into_owned(self) -> Outline<'static> {
        let owned = |c: Cow<'a, str>| -> Cow<'static, str> { Cow::Owned(c.into_owned()) };
        Outline {
            shape: self.shape,
            complete: self.complete,
            members: self
                .members
                .into_iter()
                .map(|m| Member {
                    key: owned(m.key),
                    value: match m.value {
                        Value::Str(s) => Value::Str(owned(s)),
                        Value::Other => Value::Other,
                        Value::Null => Value::Null,
                        Value::Map => Value::Map,
                        Value::Seq => Value::Seq,
                        Value::Unknown => Value::Unknown,
                    },
                    at: m.at,
                })
                .collect(),
        }
    }

    /// A key that holds a sequence, or `null` (an empty list).
    pub fn listy(&self, key: &str) -> bool {
        matches!(self.get(key), Some(Value::Seq | Value::Null))
    }
}

/// A document's outline read as a value (by the fast path or serde_yaml),
/// when the fast path cannot outline its text: its top-level keys and what
/// each holds, and the outline of each mapping a top-level key holds
/// (`children`, for [`crate::input::Unit::child`]). Nothing deeper is read
/// — as the fast path reads nothing deeper — so what no dialect reads is
/// not refused here for how it is nested, repeated or aliased: the typed
/// read and the input limits say that, alike with or without the fast path
/// (a value tree of the whole document, which this replaces, refused a key
/// given twice or nesting past serde_yaml's 128 levels anywhere, while the
/// fast path's outline did not; found by the `fast_yaml` fuzz target).
#[derive(Debug)]
pub struct ValueOutline {
    pub top: Outline<'static>,
    pub children: Vec<(String, Outline<'static>)>,
}

impl<'de> serde::Deserialize<'de> for ValueOutline {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ValueOutline, D::Error> {
        let (top, children) = serde::de::DeserializeSeed::deserialize(Level { children: true }, d)?;
        Ok(ValueOutline { top, children })
    }
}

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A mapping's level of an outline: its keys, and (`children`, at the top)
/// the outlines of the mappings it holds. As `tree::Node` reads a value: a
/// tag is dropped; a key given twice is an error at the top, and below it
/// leaves that mapping without an outline (as the fast path leaves it).
#[derive(Clone, Copy)]
struct Level {
    children: bool,
}

type Outlined = (Outline<'static>, Vec<(String, Outline<'static>)>);

impl<'de> DeserializeSeed<'de> for Level {
    type Value = Outlined;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Outlined, D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! scalars {
    ($value:expr; $($visit:ident: $t:ty),*) => {
        $(fn $visit<E: de::Error>(self, _: $t) -> Result<Self::Value, E> {
            Ok($value)
        })*
    };
}

impl<'de> Visitor<'de> for Level {
    type Value = Outlined;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    scalars!((Outline::new(Shape::Scalar), Vec::new());
        visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128, visit_f64: f64,
        visit_str: &str, visit_string: String);
    fn visit_unit<E: de::Error>(self) -> Result<Outlined, E> {
        Ok((Outline::new(Shape::Null), Vec::new()))
    }
    fn visit_none<E: de::Error>(self) -> Result<Outlined, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Outlined, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Outlined, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok((Outline::new(Shape::Seq), Vec::new()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Outlined, A::Error> {
        let mut outline = Outline::new(Shape::Map);
        let mut children = Vec::new();
        // Keys compared as values, as `tree::Node` compares them (a hash of
        // how each is written out: a hostile mapping may have a million).
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(k) = map.next_key::<super::Node>()? {
            let key = k.scalar();
            if !seen.insert(format!("{k:?}")) {
                if !self.children {
                    outline.complete = false;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
                let shown = key.unwrap_or_else(|| k.to_json());
                return Err(de::Error::custom(format_args!("duplicate entry with key {shown:?}")));
            }
            let key = key.unwrap_or_default();
            let (value, child) = map.next_value_seed(Holds { children: self.children })?;
            if let Some(child) = child {
                children.push((key.clone(), child));
            }
            outline.members.push(Member { key: Cow::Owned(key), value, at: 0..0 });
        }
        Ok((outline, children))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Outlined, A::Error> {
        let (_, variant): (IgnoredAny, _) = data.variant()?;
        de::VariantAccess::newtype_variant_seed(variant, self)
    }
}

/// What a key holds; with `children`, a mapping's own outline too.
#[derive(Clone, Copy)]
struct Holds {
    children: bool,
}

type Held = (Value<'static>, Option<Outline<'static>>);

impl<'de> DeserializeSeed<'de> for Holds {
    type Value = Held;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Held, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Holds {
    type Value = Held;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any value")
    }
    scalars!((Value::Other, None);
        visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128, visit_f64: f64);
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Held, E> {
        Ok((Value::Str(Cow::Owned(v.to_string())), None))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Held, E> {
        Ok((Value::Str(Cow::Owned(v)), None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Held, E> {
        Ok((Value::Null, None))
    }
    fn visit_none<E: de::Error>(self) -> Result<Held, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Held, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Held, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok((Value::Seq, None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Held, A::Error> {
        if self.children {
            let (child, _) = Level { children: false }.visit_map(map)?;
            return Ok((Value::Map, Some(child).filter(|c| c.complete)));
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok((Value::Map, None))
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Held, A::Error> {
        let (_, variant): (IgnoredAny, _) = data.variant()?;
        de::VariantAccess::newtype_variant_seed(variant, self)
    }
}
