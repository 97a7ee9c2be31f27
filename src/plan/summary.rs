//! A plan at a glance, as typed data: counts by action, by kind and by
//! step, what it destroys for good, its warnings. Every format shows it
//! (the table on stderr, JSON and YAML as `summary`, Markdown first).

use super::Plan;
use crate::model::{Identity, Object};
use rayon::prelude::*;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Deleted, orphaned and kept objects.
    pub delete: usize,
    pub orphan: usize,
    pub keep: usize,
    /// Objects deleted in each step (index 0 is step 1).
    pub by_step: Vec<usize>,
    /// Objects deleted of each kind (`Kind[.group]`; the dialect's noun for
    /// objects without kinds), most first, then by kind.
    pub by_kind: Vec<(String, usize)>,
    /// Objects destroyed for good ([`Plan::data_loss`]).
    pub data_loss: usize,
    /// The plan's warnings, and the notes about the input (counted apart:
    /// a note is never a warning).
    pub warnings: usize,
    pub notes: usize,
}

/// `Kind[.group]` of an object, or what its dialect calls its objects.
pub fn kind_of(o: &Object) -> String {
    joined(kind_parts(o))
}

/// `Kind[.group]` in its two parts (the group empty when not written).
fn kind_parts(o: &Object) -> (&str, &str) {
    match o.identity() {
        Identity::Coordinates | Identity::Ref if !o.kind.is_empty() => (&o.kind, &o.group),
        _ if !o.kind.is_empty() => (&o.kind, ""),
        _ => ("object", ""),
    }
}

fn joined((kind, group): (&str, &str)) -> String {
    match group.is_empty() {
        true => kind.to_string(),
        false => format!("{kind}.{group}"),
    }
}

/// The summary of `plan`; `notes`: how many notes about the input it
/// carries.
pub fn of(plan: &Plan, objects: &[Object], notes: usize) -> Summary {
    // Counted by the parts as they are (a few kinds, many objects), then
    // by the names they make (two parts may make one name).
    // The objects are read in their own order, not the plan's (each
    // object once, the next one near it).
    let mut times = vec![0usize; objects.len()];
    for id in plan.steps.iter().flatten() {
        if let Some(t) = times.get_mut(id.index()) {
            *t += 1;
        }
    }
    // (In parallel, by runs of objects: counts add up in any order.)
    type Parts<'a> = rustc_hash::FxHashMap<(&'a str, &'a str), usize>;
    let parts: Parts = objects
        .par_iter()
        .zip(&times)
        .filter(|(_, &n)| n > 0)
        .fold(Parts::default, |mut parts, (o, &n)| {
            *parts.entry(kind_parts(o)).or_default() += n;
            parts
        })
        .reduce(Parts::default, |mut all, part| {
            for (k, n) in part {
                *all.entry(k).or_default() += n;
            }
            all
        });
    let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (k, n) in parts {
        *kinds.entry(joined(k)).or_default() += n;
    }
    let mut by_kind: Vec<(String, usize)> = kinds.into_iter().collect();
    by_kind.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Summary {
        delete: plan.deleted_count(),
        orphan: plan.orphaned.len(),
        keep: plan.kept.len(),
        by_step: plan.steps.iter().map(Vec::len).collect(),
        by_kind,
        data_loss: plan.data_loss.len(),
        warnings: plan.warnings.iter().filter(|w| !w.is_note()).count(),
        notes,
    }
}
