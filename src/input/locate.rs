//! Finding the text of a field inside an object's span, for labels.
//!
//! Objects are parsed into structs without positions; when a finding needs to
//! point at a particular field (an owner reference, a finalizer, an
//! annotation) it searches the object's own text for it. This runs only for
//! findings, works the same on YAML and JSON, and falls back to the object's
//! first line when the text is written in some unusual way.

use memchr::memmem;
use std::ops::Range;

/// The range of `value` written as a scalar inside `text[span]`, after the keys
/// in `path` (each searched after the previous one).
pub fn value_after(text: &str, span: Range<usize>, path: &[&str], value: &str) -> Option<Range<usize>> {
    let mut start = span.start;
    for key in path {
        start = key_after(text, start..span.end, key)?.end;
    }
    scalar_after(text, start..span.end, value)
}

/// The range of a key (`key:` in YAML, `"key":` in JSON) in `text[span]`.
pub fn key_after(text: &str, span: Range<usize>, key: &str) -> Option<Range<usize>> {
    let hay = text.as_bytes().get(span.clone())?;
    let finder = memmem::Finder::new(key.as_bytes());
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|rest| finder.find(rest)) {
        let at = from + i;
        let end = at + key.len();
        let before_ok = at == 0 || matches!(hay.get(at - 1), Some(b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'{' | b','));
        let mut j = end;
        if matches!(hay.get(j), Some(b'"' | b'\'')) {
            j += 1;
        }
        while matches!(hay.get(j), Some(b' ' | b'\t')) {
            j += 1;
        }
        if before_ok && hay.get(j) == Some(&b':') {
            return Some(span.start + at..span.start + end);
        }
        from = at + 1;
    }
    None
}

/// The range of `value` as a whole scalar (not part of a longer word).
pub fn scalar_after(text: &str, span: Range<usize>, value: &str) -> Option<Range<usize>> {
    if value.is_empty() {
        return None;
    }
    let hay = text.as_bytes().get(span.clone())?;
    let finder = memmem::Finder::new(value.as_bytes());
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|rest| finder.find(rest)) {
        let at = from + i;
        let end = at + value.len();
        let before_ok = at == 0
            || matches!(hay.get(at - 1), Some(b' ' | b'\t' | b'\n' | b'"' | b'\'' | b'-' | b':' | b'[' | b',' | b'/'));
        let after_ok = matches!(
            hay.get(end),
            None | Some(b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b',' | b']' | b'}' | b'#' | b'/')
        );
        if before_ok && after_ok {
            return Some(span.start + at..span.start + end);
        }
        from = at + 1;
    }
    None
}

/// The first line of `text[span]` without leading `- ` and whitespace: where
/// a finding about the whole object points. (A span past the end of the
/// text is cut at the end.)
pub fn head(text: &str, span: Range<usize>) -> Range<usize> {
    let bytes = text.as_bytes();
    let span_end = span.end.min(bytes.len());
    let mut start = span.start.min(span_end);
    while start < span_end && matches!(bytes.get(start), Some(b' ' | b'\t' | b'\n' | b'\r' | b'-')) {
        start += 1;
    }
    let end = bytes.get(start..span_end).and_then(|line| memchr::memchr(b'\n', line)).map_or(span_end, |i| start + i);
    let mut end = end;
    while end > start && matches!(bytes.get(end - 1), Some(b' ' | b'\r' | b'\t')) {
        end -= 1;
    }
    start..end
}

/// Where the character at `offset` ends (a one-character span there).
pub fn next_char_end(text: &str, offset: usize) -> usize {
    text.get(offset..).and_then(|rest| rest.chars().next()).map_or(offset, |c| offset + c.len_utf8())
}

#[cfg(test)]
#[allow(clippy::string_slice, reason = "tests slice their own fixtures at the ranges the code under test found")]
mod tests {
    use super::*;

    #[test]
    fn finds_values_after_keys_in_yaml_and_json() {
        let y = "metadata:\n  name: web\n  ownerReferences:\n  - kind: ReplicaSet\n    name: web-1\n    uid: abc\n";
        let r = value_after(y, 0..y.len(), &["ownerReferences"], "abc").unwrap();
        assert_eq!(&y[r], "abc");
        let r = value_after(y, 0..y.len(), &["metadata"], "web").unwrap();
        assert_eq!(r.start, 18);
        let j = r#"{"metadata": {"name": "web", "ownerReferences": [{"name": "web-1", "uid": "abc"}]}}"#;
        let r = value_after(j, 0..j.len(), &["ownerReferences"], "web-1").unwrap();
        assert_eq!(&j[r], "web-1");
    }

    #[test]
    fn whole_words_only() {
        let y = "name: web-1\nname: web\n";
        let r = scalar_after(y, 0..y.len(), "web").unwrap();
        assert_eq!(r.start, 18);
    }

    #[test]
    fn head_skips_dashes() {
        let y = "- apiVersion: v1\n  kind: Pod";
        assert_eq!(&y[head(y, 0..y.len())], "apiVersion: v1");
    }
}
