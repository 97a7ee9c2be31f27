//! `teardown reconcile`: crd-reconciler's decision table (the seed document
//! "Reconciliation", CONTRACT §5). One test per row of the table, each on a
//! hand-made fixture (fixtures/reconcile/row-NN.yaml) where exactly that
//! row is the first match; then the order of the rules, several kinds
//! under one custom resource, the flags, and the refusals.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use common::run;
use serde_json::Value;

/// `teardown reconcile ARGS… -o json`: exit 0, the parsed report.
fn reconcile(args: &[&str]) -> Value {
    let mut all = vec!["reconcile", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"))
}

/// The only sub-resource of the only custom resource.
fn only_sub(report: &Value) -> &Value {
    let crs = report["customResources"].as_array().expect("customResources");
    assert_eq!(crs.len(), 1, "{report:#}");
    let subs = crs[0]["subResources"].as_array().expect("subResources");
    assert_eq!(subs.len(), 1, "{report:#}");
    &subs[0]
}

/// Row `row` is the first (and only) match on its fixture, with `action`
/// (and the state it sets); the custom resource's state change follows.
fn row(row: u8, extra: &[&str], action: &str, sets: Option<&str>) {
    let file = format!("fixtures/reconcile/row-{row:02}.yaml");
    let desired = format!("fixtures/reconcile/row-{row:02}-desired.yaml");
    let mut args = vec![file.as_str()];
    if std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(&desired).exists() {
        args.extend(["--desired", desired.as_str()]);
    }
    args.extend_from_slice(extra);
    let report = reconcile(&args);
    let sub = only_sub(&report);
    assert_eq!(sub["rule"]["row"], row, "{sub:#}");
    assert_eq!(sub["matched"], serde_json::json!([row]), "exactly row {row} matches: {sub:#}");
    assert_eq!(sub["action"], action, "{sub:#}");
    assert_eq!(sub["setState"].as_str(), sets, "{sub:#}");
    let change = &report["customResources"][0]["stateChange"];
    match sets {
        Some(state) => assert_eq!(change["to"], state, "{report:#}"),
        None => assert!(change.is_null(), "{report:#}"),
    }
}

#[test]
fn row_01_desired_failed_does_nothing() {
    row(1, &[], "nothing", None);
}

#[test]
fn row_02_status_failed_deletes() {
    row(2, &[], "delete", None);
}

#[test]
fn row_03_desired_pending_does_nothing() {
    row(3, &[], "nothing", None);
}

#[test]
fn row_04_status_completed_deletes() {
    row(4, &[], "delete", None);
}

#[test]
fn row_05_deleting_custom_resource_deletes() {
    row(5, &[], "delete", None);
}

#[test]
fn row_06_absent_custom_resource_deletes() {
    row(6, &["--kind", "stream"], "delete", None);
    let report = reconcile(&["fixtures/reconcile/row-06.yaml", "--kind", "Stream.example.com"]);
    let cr = &report["customResources"][0];
    assert_eq!(cr["ref"], "Stream.example.com/ml/s");
    assert_eq!((cr["exists"].as_bool(), cr["desired"].as_str()), (Some(false), Some("DoesNotExist")));
    assert_eq!(cr["absence"], "not-in-snapshot");
}

#[test]
fn row_07_pending_sub_resource_of_running_resource_sets_pending() {
    row(7, &[], "set-state", Some("Pending"));
}

#[test]
fn row_08_running_sub_resource_of_pending_resource_sets_running() {
    row(8, &[], "set-state", Some("Running"));
}

#[test]
fn row_09_ephemeral_spec_mismatch_updates() {
    row(9, &[], "update", None);
    let report = reconcile(&["fixtures/reconcile/row-09.yaml", "--desired", "fixtures/reconcile/row-09-desired.yaml"]);
    let sub = only_sub(&report);
    assert_eq!(sub["spec"], "mismatch");
    assert_eq!(sub["specMismatch"], serde_json::json!({"path": "data.model", "live": "\"a\"", "desired": "\"b\""}));
}

#[test]
fn row_10_non_ephemeral_spec_mismatch_fails_the_resource() {
    row(10, &[], "set-state", Some("Failed"));
}

#[test]
fn row_11_ephemeral_sub_resource_being_deleted_is_left_alone() {
    row(11, &[], "nothing", None);
}

#[test]
fn row_12_non_ephemeral_sub_resource_being_deleted_fails_the_resource() {
    row(12, &[], "set-state", Some("Failed"));
}

#[test]
fn row_13_missing_ephemeral_sub_resource_is_recreated() {
    row(13, &[], "recreate", None);
    let sub = only_sub(&reconcile(&[
        "fixtures/reconcile/row-13.yaml",
        "--desired",
        "fixtures/reconcile/row-13-desired.yaml",
    ]))
    .clone();
    assert_eq!((sub["ref"].as_str(), sub["state"].as_str()), (Some("Service/ml/s-svc"), Some("DoesNotExist")));
}

#[test]
fn row_14_missing_non_ephemeral_sub_resource_fails_a_running_resource() {
    row(14, &[], "set-state", Some("Failed"));
}

#[test]
fn row_15_failed_ephemeral_sub_resource_is_recreated() {
    row(15, &[], "recreate", None);
}

#[test]
fn row_16_failed_non_ephemeral_sub_resource_fails_the_resource() {
    row(16, &[], "set-state", Some("Failed"));
}

#[test]
fn row_17_completed_sub_resource_of_running_resource_does_nothing() {
    row(17, &[], "nothing", None);
}

#[test]
fn row_18_completed_sub_resource_completes_the_resource() {
    row(18, &[], "set-state", Some("Completed"));
}

#[test]
fn the_first_matching_row_wins() {
    // Desired and status both Failed: rows 1 and 2 match, row 1 decides.
    let sub = only_sub(&reconcile(&["fixtures/reconcile/failed-and-failed.yaml"])).clone();
    assert_eq!(sub["matched"], serde_json::json!([1, 2]));
    assert_eq!((sub["rule"]["row"].as_u64(), sub["action"].as_str()), (Some(1), Some("nothing")));
    // Desired Running, status Completed, a Pod being deleted: rows 4 and
    // 11 match, row 4 decides: delete.
    let sub = only_sub(&reconcile(&["fixtures/reconcile/completed-deleting.yaml"])).clone();
    assert_eq!(sub["matched"], serde_json::json!([4, 11]));
    assert_eq!((sub["rule"]["row"].as_u64(), sub["action"].as_str()), (Some(4), Some("delete")));
    // The table shows the row that fired, the others that matched, and its text.
    let (code, out, _) = run(&["reconcile", "fixtures/reconcile/completed-deleting.yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("4 (also 11)  delete sub-resource"), "{out}");
    assert!(out.contains("4    *           Completed  *                           Delete sub-resource."), "{out}");
}

#[test]
fn each_sub_resource_gets_its_own_action() {
    let report = reconcile(&["fixtures/reconcile/several-kinds.yaml"]);
    let cr = &report["customResources"][0];
    let got: Vec<(String, Value, String)> = cr["subResources"]
        .as_array()
        .expect("subs")
        .iter()
        .map(|s| {
            (
                s["ref"].as_str().unwrap_or("").to_string(),
                s["rule"]["row"].clone(),
                s["action"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want = [
        ("ConfigMap/ml/s-config", Value::Null, "nothing"),
        ("Deployment.apps/ml/s-web", 7.into(), "set-state"),
        ("Job.batch/ml/s-train", 16.into(), "set-state"),
        ("Pod/ml/s-worker", 15.into(), "recreate"),
        ("Service/ml/s-svc", 11.into(), "nothing"),
    ];
    let want: Vec<(String, Value, String)> =
        want.iter().map(|(r, n, a)| (r.to_string(), n.clone(), a.to_string())).collect();
    assert_eq!(got, want);
    // Failed (Job, row 16) wins over Pending (Deployment, row 7).
    assert_eq!(
        cr["stateChange"],
        serde_json::json!({"from": "Running", "to": "Failed", "askedBy": ["Job.batch/ml/s-train"], "overruled": ["Deployment.apps/ml/s-web"]})
    );
}

#[test]
fn ephemeral_kinds_can_be_changed() {
    // A failed Pod is recreated (row 15); not ephemeral, it fails the resource (row 16).
    let sub = only_sub(&reconcile(&["fixtures/reconcile/row-15.yaml", "--non-ephemeral", "pods"])).clone();
    assert_eq!((sub["rule"]["row"].as_u64(), sub["ephemeral"].as_bool()), (Some(16), Some(false)));
    // A Deployment being deleted fails the resource (row 12); ephemeral, it is left alone (row 11).
    let sub = only_sub(&reconcile(&["fixtures/reconcile/row-12.yaml", "--ephemeral", "deploy"])).clone();
    assert_eq!((sub["rule"]["row"].as_u64(), sub["ephemeral"].as_bool()), (Some(11), Some(true)));
    // Both for one kind is refused before any input is read.
    let (code, _, err) = run(&["reconcile", "no-such-file.yaml", "--ephemeral", "pod", "--non-ephemeral", "pods"]);
    assert_eq!(code, 2);
    assert!(err.contains("--ephemeral pod and --non-ephemeral pods name the same kind"), "{err}");
}

#[test]
fn kinds_are_found_or_named() {
    // Without --kind, the kinds with a spec.state are the custom resources';
    // with --kind, only those.
    let report = reconcile(&["fixtures/reconcile/row-16.yaml", "--kind", "streams"]);
    assert_eq!(report["customResources"][0]["ref"], "Stream.example.com/ml/s");
    // A --kind that names nothing is an error, with the closest kinds.
    let (code, _, err) = run(&["reconcile", "fixtures/reconcile/row-16.yaml", "--kind", "Streem.example.com"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`--kind Streem.example.com` matches nothing; closest: Stream.example.com"), "{err}");
    // A kind without its group is ranked as selectors rank kinds (before:
    // compared with `Kind.group`, it suggested nothing).
    let (code, _, err) = run(&["reconcile", "fixtures/reconcile/row-16.yaml", "--kind", "streem"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`--kind streem` matches nothing; closest: Stream.example.com"), "{err}");
    // No custom resource at all: said, exit 0, empty report.
    let (code, out, err) = run(&["reconcile", "fixtures/shop", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("no custom resources: no object has a spec.state"), "{err}");
    let report: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(report["customResources"], serde_json::json!([]));
}

#[test]
fn a_state_that_is_not_one_is_refused_at_its_line() {
    let (code, out, err) = run(&["reconcile", "fixtures/reconcile/not-a-state.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(err.contains("Stream.example.com/ml/s has a spec.state that is not a state"), "{err}");
    assert!(err.contains("fixtures/reconcile/not-a-state.yaml:9:3"), "{err}");
    assert!(err.contains("name those kinds with --kind"), "{err}");
}

#[test]
fn two_controllers_are_refused() {
    let (code, _, err) = run(&["reconcile", "fixtures/reconcile/two-controllers.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("TD009"), "{err}");
    assert!(err.contains("Pod/ml/shared has more than one controller reference to a custom resource"), "{err}");
    assert!(err.contains("two-controllers.yaml:17:9"), "{err}");
}

#[test]
fn another_incarnation_is_a_resource_that_does_not_exist() {
    let report = reconcile(&["fixtures/reconcile/other-incarnation.yaml"]);
    let crs = report["customResources"].as_array().expect("crs");
    assert_eq!(crs.len(), 2, "{report:#}");
    assert_eq!((crs[0]["exists"].as_bool(), crs[0]["subResources"].as_array().map(Vec::len)), (Some(true), Some(0)));
    assert_eq!(crs[1]["absence"], "uid-mismatch");
    assert_eq!(crs[1]["subResources"][0]["rule"]["row"], 6);
}

#[test]
fn states_are_read_from_status_as_documented() {
    let report = reconcile(&["fixtures/reconcile/several-kinds.yaml"]);
    let from: Vec<(&str, &str)> = report["customResources"][0]["subResources"]
        .as_array()
        .expect("subs")
        .iter()
        .map(|s| (s["state"].as_str().unwrap_or(""), s["stateFrom"].as_str().unwrap_or("-")))
        .collect();
    assert_eq!(
        from,
        [
            ("Running", "exists"),
            ("Pending", "not Available"),
            ("Failed", "condition Failed"),
            ("Failed", "phase Failed"),
            ("Deleting", "-"),
        ]
    );
}

#[test]
fn the_same_input_gives_the_same_bytes_in_any_file_order() {
    let a = run(&["reconcile", "fixtures/reconcile/row-16.yaml", "fixtures/reconcile/row-06.yaml", "--kind", "stream"]);
    let b = run(&["reconcile", "fixtures/reconcile/row-06.yaml", "fixtures/reconcile/row-16.yaml", "--kind", "stream"]);
    assert_eq!(a.0, 0, "{}", a.2);
    assert_eq!(a, b);
}

#[test]
fn a_desired_object_under_no_custom_resource_is_said_and_ignored() {
    let (code, out, err) = run(&[
        "reconcile",
        "fixtures/reconcile/row-13.yaml",
        "--desired",
        "fixtures/reconcile/desired-unplaced.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "--desired ConfigMap/ml/loose is not in INPUT and has no controller reference to a custom resource"
        ),
        "{err}"
    );
    let report: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(report["desiredWithoutCustomResource"], serde_json::json!(["ConfigMap/ml/loose"]));
    assert_eq!(only_sub(&report)["rule"]["row"], 13);
}
