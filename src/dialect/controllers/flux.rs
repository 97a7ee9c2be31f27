//! Flux kustomize-controller: a Kustomization's cascade
//! (`internal/controller/kustomization_controller.go` `finalize`,
//! `finalizerShouldDeleteResources`, `internal/inventory/inventory.go`,
//! cli-utils `ParseObjMetadata`, fluxcd/pkg `ssa` `DeleteAll`).

use super::wire::{at, flag, has_finalizer, key, text};
use crate::input::Node;
use crate::model::intern::intern;
use crate::model::managed::{App, Controller, Key, Note, Release, Select};
use crate::model::Object;

pub const FINALIZER: &str = "finalizers.fluxcd.io";

/// cli-utils `ParseObjMetadata`: `namespace_name_group_Kind`, `__` in the
/// name for a colon; `None` when it does not parse.
pub fn parse_id(id: &str) -> Option<Key> {
    let (namespace, rest) = id.split_once('_')?;
    let (rest, kind) = rest.rsplit_once('_')?;
    let (name, group) = rest.rsplit_once('_')?;
    let name = name.replace("__", ":");
    if name.contains('_') || name.is_empty() || kind.is_empty() {
        return None;
    }
    let namespace = (!namespace.is_empty()).then_some(namespace);
    Some(key(group, kind, namespace, &name))
}

/// The entries of `status.inventory`; `None` when one does not parse
/// (`inventory.List` fails, and `finalize` ignores the error: it deletes
/// nothing).
pub fn inventory(doc: &Node) -> Option<Vec<Key>> {
    let entries = at(doc, &["status", "inventory", "entries"]).and_then(Node::as_seq).unwrap_or_default();
    entries.iter().map(|e| e.get("id").and_then(Node::as_str).and_then(parse_id)).collect()
}

/// `spec.kubeConfig`: Flux applies to (and deletes in) another cluster.
pub fn remote(app: &mut App, doc: &Node) -> Option<Release> {
    at(doc, &["spec", "kubeConfig"])?;
    app.notes.push(Note::RemoteCluster("spec.kubeConfig"));
    Some(Release { id: "flux-remote-cluster", text: "it applies to another cluster (spec.kubeConfig)" })
}

pub fn kustomization(doc: &Node, o: &Object) -> App {
    let mut app = App::new(Controller::FluxKustomize);
    let policy = text(doc, &["spec", "deletionPolicy"]).unwrap_or("MirrorPrune");
    let deletes = match policy {
        "Delete" | "WaitForTermination" => true,
        "MirrorPrune" | "" => flag(doc, &["spec", "prune"]),
        _ => false,
    };
    let inventory = inventory(doc);
    // `finalize`: only WaitForTermination waits for the objects to be gone.
    app.waits = policy == "WaitForTermination";
    app.releases = if !has_finalizer(o, &[FINALIZER]) {
        Some(Release {
            id: "flux-no-finalizer",
            text: "the Kustomization has no finalizers.fluxcd.io: nothing finalizes it",
        })
    } else if flag(doc, &["spec", "suspend"]) {
        Some(Release {
            id: "flux-suspend",
            text: "the Kustomization is suspended: kustomize-controller deletes nothing",
        })
    } else if !deletes {
        Some(Release {
            id: "flux-deletion-policy",
            text: "its deletionPolicy (Orphan, or MirrorPrune without prune: true) leaves what it applied",
        })
    } else if inventory.is_none() {
        Some(Release {
            id: "flux-inventory-unreadable",
            text:
                "an entry of its status.inventory does not parse: kustomize-controller's finalize then deletes nothing",
        })
    } else {
        remote(&mut app, doc)
    };
    let owner = (intern(o.namespace.as_deref().unwrap_or("default")), o.name.clone());
    app.select.push(Select::Keys { keys: inventory.unwrap_or_default(), owner: Some(owner) });
    app
}
