//! JSON structure without parsing: where values begin and end, so that the
//! items of a large `List` can be parsed one by one, in parallel. These
//! functions only find boundaries; each piece is still parsed (and so
//! validated) by serde_json, and any doubt sends the caller back to the
//! general path, which reports errors exactly.
//!
//! Also: a JSON value's outline (its top-level keys), and serde_json's
//! errors as findings at their place.

use super::outline::{Member, Outline, Shape, Value};
use crate::findings::{Finding, Rule};
use crate::span::{FileId, Span};
use std::borrow::Cow;
use std::ops::Range;

/// Past the blanks (JSON's whitespace) at `i`.
///
/// Most blanks are one (after a colon) or none; pretty-printed JSON's
/// indentation, a line break and a run of spaces, is skipped eight spaces
/// at a time.
#[inline]
pub fn skip_ws(b: &[u8], mut i: usize) -> usize {
    let blank = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t' | b'\n' | b'\r'));
    loop {
        if !blank(b.get(i)) {
            return i;
        }
        if !blank(b.get(i + 1)) {
            return i + 1;
        }
        i += 2;
        // (Read in place: through `word_at` this loop costs 3.7 M more
        // instructions on 20k objects, callgrind, as compiled today.)
        while let Some(chunk) = b.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            // Zero where a space is: the lowest other byte ends the run.
            let other = u64::from_le_bytes(word) ^ 0x2020_2020_2020_2020;
            if other != 0 {
                i += (other.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
    }
}

/// Is this text, whatever its file is called, JSON documents one after
/// another — NDJSON, pretty-printed documents, `kubectl get -o json` run
/// several times — or one large JSON document (`kubectl get -o json` on
/// standard input, read in parallel runs as a `.json` file is)? Its first
/// value is an object or an array; after it comes another one, or nothing
/// in a text of `large` bytes or more. One small JSON document stays a
/// YAML document that starts like JSON, and JSON documents parted by `---`
/// a YAML stream.
pub fn is_stream(b: &[u8], large: usize) -> bool {
    let start = skip_ws(b, 0);
    if !matches!(b.get(start), Some(b'{' | b'[')) {
        return false;
    }
    if b.len() >= large {
        return true;
    }
    let Some(end) = value_end(b, start) else { return false };
    matches!(b.get(skip_ws(b, end)), Some(b'{' | b'['))
}

/// The end of the string starting at `b[i] == '"'`.
pub fn string_end(b: &[u8], i: usize) -> Option<usize> {
    string_end_escaped(b, i).map(|(end, _)| end)
}

/// A byte repeated in each byte of a word, times the byte.
pub const LO: u64 = 0x0101_0101_0101_0101;
/// The high bit of each byte of a word.
pub const HI: u64 = 0x8080_8080_8080_8080;

/// The eight bytes of `b` from `j`, as one little-endian word; `None` when
/// fewer are left.
#[inline(always)]
pub fn word_at(b: &[u8], j: usize) -> Option<u64> {
    let mut word = [0u8; 8];
    word.copy_from_slice(b.get(j..j + 8)?);
    Some(u64::from_le_bytes(word))
}

/// Where `w` may hold a `"` or a `\`: the high bit of such a byte is set
/// once masked with [`HI`] (the caller masks, so that it can add flags
/// of its own first). The lowest flagged byte always is one; those above
/// it may be false alarms.
#[inline(always)]
pub fn quote_or_backslash(w: u64) -> u64 {
    let quote = w ^ (LO * u64::from(b'"'));
    let backslash = w ^ (LO * u64::from(b'\\'));
    (quote.wrapping_sub(LO) & !quote) | (backslash.wrapping_sub(LO) & !backslash)
}

/// The end of the string starting at `b[i] == '"'`, and whether it holds
/// a backslash. Eight bytes at a time: most strings are a few words long,
/// shorter than a vectorised search takes to start.
pub fn string_end_escaped(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let mut j = i + 1;
    let mut escaped = false;
    loop {
        while let Some(w) = word_at(b, j) {
            let m = quote_or_backslash(w) & HI;
            if m != 0 {
                j += (m.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        match b.get(j)? {
            b'\\' => {
                escaped = true;
                j += 2;
                if j > b.len() {
                    return None;
                }
            }
            b'"' => return Some((j + 1, escaped)),
            _ => j += 1,
        }
    }
}

/// The brackets still open, innermost last (`true`: a `{`): in a word's
/// bits for the first 128 levels, beyond them in a `Vec` (which a value
/// as shallow as nearly all are never allocates).
#[derive(Default)]
struct Closers {
    bits: u128,
    depth: usize,
    deeper: Vec<bool>,
}

impl Closers {
    fn push(&mut self, brace: bool) {
        match u32::try_from(self.depth).ok().filter(|&d| d < u128::BITS) {
            Some(d) => self.bits = (self.bits & !(1 << d)) | (u128::from(brace) << d),
            None => self.deeper.push(brace),
        }
        self.depth += 1;
    }

    fn pop(&mut self) -> Option<bool> {
        self.depth = self.depth.checked_sub(1)?;
        match u32::try_from(self.depth).ok().filter(|&d| d < u128::BITS) {
            Some(d) => Some(self.bits >> d & 1 == 1),
            None => self.deeper.pop(),
        }
    }
}

/// The end of the value starting at `b[i]` (no leading whitespace).
pub fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string_end(b, i),
        open @ (b'{' | b'[') => {
            let mut stack = Closers::default();
            stack.push(open == b'{');
            let mut j = i + 1;
            while let Some(&c) = b.get(j) {
                match c {
                    b'"' => {
                        j = string_end(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => stack.push(c == b'{'),
                    b'}' | b']' => {
                        if stack.pop() != Some(c == b'}') {
                            return None;
                        }
                        if stack.depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            // A number, true, false or null: up to a delimiter.
            let mut j = i;
            while !matches!(b.get(j), None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// The key of the member at `b[i] == '"'` (quotes included), and where
/// its value starts (after the colon and blanks).
pub fn member_key(b: &[u8], i: usize) -> Option<(Range<usize>, usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let key = i..string_end(b, i)?;
    let j = skip_ws(b, key.end);
    if b.get(j) != Some(&b':') {
        return None;
    }
    Some((key, skip_ws(b, j + 1)))
}

/// The members of the object at `b[i] == '{'`: (key text with quotes,
/// value range), and the end of the object.
#[allow(clippy::type_complexity)]
pub fn members(b: &[u8], i: usize) -> Option<(Vec<(Range<usize>, Range<usize>)>, usize)> {
    let mut out = Vec::new();
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b'}') {
        return Some((out, j + 1));
    }
    loop {
        let key;
        (key, j) = member_key(b, j)?;
        let end = value_end(b, j)?;
        out.push((key, j..end));
        j = skip_ws(b, end);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b'}') => return Some((out, j + 1)),
            _ => return None,
        }
    }
}

/// The elements of the array at `b[i] == '['`, and the end of the array.
pub fn elements(b: &[u8], i: usize) -> Option<(Vec<Range<usize>>, usize)> {
    let mut out = Vec::new();
    let mut j = skip_ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Some((out, j + 1));
    }
    loop {
        let end = value_end(b, j)?;
        out.push(j..end);
        j = skip_ws(b, end);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b']') => return Some((out, j + 1)),
            _ => return None,
        }
    }
}

/// The shape of the value starting with `first`.
pub fn shape_of(first: u8) -> Shape {
    match first {
        b'{' => Shape::Map,
        b'[' => Shape::Seq,
        b'n' => Shape::Null,
        _ => Shape::Scalar,
    }
}

/// The outline of the value at `start`. With `end`, the value must end
/// there and every key is read; without, the keys are read up to the first
/// one that holds an object or an array (an item read as it streams), and
/// the outline is complete only if the object ends before. `None` when the
/// text is not a JSON value there.
pub fn outline(text: &str, start: usize, end: Option<usize>) -> Option<Outline<'_>> {
    let b = text.as_bytes();
    let shape = shape_of(*b.get(start)?);
    if shape != Shape::Map {
        if let Some(end) = end {
            if value_end(b, start)? != end {
                return None;
            }
        }
        return Some(Outline::new(shape));
    }
    // (An object's first keys are `apiVersion`, `kind`, `metadata`.)
    let mut members = Vec::with_capacity(4);
    let mut j = skip_ws(b, start + 1);
    if b.get(j) == Some(&b'}') {
        return (end.is_none_or(|e| e == j + 1)).then(|| Outline::new(Shape::Map));
    }
    loop {
        // The key, and whether it or the value holds an escape.
        if b.get(j) != Some(&b'"') {
            return None;
        }
        let (key_end, key_escaped) = string_end_escaped(b, j)?;
        let key = (j..key_end, key_escaped);
        j = skip_ws(b, key_end);
        if b.get(j) != Some(&b':') {
            return None;
        }
        j = skip_ws(b, j + 1);
        let value_start = j;
        let first = *b.get(j)?;
        if end.is_none() && matches!(first, b'{' | b'[') {
            members.push(member(text, key, (value_start..value_start, false), first)?);
            return Some(Outline { shape, members, complete: false });
        }
        let (value_end, escaped) = match first {
            b'"' => string_end_escaped(b, j)?,
            _ => (value_end(b, j)?, false),
        };
        members.push(member(text, key, (value_start..value_end, escaped), first)?);
        j = skip_ws(b, value_end);
        match b.get(j) {
            Some(b',') => j = skip_ws(b, j + 1),
            Some(b'}') => {
                if end.is_some_and(|e| e != j + 1) {
                    return None;
                }
                if members.iter().enumerate().any(|(n, m)| members.iter().take(n).any(|o| o.key == m.key)) {
                    return None; // a key twice: whoever reads it says so
                }
                return Some(Outline { shape, members, complete: true });
            }
            _ => return None,
        }
    }
}

/// A member from its key's and its value's ranges, each with whether it
/// holds a backslash (a string with none is its text between the quotes).
fn member<'a>(
    text: &'a str,
    (key, key_escaped): (Range<usize>, bool),
    (value, escaped): (Range<usize>, bool),
    first: u8,
) -> Option<Member<'a>> {
    let decode = |r: Range<usize>, escaped: bool| -> Option<Cow<'a, str>> {
        if escaped {
            serde_json::from_str::<String>(text.get(r)?).ok().map(Cow::Owned)
        } else {
            text.get(r.start + 1..r.end.saturating_sub(1)).map(Cow::Borrowed)
        }
    };
    let v = match first {
        b'"' => Value::Str(decode(value.clone(), escaped)?),
        b'{' => Value::Map,
        b'[' => Value::Seq,
        b'n' => Value::Null,
        _ => Value::Other,
    };
    Some(Member { key: decode(key, key_escaped)?, value: v, at: value })
}

/// Where the JSON value in `b` first nests deeper than `max` levels, if it
/// does: refused as YAML is (see `yaml::MAX_NESTING`), whether or not the
/// deep part is a field teardown reads. A value with no more than `max`
/// opening brackets cannot, which a count (vectorised) tells at once; only
/// a value with more is scanned.
pub fn too_deep(b: &[u8], max: usize) -> Option<usize> {
    // `[` is `{` but for bit 5; counted in bytes, 255 at a time, which
    // vectorises (0.7 instructions a byte, against 5 for a `usize` sum).
    let openers: usize =
        b.chunks(255).map(|c| usize::from(c.iter().fold(0u8, |n, &x| n + u8::from((x | 0x20) == b'{')))).sum();
    if openers <= max {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            // A broken string: serde_json says where.
            b'"' => match string_end(b, i) {
                Some(end) => {
                    i = end;
                    continue;
                }
                None => return None,
            },
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The finding for a value nested deeper than `max` at `offset`.
pub fn too_deep_finding(id: FileId, offset: usize, max: usize) -> Finding {
    Finding::new(Rule::Td001, format!("JSON: collections nest deeper than {max} levels"))
        .at(Span::new(id, offset..offset + 1), "here")
        .fatal()
}

/// A JSON syntax or type error, located in the file. serde_json reports a
/// line and a byte column relative to the text it parsed, which starts at
/// `base`. Syntax errors are fatal.
pub fn error(text: &str, id: FileId, base: usize, e: &serde_json::Error) -> Finding {
    let slice = text.get(base..).unwrap_or_default();
    let mut offset = base;
    if e.line() > 0 {
        let line_start = if e.line() == 1 {
            0
        } else {
            memchr::memchr_iter(b'\n', slice.as_bytes()).nth(e.line() - 2).map(|i| i + 1).unwrap_or(slice.len())
        };
        offset = base + (line_start + e.column().saturating_sub(1)).min(slice.len());
    }
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let finding = Finding::new(Rule::Td001, format!("JSON: {}", clean(&e.to_string())))
        .at(Span::new(id, offset..super::locate::next_char_end(text, offset)), "here");
    match e.classify() {
        serde_json::error::Category::Data => finding,
        _ => finding.fatal(),
    }
}

/// serde_json's message without the position it appends.
fn clean(message: &str) -> String {
    match message.rsplit_once(" at line ") {
        Some((head, tail))
            if tail.split_once(" column ").is_some_and(|(l, c)| {
                !l.is_empty()
                    && l.bytes().all(|b| b.is_ascii_digit())
                    && !c.is_empty()
                    && c.bytes().all(|b| b.is_ascii_digit())
            }) =>
        {
            head.to_string()
        }
        _ => message.to_string(),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn blanks_and_strings_end_where_counting_says() {
        // Every mix of blanks and other bytes up to 12 long, at every start.
        let alphabet = [b' ', b'\n', b'\t', b'\r', b'x', b'"', b'\\', 0u8];
        for n in 0..200_000u32 {
            let len = (n % 13) as usize;
            let text: Vec<u8> = (0..len).map(|k| alphabet[(n as usize >> ((k * 3) % 30)) % alphabet.len()]).collect();
            for i in 0..=len + 1 {
                let mut naive = i;
                while matches!(text.get(naive), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    naive += 1;
                }
                assert_eq!(super::skip_ws(&text, i), naive, "{text:?} at {i}");
            }
            if text.first() == Some(&b'"') {
                // The first quote not escaped, and whether a backslash came before.
                let (mut j, mut escaped, mut end) = (1, false, None);
                while let Some(&c) = text.get(j) {
                    match c {
                        b'\\' => (escaped, j) = (true, j + 2),
                        b'"' => {
                            end = Some((j + 1, escaped));
                            break;
                        }
                        _ => j += 1,
                    }
                }
                let end = end.filter(|_| j <= text.len());
                assert_eq!(super::string_end_escaped(&text, 0), end, "{text:?}");
            }
        }
    }

    #[test]
    fn json_streams_are_told_from_yaml() {
        for stream in ["{\"a\": 1}\n{\"b\": 2}\n", "{\n \"a\": [1]\n}\n\n[{}]", " {}{}"] {
            assert!(is_stream(stream.as_bytes(), 1 << 20), "{stream}");
        }
        for other in ["{\"a\": 1}\n", "{\"a\": 1}\n---\n{\"b\": 2}\n", "a: {}\n", "# {}\n{}{}", "{\"a\": 1\n{}"] {
            assert!(!is_stream(other.as_bytes(), 1 << 20), "{other}");
        }
        assert!(is_stream(b"{\"a\": 1}", 4));
    }

    use super::*;

    #[test]
    fn finds_members_and_elements() {
        let t = br#" {"kind": "List", "items": [ {"a": "}\"]"}, [1, 2], 3 ], "x": null } "#;
        let i = skip_ws(t, 0);
        let (m, end) = members(t, i).unwrap();
        assert_eq!(end, t.len() - 1);
        let keys: Vec<&[u8]> = m.iter().map(|(k, _)| &t[k.clone()]).collect();
        assert_eq!(keys, [&b"\"kind\""[..], b"\"items\"", b"\"x\""]);
        let (e, _) = elements(t, m[1].1.start).unwrap();
        let items: Vec<&[u8]> = e.iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(items, [&br#"{"a": "}\"]"}"#[..], b"[1, 2]", b"3"]);
    }

    #[test]
    fn nesting_is_measured_outside_strings() {
        let deep = |n: usize| format!("{{\"a\": {}{}}}", "[".repeat(n), "]".repeat(n));
        assert_eq!(too_deep(deep(511).as_bytes(), 512), None);
        assert_eq!(too_deep(deep(512).as_bytes(), 512), Some(517));
        // Brackets in strings are text; many brackets side by side are not depth.
        let quoted = format!("{{\"a\": \"{}\", \"b\": [{}]}}", "[".repeat(600), "[], ".repeat(600) + "[]");
        assert_eq!(too_deep(quoted.as_bytes(), 512), None);
        let objects = format!("{}1{}", "{\"k\": ".repeat(600), "}".repeat(600));
        assert_eq!(too_deep(objects.as_bytes(), 512), Some(512 * 6));
    }

    #[test]
    fn rejects_broken_structure() {
        assert!(members(br#"{"a": [1, 2}"#, 0).is_none());
        assert!(members(br#"{"a" 1}"#, 0).is_none());
        assert!(elements(br#"[1 2]"#, 0).is_none());
        assert!(elements(br#"["a]"#, 0).is_none());
    }

    #[test]
    fn brackets_match_at_any_depth() {
        // Past the 128 levels kept in bits, and back.
        let pattern = |n: usize| (0..n).map(|i| if i % 3 == 0 { '{' } else { '[' }).collect::<String>();
        for n in [1, 127, 128, 129, 300] {
            let open = pattern(n);
            let close: String = open.chars().rev().map(|c| if c == '{' { '}' } else { ']' }).collect();
            // `{` opens a member: give each one a key.
            let value = open.replace('{', "{\"k\":") + "1" + &close;
            assert_eq!(value_end(value.as_bytes(), 0), Some(value.len()), "{n}");
            // The wrong closer at the deepest level, then at the outermost.
            let mut wrong = value.clone().into_bytes();
            let first_close = value.find(['}', ']']).unwrap();
            wrong[first_close] = if wrong[first_close] == b'}' { b']' } else { b'}' };
            assert_eq!(value_end(&wrong, 0), None, "{n}");
            let mut wrong = value.clone().into_bytes();
            let last = wrong.len() - 1;
            wrong[last] = if wrong[last] == b'}' { b']' } else { b'}' };
            assert_eq!(value_end(&wrong, 0), None, "{n}");
        }
    }
}
