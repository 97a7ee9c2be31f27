//! The default ordering rules of `plan` (fixtures/rules/, each file says
//! what it models and the order worked out by hand): soft edges between
//! objects already in the plan, each with its typed reason; relaxed and
//! listed when they contradict anything else; `--no-default-rules` turns
//! them off.

mod common;
use common::{run, steps};
use serde_json::Value;

fn plan(args: &[&str]) -> Value {
    let mut all = vec!["plan", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn s(items: &[&[&str]]) -> Vec<Vec<String>> {
    items.iter().map(|step| step.iter().map(|r| r.to_string()).collect()).collect()
}

/// The resource `reference` of a plan, wherever it is in its steps.
fn resource<'a>(v: &'a Value, reference: &str) -> &'a Value {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["resources"].as_array().unwrap())
        .find(|r| r["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not in the plan"))
}

const SA: &str = "fixtures/rules/serviceaccount.yaml";

#[test]
fn serviceaccount_and_binding_go_after_the_workloads_that_run_as_it() {
    let v = plan(&["--all", SA]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/gk/ctrl-5d4f-a", "Role.rbac.authorization.k8s.io/gk/ctrl"],
            &["ReplicaSet.apps/gk/ctrl-5d4f"],
            &["Deployment.apps/gk/ctrl"],
            &["RoleBinding.rbac.authorization.k8s.io/gk/ctrl", "ServiceAccount/gk/ctrl"],
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
            {"owner": "ServiceAccount/gk/ctrl", "dependent": "Deployment.apps/gk/ctrl", "kind": "rule", "rule": "serviceaccount-after-workloads", "why": "runs-as"},
            {"owner": "PersistentVolume/pv-data", "dependent": "PersistentVolumeClaim/gk/data", "kind": "rule", "rule": "storage-after-claims", "why": "bound-claim"},
        ])
    );
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2);
    assert!(warnings.iter().all(|w| w["rule"] == "TD012" && w["type"] == "relaxed"));
    assert!(warnings[1]["message"]
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
    let yaml = plan(&["--all", SA]);
    let docs: Vec<serde_json::Value> =
        std::fs::read_to_string(SA).unwrap().split("\n---\n").map(|d| serde_yaml::from_str(d).unwrap()).collect();
    let dir = std::env::temp_dir().join(format!("teardown-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sa.json");
    std::fs::write(
        &file,
        serde_json::to_string(&serde_json::json!({"apiVersion": "v1", "kind": "List", "items": docs})).unwrap(),
    )
    .unwrap();
    let json = plan(&["--all", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(steps(&json), steps(&yaml));
}
