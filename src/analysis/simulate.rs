//! `simulate`: a garbage collector's workflow replayed on the snapshot,
//! event by event — the API calls, the watch events, the finalizers added
//! and removed — until everything the deletion takes is gone.
//!
//! **Krake** (rak-n-rok/Krake, `krake/controller/gc.py` and the API's
//! delete and update handlers): a DELETE marks the resource deleted and
//! appends `cascade_deletion` (a MODIFIED event); the collector queues every
//! resource whose last finalizer is `cascade_deletion`; a queued resource
//! with dependents in the collector's graph gets a DELETE for each of them
//! (whatever their other owners), one without loses the finalizer (an
//! UPDATE); an UPDATE that leaves a deleted resource without finalizers
//! removes it from the database (a DELETED event), and the collector reads
//! each of its owners and queues again those still in deletion. Other
//! finalizers are removed, when last, by the controllers that own them.
//!
//! **Kubernetes** (the garbage collector of kube-controller-manager):
//! `foreground` adds `foregroundDeletion` to the owner, deletes its
//! dependents (foreground again when they have dependents of their own),
//! waits for those whose reference blocks owner deletion, then removes the
//! finalizer; `background` removes the owner at once and the collector
//! deletes the dependents that have no other solid owner left; `orphan` adds
//! `orphan`, removes the owner reference from the dependents, then the
//! finalizer. Once an object is gone, the controllers that act outside
//! ownerReferences delete what it takes (`ControllerEdge`): the endpoints
//! controller a Service's Endpoints, the pod garbage collector a Node's
//! Pods, the volume controller a claim's volume (reclaim policy `Delete`),
//! whatever the propagation policy.
//!
//! Rounds count API round-trips along the longest causal chain: the user's
//! DELETE is round 1, and each call made in answer to an event of round r
//! is in round r + 1. It predicts how long the cascade takes.

// No-panic lints (issue 19): this module indexes dense tables only. Every
// per-object table is sized by `objects`, which the relations, targets and
// rank of the `Input` were made from (one snapshot); finalizer names are
// positions in `names`, interned here; the call and event counters are
// indexed by their enums. Nothing here is indexed by a position read from
// input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids index tables sized by the objects they were made from; names are interned here; counters are indexed by their enums"
)]

use super::cascade::CascadeMode;
use crate::graph::Csr;
use crate::model::{ControllerEdge, Link, ObjId, Object, RelKind, Relation, Str};
use std::collections::VecDeque;

/// Whose workflow is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Controller {
    /// Krake's garbage collector (`cascade_deletion`).
    Krake,
    /// Kubernetes' garbage collector (foreground, background, orphan).
    Kubernetes,
}

impl Controller {
    pub fn as_str(self) -> &'static str {
        match self {
            Controller::Krake => "krake",
            Controller::Kubernetes => "kubernetes",
        }
    }
}

/// A finalizer's name: an index into [`Simulation::names`] (entries stay
/// small: a cascade of a million objects is ten million of them).
pub type Name = u32;

/// Who acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    User,
    Api,
    Collector,
    /// The controller that owns this finalizer (outside the snapshot).
    Controller(Name),
    /// A Kubernetes controller that deletes what a deleted object takes
    /// outside ownerReferences (the endpoints controller, the pod garbage
    /// collector, the volume controller).
    Kube(ControllerEdge),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Delete,
    Update,
    Read,
}

impl Verb {
    pub const ALL: [Verb; 3] = [Verb::Delete, Verb::Update, Verb::Read];
    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Delete => "delete",
            Verb::Update => "update",
            Verb::Read => "read",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventType {
    Modified,
    Deleted,
}

impl EventType {
    pub const ALL: [EventType; 2] = [EventType::Modified, EventType::Deleted];
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// What happens to an object at one entry of the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// An API call on the object.
    Call(Verb),
    /// The API marks it as being deleted and adds this finalizer.
    Marked { finalizer: Option<Name> },
    /// The API returns it as it is: it is already being deleted.
    AlreadyDeleted,
    /// The object is gone already (the call finds nothing).
    NotFound,
    /// A watch event about it.
    Event(EventType),
    /// The collector queues it; `again`: one of its dependents is gone.
    Queued { again: bool },
    /// The collector queues it again: a dependent's reference to it no
    /// longer blocks its deletion.
    QueuedUnblocked,
    /// The collector finds this many dependents and deletes each.
    Dependents(u32),
    /// The collector waits for this many dependents that block its deletion.
    Waits(u32),
    /// This finalizer is removed (by the entry's actor).
    FinalizerRemoved(Name),
    /// The owner reference to this object is removed from it.
    OwnerRemoved(ObjId),
    /// Its owner references are made non-blocking (`blockOwnerDeletion:
    /// false`): a dependent of it waits for its own dependents (a circle).
    Unblocked,
    /// The collector cannot resolve one of its owner references (TD017):
    /// it never deletes it, and retries it forever.
    Unresolvable,
    /// The API removes it from its store: no finalizer is left.
    Removed,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub round: u32,
    pub actor: Actor,
    pub object: ObjId,
    pub action: Action,
}

pub struct Simulation {
    pub controller: Controller,
    /// The finalizers entries name ([`Name`]).
    pub names: Vec<Str>,
    pub cascade: CascadeMode,
    pub targets: Vec<ObjId>,
    pub entries: Vec<Entry>,
    /// API calls by verb (in [`Verb::ALL`] order).
    pub calls: [u32; 3],
    /// Events by type (in [`EventType::ALL`] order).
    pub events: [u32; 2],
    pub rounds: u32,
    /// The objects removed, in the order they went.
    pub removed: Vec<ObjId>,
    /// Objects being deleted when nothing is left to happen, with the
    /// finalizers they still wait for: the deletion hangs on them.
    pub stalled: Vec<(ObjId, Vec<Name>)>,
}

/// What simulating needs to know.
pub struct Input<'a> {
    pub objects: &'a [Object],
    pub relations: &'a [Relation],
    /// Each object's rank in reference order (dependents are handled in it).
    pub rank: &'a [u32],
    pub targets: &'a [ObjId],
    pub controller: Controller,
    pub cascade: CascadeMode,
    /// For each object, an owner reference the Kubernetes collector cannot
    /// resolve (empty: none): it never deletes such an object.
    pub unresolvable: &'a [Option<u32>],
    /// Application controllers' managed sets (Kubernetes): the controller
    /// of an application object's finalizer deletes what it manages first,
    /// and waits for it, as the namespace controller does.
    pub managed: &'a crate::model::managed::Managed,
}

const KRAKE_FINALIZER: &str = crate::dialect::krake::CASCADE_DELETION;
const FOREGROUND: &str = "foregroundDeletion";
const ORPHAN: &str = "orphan";
const NAMESPACE_FINALIZER: &str = "kubernetes";
const CRD_FINALIZER: &str = "customresourcecleanup.apiextensions.k8s.io";

/// Work waiting for its round.
#[derive(Clone, Debug)]
enum Task {
    /// A DELETE, with the propagation policy it names (Kubernetes; `None`:
    /// none, the object's finalizers stay as they are).
    Delete { object: ObjId, by: Actor, policy: Option<CascadeMode> },
    /// An UPDATE that removes `finalizer` (or an owner reference).
    Update { object: ObjId, by: Actor, change: Change },
    /// The collector handles a queued object.
    Process(ObjId),
    /// The collector reads an owner of a removed object.
    ReadOwner(ObjId),
    /// A controller removes its finalizer from an object.
    Finalize(ObjId),
}

#[derive(Clone, Debug)]
enum Change {
    Finalizer(Str),
    Owner(ObjId),
    /// Every owner reference of the object made non-blocking.
    Unblock,
}

struct World<'a> {
    input: &'a Input<'a>,
    deleted: Vec<bool>,
    finalizers: Vec<Vec<Str>>,
    gone: Vec<bool>,
    /// What the controllers follow; `dropped` marks the owner references
    /// removed (orphaned) during the run.
    links: Links,
    /// Whether the reference from the dependent blocks owner deletion
    /// (Kubernetes `blockOwnerDeletion`), per `links.dependents` entry.
    blocking: Vec<Vec<bool>>,
    dropped: Vec<Vec<ObjId>>,
    queued: Vec<bool>,
    /// The collector asked the API to delete it (the DELETE is on its way).
    requested: Vec<bool>,
    sim: Simulation,
    round: u32,
    now: VecDeque<Task>,
    next: VecDeque<Task>,
}

pub fn simulate(input: &Input) -> Simulation {
    let mut w = World::new(input);
    let reach = w.start();
    loop {
        while let Some(task) = w.now.pop_front() {
            w.run(task);
        }
        if w.next.is_empty() {
            break;
        }
        std::mem::swap(&mut w.now, &mut w.next);
        w.round += 1;
    }
    w.sim.rounds = w.sim.entries.iter().map(|e| e.round).max().unwrap_or(0);
    let stalled: Vec<usize> = (0..input.objects.len()).filter(|&i| reach[i] && w.deleted[i] && !w.gone[i]).collect();
    for i in stalled {
        let waits = w.finalizers[i].clone();
        let waits = waits.iter().map(|f| w.name(f)).collect();
        w.sim.stalled.push((ObjId(i as u32), waits));
    }
    w.sim
}

/// The relations the controllers follow, by object: owners, dependents,
/// what a Namespace or CRD holds (and its finalizer), what a controller's
/// cascade takes; each list in reference order.
struct Links {
    /// Owners (relation sources) and dependents (targets) by solid
    /// ownership, dependents in reference order.
    owners: Vec<Vec<ObjId>>,
    dependents: Vec<Vec<ObjId>>,
    /// Kubernetes: what a Namespace holds and a CRD defines, in reference
    /// order, the reverse, and the finalizer through which their
    /// controllers delete it first (`kubernetes`,
    /// `customresourcecleanup.apiextensions.k8s.io`).
    contents: Vec<Vec<ObjId>>,
    containers: Vec<Vec<ObjId>>,
    content_finalizer: Vec<Option<Str>>,
    /// Kubernetes: what a controller deletes once the object is gone
    /// (outside ownerReferences), in reference order.
    takes: Vec<Vec<(ObjId, ControllerEdge)>>,
}

impl Links {
    fn of(input: &Input) -> Links {
        let n = input.objects.len();
        let mut owners = vec![Vec::new(); n];
        let mut dependents = vec![Vec::new(); n];
        let mut contents = vec![Vec::new(); n];
        let mut containers = vec![Vec::new(); n];
        let mut content_finalizer = vec![None; n];
        let mut takes = vec![Vec::new(); n];
        for r in input.relations {
            if let (Some(e), Some((by, taken)), Controller::Kubernetes) =
                (r.kind.controller(), r.reaches(), input.controller)
            {
                if e.cascades() && by != taken {
                    takes[by.index()].push((taken, e));
                }
            }
            if r.kind == RelKind::Owns && r.link == Link::Solid && r.from != r.to {
                owners[r.to.index()].push(r.from);
                dependents[r.from.index()].push(r.to);
            }
            if matches!(r.kind, RelKind::Contains | RelKind::Defines) && input.controller == Controller::Kubernetes {
                contents[r.from.index()].push(r.to);
                containers[r.to.index()].push(r.from);
                content_finalizer[r.from.index()] = Some(Str::from(match r.kind {
                    RelKind::Contains => NAMESPACE_FINALIZER,
                    _ => CRD_FINALIZER,
                }));
            }
        }
        if input.controller == Controller::Kubernetes {
            managed_contents(input, &mut contents, &mut containers, &mut content_finalizer);
        }
        for c in contents.iter_mut() {
            c.sort_by_key(|d| input.rank[d.index()]);
            c.dedup();
        }
        for t in takes.iter_mut() {
            t.sort_by_key(|(d, _)| input.rank[d.index()]);
            t.dedup();
        }
        for o in owners.iter_mut() {
            o.sort_by_key(|d| input.rank[d.index()]);
            o.dedup();
        }
        for deps in dependents.iter_mut() {
            deps.sort_by_key(|d| input.rank[d.index()]);
            deps.dedup();
        }
        Links { owners, dependents, contents, containers, content_finalizer, takes }
    }
}

impl<'a> World<'a> {
    /// The world before the deletion: every object as the snapshot has it.
    fn new(input: &'a Input<'a>) -> World<'a> {
        let objects = input.objects;
        let n = objects.len();
        let links = Links::of(input);
        let mut finalizers: Vec<Vec<Str>> = objects.iter().map(|o| o.finalizers.to_vec()).collect();
        // A Namespace and a CRD carry their controller's finalizer from the start.
        for (i, f) in links.content_finalizer.iter().enumerate() {
            if let Some(f) = f {
                if !finalizers[i].iter().any(|x| x == f) {
                    finalizers[i].insert(0, f.clone());
                }
            }
        }
        let mut blocking = vec![Vec::new(); n];
        for (i, deps) in links.dependents.iter().enumerate() {
            blocking[i] = deps
                .iter()
                .map(|d| {
                    let o = &objects[d.index()];
                    o.owners.iter().any(|r| r.block_owner_deletion && refers_to(r, &objects[i]))
                })
                .collect();
        }
        World {
            input,
            deleted: objects.iter().map(|o| o.deletion_timestamp.is_some()).collect(),
            finalizers,
            gone: vec![false; n],
            links,
            blocking,
            dropped: vec![Vec::new(); n],
            queued: vec![false; n],
            requested: vec![false; n],
            sim: Simulation {
                controller: input.controller,
                names: Vec::new(),
                cascade: input.cascade,
                targets: input.targets.to_vec(),
                entries: Vec::new(),
                calls: [0; 3],
                events: [0; 2],
                rounds: 0,
                removed: Vec::new(),
                stalled: Vec::new(),
            },
            round: 1,
            now: VecDeque::new(),
            next: VecDeque::new(),
        }
    }

    /// The user's deletion of the targets, and what the deletion reaches
    /// that is being deleted already; gives what the deletion reaches.
    fn start(&mut self) -> Vec<bool> {
        let (input, n) = (self.input, self.input.objects.len());
        let w = self;
        // What the deletion of each object leads to: its dependents, what
        // it holds, what a controller's cascade takes.
        let (dependents, contents, takes) = (&w.links.dependents, &w.links.contents, &w.links.takes);
        let next_of = Csr::from_edges(
            n,
            (0..n).flat_map(|i| {
                let next = dependents[i].iter().chain(&contents[i]).copied().chain(takes[i].iter().map(|t| t.0));
                next.map(move |d| (i as u32, d.0))
            }),
        );
        let reach = reachable(&next_of, input.targets);
        drop(next_of);
        // About a dozen entries an object the deletion reaches.
        w.sim.entries.reserve(12 * reach.iter().filter(|r| **r).count());
        for &t in input.targets {
            w.now.push_back(Task::Delete { object: t, by: Actor::User, policy: Some(input.cascade) });
        }
        // What the deletion reaches and is being deleted already: the collector
        // (or the controller whose finalizer is next) takes it up when it
        // starts, as it does every object it lists.
        let pending: Vec<ObjId> = (0..n).filter(|&i| reach[i] && w.deleted[i]).map(|i| ObjId(i as u32)).collect();
        for id in pending {
            w.on_modified(id);
        }
        reach
    }
}

/// The objects the targets reach through ownership (and the cascades of
/// controllers).
/// Application objects (`analysis::managed`) as holders: the controller
/// of the finalizer through which one cascades deletes the objects it
/// manages (those its controller does not leave), then removes it.
fn managed_contents(
    input: &Input,
    contents: &mut [Vec<ObjId>],
    containers: &mut [Vec<ObjId>],
    finalizer: &mut [Option<Str>],
) {
    let gated: rustc_hash::FxHashSet<u32> = input.managed.gated.iter().map(|(r, _)| *r).collect();
    for (ri, r) in input.relations.iter().enumerate() {
        if super::managed::controller(r).is_none() || gated.contains(&(ri as u32)) || r.from == r.to {
            continue;
        }
        let Some(f) = input.managed.app(r.from).and_then(|a| a.finalizer.clone()) else { continue };
        if finalizer[r.from.index()].as_ref().is_some_and(|x| *x != f) {
            continue; // a Namespace or CRD: its own controller's
        }
        finalizer[r.from.index()] = Some(f);
        contents[r.from.index()].push(r.to);
        containers[r.to.index()].push(r.from);
    }
}

/// What the deletion of `targets` reaches, following `next_of`.
fn reachable(next_of: &Csr, targets: &[ObjId]) -> Vec<bool> {
    let mut seen = vec![false; next_of.len()];
    let mut stack: Vec<u32> = targets.iter().map(|t| t.0).collect();
    while let Some(id) = stack.pop() {
        if !std::mem::replace(&mut seen[id as usize], true) {
            stack.extend_from_slice(next_of.row(id as usize));
        }
    }
    seen
}

/// Does owner reference `r` name `owner`?
fn refers_to(r: &crate::model::OwnerRef, owner: &Object) -> bool {
    match (&r.uid, &owner.uid) {
        (Some(a), Some(b)) => a == b,
        _ => r.kind == owner.kind && r.name == owner.name,
    }
}

impl World<'_> {
    fn name(&mut self, f: &str) -> Name {
        match self.sim.names.iter().position(|n| &**n == f) {
            Some(i) => i as Name,
            None => {
                self.sim.names.push(f.into());
                (self.sim.names.len() - 1) as Name
            }
        }
    }

    fn say(&mut self, actor: Actor, object: ObjId, action: Action) {
        match &action {
            Action::Call(v) => self.sim.calls[*v as usize] += 1,
            Action::Event(e) => self.sim.events[*e as usize] += 1,
            _ => {}
        }
        self.sim.entries.push(Entry { round: self.round, actor, object, action });
    }

    fn krake(&self) -> bool {
        self.input.controller == Controller::Krake
    }

    fn last_finalizer(&self, id: ObjId) -> Option<&Str> {
        self.finalizers[id.index()].last()
    }

    /// Krake's `is_in_deletion`; Kubernetes: being deleted and waiting for
    /// the collector (`foregroundDeletion` or `orphan`).
    fn collector_acts(&self, id: ObjId) -> bool {
        let i = id.index();
        if !self.deleted[i] || self.gone[i] {
            return false;
        }
        match self.krake() {
            true => self.last_finalizer(id).is_some_and(|f| &**f == KRAKE_FINALIZER),
            false => self.finalizers[i].iter().any(|f| &**f == FOREGROUND || &**f == ORPHAN),
        }
    }

    fn live_dependents(&self, id: ObjId) -> Vec<(ObjId, bool)> {
        let i = id.index();
        self.links.dependents[i]
            .iter()
            .zip(&self.blocking[i])
            .filter(|(d, _)| !self.gone[d.index()] && !self.dropped[d.index()].contains(&id))
            .map(|(d, b)| (*d, *b))
            .collect()
    }

    fn run(&mut self, task: Task) {
        match task {
            Task::Delete { object, by, policy } => self.delete(object, by, policy),
            Task::Update { object, by, change } => self.update(object, by, change),
            Task::Process(object) => {
                self.queued[object.index()] = false;
                self.process(object);
            }
            Task::ReadOwner(owner) => {
                self.say(Actor::Collector, owner, Action::Call(Verb::Read));
                if self.gone[owner.index()] {
                    self.say(Actor::Api, owner, Action::NotFound);
                } else if self.collector_acts(owner) {
                    self.queue(owner, true);
                }
            }
            Task::Finalize(object) => {
                let Some(f) = self.controller_finalizer(object) else { return };
                let by = Actor::Controller(self.name(&f));
                if self.links.content_finalizer[object.index()].as_deref() == Some(&*f) {
                    // The namespace (or CRD) controller deletes what it
                    // holds first, and waits for all of it to be gone.
                    let live: Vec<ObjId> =
                        self.links.contents[object.index()].iter().copied().filter(|c| !self.gone[c.index()]).collect();
                    if !live.is_empty() {
                        let fresh: Vec<ObjId> = live.into_iter().filter(|c| !self.deleted[c.index()]).collect();
                        if !fresh.is_empty() {
                            self.say(by, object, Action::Dependents(fresh.len() as u32));
                        }
                        // The namespace controller names background
                        // propagation; the CRD's cleanup names none.
                        let policy = match self.links.content_finalizer[object.index()].as_deref() {
                            Some(NAMESPACE_FINALIZER) => Some(CascadeMode::Background),
                            _ => None,
                        };
                        for c in fresh {
                            self.next.push_back(Task::Delete { object: c, by, policy });
                        }
                        return;
                    }
                }
                self.next.push_back(Task::Update { object, by, change: Change::Finalizer(f) });
            }
        }
    }

    fn queue(&mut self, id: ObjId, again: bool) {
        if self.queued[id.index()] {
            return;
        }
        self.queued[id.index()] = true;
        self.say(Actor::Collector, id, Action::Queued { again });
        self.now.push_back(Task::Process(id));
    }

    fn delete(&mut self, id: ObjId, by: Actor, policy: Option<CascadeMode>) {
        let i = id.index();
        self.say(by, id, Action::Call(Verb::Delete));
        if self.gone[i] {
            return self.say(Actor::Api, id, Action::NotFound);
        }
        if self.deleted[i] {
            return self.say(Actor::Api, id, Action::AlreadyDeleted);
        }
        self.deleted[i] = true;
        let finalizer = match (self.krake(), policy) {
            (true, _) => Some(KRAKE_FINALIZER),
            (false, Some(CascadeMode::Foreground)) => Some(FOREGROUND),
            (false, Some(CascadeMode::Orphan)) => Some(ORPHAN),
            (false, _) => None,
        };
        // A policy the DELETE names replaces the collector's finalizers the
        // object carries (the API server's
        // `deletionFinalizersForGarbageCollection`: an explicit policy
        // overrides an `orphan` or `foregroundDeletion` finalizer).
        if !self.krake() && policy.is_some() {
            let stale: Vec<Str> = self.finalizers[i]
                .iter()
                .filter(|f| (&***f == ORPHAN || &***f == FOREGROUND) && Some(&***f) != finalizer)
                .cloned()
                .collect();
            for f in stale {
                self.finalizers[i].retain(|x| *x != f);
                let f = self.name(&f);
                self.say(Actor::Api, id, Action::FinalizerRemoved(f));
            }
        }
        if let Some(f) = finalizer {
            // Krake's API appends its finalizer whatever the list holds (so
            // it is last); Kubernetes adds a finalizer once.
            if self.krake() || !self.finalizers[i].iter().any(|x| &**x == f) {
                self.finalizers[i].push(f.into());
            }
        }
        let finalizer = finalizer.map(|f| self.name(f));
        self.say(Actor::Api, id, Action::Marked { finalizer });
        self.stored(id);
    }

    /// The API wrote the object: removed when being deleted without
    /// finalizers, else a MODIFIED event.
    fn stored(&mut self, id: ObjId) {
        let i = id.index();
        if self.deleted[i] && self.finalizers[i].is_empty() {
            self.gone[i] = true;
            self.sim.removed.push(id);
            self.say(Actor::Api, id, Action::Removed);
            self.say(Actor::Api, id, Action::Event(EventType::Deleted));
            self.on_deleted(id);
        } else {
            self.say(Actor::Api, id, Action::Event(EventType::Modified));
            self.on_modified(id);
        }
    }

    fn on_modified(&mut self, id: ObjId) {
        if self.collector_acts(id) {
            self.queue(id, false);
        }
        if self.controller_finalizer(id).is_some() {
            self.now.push_back(Task::Finalize(id));
        }
    }

    /// The finalizer a controller removes next from a deleted object:
    /// Krake's controllers act when theirs is last; Kubernetes' act on
    /// their own, beside the collector (the last such finalizer first).
    fn controller_finalizer(&self, id: ObjId) -> Option<Str> {
        let i = id.index();
        if !self.deleted[i] || self.gone[i] {
            return None;
        }
        let collector = |f: &Str| matches!(&**f, KRAKE_FINALIZER | FOREGROUND | ORPHAN);
        match self.krake() {
            true => self.last_finalizer(id).filter(|f| !collector(f)).cloned(),
            false => self.finalizers[i].iter().rev().find(|f| !collector(f)).cloned(),
        }
    }

    fn on_deleted(&mut self, id: ObjId) {
        // A namespace (or CRD) controller waiting for its contents.
        for c in self.links.containers[id.index()].clone() {
            if self.deleted[c.index()] && !self.gone[c.index()] {
                self.now.push_back(Task::Finalize(c));
            }
        }
        let owners = self.links.owners[id.index()].clone();
        for owner in owners {
            if self.dropped[id.index()].contains(&owner) || self.gone[owner.index()] {
                continue;
            }
            if self.krake() {
                // Krake's collector reads the owner through the API.
                self.next.push_back(Task::ReadOwner(owner));
            } else if self.collector_acts(owner) {
                // Kubernetes' collector has the owner in its graph.
                self.queue(owner, true);
            }
        }
        // What a controller deletes once this object is gone.
        for (c, e) in self.links.takes[id.index()].clone() {
            if !self.deleted[c.index()] && !self.gone[c.index()] {
                self.next.push_back(Task::Delete { object: c, by: Actor::Kube(e), policy: None });
            }
        }
        if !self.krake() {
            // Background: the collector deletes dependents with no solid owner left.
            for (d, _) in self.live_dependents(id) {
                let alive = self.links.owners[d.index()]
                    .iter()
                    .any(|o| !self.gone[o.index()] && !self.dropped[d.index()].contains(o));
                if !alive && !self.deleted[d.index()] && !self.requested[d.index()] && self.resolvable(d) {
                    // With the finalizer it carries honoured
                    // (`attemptToDeleteItem`'s default branch).
                    let policy = self.honoured(d);
                    self.requested[d.index()] = true;
                    self.next.push_back(Task::Delete { object: d, by: Actor::Collector, policy: Some(policy) });
                }
            }
        }
    }

    fn process(&mut self, id: ObjId) {
        if !self.collector_acts(id) {
            return;
        }
        let i = id.index();
        let orphaning = !self.krake() && self.finalizers[i].iter().any(|f| &**f == ORPHAN);
        let live = self.live_dependents(id);
        if orphaning {
            // The collector releases every dependent, then lets the owner go.
            for &(d, _) in &live {
                self.next.push_back(Task::Update { object: d, by: Actor::Collector, change: Change::Owner(id) });
            }
            self.next.push_back(Task::Update {
                object: id,
                by: Actor::Collector,
                change: Change::Finalizer(ORPHAN.into()),
            });
            return;
        }
        let fin = if self.krake() { KRAKE_FINALIZER } else { FOREGROUND };
        if live.is_empty() {
            self.next.push_back(Task::Update {
                object: id,
                by: Actor::Collector,
                change: Change::Finalizer(fin.into()),
            });
            return;
        }
        if self.krake() {
            self.say(Actor::Collector, id, Action::Dependents(live.len() as u32));
            for (d, _) in live {
                self.next.push_back(Task::Delete { object: d, by: Actor::Collector, policy: None });
            }
            return;
        }
        // Kubernetes foreground: delete the dependents not yet being
        // deleted (foreground again when they have dependents); one with
        // another owner that stays only loses this owner reference. Then
        // wait for those whose reference blocks owner deletion.
        let mut acted = 0;
        let mut blocking = 0;
        for (d, blocks) in live {
            let other = self.links.owners[d.index()].iter().any(|&o| {
                o != id && !self.gone[o.index()] && !self.deleted[o.index()] && !self.dropped[d.index()].contains(&o)
            });
            if other {
                self.next.push_back(Task::Update { object: d, by: Actor::Collector, change: Change::Owner(id) });
                continue;
            }
            blocking += blocks as u32;
            if self.deleted[d.index()] || self.requested[d.index()] || !self.resolvable(d) {
                continue;
            }
            acted += 1;
            // A dependent with dependents of its own goes in the foreground
            // (an explicit policy, over an `orphan` finalizer); one without
            // as its finalizers say (`attemptToDeleteItem`).
            let policy = match self.live_dependents(d).is_empty() {
                true => self.honoured(d),
                false => CascadeMode::Foreground,
            };
            // A dependent of it already waits for its own dependents: a
            // circle. Its owner references are made non-blocking first, so
            // that its owners do not wait for it ("to prevent potential
            // cycle, its ownerReferences are going to be modified to be
            // non-blocking, then the item is going to be deleted with
            // Foreground").
            if policy == CascadeMode::Foreground
                && self.live_dependents(d).iter().any(|&(x, _)| self.deleting_dependents(x))
            {
                self.next.push_back(Task::Update { object: d, by: Actor::Collector, change: Change::Unblock });
            }
            self.requested[d.index()] = true;
            self.next.push_back(Task::Delete { object: d, by: Actor::Collector, policy: Some(policy) });
        }
        if acted > 0 {
            self.say(Actor::Collector, id, Action::Dependents(acted));
        }
        if blocking > 0 {
            self.say(Actor::Collector, id, Action::Waits(blocking));
        } else {
            self.next.push_back(Task::Update {
                object: id,
                by: Actor::Collector,
                change: Change::Finalizer(fin.into()),
            });
        }
    }

    fn update(&mut self, id: ObjId, by: Actor, change: Change) {
        let i = id.index();
        if self.gone[i] {
            self.say(by, id, Action::Call(Verb::Update));
            return self.say(Actor::Api, id, Action::NotFound);
        }
        let change_kind = matches!(change, Change::Unblock);
        match change {
            Change::Finalizer(f) => {
                let Some(at) = self.finalizers[i].iter().rposition(|x| *x == f) else { return };
                self.finalizers[i].remove(at);
                let f = self.name(&f);
                self.say(by, id, Action::FinalizerRemoved(f));
            }
            Change::Owner(owner) => {
                self.dropped[i].push(owner);
                self.say(by, id, Action::OwnerRemoved(owner));
            }
            Change::Unblock => {
                self.say(by, id, Action::Unblocked);
            }
        }
        self.say(by, id, Action::Call(Verb::Update));
        let unblocked = match &change_kind {
            true => self.unblock(id),
            false => Vec::new(),
        };
        self.stored(id);
        // The owners that waited for it look again
        // (`addUnblockedOwnersToDeleteQueue`).
        for o in unblocked {
            if self.collector_acts(o) && !self.queued[o.index()] {
                self.queued[o.index()] = true;
                self.say(Actor::Collector, o, Action::QueuedUnblocked);
                self.now.push_back(Task::Process(o));
            }
        }
    }

    /// Make every owner reference of `id` non-blocking; the owners whose
    /// reference blocked.
    fn unblock(&mut self, id: ObjId) -> Vec<ObjId> {
        let mut out = Vec::new();
        for o in self.links.owners[id.index()].clone() {
            let Some(at) = self.links.dependents[o.index()].iter().position(|&d| d == id) else { continue };
            if let Some(b) = self.blocking[o.index()].get_mut(at) {
                if std::mem::replace(b, false) {
                    out.push(o);
                }
            }
        }
        out
    }

    /// The policy the collector deletes `id` with when it names none of
    /// its own: an `orphan` finalizer on it first, then
    /// `foregroundDeletion`, else background ("if an existing orphan
    /// finalizer is already on the object, honor it").
    fn honoured(&self, id: ObjId) -> CascadeMode {
        let has = |f: &str| self.finalizers[id.index()].iter().any(|x| &**x == f);
        if has(ORPHAN) {
            CascadeMode::Orphan
        } else if has(FOREGROUND) {
            CascadeMode::Foreground
        } else {
            CascadeMode::Background
        }
    }

    /// Being deleted in the foreground: waiting for its dependents.
    fn deleting_dependents(&self, id: ObjId) -> bool {
        self.deleted[id.index()]
            && !self.gone[id.index()]
            && self.finalizers[id.index()].iter().any(|f| &**f == FOREGROUND)
    }

    /// Can the collector resolve every owner reference of `id`? If not, it
    /// never deletes it (said once, when it first tries).
    fn resolvable(&mut self, id: ObjId) -> bool {
        if !self.input.unresolvable.get(id.index()).is_some_and(Option::is_some) {
            return true;
        }
        if !std::mem::replace(&mut self.requested[id.index()], true) {
            self.say(Actor::Collector, id, Action::Unresolvable);
        }
        false
    }
}
