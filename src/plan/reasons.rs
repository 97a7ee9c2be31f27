//! Why an object is deleted, kept or orphaned: typed values with stable ids
//! (`owned-by`, `in-namespace`, `garbage`…), made once when the plan is
//! built. `render::prose` says them in words; JSON carries both.

// No-panic lints (issue 19): this module indexes dense tables only: object
// ids and relation indexes of the plan's snapshot into its per-object tables
// (objects, references, causes) and relations, and `Reasons`' offsets, which
// it computes itself. Nothing here is indexed by a position read from input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids and relation indexes of the plan's snapshot index its per-object tables and relations"
)]

use super::mode::Mode;
use crate::analysis::cascade::{self, Cascade, Cause, Keep, KeptBy};
use crate::analysis::tracking::{tracker_of, Mark};

use crate::graph::Graph;
use crate::model::kube::{HelmHook, KappRule, KeepMark, Reclaim};
use crate::model::served::Unresolvable;
use crate::model::{
    ControllerEdge, DepKind, Identity, Link, ObjId, Object, RelKind, Relation, RuleEdge, Str, ToolOrder,
};
use rayon::prelude::*;
use std::collections::HashMap;

/// What names the objects and absent owners a reason points at.
#[derive(Clone, Copy)]
pub struct Names<'a> {
    pub refs: &'a crate::analysis::refs::Refs,
    pub owner_refs: &'a [String],
}

impl<'a> Names<'a> {
    pub fn of(&self, id: ObjId) -> &'a str {
        self.refs.name(id)
    }
    /// `id`'s reference as every output's `ref` holds it.
    pub fn at(&self, id: ObjId) -> super::reference::Ref<&'a str> {
        super::reference::Ref::new(self.of(id))
    }
    pub fn owner(&self, k: u32) -> &'a str {
        self.owner_refs.get(k as usize).map_or("", String::as_str)
    }
}

/// Where Murano's collection started, for an unreachable object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Root {
    /// `--root`.
    Object(ObjId),
    /// The root of the object's own model, by id.
    Named(Str),
    None,
}

/// Why the garbage collector takes an object (`--gc`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Garbage {
    /// It is being deleted: the field that says so (`deletionTimestamp`).
    BeingDeleted(&'static str),
    /// Its owner is not in the snapshot (`--closed-world`): an owner reference.
    OwnerNotInSnapshot(u32),
    /// Its owner is there with another uid.
    OwnerUidMismatch(ObjId),
    /// No object is at its owner's coordinates (the owner reference); the
    /// uid is this other object's.
    OwnerUidOfAnother {
        owner: u32,
        uid_of: ObjId,
    },
    /// Its owner is in another namespace.
    OwnerInOtherNamespace(ObjId),
    /// Its owner is being deleted.
    OwnerBeingDeleted(ObjId),
    NoOwnerLeft,
    /// In the copy of its object model, not in the model: the words that
    /// say so (its dialect's).
    RemovedFromModel(&'static str),
    /// Murano: not reachable from the root.
    Unreachable(Root),
    /// Mark stage: a versioned tracker of another generation than its Application's.
    OutdatedTracker {
        app: ObjId,
        generation: u64,
        current: u64,
    },
    /// Mark stage: the tracker's Application is being deleted.
    AppBeingDeleted(ObjId),
    /// Mark stage (`--closed-world`): the tracker's Application (namespace/name) is not in the snapshot.
    AppNotInSnapshot(Str),
    /// A component revision of this component, which no tracker that stays records.
    UnusedRevision(Str),
    /// A volume whose claim (`namespace/name` of its `claimRef`) is gone,
    /// reclaim policy `Delete`: the claim of that name is another one (its
    /// uid differs), or (`--closed-world`) the snapshot lacks it.
    ClaimGone {
        claim: Str,
        replaced: bool,
    },
}

impl Garbage {
    pub fn id(&self) -> &'static str {
        match self {
            Garbage::BeingDeleted(_) => "being-deleted",
            Garbage::OwnerNotInSnapshot(_) => "owner-not-in-snapshot",
            Garbage::OwnerUidMismatch(_) => "owner-uid-mismatch",
            Garbage::OwnerUidOfAnother { .. } => "owner-uid-of-another",
            Garbage::OwnerInOtherNamespace(_) => "owner-in-other-namespace",
            Garbage::OwnerBeingDeleted(_) => "owner-being-deleted",
            Garbage::NoOwnerLeft => "no-owner-left",
            Garbage::RemovedFromModel(_) => "removed-from-model",
            Garbage::Unreachable(_) => "unreachable",
            Garbage::OutdatedTracker { .. } => "outdated-tracker",
            Garbage::AppBeingDeleted(_) => "application-being-deleted",
            Garbage::AppNotInSnapshot(_) => "application-not-in-snapshot",
            Garbage::UnusedRevision(_) => "unused-component-revision",
            Garbage::ClaimGone { .. } => "claim-gone",
        }
    }
}

/// One reason a deleted object is in the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Selected by `--delete`.
    Target,
    /// `--prune`: NEW does not declare it.
    AbsentFromNew,
    OwnedBy(ObjId),
    /// A resource tracker (or an Application) that manages it.
    ManagedBy(ObjId),
    /// An application object whose controller deletes it when it is
    /// deleted (Argo CD, Flux, Helm, k3s, kapp-controller, Crossplane).
    ManagedThrough {
        app: ObjId,
        controller: crate::model::managed::Controller,
    },
    InNamespace(ObjId),
    DefinedBy(ObjId),
    /// Taken with this object by a destruction dependency.
    With(ObjId),
    Garbage(Garbage),
    /// It notifies this object of its destruction (Murano).
    Notifies(ObjId),
    DependsOn(ObjId),
    DestroyedAfter(ObjId),
    /// `--dialect pairs`: the first tokens written before it, and how many more.
    After {
        first: [ObjId; 3],
        shown: u8,
        more: u32,
    },
    /// It subscribed to this object's destruction (Murano).
    SubscribedTo(ObjId),
    WaitsFor {
        finalizer: Str,
        removed_by: Option<ObjId>,
    },
    /// A default rule decided its step: it goes right after this object.
    Rule {
        edge: RuleEdge,
        after: ObjId,
    },
    /// It takes a value from this object when it is applied (cli-utils
    /// `config.kubernetes.io/apply-time-mutation`): it goes first.
    MutatesFrom(ObjId),
    /// Another tool's metadata decided its step: it goes right after this
    /// object.
    Tool {
        why: ToolWhy,
        after: ObjId,
    },
    /// A Kubernetes controller deletes it once this object is gone (the
    /// endpoints controller a Service's Endpoints, the pod garbage
    /// collector a Node's Pods, the volume controller a claim's volume).
    Controller {
        edge: ControllerEdge,
        by: ObjId,
    },
}

/// What another tool's metadata says, for [`Reason::Tool`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolWhy {
    /// Argo CD: it is of sync wave `wave` of application `app`, and `after`
    /// of the higher wave `after_wave`.
    SyncWave { app: Str, wave: i32, after_wave: i32 },
    /// kapp: the change rule `rule` of `declared_by` (the object itself, or
    /// the one it goes after), against the change group of the other.
    KappRule { rule: KappRule, declared_by: ObjId },
    /// Flux: `after` names it in its `spec.dependsOn`.
    FluxDependsOn,
    /// Crossplane: `after` uses it, by this Usage.
    UsageBy { usage: ObjId },
    /// Crossplane: `after` is a Usage that protects it.
    UsageOf,
    /// Helm or kapp: it is the release's (app's) record, deleted after
    /// `after`, an object of it.
    Record(ToolOrder),
}

impl ToolWhy {
    pub fn order(&self) -> ToolOrder {
        match self {
            ToolWhy::SyncWave { .. } => ToolOrder::SyncWave,
            ToolWhy::KappRule { .. } => ToolOrder::KappRule,
            ToolWhy::FluxDependsOn => ToolOrder::FluxDependsOn,
            ToolWhy::UsageBy { .. } => ToolOrder::UsageBy,
            ToolWhy::UsageOf => ToolOrder::UsageOf,
            ToolWhy::Record(order) => *order,
        }
    }
}

/// Why an object is managed: by a tracker (KubeVela), or by an
/// application object through its controller.
fn managed_by(r: &Relation) -> Reason {
    match crate::analysis::managed::controller(r) {
        Some(controller) => Reason::ManagedThrough { app: r.from, controller },
        None => Reason::ManagedBy(r.from),
    }
}

impl Reason {
    pub fn id(&self) -> &'static str {
        match self {
            Reason::Target => "target",
            Reason::AbsentFromNew => "absent-from-new",
            Reason::OwnedBy(_) => "owned-by",
            Reason::ManagedBy(_) | Reason::ManagedThrough { .. } => "managed-by",
            Reason::InNamespace(_) => "in-namespace",
            Reason::DefinedBy(_) => "defined-by",
            Reason::With(_) => "with",
            Reason::Garbage(_) => "garbage",
            Reason::Notifies(_) => "notifies",
            Reason::DependsOn(_) => "depends-on",
            Reason::DestroyedAfter(_) => "destroyed-after",
            Reason::After { .. } => "after",
            Reason::SubscribedTo(_) => "subscribed-to",
            Reason::WaitsFor { .. } => "waits-for",
            Reason::Rule { .. } => "rule",
            Reason::MutatesFrom(_) => "apply-time-mutation",
            Reason::Tool { .. } => "tool",
            Reason::Controller { .. } => "controller",
        }
    }

    /// The object it points at, if one.
    pub fn object(&self) -> Option<ObjId> {
        match self {
            Reason::OwnedBy(x)
            | Reason::ManagedBy(x)
            | Reason::ManagedThrough { app: x, .. }
            | Reason::InNamespace(x)
            | Reason::DefinedBy(x)
            | Reason::With(x)
            | Reason::Notifies(x)
            | Reason::DependsOn(x)
            | Reason::DestroyedAfter(x)
            | Reason::SubscribedTo(x)
            | Reason::MutatesFrom(x)
            | Reason::Tool { after: x, .. }
            | Reason::Rule { after: x, .. }
            | Reason::Controller { by: x, .. } => Some(*x),
            Reason::Garbage(
                Garbage::OwnerUidMismatch(x)
                | Garbage::OwnerInOtherNamespace(x)
                | Garbage::OwnerBeingDeleted(x)
                | Garbage::OutdatedTracker { app: x, .. }
                | Garbage::AppBeingDeleted(x),
            ) => Some(*x),
            Reason::Garbage(Garbage::OwnerUidOfAnother { uid_of, .. }) => Some(*uid_of),
            Reason::WaitsFor { removed_by, .. } => *removed_by,
            _ => None,
        }
    }
}

/// Why a kept object stays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kept {
    /// This solid owner stays.
    StillOwnedBy(ObjId),
    /// This active resource tracker still manages it.
    StillManagedBy(ObjId),
    /// Its tracker's collector leaves it rather than deleting it: released
    /// (the tracker's record `skipGC`, the orphan finalizer, a rule's
    /// `propagation: orphan`), no longer its Application's, or shared.
    /// (`rule` names the rule: its policy and 1-based place there; `about`:
    /// for `NotOwned`, the Application its labels name; for `Shared`, its
    /// `app.oam.dev/shared-by`.)
    Released { tracker: ObjId, app: Option<ObjId>, keep: Keep, rule: Option<(Option<Str>, u32)>, about: Option<Str> },
    /// A cluster-scoped object with this namespaced owner is never collected.
    NamespacedOwner(ObjId),
    /// The same, for an owner reference (as written) to a namespaced kind
    /// whose object the snapshot lacks.
    NamespacedOwnerRef(Str),
    /// This owner is being deleted, but its collector is done with it: it
    /// no longer holds the finalizer the collector cascades through.
    CollectorDone { owner: ObjId, finalizers: &'static [&'static str] },
    /// Murano: `destroyed: true`.
    AlreadyDestroyed,
    /// Murano (`--gc`): the root still reaches it.
    Reachable,
    /// Murano (`--prune`): the new model still holds it.
    InNewModel,
    /// A namespace the API server refuses to delete, and how many objects
    /// in it the plan deletes.
    Protected { deleted_inside: u32 },
    /// `--gc` without `--closed-world`: this owner reference names an object
    /// the snapshot lacks; the cluster may have it.
    OwnerNotInSnapshot(u32),
    /// `--gc` without `--closed-world`: the claim this volume's `claimRef`
    /// names (`PersistentVolumeClaim/namespace/name`) is not in the
    /// snapshot; the cluster may have it.
    ClaimNotInSnapshot(Str),
    /// `--prune`: NEW declares it.
    DeclaredInNew,
    /// `--prune`: it holds this many objects NEW declares.
    HoldsNew(u32),
    /// Selected (not named), and this annotation tells its tool to leave it.
    Annotated(KeepMark),
    /// A Helm `pre-delete` or `post-delete` hook of this release (namespace,
    /// name), selected, not named: Helm creates and runs it on uninstall
    /// (`Plan::hooks` says where), it does not delete it.
    HelmHook { hook: HelmHook, release: (Str, Str) },
    /// Crossplane: this Usage refuses its deletion (an admission webhook),
    /// and stays; `by`: what uses it, which stays too.
    InUse { usage: ObjId, by: Option<ObjId>, reason: Option<Str> },
    /// A volume whose claim is deleted, and whose reclaim policy keeps it.
    Reclaim { claim: ObjId, policy: Reclaim },
    /// An owner reference the Kubernetes garbage collector cannot resolve
    /// (`owner`: `apiVersion Kind/name` as written; `why`: why not;
    /// `api_kind`: the reference's `apiVersion` and kind): the collector
    /// never collects the object, nor deletes it with any owner.
    UnresolvableOwner { owner: Str, why: Unresolvable, api_kind: Option<(Str, Str)> },
    /// An application object's controller leaves it when the application
    /// object is deleted (`app`, whose controller is `controller`).
    Managed { app: ObjId, controller: crate::model::managed::Controller, keep: crate::model::managed::Keep },
}

impl Kept {
    pub fn id(&self) -> &'static str {
        match self {
            Kept::StillOwnedBy(_) => "still-owned",
            Kept::StillManagedBy(_) => "still-managed",
            Kept::Released { keep: Keep::SkipGc, .. } => "skip-gc",
            Kept::Released { keep: Keep::Orphan { .. }, .. } => "kept-by-rule",
            Kept::Released { keep: Keep::OrphanFinalizer, .. } => "orphan-finalizer",
            Kept::Released { keep: Keep::NotOwned, .. } => "not-owned",
            Kept::Released { keep: Keep::Shared, .. } => "shared",
            Kept::NamespacedOwner(_) | Kept::NamespacedOwnerRef(_) => "namespaced-owner",
            Kept::CollectorDone { .. } => "collector-done",
            Kept::AlreadyDestroyed => "already-destroyed",
            Kept::Reachable => "reachable",
            Kept::InNewModel => "in-new-model",
            Kept::Protected { .. } => "protected-namespace",
            Kept::OwnerNotInSnapshot(_) => "owner-not-in-snapshot",
            Kept::ClaimNotInSnapshot(_) => "claim-not-in-snapshot",
            Kept::DeclaredInNew => "declared-in-new",
            Kept::HoldsNew(_) => "holds-new",
            Kept::Annotated(_) => "keep-annotation",
            Kept::HelmHook { .. } => "helm-hook",
            Kept::InUse { .. } => "in-use",
            Kept::Reclaim { .. } => "reclaim-policy",
            Kept::UnresolvableOwner { .. } => "unresolvable-owner",
            Kept::Managed { keep, .. } => keep.id(),
        }
    }

    /// What keeps it, by reference, if something does (JSON `keptBy`).
    pub fn keeper<'a>(&'a self, names: &Names<'a>) -> Option<&'a str> {
        match self {
            Kept::StillOwnedBy(x)
            | Kept::StillManagedBy(x)
            | Kept::NamespacedOwner(x)
            | Kept::CollectorDone { owner: x, .. }
            | Kept::Released { keep: Keep::SkipGc, tracker: x, .. }
            | Kept::Released { app: Some(x), .. }
            | Kept::InUse { usage: x, .. }
            | Kept::Managed { app: x, .. } => Some(names.of(*x)),
            Kept::Reclaim { claim: x, .. } => Some(names.of(*x)),
            Kept::OwnerNotInSnapshot(k) => Some(names.owner(*k)),
            Kept::ClaimNotInSnapshot(claim) | Kept::NamespacedOwnerRef(claim) => Some(claim),
            Kept::UnresolvableOwner { owner, .. } => Some(owner),
            _ => None,
        }
    }

    pub(super) fn from_cascade(
        id: ObjId,
        by: KeptBy,
        relations: &[Relation],
        objects: &[Object],
        unresolvable: impl Fn(ObjId, u32) -> Option<Unresolvable>,
    ) -> Kept {
        match by {
            KeptBy::SolidOwner(r) if relations[r as usize].kind == RelKind::Manages => {
                Kept::StillManagedBy(relations[r as usize].from)
            }
            KeptBy::SolidOwner(r) => Kept::StillOwnedBy(relations[r as usize].from),
            KeptBy::Released { relation, app, keep } => {
                let tracker = relations[relation as usize].from;
                use crate::analysis::tracking;
                let spec = app.and_then(|a| tracking::app_of(&objects[a.index()]));
                let rule = match keep {
                    Keep::Orphan { rule } => Some(rule),
                    // The rule that had it recorded so, if the policy still says it.
                    Keep::SkipGc => {
                        let r = &relations[relation as usize];
                        let record =
                            tracking::tracker_of(&objects[r.from.index()]).and_then(|t| t.managed.get(r.decl as usize));
                        record.zip(spec).and_then(|(m, s)| {
                            match tracking::find_strategy(s, &tracking::facts(m, Some(s), objects.get(id.index()))) {
                                Some((i, Some(crate::model::tracking::Strategy::Never))) => Some(i),
                                _ => None,
                            }
                        })
                    }
                    _ => None,
                }
                .and_then(|i| spec?.policy.rules.get(i as usize))
                .map(|r| (r.policy.clone(), r.index + 1));
                let o = &objects[id.index()];
                let about = match keep {
                    Keep::NotOwned => {
                        use crate::dialect::kubevela::labels;
                        match (o.label(labels::APP_NAMESPACE), o.label(labels::APP_NAME)) {
                            (Some(ns), Some(name)) if !ns.is_empty() && !name.is_empty() => {
                                Some(Str::from(format!("{ns}/{name}")))
                            }
                            _ => None,
                        }
                    }
                    Keep::Shared => o.tools().and_then(|t| t.kubevela_shared_by.clone()),
                    _ => None,
                };
                Kept::Released { tracker, app, keep, rule, about }
            }
            KeptBy::NamespacedOwner(r) => Kept::NamespacedOwner(relations[r as usize].from),
            KeptBy::NamespacedOwnerRef(j) => {
                Kept::NamespacedOwnerRef(objects[id.index()].owner_reference(j as usize).into())
            }
            KeptBy::CollectorDone(r) => Kept::CollectorDone {
                owner: relations[r as usize].from,
                finalizers: objects[relations[r as usize].from.index()].origin.collector.cascade_finalizers,
            },
            KeptBy::Managed { relation, keep } => {
                let r = &relations[relation as usize];
                let controller =
                    crate::analysis::managed::controller(r).unwrap_or(crate::model::managed::Controller::ArgoCd);
                Kept::Managed { app: r.from, controller, keep }
            }
            KeptBy::AlreadyDestroyed => Kept::AlreadyDestroyed,
            KeptBy::Reachable => Kept::Reachable,
            KeptBy::InNewModel => Kept::InNewModel,
            KeptBy::Protected { deleted_inside } => Kept::Protected { deleted_inside },
            KeptBy::OwnerNotInSnapshot(k) => Kept::OwnerNotInSnapshot(k),
            KeptBy::ClaimNotInSnapshot => Kept::ClaimNotInSnapshot(claim_of(&objects[id.index()])),
            KeptBy::DeclaredInNew => Kept::DeclaredInNew,
            KeptBy::HoldsNew(n) => Kept::HoldsNew(n),
            KeptBy::Annotated(m) => Kept::Annotated(m),
            KeptBy::HelmHook(hook) => {
                let release = objects.get(id.index()).and_then(|o| o.tools()).and_then(|t| t.helm_release.clone());
                Kept::HelmHook { hook, release: release.unwrap_or_else(|| (Str::from(""), Str::from(""))) }
            }
            KeptBy::InUse { usage, by } => {
                let spec = objects.get(usage.index()).and_then(|o| o.tools()).and_then(|t| t.usage.as_deref());
                Kept::InUse { usage, by, reason: spec.and_then(|u| u.reason.clone()) }
            }
            KeptBy::Reclaim(r) => {
                let r = &relations[r as usize];
                let volume = &objects[r.from.index()];
                let policy = volume.facts.as_deref().and_then(|f| f.reclaim_policy().as_deref());
                Kept::Reclaim { claim: r.to, policy: Reclaim::of(policy) }
            }
            KeptBy::UnresolvableOwner(j) => {
                let o = &objects[id.index()];
                let why = unresolvable(id, j).unwrap_or(Unresolvable::Undefined);
                let (owner, api_kind) = match o.owners.get(j as usize) {
                    Some(r) => (
                        format!("{} {}/{}", r.api_version, r.kind, r.name),
                        Some((Str::from(&*r.api_version), Str::from(&*r.kind))),
                    ),
                    None => (String::new(), None),
                };
                Kept::UnresolvableOwner { owner: owner.into(), why, api_kind }
            }
        }
    }
}

/// `PersistentVolumeClaim/namespace/name` of a volume's `claimRef`.
fn claim_of(volume: &Object) -> Str {
    match volume.facts.as_deref().and_then(|f| f.claim_ref().as_ref()) {
        Some((ns, name)) => Str::from(format!("PersistentVolumeClaim/{ns}/{name}")),
        None => Str::from(""),
    }
}

/// The reasons of every deleted object, stored flat by runs of
/// [`Reasons::RUN`] objects (each run made on its own thread, and kept as
/// made: no second copy of them all): `of(id)` is a slice.
#[derive(Clone, Debug, Default)]
pub struct Reasons {
    runs: Vec<ReasonRun>,
}

/// The reasons of a run of objects: where each object's start in `items`
/// (and, last, where they end).
#[derive(Clone, Debug, Default)]
struct ReasonRun {
    start: Vec<u32>,
    items: Vec<Reason>,
}

impl Reasons {
    const RUN: usize = 4096;

    /// The reasons of `id` (none when the plan was made without them).
    pub fn of(&self, id: ObjId) -> &[Reason] {
        let Some(run) = self.runs.get(id.index() / Self::RUN) else { return &[] };
        let k = id.index() % Self::RUN;
        match (run.start.get(k), run.start.get(k + 1)) {
            (Some(&a), Some(&b)) => run.items.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// What reasons are made from.
pub(super) struct Context<'a> {
    pub objects: &'a [Object],
    pub relations: &'a [Relation],
    pub graph: &'a Graph,
    pub cascade: &'a Cascade,
    pub mode: &'a Mode,
    pub root: Option<ObjId>,
    /// Each object's first owner reference naming no object, as an index
    /// into the plan's owner references.
    pub absent_owner: &'a HashMap<ObjId, u32>,
    /// (dependent, owner reference index) → index into the plan's owner references.
    pub owner_ref: &'a HashMap<(ObjId, u32), u32>,
    /// `--gc`: each resource tracker's Application and mark.
    pub marks: &'a HashMap<ObjId, (Option<ObjId>, Mark)>,
    /// Each object's relation to what goes right before it (the order's).
    pub after: &'a [Option<u32>],
}

/// The reasons of every deleted object, made in parallel.
pub(super) fn reasons(cx: &Context) -> Reasons {
    const RUN: usize = Reasons::RUN;
    let n = cx.objects.len();
    // Each thread makes a run's reasons in a buffer of its own, and the
    // run keeps an exact copy (grown, a run's vector would hold up to
    // twice what it needs).
    let runs = (0..n.div_ceil(RUN))
        .into_par_iter()
        .map_init(Vec::new, |scratch: &mut Vec<Reason>, c| {
            let range = c * RUN..((c + 1) * RUN).min(n);
            let mut start = Vec::with_capacity(range.len() + 1);
            start.push(0);
            // (Room for two reasons an object at once: most have one or
            // two; grown from nothing, the buffer was copied a dozen times.
            // It keeps its room from run to run.)
            scratch.reserve(2 * range.len());
            for i in range {
                if cx.cascade.cause[i].is_some() {
                    of(cx, ObjId(i as u32), scratch);
                }
                start.push(scratch.len() as u32);
            }
            let mut items = Vec::with_capacity(scratch.len());
            items.append(scratch);
            ReasonRun { start, items }
        })
        .collect();
    Reasons { runs }
}

/// Why `id` is deleted: how it got into the plan, what it depends on, what
/// it waits for.
fn of(cx: &Context, id: ObjId, out: &mut Vec<Reason>) {
    let from = out.len();
    cause(cx, id, out);
    dependencies(cx, id, from, out);
    after_pairs(cx, id, out);
    subscribed_to(cx, id, out);
    rule_or_tool(cx, id, from, out);
    waits_for(cx, id, out);
    // Two subscriptions of one pair are one notification.
    let mut kept = from;
    for r in from..out.len() {
        if kept == from || out.get(r) != out.get(kept - 1) {
            out.swap(kept, r); // kept <= r < out.len()
            kept += 1;
        }
    }
    out.truncate(kept);
}

/// How `id` got into the plan: a target, garbage, or taken with another
/// object by a relation.
fn cause(cx: &Context, id: ObjId, out: &mut Vec<Reason>) {
    let rels = cx.relations;
    match cx.cascade.cause[id.index()] {
        Some(Cause::Target) => match cx.mode {
            Mode::Delete(_) => out.push(Reason::Target),
            Mode::Prune(_) => out.push(Reason::AbsentFromNew),
            _ => out.extend(taken_with(cx, id)),
        },
        Some(Cause::Garbage(g)) => out.push(Reason::Garbage(garbage(cx, id, g))),
        Some(Cause::Relation(r)) => {
            let rel = &rels[r as usize];
            out.push(match rel.kind {
                RelKind::Owns => Reason::OwnedBy(rel.from),
                RelKind::Contains => Reason::InNamespace(rel.from),
                RelKind::Defines => Reason::DefinedBy(rel.from),
                RelKind::Manages => managed_by(rel),
                RelKind::Controller(edge) => Reason::Controller { edge, by: rel.taker() },
                RelKind::DestroyAfter
                | RelKind::Finalizer
                | RelKind::ComponentOrder
                | RelKind::Rule(_)
                | RelKind::Tool(_) => Reason::With(rel.from),
            });
        }
        None => {}
    }
}

/// A target of `--all`: what owns it, if anything does (the first as
/// written); else what a controller deletes it with.
fn taken_with(cx: &Context, id: ObjId) -> Option<Reason> {
    let rels = cx.relations;
    // (A relation `to` it is in the row into it: a self-loop is in both.)
    let first = cx
        .graph
        .into_of(id)
        .iter()
        .copied()
        .filter(|&r| {
            let r = &rels[r as usize];
            r.to == id && matches!(r.kind, RelKind::Owns | RelKind::Manages) && r.link == Link::Solid
        })
        .min();
    if let Some(r) = first {
        let r = &rels[r as usize];
        return Some(match r.kind {
            RelKind::Manages => managed_by(r),
            _ => Reason::OwnedBy(r.from),
        });
    }
    let taken = cx
        .graph
        .around(id)
        .filter(|&r| {
            let r = &rels[r as usize];
            r.kind.controller().is_some_and(ControllerEdge::cascades)
                && r.reaches().is_some_and(|(_, taken)| taken == id)
        })
        .min()?;
    match rels[taken as usize].kind {
        RelKind::Controller(edge) => Some(Reason::Controller { edge, by: rels[taken as usize].taker() }),
        _ => None,
    }
}

/// What `id`'s own dependencies say, in the order it writes them (the
/// reasons from `from` on are `id`'s).
fn dependencies(cx: &Context, id: ObjId, from: usize, out: &mut Vec<Reason>) {
    let rels = cx.relations;
    for (j, d) in cx.objects[id.index()].deps.iter().enumerate() {
        let target = cx
            .graph
            .around(id)
            .map(|r| &rels[r as usize])
            .find(|r| r.kind == RelKind::DestroyAfter && r.declared_by == id && r.decl == j as u32);
        let Some(target) = target else { continue };
        // A subscriber is named once, however many subscriptions it holds,
        // and only if it is told (a destroyed one hears nothing).
        let told = |a: ObjId| !cx.objects[a.index()].member.as_deref().is_some_and(|m| m.destroyed);
        let notifies = Reason::Notifies(target.from);
        if d.kind == DepKind::Notifies && (!told(target.from) || out.get(from..).is_some_and(|r| r.contains(&notifies)))
        {
            continue;
        }
        out.push(match d.kind {
            DepKind::Notifies => notifies,
            DepKind::DependsOn => Reason::DependsOn(target.from),
            DepKind::DestroyAfter => Reason::DestroyedAfter(target.to),
            DepKind::ApplyTimeMutation => Reason::MutatesFrom(target.from),
        });
    }
}

/// A token of tsort pairs: the first few it goes after, and how many more.
fn after_pairs(cx: &Context, id: ObjId, out: &mut Vec<Reason>) {
    if cx.objects[id.index()].identity() != Identity::Token {
        return;
    }
    let rels = cx.relations;
    let mut before: Vec<u32> = cx
        .graph
        .around(id)
        .filter(|&r| {
            let r = &rels[r as usize];
            r.kind == RelKind::DestroyAfter && r.from == id
        })
        .collect();
    if before.is_empty() {
        return;
    }
    before.sort_unstable();
    let mut first = [ObjId(0); 3];
    for (slot, &r) in first.iter_mut().zip(&before) {
        *slot = rels[r as usize].to;
    }
    let shown = before.len().min(3);
    out.push(Reason::After { first, shown: shown as u8, more: (before.len() - shown) as u32 });
}

/// What it subscribed to: relations declared by what notifies it, each
/// publisher once.
fn subscribed_to(cx: &Context, id: ObjId, out: &mut Vec<Reason>) {
    let rels = cx.relations;
    // (A relation `from` it is in the row out of it: a self-loop, in both,
    // names one publisher.)
    let mut subscribed: Vec<u32> = cx
        .graph
        .out_of(id)
        .iter()
        .copied()
        .filter(|&r| {
            let r = &rels[r as usize];
            r.kind == RelKind::DestroyAfter
                && r.from == id
                && cx.objects[r.declared_by.index()]
                    .deps
                    .get(r.decl as usize)
                    .is_some_and(|d| d.kind == DepKind::Notifies)
        })
        .collect();
    subscribed.sort_unstable();
    let mut publishers: Vec<ObjId> = subscribed.into_iter().map(|r| rels[r as usize].to).collect();
    let mut seen = rustc_hash::FxHashSet::default();
    publishers.retain(|p| seen.insert(*p));
    out.extend(publishers.into_iter().map(Reason::SubscribedTo));
}

/// A default rule, or another tool's metadata, that decided its step
/// (unless a controller's cascade from the same object already says it:
/// a volume after its claim).
fn rule_or_tool(cx: &Context, id: ObjId, from: usize, out: &mut Vec<Reason>) {
    let rels = cx.relations;
    let Some(r) = cx.after.get(id.index()).copied().flatten().map(|r| &rels[r as usize]) else { return };
    let said = |x: &Reason| matches!(x, Reason::Controller { by, .. } if *by == r.to);
    if let Some(edge) = r.kind.rule().filter(|_| !out.iter().skip(from).any(said)) {
        out.push(Reason::Rule { edge, after: r.to });
    }
    if let (Some(edge), true) = (r.kind.tool(), cx.cascade.deleted(r.to)) {
        if let Some(why) = tool_why_of(cx.objects, edge.order, id, r) {
            out.push(Reason::Tool { why, after: r.to });
        }
    }
}

/// The finalizers it waits for, each with the object whose controller
/// removes it, when one is known.
fn waits_for(cx: &Context, id: ObjId, out: &mut Vec<Reason>) {
    let (o, rels) = (&cx.objects[id.index()], cx.relations);
    for f in o.finalizers.iter().filter(|f| crate::dialect::waits_for_finalizer(o, f)) {
        let controller = cx.graph.around(id).map(|r| &rels[r as usize]).find(|r| {
            r.kind == RelKind::Finalizer && r.to == id && o.finalizers.get(r.decl as usize).is_some_and(|x| x == f)
        });
        out.push(Reason::WaitsFor { finalizer: f.clone(), removed_by: controller.map(|r| r.from) });
    }
}

/// What another tool says that puts `id` right after `r.to` (`r` the
/// order's relation; through a hub, its `from` is another object).
fn tool_why_of(objects: &[Object], order: ToolOrder, id: ObjId, r: &Relation) -> Option<ToolWhy> {
    let other = objects[r.to.index()].tools();
    let me = || objects[id.index()].tools();
    Some(match order {
        ToolOrder::FluxDependsOn => ToolWhy::FluxDependsOn,
        ToolOrder::UsageBy => ToolWhy::UsageBy { usage: r.declared_by },
        ToolOrder::UsageOf => ToolWhy::UsageOf,
        ToolOrder::HelmRecord | ToolOrder::KappRecord => ToolWhy::Record(order),
        ToolOrder::SyncWave => {
            let me = me()?;
            ToolWhy::SyncWave {
                app: me.argocd_app.clone()?,
                wave: me.wave(),
                after_wave: other.map_or(0, |t| t.wave()),
            }
        }
        ToolOrder::KappRule => {
            let (me, other) = (me()?, other?);
            let in_group = |t: &crate::model::kube::Tools, g: &str| {
                t.kapp_app == me.kapp_app && t.kapp_groups.iter().any(|x| &**x == g)
            };
            // Its own rule puts it after the other's group, or the other's
            // rule puts the other before its group.
            let mine =
                crate::analysis::tools::kapp_rules(me).find(|(rule, after)| *after && in_group(other, &rule.group));
            let theirs =
                || crate::analysis::tools::kapp_rules(other).find(|(rule, after)| !*after && in_group(me, &rule.group));
            match (mine, theirs()) {
                (Some((rule, _)), _) => ToolWhy::KappRule { rule: rule.clone(), declared_by: id },
                (None, Some((rule, _))) => ToolWhy::KappRule { rule: rule.clone(), declared_by: r.to },
                (None, None) => return None,
            }
        }
    })
}

/// Why the collector takes `id`, with what its owner references say.
fn garbage(cx: &Context, id: ObjId, g: cascade::Garbage) -> Garbage {
    match g {
        cascade::Garbage::BeingDeleted => Garbage::BeingDeleted(cx.objects[id.index()].origin.fields.deleted),
        cascade::Garbage::RemovedFromModel => {
            Garbage::RemovedFromModel(cx.objects[id.index()].origin.fields.models.removed)
        }
        cascade::Garbage::Tracker => match cx.marks.get(&id) {
            Some((Some(app), Mark::Outdated { generation, current })) => {
                Garbage::OutdatedTracker { app: *app, generation: *generation, current: *current }
            }
            Some((_, Mark::AppDeleted(app))) => Garbage::AppBeingDeleted(*app),
            _ => {
                let app = tracker_of(&cx.objects[id.index()]).map(|t| {
                    let ns = t.app.namespace.as_deref().unwrap_or("");
                    Str::from(format!("{}.{}/{ns}/{}", t.app.kind, t.app.group, t.app.name))
                });
                Garbage::AppNotInSnapshot(app.unwrap_or_else(|| Str::from("")))
            }
        },
        cascade::Garbage::UnusedRevision => {
            let component = cx.graph.dependencies(id).into_iter().find_map(|r| {
                let r = &cx.relations[r as usize];
                let t = tracker_of(&cx.objects[r.from.index()])?;
                t.managed.get(r.decl as usize).filter(|_| r.kind == RelKind::Manages)?.component.clone()
            });
            Garbage::UnusedRevision(component.unwrap_or_else(|| Str::from("")))
        }
        cascade::Garbage::VolumeReleased { replaced } => {
            let o = &cx.objects[id.index()];
            Garbage::ClaimGone { claim: claim_of(o), replaced }
        }
        cascade::Garbage::Unreachable => {
            let model_root = cx.objects[id.index()].member.as_deref().and_then(|m| m.model_root.clone());
            Garbage::Unreachable(match (cx.root, model_root) {
                (Some(r), _) => Root::Object(r),
                (None, Some(r)) => Root::Named(r),
                (None, None) => Root::None,
            })
        }
        cascade::Garbage::NoSolidOwner => {
            if let Some(&k) = cx.absent_owner.get(&id) {
                return Garbage::OwnerNotInSnapshot(k);
            }
            let broken = cx
                .graph
                .dependencies(id)
                .into_iter()
                .map(|r| &cx.relations[r as usize])
                .find(|r| r.kind == RelKind::Owns);
            match broken {
                Some(r) if r.link == Link::UidMismatch => Garbage::OwnerUidMismatch(r.from),
                Some(r) if r.link == Link::OtherCoordinates => Garbage::OwnerUidOfAnother {
                    owner: cx.owner_ref.get(&(r.to, r.decl)).copied().unwrap_or(u32::MAX),
                    uid_of: r.from,
                },
                Some(r) if r.link == Link::CrossNamespace => Garbage::OwnerInOtherNamespace(r.from),
                Some(r) => Garbage::OwnerBeingDeleted(r.from),
                None => Garbage::NoOwnerLeft,
            }
        }
    }
}
