//! Dialects: reading one document into model objects.
//!
//! A document is parsed as JSON when it starts with `{` or `[` (also inside a
//! YAML stream), as YAML otherwise. Its shape picks the dialect: a top-level
//! `resources:` list without `kind` is `native`, anything else is
//! `kubernetes` (an object, a `List`, or an array of objects). `--dialect`
//! forces one.

// Errors here are findings, built only on the error path.
#![allow(clippy::result_large_err)]

pub mod fastyaml;
pub mod jsonruns;
pub mod kubernetes;
pub mod murano;
pub mod native;
pub mod pairs;
pub mod raw;

use crate::findings::{Finding, Rule};
use crate::input::{FileId, Format, SourceFile, Span};
use crate::model::{Dialect, Object};
use kubernetes::ListContext;
use raw::{RawJsonShape, RawNative, RawObject, RawYamlDoc, TopKind, YamlShape};
use serde_json::value::RawValue;
use std::ops::Range;

/// What one document gave.
#[derive(Default)]
pub struct DocOutput {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// Runs of large JSON lists, converted once all of them are parsed.
    pub runs: Vec<jsonruns::RunResult>,
}

/// Parse the document `range` of `file`.
pub fn parse_document(file: &SourceFile, id: FileId, range: Range<usize>, forced: Option<Dialect>) -> DocOutput {
    let mut out = DocOutput::default();
    let text = &*file.text;
    let Some(start) = crate::input::split::first_content(text, range.clone()) else {
        return out;
    };
    let range = start..range.end;
    let first = text.as_bytes()[start];
    let maybe_murano = match forced {
        Some(Dialect::Murano) => true,
        None => murano::looks_like(&text[range.clone()]),
        _ => false,
    };
    if maybe_murano && parse_murano(text, id, range.clone(), forced, first, &mut out) {
        return out;
    }
    if first == b'{' || first == b'[' {
        match parse_json(text, id, range.clone(), forced, &mut out) {
            Ok(()) => return out,
            // Flow-style YAML (`{a: 1}`) is not JSON; a `.json` file must be.
            Err(err) if err.fatal && file.format != Format::Json => out = DocOutput::default(),
            Err(err) => {
                out.findings.push(err);
                return out;
            }
        }
    }
    parse_yaml(text, id, range, forced, &mut out);
    out
}

/// Read the document as a Murano object model if it holds one (or if
/// `--dialect murano` says it must). Returns whether it was read.
fn parse_murano(
    text: &str,
    id: FileId,
    range: Range<usize>,
    forced: Option<Dialect>,
    first: u8,
    out: &mut DocOutput,
) -> bool {
    let doc = &text[range.clone()];
    let parsed: Result<serde_yaml::Value, Finding> = if first == b'{' || first == b'[' {
        serde_json::from_str(doc).map_err(|e| json_error(text, id, range.start, &e))
    } else {
        serde_yaml::from_str(doc).map_err(|e| yaml_error(text, id, range.start, &e))
    };
    // A Kubernetes object (or List) that embeds a Murano model in its spec
    // is a Kubernetes object.
    let kubernetes = |v: &serde_yaml::Value| {
        v.get("?").is_none() && v.get("kind").is_some() && (v.get("apiVersion").is_some() || v.get("items").is_some())
    };
    match parsed {
        Ok(value) if forced.is_none() && kubernetes(&value) => false,
        Ok(value) if murano::has_header(&value) => {
            let (objects, findings) = murano::convert(&value, text, id, range);
            out.objects.extend(objects);
            out.findings.extend(findings);
            true
        }
        Ok(_) if forced == Some(Dialect::Murano) => {
            out.findings.push(
                Finding::new(Rule::Td001, "not a Murano object model: no `?` header with an id")
                    .at(head(text, Span::new(id, range)), "this document"),
            );
            true
        }
        // Not Murano after all: the other dialects read it.
        Ok(_) => false,
        Err(finding) if forced == Some(Dialect::Murano) => {
            out.findings.push(finding.fatal());
            true
        }
        // The general path reports the error exactly.
        Err(_) => false,
    }
}

fn parse_json(
    text: &str,
    id: FileId,
    range: Range<usize>,
    forced: Option<Dialect>,
    out: &mut DocOutput,
) -> Result<(), Finding> {
    let slice = &text[range.clone()];
    let stream = serde_json::Deserializer::from_str(slice).into_iter::<&RawValue>();
    for value in stream {
        let value = value.map_err(|e| json_error(text, id, range.start, &e))?;
        if let Err(finding) = json_value(text, id, value, forced, 0, out) {
            out.findings.push(finding);
        }
    }
    Ok(())
}

/// Byte offset of a raw value inside `text` (it borrows from it).
fn offset_in(text: &str, raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    start..start + raw.get().len()
}

fn json_value(
    text: &str,
    id: FileId,
    value: &RawValue,
    forced: Option<Dialect>,
    depth: usize,
    out: &mut DocOutput,
) -> Result<(), Finding> {
    let range = offset_in(text, value);
    let span = Span::new(id, range.clone());
    let err = |e: serde_json::Error| json_error(text, id, range.start, &e);
    let raw = value.get();
    if raw.starts_with('[') {
        if depth > 0 {
            out.findings.push(not_an_object(text, span, "an array"));
            return Ok(());
        }
        let items: Vec<&RawValue> = serde_json::from_str(raw).map_err(err)?;
        for item in items {
            if let Err(finding) = json_value(text, id, item, forced, depth + 1, out) {
                out.findings.push(finding);
            }
        }
        return Ok(());
    }
    if !raw.starts_with('{') {
        out.findings.push(not_an_object(text, span, "a scalar"));
        return Ok(());
    }
    let shape: RawJsonShape = serde_json::from_str(raw).map_err(err)?;
    let kind = shape.kind.as_ref().and_then(|k| k.0.as_deref());
    let api_version = shape.api_version.as_ref().and_then(|k| k.0.as_deref());
    let is_array = |v: Option<&RawValue>| v.is_some_and(|v| v.get().starts_with('[') || v.get() == "null");

    let named = shape.metadata.as_ref().is_some_and(|m| m.name.as_ref().is_some_and(|n| n.0.is_some()));
    let doc_shape = shape_of(forced, kind, named, is_array(shape.items), is_array(shape.resources));
    if doc_shape == DocShape::Native {
        let resources = shape.resources.map(|r| r.get()).unwrap_or("null");
        let items: Option<Vec<&RawValue>> = serde_json::from_str(resources).map_err(err)?;
        for item in items.unwrap_or_default() {
            let r = offset_in(text, item);
            match serde_json::from_str::<RawNative>(item.get()) {
                Ok(native) => {
                    let span = Span::new(id, r);
                    out.objects.extend(native::convert(native, span, text, &mut out.findings));
                }
                Err(e) => out.findings.push(json_error(text, id, r.start, &e)),
            }
        }
        return Ok(());
    }
    if doc_shape == DocShape::NotNative {
        out.findings.push(not_native(text, span));
        return Ok(());
    }
    let is_list = doc_shape == DocShape::List;
    if is_list && depth == 0 {
        let items: Option<Vec<&RawValue>> =
            serde_json::from_str(shape.items.map(|r| r.get()).unwrap_or("null")).map_err(err)?;
        let list = ListContext::new(api_version, kind);
        for item in items.unwrap_or_default() {
            let r = offset_in(text, item);
            let span = Span::new(id, r.clone());
            if !item.get().starts_with('{') {
                out.findings.push(not_an_object(text, span, "not an object"));
                continue;
            }
            match serde_json::from_str::<RawObject>(item.get()) {
                Ok(object) => out.objects.extend(kubernetes::convert(object, span, text, list, &mut out.findings)),
                Err(e) => out.findings.push(json_error(text, id, r.start, &e)),
            }
        }
        return Ok(());
    }
    let object: RawObject = serde_json::from_str(raw).map_err(err)?;
    out.objects.extend(kubernetes::convert(object, span, text, ListContext::default(), &mut out.findings));
    Ok(())
}

fn parse_yaml(text: &str, id: FileId, range: Range<usize>, forced: Option<Dialect>, out: &mut DocOutput) {
    let doc = &text[range.clone()];
    let first = text.as_bytes()[range.start];
    let is_seq = first == b'-' && matches!(text.as_bytes().get(range.start + 1), Some(b' ' | b'\n' | b'\r'));
    if is_seq {
        match serde_yaml::from_str::<Vec<RawObject>>(doc) {
            Ok(objects) => {
                let spans = item_spans(text, range.clone(), None, objects.len());
                for (object, s) in objects.into_iter().zip(spans) {
                    let s = Span::new(id, s);
                    out.objects.extend(kubernetes::convert(object, s, text, ListContext::default(), &mut out.findings));
                }
            }
            Err(e) => recover(text, id, range, forced, &e, out),
        }
        return;
    }
    // The fast path: kubectl-style block YAML, only the fields we read.
    if forced != Some(Dialect::Native) {
        if let Some(object) = fastyaml::document(doc) {
            let kind = object.kind.as_ref().map(|k| &*k.0);
            let named = object.metadata.as_ref().is_some_and(|m| m.name.is_some());
            let span = Span::new(id, range);
            match shape_of(forced, kind, named, false, false) {
                // An empty `…List`.
                DocShape::List => {}
                DocShape::NotNative => out.findings.push(not_native(text, span)),
                _ => out.objects.extend(kubernetes::convert(
                    object,
                    span,
                    text,
                    ListContext::default(),
                    &mut out.findings,
                )),
            }
            return;
        }
    }
    // The whole document in one go.
    match serde_yaml::from_str::<RawYamlDoc>(doc) {
        Ok(parsed) => {
            let (object, items, resources) = parsed.split();
            let kind = object.kind.as_ref().map(|k| &*k.0);
            let api_version = object.api_version.as_ref().map(|v| &*v.0);
            let named = object.metadata.as_ref().is_some_and(|m| m.name.is_some());
            let shape = shape_of(forced, kind, named, items.is_some(), resources.is_some());
            match shape {
                DocShape::Native => {
                    let resources = resources.unwrap_or_default();
                    let spans = item_spans(text, range.clone(), Some("resources"), resources.len());
                    for (r, s) in resources.into_iter().zip(spans) {
                        out.objects.extend(native::convert(r, Span::new(id, s), text, &mut out.findings));
                    }
                }
                DocShape::NotNative => out.findings.push(not_native(text, Span::new(id, range))),
                DocShape::List => {
                    let items = items.unwrap_or_default();
                    let list = ListContext::new(api_version, kind);
                    let spans = item_spans(text, range.clone(), Some("items"), items.len());
                    for (item, s) in items.into_iter().zip(spans) {
                        out.objects.extend(kubernetes::convert(item, Span::new(id, s), text, list, &mut out.findings));
                    }
                }
                DocShape::Object => {
                    let span = Span::new(id, range);
                    out.objects.extend(kubernetes::convert(
                        object,
                        span,
                        text,
                        ListContext::default(),
                        &mut out.findings,
                    ));
                }
            }
        }
        Err(e) => recover(text, id, range, forced, &e, out),
    }
}

/// What a document holds, by its top-level keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DocShape {
    /// A native `resources:` list.
    Native,
    /// `--dialect native`, but no `resources:` list.
    NotNative,
    /// A `List` (`items:`; a `…List` kind with `items: null` or none is empty).
    List,
    Object,
}

pub(crate) fn shape_of(
    forced: Option<Dialect>,
    kind: Option<&str>,
    named: bool,
    has_items: bool,
    has_resources: bool,
) -> DocShape {
    if forced != Some(Dialect::Kubernetes) && kind.is_none() && has_resources {
        return DocShape::Native;
    }
    if forced == Some(Dialect::Native) {
        return DocShape::NotNative;
    }
    match kind {
        None if has_items => DocShape::List,
        Some(k) if k.ends_with("List") && (has_items || !named) => DocShape::List,
        _ => DocShape::Object,
    }
}

/// The document did not read in one go. Find out why, and read what can be
/// read: the items of a list one by one (a bad item costs only itself), or
/// the object with `items`/`resources` taken for ordinary fields (a
/// Kustomization's `resources`).
fn recover(
    text: &str,
    id: FileId,
    range: Range<usize>,
    forced: Option<Dialect>,
    err: &serde_yaml::Error,
    out: &mut DocOutput,
) {
    let doc = &text[range.clone()];
    let span = Span::new(id, range.clone());
    let shape = match serde_yaml::from_str::<YamlShape>(doc) {
        Ok(shape) => shape,
        Err(_) => {
            match serde_yaml::from_str::<TopKind>(doc) {
                // Not YAML: a syntax error (exit 2).
                Err(_) => out.findings.push(yaml_error(text, id, range.start, err).fatal()),
                Ok(TopKind::Null) => {}
                Ok(TopKind::Scalar) => out.findings.push(not_an_object(text, span, "a scalar")),
                Ok(TopKind::Seq) => one_by_one(text, id, range, None, err, out, |o: RawObject, s, out| {
                    out.objects.extend(kubernetes::convert(o, s, text, ListContext::default(), &mut out.findings))
                }),
                Ok(TopKind::Map) => out.findings.push(yaml_error(text, id, range.start, err)),
            }
            return;
        }
    };
    let kind = shape.kind.as_ref().and_then(|k| k.0.as_deref());
    let api_version = shape.api_version.as_ref().and_then(|k| k.0.as_deref());
    let named = shape.metadata.is_some_and(|m| m.0);
    let items = matches!(shape.items, Some(TopKind::Seq | TopKind::Null));
    let resources = matches!(shape.resources, Some(TopKind::Seq));
    match shape_of(forced, kind, named, items, resources) {
        DocShape::Native => one_by_one(text, id, range, Some("resources"), err, out, |r: RawNative, s, out| {
            out.objects.extend(native::convert(r, s, text, &mut out.findings))
        }),
        DocShape::NotNative => out.findings.push(not_native(text, span)),
        DocShape::List => {
            let list = ListContext::new(api_version, kind);
            one_by_one(text, id, range, Some("items"), err, out, |o: RawObject, s, out| {
                out.objects.extend(kubernetes::convert(o, s, text, list, &mut out.findings))
            })
        }
        DocShape::Object => match serde_yaml::from_str::<RawObject>(doc) {
            Ok(object) => {
                out.objects.extend(kubernetes::convert(object, span, text, ListContext::default(), &mut out.findings))
            }
            Err(e) => out.findings.push(yaml_error(text, id, range.start, &e)),
        },
    }
}

/// Read the entries of the block sequence under `key` one at a time, each
/// from its own text, so that an error names its item and spares the others.
fn one_by_one<T: serde::de::DeserializeOwned>(
    text: &str,
    id: FileId,
    doc: Range<usize>,
    key: Option<&str>,
    err: &serde_yaml::Error,
    out: &mut DocOutput,
    mut emit: impl FnMut(T, Span, &mut DocOutput),
) {
    let Some(spans) = crate::input::split::yaml_block_items(text, doc.clone(), key) else {
        // Not written in block style: report the document's error.
        out.findings.push(yaml_error(text, id, doc.start, err));
        return;
    };
    for s in spans {
        let line_start = line_start_of(text, s.start).max(doc.start);
        if let Some(item) = yaml_entry::<T>(text, id, line_start, s.clone(), out) {
            emit(item, Span::new(id, s), out)
        }
    }
}

/// Where the line holding `offset` starts.
fn line_start_of(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0)
}

/// One entry of a block sequence, read with serde_yaml from the start of its
/// line (so that it keeps its indentation) as a one-element list.
fn yaml_entry<T: serde::de::DeserializeOwned>(
    text: &str,
    id: FileId,
    line_start: usize,
    s: Range<usize>,
    out: &mut DocOutput,
) -> Option<T> {
    match serde_yaml::from_str::<Vec<T>>(&text[line_start..s.end]) {
        Ok(mut one) if one.len() == 1 => one.pop(),
        Ok(_) => {
            out.findings.push(
                Finding::new(Rule::Td001, "this item could not be read on its own")
                    .at(head(text, Span::new(id, s)), "here"),
            );
            None
        }
        Err(e) => {
            let mut finding = yaml_error(text, id, line_start, &e);
            // The item was read as a one-element list: drop that from the path.
            for (from, to) in [("YAML: .[0].", "YAML: "), ("YAML: .[0]: ", "YAML: ")] {
                if let Some(rest) = finding.message.strip_prefix(from) {
                    finding.message = format!("{to}{rest}");
                }
            }
            if serde_yaml::from_str::<TopKind>(&text[line_start..s.end]).is_err() {
                finding = finding.fatal();
            }
            out.findings.push(finding);
            None
        }
    }
}

fn not_native(text: &str, span: Span) -> Finding {
    Finding::new(Rule::Td001, "not a native document: no top-level `resources:` list")
        .at(head(text, span), "this document")
}

/// What a list tells its items (owned: units outlive the list's parse).
#[derive(Debug, Default)]
pub struct ListInfo {
    pub api_version: Option<crate::model::Str>,
    pub kind: Option<crate::model::Str>,
}

impl ListInfo {
    fn context(this: &Option<std::sync::Arc<ListInfo>>) -> ListContext<'_> {
        match this {
            Some(l) => ListContext::new(l.api_version.as_deref(), l.kind.as_deref()),
            None => ListContext::default(),
        }
    }
}

/// A piece of a file that is parsed on its own, in parallel with the others:
/// a document, or an item of a large list.
#[derive(Debug)]
pub enum Unit {
    /// A whole document, read by the general path (`parse_document`).
    Doc(Range<usize>),
    /// A JSON object: one Kubernetes object (an item of a list when `list` is set).
    JsonObject { range: Range<usize>, list: Option<std::sync::Arc<ListInfo>> },
    /// An element of a native `resources` list in JSON.
    JsonNative(Range<usize>),
    /// An entry of a YAML block sequence (`range` from its `-`; the line
    /// starts at `line_start`): a list item, or a native resource.
    YamlEntry { range: Range<usize>, line_start: usize, list: Option<std::sync::Arc<ListInfo>>, native: bool },
    /// Consecutive items of a large JSON list, from `start` while they start
    /// before `stop` (see `jsonruns`).
    JsonRun { start: usize, stop: usize, list: std::sync::Arc<jsonruns::PendingList> },
    /// A value that is not an object (an array or a scalar where an object belongs).
    NotObject { range: Range<usize>, what: &'static str },
}

impl Unit {
    /// About how many bytes of its file the unit covers (`file_len` for
    /// runs, which end where the next begins).
    pub fn len(&self, file_len: usize) -> usize {
        match self {
            Unit::Doc(r) | Unit::JsonNative(r) | Unit::NotObject { range: r, .. } => r.len(),
            Unit::JsonObject { range, .. } | Unit::YamlEntry { range, .. } => range.len(),
            Unit::JsonRun { start, stop, .. } => stop.min(&file_len) - start,
        }
    }
}

/// Split a file into units. Large lists become one unit per item; anything
/// the cheap scans are unsure of stays one `Doc` unit for the general path,
/// which reports errors exactly. Also says whether the file holds any
/// document at all.
pub fn units(file: &SourceFile, forced: Option<Dialect>) -> (Vec<Unit>, bool) {
    let text = &*file.text;
    match file.format {
        Format::Json => {
            let Some(_) = crate::input::split::first_content(text, 0..text.len()) else { return (Vec::new(), false) };
            let units = json_units(text, forced).unwrap_or_else(|| vec![Unit::Doc(0..text.len())]);
            (units, true)
        }
        Format::Yaml => {
            let docs = crate::input::split::yaml_documents(text);
            let any = !docs.is_empty();
            let mut units = Vec::with_capacity(docs.len());
            for d in docs {
                yaml_units(text, d, forced, &mut units);
            }
            (units, any)
        }
    }
}

fn what_is(b: u8) -> &'static str {
    if b == b'[' {
        "an array"
    } else {
        "a scalar"
    }
}

/// The units of a JSON file: each top-level value (NDJSON), and the items
/// of lists. `None` when the structure is in doubt.
fn json_units(text: &str, forced: Option<Dialect>) -> Option<Vec<Unit>> {
    use crate::input::split::json;
    let b = text.as_bytes();
    if forced == Some(Dialect::Murano) {
        // A Murano model is read whole: ids and copies span its trees.
        return None;
    }
    let mut out = Vec::new();
    let mut i = json::skip_ws(b, 0);
    if b.get(i) == Some(&b'{') && b.len() >= jsonruns::MIN_LEN {
        if let Some(runs) = jsonruns::runs(text, i, rayon::current_num_threads()) {
            return Some(runs);
        }
    }
    while i < b.len() {
        match b[i] {
            b'{' => i = json_object_units(text, i, forced, &mut out)?,
            b'[' => {
                let (elements, end) = json::elements(b, i)?;
                // A list of Murano trees (an object store dump) is read whole.
                if forced.is_none()
                    && elements.first().is_some_and(|e| b[e.start] == b'{' && has_key(text, e.start, "?"))
                {
                    return None;
                }
                for e in elements {
                    match b[e.start] {
                        b'{' => out.push(Unit::JsonObject { range: e, list: None }),
                        c => out.push(Unit::NotObject { what: what_is(c), range: e }),
                    }
                }
                i = end;
            }
            c => {
                let end = json::value_end(b, i)?;
                out.push(Unit::NotObject { range: i..end, what: what_is(c) });
                i = end;
            }
        }
        i = json::skip_ws(b, i);
    }
    Some(out)
}

/// One top-level JSON object: a list (its items become units), a native
/// document (its resources do), or an object. Returns where it ends.
fn json_object_units(text: &str, i: usize, forced: Option<Dialect>, out: &mut Vec<Unit>) -> Option<usize> {
    use crate::input::split::json;
    let b = text.as_bytes();
    let (members, end) = json::members(b, i)?;
    let mut field: [Option<Range<usize>>; 5] = Default::default();
    for (k, v) in &members {
        let key = &text[k.start + 1..k.end - 1];
        if key.contains('\\') {
            return None;
        }
        let slot = match key {
            "kind" => 0,
            "apiVersion" => 1,
            "metadata" => 2,
            "items" => 3,
            "resources" => 4,
            _ => continue,
        };
        if field[slot].replace(v.clone()).is_some() {
            return None; // a duplicate field: the general path reports it
        }
    }
    let scalar = |r: &Option<Range<usize>>| -> Option<Option<crate::model::Str>> {
        match r {
            None => Some(None),
            Some(r) => Some(serde_json::from_str::<raw::LenientStr>(&text[r.clone()]).ok()?.0),
        }
    };
    // A Murano header, or no `kind`: a Murano model (or an API response
    // wrapping one), a native document, or an error; the general path
    // tells which.
    let header = forced.is_none() && members.iter().any(|(k, _)| &text[k.clone()] == "\"?\"");
    if header || (forced.is_none() && field[0].is_none() && field[3].is_none() && field[4].is_none()) {
        out.push(Unit::Doc(i..end));
        return Some(end);
    }
    let kind = scalar(&field[0])?;
    let api_version = scalar(&field[1])?;
    let named = match &field[2] {
        None => false,
        Some(r) => serde_json::from_str::<raw::HasName>(&text[r.clone()]).ok()?.0,
    };
    let listy = |r: &Option<Range<usize>>| r.as_ref().is_some_and(|r| b[r.start] == b'[' || &text[r.clone()] == "null");
    let shape = shape_of(forced, kind.as_deref(), named, listy(&field[3]), listy(&field[4]));
    let list_field = match shape {
        DocShape::Native => 4,
        DocShape::List => 3,
        DocShape::NotNative => {
            out.push(Unit::Doc(i..end));
            return Some(end);
        }
        DocShape::Object => {
            out.push(Unit::JsonObject { range: i..end, list: None });
            return Some(end);
        }
    };
    // Everything but the list must be valid JSON too: check it without the
    // (large) list.
    let mut header = String::from("{");
    for (n, (k, v)) in members.iter().enumerate() {
        if field[list_field].as_ref() == Some(v) {
            continue;
        }
        if header.len() > 1 {
            header.push(',');
        }
        header.push_str(&text[k.clone()]);
        header.push(':');
        header.push_str(&text[v.clone()]);
        let _ = n;
    }
    header.push('}');
    serde_json::from_str::<serde::de::IgnoredAny>(&header).ok()?;
    let Some(list) = &field[list_field] else { return Some(end) };
    if b[list.start] != b'[' {
        return Some(end); // `null`: an empty list
    }
    let (elements, _) = json::elements(b, list.start)?;
    let info = std::sync::Arc::new(ListInfo { api_version, kind });
    for e in elements {
        match (list_field, b[e.start]) {
            (4, _) => out.push(Unit::JsonNative(e)),
            (_, b'{') => out.push(Unit::JsonObject { range: e, list: Some(info.clone()) }),
            (_, c) => out.push(Unit::NotObject { what: what_is(c), range: e }),
        }
    }
    Some(end)
}

/// Whether the JSON object at `at` has the key `key` (written without escapes).
fn has_key(text: &str, at: usize, key: &str) -> bool {
    let b = text.as_bytes();
    crate::input::split::json::members(b, at).is_some_and(|(members, _)| {
        members.iter().any(|(k, _)| k.len() == key.len() + 2 && &text[k.start + 1..k.end - 1] == key)
    })
}

/// The units of one YAML document: its entries when it is a block-style
/// list (or native `resources:`, or a top-level sequence), else the document.
fn yaml_units(text: &str, doc: Range<usize>, forced: Option<Dialect>, out: &mut Vec<Unit>) {
    let Some(start) = crate::input::split::first_content(text, doc.clone()) else { return };
    let b = text.as_bytes();
    let whole = |out: &mut Vec<Unit>| out.push(Unit::Doc(doc.clone()));
    if forced == Some(Dialect::Murano) || (forced.is_none() && murano::looks_like(&text[doc.clone()])) {
        return whole(out);
    }
    if b[start] == b'-' && matches!(b.get(start + 1), Some(b' ' | b'\n' | b'\r')) {
        match crate::input::split::yaml_block_sequence(text, start..doc.end, None) {
            Some(seq) if seq.end >= doc.end => entries(text, seq.entries, None, false, out),
            _ => whole(out),
        }
        return;
    }
    let body = &text[start..doc.end];
    let key = if body.starts_with("items:") || body.contains("\nitems:") {
        "items"
    } else if body.starts_with("resources:") || body.contains("\nresources:") {
        "resources"
    } else {
        return whole(out);
    };
    let Some(seq) = crate::input::split::yaml_block_sequence(text, start..doc.end, Some(key)) else {
        return whole(out);
    };
    // The rest of the document, with the list left out, tells what it is
    // (and must be valid YAML).
    let header = format!("{} []\n{}", &text[start..seq.key_line.end], &text[seq.end..doc.end]);
    let Ok(shape) = serde_yaml::from_str::<YamlShape>(&header) else { return whole(out) };
    let kind = shape.kind.as_ref().and_then(|k| k.0.as_deref());
    let named = shape.metadata.is_some_and(|m| m.0);
    let listy = |t: Option<TopKind>| matches!(t, Some(TopKind::Seq | TopKind::Null));
    match (shape_of(forced, kind, named, listy(shape.items), listy(shape.resources)), key) {
        (DocShape::Native, "resources") => entries(text, seq.entries, None, true, out),
        (DocShape::List, "items") => {
            let info =
                ListInfo { api_version: shape.api_version.and_then(|v| v.0), kind: shape.kind.and_then(|k| k.0) };
            entries(text, seq.entries, Some(std::sync::Arc::new(info)), false, out)
        }
        _ => whole(out),
    }
}

fn entries(
    text: &str,
    spans: Vec<Range<usize>>,
    list: Option<std::sync::Arc<ListInfo>>,
    native: bool,
    out: &mut Vec<Unit>,
) {
    for s in spans {
        let line_start = line_start_of(text, s.start);
        out.push(Unit::YamlEntry { range: s, line_start, list: list.clone(), native });
    }
}

/// Parse one unit into objects and findings.
pub fn parse_unit(file: &SourceFile, id: FileId, unit: &Unit, forced: Option<Dialect>, out: &mut DocOutput) {
    let text = &*file.text;
    match unit {
        Unit::Doc(range) => {
            let doc = parse_document(file, id, range.clone(), forced);
            out.objects.extend(doc.objects);
            out.findings.extend(doc.findings);
        }
        Unit::JsonObject { range, list } => match serde_json::from_str::<RawObject>(&text[range.clone()]) {
            Ok(object) => {
                let span = Span::new(id, range.clone());
                out.objects.extend(kubernetes::convert(object, span, text, ListInfo::context(list), &mut out.findings));
            }
            Err(e) => out.findings.push(json_error(text, id, range.start, &e)),
        },
        Unit::JsonNative(range) => match serde_json::from_str::<RawNative>(&text[range.clone()]) {
            Ok(r) => out.objects.extend(native::convert(r, Span::new(id, range.clone()), text, &mut out.findings)),
            Err(e) => out.findings.push(json_error(text, id, range.start, &e)),
        },
        Unit::YamlEntry { range, line_start, list, native: true } => {
            let _ = list;
            if let Some(r) = yaml_entry::<RawNative>(text, id, *line_start, range.clone(), out) {
                out.objects.extend(native::convert(r, Span::new(id, range.clone()), text, &mut out.findings));
            }
        }
        Unit::YamlEntry { range, line_start, list, native: false } => {
            let object = match fastyaml::item(&text[*line_start..range.end]) {
                Some(o) => Some(o),
                None => yaml_entry::<RawObject>(text, id, *line_start, range.clone(), out),
            };
            if let Some(o) = object {
                let span = Span::new(id, range.clone());
                out.objects.extend(kubernetes::convert(o, span, text, ListInfo::context(list), &mut out.findings));
            }
        }
        Unit::NotObject { range, what } => out.findings.push(not_an_object(text, Span::new(id, range.clone()), what)),
        Unit::JsonRun { start, stop, list } => jsonruns::parse_unit(text, id, *start, *stop, list, out),
    }
}

/// Spans of the items of a block sequence; the document's span for each
/// item when the sequence is written some other way.
fn item_spans(text: &str, doc: Range<usize>, key: Option<&str>, count: usize) -> Vec<Range<usize>> {
    match crate::input::split::yaml_block_items(text, doc.clone(), key) {
        Some(spans) if spans.len() == count => spans,
        _ => vec![doc; count],
    }
}

fn head(text: &str, span: Span) -> Span {
    Span::new(span.file, crate::input::locate::head(text, span.range()))
}

fn not_an_object(text: &str, span: Span, what: &str) -> Finding {
    Finding::new(Rule::Td001, format!("document is {what}, not an object"))
        .at(head(text, span), "here")
        .help("each document must be an object, a `List` with `items`, or an array of objects")
}

/// A YAML error, located in the file.
fn yaml_error(text: &str, id: FileId, base: usize, e: &serde_yaml::Error) -> Finding {
    let offset = e.location().map(|l| base + l.index()).unwrap_or(base).min(text.len());
    let message = clean_message(&e.to_string());
    let end = next_char_end(text, offset);
    Finding::new(Rule::Td001, format!("YAML: {message}")).at(Span::new(id, offset..end), "here")
}

/// A JSON syntax or type error, located in the file. serde_json reports a
/// line and a byte column relative to the slice it parsed.
fn json_error(text: &str, id: FileId, base: usize, e: &serde_json::Error) -> Finding {
    let slice = &text[base..];
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
    let message = clean_message(&e.to_string());
    let finding = Finding::new(Rule::Td001, format!("JSON: {message}"))
        .at(Span::new(id, offset..next_char_end(text, offset)), "here");
    match e.classify() {
        serde_json::error::Category::Data => finding,
        _ => finding.fatal(),
    }
}

fn next_char_end(text: &str, offset: usize) -> usize {
    text[offset..].chars().next().map(|c| offset + c.len_utf8()).unwrap_or(offset)
}

/// Parser messages end with "at line L column C" relative to the document;
/// the finding carries the real position instead. Internal type names are
/// replaced by what they mean.
fn clean_message(message: &str) -> String {
    let mut m = message.to_string();
    let mut from = 0;
    while let Some(i) = m[from..].find(" at line ").map(|i| from + i) {
        let rest = &m[i + " at line ".len()..];
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        let l = digits(rest);
        let tail = &rest[l..];
        match tail.strip_prefix(" column ") {
            Some(c) if l > 0 && digits(c) > 0 => {
                let end = i + " at line ".len() + l + " column ".len() + digits(c);
                m.replace_range(i..end, "");
            }
            _ => from = i + 1,
        }
    }
    for (from, to) in [
        ("struct RawYamlDoc", "an object"),
        ("struct RawObject", "an object"),
        ("struct RawMeta", "a metadata map"),
        ("struct RawOwnerRef", "an owner reference map"),
        ("struct RawNative", "a native resource `{id, owners, destroyAfter}`"),
        ("struct RawJsonShape", "an object"),
    ] {
        m = m.replace(from, to);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_parser_messages() {
        assert_eq!(
            clean_message("invalid type: string \"x\", expected struct RawObject at line 2 column 7"),
            "invalid type: string \"x\", expected an object"
        );
        assert_eq!(clean_message("key at line 3 is odd"), "key at line 3 is odd");
    }
}
