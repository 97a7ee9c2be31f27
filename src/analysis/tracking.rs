//! The collector of an application that tracks what it deploys (KubeVela's
//! resource keeper, `pkg/resourcekeeper` and `pkg/resourcetracker`), in its
//! stages:
//!
//! - **listing** (`ListApplicationResourceTrackers`): an Application's
//!   trackers are those its labels name; the current versioned tracker is
//!   the one of its publish version (`app.oam.dev/publishVersion`) when it
//!   has one, else the one of its generation. The keeper refuses to go on
//!   (and so does the plan, where that Application's collector is at work)
//!   when a tracker carries another Application's uid, or when the current
//!   tracker is older than an outdated one.
//! - **mark**: when the Application is being deleted, every tracker; else,
//!   once its workflow has succeeded (or failed, with `continueOnFailure`),
//!   every versioned tracker but the current one — with
//!   `keepLegacyResource` only those whose every resource is gone, no
//!   longer the Application's, or recorded by a newer tracker; without
//!   `--closed-world`, a tracker whose Application is not in the snapshot
//!   is not marked (with it, it is).
//! - **finalize**: a resource of a marked tracker is deleted unless an
//!   active tracker still records it (the cascade's rule: a managed
//!   resource goes when no live manager is left), and unless the keeper
//!   releases it (`DeleteManagedResourceInApplication`): it is no longer
//!   the Application's (labels, `app.oam.dev/shared-by`), another sharer
//!   stays, the tracker recorded it with `skipGC`, the Application carries
//!   the orphan finalizer, or the first rule that matches it with a
//!   propagation says `orphan`. Those are [`Gate`]s on the relation.
//!   Strategies (`never`, `onAppDelete`) act when a resource is recorded
//!   (`skipGC`, the root tracker), not here: where the policy and the
//!   record disagree, the record decides (and the plan warns).
//! - **sweep**: a marked tracker loses its finalizer once what it deletes
//!   is gone (it is ordered after its resources).
//! - **component revisions** (after a successful workflow): a revision
//!   whose component no tracker that stays records is garbage; it goes
//!   after the trackers that recorded it.
//!
//! Linear in objects and relations (plus, for revisions, the records of
//! each Application's trackers).

use super::cascade::{Cascade, Garbage, Gate, Keep, KeptBy};
use crate::dialect::kubevela::labels::{
    APP_NAME, APP_NAMESPACE, COMPONENT, OAM_RESOURCE_TYPE, ORPHAN_FINALIZER, TRAIT_TYPE, WORKLOAD_TYPE,
};
use crate::model::tracking::{
    AppSpec, Managed, Propagation, RuleFacts, Strategy, TrackerKind, TrackerSpec, Tracking, Workflow,
};
use crate::model::{ObjId, Object, RelKind, Relation, Str};
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
    /// Marked: a versioned tracker of another publish version (`None`: it
    /// has none) than the Application's.
    OtherVersion { version: Option<Str>, current: Str },
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
    /// Not marked: outdated, but the Application's workflow has not
    /// succeeded (as its status says), and the controller runs the mark
    /// stage only once it has.
    WorkflowPending(Workflow),
}

impl Mark {
    pub fn marked(&self) -> bool {
        matches!(
            self,
            Mark::Outdated { .. }
                | Mark::OtherVersion { .. }
                | Mark::AppDeleted(_)
                | Mark::AppAbsent
                | Mark::AlreadyMarked
        )
    }
}

/// Why the keeper refuses to list an Application's trackers: it stops
/// there, and collects nothing of that Application.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Broken {
    /// A tracker whose `app.oam.dev/uid` label is not its Application's uid
    /// (`app_uid`; `None`: the snapshot does not say it): the tracker of an
    /// earlier Application of that name. The keeper: "delete it manually".
    ForeignTracker { app: ObjId, tracker: ObjId, uid: Str, app_uid: Option<Str> },
    /// The current tracker (of publish version `version`, or of the
    /// Application's generation) is of an older generation than an
    /// outdated one: "in-use and outdated".
    StalePublishVersion { app: ObjId, tracker: ObjId, version: Option<Str>, generation: u64, newer: u64 },
}

impl Broken {
    pub fn app(&self) -> ObjId {
        match self {
            Broken::ForeignTracker { app, .. } | Broken::StalePublishVersion { app, .. } => *app,
        }
    }
}

/// Why the collector cannot be predicted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unknowable {
    /// The Application has versioned trackers but no `metadata.generation`
    /// (and no publish version): which is current cannot be told.
    NoGeneration { app: ObjId, trackers: u32 },
    /// The keeper refuses to list the Application's trackers.
    Listing(Broken),
}

/// A record of a tracker that the Application's policy, as it is now,
/// would have recorded otherwise (`never`: in the root tracker with
/// `skipGC`; `onAppDelete`: in the root tracker; else in a versioned one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The `Manages` relation of the record.
    pub relation: u32,
    /// The first rule that matches the resource (0-based), and its
    /// strategy (`None`: no rule matches, or it writes none).
    pub rule: Option<u32>,
    pub strategy: Option<Strategy>,
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
    /// A component revision goes after each tracker that recorded its
    /// component: (revision, tracker, the component-revision tracker).
    pub after: Vec<(ObjId, ObjId, ObjId)>,
    /// Applications whose trackers the keeper refuses to list (outside
    /// `--gc`, where it is an error at once).
    pub broken: Vec<Broken>,
    /// Records the policy disagrees with.
    pub disagreements: Vec<Disagreement>,
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

/// The facts rule selectors match (`ResourcePolicyRuleSelector.Match`):
/// the resource's labels, as the cluster holds them (`live`, an object
/// with a `resourceVersion`); for one written by hand, what its tracker
/// records and its Application's component of that name say.
pub fn facts<'a>(m: &'a Managed, app: Option<&'a AppSpec>, live: Option<&'a Object>) -> RuleFacts<'a> {
    if let Some(o) = live.filter(|o| o.versioned) {
        return RuleFacts {
            component: o.label(COMPONENT),
            component_type: o.label(WORKLOAD_TYPE),
            oam_type: o.label(OAM_RESOURCE_TYPE),
            trait_type: o.label(TRAIT_TYPE),
            kind: &o.kind,
            name: &o.name,
        };
    }
    let component = m.component.as_deref();
    RuleFacts {
        component,
        component_type: component.and_then(|c| app.and_then(|a| a.component(c))).and_then(|c| c.type_name.as_deref()),
        oam_type: Some(if m.trait_type.is_some() { "TRAIT" } else { "WORKLOAD" }),
        trait_type: m.trait_type.as_deref(),
        kind: &m.kind,
        name: &m.name,
    }
}

/// `FindStrategy`: the first rule that matches, and its strategy (`None`:
/// it writes none, which changes nothing).
pub fn find_strategy(app: &AppSpec, f: &RuleFacts) -> Option<(u32, Option<Strategy>)> {
    let (i, rule) = app.policy.rules.iter().enumerate().find(|(_, r)| r.selector.matches(f))?;
    Some((i as u32, rule.strategy))
}

/// `FindDeleteOption`: the first rule that matches and writes a propagation.
pub fn find_propagation(app: &AppSpec, f: &RuleFacts) -> Option<(u32, Propagation)> {
    let (i, rule) =
        app.policy.rules.iter().enumerate().find(|(_, r)| r.propagation.is_some() && r.selector.matches(f))?;
    Some((i as u32, rule.propagation?))
}

/// Is there anything of a tracking application in the snapshot?
pub fn any(objects: &[Object]) -> bool {
    objects.iter().any(|o| o.tracking.is_some())
}

/// An Application as its keeper sees it.
struct App<'a> {
    spec: &'a AppSpec,
    object: &'a Object,
    /// Its trackers, in input order.
    trackers: Vec<ObjId>,
    /// The mark stage runs: the workflow succeeded (or failed, with
    /// `continueOnFailure`), or the Application is being deleted.
    marks: bool,
}

impl App<'_> {
    fn deleted(&self) -> bool {
        self.object.deletion_timestamp.is_some()
    }
    fn orphan(&self) -> bool {
        self.object.finalizers.iter().any(|f| &**f == ORPHAN_FINALIZER)
    }
}

/// The key `namespace/name` the keeper knows an Application by
/// (`GetAppKey`), from its tracker's labels.
fn app_key(t: &TrackerSpec) -> String {
    format!("{}/{}", t.app.namespace.as_deref().unwrap_or("default"), t.app.name)
}

/// `GetControlledBy`: the Application `o`'s labels name, `namespace/name`
/// (both labels written and not empty).
fn controlled_by(o: &Object) -> Option<(&str, &str)> {
    let ns = o.label(APP_NAMESPACE).filter(|v| !v.is_empty())?;
    let name = o.label(APP_NAME).filter(|v| !v.is_empty())?;
    Some((ns, name))
}

fn shared_by(o: &Object) -> Option<&str> {
    o.tools().and_then(|t| t.kubevela_shared_by.as_deref())
}

/// `IsResourceManagedByApplication`: the labels name the Application, or
/// the object has no `resourceVersion` (and the Application no orphan
/// finalizer), or `app.oam.dev/shared-by` lists it.
fn owned_by(o: &Object, key: &str, orphan: bool) -> bool {
    controlled_by(o).is_some_and(|(ns, name)| key.split_once('/') == Some((ns, name)))
        || (!o.versioned && !orphan)
        || shared_by(o).is_some_and(|s| s.split(',').any(|x| x == key))
}

/// `RemoveSharer`: the sharers left once `key` is removed from `shared`
/// (`None`: none, the string left is empty). A sharer may be empty (the
/// keeper keeps empty items between commas).
fn other_sharers<'a>(shared: &'a str, key: &str) -> Option<Vec<&'a str>> {
    let rest: Vec<&str> = shared.split(',').filter(|x| *x != key).collect();
    (!rest.join(",").is_empty()).then_some(rest)
}

/// The collector's stages before the cascade: the listing, and with `gc`
/// the mark stage and the component revisions; always, the gates and the
/// order of component revisions. `Err`: an Application whose current
/// tracker cannot be told, or (under `gc`) whose trackers the keeper
/// refuses to list.
pub fn collect(objects: &[Object], rels: &[Relation], gc: bool, closed_world: bool) -> Result<Collection, Unknowable> {
    let mut out = Collection { gates: vec![None; rels.len()], ..Collection::default() };
    let keeper = Keeper::of(objects, rels);
    let current = keeper.listing(gc, &mut out)?;
    keeper.mark(gc, closed_world, &current, &mut out)?;
    keeper.gates(&mut out);
    keeper.revisions(gc, &mut out);
    out.seeds.sort_by_key(|&(id, _)| id);
    out.seeds.dedup_by_key(|&mut (id, _)| id);
    out.after.sort_unstable();
    out.after.dedup();
    Ok(out)
}

/// The snapshot as the keeper sees it: Applications, their trackers, and
/// what each tracker manages.
struct Keeper<'a> {
    objects: &'a [Object],
    rels: &'a [Relation],
    /// Each tracker's Application.
    app: FxHashMap<ObjId, ObjId>,
    /// What each tracker manages (relation indexes).
    manages: FxHashMap<ObjId, Vec<u32>>,
    /// The trackers that manage each resource.
    managers: FxHashMap<ObjId, Vec<ObjId>>,
    /// The Applications of the snapshot with their trackers.
    apps: FxHashMap<ObjId, App<'a>>,
    /// The Applications in reference order, whatever order the input was
    /// read in: what is found first (the tracker a message names) does not
    /// depend on it.
    app_ids: Vec<ObjId>,
}

impl<'a> Keeper<'a> {
    fn of(objects: &'a [Object], rels: &'a [Relation]) -> Keeper<'a> {
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
        // Relation and object ids are positions in `rels` and `objects`,
        // which made them: every `get` finds its entry.
        let object = |id: ObjId| objects.get(id.index());
        let mut apps: FxHashMap<ObjId, App> = FxHashMap::default();
        for (i, o) in objects.iter().enumerate() {
            let id = ObjId(i as u32);
            let Some(&a) = app.get(&id).filter(|_| tracker_of(o).is_some()) else { continue };
            let (Some(ao), Some(spec)) = (object(a), object(a).and_then(app_of)) else { continue };
            let marks = match &spec.workflow {
                Workflow::Succeeded => true,
                Workflow::Failed => spec.policy.continue_on_failure,
                Workflow::Pending(_) | Workflow::Unknown => false,
            };
            apps.entry(a)
                .or_insert_with(|| App {
                    spec,
                    object: ao,
                    trackers: Vec::new(),
                    marks: marks || ao.deletion_timestamp.is_some(),
                })
                .trackers
                .push(id);
        }
        let reference = |id: &ObjId| object(*id).map(Object::reference);
        let mut app_ids: Vec<ObjId> = apps.keys().copied().collect();
        app_ids.sort_by_cached_key(reference);
        for info in apps.values_mut() {
            info.trackers.sort_by_cached_key(reference);
        }
        Keeper { objects, rels, app, manages, managers, apps, app_ids }
    }

    fn object(&self, id: ObjId) -> Option<&'a Object> {
        self.objects.get(id.index())
    }

    fn tracker(&self, id: ObjId) -> Option<&'a TrackerSpec> {
        self.object(id).and_then(tracker_of)
    }

    /// Listing: which versioned trackers are current, and what the keeper
    /// refuses (an error under `gc`, else listed as broken).
    fn listing(&self, gc: bool, out: &mut Collection) -> Result<FxHashSet<ObjId>, Unknowable> {
        let mut current: FxHashSet<ObjId> = FxHashSet::default();
        for a in &self.app_ids {
            let Some(info) = self.apps.get(a) else { continue };
            let versioned = || {
                info.trackers
                    .iter()
                    .filter_map(|&t| Some((t, self.tracker(t)?)))
                    .filter(|(_, t)| t.kind == TrackerKind::Versioned)
            };
            let foreign = info.trackers.iter().find_map(|&t| {
                let uid = self.tracker(t)?.app_uid.clone()?;
                (info.object.uid.as_deref() != Some(&*uid)).then(|| Broken::ForeignTracker {
                    app: *a,
                    tracker: t,
                    uid,
                    app_uid: info.object.uid.clone(),
                })
            });
            let mut broken = foreign;
            let first = match &info.spec.publish_version {
                Some(v) => versioned().find(|(_, t)| t.publish_version.as_deref() == Some(&**v)),
                None => match info.spec.generation {
                    Some(g) => versioned().find(|(_, t)| t.generation.unwrap_or(0) == g),
                    None => None,
                },
            };
            for (t, spec) in versioned() {
                let is_current = match (&info.spec.publish_version, info.spec.generation) {
                    (Some(v), _) => spec.publish_version.as_deref() == Some(&**v),
                    (None, Some(g)) => spec.generation.unwrap_or(0) == g,
                    (None, None) => false,
                };
                if is_current {
                    current.insert(t);
                }
            }
            if let (None, Some((t, spec))) = (&broken, first) {
                let generation = spec.generation.unwrap_or(0);
                let newer = versioned()
                    .filter(|(x, _)| !current.contains(x))
                    .map(|(_, s)| s.generation.unwrap_or(0))
                    .max()
                    .filter(|&n| n > generation);
                if let Some(newer) = newer {
                    let version = info.spec.publish_version.clone();
                    broken = Some(Broken::StalePublishVersion { app: *a, tracker: t, version, generation, newer });
                }
            }
            if let Some(b) = broken {
                if gc {
                    return Err(Unknowable::Listing(b));
                }
                out.broken.push(b);
            }
        }
        Ok(current)
    }

    /// Mark (under `gc`): each tracker's mark, and the marked ones as seeds.
    fn mark(
        &self,
        gc: bool,
        closed_world: bool,
        current: &FxHashSet<ObjId>,
        out: &mut Collection,
    ) -> Result<(), Unknowable> {
        if !gc {
            return Ok(());
        }
        for (i, o) in self.objects.iter().enumerate() {
            let Some(t) = tracker_of(o) else { continue };
            let id = ObjId(i as u32);
            let a = self.app.get(&id).copied();
            let info = a.and_then(|a| self.apps.get(&a));
            let mark = if o.deletion_timestamp.is_some() {
                Mark::AlreadyMarked
            } else if let (Some(a), true) = (a, info.is_some_and(App::deleted)) {
                Mark::AppDeleted(a)
            } else if a.is_none() {
                match closed_world {
                    true => Mark::AppAbsent,
                    false => Mark::AppNotInSnapshot,
                }
            } else {
                match (t.kind, info) {
                    (TrackerKind::Root, _) => Mark::Root,
                    (TrackerKind::ComponentRevision, _) => Mark::Revisions,
                    (TrackerKind::Versioned, _) if current.contains(&id) => Mark::Current,
                    (TrackerKind::Versioned, None) => Mark::AppNotInSnapshot,
                    (TrackerKind::Versioned, Some(info)) => self.outdated(id, t, a, info, current, closed_world)?,
                }
            };
            if mark.marked() && o.deletion_timestamp.is_none() {
                out.seeds.push((id, Garbage::Tracker));
            }
            out.trackers.push((id, a, mark));
        }
        Ok(())
    }

    /// The mark of versioned tracker `id` (`t`) of Application `a`
    /// (`info`), not the current one.
    fn outdated(
        &self,
        id: ObjId,
        t: &TrackerSpec,
        a: Option<ObjId>,
        info: &App,
        current: &FxHashSet<ObjId>,
        closed_world: bool,
    ) -> Result<Mark, Unknowable> {
        if info.spec.publish_version.is_none() && info.spec.generation.is_none() {
            let trackers = info.trackers.len() as u32;
            return Err(Unknowable::NoGeneration { app: a.unwrap_or(id), trackers });
        }
        let outdated = match (&info.spec.publish_version, info.spec.generation) {
            (Some(v), _) => Mark::OtherVersion { version: t.publish_version.clone(), current: v.clone() },
            (None, g) => Mark::Outdated { generation: t.generation.unwrap_or(0), current: g.unwrap_or(0) },
        };
        if !info.marks {
            return Ok(Mark::WorkflowPending(info.spec.workflow.clone()));
        }
        if !info.spec.policy.keep_legacy {
            return Ok(outdated);
        }
        // The newest tracker of each resource, as the keeper registers them
        // (`registerResourceTrackers`): outdated by generation, then the
        // current one, then the root tracker.
        let rank = |t: ObjId| -> (u8, u64) {
            let spec = self.tracker(t);
            match spec.map(|s| s.kind) {
                Some(TrackerKind::Root) => (3, 0),
                Some(_) if current.contains(&t) => (2, 0),
                Some(_) => (1, spec.and_then(|s| s.generation).unwrap_or(0)),
                None => (0, 0),
            }
        };
        let owner = |r: ObjId| self.object(r).is_some_and(|ro| owned_by(ro, &app_key(t), info.orphan()));
        let mine = |m: ObjId| self.app.get(&m).copied() == a;
        let (rels, managers, objects) = (self.rels, &self.managers, self.objects);
        Ok(legacy(id, t, self.manages.get(&id), rels, managers, &rank, &mine, &owner, objects, closed_world)
            .unwrap_or(outdated))
    }

    /// Gates: what the keeper releases, or takes for not the Application's;
    /// and where the policy and the record disagree.
    fn gates(&self, out: &mut Collection) {
        let mut tracker_ids: Vec<&ObjId> = self.manages.keys().collect();
        tracker_ids.sort_unstable();
        for &t_id in tracker_ids {
            let Some(t) = self.tracker(t_id) else { continue };
            let a = self.app.get(&t_id).copied();
            let info = a.and_then(|a| self.apps.get(&a));
            let spec = a.and_then(|a| self.object(a)).and_then(app_of);
            let orphan = info.is_some_and(App::orphan);
            let key = app_key(t);
            for &ri in self.manages.get(&t_id).map(Vec::as_slice).unwrap_or(&[]) {
                let Some(r) = self.rels.get(ri as usize) else { continue };
                let (Some(m), Some(res)) = (t.managed.get(r.decl as usize), self.object(r.to)) else { continue };
                if t.kind == TrackerKind::ComponentRevision {
                    continue;
                }
                let released = |keep: Keep| Gate {
                    unless_deleted: None,
                    kept: KeptBy::Released { relation: ri, app: a, keep },
                    owner: true,
                };
                let gate = if !owned_by(res, &key, orphan) {
                    match res.versioned {
                        // Not the Application's only for the orphan finalizer.
                        false => Some(released(Keep::OrphanFinalizer)),
                        true => Some(Gate { owner: false, ..released(Keep::NotOwned) }),
                    }
                } else if self.other_sharer_stays(res, r.to, &key) {
                    Some(released(Keep::Shared))
                } else if m.skip_gc {
                    Some(released(Keep::SkipGc))
                } else if orphan {
                    Some(released(Keep::OrphanFinalizer))
                } else {
                    spec.and_then(|s| find_propagation(s, &facts(m, Some(s), Some(res))))
                        .filter(|(_, p)| *p == Propagation::Orphan)
                        .map(|(rule, _)| released(Keep::Orphan { rule }))
                };
                if let (Some(gate), Some(slot)) = (gate, out.gates.get_mut(ri as usize)) {
                    *slot = Some(gate);
                }
                // What the policy would have recorded, against the record.
                if let (Some(s), false) = (spec, m.deleted) {
                    let found = find_strategy(s, &facts(m, Some(s), Some(res)));
                    let strategy = found.and_then(|(_, s)| s);
                    let (root, skip) = match strategy {
                        Some(Strategy::Never) => (true, true),
                        Some(Strategy::OnAppDelete) => (true, false),
                        Some(Strategy::OnAppUpdate) | None => (false, false),
                    };
                    if root != (t.kind == TrackerKind::Root) || skip != m.skip_gc {
                        out.disagreements.push(Disagreement { relation: ri, rule: found.map(|(i, _)| i), strategy });
                    }
                }
            }
        }
    }

    /// Does another sharer of resource `res` (`id`) than `key` stay? A
    /// sharer whose trackers do not record it here stays one.
    fn other_sharer_stays(&self, res: &Object, id: ObjId, key: &str) -> bool {
        shared_by(res).and_then(|s| other_sharers(s, key)).is_some_and(|others| {
            others.iter().any(|s| {
                !self
                    .managers
                    .get(&id)
                    .into_iter()
                    .flatten()
                    .any(|&x| self.tracker(x).is_some_and(|x| app_key(x) == *s))
            })
        })
    }

    /// Component revisions: in use while a tracker of the Application that
    /// stays records their component
    /// (`GarbageCollectComponentRevisionResourceTracker`).
    fn revisions(&self, gc: bool, out: &mut Collection) {
        let marked: FxHashSet<ObjId> =
            out.trackers.iter().filter(|(_, _, m)| m.marked()).map(|(id, _, _)| *id).collect();
        for a in &self.app_ids {
            let Some(info) = self.apps.get(a) else { continue };
            let mut users: FxHashMap<(Option<&str>, &str), Vec<ObjId>> = FxHashMap::default();
            for &t in &info.trackers {
                let Some(spec) = self.tracker(t).filter(|s| s.kind != TrackerKind::ComponentRevision) else { continue };
                for m in spec.managed.iter() {
                    if let Some(c) = m.component.as_deref() {
                        let list = users.entry((m.cluster.as_deref(), c)).or_default();
                        if list.last() != Some(&t) {
                            list.push(t);
                        }
                    }
                }
            }
            let collects = gc && !info.deleted() && info.spec.workflow == Workflow::Succeeded;
            for &cr in &info.trackers {
                let Some(spec) = self.tracker(cr).filter(|s| s.kind == TrackerKind::ComponentRevision) else {
                    continue;
                };
                for &ri in self.manages.get(&cr).map(Vec::as_slice).unwrap_or(&[]) {
                    let Some(r) = self.rels.get(ri as usize) else { continue };
                    let Some(m) = spec.managed.get(r.decl as usize) else { continue };
                    let Some(c) = m.component.as_deref() else { continue };
                    let used = users.get(&(m.cluster.as_deref(), c)).map(Vec::as_slice).unwrap_or(&[]);
                    for &u in used {
                        // (Not where the tracker records the revision itself: that order is the other way.)
                        if !self.managers.get(&r.to).is_some_and(|ms| ms.contains(&u)) {
                            out.after.push((r.to, u, cr));
                        }
                    }
                    let live = self.object(r.to).is_some_and(|o| o.deletion_timestamp.is_none());
                    if collects && live && !marked.contains(&cr) && used.iter().all(|u| marked.contains(u)) {
                        out.seeds.push((r.to, Garbage::UnusedRevision));
                    }
                }
            }
        }
    }
}

/// `keepLegacyResource` (`scan`, passive): `None` when the outdated
/// tracker can be marked (each resource it records is gone, not the
/// Application's, or recorded by a newer tracker of it), else why not.
#[allow(clippy::too_many_arguments)]
fn legacy(
    id: ObjId,
    t: &TrackerSpec,
    rel_ids: Option<&Vec<u32>>,
    rels: &[Relation],
    managers: &FxHashMap<ObjId, Vec<ObjId>>,
    rank: &dyn Fn(ObjId) -> (u8, u64),
    mine: &dyn Fn(ObjId) -> bool,
    owned: &dyn Fn(ObjId) -> bool,
    objects: &[Object],
    closed_world: bool,
) -> Option<Mark> {
    let rel_ids = rel_ids.map(Vec::as_slice).unwrap_or(&[]);
    // (Ids are positions in `rels` and `objects`.)
    let relations = || rel_ids.iter().filter_map(|&ri| rels.get(ri as usize));
    let resolved: FxHashSet<u32> = relations().map(|r| r.decl).collect();
    for r in relations() {
        if !owned(r.to) {
            continue;
        }
        let newest = managers
            .get(&r.to)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&m| mine(m) && objects.get(m.index()).is_some_and(|o| o.deletion_timestamp.is_none()))
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

/// Does the plan delete Application `app` or one of its trackers (so that
/// its keeper is at work)?
pub fn involved(app: ObjId, rels: &[Relation], cascade: &Cascade) -> bool {
    cascade.deleted(app)
        || rels
            .iter()
            .any(|r| r.kind == RelKind::Manages && r.decl == u32::MAX && r.from == app && cascade.deleted(r.to))
}

/// A resource kept because a live tracker of another sharer still records
/// it, while a sharer's tracker that the plan deletes records it too: the
/// keeper of that sharer removes it from `app.oam.dev/shared-by` and leaves
/// the resource (its last sharer deletes it). Says so, in place of "still
/// managed".
pub fn shared_keeps(objects: &[Object], rels: &[Relation], rank: &[u32], cascade: &mut Cascade) {
    let managed = |r: &Relation| r.kind == RelKind::Manages && r.decl != u32::MAX;
    let candidate = |id: ObjId, by: &KeptBy| match *by {
        KeptBy::SolidOwner(r) => {
            rels.get(r as usize).is_some_and(managed) && objects.get(id.index()).and_then(shared_by).is_some()
        }
        _ => false,
    };
    let wanted: FxHashSet<ObjId> =
        cascade.kept.iter().filter(|(id, by)| candidate(*id, by)).map(|(id, _)| *id).collect();
    if wanted.is_empty() {
        return;
    }
    // The trackers that record each of them, and each tracker's Application.
    let mut into: FxHashMap<ObjId, Vec<u32>> = FxHashMap::default();
    let mut app: FxHashMap<ObjId, ObjId> = FxHashMap::default();
    for (ri, r) in rels.iter().enumerate() {
        if managed(r) && wanted.contains(&r.to) {
            into.entry(r.to).or_default().push(ri as u32);
        } else if r.kind == RelKind::Manages && r.decl == u32::MAX {
            app.insert(r.to, r.from);
        }
    }
    for (id, by) in cascade.kept.iter_mut() {
        let KeptBy::SolidOwner(r) = *by else { continue };
        let (Some(keeper), Some(shared)) = (rels.get(r as usize), objects.get(id.index()).and_then(shared_by)) else {
            continue;
        };
        let listed = |t: ObjId| {
            let key = objects.get(t.index()).and_then(tracker_of).map(app_key);
            key.is_some_and(|k| shared.split(',').any(|x| x == k))
        };
        if !wanted.contains(id) || !listed(keeper.from) {
            continue;
        }
        // (The first in reference order, for the message.)
        let leaving = into
            .get(id)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&ri| {
                rels.get(ri as usize)
                    .is_some_and(|x| cascade.cause.get(x.from.index()).is_some_and(Option::is_some) && listed(x.from))
            })
            .min_by_key(|&ri| rels.get(ri as usize).and_then(|x| rank.get(x.from.index())).copied());
        if let Some(ri) = leaving {
            let from = rels.get(ri as usize).map(|x| x.from);
            *by = KeptBy::Released { relation: ri, app: from.and_then(|t| app.get(&t).copied()), keep: Keep::Shared };
        }
    }
}
