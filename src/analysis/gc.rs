//! Murano's collection (`plan --gc` on Murano models): the objects a
//! deployment destroys without being told to.
//!
//! - The offline change: objects that `ObjectsCopy` (the model after the
//!   previous deployment) has and `Objects` (the new model) lacks.
//! - The runtime collection: objects not reachable from the root through
//!   properties, inline (ownership) or by id (a string equal to an object's
//!   id). Objects only in `ObjectsCopy` keep nothing alive.
//!
//! Objects already `destroyed: true` are not destroyed again. Linear in
//! objects, relations and the strings of the objects' properties.

use super::cascade::Garbage;
use crate::model::{ObjId, Object, RelKind, Relation, Section};
use rustc_hash::FxHashMap;

/// Murano objects by id (the first object of each id).
pub fn ids(objects: &[Object]) -> FxHashMap<&str, ObjId> {
    let mut by_id = FxHashMap::default();
    for (i, o) in objects.iter().enumerate() {
        if o.member.is_some() {
            by_id.entry(&*o.name).or_insert(ObjId(i as u32));
        }
    }
    by_id
}

/// The roots the collection starts from: the first top-level object of each
/// Murano document (of its `Objects` in a deployment task). Each document
/// is a model of its own (an environment).
pub fn default_roots(objects: &[Object]) -> Vec<ObjId> {
    objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.member.as_deref().is_some_and(|m| m.root))
        .map(|(i, _)| ObjId(i as u32))
        .collect()
}

fn old_only(o: &Object) -> bool {
    o.member.as_deref().is_some_and(|m| m.section == Section::Old)
}

/// For each object, the Murano objects it refers to by id, in the order of
/// its (sorted) strings.
pub fn references(objects: &[Object]) -> Vec<Vec<ObjId>> {
    let by_id = ids(objects);
    objects
        .iter()
        .enumerate()
        .map(|(i, o)| match o.member.as_deref() {
            Some(m) => m.strings.iter().filter_map(|s| by_id.get(&**s).copied()).filter(|&t| t.index() != i).collect(),
            None => Vec::new(),
        })
        .collect()
}

/// Murano objects the collector destroys, with why. `roots` are `--root`,
/// or the default roots.
pub fn seeds(objects: &[Object], rels: &[Relation], roots: &[ObjId]) -> Vec<(ObjId, Garbage)> {
    let n = objects.len();
    let refs = references(objects);
    // Ids (of relations, roots, references) are positions in `objects`.
    let mut children: Vec<Vec<ObjId>> = vec![Vec::new(); n];
    for r in rels.iter().filter(|r| r.kind == RelKind::Owns) {
        if objects.get(r.from.index()).is_some_and(|o| o.member.is_some()) {
            children.get_mut(r.from.index()).into_iter().for_each(|c| c.push(r.to));
        }
    }
    let mut reached = vec![false; n];
    // Reach `id`: true the first time, unless it is only in ObjectsCopy.
    let mut reach = |id: ObjId| match (reached.get_mut(id.index()), objects.get(id.index())) {
        (Some(seen), Some(o)) if !*seen && !old_only(o) => {
            *seen = true;
            true
        }
        _ => false,
    };
    let mut stack: Vec<ObjId> = roots.iter().copied().filter(|&r| reach(r)).collect();
    while let Some(id) = stack.pop() {
        let next = children.get(id.index()).into_iter().chain(refs.get(id.index())).flatten();
        stack.extend(next.copied().filter(|&next| reach(next)));
    }
    let mut out = Vec::new();
    for (i, (o, reached)) in objects.iter().zip(&reached).enumerate() {
        let Some(m) = o.member.as_deref() else { continue };
        if m.destroyed {
            continue;
        }
        if m.section == Section::Old {
            out.push((ObjId(i as u32), Garbage::RemovedFromModel));
        } else if !reached {
            out.push((ObjId(i as u32), Garbage::Unreachable));
        }
    }
    out
}
