//! `teardown plan`: cascade and order, on fixtures whose answers were worked
//! out by hand (fixtures/plan/, each file says what it models).

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{plan, run, s, steps, try_plan};
use serde_json::Value;

fn refs(v: &Value, key: &str) -> Vec<String> {
    v[key].as_array().unwrap().iter().map(|r| r["ref"].as_str().unwrap().to_string()).collect()
}

#[test]
fn deployment_replicasets_pods_in_three_steps() {
    let (code, v, _) = try_plan(&["--delete", "deployment/web", "fixtures/plan/deployment.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        steps(&v),
        s(&[
            &["Pod/prod/web-5d4f-c", "Pod/prod/web-6b7c-a", "Pod/prod/web-6b7c-b"],
            &["ReplicaSet.apps/prod/web-5d4f", "ReplicaSet.apps/prod/web-6b7c"],
            &["Deployment.apps/prod/web"],
        ])
    );
    let pod_c = &v["steps"][0]["resources"][0];
    assert_eq!(
        pod_c["reason"],
        "owned by ReplicaSet.apps/prod/web-5d4f; waits for finalizer kubernetes.io/pvc-protection-test"
    );
    assert_eq!(pod_c["waitsFor"], serde_json::json!(["kubernetes.io/pvc-protection-test"]));
    assert_eq!(v["steps"][2]["resources"][0]["reason"], "target");
    assert_eq!(v["targets"], serde_json::json!(["Deployment.apps/prod/web"]));
    // foreground and background give the same set and steps.
    let fg = plan(&["--delete", "deployment/web", "--cascade", "foreground", "fixtures/plan/deployment.yaml"]);
    assert_eq!(steps(&fg), steps(&v));
}

#[test]
fn orphan_deletes_only_the_target() {
    let (code, v, _) =
        try_plan(&["--delete", "deployment/web", "--cascade", "orphan", "fixtures/plan/deployment.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["Deployment.apps/prod/web"]]));
    assert_eq!(refs(&v, "orphaned"), ["ReplicaSet.apps/prod/web-5d4f", "ReplicaSet.apps/prod/web-6b7c"]);
    assert_eq!(v["orphaned"][0]["action"], "orphan");
    assert_eq!(v["orphaned"][0]["owner"], "Deployment.apps/prod/web");
}

#[test]
fn a_pod_with_two_owners_survives_under_all_and_goes_under_any() {
    let all = plan(&["--delete", "rs/left", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(steps(&all), s(&[&["ReplicaSet.apps/prod/left"]]));
    assert_eq!(refs(&all, "kept"), ["Pod/prod/shared"]);
    assert_eq!(all["kept"][0]["keptBy"], "ReplicaSet.apps/prod/right");
    assert_eq!(all["kept"][0]["reason"], "still owned by ReplicaSet.apps/prod/right");
    let any = plan(&["--delete", "rs/left", "--multi-owner", "any", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(steps(&any), s(&[&["Pod/prod/shared"], &["ReplicaSet.apps/prod/left"]]));
    assert_eq!(refs(&any, "kept"), Vec::<String>::new());
    // Deleting both owners deletes it under `all` too.
    let both = plan(&["--delete", "rs/left,rs/right", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(steps(&both), s(&[&["Pod/prod/shared"], &["ReplicaSet.apps/prod/left", "ReplicaSet.apps/prod/right"]]));
}

#[test]
fn deleting_what_a_controller_stays_to_recreate_is_a_warning() {
    let v = plan(&["--delete", "pod/web-6b7c-a", "fixtures/plan/deployment.yaml"]);
    assert_eq!(steps(&v), s(&[&["Pod/prod/web-6b7c-a"]]));
    assert_eq!(
        v["warnings"][0]["message"],
        "Pod/prod/web-6b7c-a is deleted but its controller ReplicaSet.apps/prod/web-6b7c stays and will recreate it"
    );
}

#[test]
fn murano_r_owns_a_owns_b() {
    let v = plan(&["--all", "fixtures/plan/murano-chain.yaml"]);
    assert_eq!(steps(&v), s(&[&["B"], &["A"], &["R"]]));
    assert_eq!(v["steps"][0]["resources"][0]["id"], "B");
}

#[test]
fn murano_network_after_both_vms() {
    let v = plan(&["--all", "fixtures/plan/murano-app.yaml"]);
    assert_eq!(steps(&v), s(&[&["VM1", "VM2"], &["Net"], &["App"]]));
}

#[test]
fn murano_child_destroyed_after_its_parent_relaxes_the_ownership_edge() {
    let (code, v, _) = try_plan(&["--all", "fixtures/plan/murano-child-after-parent.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["Parent"], &["Child"]]));
    assert_eq!(v["relaxed"], serde_json::json!([{"owner": "Parent", "dependent": "Child", "kind": "owns"}]));
    assert_eq!(v["warnings"][0]["rule"], "TD012");
}

/// Relaxing is local (CONTRACT §4, issue 32), in the native dialect: P
/// owns C owns G, C goes after P. Relaxing P owns C leaves P owning G: G,
/// P, C — before, G and P shared step 1 and `explain` said nothing must
/// go before P.
#[test]
fn native_relaxing_one_link_keeps_ownership_through_it() {
    let native = "resources:\n- id: p\n- id: c\n  owners: [p]\n  destroyAfter: [p]\n- id: g\n  owners: [c]\n";
    let (code, out, err) = common::run_stdin(&["plan", "--all", "-o", "json", "-"], native);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(steps(&v), s(&[&["g"], &["p"], &["c"]]));
    assert_eq!(v["relaxed"], serde_json::json!([{"owner": "p", "dependent": "c", "kind": "owns"}]));
    let (code, out, err) = common::run_stdin(&["explain", "id:p", "--all", "-"], native);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("why step 2:\n  p (step 2)\n  └ owns g through c (step 1)\n"), "{out}");
    let (_, out, _) = common::run_stdin(&["explain", "id:p", "--all", "-o", "json", "-"], native);
    let e: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["explanations"][0]["before"][0]["through"], "c");
    assert_eq!(e["explanations"][0]["before"][1]["ref"], "g");
}

#[test]
fn murano_destruction_cycle_is_one_step_and_one_warning() {
    let (code, v, _) = try_plan(&["--all", "fixtures/plan/murano-destruction-cycle.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["X", "Y", "Z"]]));
    assert_eq!(v["cycles"], serde_json::json!([{"kind": "destruction", "step": 1, "refs": ["X", "Y", "Z"]}]));
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["rule"], "TD008");
}

#[test]
fn depends_on_puts_the_dependent_first() {
    let v = plan(&["--all", "fixtures/plan/depends-on.yaml"]);
    assert_eq!(steps(&v), s(&[&["Deployment.apps/default/api"], &["Secret/default/api-token"]]));
    assert_eq!(v["steps"][0]["resources"][0]["reason"], "depends-on Secret/default/api-token");
}

#[test]
fn namespace_with_custom_resources() {
    // Carts first; then the CRD and the objects the Carts depend on; then
    // the Namespace, which contains them all.
    let v = plan(&["--all", "fixtures/plan/namespace-crd.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Cart.shop.example.com/shop/cart-1", "Cart.shop.example.com/shop/cart-2"],
            &[
                "ConfigMap/shop/cart-config",
                "CustomResourceDefinition.apiextensions.k8s.io/carts.shop.example.com",
                "Secret/shop/cart-credentials",
            ],
            &["Namespace/shop"],
        ])
    );
    // Deleting the Namespace takes everything in it, not the CRD.
    let ns = plan(&["--delete", "ns/shop", "fixtures/plan/namespace-crd.yaml"]);
    assert_eq!(
        steps(&ns),
        s(&[
            &["Cart.shop.example.com/shop/cart-1", "Cart.shop.example.com/shop/cart-2"],
            &["ConfigMap/shop/cart-config", "Secret/shop/cart-credentials"],
            &["Namespace/shop"],
        ])
    );
    assert_eq!(ns["steps"][0]["resources"][0]["reason"].as_str().unwrap().split(';').next(), Some("in Namespace/shop"));
    // Deleting the CRD takes its custom resources.
    let crd = plan(&["--delete", "crd/carts.shop.example.com", "fixtures/plan/namespace-crd.yaml"]);
    assert_eq!(
        steps(&crd),
        s(&[
            &["Cart.shop.example.com/shop/cart-1", "Cart.shop.example.com/shop/cart-2"],
            &["CustomResourceDefinition.apiextensions.k8s.io/carts.shop.example.com"],
        ])
    );
}

#[test]
fn finalizer_controllers_go_after_what_they_finalize() {
    let v = plan(&[
        "--all",
        "--finalizer-controller",
        "example.com/delete-bucket=deploy/data/bucket-operator",
        "fixtures/plan/finalizer.yaml",
    ]);
    assert_eq!(
        steps(&v),
        s(&[&["Bucket.example.com/data/logs"], &["Deployment.apps/data/bucket-operator"], &["Namespace/data"]])
    );
    assert_eq!(
        v["steps"][0]["resources"][0]["reason"],
        "waits for finalizer example.com/delete-bucket (removed by Deployment.apps/data/bucket-operator)"
    );
    // Without the flag nothing orders them: both go in step 1.
    let v = plan(&["--all", "fixtures/plan/finalizer.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[&["Bucket.example.com/data/logs", "Deployment.apps/data/bucket-operator"], &["Namespace/data"]])
    );
}

#[test]
fn a_finalizer_controller_in_a_destruction_cycle_with_its_object_is_flagged() {
    // The Bucket must also go after the operator: the two form a cycle and
    // share a step, where the operator may go first and leave it hanging.
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("f.yaml");
    std::fs::write(
        &p,
        "apiVersion: example.com/v1\nkind: Bucket\nmetadata:\n  name: logs\n  namespace: data\n  finalizers: [example.com/delete-bucket]\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: op\n  namespace: data\n  annotations:\n    config.kubernetes.io/depends-on: example.com/namespaces/data/Bucket/logs\n",
    )
    .unwrap();
    let (code, v, _) =
        try_plan(&["--all", "--finalizer-controller", "example.com/delete-bucket=deploy/op", &p.to_string_lossy()]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["Bucket.example.com/data/logs", "Deployment.apps/data/op"]]));
    let messages: Vec<&str> =
        v["warnings"].as_array().unwrap().iter().map(|w| w["message"].as_str().unwrap()).collect();
    assert!(messages.iter().any(|m| m.contains("the object hangs if the controller goes first")), "{messages:?}");
}

#[test]
fn a_finalizer_controller_its_object_owns_in_a_cycle_with_it_is_not_put_first() {
    // web owns db, db depends on web, db's controller removes web's
    // finalizer: ownership would split the cycle owned first (db, then web)
    // and web would hang (before: exit 1, "would hang"). One step, flagged.
    let fixture = "fixtures/plan/finalizer-cycle-owned.yaml";
    let (code, v, _) = try_plan(&[
        "--all",
        "--no-default-rules",
        "--finalizer-controller",
        "example.com/cleanup=ConfigMap/b/db",
        fixture,
    ]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(steps(&v), s(&[&["ConfigMap/b/db", "ConfigMap/b/web"]]));
    assert_eq!(v["cycles"][0]["refs"], serde_json::json!(["ConfigMap/b/db", "ConfigMap/b/web"]));
    assert_eq!(v["relaxed"], serde_json::json!([]));
    let messages: Vec<&str> =
        v["warnings"].as_array().unwrap().iter().map(|w| w["message"].as_str().unwrap()).collect();
    assert!(messages.iter().any(|m| m.contains("the object hangs if the controller goes first")), "{messages:?}");
    // Without the controller nothing contradicts the ownership: db, then web.
    let (code, v, _) = try_plan(&["--all", "--no-default-rules", fixture]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(steps(&v), s(&[&["ConfigMap/b/db"], &["ConfigMap/b/web"]]));
}

#[test]
fn gc_collects_what_has_no_solid_owner_and_what_is_being_deleted() {
    let (code, v, _) = try_plan(&["--gc", "fixtures/plan/gc.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["Pod/batch/old-1", "Pod/batch/report-old"], &["ReplicaSet.apps/batch/old"]]));
    let reasons: Vec<&str> =
        v["steps"][0]["resources"].as_array().unwrap().iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert_eq!(
        reasons,
        [
            "garbage: owner ReplicaSet.apps/batch/old is being deleted",
            "garbage: owner Job.batch/batch/report has another uid",
        ]
    );
    // An owner merely missing from the snapshot may be in the cluster: kept.
    assert_eq!(v["kept"][0]["ref"], "ConfigMap/batch/orphaned-config");
    assert_eq!(
        v["kept"][0]["reason"],
        "owner ConfigMap/batch/gone not in snapshot (the cluster may have it; see --closed-world)"
    );
    assert_eq!(v["kept"][0]["keptBy"], "ConfigMap/batch/gone");
    // The snapshot is the whole cluster: it is garbage.
    let (code, v, _) = try_plan(&["--gc", "--closed-world", "fixtures/plan/gc.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/batch/orphaned-config", "Pod/batch/old-1", "Pod/batch/report-old"],
            &["ReplicaSet.apps/batch/old"],
        ])
    );
    assert_eq!(
        v["steps"][0]["resources"][0]["reason"],
        "garbage: owner ConfigMap/batch/gone is not in the snapshot (--closed-world)"
    );
}

#[test]
fn gc_on_a_real_cluster_collects_the_pod_of_a_replaced_job() {
    // SOURCES.md: Pod marketing/github-stargazers-1645570800-2vrk4 points at
    // an earlier Job of the same name.
    let (code, v, _) = try_plan(&["--gc", "fixtures/realworld/kubernetes/kubevious-gke-large-cluster-2022-02.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["Pod/marketing/github-stargazers-1645570800-2vrk4"]]));
}

#[test]
fn an_ownership_cycle_is_an_error_unless_allowed() {
    let (code, out, err) = run(&["plan", "--all", "fixtures/check/td007-ownership-cycle.yaml"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains(
            "ownership cycle: ConfigMap/loop/a owns ConfigMap/loop/b owns ConfigMap/loop/c owns ConfigMap/loop/a"
        ),
        "{err}"
    );
    assert!(err.contains("remove the owner reference to ConfigMap/c from ConfigMap/loop/a"), "{err}");
    let (code, v, _) = try_plan(&["--all", "--allow-cycles", "fixtures/check/td007-ownership-cycle.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(steps(&v), s(&[&["ConfigMap/loop/a", "ConfigMap/loop/b", "ConfigMap/loop/c"]]));
    assert_eq!(v["cycles"][0]["kind"], "ownership");
}

#[test]
fn real_world_depends_on_orders_like_kpt() {
    // kpt's prune-depends-on test expects second-nginx pruned before
    // first-nginx, which it depends on.
    let v = plan(&["--all", "fixtures/realworld/dependson/kpt/e2e/testdata/live-apply/prune-depends-on/pre-apply"]);
    let order: Vec<String> = steps(&v).concat();
    let first = order.iter().position(|r| r.ends_with("/first-nginx")).unwrap();
    let second = order.iter().position(|r| r.ends_with("/second-nginx")).unwrap();
    assert!(second < first, "{order:?}");
    // wordpress depends on its database StatefulSet.
    let v = plan(&["--all", "fixtures/realworld/dependson/kpt/package-examples/wordpress-with-dependencies"]);
    let st = steps(&v);
    let step_of = |name: &str| st.iter().position(|s| s.iter().any(|r| r.ends_with(name))).unwrap();
    assert!(step_of("Deployment.apps/default/wordpress") < step_of("StatefulSet.apps/default/wordpress-mysql"));
}

#[test]
fn json_plan_has_the_contract_fields_and_pins_its_inputs() {
    let v = plan(&["--delete", "deployment/web", "fixtures/plan/deployment.yaml"]);
    for key in ["schemaVersion", "steps", "kept", "orphaned", "relaxed", "cycles", "warnings", "events", "inputs"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["schemaVersion"], 1);
    let r = &v["steps"][2]["resources"][0];
    for key in ["ref", "kind", "namespace", "name", "uid", "action", "reason"] {
        assert!(r.get(key).is_some(), "resource lacks {key}");
    }
    use sha2::Digest;
    let bytes = std::fs::read("fixtures/plan/deployment.yaml").unwrap();
    let digest: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(v["inputs"], serde_json::json!([{"path": "fixtures/plan/deployment.yaml", "sha256": digest}]));
    // The command that made it, for `apply` to make it again: the flags
    // given, in the order `plan` defines them, without the inputs.
    assert_eq!(v["command"], serde_json::json!(["plan", "--delete=deployment/web", "--output=json"]));
    // YAML is the same document (but for the format its command asks for).
    let (_, yaml, _) = run(&["plan", "-o", "yaml", "--delete", "deployment/web", "fixtures/plan/deployment.yaml"]);
    let mut y: Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(y["command"], serde_json::json!(["plan", "--delete=deployment/web", "--output=yaml"]));
    y["command"] = v["command"].clone();
    assert_eq!(y, v);
}

#[test]
fn names_are_in_plan_order() {
    let (code, out, _) = run(&["plan", "-o", "names", "--all", "fixtures/plan/murano-app.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(out, "VM1\nVM2\nNet\nApp\n");
}

#[test]
fn table_output_and_summary() {
    let (code, out, err) = run(&["plan", "--delete", "rs/left", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "STEP  ACTION  OBJECT                     REASON\n\
         1     delete  ReplicaSet.apps/prod/left  target\n\
         -     keep    Pod/prod/shared            still owned by ReplicaSet.apps/prod/right\n"
    );
    assert_eq!(err, "1 object in 1 step, 1 kept, 0 warnings\n");
}

#[test]
fn plan_dot_and_mermaid_cluster_by_step() {
    let (code, out, _) = run(&["plan", "-o", "dot", "--all", "fixtures/plan/murano-child-after-parent.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n  newrank=true;\n\
         \x20 subgraph cluster_step1 {\n    label=\"step 1\";\n    n0 [label=\"Parent\"];\n  }\n\
         \x20 subgraph cluster_step2 {\n    label=\"step 2\";\n    n1 [label=\"Child\"];\n  }\n\
         \x20 n0 -> n1 [style=invis, weight=10];\n\
         \x20 n1 -> n0 [label=\"owned by (relaxed)\", style=dashed, color=red, fontcolor=red];\n\
         \x20 n0 -> n1 [label=\"before\"];\n}\n"
    );
    if std::process::Command::new("dot").arg("-V").output().is_ok() {
        let mut child = std::process::Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(out.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    }
    let (_, out, _) = run(&["plan", "-o", "mermaid", "--all", "fixtures/plan/murano-chain.yaml"]);
    assert_eq!(
        out,
        "flowchart LR\n  subgraph step1[\"step 1\"]\n    n0[\"B\"]\n  end\n  subgraph step2[\"step 2\"]\n    n1[\"A\"]\n  end\n\
         \x20 subgraph step3[\"step 3\"]\n    n2[\"R\"]\n  end\n  n1 -->|owned by| n2\n  n0 -->|owned by| n1\n"
    );
}

#[test]
fn plan_refuses_input_it_cannot_parse() {
    let (code, out, err) = run(&["plan", "--all", "fixtures/check/td001-syntax-error-in-doc-3.yaml"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("no plan: input that cannot be read or used (1 TD001 finding above)"), "{err}");
}

#[test]
fn plan_needs_a_mode_and_a_matching_selector() {
    let (code, _, err) = run(&["plan", "fixtures/shop"]);
    assert_eq!(code, 2);
    assert!(err.contains("--delete"), "{err}");
    // -n and -l alone select now (issue 17: every object they match), so
    // clap names them among the ways to say what to plan; before, they
    // were refused without --delete ("-n/-l narrow --delete").
    assert!(err.contains("--namespace <NAMESPACE>|--selector <LABELS>"), "{err}");
    let (code, _, err) = run(&["plan", "--delete", "deploy/nope", "fixtures/shop"]);
    assert_eq!(code, 1);
    assert!(err.contains("selector `deploy/nope` matches nothing"), "{err}");
}

#[test]
fn explain_names_the_chains() {
    let (code, out, _) =
        run(&["explain", "-o", "json", "deploy/web", "--delete", "deploy/web", "fixtures/plan/deployment.yaml"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let e = &v["explanations"][0];
    assert_eq!((e["status"].as_str(), e["step"].as_u64(), e["steps"].as_u64()), (Some("deleted"), Some(3), Some(3)));
    let before: Vec<(&str, u64)> = e["before"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["ref"].as_str().unwrap(), l["step"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        before,
        // Of equal chains, the one through the object first in reference
        // order (not the relation written first: that follows the order
        // the inputs are read in, issue 19).
        [("Deployment.apps/prod/web", 3), ("ReplicaSet.apps/prod/web-5d4f", 2), ("Pod/prod/web-5d4f-c", 1)]
    );
    // Kept, orphaned, not in the plan.
    let (_, out, _) = run(&["explain", "pod/shared", "--delete", "rs/left", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(
        out,
        "Pod/prod/shared: kept, still owned by ReplicaSet.apps/prod/right\n  \
         deleting ReplicaSet.apps/prod/left does not take it, because another owner stays\n"
    );
    let (_, out, _) = run(&["explain", "svc/web", "--delete", "deploy/web", "fixtures/plan/deployment.yaml"]);
    assert_eq!(out, "Service/prod/web: not in the plan: it is not a target, and nothing deleted owns or contains it\n");
    // Without a mode, explain the plan of --all.
    let (_, out, _) = run(&["explain", "Child", "fixtures/plan/murano-child-after-parent.yaml"]);
    assert_eq!(
        out,
        "Child: deleted in step 2 of 2\n\nwhy it is deleted:\n  Child (everything in the input (--all))\n\n\
         why step 2:\n  Child (step 2)\n  └ is destroyed after Parent (step 1)\n"
    );
}

#[test]
fn prune_deletes_what_new_lacks_and_warns_about_what_comes_back() {
    // NEW has the Deployment and the Service: the ReplicaSets and Pods are
    // absent from it, Pods first; the Deployment stays and will recreate
    // the ReplicaSets.
    let (code, v, _) = try_plan(&["--prune", "fixtures/plan/prune-new.yaml", "fixtures/plan/deployment.yaml"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        steps(&v),
        [
            vec!["Pod/prod/web-5d4f-c", "Pod/prod/web-6b7c-a", "Pod/prod/web-6b7c-b"],
            vec!["ReplicaSet.apps/prod/web-5d4f", "ReplicaSet.apps/prod/web-6b7c"],
        ]
    );
    assert_eq!(v["mode"], "prune");
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2);
    assert!(warnings.iter().all(|w| w["message"].as_str().unwrap().contains("will recreate it")));
}
