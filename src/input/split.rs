//! Splitting a file into documents, and documents into items, by scanning
//! text — no parsing. This is what lets documents be parsed independently
//! (and in parallel): an error in one document does not hide the others, and
//! every object knows the byte span of its own text.

use std::ops::Range;

/// The documents of a YAML stream, as byte ranges of `text`.
///
/// A line that starts with `---` (alone or followed by a space) starts a new
/// document, and the rest of that line belongs to it; a line `...` ends one.
/// By the YAML spec these markers cannot occur at column 0 inside any node, so
/// a line scan is exact. Documents holding only blank lines, comments and
/// directives are left out.
pub fn yaml_documents(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut docs = Vec::new();
    let mut doc_start = 0;
    let mut has_content = false;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = line_end(bytes, line_start, bytes.len());
        let line = bytes.get(line_start..line_end).unwrap_or_default();
        let next = (line_end + 1).min(bytes.len());
        if is_marker(line, b"---") {
            if has_content {
                docs.push(doc_start..trim_end(bytes, doc_start, line_start));
            }
            doc_start = line_start + 3;
            has_content = is_content(line.get(3..).unwrap_or_default(), false);
        } else if is_marker(line, b"...") {
            if has_content {
                docs.push(doc_start..trim_end(bytes, doc_start, line_start));
            }
            doc_start = next;
            has_content = false;
        } else if !has_content && is_content(line, true) {
            has_content = true;
        }
        line_start = if line_end == bytes.len() { bytes.len() } else { next };
    }
    if has_content {
        docs.push(doc_start..trim_end(bytes, doc_start, bytes.len()));
    }
    docs
}

/// Where the line starting at `start` ends: its `\n`, or `end` (also when
/// `start..end` is not a range of `bytes`).
fn line_end(bytes: &[u8], start: usize, end: usize) -> usize {
    bytes.get(start..end).and_then(|rest| memchr::memchr(b'\n', rest)).map_or(end, |i| start + i)
}

fn is_marker(line: &[u8], marker: &[u8]) -> bool {
    line.starts_with(marker) && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r'))
}

/// Does this line hold YAML content (not blank, not a comment, not a directive)?
fn is_content(line: &[u8], directives_allowed: bool) -> bool {
    let trimmed = trim_start(line);
    match trimmed.first() {
        None | Some(b'\r') | Some(b'#') => false,
        Some(b'%') if directives_allowed && trimmed.len() == line.len() => false,
        Some(_) => true,
    }
}

fn trim_start(mut line: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = line {
        line = rest;
    }
    line
}

fn trim_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && bytes.get(end - 1).is_some_and(u8::is_ascii_whitespace) {
        end -= 1;
    }
    end
}

/// Offset of the first byte of content in `text[range]`: skips whitespace and
/// YAML comment lines. Used to recognise JSON documents (`{` or `[`) inside a
/// YAML stream.
pub fn first_content(text: &str, range: Range<usize>) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = range.start;
    while i < range.end {
        match bytes.get(i)? {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => i = (line_end(bytes, i, range.end) + 1).min(range.end),
            _ => return Some(i),
        }
    }
    None
}

/// A block-style YAML sequence found in a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSequence {
    /// The `key:` line that holds it (empty at the document's start when
    /// the document itself is the sequence).
    pub key_line: Range<usize>,
    /// Each entry, from its `-` to the end of its last content line.
    pub entries: Vec<Range<usize>>,
    /// Where the sequence ends (the start of the first line after it).
    pub end: usize,
}

/// The entries of a block-style YAML sequence: the value of the top-level
/// `key:` of the document in `doc`, or the document itself when `key` is
/// `None`. Returns `None` when the sequence is not written in plain block
/// style (the caller then falls back to the document's span).
pub fn yaml_block_items(text: &str, doc: Range<usize>, key: Option<&str>) -> Option<Vec<Range<usize>>> {
    yaml_block_sequence(text, doc, key).map(|s| s.entries)
}

pub fn yaml_block_sequence(text: &str, doc: Range<usize>, key: Option<&str>) -> Option<BlockSequence> {
    let bytes = text.as_bytes();
    let mut key_line = doc.start..doc.start;
    // Find the key line at column 0.
    if let Some(key) = key {
        let mut found = None;
        let mut line_start = doc.start;
        while line_start < doc.end {
            let line_end = line_end(bytes, line_start, doc.end);
            let line = bytes.get(line_start..line_end).unwrap_or_default();
            if let Some(rest) = line.strip_prefix(key.as_bytes()) {
                if let Some(rest) = rest.strip_prefix(b":") {
                    let rest = trim_start(rest);
                    if matches!(rest.first(), None | Some(b'#' | b'\r')) {
                        found = Some(line_start..line_end);
                        break;
                    }
                }
            }
            line_start = line_end + 1;
        }
        key_line = found?;
    }
    // Walk the lines after it.
    let mut items: Vec<Range<usize>> = Vec::new();
    let mut indent: Option<usize> = None;
    let mut last_content_end = key_line.end;
    let mut line_start = if key.is_some() { key_line.end + 1 } else { doc.start };
    let mut end = doc.end;
    while line_start < doc.end {
        let line_end = line_end(bytes, line_start, doc.end);
        let line = bytes.get(line_start..line_end).unwrap_or_default();
        let body = trim_start(line);
        let n = line.len() - body.len();
        let blank = matches!(body.first(), None | Some(b'#' | b'\r'));
        if !blank {
            let is_entry = body.first() == Some(&b'-') && matches!(body.get(1), None | Some(b' ' | b'\r'));
            match indent {
                None if is_entry => indent = Some(n),
                None => return None,
                Some(_) => {}
            }
            let want = indent.unwrap_or(0);
            if n == want && is_entry {
                if let Some(last) = items.last_mut() {
                    last.end = last_content_end;
                }
                items.push(line_start + n..line_end);
            } else if n <= want {
                end = line_start;
                break;
            }
            last_content_end = trim_end(bytes, line_start, line_end);
        }
        line_start = line_end + 1;
    }
    if let Some(last) = items.last_mut() {
        last.end = last_content_end.max(last.start);
    }
    Some(BlockSequence { key_line, entries: items, end: end.min(doc.end) })
}

#[cfg(test)]
#[allow(clippy::string_slice, reason = "tests slice their own fixtures at the ranges the scanner found")]
mod tests {
    use super::*;

    fn docs(text: &str) -> Vec<&str> {
        yaml_documents(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn splits_on_markers_only_at_column_zero() {
        let text = "a: 1\n---\nb: |\n  ---\n  x\n--- \nc: 2\n...\n# trailing\n";
        assert_eq!(docs(text), vec!["a: 1", "\nb: |\n  ---\n  x", " \nc: 2"]);
    }

    #[test]
    fn skips_empty_and_directive_only_documents() {
        let text = "%YAML 1.2\n---\n# only a comment\n---\n\n---\nk: v\n---\n";
        assert_eq!(docs(text), vec!["\nk: v"]);
    }

    #[test]
    fn content_on_the_marker_line_belongs_to_the_document() {
        assert_eq!(docs("--- {a: 1}\n--- !!str x\n"), vec![" {a: 1}", " !!str x"]);
    }

    #[test]
    fn not_a_marker_without_space() {
        assert_eq!(docs("---x: 1\n"), vec!["---x: 1"]);
    }

    #[test]
    fn block_items_under_a_key() {
        let text = "apiVersion: v1\nitems:\n- a: 1\n  b: 2\n# c\n- a: 3\nkind: List\n";
        let items = yaml_block_items(text, 0..text.len(), Some("items")).unwrap();
        let items: Vec<&str> = items.into_iter().map(|r| &text[r]).collect();
        assert_eq!(items, vec!["- a: 1\n  b: 2", "- a: 3"]);
    }

    #[test]
    fn block_items_indented() {
        let text = "items:\n  - a: 1\n    b:\n    - x\n  - a: 2\nkind: List";
        let items = yaml_block_items(text, 0..text.len(), Some("items")).unwrap();
        let items: Vec<&str> = items.into_iter().map(|r| &text[r]).collect();
        assert_eq!(items, vec!["- a: 1\n    b:\n    - x", "- a: 2"]);
    }

    #[test]
    fn flow_sequences_are_not_block_items() {
        let text = "items: [a, b]\n";
        assert!(yaml_block_items(text, 0..text.len(), Some("items")).is_none());
        let text = "items:\n  [a, b]\n";
        assert!(yaml_block_items(text, 0..text.len(), Some("items")).is_none());
    }

    #[test]
    fn first_content_skips_comments() {
        let text = "# source: x\n  {\"a\": 1}";
        assert_eq!(first_content(text, 0..text.len()), Some(14));
    }
}
