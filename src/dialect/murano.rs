//! The `murano` dialect: Murano's serialized object model.
//!
//! Every object carries a `"?"` header (`id`, `type`, `name`, `destroyed`,
//! `dependencies.onDestruction: [{subscriber, handler}]`, and attributes
//! whose keys start with `_`). An object written inline in a property of
//! another, at any depth of lists and maps, is owned by it; a string equal to
//! a known id is a reference, not ownership. The same object written out
//! again (same id) is the first one: later copies are references.
//!
//! A document is one object tree, a list of trees (an object store dump; the
//! first is the root), or a deployment task holding `Objects` (the new model)
//! and `ObjectsCopy` (the model after the previous deployment). Documents
//! that only wrap a model (API responses) are walked the same way: the
//! outermost objects are the trees. A task whose `Objects` is null and that
//! holds no object at all is a deleted environment: an empty model (as
//! Murano's executor loads it: no objects), not an unusable document.

use super::api::Out;
use crate::findings::{Finding, Rule};
use crate::input::{locate, Node, Unit};
use crate::model::{
    Collector, DepDecl, DepKind, DepTarget, Fields, Identity, ModelKeys, ModelMember, ObjId, Object, Origin, OwnerRef,
    Section, StateKeys, Str, TrackingKeys,
};
use crate::span::{FileId, Span};
use rustc_hash::FxHashMap;
use std::ops::Range;

pub struct Murano;

/// The key of a deployment task's object model…
pub const MODEL: &str = "Objects";
/// …and of the copy of the model last deployed.
pub const MODEL_COPY: &str = "ObjectsCopy";
/// Why an object of the copy, not of the model, is garbage.
pub const REMOVED_FROM_MODEL: &str = "garbage: in ObjectsCopy, not in Objects";

pub static ORIGIN: Origin = Origin {
    dialect: "murano",
    noun: "a Murano object",
    identity: Identity::Id,
    fields: Fields {
        name: &["id"],
        owners: "owners",
        dependency: "subscriber",
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "type",
        deleted: "deletionTimestamp",
        tracking: &TrackingKeys::NONE,
        states: &StateKeys::NONE,
        models: &ModelKeys { model: MODEL, copy: MODEL_COPY, removed: REMOVED_FROM_MODEL },
    },
    collector: Collector::KUBERNETES,
};

impl super::api::Dialect for Murano {
    fn edits(&self) -> Option<&'static super::api::Edits> {
        Some(&super::api::Edits {
            owners: None,
            after: None,
            destroyed: Some((&["?"], "destroyed")),
            span_at_key: true,
        })
    }

    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "a Murano object model: objects with a `\"?\"` header holding `id` and `type`"
    }

    /// A document (not an item of a list) holding a header with an id, that
    /// is not a Kubernetes object or list embedding a model. A document
    /// that looks like one but cannot be parsed is Murano's too, so that
    /// its error is reported as what it is.
    fn recognise(&self, unit: &Unit) -> Option<bool> {
        if unit.list.is_none() && !looks_like(unit.text()) && unit.text().contains("Objects") {
            return Some(unit.tree().is_ok_and(deleted_environment));
        }
        if unit.list.is_some() || !looks_like(unit.text()) {
            return Some(false);
        }
        Some(match unit.tree() {
            Ok(tree) => has_header(tree) && !embeds_model(tree),
            Err(_) => true,
        })
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        match unit.tree() {
            Ok(tree) if has_header(tree) => {
                let span = unit.span();
                let (objects, findings) = convert(tree, unit.source_text(), span.file, span.range());
                out.objects.extend(objects);
                out.findings.extend(findings);
            }
            Ok(tree) if deleted_environment(tree) => {}
            Ok(_) => out.findings.push(
                Finding::new(Rule::Td001, "not a Murano object model: no `?` header with an id")
                    .at(unit.head(), "this document"),
            ),
            Err(finding) => out.findings.push(finding.clone().fatal()),
        }
    }
}

/// A deployment task that deletes its environment: `Objects` is null, and
/// no object is written anywhere in it (Murano's API sends
/// `{"Objects": null}`; `executor.load` then has no model).
pub fn deleted_environment(v: &Node) -> bool {
    v.as_map().is_some_and(|m| {
        get(m, "?").is_none()
            && get(m, "kind").is_none()
            && get(m, "Objects").is_some_and(Node::is_null)
            && !has_header(v)
    })
}

/// `--root ID`: the Murano object of the model with this id; `None`: no
/// such object; an error (for `--root`): the object is only in the copy.
pub fn root(objects: &[Object], id: &str) -> Result<Option<ObjId>, String> {
    match objects.iter().enumerate().find(|(_, o)| o.member.is_some() && *o.name == *id) {
        Some((_, o)) if o.member.as_deref().is_some_and(|m| m.section == Section::Old) => {
            Err(format!("--root {id}: that object is only in {MODEL_COPY}, not in the model ({MODEL})"))
        }
        Some((i, _)) => Ok(Some(ObjId(i as u32))),
        None => Ok(None),
    }
}

/// Does `text` hold a deleted environment (see [`deleted_environment`])?
/// For `--prune NEW`: such a NEW is empty on purpose.
pub fn deletes_environment(text: &str) -> bool {
    text.contains("Objects")
        && serde_yaml::Deserializer::from_str(text)
            .any(|doc| serde::Deserialize::deserialize(doc).is_ok_and(|v: Node| deleted_environment(&v)))
}

/// A Kubernetes object (or List) that embeds a Murano model in its spec.
fn embeds_model(v: &Node) -> bool {
    v.get("?").is_none() && v.get("kind").is_some() && (v.get("apiVersion").is_some() || v.get("items").is_some())
}

fn get<'a>(m: &'a [(Node, Node)], key: &str) -> Option<&'a Node> {
    m.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
}

/// Whether the `?` at `q` is quoted (`"?"` or `'?'`).
fn quoted_question(b: &[u8], q: usize) -> bool {
    let before = q.checked_sub(1).and_then(|p| b.get(p));
    before.is_some_and(|&c| matches!(c, b'"' | b'\'') && b.get(q + 1) == Some(&c))
}

/// Whether `doc` may hold a Murano header: a `"?"` (or `'?'`) key whose
/// value is a map. Cheap (a substring search), so that other dialects do not
/// pay for Murano.
pub fn looks_like(doc: &str) -> bool {
    let b = doc.as_bytes();
    // `?` is rare in other documents: find each, then look around it.
    for q in memchr::memchr_iter(b'?', b) {
        if quoted_question(b, q) {
            let at = q - 1;
            let mut j = at + 3;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            if b.get(j) != Some(&b':') {
                continue;
            }
            j += 1;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            // A map: in flow style, or in block style on the next lines
            // (perhaps after an anchor, a tag or a comment).
            if matches!(b.get(j), Some(b'{' | b'\n' | b'\r' | b'&' | b'!' | b'#')) {
                return true;
            }
        }
    }
    false
}

/// Whether a parsed document holds at least one header with an id.
pub fn has_header(v: &Node) -> bool {
    match v {
        Node::Map(m) => {
            get(m, "?").and_then(Node::as_map).is_some_and(|h| get(h, "id").is_some())
                || m.iter().any(|(_, v)| has_header(v))
        }
        Node::Seq(s) => s.iter().any(has_header),
        _ => false,
    }
}

/// An object being read: its index in the output, for children and copies.
struct Reader<'a> {
    text: &'a str,
    file: FileId,
    doc: Range<usize>,
    objects: Vec<Object>,
    infos: Vec<ModelMember>,
    by_id: FxHashMap<Str, usize>,
    findings: Vec<Finding>,
    /// Whether the document's root (its first top-level object) is known.
    root_seen: bool,
    /// Headers by id (see `header_index`).
    headers: Option<HeaderIndex>,
}

fn scalar(v: &Node) -> Option<String> {
    v.scalar()
}

/// `name/version@package`, or the `type` with `classVersion` and `package`.
fn type_of(h: &[(Node, Node)]) -> (Str, Str) {
    let written = get(h, "type").and_then(scalar).unwrap_or_default();
    let short: &str = written.split(['/', '@']).next().unwrap_or("");
    let mut full = written.clone();
    if let Some(v) = get(h, "classVersion").and_then(scalar) {
        if !full.contains('/') {
            full = format!("{full}/{v}");
        }
    }
    if let Some(p) = get(h, "package").and_then(scalar) {
        if !full.contains('@') {
            full = format!("{full}@{p}");
        }
    }
    (short.into(), full.into())
}

impl Reader<'_> {
    /// Where object `id`'s header is written (`occurrence` 0 for the first
    /// header with that id): from its `?` key to the next header; and where
    /// its id is. Headers are found in one pass over the document, the first
    /// time one is asked for.
    /// Whether what is written in `section` under the object at `parent`
    /// counts as its reference: what only ObjectsCopy says of an object in
    /// the model does not.
    fn records(&self, parent: usize, section: Section) -> bool {
        section != Section::Old || self.infos.get(parent).is_some_and(|p| p.section == Section::Old)
    }

    fn header_span(&mut self, id: &str, occurrence: usize) -> (Span, Span) {
        if self.headers.is_none() {
            self.headers = Some(header_index(self.text, self.doc.clone()));
        }
        let found = self.headers.as_ref().and_then(|h| h.get(id)).and_then(|all| all.get(occurrence));
        match found {
            Some((header, id)) => (Span::new(self.file, header.clone()), Span::new(self.file, id.clone())),
            None => {
                let head = Span::new(self.file, locate::head(self.text, self.doc.clone()));
                (head, head)
            }
        }
    }

    fn walk(&mut self, v: &Node, parent: Option<usize>, section: Section) {
        match v {
            Node::Map(m) => {
                let header = get(m, "?");
                match header {
                    Some(Node::Map(h)) if get(h, "id").is_some() => self.object(m, h, parent, section),
                    Some(other) if !matches!(other, Node::Map(_)) => {
                        let span = Span::new(self.file, locate::head(self.text, self.doc.clone()));
                        self.findings.push(
                            Finding::new(Rule::Td001, "a Murano `?` header that is not a map")
                                .at(span, "in this document")
                                .help("a header is `\"?\": {id, type, …}`"),
                        );
                    }
                    _ => {
                        if header.is_some() {
                            let span = Span::new(self.file, locate::head(self.text, self.doc.clone()));
                            self.findings.push(
                                Finding::new(Rule::Td001, "a Murano object without an id")
                                    .at(span, "in this document")
                                    .help("every object's `?` header needs an `id`"),
                            );
                        }
                        for (k, child) in m {
                            if k.as_str() == Some("?") {
                                continue;
                            }
                            self.walk(child, parent, section);
                        }
                    }
                }
            }
            Node::Seq(s) => {
                for child in s {
                    self.walk(child, parent, section);
                }
            }
            Node::Str(_) | Node::Number(_) => {
                // What only ObjectsCopy says of an object in the model refers to nothing now.
                let Some(p) = parent.filter(|&p| self.records(p, section)) else {
                    return;
                };
                if let (Some(s), Some(info)) = (scalar(v), self.infos.get_mut(p)) {
                    info.strings.push(s.into());
                }
            }
            _ => {}
        }
    }

    fn object(&mut self, m: &[(Node, Node)], h: &[(Node, Node)], parent: Option<usize>, section: Section) {
        let Some(id) = get(h, "id").and_then(scalar).filter(|s| !s.is_empty()) else {
            let span = Span::new(self.file, locate::head(self.text, self.doc.clone()));
            self.findings
                .push(Finding::new(Rule::Td001, "a Murano object with an empty id").at(span, "in this document"));
            // Its properties are still read, as if it were a plain map.
            self.properties(m, parent, section);
            return;
        };
        let id: Str = id.into();
        let (kind, full_type) = type_of(h);
        if let Some(&i) = self.by_id.get(&id) {
            if self.again(i, &id, &kind, parent, section) {
                self.properties(m, Some(i), section);
            }
            return;
        }
        let (span, _) = self.header_span(&id, 0);
        let subscriptions = self.subscriptions(h, &id);
        let attributes = h
            .iter()
            .filter_map(|(k, v)| {
                let k = k.as_str()?;
                k.starts_with('_').then(|| (Str::from(k), Str::from(v.to_json())))
            })
            .collect();
        let root = parent.is_none() && !self.root_seen && section != Section::Old;
        self.root_seen |= root;
        let index = self.objects.len();
        self.objects.push(Object {
            origin: &ORIGIN,
            group: "".into(),
            kind,
            namespace: None,
            namespace_written: false,
            scope_known: false,
            versioned: false,
            name: id.clone(),
            uid: Some(id.clone()),
            labels: Box::default(),
            owners: self.owner_refs(parent),
            deps: subscriptions.deps.into(),
            finalizers: Box::default(),
            deletion_timestamp: None,
            crd: None,
            span,
            member: None,
            tracking: None,
            facts: None,
            desired_state: Default::default(),
        });
        self.infos.push(ModelMember {
            type_name: full_type,
            name: get(h, "name").and_then(scalar).map(Str::from),
            destroyed: get(h, "destroyed").and_then(Node::as_bool).unwrap_or(false),
            handlers: subscriptions.handlers.into(),
            own_destruction: subscriptions.own.map(Into::into),
            own_at: subscriptions.own_at,
            strings: Vec::new(),
            attributes,
            section,
            root,
            model_root: None,
            copies: 0,
        });
        self.by_id.insert(id, index);
        self.properties(m, Some(index), section);
    }

    /// An object's properties (all but its `?` header), under `parent`.
    fn properties(&mut self, m: &[(Node, Node)], parent: Option<usize>, section: Section) {
        for (k, child) in m {
            if k.as_str() != Some("?") {
                self.walk(child, parent, section);
            }
        }
    }

    /// Object `i` (`id`, of `kind` here) written out again: the same
    /// object, referred to from here; two objects when the kinds differ.
    /// False when there is no object `i` (then nothing more is read of it).
    fn again(&mut self, i: usize, id: &Str, kind: &Str, parent: Option<usize>, section: Section) -> bool {
        if let Some(info) = parent.filter(|&p| self.records(p, section)).and_then(|p| self.infos.get_mut(p)) {
            info.strings.push(id.clone());
        }
        // `by_id` holds the index its object and info were pushed at.
        let Some(info) = self.infos.get_mut(i) else { return false };
        info.section = info.section.with(section);
        info.copies += 1;
        let copies = info.copies as usize;
        if let Some(first_kind) = self.objects.get(i).map(|o| o.kind.clone()).filter(|k| k != kind) {
            let (_, again) = self.header_span(id, copies);
            let (_, first) = self.header_span(id, 0);
            self.findings.push(
                Finding::new(Rule::Td002, format!("two different objects ({first_kind} and {kind}) have the id {id}"))
                    .at(again, "again here")
                    .also(first, "first defined here")
                    .refs([id.to_string()])
                    .help("a Murano id names one object; the later one is read as a copy of the first"),
            );
        }
        true
    }

    /// The `onDestruction` subscriptions of the header `h` of object `id`:
    /// whom it notifies (each subscription once), and its own handlers.
    fn subscriptions(&mut self, h: &[(Node, Node)], id: &Str) -> Subscriptions {
        let mut out = Subscriptions::default();
        let subscriptions = get(h, "dependencies").and_then(|d| d.get("onDestruction")).and_then(Node::as_seq);
        for s in subscriptions.into_iter().flatten() {
            let Some(subscriber) = s.get("subscriber").and_then(scalar).filter(|s| !s.is_empty()) else {
                let at = self.header_span(id, 0).1;
                self.findings.push(
                    Finding::new(Rule::Td001, format!("{id}: an onDestruction subscription without a subscriber"))
                        .at(at, "in this object's header")
                        .help("a subscription is `{subscriber: ID, handler: NAME}`"),
                );
                continue;
            };
            let subscriber: Str = subscriber.into();
            let handler = s.get("handler").and_then(scalar).map(Str::from);
            let again =
                out.deps.iter().zip(&out.handlers).any(|(d, h): (&DepDecl, _)| d.text == subscriber && *h == handler);
            if subscriber == *id {
                // Told about its own destruction; nothing to order.
                if out.own.is_none() {
                    out.own_at = out.deps.len() as u32;
                }
                let own = out.own.get_or_insert_with(Vec::new);
                own.extend(handler.filter(|h| !own.contains(h)));
                continue;
            }
            if again {
                continue; // the same subscription twice
            }
            out.deps.push(DepDecl {
                text: subscriber.clone(),
                target: DepTarget::Id(subscriber),
                kind: DepKind::Notifies,
            });
            out.handlers.push(handler);
        }
        out
    }

    /// The owner reference to the object `parent` (the index it was
    /// pushed at), if any.
    fn owner_refs(&self, parent: Option<usize>) -> Box<[OwnerRef]> {
        match parent.and_then(|p| self.objects.get(p)) {
            Some(p) => {
                let pid = p.name.clone();
                Box::new([OwnerRef {
                    group: "".into(),
                    api_version: "".into(),
                    kind: p.kind.clone(),
                    name: pid.clone(),
                    uid: Some(pid),
                    controller: false,
                    block_owner_deletion: false,
                    namespace: None,
                }])
            }
            None => Box::default(),
        }
    }
}

/// What an object's `onDestruction` subscriptions say.
#[derive(Default)]
struct Subscriptions {
    /// Whom it notifies, as dependencies, with each one's handler.
    deps: Vec<DepDecl>,
    handlers: Vec<Option<Str>>,
    /// Its handlers of its own destruction, and where among `deps` the
    /// first was written.
    own: Option<Vec<Str>>,
    own_at: u32,
}

/// Headers by the id written in them: (the header, from its `?` key to the
/// next header; the id), in text order.
type HeaderIndex = FxHashMap<String, Vec<(Range<usize>, Range<usize>)>>;

/// Every header of `text[doc]`, by the id written in it: (from its `?` key
/// to the next header, its id), in text order.
fn header_index(text: &str, doc: Range<usize>) -> HeaderIndex {
    let b = text.as_bytes();
    let mut keys = Vec::new();
    // A document off the text (not one the splitter made) has no headers.
    let body = b.get(doc.clone()).unwrap_or_default();
    for q in memchr::memchr_iter(b'?', body).map(|q| doc.start + q) {
        if q > doc.start && quoted_question(b, q) {
            let mut j = q + 2;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            if b.get(j) == Some(&b':') {
                keys.push(q - 1);
            }
        }
    }
    let mut out: HeaderIndex = FxHashMap::default();
    for (n, &start) in keys.iter().enumerate() {
        let end = keys.get(n + 1).copied().unwrap_or(doc.end);
        let Some(key) = locate::key_after(text, start + 3..end, "id") else { continue };
        // The value: after the colon, blanks and an optional quote.
        let mut v = key.end;
        while v < end && b.get(v).is_some_and(|&c| c != b':') {
            v += 1;
        }
        v += 1;
        while v < end && matches!(b.get(v), Some(b' ' | b'\t')) {
            v += 1;
        }
        let quote = b.get(v).copied().filter(|c| matches!(c, b'"' | b'\''));
        if quote.is_some() {
            v += 1;
        }
        let mut w = v;
        while let Some(&c) = b.get(w).filter(|_| w < end) {
            let stop = match quote {
                Some(q) => c == q || c == b'\\',
                None => matches!(c, b',' | b'}' | b']' | b'\n' | b'\r' | b' ' | b'\t' | b'#'),
            };
            if stop {
                break;
            }
            w += 1;
        }
        let Some(id) = text.get(v..w) else { continue };
        out.entry(id.to_string()).or_default().push((start..end, v..w));
    }
    out
}

/// Read a parsed Murano document (`doc` is its range in `text`).
pub fn convert(value: &Node, text: &str, file: FileId, doc: Range<usize>) -> (Vec<Object>, Vec<Finding>) {
    let mut r = Reader {
        text,
        file,
        doc,
        objects: Vec::new(),
        infos: Vec::new(),
        by_id: FxHashMap::default(),
        findings: Vec::new(),
        root_seen: false,
        headers: None,
    };
    let task = value
        .as_map()
        .filter(|m| get(m, "?").is_none() && (get(m, "Objects").is_some() || get(m, "ObjectsCopy").is_some()));
    match task {
        Some(m) => {
            let has_copy = get(m, "ObjectsCopy").is_some_and(|v| !v.is_null());
            let new = if has_copy { Section::New } else { Section::Model };
            if let Some(objects) = get(m, "Objects") {
                r.walk(objects, None, new);
            }
            if let Some(copy) = get(m, "ObjectsCopy") {
                r.walk(copy, None, Section::Old);
            }
        }
        None => r.walk(value, None, Section::Model),
    }
    let root = r.objects.iter().zip(&r.infos).find(|(_, i)| i.root).map(|(o, _)| o.name.clone());
    let objects = r
        .objects
        .into_iter()
        .zip(r.infos)
        .map(|(mut o, mut info)| {
            info.strings.sort_unstable();
            info.strings.dedup();
            info.model_root = root.clone();
            o.member = Some(Box::new(info));
            o
        })
        .collect();
    (objects, r.findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<Object>, Vec<Finding>) {
        let v: Node = serde_yaml::from_str(text).unwrap();
        convert(&v, text, FileId(0), 0..text.len())
    }

    #[test]
    fn recognises_headers_cheaply() {
        assert!(looks_like("{\"?\": {\"id\": \"a\"}}"));
        assert!(looks_like("'?':\n  id: a\n"));
        assert!(looks_like("x:\n  '?': {id: a}\n"));
        assert!(!looks_like("metadata:\n  annotations:\n    q: \"?\"\n"));
    }

    #[test]
    fn nesting_is_ownership_and_ids_are_references() {
        let (objects, findings) = read(
            "'?': {id: env, type: io.murano.Environment}\n\
             apps:\n\
             - '?': {id: app, type: 'x.App/1.0@pkg'}\n  \
               server: vm\n  \
               instance:\n    \
                 '?': {id: vm, type: x.Vm}\n",
        );
        assert!(findings.is_empty());
        let ids: Vec<&str> = objects.iter().map(|o| &*o.name).collect();
        assert_eq!(ids, ["env", "app", "vm"]);
        assert_eq!(&*objects[1].owners[0].name, "env");
        assert_eq!(&*objects[2].owners[0].name, "app");
        assert_eq!(&*objects[1].kind, "x.App");
        let info = objects[1].member.as_deref().unwrap();
        assert_eq!(&*info.type_name, "x.App/1.0@pkg");
        assert!(info.strings.iter().any(|s| &**s == "vm"));
        assert!(objects[0].member.as_deref().unwrap().root);
    }

    #[test]
    fn copies_are_the_same_object() {
        let (objects, findings) = read(
            "'?': {id: env, type: E}\n\
             a:\n  '?': {id: x, type: T}\n\
             b:\n  '?': {id: x, type: T}\n",
        );
        assert!(findings.is_empty());
        assert_eq!(objects.len(), 2);
    }

    #[test]
    fn a_deleted_environment_is_an_empty_model() {
        let v: Node = serde_yaml::from_str("{\"Objects\": null}").unwrap();
        assert!(deleted_environment(&v));
        assert!(deletes_environment("{\"Objects\": null, \"Attributes\": []}\n"));
        // Not: a model, an object with a kind, no `Objects` at all.
        for text in ["{\"Objects\": {\"?\": {\"id\": \"a\"}}}", "{kind: X, Objects: null}", "{Object: null}"] {
            let v: Node = serde_yaml::from_str(text).unwrap();
            assert!(!deleted_environment(&v), "{text}");
        }
    }

    #[test]
    fn subscriptions_become_destruction_dependencies() {
        let (objects, _) =
            read("'?': {id: b, type: T, dependencies: {onDestruction: [{subscriber: a, handler: onGone}]}}\n");
        let d = &objects[0].deps[0];
        assert_eq!(d.target, DepTarget::Id("a".into()));
        assert_eq!(d.kind, DepKind::Notifies);
        assert_eq!(objects[0].member.as_deref().unwrap().handlers[0].as_deref(), Some("onGone"));
    }
}
