//! Application controllers' cascades as relations (issue 35): each
//! application object *manages* the objects of its managed set (a
//! [`RelKind::Manages`] relation with the `controller` flag, the
//! controller in `decl`, see [`Controller::decl`]), so that the cascade,
//! the order (the application object goes last: its finalizer holds it
//! until its controller is done), `explain`, `graph --dependents` and the
//! plan's warnings all see it. Where the controller leaves an object (a
//! switch of the application, a mark of the object, a kind it never
//! deletes), the relation is *gated*: the cascade reaches the object and
//! keeps it, saying why ([`Gated`]).
//!
//! The application objects are read by `dialect::controllers`; what each
//! controller decides is cited in `docs/controllers/CASCADES.md`. Linear
//! in objects plus managed-set entries.

use super::cascade::{Gate, KeptBy};
use crate::model::managed::{App, Controller, Gated, Keep, Managed, Note, Release, Select};
use crate::model::{HubEnd, Link, ObjId, Object, RelKind, Relation, Str, ToolEdge, ToolOrder};
use rustc_hash::{FxHashMap, FxHashSet};

/// Namespaces kapp never deletes (`inoperableResourceList`).
const KAPP_INOPERABLE: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];
use crate::dialect::controllers::marks::{
    ARGOCD_DELETE_FALSE, FLUX_OWNER_MISMATCH, HELM_RESOURCE_POLICY, KAPP_APP_LABEL, KAPP_ORPHAN,
};

type Coordinates = (Str, Str, Option<Str>, Str);

/// Objects by what selects them.
#[derive(Default)]
struct Index {
    by_key: FxHashMap<Coordinates, ObjId>,
    helm: FxHashMap<(Str, Str), Vec<ObjId>>,
    objectset: FxHashMap<(Str, Option<Str>, Str), Vec<ObjId>>,
    argo: FxHashMap<Str, Vec<ObjId>>,
    /// (label key, value) → objects, for the label keys selections use.
    labels: FxHashMap<(Str, Str), Vec<ObjId>>,
}

impl Index {
    fn new(objects: &[Object], apps: &[(ObjId, App)]) -> Index {
        let mut keys: FxHashSet<Str> = FxHashSet::default();
        for (_, app) in apps {
            for s in &app.select {
                match s {
                    Select::Label { key, .. } => _ = keys.insert(key.clone()),
                    Select::Argo { label: Some(key), .. } => _ = keys.insert(key.clone()),
                    _ => {}
                }
            }
        }
        let mut ix = Index::default();
        for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes()) {
            let id = ObjId(i as u32);
            ix.by_key.entry((o.group.clone(), o.kind.clone(), o.namespace.clone(), o.name.clone())).or_insert(id);
            for (k, v) in o.labels.iter().filter(|(k, _)| keys.contains(k)) {
                ix.labels.entry((k.clone(), v.clone())).or_default().push(id);
            }
            let Some(m) = o.tools().and_then(|t| t.managed.as_deref()) else { continue };
            if let Some(owner) = &m.helm_owner {
                ix.helm.entry(owner.clone()).or_default().push(id);
            }
            if let Some(owner) = &m.objectset_owner {
                ix.objectset.entry(owner.clone()).or_default().push(id);
            }
            if let Some(app) = &m.argocd_tracking {
                ix.argo.entry(app.clone()).or_default().push(id);
            }
        }
        ix
    }

    fn key(&self, k: &crate::model::managed::Key) -> Option<ObjId> {
        self.by_key.get(&(k.group.clone(), k.kind.clone(), k.namespace.clone(), k.name.clone())).copied()
    }
}

/// The objects an application manages, each with what keeps it if its
/// controller leaves it; notes the objects add to the application's; and
/// the records among the objects (deleted last).
type ManagedSet = (Vec<(ObjId, Option<Gated>)>, Vec<Note>, Vec<ObjId>);

/// The objects `app` manages (see [`ManagedSet`]).
fn managed_set(objects: &[Object], owners: &FxHashMap<ObjId, u32>, ix: &Index, app: &App) -> ManagedSet {
    let mut out: Vec<(ObjId, Option<Gated>)> = Vec::new();
    let mut notes = Vec::new();
    let mut records = Vec::new();
    let at = |id: ObjId| objects.get(id.index());
    let list = |v: Option<&Vec<ObjId>>| v.map_or(&[][..], Vec::as_slice).to_vec();
    for select in &app.select {
        match select {
            Select::Argo { instance, label, app_keeps } => {
                let found = match label {
                    Some(key) => list(ix.labels.get(&(key.clone(), instance.clone()))),
                    None => list(ix.argo.get(instance)),
                };
                for id in found {
                    let Some(o) = at(id) else { continue };
                    if marks(o).is_some_and(|m| m.argocd_confirm) && !notes.contains(&Note::AwaitsConfirmation) {
                        notes.push(Note::AwaitsConfirmation);
                    }
                    if let Some(gate) = argo_gate(o, owners.get(&id).copied(), *app_keeps) {
                        out.push((id, gate));
                    }
                }
            }
            Select::HelmRelease { namespace, name } => {
                for id in list(ix.helm.get(&(namespace.clone(), name.clone()))) {
                    if let Some(o) = at(id).filter(|o| !hook(o)) {
                        out.push((id, policy_keeps(marks(o).and_then(|m| m.helm_policy.as_deref()))));
                    }
                }
            }
            Select::ObjectSet { gvk, namespace, name } => {
                let key = (gvk.clone(), namespace.clone(), name.clone());
                out.extend(list(ix.objectset.get(&key)).into_iter().map(|id| (id, None)));
            }
            Select::Keys { keys, owner } => {
                for id in keys.iter().filter_map(|k| ix.key(k)) {
                    let Some(o) = at(id) else { continue };
                    match owner {
                        Some(owner) => out.push((id, flux_gate(o, owner))),
                        None if hook(o) => {}
                        None => out.push((id, policy_keeps(marks(o).and_then(|m| m.helm_policy.as_deref())))),
                    }
                }
            }
            Select::Label { key, value } => {
                for id in list(ix.labels.get(&(key.clone(), value.clone()))) {
                    if let Some(gate) = at(id).and_then(|o| kapp_gate(o, key)) {
                        out.push((id, gate));
                    }
                }
            }
            Select::Manifest { namespace, objects: entries } => {
                for e in entries {
                    // Not written: the release's namespace, for a namespaced kind.
                    let key = |ns: Option<Str>| (e.group.clone(), e.kind.clone(), ns, e.name.clone());
                    let found = match &e.namespace {
                        Some(ns) => ix.by_key.get(&key(Some(ns.clone()))),
                        None => ix.by_key.get(&key(Some(namespace.clone()))).or_else(|| ix.by_key.get(&key(None))),
                    };
                    if let Some(&id) = found {
                        out.push((id, policy_keeps(e.policy.as_deref())));
                    }
                }
            }
            Select::Records { keys, kept } => {
                let gate = kept.map(|r| Gated::Keep(Keep::Releases(r)));
                for id in keys.iter().filter_map(|k| ix.key(k)) {
                    records.push(id);
                    out.push((id, gate));
                }
            }
            Select::Bound { key, .. } => out.extend(ix.key(key).map(|id| (id, None))),
        }
    }
    (out, notes, records)
}

/// What application controllers read of a managed object.
fn marks(o: &Object) -> Option<&crate::model::kube::ManagedMarks> {
    o.tools().and_then(|t| t.managed.as_deref())
}

/// A Helm hook: not in the release's manifest, never uninstalled.
fn hook(o: &Object) -> bool {
    o.tools().is_some_and(|t| !t.helm_hooks.is_empty())
}

/// Argo CD's `shouldBeDeleted`, in its order, for a tracked object
/// (`owner`: the relation of its first owner reference that resolved).
/// `None`: not the Application's (an owned object whose owner the snapshot
/// lacks); `Some(None)`: deleted.
fn argo_gate(o: &Object, owner: Option<u32>, app_keeps: bool) -> Option<Option<Gated>> {
    let m = marks(o);
    let keep = |k: Keep| Some(Some(Gated::Keep(k)));
    if !o.owners.is_empty() {
        return owner.map(|r| Some(Gated::Owned(r)));
    }
    if &*o.group == "apiextensions.k8s.io" && &*o.kind == "CustomResourceDefinition" {
        return keep(Keep::NeverKind {
            id: "argocd-crd",
            text: "Argo CD never deletes a CustomResourceDefinition with its Application",
        });
    }
    if o.tools().is_some_and(|t| t.argocd_no_delete) {
        return keep(Keep::Marked { id: "argocd-delete-false", mark: ARGOCD_DELETE_FALSE });
    }
    if app_keeps && !m.is_some_and(|m| m.argocd_delete_true) {
        return keep(Keep::Releases(Release {
            id: "argocd-app-delete-false",
            text: "the Application's sync options say Delete=false",
        }));
    }
    // `helm.sh/resource-policy` as a list with the item `keep`, exact.
    if m.and_then(|m| m.helm_policy.as_deref()).is_some_and(|p| p.split(',').any(|item| item.trim() == "keep")) {
        return keep(Keep::Marked { id: "helm-resource-policy-keep", mark: HELM_RESOURCE_POLICY });
    }
    Some(None)
}

/// kustomize-controller's `DeleteAll`: the live owner labels must name the
/// Kustomization (`owner`), then the exclusions keep.
fn flux_gate(o: &Object, owner: &(Str, Str)) -> Option<Gated> {
    if o.tools().and_then(|t| t.flux_owner.as_ref()) != Some(owner) {
        return Some(Gated::Keep(Keep::Mismatch { id: "flux-owner-labels", text: FLUX_OWNER_MISMATCH }));
    }
    marks(o).and_then(|m| m.flux_excluded).map(|(id, mark)| Gated::Keep(Keep::Marked { id, mark }))
}

/// kapp's delete of an object with the app label (`key`): `None` for a
/// transient object (no identity annotation: the garbage collector's);
/// kept for the namespaces kapp never deletes and `delete-strategy: orphan`.
fn kapp_gate(o: &Object, key: &str) -> Option<Option<Gated>> {
    if key == KAPP_APP_LABEL && !marks(o).is_some_and(|m| m.kapp_identity) {
        return None;
    }
    if o.group.is_empty() && &*o.kind == "Namespace" && KAPP_INOPERABLE.contains(&&*o.name) {
        return Some(Some(Gated::Keep(Keep::ProtectedNamespace)));
    }
    if o.tools().is_some_and(|t| t.kapp_orphan) {
        return Some(Some(Gated::Keep(Keep::Marked { id: "kapp-delete-strategy-orphan", mark: KAPP_ORPHAN })));
    }
    Some(None)
}

/// Helm's uninstall (`filterManifestsToKeep`): a resource policy `keep`
/// (trimmed, any case) keeps the object; any other value leaves it too,
/// unreported.
fn policy_keeps(policy: Option<&str>) -> Option<Gated> {
    let policy = policy?.trim().to_lowercase();
    Some(Gated::Keep(match policy.as_str() {
        "keep" => Keep::Marked { id: "helm-resource-policy-keep", mark: HELM_RESOURCE_POLICY },
        "" => return None,
        _ => Keep::Marked { id: "helm-resource-policy-other", mark: HELM_RESOURCE_POLICY },
    }))
}

/// The managed-by relations of `apps`, appended to `relations`, and what
/// the cascade must know of them.
pub fn add(objects: &[Object], relations: &mut Vec<Relation>, mut apps: Vec<(ObjId, App)>) -> Managed {
    apps.sort_by_key(|(id, _)| *id);
    let ix = Index::new(objects, &apps);
    // The first owner reference of each object that resolved (Argo CD
    // deletes root objects only: what owns a tracked object keeps it).
    let mut owners: FxHashMap<ObjId, u32> = FxHashMap::default();
    for (ri, r) in relations.iter().enumerate() {
        if r.kind == RelKind::Owns && r.link == Link::Solid {
            owners.entry(r.to).or_insert(ri as u32);
        }
    }
    let mut gated = Vec::new();
    let mut all_records = Vec::new();
    for (app_id, app) in apps.iter_mut() {
        let (set, notes, records) = managed_set(objects, &owners, &ix, app);
        all_records.extend(records.into_iter().filter(|r| r != app_id).map(|r| (*app_id, r)));
        for n in notes {
            if !app.notes.contains(&n) {
                app.notes.push(n);
            }
        }
        let mut seen = FxHashSet::default();
        for (id, gate) in set {
            if id == *app_id || !seen.insert(id) {
                continue;
            }
            let gate = match app.releases {
                Some(r) => Some(Gated::Keep(Keep::Releases(r))),
                None => gate,
            };
            if let Some(g) = gate {
                gated.push((relations.len() as u32, g));
            }
            relations.push(Relation {
                kind: RelKind::Manages,
                from: *app_id,
                to: id,
                link: Link::Solid,
                declared_by: *app_id,
                decl: app.controller.decl(app.waits),
                controller: true,
            });
        }
    }
    all_records.sort_unstable();
    all_records.dedup();
    Managed { gated, apps, records: all_records, external_kept: Vec::new() }
}

/// The order of the records an application's controller deletes last:
/// each record the plan deletes goes after every other object of its
/// application the plan deletes (Helm purges the release's records after
/// the uninstall; kapp deletes the app record after the app's objects).
pub fn record_order(managed: &Managed, relations: &[Relation], in_set: &[bool]) -> Vec<Relation> {
    let deleted = |id: ObjId| in_set.get(id.index()).copied().unwrap_or(false);
    let live: Vec<(ObjId, ObjId)> =
        managed.records.iter().copied().filter(|&(a, r)| deleted(a) && deleted(r)).collect();
    if live.is_empty() {
        return Vec::new();
    }
    let is_record = |app: ObjId, id: ObjId| managed.records.binary_search(&(app, id)).is_ok();
    // What each of those applications manages and the plan deletes, but its records.
    let mut objects: FxHashMap<ObjId, Vec<ObjId>> = live.iter().map(|&(a, _)| (a, Vec::new())).collect();
    for r in relations.iter().filter(|r| controller(r).is_some() && deleted(r.to) && !is_record(r.from, r.to)) {
        if let Some(list) = objects.get_mut(&r.from) {
            list.push(r.to);
        }
    }
    let mut out = Vec::new();
    for (app, record) in live {
        let order = match managed.app(app).map(|a| a.controller) {
            Some(Controller::Kapp) => ToolOrder::KappRecord,
            _ => ToolOrder::HelmRecord,
        };
        let edge = RelKind::Tool(ToolEdge { order, hub: HubEnd::None });
        for &o in objects.get(&app).into_iter().flatten() {
            out.push(Relation::solid(edge, record, o, app, 0));
        }
    }
    out
}

/// Does this relation order its ends? Not an application controller's
/// managed-by relation whose application does not wait for the object.
pub fn orders(r: &Relation) -> bool {
    controller(r).is_none() || Controller::waits(r.decl)
}

/// Is this relation an application controller's managed-by relation, and
/// whose?
pub fn controller(r: &Relation) -> Option<Controller> {
    (r.kind == RelKind::Manages && r.controller).then(|| Controller::of_decl(r.decl)).flatten()
}

/// The cascade's gates for the managed-by relations the controller does
/// not follow, merged into `gates` (by relation index; `n`: relations).
pub fn gates(managed: &Managed, gates: &mut Vec<Option<Gate>>, n: usize) {
    if managed.gated.is_empty() {
        return;
    }
    if gates.len() < n {
        gates.resize(n, None);
    }
    for &(ri, g) in &managed.gated {
        let kept = match g {
            Gated::Keep(keep) => KeptBy::Managed { relation: ri, keep },
            Gated::Owned(owner) => KeptBy::SolidOwner(owner),
        };
        if let Some(slot) = gates.get_mut(ri as usize) {
            *slot = Some(Gate { unless_deleted: None, kept, owner: false });
        }
    }
}

/// What the plan must say of the application objects it deletes: each
/// one's notes (`Err`: a Helm release whose storage record the snapshot
/// holds is uninstalled: its manifest decides, and is not decoded).
pub fn notes(managed: &Managed, deleted: impl Fn(ObjId) -> bool) -> Result<Vec<(ObjId, Note)>, (ObjId, Str)> {
    let mut out = Vec::new();
    for (id, app) in managed.apps.iter().filter(|(id, _)| deleted(*id)) {
        for note in &app.notes {
            match note {
                Note::StorageUndecoded { record } if app.releases.is_none() => return Err((*id, record.clone())),
                Note::StorageUndecoded { .. } => {}
                // Nothing inferred is uninstalled when the controller leaves it all.
                Note::HelmReleaseInferred { .. } if app.releases.is_some() => {}
                n => out.push((*id, n.clone())),
            }
        }
    }
    out.extend(managed.external_kept.iter().filter(|&&id| deleted(id)).map(|&id| (id, Note::ExternalResourceKept)));
    Ok(out)
}
