//! Plans that are right or refused (CONTRACT §1–§5): one object once,
//! whatever the inputs repeat. Each case names the wrong plan that was
//! printed before, with exit 0.

mod common;
use common::{run, steps};
use serde_json::Value;

fn plan_json(args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["plan", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    let v = if out.is_empty() { Value::Null } else { serde_json::from_str(&out).expect("plan JSON") };
    (code, v, err)
}

const WEB: [&str; 3] = ["Pod/shop/web-1-a", "ReplicaSet.apps/shop/web-1", "Deployment.apps/shop/web"];

fn one_a_step(refs: [&str; 3]) -> Vec<Vec<String>> {
    refs.iter().map(|r| vec![r.to_string()]).collect()
}

#[test]
fn a_file_given_twice_is_read_once() {
    // Before: every object of the file twice, the Deployment at steps 1 and 3.
    let (code, v, err) = plan_json(&[
        "--delete",
        "deploy/web",
        "fixtures/identity/dump-a.yaml",
        "fixtures/identity/dump-a.yaml",
        "fixtures/identity/dump-b.json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(steps(&v), one_a_step(WEB));
    // A directory and a file in it.
    let (code, v, err) = plan_json(&["--delete", "deploy/web", "fixtures/identity/dump-a.yaml", "fixtures/identity"]);
    assert_eq!(code, 1, "the directory also holds changed.yaml: {err}");
    assert_eq!(v, Value::Null);
    let (code, v, err) = plan_json(&["--all", "fixtures/shop", "fixtures/shop/20-web.yaml"]);
    assert_eq!(code, 0, "{err}");
    let all: Vec<String> = steps(&v).concat();
    let mut unique = all.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(all.len(), unique.len(), "an object at two steps: {all:?}");
    assert_eq!(all.len(), 12);
}

#[test]
fn overlapping_dumps_give_each_object_once() {
    // The ReplicaSet is in both dumps: YAML in one, JSON with other key order in the other.
    let (code, v, err) =
        plan_json(&["--delete", "deploy/web", "fixtures/identity/dump-a.yaml", "fixtures/identity/dump-b.json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(steps(&v), one_a_step(WEB));
    let (code, out, _) = run(&["check", "fixtures/identity/dump-a.yaml", "fixtures/identity/dump-b.json"]);
    assert_eq!(code, 0);
    assert!(out.contains("3 objects, 2 edges; no findings"), "{out}");
}

#[test]
fn one_identity_with_two_contents_is_refused_naming_both() {
    // Before: both ReplicaSets planned, one of them at two steps.
    let (code, out, err) =
        run(&["plan", "--delete", "deploy/web", "fixtures/identity/dump-a.yaml", "fixtures/identity/changed.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "no plan on stdout: {out}");
    assert!(err.contains("TD002"), "{err}");
    assert!(err.contains("fixtures/identity/changed.yaml:5:9"), "{err}");
    assert!(err.contains("fixtures/identity/dump-a.yaml:12:9"), "{err}");
    assert!(err.contains("no plan: 1 object is given twice with different content"), "{err}");
    // explain makes the same plan, and refuses the same way.
    let (code, _, err) = run(&["explain", "deploy/web", "--delete", "deploy/web", "fixtures/identity"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("TD002"), "{err}");
}
