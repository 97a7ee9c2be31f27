//! A Kubernetes object's states in crd-reconciler's terms (`teardown
//! reconcile`): `spec.state`, `status.state`, and the state its kind's
//! status tells, read from the object's document read again as a value
//! (only for the custom resources and sub-resources `reconcile` looks at:
//! loading never parses `status`). Fields of unexpected types are ignored.
//!
//! | kind | Pending | Running | Completed | Failed |
//! |---|---|---|---|---|
//! | any, with `status.state` | `Pending` | `Running` | `Completed` | `Failed` |
//! | Pod | phase `Pending`, or no status | phase `Running` | phase `Succeeded` | phase `Failed` |
//! | Job | no active Pod yet (or suspended) | active Pods | condition `Complete` or `SuccessCriteriaMet` | condition `Failed` or `FailureTarget` |
//! | Deployment | not `Available` yet | `Available` | — | `ReplicaFailure`, or `Progressing` false with `ProgressDeadlineExceeded` |
//! | ReplicaSet, StatefulSet, DaemonSet | fewer ready replicas than wanted | every wanted replica ready | — | `ReplicaFailure` |
//! | PersistentVolumeClaim | phase `Pending` | phase `Bound` | — | phase `Lost` |
//! | any other kind | — | while it exists | — | — |
//!
//! A Pod in phase `Unknown` has no state. The README carries this table.

use crate::input::Node;
use crate::model::lifecycle::{Lifecycle, Observed, Said, State};

/// The states of an object of `group` and `kind` whose document is `doc`.
pub fn lifecycle(group: &str, kind: &str, doc: &Node) -> Lifecycle {
    fn text<'a>(n: Option<&'a Node>, key: &str) -> Option<&'a str> {
        n.and_then(|n| n.get(key)).and_then(Node::as_str)
    }
    let spec = doc.get("spec");
    let status = doc.get("status").filter(|s| s.as_map().is_some_and(|m| !m.is_empty()));
    let current = Said::from_text(text(status, "state"));
    Lifecycle {
        desired: Said::from_text(text(spec, "state")),
        current,
        observed: match current {
            Said::State(s) => Observed::StatusState(s),
            Said::Absent | Said::Other => observe(group, kind, spec, status),
        },
    }
}

/// Is condition `kind` of `status` at `want` (`"True"`)? For `Progressing`,
/// also asks for `reason`.
fn condition(status: &Node, kind: &str, want: &str, reason: Option<&str>) -> bool {
    let conditions = status.get("conditions").and_then(Node::as_seq).unwrap_or(&[]);
    conditions.iter().any(|c| {
        let field = |k: &str| c.get(k).and_then(Node::as_str);
        field("type") == Some(kind)
            && field("status") == Some(want)
            && reason.is_none_or(|r| field("reason") == Some(r))
    })
}

fn count(n: Option<&Node>, key: &str) -> u64 {
    n.and_then(|n| n.get(key)).and_then(Node::scalar).and_then(|v| v.parse().ok()).unwrap_or(0)
}

fn observe(group: &str, kind: &str, spec: Option<&Node>, status: Option<&Node>) -> Observed {
    let Some(status) = status else {
        let has_lifecycle = matches!(
            (group, kind),
            ("", "Pod" | "PersistentVolumeClaim")
                | ("batch", "Job")
                | ("apps", "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet")
        );
        return if has_lifecycle { Observed::NoStatus } else { Observed::Exists };
    };
    let is = |k: &str| condition(status, k, "True", None);
    let phase = status.get("phase").and_then(Node::as_str);
    let wanted = spec.and_then(|s| s.get("replicas")).map_or(1, |_| count(spec, "replicas"));
    match (group, kind) {
        ("", "Pod") => match phase {
            None | Some("Pending") => Observed::PodPhase(State::Pending),
            Some("Running") => Observed::PodPhase(State::Running),
            Some("Succeeded") => Observed::PodPhase(State::Completed),
            Some("Failed") => Observed::PodPhase(State::Failed),
            Some(_) => Observed::PodUnknown,
        },
        ("", "PersistentVolumeClaim") => match phase {
            Some("Bound") => Observed::ClaimPhase(State::Running),
            Some("Lost") => Observed::ClaimPhase(State::Failed),
            Some("Pending") => Observed::ClaimPhase(State::Pending),
            _ => Observed::NoStatus,
        },
        ("batch", "Job") if is("Complete") || is("SuccessCriteriaMet") => Observed::JobComplete,
        ("batch", "Job") if is("Failed") || is("FailureTarget") => Observed::JobFailed,
        ("batch", "Job") if count(Some(status), "active") > 0 || count(Some(status), "ready") > 0 => {
            Observed::JobActive
        }
        ("batch", "Job") => Observed::JobWaiting,
        ("apps", "Deployment" | "ReplicaSet") if is("ReplicaFailure") => Observed::ReplicaFailure,
        ("apps", "Deployment") if condition(status, "Progressing", "False", Some("ProgressDeadlineExceeded")) => {
            Observed::DeadlineExceeded
        }
        ("apps", "Deployment") if is("Available") => Observed::Available,
        ("apps", "Deployment") => Observed::NotAvailable,
        ("apps", "ReplicaSet" | "StatefulSet") if count(Some(status), "readyReplicas") >= wanted => {
            Observed::ReplicasReady
        }
        ("apps", "DaemonSet")
            if count(Some(status), "numberReady") >= count(Some(status), "desiredNumberScheduled") =>
        {
            Observed::ReplicasReady
        }
        ("apps", "ReplicaSet" | "StatefulSet" | "DaemonSet") => Observed::ReplicasNotReady,
        _ => Observed::Exists,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(group: &str, kind: &str, yaml: &str) -> Lifecycle {
        lifecycle(group, kind, &serde_yaml::from_str(yaml).expect("yaml"))
    }

    #[test]
    fn pods_by_phase() {
        let s = |y: &str| of("", "Pod", y).observed.state();
        assert_eq!(s("status: {phase: Succeeded}"), Some(State::Completed));
        assert_eq!(s("status: {phase: Failed}"), Some(State::Failed));
        assert_eq!(s("status: {phase: Running}"), Some(State::Running));
        assert_eq!(s("status: {phase: Unknown}"), None);
        assert_eq!(of("", "Pod", "spec: {}").observed, Observed::NoStatus);
        assert_eq!(of("", "Pod", "status: {}").observed, Observed::NoStatus);
    }

    #[test]
    fn deployments_by_conditions() {
        let d = |y: &str| of("apps", "Deployment", y).observed;
        let available = "status:\n  conditions:\n  - {type: Available, status: \"True\"}\n  - {type: Progressing, status: \"True\", reason: NewReplicaSetAvailable}";
        assert_eq!(d(available), Observed::Available);
        let stuck = "status:\n  conditions:\n  - {type: Available, status: \"True\"}\n  - {type: Progressing, status: \"False\", reason: ProgressDeadlineExceeded}";
        assert_eq!(d(stuck), Observed::DeadlineExceeded);
        assert_eq!(d("status:\n  conditions:\n  - {type: Available, status: \"False\"}"), Observed::NotAvailable);
        assert_eq!(d("status:\n  conditions: 3\n  observedGeneration: 1"), Observed::NotAvailable);
    }

    #[test]
    fn jobs_by_conditions() {
        let j = |y: &str| of("batch", "Job", y).observed;
        assert_eq!(
            j("status:\n  conditions:\n  - {type: Complete, status: \"True\"}\n  succeeded: 1"),
            Observed::JobComplete
        );
        assert_eq!(j("status:\n  conditions:\n  - {type: Failed, status: \"True\"}"), Observed::JobFailed);
        assert_eq!(j("status: {active: 1}"), Observed::JobActive);
        assert_eq!(j("status: {startTime: x}"), Observed::JobWaiting);
    }

    #[test]
    fn replicas_and_state() {
        let ss = |y: &str| of("apps", "StatefulSet", y).observed;
        assert_eq!(ss("spec: {replicas: 2}\nstatus: {readyReplicas: 2}"), Observed::ReplicasReady);
        assert_eq!(ss("spec: {replicas: 3}\nstatus: {readyReplicas: 2}"), Observed::ReplicasNotReady);
        assert_eq!(ss("status: {readyReplicas: 1}"), Observed::ReplicasReady);
        let cr = of("example.com", "Stream", "spec: {state: Running}\nstatus: {state: Failed}");
        assert_eq!((cr.desired, cr.current), (Said::State(State::Running), Said::State(State::Failed)));
        assert_eq!(cr.observed.state(), Some(State::Failed));
        assert_eq!(of("", "ConfigMap", "data: {a: b}").observed, Observed::Exists);
        assert_eq!(of("x", "Y", "status: {state: running}").current, Said::Other);
    }
}
