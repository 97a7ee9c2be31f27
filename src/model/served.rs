//! Which owner references the Kubernetes garbage collector can resolve.
//!
//! The collector looks an owner up through its REST mapping: `isDangling`
//! (kubernetes/kubernetes `pkg/controller/garbagecollector/garbagecollector.go`)
//! calls `gc.apiResource(reference.APIVersion, reference.Kind)`, which asks
//! the REST mapper for that group, kind and version. When the mapping fails
//! — a kind its apiVersion does not serve (`v1 ReplicaSet`), a version
//! Kubernetes no longer serves (`extensions/v1beta1 Deployment`), a type
//! nothing defines (`unknown.group/v1 UnknownType`) — `classifyReferences`
//! returns the error, `attemptToDeleteItem` never deletes the dependent, and
//! `attemptToDeleteWorker` requeues it forever ("The reference is to an
//! invalid group/version. We don't currently have a way to distinguish this
//! from a valid type we will recognize after the next discovery sync. For
//! now, log the error and retry."). The collector's tests say the same:
//! `TestConflictingData`, "child -> existing owner with inaccessible API
//! version" ("should not be deleted (this is indistinguishable from
//! referencing an unknown kind/version)"), and the integration test
//! `TestClusterScopedOwners` ("ensure children with unverifiable parents
//! don't get reaped").
//!
//! Offline, what a cluster serves is known from: the built-in table below
//! (Kubernetes 1.34: what it serves by default, and the versions it has
//! removed); the snapshot's CRDs (their group, kind and served versions);
//! and the snapshot's own objects (a cluster served each object's
//! `apiVersion` and kind when it was read, so a reference to exactly those
//! resolves; an object of a custom group and kind shows the type is defined).
//! What none of these settles — a custom type with no CRD and no object in
//! the snapshot — may be defined in the cluster: only `--closed-world` (the
//! snapshot is the whole cluster, CRDs included) says nothing defines it.

use super::{ObjId, Object, OwnerRef};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::OnceLock;

/// The resources Kubernetes 1.34 serves by default: (group, version, kinds).
/// (kubernetes/kubernetes `pkg/controlplane/apiserver/options`, the API
/// reference; beta versions off by default are left out: see [`builtin`].)
const SERVED: &[(&str, &str, &[&str])] = &[
    (
        "",
        "v1",
        &[
            "Binding",
            "ComponentStatus",
            "ConfigMap",
            "Endpoints",
            "Event",
            "LimitRange",
            "Namespace",
            "Node",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "Pod",
            "PodTemplate",
            "ReplicationController",
            "ResourceQuota",
            "Secret",
            "Service",
            "ServiceAccount",
        ],
    ),
    (
        "admissionregistration.k8s.io",
        "v1",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingAdmissionPolicy",
            "ValidatingAdmissionPolicyBinding",
            "ValidatingWebhookConfiguration",
        ],
    ),
    ("apiextensions.k8s.io", "v1", &["CustomResourceDefinition"]),
    ("apiregistration.k8s.io", "v1", &["APIService"]),
    ("apps", "v1", &["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"]),
    ("autoscaling", "v1", &["HorizontalPodAutoscaler"]),
    ("autoscaling", "v2", &["HorizontalPodAutoscaler"]),
    ("batch", "v1", &["CronJob", "Job"]),
    ("certificates.k8s.io", "v1", &["CertificateSigningRequest"]),
    ("coordination.k8s.io", "v1", &["Lease"]),
    ("discovery.k8s.io", "v1", &["EndpointSlice"]),
    ("events.k8s.io", "v1", &["Event"]),
    ("flowcontrol.apiserver.k8s.io", "v1", &["FlowSchema", "PriorityLevelConfiguration"]),
    ("networking.k8s.io", "v1", &["IPAddress", "Ingress", "IngressClass", "NetworkPolicy", "ServiceCIDR"]),
    ("node.k8s.io", "v1", &["RuntimeClass"]),
    ("policy", "v1", &["PodDisruptionBudget"]),
    ("rbac.authorization.k8s.io", "v1", &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"]),
    ("resource.k8s.io", "v1", &["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"]),
    ("scheduling.k8s.io", "v1", &["PriorityClass"]),
    (
        "storage.k8s.io",
        "v1",
        &["CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment", "VolumeAttributesClass"],
    ),
];

/// Versions Kubernetes no longer serves: (group, version, kinds, the release
/// that removed them). (The Kubernetes deprecated API migration guide.)
const REMOVED: &[(&str, &str, &[&str], &str)] = &[
    ("extensions", "v1beta1", &["DaemonSet", "Deployment", "NetworkPolicy", "PodSecurityPolicy", "ReplicaSet"], "1.16"),
    ("extensions", "v1beta1", &["Ingress"], "1.22"),
    ("apps", "v1beta1", &["ControllerRevision", "Deployment", "StatefulSet"], "1.16"),
    ("apps", "v1beta2", &["ControllerRevision", "DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"], "1.16"),
    ("batch", "v2alpha1", &["CronJob"], "1.21"),
    ("batch", "v1beta1", &["CronJob"], "1.25"),
    ("policy", "v1beta1", &["PodDisruptionBudget", "PodSecurityPolicy"], "1.25"),
    ("autoscaling", "v2beta1", &["HorizontalPodAutoscaler"], "1.25"),
    ("autoscaling", "v2beta2", &["HorizontalPodAutoscaler"], "1.26"),
    ("networking.k8s.io", "v1beta1", &["Ingress", "IngressClass"], "1.22"),
    ("rbac.authorization.k8s.io", "v1alpha1", &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"], "1.22"),
    ("rbac.authorization.k8s.io", "v1beta1", &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"], "1.22"),
    ("storage.k8s.io", "v1beta1", &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"], "1.22"),
    ("storage.k8s.io", "v1beta1", &["CSIStorageCapacity"], "1.27"),
    ("apiextensions.k8s.io", "v1beta1", &["CustomResourceDefinition"], "1.22"),
    ("apiregistration.k8s.io", "v1beta1", &["APIService"], "1.22"),
    (
        "admissionregistration.k8s.io",
        "v1beta1",
        &["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"],
        "1.22",
    ),
    ("scheduling.k8s.io", "v1alpha1", &["PriorityClass"], "1.22"),
    ("scheduling.k8s.io", "v1beta1", &["PriorityClass"], "1.22"),
    ("node.k8s.io", "v1beta1", &["RuntimeClass"], "1.25"),
    ("certificates.k8s.io", "v1beta1", &["CertificateSigningRequest"], "1.22"),
    ("coordination.k8s.io", "v1beta1", &["Lease"], "1.22"),
    ("discovery.k8s.io", "v1beta1", &["EndpointSlice"], "1.25"),
    ("events.k8s.io", "v1beta1", &["Event"], "1.25"),
    ("flowcontrol.apiserver.k8s.io", "v1beta1", &["FlowSchema", "PriorityLevelConfiguration"], "1.26"),
    ("flowcontrol.apiserver.k8s.io", "v1beta2", &["FlowSchema", "PriorityLevelConfiguration"], "1.29"),
    ("flowcontrol.apiserver.k8s.io", "v1beta3", &["FlowSchema", "PriorityLevelConfiguration"], "1.32"),
];

/// What the built-in table says of an `apiVersion` and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// Served by default.
    Served,
    /// A version Kubernetes removed, in this release.
    Removed(&'static str),
    /// A built-in group with no such kind, at any version.
    NoSuchKind,
    /// A built-in kind at a version the table does not list (alpha, or a
    /// beta off by default): the cluster may serve it, teardown cannot tell.
    Unknown,
    /// Not a built-in group: a CRD or an aggregated API may define it.
    NotBuiltin,
}

/// The group and version of an `apiVersion` (`v1` is the core group's).
pub fn split(api_version: &str) -> (&str, &str) {
    // (By hand: these are short, and `rsplit_once` costs a searcher.)
    match api_version.bytes().rposition(|b| b == b'/') {
        Some(at) => (api_version.get(..at).unwrap_or(""), api_version.get(at + 1..).unwrap_or("")),
        None => ("", api_version),
    }
}

struct Table {
    /// `apiVersion` → kind → what Kubernetes serves of it.
    exact: FxHashMap<String, FxHashMap<&'static str, Builtin>>,
    kinds: FxHashSet<(&'static str, &'static str)>,
    groups: FxHashSet<&'static str>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Table { exact: FxHashMap::default(), kinds: FxHashSet::default(), groups: FxHashSet::default() };
        let api = |g: &str, v: &str| if g.is_empty() { v.to_string() } else { format!("{g}/{v}") };
        for &(g, v, kinds) in SERVED {
            for &k in kinds {
                t.exact.entry(api(g, v)).or_default().insert(k, Builtin::Served);
                t.kinds.insert((g, k));
            }
            t.groups.insert(g);
        }
        for &(g, v, kinds, since) in REMOVED {
            for &k in kinds {
                t.exact.entry(api(g, v)).or_default().entry(k).or_insert(Builtin::Removed(since));
                t.kinds.insert((g, k));
            }
            t.groups.insert(g);
        }
        t
    })
}

/// What Kubernetes serves of `apiVersion` and kind, by the built-in table.
pub fn builtin(api_version: &str, kind: &str) -> Builtin {
    let t = table();
    if let Some(&b) = t.exact.get(api_version).and_then(|kinds| kinds.get(kind)) {
        return b;
    }
    let (group, _) = split(api_version);
    match (t.kinds.contains(&(group, kind)), t.groups.contains(group)) {
        (true, _) => Builtin::Unknown,
        (false, true) => Builtin::NoSuchKind,
        (false, false) => Builtin::NotBuiltin,
    }
}

/// Why the collector cannot resolve an owner reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unresolvable {
    /// A built-in group without that kind: `v1 ReplicaSet` (ReplicaSets are `apps`).
    NoSuchKind,
    /// A built-in version Kubernetes removed in this release.
    Removed(&'static str),
    /// This CRD of the snapshot defines the kind, but does not serve the version.
    CrdVersion(ObjId),
    /// Nothing in the snapshot defines the type: no CRD, no object of it.
    /// Unresolvable only when the snapshot is the whole cluster
    /// (`--closed-world`); otherwise the cluster may define it.
    Undefined,
}

impl Unresolvable {
    /// A stable id (JSON `why`).
    pub fn id(self) -> &'static str {
        match self {
            Unresolvable::NoSuchKind => "no-such-kind",
            Unresolvable::Removed(_) => "version-removed",
            Unresolvable::CrdVersion(_) => "version-not-served",
            Unresolvable::Undefined => "type-not-defined",
        }
    }

    /// Does it hold in this world? (`Undefined` only in a closed one.)
    pub fn holds(self, closed_world: bool) -> bool {
        closed_world || self != Unresolvable::Undefined
    }

    /// Why, in words, for a reference of `api_version` and `kind`
    /// (`crd`: the reference of the CRD, for [`Unresolvable::CrdVersion`]).
    pub fn describe(self, api_version: &str, kind: &str, crd: &str) -> String {
        let (group, version) = split(api_version);
        match self {
            Unresolvable::NoSuchKind if group.is_empty() => {
                format!("the core group ({api_version}) has no kind {kind}")
            }
            Unresolvable::NoSuchKind => format!("the API group {group} has no kind {kind}"),
            Unresolvable::Removed(since) => {
                format!("Kubernetes no longer serves {kind} at {api_version} (removed in {since})")
            }
            Unresolvable::CrdVersion(_) => format!("{crd} does not serve version {version}"),
            Unresolvable::Undefined => {
                format!("nothing in the snapshot defines {kind} of {group} (no CRD, no object of it; --closed-world)")
            }
        }
    }
}

/// What the snapshot says is served: its CRDs, the objects written at a
/// version Kubernetes removed, and the group and kind of its objects. Each
/// part is built on first need: most references the table settles.
pub struct Evidence<'a> {
    objects: &'a [Object],
    /// (group, kind) → the first CRD that defines it.
    crds: OnceLock<FxHashMap<(&'a str, &'a str), ObjId>>,
    /// (`apiVersion`, kind) of the snapshot's Kubernetes objects written
    /// at a version the built-in table says Kubernetes removed.
    written: OnceLock<FxHashSet<(&'a str, &'a str)>>,
    /// (group, kind) of the snapshot's Kubernetes objects.
    kinds: OnceLock<FxHashSet<(&'a str, &'a str)>>,
}

impl<'a> Evidence<'a> {
    pub fn new(objects: &'a [Object]) -> Evidence<'a> {
        Evidence { objects, crds: OnceLock::new(), written: OnceLock::new(), kinds: OnceLock::new() }
    }

    fn kubernetes(&self) -> impl Iterator<Item = (usize, &'a Object)> {
        self.objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes())
    }

    fn crds(&self) -> &FxHashMap<(&'a str, &'a str), ObjId> {
        self.crds.get_or_init(|| {
            let mut m = FxHashMap::default();
            for (i, c) in self.kubernetes().filter_map(|(i, o)| Some((i, o.crd.as_deref()?))) {
                m.entry((&*c.group, &*c.kind)).or_insert(ObjId(i as u32));
            }
            m
        })
    }

    fn written(&self) -> &FxHashSet<(&'a str, &'a str)> {
        self.written.get_or_init(|| {
            self.kubernetes()
                .filter_map(|(_, o)| Some((o.facts.as_deref()?.unserved_api_version().as_deref()?, &*o.kind)))
                .collect()
        })
    }

    fn kinds(&self) -> &FxHashSet<(&'a str, &'a str)> {
        self.kinds.get_or_init(|| self.kubernetes().map(|(_, o)| (&*o.group, &*o.kind)).collect())
    }

    /// Why the collector cannot resolve owner reference `r`, if it cannot;
    /// `owner`: the object the reference was resolved to, if any.
    pub fn classify(&self, r: &OwnerRef, owner: Option<&Object>) -> Option<Unresolvable> {
        // A reference without an apiVersion cannot be in a cluster (the API
        // server refuses it): a manifest's, resolved as written.
        if r.api_version.is_empty() {
            return None;
        }
        match builtin(&r.api_version, &r.kind) {
            Builtin::Served | Builtin::Unknown => None,
            // A cluster served what its objects were read as.
            Builtin::Removed(since) => {
                (!self.written().contains(&(&*r.api_version, &*r.kind))).then_some(Unresolvable::Removed(since))
            }
            Builtin::NoSuchKind => Some(Unresolvable::NoSuchKind),
            Builtin::NotBuiltin => {
                let (group, version) = split(&r.api_version);
                let crd = self.crds().get(&(group, &*r.kind)).and_then(|&c| Some((c, self.objects.get(c.index())?)));
                match crd {
                    Some((c, crd)) => {
                        let versions = crd.crd.as_deref().map(|d| &*d.versions).unwrap_or_default();
                        let served = versions.iter().any(|(v, served)| *served && &**v == version);
                        (!versions.is_empty() && !served).then_some(Unresolvable::CrdVersion(c))
                    }
                    // An object of the type: the cluster defines it.
                    None if owner.is_some_and(|o| &*o.group == group && o.kind == r.kind) => None,
                    None if self.kinds().contains(&(group, &*r.kind)) => None,
                    None => Some(Unresolvable::Undefined),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_knows_what_kubernetes_serves() {
        assert_eq!(builtin("apps/v1", "ReplicaSet"), Builtin::Served);
        assert_eq!(builtin("v1", "ReplicaSet"), Builtin::NoSuchKind);
        assert_eq!(builtin("extensions/v1beta1", "Deployment"), Builtin::Removed("1.16"));
        assert_eq!(builtin("extensions/v1beta1", "StatefulSet"), Builtin::NoSuchKind);
        assert_eq!(builtin("rbac.authorization.k8s.io/v1beta1", "Role"), Builtin::Removed("1.22"));
        assert_eq!(builtin("resource.k8s.io/v1beta2", "ResourceClaim"), Builtin::Unknown);
        assert_eq!(builtin("unknown.group/v1", "UnknownType"), Builtin::NotBuiltin);
        assert_eq!(builtin("v1", "Pod"), Builtin::Served);
        assert_eq!(split("v1"), ("", "v1"));
        assert_eq!(split("apps/v1"), ("apps", "v1"));
    }

    #[test]
    fn every_removed_version_is_a_pre_release() {
        // The kubernetes dialect asks the table about objects of alpha and
        // beta versions only (src/dialect/kubernetes.rs).
        for &(g, v, _, _) in REMOVED {
            let stem = v.trim_end_matches(|c: char| c.is_ascii_digit());
            assert!(stem.ends_with("alpha") || stem.ends_with("beta"), "{g}/{v}");
        }
    }

    #[test]
    fn every_builtin_kind_of_the_scope_table_is_served() {
        // The kinds whose scope teardown knows are all served by the table
        // (PodSecurityPolicy only by a removed version).
        for &(group, kind, _) in super::super::kube::builtin_kinds() {
            let served = SERVED.iter().any(|&(g, _, ks)| g == group && ks.contains(&kind));
            assert!(served || kind == "PodSecurityPolicy", "{group} {kind}");
        }
    }
}
