//! Application controllers' cascades (issue 35) on real snapshots: the
//! k3s support bundles of `fixtures/controllers/` (extracts of the
//! replicatedhq/troubleshoot bundles in `fixtures/realworld/kubernetes/`,
//! see `fixtures/controllers/SOURCES.md`). Deleting the HelmChart traefik
//! uninstalls the Helm release traefik: what k3s's helm-controller and
//! Helm's uninstall take is worked out in `docs/controllers/CASCADES.md`
//! ("Acceptance: the real k3s bundle"), from their code, not from
//! teardown's output. `TEARDOWN_BIN=PATH` runs them against another build.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn binary() -> PathBuf {
    match std::env::var_os("TEARDOWN_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => PathBuf::from(env!("CARGO_BIN_EXE_teardown")),
    }
}

/// `plan --delete helmchart/traefik -n kube-system -o json FILE`: the
/// deleted references and the warnings' types.
fn plan_traefik(file: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let out = Command::new(binary())
        .args(["plan", "--delete", "helmchart/traefik", "-n", "kube-system", "-o", "json"])
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let deleted = plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["resources"].as_array().unwrap().iter().map(|r| r["ref"].as_str().unwrap().to_string()))
        .collect();
    let warnings =
        plan["warnings"].as_array().unwrap().iter().map(|w| w["type"].as_str().unwrap().to_string()).collect();
    (deleted, warnings)
}

fn set(refs: &[&str]) -> BTreeSet<String> {
    refs.iter().map(|r| r.to_string()).collect()
}

/// The 2022 bundle (helm-controller of 2022, finalizer
/// `wrangler.cattle.io/helm-controller`): exactly the release's objects
/// (by Helm's ownership annotations: no Secret was collected), their
/// dependents, the chart's own Job and binding (objectset annotations,
/// no ownerReference in 2022), and the HelmChart.
#[test]
fn deleting_helmchart_traefik_uninstalls_the_release_2022() {
    let (deleted, warnings) = plan_traefik("fixtures/controllers/k3s-traefik-2022.yaml");
    assert_eq!(
        deleted,
        set(&[
            "HelmChart.helm.cattle.io/kube-system/traefik",
            "ClusterRole.rbac.authorization.k8s.io/traefik",
            "ClusterRoleBinding.rbac.authorization.k8s.io/traefik",
            "Deployment.apps/kube-system/traefik",
            "Service/kube-system/traefik",
            "ReplicaSet.apps/kube-system/traefik-7cd4fcff68",
            "Pod/kube-system/traefik-7cd4fcff68-9blj6",
            "Job.batch/kube-system/helm-install-traefik",
            "Pod/kube-system/helm-install-traefik-2fxbg",
            "ClusterRoleBinding.rbac.authorization.k8s.io/helm-kube-system-traefik",
        ])
    );
    // No storage record in the bundle; the Addon applies the chart again.
    assert!(warnings.contains("helm-release-inferred"), "{warnings:?}");
    assert!(warnings.contains("controller-stays"), "{warnings:?}");
}

/// The 2025 baseline bundle (finalizer `wrangler.cattle.io/on-helm-chart-remove`):
/// at least the 16 objects of the release and the chart, none of the
/// traefik-crd release's or chart's, nor the Addon.
#[test]
fn deleting_helmchart_traefik_uninstalls_the_release_baseline() {
    let (deleted, warnings) = plan_traefik("fixtures/controllers/k3s-traefik-baseline.yaml");
    let want = set(&[
        "HelmChart.helm.cattle.io/kube-system/traefik",
        "ClusterRole.rbac.authorization.k8s.io/traefik-kube-system",
        "ClusterRoleBinding.rbac.authorization.k8s.io/traefik-kube-system",
        "Deployment.apps/kube-system/traefik",
        "Service/kube-system/traefik",
        "ServiceAccount/kube-system/traefik",
        "IngressRoute.traefik.io/kube-system/traefik-dashboard",
        "ReplicaSet.apps/kube-system/traefik-57b79cf995",
        "Pod/kube-system/traefik-57b79cf995-qn4jm",
        "EndpointSlice.discovery.k8s.io/kube-system/traefik-wdqfk",
        "Endpoints/kube-system/traefik",
        "Job.batch/kube-system/helm-install-traefik",
        "Pod/kube-system/helm-install-traefik-5wnn9",
        "ServiceAccount/kube-system/helm-traefik",
        "ConfigMap/kube-system/chart-content-traefik",
        "ClusterRoleBinding.rbac.authorization.k8s.io/helm-kube-system-traefik",
    ]);
    let missing: Vec<_> = want.difference(&deleted).collect();
    assert!(missing.is_empty(), "not deleted: {missing:?}");
    for r in &deleted {
        assert!(!r.contains("traefik-crd"), "{r} is the traefik-crd release's or chart's");
        assert!(!r.starts_with("CustomResourceDefinition"), "{r}: a CRD of release traefik-crd");
        assert!(!r.starts_with("Addon."), "{r}: the Addon stays");
    }
    assert!(warnings.contains("helm-release-inferred"), "{warnings:?}");
    assert!(warnings.contains("controller-stays"), "{warnings:?}");
}

/// The run's standard output (exit 0 expected).
fn run(args: &[&str], file: &Path) -> String {
    let out = Command::new(binary()).args(args).arg(file).env("NO_COLOR", "1").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const ARGO_APP: &str = "apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: payments, namespace: argocd, uid: app-payments, finalizers: [resources-finalizer.argocd.argoproj.io]}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: payments}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  namespace: payments
  annotations: {argocd.argoproj.io/tracking-id: 'payments:apps/Deployment:payments/api'}
";

/// `explain` and `graph --dependents` show the managed-by relation, with
/// the controller and how it reaches the object (issue 35, item 2).
#[test]
fn explain_and_graph_name_the_application_and_its_controller() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("app.yaml");
    std::fs::write(&file, ARGO_APP).unwrap();
    let explain = run(&["explain", "deployment/payments/api", "--delete", "application/argocd/payments"], &file);
    assert!(
        explain.contains("manages Deployment.apps/payments/api through its resources finalizer (Argo CD)"),
        "{explain}"
    );
    let plan = run(&["plan", "--delete", "application/argocd/payments"], &file);
    assert!(
        plan.contains("managed by Application.argoproj.io/argocd/payments through its resources finalizer (Argo CD)"),
        "{plan}"
    );
    let graph = run(&["graph", "--focus", "application/argocd/payments", "--dependents"], &file);
    assert!(graph.contains("Deployment.apps/payments/api"), "{graph}");
}
