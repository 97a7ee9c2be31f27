//! Making a plan: seeds by mode, what is spared, the cascade, the order,
//! then the plan's reasons, warnings and events.

// No-panic lints (issue 19): this module indexes dense tables only: object
// ids and relation indexes of the snapshot the plan is built from (and of
// the relations built here from it), into per-object and per-relation
// tables of that snapshot. Nothing here is indexed by a position read from
// input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids and relation indexes of the snapshot being planned index its per-object and per-relation tables"
)]

use super::reasons::{self, Kept};
use super::warnings::{self, Warning};
use super::{events, HookRun, Input, Mode, Options, Plan, PlanError};
use crate::analysis::cascade::{self, Cascade, Cause, KeptBy};
use crate::analysis::gc;
use crate::analysis::order::{self, Order};
use crate::analysis::refs::Refs;
use crate::analysis::rules;
use crate::analysis::tools;
use crate::analysis::tracking;
use crate::graph::cycles;
use crate::graph::{Graph, LazyGraph};
use crate::load::Snapshot;
use crate::model::kube::protected_namespace;
use crate::model::{Link, ModelKeys, ObjId, Object, RelKind, Relation};
use rayon::prelude::*;
use std::collections::HashMap;

/// Objects no plan deletes, whatever selects or reaches them, and why:
/// protected namespaces; under `--gc` without `--closed-world`, objects
/// whose owner is missing from the snapshot (the cluster may have it);
/// under `--prune`, what NEW declares and the Namespaces and CRDs that
/// hold it (cli-utils skips them).
fn spare(
    snapshot: &Snapshot,
    options: &Options,
    relations: &[Relation],
    owners: &OwnerRefs,
    released: &[(ObjId, cascade::Garbage)],
    unresolvable: &[Option<u32>],
    present: Present,
) -> Vec<Option<KeptBy>> {
    let objects = &snapshot.objects;
    // (Only a Kubernetes object is a protected namespace.)
    let mut spare: Vec<Option<KeptBy>> = match present.kubernetes {
        true => objects
            .iter()
            .map(|o| {
                (o.is_kubernetes() && protected_namespace(&o.group, &o.kind, &o.name))
                    .then_some(KeptBy::Protected { deleted_inside: 0 })
            })
            .collect(),
        false => vec![None; objects.len()],
    };
    // The collector never collects an object with an owner reference it
    // cannot resolve: it retries it forever. (Not one already being
    // deleted: that goes whatever its owners.)
    if options.mode == Mode::Gc {
        for (i, j) in unresolvable.iter().enumerate() {
            if let (Some(j), None) = (j, &objects[i].deletion_timestamp) {
                spare[i].get_or_insert(KeptBy::UnresolvableOwner(*j));
            }
        }
    }
    if options.mode == Mode::Gc && !options.closed_world {
        // (Not one already being deleted: it goes whatever its owners.)
        for (&id, &k) in &owners.absent {
            if objects[id.index()].deletion_timestamp.is_none() {
                spare[id.index()].get_or_insert(KeptBy::OwnerNotInSnapshot(k));
            }
        }
        for &(id, why) in released {
            if why == (cascade::Garbage::VolumeReleased { replaced: false }) {
                spare[id.index()].get_or_insert(KeptBy::ClaimNotInSnapshot);
            }
        }
    }
    if matches!(options.mode, Mode::Prune(_)) {
        let declared = &options.declared_in_new;
        let mut holds = vec![0u32; objects.len()];
        for r in relations.iter().filter(|r| matches!(r.kind, RelKind::Contains | RelKind::Defines)) {
            if declared.get(r.to.index()).copied().unwrap_or(false) {
                holds[r.from.index()] += 1;
            }
        }
        for (i, s) in spare.iter_mut().enumerate() {
            if objects[i].member.is_some() {
                continue; // Murano's prune has its own rule: see `build`
            }
            if declared.get(i).copied().unwrap_or(false) {
                s.get_or_insert(KeptBy::DeclaredInNew);
            } else if holds[i] > 0 {
                s.get_or_insert(KeptBy::HoldsNew(holds[i]));
            }
        }
    }
    spare
}

/// What a tool's annotation would keep of `o`, or a Helm `pre-delete` /
/// `post-delete` hook, in this mode. Under `--gc` nothing: the garbage
/// collector reads no annotation.
fn soft_keep(o: &Object, mode: &Mode) -> Option<KeptBy> {
    if *mode == Mode::Gc {
        return None;
    }
    let t = o.tools().filter(|_| o.is_kubernetes())?;
    t.keep(matches!(mode, Mode::Prune(_))).map(KeptBy::Annotated).or_else(|| t.delete_hook().map(KeptBy::HelmHook))
}

/// Deleted objects whose annotation tells their tool to leave them (the
/// annotation only stops that tool), and Namespaces and CRDs that never
/// finish because a Crossplane Usage keeps what they hold.
fn keep_warnings(
    objects: &[Object],
    relations: &[Relation],
    cascade: &Cascade,
    mode: &Mode,
    graph: &LazyGraph,
    tools: bool,
) -> Vec<Warning> {
    let prune = matches!(mode, Mode::Prune(_));
    let mut out = Vec::new();
    // (Only a tool's annotation marks an object to keep.)
    for (i, cause) in cascade.cause.iter().enumerate().filter(|_| tools) {
        let Some(cause) = cause else { continue };
        let o = &objects[i];
        let Some(mark) = o.tools().filter(|_| o.is_kubernetes()).and_then(|t| t.keep(prune)) else { continue };
        let by = match *cause {
            Cause::Target => warnings::Ignored::Named,
            Cause::Garbage(_) => warnings::Ignored::Collector,
            Cause::Relation(r) => warnings::Ignored::With(relations[r as usize].kind, relations[r as usize].from),
        };
        out.push(Warning::KeepIgnored { object: ObjId(i as u32), mark, by });
    }
    for &(id, by) in &cascade.kept {
        let KeptBy::InUse { usage, .. } = by else { continue };
        for r in graph.get(relations).dependencies(id) {
            let r = &relations[r as usize];
            if matches!(r.kind, RelKind::Contains | RelKind::Defines) && cascade.deleted(r.from) {
                out.push(Warning::Hangs { holder: r.from, object: id, usage });
            }
        }
    }
    out
}

/// Helm's hooks of the releases the plan deletes: each `pre-delete` hook
/// that the plan holds (selected, not named; kept as a hook, or for a keep
/// annotation) or takes with something else
/// runs before the first step that deletes an object of its release, each
/// `post-delete` hook after the last; in Helm's order (pkg/action/hooks.go:
/// weight, then kind in Helm's install order, then name).
fn hook_runs(
    objects: &[Object],
    cascade: &Cascade,
    order: &Order,
    held: &[(ObjId, KeptBy)],
    rank: &[u32],
) -> Vec<HookRun> {
    use crate::model::kube::HelmHook;
    let hook = |id: ObjId| objects[id.index()].tools().and_then(|t| t.delete_hook());
    let hooks: Vec<(ObjId, HelmHook)> = held
        .iter()
        .filter(|&&(id, _)| !cascade.deleted(id))
        .filter_map(|&(id, _)| hook(id).map(|h| (id, h)))
        .chain(cascade.cause.iter().enumerate().filter_map(|(i, c)| {
            let taken = matches!(c, Some(Cause::Relation(_)));
            let h = objects[i].tools().filter(|_| taken).and_then(|t| t.delete_hook())?;
            Some((ObjId(i as u32), h))
        }))
        .collect();
    if hooks.is_empty() {
        return Vec::new();
    }
    // Each release's first and last step.
    let mut span: HashMap<(&str, &str), (u32, u32)> = HashMap::new();
    for (i, o) in objects.iter().enumerate() {
        let Some(t) = o.tools().filter(|_| cascade.cause[i].is_some()) else { continue };
        let Some((ns, name)) = t.helm_release.as_ref().filter(|_| t.delete_hook().is_none()) else { continue };
        let s = order.step[i];
        let e = span.entry((ns, name)).or_insert((s, s));
        *e = (e.0.min(s), e.1.max(s));
    }
    let mut runs: Vec<(HookRun, (usize, &str, u32))> = hooks
        .into_iter()
        .filter_map(|(id, hook)| {
            let o = &objects[id.index()];
            let t = o.tools()?;
            let (ns, name) = t.helm_release.clone()?;
            let &(first, last) = span.get(&(&*ns, &*name))?;
            let step = match hook {
                HelmHook::PostDelete => last,
                _ => first,
            };
            let kind = tools::helm_install_order(&o.kind);
            let run = HookRun { object: id, hook, release: (ns, name), weight: t.hook_weight, step };
            Some((run, (kind, &*o.kind, rank[id.index()])))
        })
        .collect();
    // Where it runs (before step s, after step s: before step s + 1), then
    // the release, then Helm's order.
    runs.sort_by(|(a, ka), (b, kb)| {
        let at = |r: &HookRun| (r.step, r.hook == HelmHook::PostDelete);
        at(a)
            .cmp(&at(b))
            .then_with(|| a.release.cmp(&b.release))
            .then_with(|| a.weight.cmp(&b.weight))
            .then_with(|| ka.0.cmp(&kb.0))
            .then_with(|| ka.1.cmp(kb.1))
            .then_with(|| objects[a.object.index()].name.cmp(&objects[b.object.index()].name))
            .then_with(|| ka.2.cmp(&kb.2))
    });
    runs.into_iter().map(|(r, _)| r).collect()
}

/// Destruction dependencies `--finalizer-controller` adds: the controller
/// is destroyed after every object carrying its finalizer.
pub fn finalizer_relations(objects: &[Object], controllers: &[(String, Vec<ObjId>)]) -> Vec<Relation> {
    let mut out = Vec::new();
    if controllers.is_empty() {
        return out;
    }
    for (i, o) in objects.iter().enumerate() {
        for (fi, f) in o.finalizers.iter().enumerate() {
            for (name, ctl) in controllers {
                if **f != **name {
                    continue;
                }
                for &c in ctl {
                    if c.index() != i {
                        out.push(Relation {
                            kind: RelKind::Finalizer,
                            from: c,
                            to: ObjId(i as u32),
                            link: Link::Solid,
                            declared_by: ObjId(i as u32),
                            decl: fi as u32,
                            controller: false,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Make a plan, phase by phase: the relations every phase reads, what the
/// cascade takes, the rules that order it, the order and its steps, the
/// warnings, and what the plan says of each object.
pub fn build(snapshot: &Snapshot, options: &Options) -> Result<Plan, PlanError> {
    build_from(snapshot, snapshot.resolved.relations.clone(), options).map_err(|made| made.0)
}

/// [`build`] from the snapshot's relations, taken out of it rather than
/// copied: the plan holds them, first of its own (a million objects' are
/// tens of megabytes). A plan that cannot be made gives them back, as
/// they were.
pub fn build_from(
    snapshot: &Snapshot,
    relations: Vec<Relation>,
    options: &Options,
) -> Result<Plan, Box<(PlanError, Vec<Relation>)>> {
    let mut t = crate::timing::Timer::start();
    let mut base = base(snapshot, relations, options, &mut t);
    match phases(snapshot, options, &mut base, &mut t) {
        Ok(Phases { taken, lazy, order, steps, warnings }) => {
            Ok(describe(snapshot, options, base, taken, lazy, order, steps, warnings, &mut t))
        }
        Err(e) => {
            let mut relations = base.relations;
            relations.truncate(base.snapshot_relations);
            Err(Box::new((e, relations)))
        }
    }
}

/// What the phases that may stop the plan make.
struct Phases {
    taken: Taken,
    lazy: LazyGraph,
    order: Order,
    steps: Vec<Vec<ObjId>>,
    warnings: Vec<Warning>,
}

/// The phases that may stop the plan: what a tracking application's
/// collector collects, the cascade, the rules, the order and its steps,
/// the warnings. (Relations are only ever added to `base`'s.)
fn phases(
    snapshot: &Snapshot,
    options: &Options,
    base: &mut Base,
    t: &mut crate::timing::Timer,
) -> Result<Phases, PlanError> {
    collection(snapshot, options, base)?;
    let lazy = LazyGraph::new(snapshot.objects.len());
    let taken = take(snapshot, options, base, &lazy)?;
    t.lap("  cascade");
    let in_set: Vec<bool> = taken.cascade.cause.iter().map(Option::is_some).collect();
    let lazy = add_rules(&snapshot.objects, &snapshot.resolved.managed, options, base, &in_set, &taken.usages, lazy);
    t.lap("  rules");
    let order = order_of(&snapshot.objects, options, base, &in_set, &lazy)?;
    t.lap("  order");
    let steps = steps(&order, &in_set, base)?;
    let warnings = plan_warnings(snapshot, options, base, &taken, &order, &in_set, &lazy)?;
    Ok(Phases { taken, lazy, order, steps, warnings })
}

/// What every phase reads: the relations (the snapshot's, the finalizers'
/// and a tracking application's component order), each object's reference
/// and rank, and what a tracking application's collector collects.
struct Base {
    relations: Vec<Relation>,
    /// How many of `relations` are the snapshot's (the first).
    snapshot_relations: usize,
    refs: Refs,
    rank: Vec<u32>,
    present: Present,
    collection: Option<tracking::Collection>,
}

/// What the snapshot holds that a phase looks for, found in one pass: a
/// phase that can only find something in Kubernetes objects, in tools'
/// annotations (on Kubernetes objects), in an object model's members or in
/// tracked objects is not run when there are none (a million tsort pairs
/// hold none of them; each pass over a million objects costs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Present {
    kubernetes: bool,
    /// A Kubernetes object with tools' annotations.
    tools: bool,
    members: bool,
    tracking: bool,
    /// Some object goes with the first of its owners that goes (its
    /// dialect's collector says so); every object does.
    any_owner: bool,
    every_any_owner: bool,
}

impl Present {
    const NONE: Present = Present {
        kubernetes: false,
        tools: false,
        members: false,
        tracking: false,
        any_owner: false,
        every_any_owner: true,
    };

    fn of(objects: &[Object]) -> Present {
        let one = |o: &Object| Present {
            kubernetes: o.is_kubernetes(),
            tools: o.is_kubernetes() && o.tools().is_some(),
            members: o.member.is_some(),
            tracking: o.tracking.is_some(),
            any_owner: o.origin.collector.any_owner,
            every_any_owner: o.origin.collector.any_owner,
        };
        let or = |a: Present, b: Present| Present {
            kubernetes: a.kubernetes || b.kubernetes,
            tools: a.tools || b.tools,
            members: a.members || b.members,
            tracking: a.tracking || b.tracking,
            any_owner: a.any_owner || b.any_owner,
            every_any_owner: a.every_any_owner && b.every_any_owner,
        };
        objects.par_iter().map(one).reduce(|| Present::NONE, or)
    }
}

/// Phase 1: [`Base`], from the snapshot's relations, without what a
/// tracking application's collector collects.
fn base(snapshot: &Snapshot, mut relations: Vec<Relation>, options: &Options, t: &mut crate::timing::Timer) -> Base {
    let objects = &snapshot.objects;
    let snapshot_relations = relations.len();
    // Room for the default rules' edges (about one per namespaced object
    // when their namespaces go), made now while little else is held: added
    // later, they would copy every relation while the plan holds the most.
    relations.reserve(objects.len());
    relations.extend(finalizer_relations(objects, &options.finalizer_controllers));
    let refs = Refs::of(objects);
    t.lap("  refs");
    let rank = order::ranks_of(&refs);
    t.lap("  rank");
    let present = Present::of(objects);
    Base { relations, snapshot_relations, refs, rank, present, collection: None }
}

/// What a tracking application's collector collects, into `base`. An
/// Application whose collector cannot tell what it collects stops the plan.
fn collection(snapshot: &Snapshot, options: &Options, base: &mut Base) -> Result<(), PlanError> {
    let objects = &snapshot.objects;
    if !base.present.tracking {
        return Ok(());
    }
    let c = match tracking::collect(objects, &base.relations, options.mode == Mode::Gc, options.closed_world) {
        Ok(c) => c,
        Err(tracking::Unknowable::NoGeneration { app, trackers }) => {
            return Err(PlanError::NoGeneration { app: base.refs.name(app).to_owned(), trackers })
        }
        Err(tracking::Unknowable::Listing(broken)) => return Err(listing_error(&broken, &base.refs)),
    };
    // A component revision goes after the trackers that recorded its
    // component (declared by the component-revision tracker).
    base.relations.extend(
        c.after.iter().map(|&(revision, t, cr)| Relation::solid(RelKind::ComponentOrder, revision, t, cr, u32::MAX)),
    );
    base.collection = Some(c);
    Ok(())
}

/// What the cascade took, and what it was run with.
struct Taken {
    cascade: Cascade,
    /// Seeds a tool's annotation or a Helm hook holds back.
    held: Vec<(ObjId, KeptBy)>,
    gates: Vec<Option<cascade::Gate>>,
    multi_owner: cascade::MultiOwner,
    owners: OwnerRefs,
    usages: Vec<tools::UsageLink>,
}

/// Phase 2: the cascade from the mode's seeds, with what is spared and
/// held, until Crossplane's Usages keep nothing more; then what it keeps.
fn take(snapshot: &Snapshot, options: &Options, base: &Base, lazy: &LazyGraph) -> Result<Taken, PlanError> {
    let objects = &snapshot.objects;
    let relations = &base.relations;
    let released = match options.mode {
        Mode::Gc => cascade::released_volumes(objects),
        _ => Vec::new(),
    };
    let seeds = seeds(objects, options, base, lazy, &released);
    let present = base.present;
    let multi_owner =
        options.multi_owner.unwrap_or_else(|| cascade::MultiOwner::when(present.any_owner, present.every_any_owner));
    let owners = OwnerRefs::new(snapshot, &options.mode, relations);
    // Owner references the collector cannot resolve (a type nothing
    // defines only under --closed-world): it never takes their objects.
    let unresolvable = snapshot.resolved.unresolvable_by_object(objects.len(), options.closed_world);
    let mut spare = spare(snapshot, options, relations, &owners, &released, &unresolvable, base.present);
    let mut gates = base.collection.as_ref().map(|c| c.gates.clone()).unwrap_or_default();
    crate::analysis::managed::gates(&snapshot.resolved.managed, &mut gates, relations.len());
    // (Only tools' annotations hold a seed, or declare a Usage.)
    let (held, seeds) = match base.present.tools {
        true => hold(objects, options, seeds),
        false => (Vec::new(), seeds),
    };
    let usages = match base.present.tools {
        true => tools::usages(objects),
        false => Vec::new(),
    };
    let run_cascade = |spare: &[Option<KeptBy>]| match (&options.mode, held.is_empty()) {
        (Mode::All, true) => cascade::everything(vec![Some(Cause::Target); objects.len()], spare),
        _ => cascade::cascade(
            objects,
            relations,
            lazy.get(relations),
            &seeds,
            spare,
            &cascade::Options {
                cascade: options.cascade,
                multi_owner,
                gates: gates.clone(),
                unresolvable: unresolvable.clone(),
            },
            &base.rank,
        ),
    };
    let mut cascade = run_cascade(&spare);
    // Crossplane: the API refuses to delete a Usage's `of` while the Usage
    // stays and its `by` does too. Keeping it can keep more (what it
    // holds): until nothing changes, at most once per Usage.
    for _ in 0..=usages.len() {
        let mut blocked = false;
        for u in &usages {
            let Some(of) = u.of else { continue };
            let by_goes = u.by.is_some_and(|b| cascade.deleted(b));
            if cascade.deleted(of) && !cascade.deleted(u.usage) && !by_goes && spare[of.index()].is_none() {
                spare[of.index()] = Some(KeptBy::InUse { usage: u.usage, by: u.by });
                blocked = true;
            }
        }
        if !blocked {
            break;
        }
        cascade = run_cascade(&spare);
    }
    settle(objects, options, base, lazy, &held, &mut cascade)?;
    cascade.kept.sort_by_key(|(id, _)| base.rank[id.index()]);
    cascade.orphaned.sort_by_key(|(id, _)| base.rank[id.index()]);
    Ok(Taken { cascade, held, gates, multi_owner, owners, usages })
}

/// Where the cascade starts: the targets, everything, or (`--gc`) what
/// the collectors would take now.
fn seeds(
    objects: &[Object],
    options: &Options,
    base: &Base,
    lazy: &LazyGraph,
    released: &[(ObjId, cascade::Garbage)],
) -> Vec<(ObjId, Cause)> {
    let relations = &base.relations;
    match &options.mode {
        Mode::Delete(targets) | Mode::Prune(targets) => targets.iter().map(|&t| (t, Cause::Target)).collect(),
        // (Made only when something is held: else `take` takes everything.)
        Mode::All => Vec::new(),
        Mode::Gc => {
            let roots = match options.root {
                Some(r) => vec![r],
                None => gc::default_roots(objects),
            };
            let mut seeds = cascade::gc_seeds(objects, relations, lazy.get(relations));
            seeds.extend(gc::seeds(objects, relations, &roots));
            seeds.extend(released.iter().copied());
            seeds.extend(base.collection.iter().flat_map(|c| c.seeds.iter().copied()));
            seeds.sort_by_key(|&(id, _)| id);
            seeds.dedup_by_key(|&mut (id, _)| id);
            seeds.sort_by_key(|&(id, _)| id);
            seeds.into_iter().map(|(id, why)| (id, Cause::Garbage(why))).collect()
        }
    }
}

/// What a tool's annotation keeps, or a Helm hook: selected, not named, it
/// is no seed (held); the cascade may still take it (it is not spared).
/// The held seeds, and the seeds left.
#[allow(clippy::type_complexity)]
fn hold(
    objects: &[Object],
    options: &Options,
    seeds: Vec<(ObjId, Cause)>,
) -> (Vec<(ObjId, KeptBy)>, Vec<(ObjId, Cause)>) {
    let named = |id: ObjId| options.named.binary_search(&id).is_ok();
    let keep = |id: ObjId| soft_keep(&objects[id.index()], &options.mode).filter(|_| !named(id)).map(|k| (id, k));
    let mut held: Vec<(ObjId, KeptBy)> = match options.mode {
        // `--all`: every object is a seed (made below when one is held).
        Mode::All => (0..objects.len() as u32).filter_map(|i| keep(ObjId(i))).collect(),
        _ => seeds.iter().filter_map(|&(id, _)| keep(id)).collect(),
    };
    held.sort_by_key(|h| h.0);
    held.dedup_by_key(|h| h.0);
    let seeds: Vec<(ObjId, Cause)> = match (held.is_empty(), &options.mode) {
        (true, _) => seeds,
        (false, Mode::All) => (0..objects.len() as u32)
            .map(ObjId)
            .filter(|id| held.binary_search_by_key(id, |h| h.0).is_err())
            .map(|id| (id, Cause::Target))
            .collect(),
        (false, _) => seeds.into_iter().filter(|(id, _)| held.binary_search_by_key(id, |h| h.0).is_err()).collect(),
    };
    (held, seeds)
}

/// What the cascade keeps once it is done: held objects it did not take,
/// how much of a kept protected namespace goes, Murano's destroyed and
/// reachable objects, KubeVela's shared ones. An Application whose
/// trackers its keeper refuses to list stops the plan.
fn settle(
    objects: &[Object],
    options: &Options,
    base: &Base,
    lazy: &LazyGraph,
    held: &[(ObjId, KeptBy)],
    cascade: &mut Cascade,
) -> Result<(), PlanError> {
    let relations = &base.relations;
    // Held objects the cascade did not take: kept, for their annotation.
    if !held.is_empty() {
        let kept_by: HashMap<ObjId, KeptBy> =
            held.iter().filter(|(id, _)| !cascade.deleted(*id)).map(|&(id, k)| (id, k)).collect();
        cascade.kept.retain(|(id, _)| !kept_by.contains_key(id));
        cascade.kept.extend(kept_by);
    }
    // A protected namespace kept: how much of what it holds goes.
    for (id, by) in cascade.kept.iter_mut() {
        if let KeptBy::Protected { deleted_inside } = by {
            *deleted_inside = lazy
                .get(relations)
                .dependents(*id)
                .into_iter()
                .filter(|&r| relations[r as usize].kind == RelKind::Contains)
                .filter(|&r| cascade.cause[relations[r as usize].to.index()].is_some())
                .count() as u32;
        }
    }
    if base.present.members {
        spare_destroyed(objects, &options.mode, cascade);
    }
    if let Some(c) = &base.collection {
        // Outside `--gc` (which refused at once): an Application whose
        // trackers its keeper refuses to list collects nothing.
        if let Some(b) = c.broken.iter().find(|b| tracking::involved(b.app(), relations, cascade)) {
            return Err(listing_error(b, &base.refs));
        }
        tracking::shared_keeps(objects, relations, &base.rank, cascade);
    }
    Ok(())
}

/// Phase 3: the default rules order what the plan already deletes, never
/// more; other tools' metadata orders it too (and chains through what
/// stays). Their relations join the rest; the graph is made again when
/// there are any.
fn add_rules(
    objects: &[Object],
    managed: &crate::model::managed::Managed,
    options: &Options,
    base: &mut Base,
    in_set: &[bool],
    usages: &[tools::UsageLink],
    lazy: LazyGraph,
) -> LazyGraph {
    // (The default rules order Kubernetes objects only; other tools'
    // metadata is their annotations.)
    let mut ruled = match base.present.kubernetes {
        true => rules::relations(objects, &base.relations, in_set, &options.default_rules),
        false => Vec::new(),
    };
    // Both are the contract's ordering knowledge: `--no-default-rules`
    // turns both off.
    if !options.default_rules.is_empty() && base.present.tools {
        ruled.extend(tools::relations(objects, in_set, &base.rank, usages));
    }
    // Application controllers' records go after what they record.
    ruled.extend(crate::analysis::managed::record_order(managed, &base.relations, in_set));
    match ruled.is_empty() {
        true => lazy,
        false => {
            base.relations.extend(ruled);
            LazyGraph::new(objects.len())
        }
    }
}

/// Phase 4: the order of what the cascade took; a cycle not allowed stops
/// the plan.
fn order_of(
    objects: &[Object],
    options: &Options,
    base: &Base,
    in_set: &[bool],
    lazy: &LazyGraph,
) -> Result<Order, PlanError> {
    let relations = &base.relations;
    order::order(&order::Input { relations, in_set, rank: &base.rank, allow_cycles: options.allow_cycles })
        .map_err(|cycle| ownership_cycle_error(objects, relations, lazy.get(relations), &base.refs, &cycle.members))
}

/// The order's steps, each in reference order. Every object of the
/// deletion set has a step, or there is no plan: a plan that leaves one out
/// would delete less than it says.
fn steps(order: &Order, in_set: &[bool], base: &Base) -> Result<Vec<Vec<ObjId>>, PlanError> {
    let mut steps: Vec<Vec<ObjId>> = vec![Vec::new(); order.steps as usize];
    let mut unplaced = Vec::new();
    // In reference order, each step's objects are pushed in it: no sort.
    for i in order::by_rank(&base.rank) {
        let i = i as usize;
        // Steps are 1..=order.steps; an object of the set at no step (or at
        // one there is not) is not placed.
        match (in_set[i], (order.step[i] as usize).checked_sub(1).and_then(|k| steps.get_mut(k))) {
            (false, _) => {}
            (true, None) => unplaced.push(i),
            (true, Some(step)) => step.push(ObjId(i as u32)),
        }
    }
    // (The error names the first in object order, as it always has.)
    if let Some(&first) = unplaced.iter().min() {
        return Err(PlanError::Unplaced {
            objects: unplaced.len(),
            first: base.refs.get(first).unwrap_or_default().to_owned(),
        });
    }
    Ok(steps)
}

/// Phase 5: the plan's warnings, sorted. A finalizer whose controller
/// goes first stops the plan.
fn plan_warnings(
    snapshot: &Snapshot,
    options: &Options,
    base: &Base,
    taken: &Taken,
    order: &Order,
    in_set: &[bool],
    graph: &LazyGraph,
) -> Result<Vec<Warning>, PlanError> {
    let (objects, relations, cascade, rank) = (&snapshot.objects, &base.relations, &taken.cascade, &base.rank);
    let mut warnings = warnings::collect(&warnings::Context {
        snapshot,
        relations,
        graph,
        cascade,
        order,
        kubernetes: base.present.kubernetes,
        // Nothing stays to recreate what --all deletes, but what a tool's
        // annotation, a Helm hook or a Usage keeps.
        all: options.mode == Mode::All
            && !cascade
                .kept
                .iter()
                .any(|(_, k)| matches!(k, KeptBy::Annotated(_) | KeptBy::HelmHook(_) | KeptBy::InUse { .. })),
    });
    warnings.extend(finalizer_hangs(objects, &options.finalizer_controllers, in_set, order, &base.refs, rank)?);
    warnings.extend(keep_warnings(objects, relations, cascade, &options.mode, graph, base.present.tools));
    if let Some(c) = &base.collection {
        warnings.extend(record_over_policy(objects, relations, cascade, c, rank));
    }
    if !options.closed_world && options.mode != Mode::Gc {
        warnings.extend(warnings::owners_outside(snapshot, relations, cascade, taken.multi_owner));
    }
    match crate::analysis::managed::notes(&snapshot.resolved.managed, |id| cascade.deleted(id)) {
        Ok(notes) => warnings.extend(notes.into_iter().map(|(app, note)| Warning::Managed { app, note })),
        Err((app, record)) => return Err(PlanError::Unknowable {
            message: format!(
                "{} uninstalls a Helm release whose storage record {record} is in the snapshot: the manifest in it decides what is deleted, and teardown does not decode Helm release records; leave the record out of the snapshot to plan from Helm's ownership annotations, or delete the release with helm",
                base.refs.name(app)
            ),
        }),
    }
    warnings::sort(&mut warnings, rank);
    Ok(warnings)
}

/// Phase 6: what the plan says of each object (hooks, events, reasons,
/// places, what is kept and orphaned, KubeVela's stages), and the plan.
#[allow(clippy::too_many_arguments)]
fn describe(
    snapshot: &Snapshot,
    options: &Options,
    base: Base,
    taken: Taken,
    mut lazy: LazyGraph,
    order: Order,
    steps: Vec<Vec<ObjId>>,
    warnings: Vec<Warning>,
    t: &mut crate::timing::Timer,
) -> Plan {
    let objects = &snapshot.objects;
    let Base { relations, snapshot_relations, refs, rank, present, collection } = base;
    let Taken { cascade, held, gates, multi_owner, owners, usages: _ } = taken;
    // Helm runs delete hooks on uninstall: not for what the collector
    // takes, nor for a prune (an upgrade runs upgrade hooks).
    let hooks = match options.mode {
        // (A hook is a tool's annotation.)
        Mode::Delete(_) | Mode::All if present.tools => hook_runs(objects, &cascade, &order, &held, &rank),
        _ => Vec::new(),
    };
    let (events, still_referenced) = member_events(objects, &relations, &steps, &order, &cascade, &rank, present);
    let marks: HashMap<ObjId, (Option<ObjId>, tracking::Mark)> =
        collection.iter().flat_map(|c| c.trackers.iter().map(|(t, a, m)| (*t, (*a, m.clone())))).collect();
    // (`explain` of a tracking application's objects names the collector's
    // reasons: they are made for it.)
    let reasons = match options.detail.reasons || collection.is_some() {
        true => reasons::reasons(&reasons::Context {
            objects,
            relations: &relations,
            graph: lazy.get(&relations),
            cascade: &cascade,
            mode: &options.mode,
            root: options.root,
            absent_owner: &owners.absent,
            owner_ref: &owners.at,
            marks: &marks,
            after: &order.after,
        }),
        false => reasons::Reasons::default(),
    };
    t.lap("  reasons");
    // A plan file (the only plan made with places) walks no graph: it goes
    // now, tens of megabytes at a million objects (built again if asked).
    if options.detail.places {
        lazy.forget();
    }
    let lines = if options.detail.places { lines(snapshot) } else { Vec::new() };
    t.lap("  places");
    let kept: Vec<(ObjId, Kept)> = cascade
        .kept
        .iter()
        .map(|&(id, by)| {
            let why = |id, j| snapshot.resolved.unresolvable_ref(id, j, options.closed_world);
            (id, Kept::from_cascade(id, by, &relations, objects, why))
        })
        .collect();
    let stages = match (&collection, &options.mode) {
        (Some(c), Mode::Gc) if !c.trackers.is_empty() => {
            Some(super::tracking::stages(objects, &relations, c, &cascade, &kept, &order, &rank))
        }
        _ => None,
    };
    // One row per object and owner: an object that names its owner twice
    // loses both references to it (`apply` strips them all). Found by the
    // `planner` fuzz target: two identical rows, which `apply` refused.
    let mut rows = rustc_hash::FxHashSet::default();
    let orphaned = cascade
        .orphaned
        .iter()
        .map(|&(id, r)| (id, relations[r as usize].from))
        .filter(|&row| rows.insert(row))
        .collect();
    let (data_loss, loss_index) = data_loss(objects, &relations, &cascade, &steps, present);
    // The inputs' digests last: hashed meanwhile when a core was free.
    let inputs = if options.detail.places { inputs(snapshot) } else { Vec::new() };
    t.lap("  digests");
    Plan {
        data_loss,
        loss_index,
        owner_refs: owners.refs,
        events,
        still_referenced,
        root: options.root,
        members: match present.members {
            true => objects.iter().map(|o| o.member.is_some()).collect(),
            false => Vec::new(),
        },
        models: match present.members {
            true => objects.iter().find(|o| o.member.is_some()).map_or(&ModelKeys::NONE, |o| o.origin.fields.models),
            false => &ModelKeys::NONE,
        },
        targets: match &options.mode {
            Mode::Delete(t) | Mode::Prune(t) => t.clone(),
            _ => Vec::new(),
        },
        stages,
        hooks,
        tool_order: None,
        dialect: None,
        command: Vec::new(),
        options_mode: options.mode.clone(),
        cascade_mode: options.cascade,
        multi_owner,
        graph: lazy,
        relations,
        gates,
        reasons,
        kept,
        orphaned,
        cascade,
        order,
        steps,
        warnings,
        refs,
        lines,
        inputs,
        snapshot_relations,
    }
}

/// Murano's events, and the destroyed objects that surviving ones still
/// refer to (an object model's members only: none without them).
fn member_events(
    objects: &[Object],
    relations: &[Relation],
    steps: &[Vec<ObjId>],
    order: &Order,
    cascade: &Cascade,
    rank: &[u32],
    present: Present,
) -> (Vec<events::Event>, HashMap<ObjId, Vec<ObjId>>) {
    match present.members {
        true => (
            events::destruction_events(objects, relations, steps, &order.destruction_cycles),
            events::still_referenced(objects, cascade, rank),
        ),
        false => (Vec::new(), HashMap::new()),
    }
}

/// What the plan destroys for good (of Kubernetes objects only: none
/// without them), and its index by object.
fn data_loss(
    objects: &[Object],
    relations: &[Relation],
    cascade: &Cascade,
    steps: &[Vec<ObjId>],
    present: Present,
) -> (Vec<crate::analysis::data_loss::Loss>, Vec<(u32, u32)>) {
    let data_loss = match present.kubernetes {
        true => crate::analysis::data_loss::of(objects, relations, cascade, steps),
        false => Vec::new(),
    };
    let mut loss_index: Vec<(u32, u32)> = data_loss.iter().enumerate().map(|(i, l)| (l.object.0, i as u32)).collect();
    loss_index.sort_unstable();
    (data_loss, loss_index)
}

/// KubeVela: records that decide otherwise than the policy says now, where
/// that changes what the plan does (a resource deleted that the policy
/// would keep, or kept by `skipGC` that it would not).
fn record_over_policy(
    objects: &[Object],
    relations: &[Relation],
    cascade: &Cascade,
    c: &tracking::Collection,
    rank: &[u32],
) -> Vec<Warning> {
    use crate::model::tracking::Strategy;
    if c.disagreements.is_empty() {
        return Vec::new();
    }
    // Each object's first record in reference order (of object, tracker).
    let mut disagreements = c.disagreements.clone();
    disagreements.sort_by_key(|d| {
        let r = &relations[d.relation as usize];
        (rank[r.to.index()], rank[r.from.index()])
    });
    let app: HashMap<ObjId, ObjId> =
        relations.iter().filter(|r| r.kind == RelKind::Manages && r.decl == u32::MAX).map(|r| (r.to, r.from)).collect();
    let kept: HashMap<ObjId, KeptBy> = cascade.kept.iter().copied().collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for d in &disagreements {
        let r = &relations[d.relation as usize];
        let Some(&a) = app.get(&r.from) else { continue };
        let deleted = cascade.deleted(r.to);
        let warn = match (deleted, d.strategy) {
            (true, Some(Strategy::Never)) => true,
            (true, Some(Strategy::OnAppDelete)) => !cascade.deleted(a),
            (true, _) => false,
            (false, s) => {
                s != Some(Strategy::Never)
                    && matches!(kept.get(&r.to), Some(KeptBy::Released { relation, keep: cascade::Keep::SkipGc, .. }) if *relation == d.relation)
            }
        };
        if !warn || !seen.insert(r.to) {
            continue;
        }
        let rule = d.rule.and_then(|i| {
            let spec = tracking::app_of(&objects[a.index()])?;
            spec.policy.rules.get(i as usize).map(|x| (x.policy.clone(), x.index + 1))
        });
        out.push(Warning::RecordOverPolicy {
            object: r.to,
            tracker: r.from,
            app: a,
            rule,
            strategy: d.strategy,
            deleted,
        });
    }
    out
}

/// Why KubeVela's resource keeper stops at an Application's trackers.
fn listing_error(broken: &tracking::Broken, refs: &Refs) -> PlanError {
    use crate::dialect::kubevela::labels::APP_UID;
    let name = |id: ObjId| refs.name(id);
    let message = match broken {
        tracking::Broken::ForeignTracker { app, tracker, uid, app_uid: Some(own) } => format!(
            "{} is labelled {APP_UID} {uid}, not the uid of {} ({own}): it is the tracker of an earlier Application of that name; KubeVela's resource keeper stops there (\"delete it manually\") and collects nothing of {}; delete the tracker (or its label) first",
            name(*tracker),
            name(*app),
            name(*app)
        ),
        tracking::Broken::ForeignTracker { app, tracker, uid, app_uid: None } => format!(
            "{} is labelled {APP_UID} {uid}, and {} has no metadata.uid in the snapshot: whether the tracker is its own, or an earlier Application's of that name (where KubeVela's resource keeper stops), cannot be told; dump the Application from the cluster (`kubectl get application -o yaml` prints its uid)",
            name(*tracker),
            name(*app)
        ),
        tracking::Broken::StalePublishVersion { app, tracker, version, generation, newer } => format!(
            "{} {}, whose tracker {} is of generation {generation}, older than an outdated tracker of generation {newer}: KubeVela's resource keeper stops there (\"in-use and outdated\") and collects nothing of {}",
            name(*app),
            match version {
                Some(v) => format!("publishes version {v}"),
                None => format!("is at generation {generation}"),
            },
            name(*tracker),
            name(*app)
        ),
    };
    PlanError::TrackerListing { message }
}

/// Owner references that name no object, as written, for reasons to point
/// at (`--gc` only: elsewhere no reason names them).
struct OwnerRefs {
    refs: Vec<String>,
    /// Each object's first owner reference that names no object.
    absent: HashMap<ObjId, u32>,
    /// (dependent, owner reference) whose uid is another object's.
    at: HashMap<(ObjId, u32), u32>,
}

impl OwnerRefs {
    fn new(snapshot: &Snapshot, mode: &Mode, relations: &[Relation]) -> OwnerRefs {
        let mut owners = OwnerRefs { refs: Vec::new(), absent: HashMap::new(), at: HashMap::new() };
        if *mode != Mode::Gc {
            return owners;
        }
        let objects = &snapshot.objects;
        for &(id, decl) in &snapshot.resolved.missing_owners {
            if let std::collections::hash_map::Entry::Vacant(e) = owners.absent.entry(id) {
                e.insert(owners.refs.len() as u32);
                owners.refs.push(objects[id.index()].owner_reference(decl as usize));
            }
        }
        for r in relations.iter().filter(|r| r.kind == RelKind::Owns && r.link == Link::OtherCoordinates) {
            owners.at.insert((r.to, r.decl), owners.refs.len() as u32);
            owners.refs.push(objects[r.to.index()].owner_reference(r.decl as usize));
        }
        owners
    }
}

/// Murano objects already destroyed are not destroyed again. Murano's
/// collection and prune name every object they destroy: what the ownership
/// cascade adds beyond them is still reached from the root, or still in the
/// new model (moved to another owner).
fn spare_destroyed(objects: &[Object], mode: &Mode, cascade: &mut Cascade) {
    for (i, o) in objects.iter().enumerate() {
        let Some(m) = o.member.as_deref() else { continue };
        let spare = match (&cascade.cause[i], mode) {
            (None, _) => None,
            _ if m.destroyed => Some(KeptBy::AlreadyDestroyed),
            (Some(Cause::Relation(_)), Mode::Gc) => Some(KeptBy::Reachable),
            (Some(Cause::Relation(_)), Mode::Prune(_)) => Some(KeptBy::InNewModel),
            _ => None,
        };
        if let Some(by) = spare {
            cascade.cause[i] = None;
            cascade.kept.push((ObjId(i as u32), by));
        }
    }
}

/// Finalizers whose controller goes first make the object hang (an error);
/// in the same step, they may (a warning).
fn finalizer_hangs(
    objects: &[Object],
    controllers: &[(String, Vec<ObjId>)],
    in_set: &[bool],
    order: &Order,
    refs: &Refs,
    rank: &[u32],
) -> Result<Vec<Warning>, PlanError> {
    let mut warnings = Vec::new();
    if controllers.is_empty() {
        return Ok(warnings);
    }
    // Objects in reference order: the error names the first that hangs,
    // whatever order the inputs were read in.
    let by_rank = order::by_rank(rank);
    for (name, controllers) in controllers {
        for i in by_rank.iter().map(|&i| i as usize) {
            let o = &objects[i];
            if !in_set[i] || !o.finalizers.iter().any(|f| **f == **name) {
                continue;
            }
            for &c in controllers {
                if !in_set[c.index()] || c.index() == i {
                    continue;
                }
                let (os, cs) = (order.step[i], order.step[c.index()]);
                if cs < os {
                    return Err(PlanError::Hang {
                        object: refs.get(i).unwrap_or_default().to_owned(),
                        finalizer: name.clone(),
                        controller: refs.name(c).to_owned(),
                        object_step: os,
                        controller_step: cs,
                    });
                }
                if cs == os {
                    warnings.push(Warning::FinalizerSameStep {
                        object: ObjId(i as u32),
                        controller: c,
                        finalizer: name.clone(),
                        step: os,
                    });
                }
            }
        }
    }
    Ok(warnings)
}

/// Each object's 1-based line, in one parallel pass over the input:
/// objects come in file order, so each chunk of them counts the newlines
/// from its first object on, and to the next chunk's first object; the
/// chunks' first lines follow from one another. (An object out of that
/// order is looked up.)
fn lines(snapshot: &Snapshot) -> Vec<u32> {
    const CHUNK: usize = 4096;
    let objects = &snapshot.objects;
    let at = |i: usize| (objects[i].span.file, objects[i].span.start);
    let counted: Vec<(Vec<Option<u32>>, Option<usize>)> = (0..objects.len().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(objects.len());
            let (file, start) = at(range.start);
            let source = snapshot.sources.get(file);
            let (mut before, mut n, mut in_order) = (start, 0, true);
            let mut out = Vec::with_capacity(range.len());
            for i in range.clone() {
                let (f, s) = at(i);
                in_order = in_order && f == file && s >= before;
                out.push(in_order.then(|| {
                    n += source.newlines(before..s);
                    before = s;
                    n as u32
                }));
            }
            let next = (range.end < objects.len()).then(|| at(range.end));
            let to_next = match next {
                Some((f, s)) if in_order && f == file && s >= before => Some(n + source.newlines(before..s)),
                _ => None,
            };
            (out, to_next)
        })
        .collect();
    let mut lines = Vec::with_capacity(objects.len());
    let mut carried: Option<usize> = None;
    for (c, (out, to_next)) in counted.iter().enumerate() {
        let (file, start) = at(c * CHUNK);
        let first = carried.unwrap_or_else(|| snapshot.sources.get(file).newlines(0..start));
        for (k, n) in out.iter().enumerate() {
            let line = match n {
                Some(n) => first + *n as usize,
                None => {
                    let (f, s) = at(c * CHUNK + k);
                    snapshot.sources.get(f).line_index(s)
                }
            };
            lines.push(line as u32 + 1);
        }
        carried = to_next.map(|n| first + n);
    }
    lines
}

/// The inputs and their digests (hashed in the background from the load
/// on, when asked for: see `input::source::digest_in_background`).
fn inputs(snapshot: &Snapshot) -> Vec<Input> {
    snapshot.sources.files.par_iter().map(|f| Input { path: f.name.clone(), sha256: f.sha256().to_string() }).collect()
}

/// The shortest ownership cycle through the offending objects, and the edge
/// that closes it.
/// The error for an ownership cycle among `members`: the shortest cycle
/// through them, and the edge to cut.
pub fn ownership_cycle_error(
    objects: &[Object],
    relations: &[Relation],
    graph: &Graph,
    refs: &Refs,
    members: &[ObjId],
) -> PlanError {
    let member: HashMap<ObjId, ()> = members.iter().map(|&m| (m, ())).collect();
    let cycles = cycles::find_by_reference(objects, graph, relations, |r| {
        r.kind.is_ownership() && r.link == Link::Solid && crate::analysis::managed::orders(r)
    });
    let found = cycles.into_iter().find(|c| c.component.iter().any(|o| member.contains_key(o)));
    // The cycle in words: `None` for one whose ids are not of these
    // objects and relations (then it is told by its members).
    let told = |c: &cycles::Cycle| -> Option<(String, String)> {
        let reference = |id: ObjId| refs.get(id.index());
        let mut text = reference(*c.nodes.first()?)?.to_owned();
        // `relations[i]` goes from `nodes[i]` to `nodes[i + 1]`, the last back to the first.
        for (&r, &next) in c.relations.iter().zip(c.nodes.iter().cycle().skip(1)) {
            text.push_str(&format!(" {} {}", relations.get(r as usize)?.kind.as_str(), reference(next)?));
        }
        let last = relations.get(*c.relations.last()? as usize)?;
        let cut = format!("to {} from {}", objects.get(last.from.index())?.short(), reference(last.to)?);
        Some((text, cut))
    };
    match found.and_then(|c| Some((told(&c)?, c))) {
        Some(((text, cut), c)) => PlanError::OwnershipCycle { cycle: text, cut, found: Some(c) },
        None => PlanError::OwnershipCycle {
            cycle: members.iter().filter_map(|m| refs.get(m.index())).collect::<Vec<_>>().join(", "),
            cut: String::from("(none found)"),
            found: None,
        },
    }
}
