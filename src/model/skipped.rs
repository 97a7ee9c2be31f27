//! Documents `--skip-invalid` goes on without (TD001), as far as their
//! identity could be read: kind, group, namespace, name, uid and owner
//! references. A plan must not take such a document for absent (an owner
//! the cluster has keeps its dependents), so what the input's objects and
//! the skipped documents say of each other is kept ([`links`]) for the
//! analysis that decides whether a plan depends on one
//! (`analysis::skipped`).

use super::{ObjId, Object, OwnerRef, Str};
use crate::span::Span;
use rustc_hash::FxHashMap;

/// A document left out, named by what could be read of it.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub group: Str,
    pub kind: Str,
    /// As written (`None`: not written).
    pub namespace: Option<Str>,
    pub name: Str,
    pub uid: Option<Str>,
    /// Its owner references that name a kind and a name.
    pub owners: Vec<OwnerRef>,
    /// The document (its first line is where it is said to be).
    pub span: Span,
    /// As the finding names it: `Kind[.group]/[namespace/]name`.
    pub reference: String,
}

/// What the objects of the input and the skipped documents say of each
/// other, in input order.
#[derive(Debug, Default)]
pub struct Links {
    /// (object, its owner reference, the skipped document it names): owner
    /// references that name no object of the input but a skipped document.
    pub owned: Vec<(ObjId, u32, usize)>,
    /// (skipped document, an object of the input one of its owner
    /// references names).
    pub owners: Vec<(usize, ObjId)>,
    /// (skipped document, another skipped document one of its owner
    /// references names).
    pub between: Vec<(usize, usize)>,
}

/// Does owner reference `r`, written in an object of namespace `ns`, name
/// `s`? By uid when both have one; else by group, kind and name, in `ns`
/// or the cluster scope (or where `s` writes no namespace). A reference
/// whose uid is not `s`'s names it too when its coordinates are `s`'s: the
/// plan is refused rather than risk taking a live owner for absent.
pub fn names(r: &OwnerRef, ns: Option<&str>, s: &Skipped) -> bool {
    if let (Some(a), Some(b)) = (&r.uid, &s.uid) {
        if a == b {
            return true;
        }
    }
    r.kind == s.kind && r.name == s.name && r.group == s.group && s.namespace.as_deref().is_none_or(|n| Some(n) == ns)
}

/// What the objects and the skipped documents say of each other: each of
/// `missing` (dependent, owner reference naming no object) that names a
/// skipped document, and what the skipped documents' own owner references
/// name. Empty at no cost when nothing was skipped.
pub fn links(objects: &[Object], missing: &[(ObjId, u32)], skipped: &[Skipped]) -> Links {
    let mut out = Links::default();
    if skipped.is_empty() {
        return out;
    }
    let mut by_uid: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    let mut by_name: FxHashMap<(&str, &str), Vec<usize>> = FxHashMap::default();
    for (i, s) in skipped.iter().enumerate() {
        if let Some(uid) = &s.uid {
            by_uid.entry(uid).or_default().push(i);
        }
        by_name.entry((&s.kind, &s.name)).or_default().push(i);
    }
    let candidates = |r: &OwnerRef| {
        let uid = r.uid.as_deref().and_then(|u| by_uid.get(u)).into_iter().flatten();
        let mut all: Vec<usize> =
            uid.chain(by_name.get(&(&*r.kind, &*r.name)).into_iter().flatten()).copied().collect();
        all.sort_unstable();
        all.dedup();
        all
    };
    for &(id, j) in missing {
        let Some(o) = objects.get(id.index()) else { continue };
        let Some(r) = o.owners.get(j as usize) else { continue };
        let ns = o.namespace.as_deref();
        if let Some(s) = candidates(r).into_iter().find(|&s| skipped.get(s).is_some_and(|s| names(r, ns, s))) {
            out.owned.push((id, j, s));
        }
    }
    // The skipped documents' owners, among the objects (by uid, else
    // coordinates) and the other skipped documents.
    let mut objects_by_uid: FxHashMap<&str, ObjId> = FxHashMap::default();
    let mut objects_by_name: FxHashMap<(&str, &str), Vec<ObjId>> = FxHashMap::default();
    if skipped.iter().any(|s| !s.owners.is_empty()) {
        for (i, o) in objects.iter().enumerate() {
            let id = ObjId(i as u32);
            if let Some(uid) = &o.uid {
                objects_by_uid.entry(uid).or_insert(id);
            }
            objects_by_name.entry((&o.kind, &o.name)).or_default().push(id);
        }
    }
    for (i, s) in skipped.iter().enumerate() {
        for r in &s.owners {
            let ns = s.namespace.as_deref();
            let by_uid = r.uid.as_deref().and_then(|u| objects_by_uid.get(u)).copied();
            let by_name = || {
                objects_by_name.get(&(&*r.kind, &*r.name)).into_iter().flatten().copied().find(|&id| {
                    objects.get(id.index()).is_some_and(|o| {
                        o.group == r.group && (o.namespace.is_none() || ns.is_none() || o.namespace.as_deref() == ns)
                    })
                })
            };
            if let Some(owner) = by_uid.or_else(by_name) {
                out.owners.push((i, owner));
            } else if let Some(t) =
                candidates(r).into_iter().find(|&t| t != i && skipped.get(t).is_some_and(|t| names(r, ns, t)))
            {
                out.between.push((i, t));
            }
        }
    }
    out
}
