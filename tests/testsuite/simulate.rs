//! `teardown simulate` (issue 13): the garbage collector's workflow, event
//! by event, for Krake and for Kubernetes' three propagation policies.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::run;
use serde_json::Value;

fn simulate(args: &[&str]) -> Value {
    common::json_of("simulate", args)
}

/// The trace as `ref type detail` lines (detail: verb, event or finalizer).
fn trace(sim: &Value) -> Vec<String> {
    sim["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let detail = ["verb", "event", "finalizer", "owner"].iter().find_map(|k| e[*k].as_str()).unwrap_or("");
            format!("{} {} {}", e["ref"].as_str().unwrap(), e["type"].as_str().unwrap(), detail).trim_end().to_string()
        })
        .collect()
}

fn removed(sim: &Value) -> Vec<&str> {
    sim["summary"]["removed"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect()
}

/// Each of `wanted` occurs in `lines`, in this order.
fn in_order(lines: &[String], wanted: &[&str]) {
    let mut at = 0;
    for w in wanted {
        match lines[at..].iter().position(|l| l == w) {
            Some(i) => at += i + 1,
            None => panic!("`{w}` missing after line {at}:\n{}", lines.join("\n")),
        }
    }
}

#[test]
fn krake_deleting_cluster_c_the_seed_example() {
    let sim =
        simulate(&["--delete", "cluster/testing/C", "--controller", "krake", "fixtures/krake/app-on-cluster.yaml"]);
    let (c, a) = ("Cluster.kubernetes/testing/C", "Application.kubernetes/testing/A");
    let lines = trace(&sim);
    in_order(
        &lines,
        &[
            &format!("{c} call delete"),
            &format!("{c} marked cascade_deletion"),
            &format!("{c} event MODIFIED"),
            &format!("{c} queued"),
            &format!("{a} call delete"),
            &format!("{a} marked cascade_deletion"),
            &format!("{a} event MODIFIED"),
            &format!("{a} finalizer-removed cascade_deletion"),
            &format!("{a} call update"),
            // A's own controller removes its finalizer when it is last.
            &format!("{a} finalizer-removed kubernetes_resources_deletion"),
            &format!("{a} removed"),
            &format!("{a} event DELETED"),
            &format!("{c} call read"),
            &format!("{c} queued-again"),
            &format!("{c} finalizer-removed cascade_deletion"),
            &format!("{c} call update"),
            &format!("{c} removed"),
            &format!("{c} event DELETED"),
        ],
    );
    assert_eq!(removed(&sim), [a, c]);
    assert_eq!(sim["summary"]["calls"], serde_json::json!({"delete": 2, "read": 1, "update": 3}));
    assert_eq!(sim["summary"]["events"], serde_json::json!({"DELETED": 2, "MODIFIED": 3}));
    assert_eq!(sim["summary"]["rounds"], 6);
    // The table numbers the same trace and ends with the summary.
    let (code, out, _) = run(&[
        "simulate",
        "--delete",
        "cluster/testing/C",
        "--controller",
        "krake",
        "fixtures/krake/app-on-cluster.yaml",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("#   ROUND  ACTOR"), "{out}");
    assert_eq!(out.lines().skip(1).take_while(|l| !l.is_empty()).count(), lines.len());
    assert!(out.ends_with("API calls: 6 (delete 2, update 3, read 1)\nevents: 5 (MODIFIED 3, DELETED 2)\nrounds: 6\n2 objects removed\n"), "{out}");
}

#[test]
fn krake_deleting_b_takes_d_only() {
    let sim = simulate(&["--delete", "role/team/B", "--controller", "krake", "fixtures/krake/tree.yaml"]);
    assert_eq!(removed(&sim), ["RoleBinding.core/team/D", "Role.core/team/B"]);
    assert!(!trace(&sim)
        .iter()
        .any(|l| l.starts_with("RoleBinding.core/team/E") || l.starts_with("Role.core/team/C ")));
}

#[test]
fn krake_removes_a_chain_lower_middle_upper() {
    let sim = simulate(&["--delete", "application/upper", "--controller", "krake", "fixtures/krake/chain.json"]);
    assert_eq!(
        removed(&sim),
        ["Application.kubernetes/p/lower", "Application.kubernetes/p/middle", "Application.kubernetes/p/upper"]
    );
}

#[test]
fn krake_deletes_a_resource_with_either_of_its_two_owners() {
    for cluster in ["cluster/c1", "cluster/c2"] {
        let sim = simulate(&["--delete", cluster, "--controller", "krake", "fixtures/krake/two-clusters.yaml"]);
        let r = removed(&sim);
        assert_eq!(r[0], "Application.kubernetes/p/web", "{cluster}");
        assert_eq!(r.len(), 2, "{cluster}: {r:?}");
    }
    let sim = simulate(&[
        "--delete",
        "globalmetricsprovider/prometheus",
        "--controller",
        "krake",
        "fixtures/krake/two-clusters.yaml",
    ]);
    assert_eq!(removed(&sim), ["GlobalMetric.core/heat-demand", "GlobalMetricsProvider.core/prometheus"]);
}

#[test]
fn a_cycle_stops_the_simulation_with_the_plan_error() {
    let (code, _, err) =
        run(&["simulate", "--delete", "application/a", "--controller", "krake", "fixtures/krake/cycle.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("TD007 ownership-cycle"), "{err}");
    let (_, _, plan_err) = run(&["plan", "--delete", "application/a", "fixtures/krake/cycle.yaml"]);
    assert_eq!(err.lines().last(), plan_err.lines().last(), "the same error as plan");
}

#[test]
fn kubernetes_foreground_waits_for_blocking_dependents() {
    let sim =
        simulate(&["--delete", "deploy/web", "--controller", "kubernetes", "--cascade", "foreground", "fixtures/shop"]);
    let (d, rs) = ("Deployment.apps/shop/web", "ReplicaSet.apps/shop/web-5d4f");
    in_order(
        &trace(&sim),
        &[
            &format!("{d} marked foregroundDeletion"),
            &format!("{d} waits"),
            &format!("{rs} marked foregroundDeletion"),
            &format!("{rs} waits"),
            "Pod/shop/web-5d4f-a removed",
            &format!("{rs} finalizer-removed foregroundDeletion"),
            &format!("{rs} removed"),
            &format!("{d} finalizer-removed foregroundDeletion"),
            &format!("{d} removed"),
        ],
    );
    assert_eq!(removed(&sim), ["Pod/shop/web-5d4f-a", "Pod/shop/web-5d4f-b", rs, d]);
}

#[test]
fn kubernetes_background_removes_the_owner_first() {
    let sim = simulate(&["--delete", "deploy/web", "--controller", "kubernetes", "fixtures/shop"]);
    assert_eq!(sim["cascade"], "background");
    assert_eq!(
        removed(&sim),
        ["Deployment.apps/shop/web", "ReplicaSet.apps/shop/web-5d4f", "Pod/shop/web-5d4f-a", "Pod/shop/web-5d4f-b"]
    );
    assert_eq!(sim["summary"]["rounds"], 3);
}

#[test]
fn kubernetes_orphan_keeps_the_dependents_without_their_owner() {
    let sim =
        simulate(&["--delete", "deploy/web", "--controller", "kubernetes", "--cascade", "orphan", "fixtures/shop"]);
    assert_eq!(removed(&sim), ["Deployment.apps/shop/web"]);
    in_order(
        &trace(&sim),
        &[
            "Deployment.apps/shop/web marked orphan",
            "ReplicaSet.apps/shop/web-5d4f owner-removed Deployment.apps/shop/web",
            "Deployment.apps/shop/web finalizer-removed orphan",
            "Deployment.apps/shop/web removed",
        ],
    );
}

#[test]
fn krake_has_no_propagation_policy_and_says_so_before_reading() {
    let (code, _, err) =
        run(&["simulate", "--delete", "cluster/c", "--controller", "krake", "--cascade", "orphan", "/nonexistent"]);
    assert_eq!(code, 2);
    assert!(err.contains("--cascade is a Kubernetes propagation policy"), "{err}");
}

#[test]
fn krake_takes_up_what_is_already_being_deleted() {
    let sim = simulate(&["--delete", "cluster/c", "--controller", "krake", "fixtures/krake/pending.yaml"]);
    assert_eq!(removed(&sim), ["Application.kubernetes/p/a", "Cluster.kubernetes/p/c"]);
    in_order(
        &trace(&sim),
        &[
            "Application.kubernetes/p/a queued",
            "Application.kubernetes/p/a finalizer-removed cascade_deletion",
            "Application.kubernetes/p/a finalizer-removed kubernetes_resources_deletion",
            "Application.kubernetes/p/a removed",
            "Cluster.kubernetes/p/c queued-again",
            "Cluster.kubernetes/p/c removed",
        ],
    );
}

#[test]
fn krake_appends_cascade_deletion_even_when_the_list_holds_it() {
    let sim = simulate(&[
        "--delete",
        "cluster/C",
        "--controller",
        "krake",
        "fixtures/simulate/krake-finalizer-not-last.yaml",
    ]);
    assert_eq!(removed(&sim), ["Application.kubernetes/p/A", "Cluster.kubernetes/p/C"]);
    assert!(
        trace(&sim).contains(&"Cluster.kubernetes/p/C finalizer-removed infrastructure_resources_deletion".to_string())
    );
}

#[test]
fn kubernetes_takes_up_a_dependent_already_being_deleted() {
    let sim = simulate(&[
        "--delete",
        "rs/rs",
        "--controller",
        "kubernetes",
        "--cascade",
        "foreground",
        "fixtures/simulate/k8s-pending-pod.yaml",
    ]);
    assert_eq!(removed(&sim), ["Pod/x/p", "ReplicaSet.apps/x/rs"]);
    assert!(trace(&sim).contains(&"Pod/x/p finalizer-removed example.com/cleanup".to_string()));
}

#[test]
fn kubernetes_deletes_what_a_namespace_holds_before_the_namespace() {
    let sim = simulate(&["--delete", "ns/shop", "--controller", "kubernetes", "fixtures/shop"]);
    let r = removed(&sim);
    assert_eq!(r.last(), Some(&"Namespace/shop"));
    // The same objects as the plan deletes.
    let (code, out, _) = run(&["plan", "--delete", "ns/shop", "-o", "refs", "fixtures/shop"]);
    assert_eq!(code, 0);
    let mut planned: Vec<&str> = out.lines().collect();
    let mut got = r.clone();
    planned.sort();
    got.sort();
    assert_eq!(got, planned);
}

/// `simulate --delete cm/a --controller kubernetes --cascade foreground FILE`.
fn foreground_of_a(file: &str) -> (i32, String, String) {
    run(&["simulate", "--delete", "cm/a", "--controller", "kubernetes", "--cascade", "foreground", file])
}

#[test]
fn a_deletion_that_never_finishes_names_what_waits_and_exits_1() {
    let (code, out, err) = foreground_of_a("fixtures/simulate/k8s-stuck.yaml");
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("stalled: ConfigMap/x/a waits forever for finalizer foregroundDeletion"), "{out}");
    assert!(!out.contains("ConfigMap/x/b  DELETE"), "the collector never deletes b: {out}");
    assert!(err.trim_end().ends_with("the deletion does not finish: 1 object waits forever (stalled, above)"), "{err}");
}

/// Issue 30: before, a foreground deletion of two objects that own and
/// block each other stalled; the collector unblocks the circle
/// (`attemptToDeleteItem`), and both go.
#[test]
fn a_foreground_circle_of_blocking_references_finishes() {
    let (code, out, err) = foreground_of_a("fixtures/simulate/k8s-cycle.yaml");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ConfigMap/x/b  makes its owner references non-blocking"), "{out}");
    assert!(out.contains("2 objects removed"), "{out}");
    assert!(!out.contains("stalled"), "{out}");
}
