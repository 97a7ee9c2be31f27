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

/// A JSON string, escaped as serde_json escapes it. (Most strings need no
/// escaping: those are copied as they are.)
pub fn string(buf: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        // serde_json writes to a Vec without failing.
        let _ = serde_json::to_writer(&mut *buf, s);
    } else {
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    }
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

    /// `"name": ` on its own line; the value follows.
    pub fn key(&mut self, buf: &mut Vec<u8>, name: &str) {
        buf.extend_from_slice(if self.first { b"\n" } else { b",\n" });
        self.first = false;
        for _ in 0..=self.depth {
            buf.extend_from_slice(b"  ");
        }
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
        buf.extend_from_slice(value.to_string().as_bytes());
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
            buf.push(b'\n');
            for _ in 0..self.depth {
                buf.extend_from_slice(b"  ");
            }
        }
        buf.push(b'}');
    }
}

/// An array's element separator and indentation, `depth` levels in (the
/// array's own depth plus one).
pub fn element(buf: &mut Vec<u8>, first: bool, depth: usize) {
    buf.extend_from_slice(if first { b"\n" } else { b",\n" });
    for _ in 0..depth {
        buf.extend_from_slice(b"  ");
    }
}

/// The end of a non-empty array whose elements stood `depth` levels in.
pub fn end_array(buf: &mut Vec<u8>, depth: usize) {
    buf.push(b'\n');
    for _ in 0..depth.saturating_sub(1) {
        buf.extend_from_slice(b"  ");
    }
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
}
