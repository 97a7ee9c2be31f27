//! The cascade roots of a plan (`plan -o kubectl`): the deleted objects
//! that must be deleted by name, because no owner the plan deletes takes
//! them with it. Every other deleted object goes with its owners: the
//! garbage collector deletes a dependent once its owners are gone, the
//! namespace controller what a Namespace holds, the CRD controller the
//! custom resources of a CRD. Deleting such an object by name would be at
//! best redundant, at worst undone: its controller (a ReplicaSet for a Pod)
//! would recreate it.
//!
//! A relation *carries* its dependent when both ends are deleted by the
//! plan and deleting the owner deletes the dependent in the cluster:
//!
//! - a Namespace contains it, or a CRD defines it (whatever the
//!   propagation policy);
//! - an owner reference with a solid link, or a tracker that manages it
//!   (KubeVela), unless the deletions orphan (`--cascade orphan`), the
//!   owner's collector is done with it (being deleted without its cascade
//!   finalizer), or the tracker's collector releases the object (a gate);
//! - a controller's cascade (a Service its Endpoints, a Node its Pods, a
//!   claim its volume with reclaim policy `Delete`), whatever the policy.
//!
//! The roots are the deleted objects that no relation carries. Objects of
//! an ownership cycle (`--allow-cycles`) all carry one another: when some
//! objects are not reached from the roots, the last of them in plan order
//! (an owner goes after what it owns) becomes a root too, until every
//! deleted object is reached. Linear in objects plus relations.
//!
//! A finalizer's controller the plan deletes (`--finalizer-controller`,
//! a `Finalizer` relation) is a hard constraint the script must keep: an
//! object carrying that finalizer must be gone before its controller's
//! deletion starts, or nothing removes the finalizer and the object (and
//! what holds it, a Namespace) hangs. Such an object that would go with
//! its owners is a root too, deleted by name in its own step, when naming
//! it is safe: nothing that carries it would recreate it (it goes only
//! with a Namespace, a CRD, or owners none of which is its controller).
//! [`finalizer_hang`] says where the script still could not keep one.

// No-panic lints (issue 19): this module indexes dense tables only: object
// ids of the plan (every table here has one entry per object of its
// snapshot) and the CSR offsets of the carried lists, computed here.
// Nothing here is indexed by a position read from input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids of the plan index tables with one entry per object of its snapshot; offsets are computed here"
)]

use super::Plan;
use crate::analysis::cascade::CascadeMode;
use crate::model::{Link, ObjId, Object, RelKind, Relation};
use std::collections::VecDeque;

/// How many of the roots an object goes with are named.
pub const SHOWN: usize = 3;

/// The first roots something goes with, in plan order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct With {
    /// At most [`SHOWN`] roots.
    pub roots: Vec<ObjId>,
    /// It goes with more roots than these.
    pub more: bool,
}

impl With {
    /// Add `other`'s roots, keeping the first [`SHOWN`] in plan order.
    fn merge(&mut self, other: &With, pos: &[u32]) {
        self.more |= other.more;
        self.roots.extend_from_slice(&other.roots);
        self.roots.sort_unstable_by_key(|r| pos[r.index()]);
        self.roots.dedup();
        if self.roots.len() > SHOWN {
            self.roots.truncate(SHOWN);
            self.more = true;
        }
    }
}

pub struct Roots {
    /// The roots of each step (index 0 is step 1), in plan order.
    pub steps: Vec<Vec<ObjId>>,
    /// By object index: is it a cascade root?
    pub root: Vec<bool>,
    /// By object index, for a deleted object that is not a root: the roots
    /// it goes with. (Empty for roots and for objects the plan keeps.)
    pub with: Vec<With>,
    /// For each step: the roots its objects that are not roots go with.
    pub step_with: Vec<With>,
    /// How many roots there are.
    pub count: usize,
    /// The `Finalizer` relations whose ends the plan both deletes, by the
    /// plan order of the object carrying the finalizer, then of its
    /// controller.
    pub finalizers: Vec<u32>,
    /// By object index (empty when there is none): a root only because it
    /// carries the finalizer of a controller the plan deletes.
    pub held: Vec<bool>,
}

/// Does relation `r`, when it carries its dependent, belong to an owner
/// that would recreate the dependent deleted before it: an owner
/// reference with `controller: true`, a tracker that manages it, a
/// controller's cascade? (A Namespace, a CRD or another owner does not.)
pub fn recreates(r: &Relation) -> bool {
    match r.kind {
        RelKind::Owns => r.controller,
        RelKind::Manages | RelKind::Controller(_) => true,
        _ => false,
    }
}

/// Does relation `ri` of the plan carry its dependent: does deleting its
/// owner delete it, in the cluster? (Both must be deleted by the plan.)
pub fn carries(objects: &[Object], plan: &Plan, ri: usize) -> bool {
    let Some(r) = plan.relations.get(ri) else { return false };
    let deleted = |id: ObjId| plan.cascade.cause.get(id.index()).is_some_and(Option::is_some);
    if r.from == r.to || !deleted(r.from) || !deleted(r.to) {
        return false;
    }
    if !objects.get(r.taker().index()).is_some_and(Object::cascades) {
        return false;
    }
    match r.kind {
        RelKind::Contains | RelKind::Defines => true,
        RelKind::Owns | RelKind::Manages => {
            let released =
                plan.gates.get(ri).copied().flatten().is_some_and(|g| g.unless_deleted.is_none_or(|x| !deleted(x)));
            r.link == Link::Solid && plan.cascade_mode != CascadeMode::Orphan && !released
        }
        // The controller deletes what it takes once the other end is gone.
        RelKind::Controller(e) => e.cascades(),
        RelKind::DestroyAfter | RelKind::Finalizer | RelKind::ComponentOrder | RelKind::Rule(_) | RelKind::Tool(_) => {
            false
        }
    }
}

/// The cascade roots of each step of `plan`, and what every other deleted
/// object goes with.
pub fn cascade_roots(objects: &[Object], plan: &Plan) -> Roots {
    let n = objects.len();
    // Each deleted object's position in plan order (step, then reference).
    let order: Vec<ObjId> = plan.steps.iter().flatten().copied().filter(|id| id.index() < n).collect();
    let mut pos = vec![u32::MAX; n];
    for (k, id) in order.iter().enumerate() {
        pos[id.index()] = k as u32;
    }
    // The carrying relations, by owner (compressed rows), and how many
    // carry each object.
    let carrying: Vec<(ObjId, ObjId, usize)> = (0..plan.relations.len())
        .filter(|&ri| carries(objects, plan, ri))
        .filter_map(|ri| plan.relations[ri].reaches().map(|(f, t)| (f, t, ri)))
        .filter(|(f, t, _)| pos[f.index()] != u32::MAX && pos[t.index()] != u32::MAX)
        .collect();
    let mut start = vec![0usize; n + 1];
    let mut carried_by = vec![0u32; n];
    for &(f, t, _) in &carrying {
        start[f.index() + 1] += 1;
        carried_by[t.index()] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut carried = vec![ObjId(0); carrying.len()];
    for &(f, t, _) in &carrying {
        carried[fill[f.index()]] = t;
        fill[f.index()] += 1;
    }

    let mut root = vec![false; n];
    let mut done = vec![false; n];
    let mut with = vec![With::default(); n];
    let mut queue: VecDeque<ObjId> = VecDeque::new();
    for &id in &order {
        if carried_by[id.index()] == 0 {
            root[id.index()] = true;
            queue.push_back(id);
        }
    }
    let finalizers = finalizers(plan, &pos);
    let held = held(plan, &finalizers, &carrying, &carried_by);
    for &id in &order {
        if held.get(id.index()) == Some(&true) {
            root[id.index()] = true;
            queue.push_back(id);
        }
    }
    // Objects not reached yet are looked for from the end of plan order.
    let mut last = order.len();
    loop {
        while let Some(x) = queue.pop_front() {
            if done[x.index()] {
                continue;
            }
            done[x.index()] = true;
            let goes = match root[x.index()] {
                true => With { roots: vec![x], more: false },
                false => with[x.index()].clone(),
            };
            for &y in &carried[start[x.index()]..start[x.index() + 1]] {
                let yi = y.index();
                if done[yi] || root[yi] {
                    continue;
                }
                with[yi].merge(&goes, &pos);
                carried_by[yi] = carried_by[yi].saturating_sub(1);
                if carried_by[yi] == 0 {
                    queue.push_back(y);
                }
            }
        }
        // What is left is carried only by objects of an ownership cycle (or
        // by what they carry): the last of it in plan order is a root.
        while last > 0 && order.get(last - 1).is_some_and(|x| done[x.index()]) {
            last -= 1;
        }
        let Some(&x) = last.checked_sub(1).and_then(|k| order.get(k)) else { break };
        root[x.index()] = true;
        with[x.index()] = With::default();
        queue.push_back(x);
    }

    let steps: Vec<Vec<ObjId>> = plan
        .steps
        .iter()
        .map(|s| s.iter().copied().filter(|id| root.get(id.index()) == Some(&true)).collect())
        .collect();
    let step_with = plan
        .steps
        .iter()
        .map(|s| {
            let mut w = With::default();
            for id in s.iter().filter(|id| root.get(id.index()) == Some(&false)) {
                w.merge(&with[id.index()], &pos);
            }
            w
        })
        .collect();
    let count = steps.iter().map(Vec::len).sum();
    Roots { steps, root, with, step_with, count, finalizers, held }
}

/// The `Finalizer` relations whose ends are both deleted (and differ), in
/// plan order of the object carrying the finalizer, then of its controller.
fn finalizers(plan: &Plan, pos: &[u32]) -> Vec<u32> {
    let at = |id: ObjId| pos.get(id.index()).copied().unwrap_or(u32::MAX);
    let mut out: Vec<u32> = (0..plan.relations.len() as u32)
        .filter(|&ri| {
            let r = &plan.relations[ri as usize];
            r.kind == RelKind::Finalizer && r.from != r.to && at(r.from) != u32::MAX && at(r.to) != u32::MAX
        })
        .collect();
    out.sort_by_key(|&ri| {
        let r = &plan.relations[ri as usize];
        (at(r.to), at(r.from), ri)
    });
    out
}

/// By object index (empty when there is none): the deleted objects that
/// would go with their owners but carry the finalizer of a controller the
/// plan deletes, and that no carrying owner would recreate.
fn held(plan: &Plan, finalizers: &[u32], carrying: &[(ObjId, ObjId, usize)], carried_by: &[u32]) -> Vec<bool> {
    let n = carried_by.len();
    let mut held = vec![false; if finalizers.is_empty() { 0 } else { n }];
    for &ri in finalizers {
        let x = plan.relations[ri as usize].to.index();
        held[x] = carried_by[x] > 0;
    }
    if held.iter().any(|&h| h) {
        for &(_, t, ri) in carrying {
            if held[t.index()] && recreates(&plan.relations[ri]) {
                held[t.index()] = false;
            }
        }
        // A controller the plan keeps would make it again too.
        let graph = plan.graph();
        for (x, h) in held.iter_mut().enumerate() {
            if *h && kept_recreator(plan, graph, ObjId(x as u32)).is_some() {
                *h = false;
            }
        }
    }
    held
}

/// A relation by which an owner the plan keeps (a controller, an
/// application's tracker) would make `x` again once it is deleted by name.
fn kept_recreator(plan: &Plan, graph: &crate::graph::Graph, x: ObjId) -> Option<u32> {
    let deleted = |id: ObjId| plan.cascade.cause.get(id.index()).is_some_and(Option::is_some);
    graph.dependencies(x).into_iter().chain(graph.dependents(x)).find(|&ri| {
        plan.relations.get(ri as usize).is_some_and(|r| {
            recreates(r) && r.link == Link::Solid && r.reaches().is_some_and(|(f, t)| t == x && f != x && !deleted(f))
        })
    })
}

/// Under `--cascade orphan`, a root deleted while its controller (the
/// owner reference with `controller: true`) is still there, to be deleted
/// in the same step or later: the controller recreates it, and the copy is
/// orphaned when the controller goes. The first such (root, controller),
/// in plan order. (Under background and foreground, a controller the plan
/// deletes carries its dependents: they are never roots.)
pub fn recreated(objects: &[Object], plan: &Plan, roots: &Roots) -> Option<(ObjId, ObjId)> {
    if plan.cascade_mode != CascadeMode::Orphan {
        return None;
    }
    let step = |id: ObjId| plan.order.step.get(id.index()).copied().unwrap_or(0);
    let deleted = |id: ObjId| plan.cascade.cause.get(id.index()).is_some_and(Option::is_some);
    let graph = plan.graph();
    roots.steps.iter().flatten().find_map(|&x| {
        graph.dependencies(x).into_iter().filter_map(|ri| plan.relations.get(ri as usize)).find_map(|r| {
            let live = objects.get(r.from.index()).is_some_and(|c| c.deletion_timestamp.is_none());
            let controls = r.kind == RelKind::Owns && r.controller && r.link == Link::Solid && live;
            (controls && r.from != x && deleted(r.from) && step(r.from) >= step(x)).then_some((x, r.from))
        })
    })
}

/// Where the script could not keep a `Finalizer` relation: the object
/// carrying the finalizer, the relation, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hang {
    /// The object carrying the finalizer.
    pub holder: ObjId,
    /// The `Finalizer` relation (its `from` is the controller).
    pub relation: u32,
    pub why: Unkept,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unkept {
    /// The holder goes with its owners, and the owner of this carrying
    /// relation (its `taker`) would recreate it if it were deleted by name.
    Recreated(u32),
    /// The holder goes with its owners, and an owner the plan keeps (the
    /// owner of this relation: a controller, a tracker) would recreate it
    /// if it were deleted by name.
    RecreatedByKept(u32),
    /// The command that deletes this root (the controller, or a root it
    /// goes with) starts no later than the holder's own.
    Early(ObjId),
}

/// The first `Finalizer` relation of the plan (in plan order of its
/// holder, then of its controller) that the script does not keep: its
/// holder must be deleted by name, by a command (`command`: a root's
/// position among the script's commands) before the first that starts
/// deleting its controller.
pub fn finalizer_hang(
    objects: &[Object],
    plan: &Plan,
    roots: &Roots,
    command: impl Fn(ObjId) -> Option<usize>,
) -> Option<Hang> {
    let root = |id: ObjId| roots.root.get(id.index()) == Some(&true);
    roots.finalizers.iter().find_map(|&ri| {
        let r = plan.relations.get(ri as usize)?;
        let (x, c) = (r.to, r.from);
        if !root(x) {
            let graph = plan.graph();
            let by = graph.dependencies(x).into_iter().chain(graph.dependents(x)).find(|&o| {
                plan.relations.get(o as usize).is_some_and(|o| recreates(o) && o.reaches().is_some_and(|(_, t)| t == x))
                    && carries(objects, plan, o as usize)
            });
            return Some(match (by, kept_recreator(plan, graph, x)) {
                (Some(by), _) => Hang { holder: x, relation: ri, why: Unkept::Recreated(by) },
                (None, Some(by)) => Hang { holder: x, relation: ri, why: Unkept::RecreatedByKept(by) },
                (None, None) => Hang { holder: x, relation: ri, why: Unkept::Recreated(ri) },
            });
        }
        let first = match root(c) {
            true => Some(c),
            false => roots.with.get(c.index()).and_then(|w| w.roots.first().copied()),
        }?;
        // Under background, what goes with the holder by an owner
        // reference (or a controller's cascade) goes once the holder is gone.
        if first == x && plan.cascade_mode == CascadeMode::Background && !takes_at_once(objects, plan, x) {
            return None;
        }
        (command(first)? <= command(x)?).then_some(Hang { holder: x, relation: ri, why: Unkept::Early(first) })
    })
}

/// Does deleting `x` start deleting what it carries before `x` is gone,
/// whatever the propagation: a Namespace what it holds, a CRD its custom
/// resources, a tracker (or an application controller) what it manages?
pub fn takes_at_once(objects: &[Object], plan: &Plan, x: ObjId) -> bool {
    let graph = plan.graph();
    graph.dependents(x).into_iter().chain(graph.dependencies(x)).any(|ri| {
        plan.relations.get(ri as usize).is_some_and(|r| {
            matches!(r.kind, RelKind::Contains | RelKind::Defines | RelKind::Manages)
                && r.reaches().is_some_and(|(f, _)| f == x)
                && carries(objects, plan, ri as usize)
        })
    })
}
