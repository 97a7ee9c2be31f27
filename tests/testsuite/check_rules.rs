//! One fixture per rule (fixtures/check/), each producing exactly its
//! finding at the line and column worked out by hand from the fixture text.

use crate::common;
use common::{check_json, f, findings};

#[test]
fn td001_object_without_kind() {
    let (code, r) = check_json(&["fixtures/check/td001-no-kind.yaml"]);
    assert_eq!(findings(&r), vec![f("TD001", "error", 7, 1)]);
    assert_eq!(r["findings"][0]["message"], "object has no `kind`");
    assert_eq!(code, 2, "an unusable object exits 2, as it stops a plan (README: Exit codes)");
}

#[test]
fn td001_syntax_error_in_document_3_of_5() {
    let (code, r) = check_json(&["fixtures/check/td001-syntax-error-in-doc-3.yaml"]);
    // Documents 1, 2, 4 and 5 still report their dangling owners (TD003);
    // the third reports where YAML stops making sense: `namespace:` on line 22.
    assert_eq!(
        findings(&r),
        vec![
            f("TD003", "warning", 8, 64),
            f("TD003", "warning", 16, 64),
            f("TD001", "error", 22, 14),
            f("TD003", "warning", 30, 64),
            f("TD003", "warning", 38, 64),
        ]
    );
    assert_eq!(r["findings"][2]["file"], "fixtures/check/td001-syntax-error-in-doc-3.yaml");
    assert!(r["findings"][2]["message"].as_str().unwrap().starts_with("YAML: mapping values are not allowed"));
    assert_eq!(code, 2, "a parse error exits 2");
    assert_eq!(r["summary"]["objects"], 4);
}

#[test]
fn td002_duplicate_by_name() {
    let (code, r) = check_json(&["fixtures/check/td002-duplicate.yaml"]);
    assert_eq!(findings(&r), vec![f("TD002", "error", 11, 9)]);
    let labels = &r["findings"][0]["labels"];
    assert_eq!((labels[0]["line"].as_u64(), labels[0]["text"].as_str()), (Some(11), Some("again here")));
    assert_eq!((labels[1]["line"].as_u64(), labels[1]["text"].as_str()), (Some(4), Some("first defined here")));
    assert_eq!(code, 1);
}

#[test]
fn td002_duplicate_by_uid() {
    let (code, r) = check_json(&["fixtures/check/td002-same-uid.yaml"]);
    assert_eq!(findings(&r), vec![f("TD002", "error", 11, 9)]);
    assert_eq!(
        r["findings"][0]["message"],
        "Secret/shop/token has the same uid as ConfigMap/shop/settings (11111111-0000-0000-0000-000000000001)"
    );
    assert_eq!(code, 1);
}

#[test]
fn td003_owner_not_in_snapshot_is_a_warning_unless_closed_world() {
    let (code, r) = check_json(&["fixtures/check/td003-owner-missing.yaml"]);
    assert_eq!(findings(&r), vec![f("TD003", "warning", 11, 10)]);
    assert_eq!(code, 0);
    let (code, r) = check_json(&["--closed-world", "fixtures/check/td003-owner-missing.yaml"]);
    assert_eq!(findings(&r), vec![f("TD003", "error", 11, 10)]);
    assert_eq!(code, 1);
}

#[test]
fn td004_owner_uid_mismatch() {
    let (code, r) = check_json(&["fixtures/check/td004-uid-mismatch.yaml"]);
    assert_eq!(findings(&r), vec![f("TD004", "error", 18, 10)]);
    assert_eq!(r["findings"][0]["labels"][1]["line"], 4, "second label on the owner of that name");
    assert_eq!(code, 1);
}

#[test]
fn td005_cross_namespace_owner() {
    let (code, r) = check_json(&["fixtures/check/td005-cross-namespace.yaml"]);
    assert_eq!(findings(&r), vec![f("TD005", "error", 18, 10)]);
    assert_eq!(
        r["findings"][0]["refs"],
        serde_json::json!(["ConfigMap/team-b/api-config", "Deployment.apps/team-a/api"])
    );
    assert_eq!(code, 1);
}

#[test]
fn td006_cluster_scoped_dependent_of_namespaced_owner() {
    let (code, r) = check_json(&["fixtures/check/td006-cluster-scoped-dependent.yaml"]);
    assert_eq!(findings(&r), vec![f("TD006", "error", 17, 10)]);
    assert_eq!(code, 1);
}

#[test]
fn td007_ownership_cycle_names_every_edge() {
    let (code, r) = check_json(&["fixtures/check/td007-ownership-cycle.yaml"]);
    assert_eq!(findings(&r), vec![f("TD007", "error", 8, 53)]);
    let finding = &r["findings"][0];
    assert_eq!(
        finding["message"],
        "ownership cycle: ConfigMap/loop/a owns ConfigMap/loop/b owns ConfigMap/loop/c owns ConfigMap/loop/a"
    );
    let lines: Vec<u64> = finding["labels"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
    // The finding points at the edge written first (a's ownerReference to c,
    // line 8); then the others in cycle order: a owns b (b's reference, line
    // 17), b owns c (c's reference, line 26).
    assert_eq!(lines, vec![8, 17, 26]);
    assert_eq!(code, 1);
}

#[test]
fn td008_destruction_cycle_is_a_warning() {
    let (code, r) = check_json(&["fixtures/check/td008-destruction-cycle.yaml"]);
    assert_eq!(findings(&r), vec![f("TD008", "warning", 7, 38)]);
    assert_eq!(
        r["findings"][0]["message"],
        "destruction-dependency cycle: ConfigMap/default/x goes after ConfigMap/default/z goes after ConfigMap/default/x"
    );
    assert_eq!(code, 0);
    let (code, _) = check_json(&["--deny", "warnings", "fixtures/check/td008-destruction-cycle.yaml"]);
    assert_eq!(code, 1, "--deny warnings makes it an error");
}

#[test]
fn td009_two_controllers() {
    let (code, r) = check_json(&["fixtures/check/td009-two-controllers.yaml"]);
    assert_eq!(findings(&r), vec![f("TD009", "error", 30, 10)]);
    assert_eq!(r["findings"][0]["labels"][1]["line"], 25);
    assert_eq!(code, 1);
}

#[test]
fn td010_dependency_not_in_snapshot() {
    let (code, r) = check_json(&["fixtures/check/td010-dependency-missing.yaml"]);
    assert_eq!(findings(&r), vec![f("TD010", "error", 7, 38)]);
    assert_eq!(code, 1);
}

#[test]
fn td011_unknown_finalizer_and_its_controller() {
    let (code, r) = check_json(&["fixtures/check/td011-unknown-finalizer.yaml"]);
    assert_eq!(findings(&r), vec![f("TD011", "warning", 7, 5)]);
    assert_eq!(code, 0);
    let (code, r) = check_json(&[
        "--finalizer-controller",
        "example.com/delete-bucket=deployment/ops/bucket-operator",
        "fixtures/check/td011-unknown-finalizer.yaml",
    ]);
    assert_eq!(findings(&r), vec![]);
    assert_eq!(code, 0);
    // A controller selector that matches nothing is an error.
    let (code, _, err) = common::run(&[
        "check",
        "--finalizer-controller",
        "example.com/delete-bucket=deployment/ops/bucket-operatr",
        "fixtures/check/td011-unknown-finalizer.yaml",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("closest: Deployment.apps/ops/bucket-operator"), "{err}");
}

#[test]
fn td013_empty_files() {
    // Beside a file with objects: a warning each.
    let (code, r) = check_json(&[
        "fixtures/check/td013-empty.yaml",
        "fixtures/check/td013-comments-only.yaml",
        "fixtures/formats/native.yaml",
    ]);
    assert_eq!(findings(&r), vec![f("TD013", "warning", 1, 1), f("TD013", "warning", 1, 1)]);
    // In path order, whatever order the files are named in (issue 19).
    assert_eq!(r["findings"][0]["file"], "fixtures/check/td013-comments-only.yaml");
    assert_eq!(r["findings"][1]["file"], "fixtures/check/td013-empty.yaml");
    assert_eq!(code, 0);
    // Alone, no object in any input: an error (exit 2, issue 37).
    let (code, out, err) =
        common::run(&["check", "fixtures/check/td013-empty.yaml", "fixtures/check/td013-comments-only.yaml"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("no object in `fixtures/check/td013-comments-only.yaml`, `fixtures/check/td013-empty.yaml`"),
        "{err}"
    );
}

#[test]
fn valid_snapshot_exits_0_with_a_one_line_summary() {
    let (code, out, _) = common::run(&[
        "check",
        "--finalizer-controller",
        "shop.example.com/checkout=statefulset/shop/db",
        "fixtures/shop",
    ]);
    assert_eq!(code, 0);
    assert_eq!(out, "checked 5 files: 12 objects, 17 edges; no findings\n");
}

#[test]
fn owners_kubernetes_ignores_make_no_ownership_cycle() {
    // a (namespace x) and b (namespace z) name each other as owners by uid:
    // both links cross namespaces (TD005), which Kubernetes treats as absent.
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("x.yaml");
    std::fs::write(
        &p,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  uid: ua\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: b, uid: ub}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: z\n  uid: ub\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: a, uid: ua}\n",
    )
    .unwrap();
    let (_, r) = check_json(&[&p.to_string_lossy()]);
    let rules: Vec<String> = findings(&r).into_iter().map(|f| f.0).collect();
    assert_eq!(rules, ["TD005", "TD005"]);
}

#[test]
fn the_reported_cycle_is_the_shortest() {
    // a owns b, c owns a, c owns b, b owns c: b ↔ c is the shortest cycle.
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.yaml");
    std::fs::write(&p, "resources:\n- {id: a, owners: [c]}\n- {id: b, owners: [a, c]}\n- {id: c, owners: [b]}\n")
        .unwrap();
    let (code, r) = check_json(&[&p.to_string_lossy()]);
    assert_eq!(code, 1);
    assert_eq!(
        r["findings"][0]["message"],
        "ownership cycle: b owns c owns b (one cycle of a group of 3 objects that depend on each other)"
    );
}

#[test]
fn td012_ordering_conflict() {
    let (code, r) = check_json(&["fixtures/check/td012-ordering-conflict.yaml"]);
    assert_eq!(findings(&r), vec![f("TD012", "warning", 6, 12)]);
    assert_eq!(
        r["findings"][0]["message"],
        "ordering conflict: child is destroyed after parent (a destruction dependency), but parent owns it; the ownership edge parent owns child is relaxed"
    );
    assert_eq!(code, 0);
}

#[test]
fn td017_owner_references_the_collector_cannot_resolve() {
    let (code, r) = check_json(&["fixtures/check/td017-unresolvable-owner.yaml"]);
    // The uid values of the two references: line 22 and line 34, column 10.
    assert_eq!(findings(&r), vec![f("TD017", "error", 22, 10), f("TD017", "error", 34, 10)]);
    assert_eq!(
        r["findings"][0]["message"],
        "Pod/td017/api-5f6b-xyz12: the garbage collector cannot resolve owner v1 ReplicaSet/api-5f6b: the core group (v1) has no kind ReplicaSet"
    );
    assert_eq!(
        r["findings"][1]["message"],
        "Pod/td017/legacy: the garbage collector cannot resolve owner extensions/v1beta1 Deployment/legacy: Kubernetes no longer serves Deployment at extensions/v1beta1 (removed in 1.16)"
    );
    // Not TD004 (the first reference's uid is the ReplicaSet's) nor TD003:
    // the collector never looks the owner up.
    assert_eq!(code, 1);
}
