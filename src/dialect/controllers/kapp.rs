//! kapp-controller: an App's cascade (`pkg/app/app_reconcile.go`
//! `reconcileDelete`, `pkg/app/app_deploy.go` `App.delete`,
//! `pkg/deploy/kapp.go`; kapp's `pkg/kapp/cmd/app/delete.go`,
//! `pkg/kapp/app/recorded_app.go`, `labeled_app.go`).

use super::wire::{flag, has_finalizer, key, text, World};
use crate::input::Node;
use crate::model::intern::intern;
use crate::model::managed::{App, Controller, Note, Release, Select};
use crate::model::Object;

pub const FINALIZER: &str = "finalizers.kapp-ctrl.k14s.io/delete";
/// The label kapp selects an app's objects by (`app_meta.go`).
pub const APP_LABEL: &str = "kapp.k14s.io/app";
/// The label of an app's change records (`recorded_app_changes.go`).
const CHANGE_LABEL: &str = "kapp.k14s.io/app-change-app-label";

pub fn app(doc: &Node, o: &Object, world: &World) -> App {
    let mut app = App::new(Controller::Kapp);
    app.releases = if !has_finalizer(o, &[FINALIZER]) {
        Some(Release { id: "kapp-no-finalizer", text: "the App has no kapp-controller finalizer: nothing is deleted" })
    } else if flag(doc, &["spec", "noopDelete"]) {
        Some(Release { id: "kapp-noop-delete", text: "the App says noopDelete: kapp-controller deletes nothing" })
    } else if super::wire::at(doc, &["spec", "cluster"]).is_some() {
        app.notes.push(Note::RemoteCluster("spec.cluster"));
        Some(Release { id: "kapp-other-cluster", text: "the App deploys to another cluster (spec.cluster)" })
    } else {
        None
    };
    let ns = o.namespace.as_deref();
    // The app record: `<name>.app` in the App's namespace (`--app <name>.app`).
    let record_name = format!("{}.app", o.name);
    let record = world.find("", "ConfigMap", ns, &record_name);
    // The label value: the App's status, else the app record's spec.
    let from_status = text(doc, &["status", "deploy", "kapp", "associatedResources", "label"])
        .and_then(|l| l.split_once('='))
        .filter(|(k, v)| *k == APP_LABEL && !v.is_empty())
        .map(|(_, v)| v.to_string());
    let from_record = || {
        let doc = world.document(record?.1)?;
        let spec: serde_json::Value = serde_json::from_str(text(&doc, &["data", "spec"])?).ok()?;
        spec.get("labelValue")?.as_str().filter(|v| !v.is_empty()).map(String::from)
    };
    if let Some(value) = from_status.or_else(from_record) {
        app.select.push(Select::Label { key: intern(APP_LABEL), value: intern(&value) });
        app.select.push(Select::Label { key: intern(CHANGE_LABEL), value: intern(&value) });
    }
    if record.is_some() {
        app.select.push(Select::Records { keys: vec![key("", "ConfigMap", ns, &record_name)], kept: None });
    }
    app
}
