//! A fast path for the YAML that `kubectl get -o yaml` and most manifests
//! are written in: block mappings and sequences, plain and one-line quoted
//! scalars. It reads only the fields teardown needs (`apiVersion`, `kind`,
//! `metadata`, and a CRD's `spec.group/scope/names.kind`) and skips every
//! other subtree by indentation, without parsing it.
//!
//! It gives up — returns `None` — on anything it does not fully understand
//! (flow collections, anchors, aliases, tags, block scalars or multi-line
//! scalars in a field it reads, duplicate fields, tabs, quotes it cannot see
//! the end of, `items:`/`resources:` lists, …); the caller then parses the
//! text with serde_yaml. When it answers, the answer is what serde_yaml
//! would give: scalars are resolved by the same rules (null, booleans,
//! integers in four bases, finite floats, else strings). A differential test
//! holds it to that.

use super::raw::{KeptAnnotations, LenientSpec, RawMeta, RawObject, RawOwnerRef, Scalar, StrMap, KEPT_ANNOTATIONS};
use crate::model::Str;

/// One line: its indentation and its content (without the newline, a
/// trailing `\r`, or trailing blanks).
#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    text: &'a str,
}

struct Lines<'a> {
    lines: Vec<Line<'a>>,
}

/// What a plain or quoted scalar resolves to.
#[derive(Debug, PartialEq)]
enum Value<'a> {
    Null,
    Bool(bool),
    /// Text, as serde_yaml's `Scalar` would see it (numbers in their canonical form).
    Text(std::borrow::Cow<'a, str>),
}

/// Split into lines, dropping blank and comment lines. `None` on a tab in
/// the indentation.
fn lines(text: &str) -> Option<Lines<'_>> {
    let mut out = Vec::with_capacity(text.len() / 24 + 1);
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let body = raw.trim_start_matches(' ');
        let indent = raw.len() - body.len();
        if body.starts_with('\t') {
            // A tab after the indentation starts content only in block
            // scalars, which are skipped wholesale; be safe.
            if body.trim_start().is_empty() || body.trim_start().starts_with('#') {
                continue;
            }
            return None;
        }
        let body = body.trim_end_matches([' ', '\t']);
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        out.push(Line { indent, text: body });
    }
    Some(Lines { lines: out })
}

/// Parse a whole document as one object. `None`: use the general parser.
pub fn document(text: &str) -> Option<RawObject> {
    let lines = lines(text)?;
    let l = &lines.lines;
    if l.is_empty() || l[0].indent != 0 {
        return None;
    }
    let mut p = Parser { l, i: 0 };
    p.object(0)
}

/// Parse a block-sequence entry (`- apiVersion: …` and the lines under it)
/// as one object.
pub fn item(text: &str) -> Option<RawObject> {
    let lines = lines(text)?;
    let mut l = lines.lines;
    if l.is_empty() {
        return None;
    }
    let first = l[0];
    let rest = first.text.strip_prefix('-')?;
    let after = rest.trim_start_matches(' ');
    if after.is_empty() {
        // `-` alone: the mapping starts on the next line.
        l.remove(0);
        let base = l.first()?.indent;
        if base <= first.indent {
            return None;
        }
        let mut p = Parser { l: &l, i: 0 };
        return p.object(base);
    }
    if !rest.starts_with(' ') {
        return None;
    }
    let base = first.indent + (first.text.len() - after.len());
    l[0] = Line { indent: base, text: after };
    let mut p = Parser { l: &l, i: 0 };
    p.object(base)
}

struct Parser<'a, 'l> {
    l: &'l [Line<'a>],
    i: usize,
}

/// A mapping line `key: rest` → (key, rest); `rest` is empty for `key:`.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let (key, rest) = match text.as_bytes().first()? {
        b'"' | b'\'' => {
            let end = quoted_end(text)?;
            let rest = text[end..].strip_prefix(':')?;
            (&text[..end], rest)
        }
        b'?' | b'-' | b'[' | b'{' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b',' => return None,
        _ => {
            let colon = text.find(": ").or_else(|| text.strip_suffix(':').map(|k| k.len()))?;
            let key = &text[..colon];
            if key.contains(" #") || key.ends_with(' ') {
                return None;
            }
            (key, &text[colon + 1..])
        }
    };
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((key, rest.trim_start_matches(' ')))
}

/// The end (exclusive) of the quoted scalar at the start of `text`.
fn quoted_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    match b.first()? {
        b'"' => {
            let mut i = 1;
            while i < b.len() {
                match b[i] {
                    b'\\' => i += 2,
                    b'"' => return Some(i + 1),
                    _ => i += 1,
                }
            }
            None
        }
        b'\'' => {
            let mut i = 1;
            while i < b.len() {
                if b[i] == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    return Some(i + 1);
                }
                i += 1;
            }
            None
        }
        _ => None,
    }
}

/// A scalar written on one line: quoted, or plain (up to a ` #` comment).
/// `None` when it is not one (flow collection, anchor, alias, tag, block
/// scalar, an unclosed quote, an escape this reader does not decode).
fn scalar(text: &str) -> Option<Value<'_>> {
    match text.as_bytes().first() {
        None => Some(Value::Null),
        Some(b'"') => {
            let end = quoted_end(text)?;
            trailing_ok(&text[end..])?;
            unescape_double(&text[1..end - 1]).map(Value::Text)
        }
        Some(b'\'') => {
            let end = quoted_end(text)?;
            trailing_ok(&text[end..])?;
            let inner = &text[1..end - 1];
            Some(Value::Text(if inner.contains("''") { inner.replace("''", "'").into() } else { inner.into() }))
        }
        Some(b'[' | b'{' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b'#' | b',' | b'?') => None,
        Some(b'-') if text.len() == 1 || text.as_bytes()[1] == b' ' => None,
        Some(b':') if text.len() == 1 || text.as_bytes()[1] == b' ' => None,
        Some(_) => {
            let plain = match text.find(" #") {
                Some(i) => text[..i].trim_end(),
                None => text,
            };
            if plain.contains(": ") || plain.ends_with(':') || plain.contains('\t') {
                return None;
            }
            Some(resolve(plain))
        }
    }
}

/// After a closing quote: nothing, or a comment.
fn trailing_ok(rest: &str) -> Option<()> {
    let trimmed = rest.trim_start_matches(' ');
    let comment = trimmed.starts_with('#') && trimmed.len() < rest.len();
    (trimmed.is_empty() || comment).then_some(())
}

fn unescape_double(s: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !s.contains('\\') {
        return Some(s.into());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            '/' => out.push('/'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            ' ' => out.push(' '),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                if hex.len() != 4 {
                    return None;
                }
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out.into())
}

/// serde_yaml's resolution of an untagged plain scalar.
fn resolve(v: &str) -> Value<'_> {
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL") {
        return Value::Null;
    }
    match v {
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(i) = parse_unsigned(v, u64::from_str_radix) {
        return Value::Text(i.to_string().into());
    }
    if let Some(i) = parse_negative(v, i64::from_str_radix) {
        return Value::Text(i.to_string().into());
    }
    if let Some(i) = parse_unsigned(v, u128::from_str_radix) {
        return Value::Text(i.to_string().into());
    }
    if let Some(i) = parse_negative(v, i128::from_str_radix) {
        return Value::Text(i.to_string().into());
    }
    if !digits_but_not_number(v) {
        if let Some(f) = parse_f64(v) {
            return Value::Text(f.to_string().into());
        }
    }
    Value::Text(v.into())
}

fn parse_unsigned<T>(v: &str, radix: fn(&str, u32) -> Result<T, std::num::ParseIntError>) -> Option<T> {
    let unpositive = v.strip_prefix('+').unwrap_or(v);
    for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(i) = radix(rest, base) {
                return Some(i);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) {
        return None;
    }
    if digits_but_not_number(v) {
        return None;
    }
    radix(unpositive, 10).ok()
}

fn parse_negative<T>(v: &str, radix: fn(&str, u32) -> Result<T, std::num::ParseIntError>) -> Option<T> {
    for (prefix, base) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = v.strip_prefix(prefix) {
            if let Ok(i) = radix(&format!("-{rest}"), base) {
                return Some(i);
            }
        }
    }
    if digits_but_not_number(v) {
        return None;
    }
    radix(v, 10).ok()
}

fn parse_f64(v: &str) -> Option<f64> {
    let unpositive = match v.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return None,
        Some(u) => u,
        None => v,
    };
    if matches!(unpositive, ".inf" | ".Inf" | ".INF") {
        return Some(f64::INFINITY);
    }
    if matches!(v, "-.inf" | "-.Inf" | "-.INF") {
        return Some(f64::NEG_INFINITY);
    }
    if matches!(v, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN.copysign(1.0));
    }
    match unpositive.parse::<f64>() {
        Ok(f) if f.is_finite() => Some(f),
        _ => None,
    }
}

fn digits_but_not_number(v: &str) -> bool {
    let v = v.strip_prefix(['-', '+']).unwrap_or(v);
    v.len() > 1 && v.starts_with('0') && v[1..].bytes().all(|b| b.is_ascii_digit())
}

/// A scalar as the `Scalar` type reads it (`None` for null).
fn scalar_field(text: &str) -> Option<Option<Scalar>> {
    match scalar(text)? {
        Value::Null => Some(None),
        Value::Bool(b) => Some(Some(Scalar(b.to_string().into()))),
        Value::Text(t) => Some(Some(Scalar(Str::from(&*t)))),
    }
}

/// `LenientStr`: a string, and nothing for any other scalar.
fn lenient_field(text: &str) -> Option<Option<Str>> {
    match scalar(text)? {
        Value::Text(t) if !looks_resolved(text) => Some(Some(Str::from(&*t))),
        _ => Some(None),
    }
}

/// Did a plain scalar resolve to a number? (Then `LenientStr` sees a number,
/// not a string.)
fn looks_resolved(text: &str) -> bool {
    if text.starts_with(['"', '\'']) {
        return false;
    }
    let plain = match text.find(" #") {
        Some(i) => text[..i].trim_end(),
        None => text,
    };
    !matches!(resolve(plain), Value::Text(ref t) if **t == *plain)
}

impl<'a> Parser<'a, '_> {
    /// The next `key: rest` line of the block mapping at `indent`, consumed:
    /// `Some(None)` where the mapping ends (a line indented less, or the
    /// end), `None` for what the fast path does not read (a line indented
    /// more, a line that is not `key: …`).
    fn entry(&mut self, indent: usize) -> Option<Option<(&'a str, &'a str)>> {
        let Some(line) = self.peek() else { return Some(None) };
        if line.indent < indent {
            return Some(None);
        }
        if line.indent > indent {
            return None;
        }
        let (key, rest) = split_key(line.text)?;
        self.i += 1;
        Some(Some((key, rest)))
    }

    fn peek(&self) -> Option<Line<'a>> {
        self.l.get(self.i).copied()
    }

    /// Skip the value of a key at `indent` (the lines below it), checking
    /// that no quote or bracket on them runs over to a line that the skip
    /// would misread.
    fn skip_value(&mut self, indent: usize, rest: &str) -> Option<()> {
        if !one_line_safe(rest) {
            return None;
        }
        let block_scalar = rest.starts_with(['|', '>']);
        let mut scalar_indent: Option<usize> = if block_scalar { Some(indent) } else { None };
        while let Some(line) = self.peek() {
            let seq_continues = line.indent == indent && line.text.starts_with("- ") || line.text == "-";
            if line.indent < indent || (line.indent == indent && !seq_continues) {
                break;
            }
            if scalar_indent.is_some_and(|s| line.indent > s) {
                self.i += 1;
                continue;
            }
            scalar_indent = None;
            let content = value_part(line.text);
            if !one_line_safe(content) {
                return None;
            }
            if content.starts_with(['|', '>']) {
                scalar_indent = Some(line.indent);
            }
            self.i += 1;
        }
        Some(())
    }

    /// A block mapping at `indent`, read into an object. Stops at the first
    /// line indented less.
    fn object(&mut self, indent: usize) -> Option<RawObject> {
        let mut obj = RawObject::default();
        let mut seen = [false; 4];
        while let Some((key, rest)) = self.entry(indent)? {
            let slot = match key {
                "apiVersion" => 0,
                "kind" => 1,
                "metadata" => 2,
                "spec" => 3,
                "items" | "resources" | "\"?\"" | "'?'" | "?" | "<<" => return None,
                k if k.starts_with(['"', '\'']) => {
                    // A quoted key may spell a field we read.
                    let Value::Text(t) = scalar(k)? else { return None };
                    if matches!(&*t, "apiVersion" | "kind" | "metadata" | "spec" | "items" | "resources" | "?") {
                        return None;
                    }
                    self.skip_value(indent, rest)?;
                    continue;
                }
                _ => {
                    self.skip_value(indent, rest)?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return None; // duplicate field: serde_yaml reports it
            }
            match slot {
                0 => obj.api_version = self.scalar_value(rest)?,
                1 => obj.kind = self.scalar_value(rest)?,
                2 => obj.metadata = self.meta(indent, rest)?,
                _ => obj.spec = self.spec(indent, rest)?,
            }
        }
        Some(obj)
    }

    /// A scalar value on the key's own line; a value on the following lines
    /// (multi-line) gives up.
    fn scalar_value(&mut self, rest: &str) -> Option<Option<Scalar>> {
        if rest.is_empty() {
            return None;
        }
        // A line below that is indented deeper would continue the value (a
        // multi-line scalar): every caller's loop gives up on it.
        scalar_field(rest)
    }

    /// The indentation of a nested block under a key at `indent`, or `None`
    /// when nothing is nested.
    fn nested(&self, indent: usize) -> Option<usize> {
        self.peek().filter(|l| l.indent > indent).map(|l| l.indent)
    }

    fn meta(&mut self, indent: usize, rest: &str) -> Option<Option<RawMeta>> {
        if !rest.is_empty() {
            return match scalar(rest)? {
                Value::Null => Some(None),
                _ => None,
            };
        }
        let Some(inner) = self.nested(indent) else { return Some(None) };
        let mut m = RawMeta::default();
        let mut seen = [false; 9];
        while let Some((key, rest)) = self.entry(inner)? {
            let slot = match key {
                "name" => 0,
                "generateName" => 1,
                "namespace" => 2,
                "uid" => 3,
                "labels" => 4,
                "annotations" => 5,
                "ownerReferences" => 6,
                "finalizers" => 7,
                "deletionTimestamp" => 8,
                k if k.starts_with(['"', '\'']) => return None,
                _ => {
                    self.skip_value(inner, rest)?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return None;
            }
            match slot {
                0 => m.name = self.scalar_value(rest)?,
                1 => m.generate_name = self.scalar_value(rest)?,
                2 => m.namespace = self.scalar_value(rest)?,
                3 => m.uid = self.scalar_value(rest)?,
                4 => m.labels = self.string_map(inner, rest, false)?.map(StrMap),
                5 => m.annotations = self.string_map(inner, rest, true)?.map(KeptAnnotations),
                6 => m.owner_references = self.owner_refs(inner, rest)?,
                7 => m.finalizers = self.scalar_list(inner, rest)?,
                _ => m.deletion_timestamp = self.scalar_value(rest)?,
            }
        }
        Some(Some(m))
    }

    /// A mapping of scalars (`labels`), or only the kept keys (`annotations`).
    fn string_map(&mut self, indent: usize, rest: &str, kept_only: bool) -> Option<Option<Vec<(Str, Str)>>> {
        if !rest.is_empty() {
            return match rest {
                "{}" => Some(Some(Vec::new())),
                _ => match scalar(rest)? {
                    Value::Null => Some(None),
                    _ => None,
                },
            };
        }
        let Some(inner) = self.nested(indent) else { return Some(None) };
        let mut out = Vec::new();
        while let Some((key, rest)) = self.entry(inner)? {
            let key: Str = match scalar(key)? {
                Value::Text(t) => Str::from(&*t),
                Value::Bool(b) => b.to_string().into(),
                Value::Null => return None,
            };
            if kept_only && !KEPT_ANNOTATIONS.contains(&&*key) {
                self.skip_value(inner, rest)?;
                continue;
            }
            if rest.is_empty() && self.nested(inner).is_some() {
                return None; // a nested value, or a multi-line scalar
            }
            let value = scalar_field(rest)?.map(|s| s.0).unwrap_or_default();
            out.push((key, value));
        }
        Some(Some(out))
    }

    /// The entries of a block sequence under a key at `indent`: the index
    /// of each entry's first line. Entries may sit at the key's indentation
    /// (`key:\n- a`) or deeper.
    fn entries(&mut self, indent: usize) -> Option<Option<usize>> {
        match self.peek() {
            Some(l) if l.indent >= indent && (l.text.starts_with("- ") || l.text == "-") => Some(Some(l.indent)),
            Some(l) if l.indent > indent => None,
            _ => Some(None),
        }
    }

    fn scalar_list(&mut self, indent: usize, rest: &str) -> Option<Option<Vec<Scalar>>> {
        if !rest.is_empty() {
            return match rest {
                "[]" => Some(Some(Vec::new())),
                _ => match scalar(rest)? {
                    Value::Null => Some(None),
                    _ => None,
                },
            };
        }
        let Some(at) = self.entries(indent)? else { return Some(None) };
        let mut out = Vec::new();
        while let Some(line) = self.peek() {
            if line.indent < at || (line.indent == at && !line.text.starts_with("- ")) {
                break;
            }
            if line.indent > at {
                return None;
            }
            let value = &line.text[2..];
            self.i += 1;
            match scalar_field(value.trim_start_matches(' '))? {
                Some(s) => out.push(s),
                None => return None, // a null element is an error for serde_yaml
            }
            if self.peek().is_some_and(|l| l.indent > at) {
                return None;
            }
        }
        Some(Some(out))
    }

    fn owner_refs(&mut self, indent: usize, rest: &str) -> Option<Option<Vec<RawOwnerRef>>> {
        if !rest.is_empty() {
            return match rest {
                "[]" => Some(Some(Vec::new())),
                _ => match scalar(rest)? {
                    Value::Null => Some(None),
                    _ => None,
                },
            };
        }
        let Some(at) = self.entries(indent)? else { return Some(None) };
        let mut out = Vec::new();
        while let Some(line) = self.peek() {
            let dash = line.text.starts_with("- ") || line.text == "-";
            if line.indent < at || (line.indent == at && !dash) {
                break;
            }
            if line.indent > at {
                return None;
            }
            let after = line.text[1..].trim_start_matches(' ');
            // The entry's first key sits on the dash line, or (`-` alone) on
            // the next line, indented deeper.
            let (key_indent, mut first) = if after.is_empty() {
                self.i += 1;
                match self.peek() {
                    Some(l) if l.indent > at => (l.indent, None),
                    _ => return None,
                }
            } else {
                (at + (line.text.len() - after.len()), Some(after))
            };
            let mut r = RawOwnerRef::default();
            let mut seen = [false; 6];
            loop {
                let text = match first.take() {
                    Some(t) => {
                        self.i += 1;
                        t
                    }
                    None => match self.peek() {
                        Some(l) if l.indent == key_indent => {
                            self.i += 1;
                            l.text
                        }
                        Some(l) if l.indent > key_indent => return None,
                        _ => break,
                    },
                };
                let (key, rest) = split_key(text)?;
                let slot = match key {
                    "apiVersion" => 0,
                    "kind" => 1,
                    "name" => 2,
                    "uid" => 3,
                    "controller" => 4,
                    "blockOwnerDeletion" => 5,
                    k if k.starts_with(['"', '\'']) => return None,
                    _ => {
                        self.skip_value(key_indent, rest)?;
                        continue;
                    }
                };
                if std::mem::replace(&mut seen[slot], true) {
                    return None;
                }
                if rest.is_empty() {
                    return None;
                }
                match slot {
                    0 => r.api_version = scalar_field(rest)?,
                    1 => r.kind = scalar_field(rest)?,
                    2 => r.name = scalar_field(rest)?,
                    3 => r.uid = scalar_field(rest)?,
                    s => {
                        let b = match scalar(rest)? {
                            Value::Bool(b) => Some(b),
                            Value::Null => None,
                            Value::Text(_) => return None,
                        };
                        if s == 4 {
                            r.controller = b;
                        } else {
                            r.block_owner_deletion = b;
                        }
                    }
                }
                if self.peek().is_some_and(|l| l.indent > key_indent) {
                    return None;
                }
            }
            out.push(r);
        }
        Some(Some(out))
    }

    fn spec(&mut self, indent: usize, rest: &str) -> Option<LenientSpec> {
        if !rest.is_empty() {
            // A scalar spec reads as nothing; anything else: give up.
            scalar(rest)?;
            return Some(LenientSpec::default());
        }
        let Some(inner) = self.nested(indent) else { return Some(LenientSpec::default()) };
        let mut spec = LenientSpec::default();
        let mut seen = [false; 3];
        while let Some(line) = self.peek() {
            if line.indent < inner {
                break;
            }
            if line.indent > inner {
                return None;
            }
            if line.text.starts_with("- ") || line.text == "-" {
                // `spec:` holding a sequence reads as nothing.
                self.skip_value(indent, "")?;
                return Some(LenientSpec::default());
            }
            let (key, rest) = split_key(line.text)?;
            self.i += 1;
            let slot = match key {
                "group" => 0,
                "scope" => 1,
                "names" => 2,
                k if k.starts_with(['"', '\'']) => return None,
                _ => {
                    self.skip_value(inner, rest)?;
                    continue;
                }
            };
            if std::mem::replace(&mut seen[slot], true) {
                return None;
            }
            match slot {
                0 | 1 => {
                    let v = if rest.is_empty() {
                        // A nested value reads as nothing.
                        self.skip_value(inner, rest)?;
                        None
                    } else {
                        lenient_field(rest)?
                    };
                    if slot == 0 {
                        spec.group = v;
                    } else {
                        spec.scope = v;
                    }
                }
                _ => spec.names_kind = self.names_kind(inner, rest)?,
            }
        }
        Some(spec)
    }

    fn names_kind(&mut self, indent: usize, rest: &str) -> Option<Option<Str>> {
        if !rest.is_empty() {
            scalar(rest)?;
            return Some(None);
        }
        let Some(inner) = self.nested(indent) else { return Some(None) };
        let mut kind = None;
        let mut seen = false;
        while let Some(line) = self.peek() {
            if line.indent < inner {
                break;
            }
            if line.indent > inner || line.text.starts_with('-') {
                return None;
            }
            let (key, rest) = split_key(line.text)?;
            self.i += 1;
            if key == "kind" {
                if std::mem::replace(&mut seen, true) || rest.is_empty() {
                    return None;
                }
                kind = lenient_field(rest)?;
            } else if key.starts_with(['"', '\'']) {
                return None;
            } else {
                self.skip_value(inner, rest)?;
            }
        }
        Some(kind)
    }
}

/// The value part of a line: after `- ` markers and a `key:`.
fn value_part(text: &str) -> &str {
    let mut t = text;
    while let Some(rest) = t.strip_prefix("- ") {
        t = rest.trim_start_matches(' ');
    }
    match split_key(t) {
        Some((_, rest)) => rest,
        None => t,
    }
}

/// Can a value that starts on this line be skipped line by line? Quotes
/// must close and flow brackets balance on it (outside quotes).
fn one_line_safe(value: &str) -> bool {
    let b = value.as_bytes();
    match b.first() {
        Some(b'"' | b'\'') => quoted_end(value).is_some(),
        Some(b'[' | b'{') => {
            let mut depth = 0i32;
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'"' | b'\'' => match quoted_end(&value[i..]) {
                        Some(n) => {
                            i += n;
                            continue;
                        }
                        None => return false,
                    },
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            depth == 0
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let fast = document(text);
        let slow: Result<RawObject, _> = serde_yaml::from_str(text);
        match (fast, slow) {
            (Some(f), Ok(s)) => assert_eq!(format!("{f:?}"), format!("{s:?}"), "{text}"),
            (Some(f), Err(e)) => panic!("fast path answered {f:?} where serde_yaml fails ({e}):\n{text}"),
            (None, _) => {}
        }
    }

    #[test]
    fn reads_kubectl_output() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: b\n    config.kubernetes.io/depends-on: /namespaces/x/Secret/y\n  labels:\n    app: web\n    version: \"2\"\n  name: web-1\n  namespace: shop\n  ownerReferences:\n  - apiVersion: apps/v1\n    blockOwnerDeletion: true\n    controller: true\n    kind: ReplicaSet\n    name: web\n    uid: 9f8d111d-8e3e-4e3b-9b1b-0123456789ab\n  uid: 0123\n  finalizers:\n  - x.io/y\nspec:\n  containers:\n  - name: c\n    args: [\"a\", \"b\"]\n    command:\n    - |\n      echo \"hi\n  x: y\nstatus:\n  phase: Running\n";
        let fast = document(text).expect("fast path reads it");
        same(text);
        let meta = fast.metadata.unwrap();
        assert_eq!(meta.name.unwrap().0.as_ref(), "web-1");
        assert_eq!(meta.uid.unwrap().0.as_ref(), "0123");
        assert_eq!(meta.owner_references.unwrap()[0].controller, Some(true));
    }

    #[test]
    fn resolves_scalars_as_serde_yaml_does() {
        for v in [
            "1",
            "0x1F",
            "0o17",
            "0b101",
            "-0x1",
            "+1",
            "007",
            "1.5",
            "1e3",
            ".inf",
            "-.inf",
            ".nan",
            "1_000",
            "true",
            "True",
            "no",
            "yes",
            "~",
            "null",
            "\"1\"",
            "'it''s'",
            "\"a\\tb\"",
            "12345678901234567890123",
            "-9",
            "9f8d111d-8e3e",
            "1.0.3",
            "e5",
            "inf",
            "NaN",
            "0.",
            ".5",
            "+.5",
            "-0",
            "0",
        ] {
            let text = format!("apiVersion: {v}\nkind: Pod\nmetadata:\n  name: x\n  labels:\n    k: {v}\n");
            assert!(document(&text).is_some(), "{text}");
            same(&text);
        }
    }

    #[test]
    fn gives_up_on_what_it_does_not_know() {
        for text in [
            "kind: Pod\nmetadata: {name: a}\n",
            "kind: Pod\nmetadata:\n  name: &n a\n",
            "kind: Pod\nmetadata:\n  name: *n\n",
            "kind: !!str Pod\n",
            "kind: Pod\nmetadata:\n  name: |\n    a\n",
            "kind: Pod\nmetadata:\n  name: a\n    b\n",
            "kind: Pod\nkind: Pod\n",
            "kind: Pod\nitems: []\n",
            "kind: Pod\nmetadata:\n  finalizers: [a]\n",
            "kind: Pod\nspec:\n  x: \"open\n  still: open\"\n",
            "kind: Pod\nmetadata:\n\tname: a\n",
        ] {
            assert!(document(text).is_none(), "{text}");
        }
    }

    #[test]
    fn skips_subtrees_it_does_not_read() {
        for text in [
            "kind: Pod\nspec:\n  a:\n  - b: |\n      kind: Fake\n      metadata: nope\n  c: 1\nmetadata:\n  name: real\n",
            "kind: Pod\nstatus:\n  x: >\n    text\n\n    more\nmetadata:\n  name: n\n  managedFields:\n  - fieldsV1:\n      f:metadata: {}\n",
            "# comment\nkind: Pod # trailing\nmetadata:\n  # inner\n  name: 'a b' # c\n",
        ] {
            assert!(document(text).is_some(), "{text}");
            same(text);
        }
    }

    #[test]
    fn reads_list_items() {
        let text = "  - apiVersion: v1\n    kind: Pod\n    metadata:\n      name: p\n";
        let fast = item(text).unwrap();
        assert_eq!(fast.metadata.unwrap().name.unwrap().0.as_ref(), "p");
        let text = "-\n  kind: Pod\n  metadata:\n    name: q\n";
        assert_eq!(item(text).unwrap().metadata.unwrap().name.unwrap().0.as_ref(), "q");
    }
}
