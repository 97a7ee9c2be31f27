//! Kubernetes facts, in one place: built-in kinds and their scopes, legacy
//! groups, kubectl's short names, the finalizers Kubernetes handles itself.
//! Model and analysis use them without knowing how a dialect reads its input.

use super::intern::intern;
use super::intern::Str;

/// The API group of an `apiVersion`, with legacy groups mapped to where the
/// kind lives now, so that the same object read from an old dump and a new
/// one has the same identity.
pub fn group_of(api_version: &str, kind: &str) -> Str {
    // (A byte search: an `apiVersion` is short, and a char searcher's
    // generic loop took more than the rest of the function.)
    let slash = api_version.bytes().rposition(|b| b == b'/');
    let group = slash.and_then(|at| api_version.get(..at)).unwrap_or("");
    intern(current_group(group, kind))
}

/// Where a kind of a legacy group lives now (`extensions` Deployments are
/// `apps`); any other group as it is.
pub fn current_group<'a>(group: &'a str, kind: &str) -> &'a str {
    match (group, kind) {
        ("extensions", "Deployment" | "ReplicaSet" | "DaemonSet") => "apps",
        ("extensions", "Ingress" | "NetworkPolicy") => "networking.k8s.io",
        ("extensions", "PodSecurityPolicy") => "policy",
        (g, _) => g,
    }
}

/// Finalizers that Kubernetes itself (or the garbage collector protocol)
/// handles: they never make a deletion hang on a controller of the snapshot.
pub const BUILTIN_FINALIZERS: &[&str] = &[
    "foregroundDeletion",
    "orphan",
    "kubernetes",
    "kubernetes.io/pvc-protection",
    "kubernetes.io/pv-protection",
    "kubernetes.io/pv-controller",
    "external-provisioner.volume.kubernetes.io/finalizer",
    "external-attacher/csi",
    "service.kubernetes.io/load-balancer-cleanup",
    "batch.kubernetes.io/job-tracking",
    "customresourcecleanup.apiextensions.k8s.io",
    "kubernetes.io/legacy-token-invalidated",
];

/// A finalizer of a controller built into a distribution.
#[derive(Clone, Copy, Debug)]
pub struct DistributionFinalizer {
    /// The finalizer; one ending in `/` is a prefix (`group.ingress.k8s.aws/`
    /// and the group's name).
    pub finalizer: &'static str,
    pub distribution: &'static str,
    /// The controller that removes it.
    pub controller: &'static str,
}

const fn df(finalizer: &'static str, distribution: &'static str, controller: &'static str) -> DistributionFinalizer {
    DistributionFinalizer { finalizer, distribution, controller }
}

/// Finalizers of controllers built into common distributions. Those
/// controllers run outside any snapshot (in the provider's control plane,
/// or in the distribution's own server process), so these finalizers are
/// known without configuration, as `--finalizer-controller F=external` makes
/// a finalizer known: no TD011, no ordering edge. A mapping given with
/// `--finalizer-controller` or in teardown.toml replaces the entry (a
/// self-installed AWS Load Balancer Controller is a Deployment of the
/// snapshot). The README lists the same table. Sources, where each string
/// is defined:
///
/// - GKE: kubernetes/ingress-gce, `pkg/utils/common/finalizer.go` (Ingress,
///   L4 ILB and NetLB Services, NEG) and `pkg/psc/controller.go`
///   (ServiceAttachment).
/// - EKS: kubernetes-sigs/aws-load-balancer-controller,
///   `pkg/shared_constants/finalizers.go` and
///   `controllers/elbv2/targetgroupbinding_controller.go`; EKS Auto Mode's
///   controllers are not published: `service.eks.amazonaws.com/resources`
///   and `eks.amazonaws.com/termination` are as Auto Mode clusters show them
///   (`kubectl get svc,nodeclass -o yaml`; AWS's EKS Auto Mode workshop).
/// - EKS Auto Mode and AKS node auto-provisioning run Karpenter in the
///   control plane: kubernetes-sigs/karpenter, `pkg/apis/v1/labels.go`
///   (`karpenter.sh/termination`), Azure/karpenter-provider-azure,
///   `pkg/apis/v1beta1/labels.go` (`karpenter.azure.com/termination`).
/// - k3s: k3s-io/k3s, `pkg/cloudprovider/servicelb.go` (ServiceLB),
///   `pkg/node/controller.go` and `pkg/etcd/member_controller.go` (Node
///   handlers); k3s-io/helm-controller, `pkg/controllers/chart/chart.go`
///   (HelmChart; its earlier handler's `wrangler.cattle.io/helm-controller`
///   is as a 2022 k3s support bundle shows it,
///   `fixtures/realworld/kubernetes/troubleshoot-k3s-supportbundle-2022.yaml`);
///   a wrangler OnRemove handler's finalizer is
///   `wrangler.cattle.io/` and its name (rancher/wrangler,
///   `pkg/generic/remove.go`).
/// - OpenShift: openshift/cluster-ingress-operator,
///   `pkg/manifests/manifests.go` (IngressController, DNSRecord);
///   openshift/api, `machine/v1beta1/types_machine.go` (Machine API).
pub const DISTRIBUTION_FINALIZERS: &[DistributionFinalizer] = &[
    df("networking.gke.io/ingress-finalizer", "GKE", "GKE Ingress (ingress-gce)"),
    df("networking.gke.io/ingress-finalizer-V2", "GKE", "GKE Ingress (ingress-gce)"),
    df("gke.networking.io/l4-ilb-v1", "GKE", "internal passthrough load balancer Services"),
    df("gke.networking.io/l4-ilb-v2", "GKE", "internal passthrough load balancer Services"),
    df("gke.networking.io/l4-netlb-v2", "GKE", "external passthrough load balancer Services"),
    df("gke.networking.io/l4-netlb-v3", "GKE", "external passthrough load balancer Services"),
    df("networking.gke.io/neg-finalizer", "GKE", "NEG controller (ServiceNetworkEndpointGroup)"),
    df("networking.gke.io/service-attachment-finalizer", "GKE", "Private Service Connect (ServiceAttachment)"),
    df("service.k8s.aws/resources", "EKS", "AWS Load Balancer Controller (Service)"),
    df("ingress.k8s.aws/resources", "EKS", "AWS Load Balancer Controller (Ingress)"),
    df("group.ingress.k8s.aws/", "EKS", "AWS Load Balancer Controller (IngressGroup)"),
    df("elbv2.k8s.aws/resources", "EKS", "AWS Load Balancer Controller (TargetGroupBinding)"),
    df("gateway.k8s.aws/alb", "EKS", "AWS Load Balancer Controller (Gateway)"),
    df("gateway.k8s.aws/nlb", "EKS", "AWS Load Balancer Controller (Gateway)"),
    df("gateway.k8s.aws/targetgroupconfigurations", "EKS", "AWS Load Balancer Controller (Gateway)"),
    df("gateway.k8s.aws/loadbalancerconfigurations", "EKS", "AWS Load Balancer Controller (Gateway)"),
    df("service.eks.amazonaws.com/resources", "EKS Auto Mode", "load balancing (Service)"),
    df("eks.amazonaws.com/termination", "EKS Auto Mode", "compute (NodeClass)"),
    df("karpenter.sh/termination", "EKS Auto Mode, AKS", "Karpenter (NodePool, NodeClaim, Node)"),
    df("karpenter.azure.com/termination", "AKS", "node auto-provisioning (AKSNodeClass)"),
    df("svccontroller.k3s.cattle.io/daemonset", "k3s", "ServiceLB (Service)"),
    df("wrangler.cattle.io/on-helm-chart-remove", "k3s", "helm-controller (HelmChart)"),
    df("wrangler.cattle.io/helm-controller", "k3s", "helm-controller before on-helm-chart-remove (HelmChart)"),
    df("wrangler.cattle.io/node", "k3s", "node controller (Node)"),
    df("wrangler.cattle.io/managed-etcd-controller", "k3s", "embedded etcd member controller (Node)"),
    df(
        "ingresscontroller.operator.openshift.io/finalizer-ingresscontroller",
        "OpenShift",
        "ingress operator (IngressController)",
    ),
    df("operator.openshift.io/ingress-dns", "OpenShift", "ingress operator (DNSRecord)"),
    df("machine.machine.openshift.io", "OpenShift", "Machine API (Machine)"),
    df("machine.openshift.io/ip-claim-protection", "OpenShift", "Machine API (IPAddressClaim)"),
];

/// The distribution controller that removes this finalizer, if one does.
pub fn distribution_finalizer(finalizer: &str) -> Option<&'static DistributionFinalizer> {
    DISTRIBUTION_FINALIZERS.iter().find(|d| match d.finalizer.strip_suffix('/') {
        Some(_) => finalizer.len() > d.finalizer.len() && finalizer.starts_with(d.finalizer),
        None => finalizer == d.finalizer,
    })
}

/// Namespaces the API server refuses to delete (NamespaceLifecycle).
pub const PROTECTED_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// Is this object a Namespace the API server never deletes?
pub fn protected_namespace(group: &str, kind: &str, name: &str) -> bool {
    group.is_empty() && kind == "Namespace" && PROTECTED_NAMESPACES.contains(&name)
}

/// The Kubernetes collector's own finalizers (CONTRACT §5; with Krake's in
/// `dialect::collector_finalizer`).
pub const COLLECTOR_FINALIZERS: &[&str] = &["foregroundDeletion", "orphan", "kubernetes"];

/// Built-in kinds and whether they are namespaced, by (group, kind).
const BUILTIN_KINDS: &[(&str, &str, bool)] = &[
    ("", "Namespace", false),
    ("", "Node", false),
    ("", "PersistentVolume", false),
    ("", "ComponentStatus", false),
    ("", "Pod", true),
    ("", "Service", true),
    ("", "ConfigMap", true),
    ("", "Secret", true),
    ("", "ServiceAccount", true),
    ("", "Endpoints", true),
    ("", "Event", true),
    ("", "LimitRange", true),
    ("", "ResourceQuota", true),
    ("", "PersistentVolumeClaim", true),
    ("", "PodTemplate", true),
    ("", "ReplicationController", true),
    ("", "Binding", true),
    ("apps", "Deployment", true),
    ("apps", "ReplicaSet", true),
    ("apps", "StatefulSet", true),
    ("apps", "DaemonSet", true),
    ("apps", "ControllerRevision", true),
    ("batch", "Job", true),
    ("batch", "CronJob", true),
    ("autoscaling", "HorizontalPodAutoscaler", true),
    ("policy", "PodDisruptionBudget", true),
    ("policy", "PodSecurityPolicy", false),
    ("networking.k8s.io", "Ingress", true),
    ("networking.k8s.io", "NetworkPolicy", true),
    ("networking.k8s.io", "IngressClass", false),
    ("discovery.k8s.io", "EndpointSlice", true),
    ("events.k8s.io", "Event", true),
    ("coordination.k8s.io", "Lease", true),
    ("rbac.authorization.k8s.io", "Role", true),
    ("rbac.authorization.k8s.io", "RoleBinding", true),
    ("rbac.authorization.k8s.io", "ClusterRole", false),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", false),
    ("storage.k8s.io", "StorageClass", false),
    ("storage.k8s.io", "VolumeAttachment", false),
    ("storage.k8s.io", "CSIDriver", false),
    ("storage.k8s.io", "CSINode", false),
    ("storage.k8s.io", "CSIStorageCapacity", true),
    ("apiextensions.k8s.io", "CustomResourceDefinition", false),
    ("apiregistration.k8s.io", "APIService", false),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration", false),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", false),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", false),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", false),
    ("scheduling.k8s.io", "PriorityClass", false),
    ("node.k8s.io", "RuntimeClass", false),
    ("certificates.k8s.io", "CertificateSigningRequest", false),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", false),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", false),
];

/// Is this built-in kind namespaced? `None` for kinds Kubernetes does not
/// define (custom resources).
pub fn builtin_namespaced(group: &str, kind: &str) -> Option<bool> {
    static TABLE: std::sync::OnceLock<rustc_hash::FxHashMap<(&'static str, &'static str), bool>> =
        std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| BUILTIN_KINDS.iter().map(|&(g, k, n)| ((g, k), n)).collect());
    table.get(&(group, kind)).copied()
}

/// Is this the group of some built-in kind (`""` for the core group)?
pub fn builtin_group(group: &str) -> bool {
    BUILTIN_KINDS.iter().any(|(g, _, _)| *g == group)
}

/// Is some built-in kind of this name cluster-scoped (any group)? Used for
/// owner references, whose `apiVersion` may be of an older group version.
pub fn builtin_cluster_kind(kind: &str) -> bool {
    BUILTIN_KINDS.iter().any(|(_, k, n)| *k == kind && !*n)
}

/// kubectl's short names for built-in kinds.
const SHORT_NAMES: &[(&str, &str)] = &[
    ("cm", "configmap"),
    ("cj", "cronjob"),
    ("crd", "customresourcedefinition"),
    ("crds", "customresourcedefinition"),
    ("csr", "certificatesigningrequest"),
    ("deploy", "deployment"),
    ("ds", "daemonset"),
    ("ep", "endpoints"),
    ("ev", "event"),
    ("hpa", "horizontalpodautoscaler"),
    ("ing", "ingress"),
    ("limits", "limitrange"),
    ("netpol", "networkpolicy"),
    ("no", "node"),
    ("ns", "namespace"),
    ("pc", "priorityclass"),
    ("pdb", "poddisruptionbudget"),
    ("po", "pod"),
    ("psp", "podsecuritypolicy"),
    ("pv", "persistentvolume"),
    ("pvc", "persistentvolumeclaim"),
    ("quota", "resourcequota"),
    ("rc", "replicationcontroller"),
    ("rs", "replicaset"),
    ("sa", "serviceaccount"),
    ("sc", "storageclass"),
    ("sts", "statefulset"),
    ("svc", "service"),
];

/// The group a kind name given without a group resolves to, as kubectl's
/// discovery resolves it: a built-in kind's own group (`deploy` is
/// `deployment.apps`, never a custom `Deployment.ex.com`). `None`: no
/// built-in kind has that name; every group matches.
pub fn builtin_group_of(want: &str) -> Option<&'static str> {
    BUILTIN_KINDS.iter().find(|(_, kind, _)| kind_matches(want, kind)).map(|(group, _, _)| *group)
}

/// The built-in kind a kind name given without a group names (`deploy`,
/// `deployments`: `Deployment`).
pub fn builtin_kind_named(want: &str) -> Option<&'static str> {
    BUILTIN_KINDS.iter().find(|(_, kind, _)| kind_matches(want, kind)).map(|(_, kind, _)| *kind)
}

/// A selector's group with an API version left out (`v1.apps` is `apps`,
/// `v1` alone is the core group), lower-case.
pub fn selector_group(text: &str) -> String {
    let text = text.to_ascii_lowercase();
    let (first, rest) = text.split_once('.').unwrap_or((text.as_str(), ""));
    let version = first.strip_prefix('v').is_some_and(|v| {
        let digits = v.trim_start_matches(|c: char| c.is_ascii_digit());
        digits.len() < v.len()
            && (digits.is_empty()
                || ["alpha", "beta"].iter().any(|p| {
                    digits.strip_prefix(p).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                }))
    });
    match (version, rest) {
        (true, rest) => rest.to_string(),
        (false, _) => text,
    }
}

/// Does the selector's (lower-case) kind name this kind? Singular, plural
/// and short names are accepted.
pub fn kind_matches(want: &str, kind: &str) -> bool {
    kind_matches_with(want, short_name(want), kind)
}

/// The kind a kubectl short name stands for (`deploy`: `deployment`).
pub fn short_name(want: &str) -> Option<&'static str> {
    SHORT_NAMES.iter().find(|(s, _)| *s == want).map(|(_, long)| *long)
}

/// The short names of a (lower-case) kind (`deployment`: `deploy`).
pub fn short_names_of(kind: &str) -> impl Iterator<Item = &'static str> + '_ {
    SHORT_NAMES.iter().filter(move |(_, long)| *long == kind).map(|(s, _)| *s)
}

/// [`kind_matches`] with the short name looked up once (`short`: what
/// `want` stands for, if it is a short name). Allocates nothing: selection
/// calls it for every object.
pub fn kind_matches_with(want: &str, short: Option<&str>, kind: &str) -> bool {
    // `want` is lower-case: equal ignoring case is equal to the kind lower-cased.
    if want.eq_ignore_ascii_case(kind) {
        return true;
    }
    if let Some(long) = short {
        return long.eq_ignore_ascii_case(kind);
    }
    is_plural_of(want, kind)
}

/// Is `want` (lower-case) the plural of `kind`, as [`plural`] makes it?
fn is_plural_of(want: &str, kind: &str) -> bool {
    let ends = |suffix: &str| {
        kind.len()
            .checked_sub(suffix.len())
            .and_then(|at| kind.get(at..))
            .is_some_and(|s| s.eq_ignore_ascii_case(suffix))
    };
    let is = |stem: usize, suffix: &str| {
        want.len() == stem + suffix.len()
            && want.ends_with(suffix)
            && want.get(..stem).zip(kind.get(..stem)).is_some_and(|(a, b)| a.eq_ignore_ascii_case(b))
    };
    if ["s", "x", "ch", "sh"].iter().any(|s| ends(s)) {
        is(kind.len(), "es")
    } else if let Some(stem) =
        kind.strip_suffix(['y', 'Y']).filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']))
    {
        is(stem.len(), "ies")
    } else {
        is(kind.len(), "s")
    }
}

/// The built-in kinds: (group, kind, namespaced).
pub fn builtin_kinds() -> &'static [(&'static str, &'static str, bool)] {
    BUILTIN_KINDS
}

/// The plural kubectl takes for a (lower-case) kind.
pub fn plural(kind: &str) -> String {
    if kind.ends_with('s') || kind.ends_with('x') || kind.ends_with("ch") || kind.ends_with("sh") {
        format!("{kind}es")
    } else if let Some(stem) = kind.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{stem}ies")
    } else {
        format!("{kind}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_match_like_kubectl() {
        assert!(kind_matches("deployment", "Deployment"));
        assert!(kind_matches("deployments", "Deployment"));
        assert!(kind_matches("deploy", "Deployment"));
        assert!(kind_matches("ingresses", "Ingress"));
        assert!(kind_matches("networkpolicies", "NetworkPolicy"));
        assert!(kind_matches("gateways", "Gateway"));
        assert!(!kind_matches("deploy", "DaemonSet"));
        assert!(kind_matches("policies", "Policy"));
        assert!(kind_matches("gateways", "GATEWAY"));
        assert!(kind_matches("keys", "Key"));
        assert!(kind_matches("ies", "y"));
        assert!(!kind_matches("gateway", "Gateways"));
        assert!(!kind_matches("policys", "Policy"));
        assert!(!kind_matches("é", "s"));
        // As the plural that allocates says, for every kind of the table.
        for (_, kind, _) in BUILTIN_KINDS {
            let lower = kind.to_ascii_lowercase();
            assert!(kind_matches(&plural(&lower), kind), "{kind}");
            assert!(kind_matches(&lower, kind), "{kind}");
        }
    }

    #[test]
    fn groups_resolve_like_kubectl() {
        assert_eq!(builtin_group_of("deploy"), Some("apps"));
        assert_eq!(builtin_group_of("pods"), Some(""));
        assert_eq!(builtin_group_of("widgets"), None);
        assert_eq!(selector_group("v1.apps"), "apps");
        assert_eq!(selector_group("v1beta1.batch"), "batch");
        assert_eq!(selector_group("v1"), "");
        assert_eq!(selector_group("apps"), "apps");
        assert_eq!(selector_group("vela.oam.dev"), "vela.oam.dev");
        assert_eq!(selector_group("v2alpha1.example.com"), "example.com");
    }
}

/// What the built-in ordering rules read of a Kubernetes object (`plan`'s
/// default rules, [`crate::analysis::rules`]). Kept only for the kinds the
/// rules look at, and only when something is written.
///
/// Laid out by kind (a Pod's facts are not a webhook's): at a million
/// objects most of them carry facts, so each carries only its kind's, read
/// through the accessors below (a field another kind has reads as not
/// written). A Pod's two strings are kept in place, any other kind's
/// parts are boxed: 48 bytes a Pod, where one struct of every kind's
/// fields took 288 (320 allocated).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    of: Of,
    /// Other tools' metadata and an unserved `apiVersion`: few objects
    /// have either.
    rare: Option<Box<Rare>>,
}

/// The facts of one kind (see [`Facts`]'s accessors for what each means).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Of {
    #[default]
    None,
    /// A Pod: the ServiceAccount it runs as, its Node.
    Pod { service_account: Option<Str>, node_name: Option<Str> },
    /// A workload with a Pod template (a StatefulSet's claims too).
    Template(Box<Template>),
    /// A Service: its selector.
    Service(Box<[(Str, Str)]>),
    /// A webhook configuration or an APIService: the Services it calls.
    Calls(Box<[ServiceCall]>),
    /// A PersistentVolume or a PersistentVolumeClaim.
    Storage(Box<Storage>),
    /// A Secret: its type (always written).
    Secret(Option<Str>),
    /// A RoleBinding or a ClusterRoleBinding.
    Binding(Box<Binding>),
    /// A Role or a ClusterRole: the groups it updates.
    Role(Box<[Str]>),
}

/// A workload's Pod template (see [`Facts::template_labels`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Template {
    pub service_account: Option<Str>,
    pub template_labels: Box<[(Str, Str)]>,
    pub claims_deleted_with_set: bool,
}

/// A PersistentVolume's or PersistentVolumeClaim's facts (see
/// [`Facts::volume_name`] and the accessors after it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    pub volume_name: Option<Str>,
    pub claim_ref: Option<(Str, Str)>,
    pub storage_class: Option<Str>,
    pub reclaim_policy: Option<Str>,
    pub claim_uid: Option<Str>,
    pub capacity: Option<Str>,
}

/// A binding's facts (see [`Facts::subjects`], [`Facts::role_ref`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Binding {
    pub subjects: Box<[(Str, Str)]>,
    pub role_ref: Option<(Str, Str)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Rare {
    tools: Option<Box<Tools>>,
    unserved_api_version: Option<Str>,
}

const NO_STR: &Option<Str> = &None;
const NO_PAIR: &Option<(Str, Str)> = &None;

impl Facts {
    /// A Pod's.
    pub fn pod(service_account: Option<Str>, node_name: Option<Str>) -> Facts {
        match (service_account, node_name) {
            (None, None) => Facts::default(),
            (service_account, node_name) => Facts::of(Of::Pod { service_account, node_name }),
        }
    }

    /// A workload's, of its Pod template.
    pub fn template(t: Template) -> Facts {
        match t == Template::default() {
            true => Facts::default(),
            false => Facts::of(Of::Template(Box::new(t))),
        }
    }

    /// A Service's, of its selector.
    pub fn service(selector: Box<[(Str, Str)]>) -> Facts {
        match selector.is_empty() {
            true => Facts::default(),
            false => Facts::of(Of::Service(selector)),
        }
    }

    /// A webhook configuration's or an APIService's.
    pub fn calling(calls: Box<[ServiceCall]>) -> Facts {
        match calls.is_empty() {
            true => Facts::default(),
            false => Facts::of(Of::Calls(calls)),
        }
    }

    /// A PersistentVolume's or a PersistentVolumeClaim's.
    pub fn storage(s: Storage) -> Facts {
        match s == Storage::default() {
            true => Facts::default(),
            false => Facts::of(Of::Storage(Box::new(s))),
        }
    }

    /// A Secret's.
    pub fn secret(secret_type: Option<Str>) -> Facts {
        match secret_type {
            Some(t) => Facts::of(Of::Secret(Some(t))),
            None => Facts::default(),
        }
    }

    /// A RoleBinding's or a ClusterRoleBinding's.
    pub fn binding(b: Binding) -> Facts {
        match b == Binding::default() {
            true => Facts::default(),
            false => Facts::of(Of::Binding(Box::new(b))),
        }
    }

    /// A Role's or a ClusterRole's.
    pub fn role(updates_groups: Box<[Str]>) -> Facts {
        match updates_groups.is_empty() {
            true => Facts::default(),
            false => Facts::of(Of::Role(updates_groups)),
        }
    }

    fn of(of: Of) -> Facts {
        Facts { of, rare: None }
    }

    /// Nothing is written that a rule reads.
    pub fn is_empty(&self) -> bool {
        *self == Facts::default()
    }

    /// Other tools' metadata (none: `None`, or nothing written).
    pub fn set_tools(&mut self, tools: Option<Tools>) {
        let tools = tools.filter(|t| *t != Tools::default()).map(Box::new);
        self.rare_mut(|r| r.tools = tools);
    }

    /// The `apiVersion` as written, which Kubernetes no longer serves.
    pub fn set_unserved_api_version(&mut self, api_version: Str) {
        self.rare_mut(|r| r.unserved_api_version = Some(api_version));
    }

    fn rare_mut(&mut self, change: impl FnOnce(&mut Rare)) {
        let mut rare = self.rare.take().unwrap_or_default();
        change(&mut rare);
        self.rare = (*rare != Rare::default()).then_some(rare);
    }

    /// A Pod's `spec.serviceAccountName` (or the deprecated
    /// `serviceAccount`), or that of a workload's Pod template. `None`: not
    /// written (the Pod runs as `default`).
    pub fn service_account(&self) -> &Option<Str> {
        match &self.of {
            Of::Pod { service_account, .. } => service_account,
            Of::Template(t) => &t.service_account,
            _ => NO_STR,
        }
    }

    /// A Pod's `spec.nodeName`: the Node it is bound to.
    pub fn node_name(&self) -> &Option<Str> {
        match &self.of {
            Of::Pod { node_name, .. } => node_name,
            _ => NO_STR,
        }
    }

    /// The labels of a workload's Pod template (`spec.template.metadata.labels`,
    /// a CronJob's `spec.jobTemplate.spec.template.metadata.labels`), as
    /// written; empty when not a map of strings.
    pub fn template_labels(&self) -> &[(Str, Str)] {
        match &self.of {
            Of::Template(t) => &t.template_labels,
            _ => &[],
        }
    }

    /// A StatefulSet's `spec.persistentVolumeClaimRetentionPolicy.whenDeleted`
    /// is `Delete`: the StatefulSet controller makes the set an owner of
    /// its claims, which the garbage collector then deletes with it.
    pub fn claims_deleted_with_set(&self) -> bool {
        matches!(&self.of, Of::Template(t) if t.claims_deleted_with_set)
    }

    /// A Service's `spec.selector` (equality on Pod labels), as written;
    /// empty when none is written, or when it is not a map of strings (a
    /// selector teardown cannot read selects nothing: no rule reads it).
    pub fn selector(&self) -> &[(Str, Str)] {
        match &self.of {
            Of::Service(selector) => selector,
            _ => &[],
        }
    }

    /// A Service's `spec.selector` has an entry: the endpoints controller
    /// writes the Endpoints of its name (none for a Service without one).
    pub fn selects(&self) -> bool {
        !self.selector().is_empty()
    }

    /// The Services a ValidatingWebhookConfiguration or
    /// MutatingWebhookConfiguration calls (`webhooks[].clientConfig.service`)
    /// or an APIService is served by (`spec.service`), each once, in
    /// written order.
    pub fn calls(&self) -> &[ServiceCall] {
        match &self.of {
            Of::Calls(calls) => calls,
            _ => &[],
        }
    }

    fn storage_facts(&self) -> Option<&Storage> {
        match &self.of {
            Of::Storage(s) => Some(s),
            _ => None,
        }
    }

    /// A PersistentVolumeClaim's `spec.volumeName`.
    pub fn volume_name(&self) -> &Option<Str> {
        self.storage_facts().map_or(NO_STR, |s| &s.volume_name)
    }

    /// A PersistentVolume's `spec.claimRef`: namespace and name.
    pub fn claim_ref(&self) -> &Option<(Str, Str)> {
        self.storage_facts().map_or(NO_PAIR, |s| &s.claim_ref)
    }

    /// A PersistentVolume's or PersistentVolumeClaim's `spec.storageClassName`.
    pub fn storage_class(&self) -> &Option<Str> {
        self.storage_facts().map_or(NO_STR, |s| &s.storage_class)
    }

    /// A PersistentVolume's `spec.persistentVolumeReclaimPolicy`, as written.
    pub fn reclaim_policy(&self) -> &Option<Str> {
        self.storage_facts().map_or(NO_STR, |s| &s.reclaim_policy)
    }

    /// The uid in a PersistentVolume's `spec.claimRef`, if written.
    pub fn claim_uid(&self) -> &Option<Str> {
        self.storage_facts().map_or(NO_STR, |s| &s.claim_uid)
    }

    /// A PersistentVolume's `spec.capacity.storage`, or a claim's
    /// `spec.resources.requests.storage`, as written (`40Gi`).
    pub fn capacity(&self) -> &Option<Str> {
        self.storage_facts().map_or(NO_STR, |s| &s.capacity)
    }

    /// A Secret's `type`, as written (`Opaque`, `kubernetes.io/tls`…).
    pub fn secret_type(&self) -> &Option<Str> {
        match &self.of {
            Of::Secret(t) => t,
            _ => NO_STR,
        }
    }

    /// A RoleBinding's or ClusterRoleBinding's ServiceAccount subjects:
    /// namespace (a RoleBinding's own when not written) and name.
    pub fn subjects(&self) -> &[(Str, Str)] {
        match &self.of {
            Of::Binding(b) => &b.subjects,
            _ => &[],
        }
    }

    /// A RoleBinding's or ClusterRoleBinding's `roleRef`: kind (`Role` or
    /// `ClusterRole`) and name.
    pub fn role_ref(&self) -> &Option<(Str, Str)> {
        match &self.of {
            Of::Binding(b) => &b.role_ref,
            _ => NO_PAIR,
        }
    }

    /// A Role's or ClusterRole's `rules`: the API groups (`*` for all) on
    /// whose resources it allows `update`, `patch` or `*` — what removing
    /// a finalizer takes (TD011's candidates). Sorted, without repeats.
    pub fn updates_groups(&self) -> &[Str] {
        match &self.of {
            Of::Role(groups) => groups,
            _ => &[],
        }
    }

    /// Other tools' metadata (Argo CD, kapp, Helm, Flux, cli-utils), when
    /// there is any.
    pub fn tools(&self) -> Option<&Tools> {
        self.rare.as_deref().and_then(|r| r.tools.as_deref())
    }

    /// The object's `apiVersion` as written, when Kubernetes no longer
    /// serves that kind at it (`extensions/v1beta1`): the cluster it was
    /// read from did, so references of that version resolve there
    /// ([`super::served`]).
    pub fn unserved_api_version(&self) -> &Option<Str> {
        self.rare.as_deref().map_or(NO_STR, |r| &r.unserved_api_version)
    }
}

/// A Service that a webhook configuration or an APIService sends requests to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceCall {
    pub namespace: Str,
    pub name: Str,
    /// A call that fails makes the request fail: a webhook's
    /// `failurePolicy: Fail` (the default of `admissionregistration.k8s.io/v1`,
    /// and what `kubectl get -o yaml` always writes out); an APIService's
    /// always (its API and its discovery fail). `false`: every webhook that
    /// calls it says `failurePolicy: Ignore`.
    pub fails_closed: bool,
}

/// What other tools say about deleting an object, typed (read by
/// `dialect::tools` from their annotations, labels and specs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tools {
    /// Argo CD's `sync-wave` (higher waves are deleted first).
    pub sync_wave: Option<i32>,
    /// The Argo CD application: the tracking id's, else the
    /// `app.kubernetes.io/instance` label.
    pub argocd_app: Option<Str>,
    /// Argo CD `sync-options` `Delete=false`: never deleted by Argo CD.
    pub argocd_no_delete: bool,
    /// Argo CD `sync-options` `Prune=false`: never pruned.
    pub argocd_no_prune: bool,
    /// kapp's change groups (placeholders expanded).
    pub kapp_groups: Vec<Str>,
    /// kapp's change rules.
    pub kapp_rules: Vec<KappRule>,
    /// kapp `delete-strategy: orphan`.
    pub kapp_orphan: bool,
    /// The kapp app (`kapp.k14s.io/app` label).
    pub kapp_app: Option<Str>,
    /// Helm hooks (`helm.sh/hook`).
    pub helm_hooks: Vec<HelmHook>,
    /// `helm.sh/hook-weight` (0 when not written).
    pub hook_weight: i32,
    /// `helm.sh/resource-policy: keep`.
    pub helm_keep: bool,
    /// The Helm release: namespace and name.
    pub helm_release: Option<(Str, Str)>,
    /// A Flux Kustomization's or HelmRelease's `spec.dependsOn`: namespace
    /// (the object's own when not written) and name, of its own kind.
    pub flux_depends_on: Box<[(Str, Str)]>,
    /// `kustomize.toolkit.fluxcd.io/prune: disabled`.
    pub flux_prune_disabled: bool,
    /// The Flux Kustomization that applied it (its labels): namespace, name.
    pub flux_owner: Option<(Str, Str)>,
    /// cli-utils `client.lifecycle.config.k8s.io/deletion: detach`.
    pub detach: bool,
    /// cli-utils `apply-time-mutation` source references.
    pub mutation_sources: Box<[super::refs::DepTarget]>,
    /// `argocd.argoproj.io/hook` is written: an Argo CD hook, whose wave is
    /// 0 unless `sync-wave` says otherwise (Argo CD then ignores the Helm
    /// hook weight).
    pub argocd_hook: bool,
    /// A Crossplane Usage or ClusterUsage: what it protects, and from what.
    pub usage: Option<Box<Usage>>,
    /// KubeVela's `app.oam.dev/shared-by`, as written (not empty): the
    /// Applications sharing the resource, `namespace/name`, comma-separated.
    pub kubevela_shared_by: Option<Str>,
    /// Application controllers (issue 35): what the controller of an
    /// application object reads of the objects it manages.
    pub managed: Option<Box<ManagedMarks>>,
}

/// What application controllers read of a managed object (see
/// `model::managed`); `None` in [`Tools`] when nothing is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ManagedMarks {
    /// Argo CD: the application of a well-formed tracking id.
    pub argocd_tracking: Option<Str>,
    /// Argo CD `sync-options` `Delete=true`: deleted even when the
    /// Application says `Delete=false`.
    pub argocd_delete_true: bool,
    /// Argo CD `sync-options` `Delete=confirm` or `Prune=confirm`.
    pub argocd_confirm: bool,
    /// `helm.sh/resource-policy` as written.
    pub helm_policy: Option<Str>,
    /// The Helm release of Helm's ownership annotations (namespace, name);
    /// never the chart convention's labels.
    pub helm_owner: Option<(Str, Str)>,
    /// wrangler's objectset owner: `owner-gvk`, `owner-namespace`, `owner-name`.
    pub objectset_owner: Option<(Str, Option<Str>, Str)>,
    /// Flux: the exclusion it carries (label or annotation, any case), as
    /// the mark's id and key.
    pub flux_excluded: Option<(&'static str, &'static str)>,
    /// kapp: `kapp.k14s.io/identity` is written (else the object is
    /// transient: kapp leaves it to the garbage collector).
    pub kapp_identity: bool,
}

impl Tools {
    /// Argo CD's wave of the object, as gitops-engine's `syncwaves.Wave`
    /// reads it: the `sync-wave` annotation, else 0 for an Argo CD hook,
    /// else the Helm hook weight (0 when not written).
    pub fn wave(&self) -> i32 {
        match (self.sync_wave, self.argocd_hook) {
            (Some(w), _) => w,
            (None, true) => 0,
            (None, false) => self.hook_weight,
        }
    }

    /// The annotation that tells a tool to leave the object, if one applies:
    /// under `--prune` (`prune`) also those that only stop pruning. Of
    /// several, the first of [`KeepMark::ALL`].
    pub fn keep(&self, prune: bool) -> Option<KeepMark> {
        KeepMark::ALL.into_iter().find(|m| match m {
            KeepMark::HelmKeep => self.helm_keep,
            KeepMark::KappOrphan => self.kapp_orphan,
            KeepMark::ArgoNoDelete => self.argocd_no_delete,
            KeepMark::ArgoNoPrune => prune && self.argocd_no_prune,
            KeepMark::FluxPruneDisabled => prune && self.flux_prune_disabled,
            KeepMark::Detach => self.detach,
        })
    }

    /// A Helm `pre-delete` or `post-delete` hook of a known release: the
    /// first such hook it is (an object may be both; then pre-delete).
    pub fn delete_hook(&self) -> Option<HelmHook> {
        self.helm_release.as_ref()?;
        [HelmHook::PreDelete, HelmHook::PostDelete].into_iter().find(|h| self.helm_hooks.contains(h))
    }
}

/// An annotation through which a tool leaves an object behind when it
/// deletes or prunes what it manages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeepMark {
    /// `helm.sh/resource-policy: keep` (Helm uninstall and upgrade; Argo CD
    /// honours it too).
    HelmKeep,
    /// `kapp.k14s.io/delete-strategy: orphan`.
    KappOrphan,
    /// `argocd.argoproj.io/sync-options: Delete=false`.
    ArgoNoDelete,
    /// `argocd.argoproj.io/sync-options: Prune=false` (prune only).
    ArgoNoPrune,
    /// `kustomize.toolkit.fluxcd.io/prune: disabled` (prune only).
    FluxPruneDisabled,
    /// `client.lifecycle.config.k8s.io/deletion: detach` (cli-utils).
    Detach,
}

impl KeepMark {
    pub const ALL: [KeepMark; 6] = [
        KeepMark::HelmKeep,
        KeepMark::KappOrphan,
        KeepMark::ArgoNoDelete,
        KeepMark::ArgoNoPrune,
        KeepMark::FluxPruneDisabled,
        KeepMark::Detach,
    ];

    /// A stable id (JSON `why`).
    pub fn id(self) -> &'static str {
        match self {
            KeepMark::HelmKeep => "helm-resource-policy-keep",
            KeepMark::KappOrphan => "kapp-delete-strategy-orphan",
            KeepMark::ArgoNoDelete => "argocd-delete-false",
            KeepMark::ArgoNoPrune => "argocd-prune-false",
            KeepMark::FluxPruneDisabled => "flux-prune-disabled",
            KeepMark::Detach => "cli-utils-deletion-detach",
        }
    }

    /// The tool, as an id (JSON `tool`).
    pub fn tool_id(self) -> &'static str {
        match self {
            KeepMark::HelmKeep => "helm",
            KeepMark::KappOrphan => "kapp",
            KeepMark::ArgoNoDelete | KeepMark::ArgoNoPrune => "argocd",
            KeepMark::FluxPruneDisabled => "flux",
            KeepMark::Detach => "cli-utils",
        }
    }

    /// The tool the annotation speaks to.
    pub fn tool(self) -> &'static str {
        match self {
            KeepMark::HelmKeep => "Helm",
            KeepMark::KappOrphan => "kapp",
            KeepMark::ArgoNoDelete | KeepMark::ArgoNoPrune => "Argo CD",
            KeepMark::FluxPruneDisabled => "Flux",
            KeepMark::Detach => "cli-utils",
        }
    }
}

/// A Crossplane `Usage` or `ClusterUsage` (`protection.crossplane.io`;
/// `apiextensions.crossplane.io` before Crossplane v2): `of` cannot be
/// deleted while the Usage exists (an admission webhook refuses it); with
/// `by`, `of` is deleted after `by`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    pub of: Option<UsageRef>,
    pub by: Option<UsageRef>,
    /// `spec.reason`: why `of` is protected.
    pub reason: Option<Str>,
}

/// `spec.of` or `spec.by` of a Usage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageRef {
    /// The group of its `apiVersion`.
    pub group: Str,
    pub kind: Str,
    /// `resourceRef.namespace`, else the Usage's own; `None` for a
    /// ClusterUsage's (and Crossplane v1's cluster-scoped Usage's).
    pub namespace: Option<Str>,
    /// `resourceRef.name`; `None` when only a `resourceSelector` is written
    /// (the Usage controller resolves it and writes the name back: a dump
    /// of the cluster has it).
    pub name: Option<Str>,
}

/// The groups and kinds of Crossplane's Usages.
pub fn is_usage(group: &str, kind: &str) -> bool {
    matches!(group, "protection.crossplane.io" | "apiextensions.crossplane.io")
        && matches!(kind, "Usage" | "ClusterUsage")
}

/// A Helm hook an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelmHook {
    PreDelete,
    PostDelete,
    /// Any other hook (install, upgrade, rollback, test).
    Other,
}

/// kapp's change rule: `<action> <when> <other>ing <group>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KappRule {
    pub action: KappAction,
    pub when: KappWhen,
    pub other: KappAction,
    pub group: Str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KappAction {
    Upsert,
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KappWhen {
    Before,
    After,
}

/// The Flux kinds whose `spec.dependsOn` names objects of their own kind.
pub const FLUX_DEPENDENT_KINDS: [(&str, &str); 2] =
    [("kustomize.toolkit.fluxcd.io", "Kustomization"), ("helm.toolkit.fluxcd.io", "HelmRelease")];

/// What a kind runs Pods as: where the rules find its ServiceAccount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PodSpecAt {
    /// A Pod: `spec`.
    Pod,
    /// Deployment, StatefulSet, DaemonSet, ReplicaSet, Job: `spec.template.spec`.
    Template,
    /// CronJob: `spec.jobTemplate.spec.template.spec`.
    JobTemplate,
}

/// Where a built-in kind that runs Pods keeps its Pod spec.
pub fn pod_spec_at(group: &str, kind: &str) -> Option<PodSpecAt> {
    match (group, kind) {
        ("", "Pod") => Some(PodSpecAt::Pod),
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet") | ("batch", "Job") => {
            Some(PodSpecAt::Template)
        }
        ("batch", "CronJob") => Some(PodSpecAt::JobTemplate),
        _ => None,
    }
}

/// The RBAC group.
pub const RBAC: &str = "rbac.authorization.k8s.io";

/// Is it a Role or ClusterRole?
pub fn is_role(group: &str, kind: &str) -> bool {
    group == RBAC && matches!(kind, "Role" | "ClusterRole")
}

/// What a PersistentVolume's claim's deletion does to it: its
/// `persistentVolumeReclaimPolicy`. Not written is `Retain`: the API
/// server's default for a volume created directly (`SetDefaults_PersistentVolume`;
/// the API reference: "Retain (default for manually created
/// PersistentVolumes), Delete (default for dynamically provisioned
/// PersistentVolumes), and Recycle (deprecated)"). A provisioner writes
/// the policy of its StorageClass, so a dump always has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reclaim {
    /// The volume controller deletes the volume (and its storage).
    Delete,
    /// The volume is released and stays, with its data.
    Retain,
    /// Not written: `Retain`.
    RetainByDefault,
    /// The volume is scrubbed and made available again; it stays.
    Recycle,
    /// A value Kubernetes does not accept (the API server refuses such a
    /// volume): taken as keeping it, never as deleting it.
    Unknown,
}

impl Reclaim {
    pub fn of(policy: Option<&str>) -> Reclaim {
        match policy {
            None | Some("") => Reclaim::RetainByDefault,
            Some("Delete") => Reclaim::Delete,
            Some("Retain") => Reclaim::Retain,
            Some("Recycle") => Reclaim::Recycle,
            Some(_) => Reclaim::Unknown,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Reclaim::Delete => "delete",
            Reclaim::Retain => "retain",
            Reclaim::RetainByDefault => "retain-by-default",
            Reclaim::Recycle => "recycle",
            Reclaim::Unknown => "unknown",
        }
    }
}

/// Is it a RoleBinding or ClusterRoleBinding?
pub fn is_binding(group: &str, kind: &str) -> bool {
    group == RBAC && matches!(kind, "RoleBinding" | "ClusterRoleBinding")
}

/// The groups of the kinds that call a Service for the API server: webhook
/// configurations and APIServices.
pub const ADMISSION: &str = "admissionregistration.k8s.io";
pub const AGGREGATION: &str = "apiregistration.k8s.io";

/// Does the API server call a Service for this kind (a webhook
/// configuration, an APIService)?
pub fn calls_services(group: &str, kind: &str) -> bool {
    (group == ADMISSION && matches!(kind, "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"))
        || (group == AGGREGATION && kind == "APIService")
}

/// Does a Service selector select an object with these labels? Every pair
/// of the selector must be among the labels; an empty selector selects
/// nothing (a Service without a selector has no Pods of its own).
pub fn selects(selector: &[(Str, Str)], labels: &[(Str, Str)]) -> bool {
    !selector.is_empty() && selector.iter().all(|(k, v)| labels.iter().any(|(lk, lv)| lk == k && lv == v))
}

#[cfg(test)]
mod facts_layout {
    #[test]
    fn a_pods_facts_are_small() {
        // Most objects of a cluster carry facts (Pods above all): each
        // carries only its kind's.
        assert!(std::mem::size_of::<super::Facts>() <= 48, "{}", std::mem::size_of::<super::Facts>());
        let pod = super::Facts::pod(Some(super::intern("default")), None);
        assert_eq!(pod.service_account().as_deref(), Some("default"));
        assert_eq!(pod.node_name(), &None);
        assert!(pod.selector().is_empty() && pod.tools().is_none());
        assert!(super::Facts::pod(None, None).is_empty());
    }
}
