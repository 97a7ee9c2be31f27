//! Application controllers (issue 35): an application object (an Argo CD
//! Application, a Flux Kustomization or HelmRelease, a k3s HelmChart, a
//! kapp-controller App, a Crossplane claim) whose controller deletes what
//! it manages when the application object is deleted, and only then
//! removes its finalizer. In the model's terms: the application object
//! *manages* each object of its managed set (a [`RelKind::Manages`]
//! relation with the `controller` flag, `from` the application object),
//! and a switch of the application or of the object may keep the object
//! ([`Keep`]). The wire formats are read in `dialect::controllers`; the
//! relations are made in `analysis::managed`.
//!
//! [`RelKind::Manages`]: super::RelKind::Manages

use super::{ObjId, Str};

/// The controller that acts for an application object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Controller {
    /// Argo CD's application controller (`Application.argoproj.io`).
    ArgoCd,
    /// Flux kustomize-controller (`Kustomization.kustomize.toolkit.fluxcd.io`).
    FluxKustomize,
    /// Flux helm-controller (`HelmRelease.helm.toolkit.fluxcd.io`).
    FluxHelm,
    /// k3s / RKE2 helm-controller (`HelmChart.helm.cattle.io`).
    K3sHelm,
    /// k3s's deploy controller (`Addon.k3s.cattle.io`): it applies a
    /// manifest file of the server's manifests directory.
    K3sAddon,
    /// kapp-controller (`App.kappctrl.k14s.io`).
    Kapp,
    /// Crossplane's claim reconciler (a claim of a composite resource).
    Crossplane,
}

impl Controller {
    /// A stable id (JSON `controller`).
    pub fn id(self) -> &'static str {
        match self {
            Controller::ArgoCd => "argocd",
            Controller::FluxKustomize => "flux-kustomize",
            Controller::FluxHelm => "flux-helm",
            Controller::K3sHelm => "k3s-helm",
            Controller::K3sAddon => "k3s-deploy",
            Controller::Kapp => "kapp-controller",
            Controller::Crossplane => "crossplane",
        }
    }

    /// The controller, as its users name it.
    pub fn name(self) -> &'static str {
        match self {
            Controller::ArgoCd => "Argo CD",
            Controller::FluxKustomize => "Flux kustomize-controller",
            Controller::FluxHelm => "Flux helm-controller",
            Controller::K3sHelm => "k3s helm-controller",
            Controller::K3sAddon => "k3s's deploy controller",
            Controller::Kapp => "kapp-controller",
            Controller::Crossplane => "Crossplane",
        }
    }

    /// How the application object reaches what it manages (after "managed
    /// by X").
    pub fn through(self) -> &'static str {
        match self {
            Controller::ArgoCd => "through its resources finalizer",
            Controller::FluxKustomize => "through its inventory (prune on deletion)",
            Controller::FluxHelm => "through its Helm release (uninstalled on deletion)",
            Controller::K3sHelm => "through its Helm release (helm-controller uninstalls it on deletion)",
            Controller::K3sAddon => "through its manifest file, which k3s applies again",
            Controller::Kapp => "through its app label (kapp delete on deletion)",
            Controller::Crossplane => "through its resourceRef (the claim deletes its composite)",
        }
    }

    /// Does the application object's deletion take what it manages? (The
    /// k3s deploy controller's Addon does not: the file stays.)
    pub fn cascades(self) -> bool {
        self != Controller::K3sAddon
    }
}

/// An object named by group, kind, namespace and name (as a tracker names one).
pub use super::tracking::Key;

/// An application object as its controller reads it.
#[derive(Clone, Debug)]
pub struct App {
    pub controller: Controller,
    /// The finalizer through which its controller cascades (it removes it
    /// once what it deletes is gone); `None` when it does not cascade.
    pub finalizer: Option<Str>,
    /// `Some`: its controller leaves everything it manages when it is
    /// deleted (no finalizer, suspended, an orphan policy…): why, as an id.
    pub releases: Option<Release>,
    /// How its managed set is found.
    pub select: Vec<Select>,
    /// What a plan that deletes it must say.
    pub notes: Vec<Note>,
    /// Its finalizer is removed only once what it deletes is gone (so it
    /// goes after it); false: its controller removes it right after the
    /// deletions (Flux's default deletion policies, a Crossplane claim's
    /// background composite deletion), and nothing orders the two.
    pub waits: bool,
}

/// In a managed-by relation's `decl`: the application object does not
/// wait for the object (see [`App::waits`]).
const NO_WAIT: u32 = 1 << 31;

impl App {
    /// An application of `controller` that cascades and waits, with
    /// nothing selected yet.
    pub fn new(controller: Controller) -> App {
        App { controller, finalizer: None, releases: None, select: Vec::new(), notes: Vec::new(), waits: true }
    }
}

/// How an application's managed set is found in a snapshot.
#[derive(Clone, Debug)]
pub enum Select {
    /// Argo CD: root objects (no owner reference) whose tracking names the
    /// instance `instance` — the tracking id's application, or with label
    /// tracking the label `label`. `app_keeps`: the Application's own sync
    /// options say `Delete=false`.
    Argo { instance: Str, label: Option<Str>, app_keeps: bool },
    /// A Helm release, by Helm's ownership annotations (Helm ≥ 3.2 writes
    /// them on every object of the release's manifest, never on hooks).
    HelmRelease { namespace: Str, name: Str },
    /// wrangler's objectset: the objects whose owner annotations name
    /// this object (`owner-gvk`, `owner-namespace`, `owner-name`).
    ObjectSet { gvk: Str, namespace: Option<Str>, name: Str },
    /// An explicit list (Flux's `status.inventory`); `owner`: the owner
    /// labels (namespace, name) each object must carry live.
    Keys { keys: Vec<Key>, owner: Option<(Str, Str)> },
    /// Every object with this label (kapp).
    Label { key: Str, value: Str },
    /// A Helm release's latest manifest, read from its storage record:
    /// each object (in `namespace`, the release's, unless it says) with
    /// its `helm.sh/resource-policy` as the manifest writes it.
    Manifest { namespace: Str, objects: Vec<ManifestEntry> },
    /// Objects its controller deletes unless `kept` (Helm's storage
    /// records, purged unless `keepHistory`).
    Records { keys: Vec<Key>, kept: Option<Release> },
    /// One object (a Crossplane claim's composite), when it names the
    /// application back (`claim`: its `spec.claimRef` does).
    Bound { key: Key, claim: Option<bool> },
}

/// One object of a Helm release's manifest.
#[derive(Clone, Debug)]
pub struct ManifestEntry {
    pub group: Str,
    pub kind: Str,
    /// As written (else the release's namespace, when the kind is namespaced).
    pub namespace: Option<Str>,
    pub name: Str,
    pub policy: Option<Str>,
}

/// Why an application's controller leaves what it manages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// A stable id (JSON `why`).
    pub id: &'static str,
    /// In words, after "its controller leaves it: ".
    pub text: &'static str,
}

/// What a plan that deletes an application object must say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Note {
    /// The Helm release's contents come from Helm's ownership annotations:
    /// the release's storage record is not in the snapshot.
    HelmReleaseInferred { namespace: Str, name: Str },
    /// Argo CD: `Delete=confirm` or `Prune=confirm` (the Application's)
    /// gates the cascade on `argocd.argoproj.io/deletion-approved`.
    AwaitsConfirmation,
    /// The application object never finishes deleting (why, in words).
    DeletionHangs(&'static str),
    /// The managed objects live in another cluster (the field that says so).
    RemoteCluster(&'static str),
    /// Crossplane: the managed resource goes, its external resource stays.
    ExternalResourceKept,
    /// The Helm release's storage record (this one) is in the snapshot,
    /// and its manifest decides what the uninstall deletes: teardown does
    /// not decode it, so a plan that uninstalls the release is refused.
    StorageUndecoded { record: Str },
}

impl Note {
    /// The warning's type (JSON `type`).
    pub fn id(&self) -> &'static str {
        match self {
            Note::HelmReleaseInferred { .. } => "helm-release-inferred",
            Note::AwaitsConfirmation => "awaits-confirmation",
            Note::DeletionHangs(_) => "deletion-hangs",
            Note::RemoteCluster(_) => "remote-cluster",
            Note::StorageUndecoded { .. } => "helm-storage-undecoded",
            Note::ExternalResourceKept => "external-resource-kept",
        }
    }
}

/// Why one managed object stays when its application goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// The application's own setting (JSON type `controller-releases`).
    Releases(Release),
    /// The object's own mark tells the controller to leave it (JSON type
    /// `keep-annotation`): the mark's id and its annotation or label.
    Marked { id: &'static str, mark: &'static str },
    /// The controller never deletes this kind (`kind-never-deleted`).
    NeverKind { id: &'static str, text: &'static str },
    /// Listed, but its live ownership metadata names another manager
    /// (`ownership-mismatch`).
    Mismatch { id: &'static str, text: &'static str },
    /// A namespace the controller never deletes (`protected-namespace`).
    ProtectedNamespace,
}

impl Keep {
    /// The reason's type (JSON `type`).
    pub fn id(&self) -> &'static str {
        match self {
            Keep::Releases(_) => "controller-releases",
            Keep::Marked { .. } => "keep-annotation",
            Keep::NeverKind { .. } => "kind-never-deleted",
            Keep::Mismatch { .. } => "ownership-mismatch",
            Keep::ProtectedNamespace => "protected-namespace",
        }
    }

    /// Its `why` (JSON).
    pub fn why(&self) -> Option<&'static str> {
        match self {
            Keep::Releases(r) => Some(r.id),
            Keep::Marked { id, .. } | Keep::NeverKind { id, .. } | Keep::Mismatch { id, .. } => Some(id),
            Keep::ProtectedNamespace => None,
        }
    }
}

/// How a managed object's relation is gated: kept with a reason of its
/// own, or kept by an owner reference (Argo CD deletes root objects only:
/// the owner relation, by index, keeps it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gated {
    Keep(Keep),
    Owned(u32),
}

impl Controller {
    pub const ALL: [Controller; 7] = [
        Controller::ArgoCd,
        Controller::FluxKustomize,
        Controller::FluxHelm,
        Controller::K3sHelm,
        Controller::K3sAddon,
        Controller::Kapp,
        Controller::Crossplane,
    ];

    /// The controller a managed-by relation names (its `decl`).
    pub fn of_decl(decl: u32) -> Option<Controller> {
        Controller::ALL.get((decl & !NO_WAIT) as usize).copied()
    }

    /// What a managed-by relation's `decl` holds: the controller, and
    /// whether the application object waits for what it manages.
    pub fn decl(self, waits: bool) -> u32 {
        let c = Controller::ALL.iter().position(|c| *c == self).unwrap_or(0) as u32;
        if waits {
            c
        } else {
            c | NO_WAIT
        }
    }

    /// Does a managed-by relation of this `decl` order the application
    /// object after the object (its finalizer waits for it to be gone)?
    pub fn waits(decl: u32) -> bool {
        decl & NO_WAIT == 0
    }
}

/// What the snapshot's application objects manage, made when it is loaded:
/// the managed-by relations are in `Resolved::relations`; these say which
/// of them the controller does not follow, and what the applications are.
#[derive(Clone, Debug, Default)]
pub struct Managed {
    /// Managed-by relations (by index in `Resolved::relations`) that the
    /// controller does not follow: what keeps the object.
    pub gated: Vec<(u32, Gated)>,
    /// The application objects, as their controllers read them.
    pub apps: Vec<(ObjId, App)>,
    /// (application, record): a record its controller deletes after the
    /// rest of what the application manages (Helm's storage, kapp's app record).
    pub records: Vec<(ObjId, ObjId)>,
    /// Crossplane managed resources whose deletion leaves their external
    /// resource (`deletionPolicy: Orphan`, management policies without Delete).
    pub external_kept: Vec<ObjId>,
}

impl Managed {
    pub fn app(&self, id: ObjId) -> Option<&App> {
        self.apps.binary_search_by_key(&id, |(a, _)| *a).ok().and_then(|i| self.apps.get(i)).map(|(_, a)| a)
    }
}
