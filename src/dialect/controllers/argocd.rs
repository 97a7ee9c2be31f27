//! Argo CD's application controller: an Application's cascade
//! (`controller/appcontroller.go` `finalizeApplicationDeletion`,
//! `controller/cache/cache.go` `GetManagedLiveObjs`,
//! `util/argo/resource_tracking.go`, `util/settings/settings.go`).

use super::wire::{has_finalizer, text, World};
use crate::input::Node;
use crate::model::intern::intern;
use crate::model::managed::{App, Controller, Note, Release, Select};
use crate::model::Object;

/// `Application.CascadedDeletion()`: one of these finalizers.
pub const RESOURCES_FINALIZERS: [&str; 3] = [
    "resources-finalizer.argocd.argoproj.io",
    "resources-finalizer.argocd.argoproj.io/foreground",
    "resources-finalizer.argocd.argoproj.io/background",
];
/// The in-cluster destination.
const IN_CLUSTER_SERVER: &str = "https://kubernetes.default.svc";
const IN_CLUSTER_NAME: &str = "in-cluster";

/// What argocd-cm says (its defaults when the snapshot lacks it).
pub struct Settings {
    /// Argo CD's namespace: argocd-cm's, else `argocd`.
    namespace: String,
    /// `application.resourceTrackingMethod: label`: the label
    /// `application.instanceLabelKey` (default `app.kubernetes.io/instance`).
    label: Option<String>,
}

impl Settings {
    pub fn of(world: &World) -> Settings {
        let cm = world
            .objects
            .iter()
            .find(|o| o.is_kubernetes() && o.group.is_empty() && &*o.kind == "ConfigMap" && &*o.name == "argocd-cm");
        let Some(cm) = cm else { return Settings { namespace: "argocd".into(), label: None } };
        let doc = world.document(cm);
        let data = |k: &str| doc.as_ref().and_then(|d| text(d, &["data", k])).map(str::trim).map(String::from);
        // `GetTrackingMethod`: empty means annotation; `annotation+label` reads the annotation.
        let label = match data("application.resourceTrackingMethod").as_deref() {
            Some("label") => Some(
                data("application.instanceLabelKey")
                    .filter(|k| !k.is_empty())
                    .unwrap_or_else(|| "app.kubernetes.io/instance".into()),
            ),
            _ => None,
        };
        Settings { namespace: cm.namespace.as_deref().unwrap_or("argocd").into(), label }
    }
}

pub fn app(doc: &Node, o: &Object, settings: &Settings) -> App {
    let mut app = App::new(Controller::ArgoCd);
    // `InstanceName`: the name in Argo CD's namespace, else `namespace_name`.
    let instance = match o.namespace.as_deref() {
        Some(ns) if ns != settings.namespace => format!("{ns}_{}", o.name),
        _ => o.name.to_string(),
    };
    let options: Vec<&str> = super::wire::at(doc, &["spec", "syncPolicy", "syncOptions"])
        .and_then(Node::as_seq)
        .map(|s| s.iter().filter_map(Node::as_str).map(str::trim).collect())
        .unwrap_or_default();
    let app_keeps = options.contains(&"Delete=false");
    if options.iter().any(|o| matches!(*o, "Delete=confirm" | "Prune=confirm")) {
        app.notes.push(Note::AwaitsConfirmation);
    }
    let server = text(doc, &["spec", "destination", "server"]).filter(|s| !s.is_empty());
    let name = text(doc, &["spec", "destination", "name"]).filter(|s| !s.is_empty());
    let remote = server.is_some_and(|s| s.trim_end_matches('/') != IN_CLUSTER_SERVER)
        || (server.is_none() && name.is_some_and(|n| n != IN_CLUSTER_NAME));
    if !has_finalizer(o, &RESOURCES_FINALIZERS) {
        app.releases = Some(Release {
            id: "argocd-no-resources-finalizer",
            text: "the Application has no resources-finalizer.argocd.argoproj.io: Argo CD deletes none of its objects",
        });
    } else if remote {
        app.releases = Some(Release {
            id: "argocd-remote-destination",
            text: "the Application deploys to another cluster: Argo CD deletes its objects there, not these",
        });
        app.notes.push(Note::RemoteCluster("spec.destination"));
    }
    app.select.push(Select::Argo {
        instance: intern(&instance),
        label: settings.label.as_deref().map(intern),
        app_keeps,
    });
    app
}
