//! Edits of the text of a snapshot file that keep everything around them
//! byte for byte: take a document, an item of a list or a nested value out
//! of its container, take an entry out of a list inside an object, set a
//! flag in a mapping. Syntax only: which list holds an object's owners is
//! the dialect's to say (`dialect::Edits`); `apply` checks every result by
//! reading the file again.
//!
//! Two syntaxes are understood: JSON and YAML flow collections (brackets,
//! braces, commas, quoted strings), and YAML block collections, by their
//! lines and indentation (the layout `kubectl get -o yaml` and most
//! manifests use). Anything else is [`Unsupported`], never guessed at.

use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// A replacement of `range` by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

impl Edit {
    fn cut(range: Range<usize>) -> Edit {
        Edit { range, text: String::new() }
    }
}

/// Why an edit cannot be made exactly: what was found where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    pub at: usize,
    pub what: String,
}

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(at: usize, what: impl Into<String>) -> R<T> {
    Err(Unsupported { at, what: what.into() })
}

/// `text[range]`; a range that is not in the text (or cuts a character)
/// is refused, never read as some other text.
fn part(text: &str, range: Range<usize>) -> R<&str> {
    match text.get(range.clone()) {
        Some(s) => Ok(s),
        None => unsupported(range.start, "a range that is not in the text"),
    }
}

/// `text[at..]`, refused like [`part`].
fn from(text: &str, at: usize) -> R<&str> {
    match text.get(at..) {
        Some(s) => Ok(s),
        None => unsupported(at, "a range that is not in the text"),
    }
}

/// An entry of a collection: its whole range (what removing it removes,
/// before separators are counted), its key (mappings) and its value.
#[derive(Clone, Debug)]
struct Entry {
    /// Block: from the start of its first line to the end of its last
    /// content line (with the newline). Flow: the entry itself, trimmed.
    whole: Range<usize>,
    key: Option<String>,
    value: Range<usize>,
}

/// A collection as written.
#[derive(Clone, Debug)]
struct Collection {
    flow: bool,
    /// Flow: the range between the brackets.
    inner: Range<usize>,
    entries: Vec<Entry>,
    /// Block: when the first entry's line holds something before it (a
    /// mapping that is an item of a sequence: `- key: value`), the length
    /// of that prefix without its trailing spaces. The prefix stays when
    /// the first entry goes.
    lead: Option<usize>,
}

fn line_start(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    memchr::memrchr(b'\n', b.get(..at).unwrap_or(b)).map_or(0, |i| i + 1)
}

/// The end of the line holding `at`, after its newline (or the text's end).
fn line_end(text: &str, at: usize) -> usize {
    let rest = text.as_bytes().get(at..).unwrap_or_default();
    memchr::memchr(b'\n', rest).map_or(text.len(), |i| at + i + 1)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Is this line blank or a comment?
fn is_filler(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The lines of `text[range]`: (start, line without its newline), read as
/// they are asked for (a collection stops reading at its end).
fn lines_in(text: &str, range: Range<usize>) -> impl Iterator<Item = (usize, &str)> {
    let mut at = range.start;
    let stop = range.end.min(text.len());
    std::iter::from_fn(move || {
        // Each line starts after a newline, so only a `range.start` inside a
        // character is not in the text: no lines then.
        let rest = text.get(at..stop)?;
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest.as_bytes()).map_or(stop, |i| at + i);
        let line = (at, rest.get(..end - at)?.trim_end_matches('\r'));
        at = end + 1;
        Some(line)
    })
}

/// How much work the edit layer did, for tests that would catch it growing
/// with the square of a list's length: collections parsed, and the bytes
/// or lines walked back to find where a list starts.
#[cfg(test)]
mod counted {
    use std::cell::Cell;

    thread_local! {
        pub static PARSES: Cell<usize> = const { Cell::new(0) };
        pub static STEPS_BACK: Cell<usize> = const { Cell::new(0) };
    }

    pub fn parse() {
        PARSES.with(|c| c.set(c.get() + 1));
    }

    pub fn step_back() {
        STEPS_BACK.with(|c| c.set(c.get() + 1));
    }
}

/// Skip whitespace forwards from `at`.
fn skip_ws(text: &str, mut at: usize, end: usize) -> usize {
    let b = text.as_bytes();
    while at < end && matches!(b.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Skip whitespace backwards from `at` (exclusive).
fn skip_ws_back(text: &str, mut at: usize, start: usize) -> usize {
    let b = text.as_bytes();
    while at > start && matches!(b.get(at - 1), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at -= 1;
    }
    at
}

// ---------------------------------------------------------------- flow

/// The end of the quoted string starting at `at` (after its closing quote).
fn quoted_end(text: &str, at: usize) -> R<usize> {
    let b = text.as_bytes();
    let Some(&q) = b.get(at) else {
        return unsupported(at, "a string that does not start");
    };
    let mut i = at + 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' if q == b'"' => i += 2,
            c if c == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 2;
                } else {
                    return Ok(i + 1);
                }
            }
            _ => i += 1,
        }
    }
    unsupported(at, "a string that does not end")
}

/// The end of the flow value starting at `at` (a bracketed collection, a
/// quoted string or a plain scalar), before `limit`.
fn flow_value_end(text: &str, at: usize, limit: usize) -> R<usize> {
    let b = text.as_bytes();
    match b.get(at) {
        Some(b'"' | b'\'') => quoted_end(text, at),
        Some(b'[' | b'{') => {
            let mut depth = 0usize;
            let mut i = at;
            while i < limit {
                let Some(&c) = b.get(i) else { break };
                match c {
                    b'"' | b'\'' => {
                        i = quoted_end(text, i)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(i + 1);
                        }
                    }
                    b'#' if i > 0 && matches!(b.get(i - 1), Some(b' ' | b'\n')) => {
                        return unsupported(i, "a comment inside a flow collection");
                    }
                    _ => {}
                }
                i += 1;
            }
            unsupported(at, "a collection that does not close")
        }
        _ => {
            // A plain scalar: up to a separator of the enclosing collection.
            let mut i = at;
            while i < limit && !matches!(b.get(i), None | Some(b',' | b']' | b'}' | b'\n')) {
                i += 1;
            }
            Ok(skip_ws_back(text, i, at))
        }
    }
}

/// The entries of the flow collection whose opening bracket is at `open`.
fn flow_collection(text: &str, open: usize) -> R<Collection> {
    #[cfg(test)]
    counted::parse();
    let b = text.as_bytes();
    let is_map = b.get(open) == Some(&b'{');
    let end = flow_value_end(text, open, text.len())?;
    let inner = open + 1..end - 1;
    let mut entries = Vec::new();
    let mut at = skip_ws(text, inner.start, inner.end);
    while at < inner.end {
        let start = at;
        let mut key = None;
        if is_map {
            let key_end = match b.get(at) {
                Some(b'"' | b'\'') => quoted_end(text, at)?,
                _ => {
                    // A plain key ends at `: ` (or `:` before a separator).
                    let mut i = at;
                    while i < inner.end
                        && !(b.get(i) == Some(&b':') && matches!(b.get(i + 1), Some(b' ' | b'\n' | b',' | b'}' | b']')))
                        && !matches!(b.get(i), None | Some(b',' | b'}' | b']'))
                    {
                        i += 1;
                    }
                    skip_ws_back(text, i, at)
                }
            };
            let raw = part(text, at..key_end)?;
            key = Some(unquote(raw));
            at = skip_ws(text, key_end, inner.end);
            if b.get(at) != Some(&b':') {
                return unsupported(at, "a mapping entry without `:`");
            }
            at = skip_ws(text, at + 1, inner.end);
        }
        let value_end = flow_value_end(text, at, inner.end)?;
        entries.push(Entry { whole: start..value_end, key, value: at..value_end });
        at = skip_ws(text, value_end, inner.end);
        match b.get(at) {
            Some(b',') => at = skip_ws(text, at + 1, inner.end),
            _ if at >= inner.end => {}
            _ => return unsupported(at, "a flow collection with an unexpected character"),
        }
    }
    Ok(Collection { flow: true, inner, entries, lead: None })
}

fn unquote(raw: &str) -> String {
    let raw = raw.trim();
    if let Some(inner) = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        serde_json::from_str::<String>(raw).unwrap_or_else(|_| inner.to_string())
    } else if let Some(inner) = raw.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else {
        raw.to_string()
    }
}

// ---------------------------------------------------------------- block

/// The key of a block mapping line (`key: value`, `"key":`), with the
/// offset (in the line) just after its colon.
fn block_key(line: &str) -> Option<(String, usize)> {
    let t = line.trim_start();
    let lead = line.len() - t.len();
    let (key, after) = if t.starts_with(['"', '\'']) {
        let end = quoted_end(t, 0).ok()?;
        (unquote(t.get(..end)?), end)
    } else {
        let b = t.as_bytes();
        let mut i = 0usize;
        loop {
            match (i.checked_sub(1).and_then(|p| b.get(p)), b.get(i)?, b.get(i + 1)) {
                (_, b':', None | Some(b' ')) => break,
                (Some(b' '), b'#', _) => return None,
                _ => i += 1,
            }
        }
        (t.get(..i)?.trim_end().to_string(), i)
    };
    let rest = t.get(after..)?;
    let spaced = rest.trim_start_matches(' ');
    if !spaced.starts_with(':') {
        return None;
    }
    let colon = rest.len() - spaced.len();
    Some((key, lead + after + colon + 1))
}

/// The block collection whose first entry starts at `first` (a key, or a
/// `- ` of a sequence), ending before `limit`.
fn block_collection(text: &str, first: usize, limit: usize) -> R<Collection> {
    #[cfg(test)]
    counted::parse();
    let col = first - line_start(text, first);
    let head = from(text, first)?;
    let seq = head.starts_with("- ") || head.starts_with("-\n") || head == "-";
    let mut entries: Vec<Entry> = Vec::new();
    let mut last_content = None;
    for (i, (start, line)) in lines_in(text, line_start(text, first)..limit).enumerate() {
        let opens = if i == 0 {
            true
        } else if is_filler(line) {
            continue;
        } else if is_separator(line) || line == "..." {
            break; // the document ends
        } else {
            let rest = line.trim_start_matches(' ');
            let ind = line.len() - rest.len();
            let dash = rest.starts_with("- ") || rest == "-";
            if ind < col || (ind == col && seq && !dash) {
                break; // the collection ends
            }
            ind == col && seq == dash
        };
        if opens {
            if let (Some(e), Some(end)) = (entries.last_mut(), last_content) {
                e.whole.end = end;
            }
            let at = start + col;
            let (key, value_start) = if seq {
                (None, skip_ws(text, at + 1, line_end(text, at)).min(at + line.len() - col))
            } else {
                // The first entry may follow a `- ` on its line.
                let from = if i == 0 { col } else { 0 };
                match line.get(from..).and_then(block_key) {
                    Some((k, after)) => (Some(k), start + from + after),
                    None => return unsupported(at, "a line of a block mapping that is not `key: value`"),
                }
            };
            entries.push(Entry { whole: start..line_end(text, start), key, value: value_start..line_end(text, start) });
        }
        last_content = Some(line_end(text, start).min(limit.max(start + line.len())));
        if let Some(e) = entries.last_mut() {
            e.value.end = line_end(text, start);
        }
    }
    if let (Some(e), Some(end)) = (entries.last_mut(), last_content) {
        e.whole.end = end;
    }
    let inner = entries.first().map_or(first, |e| e.whole.start)..entries.last().map_or(first, |e| e.whole.end);
    let lead = text.get(line_start(text, first)..first).map(str::trim_end).filter(|p| !p.is_empty()).map(str::len);
    Ok(Collection { flow: false, inner, entries, lead })
}

/// The collection that is the value written at `at..end`: flow when it
/// starts with a bracket, else block (on the next lines).
fn collection_at(text: &str, value: Range<usize>) -> R<Collection> {
    let start = skip_ws(text, value.start, value.end);
    if start >= value.end {
        return unsupported(value.start, "an empty value where a collection was expected");
    }
    let b = text.as_bytes();
    match b.get(start) {
        None => unsupported(start, "a range that is not in the text"),
        Some(b'[' | b'{') => flow_collection(text, start),
        Some(b'#') => {
            // `key: # comment` then the block below it.
            let next = line_end(text, start);
            collection_at(text, next..value.end)
        }
        Some(b'&' | b'*' | b'!' | b'|' | b'>') => unsupported(start, "an anchor, alias, tag or block scalar"),
        Some(_) => {
            let ls = line_start(text, start);
            // A block collection starts on a line of its own, or after `- `.
            let lead = part(text, ls..start)?;
            if lead.trim().is_empty() || lead.trim_end().ends_with('-') {
                block_collection(text, start, value.end)
            } else {
                unsupported(start, "a scalar where a collection was expected")
            }
        }
    }
}

/// The mapping written at `span` (an object's document or list item).
fn mapping_at(text: &str, span: Range<usize>) -> R<Collection> {
    let mut start = skip_ws(text, span.start, span.end);
    // An item of a block sequence whose span starts at its dash.
    if part(text, start..span.end)?.starts_with("- ") {
        start = skip_ws(text, start + 1, span.end);
    }
    while start < span.end && from(text, start)?.starts_with('#') {
        start = skip_ws(text, line_end(text, start), span.end);
    }
    if part(text, start..span.end)?.starts_with("---") {
        start = skip_ws(text, line_end(text, start), span.end);
    }
    let c = collection_at(text, start..span.end)?;
    if c.entries.iter().any(|e| e.key.is_none()) {
        return unsupported(start, "a sequence where a mapping was expected");
    }
    Ok(c)
}

/// The value at `path` (keys from the mapping at `span`).
fn value_at(text: &str, span: Range<usize>, path: &[&str]) -> R<Option<(Collection, usize)>> {
    let mut map = mapping_at(text, span.clone())?;
    for (depth, key) in path.iter().enumerate() {
        let Some((i, entry)) = map.entries.iter().enumerate().find(|(_, e)| e.key.as_deref() == Some(*key)) else {
            return Ok(None);
        };
        if depth + 1 == path.len() {
            return Ok(Some((map, i)));
        }
        let v = entry.value.clone();
        map = collection_at(text, v)?;
    }
    unsupported(span.start, "an empty path")
}

/// The edits that take the entries `removed` (sorted indices) out of `c`,
/// separators with them. `None`: every entry goes (the caller says what
/// stays in its place). An index that is not an entry is refused.
fn remove_entries(text: &str, c: &Collection, removed: &[usize]) -> R<Option<Vec<Edit>>> {
    let n = c.entries.len();
    if removed.len() >= n {
        return Ok(None);
    }
    let entry = |i: usize| match c.entries.get(i) {
        Some(e) => Ok(e),
        None => unsupported(c.inner.start, format!("no entry {i} in the collection")),
    };
    if !c.flow {
        // The first entry, after a prefix that stays (`- `): from the end of
        // the prefix to the end of the entry, but for its newline; the
        // next entry, on its line, becomes the first (`-\n  key: value`,
        // the same item). Its own line is not touched, so that a cut of it
        // (another edit) cannot overlap this one.
        return removed
            .iter()
            .map(|&i| {
                let e = entry(i)?;
                Ok(match c.lead {
                    Some(lead) if i == 0 => {
                        let end =
                            e.whole.end - usize::from(text.as_bytes().get(e.whole.end.wrapping_sub(1)) == Some(&b'\n'));
                        Edit::cut(e.whole.start + lead..end.max(e.whole.start + lead))
                    }
                    _ => Edit::cut(e.whole.clone()),
                })
            })
            .collect::<R<Vec<_>>>()
            .map(Some);
    }
    let mut edits = Vec::new();
    let mut runs = removed.iter().copied().peekable();
    while let Some(first) = runs.next() {
        let mut last = first;
        while runs.next_if_eq(&(last + 1)).is_some() {
            last += 1;
        }
        edits.push(match c.entries.get(last + 1) {
            Some(next) => Edit::cut(entry(first)?.whole.start..next.whole.start),
            // A run at the end: the comma before it goes (there is an entry
            // before it, since not every entry goes).
            None => match first.checked_sub(1) {
                Some(before) => Edit::cut(entry(before)?.whole.end..entry(last)?.whole.end),
                None => return unsupported(c.inner.start, "a run of entries from the first to the last"),
            },
        });
    }
    Ok(Some(edits))
}

/// An edit `apply` asks for, on an object written at `span`.
#[derive(Clone, Debug)]
pub enum Op {
    /// Take the value out of what holds it: a document of a YAML stream or
    /// a file of JSON documents, an item of a block sequence, an element of
    /// a flow sequence or JSON array, or the value of a mapping entry (which
    /// becomes `null`). Documents take their separator line, and the
    /// comments after it, with them.
    Remove { span: Range<usize> },
    /// Take entry `index` out of the list at `path` in the object's mapping;
    /// when every entry goes, the key goes too.
    RemoveEntry { span: Range<usize>, path: &'static [&'static str], index: usize },
    /// Set `key: true` in the mapping at `path` (added as its first entry).
    SetTrue { span: Range<usize>, path: &'static [&'static str], key: &'static str },
}

/// Where a removed value was.
enum Place {
    /// An edit of its own (a document, a mapping value).
    Alone(Edit),
    /// An entry of a collection, removed together with its siblings:
    /// what is left when every entry goes.
    Entry { list: Rc<Collection>, index: usize, when_empty: Edit },
}

/// What one `edits` call has found out about the text, so that each list
/// is parsed once and each walk back to where a list starts is made once,
/// however many of its items go.
struct Seen<'t> {
    text: &'t str,
    /// Where each line starts (made when first needed).
    lines: Vec<usize>,
    /// Parsed lists: flow ones by their opening bracket, block ones by
    /// their first item's dash.
    lists: HashMap<usize, Rc<Collection>>,
    /// Walks back to a flow list's opening bracket: from just after a comma
    /// between two of its elements, the bracket found (`None`: none).
    opens: HashMap<usize, Option<usize>>,
    /// Walks back to a block sequence's first item: from the line of one of
    /// its items, where the walk ended.
    firsts: HashMap<usize, FirstItem<'t>>,
}

/// A block sequence's first item's line, and the line above the sequence
/// (its start and text), if it is not the file's first.
type FirstItem<'t> = (usize, Option<(usize, &'t str)>);

impl<'t> Seen<'t> {
    fn new(text: &'t str) -> Seen<'t> {
        Seen { text, lines: Vec::new(), lists: HashMap::new(), opens: HashMap::new(), firsts: HashMap::new() }
    }

    /// `line_start`, by a table of the lines rather than a search back
    /// (a file of JSON on one line would make that a walk to its start).
    fn line_start(&mut self, at: usize) -> usize {
        if self.lines.is_empty() {
            self.lines.push(0);
            self.lines.extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
        }
        // The first line starts at 0, so some line starts at or before `at`.
        let n = self.lines.partition_point(|&l| l <= at);
        n.checked_sub(1).and_then(|i| self.lines.get(i)).copied().unwrap_or(0)
    }

    /// The flow list opening at `open`, parsed once.
    fn flow_list(&mut self, open: usize) -> R<Rc<Collection>> {
        if let Some(list) = self.lists.get(&open) {
            return Ok(list.clone());
        }
        let list = Rc::new(flow_collection(self.text, open)?);
        self.lists.insert(open, list.clone());
        Ok(list)
    }

    /// The block sequence whose first item's dash is at `first`, parsed once.
    fn block_list(&mut self, first: usize) -> R<Rc<Collection>> {
        if let Some(list) = self.lists.get(&first) {
            return Ok(list.clone());
        }
        let list = Rc::new(block_collection(self.text, first, self.text.len())?);
        self.lists.insert(first, list.clone());
        Ok(list)
    }

    /// The bracket that opens the flow collection holding the element
    /// after `prev`: back over earlier elements. Each walk stops where an
    /// earlier one passed, so the elements of one list are walked over once.
    fn flow_open(&mut self, prev: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut depth = 0usize;
        let mut i = prev;
        let mut passed = Vec::new();
        let open = loop {
            if depth == 0 && i > 0 && b.get(i - 1) == Some(&b',') {
                if let Some(&open) = self.opens.get(&i) {
                    break open;
                }
                passed.push(i);
            }
            if i == 0 {
                break None;
            }
            #[cfg(test)]
            counted::step_back();
            i -= 1;
            match b.get(i) {
                Some(b']' | b'}') => depth += 1,
                Some(b'[' | b'{') if depth == 0 => break Some(i),
                Some(b'[' | b'{') => depth -= 1,
                _ => {}
            }
        };
        for at in passed {
            self.opens.insert(at, open);
        }
        open
    }
}

/// The edits for `ops` on `text`, sorted and checked not to overlap.
/// Entries of one collection are taken out together, so that commas stay
/// right and an emptied list is written `[]` (or its key goes).
pub fn edits(text: &str, ops: &[Op]) -> R<Vec<Edit>> {
    let mut out = Vec::new();
    let mut seen = Seen::new(text);
    // Collections, in the order first met, with the entries to remove; by
    // where their entries start.
    let mut groups: Vec<(Rc<Collection>, Vec<usize>, Edit)> = Vec::new();
    let mut group_at: HashMap<usize, usize> = HashMap::new();
    let mut join = |list: Rc<Collection>, index: usize, when_empty: Edit| {
        let key = list.entries.first().map_or(list.inner.start, |e| e.whole.start);
        match group_at.get(&key).and_then(|&g| groups.get_mut(g)) {
            Some(group) => group.1.push(index),
            None => {
                group_at.insert(key, groups.len());
                groups.push((list, vec![index], when_empty));
            }
        }
    };
    for op in ops {
        match op {
            Op::Remove { span } => match remove_value(&mut seen, span.clone())? {
                Place::Alone(e) => out.push(e),
                Place::Entry { list, index, when_empty } => join(list, index, when_empty),
            },
            Op::RemoveEntry { span, path, index } => {
                let Some((map, k)) = value_at(text, span.clone(), path)? else {
                    return unsupported(span.start, format!("no `{}` in the object", path.join(".")));
                };
                let Some(value) = map.entries.get(k).map(|e| e.value.clone()) else {
                    return unsupported(span.start, format!("no `{}` in the object", path.join(".")));
                };
                let list = collection_at(text, value.clone())?;
                if list.entries.iter().any(|e| e.key.is_some()) || *index >= list.entries.len() {
                    return unsupported(value.start, format!("`{}` has no entry {index}", path.join(".")));
                }
                let when_empty = match remove_entries(text, &map, &[k])?.as_deref() {
                    Some([e]) => e.clone(),
                    _ => return unsupported(span.start, format!("`{}` is all the object holds", path.join("."))),
                };
                join(Rc::new(list), *index, when_empty);
            }
            Op::SetTrue { span, path, key } => out.push(set_true(text, span.clone(), path, key)?),
        }
    }
    for (list, mut removed, when_empty) in groups {
        removed.sort_unstable();
        removed.dedup();
        match remove_entries(text, &list, &removed)? {
            Some(e) => out.extend(e),
            None => out.push(when_empty),
        }
    }
    out.sort_by_key(|e| (e.range.start, e.range.end));
    // Cuts that touch or share text (two documents, each with the separator
    // between them) are one cut.
    let mut merged: Vec<Edit> = Vec::with_capacity(out.len());
    for e in out {
        match merged.last_mut() {
            Some(last) if last.text.is_empty() && e.text.is_empty() && e.range.start <= last.range.end => {
                last.range.end = last.range.end.max(e.range.end);
            }
            _ => merged.push(e),
        }
    }
    // A cut that leaves a separator first in the file takes it too.
    if let Some(e) = merged.first_mut() {
        let head = part(text, 0..e.range.start)?.lines().all(|l| is_filler(l) && !is_separator(l.trim_end()));
        let next = line_end(text, e.range.end.min(text.len()));
        if e.text.is_empty() && head && e.range.end < text.len() && is_bare_separator(part(text, e.range.end..next)?) {
            e.range.end = next;
        }
    }
    let out = merged;
    for pair in out.windows(2) {
        if let [a, b] = pair {
            if b.range.start < a.range.end {
                return unsupported(b.range.start, "two edits of one place");
            }
        }
    }
    // Every edit is of text that is there: `apply` cuts where it says.
    for e in &out {
        part(text, e.range.clone())?;
    }
    Ok(out)
}

/// Set `key: true` in the mapping at `path` of the mapping at `span`
/// (added as its first entry when it is not there).
fn set_true(text: &str, span: Range<usize>, path: &[&str], key: &str) -> R<Edit> {
    let Some((map, k)) = value_at(text, span.clone(), path)? else {
        return unsupported(span.start, format!("no `{}` in the object", path.join(".")));
    };
    let Some(entry) = map.entries.get(k) else {
        return unsupported(span.start, format!("no `{}` in the object", path.join(".")));
    };
    let inner = collection_at(text, entry.value.clone())?;
    if let Some(e) = inner.entries.iter().find(|e| e.key.as_deref() == Some(key)) {
        let v = skip_ws(text, e.value.start, e.value.end);
        let end = if inner.flow { e.value.end } else { v + part(text, v..e.value.end)?.trim_end().len() };
        return Ok(Edit { range: v..end, text: "true".into() });
    }
    if inner.flow {
        let json = from(text, inner.inner.start)?.trim_start().starts_with('"') || inner.entries.is_empty();
        let name = if json { format!("\"{key}\"") } else { key.to_string() };
        return Ok(match inner.entries.first() {
            Some(first) => {
                let gap = part(text, inner.inner.start..first.whole.start)?;
                let gap = if gap.is_empty() { " " } else { gap };
                Edit { range: first.whole.start..first.whole.start, text: format!("{name}: true,{gap}") }
            }
            None => Edit { range: inner.inner.clone(), text: format!("{name}: true") },
        });
    }
    let Some(first) = inner.entries.first() else {
        return unsupported(inner.inner.start, "an empty block mapping");
    };
    let ls = line_start(text, first.whole.start);
    let line = from(text, ls)?;
    let col = line.len() - line.trim_start_matches([' ', '-']).len();
    if part(line, 0..col)?.contains('-') {
        return unsupported(ls, "a mapping that starts on the line of its list item");
    }
    Ok(Edit { range: ls..ls, text: format!("{}{key}: true\n", " ".repeat(col)) })
}

fn remove_value(seen: &mut Seen, span: Range<usize>) -> R<Place> {
    let text = seen.text;
    let ls = seen.line_start(span.start);
    let before = part(text, ls..span.start)?;
    let body = part(text, span.clone())?;
    let dash_in = body.starts_with("- ") || body.starts_with("-\n");
    if (dash_in && before.trim().is_empty()) || before.trim() == "-" {
        return block_item(seen, span, ls);
    }
    // The first thing before the value, skipping blanks and comment lines.
    let mut at = skip_ws_back(text, span.start, 0);
    loop {
        let l = seen.line_start(at);
        if at > 0 && part(text, l..at)?.trim_start().starts_with('#') {
            at = skip_ws_back(text, l, 0);
            continue;
        }
        break;
    }
    let prev_line = part(text, seen.line_start(at)..at)?;
    let prev = part(text, 0..at)?.chars().next_back();
    match prev {
        Some('[' | ',') => flow_element(seen, span, at),
        Some(':') if !is_separator(prev_line) => Ok(Place::Alone(Edit { range: span, text: "null".into() })),
        _ if at == 0 || is_separator(prev_line) || prev_line.trim_start().starts_with("...") => {
            Ok(Place::Alone(document(text, span)?))
        }
        // One of several JSON documents, or a YAML document at column 0.
        _ if before.is_empty() => Ok(Place::Alone(document(text, span)?)),
        _ => unsupported(span.start, "a value whose container is not understood"),
    }
}

fn is_separator(line: &str) -> bool {
    line == "---" || line.starts_with("--- ") || line.starts_with("---\t")
}

/// A separator with nothing after it: one that carries more (a tag,
/// `--- !!map`; an anchor; the document's first node) belongs to the
/// document it starts, and stays with it.
fn is_bare_separator(line: &str) -> bool {
    line.trim_end() == "---"
}

/// A document: from its separator line (when it has one) to the next
/// separator line; the first document without one starts at its own line.
fn document(text: &str, span: Range<usize>) -> R<Edit> {
    let mut start = line_start(text, span.start);
    // Back over the comments and blank lines between it and its separator.
    let mut l = start;
    let mut first = true;
    while l > 0 {
        let prev = line_start(text, l - 1);
        let line = part(text, prev..l)?.trim_end_matches(['\n', '\r']);
        if is_separator(line) {
            start = prev;
            first = false;
            break;
        }
        if !is_filler(line) {
            first = false;
            break;
        }
        l = prev;
    }
    // On to the next separator (or the end), taking this document's own
    // trailing comments and an end marker `...`.
    let mut end = span.end.min(text.len());
    if end > span.start && !part(text, 0..end)?.ends_with('\n') {
        end = line_end(text, end);
    }
    while end < text.len() {
        let e = line_end(text, end);
        let line = part(text, end..e)?.trim_end_matches(['\n', '\r']);
        if is_separator(line) || (!is_filler(line) && !line.starts_with("...")) {
            // The first document takes the separator after it: the next
            // one becomes the first (a separator that carries the next
            // one's tag stays).
            if first && is_bare_separator(line) {
                end = e;
            }
            break;
        }
        end = e;
    }
    Ok(Edit::cut(start..end))
}

/// An item of a block sequence, found among its siblings.
fn block_item(seen: &mut Seen, span: Range<usize>, ls: usize) -> R<Place> {
    let text = seen.text;
    let col = indent_of(from(text, ls)?);
    let sibling = |line: &str| {
        let rest = line.trim_start_matches(' ');
        line.len() - rest.len() == col && (rest.starts_with("- ") || rest == "-")
    };
    // Back to the sequence's first item, and the line above it; from an
    // item's line, the walk goes as it went from there before.
    let (first, above) = match seen.firsts.get(&ls) {
        Some(&found) => found,
        None => {
            let mut first = ls;
            let mut above = None;
            let mut passed = vec![ls];
            let mut l = ls;
            while l > 0 {
                #[cfg(test)]
                counted::step_back();
                let p = line_start(text, l - 1);
                let line = part(text, p..l)?.trim_end_matches(['\n', '\r']);
                l = p;
                if is_filler(line) {
                    continue;
                }
                if sibling(line) {
                    if let Some(&found) = seen.firsts.get(&p) {
                        (first, above) = found;
                        break;
                    }
                    first = p;
                    passed.push(p);
                    continue;
                }
                let ind = indent_of(line);
                if ind < col || (ind == col && !sibling(line)) || is_separator(line) {
                    above = Some((p, line));
                    break;
                }
            }
            for p in passed {
                seen.firsts.insert(p, (first, above));
            }
            (first, above)
        }
    };
    let list = seen.block_list(first + col)?;
    let index = list.entries.partition_point(|e| e.whole.start < ls);
    if list.entries.get(index).is_none_or(|e| e.whole.start != ls) {
        return unsupported(span.start, "an item not found in its sequence");
    }
    let end = list.entries.last().map_or(ls, |e| e.whole.end);
    let when_empty = match above {
        // `key:` above: the key keeps an empty list.
        Some((p, line)) if line.trim_end().ends_with(':') && !is_separator(line) => {
            let colon = p + line.trim_end().len();
            let tail = if part(text, 0..end)?.ends_with('\n') { "\n" } else { "" };
            Edit { range: colon..end, text: format!(" []{tail}") }
        }
        // A document that is a sequence: it stays, empty.
        None | Some(_) if col == 0 => {
            let tail = if part(text, 0..end)?.ends_with('\n') { "\n" } else { "" };
            Edit { range: first..end, text: format!("[]{tail}") }
        }
        _ => return unsupported(ls, "the only items of a sequence whose key is not on the line above"),
    };
    Ok(Place::Entry { list, index, when_empty })
}

/// An element of a flow sequence or JSON array.
fn flow_element(seen: &mut Seen, span: Range<usize>, prev: usize) -> R<Place> {
    // Find the opening bracket: back over earlier elements.
    let Some(open) = seen.flow_open(prev) else {
        return unsupported(span.start, "an element whose list does not open");
    };
    if seen.text.as_bytes().get(open) != Some(&b'[') {
        return unsupported(open, "a value inside a flow mapping");
    }
    let list = seen.flow_list(open)?;
    let index = list.entries.partition_point(|e| e.whole.start < span.start);
    if list.entries.get(index).is_none_or(|e| e.whole.start != span.start) {
        return unsupported(span.start, "an element not found in its list");
    }
    let when_empty = Edit::cut(list.inner.clone());
    Ok(Place::Entry { list, index, when_empty })
}

/// The whole mapping that holds the key written at `key_at`: a flow
/// mapping whose first key it is (`{"?": …}`), or a block mapping (from
/// its `- ` when it is an item of a sequence).
pub fn holder_of_key(text: &str, key_at: usize) -> R<Range<usize>> {
    let before = skip_ws_back(text, key_at, 0);
    let b = text.as_bytes();
    let open = before.checked_sub(1);
    if let Some(open) = open.filter(|&o| b.get(o) == Some(&b'{')) {
        return Ok(open..flow_value_end(text, open, text.len())?);
    }
    if open.is_some_and(|o| b.get(o) == Some(&b',')) {
        return unsupported(key_at, "a key after others in a flow mapping");
    }
    let ls = line_start(text, key_at);
    let col = key_at - ls;
    let lead = part(text, ls..key_at)?;
    let mut first = key_at;
    let mut item = lead.trim_end().ends_with('-').then(|| ls + lead.find('-').unwrap_or(0));
    if !lead.trim().is_empty() && item.is_none() {
        return unsupported(key_at, "a key that does not start its line");
    }
    let mut l = ls;
    while item.is_none() && l > 0 {
        let p = line_start(text, l - 1);
        let line = part(text, p..l)?.trim_end_matches(['\n', '\r']);
        l = p;
        if is_filler(line) {
            continue;
        }
        if is_separator(line) || line == "..." {
            break; // the document starts below it
        }
        let rest = line.trim_start_matches(' ');
        let ind = line.len() - rest.len();
        if ind > col {
            continue;
        }
        if ind == col && !rest.starts_with("- ") {
            first = p + col; // an earlier key of the same mapping
            continue;
        }
        if rest.strip_prefix("- ").is_some_and(|t| ind + 2 + indent_of(t) == col) {
            first = p + col;
            item = Some(p + ind);
        }
        break;
    }
    let map = block_collection(text, first, text.len())?;
    let end = map.entries.last().map_or(first, |e| e.whole.end);
    Ok(item.unwrap_or(first)..end)
}

/// Apply edits (sorted, not overlapping, of text that is there: what
/// [`edits`] returns) to `text`. Edits that are not so change nothing: the
/// text comes back as it is, never cut somewhere else.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits {
        match text.get(at..e.range.start) {
            Some(kept) if text.is_char_boundary(e.range.end) => out.push_str(kept),
            _ => return text.to_string(),
        }
        out.push_str(&e.text);
        at = e.range.end;
    }
    match text.get(at..) {
        Some(rest) => out.push_str(rest),
        None => return text.to_string(),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, ops: &[Op]) -> String {
        apply(text, &edits(text, ops).expect("edits"))
    }

    fn span_of(text: &str, needle: &str) -> Range<usize> {
        let s = text.find(needle).expect("needle");
        s..s + needle.len()
    }

    fn remove(text: &str, needle: &str) -> Op {
        Op::Remove { span: span_of(text, needle) }
    }

    #[test]
    fn documents_go_with_their_separator_and_comments() {
        let t = "# file\na: 1\n---\n# two\nb: 2\n---\nc: 3\n";
        assert_eq!(run(t, &[remove(t, "b: 2\n")]), "# file\na: 1\n---\nc: 3\n");
        assert_eq!(run(t, &[remove(t, "a: 1\n")]), "# file\n# two\nb: 2\n---\nc: 3\n");
        assert_eq!(run(t, &[remove(t, "c: 3\n")]), "# file\na: 1\n---\n# two\nb: 2\n");
        assert_eq!(run(t, &[remove(t, "a: 1\n"), remove(t, "b: 2\n")]), "# file\nc: 3\n");
    }

    /// A tag on a separator line (`--- !!map`) is the next document's: it
    /// stays when the document before it goes, first or not.
    #[test]
    fn a_document_keeps_the_tag_on_its_separator() {
        let t = "--- !!map\na: 1\n--- !!map\nb: 2\n--- !!map\nc: 3\n";
        assert_eq!(run(t, &[remove(t, "a: 1\n")]), "--- !!map\nb: 2\n--- !!map\nc: 3\n");
        assert_eq!(run(t, &[remove(t, "b: 2\n")]), "--- !!map\na: 1\n--- !!map\nc: 3\n");
        let t = "a: 1\n--- !!map\nb: 2\n";
        assert_eq!(run(t, &[remove(t, "a: 1\n")]), "--- !!map\nb: 2\n");
        let t = "# head\na: 1\n---\nb: 2\n";
        assert_eq!(run(t, &[remove(t, "a: 1\n")]), "# head\nb: 2\n");
    }

    #[test]
    fn block_items_and_the_last_ones() {
        let t = "kind: List\nitems:\n- a: 1\n  b: 2\n- a: 3\n";
        assert_eq!(run(t, &[remove(t, "- a: 1\n  b: 2")]), "kind: List\nitems:\n- a: 3\n");
        assert_eq!(run(t, &[remove(t, "- a: 1\n  b: 2"), remove(t, "- a: 3")]), "kind: List\nitems: []\n");
        let top = "- a: 1\n- a: 2\n";
        assert_eq!(run(top, &[remove(top, "- a: 2")]), "- a: 1\n");
        assert_eq!(run(top, &[remove(top, "- a: 2"), remove(top, "- a: 1")]), "[]\n");
    }

    #[test]
    fn json_elements_keep_their_commas_right() {
        let t = "[\n  {\"a\": 1},\n  {\"a\": 2},\n  {\"a\": 3}\n]\n";
        assert_eq!(run(t, &[remove(t, "{\"a\": 1}")]), "[\n  {\"a\": 2},\n  {\"a\": 3}\n]\n");
        assert_eq!(run(t, &[remove(t, "{\"a\": 3}")]), "[\n  {\"a\": 1},\n  {\"a\": 2}\n]\n");
        assert_eq!(run(t, &[remove(t, "{\"a\": 3}"), remove(t, "{\"a\": 2}")]), "[\n  {\"a\": 1}\n]\n");
        assert_eq!(run(t, &[remove(t, "{\"a\": 1}"), remove(t, "{\"a\": 3}")]), "[\n  {\"a\": 2}\n]\n");
        let all: Vec<Op> = ["{\"a\": 1}", "{\"a\": 2}", "{\"a\": 3}"].iter().map(|n| remove(t, n)).collect();
        assert_eq!(run(t, &all), "[]\n");
        let nd = "{\"a\": 1}\n{\"a\": 2}\n";
        assert_eq!(run(nd, &[remove(nd, "{\"a\": 2}")]), "{\"a\": 1}\n");
        assert_eq!(run(nd, &[remove(nd, "{\"a\": 1}")]), "{\"a\": 2}\n");
    }

    #[test]
    fn a_nested_value_becomes_null() {
        let t = "{\"x\": {\"?\": {\"id\": \"a\"}}, \"y\": 1}";
        assert_eq!(run(t, &[remove(t, "{\"?\": {\"id\": \"a\"}}")]), "{\"x\": null, \"y\": 1}");
    }

    const OWNERS: &[&str] = &["metadata", "ownerReferences"];

    #[test]
    fn owner_entries_block_and_json() {
        let t = "metadata:\n  name: x\n  ownerReferences:\n  - kind: A\n    uid: a\n  - kind: B\n    uid: b\n  labels:\n    k: v\nspec: {}\n";
        let entry = |index| Op::RemoveEntry { span: 0..t.len(), path: OWNERS, index };
        assert_eq!(
            run(t, &[entry(1)]),
            "metadata:\n  name: x\n  ownerReferences:\n  - kind: A\n    uid: a\n  labels:\n    k: v\nspec: {}\n"
        );
        assert_eq!(run(t, &[entry(0), entry(1)]), "metadata:\n  name: x\n  labels:\n    k: v\nspec: {}\n");
        let j = "{\"metadata\": {\"ownerReferences\": [{\"uid\": \"a\"}], \"name\": \"x\"}}";
        let op = Op::RemoveEntry { span: 0..j.len(), path: OWNERS, index: 0 };
        assert_eq!(run(j, &[op]), "{\"metadata\": {\"name\": \"x\"}}");
        let n = "- id: x\n  owners: [a, b]\n";
        assert_eq!(
            run(n, &[Op::RemoveEntry { span: 0..n.len(), path: &["owners"], index: 0 }]),
            "- id: x\n  owners: [b]\n"
        );
    }

    /// The key a mapping that is an item of a sequence starts with goes,
    /// and the `-` stays, the item's next key on the line after it (found
    /// by tests/props_apply.rs: native `destroyAfter` is written first when
    /// keys are sorted). Was: the whole first line went, dash and all.
    #[test]
    fn the_first_key_of_an_item_goes_and_its_dash_stays() {
        let after: &[&str] = &["destroyAfter"];
        let t = "- destroyAfter:\n  - r0\n  id: r1\n  owners: []\n";
        let op = |t: &str| Op::RemoveEntry { span: 2..t.len(), path: after, index: 0 };
        assert_eq!(run(t, &[op(t)]), "-\n  id: r1\n  owners: []\n");
        let t = "- destroyAfter: [r0]\n  owners: [r2]\n  id: r1\n";
        let both = [op(t), Op::RemoveEntry { span: 2..t.len(), path: &["owners"], index: 0 }];
        assert_eq!(run(t, &both), "-\n  id: r1\n");
        let t = "- id: r1\n  destroyAfter:\n  - r0\n";
        assert_eq!(run(t, &[op(t)]), "- id: r1\n");
    }

    #[test]
    fn a_json_string_that_looks_like_a_key_is_not_one() {
        let t = "metadata:\n  annotations:\n    last: '{\"metadata\":{\"ownerReferences\":[1]}}'\n  ownerReferences:\n  - uid: a\n";
        assert_eq!(
            run(t, &[Op::RemoveEntry { span: 0..t.len(), path: OWNERS, index: 0 }]),
            "metadata:\n  annotations:\n    last: '{\"metadata\":{\"ownerReferences\":[1]}}'\n"
        );
    }

    #[test]
    fn flags_are_set_or_added() {
        let set = |t: &str| run(t, &[Op::SetTrue { span: 0..t.len(), path: &["?"], key: "destroyed" }]);
        assert_eq!(
            set("{\"?\": {\"id\": \"a\", \"type\": \"T\"}, \"name\": \"n\"}"),
            "{\"?\": {\"destroyed\": true, \"id\": \"a\", \"type\": \"T\"}, \"name\": \"n\"}"
        );
        assert_eq!(
            set("\"?\":\n  id: a\n  destroyed: false\nname: n\n"),
            "\"?\":\n  id: a\n  destroyed: true\nname: n\n"
        );
        assert_eq!(set("\"?\":\n  id: a\nname: n\n"), "\"?\":\n  destroyed: true\n  id: a\nname: n\n");
        assert_eq!(set("- '?': {id: s}\n  x: 1\n"), "- '?': {destroyed: true, id: s}\n  x: 1\n");
    }

    #[test]
    fn the_mapping_that_holds_a_key() {
        let j = "{\"a\": [ {\"?\": {\"id\": 1}, \"b\": [1]} ]}";
        let at = j.find("\"?\"").expect("key");
        assert_eq!(j.get(holder_of_key(j, at).expect("holder")), Some("{\"?\": {\"id\": 1}, \"b\": [1]}"));
        let y = "a:\n  name: n\n  \"?\": {id: 1}\n  more:\n  - 1\nb: 2\n";
        let at = y.find("\"?\"").expect("key");
        assert_eq!(y.get(holder_of_key(y, at).expect("holder")), Some("name: n\n  \"?\": {id: 1}\n  more:\n  - 1\n"));
        let d = "a: 1\n---\nb: 2\n";
        assert_eq!(d.get(holder_of_key(d, 9).expect("holder")), Some("b: 2\n"));
        let s = "xs:\n- name: n\n  \"?\": {id: 1}\n- name: m\n";
        let at = s.find("\"?\"").expect("key");
        assert_eq!(s.get(holder_of_key(s, at).expect("holder")), Some("- name: n\n  \"?\": {id: 1}\n"));
    }

    /// Edits of `ops`, with the lists parsed and the steps walked back.
    fn counted_run(text: &str, ops: &[Op]) -> (String, usize, usize) {
        counted::PARSES.with(|c| c.set(0));
        counted::STEPS_BACK.with(|c| c.set(0));
        let out = run(text, ops);
        (out, counted::PARSES.with(|c| c.get()), counted::STEPS_BACK.with(|c| c.get()))
    }

    /// Taking N items out of one list parses it once and walks back over
    /// it once, in any order (it was once parsed again for every item).
    #[test]
    fn a_list_is_parsed_once_however_many_items_go() {
        const N: usize = 1000;
        let json = format!(
            "{{\"kind\": \"List\", \"items\": [\n{}\n]}}\n",
            (0..N).map(|i| format!("  {}", item_json(i))).collect::<Vec<_>>().join(",\n")
        );
        let yaml = format!(
            "kind: List\nitems:\n{}",
            (0..N).map(|i| format!("- name: n{i}\n  v:\n  - {i}\n")).collect::<Vec<_>>().join("")
        );
        let yaml_item = |i: usize| format!("- name: n{i}\n  v:\n  - {i}\n");
        for (text, item) in [(&json, &item_json as &dyn Fn(usize) -> String), (&yaml, &yaml_item)] {
            // Every other item, first to last and last to first; then all
            // but the first.
            let odd: Vec<usize> = (1..N).step_by(2).collect();
            let rest: Vec<usize> = (1..N).collect();
            for gone in [odd.clone(), odd.iter().rev().copied().collect(), rest] {
                let ops: Vec<Op> = gone.iter().map(|&i| remove(text, &item(i))).collect();
                let (out, parses, steps) = counted_run(text, &ops);
                assert_eq!(parses, 1, "the list parsed once");
                assert!(steps <= text.len(), "{steps} steps back over {} bytes", text.len());
                for i in 0..N {
                    assert_eq!(out.contains(&item(i)), !gone.contains(&i), "item {i}");
                }
            }
        }
        // What stays is what was written, less the items.
        let ops: Vec<Op> = (1..N).map(|i| remove(&json, &item_json(i))).collect();
        assert_eq!(run(&json, &ops), format!("{{\"kind\": \"List\", \"items\": [\n  {}\n]}}\n", item_json(0)));
    }

    fn item_json(i: usize) -> String {
        format!("{{\"name\": \"n{i}\", \"v\": [{i}]}}")
    }

    #[test]
    fn what_is_not_understood_is_refused() {
        let t = "metadata:\n  ownerReferences: *refs\n";
        assert!(edits(t, &[Op::RemoveEntry { span: 0..t.len(), path: OWNERS, index: 0 }]).is_err());
        let t = "a: [1, 2]\n";
        assert!(edits(t, &[Op::RemoveEntry { span: 0..t.len(), path: OWNERS, index: 0 }]).is_err());
    }
}
