//! Dialects: reading one document into model objects.
//!
//! A document is parsed as JSON when it starts with `{` or `[` (also inside a
//! YAML stream), as YAML otherwise. Its shape picks the dialect: a top-level
//! `resources:` list without `kind` is `native`, anything else is
//! `kubernetes` (an object, a `List`, or an array of objects). `--dialect`
//! forces one.

// Errors here are findings, built only on the error path.
#![allow(clippy::result_large_err)]

pub mod kubernetes;
pub mod native;
pub mod raw;

use crate::findings::{Finding, Rule};
use crate::model::{Dialect, Object};
use crate::source::{FileId, Format, SourceFile, Span};
use kubernetes::ListContext;
use raw::{RawJsonShape, RawNative, RawObject, RawYamlDoc, TopKind, YamlShape};
use serde_json::value::RawValue;
use std::ops::Range;

/// What one document gave.
#[derive(Default)]
pub struct DocOutput {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
}

/// Parse the document `range` of `file`.
pub fn parse_document(file: &SourceFile, id: FileId, range: Range<usize>, forced: Option<Dialect>) -> DocOutput {
    let mut out = DocOutput::default();
    let text = &*file.text;
    let Some(start) = crate::split::first_content(text, range.clone()) else {
        return out;
    };
    let range = start..range.end;
    let first = text.as_bytes()[start];
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
    // The fast path: the whole document in one go.
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
enum DocShape {
    /// A native `resources:` list.
    Native,
    /// `--dialect native`, but no `resources:` list.
    NotNative,
    /// A `List` (`items:`; a `…List` kind with `items: null` or none is empty).
    List,
    Object,
}

fn shape_of(
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
    let Some(spans) = crate::split::yaml_block_items(text, doc.clone(), key) else {
        // Not written in block style: report the document's error.
        out.findings.push(yaml_error(text, id, doc.start, err));
        return;
    };
    for s in spans {
        // From the start of the line, so that the item keeps its indentation.
        let line_start = text[..s.start].rfind('\n').map(|i| i + 1).unwrap_or(0).max(doc.start);
        match serde_yaml::from_str::<Vec<T>>(&text[line_start..s.end]) {
            Ok(mut one) if one.len() == 1 => {
                if let Some(item) = one.pop() {
                    emit(item, Span::new(id, s), out)
                }
            }
            Ok(_) => out.findings.push(
                Finding::new(Rule::Td001, "this item could not be read on its own")
                    .at(head(text, Span::new(id, s)), "here"),
            ),
            Err(e) => {
                let mut finding = yaml_error(text, id, line_start, &e);
                // The item was read as a one-element list: drop that from the path.
                for (from, to) in [("YAML: .[0].", "YAML: "), ("YAML: .[0]: ", "YAML: ")] {
                    if let Some(rest) = finding.message.strip_prefix(from) {
                        finding.message = format!("{to}{rest}");
                    }
                }
                out.findings.push(finding)
            }
        }
    }
}

fn not_native(text: &str, span: Span) -> Finding {
    Finding::new(Rule::Td001, "not a native document: no top-level `resources:` list")
        .at(head(text, span), "this document")
}

/// Spans of the items of a block sequence; the document's span for each
/// item when the sequence is written some other way.
fn item_spans(text: &str, doc: Range<usize>, key: Option<&str>, count: usize) -> Vec<Range<usize>> {
    match crate::split::yaml_block_items(text, doc.clone(), key) {
        Some(spans) if spans.len() == count => spans,
        _ => vec![doc; count],
    }
}

fn head(text: &str, span: Span) -> Span {
    Span::new(span.file, crate::locate::head(text, span.range()))
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
