//! The marks application controllers read on the objects they manage, and
//! the wire names `analysis::managed` quotes when it says what a mark keeps
//! (only this folder spells them). A leaf: the Kubernetes dialect reads
//! the marks of every object through [`read`].

use crate::model::intern::intern;
use crate::model::kube::ManagedMarks;
use crate::model::Str;

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

/// `ParseAppInstanceValue`: `<app>:<group>/<kind>:<namespace>/<name>`,
/// exactly three parts, the last two with one `/` each; the application.
pub fn tracking_app(id: &str) -> Option<&str> {
    let parts: Vec<&str> = id.split(':').collect();
    let [app, gk, nn] = parts.as_slice() else { return None };
    let one_slash = |s: &str| s.matches('/').count() == 1;
    (one_slash(gk) && one_slash(nn) && !app.is_empty()).then_some(*app)
}

/// wrangler's objectset owner annotations.
const OBJECTSET_GVK: &str = "objectset.rio.cattle.io/owner-gvk";
const OBJECTSET_NAME: &str = "objectset.rio.cattle.io/owner-name";
const OBJECTSET_NAMESPACE: &str = "objectset.rio.cattle.io/owner-namespace";
/// Argo CD.
const ARGOCD_SYNC_OPTIONS: &str = "argocd.argoproj.io/sync-options";
const ARGOCD_TRACKING_ID: &str = "argocd.argoproj.io/tracking-id";
const KAPP_IDENTITY: &str = "kapp.k14s.io/identity";
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
pub fn read(annotations: &[(Str, Str)], labels: &[(Str, Str)], namespace: Option<&str>) -> Option<Box<ManagedMarks>> {
    let get = |key: &str| annotations.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v);
    let mut m = ManagedMarks::default();
    if let Some(id) = get(ARGOCD_TRACKING_ID) {
        m.argocd_tracking = tracking_app(id).map(intern);
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
