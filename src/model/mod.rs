//! The model: objects every dialect turns its documents into, the references
//! between them as written, and the relations those references resolve to.
//!
//! Objects keep only what the analyses need (identity, owners, destruction
//! dependencies, finalizers, labels, where they came from) so that a snapshot
//! of a million objects fits in memory comfortably.

pub mod anchor;
pub mod intern;
pub mod kube;
pub mod lifecycle;
pub mod managed;
pub mod naming;
pub mod refs;
pub mod resolve;
pub mod served;
pub mod skipped;
pub mod snapshot;
pub mod tracking;

pub use intern::Str;
pub use refs::{DepDecl, DepKind, DepSide, DepTarget, OwnerRef};

use crate::span::Span;
use serde::Serialize;

/// Index of an object in [`Model::objects`]; also its graph node index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjId(pub u32);

impl ObjId {
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// This object's entry in `table`, a table with one entry per object
    /// of the snapshot that made the id (its objects, their references…);
    /// an internal error, never a panic, if it has none.
    pub fn of<T>(self, table: &[T]) -> Result<&T, crate::internal::Internal> {
        crate::internal::entry(table, self.index(), "object")
    }

    /// [`ObjId::of`], to change in place.
    pub fn of_mut<T>(self, table: &mut [T]) -> Result<&mut T, crate::internal::Internal> {
        crate::internal::entry_mut(table, self.index(), "object")
    }
}

/// How an object is identified, referred to and selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Identity {
    /// By group, kind, namespace and name (and a uid), as Kubernetes
    /// objects are: scopes, namespaces and CRDs apply; owner references
    /// resolve by uid, then by kind and name.
    Coordinates,
    /// By an id alone; owner references name the id.
    Id,
    /// A token of tsort input: the token is the object and where it is
    /// first written; its order comes from the pairs it is in.
    Token,
    /// By group (an API name), kind, namespace and name, as Krake's
    /// ResourceRef names a resource: owner references give all four and
    /// resolve to exactly that object. No Kubernetes rule applies (scopes,
    /// implicit Namespace and CRD relations, protected namespaces).
    Ref,
}

/// What the model keeps of the dialect that read an object: its name, how
/// its objects are identified, and which keys of its text hold which
/// fields (so that findings can point at them). Each dialect has one, as a
/// static.
#[derive(Debug)]
pub struct Origin {
    pub dialect: &'static str,
    /// One of its objects, in a message: `a Murano object`.
    pub noun: &'static str,
    pub identity: Identity,
    pub fields: Fields,
    pub collector: Collector,
}

/// How the garbage collector of a dialect's system treats its objects
/// (`plan --gc`, the cascade, `simulate`).
#[derive(Debug)]
pub struct Collector {
    /// A dependent with several owners goes when any of them is deleted
    /// (Krake marks every direct dependent), not only when none is left
    /// (Kubernetes); `--multi-owner` overrides it.
    pub any_owner: bool,
    /// Objects whose owner references are all dangling are garbage
    /// (Kubernetes). Krake's collector only follows deletions.
    pub collects_dangling: bool,
    /// The finalizers through which the system's collector deletes an
    /// object's dependents (Krake's `cascade_deletion`, which its API adds
    /// on deletion; KubeVela's on Applications and trackers). An object
    /// being deleted without any of them no longer cascades: the collector
    /// is done with it. Never listed as "waits for".
    pub cascade_finalizers: &'static [&'static str],
    /// Finalizers of the system's own controllers, known without
    /// `--finalizer-controller` (no TD011).
    pub finalizers: &'static [&'static str],
    /// A deletion can leave the dependents behind (Kubernetes' `orphan`
    /// propagation policy). Krake has no such policy.
    pub orphans: bool,
}

impl Collector {
    /// Kubernetes' collector: dependents go when no solid owner is left,
    /// dangling owners make garbage.
    pub const KUBERNETES: Collector = Collector {
        any_owner: false,
        collects_dangling: true,
        cascade_finalizers: &[],
        finalizers: &[],
        orphans: true,
    };
}

/// The keys an object's fields are written under, searched in its text.
#[derive(Debug)]
pub struct Fields {
    /// The path to the name (or id).
    pub name: &'static [&'static str],
    /// The list of owners.
    pub owners: &'static str,
    /// The key holding a destruction dependency given by id.
    pub dependency: &'static str,
    pub finalizers: &'static str,
    pub namespace: &'static str,
    pub kind: &'static str,
    /// The field that marks an object being deleted.
    pub deleted: &'static str,
    /// Where a tracking application writes what it tracks.
    pub tracking: &'static TrackingKeys,
    /// Where crd-reconciler's states are written.
    pub states: &'static StateKeys,
    /// The keys of an object model and of its copy, for messages.
    pub models: &'static ModelKeys,
}

/// The keys of an object model (Murano's deployment task), and the words
/// messages use for them.
#[derive(Debug)]
pub struct ModelKeys {
    /// The model as it is now.
    pub model: &'static str,
    /// The model as last deployed.
    pub copy: &'static str,
    /// Why the collector takes an object only in the copy.
    pub removed: &'static str,
}

impl ModelKeys {
    pub const NONE: ModelKeys = ModelKeys { model: "", copy: "", removed: "" };
}

/// The paths of an object's state fields (`reconcile`), for findings to
/// point at.
#[derive(Debug)]
pub struct StateKeys {
    /// The desired state.
    pub desired: &'static [&'static str],
    /// The current state.
    pub current: &'static [&'static str],
}

impl StateKeys {
    pub const NONE: StateKeys = StateKeys { desired: &[], current: &[] };
}

/// The keys of a tracking application's objects (KubeVela), for findings
/// and explanations to point at.
#[derive(Debug)]
pub struct TrackingKeys {
    /// A tracker's list of managed resources.
    pub manages: &'static str,
    /// An Application's list of components.
    pub components: &'static str,
    /// The keys under a component that name what it depends on.
    pub depends: &'static [&'static str],
}

impl TrackingKeys {
    pub const NONE: TrackingKeys = TrackingKeys { manages: "", components: "", depends: &[] };
}

/// What a CustomResourceDefinition defines.
#[derive(Clone, Debug)]
pub struct CrdDef {
    pub group: Str,
    pub kind: Str,
    pub namespaced: bool,
    /// `spec.versions` (name, `served`), or the legacy `spec.version`
    /// (served); empty when neither is written (then every version is taken
    /// as served).
    pub versions: Box<[(Str, bool)]>,
}

#[derive(Clone, Debug)]
pub struct Object {
    /// The dialect that read it, and what that implies.
    pub origin: &'static Origin,
    /// API group, with legacy groups normalised (`extensions` Deployments are `apps`).
    pub group: Str,
    /// Empty for dialects without kinds (native).
    pub kind: Str,
    /// The effective namespace: `None` for cluster-scoped objects; a namespaced
    /// Kubernetes object written without one is in `default`, as with kubectl.
    pub namespace: Option<Str>,
    /// Kubernetes: `metadata.name`. Id-based dialects: the id.
    pub name: Str,
    pub uid: Option<Str>,
    pub labels: Box<[(Str, Str)]>,
    pub owners: Box<[OwnerRef]>,
    pub deps: Box<[DepDecl]>,
    pub finalizers: Box<[Str]>,
    pub deletion_timestamp: Option<Str>,
    pub crd: Option<Box<CrdDef>>,
    /// The object's document (or list item) in its file.
    pub span: Span,
    /// Whether `metadata.namespace` was written (scope is decided once all
    /// CRDs are known; see `resolve`).
    pub namespace_written: bool,
    /// Kubernetes objects: whether its scope is known rather than guessed:
    /// a built-in kind, a kind a CRD of the snapshot defines, a kind its
    /// dialect knows (KubeVela's), or a namespace written (it is namespaced,
    /// in that namespace). False: nothing says, and it is taken as
    /// cluster-scoped, which in a cluster it may not be. Set by
    /// `resolve::assign_scopes` (and by a dialect for its own kinds).
    pub scope_known: bool,
    /// Kubernetes objects: `metadata.resourceVersion` is written, as the
    /// API server writes it on every object it returns. KubeVela's resource
    /// keeper takes an object without one for its Application's, whatever
    /// its labels (`IsResourceManagedByApplication`): written by hand, or
    /// served by an aggregated API.
    pub versioned: bool,
    /// What only the objects of an object model have (a model with a root,
    /// beside the copy of its last deployment, whose objects subscribe to
    /// each other's destruction: Murano's).
    pub member: Option<Box<ModelMember>>,
    /// What only the objects of a tracking application (KubeVela) have.
    pub tracking: Option<Box<tracking::Tracking>>,
    /// What the default ordering rules read (Kubernetes objects of the kinds
    /// they look at; `None` for all others).
    pub facts: Option<Box<kube::Facts>>,
    /// Its desired state in crd-reconciler's terms (`spec.state`):
    /// `reconcile` finds custom resources by it. (The rest of its states is
    /// read again, for the objects `reconcile` looks at.)
    pub desired_state: lifecycle::Said,
}

/// Which model of a deployment task an object of an object model is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// A plain object model (no `ObjectsCopy` to compare with).
    Model,
    /// Only in `Objects`: new since the last deployment.
    New,
    /// Only in `ObjectsCopy`: removed from the model since the last deployment.
    Old,
    /// In both.
    Both,
}

impl Section {
    /// The section of an object seen in `self` and again in `other`.
    pub fn with(self, other: Section) -> Section {
        match (self, other) {
            (a, b) if a == b => a,
            (Section::Model, b) => b,
            (a, Section::Model) => a,
            _ => Section::Both,
        }
    }
}

/// An object of an object model, beyond what every object has (read by
/// a dialect whose objects are models: Murano's).
#[derive(Clone, Debug)]
pub struct ModelMember {
    /// The type as written (`name/version@package`); the object's `kind` is its name.
    pub type_name: Str,
    /// The header's `name`.
    pub name: Option<Str>,
    /// `destroyed: true`: already destroyed, not destroyed again.
    pub destroyed: bool,
    /// The handler of each `onDestruction` subscription, in `deps` order.
    pub handlers: Box<[Option<Str>]>,
    /// It subscribed to its own destruction (no ordering edge): the
    /// handlers named, if any.
    pub own_destruction: Option<Box<[Str]>>,
    /// Where its first subscription to its own destruction is in the
    /// `onDestruction` list: before `deps[own_at]` (the list's order is the
    /// order its subscribers are told in).
    pub own_at: u32,
    /// Every string in the object's own properties (not in nested objects),
    /// sorted: those equal to an object's id are references to it.
    pub strings: Vec<Str>,
    /// Header keys starting with `_`, with their values as JSON.
    pub attributes: Box<[(Str, Str)]>,
    pub section: Section,
    /// The first top-level object of its document (of `Objects` in a task).
    pub root: bool,
    /// The id of its document's root.
    pub model_root: Option<Str>,
    /// How many more times the object is written out in its document.
    pub copies: u32,
}

impl Object {
    /// What other tools say about deleting it (none for objects that are
    /// not Kubernetes objects, or say nothing the rules read).
    pub fn tools(&self) -> Option<&kube::Tools> {
        self.facts.as_deref().and_then(|f| f.tools())
    }

    pub fn identity(&self) -> Identity {
        self.origin.identity
    }

    /// Is it identified by its coordinates (group, kind, namespace, name)?
    pub fn has_coordinates(&self) -> bool {
        matches!(self.origin.identity, Identity::Coordinates | Identity::Ref)
    }

    /// Do Kubernetes' rules apply to it (scopes, implicit relations,
    /// protected namespaces, kubectl's kind discovery)?
    pub fn is_kubernetes(&self) -> bool {
        self.origin.identity == Identity::Coordinates
    }

    /// Does deleting it delete its dependents? Not once its collector is
    /// done with it: being deleted, without the collector's finalizer.
    pub fn cascades(&self) -> bool {
        let own = self.origin.collector.cascade_finalizers;
        own.is_empty() || self.deletion_timestamp.is_none() || self.finalizers.iter().any(|x| own.contains(&&**x))
    }

    /// `Kind[.group]/[namespace/]name` for objects with coordinates, the id otherwise.
    pub fn reference(&self) -> String {
        match self.identity() {
            // (`String::from`, not `to_string`: an `Arc<str>` formats itself.)
            Identity::Id | Identity::Token => String::from(&*self.name),
            Identity::Coordinates | Identity::Ref => {
                let mut s = String::with_capacity(self.kind.len() + self.group.len() + self.name.len() + 24);
                self.write_reference(&mut s);
                s
            }
        }
    }

    /// [`Object::reference`], written at the end of `s` (a table of a
    /// million references makes no string for each).
    pub fn write_reference(&self, s: &mut String) {
        match self.identity() {
            Identity::Id | Identity::Token => s.push_str(&self.name),
            Identity::Coordinates | Identity::Ref => {
                s.push_str(&self.kind);
                if !self.group.is_empty() {
                    s.push('.');
                    s.push_str(&self.group);
                }
                s.push('/');
                if let Some(ns) = &self.namespace {
                    s.push_str(ns);
                    s.push('/');
                }
                s.push_str(&self.name);
            }
        }
    }

    /// The full reference of this object's owner reference `j`
    /// (`Network.operator.openshift.io/cluster`, `ReplicaSet.apps/shop/web-1`):
    /// in the dependent's namespace when its kind is a namespaced built-in,
    /// else by name alone. Another dialect's owners: their id.
    pub fn owner_reference(&self, j: usize) -> String {
        let Some(r) = self.owners.get(j) else { return String::new() };
        if !self.has_coordinates() {
            return r.name.to_string();
        }
        let group = if r.group.is_empty() { String::new() } else { format!(".{}", r.group) };
        if self.identity() == Identity::Ref {
            return match &r.namespace {
                Some(ns) => format!("{}{group}/{ns}/{}", r.kind, r.name),
                None => format!("{}{group}/{}", r.kind, r.name),
            };
        }
        match (&self.namespace, kube::builtin_namespaced(&r.group, &r.kind)) {
            (Some(ns), Some(true)) => format!("{}{group}/{ns}/{}", r.kind, r.name),
            _ => format!("{}{group}/{}", r.kind, r.name),
        }
    }

    /// `Kind/name` — how owner references and messages name an object.
    pub fn short(&self) -> String {
        match self.identity() {
            Identity::Id | Identity::Token => self.name.to_string(),
            Identity::Coordinates | Identity::Ref => format!("{}/{}", self.kind, self.name),
        }
    }

    pub fn is_namespace(&self) -> bool {
        self.is_kubernetes() && self.group.is_empty() && &*self.kind == "Namespace"
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }
}

/// How a relation resolved, for owner references (CONTRACT §5: only a
/// `Solid` owner keeps its dependent alive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    Solid,
    /// Found by kind and name, but the uid differs (TD004).
    UidMismatch,
    /// The owner is in another namespace (TD005).
    CrossNamespace,
    /// A cluster-scoped dependent of a namespaced owner (TD006).
    ClusterScopedDependent,
    /// Nothing is at the reference's coordinates; its uid belongs to an
    /// object of other coordinates (kind Deployment, uid of a ReplicaSet):
    /// the reference dangles (TD004). Drawn to that object, never solid.
    OtherCoordinates,
}

impl Link {
    pub fn as_str(self) -> &'static str {
        match self {
            Link::Solid => "solid",
            Link::UidMismatch => "uid-mismatch",
            Link::CrossNamespace => "cross-namespace",
            Link::ClusterScopedDependent => "cluster-scoped-dependent",
            Link::OtherCoordinates => "other-coordinates",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RelKind {
    /// An owner reference (Kubernetes `ownerReferences`, native `owners`).
    Owns,
    /// A Namespace contains its namespaced objects.
    Contains,
    /// A CustomResourceDefinition defines its custom resources.
    Defines,
    /// A destruction dependency (`depends-on`, `destroyAfter`).
    DestroyAfter,
    /// `--finalizer-controller`: the controller that removes a finalizer is
    /// destroyed after every object carrying it (a destruction dependency).
    Finalizer,
    /// The owner declares it (KubeVela: a resource tracker manages its
    /// resources, an Application its trackers): ownership, always solid.
    Manages,
    /// A component's resources go before those of a component it depends
    /// on (declared by the Application): a destruction dependency.
    ComponentOrder,
    /// A default ordering rule of `plan` (`--no-default-rules` turns them
    /// off): the weakest edge, relaxed whenever it contradicts the others.
    /// Only between objects both in the plan; never cascades.
    Rule(RuleEdge),
    /// Another tool's ordering metadata, as `plan` reads it (Argo CD sync
    /// waves, kapp change rules, Flux `dependsOn`, Crossplane Usages): a
    /// destruction dependency, hard like depends-on. Never cascades.
    Tool(ToolEdge),
    /// A cascade a Kubernetes controller performs outside ownerReferences
    /// (see [`ControllerEdge`]): hard, followed whatever `--cascade` says,
    /// never turned off by `--no-default-rules`.
    Controller(ControllerEdge),
}

/// Another tool's ordering metadata as a destruction dependency of `plan`
/// (`analysis::tools`): `from` is destroyed after `to`.
///
/// Where a tool orders whole groups (every object of Argo CD wave 2 before
/// every object of wave 1, a kapp change group before the objects whose
/// rules name it), the order goes through a *hub*, one node that stands for
/// the group, so that the edges are as many as the objects, not their
/// product. Such a relation has one end at the hub (`hub`, numbered by the
/// relation's `decl`); its `from` and `to` are still real objects, and the
/// relation still holds as written: the object at the hub end is one
/// member of the group (the first in reference order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ToolEdge {
    pub order: ToolOrder,
    pub hub: HubEnd,
}

/// Which tool's metadata, and which part of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolOrder {
    /// Argo CD: `to` is of a higher sync wave of the same application
    /// (`argocd.argoproj.io/sync-wave`; higher waves are deleted first).
    SyncWave,
    /// kapp: a `kapp.k14s.io/change-rule` between `from` and `to` (one of
    /// them declares it, the other is in the change group it names).
    KappRule,
    /// Flux: `to` names `from` in its `spec.dependsOn` (a Kustomization or
    /// HelmRelease is deleted before what it depends on).
    FluxDependsOn,
    /// Crossplane: `from` is the `spec.of` of a Usage whose `spec.by` is
    /// `to` (the Usage is `declared_by`).
    UsageBy,
    /// Crossplane: `from` is the `spec.of` of the Usage `to`, which blocks
    /// its deletion while it exists.
    UsageOf,
    /// Helm's uninstall: `from`, a storage record of the release, is purged
    /// after `to`, an object of the release (`declared_by`: the application).
    HelmRecord,
    /// kapp delete: `from`, the app record, is deleted after `to`, an
    /// object of the app (`declared_by`: the App).
    KappRecord,
}

impl ToolOrder {
    pub fn id(self) -> &'static str {
        match self {
            ToolOrder::SyncWave => "sync-wave",
            ToolOrder::KappRule => "change-rule",
            ToolOrder::FluxDependsOn => "depends-on",
            ToolOrder::UsageBy => "usage-by",
            ToolOrder::UsageOf => "usage-of",
            ToolOrder::HelmRecord => "release-record",
            ToolOrder::KappRecord => "app-record",
        }
    }

    /// The tool, as an id (JSON `tool`).
    pub fn tool_id(self) -> &'static str {
        match self {
            ToolOrder::SyncWave => "argocd",
            ToolOrder::KappRule => "kapp",
            ToolOrder::FluxDependsOn => "flux",
            ToolOrder::UsageBy | ToolOrder::UsageOf => "crossplane",
            ToolOrder::HelmRecord => "helm",
            ToolOrder::KappRecord => "kapp",
        }
    }

    /// The tool, as its users name it.
    pub fn tool(self) -> &'static str {
        match self {
            ToolOrder::SyncWave => "Argo CD",
            ToolOrder::KappRule => "kapp",
            ToolOrder::FluxDependsOn => "Flux",
            ToolOrder::UsageBy | ToolOrder::UsageOf => "Crossplane",
            ToolOrder::HelmRecord => "Helm",
            ToolOrder::KappRecord => "kapp",
        }
    }
}

/// Which end of a [`ToolEdge`] relation stands for a hub.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HubEnd {
    /// Neither: an edge between the two objects.
    None,
    /// `to` stands for the hub: `from` goes after every object of its group.
    To,
    /// `from` stands for the hub: `to` goes before every object of its group.
    From,
}

/// A cascade that a Kubernetes controller performs outside ownerReferences:
/// what the cluster really does when one object is deleted, so part of
/// what a deletion takes whatever the propagation policy (a plan that says
/// "kept" for something a controller deletes is wrong). Each relation's
/// `from` goes after its `to`, as in every relation; which end's deletion
/// takes the other is [`ControllerEdge::taken_by_to`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ControllerEdge {
    /// `from` Endpoints, `to` the Service of its namespace and name: the
    /// endpoints controller deletes the Endpoints once the Service is gone
    /// (kubernetes/kubernetes, `pkg/controller/endpoint`, `syncService`:
    /// a Service not found deletes the Endpoints of its name). The
    /// Endpoints go after the Service: deleted first, the controller
    /// would write them again while the Service still selects Pods.
    ServiceEndpoints,
    /// `from` a Node, `to` a Pod bound to it (`spec.nodeName`): the pod
    /// garbage collector deletes the Pods of a Node that is gone
    /// (`pkg/controller/podgc`, `gcOrphaned`). The Pods go first, as
    /// `kubectl drain` evicts them before the Node is deleted: deleted
    /// after it, they would be force-deleted, without their grace period.
    NodePods,
    /// `from` a PersistentVolume whose `persistentVolumeReclaimPolicy` is
    /// `Delete`, `to` the claim bound to it: the volume controller deletes
    /// the volume once its claim is gone (`pkg/controller/volume/persistentvolume`,
    /// `reclaimVolume`). The volume goes after its claim, as the storage
    /// rule orders it: until the claim is gone, `kubernetes.io/pv-protection`
    /// holds it.
    ReclaimDelete,
    /// `from` a PersistentVolume whose policy keeps it (`Retain`, `Recycle`,
    /// not written: `Retain`), `to` the claim bound to it: deleting the
    /// claim releases the volume and leaves it. Neither cascades nor
    /// orders (the storage rule orders the pair): it says why the plan
    /// keeps the volume.
    Released,
}

impl ControllerEdge {
    pub fn id(self) -> &'static str {
        match self {
            ControllerEdge::ServiceEndpoints => "service-endpoints",
            ControllerEdge::NodePods => "node-pods",
            ControllerEdge::ReclaimDelete => "reclaim-delete",
            ControllerEdge::Released => "released",
        }
    }

    /// The Kubernetes component that acts.
    pub fn component(self) -> &'static str {
        match self {
            ControllerEdge::ServiceEndpoints => "endpoints controller",
            ControllerEdge::NodePods => "pod garbage collector",
            ControllerEdge::ReclaimDelete | ControllerEdge::Released => "volume controller",
        }
    }

    /// Is it the deletion of `to` that takes `from` (the Service its
    /// Endpoints, the claim its volume)? Else `from` takes `to` (the Node
    /// its Pods), as an owner takes what it owns.
    pub fn taken_by_to(self) -> bool {
        !matches!(self, ControllerEdge::NodePods)
    }

    /// Does deleting the taker delete the other end?
    pub fn cascades(self) -> bool {
        !matches!(self, ControllerEdge::Released)
    }
}

/// A built-in ordering rule, on by default in `plan` and `explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefaultRule {
    /// PersistentVolumeClaim, then PersistentVolume, then StorageClass.
    Storage,
    /// A ServiceAccount, the bindings that grant it and the roles they
    /// grant, after the workloads that run as it.
    ServiceAccount,
    /// A webhook configuration or APIService before the Service it calls
    /// and the workloads behind that Service.
    Webhooks,
    /// Inside a Namespace the plan deletes, its Pods before the rest of it.
    NamespacePods,
}

impl DefaultRule {
    pub const ALL: [DefaultRule; 4] =
        [DefaultRule::Storage, DefaultRule::ServiceAccount, DefaultRule::Webhooks, DefaultRule::NamespacePods];

    pub fn id(self) -> &'static str {
        match self {
            DefaultRule::Storage => "storage-after-claims",
            DefaultRule::ServiceAccount => "serviceaccount-after-workloads",
            DefaultRule::Webhooks => "webhooks-before-backends",
            DefaultRule::NamespacePods => "pods-first-in-namespace",
        }
    }
}

/// Why a default rule puts one object (`from`) after another (`to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleEdge {
    /// A PersistentVolume after the claim bound to it (`spec.volumeName`
    /// of the claim, `spec.claimRef` of the volume).
    BoundClaim,
    /// A StorageClass after the volumes and claims of its class.
    OfClass,
    /// A ServiceAccount after a workload that runs as it.
    RunsAs,
    /// A RoleBinding or ClusterRoleBinding after a workload that runs as a
    /// ServiceAccount it names as a subject.
    Grants,
    /// A Role or ClusterRole after a workload that runs as a ServiceAccount
    /// a binding grants it to (the binding's `roleRef`).
    GrantedRole,
    /// A Service after the webhook configuration or APIService that calls it.
    CallsService,
    /// A workload behind a Service (a Pod it selects, that Pod's
    /// controllers, a workload whose Pod template it selects) after the
    /// webhook configuration or APIService that calls the Service.
    CallsBackend,
    /// `from` is a Namespace the plan deletes, standing for the rest of it
    /// (its objects other than Pods); `to` is one of its Pods: the rest of
    /// the namespace goes after it. With [`RuleEdge::AfterPods`], the order
    /// meets them at one node of its own per namespace (the namespace's
    /// barrier, which takes no step), so that P Pods and R other objects
    /// make P + R edges, not P × R.
    PodFirst,
    /// `from` is an object of a Namespace the plan deletes, other than a
    /// Pod; `to` is that Namespace, standing for its Pods: `from` goes
    /// after every one of them (see [`RuleEdge::PodFirst`]). Read alone,
    /// it does not put `from` after the Namespace itself.
    AfterPods,
}

impl RuleEdge {
    pub fn rule(self) -> DefaultRule {
        match self {
            RuleEdge::BoundClaim | RuleEdge::OfClass => DefaultRule::Storage,
            RuleEdge::RunsAs | RuleEdge::Grants | RuleEdge::GrantedRole => DefaultRule::ServiceAccount,
            RuleEdge::CallsService | RuleEdge::CallsBackend => DefaultRule::Webhooks,
            RuleEdge::PodFirst | RuleEdge::AfterPods => DefaultRule::NamespacePods,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            RuleEdge::BoundClaim => "bound-claim",
            RuleEdge::OfClass => "of-class",
            RuleEdge::RunsAs => "runs-as",
            RuleEdge::Grants => "grants",
            RuleEdge::GrantedRole => "granted-role",
            RuleEdge::CallsService => "calls-service",
            RuleEdge::CallsBackend => "calls-backend",
            RuleEdge::PodFirst => "pods-first",
            RuleEdge::AfterPods => "after-pods",
        }
    }

    /// Does `from` stand for its namespace's barrier (the rest of the
    /// namespace), rather than for itself?
    pub fn from_is_barrier(self) -> bool {
        self == RuleEdge::PodFirst
    }

    /// Does `to` stand for its namespace's barrier (the Pods of the
    /// namespace), rather than for itself?
    pub fn to_is_barrier(self) -> bool {
        self == RuleEdge::AfterPods
    }
}

impl RelKind {
    /// Ownership-like relations cascade: deleting `from` deletes `to`.
    pub fn is_ownership(self) -> bool {
        matches!(self, RelKind::Owns | RelKind::Contains | RelKind::Defines | RelKind::Manages)
    }
    /// A default rule's edge: soft, relaxed before any other.
    pub fn rule(self) -> Option<RuleEdge> {
        match self {
            RelKind::Rule(e) => Some(e),
            _ => None,
        }
    }
    /// Another tool's metadata (hard, like depends-on).
    pub fn tool(self) -> Option<ToolEdge> {
        match self {
            RelKind::Tool(e) => Some(e),
            _ => None,
        }
    }
    /// Destruction dependencies order objects but do not cascade; they are
    /// hard (never relaxed). A default rule's edge is neither. A
    /// controller's cascade orders as they do (hard), and cascades too.
    pub fn is_destruction(self) -> bool {
        !self.is_ownership() && self.rule().is_none() && self.orders()
    }
    /// Does it order its ends at all? All do but a released volume's
    /// binding, which only says why the volume stays.
    pub fn orders(self) -> bool {
        self != RelKind::Controller(ControllerEdge::Released)
    }
    /// A controller's cascade, if it is one.
    pub fn controller(self) -> Option<ControllerEdge> {
        match self {
            RelKind::Controller(e) => Some(e),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            RelKind::Owns => "owns",
            RelKind::Contains => "contains",
            RelKind::Defines => "defines",
            RelKind::DestroyAfter => "destroy-after",
            RelKind::Finalizer => "finalizer",
            RelKind::Manages => "manages",
            RelKind::ComponentOrder => "component-order",
            RelKind::Rule(_) => "rule",
            RelKind::Tool(_) => "tool",
            RelKind::Controller(_) => "controller",
        }
    }
}

/// A resolved relation. In every kind, `from` is destroyed after `to`:
/// an owner after what it owns, an object after what must go before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relation {
    pub kind: RelKind,
    pub from: ObjId,
    pub to: ObjId,
    pub link: Link,
    /// The object whose document declares the relation (the dependent for
    /// owner references, the annotated object for depends-on).
    pub declared_by: ObjId,
    /// Index into the declaring object's `owners`, `deps` or (`Finalizer`)
    /// `finalizers`.
    pub decl: u32,
    pub controller: bool,
}

impl Relation {
    /// A solid relation that no owner reference wrote (no controller
    /// flag): what teardown derives (implicit relations, rules, other
    /// tools' orders, controller cascades).
    pub fn solid(kind: RelKind, from: ObjId, to: ObjId, declared_by: ObjId, decl: u32) -> Relation {
        Relation { kind, from, to, link: Link::Solid, declared_by, decl, controller: false }
    }

    /// For a relation along which a deletion reaches the other end
    /// (ownership, a controller's cascade, a released volume's binding):
    /// the object deleted, and the one it reaches (and takes, when the
    /// relation cascades). `None` for relations that only order.
    pub fn reaches(&self) -> Option<(ObjId, ObjId)> {
        match self.kind {
            k if k.is_ownership() => Some((self.from, self.to)),
            RelKind::Controller(e) if e.taken_by_to() => Some((self.to, self.from)),
            RelKind::Controller(_) => Some((self.from, self.to)),
            _ => None,
        }
    }

    /// The object whose deletion reaches the other (for ownership, `from`).
    /// For relations that only order, `from`.
    pub fn taker(&self) -> ObjId {
        self.reaches().map_or(self.from, |(t, _)| t)
    }
}
