//! Where in its text an object, an owner reference, a dependency or a
//! finalizer is written: the spans findings and explanations point at.

use super::tracking::{DependsHow, Tracking};
use super::{ControllerEdge, DepTarget, Identity, ObjId, Object, RelKind, Relation};
use crate::input::locate;
use crate::input::{SourceFile, Sources};
use crate::span::Span;

fn span(o: &Object, range: Option<std::ops::Range<usize>>, sources: &Sources) -> Span {
    let range = range.unwrap_or_else(|| locate::head(&sources.get(o.span.file).text, o.span.range()));
    Span::new(o.span.file, range)
}

/// The object's name (or id), where its dialect writes it.
pub fn object(sources: &Sources, o: &Object) -> Span {
    if o.identity() == Identity::Token {
        return o.span; // a token: its span is its first occurrence
    }
    let text = &sources.get(o.span.file).text;
    let path = o.origin.fields.name;
    let found = (path.len() > 1)
        .then(|| locate::value_after(text, o.span.range(), path, &o.name))
        .flatten()
        .or_else(|| locate::value_after(text, o.span.range(), path.get(..1)?, &o.name))
        .or_else(|| locate::scalar_after(text, o.span.range(), &o.name));
    span(o, found, sources)
}

/// Owner reference `j` of `o`: its uid (or its name when it has none).
/// The references of one object are found together ([`owner_refs`]) and
/// kept for the next call: a finding for each of an object's 200,000
/// references costs one pass over it, not one each. What is kept is keyed
/// by the file itself, not its id: ids restart at 0 in each snapshot
/// (`check --packages` loads one per package, and a library caller may
/// load several), and an object at the same offsets of another file must
/// not be given the last one's places; nor, since the places name the file
/// by id, one at another id (`check --packages` gives a file other ids in
/// its package's snapshot). The key holds a `Weak` of the file, so its
/// address is not reused while it is kept.
pub fn owner_ref(sources: &Sources, o: &Object, j: u32) -> Span {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::sync::{Arc, Weak};
    /// An object's references: its (file, file id, start, end), and their
    /// spans (which carry the id).
    type Located = ((Weak<SourceFile>, u32, usize, usize), Rc<[Span]>);
    thread_local! {
        /// The last object's.
        static LAST: RefCell<Option<Located>> = const { RefCell::new(None) };
    }
    let Some(file) = sources.files.get(o.span.file.0 as usize) else { return object(sources, o) };
    let (start, end) = (o.span.start, o.span.end);
    let spans = LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some(((f, id, s, e), spans))
                if std::ptr::eq(f.as_ptr(), Arc::as_ptr(file))
                    && (*id, *s, *e) == (o.span.file.0, start, end)
                    && spans.len() == o.owners.len() =>
            {
                spans.clone()
            }
            _ => {
                let spans: Rc<[Span]> = owner_refs(sources, o).into();
                *last = Some(((Arc::downgrade(file), o.span.file.0, start, end), spans.clone()));
                spans
            }
        }
    });
    spans.get(j as usize).copied().unwrap_or_else(|| object(sources, o))
}

/// Searches for an object's owner references that may find nothing
/// (each then reads to the object's end) before the rest are not searched
/// for: what bounds the time an object written to defeat the search takes.
pub const MISSES: usize = 32;

/// Where each owner reference of `o` is written: its uid, else its name,
/// else the list's key. One pass: each is searched for after the one
/// before it, as a list is written in order.
pub fn owner_refs(sources: &Sources, o: &Object) -> Vec<Span> {
    let text = &sources.get(o.span.file).text;
    let range = o.span.range();
    let Some(list) = locate::key_after(text, range.clone(), o.origin.fields.owners) else {
        return vec![span(o, None, sources); o.owners.len()];
    };
    let mut from = list.end;
    let mut misses = 0;
    let mut out = Vec::with_capacity(o.owners.len());
    for r in o.owners.iter() {
        let find = |value: &str| locate::scalar_after(text, from..range.end, value);
        let found = match misses < MISSES {
            true => r.uid.as_deref().and_then(find).or_else(|| find(&r.name)),
            false => None,
        };
        match found {
            Some(at) => {
                from = at.end;
                out.push(Span::new(o.span.file, at));
            }
            None => {
                misses += 1;
                out.push(Span::new(o.span.file, list.clone()));
            }
        }
    }
    out
}

/// Destruction dependency `j` of `o`, as written.
pub fn dep(sources: &Sources, o: &Object, j: u32) -> Span {
    let text = &sources.get(o.span.file).text;
    let Some(d) = o.deps.get(j as usize) else {
        return object(sources, o);
    };
    let found = match &d.target {
        DepTarget::Id(id) => locate::value_after(text, o.span.range(), &[o.origin.fields.dependency], id),
        DepTarget::Object { .. } => locate::scalar_after(text, o.span.range(), &d.text),
    };
    span(o, found, sources)
}

pub fn finalizer(sources: &Sources, o: &Object, f: &str) -> Span {
    let text = &sources.get(o.span.file).text;
    span(o, locate::value_after(text, o.span.range(), &[o.origin.fields.finalizers], f), sources)
}

/// Where a relation is declared: the owner reference, the dependency, or for
/// implicit relations the dependent's namespace / kind. `None` when the
/// object that declares it is not among `objects` (a relation of another
/// snapshot).
pub fn relation(sources: &Sources, objects: &[Object], r: &Relation) -> Option<Span> {
    let o = objects.get(r.declared_by.index())?;
    Some(match r.kind {
        RelKind::Owns => owner_ref(sources, o, r.decl),
        RelKind::DestroyAfter => dep(sources, o, r.decl),
        RelKind::Finalizer => match o.finalizers.get(r.decl as usize) {
            Some(f) => finalizer(sources, o, f),
            None => object(sources, o),
        },
        RelKind::Contains => {
            let text = &sources.get(o.span.file).text;
            let ns = o.namespace.as_deref().unwrap_or("");
            span(o, locate::value_after(text, o.span.range(), &[o.origin.fields.namespace], ns), sources)
        }
        RelKind::Defines => {
            let text = &sources.get(o.span.file).text;
            span(o, locate::value_after(text, o.span.range(), &[o.origin.fields.kind], &o.kind), sources)
        }
        RelKind::Manages => managed(sources, o, r.decl),
        RelKind::ComponentOrder => component_dependency(sources, o, r.decl),
        // A default rule reads fields the anchor does not point into.
        RelKind::Rule(_) | RelKind::Tool(_) => object(sources, o),
        RelKind::Controller(e) => controlled(sources, objects, o, e, r),
    })
}

/// What binds the ends of a controller's cascade, where `o` writes it: a
/// Pod's `nodeName`, a volume's `claimRef` or a claim's `volumeName`; the
/// Endpoints' name (the same as its Service's).
fn controlled(sources: &Sources, objects: &[Object], o: &Object, e: ControllerEdge, r: &Relation) -> Span {
    let text = &sources.get(o.span.file).text;
    let range = o.span.range();
    let name = |id: ObjId| objects.get(id.index()).map(|o| &*o.name);
    let found = match e {
        ControllerEdge::ServiceEndpoints => return object(sources, o),
        ControllerEdge::NodePods => name(r.from).and_then(|n| locate::value_after(text, range, &["nodeName"], n)),
        ControllerEdge::ReclaimDelete | ControllerEdge::Released if &*o.kind == "PersistentVolume" => {
            name(r.to).and_then(|n| locate::value_after(text, range, &["claimRef"], n))
        }
        ControllerEdge::ReclaimDelete | ControllerEdge::Released => {
            name(r.from).and_then(|n| locate::value_after(text, range, &["volumeName"], n))
        }
    };
    span(o, found, sources)
}

/// What a tracker declares it manages: entry `j` of its list, or (`u32::MAX`)
/// its Application, named in its labels.
pub fn managed(sources: &Sources, o: &Object, j: u32) -> Span {
    let text = &sources.get(o.span.file).text;
    let Some(Tracking::Tracker(t)) = o.tracking.as_deref() else { return object(sources, o) };
    let found = match t.managed.get(j as usize) {
        Some(m) => locate::value_after(text, o.span.range(), &[o.origin.fields.tracking.manages], &m.name),
        None => locate::scalar_after(text, o.span.range(), &t.app.name),
    };
    span(o, found, sources)
}

/// Dependency `d` of component `c` of an Application (`decl` is `c << 16 | d`).
pub fn component_dependency(sources: &Sources, o: &Object, decl: u32) -> Span {
    let text = &sources.get(o.span.file).text;
    let Some(Tracking::Application(app)) = o.tracking.as_deref() else { return object(sources, o) };
    let keys = o.origin.fields.tracking;
    let Some(c) = app.components.get((decl >> 16) as usize) else { return object(sources, o) };
    let range = o.span.range();
    let at_component = locate::value_after(text, range.clone(), &[keys.components], &c.name);
    let found = c.depends_on.get((decl & 0xffff) as usize).and_then(|(name, how)| {
        let from = at_component.clone().map_or(range.start, |r| r.end)..range.end;
        let value = match how {
            DependsHow::DependsOn => name,
            DependsHow::Input(output) => output,
        };
        keys.depends.iter().find_map(|k| locate::value_after(text, from.clone(), &[k], value))
    });
    span(o, found.or(at_component), sources)
}

/// Object id helper for callers holding only ids (`None`: not one of
/// `objects`).
pub fn object_id(sources: &Sources, objects: &[Object], id: ObjId) -> Option<Span> {
    objects.get(id.index()).map(|o| object(sources, o))
}

/// A state field of `o` (`reconcile`): its desired (`spec.state`) or
/// current (`status.state`) one, from its key to the end of its value's line.
pub fn state(sources: &Sources, o: &Object, current: bool) -> Span {
    let keys = o.origin.fields.states;
    let path = if current { keys.current } else { keys.desired };
    let text = &sources.get(o.span.file).text;
    let range = o.span.range();
    let mut found = None;
    let mut from = range.start;
    for key in path {
        match locate::key_after(text, from..range.end, key) {
            Some(k) => {
                from = k.end;
                found = Some(k);
            }
            None => {
                found = None;
                break;
            }
        }
    }
    let found = found.and_then(|k| {
        let line_end = text.get(k.end..range.end)?.find('\n').map_or(range.end, |n| k.end + n);
        let value = text.get(k.start..line_end)?.trim_end().trim_end_matches(',');
        Some(k.start..k.start + value.len())
    });
    span(o, found, sources)
}
