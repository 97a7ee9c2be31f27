//! Large JSON lists, parsed in parallel without a pass to find their items.
//!
//! `kubectl get -o json` writes one object whose `items` array holds the
//! whole cluster, pretty-printed: every item begins on a line of its own, at
//! the same indentation. A raw newline never occurs inside a JSON string, so
//! such a line start can be found by a plain substring search. The array is
//! cut at guessed item starts into runs; each run is read item after item,
//! in parallel with the others; then the guesses are checked: each run must
//! end exactly where the next begins, the last one at the array's `]`. The
//! members after the array (kubectl sorts keys: `kind` comes after `items`)
//! are found from the end of the file before the items are read, so that
//! the list's outline is known while they are; it is checked too. Any
//! doubt, and the caller reads the file the general way, which reports
//! errors exactly.

use super::json;
use super::source::{Format, SourceFile};
use std::ops::Range;

/// Files smaller than this are not worth guessing about.
pub const MIN_LEN: usize = 4 << 20;

/// How far from the end of the file the list's `]` is looked for.
const TAIL: usize = 1 << 20;

/// A file that is one pretty-printed object holding a large list.
pub struct Runs {
    /// The key of the list.
    pub member: String,
    /// The object with its list left empty, as a file of its own: its
    /// outline says what the list is.
    pub header: SourceFile,
    /// The first item.
    pub first: usize,
    /// The list's `]`, as guessed from the end of the file.
    pub close: usize,
    /// Where each run starts; a run reads items while they start before the
    /// next run's start.
    pub starts: Vec<usize>,
    /// How the first item's line begins (a newline, blanks, `{`): lines
    /// that begin so tell how many items a run may hold.
    pub item_line: Vec<u8>,
}

impl Runs {
    /// About how many items start in `range` of `b` (its lines that begin
    /// as the first item's do), and never more than a `range` of 32-byte
    /// objects holds: what a run's vector is made for, so that it is not
    /// copied as it grows.
    pub fn items_in(&self, b: &[u8], range: Range<usize>) -> usize {
        let len = range.len();
        let lines = b.get(range).map_or(0, |run| memchr::memmem::find_iter(run, &self.item_line).count());
        lines.min(len / 32) + 1
    }
}

/// The runs of a file that is one object (its `{` at `object`) holding a
/// large list whose items are objects on lines of their own; `None` when
/// the file is not like that.
pub fn runs(text: &str, object: usize, threads: usize) -> Option<Runs> {
    let b = text.as_bytes();
    let mut pre: Vec<Member> = Vec::new();
    let mut j = json::skip_ws(b, object + 1);
    loop {
        let key;
        (key, j) = json::member_key(b, j)?;
        if b.get(j) == Some(&b'[') {
            let first = json::skip_ws(b, j + 1);
            if b.get(first) == Some(&b'{') {
                // The item's line: a newline, blanks, then `{`.
                let line = memchr::memrchr(b'\n', b.get(..first)?)?;
                if line <= j || !b.get(line + 1..first).is_some_and(|blanks| blanks.iter().all(|&c| c == b' ')) {
                    return None;
                }
                let (close, post) = tail(b, first)?;
                let pattern = b.get(line..=first)?;
                let finder = memchr::memmem::Finder::new(pattern);
                let runs = (threads * 8).max(1);
                let stride = ((close - first) / runs).max(1);
                let mut starts = vec![first];
                let mut at = first + stride;
                while at < close {
                    let Some(k) = b.get(at..close).and_then(|hay| finder.find(hay)) else { break };
                    let start = at + k + pattern.len() - 1;
                    starts.push(start);
                    at = start + stride;
                }
                // The object with an empty list in the list's place.
                let mut header = String::from("{");
                let list = (key.clone(), 0..0);
                for (k, v) in pre.iter().chain(std::iter::once(&list)).chain(&post) {
                    if header.len() > 1 {
                        header.push(',');
                    }
                    header.push_str(text.get(k.clone())?);
                    header.push(':');
                    header.push_str(if v.is_empty() { "[]" } else { text.get(v.clone())? });
                }
                header.push('}');
                // Everything but the list must be valid JSON too.
                serde_json::from_str::<serde::de::IgnoredAny>(&header).ok()?;
                let member = serde_json::from_str::<String>(text.get(key)?).ok()?;
                let header = SourceFile::new("<list header>".into(), None, Format::Json, header);
                let item_line = pattern.to_vec();
                return Some(Runs { member, header, first, close, starts, item_line });
            }
        }
        let end = json::value_end(b, j)?;
        pre.push((key, j..end));
        j = json::skip_ws(b, end);
        match b.get(j) {
            Some(b',') => j = json::skip_ws(b, j + 1),
            _ => return None,
        }
    }
}

/// A member of an object: its key (with quotes) and its value.
type Member = (Range<usize>, Range<usize>);

/// The list's `]` and the members after it, found from the end of the file:
/// the last `]` after which the text reads as `, "key": value, … }` and
/// then nothing.
fn tail(b: &[u8], first: usize) -> Option<(usize, Vec<Member>)> {
    let from = b.len().saturating_sub(TAIL).max(first);
    let mut at = b.len();
    while let Some(close) = b.get(from..at).and_then(|hay| memchr::memrchr(b']', hay)).map(|i| from + i) {
        if let Some(post) = members_to_end(b, close + 1) {
            return Some((close, post));
        }
        at = close;
    }
    None
}

/// `, "k": v, … }` from `i` to the end of the file (blanks allowed).
fn members_to_end(b: &[u8], i: usize) -> Option<Vec<Member>> {
    let mut post = Vec::new();
    let mut j = json::skip_ws(b, i);
    loop {
        match b.get(j) {
            Some(b'}') => return (json::skip_ws(b, j + 1) == b.len()).then_some(post),
            Some(b',') => {
                let key;
                (key, j) = json::member_key(b, json::skip_ws(b, j + 1))?;
                let end = json::value_end(b, j)?;
                post.push((key, j..end));
                j = json::skip_ws(b, end);
            }
            _ => return None,
        }
    }
}

/// What follows an item that ends at `end`.
pub enum After {
    /// Another item, starting here.
    Next(usize),
    /// The list's `]`, here.
    Close(usize),
    /// Not a list.
    Broken,
}

pub fn after_item(b: &[u8], end: usize) -> After {
    let j = json::skip_ws(b, end);
    match b.get(j) {
        Some(b',') => After::Next(json::skip_ws(b, j + 1)),
        Some(b']') => After::Close(j),
        _ => After::Broken,
    }
}

#[cfg(test)]
#[allow(clippy::string_slice, reason = "tests slice their own fixtures at the ranges the code under test found")]
mod tests {
    use super::*;

    #[test]
    fn finds_the_list_and_its_tail() {
        let items: String = (0..50).map(|i| format!("  {{\"a\": \"]{i}\"}},\n")).collect();
        let text = format!(
            "{{\n \"apiVersion\": \"v1\",\n \"items\": [\n{}  {{\"a\": 1}}\n ],\n \"kind\": \"List\"\n}}\n",
            items
        );
        let r = runs(&text, 0, 2).unwrap();
        assert_eq!(r.member, "items");
        assert_eq!(&text[r.close..r.close + 1], "]");
        assert!(text[r.close..].contains("\"kind\""));
        assert_eq!(&*r.header.text, r#"{"apiVersion":"v1","items":[],"kind":"List"}"#);
        assert!(r.starts.len() > 1);
    }
}
