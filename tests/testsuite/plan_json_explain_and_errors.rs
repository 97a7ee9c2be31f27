//! The planning side (issue 12): typed reasons and warnings in plan JSON,
//! explain in linear output, one error printed once with its exit code.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::run;
use serde_json::Value;

fn resource<'a>(plan: &'a Value, reference: &str) -> &'a Value {
    let steps = plan["steps"].as_array().unwrap().iter().flat_map(|s| s["resources"].as_array().unwrap());
    let mut all = steps.chain(plan["kept"].as_array().unwrap()).chain(plan["orphaned"].as_array().unwrap());
    all.find(|r| r["ref"] == reference).unwrap_or_else(|| panic!("{reference} not in the plan"))
}

#[test]
fn plan_json_carries_typed_reasons_and_their_text() {
    let plan = common::plan(&["--delete", "deploy/web", "fixtures/shop"]);
    let web = resource(&plan, "Deployment.apps/shop/web");
    assert_eq!(web["reasons"][0]["type"], "target");
    assert_eq!(web["reasons"][1]["type"], "depends-on");
    assert_eq!(web["reasons"][1]["ref"], "Secret/shop/db-password");
    assert_eq!(web["reason"], "target; depends-on Secret/shop/db-password");
    let rs = resource(&plan, "ReplicaSet.apps/shop/web-5d4f");
    assert_eq!(rs["reasons"], serde_json::json!([{"type": "owned-by", "ref": "Deployment.apps/shop/web"}]));
    assert_eq!(rs["reason"], "owned by Deployment.apps/shop/web");

    // Garbage, by the collector's rule, with what it points at.
    let plan = common::plan(&["--gc", "fixtures/plan/gc.yaml"]);
    let pod = resource(&plan, "Pod/batch/report-old");
    assert_eq!(
        pod["reasons"],
        serde_json::json!([{"type": "garbage", "why": "owner-uid-mismatch", "ref": "Job.batch/batch/report"}])
    );
    let kept = resource(&plan, "ConfigMap/batch/orphaned-config");
    assert_eq!(
        kept["reasons"],
        serde_json::json!([{"type": "owner-not-in-snapshot", "owner": "ConfigMap/batch/gone"}])
    );
    assert_eq!(kept["keptBy"], "ConfigMap/batch/gone");
}

#[test]
fn plan_warnings_are_typed() {
    let plan = common::plan(&["--all", "fixtures/plan/murano-destruction-cycle.yaml"]);
    let warnings = plan["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty());
    let cycle = warnings.iter().find(|w| w["rule"] == "TD008").expect("a TD008 warning");
    assert_eq!(cycle["type"], "destruction-cycle");
    assert!(cycle["message"].as_str().unwrap().starts_with("destruction-dependency cycle: "));
}

/// A chain of `n` native objects, each owned by the one before.
fn chain(n: usize) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("resources:\n- id: o0\n");
    for i in 1..n {
        text.push_str(&format!("- id: o{i}\n  owners: [o{}]\n", i - 1));
    }
    let path = dir.path().join("chain.yaml");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap().to_string();
    (dir, path)
}

#[test]
fn explain_output_grows_linearly_with_the_chain() {
    // Before: each line of a chain was indented one level deeper than the
    // one before, so the output grew with the square of its length (a
    // 200,000-long chain was killed at 24 GB).
    let n = 5_000;
    let (_dir, path) = chain(n);
    // The leaf: reached from the head through the whole chain.
    let (code, out, err) = run(&["explain", &format!("id:o{}", n - 1), "--delete", "id:o0", &path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&format!("o{}: deleted in step 1 of {n}\n", n - 1)), "{}", out.get(..100).unwrap_or(&out));
    assert_eq!(out.lines().filter(|l| l.starts_with("  └ owns ")).count(), n - 1, "{}", out.get(..300).unwrap_or(&out));
    // The head: at the last step, after the whole chain.
    let (code, out, err) = run(&["explain", "id:o0", "--delete", "id:o0", &path]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().filter(|l| l.starts_with("  └ owns ")).count(), n - 1);
    assert!(out.len() < 60 * n, "{} bytes for a chain of {n}", out.len());
}

#[test]
fn every_error_is_said_once_last_with_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "# nothing\n").unwrap();
    let empty = empty.to_str().unwrap();
    let cases: [(&[&str], i32, &str); 6] = [
        (&["plan", "--all", "--root", "x", "fixtures/shop"], 2, "--root is where --gc starts"),
        (&["plan", "--delete", "deploy/nope", "fixtures/shop"], 1, "selector `deploy/nope` matches nothing"),
        (
            &["plan", "--all", "fixtures/check/td001-syntax-error-in-doc-3.yaml"],
            2,
            "no plan: input that cannot be read or used",
        ),
        (&["plan", "--all", "fixtures/check/td002-duplicate.yaml"], 1, "given twice with different content"),
        (&["plan", "--prune", empty, "fixtures/shop"], 1, "--prune NEW holds no objects"),
        (&["plan", "--all", "fixtures/check/td007-ownership-cycle.yaml"], 1, "ownership cycle"),
    ];
    for (args, code, says) in cases {
        let (got, _, err) = run(args);
        assert_eq!(got, code, "{args:?}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("teardown: error: ")).collect();
        assert_eq!(errors.len(), 1, "{args:?}: {err}");
        assert!(errors[0].contains(says), "{args:?}: {err}");
        assert_eq!(err.lines().last(), Some(errors[0]), "{args:?}: the error comes last");
    }
}

#[test]
fn an_error_with_places_shows_them_before_it_is_said() {
    // An ownership cycle stops the plan; each owner reference of the cycle
    // is shown at its line (the TD007 diagnostic), then the error, once, last.
    for command in [&["plan", "--all"][..], &["explain", "cm/loop/a", "--all"][..]] {
        let mut args = command.to_vec();
        args.push("fixtures/check/td007-ownership-cycle.yaml");
        let (code, out, err) = run(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(out, "");
        for (line, label) in [
            (8, "ConfigMap/a is owned by ConfigMap/c"),
            (17, "ConfigMap/b is owned by ConfigMap/a"),
            (26, "ConfigMap/c is owned by ConfigMap/b"),
        ] {
            assert!(err.contains(&format!("fixtures/check/td007-ownership-cycle.yaml:{line}:53]")), "{args:?}: {err}");
            assert!(err.contains(label), "{args:?}: {err}");
        }
        assert!(err.contains("TD007 ownership-cycle"), "{err}");
        let last = err.lines().last().unwrap_or("");
        assert!(last.starts_with("teardown: error: ownership cycle: ConfigMap/loop/a owns"), "{err}");
        assert_eq!(err.matches("teardown: error:").count(), 1, "{err}");
    }
}
