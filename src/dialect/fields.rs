//! Field types the dialects' wire structs share: scalars, string maps,
//! keys, and lenient readers for fields whose type the input may not keep.

use crate::model::Str;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
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

/// What the error of a string field written as a number or boolean says;
/// a dialect finds it there and says what to do (quote the value).
pub const NOT_A_STRING: &str = "where a string belongs";

/// A string field, read as kubectl reads it: a number or a boolean where a
/// string belongs is refused (as kubectl refuses it), never turned into
/// text (`name: 0x10` is not the name `16`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text(pub Str);

/// The same check, for a value that is not kept.
pub struct IsText;

/// A [`Text`] that repeats across objects (a label, a finalizer), stored
/// once ([`crate::model::intern`]): interned as it is read, never first
/// copied on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interned(pub Str);

/// A [`Text`] naming an object by its uid (an owner reference's): the
/// object's own string when this thread read it lately
/// ([`crate::model::refs::owner_uid`]), never a copy of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerUid(pub Str);

/// A [`Text`] naming an object by its name (an owner reference's), as
/// [`OwnerUid`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerName(pub Str);

/// The visitor arms of a string field that refuse numbers and booleans.
macro_rules! refuse_non_strings {
    ($t:ty) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Err(E::custom(format_args!("a boolean {NOT_A_STRING}")))
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$t, E> {
            Err(E::custom(format_args!("a number {NOT_A_STRING}")))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$t, E> {
            Err(E::custom(format_args!("a number {NOT_A_STRING}")))
        }
        fn visit_i128<E: de::Error>(self, _: i128) -> Result<$t, E> {
            Err(E::custom(format_args!("a number {NOT_A_STRING}")))
        }
        fn visit_u128<E: de::Error>(self, _: u128) -> Result<$t, E> {
            Err(E::custom(format_args!("a number {NOT_A_STRING}")))
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$t, E> {
            Err(E::custom(format_args!("a number {NOT_A_STRING}")))
        }
    };
}

/// The first control character (C0, DEL or C1) other than a tab or a line
/// break in `v`, if any. None belongs in a name, kind, uid, finalizer or an
/// annotation teardown reads, and no output can carry one: a shell argument
/// cannot hold a NUL, and the others pass to a terminal as commands.
/// (Blanks are the outputs' business: `-o names` refuses a name that holds
/// one, `-o kubectl` quotes it.)
fn control_character(v: &str) -> Option<char> {
    // Printable ASCII, the usual case, in one pass without a branch a byte.
    if !v.bytes().fold(false, |odd, b| odd | !(0x20..0x7f).contains(&b)) {
        return None;
    }
    v.chars().find(|&c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

macro_rules! strict_text {
    ($t:ty, $make:expr, $check:expr) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a string")
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        match if $check { control_character(v) } else { None } {
                            Some(c) => Err(E::custom(format_args!(
                                "a control character (U+{:04X}); no API server accepts one",
                                u32::from(c)
                            ))),
                            None => Ok($make(v)),
                        }
                    }
                    refuse_non_strings!($t);
                }
                d.deserialize_any(V)
            }
        }
    };
}

strict_text!(Text, |v: &str| Text(v.into()), true);
strict_text!(IsText, |_: &str| IsText, false);
strict_text!(Interned, |v: &str| Interned(crate::model::intern::intern(v)), true);
strict_text!(OwnerUid, |v: &str| OwnerUid(crate::model::refs::owner_uid(v)), true);
strict_text!(OwnerName, |v: &str| OwnerName(crate::model::refs::owner_name(v)), true);

/// A map key that must be a string, borrowed from the input when it can be.
pub struct TextKey<'de>(pub std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for TextKey<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TextKey<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TextKey<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<TextKey<'de>, E> {
                Ok(TextKey(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TextKey<'de>, E> {
                Ok(TextKey(v.to_owned().into()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<TextKey<'de>, E> {
                Ok(TextKey(v.into()))
            }
            refuse_non_strings!(TextKey<'de>);
        }
        d.deserialize_any(V)
    }
}

/// Label-like map of strings (`null` values become empty strings); keys
/// and values are [`Text`], interned ([`Interned`]).
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
                let mut out: Vec<(Str, Str)> = Vec::with_capacity(map.size_hint().unwrap_or(4));
                while let Some(k) = map.next_key::<Interned>()? {
                    let v = map.next_value::<Option<Interned>>()?;
                    out.push((k.0, v.map_or_else(|| crate::model::intern::intern(""), |v| v.0)));
                }
                match duplicate(out.iter().map(|(k, _)| &**k)) {
                    Some(key) => Err(de::Error::custom(format_args!("duplicate key `{key}`"))),
                    None => Ok(StrMap(out)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// A key written twice in one map, if there is one. Which of the two values
/// counts is the reader's guess (kubectl's JSON reader takes the last, its
/// YAML reader refuses both): refused, not guessed.
pub fn duplicate<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> Option<&'k str> {
    let n = keys.clone().count();
    if n <= 16 {
        return keys
            .clone()
            .enumerate()
            .find(|&(i, k)| keys.clone().skip(i + 1).any(|other| other == k))
            .map(|(_, k)| k);
    }
    let mut sorted: Vec<&str> = keys.collect();
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w.first() == w.last()).and_then(|w| w.first().copied())
}

/// A map key as text, borrowed from the input when it can be.
pub struct Key<'de>(pub std::borrow::Cow<'de, str>);

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

/// Implements the scalar arms of a lenient visitor: a scalar or null gives
/// the default.
macro_rules! lenient_scalar_arms {
    ($t:ty) => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_bytes<E: serde::de::Error>(self, _: &[u8]) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<$t, E> {
            Ok(<$t>::default())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<$t, E> {
            Ok(<$t>::default())
        }
    };
}

/// Implements the non-map arms of a lenient visitor: any other value is
/// consumed and gives the default.
macro_rules! lenient_other_arms {
    ($t:ty) => {
        lenient_scalar_arms!($t);
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<$t, A::Error> {
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
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

/// Whether a field is written: a non-empty string, a number, a boolean or
/// a collection (consumed, not kept); not null, not an empty string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written(pub bool);

impl<'de> Deserialize<'de> for Written {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Written, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Written;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Written, E> {
                Ok(Written(!v.is_empty()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Written, E> {
                Ok(Written(true))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Written, E> {
                Ok(Written(true))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Written, E> {
                Ok(Written(true))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Written, E> {
                Ok(Written(true))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Written, E> {
                Ok(Written(false))
            }
            fn visit_none<E: de::Error>(self) -> Result<Written, E> {
                Ok(Written(false))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Written, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Written(true))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Written, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Written(true))
            }
        }
        d.deserialize_any(V)
    }
}

/// A boolean if the value is one, `None` for anything else.
#[derive(Clone, Copy, Debug, Default)]
pub struct LenientBool(pub Option<bool>);

impl<'de> Deserialize<'de> for LenientBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientBool, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientBool;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<LenientBool, E> {
                Ok(LenientBool(Some(v)))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<LenientBool, E> {
                Ok(LenientBool(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientBool, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LenientBool(None))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<LenientBool, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(LenientBool(None))
            }
        }
        d.deserialize_any(V)
    }
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
    fn written_is_any_value_but_null_and_the_empty_string() {
        let v: Vec<Written> = serde_yaml::from_str("[a, '', 1, true, null, {x: 1}, [2]]").unwrap();
        let v: Vec<bool> = v.iter().map(|w| w.0).collect();
        assert_eq!(v, [true, false, true, true, false, true, true]);
    }
}
