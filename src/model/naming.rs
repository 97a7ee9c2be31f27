//! Kubernetes names as the API server validates them: an object whose
//! name, namespace or kind it would refuse is no object of a cluster, and
//! is refused (TD001) rather than planned.
//!
//! The API server checks an object's metadata with the name function its
//! kind's validation passes to `ValidateObjectMeta`
//! (k8s.io/apimachinery `pkg/api/validation/objectmeta.go`):
//!
//! - `NameIsDNSSubdomain` (`generic.go`: `validation.IsDNS1123Subdomain`,
//!   lower-case letters, digits, `-` and `.`, at most 253): Pods,
//!   ReplicationControllers, Nodes, LimitRanges, ResourceQuotas, Secrets,
//!   ConfigMaps, Endpoints, ServiceAccounts (`ValidatePodName`…
//!   `ValidateServiceAccountName` in kubernetes `pkg/apis/core/validation/
//!   validation.go`), StorageClasses (`ValidateClassName`), PriorityClasses,
//!   RuntimeClasses; Deployments, DaemonSets, ReplicaSets
//!   (`pkg/apis/apps/validation`: `ValidateDeploymentName`,
//!   `ValidateDaemonSetName`, `ValidateReplicaSetName`); Jobs and CronJobs
//!   (`pkg/apis/batch/validation`: "Jobs and rcs have the same name
//!   validation"); CustomResourceDefinitions (apiextensions-apiserver
//!   `ValidateCustomResourceDefinition`).
//! - StatefulSets: `ValidateStatefulSetName` is `NameIsDNSLabel` today and
//!   was `NameIsDNSSubdomain` before; a StatefulSet made then keeps its
//!   name (updates do not check it again), so the looser rule is taken.
//! - `NameIsDNS1035Label` (a letter first): Services (`ValidateServiceName`).
//! - `NameIsDNSLabel` (at most 63, no `.`): Namespaces
//!   (`ValidateNamespaceName`). (`ValidateObjectMeta` checks the namespace
//!   of every namespaced object with it too; teardown reads one that is
//!   not a label — see [`namespace_problem`].)
//! - Every other kind — PersistentVolumes and their claims
//!   (`ValidatePersistentVolumeName`), RBAC objects (`ValidateRBACName`),
//!   and kinds teardown does not know (a custom resource of a CRD is a DNS
//!   subdomain, but one of an aggregated API server, such as OpenShift's
//!   `User`s (`kube:admin`) or `OAuthAccessToken`s (`sha256~…`), is not) —
//!   only as a path segment (`pkg/api/validation/path/name.go`,
//!   `IsValidPathSegmentName`: not `.` or `..`, no `/` or `%`).
//!
//! On top of that, teardown refuses in any Kubernetes name, namespace or
//! kind a character its outputs escape (`crate::escape`: control
//! characters, bidirectional controls, line separators): none is in a
//! name the rules above accept but a path segment's, and no output could
//! show it as it is.

/// The rule a kind's names follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    /// RFC 1123 subdomain: labels joined by `.`, at most 253 characters.
    Subdomain,
    /// RFC 1123 label: lower-case letters, digits and `-`, from and to a
    /// letter or digit, at most 63 characters.
    Label,
    /// RFC 1035 label: an RFC 1123 label that starts with a letter.
    Dns1035Label,
    /// A path segment: not `.` or `..`, no `/` or `%`.
    PathSegment,
}

/// Kinds whose names the API server checks more strictly than as a path
/// segment: (group, kind, rule).
const RULES: &[(&str, &str, NameRule)] = &[
    ("", "Pod", NameRule::Subdomain),
    ("", "ReplicationController", NameRule::Subdomain),
    ("", "Service", NameRule::Dns1035Label),
    ("", "Node", NameRule::Subdomain),
    ("", "Namespace", NameRule::Label),
    ("", "LimitRange", NameRule::Subdomain),
    ("", "ResourceQuota", NameRule::Subdomain),
    ("", "Secret", NameRule::Subdomain),
    ("", "ConfigMap", NameRule::Subdomain),
    ("", "ServiceAccount", NameRule::Subdomain),
    ("", "Endpoints", NameRule::Subdomain),
    ("apps", "Deployment", NameRule::Subdomain),
    ("apps", "DaemonSet", NameRule::Subdomain),
    ("apps", "ReplicaSet", NameRule::Subdomain),
    ("apps", "StatefulSet", NameRule::Subdomain),
    ("batch", "Job", NameRule::Subdomain),
    ("batch", "CronJob", NameRule::Subdomain),
    ("storage.k8s.io", "StorageClass", NameRule::Subdomain),
    ("scheduling.k8s.io", "PriorityClass", NameRule::Subdomain),
    ("node.k8s.io", "RuntimeClass", NameRule::Subdomain),
    ("apiextensions.k8s.io", "CustomResourceDefinition", NameRule::Subdomain),
];

/// The rule the names of `kind` in `group` follow.
pub fn rule(group: &str, kind: &str) -> NameRule {
    // The kind first: it differs in length from most rows' (one test each).
    RULES.iter().find(|(g, k, _)| *k == kind && *g == group).map_or(NameRule::PathSegment, |&(_, _, r)| r)
}

/// An RFC 1123 label: lower-case letters, digits and `-`, from and to a
/// letter or digit, at most 63 characters (`validation.IsDNS1123Label`).
pub fn is_label(s: &str) -> bool {
    s.len() <= 63 && is_label_of_any_length(s)
}

/// [`is_label`] without its length limit: a part of a subdomain.
fn is_label_of_any_length(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    !b.is_empty() && b.iter().all(inner) && b.first() != Some(&b'-') && b.last() != Some(&b'-')
}

/// An RFC 1123 subdomain as Kubernetes checks one
/// (`validation.IsDNS1123Subdomain`): labels joined by `.`, at most 253
/// characters in all. (Its labels may be longer than 63 characters: the
/// regular expression it matches does not limit them, and an Argo
/// Rollouts ReplicaSet's name of 66 characters is in a real dump.)
pub fn is_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_label_of_any_length)
}

/// An RFC 1035 label: an RFC 1123 label that starts with a letter.
pub fn is_dns1035_label(s: &str) -> bool {
    is_label(s) && s.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
}

/// Why the API server would refuse `name` for an object of `kind` in
/// `group`, if it would (the words follow its messages).
pub fn name_problem(group: &str, kind: &str, name: &str) -> Option<String> {
    if let Some(problem) = kind_problem(name) {
        return Some(problem);
    }
    let (ok, what) = match rule(group, kind) {
        NameRule::Subdomain => (
            is_subdomain(name),
            "a DNS-1123 subdomain (lower-case letters, digits, `-` and `.`, from and to a letter or digit, at most 253 characters)",
        ),
        NameRule::Label => (
            is_label(name),
            "a DNS-1123 label (lower-case letters, digits and `-`, from and to a letter or digit, at most 63 characters)",
        ),
        NameRule::Dns1035Label => (
            is_dns1035_label(name),
            "a DNS-1035 label (lower-case letters, digits and `-`, from a letter to a letter or digit, at most 63 characters)",
        ),
        NameRule::PathSegment => {
            if matches!(name, "." | "..") {
                return Some(format!("may not be `{name}` (it is a path segment of the API's URLs)"));
            }
            return name
                .chars()
                .find(|c| matches!(c, '/' | '%'))
                .map(|c| format!("may not hold `{c}` (it is a path segment of the API's URLs)"));
        }
    };
    (!ok).then(|| format!("is not {what}"))
}

/// Why an object's namespace is refused, if it is: it holds a character
/// no output could show as it is. (One that is not a DNS-1123 label, as
/// the API server wants, is read: templates hold placeholders such as
/// `TEST_NAMESPACE`; `-o names` and `-o kubectl` refuse to print it.)
pub fn namespace_problem(namespace: &str) -> Option<String> {
    kind_problem(namespace)
}

/// Why `kind` is no kind of a cluster, if it is not: it holds a character
/// no output could show as it is.
pub fn kind_problem(kind: &str) -> Option<String> {
    // (Printable ASCII, the usual case, is told in one pass: `escape::any`.)
    if !crate::escape::any(kind) {
        return None;
    }
    kind.chars().find(|&c| crate::escape::needs(c)).map(|c| format!("holds {}", character(c)))
}

/// A character in words: `a control character (U+000D)`.
fn character(c: char) -> String {
    let what = match c {
        c if c.is_control() => "a control character",
        '\u{2028}' | '\u{2029}' => "a line separator",
        _ => "a bidirectional control",
    };
    format!("{what} (U+{:04X}), which no output could show as it is", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_1123_and_1035() {
        assert!(is_label("shop") && is_label("a-1") && is_label("1a") && is_label(&"a".repeat(63)));
        assert!(!is_label("-a") && !is_label("a-") && !is_label("Shop") && !is_label("") && !is_label(&"a".repeat(64)));
        assert!(is_subdomain("apps") && is_subdomain("rbac.authorization.k8s.io") && is_subdomain("web-1.17a2b"));
        assert!(
            !is_subdomain("a..b") && !is_subdomain(".a") && !is_subdomain("a_b") && !is_subdomain(&"a".repeat(254))
        );
        assert!(is_subdomain(&"a".repeat(66)) && !is_label(&"a".repeat(66)));
        assert!(is_dns1035_label("web") && !is_dns1035_label("1web") && !is_dns1035_label("web.a"));
    }

    #[test]
    fn each_kind_by_its_rule() {
        assert_eq!(name_problem("", "Pod", "web-1.abc"), None);
        assert!(name_problem("", "Pod", "Web").unwrap().contains("DNS-1123 subdomain"));
        assert!(name_problem("", "Service", "1web").unwrap().contains("DNS-1035 label"));
        assert_eq!(name_problem("", "Service", "web"), None);
        assert!(name_problem("", "Namespace", "a.b").unwrap().contains("DNS-1123 label"));
        assert!(name_problem("apps", "Deployment", "web_1").is_some());
        // Path segments: RBAC, volumes, custom resources, unknown kinds.
        assert_eq!(name_problem("rbac.authorization.k8s.io", "ClusterRole", "system:controller:x"), None);
        assert_eq!(name_problem("user.openshift.io", "User", "kube:admin"), None);
        assert_eq!(name_problem("oauth.openshift.io", "OAuthAccessToken", "sha256~AbC"), None);
        assert_eq!(name_problem("", "PersistentVolume", "pvc-A_1"), None);
        assert!(name_problem("example.com", "Widget", "a/b").unwrap().contains("`/`"));
        assert!(name_problem("example.com", "Widget", "..").is_some());
        assert!(name_problem("example.com", "Widget", "100%").is_some());
        // Control characters, bidirectional controls, separators: anywhere.
        assert!(name_problem("example.com", "Widget", "web\r1").unwrap().contains("U+000D"));
        assert!(name_problem("example.com", "Widget", "a\u{202e}b").unwrap().contains("bidirectional"));
        assert!(name_problem("", "ConfigMap", "a\u{2028}").unwrap().contains("line separator"));
        assert!(namespace_problem("TEST_NAMESPACE").is_none() && namespace_problem("a\nb").is_some());
        assert!(kind_problem("Pod\t").is_some() && kind_problem("Pod").is_none());
    }
}
