//! Duplicates (TD002) that cannot change a plan do not block it; one that
//! could still refuses it (issue 38, item 4). The rule is in
//! `src/analysis/duplicates.rs`; `tests/props/duplicates_set_aside.rs`
//! checks that such a plan is the plan of either copy.

use crate::common::{run, steps, try_plan};
use serde_json::Value;

const ARGO: &str = "fixtures/realworld/kubernetes/argo-rollouts-info-testdata.yaml";
const APART: &str = "fixtures/duplicates/apart.yaml";

/// The plan's TD002 warnings: their messages.
fn td002(plan: &Value) -> Vec<String> {
    plan["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["rule"] == "TD002")
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

/// The Argo Rollouts test data holds two Rollouts and their ReplicaSets;
/// `canary-demo` and one of its ReplicaSets are written twice with other
/// content (two test cases' states). Planning the other Rollout's deletion
/// was refused over them; it is made, with two warnings, and it is the plan
/// of the file with either copy of each left out.
#[test]
fn the_argo_rollouts_bluegreen_plan_is_made_despite_the_canary_duplicates() {
    let (code, plan, err) = try_plan(&["--delete", "rollout/bluegreen-demo", ARGO]);
    assert_eq!(code, 0, "{err}");
    let deleted = steps(&plan);
    assert_eq!(deleted.last().unwrap(), &vec!["Rollout.argoproj.io/jesse-test/bluegreen-demo".to_string()]);
    assert_eq!(deleted.iter().flatten().count(), 10, "{deleted:?}");
    assert!(deleted.iter().flatten().all(|r| r.contains("bluegreen-demo")), "{deleted:?}");
    let warned = td002(&plan);
    assert_eq!(warned.len(), 2, "{warned:?}");
    assert!(
        warned[0].contains("duplicate object Rollout.argoproj.io/jesse-test/canary-demo: neither copy is in this plan")
    );
    assert!(warned[1].contains("ReplicaSet.apps/jesse-test/canary-demo-877894d5b"));
    assert_eq!(plan["summary"]["warnings"], 2);

    // Either copy of each, left alone: the same steps.
    let text = std::fs::read_to_string(ARGO).unwrap();
    let docs: Vec<&str> = text.split("\n---\n").collect();
    let copies = |name: &str| -> Vec<usize> {
        (0..docs.len()).filter(|&i| docs[i].contains(&format!("\n  name: {name}\n"))).collect()
    };
    let (rollout, replica_set) = (copies("canary-demo"), copies("canary-demo-877894d5b"));
    assert_eq!((rollout.len(), replica_set.len()), (2, 2));
    let dir = tempfile::tempdir().unwrap();
    for (a, b) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let left_out = [rollout[a], replica_set[b]];
        let kept: Vec<&str> = (0..docs.len()).filter(|i| !left_out.contains(i)).map(|i| docs[i]).collect();
        let file = dir.path().join(format!("argo-{a}{b}.yaml"));
        std::fs::write(&file, kept.join("\n---\n")).unwrap();
        let (code, one, err) = try_plan(&["--delete", "rollout/bluegreen-demo", file.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(steps(&one), deleted, "copies {a}{b} left out");
        assert!(td002(&one).is_empty());
    }
}

/// The duplicates of the plan itself still refuse it (exit 1), each
/// saying why it could change the plan.
#[test]
fn a_duplicate_the_plan_starts_from_or_deletes_still_refuses() {
    let (code, out, err) = run(&["plan", "--delete", "rollout/canary-demo", ARGO]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.is_empty());
    assert!(err.contains("it could change this plan: the plan starts from it"), "{err}");
    assert!(err.contains("it could change this plan: the plan deletes it"), "{err}");
    assert!(err.contains("no plan: 2 objects are given twice with different content"), "{err}");
}

/// Whatever joins a duplicate to the plan refuses it: a dependency of an
/// object it deletes, a Namespace it deletes, a label that selects one
/// copy; `--all` and `--gc` refuse any duplicate. Nothing joins the
/// Deployment `api` to either duplicate: its plan is made, with warnings.
#[test]
fn what_could_change_the_plan_refuses_it_and_nothing_else_does() {
    for (args, why) in [
        (&["--delete", "deploy/shop/web"][..], "ConfigMap/shop/settings"),
        (&["--delete", "ns/shop"][..], "the plan deletes it"),
        (&["-l", "team=a"][..], "the plan starts from it"),
        (&["--all"][..], "duplicate object ConfigMap/shop/unrelated"),
        (&["--gc"][..], "duplicate object ConfigMap/shop/unrelated"),
    ] {
        let mut all = vec!["plan"];
        all.extend_from_slice(args);
        all.push(APART);
        let (code, out, err) = run(&all);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains(why) && err.contains("TD002"), "{args:?}: {err}");
    }
    let (code, out, err) = run(&["plan", "--delete", "deploy/shop/web", APART]);
    assert_eq!(code, 1);
    assert!(err.contains("it is joined to Deployment.apps/shop/web, which the plan starts from"), "{out}{err}");
    assert!(!err.contains("ConfigMap/shop/unrelated"), "a duplicate apart from the plan is not said: {err}");

    let (code, plan, err) = try_plan(&["--delete", "deploy/shop/api", APART]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(steps(&plan), vec![vec!["Deployment.apps/shop/api".to_string()]]);
    assert_eq!(td002(&plan).len(), 2);
    // In the table's summary too, and `--ignore TD002` hides them.
    let (code, _, err) = run(&["plan", "--delete", "deploy/shop/api", APART]);
    assert_eq!(code, 0);
    assert!(err.contains("warning[TD002]: fixtures/duplicates/apart.yaml:51:18: duplicate object ConfigMap/shop/unrelated: neither copy is in this plan"), "{err}");
    assert!(err.contains("1 object in 1 step, 0 kept, 2 warnings"), "{err}");
    let (code, _, err) = run(&["plan", "--ignore", "TD002", "--delete", "deploy/shop/api", APART]);
    assert_eq!(code, 0);
    assert!(err.contains("0 warnings") && !err.contains("TD002"), "{err}");
}

/// `explain` makes the same plan, and so the same decision.
#[test]
fn explain_follows_the_plan() {
    let (code, out, err) = run(&["explain", "deploy/shop/api", "--delete", "deploy/shop/api", APART]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(&["explain", "deploy/shop/web", "--delete", "deploy/shop/web", APART]);
    assert_eq!(code, 1, "{err}");
}

/// What the default rules read by name joins too: a RoleBinding names the
/// ServiceAccount a deleted Deployment runs as in one copy only (the Role
/// it grants goes after the Deployment with that copy: 2 steps, 1 with
/// the other); a Service selects a deleted Deployment's Pods in one copy
/// only (the webhook configuration that calls it goes first with that
/// copy). No relation joins either duplicate to its plan: both refuse.
#[test]
fn duplicates_the_rules_read_by_name_refuse() {
    const BY_NAME: &str = "fixtures/duplicates/by-name.yaml";
    for (delete, joined) in [
        ("deploy/shop/web,role/shop/reader", "duplicate object RoleBinding.rbac.authorization.k8s.io/shop/web"),
        ("validatingwebhookconfiguration/guard,deploy/shop/guard", "duplicate object Service/shop/guard"),
    ] {
        let (code, out, err) = run(&["plan", "--delete", delete, BY_NAME]);
        assert_eq!(code, 1, "{delete}: {out}{err}");
        assert!(err.contains(joined) && err.contains("it could change this plan: it is joined to"), "{delete}: {err}");
    }
    // Each copy alone: two plans.
    let text = std::fs::read_to_string(BY_NAME).unwrap();
    let docs: Vec<&str> = text.split("\n---\n").collect();
    let dir = tempfile::tempdir().unwrap();
    for (delete, copies) in [
        ("deploy/shop/web,role/shop/reader", [2, 3]),
        ("validatingwebhookconfiguration/guard,deploy/shop/guard", [6, 7]),
    ] {
        let mut counts = Vec::new();
        for drop in copies {
            let file = dir.path().join(format!("without-{drop}.yaml"));
            let kept: Vec<&str> = (0..docs.len()).filter(|&i| i != drop).map(|i| docs[i]).collect();
            std::fs::write(&file, kept.join("\n---\n")).unwrap();
            let (code, plan, err) = try_plan(&["--delete", delete, file.to_str().unwrap()]);
            assert_eq!(code, 0, "{err}");
            counts.push(steps(&plan).len());
        }
        assert_ne!(counts[0], counts[1], "{delete}: the copies give one plan");
    }
}

/// A plan file made despite duplicates applies: `apply` makes the same
/// plan again (duplicates and all) and removes only its objects.
#[test]
fn a_plan_made_despite_duplicates_applies() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(APART, dir.path().join("apart.yaml")).unwrap();
    let run_in = |args: &[&str]| {
        let out = crate::common::teardown().current_dir(dir.path()).args(args).output().unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    let (code, plan, err) = run_in(&["plan", "--delete", "deploy/shop/api", "-o", "json", "apart.yaml"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(dir.path().join("plan.json"), plan).unwrap();
    let (code, out, err) = run_in(&["apply", "--no-backup", "plan.json"]);
    assert_eq!(code, 0, "{out}{err}");
    let left = std::fs::read_to_string(dir.path().join("apart.yaml")).unwrap();
    let before = std::fs::read_to_string(APART).unwrap();
    assert_eq!(
        left,
        before.replace(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: shop, uid: d-api}\n---\n",
            ""
        )
    );
}
