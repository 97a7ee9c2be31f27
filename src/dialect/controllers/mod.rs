//! Application controllers' wire formats (issue 35): which objects are
//! application objects, what their controller reads of them (finalizers,
//! switches, where the managed set is written), and the marks it reads on
//! the objects it manages. Only this folder knows those fields,
//! annotations and labels; it hands `model::managed` values to
//! `analysis::managed`, which makes the managed-by relations.
//!
//! Each controller is one file; see `docs/controllers/CASCADES.md` for the
//! upstream code each reading follows.

mod argocd;
mod crossplane;
mod flux;
mod helm;
mod kapp;
mod storage;

use crate::input::{Node, Sources};
use crate::model::intern::intern;
use crate::model::kube::ManagedMarks;
use crate::model::managed::{App, Controller, Key};
use crate::model::{ObjId, Object, Str};

/// The marks and labels `analysis::managed` names in what it keeps and
/// why (the controllers' wire names; only this folder spells them).
pub mod marks {
    /// kapp's app label (a transient object, without an identity
    /// annotation, is left to the garbage collector).
    pub const KAPP_APP_LABEL: &str = "kapp.k14s.io/app";
    /// An object's Argo CD sync option that keeps it.
    pub const ARGOCD_DELETE_FALSE: &str = "argocd.argoproj.io/sync-options: Delete=false";
    /// Helm's resource policy annotation.
    pub const HELM_RESOURCE_POLICY: &str = "helm.sh/resource-policy";
    /// kapp's delete strategy that keeps an object.
    pub const KAPP_ORPHAN: &str = "kapp.k14s.io/delete-strategy: orphan";
    /// Why Flux leaves an object its owner labels do not name.
    pub const FLUX_OWNER_MISMATCH: &str =
        "its kustomize.toolkit.fluxcd.io/name and /namespace labels do not name this Kustomization";
    /// Helm's ownership annotations, in words.
    pub const HELM_OWNERSHIP: &str = "meta.helm.sh/release-name, -namespace";
    /// The annotation Argo CD waits for before a confirmed deletion.
    pub const ARGOCD_DELETION_APPROVED: &str = "argocd.argoproj.io/deletion-approved";
}

/// A Crossplane claim's finalizer (its kind is an XRD's claim kind).
const CROSSPLANE_CLAIM_FINALIZER: &str = "finalizer.apiextensions.crossplane.io";

/// The controller of an application object, by its kind (a Crossplane
/// claim by its finalizer: claim kinds are defined by each XRD).
pub fn controller_of(o: &Object) -> Option<Controller> {
    if !o.is_kubernetes() {
        return None;
    }
    Some(match (&*o.group, &*o.kind) {
        ("argoproj.io", "Application") => Controller::ArgoCd,
        ("kustomize.toolkit.fluxcd.io", "Kustomization") => Controller::FluxKustomize,
        ("helm.toolkit.fluxcd.io", "HelmRelease") => Controller::FluxHelm,
        ("helm.cattle.io", "HelmChart") => Controller::K3sHelm,
        ("k3s.cattle.io", "Addon") => Controller::K3sAddon,
        ("kappctrl.k14s.io", "App") => Controller::Kapp,
        _ if o.finalizers.iter().any(|f| &**f == CROSSPLANE_CLAIM_FINALIZER) => Controller::Crossplane,
        _ => return None,
    })
}

/// What the snapshot says beside the application objects themselves:
/// Argo CD's settings, kapp's app records, Crossplane composites, Helm's
/// release records.
pub struct World<'a> {
    pub sources: &'a Sources,
    pub objects: &'a [Object],
}

impl World<'_> {
    /// An object's own document, read again.
    fn document(&self, o: &Object) -> Option<Node> {
        let (_, document) = super::reread(self.sources, o)?;
        let own = super::kubernetes::own_document(&document, o)?.clone();
        Some(own)
    }

    /// The first object of this group, kind, namespace and name.
    fn find(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Option<(ObjId, &Object)> {
        self.objects.iter().enumerate().find_map(|(i, o)| {
            (o.is_kubernetes()
                && &*o.group == group
                && &*o.kind == kind
                && o.namespace.as_deref() == namespace
                && &*o.name == name)
                .then_some((ObjId(i as u32), o))
        })
    }
}

/// The application objects of the snapshot, each as its controller reads
/// it; and the Crossplane managed resources whose deletion leaves their
/// external resource.
pub fn read(sources: &Sources, objects: &[Object]) -> (Vec<(ObjId, App)>, Vec<ObjId>) {
    let world = World { sources, objects };
    let argo = argocd::Settings::of(&world);
    let mut out = Vec::new();
    let mut external = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let managed_resource = o.is_kubernetes() && has_finalizer(o, &[crossplane::MANAGED_FINALIZER]);
        if managed_resource && world.document(o).is_some_and(|doc| crossplane::keeps_external(&doc)) {
            external.push(ObjId(i as u32));
        }
        let Some(controller) = controller_of(o) else { continue };
        let Some(doc) = world.document(o) else { continue };
        let app = match controller {
            Controller::ArgoCd => argocd::app(&doc, o, &argo),
            Controller::FluxKustomize => flux::kustomization(&doc, o),
            Controller::FluxHelm => helm::helm_release(&doc, o, &world),
            Controller::K3sHelm => helm::helm_chart(&doc, o, &world),
            Controller::K3sAddon => helm::addon(o),
            Controller::Kapp => kapp::app(&doc, o, &world),
            Controller::Crossplane => crossplane::claim(&doc, o, &world),
        };
        let mut app = app;
        // The finalizer its controller holds it by, when it cascades.
        if app.releases.is_none() {
            app.finalizer = o.finalizers.iter().find(|f| finalizer_of(controller, f)).cloned();
        }
        out.push((ObjId(i as u32), app));
    }
    (out, external)
}

/// Is `f` the finalizer through which `controller` cascades?
fn finalizer_of(controller: Controller, f: &str) -> bool {
    match controller {
        Controller::ArgoCd => argocd::RESOURCES_FINALIZERS.contains(&f),
        Controller::FluxKustomize | Controller::FluxHelm => f == flux::FINALIZER,
        Controller::K3sHelm => helm::K3S_FINALIZERS.contains(&f),
        Controller::K3sAddon => false,
        Controller::Kapp => f == kapp::FINALIZER,
        Controller::Crossplane => f == CROSSPLANE_CLAIM_FINALIZER,
    }
}

/// The value at `path` of a document, as a string.
fn text<'a>(doc: &'a Node, path: &[&str]) -> Option<&'a str> {
    at(doc, path)?.as_str()
}

fn at<'a>(doc: &'a Node, path: &[&str]) -> Option<&'a Node> {
    path.iter().try_fold(doc, |n, k| n.get(k))
}

/// A boolean at `path` (`true` written as a boolean or a string).
fn flag(doc: &Node, path: &[&str]) -> bool {
    match at(doc, path) {
        Some(n) => n.as_bool().unwrap_or(false) || n.as_str() == Some("true"),
        None => false,
    }
}

fn has_finalizer(o: &Object, names: &[&str]) -> bool {
    o.finalizers.iter().any(|f| names.contains(&&**f))
}

fn annotation<'a>(doc: &'a Node, key: &str) -> Option<&'a str> {
    doc.get("metadata")?.get("annotations")?.get(key)?.as_str()
}

fn key(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Key {
    Key { group: intern(group), kind: intern(kind), namespace: namespace.map(intern), name: intern(name) }
}

/// wrangler's objectset owner annotations.
const OBJECTSET_GVK: &str = "objectset.rio.cattle.io/owner-gvk";
const OBJECTSET_NAME: &str = "objectset.rio.cattle.io/owner-name";
const OBJECTSET_NAMESPACE: &str = "objectset.rio.cattle.io/owner-namespace";
/// Argo CD.
const ARGOCD_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
const ARGOCD_TRACKING_ID: &str = "argocd.argoproj.io/tracking-id";
const KAPP_IDENTITY: &str = "kapp.k14s.io/identity";
const HELM_RESOURCE_POLICY: &str = "helm.sh/resource-policy";
const HELM_RELEASE_NAME: &str = "meta.helm.sh/release-name";
const HELM_RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";
/// Flux's exclusions (`fluxcd/pkg ssa` `DeleteAll` options of
/// kustomize-controller's `finalize`), matched in labels or annotations,
/// any case (`utils.AnyInMetadata`, `strings.EqualFold`).
const FLUX_EXCLUSIONS: [(&str, &str, &str); 3] = [
    ("kustomize.toolkit.fluxcd.io/prune", "disabled", "flux-prune-disabled"),
    ("kustomize.toolkit.fluxcd.io/reconcile", "disabled", "flux-reconcile-disabled"),
    ("kustomize.toolkit.fluxcd.io/ssa", "ignore", "flux-ssa-ignore"),
];

/// The marks application controllers read on the objects they manage
/// (kept annotations and the labels), `None` when there is none.
pub fn marks(annotations: &[(Str, Str)], labels: &[(Str, Str)], namespace: Option<&str>) -> Option<Box<ManagedMarks>> {
    let get = |key: &str| annotations.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v);
    let mut m = ManagedMarks::default();
    if let Some(id) = get(ARGOCD_TRACKING_ID) {
        m.argocd_tracking = argocd::tracking_app(id).map(intern);
    }
    if let Some(v) = get(ARGOCD_SYNC_OPTIONS) {
        for option in v.split(',').map(str::trim) {
            match option {
                "Delete=true" => m.argocd_delete_true = true,
                "Delete=confirm" | "Prune=confirm" => m.argocd_confirm = true,
                _ => {}
            }
        }
    }
    m.helm_policy = get(HELM_RESOURCE_POLICY).map(intern);
    if let Some(name) = get(HELM_RELEASE_NAME).filter(|n| !n.is_empty()) {
        let ns = get(HELM_RELEASE_NAMESPACE).filter(|n| !n.is_empty()).or(namespace).unwrap_or("default");
        m.helm_owner = Some((intern(ns), intern(name)));
    }
    if let (Some(gvk), Some(name)) = (get(OBJECTSET_GVK), get(OBJECTSET_NAME)) {
        let ns = get(OBJECTSET_NAMESPACE).filter(|n| !n.is_empty()).map(intern);
        m.objectset_owner = Some((intern(gvk), ns, intern(name)));
    }
    m.flux_excluded = FLUX_EXCLUSIONS.iter().find_map(|&(key, value, id)| {
        let hit = |list: &[(Str, Str)]| list.iter().any(|(k, v)| &**k == key && v.eq_ignore_ascii_case(value));
        (hit(annotations) || hit(labels)).then_some((id, key))
    });
    m.kapp_identity = get(KAPP_IDENTITY).is_some_and(|v| !v.is_empty());
    (m != ManagedMarks::default()).then(|| Box::new(m))
}
