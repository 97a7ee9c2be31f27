//! Large JSON lists, parsed in parallel without a pass to find their items.
//!
//! `kubectl get -o json` writes one object whose `items` array holds the
//! whole cluster, pretty-printed: every item begins on a line of its own, at
//! the same indentation. A raw newline never occurs inside a JSON string, so
//! such a line start can be found by a plain substring search. The array is
//! cut at guessed item starts into runs; each run is parsed item after item
//! with serde_json, in parallel with the others; then the guesses are
//! checked: each run must end exactly where the next begins, the last one at
//! the array's `]`, and the rest of the object must be valid. Any doubt, and
//! the whole file goes to the general path instead, which reports errors
//! exactly. The list's `kind` may come after the array (kubectl sorts keys),
//! so items are converted to objects only once it is known.

use super::raw::{LenientStr, RawNative, RawObject};
use super::{kubernetes, native, parse_document, shape_of, DocOutput, DocShape, ListInfo};
use crate::findings::Finding;
use crate::input::split::json;
use crate::input::{FileId, SourceFile, Span};
use crate::model::{Dialect, Object};
use std::sync::Arc;

/// Files smaller than this are not worth guessing about.
pub const MIN_LEN: usize = 4 << 20;

/// A list whose items are parsed in runs.
#[derive(Debug)]
pub struct PendingList {
    /// The members before the list member: (key, value).
    pre: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)>,
    /// The first item.
    first: usize,
    native: bool,
}

/// What parsing one run found.
#[derive(Debug)]
pub struct RunResult {
    pub file: FileId,
    pub list: Arc<PendingList>,
    pub start: usize,
    /// Where the next item starts, when the run stopped before the array's end.
    pub next: Option<usize>,
    /// The position of the array's `]`, when the run reached it.
    pub close: Option<usize>,
    /// Items converted as they were read (those that name their own kind
    /// and apiVersion: the list's cannot change them)…
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// …and those that need the list's `kind`/`apiVersion`, with the index
    /// in `objects` they go to.
    pub deferred: Vec<(usize, RawObject, std::ops::Range<usize>)>,
    pub failed: bool,
}

/// The runs of a file that is one pretty-printed object holding a list,
/// starting at `object` (its `{`); `None` when the file is not like that.
pub fn runs(text: &str, object: usize, threads: usize) -> Option<Vec<super::Unit>> {
    let b = text.as_bytes();
    let mut pre = Vec::new();
    let mut j = json::skip_ws(b, object + 1);
    loop {
        let key;
        (key, j) = json::member_key(b, j)?;
        let name = &text[key.start + 1..key.end - 1];
        if matches!(name, "items" | "resources") && b.get(j) == Some(&b'[') {
            let first = json::skip_ws(b, j + 1);
            if b.get(first) != Some(&b'{') {
                return None;
            }
            // The item's line: a newline, blanks, then `{`.
            let line = text[..first].rfind('\n')?;
            if line <= j || !b[line + 1..first].iter().all(|&c| c == b' ') {
                return None;
            }
            let pattern = &b[line..=first];
            let finder = memchr::memmem::Finder::new(pattern);
            let runs = (threads * 8).max(1);
            let stride = ((b.len() - first) / runs).max(1);
            let mut starts = vec![first];
            let mut at = first + stride;
            while at < b.len() {
                let Some(k) = finder.find(&b[at..]) else { break };
                let start = at + k + pattern.len() - 1;
                starts.push(start);
                at = start + stride;
            }
            let list = Arc::new(PendingList { pre, first, native: name == "resources" });
            let units = starts
                .iter()
                .enumerate()
                .map(|(n, &start)| super::Unit::JsonRun {
                    start,
                    stop: starts.get(n + 1).copied().unwrap_or(usize::MAX),
                    list: list.clone(),
                })
                .collect();
            return Some(units);
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

/// Parse items from `start` while they start before `stop`.
pub fn parse_run(text: &str, file: FileId, start: usize, stop: usize, list: &Arc<PendingList>) -> RunResult {
    let b = text.as_bytes();
    let mut r = RunResult {
        file,
        list: list.clone(),
        start,
        next: None,
        close: None,
        objects: Vec::new(),
        findings: Vec::new(),
        deferred: Vec::new(),
        failed: false,
    };
    let mut pos = start;
    loop {
        if pos >= stop {
            r.next = Some(pos);
            return r;
        }
        let end = if list.native {
            let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<RawNative>();
            match stream.next() {
                Some(Ok(item)) => {
                    let end = pos + stream.byte_offset();
                    r.objects.extend(native::convert(item, Span::new(file, pos..end), text, &mut r.findings));
                    end
                }
                _ => break,
            }
        } else {
            let mut stream = serde_json::Deserializer::from_str(&text[pos..]).into_iter::<RawObject>();
            match stream.next() {
                Some(Ok(item)) => {
                    let end = pos + stream.byte_offset();
                    let own = |s: &Option<super::raw::Scalar>| s.as_ref().is_some_and(|s| !s.0.is_empty());
                    if own(&item.kind) && own(&item.api_version) {
                        let span = Span::new(file, pos..end);
                        r.objects.extend(kubernetes::convert(item, span, text, Default::default(), &mut r.findings));
                    } else {
                        r.deferred.push((r.objects.len(), item, pos..end));
                    }
                    end
                }
                _ => break,
            }
        };
        let j = json::skip_ws(b, end);
        match b.get(j) {
            Some(b',') => pos = json::skip_ws(b, j + 1),
            Some(b']') => {
                r.close = Some(j);
                return r;
            }
            _ => break,
        }
    }
    r.failed = true;
    r
}

/// Check a file's runs and turn their items into objects, or — when a guess
/// was wrong or anything else is off — parse the file the general way.
pub fn finish(file: &SourceFile, id: FileId, runs: Vec<RunResult>, forced: Option<Dialect>) -> DocOutput {
    match check(file, &runs, forced) {
        Some(info) => {
            let info = Some(Arc::new(info));
            let text = &*file.text;
            let mut out = DocOutput::default();
            out.objects.reserve(runs.iter().map(|r| r.objects.len() + r.deferred.len()).sum());
            for mut run in runs {
                // Items that left out their kind or apiVersion take the list's.
                let context = ListInfo::context(&info);
                let mut done = run.objects.into_iter();
                let mut taken = 0;
                for (at, raw, range) in run.deferred {
                    out.objects.extend(done.by_ref().take(at - taken));
                    taken = at;
                    out.objects.extend(kubernetes::convert(
                        raw,
                        Span::new(id, range),
                        text,
                        context,
                        &mut run.findings,
                    ));
                }
                out.objects.extend(done);
                out.findings.extend(run.findings);
            }
            out
        }
        None => parse_document(file, id, 0..file.text.len(), forced),
    }
}

/// The runs cover the array item by item, end to end; the rest of the
/// object is valid JSON and says it is a list (or native document); nothing
/// follows the object. Returns what the list tells its items.
fn check(file: &SourceFile, runs: &[RunResult], forced: Option<Dialect>) -> Option<ListInfo> {
    let text = &*file.text;
    let b = text.as_bytes();
    let list = &runs.first()?.list;
    if runs[0].start != list.first {
        return None;
    }
    for pair in runs.windows(2) {
        if pair[0].failed || pair[0].next != Some(pair[1].start) {
            return None;
        }
    }
    let last = runs.last()?;
    let close = last.close.filter(|_| !last.failed)?;
    // The members after the list, and nothing after the object.
    let mut post = Vec::new();
    let mut j = json::skip_ws(b, close + 1);
    loop {
        match b.get(j) {
            Some(b'}') => break,
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
    if json::skip_ws(b, j + 1) != b.len() {
        return None;
    }
    // The object without its list must be valid JSON, with no second list.
    let mut header = String::from("{");
    for (k, v) in list.pre.iter().chain(&post) {
        if header.len() > 1 {
            header.push(',');
        }
        header.push_str(&text[k.clone()]);
        header.push(':');
        header.push_str(&text[v.clone()]);
    }
    header.push('}');
    let shape: ListHeader = serde_json::from_str(&header).ok()?;
    if shape.items.is_some() || shape.resources.is_some() {
        return None; // a duplicate field: the general path reports it
    }
    let kind = shape.kind.and_then(|k| k.0);
    let named = shape.metadata.is_some_and(|m| m.0);
    let expected = if list.native { DocShape::Native } else { DocShape::List };
    let (items, resources) = if list.native { (false, true) } else { (true, false) };
    if shape_of(forced, kind.as_deref(), named, items, resources) != expected {
        return None;
    }
    Some(ListInfo { api_version: shape.api_version.and_then(|v| v.0), kind })
}

#[derive(serde::Deserialize)]
struct ListHeader {
    kind: Option<LenientStr>,
    #[serde(rename = "apiVersion")]
    api_version: Option<LenientStr>,
    metadata: Option<super::raw::HasName>,
    items: Option<serde::de::IgnoredAny>,
    resources: Option<serde::de::IgnoredAny>,
}

/// Parse a run unit into `out.runs`.
pub fn parse_unit(text: &str, file: FileId, start: usize, stop: usize, list: &Arc<PendingList>, out: &mut DocOutput) {
    out.runs.push(parse_run(text, file, start, stop, list));
}
