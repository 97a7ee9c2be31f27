//! Real-world snapshots (fixtures/realworld/, see the SOURCES.md there).
//!
//! The expected counts were made by an independent reading of each file with
//! PyYAML: objects after expanding `*List`/`items:` wrappers and arrays;
//! `owns` = owner references whose uid (or, failing that, kind + name in the
//! dependent's namespace or the cluster scope) is in the file; `contains` =
//! namespaced objects whose Namespace is in the file; `defines` = objects
//! whose group and kind a CRD in the file defines. They agree with the
//! ownerRef counts of SOURCES.md; where SOURCES.md counts more objects it
//! counted list wrappers. `controller` (the cascades controllers perform
//! outside ownerReferences, read the same way): Services with Endpoints of
//! their namespace and name, Pods whose `spec.nodeName` is a Node of the
//! file, and volumes bound to a claim of the file (the claim their
//! `claimRef` names, uids agreeing and the claim naming no other volume;
//! else the one claim whose `volumeName` names them) — kubevious large:
//! 60 + 80 + 9, k3s 2022: 0 + 8 + 4, k3s baseline: 4 + 7 + 0, must-gather:
//! 1 + 0 + 0.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::check_json;
use serde_json::json;

fn summary(file: &str) -> (i32, serde_json::Value, Vec<(String, u64)>) {
    let (code, v) = check_json(&[&format!("fixtures/realworld/kubernetes/{file}")]);
    let findings = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap_or(0)))
        .collect();
    (code, v["summary"].clone(), findings)
}

fn counts(s: &serde_json::Value) -> (u64, u64, serde_json::Value) {
    (s["objects"].as_u64().unwrap(), s["edges"].as_u64().unwrap(), s["edgesByKind"].clone())
}

fn rules(f: &[(String, u64)]) -> Vec<&str> {
    f.iter().map(|(r, _)| r.as_str()).collect()
}

#[test]
fn kubevious_get_all_lists_are_consistent() {
    let (code, s, f) = summary("kubevious-gke-get-all-2020-04-02.yaml");
    assert_eq!(counts(&s), (346, 202, json!({"owns": 202})));
    assert!(f.is_empty());
    assert_eq!(code, 0);
    let (code, s, f) = summary("kubevious-gke-get-all-2020-04-08.yaml");
    assert_eq!(counts(&s), (358, 214, json!({"owns": 214})));
    assert!(f.is_empty());
    assert_eq!(code, 0);
}

#[test]
fn kubevious_large_cluster() {
    let (code, s, f) = summary("kubevious-gke-large-cluster-2022-02.yaml");
    assert_eq!(counts(&s), (1321, 1491, json!({"owns": 355, "contains": 826, "defines": 161, "controller": 149})));
    // SOURCES.md: three pairs of objects share a uid, one Pod points at an
    // earlier Job of the same name. (Its two GKE ingress finalizers are
    // known: GKE's built-in controllers.)
    assert_eq!(rules(&f), vec!["TD002", "TD002", "TD004", "TD002"]);
    assert_eq!(f[2], ("TD004".to_string(), 107853));
    assert_eq!(code, 1);
}

#[test]
fn argo_rollouts() {
    let (code, s, f) = summary("argo-rollouts-info-testdata.yaml");
    assert_eq!(counts(&s), (53, 47, json!({"owns": 47})));
    // Two test directories captured the same Rollout and ReplicaSet.
    assert_eq!(rules(&f), vec!["TD002", "TD002"]);
    assert_eq!(code, 1);
    let (code, s, f) = summary("argo-rollouts-canary-rollout-variants.yaml");
    assert_eq!(counts(&s), (6, 0, json!({})));
    // Six Rollouts with one uid: five duplicates of the first.
    assert_eq!(rules(&f), vec!["TD002"; 5]);
    assert_eq!(code, 1);
}

#[test]
fn troubleshoot_support_bundles() {
    let (code, s, f) = summary("troubleshoot-k3s-supportbundle-baseline.yaml");
    // `manages` (issue 35): objects whose Helm ownership annotations (not
    // hooks) name a HelmChart's release, or whose objectset owner
    // annotations name a HelmChart or Addon of the file, read with PyYAML:
    // baseline 68, 2022 45.
    assert_eq!(
        counts(&s),
        (375, 331, json!({"owns": 21, "contains": 215, "defines": 16, "controller": 11, "manages": 68}))
    );
    // Its finalizers are k3s's own controllers' (helm-controller, the node
    // controller): known, no TD011.
    assert_eq!(rules(&f), Vec::<&str>::new());
    assert_eq!(code, 0);
    let (code, s, f) = summary("troubleshoot-k3s-supportbundle-2022.yaml");
    // 12 CRDs in a list with no kind at all (line 10703) are read as CRDs
    // from their shape, each with a note (TD014), and define 15 custom
    // resources of the dump; the DaemonSet was not collected, so one Pod's
    // owner dangles (TD003).
    assert_eq!(
        counts(&s),
        (210, 150, json!({"owns": 13, "contains": 65, "defines": 15, "controller": 12, "manages": 45}))
    );
    assert_eq!(s["notes"], 12);
    let mut r = rules(&f);
    r.sort();
    let mut want = vec!["TD003"];
    want.extend(["TD014"; 12]);
    assert_eq!(r, want);
    assert_eq!(f.iter().find(|(r, _)| r == "TD014").map(|(_, line)| *line), Some(10708));
    assert_eq!(code, 0);
    let (code, out, err) = common::run(&[
        "plan",
        "--delete",
        "crd/addons.k3s.cattle.io",
        "-o",
        "refs",
        "fixtures/realworld/kubernetes/troubleshoot-k3s-supportbundle-2022.yaml",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("CustomResourceDefinition.apiextensions.k8s.io/addons.k3s.cattle.io"), "{out}");
}

/// No real-world Kubernetes dump needs `--skip-invalid`: every document of
/// every one is read.
#[test]
fn every_real_world_dump_plans_without_skipping() {
    for entry in std::fs::read_dir("fixtures/realworld/kubernetes").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let (code, _, err) =
                common::run(&["plan", "--all", "--allow-cycles", "-o", "refs", &path.to_string_lossy()]);
            assert!(!err.contains("TD001"), "{}: {err}", path.display());
            if path.ends_with("argo-rollouts-info-testdata.yaml") {
                // Two captures of one Rollout and ReplicaSet: which is current?
                assert_eq!(code, 1, "{}: {err}", path.display());
                assert!(err.contains("no plan: 2 objects are given twice with different content"), "{err}");
            } else {
                assert_eq!(code, 0, "{}: {err}", path.display());
            }
        }
    }
}

#[test]
fn must_gather_of_one_namespace() {
    let (code, s, f) = summary("redhatqe-must-gather-kube-system.yaml");
    assert_eq!(counts(&s), (22, 31, json!({"owns": 9, "contains": 21, "controller": 1})));
    // The cluster-scoped Network/cluster owner is not in a one-namespace dump.
    assert_eq!(f, vec![("TD003".to_string(), 6101)]);
    assert_eq!(code, 0);
    let (code, _) =
        check_json(&["--closed-world", "fixtures/realworld/kubernetes/redhatqe-must-gather-kube-system.yaml"]);
    assert_eq!(code, 1);
}

/// Each test case of fixtures/realworld/dependson: objects and depends-on
/// references resolved / not resolved, as counted in its SOURCES.md.
#[test]
fn depends_on_test_cases() {
    let cases = [
        ("kpt/package-examples/wordpress-with-dependencies", 4, 2, 0),
        ("kpt-config-sync/e2e/testdata/configsync-kcc/kcc", 6, 1, 0),
        ("kpt-functions-catalog/examples/set-namespace-depends-on", 4, 1, 2),
        ("kpt-functions-catalog/examples/ensure-name-substring-depends-on", 5, 2, 1),
        // SOURCES.md counts the setters ConfigMap, which kpt never applies
        // (config.kubernetes.io/local-config: "true"): a note, not an object.
        ("blueprints/catalog/log-export/folder", 4, 2, 0),
        ("blueprints/catalog/log-export/org", 4, 2, 0),
    ];
    for (dir, objects, resolved, unresolved) in cases {
        let (_, v) = check_json(&[&format!("fixtures/realworld/dependson/{dir}")]);
        assert_eq!(v["summary"]["objects"], objects, "{dir}");
        assert_eq!(v["summary"]["edgesByKind"]["destroy-after"].as_u64().unwrap_or(0), resolved, "{dir}");
        let td010 = v["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "TD010").count();
        assert_eq!(td010, unresolved, "{dir}");
    }
}
