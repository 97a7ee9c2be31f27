//! Krake resources (issue 13): the dialect, owners as ResourceRefs, the
//! collector's `any` rule, `plan --gc` through `cascade_deletion`, cycles,
//! and the real bootstrap files.

use crate::common;
use common::{check_json, kept, plan, run, s, steps};
use serde_json::Value;

#[test]
fn deleting_a_cluster_takes_its_application_first() {
    let p = plan(&["--delete", "cluster/testing/C", "fixtures/krake/app-on-cluster.yaml"]);
    assert_eq!(steps(&p), s(&[&["Application.kubernetes/testing/A"], &["Cluster.kubernetes/testing/C"]]));
    assert_eq!(p["multiOwner"], "any");
}

#[test]
fn deleting_b_marks_only_b_and_d_and_e_keeps_its_owner() {
    let p = plan(&["--delete", "role/team/B", "fixtures/krake/tree.yaml"]);
    assert_eq!(steps(&p), s(&[&["RoleBinding.core/team/D"], &["Role.core/team/B"]]));
    // E is not touched: its owner C stays.
    let (code, out, _) = run(&["graph", "-o", "json", "fixtures/krake/tree.yaml"]);
    assert_eq!(code, 0);
    let g: Value = serde_json::from_str(&out).unwrap();
    let edges = g["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["from"] == "Role.core/team/C" && e["to"] == "RoleBinding.core/team/E"), "{edges:?}");
}

#[test]
fn a_chain_is_removed_leaves_first() {
    let p = plan(&["--delete", "application/upper", "fixtures/krake/chain.json"]);
    assert_eq!(
        steps(&p),
        s(&[
            &["Application.kubernetes/p/lower"],
            &["Application.kubernetes/p/middle"],
            &["Application.kubernetes/p/upper"]
        ])
    );
}

#[test]
fn a_resource_with_two_owners_goes_with_either() {
    for cluster in ["cluster/c1", "cluster/c2"] {
        let p = plan(&["--delete", cluster, "fixtures/krake/two-clusters.yaml"]);
        assert_eq!(steps(&p)[0], vec!["Application.kubernetes/p/web".to_string()], "{cluster}");
        assert!(kept(&p).is_empty());
    }
    // --multi-owner all keeps it while the other cluster stays.
    let p = plan(&["--delete", "cluster/c1", "--multi-owner", "all", "fixtures/krake/two-clusters.yaml"]);
    assert_eq!(steps(&p), s(&[&["Cluster.kubernetes/p/c1"]]));
    assert_eq!(
        kept(&p),
        vec![("Application.kubernetes/p/web".to_string(), "still owned by Cluster.kubernetes/p/c2".to_string())]
    );
}

#[test]
fn resources_without_a_namespace_work_like_the_others() {
    let p = plan(&["--delete", "globalmetricsprovider/prometheus", "fixtures/krake/two-clusters.yaml"]);
    assert_eq!(steps(&p), s(&[&["GlobalMetric.core/heat-demand"], &["GlobalMetricsProvider.core/prometheus"]]));
    let r = &p["steps"][0]["resources"][0];
    assert_eq!(r["namespace"], Value::Null);
}

#[test]
fn gc_follows_cascade_deletion_and_leaves_dangling_owners_alone() {
    let p = plan(&["--gc", "fixtures/krake/gc.yaml"]);
    assert_eq!(
        steps(&p),
        s(&[
            &["Application.kubernetes/p/app-1", "Application.kubernetes/p/app-2", "Cluster.kubernetes/p/old-c"],
            &["Cluster.kubernetes/p/gone-c"]
        ])
    );
    let gone = &p["steps"][1]["resources"][0];
    assert_eq!(gone["reason"], "being deleted (deleted is set)");
    // old-c's collector is done with it: app-x stays, and the plan says why.
    assert_eq!(
        kept(&p),
        vec![(
            "Application.kubernetes/p/app-x".to_string(),
            "owner Cluster.kubernetes/p/old-c is being deleted without cascade_deletion: its collector is done with it and deletes no dependent".to_string()
        )]
    );
    let x = &p["kept"][0]["reasons"][0];
    assert_eq!((x["type"].as_str(), x["ref"].as_str()), (Some("collector-done"), Some("Cluster.kubernetes/p/old-c")));
    // Even in a closed world: Krake's collector only follows deletions.
    let p = plan(&["--gc", "--closed-world", "fixtures/krake/gc.yaml"]);
    let all: Vec<String> = steps(&p).concat();
    assert!(!all.iter().any(|r| r.ends_with("orphan-app") || r.ends_with("app-x")), "{all:?}");
}

#[test]
fn a_dependency_cycle_is_td007_and_stops_the_plan() {
    let (code, report) = check_json(&["fixtures/krake/cycle.yaml"]);
    assert_eq!(code, 1);
    let rules: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["TD007"]);
    let (code, _, err) = run(&["plan", "--delete", "application/a", "fixtures/krake/cycle.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ownership cycle: Application.kubernetes/p/a owns Application.kubernetes/p/b"), "{err}");
}

#[test]
fn the_real_bootstrap_files_load_as_krake_resources_without_findings() {
    for (file, kinds) in [
        ("base_roles.yaml", vec![("Role", 9), ("RoleBinding", 9)]),
        ("prometheus_metrics.yaml", vec![("GlobalMetric", 6), ("GlobalMetricsProvider", 1)]),
        ("static_metrics.yaml", vec![("GlobalMetric", 2), ("GlobalMetricsProvider", 1)]),
    ] {
        let path = format!("fixtures/realworld/krake/{file}");
        let (code, report) = check_json(&[&path]);
        assert_eq!(code, 0, "{file}: {report}");
        assert_eq!(report["findings"].as_array().unwrap().len(), 0, "{file}: {report}");
        let (code, out, err) = run(&["graph", "-o", "json", &path]);
        assert_eq!(code, 0, "{err}");
        let g: Value = serde_json::from_str(&out).unwrap();
        let nodes = g["nodes"].as_array().unwrap();
        for (kind, n) in kinds {
            let of_kind: Vec<&Value> = nodes.iter().filter(|o| o["kind"] == kind).collect();
            assert_eq!(of_kind.len(), n, "{file}: {kind}");
            assert!(of_kind.iter().all(|o| o["group"] == "core"), "{file}: {of_kind:?}");
        }
        // Read as Kubernetes objects they would be unusable: they are Krake's.
        let (code, report) = check_json(&["--dialect", "kubernetes", &path]);
        assert_eq!(code, 2, "{file}: unusable input exits 2, as it does a plan");
        assert!(report["findings"].as_array().unwrap().iter().all(|f| f["rule"] == "TD001"), "{file}");
    }
}

#[test]
fn an_owner_written_as_a_string_is_refused_at_its_line() {
    let input =
        "api: kubernetes\nkind: Application\nmetadata:\n  name: a\n  owners: [/kubernetes/namespaces/p/clusters/c]\n";
    let (code, out, err) = common::run_stdin(&["check", "-o", "json", "-"], input);
    assert_eq!(code, 2, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let f = &report["findings"][0];
    assert_eq!(f["rule"], "TD001");
    assert_eq!(f["line"], 5);
    assert!(f["message"].as_str().unwrap().contains("is a string"), "{f}");
}

#[test]
fn a_kubernetes_object_with_api_for_apiversion_is_not_read_as_krake() {
    let input = "api: v1\nkind: ConfigMap\nmetadata: {name: x}\n";
    let (code, out, err) = common::run_stdin(&["check", "-o", "json", "-"], input);
    assert_eq!(code, 2, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["findings"][0]["rule"], "TD001");
    assert!(report["findings"][0]["message"].as_str().unwrap().contains("apiVersion"), "{report}");
}

#[test]
fn krake_cannot_orphan_and_plan_says_so() {
    let (code, out, err) =
        run(&["plan", "--delete", "cluster/testing/C", "--cascade", "orphan", "fixtures/krake/app-on-cluster.yaml"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("--cascade orphan: Cluster.kubernetes/testing/C is read by the krake dialect"), "{err}");
}
