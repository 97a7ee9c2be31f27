//! A JSON object read as serde_json reads it, but faster where nothing is
//! kept: a value a type ignores (a Pod's containers, its status) is
//! checked by a byte scan instead of serde_json's token by token, and a
//! string without escapes is handed to the visitor as it is written.
//!
//! The answer is serde_json's or none: every value it visits is one
//! serde_json would visit the same way (scalars other than plain strings
//! are parsed by serde_json itself), and the scan of an ignored value
//! accepts only what serde_json's `ignore_value` accepts (a strict JSON
//! grammar: strings without control characters, valid escapes, numbers as
//! JSON writes them). Anything else — an error of any kind, an escaped
//! key, a nesting deeper than serde_json's recursion limit, a value of an
//! unexpected shape — gives up ([`Fallback`]), and the caller parses the
//! text again with serde_json, which reports it exactly.

use super::json::{quote_or_backslash, skip_ws, word_at, HI, LO};
use serde::de::{self, DeserializeSeed, Visitor};
use serde::Deserialize;
use std::fmt;

/// Read the JSON object at `at` (after blanks) as `T`: the value and where
/// it ends, or `None` to read it with serde_json instead.
pub fn parse<'de, T: Deserialize<'de>>(text: &'de str, at: usize) -> Option<(T, usize)> {
    let mut de = Lean { s: text, i: skip_ws(text.as_bytes(), at), depth: 0 };
    if de.peek() != Some(b'{') {
        return None;
    }
    let value = T::deserialize(&mut de).ok()?;
    Some((value, de.i))
}

/// Give up: serde_json reads the text instead.
#[derive(Debug)]
pub struct Fallback;

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("read by serde_json instead")
    }
}

impl std::error::Error for Fallback {}

impl de::Error for Fallback {
    fn custom<T: fmt::Display>(_: T) -> Fallback {
        Fallback
    }
}

type Result<T> = std::result::Result<T, Fallback>;

/// Below serde_json's recursion limit (128), with room to spare.
const MAX_DEPTH: usize = 100;

/// The deepest nesting of a value the fast path reads: the objects and
/// arrays it visits, and within them a value it skips (at most 128 deep).
pub const DEEPEST: usize = MAX_DEPTH + u128::BITS as usize;

struct Lean<'de> {
    s: &'de str,
    i: usize,
    /// The objects and arrays visited (not those skipped) around `i`.
    depth: usize,
}

/// The bytes of `w` that may be a `"`, a `\` or a control character (the
/// lowest flagged byte always is one).
#[inline(always)]
fn special(w: u64) -> u64 {
    (quote_or_backslash(w) | (w.wrapping_sub(LO * 0x20) & !w)) & HI
}

/// The end of the string at `b[i] == '"'`, checked as serde_json checks
/// one it ignores, and whether it holds an escape.
#[inline(always)]
fn string_end(b: &[u8], i: usize) -> Result<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        // Eight bytes at a time up to a byte that may end the run.
        while let Some(w) = word_at(b, j) {
            let m = special(w);
            if m != 0 {
                j += (m.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        match b.get(j) {
            Some(b'"') => return Ok((j + 1, escaped)),
            Some(b'\\') => {
                escaped = true;
                j = match b.get(j + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j + 2,
                    Some(b'u') => match b.get(j + 2..j + 6) {
                        Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => j + 6,
                        _ => return Err(Fallback),
                    },
                    _ => return Err(Fallback),
                };
            }
            Some(&c) if c < 0x20 => return Err(Fallback),
            Some(_) => j += 1,
            None => return Err(Fallback),
        }
    }
}

/// The end of the number at `i`, as JSON writes one.
fn number_end(b: &[u8], i: usize) -> Result<usize> {
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    let mut j = i + usize::from(b.get(i) == Some(&b'-'));
    j = match b.get(j) {
        Some(b'0') => j + 1,
        Some(b'1'..=b'9') => digits(j + 1),
        _ => return Err(Fallback),
    };
    if b.get(j) == Some(&b'.') {
        if !b.get(j + 1).is_some_and(u8::is_ascii_digit) {
            return Err(Fallback);
        }
        j = digits(j + 1);
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1 + usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
        if !b.get(j).is_some_and(u8::is_ascii_digit) {
            return Err(Fallback);
        }
        j = digits(j);
    }
    Ok(j)
}

/// The end of `literal` at `i`.
fn literal_end(b: &[u8], i: usize, literal: &[u8]) -> Result<usize> {
    match b.get(i..i + literal.len()) {
        Some(written) if written == literal => Ok(i + literal.len()),
        _ => Err(Fallback),
    }
}

/// After `b[i] == '"'`: a key, a colon; where its value starts.
fn key_colon(b: &[u8], i: usize) -> Result<usize> {
    if b.get(i) != Some(&b'"') {
        return Err(Fallback);
    }
    let (end, _) = string_end(b, i)?;
    let j = skip_ws(b, end);
    if b.get(j) != Some(&b':') {
        return Err(Fallback);
    }
    Ok(j + 1)
}

impl<'de> Lean<'de> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn ws(&mut self) -> Option<u8> {
        self.i = skip_ws(self.s.as_bytes(), self.i);
        self.peek()
    }

    /// Skip the value at `i`, checked as serde_json's `ignore_value`
    /// checks it (which has no depth limit; the scan gives up beyond 128).
    fn skip(&mut self) -> Result<()> {
        let b = self.s.as_bytes();
        // The containers open (bit set: an object), innermost highest.
        let (mut open, mut depth) = (0u128, 0u32);
        let mut i = self.i;
        'value: loop {
            i = skip_ws(b, i);
            match b.get(i) {
                Some(&c @ (b'{' | b'[')) => {
                    let close = if c == b'{' { b'}' } else { b']' };
                    i = skip_ws(b, i + 1);
                    if b.get(i) == Some(&close) {
                        i += 1;
                    } else {
                        if depth >= u128::BITS {
                            return Err(Fallback);
                        }
                        open = (open & !(1 << depth)) | (u128::from(c == b'{') << depth);
                        depth += 1;
                        if c == b'{' {
                            i = key_colon(b, i)?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => i = string_end(b, i)?.0,
                Some(b'-' | b'0'..=b'9') => i = number_end(b, i)?,
                Some(b't') => i = literal_end(b, i, b"true")?,
                Some(b'f') => i = literal_end(b, i, b"false")?,
                Some(b'n') => i = literal_end(b, i, b"null")?,
                _ => return Err(Fallback),
            }
            // After a value: a comma, or the end of its container.
            loop {
                let Some(top) = depth.checked_sub(1) else {
                    self.i = i;
                    return Ok(());
                };
                let object = open >> top & 1 == 1;
                i = skip_ws(b, i);
                match b.get(i) {
                    Some(b',') => {
                        i = skip_ws(b, i + 1);
                        if object {
                            i = key_colon(b, i)?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => return Err(Fallback),
                }
                depth = top;
                i += 1;
            }
        }
    }

    /// The plain string at `i` (no escapes), and where it ends.
    fn plain_string(&self) -> Result<Option<(&'de str, usize)>> {
        let b = self.s.as_bytes();
        let (end, escaped) = string_end(b, self.i)?;
        if escaped {
            return Ok(None);
        }
        Ok(self.s.get(self.i + 1..end - 1).map(|s| (s, end)))
    }

    /// The scalar at `i` (after blanks): its text, for serde_json.
    fn scalar(&mut self) -> Result<&'de str> {
        let b = self.s.as_bytes();
        let end = match self.ws() {
            Some(b'"') => string_end(b, self.i)?.0,
            Some(b'{' | b'[') | None => return Err(Fallback),
            Some(_) => {
                let mut j = self.i;
                while !matches!(b.get(j), None | Some(b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r')) {
                    j += 1;
                }
                j
            }
        };
        let text = self.s.get(self.i..end).filter(|t| !t.is_empty()).ok_or(Fallback)?;
        self.i = end;
        Ok(text)
    }

    /// Into an object or array at `i`: one level deeper.
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Fallback);
        }
        self.i += 1;
        Ok(())
    }

    /// Out of the object or array that `close` ends, as serde_json's
    /// `end_map` and `end_seq` (a visitor that stopped early is an error).
    fn leave(&mut self, close: u8) -> Result<()> {
        if self.ws() != Some(close) {
            return Err(Fallback);
        }
        self.i += 1;
        self.depth -= 1;
        Ok(())
    }

    /// Whether another member or element follows in the object or array
    /// that `close` ends (past its comma), as serde_json's `MapAccess` and
    /// `SeqAccess` tell.
    fn more(&mut self, first: &mut bool, close: u8) -> Result<bool> {
        match self.ws() {
            Some(c) if c == close => return Ok(false),
            Some(b',') if !*first => {
                self.i += 1;
                self.ws();
            }
            _ if *first => {}
            _ => return Err(Fallback),
        }
        *first = false;
        Ok(true)
    }

    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        let value = visitor.visit_map(Entries { de: self, first: true })?;
        self.leave(b'}')?;
        Ok(value)
    }

    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        let value = visitor.visit_seq(Entries { de: self, first: true })?;
        self.leave(b']')?;
        Ok(value)
    }
}

/// `then!` of the methods that read a boolean, a number or bytes.
macro_rules! numbers_and_bytes {
    ($then:ident) => {
        $then!(
            deserialize_bool,
            deserialize_i8,
            deserialize_i16,
            deserialize_i32,
            deserialize_i64,
            deserialize_i128,
            deserialize_u8,
            deserialize_u16,
            deserialize_u32,
            deserialize_u64,
            deserialize_u128,
            deserialize_f32,
            deserialize_f64,
            deserialize_bytes,
            deserialize_byte_buf
        );
    };
}

/// A scalar read by serde_json itself, with the method asked for.
macro_rules! by_serde_json {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.by_json(|de| de.$method(visitor))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Lean<'de> {
    type Error = Fallback;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.ws() {
            Some(b'{') => self.map(visitor),
            Some(b'[') => self.seq(visitor),
            Some(b'"') => self.deserialize_str(visitor),
            _ => self.by_json(|de| de.deserialize_any(visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.ws() == Some(b'"') {
            if let Some((s, end)) = self.plain_string()? {
                self.i = end;
                return visitor.visit_borrowed_str(s);
            }
        }
        self.rarely_by_json(|de| de.deserialize_str(visitor))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.ws() {
            Some(b'n') => self.null(visitor),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value> {
        // serde_json's raw values are its own.
        if name.starts_with("$serde_json") {
            return Err(Fallback);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.ws() {
            Some(b'{') => self.map(visitor),
            _ => self.rarely_by_json(|de| de.deserialize_map(visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.ws() {
            Some(b'{') => self.map(visitor),
            _ => self.struct_otherwise(visitor),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.ws() {
            Some(b'[') => self.seq(visitor),
            _ => self.rarely_by_json(|de| de.deserialize_seq(visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip()?;
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        self.by_json(|de| de.deserialize_unit(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> Result<V::Value> {
        Err(Fallback)
    }

    numbers_and_bytes!(by_serde_json);
    by_serde_json!(deserialize_char, deserialize_unit);
}

impl<'de> Lean<'de> {
    /// A struct written as an array, or not at all: rare, and kept out of
    /// line (with its visitor's `visit_seq` and serde_json's reading), so
    /// that the code that reads objects is small (issue 40: a 100k-object
    /// snapshot's instruction cache misses).
    #[cold]
    #[inline(never)]
    fn struct_otherwise<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(b'[') => self.seq(visitor),
            _ => self.by_json(|de| de::Deserializer::deserialize_map(de, visitor)),
        }
    }

    /// An option at `null` (or what starts as one), read by serde_json;
    /// out of line as [`Lean::struct_otherwise`] is.
    #[cold]
    #[inline(never)]
    fn null<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.by_json(|de| de::Deserializer::deserialize_option(de, visitor))
    }

    /// [`Lean::by_json`] for what is rarely written (an escaped string, a
    /// map or an array that is not one): out of line.
    #[cold]
    #[inline(never)]
    fn rarely_by_json<T>(
        &mut self,
        read: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'de>>) -> serde_json::Result<T>,
    ) -> Result<T> {
        self.by_json(read)
    }

    /// The scalar at `i` read by serde_json: `read` calls the method asked for.
    fn by_json<T>(
        &mut self,
        read: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'de>>) -> serde_json::Result<T>,
    ) -> Result<T> {
        let text = self.scalar()?;
        let mut de = serde_json::Deserializer::from_str(text);
        let value = read(&mut de).map_err(|_| Fallback)?;
        de.end().map_err(|_| Fallback)?;
        Ok(value)
    }
}

/// An object's members or an array's elements, as serde_json's
/// `MapAccess` and `SeqAccess` read them.
struct Entries<'a, 'de> {
    de: &'a mut Lean<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = Fallback;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if !self.de.more(&mut self.first, b'}')? {
            return Ok(None);
        }
        if self.de.peek() != Some(b'"') {
            return Err(Fallback);
        }
        // A key with an escape is read by serde_json.
        let (key, end) = self.de.plain_string()?.ok_or(Fallback)?;
        self.de.i = end;
        seed.deserialize(Key(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.de.ws() != Some(b':') {
            return Err(Fallback);
        }
        self.de.i += 1;
        seed.deserialize(&mut *self.de)
    }
}

impl<'de> de::SeqAccess<'de> for Entries<'_, 'de> {
    type Error = Fallback;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if !self.de.more(&mut self.first, b']')? {
            return Ok(None);
        }
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// A key without escapes, as serde_json's `MapKey` gives it: a borrowed
/// string to whatever asks for a string or anything; a number or a
/// boolean read from a key is left to serde_json.
struct Key<'de>(&'de str);

macro_rules! key_as_str {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_borrowed_str(self.0)
        }
    )*};
}

macro_rules! key_refused {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
            Err(Fallback)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Fallback;

    key_as_str!(
        deserialize_any,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any
    );
    numbers_and_bytes!(key_refused);

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> Result<V::Value> {
        Err(Fallback)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _: &'static str, _: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_enum<V: Visitor<'de>>(self, _: &'static str, _: &'static [&'static str], _: V) -> Result<V::Value> {
        Err(Fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Deserialize, Debug, PartialEq)]
    struct Owner {
        kind: String,
        name: String,
        controller: Option<bool>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Meta {
        name: String,
        labels: Option<BTreeMap<String, String>>,
        #[serde(rename = "ownerReferences")]
        owners: Option<Vec<Owner>>,
        generation: Option<i64>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Probe {
        kind: Option<String>,
        metadata: Option<Meta>,
        replicas: Option<f64>,
        tags: Option<(String, u8)>,
    }

    const SEEDS: &[&str] = &[
        r#"{"kind": "Pod", "metadata": {"name": "a", "labels": {"x": "y", "e": "\u00e9\n"}}, "spec": {"containers": [{"image": "i", "ports": [1, 2.5e3, -0, 1E+2], "ok": true, "no": false, "nil": null}]}}"#,
        "{\n \"kind\": \"Pod\",\n \"metadata\": {\n  \"name\": \"b\",\n  \"ownerReferences\": [{\"kind\": \"RS\", \"name\": \"r\", \"controller\": true}],\n  \"generation\": 3\n },\n \"status\": {\"phase\": \"Running\", \"x\": [[], {}, [{}], \"\\\\\\\"\"]}\n}\n",
        r#"{"replicas": 1.5, "tags": ["t", 7], "metadata": {"name": "c"}, "deep": {"a": {"b": {"c": [1, {"d": "e"}]}}}}"#,
        r#"{"kind": null, "metadata": null, "other": "\ud83d\ude00 and \u0041"}"#,
    ];

    /// Whatever the fast path reads, serde_json reads the same; what it
    /// cannot read, it leaves to serde_json.
    fn agrees(doc: &str) {
        let lean = parse::<Probe>(doc, 0).filter(|(_, end)| skip_ws(doc.as_bytes(), *end) == doc.len());
        let serde = serde_json::from_str::<Probe>(doc);
        if let Some((value, _)) = lean {
            assert_eq!(serde.as_ref().ok(), Some(&value), "{doc:?}");
        }
        let lean = parse::<serde_json::Value>(doc, 0).filter(|(_, end)| skip_ws(doc.as_bytes(), *end) == doc.len());
        if let Some((value, _)) = lean {
            assert_eq!(serde_json::from_str::<serde_json::Value>(doc).ok(), Some(value), "{doc:?}");
        }
    }

    #[test]
    fn reads_as_serde_json_reads() {
        for seed in SEEDS {
            assert!(serde_json::from_str::<Probe>(seed).is_ok(), "{seed}");
            let (value, end) = parse::<Probe>(seed, 0).expect("the fast path reads a plain object");
            assert_eq!(skip_ws(seed.as_bytes(), end), seed.len());
            assert_eq!(Some(value), serde_json::from_str::<Probe>(seed).ok());
            agrees(seed);
        }
    }

    #[test]
    fn never_reads_what_serde_json_refuses() {
        let swaps =
            ["", "\"", "\\", ",", ":", "{", "}", "[", "]", " ", "0", "-", ".", "e", "x", "\u{1}", "\\u12", "01"];
        for seed in SEEDS {
            for (at, _) in seed.char_indices() {
                let (head, tail) = seed.split_at(at);
                let rest = tail.chars().next().and_then(|c| tail.get(c.len_utf8()..)).unwrap_or_default();
                for swap in swaps {
                    agrees(&format!("{head}{swap}{rest}"));
                    agrees(&format!("{head}{swap}{tail}"));
                }
            }
        }
    }

    #[test]
    fn gives_up_on_duplicates_and_depth() {
        assert!(parse::<Probe>(r#"{"kind": "a", "kind": "b"}"#, 0).is_none());
        let deep = format!("{{\"metadata\": {}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(parse::<serde_json::Value>(&deep, 0).is_none());
        // Skipped, as serde_json's ignore_value skips it (no depth limit).
        let skipped = format!("{{\"x\": {}{}}}", "[".repeat(120), "]".repeat(120));
        assert!(parse::<Probe>(&skipped, 0).is_some());
        assert!(serde_json::from_str::<Probe>(&skipped).is_ok());
    }
}
