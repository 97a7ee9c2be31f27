//! What a plan destroys for good: what no controller, owner or tool of the
//! snapshot brings back once it is deleted. Typed data, computed from the
//! plan's deletions; the renderers only format it (docs/data-loss.md says
//! which objects are listed and why, with the Kubernetes code behind each).
//!
//! - a PersistentVolume whose reclaim policy is `Delete`, deleted directly
//!   or through its claim (the claim deleted itself, by its Namespace, or by
//!   a StatefulSet whose `persistentVolumeClaimRetentionPolicy.whenDeleted`
//!   is `Delete`): the volume controller, or the external provisioner,
//!   deletes its storage;
//! - a PersistentVolume whose reclaim policy is `Recycle`, whose claim the
//!   plan deletes: the volume stays, but the volume controller's recycler
//!   deletes every file on it before offering it to the next claim;
//! - a PersistentVolumeClaim bound to a volume the snapshot lacks: whether
//!   its storage goes cannot be told (a dynamically provisioned volume's
//!   policy is its StorageClass's, `Delete` unless it says otherwise);
//! - a CustomResourceDefinition: every custom resource of its kind, in
//!   every namespace, goes with it, including those the snapshot lacks;
//! - a Namespace: everything in it, including what the snapshot lacks;
//! - a Secret nothing in the snapshot recreates: no owner reference, no
//!   tool's label or annotation, not a ServiceAccount token.

use crate::analysis::cascade::{Cascade, Cause, Garbage};
use crate::model::kube::Reclaim;
use crate::model::{ControllerEdge, ObjId, Object, RelKind, Relation, Str};
use rustc_hash::{FxHashMap, FxHashSet};

/// One object the plan destroys for good, and what goes with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    pub object: ObjId,
    pub what: What,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    /// A PersistentVolume with reclaim policy `Delete`: its storage is deleted.
    Volume { capacity: Option<Str>, storage_class: Option<Str>, via: Via },
    /// A PersistentVolume with reclaim policy `Recycle` whose `claim` the
    /// plan deletes: its contents are scrubbed; the object stays unless
    /// the plan deletes it too (`deleted`).
    RecycledVolume { capacity: Option<Str>, storage_class: Option<Str>, claim: ObjId, deleted: bool },
    /// A PersistentVolumeClaim bound to `volume`, which the snapshot lacks.
    ClaimOfUnknownVolume { volume: Str, capacity: Option<Str>, storage_class: Option<Str> },
    /// A CustomResourceDefinition: every object of its kind goes
    /// (`in_snapshot` of them are in the snapshot).
    CustomResources { group: Str, kind: Str, in_snapshot: u32 },
    /// A Namespace: everything in it goes (`in_snapshot` objects of the snapshot).
    Namespace { in_snapshot: u32 },
    /// A Secret nothing in the snapshot recreates.
    Secret { secret_type: Option<Str> },
}

/// How a volume's deletion comes about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The plan deletes the volume itself.
    Direct,
    /// The plan deletes its claim; `set`: a StatefulSet whose retention
    /// policy deletes its claims, and which took this one.
    Claim { claim: ObjId, set: Option<ObjId> },
    /// `--gc`: its claim is already gone.
    Released,
}

impl What {
    /// The id of the kind of loss, as JSON writes it.
    pub fn id(&self) -> &'static str {
        match self {
            What::Volume { .. } => "volume",
            What::RecycledVolume { .. } => "recycled-volume",
            What::ClaimOfUnknownVolume { .. } => "claim-of-unknown-volume",
            What::CustomResources { .. } => "custom-resources",
            What::Namespace { .. } => "namespace",
            What::Secret { .. } => "secret",
        }
    }

    /// A volume's (or a claim's) size, as written.
    pub fn capacity(&self) -> Option<&str> {
        match self {
            What::Volume { capacity, .. }
            | What::RecycledVolume { capacity, .. }
            | What::ClaimOfUnknownVolume { capacity, .. } => capacity.as_deref(),
            _ => None,
        }
    }

    pub fn storage_class(&self) -> Option<&str> {
        match self {
            What::Volume { storage_class, .. }
            | What::RecycledVolume { storage_class, .. }
            | What::ClaimOfUnknownVolume { storage_class, .. } => storage_class.as_deref(),
            _ => None,
        }
    }
}

/// The label and annotation keys through which a tool declares that it
/// manages an object (and so applies it again from its source).
const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

/// How many times each key comes. Counted first by `same(key)`, which
/// must be equal only for equal keys (where an interned string is: a
/// snapshot's namespaces and kinds are a few strings, each held once, so
/// no string is hashed or compared per object), a run of the same at a
/// time (objects often come a namespace at a time); then by key.
fn count_runs<K, S>(keys: impl Iterator<Item = K>, same: impl Fn(&K) -> S) -> FxHashMap<K, u32>
where
    K: Eq + std::hash::Hash,
    S: Eq + std::hash::Hash,
{
    let mut by_same: FxHashMap<S, (K, u32)> = FxHashMap::default();
    let mut run: Option<(S, K, u32)> = None;
    for k in keys {
        let s = same(&k);
        match &mut run {
            Some((at, _, n)) if *at == s => *n += 1,
            _ => {
                if let Some((at, key, n)) = run.replace((s, k, 1)) {
                    by_same.entry(at).or_insert((key, 0)).1 += n;
                }
            }
        }
    }
    if let Some((at, key, n)) = run {
        by_same.entry(at).or_insert((key, 0)).1 += n;
    }
    let mut counts: FxHashMap<K, u32> = FxHashMap::default();
    for (key, n) in by_same.into_values() {
        *counts.entry(key).or_default() += n;
    }
    counts
}

/// Where a string is: the same for the same string held once.
fn at(s: &str) -> (usize, usize) {
    (s.as_ptr() as usize, s.len())
}

/// Objects of each namespace, when a deleted Namespace asks.
fn in_namespace(objects: &[Object], wanted: bool) -> FxHashMap<&str, u32> {
    match wanted {
        true => {
            count_runs(objects.iter().filter(|o| o.is_kubernetes()).filter_map(|o| o.namespace.as_deref()), |ns| at(ns))
        }
        false => FxHashMap::default(),
    }
}

/// Objects of each kind, when a deleted CRD asks.
fn of_kind(objects: &[Object], wanted: bool) -> FxHashMap<(&str, &str), u32> {
    match wanted {
        true => count_runs(objects.iter().filter(|o| o.is_kubernetes()).map(|o| (&*o.group, &*o.kind)), |&(g, k)| {
            (at(g), at(k))
        }),
        false => FxHashMap::default(),
    }
}

/// Claims whose volume the snapshot holds (bound by the volume's
/// relation), and the volumes' names; volumes with reclaim policy
/// `Recycle`, by the claim they are bound to. When a deleted claim asks.
type Claims<'a> = (FxHashSet<&'a str>, Vec<bool>, FxHashMap<ObjId, ObjId>);

fn claims<'a>(objects: &'a [Object], relations: &[Relation], wanted: bool) -> Claims<'a> {
    let mut volumes: FxHashSet<&str> = FxHashSet::default();
    let mut bound: Vec<bool> = Vec::new();
    let mut recycled: FxHashMap<ObjId, ObjId> = FxHashMap::default();
    if wanted {
        volumes = objects.iter().filter(|o| core(o, "PersistentVolume")).map(|o| &*o.name).collect();
        bound = vec![false; objects.len()];
        for r in relations {
            if matches!(r.kind, RelKind::Controller(ControllerEdge::ReclaimDelete | ControllerEdge::Released)) {
                if let Some(b) = bound.get_mut(r.to.index()) {
                    *b = true;
                }
            }
            if r.kind != RelKind::Controller(ControllerEdge::Released) {
                continue;
            }
            let recycles = objects
                .get(r.from.index())
                .and_then(|v| v.facts.as_deref())
                .map(|f| Reclaim::of(f.reclaim_policy().as_deref()));
            if recycles == Some(Reclaim::Recycle) {
                recycled.insert(r.to, r.from);
            }
        }
    }
    (volumes, bound, recycled)
}

/// Objects something of the snapshot owns or manages, by object, when a
/// deleted Secret asks (else none).
fn owned(objects: &[Object], relations: &[Relation], wanted: bool) -> Vec<bool> {
    let mut owned = Vec::new();
    if wanted {
        owned = vec![false; objects.len()];
        for r in relations.iter().filter(|r| matches!(r.kind, RelKind::Owns | RelKind::Manages)) {
            if let Some(o) = owned.get_mut(r.to.index()) {
                *o = true;
            }
        }
    }
    owned
}

/// Is `id` marked in a table by object (none: not)?
fn marked(table: &[bool], id: ObjId) -> bool {
    table.get(id.index()).copied().unwrap_or(false)
}

/// A core (`v1`) Kubernetes object of this kind?
fn core(o: &Object, kind: &str) -> bool {
    o.is_kubernetes() && o.group.is_empty() && &*o.kind == kind
}

/// Whether some deleted object is a Namespace, a claim, a Secret, a CRD.
#[derive(Default)]
struct Wants {
    namespace: bool,
    claim: bool,
    secret: bool,
    crd: bool,
}

impl Wants {
    /// In one pass (a plan of a whole cluster deletes every object: each
    /// pass over them costs).
    fn of<'a>(deleted: impl Iterator<Item = &'a Object>) -> Wants {
        let mut wants = Wants::default();
        for o in deleted {
            wants.namespace |= core(o, "Namespace");
            wants.claim |= core(o, "PersistentVolumeClaim");
            wants.secret |= core(o, "Secret");
            wants.crd |= o.crd.is_some();
        }
        wants
    }
}

/// What the plan that deletes `deleted` (in plan order) destroys for good,
/// in plan order (a recycled volume right after its claim).
pub fn of(objects: &[Object], relations: &[Relation], cascade: &Cascade, deleted: &[Vec<ObjId>]) -> Vec<Loss> {
    let ids = || deleted.iter().flatten().copied();
    let get = |id: ObjId| objects.get(id.index());
    let wants = Wants::of(ids().filter_map(get));
    // The tables the deleted objects ask for, made at once (each is a pass
    // over the objects or the relations).
    let ((in_namespace, of_kind), ((volumes, bound, recycled), owned)) = rayon::join(
        || rayon::join(|| in_namespace(objects, wants.namespace), || of_kind(objects, wants.crd)),
        || rayon::join(|| claims(objects, relations, wants.claim), || owned(objects, relations, wants.secret)),
    );
    let relation = |id: ObjId| match cascade.cause.get(id.index()) {
        Some(Some(Cause::Relation(r))) => relations.get(*r as usize),
        _ => None,
    };
    let mut out = Vec::new();
    for id in ids() {
        let Some(o) = get(id) else { continue };
        let facts = o.facts.as_deref();
        let what = if core(o, "PersistentVolume") {
            let policy = facts.and_then(|f| f.reclaim_policy().as_deref());
            if Reclaim::of(policy) != Reclaim::Delete {
                continue;
            }
            let via = match (cascade.cause.get(id.index()), relation(id)) {
                (_, Some(r)) if r.kind == RelKind::Controller(ControllerEdge::ReclaimDelete) => {
                    // The StatefulSet that took the claim, by its retention policy.
                    let set = relation(r.to)
                        .filter(|c| c.kind == RelKind::Owns && c.to == r.to)
                        .map(|c| c.from)
                        .filter(|&s| get(s).is_some_and(deletes_its_claims));
                    Via::Claim { claim: r.to, set }
                }
                (Some(Some(Cause::Garbage(Garbage::VolumeReleased { .. }))), _) => Via::Released,
                _ => Via::Direct,
            };
            What::Volume {
                capacity: facts.and_then(|f| f.capacity().clone()),
                storage_class: facts.and_then(|f| f.storage_class().clone()),
                via,
            }
        } else if core(o, "PersistentVolumeClaim") {
            if let Some(&volume) = recycled.get(&id) {
                let facts = get(volume).and_then(|v| v.facts.as_deref());
                let what = What::RecycledVolume {
                    capacity: facts.and_then(|f| f.capacity().clone()),
                    storage_class: facts.and_then(|f| f.storage_class().clone()),
                    claim: id,
                    deleted: ids().any(|d| d == volume),
                };
                out.push(Loss { object: volume, what });
                continue;
            }
            let Some(volume) = facts.and_then(|f| f.volume_name().clone()) else { continue };
            if marked(&bound, id) || volumes.contains(&*volume) {
                continue;
            }
            What::ClaimOfUnknownVolume {
                volume,
                capacity: facts.and_then(|f| f.capacity().clone()),
                storage_class: facts.and_then(|f| f.storage_class().clone()),
            }
        } else if core(o, "Namespace") {
            What::Namespace { in_snapshot: in_namespace.get(&*o.name).copied().unwrap_or(0) }
        } else if let Some(crd) = o.crd.as_deref().filter(|_| o.is_kubernetes()) {
            What::CustomResources {
                group: crd.group.clone(),
                kind: crd.kind.clone(),
                in_snapshot: of_kind.get(&(&*crd.group, &*crd.kind)).copied().unwrap_or(0),
            }
        } else if core(o, "Secret") {
            let secret_type = facts.and_then(|f| f.secret_type().clone());
            if secret_type.as_deref() == Some("kubernetes.io/service-account-token")
                || !o.owners.is_empty()
                || marked(&owned, id)
                || managed_by_tool(o)
            {
                continue;
            }
            What::Secret { secret_type }
        } else {
            continue;
        };
        out.push(Loss { object: id, what });
    }
    out
}

/// A StatefulSet whose claims go with it (`whenDeleted: Delete`)?
fn deletes_its_claims(o: &Object) -> bool {
    o.is_kubernetes()
        && &*o.group == "apps"
        && &*o.kind == "StatefulSet"
        && o.facts.as_deref().is_some_and(|f| f.claims_deleted_with_set())
}

/// Does a tool say it manages the object (and so would apply it again)?
fn managed_by_tool(o: &Object) -> bool {
    if o.labels.iter().any(|(k, v)| &**k == MANAGED_BY && !v.is_empty()) {
        return true;
    }
    let Some(t) = o.facts.as_deref().and_then(|f| f.tools()) else { return false };
    t.argocd_app.is_some()
        || t.kapp_app.is_some()
        || t.helm_release.is_some()
        || t.flux_owner.is_some()
        || t.kubevela_shared_by.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_count_as_each_key_one_by_one() {
        let keys = ["a", "a", "b", "a", "c", "c", "a", "d"];
        let counts = count_runs(keys.iter().copied(), |k| *k);
        let mut got: Vec<(&str, u32)> = counts.into_iter().collect();
        got.sort_unstable();
        assert_eq!(got, [("a", 4), ("b", 1), ("c", 2), ("d", 1)]);
        assert!(count_runs(std::iter::empty::<&str>(), |k| *k).is_empty());
        assert_eq!(count_runs(["x"; 3].into_iter(), |k| *k).get("x"), Some(&3));
        // Equal strings held apart count together.
        let (a, b) = (String::from("ns"), String::from("ns"));
        let keys = [a.as_str(), b.as_str(), "other", a.as_str()];
        let counts = count_runs(keys.iter().copied(), |k| at(k));
        assert_eq!((counts.get("ns"), counts.get("other"), counts.len()), (Some(&3), Some(&1), 2));
    }
}
