//! Cascade (CONTRACT §5): which objects a deletion takes with it.
//!
//! Starting from the targets, deletion follows ownership: a Namespace takes
//! its objects, a CRD its custom resources, an owner its dependents; and
//! the cascades Kubernetes controllers perform outside ownerReferences
//! ([`crate::model::ControllerEdge`]: a Service its Endpoints, a Node its
//! Pods, a claim its volume when the volume's reclaim policy is `Delete`),
//! whatever the propagation policy — the cluster does them. With
//! `--multi-owner all` a dependent goes only when no *solid* owner remains
//! (one that exists, is not being deleted, has the referenced uid and is in
//! the dependent's namespace or cluster-scoped); with `any` it goes with the
//! first owner. `--cascade orphan` keeps the targets' dependents and removes
//! the owner reference from them instead. Linear in objects plus relations:
//! each object keeps a count of its live solid owners.

// No-panic lints (issue 19): this module indexes dense tables only. Object
// ids (of the seeds, the relations and the graph, all made from `objects`)
// index tables sized by `objects`; relation indexes come from the graph
// built over `rels`. Nothing here is indexed by a position read from input.
#![allow(
    clippy::indexing_slicing,
    reason = "object and relation ids made from one snapshot index tables sized by its objects and relations"
)]

use crate::graph::Graph;
use crate::model::kube::{HelmHook, KeepMark};
use crate::model::{Link, ObjId, Object, RelKind, Relation};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CascadeMode {
    /// Delete dependents after the owner (kubectl's default).
    Background,
    /// Delete dependents before the owner: the same set and steps (but
    /// where a dependent's orphan finalizer yields to it); otherwise only the
    /// emitted kubectl commands differ.
    Foreground,
    /// Keep the targets' dependents; remove their owner reference.
    Orphan,
}

impl CascadeMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CascadeMode::Background => "background",
            CascadeMode::Foreground => "foreground",
            CascadeMode::Orphan => "orphan",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MultiOwner {
    /// Delete a dependent only when no solid owner remains (Kubernetes).
    All,
    /// Delete a dependent when any of its owners is deleted (Krake).
    Any,
    /// Each dependent by its dialect's collector (a snapshot of Kubernetes
    /// and Krake objects, without `--multi-owner`).
    #[value(skip)]
    ByDialect,
}

impl MultiOwner {
    pub fn as_str(self) -> &'static str {
        match self {
            MultiOwner::All => "all",
            MultiOwner::Any => "any",
            MultiOwner::ByDialect => "by-dialect",
        }
    }

    /// The rule of these objects' collectors: theirs if they agree.
    pub fn of(objects: &[Object]) -> MultiOwner {
        let any = |o: &Object| o.origin.collector.any_owner;
        MultiOwner::when(objects.iter().any(any), objects.iter().all(any))
    }

    /// [`MultiOwner::of`] objects of which `some` go with the first of their
    /// owners that goes, and `every` one does.
    pub fn when(some: bool, every: bool) -> MultiOwner {
        match (some, every) {
            (false, _) => MultiOwner::All,
            (true, true) => MultiOwner::Any,
            (true, false) => MultiOwner::ByDialect,
        }
    }

    /// Does `dependent` go with the first of its owners that goes?
    pub fn any_owner(self, dependent: &Object) -> bool {
        match self {
            MultiOwner::All => false,
            MultiOwner::Any => true,
            MultiOwner::ByDialect => dependent.origin.collector.any_owner,
        }
    }
}

/// Why a garbage-collection seed is garbage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Garbage {
    /// It has owner references and none of them is solid; the relation (if
    /// any) is one of the broken ones, for the message.
    NoSolidOwner,
    /// It already carries a `deletionTimestamp`.
    BeingDeleted,
    /// Murano: in `ObjectsCopy`, not in `Objects` (removed from the model).
    RemovedFromModel,
    /// Murano: not reachable from the root, inline or by id.
    Unreachable,
    /// A resource tracker the application's collector marked (see
    /// `tracking::Mark`).
    Tracker,
    /// A component revision no active tracker uses.
    UnusedRevision,
    /// A PersistentVolume with reclaim policy `Delete` whose claim is gone:
    /// its `claimRef` names a claim of another uid (an earlier claim of
    /// that name), or, with `--closed-world`, one the snapshot lacks. The
    /// volume controller deletes it. (`replaced`: the first case.)
    VolumeReleased { replaced: bool },
}

/// Why an object is in the deletion set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Selected (`--delete`, `--all`).
    Target,
    /// A garbage-collection seed (`--gc`).
    Garbage(Garbage),
    /// Deleted with the object this relation comes from.
    Relation(u32),
}

/// Why a dependent reached by the cascade stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptBy {
    /// This solid owner (relation) stays.
    SolidOwner(u32),
    /// A cluster-scoped object with a namespaced owner is never collected.
    NamespacedOwner(u32),
    /// The same, for an owner reference (this one, by index) to a
    /// namespaced kind whose object the snapshot lacks.
    NamespacedOwnerRef(u32),
    /// Its owner (this relation) is being deleted, but its collector no
    /// longer cascades from it (Krake, without `cascade_deletion`).
    CollectorDone(u32),
    /// Murano: `destroyed: true`; not destroyed again.
    AlreadyDestroyed,
    /// Murano (`--gc`): the root still reaches it, inline or by id.
    Reachable,
    /// Murano (`--prune`): the new model still holds it.
    InNewModel,
    /// `default`, `kube-system`, `kube-public`, `kube-node-lease`: the API
    /// server refuses to delete them. How many objects in it the plan deletes.
    Protected { deleted_inside: u32 },
    /// `--gc` without `--closed-world`: an owner reference names an object
    /// the snapshot lacks; the cluster may still have it. (The owner's
    /// reference is the plan's `absent_owners[k]`.)
    OwnerNotInSnapshot(u32),
    /// `--gc` without `--closed-world`: the claim a volume's `claimRef`
    /// names is not in the snapshot; the cluster may still have it.
    ClaimNotInSnapshot,
    /// `--prune`: NEW still declares it.
    DeclaredInNew,
    /// `--prune`: a Namespace or CRD that holds this many objects NEW declares.
    HoldsNew(u32),
    /// The collector of the tracker of this `Manages` relation releases it
    /// rather than deleting it.
    Released { relation: u32, app: Option<ObjId>, keep: Keep },
    /// Selected, not named, and a tool's annotation says to leave it (the
    /// cascade still takes it: see `plan::build`).
    Annotated(KeepMark),
    /// A Helm `pre-delete` / `post-delete` hook, selected, not named: Helm
    /// creates and runs it; it is not deleted.
    HelmHook(HelmHook),
    /// Crossplane: this Usage refuses its deletion; `by`, what uses it,
    /// stays (or the Usage names none).
    InUse { usage: ObjId, by: Option<ObjId> },
    /// A volume whose claim (this relation's) is deleted, and whose reclaim
    /// policy keeps it.
    Reclaim(u32),
    /// This owner reference (by index) is one the Kubernetes garbage
    /// collector cannot resolve: it never collects the object, nor deletes
    /// it with any owner (`isDangling`'s REST mapping fails, and the item is
    /// retried forever).
    UnresolvableOwner(u32),
    /// An application controller leaves it (this managed-by relation's
    /// controller), for this reason (`analysis::managed`).
    Managed { relation: u32, keep: crate::model::managed::Keep },
}
/// Why the collector keeps a resource a tracker manages (KubeVela's
/// resource keeper, `DeleteManagedResourceInApplication`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The tracker recorded it with `skipGC` (strategy `never` when it was
    /// dispatched): released.
    SkipGc,
    /// Rule `rule` (0-based) of the Application's garbage-collect policy,
    /// the first that matches it with a propagation: `orphan`. Released.
    Orphan { rule: u32 },
    /// The Application carries the orphan finalizer (`vela delete
    /// --orphan`): released.
    OrphanFinalizer,
    /// It is no longer the Application's: its labels name another (or
    /// none) and its `app.oam.dev/shared-by` does not list it. The keeper
    /// takes it for gone.
    NotOwned,
    /// Shared: its `app.oam.dev/shared-by` lists another Application, which
    /// stays a sharer; only this one is removed from it.
    Shared,
}

/// A relation the cascade does not follow: the object it reaches stays,
/// with `kept`, unless `unless_deleted` is in the deletion set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    pub unless_deleted: Option<ObjId>,
    pub kept: KeptBy,
    /// While the gate holds, the relation's `from` still counts as a live
    /// owner of what it reaches (false: it is none at all, as KubeVela's
    /// keeper of an Application a resource no longer belongs to).
    pub owner: bool,
}

pub struct Cascade {
    /// `Some(cause)` for every object in the deletion set.
    pub cause: Vec<Option<Cause>>,
    pub kept: Vec<(ObjId, KeptBy)>,
    /// (dependent, relation from a target) whose owner reference is removed.
    pub orphaned: Vec<(ObjId, u32)>,
}

impl Cascade {
    /// Is `id` deleted? (Not when it names no object.)
    pub fn deleted(&self, id: ObjId) -> bool {
        self.cause.get(id.index()).is_some_and(Option::is_some)
    }
    pub fn count(&self) -> usize {
        self.cause.iter().filter(|c| c.is_some()).count()
    }
}

pub struct Options {
    pub cascade: CascadeMode,
    pub multi_owner: MultiOwner,
    /// Relations the cascade does not follow, by relation index (empty: none).
    pub gates: Vec<Option<Gate>>,
    /// For each object, an owner reference the collector cannot resolve,
    /// by index (empty: none): the collector never takes such an object
    /// through ownership ([`KeptBy::UnresolvableOwner`]).
    pub unresolvable: Vec<Option<u32>>,
}

const ORPHAN: &str = "orphan";
const FOREGROUND: &str = "foregroundDeletion";

/// Does the Kubernetes garbage collector's protocol (propagation policies,
/// the `orphan` and `foregroundDeletion` finalizers) apply to `o`?
fn collected_by_kubernetes(o: &Object) -> bool {
    o.is_kubernetes() && o.origin.collector.orphans
}

/// The propagation policy `o` is deleted with when nobody names one: the
/// collector's, which honours a finalizer already on the object —
/// `orphan` first, then `foregroundDeletion`, else background
/// (kubernetes/kubernetes `pkg/controller/garbagecollector/garbagecollector.go`,
/// `attemptToDeleteItem`: "if an existing orphan finalizer is already on
/// the object, honor it"; the graph builder's `processTransitions` looks at
/// `orphan` first too). An object already being deleted goes as its
/// finalizers say, for the same reason.
pub fn honoured(o: &Object) -> CascadeMode {
    if !collected_by_kubernetes(o) {
        return CascadeMode::Background;
    }
    if o.finalizers.iter().any(|f| &**f == ORPHAN) {
        CascadeMode::Orphan
    } else if o.finalizers.iter().any(|f| &**f == FOREGROUND) {
        CascadeMode::Foreground
    } else {
        CascadeMode::Background
    }
}

/// Is `o` being deleted with the `orphan` finalizer? Its dependents lose
/// their reference to it (`orphanDependents`) rather than going with it.
pub fn orphans_dependents(o: &Object) -> bool {
    o.deletion_timestamp.is_some() && honoured(o) == CascadeMode::Orphan
}

/// Cluster-scoped Kubernetes objects with an owner reference to a
/// namespaced kind: the collector never takes them, whatever their other
/// owners — it stops at the invalid reference, found by the kind's scope
/// before any lookup (`namespacedOwnerOfClusterScopedObjectErr` in
/// kubernetes/pkg/controller/garbagecollector). The kind is namespaced when
/// it is a built-in namespaced kind, a CRD of the snapshot says so, or the
/// reference resolved to a namespaced object (tests/props_cascade.rs).
pub fn never_collected(objects: &[Object], rels: &[Relation]) -> Vec<bool> {
    let mut never = vec![false; objects.len()];
    for r in rels {
        if matches!(r.kind, RelKind::Owns | RelKind::Manages) && r.link == Link::ClusterScopedDependent {
            never[r.to.index()] = true;
        }
    }
    let crds = namespaced_crds(objects);
    for (i, o) in objects.iter().enumerate() {
        never[i] = never[i] || namespaced_owner_ref(o, &crds).is_some();
    }
    never
}

/// The kinds the snapshot's CRDs define as namespaced: (group, kind).
fn namespaced_crds(objects: &[Object]) -> rustc_hash::FxHashSet<(&str, &str)> {
    objects.iter().filter_map(|o| o.crd.as_deref()).filter(|c| c.namespaced).map(|c| (&*c.group, &*c.kind)).collect()
}

/// The first owner reference of a cluster-scoped Kubernetes object to a
/// namespaced kind (built in, or a CRD of the snapshot says so), by index.
/// Only for objects known to be cluster-scoped: a custom resource written
/// without a namespace and without its CRD may be namespaced after all.
fn namespaced_owner_ref(o: &Object, crds: &rustc_hash::FxHashSet<(&str, &str)>) -> Option<u32> {
    if o.namespace.is_some() || !o.scope_known || o.owners.is_empty() || !o.is_kubernetes() {
        return None;
    }
    let j = o.owners.iter().position(|r| {
        crate::model::kube::builtin_namespaced(&r.group, &r.kind) == Some(true) || crds.contains(&(&*r.group, &*r.kind))
    })?;
    Some(j as u32)
}

/// Objects the garbage collector would delete now: those with owner
/// references of which none is solid (dangling, uid mismatch, cross-namespace;
/// a cluster-scoped object with a namespaced owner is never collected), and
/// those already being deleted.
pub fn gc_seeds(objects: &[Object], rels: &[Relation], graph: &Graph) -> Vec<(ObjId, Garbage)> {
    let mut seeds = Vec::new();
    let never = never_collected(objects, rels);
    for (i, o) in objects.iter().enumerate() {
        let id = ObjId(i as u32);
        if o.deletion_timestamp.is_some() {
            seeds.push((id, Garbage::BeingDeleted));
            continue;
        }
        if o.owners.is_empty() || !o.origin.collector.collects_dangling || never[i] {
            continue;
        }
        let owners: Vec<&Relation> =
            graph.dependencies(id).into_iter().map(|r| &rels[r as usize]).filter(|r| r.kind == RelKind::Owns).collect();
        let solid =
            owners.iter().any(|r| r.link == Link::Solid && objects[r.from.index()].deletion_timestamp.is_none());
        // References to an owner being deleted with the `orphan` finalizer
        // are removed (`orphanDependents`): an object with no other
        // reference is orphaned, not garbage.
        let orphaning =
            owners.iter().filter(|r| r.link == Link::Solid && orphans_dependents(&objects[r.from.index()])).count();
        if !solid && orphaning < o.owners.len() {
            seeds.push((id, Garbage::NoSolidOwner));
        }
    }
    seeds
}

/// The propagation policy an object the cascade reaches through a relation
/// of `kind` is deleted with, its taker deleted with `by`. One being deleted
/// already goes as its finalizers say. An owner's dependent: when the owner
/// waits for its dependents (foreground) and the dependent has dependents of
/// its own, in the foreground (`attemptToDeleteItem`: "at least one owner of
/// item has FinalizerDeletingDependents, and the item itself has
/// dependents, so it is going to be deleted in Foreground" — an explicit
/// policy, which replaces an `orphan` finalizer); else with the finalizer
/// it carries, honoured. The namespace controller deletes what a Namespace
/// holds in the background, explicitly; the other controllers name no policy.
fn reached_with(o: &Object, kind: RelKind, by: CascadeMode, has_dependents: bool) -> CascadeMode {
    if o.deletion_timestamp.is_some() || !collected_by_kubernetes(o) {
        return honoured(o);
    }
    match kind {
        RelKind::Owns | RelKind::Manages if by == CascadeMode::Foreground && has_dependents => CascadeMode::Foreground,
        RelKind::Contains => CascadeMode::Background,
        _ => honoured(o),
    }
}

/// Volumes the volume controller would delete now (`--gc`): reclaim policy
/// `Delete`, a `claimRef` (namespace and name), and that claim gone — the
/// claim of that name has another uid than the `claimRef`'s (the claim it
/// was bound to was deleted, and one of the same name made since), or the
/// snapshot has no claim of that name (which, without `--closed-world`,
/// the cluster may still have: the plan spares those).
pub fn released_volumes(objects: &[Object]) -> Vec<(ObjId, Garbage)> {
    use crate::model::kube::Reclaim;
    let core = |o: &Object, kind: &str| o.is_kubernetes() && o.group.is_empty() && &*o.kind == kind;
    let claims: rustc_hash::FxHashMap<(&str, &str), Option<&str>> = objects
        .iter()
        .filter(|o| core(o, "PersistentVolumeClaim"))
        .map(|o| ((o.namespace.as_deref().unwrap_or(""), &*o.name), o.uid.as_deref()))
        .collect();
    let mut out = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let Some(f) = o.facts.as_deref().filter(|_| core(o, "PersistentVolume")) else { continue };
        let Some((ns, name)) = f.claim_ref() else { continue };
        if Reclaim::of(f.reclaim_policy().as_deref()) != Reclaim::Delete || o.deletion_timestamp.is_some() {
            continue;
        }
        let (gone, replaced) = match claims.get(&(&**ns, &**name)) {
            Some(uid) => (matches!((uid, f.claim_uid().as_deref()), (Some(a), Some(b)) if *a != b), true),
            None => (true, false),
        };
        if gone {
            out.push((ObjId(i as u32), Garbage::VolumeReleased { replaced }));
        }
    }
    out
}

/// Everything goes (`--all`), but what `spare` keeps: nothing to cascade
/// or orphan.
pub fn everything(mut cause: Vec<Option<Cause>>, spare: &[Option<KeptBy>]) -> Cascade {
    let mut kept = Vec::new();
    for (i, s) in spare.iter().enumerate() {
        if let Some(by) = *s {
            cause[i] = None;
            kept.push((ObjId(i as u32), by));
        }
    }
    Cascade { cause, kept, orphaned: Vec::new() }
}

/// Is it spared from the garbage collector only (an owner the snapshot
/// lacks, an owner reference the collector cannot resolve), not from the
/// namespace controller or a CRD's deletion, which take everything they
/// hold?
fn collector_only(spare: Option<KeptBy>) -> bool {
    matches!(spare, Some(KeptBy::OwnerNotInSnapshot(_) | KeptBy::UnresolvableOwner(_)))
}

/// Is it spared as a namespace the API server refuses to delete? (The
/// only reason to spare that a controller's cascade heeds: the others say
/// what the plan would not delete, not what the cluster does.)
fn protected(spare: Option<KeptBy>) -> bool {
    matches!(spare, Some(KeptBy::Protected { .. }))
}

/// The deletion set from `seeds`, following ownership. An object `spare`
/// names never enters it: it is kept, with that reason, and nothing
/// cascades from it — unless a controller's cascade takes it. Seeds
/// (Namespaces and CRDs first) and the relations out of each object are
/// followed in reference order (`rank`), so that the relation recorded as
/// each object's cause does not depend on the order the inputs were read
/// in (tests/props_determinism.rs).
pub fn cascade(
    objects: &[Object],
    rels: &[Relation],
    graph: &Graph,
    seeds: &[(ObjId, Cause)],
    spare: &[Option<KeptBy>],
    opts: &Options,
    rank: &[u32],
) -> Cascade {
    let mut cause: Vec<Option<Cause>> = vec![None; objects.len()];
    for &(id, c) in seeds {
        if cause[id.index()].is_none() {
            cause[id.index()] = Some(c);
        }
    }
    // Everything is a seed: nothing to follow — unless an owner the
    // snapshot lacks spares something that its Namespace or CRD still takes.
    let soft = |s: &Option<KeptBy>| collector_only(*s);
    if cause.iter().all(Option::is_some) && !spare.iter().any(soft) {
        return everything(cause, spare);
    }
    let mut spread = Spread::new(Context { objects, rels, graph, spare, opts, rank });
    spread.seed(seeds);
    spread.run();
    spread.finish()
}

/// What a cascade reads: the snapshot, what the plan spares, the options,
/// each object's place in reference order.
struct Context<'a> {
    objects: &'a [Object],
    rels: &'a [Relation],
    graph: &'a Graph,
    spare: &'a [Option<KeptBy>],
    opts: &'a Options,
    rank: &'a [u32],
}

/// A cascade as it spreads from its seeds, breadth first.
struct Spread<'a> {
    cx: Context<'a>,
    /// Cluster-scoped objects with a namespaced owner, and objects with an
    /// owner reference the collector cannot resolve: it never takes them
    /// through ownership, whatever their other owners.
    never: Vec<bool>,
    /// Objects whose deletion makes a controller delete what points at them
    /// (a Service, a bound claim): their incoming edges are looked at too.
    takes_back: Vec<bool>,
    /// Objects that others own (by their uid): the collector deletes them in
    /// the foreground when an owner waits for its dependents.
    has_dependents: Vec<bool>,
    /// Live solid owners of each object (owners not being deleted).
    alive: Vec<u32>,
    cause: Vec<Option<Cause>>,
    spared: Vec<bool>,
    /// The propagation policy each object of the set is deleted with, and
    /// whether an owner whose deletion is not an orphaning one takes it.
    prop: Vec<CascadeMode>,
    taken: Vec<Option<u32>>,
    reached: Vec<bool>,
    target: Vec<bool>,
    orphaned: Vec<(ObjId, u32)>,
    /// Reached from an object that does not cascade: the collector is done
    /// with it through this relation.
    done: Vec<Option<u32>>,
    released: Vec<Option<KeptBy>>,
    queue: VecDeque<ObjId>,
}

/// An owner of the collector's (an ownerReference, an application's
/// managed set).
fn owning(r: &Relation) -> bool {
    matches!(r.kind, RelKind::Owns | RelKind::Manages)
}

impl<'a> Spread<'a> {
    /// Nothing reached yet; what each object is, from its relations.
    fn new(cx: Context<'a>) -> Spread<'a> {
        let n = cx.objects.len();
        let mut never = never_collected(cx.objects, cx.rels);
        for (n, u) in never.iter_mut().zip(&cx.opts.unresolvable) {
            *n |= u.is_some();
        }
        let mut s = Spread {
            never,
            takes_back: vec![false; n],
            has_dependents: vec![false; n],
            alive: vec![0u32; n],
            cause: vec![None; n],
            spared: vec![false; n],
            prop: vec![CascadeMode::Background; n],
            taken: vec![None; n],
            reached: vec![false; n],
            target: vec![false; n],
            orphaned: Vec::new(),
            done: vec![None; n],
            released: vec![None; n],
            queue: VecDeque::new(),
            cx,
        };
        for (ri, r) in s.cx.rels.iter().enumerate() {
            if owning(r) && s.live_owner(r) && s.counts(ri) {
                s.alive[r.to.index()] += 1;
            }
            if r.kind.controller().is_some_and(|e| e.taken_by_to()) {
                s.takes_back[r.to.index()] = true;
            }
            if r.kind == RelKind::Owns && r.link != Link::UidMismatch && r.from != r.to {
                s.has_dependents[r.from.index()] = true;
            }
        }
        s
    }

    /// A solid owner not being deleted.
    fn live_owner(&self, r: &Relation) -> bool {
        r.link == Link::Solid && self.cx.objects[r.from.index()].deletion_timestamp.is_none()
    }

    /// Does relation `ri` count as an owner? (A gated relation whose `from`
    /// is no owner at all counts for nothing.)
    fn counts(&self, ri: usize) -> bool {
        self.cx.opts.gates.get(ri).copied().flatten().is_none_or(|g| g.owner)
    }

    fn at(&self, id: ObjId) -> u32 {
        self.cx.rank.get(id.index()).copied().unwrap_or(u32::MAX)
    }

    /// Relations in the order of the objects at their other ends.
    fn by_rank(&self, buf: &mut [u32], end: fn(&Relation) -> ObjId) {
        buf.sort_by_key(|&ri| {
            let r = &self.cx.rels[ri as usize];
            (self.at(end(r)), r.kind, ri)
        })
    }

    /// The seeds, Namespaces and CRDs first: what they hold goes with them
    /// whatever its owners, the reason that holds in any case.
    fn seed(&mut self, seeds: &[(ObjId, Cause)]) {
        let objects = self.cx.objects;
        let holds = |id: ObjId| {
            let o = &objects[id.index()];
            o.is_kubernetes()
                && matches!(
                    (&*o.group, &*o.kind),
                    ("", "Namespace") | ("apiextensions.k8s.io", "CustomResourceDefinition")
                )
        };
        let mut seeds = seeds.to_vec();
        seeds.sort_by_key(|&(id, _)| (!holds(id), self.at(id)));
        for &(id, c) in &seeds {
            if self.cx.spare[id.index()].is_some() {
                self.spared[id.index()] = true;
                continue;
            }
            if self.cause[id.index()].is_none() {
                self.cause[id.index()] = Some(c);
                self.target[id.index()] = true;
                // A target goes as the user says; the collector's garbage as
                // its finalizers say.
                self.prop[id.index()] = match c {
                    Cause::Target => self.cx.opts.cascade,
                    _ => honoured(&objects[id.index()]),
                };
                self.queue.push_back(id);
            }
        }
    }

    /// Each object taken, in turn: what it takes with it.
    fn run(&mut self) {
        let (mut buf, mut back) = (Vec::new(), Vec::new());
        while let Some(d) = self.queue.pop_front() {
            if !self.cx.objects[d.index()].cascades() {
                self.reach_only(d, &mut buf);
                continue;
            }
            if self.takes_back[d.index()] {
                self.take_back(d, &mut back);
            }
            self.cx.graph.dependents_into(d, &mut buf);
            self.by_rank(&mut buf, |r| r.to);
            for &ri in &buf {
                self.follow(d, ri);
            }
        }
    }

    /// An object that does not cascade: its dependents are reached, and
    /// the collector is done with them.
    fn reach_only(&mut self, d: ObjId, buf: &mut Vec<u32>) {
        self.cx.graph.dependents_into(d, buf);
        self.by_rank(buf, |r| r.to);
        let rels = self.cx.rels;
        for &ri in buf.iter() {
            let r = &rels[ri as usize];
            if owning(r) && r.link == Link::Solid {
                self.reached[r.to.index()] = true;
                self.done[r.to.index()].get_or_insert(ri);
            }
        }
    }

    /// What a controller deletes once `d` is gone: Endpoints of a Service,
    /// a claim's volume (or, kept by its reclaim policy, reached only).
    fn take_back(&mut self, d: ObjId, back: &mut Vec<u32>) {
        self.cx.graph.dependencies_into(d, back);
        self.by_rank(back, |r| r.from);
        let rels = self.cx.rels;
        for &ri in back.iter() {
            let r = &rels[ri as usize];
            let Some(e) = r.kind.controller().filter(|e| e.taken_by_to()) else { continue };
            let c = r.from;
            self.reached[c.index()] = true;
            if !e.cascades() {
                self.released[c.index()].get_or_insert(KeptBy::Reclaim(ri));
            } else if self.cause[c.index()].is_none() && !protected(self.cx.spare[c.index()]) {
                self.cause[c.index()] = Some(Cause::Relation(ri));
                self.queue.push_back(c);
            }
        }
    }

    /// Relation `ri` out of `d`, which is taken: does it take its `to`?
    fn follow(&mut self, d: ObjId, ri: u32) {
        let rels = self.cx.rels;
        let r = &rels[ri as usize];
        let c = r.to;
        if let Some(gate) = self.cx.opts.gates.get(ri as usize).copied().flatten() {
            if gate.unless_deleted.is_none_or(|x| self.cause[x.index()].is_none()) {
                self.reached[c.index()] = true;
                self.released[c.index()].get_or_insert(gate.kept);
                return;
            }
        }
        // The relation the object is taken through (another, when an
        // orphaning owner's reference was the last that kept it).
        let via = match r.kind {
            RelKind::DestroyAfter
            | RelKind::Finalizer
            | RelKind::ComponentOrder
            | RelKind::Rule(_)
            | RelKind::Tool(_) => return,
            // Followed from the other end (above).
            RelKind::Controller(e) if e.taken_by_to() => return,
            // A controller's cascade (the pod garbage collector takes a
            // Node's Pods) happens whatever the propagation policy and
            // other owners, and whatever the plan would spare: the
            // cluster does it.
            RelKind::Controller(_) => {
                self.reached[c.index()] = true;
                if self.cause[c.index()].is_none() && !protected(self.cx.spare[c.index()]) {
                    self.cause[c.index()] = Some(Cause::Relation(ri));
                    self.queue.push_back(c);
                }
                return;
            }
            // A Namespace's and a CRD's contents go with them, whatever
            // the propagation policy.
            RelKind::Contains | RelKind::Defines => ri,
            RelKind::Owns | RelKind::Manages => match self.through_owner(d, ri) {
                Some(via) => via,
                None => return,
            },
        };
        // An owner the snapshot lacks keeps its dependent from the
        // collector, not from the namespace controller or the CRD's
        // deletion, which take everything they hold
        // (tests/props_cascade.rs).
        let held = matches!(r.kind, RelKind::Contains | RelKind::Defines) && collector_only(self.cx.spare[c.index()]);
        if self.cx.spare[c.index()].is_some() && !held {
            self.spared[c.index()] = true;
        } else if self.cause[c.index()].is_none() {
            let by = &rels[via as usize];
            self.cause[c.index()] = Some(Cause::Relation(via));
            self.prop[c.index()] = reached_with(
                &self.cx.objects[c.index()],
                by.kind,
                self.prop[by.from.index()],
                self.has_dependents[c.index()],
            );
            self.queue.push_back(c);
        }
    }

    /// Ownership `ri` out of `d`, which is taken: the relation its
    /// dependent is taken through, or `None` when it stays.
    fn through_owner(&mut self, d: ObjId, ri: u32) -> Option<u32> {
        let (rels, opts) = (self.cx.rels, self.cx.opts);
        let r = &rels[ri as usize];
        let c = r.to;
        let mut via = ri;
        // Deleted with propagation Orphan: `--cascade orphan` on
        // a target, or the `orphan` finalizer the collector
        // honours (on ownerReferences only). The reference is
        // removed; another owner's deletion may still take it.
        // (An application controller's managed set is never
        // orphaned: its finalizer deletes it whatever the policy.)
        let orphaning = self.prop[d.index()] == CascadeMode::Orphan
            && (self.target[d.index()] && opts.cascade == CascadeMode::Orphan || r.kind == RelKind::Owns)
            && !(r.kind == RelKind::Manages && r.controller);
        if orphaning {
            self.orphaned.push((c, ri));
            if r.link == Link::Solid && self.live_owner(r) && self.counts(ri as usize) {
                self.alive[c.index()] -= 1;
            }
            // Taken by an owner deleted earlier, whose relation
            // is the cause.
            via = self.taken[c.index()].filter(|_| r.link == Link::Solid && self.cause[c.index()].is_none())?;
        }
        match r.link {
            Link::Solid => {
                if !orphaning {
                    if self.live_owner(r) && self.counts(ri as usize) {
                        self.alive[c.index()] -= 1;
                    }
                    self.reached[c.index()] = true;
                    self.taken[c.index()].get_or_insert(ri);
                }
                let any = opts.multi_owner.any_owner(&self.cx.objects[c.index()]);
                if self.never[c.index()] || (!any && self.alive[c.index()] > 0) {
                    return None;
                }
            }
            // Not a real owner: the collector looks the reference up
            // by uid in the dependent's namespace, where this object
            // is not; deleting it changes nothing for the dependent.
            Link::UidMismatch => return None,
            // (The collector finds it by the uid, and cannot
            // resolve it: kept, and listed with why.)
            Link::CrossNamespace | Link::OtherCoordinates => {
                if opts.unresolvable.get(c.index()).is_some_and(Option::is_some) {
                    self.reached[c.index()] = true;
                }
                return None;
            }
            Link::ClusterScopedDependent => {
                self.reached[c.index()] = true;
                return None;
            }
        }
        Some(via)
    }

    /// The cascade: what each object is taken through, what is kept (and
    /// why), what is orphaned.
    fn finish(self) -> Cascade {
        let kept = self.kept();
        let Spread { cause, mut orphaned, .. } = self;
        orphaned.retain(|(c, _)| cause[c.index()].is_none());
        orphaned.sort_unstable();
        orphaned.dedup();
        Cascade { cause, kept, orphaned }
    }

    /// Reached but kept: name what keeps each one.
    fn kept(&self) -> Vec<(ObjId, KeptBy)> {
        let (cx, cause) = (&self.cx, &self.cause);
        let (objects, rels) = (cx.objects, cx.rels);
        let crds = namespaced_crds(objects);
        let mut kept = Vec::new();
        for i in 0..objects.len() {
            if self.spared[i] && cause[i].is_none() {
                if let Some(by) = cx.spare[i] {
                    kept.push((ObjId(i as u32), by));
                }
                continue;
            }
            if !self.reached[i] || cause[i].is_some() {
                continue;
            }
            let id = ObjId(i as u32);
            let owners: Vec<u32> =
                cx.graph.dependencies(id).into_iter().filter(|&r| owning(&rels[r as usize])).collect();
            let keeper = owners
                .iter()
                .copied()
                .find(|&r| {
                    self.live_owner(&rels[r as usize])
                        && cause[rels[r as usize].from.index()].is_none()
                        && self.counts(r as usize)
                })
                .map(KeptBy::SolidOwner)
                .or_else(|| {
                    owners
                        .iter()
                        .copied()
                        .find(|&r| rels[r as usize].link == Link::ClusterScopedDependent)
                        .map(KeptBy::NamespacedOwner)
                })
                .or_else(|| namespaced_owner_ref(&objects[i], &crds).map(KeptBy::NamespacedOwnerRef))
                .or_else(|| cx.opts.unresolvable.get(i).copied().flatten().map(KeptBy::UnresolvableOwner))
                .or(self.released[i])
                .or(self.done[i].map(KeptBy::CollectorDone));
            if let Some(k) = keeper {
                kept.push((id, k));
            }
        }
        kept
    }
}
