//! Units: the pieces of a file that are read on their own (and in
//! parallel) — a document, or an item of a list. A unit knows its text and
//! how it is written; it offers its outline (for recognising its dialect)
//! and parses itself as whatever type a dialect asks for, by the fastest
//! path that gives serde's exact answer.

// Errors are findings, made only on the error path.
#![allow(clippy::result_large_err)]

use super::fast;
use super::json;
use super::lean;
use super::locate;
use super::outline::{Member, Outline, Shape, Value, ValueOutline};
use super::source::SourceFile;
use super::tree::Node;
use super::yaml;
use crate::findings::{Finding, Rule};
use crate::span::{FileId, Span};
use serde::de::DeserializeOwned;

// The fast path reads no value nested as deep as is refused: it need not
// look for one.
const _: () = assert!(lean::DEEPEST < yaml::MAX_NESTING);
use std::borrow::Cow;
use std::cell::{Cell, OnceCell};
use std::ops::Range;

/// How a unit is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A JSON value (in a `.json` file, or a JSON list's item).
    Json,
    /// A YAML document (JSON inside a YAML stream is read as JSON first).
    Yaml,
    /// An entry of a YAML block sequence: `range` starts at its `-`, whose
    /// line starts at `line_start`.
    YamlEntry { line_start: usize },
}

/// What a list tells its items: its outline (a typed list's `kind`, say),
/// which dialect took it (an index its reader knows), and whether that
/// dialect reads every item.
#[derive(Debug)]
pub struct ListHeader {
    pub outline: Outline<'static>,
    pub taken_by: usize,
    pub own_items: bool,
}

/// The items of a list document.
pub enum Items<'a> {
    /// Found in the text: each item's range and form.
    Split(Vec<(Range<usize>, Form)>),
    /// The list is not written in a way the text can be split (a flow
    /// sequence): its values, read whole.
    Values(&'a [Node]),
    /// The document does not read; this says why.
    Broken(Finding),
}

/// Where a unit is, before it is read: cheap to make, sent between threads.
#[derive(Clone, Debug)]
pub struct UnitSpec {
    pub range: Range<usize>,
    pub form: Form,
    pub list: Option<std::sync::Arc<ListHeader>>,
}

pub struct Unit<'a> {
    pub file: &'a SourceFile,
    pub id: FileId,
    /// The unit's text. An item read as it streams (see `streamed`) runs
    /// from its start to the end of the file until it is parsed.
    pub range: Range<usize>,
    pub form: Form,
    pub list: Option<&'a ListHeader>,
    /// An item of a large JSON list: its end is found by parsing it.
    streamed: bool,
    /// An item of a list that was read whole (see [`Items::Values`]).
    node: Option<&'a Node>,
    end: Cell<Option<usize>>,
    fast: OnceCell<Option<fast::Doc<'a>>>,
    outline: OnceCell<Outline<'a>>,
    /// The outline with every key, once [`Unit::complete_outline`] asked.
    full: OnceCell<Outline<'a>>,
    tree: OnceCell<Result<Node, Finding>>,
    /// The outline read as a value, when the fast path cannot give it.
    outlines: OnceCell<Result<ValueOutline, Finding>>,
}

impl<'a> Unit<'a> {
    pub fn new(file: &'a SourceFile, id: FileId, spec: &'a UnitSpec) -> Unit<'a> {
        Unit::make(file, id, spec.range.clone(), spec.form, spec.list.as_deref(), false)
    }

    /// An item of a JSON list starting at `start`, whose end is not known
    /// until it is parsed.
    pub fn streamed(file: &'a SourceFile, id: FileId, start: usize, list: Option<&'a ListHeader>) -> Unit<'a> {
        Unit::make(file, id, start..file.text.len(), Form::Json, list, true)
    }

    /// An item of a list that was read whole: `node`, in the list's `range`.
    pub fn value(
        file: &'a SourceFile,
        id: FileId,
        range: Range<usize>,
        node: &'a Node,
        list: Option<&'a ListHeader>,
    ) -> Unit<'a> {
        let mut unit = Unit::make(file, id, range, Form::Yaml, list, false);
        unit.node = Some(node);
        unit
    }

    fn make(
        file: &'a SourceFile,
        id: FileId,
        range: Range<usize>,
        form: Form,
        list: Option<&'a ListHeader>,
        streamed: bool,
    ) -> Unit<'a> {
        Unit {
            file,
            id,
            range,
            form,
            list,
            streamed,
            node: None,
            end: Cell::new(None),
            fast: OnceCell::new(),
            outline: OnceCell::new(),
            full: OnceCell::new(),
            tree: OnceCell::new(),
            outlines: OnceCell::new(),
        }
    }

    pub fn source_text(&self) -> &'a str {
        &self.file.text
    }

    /// The unit's text (for an item read as it streams: once parsed).
    pub fn text(&self) -> &'a str {
        self.file.text.get(self.span().range()).unwrap_or_default()
    }

    /// The unit in its file.
    pub fn span(&self) -> Span {
        let end = self.end.get().unwrap_or(self.range.end);
        Span::new(self.id, self.range.start..end)
    }

    /// Where the unit ends, once known (an item read as it streams).
    pub fn end(&self) -> Option<usize> {
        if self.streamed {
            self.end.get()
        } else {
            Some(self.range.end)
        }
    }

    /// The unit's first line: where findings about it as a whole point.
    pub fn head(&self) -> Span {
        let span = self.span();
        let end = if self.streamed && self.end.get().is_none() {
            self.file
                .text
                .as_bytes()
                .get(span.start..)
                .and_then(|rest| memchr::memchr(b'\n', rest))
                .map_or(span.end, |n| span.start + n)
        } else {
            span.end
        };
        Span::new(self.id, super::locate::head(&self.file.text, span.start..end))
    }

    /// Is the unit written as JSON? (A YAML document that starts like JSON
    /// is read as JSON first.)
    pub fn is_json(&self) -> bool {
        if self.node.is_some() {
            return false;
        }
        match self.form {
            Form::Json => true,
            Form::Yaml => matches!(self.file.text.as_bytes().get(self.range.start), Some(b'{' | b'[')),
            Form::YamlEntry { .. } => false,
        }
    }

    /// The YAML fast path's view of the unit, when it has one.
    fn fast(&self) -> Option<&fast::Doc<'a>> {
        self.fast
            .get_or_init(|| {
                if fast::disabled() {
                    return None;
                }
                let text = &self.file.text;
                match self.form {
                    Form::Yaml if !self.is_json() => text.get(self.range.clone()).and_then(fast::Doc::document),
                    Form::YamlEntry { line_start } => text.get(line_start..self.range.end).and_then(fast::Doc::entry),
                    _ => None,
                }
            })
            .as_ref()
    }

    /// What the unit holds at its top level: its shape, and the keys of a
    /// mapping with their values' shapes (strings kept). Made when first
    /// asked for. An item of a large JSON list, read as it streams, shows
    /// its keys up to the first nested value (`complete: false`), until
    /// [`Unit::complete_outline`].
    pub fn outline(&self) -> &Outline<'a> {
        if let Some(full) = self.full.get() {
            return full;
        }
        self.outline.get_or_init(|| self.make_outline())
    }

    /// From now on, [`Unit::outline`] shows every top-level key, also for
    /// an item read as it streams (found by scanning it to its end).
    pub fn complete_outline(&self) {
        if !self.streamed || self.full.get().is_some() {
            return;
        }
        let text: &'a str = &self.file.text;
        let full = json::value_end(text.as_bytes(), self.range.start)
            .and_then(|end| json::outline(text, self.range.start, Some(end)))
            .unwrap_or_else(|| self.outline().clone());
        let _ = self.full.set(full);
    }

    /// The string of an item's first member when that member is `key`,
    /// key and string written without escapes: what its outline would say
    /// of `key`, without making one (an item of a large JSON list read as
    /// it streams; `None` for any other unit, or when the text is not so).
    pub fn first_str(&self, key: &str) -> Option<&'a str> {
        if !self.streamed {
            return None;
        }
        let text: &'a str = &self.file.text;
        let b = text.as_bytes();
        if b.get(self.range.start) != Some(&b'{') {
            return None;
        }
        // `"key"` as written (a key without quotes or backslashes ends at
        // the quote after it), a colon, a string.
        let k = json::skip_ws(b, self.range.start + 1) + 1;
        let quoted = b.get(k - 1) == Some(&b'"') && b.get(k + key.len()) == Some(&b'"');
        if !quoted || b.get(k..k + key.len()) != Some(key.as_bytes()) {
            return None;
        }
        let j = json::skip_ws(b, k + key.len() + 1);
        if b.get(j) != Some(&b':') {
            return None;
        }
        let j = json::skip_ws(b, j + 1);
        if b.get(j) != Some(&b'"') {
            return None;
        }
        match json::string_end_escaped(b, j)? {
            (_, true) => None,
            (end, false) => text.get(j + 1..end - 1),
        }
    }

    /// The unit's shape: map, sequence, scalar or null. Cheaper than the
    /// outline for JSON (its first byte says).
    pub fn shape(&self) -> Shape {
        if let Some(o) = self.full.get().or(self.outline.get()) {
            return o.shape;
        }
        match self.file.text.as_bytes().get(self.range.start) {
            Some(&first) if self.is_json() && self.node.is_none() => json::shape_of(first),
            _ => self.outline().shape,
        }
    }

    fn make_outline(&self) -> Outline<'a> {
        if let Some(node) = self.node {
            return node_outline(node);
        }
        let text: &'a str = &self.file.text;
        if self.is_json() {
            let b = text.as_bytes();
            let start = self.range.start;
            let end = if self.streamed { None } else { Some(self.range.end) };
            if let Some(o) = json::outline(text, start, end) {
                return o;
            }
            if self.form == Form::Json || self.streamed {
                // Broken JSON: whoever reads it reports where.
                return Outline {
                    shape: b.get(start).map_or(Shape::Scalar, |&c| json::shape_of(c)),
                    members: Vec::new(),
                    complete: false,
                };
            }
        }
        if let Some(o) = self.fast().and_then(fast::Doc::outline) {
            return o;
        }
        match self.value_outline() {
            Ok(o) => o.top.clone(),
            Err(_) => Outline { shape: Shape::Map, members: Vec::new(), complete: false },
        }
    }

    /// The outline read as a value: the top level and the mappings it holds
    /// (not the whole value tree: see [`ValueOutline`]).
    fn value_outline(&self) -> Result<&ValueOutline, &Finding> {
        self.outlines.get_or_init(|| self.parse::<ValueOutline>()).as_ref()
    }

    /// Why the unit has no outline: it cannot be read as a value at all (a
    /// YAML document whose outline the fast path did not give). That is the
    /// finding to report, not the empty outline.
    pub fn unreadable(&self) -> Option<&Finding> {
        if self.node.is_some() || self.is_json() {
            return None;
        }
        self.outline();
        self.outlines.get()?.as_ref().err()
    }

    /// The outline of the mapping a top-level key holds.
    pub fn child(&self, key: &str) -> Option<Outline<'a>> {
        let member = self.outline().member(key)?;
        if member.value != Value::Map {
            return None;
        }
        if self.is_json() && !member.at.is_empty() {
            return json::outline(&self.file.text, member.at.start, Some(member.at.end));
        }
        // `at` is empty in an outline the fast path did not give.
        if let Some(o) = self.fast().filter(|_| !member.at.is_empty()).and_then(|d| d.child_outline(member.at.clone()))
        {
            return Some(o);
        }
        if let Some(node) = self.node {
            return Some(node_outline(node.get(key)?));
        }
        let children = &self.value_outline().ok()?.children;
        children.iter().find(|(k, _)| k == key).map(|(_, o)| o.clone())
    }

    /// The whole unit as a value tree (parsed once, kept).
    pub fn tree(&self) -> Result<&Node, &Finding> {
        if let Some(node) = self.node {
            return Ok(node);
        }
        self.tree.get_or_init(|| self.parse::<Node>()).as_ref()
    }

    /// The items of this list document: under `member`, or the document
    /// itself when it is the list.
    pub fn items(&self, member: Option<&str>) -> Items<'_> {
        let text: &'a str = &self.file.text;
        if self.node.is_none() && self.is_json() {
            if let Some(items) = self.json_items(member) {
                return Items::Split(items.into_iter().map(|r| (r, Form::Json)).collect());
            }
        } else if self.node.is_none() {
            let doc = self.range.clone();
            match super::split::yaml_block_sequence(text, doc.clone(), member) {
                Some(seq) if member.is_some() || seq.end >= doc.end => {
                    // The rest of the document, with the list left out, must be YAML too.
                    let header_ok = match member {
                        None => true,
                        Some(_) => match (text.get(doc.start..seq.key_line.end), text.get(seq.end..doc.end)) {
                            (Some(key_line), Some(rest)) => yaml::check(&format!("{key_line} []\n{rest}")).is_ok(),
                            // Not where the split says: read whole.
                            _ => false,
                        },
                    };
                    if header_ok {
                        let line_start = |at: usize| {
                            memchr::memrchr(b'\n', text.as_bytes().get(..at).unwrap_or_default())
                                .map_or(0, |i| i + 1)
                                .max(doc.start)
                        };
                        return Items::Split(
                            seq.entries
                                .into_iter()
                                .map(|e| {
                                    let form = Form::YamlEntry { line_start: line_start(e.start) };
                                    (e, form)
                                })
                                .collect(),
                        );
                    }
                }
                _ => {}
            }
        }
        // Read whole.
        match self.tree() {
            Ok(tree) => match member.map_or(Some(tree), |m| tree.get(m)) {
                Some(Node::Seq(values)) => Items::Values(values),
                _ => Items::Split(Vec::new()),
            },
            Err(finding) => Items::Broken(finding.clone()),
        }
    }

    /// The items of a JSON list, found in the text; `None` when the text is
    /// not as the outline says (the list is then read whole).
    fn json_items(&self, member: Option<&str>) -> Option<Vec<Range<usize>>> {
        let text: &'a str = &self.file.text;
        let b = text.as_bytes();
        let start = match member {
            None => self.range.start,
            Some(m) => {
                let Some(at) = self.outline().member(m).map(|m| m.at.clone()) else { return Some(Vec::new()) };
                // Everything but the list must be valid JSON too: checked without the (large) list.
                let (members, _) = json::members(b, self.range.start)?;
                let mut header = String::from("{");
                for (k, v) in members.iter().filter(|(_, v)| *v != at) {
                    if header.len() > 1 {
                        header.push(',');
                    }
                    header.push_str(text.get(k.clone())?);
                    header.push(':');
                    header.push_str(text.get(v.clone())?);
                }
                header.push('}');
                serde_json::from_str::<serde::de::IgnoredAny>(&header).ok()?;
                at.start
            }
        };
        match b.get(start) {
            Some(b'n') => Some(Vec::new()),
            Some(b'[') => json::elements(b, start).map(|(items, _)| items),
            _ => None,
        }
    }

    /// Read the unit as `T`. Errors are TD001 findings at their place;
    /// syntax errors are fatal.
    pub fn parse<T: DeserializeOwned>(&self) -> Result<T, Finding> {
        let text: &'a str = &self.file.text;
        if let Some(node) = self.node {
            return T::deserialize(node)
                .map_err(|e| Finding::new(Rule::Td001, format!("YAML: {e}")).at(self.head(), "here"));
        }
        if self.streamed {
            // (What the fast path reads nests too little to be refused.)
            if let Some((value, end)) = lean::parse::<T>(text, self.range.start) {
                self.end.set(Some(end));
                return Ok(value);
            }
            let mut stream =
                serde_json::Deserializer::from_str(text.get(self.range.start..).unwrap_or_default()).into_iter::<T>();
            return match stream.next() {
                Some(Ok(value)) => {
                    let end = self.range.start + stream.byte_offset();
                    self.end.set(Some(end));
                    let item = text.as_bytes().get(self.range.start..end).unwrap_or_default();
                    if let Some(at) = json::too_deep(item, yaml::MAX_NESTING) {
                        return Err(json::too_deep_finding(self.id, self.range.start + at, yaml::MAX_NESTING));
                    }
                    Ok(value)
                }
                Some(Err(e)) => Err(json::error(text, self.id, self.range.start, &e)),
                // Nothing but blanks: serde_json's own error for no value.
                None => Err(serde_json::from_str::<serde::de::IgnoredAny>("").err().map_or_else(
                    || Finding::new(Rule::Td001, "JSON: EOF while parsing a value").at(self.head(), "here"),
                    |e| json::error(text, self.id, self.range.start, &e),
                )),
            };
        }
        let Some(doc) = text.get(self.range.clone()) else {
            return Err(Finding::new(Rule::Td001, "this document is not in the file's text").at(self.head(), "here"));
        };
        if self.is_json() {
            // (What the fast path reads nests too little to be refused.)
            if let Some((value, end)) = lean::parse::<T>(doc, 0) {
                if json::skip_ws(doc.as_bytes(), end) == doc.len() {
                    return Ok(value);
                }
            }
            if let Some(at) = json::too_deep(doc.as_bytes(), yaml::MAX_NESTING) {
                return Err(json::too_deep_finding(self.id, self.range.start + at, yaml::MAX_NESTING));
            }
            match serde_json::from_str::<T>(doc) {
                Ok(value) => return Ok(value),
                // Flow-style YAML (`{a: 1}`) is not JSON; a `.json` file must be.
                Err(e) if self.form == Form::Json || e.classify() == serde_json::error::Category::Data => {
                    return Err(json::error(text, self.id, self.range.start, &e));
                }
                Err(_) => {}
            }
        }
        if let Some(fast) = self.fast() {
            if let Ok(value) = fast.parse::<T>() {
                return Ok(value);
            }
        }
        match self.form {
            Form::YamlEntry { line_start } => {
                // The entry alone, read as a one-element list.
                let Some(entry) = text.get(line_start..self.range.end) else {
                    return Err(
                        Finding::new(Rule::Td001, "this item is not in the file's text").at(self.head(), "here")
                    );
                };
                match yaml::from_str::<Vec<T>>(entry) {
                    Ok(mut one) if one.len() == 1 => Ok(one.remove(0)),
                    Ok(_) => {
                        Err(Finding::new(Rule::Td001, "this item could not be read on its own").at(self.head(), "here"))
                    }
                    Err(e) => {
                        let mut finding = self.yaml_error(line_start, &e);
                        // The item was read as a one-element list: drop that from the path.
                        for (from, to) in [("YAML: .[0].", "YAML: "), ("YAML: .[0]: ", "YAML: ")] {
                            if let Some(rest) = finding.message.strip_prefix(from) {
                                finding.message = format!("{to}{rest}");
                            }
                        }
                        Err(finding)
                    }
                }
            }
            _ => yaml::from_str::<T>(doc).map_err(|e| self.yaml_error(self.range.start, &e)),
        }
    }

    /// A YAML error of the text parsed from `base`, located in the file.
    fn yaml_error(&self, base: usize, e: &yaml::Error) -> Finding {
        let text = &self.file.text;
        let span = match e.offset {
            Some(offset) => {
                let at = (base + offset).min(text.len());
                Span::new(self.id, at..locate::next_char_end(text, at))
            }
            None => self.head(),
        };
        let finding = Finding::new(Rule::Td001, format!("YAML: {}", e.message)).at(span, "here");
        if e.syntax {
            finding.fatal()
        } else {
            finding
        }
    }

    /// Skip the unit without reading it (an item read as it streams, that
    /// no dialect parsed): where it ends, if it is JSON at all.
    pub fn skip(&self) -> Option<usize> {
        if let Some(end) = self.end() {
            return Some(end);
        }
        self.parse::<serde::de::IgnoredAny>().ok()?;
        self.end.get()
    }
}

/// The outline of a parsed value.
fn node_outline<'a>(node: &Node) -> Outline<'a> {
    match node {
        Node::Map(entries) => Outline {
            shape: Shape::Map,
            members: entries
                .iter()
                .map(|(k, v)| Member {
                    key: Cow::Owned(k.scalar().unwrap_or_default()),
                    value: match v {
                        Node::Str(s) => Value::Str(Cow::Owned(s.clone())),
                        Node::Number(_) | Node::Bool(_) => Value::Other,
                        Node::Null => Value::Null,
                        Node::Map(_) => Value::Map,
                        Node::Seq(_) => Value::Seq,
                    },
                    at: 0..0,
                })
                .collect(),
            complete: true,
        },
        Node::Seq(_) => Outline::new(Shape::Seq),
        Node::Null => Outline::new(Shape::Null),
        _ => Outline::new(Shape::Scalar),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::{Format, SourceFile};

    #[test]
    fn first_str_says_what_the_outline_says() {
        for item in [
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {}}"#,
            "{\n  \"apiVersion\" :\n \"core.oam.dev/v1beta1\", \"kind\": \"Application\"}",
            r#"{"apiVersion": "v\u0031", "kind": "Pod"}"#,
            r#"{"api\u0056ersion": "v1"}"#,
            r#"{"apiVersion": 1}"#,
            r#"{"apiVersionX": "v1"}"#,
            r#"{"kind": "Pod", "apiVersion": "v1"}"#,
            r#"{"metadata": {}, "apiVersion": "v1"}"#,
            r#"{"apiVersion": "v1"#,
            r#"{"apiVersion": ""}"#,
            r#"["apiVersion", "v1"]"#,
        ] {
            let file = SourceFile::new("t".into(), None, Format::Json, format!("{item}\n"));
            let unit = Unit::streamed(&file, FileId(0), 0, None);
            let first = unit.first_str("apiVersion");
            let outline = unit.outline();
            if let Some(v) = first {
                // Its outline's first member, the same string.
                assert_eq!(outline.members.first().map(|m| &*m.key), Some("apiVersion"), "{item}");
                assert_eq!(outline.str("apiVersion"), Some(v), "{item}");
            }
            let plain = item.starts_with(r#"{"apiVersion": ""#) || item.starts_with("{\n  \"apiVersion\" :\n \"");
            assert_eq!(first.is_some(), plain && !item.contains('\\') && item.matches('"').count() >= 4, "{item}");
        }
    }
}
