//! The `murano` dialect: nesting is ownership, `onDestruction` subscriptions
//! are destruction dependencies with notifications, `--gc` collects what the
//! model no longer holds or reaches. Every answer here was worked out by hand
//! from the fixture (fixtures/murano/).

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{check_json, kept, run, steps};
use serde_json::{json, Value};

/// Events as (event, object, subscriber, handler).
fn events(plan: &Value) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    plan["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let handlers: Vec<&str> =
                e["handlers"].as_array().map(|h| h.iter().filter_map(|x| x.as_str()).collect()).unwrap_or_default();
            (s(&e["event"]), s(&e["object"]), s(&e["subscriber"]), handlers.join(", "))
        })
        .collect()
}

fn ev(e: &str, o: &str, s: &str, h: &str) -> (String, String, String, String) {
    (e.into(), o.into(), s.into(), h.into())
}

#[test]
fn a_child_destroyed_after_its_parent_relaxes_the_ownership() {
    // parent owns child, and child subscribed to parent's destruction: the
    // destruction dependency wins, parent goes first, the ownership edge is relaxed.
    let plan = common::plan(&["--all", "fixtures/murano/child-after-parent.json"]);
    assert_eq!(steps(&plan), [["parent"], ["child"]]);
    assert_eq!(plan["relaxed"], json!([{"owner": "parent", "dependent": "child", "kind": "owns"}]));
}

#[test]
fn a_parent_destroyed_after_its_child() {
    let plan = common::plan(&["--all", "fixtures/murano/parent-after-child.json"]);
    assert_eq!(steps(&plan), [["child"], ["parent"]]);
    assert_eq!(plan["relaxed"], json!([]));
}

#[test]
fn unrelated_objects_the_dependency_first() {
    // a subscribed to b: b first.
    let plan = common::plan(&["--all", "fixtures/murano/unrelated.json"]);
    assert_eq!(steps(&plan), [["b"], ["a"]]);
}

#[test]
fn a_circular_dependency_is_one_step_with_a_warning() {
    let plan = common::plan(&["--all", "fixtures/murano/circular.json"]);
    assert_eq!(steps(&plan), [["a", "b", "c"]]);
    assert_eq!(plan["cycles"], json!([{"kind": "destruction", "step": 1, "refs": ["a", "b", "c"]}]));
    let rules: Vec<&str> = plan["warnings"].as_array().unwrap().iter().map(|w| w["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["TD008"]);
}

#[test]
fn a_subscriber_is_warned_notified_and_told_in_this_order() {
    // a subscribed to b (handler onBGone); only b is destroyed.
    let plan = common::plan(&["--delete", "id:b", "fixtures/murano/unrelated.json"]);
    assert_eq!(steps(&plan), [["b"]]);
    assert_eq!(
        events(&plan),
        [
            ev("warned", "b", "a", ""),
            ev("notified", "b", "a", "onBGone"),
            ev("destroyed", "b", "", ""),
            ev("told-destroyed", "b", "a", ""),
        ]
    );
}

#[test]
fn warnings_come_before_any_destruction() {
    // vm1 and vm2 (step 1) each notify net (step 2), then app (step 3).
    let plan = common::plan(&["--all", "fixtures/murano/app-net-vms.json"]);
    assert_eq!(steps(&plan), [vec!["vm1", "vm2"], vec!["net"], vec!["app"]]);
    assert_eq!(
        events(&plan),
        [
            ev("warned", "vm1", "net", ""),
            ev("warned", "vm2", "net", ""),
            ev("notified", "vm1", "net", "releasePort"),
            ev("destroyed", "vm1", "", ""),
            ev("told-destroyed", "vm1", "net", ""),
            ev("notified", "vm2", "net", "releasePort"),
            ev("destroyed", "vm2", "", ""),
            ev("told-destroyed", "vm2", "net", ""),
            ev("destroyed", "net", "", ""),
            ev("destroyed", "app", "", ""),
        ]
    );
}

#[test]
fn gc_collects_what_the_model_no_longer_holds_or_reaches() {
    // app2 and vm2 are only in ObjectsCopy; stray (and its disk) is a tree
    // nothing refers to; keys is referred to by id from app1 and survives;
    // old is already destroyed.
    let plan = common::plan(&["--gc", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!(steps(&plan), [vec!["stray-disk", "vm2"], vec!["app2", "stray"]]);
    let reasons: Vec<&str> =
        plan["steps"][0]["resources"].as_array().unwrap().iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, ["garbage: unreachable from the root env", "garbage: in ObjectsCopy, not in Objects"]);
}

#[test]
fn gc_from_another_root() {
    let plan = common::plan(&["--gc", "--root", "stray", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!(steps(&plan), [vec!["keys", "vm1", "vm2"], vec!["app1", "app2"], vec!["env"]]);
    let (code, _, err) = run(&["plan", "--gc", "--root", "nothing", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!(code, 1);
    assert!(err.contains("--root nothing"), "{err}");
}

#[test]
fn destroyed_objects_are_not_destroyed_again() {
    let plan = common::plan(&["--all", "fixtures/murano/deployment-task.yaml"]);
    assert!(!steps(&plan).concat().contains(&"old".to_string()));
    assert_eq!(plan["kept"][0]["ref"], "old");
    assert_eq!(plan["kept"][0]["reason"], "already destroyed (`destroyed: true`)");
}

#[test]
fn a_destroyed_object_still_referenced_keeps_its_place() {
    // app1 refers to keys by id: keys is destroyed but stays in the model.
    let plan = common::plan(&["--delete", "id:keys", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!(plan["steps"][0]["resources"][0]["referencedBy"], json!(["app1"]));
}

#[test]
fn prune_destroys_what_the_new_model_lacks() {
    let plan = common::plan(&["--prune", "fixtures/murano/app-net-vm1.json", "fixtures/murano/app-net-vms.json"]);
    assert_eq!(plan["mode"], "prune");
    assert_eq!(steps(&plan), [["vm2"]]);
    assert_eq!(plan["steps"][0]["resources"][0]["reason"], "absent from NEW; notifies net");
    assert_eq!(events(&plan)[1], ev("notified", "vm2", "net", "releasePort"));
}

#[test]
fn an_unknown_subscriber_is_reported_and_ignored() {
    let (code, report) = check_json(&["fixtures/murano/unknown-subscriber.json"]);
    assert_eq!(code, 1);
    let f = &report["findings"][0];
    assert_eq!((f["rule"].as_str(), f["line"].as_u64()), (Some("TD010"), Some(3)));
    let plan = common::plan(&["--all", "fixtures/murano/unknown-subscriber.json"]);
    assert_eq!(steps(&plan), [["b"]]);
    assert_eq!(events(&plan), [ev("destroyed", "b", "", "")]);
}

/// (objects, ownership edges, destruction dependencies) of a real-world file.
fn counts(file: &str) -> (u64, u64, u64, Vec<String>) {
    let (_, report) = check_json(&[&format!("fixtures/realworld/murano/{file}")]);
    let s = &report["summary"];
    let by = &s["edgesByKind"];
    let rules =
        report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect();
    (s["objects"].as_u64().unwrap(), by["owns"].as_u64().unwrap_or(0), by["destroy-after"].as_u64().unwrap_or(0), rules)
}

#[test]
fn every_real_world_model_loads() {
    // Objects: the distinct ids of SOURCES.md; ownership edges: every object
    // but the outermost ones of each file.
    let expected: [(&str, u64, u64, u64); 17] = [
        ("murano-apiref-deployments-list-response.json", 4, 3, 0),
        ("murano-apiref-environment-show-response.json", 2, 1, 0),
        ("murano-apiref-environments-model-response.json", 6, 5, 2),
        ("murano-apiref-template-add-app-request.json", 2, 1, 0),
        ("murano-apiref-template-add-app-response.json", 2, 1, 0),
        ("murano-apiref-template-list-apps-response.json", 2, 1, 0),
        ("murano-apiref-template-show-response.json", 2, 1, 0),
        ("murano-apiref-template-update-app-request.json", 2, 1, 0),
        ("murano-apiref-template-update-app-response.json", 2, 1, 0),
        ("murano-apps-RefStackClient-env-fixture.json", 4, 3, 0),
        ("murano-apps-Tomcat-tomcat-for-mock.json", 4, 3, 0),
        ("murano-policytest-model.yaml", 4, 3, 0),
        ("murano-policytest-model_complex.yaml", 5, 4, 0),
        ("murano-policytest-model_renamed.yaml", 4, 3, 0),
        ("murano-policytest-model_two_instances.yaml", 5, 4, 0),
        ("murano-policytest-model_with_relations.yaml", 7, 6, 0),
        ("murano-policytest-wordpress.yaml", 10, 9, 0),
    ];
    for (file, objects, owns, deps) in expected {
        let (o, w, d, rules) = counts(file);
        assert_eq!((o, w, d), (objects, owns, deps), "{file}");
        // The one upstream error: two apps with one id (SOURCES.md).
        let want: Vec<String> = if file.contains("list-apps") { vec!["TD002".into()] } else { Vec::new() };
        assert_eq!(rules, want, "{file}");
    }
}

#[test]
fn the_real_world_subscriptions_order_networks_before_regions() {
    // Each NeutronNetwork notifies its CloudRegion, which also owns it.
    let plan = common::plan(&["--all", "fixtures/realworld/murano/murano-apiref-environments-model-response.json"]);
    let s = steps(&plan);
    assert_eq!(s.len(), 3);
    assert!(s[0].contains(&"e145b50623c04a68956e3e656a0568d3".to_string()));
    assert!(s[1].contains(&"c80e33dd67a44f489b2f04818b72f404".to_string()));
    assert_eq!(s[2], ["f7f22c174070455c9cafc59391402bdc"]);
}

#[test]
fn a_broken_model_is_a_parse_error_at_its_line() {
    let (code, out, _) = common::run_stdin(
        &["check", "-o", "json", "--dialect", "murano"],
        "{\"?\": {\"id\": \"a\", \"type\": \"T\"},\n \"x\": {\"?\": {\"id\": \"b\" \"type\": \"T\"}}}\n",
    );
    assert_eq!(code, 2);
    let report: Value = serde_json::from_str(&out).unwrap();
    let f = &report["findings"][0];
    assert_eq!((f["rule"].as_str(), f["line"].as_u64(), f["column"].as_u64()), (Some("TD001"), Some(2), Some(24)));
}

#[test]
fn explain_says_why_a_subscriber_waits() {
    let (code, out, err) = run(&["explain", "id:net", "--all", "fixtures/murano/app-net-vms.json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("net: deleted in step 2 of 3"), "{out}");
    assert!(out.contains("goes after vm1, whose destruction it subscribed to (step 1)"), "{out}");
}

// Edge cases found in review: fixtures/murano/edge/README.md.

#[test]
fn gc_spares_what_the_root_still_reaches_by_id() {
    // stray is unreachable, but env refers to d1 (inside stray) by id.
    let plan = common::plan(&["--gc", "fixtures/murano/edge/gc-reach.yaml"]);
    assert_eq!(steps(&plan), [["stray"]]);
    assert_eq!(kept(&plan), [("d1".to_string(), "still reachable from the root".to_string())]);
    let (_, out, _) = run(&["explain", "--gc", "id:d1", "fixtures/murano/edge/gc-reach.yaml"]);
    assert!(out.contains("deleting stray does not take it, because the root still reaches it"), "{out}");
    // The root itself is never collected, even below an unreachable owner.
    let plan = common::plan(&["--gc", "--root", "vm1", "fixtures/murano/app-net-vm1.json"]);
    assert_eq!(steps(&plan), [["app"]]);
    assert_eq!(kept(&plan).len(), 2);
}

#[test]
fn prune_spares_an_object_that_moved_to_another_owner() {
    let plan = common::plan(&["--prune", "fixtures/murano/edge/moved-new.yaml", "fixtures/murano/edge/moved-old.yaml"]);
    assert_eq!(steps(&plan), [["app1"]]);
    assert_eq!(kept(&plan), [("vol".to_string(), "still in the new model".to_string())]);
}

#[test]
fn references_only_the_old_model_makes_keep_nothing_alive() {
    // Only ObjectsCopy's env uses t2 and k: t2 (in Objects) is unreachable,
    // k (only in ObjectsCopy) was removed.
    let plan = common::plan(&["--gc", "fixtures/murano/edge/task2.yaml"]);
    assert_eq!(steps(&plan), [["k", "t2"]]);
}

#[test]
fn each_document_is_a_model_with_its_own_root() {
    let plan = common::plan(&["--gc", "fixtures/murano/edge/two-docs.yaml"]);
    assert_eq!(steps(&plan), Vec::<Vec<String>>::new());
    let plan = common::plan(&["--gc", "--root", "envA", "fixtures/murano/edge/two-docs.yaml"]);
    assert_eq!(steps(&plan), [vec!["appB"], vec!["envB"]]);
}

#[test]
fn root_needs_gc_and_a_live_object() {
    let (code, _, err) = run(&["plan", "--all", "--root", "env", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!((code, err.contains("give --gc")), (2, true), "{err}");
    let (code, _, err) = run(&["plan", "--gc", "--root", "app2", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!((code, err.contains("only in ObjectsCopy")), (2, true), "{err}");
}

#[test]
fn findings_point_at_the_header_not_at_a_property_with_the_same_value() {
    let (_, report) = check_json(&["fixtures/murano/edge/line.yaml"]);
    let f = &report["findings"][0];
    assert_eq!((f["rule"].as_str(), f["line"].as_u64()), (Some("TD010"), Some(7)));
}

#[test]
fn models_are_recognised_whatever_their_top_level_keys() {
    for (file, refs) in [
        ("res.json", vec!["a", "env"]),
        ("cm.yaml", vec!["env"]),
        ("numid2.yaml", vec!["1", "2"]),
        ("kindprop.json", vec!["a", "env"]),
        ("kinditems.yaml", vec!["a", "env"]),
        ("k8s-cr-embed.yaml", vec!["ConfigMap/default/cm", "Thing.example.com/default/t"]),
        ("k8s-list-embed.yaml", vec!["ConfigMap/default/cm", "Thing.example.com/default/t"]),
    ] {
        let plan = common::plan(&["--all", &format!("fixtures/murano/edge/{file}")]);
        let mut all = steps(&plan).concat();
        all.sort();
        assert_eq!(all, refs, "{file}");
    }
    // A number equal to an id is a reference too: 2 survives --gc.
    let plan = common::plan(&["--gc", "fixtures/murano/edge/numid2.yaml"]);
    assert_eq!(steps(&plan), Vec::<Vec<String>>::new());
}

#[test]
fn odd_subscriptions_are_told_once_and_malformed_ones_reported() {
    // b subscribes itself, a twice (no handler, and h2), and three entries
    // name no subscriber (TD001 each): no plan unless told to go on without
    // them.
    let (code, _, err) = run(&["plan", "--all", "fixtures/murano/edge/subscriptions.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("no plan: input that cannot be read or used (3 TD001 findings above)"), "{err}");
    let plan = common::plan(&["--all", "--skip-invalid", "fixtures/murano/edge/subscriptions.yaml"]);
    assert_eq!(steps(&plan), [["b"], ["a"]]);
    // a is told once, with the handler it named; b, subscribed to its own
    // destruction, hears about it too (CONTRACT §4). Before: a notified
    // twice, b nothing. In the order of b's onDestruction list, b's own
    // subscription first (issue 32; before: by id, a first).
    assert_eq!(
        events(&plan),
        [
            ev("warned", "b", "b", ""),
            ev("warned", "b", "a", ""),
            ev("notified", "b", "b", "h"),
            ev("notified", "b", "a", "h2"),
            ev("destroyed", "b", "", ""),
            ev("told-destroyed", "b", "b", ""),
            ev("told-destroyed", "b", "a", ""),
            ev("destroyed", "a", "", ""),
        ]
    );
    assert_eq!(plan["steps"][0]["resources"][0]["reason"], "notifies a");
    let (_, report) = check_json(&["fixtures/murano/edge/subscriptions.yaml"]);
    let td001 = report["findings"].as_array().unwrap().iter().filter(|f| f["rule"] == "TD001").count();
    assert_eq!(td001, 3);
}

#[test]
fn the_tree_marks_what_only_the_old_model_has() {
    let (code, out, _) = run(&["graph", "fixtures/murano/deployment-task.yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("└── app2 (example.App) [only in ObjectsCopy]\n"), "{out}");
    assert!(out.contains("old (example.Thing) [destroyed]\n"), "{out}");
}
