//! `teardown explain`: why an object is (or is not) in a plan, and why at
//! its step — as chains of relations taken from the plan's own bookkeeping.

use super::{Kept, Plan};
use crate::analysis::cascade::{Cause, Garbage};
use crate::model::ObjId;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Deleted {
        step: u32,
    },
    Kept(Kept),
    /// Its owner reference to this owner is removed.
    Orphaned(ObjId),
    NotInPlan,
}

/// One link of a chain: an object, and the relation to the next object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub object: ObjId,
    /// The relation from this object to the next one in the chain (`None`
    /// for the last).
    pub relation: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct Explanation {
    pub object: ObjId,
    pub status: Status,
    /// How deletion reaches the object: from a target (or garbage) down to
    /// it, one relation at a time.
    pub reached: Vec<Link>,
    /// What the chain starts with.
    pub origin: Option<Cause>,
    /// The longest chain of what must be destroyed before it, from the
    /// object itself down to something at step 1 (through objects outside
    /// the plan where the chain passes them).
    pub before: Vec<Link>,
    /// For kept objects: the chain that reached them from a target.
    pub reached_via: Option<u32>,
    /// A tracking application's collector took the chain's first object:
    /// its reason (which stage decided, and why).
    pub origin_reason: Option<super::Reason>,
    /// A resource tracker under `--gc`: what the mark stage decided.
    pub mark: Option<super::tracking::MarkStage>,
    /// A Helm hook the plan lists as run: where.
    pub run: Option<super::HookRun>,
}

/// Explain `id` in `plan`.
pub fn explain(plan: &Plan, id: ObjId) -> Explanation {
    // Ids are objects and relations of the plan's snapshot: every `get`
    // finds its entry (one that did not would end a chain there).
    let relation = |r: u32| plan.relations.get(r as usize);
    let cause_of = |id: ObjId| plan.cascade.cause.get(id.index()).copied().flatten();
    let status = if cause_of(id).is_some() {
        Status::Deleted { step: plan.order.step_of(id) }
    } else if let Some((_, by)) = plan.kept.iter().find(|(k, _)| *k == id) {
        Status::Kept(by.clone())
    } else if let Some(&(_, owner)) = plan.orphaned.iter().find(|(k, _)| *k == id) {
        Status::Orphaned(owner)
    } else {
        Status::NotInPlan
    };

    // Why deleted: follow causes back to a target.
    let mut reached = Vec::new();
    let mut origin = None;
    if matches!(status, Status::Deleted { .. }) {
        let mut at = id;
        let mut seen = vec![false; plan.refs.len()];
        reached.push(Link { object: at, relation: None });
        while let Some(Cause::Relation(r)) = cause_of(at) {
            match seen.get_mut(at.index()) {
                Some(seen) if !*seen => *seen = true,
                _ => break,
            }
            let Some(rel) = relation(r) else { break };
            at = rel.taker();
            reached.push(Link { object: at, relation: Some(r) });
        }
        origin = cause_of(at);
        reached.reverse();
    }

    // Why at this step: follow the longest chain down.
    let mut before = Vec::new();
    if matches!(status, Status::Deleted { .. }) {
        let mut at = id;
        let mut hard = false;
        let mut seen = vec![false; plan.refs.len()];
        loop {
            let next = if plan.cascade.deleted(at) {
                plan.order.after.get(at.index()).copied().flatten()
            } else {
                let [owned, destroyed] = plan.order.after_outside_of(at);
                if hard {
                    destroyed
                } else {
                    owned
                }
            };
            match seen.get_mut(at.index()) {
                Some(seen) if !*seen => *seen = true,
                _ => {
                    before.push(Link { object: at, relation: None });
                    break;
                }
            }
            before.push(Link { object: at, relation: next });
            let Some(rel) = next.and_then(relation) else { break };
            hard = rel.kind.is_destruction();
            at = rel.to;
        }
    }

    // What reaches a kept object: a deleted owner, or a deleted claim
    // whose volume's reclaim policy keeps it (the first relation).
    let reached_via = match status {
        Status::Kept(_) => plan
            .graph()
            .around(id)
            .filter(|&r| {
                relation(r).is_some_and(|r| {
                    (r.kind.is_ownership() || r.kind.controller().is_some())
                        && r.reaches().is_some_and(|(by, to)| to == id && by != id && plan.cascade.deleted(by))
                })
            })
            .min(),
        _ => None,
    };
    let origin_reason = match origin {
        Some(Cause::Garbage(Garbage::Tracker | Garbage::UnusedRevision)) => reached
            .first()
            .and_then(|l| plan.reasons.of(l.object).iter().find(|r| matches!(r, super::Reason::Garbage(_))))
            .cloned(),
        _ => None,
    };
    let mark = plan.stages.as_ref().and_then(|s| s.mark.iter().find(|m| m.tracker == id)).cloned();
    let run = plan.hooks.iter().find(|h| h.object == id).cloned();
    Explanation { object: id, status, reached, origin, before, reached_via, origin_reason, mark, run }
}

/// The objects explanations name, each once, in the order they name them
/// (`explain -o names`): each explained object, then the chain that
/// reaches it (from where the deletion starts down to it) and the chain
/// that decides its step; for a kept object the deleted owner that does not
/// take it, for an orphaned one the owner whose reference it loses.
pub fn named(plan: &Plan, explanations: &[Explanation]) -> Vec<ObjId> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for e in explanations {
        let mut chain = vec![e.object];
        match &e.status {
            Status::Deleted { .. } => chain.extend(e.reached.iter().chain(&e.before).map(|l| l.object)),
            Status::Kept(_) => {
                chain.extend(e.reached_via.and_then(|r| plan.relations.get(r as usize)).map(|r| r.taker()))
            }
            Status::Orphaned(owner) => chain.push(*owner),
            Status::NotInPlan => {}
        }
        out.extend(chain.into_iter().filter(|&id| seen.insert(id)));
    }
    out
}
