//! The default ordering rules of `plan` (fixtures/rules/, each file says
//! what it models and the order worked out by hand): soft edges between
//! objects already in the plan, each with its typed reason; relaxed and
//! listed when they contradict anything else; `--no-default-rules` turns
//! them off.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{plan, resource, run, s, steps};
use serde_json::Value;

const SA: &str = "fixtures/rules/serviceaccount.yaml";

#[test]
fn serviceaccount_and_binding_go_after_the_workloads_that_run_as_it() {
    let v = plan(&["--all", SA]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/gk/ctrl-5d4f-a"],
            &["ReplicaSet.apps/gk/ctrl-5d4f"],
            &["Deployment.apps/gk/ctrl"],
            &[
                "Role.rbac.authorization.k8s.io/gk/ctrl",
                "RoleBinding.rbac.authorization.k8s.io/gk/ctrl",
                "ServiceAccount/gk/ctrl",
            ],
        ])
    );
    let sa = resource(&v, "ServiceAccount/gk/ctrl");
    assert_eq!(
        sa["reason"],
        "after Deployment.apps/gk/ctrl, which runs as it (default rule serviceaccount-after-workloads)"
    );
    assert_eq!(
        sa["reasons"][0],
        serde_json::json!({"type": "rule", "why": "runs-as", "rule": "serviceaccount-after-workloads", "ref": "Deployment.apps/gk/ctrl"})
    );
    let binding = resource(&v, "RoleBinding.rbac.authorization.k8s.io/gk/ctrl");
    assert_eq!(
        binding["reason"],
        "after Deployment.apps/gk/ctrl, which runs as a ServiceAccount it binds (default rule serviceaccount-after-workloads)"
    );
    assert_eq!(binding["reasons"][0]["why"], "grants");
    assert!(v["relaxed"].as_array().unwrap().is_empty());
    assert!(v["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn no_default_rules_gives_the_order_of_owner_references_alone() {
    let v = plan(&["--all", "--no-default-rules", SA]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "Pod/gk/ctrl-5d4f-a",
                "Role.rbac.authorization.k8s.io/gk/ctrl",
                "RoleBinding.rbac.authorization.k8s.io/gk/ctrl",
                "ServiceAccount/gk/ctrl",
            ],
            &["ReplicaSet.apps/gk/ctrl-5d4f"],
            &["Deployment.apps/gk/ctrl"],
        ])
    );
    assert_eq!(resource(&v, "ServiceAccount/gk/ctrl")["reason"], "");
}

#[test]
fn claim_then_volume_then_storage_class() {
    let v = plan(&["--all", "fixtures/rules/storage.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[&["PersistentVolumeClaim/gk/data"], &["PersistentVolume/pv-data"], &["StorageClass.storage.k8s.io/fast"]])
    );
    assert_eq!(
        resource(&v, "PersistentVolume/pv-data")["reason"],
        "after PersistentVolumeClaim/gk/data, the claim bound to it (default rule storage-after-claims)"
    );
    assert_eq!(
        resource(&v, "StorageClass.storage.k8s.io/fast")["reason"],
        "after PersistentVolume/pv-data, which is of its storage class (default rule storage-after-claims)"
    );
    let off = plan(&["--all", "--no-default-rules", "fixtures/rules/storage.yaml"]);
    assert_eq!(
        steps(&off),
        s(&[&["PersistentVolume/pv-data", "PersistentVolumeClaim/gk/data", "StorageClass.storage.k8s.io/fast"]])
    );
}

#[test]
fn a_rule_against_an_owner_reference_or_a_depends_on_is_relaxed_and_listed() {
    let (code, out, err) = run(&["plan", "--all", "fixtures/rules/conflict.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1     delete  ServiceAccount/gk/ctrl         owned by Deployment.apps/gk/ctrl\n"), "{out}");
    assert!(
        err.contains("warning[TD012]: ordering conflict: default rule serviceaccount-after-workloads would destroy ServiceAccount/gk/ctrl after Deployment.apps/gk/ctrl, but Deployment.apps/gk/ctrl must go after it (Deployment.apps/gk/ctrl owns ServiceAccount/gk/ctrl); the rule's edge is relaxed"),
        "{err}"
    );
    let v = plan(&["--all", "fixtures/rules/conflict.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &["PersistentVolume/pv-data", "ServiceAccount/gk/ctrl"],
            &["Deployment.apps/gk/ctrl", "PersistentVolumeClaim/gk/data"],
        ])
    );
    assert_eq!(
        v["relaxed"],
        serde_json::json!([
            // In reference order (owner, dependent).
            {"owner": "PersistentVolume/pv-data", "dependent": "PersistentVolumeClaim/gk/data", "kind": "rule", "rule": "storage-after-claims", "why": "bound-claim"},
            {"owner": "ServiceAccount/gk/ctrl", "dependent": "Deployment.apps/gk/ctrl", "kind": "rule", "rule": "serviceaccount-after-workloads", "why": "runs-as"},
        ])
    );
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2);
    assert!(warnings.iter().all(|w| w["rule"] == "TD012" && w["type"] == "relaxed"));
    assert!(warnings[0]["message"]
        .as_str()
        .unwrap()
        .contains("(PersistentVolumeClaim/gk/data is destroyed after PersistentVolume/pv-data)"));
    // No rule, no conflict: the same steps.
    let off = plan(&["--all", "--no-default-rules", "fixtures/rules/conflict.yaml"]);
    assert_eq!(steps(&off), steps(&v));
    assert!(off["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn a_rule_never_pulls_an_object_into_the_plan() {
    let v = plan(&["--delete", "deploy/ctrl", SA]);
    assert_eq!(
        steps(&v),
        s(&[&["Pod/gk/ctrl-5d4f-a"], &["ReplicaSet.apps/gk/ctrl-5d4f"], &["Deployment.apps/gk/ctrl"]])
    );
    let v = plan(&["--delete", "pvc/gk/data", "fixtures/rules/storage.yaml"]);
    assert_eq!(steps(&v), s(&[&["PersistentVolumeClaim/gk/data"]]));
    // Chosen together, they are ordered.
    let v = plan(&["--delete", "deploy/ctrl,sa/ctrl", SA]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/gk/ctrl-5d4f-a"],
            &["ReplicaSet.apps/gk/ctrl-5d4f"],
            &["Deployment.apps/gk/ctrl"],
            &["ServiceAccount/gk/ctrl"],
        ])
    );
    assert_eq!(
        resource(&v, "ServiceAccount/gk/ctrl")["reason"],
        "target; after Deployment.apps/gk/ctrl, which runs as it (default rule serviceaccount-after-workloads)"
    );
}

#[test]
fn default_serviceaccount_only_when_the_plan_deletes_it() {
    let v = plan(&["--all", "fixtures/rules/default-sa.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/gk/lone", "Pod/gk/named", "Pod/other/lone"],
            &["ClusterRoleBinding.rbac.authorization.k8s.io/gk-default-view", "ServiceAccount/gk/default"],
        ])
    );
    assert_eq!(
        resource(&v, "ServiceAccount/gk/default")["reason"],
        "after Pod/gk/lone, which runs as it (default rule serviceaccount-after-workloads)"
    );
    let v = plan(&["--delete", "pod/gk/lone", "fixtures/rules/default-sa.yaml"]);
    assert_eq!(steps(&v), s(&[&["Pod/gk/lone"]]));
}

#[test]
fn explain_says_which_rule_decided_the_step() {
    let (code, out, err) = run(&["explain", "sa/ctrl", SA]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ServiceAccount/gk/ctrl: deleted in step 4 of 4"), "{out}");
    assert!(
        out.contains(
            "└ goes after Deployment.apps/gk/ctrl, which runs as it (default rule serviceaccount-after-workloads) (step 3)"
        ),
        "{out}"
    );
    let (code, out, _) = run(&["explain", "sa/ctrl", "--no-default-rules", SA]);
    assert_eq!(code, 0);
    assert!(out.contains("ServiceAccount/gk/ctrl: deleted in step 1 of 3"), "{out}");
}

/// The fields the rules read come out of the YAML fast path as they come
/// out of JSON (and serde_yaml): the same plan from both.
#[test]
fn the_same_order_from_json_input() {
    let dir = std::env::temp_dir().join(format!("teardown-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for fixture in [SA, ROLES, WEBHOOK, NAMESPACE, CYCLES, GATEKEEPER] {
        let yaml = plan(&["--all", fixture]);
        let docs: Vec<serde_json::Value> = std::fs::read_to_string(fixture)
            .unwrap()
            .split("\n---\n")
            .map(|d| serde_yaml::from_str(d).unwrap())
            .collect();
        let file = dir.join("rules.json");
        std::fs::write(
            &file,
            serde_json::to_string(&serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs})).unwrap(),
        )
        .unwrap();
        let json = plan(&["--all", file.to_str().unwrap()]);
        assert_eq!(steps(&json), steps(&yaml), "{fixture}");
        assert_eq!(json["relaxed"], yaml["relaxed"], "{fixture}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

const ROLES: &str = "fixtures/rules/roles.yaml";
const WEBHOOK: &str = "fixtures/rules/webhook.yaml";
const NAMESPACE: &str = "fixtures/rules/namespace.yaml";
const CYCLES: &str = "fixtures/rules/cycles.yaml";
const GATEKEEPER: &str = "fixtures/rules/gatekeeper.yaml";

/// Every resource's reason types, and whether any is a rule's.
fn any_rule_reason(v: &Value) -> bool {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["resources"].as_array().unwrap())
        .flat_map(|r| r["reasons"].as_array().unwrap())
        .any(|r| r["type"] == "rule")
}

#[test]
fn roles_the_bindings_grant_go_after_the_workloads_too() {
    // The order worked out by hand is in the fixture.
    let v = plan(&["--all", ROLES]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "ClusterRole.rbac.authorization.k8s.io/unrelated",
                "Deployment.apps/gk/ctrl",
                "Role.rbac.authorization.k8s.io/other/local",
            ],
            &[
                "ClusterRole.rbac.authorization.k8s.io/ctrl-admin",
                "ClusterRole.rbac.authorization.k8s.io/view-things",
                "ClusterRoleBinding.rbac.authorization.k8s.io/ctrl-admin",
                "Role.rbac.authorization.k8s.io/gk/local",
                "RoleBinding.rbac.authorization.k8s.io/gk/ctrl-local",
                "RoleBinding.rbac.authorization.k8s.io/gk/ctrl-view",
                "ServiceAccount/gk/ctrl",
            ],
        ])
    );
    let role = resource(&v, "Role.rbac.authorization.k8s.io/gk/local");
    assert_eq!(
        role["reason"],
        "after Deployment.apps/gk/ctrl, which runs as a ServiceAccount granted it (default rule serviceaccount-after-workloads)"
    );
    assert_eq!(
        role["reasons"][0],
        serde_json::json!({"type": "rule", "why": "granted-role", "rule": "serviceaccount-after-workloads", "ref": "Deployment.apps/gk/ctrl"})
    );
    // The bindings need not be deleted: they still say what the
    // ServiceAccount is granted.
    let v = plan(&["--delete", "deploy/ctrl,role/gk/local,clusterrole/ctrl-admin", ROLES]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Deployment.apps/gk/ctrl"],
            &["ClusterRole.rbac.authorization.k8s.io/ctrl-admin", "Role.rbac.authorization.k8s.io/gk/local"],
        ])
    );
    let off = plan(&["--all", "--no-default-rules", ROLES]);
    assert_eq!(off["steps"].as_array().unwrap().len(), 1);
    assert!(!any_rule_reason(&off));
}

#[test]
fn a_webhook_configuration_goes_before_its_service_and_the_workloads_behind_it() {
    // The order worked out by hand is in the fixture.
    let v = plan(&["--all", WEBHOOK]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "APIService.apiregistration.k8s.io/v1beta1.metrics.k8s.io",
                "Deployment.apps/gk/other",
                "MutatingWebhookConfiguration.admissionregistration.k8s.io/inject",
                "Pod/other/hook-x",
                "ValidatingWebhookConfiguration.admissionregistration.k8s.io/external",
                "ValidatingWebhookConfiguration.admissionregistration.k8s.io/soft",
            ],
            &[
                "Deployment.apps/kube-system/metrics-server",
                "Pod/gk/hook-7c9-a",
                "Pod/gk/stray",
                "Service/gk/hook",
                "Service/kube-system/metrics-server",
            ],
            &["ReplicaSet.apps/gk/hook-7c9"],
            &["Deployment.apps/gk/hook"],
        ])
    );
    let inject = "MutatingWebhookConfiguration.admissionregistration.k8s.io/inject";
    assert_eq!(
        resource(&v, "Service/gk/hook")["reason"],
        format!("after {inject}, which calls it (default rule webhooks-before-backends)")
    );
    assert_eq!(
        resource(&v, "Service/gk/hook")["reasons"][0],
        serde_json::json!({"type": "rule", "why": "calls-service", "rule": "webhooks-before-backends", "ref": inject})
    );
    assert_eq!(
        resource(&v, "Pod/gk/stray")["reason"],
        format!("after {inject}, which calls a Service in front of it (default rule webhooks-before-backends)")
    );
    assert_eq!(resource(&v, "Pod/gk/stray")["reasons"][0]["why"], "calls-backend");
    assert_eq!(
        resource(&v, "Deployment.apps/kube-system/metrics-server")["reason"],
        "after APIService.apiregistration.k8s.io/v1beta1.metrics.k8s.io, which calls a Service in front of it (default rule webhooks-before-backends)"
    );
    assert!(v["warnings"].as_array().unwrap().is_empty());

    // The Service need not be deleted for the workloads behind it to wait.
    let v = plan(&["--delete", "mutatingwebhookconfiguration/inject,deploy/gk/hook", WEBHOOK]);
    assert_eq!(
        steps(&v),
        s(&[&[inject], &["Pod/gk/hook-7c9-a"], &["ReplicaSet.apps/gk/hook-7c9"], &["Deployment.apps/gk/hook"],])
    );

    let off = plan(&["--all", "--no-default-rules", WEBHOOK]);
    assert_eq!(
        steps(&off),
        s(&[
            &[
                "APIService.apiregistration.k8s.io/v1beta1.metrics.k8s.io",
                "Deployment.apps/gk/other",
                "Deployment.apps/kube-system/metrics-server",
                inject,
                "Pod/gk/hook-7c9-a",
                "Pod/gk/stray",
                "Pod/other/hook-x",
                "Service/gk/hook",
                "Service/kube-system/metrics-server",
                "ValidatingWebhookConfiguration.admissionregistration.k8s.io/external",
                "ValidatingWebhookConfiguration.admissionregistration.k8s.io/soft",
            ],
            &["ReplicaSet.apps/gk/hook-7c9"],
            &["Deployment.apps/gk/hook"],
        ])
    );
    assert!(!any_rule_reason(&off));
}

#[test]
fn deleting_a_service_a_kept_webhook_configuration_calls_is_a_warning() {
    let v = plan(&["--delete", "svc/gk/hook,svc/kube-system/metrics-server", WEBHOOK]);
    // inject fails closed; soft says `failurePolicy: Ignore`: no warning for it.
    assert_eq!(
        v["warnings"],
        serde_json::json!([
            {
                "type": "webhook-stays",
                "rule": null,
                "message": "Service/gk/hook is deleted but MutatingWebhookConfiguration.admissionregistration.k8s.io/inject stays and calls it: every admission request it intercepts fails from then on (\"failed calling webhook\")",
                "refs": ["Service/gk/hook", "MutatingWebhookConfiguration.admissionregistration.k8s.io/inject"],
            },
            {
                "type": "webhook-stays",
                "rule": null,
                "message": "Service/kube-system/metrics-server is deleted but APIService.apiregistration.k8s.io/v1beta1.metrics.k8s.io stays and is served by it: every request to its API fails from then on, and API discovery with it (namespace deletions hang)",
                "refs": ["Service/kube-system/metrics-server", "APIService.apiregistration.k8s.io/v1beta1.metrics.k8s.io"],
            },
        ])
    );
    // Deleted together: nothing stays to call it.
    let v = plan(&["--delete", "svc/gk/hook,mutatingwebhookconfiguration/inject", WEBHOOK]);
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{}", v["warnings"]);
}

#[test]
fn pods_go_first_in_a_namespace_the_plan_deletes() {
    // The orders worked out by hand are in the fixture.
    let v = plan(&["--all", NAMESPACE]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/other/x", "Pod/shop/web-5d4f-a", "Pod/shop/web-5d4f-b"],
            &[
                "ConfigMap/shop/web-config",
                "EndpointSlice.discovery.k8s.io/shop/web-x",
                "Namespace/other",
                "NetworkPolicy.networking.k8s.io/shop/deny-all",
                "ReplicaSet.apps/shop/web-5d4f",
                "Secret/shop/tls",
            ],
            &["Deployment.apps/shop/web", "Service/shop/web"],
            &["Namespace/shop"],
        ])
    );
    let policy = resource(&v, "NetworkPolicy.networking.k8s.io/shop/deny-all");
    assert_eq!(
        policy["reason"],
        "after Pod/shop/web-5d4f-a, as the Pods of its namespace go first (default rule pods-first-in-namespace)"
    );
    assert_eq!(
        policy["reasons"][0],
        serde_json::json!({"type": "rule", "why": "pods-first", "rule": "pods-first-in-namespace", "ref": "Pod/shop/web-5d4f-a"})
    );
    let v = plan(&["--delete", "ns/shop", NAMESPACE]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/shop/web-5d4f-a", "Pod/shop/web-5d4f-b"],
            &[
                "ConfigMap/shop/web-config",
                "EndpointSlice.discovery.k8s.io/shop/web-x",
                "NetworkPolicy.networking.k8s.io/shop/deny-all",
                "ReplicaSet.apps/shop/web-5d4f",
                "Secret/shop/tls",
            ],
            &["Deployment.apps/shop/web", "Service/shop/web"],
            &["Namespace/shop"],
        ])
    );
    // Only when the plan deletes the Namespace itself.
    let v = plan(&["--delete", "cm/shop/web-config,pod/shop/web-5d4f-a", NAMESPACE]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/shop/web-config", "Pod/shop/web-5d4f-a"]]));

    let off = plan(&["--all", "--no-default-rules", NAMESPACE]);
    assert_eq!(
        steps(&off),
        s(&[
            &[
                "ConfigMap/other/x",
                "ConfigMap/shop/web-config",
                "EndpointSlice.discovery.k8s.io/shop/web-x",
                "NetworkPolicy.networking.k8s.io/shop/deny-all",
                "Pod/shop/web-5d4f-a",
                "Pod/shop/web-5d4f-b",
                "Secret/shop/tls",
            ],
            &["Namespace/other", "ReplicaSet.apps/shop/web-5d4f", "Service/shop/web"],
            &["Deployment.apps/shop/web"],
            &["Namespace/shop"],
        ])
    );
    assert!(!any_rule_reason(&off));

    // explain follows the rule to the Pod; diagrams draw it from the Pod.
    let (code, out, err) = run(&["explain", "secret/shop/tls", NAMESPACE]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("└ goes after Pod/shop/web-5d4f-a, as the Pods of its namespace go first (default rule pods-first-in-namespace) (step 1)"),
        "{out}"
    );
    let (code, out, _) = run(&["plan", "--delete", "ns/shop", "-o", "dot", NAMESPACE]);
    assert_eq!(code, 0);
    let label = |from: &str, to: &str| {
        let id = |r: &str| {
            out.lines()
                .find(|l| l.contains(&format!("[label=\"{r}\"]")))
                .and_then(|l| l.trim().split(' ').next())
                .unwrap_or_else(|| panic!("{r} not drawn: {out}"))
                .to_string()
        };
        format!("{} -> {} [label=", id(from), id(to))
    };
    assert!(
        out.contains(&format!("{}\"Pods first in namespace\"]", label("Pod/shop/web-5d4f-a", "Secret/shop/tls"))),
        "{out}"
    );
    // Never drawn from the Namespace, which goes last.
    assert!(!out.contains("after the Pods of"), "{out}");
}

/// fixtures/shop.yaml: Cart shop/cart-1 waits for the finalizer
/// shop.example.com/checkout. Nothing says who removes it: the Cart goes
/// after the Pods, as the rest of the namespace does. When
/// `--finalizer-controller` says StatefulSet shop/db removes it, the
/// controller's Pod db-0 must still run when the Cart goes: the Cart is not
/// put after the Pods (step 1, with them), and the StatefulSet goes after it.
#[test]
fn an_object_whose_finalizer_a_controller_of_its_namespace_removes_is_not_put_after_the_pods() {
    let cart = "Cart.shop.example.com/shop/cart-1";
    let v = plan(&["--delete", "ns/shop", "fixtures/shop.yaml"]);
    let step_of = |v: &Value, r: &str| steps(v).iter().position(|s| s.iter().any(|x| x == r)).map(|i| i + 1);
    assert_eq!(step_of(&v, cart), Some(2));
    assert_eq!(step_of(&v, "Pod/shop/db-0"), Some(1));
    let v = plan(&[
        "--delete",
        "ns/shop",
        "--finalizer-controller",
        "shop.example.com/checkout=sts/shop/db",
        "fixtures/shop.yaml",
    ]);
    assert_eq!(step_of(&v, cart), Some(1));
    assert_eq!(step_of(&v, "StatefulSet.apps/shop/db"), Some(2));
    // The rest of the namespace still goes after the Pods.
    assert_eq!(step_of(&v, "EndpointSlice.discovery.k8s.io/shop/web-abc"), Some(2));
    assert!(v["relaxed"].as_array().unwrap().is_empty());
}

#[test]
fn each_new_rule_that_would_close_a_cycle_is_relaxed_and_listed() {
    // The order worked out by hand is in the fixture.
    let (code, out, err) = run(&["plan", "--all", CYCLES]);
    assert_eq!(code, 0, "{err}");
    let inject = "MutatingWebhookConfiguration.admissionregistration.k8s.io/inject";
    for warning in [
        "warning[TD012]: ordering conflict: default rule pods-first-in-namespace would destroy ConfigMap/jobs/spark-conf after the Pods of Namespace/jobs, but Pod/jobs/spark-driver must go after it (Pod/jobs/spark-driver owns ConfigMap/jobs/spark-conf); the rule's edge is relaxed".to_string(),
        format!("warning[TD012]: ordering conflict: default rule webhooks-before-backends would destroy Deployment.apps/hooks/hook after {inject}, but {inject} must go after it ({inject} is destroyed after Deployment.apps/hooks/hook); the rule's edge is relaxed"),
        "warning[TD012]: ordering conflict: default rule serviceaccount-after-workloads would destroy Role.rbac.authorization.k8s.io/hooks/hook after Deployment.apps/hooks/hook, but Deployment.apps/hooks/hook must go after it (Deployment.apps/hooks/hook owns Role.rbac.authorization.k8s.io/hooks/hook); the rule's edge is relaxed".to_string(),
    ] {
        assert!(err.contains(&warning), "{warning}\n{err}");
    }
    assert!(out.contains("4     delete   Service/hooks/hook"), "{out}");
    let v = plan(&["--all", CYCLES]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/jobs/spark-conf", "Pod/jobs/spark-exec-1", "Role.rbac.authorization.k8s.io/hooks/hook"],
            &["Deployment.apps/hooks/hook", "Pod/jobs/spark-driver"],
            &[
                inject,
                "Namespace/jobs",
                "RoleBinding.rbac.authorization.k8s.io/hooks/hook",
                "ServiceAccount/hooks/hook",
            ],
            &["Service/hooks/hook"],
        ])
    );
    assert_eq!(
        v["relaxed"],
        serde_json::json!([
            {"owner": "ConfigMap/jobs/spark-conf", "dependent": "Namespace/jobs", "kind": "rule", "rule": "pods-first-in-namespace", "why": "after-pods"},
            {"owner": "Deployment.apps/hooks/hook", "dependent": inject, "kind": "rule", "rule": "webhooks-before-backends", "why": "calls-backend"},
            {"owner": "Role.rbac.authorization.k8s.io/hooks/hook", "dependent": "Deployment.apps/hooks/hook", "kind": "rule", "rule": "serviceaccount-after-workloads", "why": "granted-role"},
        ])
    );
    let off = plan(&["--all", "--no-default-rules", CYCLES]);
    assert_eq!(
        steps(&off),
        s(&[
            &[
                "ConfigMap/jobs/spark-conf",
                "Pod/jobs/spark-exec-1",
                "Role.rbac.authorization.k8s.io/hooks/hook",
                "RoleBinding.rbac.authorization.k8s.io/hooks/hook",
                "Service/hooks/hook",
                "ServiceAccount/hooks/hook",
            ],
            &["Deployment.apps/hooks/hook", "Pod/jobs/spark-driver"],
            &[inject, "Namespace/jobs"],
        ])
    );
    assert!(off["relaxed"].as_array().unwrap().is_empty());

    // A cycle through a namespace's Pods: the conflict names them.
    let v = plan(&["--all", "fixtures/rules/cycle-through-pods.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ClusterRole.rbac.authorization.k8s.io/r"],
            &["Pod/x/p"],
            &["Deployment.apps/x/d"],
            &["ClusterRoleBinding.rbac.authorization.k8s.io/b", "ServiceAccount/x/sa"],
            &["Namespace/x"],
        ])
    );
    assert_eq!(
        v["warnings"][0]["message"],
        "ordering conflict: default rule serviceaccount-after-workloads would destroy ClusterRole.rbac.authorization.k8s.io/r after Deployment.apps/x/d, but Deployment.apps/x/d must go after it (Deployment.apps/x/d after the Pods of Namespace/x by default rule pods-first-in-namespace, and through others); the rule's edge is relaxed"
    );
}

/// Issue 18's acceptance: a Gatekeeper-like snapshot
/// (fixtures/rules/gatekeeper.yaml). Worked out by hand:
///
/// plan --all
///   1  the ValidatingWebhookConfiguration: nothing goes before it.
///   2  the Pod: webhooks-before-backends (the Service the webhook calls
///      selects it).
///   3  the ReplicaSet (owns the Pod) and the Service (after the webhook
///      configuration; pods-first-in-namespace puts it after the Pod too).
///   4  the Deployment (owns the ReplicaSet; behind the Service too).
///   5  the ServiceAccount, the ClusterRoleBinding that names it and the
///      ClusterRole that binding grants: serviceaccount-after-workloads,
///      after the Deployment (and its ReplicaSet and Pod) that run as it.
///   6  Namespace gk: it holds the ServiceAccount (step 5).
///
/// plan --delete ns/gk: the Namespace takes what it holds; the webhook
/// configuration, the binding and the ClusterRole stay.
///   1 Pod; 2 ReplicaSet, Service (pods first); 3 Deployment;
///   4 ServiceAccount; 5 Namespace — and a warning: the webhook
///   configuration the plan keeps calls the Service it deletes (one of its
///   webhooks says `failurePolicy: Fail`).
#[test]
fn gatekeeper_webhook_first_service_account_after_namespace_last() {
    const VWC: &str =
        "ValidatingWebhookConfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration";
    const SVC: &str = "Service/gk/gatekeeper-webhook-service";
    let v = plan(&["--all", GATEKEEPER]);
    assert_eq!(
        steps(&v),
        s(&[
            &[VWC],
            &["Pod/gk/gatekeeper-controller-manager-6b7d9c-x2kqp"],
            &["ReplicaSet.apps/gk/gatekeeper-controller-manager-6b7d9c", SVC],
            &["Deployment.apps/gk/gatekeeper-controller-manager"],
            &[
                "ClusterRole.rbac.authorization.k8s.io/gatekeeper-manager-role",
                "ClusterRoleBinding.rbac.authorization.k8s.io/gatekeeper-manager-rolebinding",
                "ServiceAccount/gk/gatekeeper-admin",
            ],
            &["Namespace/gk"],
        ])
    );
    assert!(v["warnings"].as_array().unwrap().is_empty());
    assert!(v["relaxed"].as_array().unwrap().is_empty());

    let message = format!(
        "{SVC} is deleted but {VWC} stays and calls it: every admission request it intercepts fails from then on (\"failed calling webhook\")"
    );
    let v = plan(&["--delete", "ns/gk", GATEKEEPER]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/gk/gatekeeper-controller-manager-6b7d9c-x2kqp"],
            &["ReplicaSet.apps/gk/gatekeeper-controller-manager-6b7d9c", SVC],
            &["Deployment.apps/gk/gatekeeper-controller-manager"],
            &["ServiceAccount/gk/gatekeeper-admin"],
            &["Namespace/gk"],
        ])
    );
    assert_eq!(
        v["warnings"],
        serde_json::json!([{"type": "webhook-stays", "rule": null, "message": message, "refs": [SVC, VWC]}])
    );
    // In every format that shows warnings: the table's stderr, YAML, the
    // kubectl script's header.
    let (code, _, err) = run(&["plan", "--delete", "ns/gk", GATEKEEPER]);
    assert_eq!(code, 0);
    assert!(err.contains(&format!("warning: {message}\n")), "{err}");
    let (_, out, _) = run(&["plan", "--delete", "ns/gk", "-o", "yaml", GATEKEEPER]);
    assert!(out.contains("type: webhook-stays"), "{out}");
    let (_, out, _) = run(&["plan", "--delete", "ns/gk", "-o", "kubectl", GATEKEEPER]);
    assert!(out.contains(&format!("# warning: {message}")), "{out}");

    // Each rule off: owner references and the namespace alone.
    let off = plan(&["--all", "--no-default-rules", GATEKEEPER]);
    assert_eq!(
        steps(&off),
        s(&[
            &[
                "ClusterRole.rbac.authorization.k8s.io/gatekeeper-manager-role",
                "ClusterRoleBinding.rbac.authorization.k8s.io/gatekeeper-manager-rolebinding",
                "Pod/gk/gatekeeper-controller-manager-6b7d9c-x2kqp",
                SVC,
                "ServiceAccount/gk/gatekeeper-admin",
                VWC,
            ],
            &["ReplicaSet.apps/gk/gatekeeper-controller-manager-6b7d9c"],
            &["Deployment.apps/gk/gatekeeper-controller-manager"],
            &["Namespace/gk"],
        ])
    );
}
