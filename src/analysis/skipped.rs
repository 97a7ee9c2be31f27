//! Whether a plan depends on a document `--skip-invalid` left out: an
//! object whose owner reference names a skipped document, when the plan
//! decides that object's fate (deletes, keeps or orphans it: the garbage
//! collector, the multi-owner rule, `--closed-world` and the warnings
//! about owners outside the snapshot all read that owner as absent), and
//! an object the cascade would reach through skipped documents (deleting
//! an owner deletes the skipped document, and its dependents with it, which
//! the plan would miss). A skipped document nothing depends on changes
//! nothing. What it returns refuses the plan (`usable::refuse_skipped`).

use crate::model::skipped::{self, Skipped};
use crate::model::snapshot::Snapshot;
use crate::model::ObjId;

/// How a plan depends on a skipped document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// The plan decides `object`'s fate, and it names the skipped document
    /// as an owner.
    Owner,
    /// Deleting `via` (an object of the plan) deletes the skipped document,
    /// and `object`, which it owns (or owns through other skipped ones).
    Reached { via: ObjId },
}

/// An object of the input whose fate depends on a skipped document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Depending {
    pub object: ObjId,
    /// The owner reference of `object` that names it.
    pub reference: u32,
    /// The skipped document, an index of [`Snapshot::skipped`].
    pub skipped: usize,
    pub how: How,
}

/// What of the plan depends on skipped documents, in object order: the
/// objects whose fate the plan decides (`in_plan`) first, then those the
/// cascade would reach through them from the objects it deletes
/// (`deleted`; none when `cascades` is false: `--cascade orphan`).
pub fn depending(
    snapshot: &Snapshot,
    in_plan: &dyn Fn(ObjId) -> bool,
    deleted: &dyn Fn(ObjId) -> bool,
    cascades: bool,
) -> Vec<Depending> {
    let skipped: &[Skipped] = &snapshot.skipped;
    if skipped.is_empty() {
        return Vec::new();
    }
    let links = skipped::links(&snapshot.objects, &snapshot.resolved.missing_owners, skipped);
    if links.owned.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Depending> = links
        .owned
        .iter()
        .filter(|&&(id, _, _)| in_plan(id))
        .map(|&(object, reference, skipped)| Depending { object, reference, skipped, how: How::Owner })
        .collect();
    // The skipped documents the cascade reaches: owned by an object it
    // deletes, or by a skipped document it reaches.
    let mut reached: Vec<Option<ObjId>> = vec![None; skipped.len()];
    let mut queue = Vec::new();
    if cascades {
        for &(s, owner) in &links.owners {
            if deleted(owner) {
                if let Some(slot @ None) = reached.get_mut(s) {
                    *slot = Some(owner);
                    queue.push(s);
                }
            }
        }
    }
    while let Some(t) = queue.pop() {
        let via = reached.get(t).copied().flatten();
        for &(s, owner) in &links.between {
            if owner == t {
                if let Some(slot @ None) = reached.get_mut(s) {
                    *slot = via;
                    queue.push(s);
                }
            }
        }
    }
    for &(object, reference, s) in &links.owned {
        if let Some(Some(via)) = reached.get(s) {
            if !in_plan(object) {
                out.push(Depending { object, reference, skipped: s, how: How::Reached { via: *via } });
            }
        }
    }
    out
}
