//! A deletion plan, as data: what is deleted in which step and why, what is
//! kept or orphaned, which ownership edges were relaxed, which cycles were
//! grouped, and what to look out for. Built from the cascade and the order;
//! rendered by `render::plan`.

use crate::analysis::cascade::{self, Cascade, CascadeMode, Cause, KeptBy, MultiOwner};
use crate::analysis::cycles;
use crate::analysis::gc;
use crate::analysis::order::{self, GroupKind, Order};
use crate::findings::Rule;
use crate::graph::{Graph, LazyGraph};
use crate::load::Snapshot;
use crate::model::kube::protected_namespace;
use crate::model::{Link, ObjId, Object, RelKind, Relation};
use rayon::prelude::*;
use std::collections::HashMap;

/// Which objects the plan starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--delete SEL…`: these objects.
    Delete(Vec<ObjId>),
    /// `--prune NEW…`: these objects, absent from NEW.
    Prune(Vec<ObjId>),
    /// `--all`: everything in the input.
    All,
    /// `--gc`: what the garbage collector would delete now.
    Gc,
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Delete(_) => "delete",
            Mode::Prune(_) => "prune",
            Mode::All => "all",
            Mode::Gc => "gc",
        }
    }
}

pub struct Options {
    pub mode: Mode,
    pub cascade: CascadeMode,
    pub multi_owner: MultiOwner,
    pub allow_cycles: bool,
    /// `--finalizer-controller`: each finalizer with the objects whose
    /// controllers remove it.
    pub finalizer_controllers: Vec<(String, Vec<ObjId>)>,
    /// `--root`: where Murano's collection starts (default: the first tree).
    pub root: Option<ObjId>,
    /// `--closed-world`: the snapshot is the whole cluster.
    pub closed_world: bool,
    /// `--prune`: which objects of the input NEW declares (else empty).
    pub declared_in_new: Vec<bool>,
}

/// What a Murano subscriber is told about an object's destruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Before anything is destroyed: the object will be.
    Warned,
    /// Just before the object is destroyed (its handler is called).
    Notified,
    /// The object itself is destroyed.
    Destroyed,
    /// After: the object was destroyed.
    ToldDestroyed,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Warned => "warned",
            EventKind::Notified => "notified",
            EventKind::Destroyed => "destroyed",
            EventKind::ToldDestroyed => "told-destroyed",
        }
    }
}

/// One event of a Murano destruction, in the order they happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// The step of the destroyed object.
    pub step: u32,
    /// The destroyed object.
    pub object: ObjId,
    /// Who is told (not for `Destroyed`).
    pub subscriber: Option<ObjId>,
    /// The handlers named by the subscriber's subscriptions to the object
    /// (for `Notified`): it is told once, however many it holds.
    pub handlers: Vec<crate::model::Str>,
}

#[derive(Clone, Debug)]
pub struct Warning {
    pub rule: Option<Rule>,
    pub message: String,
    pub refs: Vec<String>,
}

impl Warning {
    fn new(rule: Option<Rule>, message: String, refs: Vec<String>) -> Warning {
        Warning { rule, message, refs }
    }
}

/// Why a plan cannot be made (exit 1).
#[derive(Clone, Debug)]
pub enum PlanError {
    /// Objects of the deletion set own each other.
    OwnershipCycle { cycle: String, cut: String, members: Vec<String> },
    /// An object would wait forever for a finalizer whose controller is
    /// deleted in an earlier step.
    Hang { object: String, finalizer: String, controller: String, object_step: u32, controller_step: u32 },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::OwnershipCycle { cycle, cut, .. } => write!(
                f,
                "ownership cycle: {cycle}; cut an edge (for example remove the owner reference {cut}), or plan the cycle as one group with --allow-cycles"
            ),
            PlanError::Hang { object, finalizer, controller, object_step, controller_step } => write!(
                f,
                "{object} (step {object_step}) would hang: its finalizer {finalizer} is removed by {controller}, which is deleted earlier (step {controller_step})"
            ),
        }
    }
}

pub struct Plan {
    pub options_mode: Mode,
    pub cascade_mode: CascadeMode,
    pub multi_owner: MultiOwner,
    /// The snapshot's relations, then those `--finalizer-controller` adds.
    pub relations: Vec<Relation>,
    graph: LazyGraph,
    pub cascade: Cascade,
    pub order: Order,
    /// The objects of each step (index 0 is step 1), in reference order.
    pub steps: Vec<Vec<ObjId>>,
    pub warnings: Vec<Warning>,
    /// References of every object, by index (computed once).
    pub refs: Vec<String>,
    /// Murano notifications and destructions, in order (empty for other dialects).
    pub events: Vec<Event>,
    /// Murano objects destroyed by the plan that surviving objects still
    /// refer to by id (they stay in the model, marked `destroyed: true`), with
    /// those objects.
    pub still_referenced: Vec<(ObjId, Vec<ObjId>)>,
    /// `--root`: where Murano's collection started (else at each model's root).
    pub root: Option<ObjId>,
    /// Which objects are Murano objects (empty when none is).
    pub murano: Vec<bool>,
    /// The owners `--gc` found missing from the snapshot, by reference
    /// (see [`KeptBy::OwnerNotInSnapshot`]).
    pub absent_owners: Vec<String>,
}

impl Plan {
    /// The graph of the plan's relations (built on first use).
    pub fn graph(&self) -> &Graph {
        self.graph.get(&self.relations)
    }

    pub fn deleted_count(&self) -> usize {
        self.steps.iter().map(Vec::len).sum()
    }

    /// Finalizers an object waits for: all but the collector's own.
    pub fn waits_for<'a>(&self, o: &'a Object) -> impl Iterator<Item = &'a str> {
        o.finalizers.iter().map(|f| &**f).filter(|f| !crate::model::kube::COLLECTOR_FINALIZERS.contains(f))
    }
}

/// Each object's position in reference order: ties broken, output stable.
pub fn reference_ranks(refs: &[String]) -> Vec<u32> {
    // The first 16 bytes as a big-endian number order like the strings do
    // (zero-padded: a prefix sorts first); equal prefixes compare in full.
    let prefix: Vec<u128> = refs
        .par_iter()
        .map(|r| {
            let mut b = [0u8; 16];
            let n = r.len().min(16);
            b[..n].copy_from_slice(&r.as_bytes()[..n]);
            u128::from_be_bytes(b)
        })
        .collect();
    let mut order: Vec<u32> = (0..refs.len() as u32).collect();
    order.par_sort_unstable_by(|&a, &b| {
        let (a, b) = (a as usize, b as usize);
        prefix[a].cmp(&prefix[b]).then_with(|| refs[a].cmp(&refs[b])).then(a.cmp(&b))
    });
    let mut rank = vec![0u32; refs.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    rank
}

/// Objects no plan deletes, whatever selects or reaches them, and why:
/// protected namespaces; under `--gc` without `--closed-world`, objects
/// whose owner is missing from the snapshot (the cluster may have it);
/// under `--prune`, what NEW declares and the Namespaces and CRDs that
/// hold it (cli-utils skips them).
fn spare(snapshot: &Snapshot, options: &Options, relations: &[Relation]) -> (Vec<Option<KeptBy>>, Vec<String>) {
    let objects = &snapshot.objects;
    let mut spare: Vec<Option<KeptBy>> = objects
        .iter()
        .map(|o| {
            (o.has_coordinates() && protected_namespace(&o.group, &o.kind, &o.name))
                .then_some(KeptBy::Protected { deleted_inside: 0 })
        })
        .collect();
    let mut absent_owners = Vec::new();
    if options.mode == Mode::Gc && !options.closed_world {
        for &(id, decl) in &snapshot.resolved.missing_owners {
            if spare[id.index()].is_none() {
                spare[id.index()] = Some(KeptBy::OwnerNotInSnapshot(absent_owners.len() as u32));
                absent_owners.push(objects[id.index()].owner_reference(decl as usize));
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
            if objects[i].murano.is_some() {
                continue; // Murano's prune has its own rule: see `build`
            }
            if declared.get(i).copied().unwrap_or(false) {
                s.get_or_insert(KeptBy::DeclaredInNew);
            } else if holds[i] > 0 {
                s.get_or_insert(KeptBy::HoldsNew(holds[i]));
            }
        }
    }
    (spare, absent_owners)
}

/// Destruction dependencies `--finalizer-controller` adds: the controller
/// is destroyed after every object carrying its finalizer.
pub fn finalizer_relations(objects: &[Object], controllers: &[(String, Vec<ObjId>)]) -> Vec<Relation> {
    let mut out = Vec::new();
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

pub fn build(snapshot: &Snapshot, options: &Options) -> Result<Plan, PlanError> {
    let mut t = crate::timing::Timer::start();
    let objects = &snapshot.objects;
    let mut relations = snapshot.resolved.relations.clone();
    relations.extend(finalizer_relations(objects, &options.finalizer_controllers));
    let lazy = LazyGraph::new(objects.len());
    let graph = || lazy.get(&relations);
    let refs: Vec<String> = objects.par_iter().map(Object::reference).collect();
    t.lap("  refs");
    let rank = reference_ranks(&refs);
    t.lap("  rank");

    let roots = match options.root {
        Some(r) => vec![r],
        None => gc::default_roots(objects),
    };
    let seeds: Vec<(ObjId, Cause)> = match &options.mode {
        Mode::Delete(targets) | Mode::Prune(targets) => targets.iter().map(|&t| (t, Cause::Target)).collect(),
        Mode::All => (0..objects.len() as u32).map(|i| (ObjId(i), Cause::Target)).collect(),
        Mode::Gc => {
            let mut seeds = cascade::gc_seeds(objects, &relations, graph());
            seeds.extend(gc::seeds(objects, &relations, &roots));
            seeds.sort_by_key(|&(id, _)| id);
            seeds.into_iter().map(|(id, why)| (id, Cause::Garbage(why))).collect()
        }
    };
    let (spare, absent_owners) = spare(snapshot, options, &relations);
    let mut cascade = match options.mode {
        Mode::All => cascade::everything(seeds.iter().map(|&(_, c)| Some(c)).collect(), &spare),
        _ => cascade::cascade(
            objects,
            &relations,
            graph(),
            &seeds,
            &spare,
            &cascade::Options { cascade: options.cascade, multi_owner: options.multi_owner },
        ),
    };
    // A protected namespace kept: how much of what it holds goes.
    for (id, by) in cascade.kept.iter_mut() {
        if let KeptBy::Protected { deleted_inside } = by {
            *deleted_inside = graph()
                .dependents(*id)
                .into_iter()
                .filter(|&r| relations[r as usize].kind == RelKind::Contains)
                .filter(|&r| cascade.cause[relations[r as usize].to.index()].is_some())
                .count() as u32;
        }
    }
    // Murano objects already destroyed are not destroyed again. Murano's
    // collection and prune name every object they destroy: what the
    // ownership cascade adds beyond them is still reached from the root, or
    // still in the new model (moved to another owner).
    for (i, o) in objects.iter().enumerate() {
        let Some(m) = o.murano.as_deref() else { continue };
        let spare = match (&cascade.cause[i], &options.mode) {
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
    t.lap("  cascade");
    cascade.kept.sort_by_key(|(id, _)| rank[id.index()]);
    cascade.orphaned.sort_by_key(|(id, _)| rank[id.index()]);
    let in_set: Vec<bool> = cascade.cause.iter().map(Option::is_some).collect();
    let order = match order::order(&order::Input {
        relations: &relations,
        in_set: &in_set,
        rank: &rank,
        allow_cycles: options.allow_cycles,
    }) {
        Ok(order) => order,
        Err(cycle) => return Err(ownership_cycle_error(objects, &relations, graph(), &refs, &cycle.members)),
    };

    t.lap("  order");
    let mut steps: Vec<Vec<ObjId>> = vec![Vec::new(); order.steps as usize];
    for (i, &s) in order.step.iter().enumerate() {
        if in_set[i] && s > 0 {
            steps[s as usize - 1].push(ObjId(i as u32));
        }
    }
    for step in &mut steps {
        step.sort_by_key(|o| rank[o.index()]);
    }

    let mut warnings = Vec::new();
    for f in snapshot.findings.iter() {
        if let Some(l) = &f.primary {
            let file = snapshot.sources.get(l.span.file);
            let lc = file.line_col(l.span.start);
            warnings.push(Warning::new(
                Some(f.rule),
                format!("{}:{}:{}: {}", file.name, lc.line, lc.column, f.message),
                f.refs.clone(),
            ));
        }
    }
    for g in &order.groups {
        let names: Vec<String> = g.members.iter().map(|m| refs[m.index()].clone()).collect();
        let step = g.members.first().map(|m| order.step[m.index()]).unwrap_or(0);
        let message = match g.kind {
            GroupKind::Destruction => format!(
                "destruction-dependency cycle: {} are destroyed together in step {step}; their order inside it is undefined",
                names.join(", ")
            ),
            GroupKind::Ownership => format!(
                "ownership cycle planned as one group (--allow-cycles): {} in step {step}",
                names.join(", ")
            ),
        };
        let rule = if g.kind == GroupKind::Destruction { Rule::Td008 } else { Rule::Td007 };
        warnings.push(Warning::new(Some(rule), message, names));
    }
    for (&r, because) in order.relaxed.iter().zip(&order.relaxed_because) {
        let rel = &relations[r as usize];
        let message = conflict_message(&refs, rel, because.map(|b| &relations[b as usize]));
        let (owner, owned) = (&refs[rel.from.index()], &refs[rel.to.index()]);
        warnings.push(Warning::new(Some(Rule::Td012), message, vec![owner.clone(), owned.clone()]));
    }
    // A deleted object whose controller stays is recreated by it. (With
    // `--all` nothing stays.)
    let mut owners = Vec::new();
    for (i, cause) in cascade.cause.iter().enumerate() {
        if cause.is_none() || options.mode == Mode::All {
            continue;
        }
        let id = ObjId(i as u32);
        graph().dependencies_into(id, &mut owners);
        for &r in &owners {
            let rel = &relations[r as usize];
            if rel.kind == RelKind::Owns
                && rel.controller
                && rel.link == Link::Solid
                && !cascade.deleted(rel.from)
                && objects[rel.from.index()].deletion_timestamp.is_none()
            {
                warnings.push(Warning::new(
                    None,
                    format!(
                        "{} is deleted but its controller {} stays and will recreate it",
                        refs[i],
                        refs[rel.from.index()]
                    ),
                    vec![refs[i].clone(), refs[rel.from.index()].clone()],
                ));
            }
        }
    }
    // One uid on objects of other coordinates: references went by coordinates.
    for d in snapshot.resolved.duplicates.iter().filter(|d| d.by_uid) {
        let (a, b) = (d.first.index(), d.again.index());
        if cascade.cause[a].is_none() && cascade.cause[b].is_none() {
            continue;
        }
        warnings.push(Warning::new(
            Some(Rule::Td002),
            format!(
                "{} and {} share uid {}: owner references were resolved by their kind and name, not by this uid",
                refs[a],
                refs[b],
                objects[a].uid.as_deref().unwrap_or("")
            ),
            vec![refs[a].clone(), refs[b].clone()],
        ));
    }
    // Finalizers whose controller goes first make the object hang.
    for (name, controllers) in &options.finalizer_controllers {
        for (i, o) in objects.iter().enumerate() {
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
                        object: refs[i].clone(),
                        finalizer: name.clone(),
                        controller: refs[c.index()].clone(),
                        object_step: os,
                        controller_step: cs,
                    });
                }
                if cs == os {
                    warnings.push(Warning::new(
                        None,
                        format!(
                            "{} and {}, the controller of its finalizer {name}, are deleted in the same step {os}; the object hangs if the controller goes first",
                            refs[i],
                            refs[c.index()]
                        ),
                        vec![refs[i].clone(), refs[c.index()].clone()],
                    ));
                }
            }
        }
    }

    let events = murano_events(objects, &relations, &steps, &rank);
    let still_referenced = still_referenced(objects, &cascade, &rank);
    Ok(Plan {
        absent_owners,
        events,
        still_referenced,
        root: options.root,
        murano: match objects.iter().any(|o| o.murano.is_some()) {
            true => objects.iter().map(|o| o.murano.is_some()).collect(),
            false => Vec::new(),
        },
        options_mode: options.mode.clone(),
        cascade_mode: options.cascade,
        multi_owner: options.multi_owner,
        graph: lazy,
        relations,
        cascade,
        order,
        steps,
        warnings,
        refs,
    })
}

/// `--prune`: the objects of `old` that `new` lacks (by kind, namespace and
/// name for Kubernetes, by id otherwise), in input order. Murano objects
/// already destroyed are left out.
/// `--prune`: the objects of `old` that `new` does not declare (the
/// targets), and for each object of `old` whether `new` declares it.
pub fn absent_from(old: &[Object], new: &[Object]) -> (Vec<ObjId>, Vec<bool>) {
    let key = |o: &Object| (o.has_coordinates(), o.reference());
    let present: std::collections::HashSet<(bool, String)> = new.iter().map(key).collect();
    let declared: Vec<bool> = old.iter().map(|o| present.contains(&key(o))).collect();
    let absent = old
        .iter()
        .enumerate()
        .filter(|&(i, o)| !o.murano.as_deref().is_some_and(|m| m.destroyed) && !declared[i])
        .map(|(i, _)| ObjId(i as u32))
        .collect();
    (absent, declared)
}

/// Murano's notifications (CONTRACT §4): for every destroyed object B and
/// each subscriber A of B's destruction, A is warned before anything is
/// destroyed, notified (its handler called) just before B, and told after.
fn murano_events(objects: &[Object], relations: &[Relation], steps: &[Vec<ObjId>], rank: &[u32]) -> Vec<Event> {
    if !objects.iter().any(|o| o.murano.is_some()) {
        return Vec::new();
    }
    // Subscribers of each object, once each, with every handler they name,
    // in reference order.
    type Subscribers = Vec<(ObjId, Vec<crate::model::Str>)>;
    let mut subscribers: HashMap<ObjId, Subscribers> = HashMap::new();
    let mut add = |b: ObjId, a: ObjId, handler: Option<&crate::model::Str>| {
        let subs = subscribers.entry(b).or_default();
        let at = match subs.iter().position(|(s, _)| *s == a) {
            Some(at) => at,
            None => {
                subs.push((a, Vec::new()));
                subs.len() - 1
            }
        };
        if let Some(h) = handler.filter(|h| !subs[at].1.contains(h)) {
            subs[at].1.push(h.clone());
        }
    };
    for r in relations {
        let declared = &objects[r.declared_by.index()];
        let Some(m) = declared.murano.as_deref() else { continue };
        if r.kind != RelKind::DestroyAfter || r.to != r.declared_by {
            continue;
        }
        if objects[r.from.index()].murano.as_deref().is_some_and(|s| s.destroyed) {
            continue; // a destroyed subscriber hears nothing
        }
        add(r.to, r.from, m.handlers.get(r.decl as usize).and_then(Option::as_ref));
    }
    for (i, o) in objects.iter().enumerate() {
        if let Some(own) = o.murano.as_deref().and_then(|m| m.own_destruction.as_deref()) {
            let b = ObjId(i as u32);
            add(b, b, None);
            for h in own {
                add(b, b, Some(h));
            }
        }
    }
    for subs in subscribers.values_mut() {
        subs.sort_by_key(|(s, _)| rank[s.index()]);
    }
    let none = Vec::new();
    let destroyed = || {
        steps.iter().enumerate().flat_map(|(k, step)| {
            step.iter().filter(|b| objects[b.index()].murano.is_some()).map(move |&b| (k as u32 + 1, b))
        })
    };
    let mut events = Vec::new();
    let event = |kind, step, object, subscriber, handlers| Event { kind, step, object, subscriber, handlers };
    for (step, b) in destroyed() {
        for (a, _) in subscribers.get(&b).unwrap_or(&none) {
            events.push(event(EventKind::Warned, step, b, Some(*a), Vec::new()));
        }
    }
    for (step, b) in destroyed() {
        let subs = subscribers.get(&b).unwrap_or(&none);
        for (a, handlers) in subs {
            events.push(event(EventKind::Notified, step, b, Some(*a), handlers.clone()));
        }
        events.push(event(EventKind::Destroyed, step, b, None, Vec::new()));
        for (a, _) in subs {
            events.push(event(EventKind::ToldDestroyed, step, b, Some(*a), Vec::new()));
        }
    }
    events
}

/// Murano objects the plan destroys that objects it keeps still refer to by
/// id: they stay in the model, marked `destroyed: true` (CONTRACT §7).
fn still_referenced(objects: &[Object], cascade: &Cascade, rank: &[u32]) -> Vec<(ObjId, Vec<ObjId>)> {
    if !objects.iter().any(|o| o.murano.is_some()) {
        return Vec::new();
    }
    let mut by: HashMap<ObjId, Vec<ObjId>> = HashMap::new();
    for (i, targets) in gc::references(objects).into_iter().enumerate() {
        let from = ObjId(i as u32);
        let alive = !cascade.deleted(from) && !objects[i].murano.as_deref().is_some_and(|m| m.destroyed);
        if !alive {
            continue;
        }
        for t in targets {
            if cascade.deleted(t) {
                by.entry(t).or_default().push(from);
            }
        }
    }
    let mut out: Vec<(ObjId, Vec<ObjId>)> = by.into_iter().collect();
    for (_, froms) in &mut out {
        froms.sort_by_key(|f| rank[f.index()]);
        froms.dedup();
    }
    out.sort_by_key(|(t, _)| rank[t.index()]);
    out
}

/// The shortest ownership cycle through the offending objects, and the edge
/// that closes it.
fn ownership_cycle_error(
    objects: &[Object],
    relations: &[Relation],
    graph: &Graph,
    refs: &[String],
    members: &[ObjId],
) -> PlanError {
    let member: HashMap<ObjId, ()> = members.iter().map(|&m| (m, ())).collect();
    let cycles = cycles::find(graph, relations, |r| r.kind.is_ownership() && r.link == Link::Solid);
    let found = cycles.into_iter().find(|c| c.component.iter().any(|o| member.contains_key(o)));
    match found {
        Some(c) => {
            let mut text = refs[c.nodes[0].index()].clone();
            for (i, &r) in c.relations.iter().enumerate() {
                let next = c.nodes[(i + 1) % c.nodes.len()];
                text.push_str(&format!(" {} {}", relations[r as usize].kind.as_str(), refs[next.index()]));
            }
            let last = &relations[*c.relations.last().unwrap_or(&0) as usize];
            let cut = format!("to {} from {}", objects[last.from.index()].short(), refs[last.to.index()]);
            PlanError::OwnershipCycle {
                cycle: text,
                cut,
                members: members.iter().map(|m| refs[m.index()].clone()).collect(),
            }
        }
        None => PlanError::OwnershipCycle {
            cycle: members.iter().map(|m| refs[m.index()].clone()).collect::<Vec<_>>().join(", "),
            cut: String::from("(none found)"),
            members: members.iter().map(|m| refs[m.index()].clone()).collect(),
        },
    }
}

/// TD012: an ownership relation relaxed because a destruction dependency
/// contradicts it (A is destroyed after B, B owns A through this relation).
pub fn conflict_message(refs: &[String], relaxed: &Relation, because: Option<&Relation>) -> String {
    let (owner, owned) = (&refs[relaxed.from.index()], &refs[relaxed.to.index()]);
    let how = relaxed.kind.as_str();
    match because {
        Some(d) => {
            let (a, b) = (&refs[d.from.index()], &refs[d.to.index()]);
            let through = if owner == b { String::new() } else { format!(" through {owner}") };
            format!(
                "ordering conflict: {a} is destroyed after {b} (a destruction dependency), but {b} {how} it{through}; the ownership edge {owner} {how} {owned} is relaxed"
            )
        }
        None => format!(
            "ordering conflict: {owner} {how} {owned}, but destruction dependencies put {owned} after it; the ownership edge is relaxed"
        ),
    }
}

/// Why `kept` objects stay, as text.
pub fn kept_reason(plan: &Plan, by: KeptBy) -> (String, Option<String>) {
    match by {
        KeptBy::SolidOwner(r) => {
            let owner = &plan.refs[plan.relations[r as usize].from.index()];
            (format!("still owned by {owner}"), Some(owner.clone()))
        }
        KeptBy::NamespacedOwner(r) => {
            let owner = &plan.refs[plan.relations[r as usize].from.index()];
            (
                format!("a cluster-scoped object with a namespaced owner ({owner}) is never collected"),
                Some(owner.clone()),
            )
        }
        KeptBy::AlreadyDestroyed => ("already destroyed (`destroyed: true`)".into(), None),
        KeptBy::Reachable => ("still reachable from the root".into(), None),
        KeptBy::InNewModel => ("still in the new model".into(), None),
        KeptBy::Protected { deleted_inside } => (
            format!(
                "protected namespace: the API server refuses to delete it ({deleted_inside} {} in it deleted)",
                if deleted_inside == 1 { "object" } else { "objects" }
            ),
            None,
        ),
        KeptBy::OwnerNotInSnapshot(k) => {
            let owner = plan.absent_owners.get(k as usize).cloned().unwrap_or_default();
            (format!("owner {owner} not in snapshot (the cluster may have it; see --closed-world)"), Some(owner))
        }
        KeptBy::DeclaredInNew => ("declared in NEW".into(), None),
        KeptBy::HoldsNew(n) => {
            (format!("still holds {n} {} NEW declares", if n == 1 { "object" } else { "objects" }), None)
        }
    }
}
