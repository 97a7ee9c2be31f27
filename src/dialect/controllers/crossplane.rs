//! Crossplane: a claim's cascade (`internal/controller/apiextensions/claim/reconciler.go`
//! `Reconcile`): its composite, when the composite's `claimRef` names the
//! claim; the composed resources go with the composite by ownership.

use super::wire::{text, World};
use crate::input::Node;
use crate::model::kube::group_of;
use crate::model::managed::{App, Controller, Note, Release, Select};
use crate::model::Object;

const PAUSED: &str = "crossplane.io/paused";
/// A managed resource's finalizer (crossplane-runtime `managed.Reconciler`).
pub const MANAGED_FINALIZER: &str = "finalizer.managedresource.crossplane.io";

/// Does deleting this managed resource leave its external resource
/// (`policies.go` `ShouldDelete` false)? Management policies not written
/// (or the default `['*']`): `deletionPolicy: Orphan`; else a list without
/// `Delete` (or `*`).
pub fn keeps_external(doc: &Node) -> bool {
    let policies: Option<Vec<&str>> = super::wire::at(doc, &["spec", "managementPolicies"])
        .and_then(Node::as_seq)
        .map(|s| s.iter().filter_map(Node::as_str).collect());
    match policies.as_deref() {
        None | Some(["*"]) => text(doc, &["spec", "deletionPolicy"]) == Some("Orphan"),
        Some(list) => !list.iter().any(|p| matches!(*p, "Delete" | "*")),
    }
}

pub fn claim(doc: &Node, o: &Object, world: &World) -> App {
    let mut app = App::new(Controller::Crossplane);
    // Background (the default): the claim's finalizer goes right after the
    // composite's deletion is asked for; Foreground waits for it.
    app.waits = text(doc, &["spec", "compositeDeletePolicy"]) == Some("Foreground");
    let reference = super::wire::at(doc, &["spec", "resourceRef"]);
    let field = |k: &str| reference.and_then(|r| r.get(k)).and_then(Node::as_str).filter(|s| !s.is_empty());
    if super::wire::annotation(doc, PAUSED) == Some("true") {
        app.releases =
            Some(Release { id: "crossplane-paused", text: "the claim is paused: Crossplane does nothing with it" });
        app.notes
            .push(Note::DeletionHangs("the claim is paused (crossplane.io/paused): its finalizer is never removed"));
    }
    let (Some(api_version), Some(kind), Some(name)) = (field("apiVersion"), field("kind"), field("name")) else {
        return app;
    };
    let group = group_of(api_version, kind);
    let key = super::wire::key(&group, kind, None, name);
    // The composite's `spec.claimRef` (legacy composites are cluster-scoped).
    let claim = world.find(&group, kind, None, name).and_then(|(_, xr)| world.document(xr)).map(|xr| {
        let back = |k: &str| text(&xr, &["spec", "claimRef", k]);
        match back("name") {
            None => true,
            Some(n) => n == &*o.name && back("namespace").is_none_or(|ns| Some(ns) == o.namespace.as_deref()),
        }
    });
    if claim == Some(false) && app.releases.is_none() {
        app.releases = Some(Release {
            id: "crossplane-bound-elsewhere",
            text:
                "the composite's claimRef names another claim: the claim reconciler returns early and deletes nothing",
        });
        app.notes.push(Note::DeletionHangs(
            "its composite is bound to another claim: the claim reconciler returns early and never removes its finalizer",
        ));
    }
    app.select.push(Select::Bound { key, claim });
    app
}
