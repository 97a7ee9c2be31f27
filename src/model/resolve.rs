//! Resolving references into relations.
//!
//! Decides each object's scope (built-in kinds, CRDs of the snapshot, else
//! whether a namespace is written), then resolves owner references (by uid,
//! falling back to kind + name in the dependent's namespace or the cluster
//! scope), adds the implicit relations (a Namespace contains its objects, a
//! CRD defines its custom resources), and resolves destruction dependencies.
//! What does not resolve is returned for `check` to report.

use super::kube::{builtin_cluster_kind, builtin_namespaced, current_group, Reclaim};
use super::tracking::{TrackerKind as TrackingKind, Tracking};
use super::{ControllerEdge, DepSide, DepTarget, Identity, Link, ObjId, Object, RelKind, Relation};
use hashbrown::hash_table::Entry;
use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::hash::Hasher;

/// Two objects with the same identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Duplicate {
    pub first: ObjId,
    pub again: ObjId,
    /// Same uid (and not the same kind/namespace/name).
    pub by_uid: bool,
}

#[derive(Default)]
pub struct Resolved {
    pub relations: Vec<Relation>,
    /// (dependent, index of the owner reference) that name no object.
    pub missing_owners: Vec<(ObjId, u32)>,
    /// (declaring object, index of the dependency) that name no object.
    pub missing_deps: Vec<(ObjId, u32)>,
    pub duplicates: Vec<Duplicate>,
    /// Owner references of Kubernetes objects the garbage collector cannot
    /// resolve: (dependent, reference index, why), in object and reference
    /// order ([`super::served`]).
    pub unresolvable: Vec<(ObjId, u32, super::served::Unresolvable)>,
    /// Application controllers' managed sets (`analysis::managed`).
    pub managed: super::managed::Managed,
}

impl Resolved {
    /// For each of `n` objects, the first owner reference the collector
    /// cannot resolve in this world (`Undefined` types only in a closed
    /// one), by index; empty when there is none.
    pub fn unresolvable_by_object(&self, n: usize, closed_world: bool) -> Vec<Option<u32>> {
        let mut out = Vec::new();
        for &(id, j, why) in &self.unresolvable {
            if !why.holds(closed_world) {
                continue;
            }
            if out.is_empty() {
                out = vec![None; n];
            }
            if let Some(slot) = out.get_mut(id.index()) {
                slot.get_or_insert(j);
            }
        }
        out
    }

    /// Why the collector cannot resolve owner reference `j` of `id`, in this world.
    pub fn unresolvable_ref(&self, id: ObjId, j: u32, closed_world: bool) -> Option<super::served::Unresolvable> {
        let at = self.unresolvable.partition_point(|&(i, k, _)| (i, k) < (id, j));
        self.unresolvable
            .get(at)
            .filter(|&&(i, k, why)| (i, k) == (id, j) && why.holds(closed_world))
            .map(|&(_, _, why)| why)
    }
}

/// Lookup tables over the objects of a snapshot. The tables hold object
/// ids only (4 bytes a slot) and compare keys against the objects
/// themselves: at a million objects, tuples of strings as keys took
/// hundreds of megabytes.
pub struct Index<'a> {
    objects: &'a [Object],
    by_uid: HashTable<u32>,
    /// (group, kind, namespace, name).
    by_key: HashTable<u32>,
    /// (kind, namespace, name) → the first object of any group…
    by_name: HashTable<u32>,
    /// …and the others, in input order (rare: the same kind and name in two groups).
    by_name_more: FxHashMap<u32, Vec<ObjId>>,
}

fn hash_of(parts: &[&str]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for p in parts {
        h.write(p.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

fn ns(o: Option<&str>) -> &str {
    // A namespace cannot contain `/`: this stands for "cluster-scoped".
    o.unwrap_or("/")
}

fn uid_hash(o: &Object) -> u64 {
    hash_of(&[o.uid.as_deref().unwrap_or("")])
}

fn key_hash(o: &Object) -> u64 {
    hash_of(&[&o.group, &o.kind, ns(o.namespace.as_deref()), &o.name])
}

fn name_hash(o: &Object) -> u64 {
    hash_of(&[&o.kind, ns(o.namespace.as_deref()), &o.name])
}

impl<'a> Index<'a> {
    pub fn build(objects: &'a [Object], duplicates: &mut Vec<Duplicate>) -> Index<'a> {
        let n = objects.len();
        // Every id in the tables is the position of an object of `objects`.
        let at = |id: &u32| objects.get(*id as usize);
        let mut by_uid = HashTable::with_capacity(n);
        let mut by_key = HashTable::with_capacity(n);
        let mut by_name = HashTable::with_capacity(n);
        let mut by_name_more: FxHashMap<u32, Vec<ObjId>> = FxHashMap::default();
        // The keys' hashes, in parallel; the tables are filled in order
        // (the first of an identity is the one kept).
        let hashes: Vec<[u64; 3]> = {
            use rayon::prelude::*;
            objects.par_iter().map(|o| [key_hash(o), uid_hash(o), name_hash(o)]).collect()
        };
        for ((i, o), &[key, uid_key, name]) in objects.iter().enumerate().zip(&hashes) {
            let id = ObjId(i as u32);
            let same_key =
                |p: &Object| p.group == o.group && p.kind == o.kind && p.namespace == o.namespace && p.name == o.name;
            let mut key_dup = false;
            match by_key.entry(key, |p| at(p).is_some_and(same_key), |p| at(p).map_or(0, key_hash)) {
                Entry::Occupied(e) => {
                    duplicates.push(Duplicate { first: ObjId(*e.get()), again: id, by_uid: false });
                    key_dup = true;
                }
                Entry::Vacant(e) => {
                    e.insert(id.0);
                }
            }
            if let Some(uid) = o.uid.as_deref() {
                let same_uid = |p: &u32| at(p).is_some_and(|p| p.uid.as_deref() == Some(uid));
                match by_uid.entry(uid_key, same_uid, |p| at(p).map_or(0, uid_hash)) {
                    Entry::Occupied(e) => {
                        if !key_dup {
                            duplicates.push(Duplicate { first: ObjId(*e.get()), again: id, by_uid: true });
                        }
                    }
                    Entry::Vacant(e) => {
                        e.insert(id.0);
                    }
                }
            }
            if !key_dup {
                let same_name = |p: &Object| p.kind == o.kind && p.namespace == o.namespace && p.name == o.name;
                match by_name.entry(name, |p| at(p).is_some_and(same_name), |p| at(p).map_or(0, name_hash)) {
                    Entry::Occupied(e) => by_name_more.entry(*e.get()).or_default().push(id),
                    Entry::Vacant(e) => {
                        e.insert(id.0);
                    }
                }
            }
        }
        Index { objects, by_uid, by_key, by_name, by_name_more }
    }

    /// The object `id` (`None`: not one of the objects indexed).
    pub fn get(&self, id: ObjId) -> Option<&'a Object> {
        self.objects.get(id.index())
    }

    /// Does the table slot `p` hold an object `f` accepts?
    fn holds(&self, p: &u32, f: impl FnOnce(&Object) -> bool) -> bool {
        self.objects.get(*p as usize).is_some_and(f)
    }

    pub fn by_uid(&self, uid: &str) -> Option<ObjId> {
        self.by_uid.find(hash_of(&[uid]), |p| self.holds(p, |o| o.uid.as_deref() == Some(uid))).map(|p| ObjId(*p))
    }

    pub fn by_key(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        let h = hash_of(&[group, kind, ns(namespace), name]);
        self.by_key
            .find(h, |p| {
                self.holds(p, |p| {
                    &*p.group == group && &*p.kind == kind && p.namespace.as_deref() == namespace && &*p.name == name
                })
            })
            .map(|p| ObjId(*p))
    }

    /// By kind and name in one namespace (or the cluster scope), preferring
    /// an object of the given group.
    pub fn by_name(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Option<ObjId> {
        let h = hash_of(&[kind, ns(namespace), name]);
        let first = *self.by_name.find(h, |p| {
            self.holds(p, |p| &*p.kind == kind && p.namespace.as_deref() == namespace && &*p.name == name)
        })?;
        let Some(more) = self.by_name_more.get(&first) else { return Some(ObjId(first)) };
        std::iter::once(ObjId(first))
            .chain(more.iter().copied())
            .find(|id| self.get(*id).is_some_and(|o| &*o.group == group))
            .or(Some(ObjId(first)))
    }

    pub fn namespace(&self, name: &str) -> Option<ObjId> {
        self.by_key("", "Namespace", None, name)
    }
}

/// Decide every object's scope: cluster-scoped objects lose any namespace
/// they were written with, namespaced ones without a namespace are in
/// `default` (as `kubectl apply` would put them). A kind neither built in
/// nor defined by a CRD of the snapshot is namespaced when a namespace is
/// written, else taken as cluster-scoped (its scope not known).
pub fn assign_scopes(objects: &mut [Object]) {
    // CRDs of the snapshot: group → kind → namespaced (first one wins).
    let mut crd_scope: FxHashMap<super::Str, FxHashMap<super::Str, bool>> = FxHashMap::default();
    for o in objects.iter() {
        if let Some(crd) = &o.crd {
            crd_scope.entry(crd.group.clone()).or_default().entry(crd.kind.clone()).or_insert(crd.namespaced);
        }
    }
    use rayon::prelude::*;
    objects.par_iter_mut().for_each(|o| {
        if !o.is_kubernetes() {
            return;
        }
        let known = builtin_namespaced(&o.group, &o.kind)
            .or_else(|| crd_scope.get(&*o.group).and_then(|kinds| kinds.get(&*o.kind)).copied());
        let namespaced = known.unwrap_or(o.namespace_written);
        // Else, written without a namespace, it is taken as cluster-scoped,
        // which it may not be.
        o.scope_known |= known.is_some() || o.namespace_written;
        if !namespaced {
            o.namespace = None;
        } else if o.namespace.is_none() {
            o.namespace = Some("default".into());
        }
    });
}

/// Objects resolved at a time by one thread.
const RUN: usize = 4096;

/// What a run of objects declares, in object order: their owner
/// references, implicit relations and dependencies resolved (the
/// relations in their places in the one vector they end in).
struct Part<'a> {
    owners: Slots<'a>,
    missing_owners: Vec<(ObjId, u32)>,
    unresolvable: Vec<(ObjId, u32, super::served::Unresolvable)>,
    implicit: Slots<'a>,
    deps: Slots<'a>,
    missing_deps: Vec<(ObjId, u32)>,
}

/// Room for a run's relations of one sort in the vector of all relations,
/// as many as its objects declare (at most): filled from the start; past
/// the room (a bound that does not hold, a bug) in a vector of its own.
struct Slots<'a> {
    room: &'a mut [Relation],
    len: usize,
    over: Vec<Relation>,
}

impl<'a> Slots<'a> {
    /// The first `n` relations of `rest`, which keeps the others.
    fn take(rest: &mut &'a mut [Relation], n: usize) -> Slots<'a> {
        let all = std::mem::take(rest);
        let (room, after) = all.split_at_mut(n.min(all.len()));
        *rest = after;
        Slots { room, len: 0, over: Vec::new() }
    }

    fn push(&mut self, r: Relation) {
        match self.room.get_mut(self.len) {
            Some(slot) => {
                *slot = r;
                self.len += 1;
            }
            None => self.over.push(r),
        }
    }

    fn filled(&self) -> &[Relation] {
        self.room.get(..self.len).unwrap_or_default()
    }
}

/// Resolve every reference, in parallel runs of objects (the tables are
/// only read); the relations come in the order one pass over the objects
/// would give: owner references, implicit relations, tracking
/// applications', controllers' cascades, dependencies.
///
/// Each run writes its relations into room of its own in the one vector
/// they end in, which is then closed up: a million objects' relations
/// (tens of megabytes) are neither held twice nor copied. The vector has
/// room, never touched until used, for as many relations again as there
/// are objects (a plan adds about one a namespaced object).
pub fn resolve(objects: &[Object]) -> Resolved {
    use rayon::prelude::*;
    let mut out = Resolved::default();
    let index = Index::build(objects, &mut out.duplicates);
    let served = super::served::Evidence::new(objects);
    // CRD → custom resources: the first CRD of a (group, kind).
    let mut crds: FxHashMap<(&str, &str), ObjId> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate() {
        if let Some(crd) = &o.crd {
            crds.entry((&*crd.group, &*crd.kind)).or_insert(ObjId(i as u32));
        }
    }
    // Room for each run: its owner references, two implicit relations an
    // object (its namespace's, its definition's), its dependencies.
    let declared: Vec<[usize; 3]> = objects
        .chunks(RUN)
        .map(|run| {
            let (owners, deps) = run.iter().fold((0, 0), |(o, d), x| (o + x.owners.len(), d + x.deps.len()));
            [owners, 2 * run.len(), deps]
        })
        .collect();
    let room = declared.iter().flatten().sum::<usize>();
    let mut all = Vec::with_capacity(room + objects.len());
    let blank = Relation::solid(RelKind::Owns, ObjId(0), ObjId(0), ObjId(0), 0);
    all.par_extend(rayon::iter::repeat_n(blank, room));
    let (mut owners_room, rest) = all.split_at_mut(declared.iter().map(|[o, _, _]| o).sum());
    let (mut implicit_room, mut deps_room) = rest.split_at_mut(declared.iter().map(|[_, i, _]| i).sum());
    let mut parts: Vec<Part> = declared
        .iter()
        .map(|&[owners, implicit, deps]| Part {
            owners: Slots::take(&mut owners_room, owners),
            missing_owners: Vec::new(),
            unresolvable: Vec::new(),
            implicit: Slots::take(&mut implicit_room, implicit),
            deps: Slots::take(&mut deps_room, deps),
            missing_deps: Vec::new(),
        })
        .collect();
    let each = |(n, (run, part)): (usize, (&[Object], &mut Part))| {
        let first = n * RUN;
        owners_of(&index, &served, first, run, part);
        implicit_of(&index, &crds, first, run, &mut part.implicit);
        deps_of(&index, first, run, part);
    };
    let (((), tracked_by), controlled_by) = rayon::join(
        || {
            rayon::join(
                || objects.par_chunks(RUN).zip(parts.par_iter_mut()).enumerate().for_each(each),
                || {
                    let mut rels = Vec::new();
                    tracked(&index, objects, &mut rels);
                    rels
                },
            )
        },
        || {
            let mut rels = Vec::new();
            controlled(&index, objects, &mut rels);
            rels
        },
    );
    for p in &mut parts {
        out.missing_owners.append(&mut p.missing_owners);
        out.unresolvable.append(&mut p.unresolvable);
        out.missing_deps.append(&mut p.missing_deps);
    }
    let closed = parts.iter().all(|p| p.owners.over.is_empty() && p.implicit.over.is_empty() && p.deps.over.is_empty());
    out.relations = if closed {
        // Where each run's room starts, and how much of it it filled.
        let filled: Vec<[usize; 3]> = parts.iter().map(|p| [p.owners.len, p.implicit.len, p.deps.len]).collect();
        drop(parts);
        let mut start = 0;
        let sorts: [Vec<(usize, usize)>; 3] = std::array::from_fn(|k| {
            let of = |n: &[usize; 3]| n.get(k).copied().unwrap_or(0);
            declared
                .iter()
                .zip(&filled)
                .map(|(d, f)| {
                    let at = start;
                    start += of(d);
                    (at, of(f))
                })
                .collect()
        });
        close_up(all, sorts, tracked_by.into_iter().chain(controlled_by))
    } else {
        let mut relations = Vec::new();
        relations.extend(parts.iter().flat_map(|p| p.owners.filled().iter().chain(&p.owners.over)));
        relations.extend(parts.iter().flat_map(|p| p.implicit.filled().iter().chain(&p.implicit.over)));
        relations.extend(tracked_by.into_iter().chain(controlled_by));
        relations.extend(parts.iter().flat_map(|p| p.deps.filled().iter().chain(&p.deps.over)));
        relations
    };
    out
}

/// `all`, its runs' relations closed up: of each sort (owner references,
/// implicit relations, dependencies), each run's (where its room starts,
/// how many it filled), in order; `between` goes after the second sort.
fn close_up(
    mut all: Vec<Relation>,
    sorts: [Vec<(usize, usize)>; 3],
    between: impl Iterator<Item = Relation>,
) -> Vec<Relation> {
    let (mut at, mut between_at) = (0, 0);
    for (k, runs) in sorts.iter().enumerate() {
        if k == 2 {
            between_at = at;
        }
        // Each run moves down (or stays): a run fills at most its room.
        for &(start, len) in runs {
            if start != at {
                all.copy_within(start..start + len, at);
            }
            at += len;
        }
    }
    all.truncate(at);
    drop(all.splice(between_at..between_at, between));
    all
}

/// The owner references of `run` (its first object's id `first`).
fn owners_of(index: &Index, served: &super::served::Evidence, first: usize, run: &[Object], part: &mut Part) {
    for (i, o) in run.iter().enumerate() {
        let id = ObjId((first + i) as u32);
        for (j, r) in o.owners.iter().enumerate() {
            let decl = j as u32;
            let identity = o.identity();
            let found = match identity {
                Identity::Id | Identity::Token => {
                    r.uid.as_deref().and_then(|u| index.by_uid(u)).map(|t| (t, Link::Solid))
                }
                Identity::Coordinates => resolve_owner(index, o, r),
                Identity::Ref => {
                    index.by_key(&r.group, &r.kind, r.namespace.as_deref(), &r.name).map(|t| (t, Link::Solid))
                }
            };
            if identity == Identity::Coordinates {
                let owner = found.and_then(|(owner, _)| index.get(owner));
                if let Some(why) = served.classify(r, owner) {
                    part.unresolvable.push((id, decl, why));
                }
            }
            match found {
                Some((owner, link)) => part.owners.push(Relation {
                    kind: RelKind::Owns,
                    from: owner,
                    to: id,
                    link,
                    declared_by: id,
                    decl,
                    controller: r.controller,
                }),
                None => part.missing_owners.push((id, decl)),
            }
        }
    }
}

/// Implicit relations of `run`: Namespace → namespaced objects, CRD →
/// custom resources.
fn implicit_of(index: &Index, crds: &FxHashMap<(&str, &str), ObjId>, first: usize, run: &[Object], out: &mut Slots) {
    // The namespace looked up last, and what it found: objects come in
    // runs of one namespace.
    let mut last: Option<(&str, Option<ObjId>)> = None;
    for (i, o) in run.iter().enumerate() {
        if !o.is_kubernetes() {
            continue;
        }
        let id = ObjId((first + i) as u32);
        if let Some(ns) = o.namespace.as_deref() {
            let found = match last {
                Some((name, found)) if name == ns => found,
                _ => index.namespace(ns),
            };
            last = Some((ns, found));
            if let Some(ns_obj) = found {
                out.push(implicit(RelKind::Contains, ns_obj, id));
            }
        }
        if let Some(&crd) = crds.get(&(&*o.group, &*o.kind)) {
            out.push(implicit(RelKind::Defines, crd, id));
        }
    }
}

/// The destruction dependencies of `run`.
fn deps_of(index: &Index, first: usize, run: &[Object], part: &mut Part) {
    for (i, o) in run.iter().enumerate() {
        let id = ObjId((first + i) as u32);
        for (j, d) in o.deps.iter().enumerate() {
            let target = match &d.target {
                DepTarget::Id(t) => index.by_uid(t),
                DepTarget::Object { group, kind, namespace, name } => {
                    let group = current_group(group, kind);
                    index
                        .by_key(group, kind, namespace.as_deref(), name)
                        .or_else(|| index.by_name(group, kind, namespace.as_deref(), name))
                }
            };
            let Some(target) = target else {
                part.missing_deps.push((id, j as u32));
                continue;
            };
            let (from, to) = match d.kind.side() {
                DepSide::Before => (target, id),
                DepSide::After => (id, target),
            };
            part.deps.push(Relation {
                kind: RelKind::DestroyAfter,
                from,
                to,
                link: Link::Solid,
                declared_by: id,
                decl: j as u32,
                controller: false,
            });
        }
    }
}

fn implicit(kind: RelKind, from: ObjId, to: ObjId) -> Relation {
    Relation::solid(kind, from, to, to, u32::MAX)
}

/// An owner reference of a Kubernetes object, as the collector resolves it:
/// the object at the reference's own coordinates (group and kind from its
/// apiVersion and kind, its name, in the dependent's namespace or the
/// cluster scope), which must have the referenced uid. When nothing is
/// there, the uid may still name an object elsewhere: the same kind and
/// name in another namespace (TD005, TD006), or other coordinates
/// (TD004); the relation is drawn, never solid.
fn resolve_owner(index: &Index, dependent: &Object, r: &super::OwnerRef) -> Option<(ObjId, Link)> {
    let at_coordinates = dependent
        .namespace
        .as_deref()
        .filter(|_| !builtin_cluster_kind(&r.kind))
        .and_then(|ns| index.by_key(&r.group, &r.kind, Some(ns), &r.name))
        .or_else(|| index.by_key(&r.group, &r.kind, None, &r.name));
    if let Some(mut owner) = at_coordinates {
        // Two documents at these coordinates (TD002): the one with the uid.
        if let Some(same) = r.uid.as_deref().and_then(|u| index.by_uid(u)) {
            if let (Some(a), Some(b)) = (index.get(owner), index.get(same)) {
                if (&a.group, &a.kind, &a.namespace, &a.name) == (&b.group, &b.kind, &b.namespace, &b.name) {
                    owner = same;
                }
            }
        }
        // The index found `owner` by its object: `get` is `Some`.
        let link = match (&r.uid, index.get(owner).and_then(|o| o.uid.as_ref())) {
            (Some(want), Some(have)) if want != have => Link::UidMismatch,
            // An owner written without a uid (a manifest, not a dump) cannot be
            // checked; it counts as solid, which keeps its dependents.
            _ => Link::Solid,
        };
        return Some((owner, link));
    }
    let owner = r.uid.as_deref().and_then(|u| index.by_uid(u))?;
    let o = index.get(owner)?;
    let link = if o.kind == r.kind && o.name == r.name && o.group == r.group {
        match (&dependent.namespace, &o.namespace) {
            (None, Some(_)) => Link::ClusterScopedDependent,
            _ => Link::CrossNamespace,
        }
    } else {
        Link::OtherCoordinates
    };
    Some((owner, link))
}

/// What tracking applications declare: each tracker manages the resources
/// it records (those of the local cluster that are in the snapshot, not
/// recorded as deleted) and is managed by its Application; a component's
/// resources go before those of the components it depends on.
fn tracked(index: &Index, objects: &[Object], out: &mut Vec<Relation>) {
    let manages = |from: ObjId, to: ObjId, declared_by: ObjId, decl: u32| {
        Relation::solid(RelKind::Manages, from, to, declared_by, decl)
    };
    // Each Application's trackers; each tracker's resources, by component.
    let mut trackers: FxHashMap<ObjId, Vec<ObjId>> = FxHashMap::default();
    let mut by_component: FxHashMap<(ObjId, &str), Vec<ObjId>> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate() {
        let Some(Tracking::Tracker(t)) = o.tracking.as_deref() else { continue };
        let id = ObjId(i as u32);
        let app = index.by_key(&t.app.group, &t.app.kind, t.app.namespace.as_deref(), &t.app.name);
        if let Some(app) = app {
            out.push(manages(app, id, id, u32::MAX));
            trackers.entry(app).or_default().push(id);
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for (j, m) in t.managed.iter().enumerate() {
            if m.deleted || m.cluster.is_some() {
                continue;
            }
            let group = current_group(&m.group, &m.kind);
            let found = m
                .namespace
                .as_deref()
                .and_then(|ns| index.by_key(group, &m.kind, Some(ns), &m.name))
                .or_else(|| index.by_key(group, &m.kind, None, &m.name));
            let Some(target) = found.filter(|&r| r != id && seen.insert(r)) else { continue };
            out.push(manages(id, target, id, j as u32));
            if let (Some(app), Some(c), false) =
                (app, m.component.as_deref(), t.kind == TrackingKind::ComponentRevision)
            {
                by_component.entry((app, c)).or_default().push(target);
            }
        }
    }
    let mut apps: Vec<(&ObjId, &Vec<ObjId>)> = trackers.iter().collect();
    apps.sort_unstable();
    for (&app, _) in apps {
        let Some(Tracking::Application(spec)) = index.get(app).and_then(|o| o.tracking.as_deref()) else { continue };
        let mut pairs = rustc_hash::FxHashSet::default();
        for (ci, c) in spec.components.iter().enumerate().take(0xffff) {
            let Some(mine) = by_component.get(&(app, &*c.name)) else { continue };
            for (di, (dep, _)) in c.depends_on.iter().enumerate().take(0xffff) {
                let Some(theirs) = by_component.get(&(app, &**dep)) else { continue };
                for &r in mine {
                    for &s in theirs {
                        if r != s && pairs.insert((s, r)) {
                            out.push(Relation {
                                kind: RelKind::ComponentOrder,
                                from: s,
                                to: r,
                                link: Link::Solid,
                                declared_by: app,
                                decl: ((ci as u32) << 16) | di as u32,
                                controller: false,
                            });
                        }
                    }
                }
            }
        }
    }
}

/// The cascades Kubernetes controllers perform outside ownerReferences
/// ([`ControllerEdge`]), between objects of the snapshot:
///
/// - a Service and the Endpoints of its namespace and name;
/// - a Node and each Pod whose `spec.nodeName` names it;
/// - a PersistentVolume and the claim it is bound to: the claim its
///   `spec.claimRef` names (namespace and name; with the claim's uid when
///   both are written), unless that claim's `spec.volumeName` names another
///   volume; for a volume without a `claimRef`, the one claim whose
///   `spec.volumeName` names it (a pre-bound claim, which the volume
///   controller binds). A `claimRef` naming a claim the snapshot lacks
///   gives no relation: that claim may still be in the cluster. The kind
///   of the relation is the volume's reclaim policy's ([`Reclaim`]).
///
/// One pass to index pre-bound claims, one to draw the relations.
fn controlled(index: &Index, objects: &[Object], out: &mut Vec<Relation>) {
    let core = |o: &Object| o.is_kubernetes() && o.group.is_empty();
    let rel = |edge: ControllerEdge, from: ObjId, to: ObjId, declared_by: ObjId| {
        Relation::solid(RelKind::Controller(edge), from, to, declared_by, 0)
    };
    // Claims by the volume their `spec.volumeName` names (`None`: more
    // than one claim names it, and which one binds cannot be told).
    let mut prebound: FxHashMap<&str, Option<ObjId>> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate() {
        if !core(o) || &*o.kind != "PersistentVolumeClaim" {
            continue;
        }
        if let Some(v) = o.facts.as_deref().and_then(|f| f.volume_name().as_deref()) {
            prebound.entry(v).and_modify(|c| *c = None).or_insert(Some(ObjId(i as u32)));
        }
    }
    for (i, o) in objects.iter().enumerate() {
        if !core(o) {
            continue;
        }
        let id = ObjId(i as u32);
        let facts = o.facts.as_deref();
        match &*o.kind {
            "Service" => {
                if let Some(ep) = index.by_key("", "Endpoints", o.namespace.as_deref(), &o.name) {
                    out.push(rel(ControllerEdge::ServiceEndpoints, ep, id, ep));
                }
            }
            "Pod" => {
                let node = facts.and_then(|f| f.node_name().as_deref()).and_then(|n| index.by_key("", "Node", None, n));
                if let Some(node) = node {
                    out.push(rel(ControllerEdge::NodePods, node, id, id));
                }
            }
            "PersistentVolume" => {
                let bound = match facts.and_then(|f| f.claim_ref().as_ref()) {
                    Some((ns, name)) => index
                        .by_key("", "PersistentVolumeClaim", Some(ns), name)
                        .filter(|&c| {
                            let Some(claim) = index.get(c) else { return false };
                            let uid = facts.and_then(|f| f.claim_uid().as_deref());
                            let same_uid = match (uid, claim.uid.as_deref()) {
                                (Some(a), Some(b)) => a == b,
                                _ => true,
                            };
                            let volume = claim.facts.as_deref().and_then(|f| f.volume_name().as_deref());
                            same_uid && volume.is_none_or(|v| v == &*o.name)
                        })
                        .map(|c| (c, id)),
                    None => prebound.get(&*o.name).copied().flatten().map(|c| (c, c)),
                };
                if let Some((claim, declared_by)) = bound {
                    let edge = match Reclaim::of(facts.and_then(|f| f.reclaim_policy().as_deref())) {
                        Reclaim::Delete => ControllerEdge::ReclaimDelete,
                        _ => ControllerEdge::Released,
                    };
                    out.push(rel(edge, id, claim, declared_by));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(n: u32) -> Relation {
        Relation::solid(RelKind::Owns, ObjId(n), ObjId(n), ObjId(n), n)
    }

    #[test]
    fn runs_closed_up_keep_their_order_with_what_goes_between() {
        // Three sorts of two runs each, with room 3, 2 | 4, 1 | 2, 3; the
        // runs filled 2, 0 | 4, 1 | 1, 3 (0 marks room left unfilled).
        let all: Vec<Relation> = [1, 2, 0, 0, 0, 3, 4, 5, 6, 7, 8, 0, 9, 10, 11].into_iter().map(rel).collect();
        let sorts = [vec![(0, 2), (3, 0)], vec![(5, 4), (9, 1)], vec![(10, 1), (12, 3)]];
        let between = [20, 21, 22, 23, 24].map(rel);
        let out = close_up(all.clone(), sorts.clone(), between.into_iter());
        let ids: Vec<u32> = out.iter().map(|r| r.decl).collect();
        assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7, 20, 21, 22, 23, 24, 8, 9, 10, 11]);
        let out = close_up(all, sorts, std::iter::empty());
        assert_eq!(out.iter().map(|r| r.decl).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }

    #[test]
    fn slots_past_their_room_keep_the_rest() {
        let mut room = [rel(0), rel(0)];
        let mut rest: &mut [Relation] = &mut room;
        let mut slots = Slots::take(&mut rest, 5);
        assert!(rest.is_empty());
        for n in 1..=3 {
            slots.push(rel(n));
        }
        assert_eq!(slots.filled().iter().chain(&slots.over).map(|r| r.decl).collect::<Vec<_>>(), [1, 2, 3]);
    }
}
