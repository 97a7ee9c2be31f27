//! The collector of an application that tracks what it deploys (KubeVela's
//! resource keeper), in its stages:
//!
//! - **mark**: which resource trackers are outdated — every versioned
//!   tracker of another generation than the Application's; every tracker
//!   when the Application is being deleted (or, with `--closed-world`,
//!   absent). With `keepLegacyResource` an outdated tracker is marked only
//!   when each resource it manages is gone or managed by a newer tracker.
//! - **finalize**: a resource of a marked tracker is deleted unless an
//!   active tracker still manages it (the cascade's rule: a managed
//!   resource goes when no live manager is left), and unless the tracker's
//!   record (`skipGC`) or the first garbage-collect rule that selects it
//!   keeps it (`strategy: never`, `propagation: orphan`; `onAppDelete`
//!   until the Application goes): those are [`Gate`]s on the relation.
//! - **sweep**: a marked tracker loses its finalizer once what it deletes
//!   is gone (it is ordered after its resources).
//! - **component revisions**: revisions of components that no active
//!   tracker uses any more are garbage.
//!
//! Linear in objects and relations.

use super::cascade::{Garbage, Gate, Keep, KeptBy, RuleKeep};
use crate::model::tracking::{AppSpec, Managed, Propagation, RuleFacts, Strategy, TrackerKind, TrackerSpec, Tracking};
use crate::model::{ObjId, Object, RelKind, Relation};
use rustc_hash::{FxHashMap, FxHashSet};

/// What the mark stage decided for a tracker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Not marked: the Application's current versioned tracker.
    Current,
    /// Not marked: the root tracker (resources that live as long as the Application).
    Root,
    /// Not marked: the component-revision tracker.
    Revisions,
    /// Marked: a versioned tracker of another generation.
    Outdated { generation: u64, current: u64 },
    /// Marked: its Application is being deleted.
    AppDeleted(ObjId),
    /// Marked (`--closed-world`): its Application is not in the snapshot.
    AppAbsent,
    /// Not marked: its Application is not in the snapshot (the cluster may have it).
    AppNotInSnapshot,
    /// Already marked: it is being deleted.
    AlreadyMarked,
    /// Not marked (`keepLegacyResource`): it is the newest tracker of this
    /// resource, which still exists.
    Legacy { holds: ObjId },
    /// Not marked (`keepLegacyResource`): this managed resource (entry) is not
    /// in the snapshot; the cluster may have it (see `--closed-world`).
    LegacyUnknown { entry: u32 },
}

impl Mark {
    pub fn marked(&self) -> bool {
        matches!(self, Mark::Outdated { .. } | Mark::AppDeleted(_) | Mark::AppAbsent | Mark::AlreadyMarked)
    }
}

/// Why the collector cannot be predicted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknowable {
    /// The Application has versioned trackers but no `metadata.generation`:
    /// which is current cannot be told.
    NoGeneration { app: ObjId, trackers: u32 },
}

/// What the collector does, before the cascade.
#[derive(Default)]
pub struct Collection {
    /// Every tracker, in input order, with its Application (if in the
    /// snapshot) and the mark stage's decision.
    pub trackers: Vec<(ObjId, Option<ObjId>, Mark)>,
    /// Objects the collector takes (`plan --gc`): marked trackers, unused
    /// component revisions.
    pub seeds: Vec<(ObjId, Garbage)>,
    /// Gates on `Manages` relations, by relation index (empty: none).
    pub gates: Vec<Option<Gate>>,
}

pub fn tracker_of(o: &Object) -> Option<&TrackerSpec> {
    match o.tracking.as_deref() {
        Some(Tracking::Tracker(t)) => Some(t),
        _ => None,
    }
}

pub fn app_of(o: &Object) -> Option<&AppSpec> {
    match o.tracking.as_deref() {
        Some(Tracking::Application(a)) => Some(a),
        _ => None,
    }
}

/// The facts rule selectors match: from the tracker's record and the
/// Application's component of that name.
pub fn facts<'a>(m: &'a Managed, app: Option<&'a AppSpec>) -> RuleFacts<'a> {
    let component = m.component.as_deref();
    RuleFacts {
        component,
        component_type: component.and_then(|c| app.and_then(|a| a.component(c))).and_then(|c| c.type_name.as_deref()),
        oam_type: if m.trait_type.is_some() { "TRAIT" } else { "WORKLOAD" },
        trait_type: m.trait_type.as_deref(),
        kind: &m.kind,
        name: &m.name,
    }
}

/// The first rule of the Application's policy that selects `m`, and what it keeps.
pub fn rule_keep(m: &Managed, app: &AppSpec) -> Option<(u32, RuleKeep)> {
    let f = facts(m, Some(app));
    let (i, rule) = app.policy.rules.iter().enumerate().find(|(_, r)| r.selector.matches(&f))?;
    let why = match (rule.strategy, rule.propagation) {
        (Strategy::Never, _) => RuleKeep::Never,
        (_, Propagation::Orphan) => RuleKeep::Orphan,
        (Strategy::OnAppDelete, _) => RuleKeep::OnAppDelete,
        (Strategy::OnAppUpdate, Propagation::Cascading) => return None,
    };
    Some((i as u32, why))
}

/// Is there anything of a tracking application in the snapshot?
pub fn any(objects: &[Object]) -> bool {
    objects.iter().any(|o| o.tracking.is_some())
}

/// The collector's stages before the cascade: with `gc`, the mark stage and
/// the component revisions; always, the gates. `Err`: an Application whose
/// current tracker cannot be told.
pub fn collect(objects: &[Object], rels: &[Relation], gc: bool, closed_world: bool) -> Result<Collection, Unknowable> {
    let mut out = Collection { gates: vec![None; rels.len()], ..Collection::default() };
    // Relation and object ids are positions in `rels` and `objects`, which
    // made them: every `get` finds its entry.
    let object = |id: ObjId| objects.get(id.index());
    let relation = |ri: u32| rels.get(ri as usize);
    // Each tracker's Application, and what each tracker manages (relation indexes).
    let mut app: FxHashMap<ObjId, ObjId> = FxHashMap::default();
    let mut manages: FxHashMap<ObjId, Vec<u32>> = FxHashMap::default();
    let mut managers: FxHashMap<ObjId, Vec<ObjId>> = FxHashMap::default();
    for (ri, r) in rels.iter().enumerate() {
        if r.kind != RelKind::Manages {
            continue;
        }
        if r.decl == u32::MAX {
            app.insert(r.to, r.from);
        } else {
            manages.entry(r.from).or_default().push(ri as u32);
            managers.entry(r.to).or_default().push(r.from);
        }
    }

    // The newest tracker of each resource, as the collector registers them:
    // versioned by generation, then the root tracker.
    let rank = |t: ObjId| -> (u8, u64) {
        let spec = object(t).and_then(tracker_of);
        match spec.map(|s| s.kind) {
            Some(TrackerKind::Root) => (2, 0),
            Some(_) => (1, spec.and_then(|s| s.generation).unwrap_or(0)),
            None => (0, 0),
        }
    };

    // Mark.
    for (i, o) in objects.iter().enumerate() {
        let Some(t) = tracker_of(o).filter(|_| gc) else { continue };
        let id = ObjId(i as u32);
        let a = app.get(&id).copied();
        let spec = a.and_then(object).and_then(app_of);
        let mark = if o.deletion_timestamp.is_some() {
            Mark::AlreadyMarked
        } else if let Some(a) = a.filter(|a| object(*a).is_some_and(|o| o.deletion_timestamp.is_some())) {
            Mark::AppDeleted(a)
        } else if a.is_none() {
            match closed_world {
                true => Mark::AppAbsent,
                false => Mark::AppNotInSnapshot,
            }
        } else {
            match t.kind {
                TrackerKind::Root => Mark::Root,
                TrackerKind::ComponentRevision => Mark::Revisions,
                TrackerKind::Versioned => {
                    let current = match spec.and_then(|s| s.generation) {
                        Some(g) => g,
                        None => {
                            let app_id = a.unwrap_or(id);
                            let trackers = app.values().filter(|&&x| x == app_id).count() as u32;
                            return Err(Unknowable::NoGeneration { app: app_id, trackers });
                        }
                    };
                    let generation = t.generation.unwrap_or(0);
                    if generation == current {
                        Mark::Current
                    } else if spec.is_some_and(|s| s.policy.keep_legacy) {
                        legacy(id, t, manages.get(&id), rels, &managers, &rank, objects, closed_world)
                            .unwrap_or(Mark::Outdated { generation, current })
                    } else {
                        Mark::Outdated { generation, current }
                    }
                }
            }
        };
        if mark.marked() && o.deletion_timestamp.is_none() {
            out.seeds.push((id, Garbage::Tracker));
        }
        out.trackers.push((id, a, mark));
    }

    // Gates: what the tracker's record or the Application's rules keep.
    for (&tracker, rel_ids) in &manages {
        let Some(t) = object(tracker).and_then(tracker_of) else { continue };
        let a = app.get(&tracker).copied();
        let spec = a.and_then(object).and_then(app_of);
        for &ri in rel_ids {
            let Some(m) = relation(ri).and_then(|r| t.managed.get(r.decl as usize)) else { continue };
            let keep = if m.skip_gc {
                Some((Keep::SkipGc, None))
            } else {
                spec.and_then(|s| rule_keep(m, s)).map(|(rule, why)| {
                    let unless = (why == RuleKeep::OnAppDelete).then_some(a).flatten();
                    (Keep::Rule { rule, why }, unless)
                })
            };
            if let (Some((keep, unless_deleted)), Some(gate)) = (keep, out.gates.get_mut(ri as usize)) {
                *gate = Some(Gate { unless_deleted, kept: KeptBy::Released { relation: ri, app: a, keep } });
            }
        }
    }

    // Component revisions no active tracker uses any more.
    let marked: FxHashSet<ObjId> = out.trackers.iter().filter(|(_, _, m)| m.marked()).map(|(id, _, _)| *id).collect();
    let mut in_use: FxHashSet<(ObjId, &str)> = FxHashSet::default();
    for (&tracker, rel_ids) in &manages {
        let Some(t) = object(tracker).and_then(tracker_of) else { continue };
        if marked.contains(&tracker) || t.kind == TrackerKind::ComponentRevision {
            continue;
        }
        let Some(&a) = app.get(&tracker) else { continue };
        for &ri in rel_ids {
            let managed = relation(ri).and_then(|r| t.managed.get(r.decl as usize));
            if let Some(c) = managed.and_then(|m| m.component.as_deref()) {
                in_use.insert((a, c));
            }
        }
        // Recorded resources that are not in the snapshot still use their component.
        for m in t.managed.iter().filter(|m| !m.deleted) {
            if let Some(c) = m.component.as_deref() {
                in_use.insert((a, c));
            }
        }
    }
    for (tracker, a, mark) in &out.trackers {
        let Some(t) = object(*tracker).and_then(tracker_of) else { continue };
        let (TrackerKind::ComponentRevision, Some(a), false) = (t.kind, a, mark.marked()) else { continue };
        for &ri in manages.get(tracker).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(r) = relation(ri) else { continue };
            let Some(c) = t.managed.get(r.decl as usize).and_then(|m| m.component.as_deref()) else { continue };
            if !in_use.contains(&(*a, c)) && object(r.to).is_some_and(|o| o.deletion_timestamp.is_none()) {
                out.seeds.push((r.to, Garbage::UnusedRevision));
            }
        }
    }
    out.seeds.sort_by_key(|&(id, _)| id);
    out.seeds.dedup_by_key(|&mut (id, _)| id);
    Ok(out)
}

/// `keepLegacyResource`: `None` when the outdated tracker can be marked
/// (each resource it manages is gone or newer trackers manage it), else why not.
#[allow(clippy::too_many_arguments)]
fn legacy(
    id: ObjId,
    t: &TrackerSpec,
    rel_ids: Option<&Vec<u32>>,
    rels: &[Relation],
    managers: &FxHashMap<ObjId, Vec<ObjId>>,
    rank: &dyn Fn(ObjId) -> (u8, u64),
    objects: &[Object],
    closed_world: bool,
) -> Option<Mark> {
    let rel_ids = rel_ids.map(Vec::as_slice).unwrap_or(&[]);
    // (Ids are positions in `rels` and `objects`.)
    let relations = || rel_ids.iter().filter_map(|&ri| rels.get(ri as usize));
    let resolved: FxHashSet<u32> = relations().map(|r| r.decl).collect();
    for r in relations() {
        let newest = managers
            .get(&r.to)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&m| objects.get(m.index()).is_some_and(|o| o.deletion_timestamp.is_none()))
            .max_by_key(|&m| (rank(m), m));
        if newest == Some(id) {
            return Some(Mark::Legacy { holds: r.to });
        }
    }
    if !closed_world {
        let unknown = (0..).zip(&t.managed).find(|(j, m)| !resolved.contains(j) && !m.deleted).map(|(j, _)| j);
        if let Some(entry) = unknown {
            return Some(Mark::LegacyUnknown { entry });
        }
    }
    None
}
