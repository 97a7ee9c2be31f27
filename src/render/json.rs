//! Pretty JSON written in parts: `serde_json`'s pretty layout (two spaces),
//! from any depth, so that a large document's parts can be made in
//! parallel and written as they are made, with the bytes `to_writer_pretty`
//! would write for the whole.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io;

/// `serde_json::ser::PrettyFormatter`, starting `depth` levels in.
struct At {
    depth: usize,
    has_value: bool,
}

fn indent<W: ?Sized + io::Write>(w: &mut W, depth: usize) -> io::Result<()> {
    for _ in 0..depth {
        w.write_all(b"  ")?;
    }
    Ok(())
}

impl Formatter for At {
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.depth)?;
        }
        w.write_all(b"]")
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.depth)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.depth)?;
        }
        w.write_all(b"}")
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.depth)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// A value, laid out as if it stood `depth` levels in.
pub fn value_at<T: Serialize + ?Sized>(buf: &mut Vec<u8>, depth: usize, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(buf, At { depth, has_value: false });
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// A JSON string, escaped as serde_json escapes it. Most strings need no
/// escaping: those are copied as they are; in the others the bytes before
/// the first 16 holding one are copied, and the rest escaped byte by byte.
#[inline]
pub fn string(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    match bytes.split_at_checked(plain_len(bytes)) {
        Some((plain, rest)) if !rest.is_empty() => string_escaped(buf, plain, rest),
        _ => {
            buf.reserve(bytes.len() + 2);
            buf.push(b'"');
            buf.extend_from_slice(bytes);
            buf.push(b'"');
        }
    }
}

/// [`string`] of one that needs escaping: `plain`, then `rest` escaped.
/// (Out of line: the plain path, taken for nearly every string, then
/// saves and restores no registers of its own.)
#[cold]
#[inline(never)]
fn string_escaped(buf: &mut Vec<u8>, plain: &[u8], rest: &[u8]) {
    buf.reserve(plain.len() + rest.len() + 2);
    buf.push(b'"');
    buf.extend_from_slice(plain);
    escaped(buf, rest);
    buf.push(b'"');
}

/// Whether JSON escapes `b`: a control character, `"` or `\`.
fn escapes(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether none of 16 bytes needs escaping. (Written without an early
/// exit so that the compiler compares all 16 at once: a plan of a whole
/// cluster writes tens of megabytes of names, nearly all plain.)
#[inline(always)]
fn plain16(c: &[u8; 16]) -> bool {
    // `b ^ 2` is at most 0x20 exactly when `b` is below 0x20 (the xor
    // keeps them there) or is `"` (0x22 ^ 2 = 0x20): two compares a lane.
    let mut bad = 0u8;
    for &b in c {
        bad |= u8::from(b ^ 2 <= 0x20) | u8::from(b == b'\\');
    }
    bad == 0
}

/// How many of the first bytes are known to need no escaping: all of them,
/// or a multiple of 16 (the start of the first 16 that hold a byte to
/// escape, or of a tail that does), from which [`escaped`] goes on.
fn plain_len(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(16);
    let mut at = 0;
    for c in &mut chunks {
        match <&[u8; 16]>::try_from(c) {
            Ok(c) if plain16(c) => at += 16,
            _ => return at,
        }
    }
    let plain = match bytes.len() {
        0 => true,
        // The tail within the last 16 bytes (read again: harmless).
        16.. => bytes.get(bytes.len() - 16..).and_then(|c| <&[u8; 16]>::try_from(c).ok()).is_some_and(plain16),
        // Short: as two eight-byte words (overlapping), or byte by byte.
        8.. => plain8(bytes.get(..8)) && plain8(bytes.get(bytes.len() - 8..)),
        _ => !bytes.iter().any(|&b| escapes(b)),
    };
    if plain {
        bytes.len()
    } else {
        at
    }
}

/// Whether none of eight bytes needs escaping, as one word.
fn plain8(c: Option<&[u8]>) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let Some(w) = c.and_then(|c| <[u8; 8]>::try_from(c).ok()).map(u64::from_ne_bytes) else { return false };
    // A lane of `x` is zero: `(x - 1) & !x` sets its top bit (exactly
    // when some lane is; lanes above a zero one may be set too, which
    // does not change the answer). A lane below 0x20: the same with 0x20.
    let below = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = w ^ (ONES * u64::from(b'"'));
    let slash = w ^ (ONES * u64::from(b'\\'));
    (below | (quote.wrapping_sub(ONES) & !quote) | (slash.wrapping_sub(ONES) & !slash)) & HIGH == 0
}

/// `bytes` escaped as serde_json escapes them, byte by byte: runs of plain
/// bytes copied whole.
fn escaped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let hex = |n: u8| if n < 10 { b'0' + n } else { b'a' + n - 10 };
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if !escapes(b) {
            continue;
        }
        buf.extend_from_slice(bytes.get(run..i).unwrap_or_default());
        run = i + 1;
        match b {
            b'"' => buf.extend_from_slice(b"\\\""),
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            0x08 => buf.extend_from_slice(b"\\b"),
            0x0c => buf.extend_from_slice(b"\\f"),
            _ => buf.extend_from_slice(&[b'\\', b'u', b'0', b'0', hex(b >> 4), hex(b & 0xf)]),
        }
    }
    buf.extend_from_slice(bytes.get(run..).unwrap_or_default());
}

/// A newline and the indentation of up to 32 levels (two spaces each).
const NEWLINE_INDENT: &[u8; 65] = b"\n                                                                ";

/// `sep` (`\n` or `,\n`) then `depth` levels of indentation.
fn line(buf: &mut Vec<u8>, first: bool, depth: usize) {
    if !first {
        buf.push(b',');
    }
    match NEWLINE_INDENT.get(..1 + 2 * depth) {
        Some(s) => buf.extend_from_slice(s),
        None => {
            buf.push(b'\n');
            for _ in 0..depth {
                buf.extend_from_slice(b"  ");
            }
        }
    }
}

/// A number as its digits (what `to_string` writes, without a String),
/// two at a time (a plan of a whole cluster writes four for each object).
pub fn number(buf: &mut Vec<u8>, mut n: u64) {
    const PAIRS: &[u8; 200] = b"00010203040506070809101112131415161718192021222324252627282930313233343536373839\
40414243444546474849505152535455565758596061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    // (At most twenty digits: `at` never goes below 0.)
    let mut put = |at: usize, pair: usize, len: usize| {
        if let (Some(to), Some(from)) = (digits.get_mut(at..at + len), PAIRS.get(2 * pair + 2 - len..2 * pair + 2)) {
            to.copy_from_slice(from);
        }
    };
    while n >= 100 {
        at -= 2;
        put(at, (n % 100) as usize, 2);
        n /= 100;
    }
    let len = if n >= 10 { 2 } else { 1 };
    at -= len;
    put(at, n as usize, len);
    buf.extend_from_slice(digits.get(at..).unwrap_or_default());
}

/// An object written field by field, `depth` levels in.
pub struct Object {
    depth: usize,
    first: bool,
}

impl Object {
    pub fn begin(buf: &mut Vec<u8>, depth: usize) -> Object {
        buf.push(b'{');
        Object { depth, first: true }
    }

    /// An object `depth` levels in whose first fields are already written
    /// (by a writer that knows its layout; the rarer fields go on here).
    pub fn after_fields(depth: usize) -> Object {
        Object { depth, first: false }
    }

    /// `"name": ` on its own line; the value follows.
    pub fn key(&mut self, buf: &mut Vec<u8>, name: &str) {
        line(buf, self.first, self.depth + 1);
        self.first = false;
        buf.push(b'"');
        buf.extend_from_slice(name.as_bytes()); // field names need no escaping
        buf.extend_from_slice(b"\": ");
    }

    pub fn field<T: Serialize + ?Sized>(&mut self, buf: &mut Vec<u8>, name: &str, value: &T) -> io::Result<()> {
        self.key(buf, name);
        value_at(buf, self.depth + 1, value)
    }

    /// A string field.
    pub fn str(&mut self, buf: &mut Vec<u8>, name: &str, value: &str) {
        self.key(buf, name);
        string(buf, value);
    }

    /// A string field, left out when `None`.
    pub fn opt_str(&mut self, buf: &mut Vec<u8>, name: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(buf, name, v);
        }
    }

    /// A number field.
    pub fn num(&mut self, buf: &mut Vec<u8>, name: &str, value: u64) {
        self.key(buf, name);
        number(buf, value);
    }

    /// An array of strings, `[]` when empty.
    pub fn strs(&mut self, buf: &mut Vec<u8>, name: &str, values: &[&str]) {
        self.key(buf, name);
        if values.is_empty() {
            buf.extend_from_slice(b"[]");
            return;
        }
        buf.push(b'[');
        for (i, v) in values.iter().enumerate() {
            element(buf, i == 0, self.depth + 2);
            string(buf, v);
        }
        end_array(buf, self.depth + 2);
    }

    pub fn end(self, buf: &mut Vec<u8>) {
        if !self.first {
            line(buf, true, self.depth);
        }
        buf.push(b'}');
    }
}

/// An array's element separator and indentation, `depth` levels in (the
/// array's own depth plus one).
pub fn element(buf: &mut Vec<u8>, first: bool, depth: usize) {
    line(buf, first, depth);
}

/// The end of a non-empty array whose elements stood `depth` levels in.
pub fn end_array(buf: &mut Vec<u8>, depth: usize) {
    line(buf, true, depth.saturating_sub(1));
    buf.push(b']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_give_the_bytes_of_the_whole() {
        let v = serde_json::json!({"a": [1, {"b": [], "c": {}}, [2, 3]], "d": "x\"y\u{1}\n\\é", "e": {"f": null}});
        let whole = serde_json::to_string_pretty(&v).unwrap();
        let mut buf = Vec::new();
        let mut o = Object::begin(&mut buf, 0);
        o.key(&mut buf, "a");
        buf.push(b'[');
        for (i, x) in v["a"].as_array().unwrap().iter().enumerate() {
            element(&mut buf, i == 0, 2);
            value_at(&mut buf, 2, x).unwrap();
        }
        end_array(&mut buf, 2);
        o.str(&mut buf, "d", v["d"].as_str().unwrap());
        o.field(&mut buf, "e", &v["e"]).unwrap();
        o.end(&mut buf);
        assert_eq!(String::from_utf8(buf).unwrap(), whole);
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        // Every byte that needs escaping, at every place of an eight-byte
        // word and in the tail, among plain and multi-byte characters.
        let mut cases: Vec<String> = vec![String::new(), "plain".into(), "é€😀 ÿ".into(), "a".repeat(64)];
        for special in (0u8..0x20).chain([b'"', b'\\', 0x7f, b' ', b'!', b'#', b'[', b']']) {
            for at in 0..17 {
                let mut s = "x".repeat(17);
                s.insert(at, char::from(special));
                cases.push(s.clone());
                cases.push(format!("é{s}"));
            }
        }
        for s in &cases {
            let mut buf = Vec::new();
            string(&mut buf, s);
            assert_eq!(String::from_utf8(buf).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }

    /// The scan 16 bytes at a time: every ASCII byte (0x00-0x7f) and
    /// multi-byte text at each of the 16 places of a block, in strings
    /// shorter than a block, of one, and of several (the byte in the
    /// first block, a middle one, the overlapping last one or the tail),
    /// alone or after another byte to escape, give serde_json's bytes.
    #[test]
    fn the_scan_escapes_every_byte_at_every_place_as_serde_json_does() {
        let same = |s: &str| {
            let mut buf = Vec::new();
            string(&mut buf, s);
            assert_eq!(String::from_utf8(buf).unwrap(), serde_json::to_string(s).unwrap(), "{s:?}");
        };
        let specials =
            (0u8..0x80).map(char::from).map(String::from).chain(["é", "€", "😀", "é\"", "€\n"].map(String::from));
        for special in specials {
            for len in [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 50] {
                for at in 0..=len {
                    let mut s: String =
                        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".chars().take(len).collect();
                    s.insert_str(at, &special);
                    same(&s);
                    same(&format!("\t{s}"));
                    same(&format!("{s}\u{1f}"));
                }
            }
            same(&special);
        }
    }

    #[test]
    fn numbers_and_deep_indentation_are_what_serde_json_writes() {
        let powers = (0..20).flat_map(|k| {
            let p = 10u64.pow(k);
            [p - 1, p, p + 1, p.saturating_mul(7).saturating_add(3)]
        });
        let spread = (0..2000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64));
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::from(u32::MAX), u64::MAX].into_iter().chain(powers).chain(spread) {
            let mut buf = Vec::new();
            number(&mut buf, n);
            assert_eq!(String::from_utf8(buf).unwrap(), n.to_string());
        }
        // Deeper than the indentation table: 40 levels of arrays.
        let mut v = serde_json::json!(1);
        for _ in 0..40 {
            v = serde_json::json!([v]);
        }
        let mut buf = Vec::new();
        let mut o = Object::begin(&mut buf, 0);
        o.key(&mut buf, "v");
        let mut depth = 2;
        let mut at = &v;
        while let Some(inner) = at.as_array().and_then(|a| a.first()) {
            buf.push(b'[');
            element(&mut buf, true, depth);
            depth += 1;
            at = inner;
        }
        number(&mut buf, 1);
        while depth > 2 {
            depth -= 1;
            end_array(&mut buf, depth);
        }
        o.end(&mut buf);
        let whole = serde_json::to_string_pretty(&serde_json::json!({ "v": v })).unwrap();
        assert_eq!(String::from_utf8(buf).unwrap(), whole);
    }
}
