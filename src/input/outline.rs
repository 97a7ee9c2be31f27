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
