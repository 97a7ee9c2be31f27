//! Helm releases and what uninstalls them: k3s/RKE2 helm-controller's
//! HelmChart (`pkg/controllers/chart/chart.go` `OnRemove`, `shouldManage`;
//! klipper-helm's `entry`), Flux helm-controller's HelmRelease
//! (`internal/controller/helmrelease_controller.go` `reconcileDelete`,
//! `internal/reconcile/uninstall.go`, `helmchart_template.go`), and k3s's
//! deploy controller's Addon (`pkg/deploy/controller.go`).
//!
//! Helm's storage records are not decoded: the release's objects are those
//! Helm's ownership annotations name (`setMetadataVisitor` writes them on
//! every object of the manifest, never on hooks), and the plan says so.
//! When the snapshot holds the release's storage record, whose manifest
//! would decide, the plan refuses rather than guess.

use super::storage;
use super::wire::{at, flag, has_finalizer, key, text, World};
use crate::input::Node;
use crate::model::intern::intern;
use crate::model::kube::group_of;
use crate::model::managed::{App, Controller, ManifestEntry, Note, Release, Select};
use crate::model::Object;

/// `RegisterScopedOnRemoveHandler(…, "on-helm-chart-remove", …)`, and the
/// 2022 generation's `OnRemove(ctx, "helm-controller", …)`.
pub const K3S_FINALIZERS: [&str; 2] = ["wrangler.cattle.io/on-helm-chart-remove", "wrangler.cattle.io/helm-controller"];
const K3S_UNMANAGED: &str = "helmcharts.helm.cattle.io/unmanaged";
const HELM_CHART_GVK: &str = "helm.cattle.io/v1, Kind=HelmChart";
const ADDON_GVK: &str = "k3s.cattle.io/v1, Kind=Addon";
const FLUX_FINALIZER: &str = "finalizers.fluxcd.io";

/// Helm's Secrets driver: `sh.helm.release.v1.<release>.v<revision>`, type
/// `helm.sh/release.v1` (`pkg/storage/storage.go` `makeKey`).
fn storage_records<'a>(world: &'a World, namespace: &str, release: &str) -> Vec<&'a Object> {
    let prefix = format!("sh.helm.release.v1.{release}.v");
    world
        .objects
        .iter()
        .filter(|o| {
            o.is_kubernetes()
                && o.group.is_empty()
                && matches!(&*o.kind, "Secret" | "ConfigMap")
                && o.namespace.as_deref() == Some(namespace)
                && o.name.strip_prefix(&prefix).is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

/// The release's selection, and what the plan must say of it: the latest
/// record's manifest when the snapshot holds the records (every record
/// purged, unless `keep_history`), else Helm's ownership annotations.
fn release(app: &mut App, world: &World, namespace: &str, name: &str, keep_history: bool) {
    let mut records = storage_records(world, namespace, name);
    let revision = |o: &Object| o.name.rsplit_once(".v").and_then(|(_, v)| v.parse::<u64>().ok()).unwrap_or(0);
    records.sort_by_key(|o| revision(o));
    let Some(latest) = records.last() else {
        app.notes.push(Note::HelmReleaseInferred { namespace: intern(namespace), name: intern(name) });
        app.select.push(Select::HelmRelease { namespace: intern(namespace), name: intern(name) });
        return;
    };
    let read = world.document(latest).and_then(|doc| storage::release(&doc, &*latest.kind == "Secret"));
    let objects = read.as_ref().and_then(|r| storage::manifest(&r.manifest));
    let (Some(release), Some(objects)) = (read, objects) else {
        app.notes.push(Note::StorageUndecoded { record: intern(&latest.reference()) });
        return;
    };
    // An uninstalled release kept with its history: only the records go.
    if release.info.status != "uninstalled" {
        let entries = objects
            .into_iter()
            .map(|m| ManifestEntry {
                group: group_of(&m.api_version, &m.kind),
                kind: intern(&m.kind),
                namespace: m.namespace.as_deref().map(intern),
                name: intern(&m.name),
                policy: m.policy.as_deref().map(intern),
            })
            .collect();
        let ns = match release.namespace.is_empty() {
            true => namespace,
            false => &release.namespace,
        };
        app.select.push(Select::Manifest { namespace: intern(ns), objects: entries });
    }
    let keys = records.iter().map(|r| key("", &r.kind, r.namespace.as_deref(), &r.name)).collect();
    let kept = keep_history.then_some(Release {
        id: "helm-keep-history",
        text: "the uninstall keeps the release's history (keepHistory)",
    });
    app.select.push(Select::Records { keys, kept });
}

pub fn helm_chart(doc: &Node, o: &Object, world: &World) -> App {
    let mut app = App::new(Controller::K3sHelm);
    let version = text(doc, &["spec", "helmVersion"]).unwrap_or("");
    let chart = text(doc, &["spec", "chart"]).is_some_and(|c| !c.is_empty())
        || text(doc, &["spec", "chartContent"]).is_some_and(|c| !c.is_empty());
    let unmanaged = super::wire::annotation(doc, K3S_UNMANAGED).is_some();
    app.releases = if !has_finalizer(o, &K3S_FINALIZERS) {
        Some(match unmanaged {
            true => Release {
                id: "k3s-unmanaged",
                text: "the HelmChart is unmanaged (helmcharts.helm.cattle.io/unmanaged): no helm-controller finalizes it, nothing is uninstalled",
            },
            false => Release {
                id: "k3s-no-finalizer",
                text: "the HelmChart has no helm-controller finalizer: nothing is uninstalled",
            },
        })
    } else if !matches!(version, "" | "v3") {
        Some(Release {
            id: "k3s-helm-version",
            text: "its spec.helmVersion is not v3: helm-controller's OnRemove returns without an uninstall",
        })
    } else if !chart {
        Some(Release { id: "k3s-no-chart", text: "it names no chart: helm-controller does not manage it" })
    } else {
        None
    };
    let own_ns = o.namespace.as_deref().unwrap_or("default");
    let target = text(doc, &["spec", "targetNamespace"]).filter(|t| !t.is_empty()).unwrap_or(own_ns);
    release(&mut app, world, target, &o.name, false);
    // The chart's own objects: wrangler's empty apply for the chart's set.
    app.select.push(Select::ObjectSet {
        gvk: intern(HELM_CHART_GVK),
        namespace: o.namespace.clone(),
        name: o.name.clone(),
    });
    app
}

pub fn helm_release(doc: &Node, o: &Object, world: &World) -> App {
    let mut app = App::new(Controller::FluxHelm);
    let own_ns = o.namespace.as_deref().unwrap_or("default");
    let storage = text(doc, &["status", "storageNamespace"]).filter(|s| !s.is_empty());
    let latest = at(doc, &["status", "history"]).and_then(Node::as_seq).and_then(|h| h.first());
    let name = latest.and_then(|h| h.get("name")).and_then(Node::as_str).filter(|n| !n.is_empty());
    let namespace = latest.and_then(|h| h.get("namespace")).and_then(Node::as_str).filter(|n| !n.is_empty());
    app.releases = if !has_finalizer(o, &[FLUX_FINALIZER]) {
        Some(Release {
            id: "flux-no-finalizer",
            text: "the HelmRelease has no finalizers.fluxcd.io: nothing finalizes it",
        })
    } else if flag(doc, &["spec", "suspend"]) {
        Some(Release { id: "flux-suspend", text: "the HelmRelease is suspended: helm-controller uninstalls nothing" })
    } else if storage.is_none() || name.is_none() {
        Some(Release {
            id: "helm-not-installed",
            text:
                "its status names no installed release (storageNamespace, history): helm-controller uninstalls nothing",
        })
    } else {
        super::flux::remote(&mut app, doc)
    };
    let name = name.unwrap_or(&o.name);
    let namespace = namespace.unwrap_or(own_ns);
    let keep_history = flag(doc, &["spec", "uninstall", "keepHistory"]);
    // The storage record first; else helm-controller's inventory (≥ 1.5:
    // the latest manifest's objects, hooks left out); else the annotations.
    let stored = !storage_records(world, storage.unwrap_or(namespace), name).is_empty();
    match super::flux::inventory(doc).filter(|keys| !keys.is_empty() && !stored) {
        Some(keys) => {
            app.notes.push(Note::HelmReleaseInferred { namespace: intern(namespace), name: intern(name) });
            app.select.push(Select::Keys { keys, owner: None });
        }
        None => release(&mut app, world, storage.unwrap_or(namespace), name, keep_history),
    }
    // `HelmChartTemplate.Reconcile`: the chart of `status.helmChart` goes too.
    if let Some((ns, chart)) = text(doc, &["status", "helmChart"]).and_then(|c| c.split_once('/')) {
        app.select.push(Select::Keys {
            keys: vec![key("source.toolkit.fluxcd.io", "HelmChart", Some(ns), chart)],
            owner: None,
        });
    }
    app
}

/// An Addon: the k3s deploy controller applies its manifest file again
/// (every 15 s when it changes, and at each start): what it applied comes
/// back, and deleting the Addon alone does not remove it.
pub fn addon(o: &Object) -> App {
    App {
        controller: Controller::K3sAddon,
        finalizer: None,
        releases: Some(Release {
            id: "k3s-addon-manifest",
            text:
                "k3s's deploy controller applies the Addon's manifest file again; `k3s --disable` removes it for good",
        }),
        select: vec![Select::ObjectSet {
            gvk: intern(ADDON_GVK),
            namespace: o.namespace.clone(),
            name: o.name.clone(),
        }],
        notes: Vec::new(),
        // Nothing waits: the Addon is no finalizer's holder.
        waits: false,
    }
}
