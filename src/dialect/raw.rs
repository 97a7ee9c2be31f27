//! Typed serde structs for the fields any dialect reads — and nothing else.
//! Everything not named here (spec, status, managedFields…) is skipped by the
//! parser without being materialised.
//!
//! Scalars are lenient (a number where a string is expected becomes its text)
//! and `spec` is read leniently (a field of an unexpected type is ignored),
//! because custom resources put anything in their spec.

use crate::model::Str;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A string, number or boolean, kept as its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalar(pub Str);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar, E> {
                Ok(Scalar(v.into()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string().into()))
            }
        }
        d.deserialize_any(V)
    }
}

impl Scalar {
    pub fn into_str(self) -> Str {
        self.0
    }
}

/// Label-like map of scalars (`null` values become empty strings).
#[derive(Clone, Debug, Default)]
pub struct StrMap(pub Vec<(Str, Str)>);

impl<'de> Deserialize<'de> for StrMap {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<StrMap, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrMap;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_unit<E: de::Error>(self) -> Result<StrMap, E> {
                Ok(StrMap::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrMap, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some(k) = map.next_key::<Scalar>()? {
                    let v = map.next_value::<Option<Scalar>>()?;
                    out.push((k.0, v.map(|v| v.0).unwrap_or_default()));
                }
                Ok(StrMap(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// The annotations teardown reads; all others are skipped.
pub const KEPT_ANNOTATIONS: [&str; 1] = [DEPENDS_ON];
pub const DEPENDS_ON: &str = "config.kubernetes.io/depends-on";

#[derive(Clone, Debug, Default)]
pub struct KeptAnnotations(pub Vec<(Str, Str)>);

impl KeptAnnotations {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }
}

/// A map key as text, borrowed from the input when it can be.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Key<'de>, E> {
                Ok(Key(v.to_string().into()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key<'de>, E> {
                Ok(Key("".into()))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for KeptAnnotations {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeptAnnotations, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeptAnnotations;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeptAnnotations, E> {
                Ok(KeptAnnotations::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeptAnnotations, A::Error> {
                let mut out = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    if KEPT_ANNOTATIONS.contains(&&*k) {
                        let v = map.next_value::<Option<Scalar>>()?;
                        out.push((k.into_owned().into(), v.map(|v| v.0).unwrap_or_default()));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(KeptAnnotations(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// Implements the non-map arms of a lenient visitor: any other value is
/// consumed and gives the default.
macro_rules! lenient_other_arms {
    ($t:ty) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_none<E: de::Error>(self) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$t, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(<$t>::default())
        }
    };
}

/// A string if the value is a scalar, `None` for anything else.
#[derive(Clone, Debug, Default)]
pub struct LenientStr(pub Option<Str>);

impl<'de> Deserialize<'de> for LenientStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientStr, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientStr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LenientStr, E> {
                Ok(LenientStr(Some(v.into())))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientStr, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientStr(None))
            }
            lenient_other_arms!(LenientStr);
        }
        d.deserialize_any(V)
    }
}

/// The parts of `spec` teardown reads. A CustomResourceDefinition's
/// `group`, `scope` and `names.kind`.
#[derive(Clone, Debug, Default)]
pub struct LenientSpec {
    pub group: Option<Str>,
    pub scope: Option<Str>,
    pub names_kind: Option<Str>,
}

impl<'de> Deserialize<'de> for LenientSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientSpec, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientSpec, E> {
                Ok(LenientSpec::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientSpec, A::Error> {
                let mut spec = LenientSpec::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    match &*k {
                        "group" => spec.group = map.next_value::<LenientStr>()?.0,
                        "scope" => spec.scope = map.next_value::<LenientStr>()?.0,
                        "names" => spec.names_kind = map.next_value::<LenientNames>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(spec)
            }
            lenient_other_arms!(LenientSpec);
        }
        d.deserialize_any(V)
    }
}

/// `spec.names.kind` of a CRD.
#[derive(Default)]
struct LenientNames(Option<Str>);

impl<'de> Deserialize<'de> for LenientNames {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientNames, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientNames;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientNames, E> {
                Ok(LenientNames(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientNames, A::Error> {
                let mut kind = None;
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    if &*k == "kind" {
                        kind = map.next_value::<LenientStr>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(LenientNames(kind))
            }
            lenient_other_arms!(LenientNames);
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Default)]
pub struct RawOwnerRef {
    #[serde(rename = "apiVersion")]
    pub api_version: Option<Scalar>,
    pub kind: Option<Scalar>,
    pub name: Option<Scalar>,
    pub uid: Option<Scalar>,
    pub controller: Option<bool>,
    #[serde(rename = "blockOwnerDeletion")]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Deserialize, Debug, Default)]
pub struct RawMeta {
    pub name: Option<Scalar>,
    #[serde(rename = "generateName")]
    pub generate_name: Option<Scalar>,
    pub namespace: Option<Scalar>,
    pub uid: Option<Scalar>,
    pub labels: Option<StrMap>,
    pub annotations: Option<KeptAnnotations>,
    #[serde(rename = "ownerReferences")]
    pub owner_references: Option<Vec<RawOwnerRef>>,
    pub finalizers: Option<Vec<Scalar>>,
    #[serde(rename = "deletionTimestamp")]
    pub deletion_timestamp: Option<Scalar>,
}

/// One object: the fields every object-shaped dialect reads.
#[derive(Deserialize, Debug, Default)]
pub struct RawObject {
    #[serde(rename = "apiVersion")]
    pub api_version: Option<Scalar>,
    pub kind: Option<Scalar>,
    pub metadata: Option<RawMeta>,
    #[serde(default)]
    pub spec: LenientSpec,
}

/// A native resource: `{id, owners?, destroyAfter?}`.
#[derive(Deserialize, Debug, Default)]
pub struct RawNative {
    pub id: Option<Scalar>,
    pub owners: Option<Vec<Scalar>>,
    #[serde(rename = "destroyAfter")]
    pub destroy_after: Option<Vec<Scalar>>,
}

/// A YAML document read in one go: an object, a `List` (with `items`) or a
/// native file (with `resources`).
/// (No `#[serde(flatten)]`: it buffers every value and is slow.)
#[derive(Deserialize, Debug, Default)]
pub struct RawYamlDoc {
    #[serde(rename = "apiVersion")]
    pub api_version: Option<Scalar>,
    pub kind: Option<Scalar>,
    pub metadata: Option<RawMeta>,
    #[serde(default)]
    pub spec: LenientSpec,
    pub items: Option<Vec<RawObject>>,
    pub resources: Option<Vec<RawNative>>,
}

impl RawYamlDoc {
    pub fn split(self) -> (RawObject, Option<Vec<RawObject>>, Option<Vec<RawNative>>) {
        let object =
            RawObject { api_version: self.api_version, kind: self.kind, metadata: self.metadata, spec: self.spec };
        (object, self.items, self.resources)
    }
}

/// The shape of a JSON value: enough to tell a List or a native file from an
/// object, with the items left as raw text (parsed later, one by one).
#[derive(Deserialize, Debug)]
pub struct RawJsonShape<'a> {
    pub kind: Option<LenientStr>,
    #[serde(rename = "apiVersion")]
    pub api_version: Option<LenientStr>,
    #[serde(borrow)]
    pub items: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    pub resources: Option<&'a serde_json::value::RawValue>,
    pub metadata: Option<ShapeMeta>,
}

/// Whether a JSON value has a `metadata.name` (a named object whose kind
/// ends in `List` is an object, not a list).
#[derive(Deserialize, Debug)]
pub struct ShapeMeta {
    pub name: Option<LenientStr>,
}

/// The type of a value, its contents skipped: what a YAML document is when
/// it does not read as an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TopKind {
    Map,
    Seq,
    Scalar,
    Null,
}

impl<'de> Deserialize<'de> for TopKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TopKind, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TopKind;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_i128<E: de::Error>(self, _: i128) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_u128<E: de::Error>(self, _: u128) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<TopKind, E> {
                Ok(TopKind::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<TopKind, E> {
                Ok(TopKind::Null)
            }
            fn visit_none<E: de::Error>(self) -> Result<TopKind, E> {
                Ok(TopKind::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<TopKind, D2::Error> {
                TopKind::deserialize(d)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TopKind, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(TopKind::Seq)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopKind, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(TopKind::Map)
            }
            fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<TopKind, A::Error> {
                // A tagged YAML value: look at what is tagged.
                let (_, variant): (IgnoredAny, _) = data.variant()?;
                de::VariantAccess::newtype_variant::<TopKind>(variant)
            }
        }
        d.deserialize_any(V)
    }
}

/// Whether a mapping has a `name` (for `metadata`), leniently.
#[derive(Clone, Copy, Debug, Default)]
pub struct HasName(pub bool);

impl<'de> Deserialize<'de> for HasName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<HasName, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HasName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<HasName, E> {
                Ok(HasName(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HasName, A::Error> {
                let mut named = false;
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    if &*k == "name" {
                        named = map.next_value::<LenientStr>()?.0.is_some_and(|n| !n.is_empty());
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(HasName(named))
            }
            lenient_other_arms!(HasName);
        }
        d.deserialize_any(V)
    }
}

/// A YAML document's shape, when it did not read as objects in one go:
/// enough to decide whether to read its items one by one.
#[derive(Deserialize, Debug)]
pub struct YamlShape {
    pub kind: Option<LenientStr>,
    #[serde(rename = "apiVersion")]
    pub api_version: Option<LenientStr>,
    pub metadata: Option<HasName>,
    pub items: Option<TopKind>,
    pub resources: Option<TopKind>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_accept_numbers_and_bools() {
        let v: Vec<Scalar> = serde_yaml::from_str("[a, 1, true, 2.5]").unwrap();
        let v: Vec<&str> = v.iter().map(|s| &*s.0).collect();
        assert_eq!(v, ["a", "1", "true", "2.5"]);
    }

    #[test]
    fn spec_is_lenient() {
        let o: RawObject = serde_yaml::from_str("kind: X\nspec:\n  group: [1]\n  names: 3\n  scope: Cluster").unwrap();
        assert_eq!(o.spec.group, None);
        assert_eq!(o.spec.scope.as_deref(), Some("Cluster"));
        let o: RawObject = serde_json::from_str(r#"{"spec": "text"}"#).unwrap();
        assert!(o.spec.group.is_none());
    }

    #[test]
    fn only_kept_annotations_are_kept() {
        let m: RawMeta =
            serde_yaml::from_str("annotations:\n  a: b\n  config.kubernetes.io/depends-on: /namespaces/x/Secret/y\n")
                .unwrap();
        let a = m.annotations.unwrap();
        assert_eq!(a.0.len(), 1);
        assert_eq!(a.get(DEPENDS_ON), Some("/namespaces/x/Secret/y"));
    }
}
