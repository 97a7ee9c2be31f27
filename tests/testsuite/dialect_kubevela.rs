//! The `kubevela` dialect and its collector: Applications, ResourceTrackers,
//! `plan --gc` in its stages (mark, finalize, sweep, component revisions),
//! garbage-collect rules, `order: dependency`, and `explain`. Each fixture's
//! answer was worked out by hand from KubeVela's resource keeper (its
//! gc.go and cache.go) and is written in the fixture's comment.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use common::{check_json, kept, plan, run, s, steps};
use serde_json::Value;

const K: &str = "fixtures/kubevela";
const R: &str = "fixtures/realworld/kubevela";

fn k(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// The stage entries of a `--gc` plan: (tracker or resource, reason or action).
fn stage(plan: &Value, name: &str, key: &str, value: &str) -> Vec<(String, String)> {
    plan["stages"][name]
        .as_array()
        .unwrap_or_else(|| panic!("no stages.{name}: {plan}"))
        .iter()
        .map(|e| (e[key].as_str().unwrap().to_string(), e[value].as_str().unwrap_or("").to_string()))
        .collect()
}

const V1: &str = "ResourceTracker.core.oam.dev/app-v1-default";
const V2: &str = "ResourceTracker.core.oam.dev/app-v2-default";

#[test]
fn a_resource_still_managed_by_the_current_tracker_survives_its_outdated_one() {
    let p = plan(&["--gc", &format!("{K}/two-trackers.yaml")]);
    assert_eq!(steps(&p), s(&[&["ConfigMap/default/old", "ControllerRevision.apps/default/gone-v1"], &[V1]]), "{p}");
    assert_eq!(
        kept(&p),
        k(&[("ConfigMap/default/shared", &format!("finalize: still managed by the active tracker {V2}"))])
    );
    let mark = stage(&p, "mark", "tracker", "reason");
    assert_eq!(
        mark,
        k(&[
            ("ResourceTracker.core.oam.dev/app-comp-rev-default", "component-revisions"),
            (V1, "outdated"),
            (V2, "current")
        ])
    );
    assert_eq!(
        stage(&p, "finalize", "resource", "action"),
        k(&[("ConfigMap/default/shared", "keep"), ("ConfigMap/default/old", "delete")])
    );
    assert_eq!(p["stages"]["sweep"][0]["tracker"], V1);
    assert_eq!(p["stages"]["sweep"][0]["step"], 2);
    assert_eq!(p["stages"]["sweep"][0]["after"], 1);
    assert_eq!(p["stages"]["componentRevisions"][0]["ref"], "ControllerRevision.apps/default/gone-v1");
    assert_eq!(p["stages"]["componentRevisions"][0]["component"], "gone");
    // The tracker's own finalizer is the collector's: nothing to wait for.
    assert!(p["steps"][1]["resources"][0].get("waitsFor").is_none(), "{p}");
}

#[test]
fn the_table_shows_the_stages_after_the_steps() {
    let (code, out, err) = run(&["plan", "--gc", &format!("{K}/two-trackers.yaml")]);
    assert_eq!(code, 0, "{err}");
    let table = out.split("\n\n").nth(1).unwrap_or_else(|| panic!("no stages table: {out}"));
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("STAGE"), "{table}");
    assert!(lines
        .iter()
        .any(|l| l.starts_with("mark") && l.contains(V1) && l.contains("marked: outdated (generation 1;")));
    assert!(lines
        .iter()
        .any(|l| l.starts_with("finalize") && l.contains("ConfigMap/default/old") && l.contains("delete at step 1")));
    assert!(lines.iter().any(|l| l.starts_with("sweep") && l.contains("finalizer removed at step 2")));
    assert!(lines.iter().any(|l| l.starts_with("revision") && l.contains("gone-v1")));
}

#[test]
fn deleting_the_application_removes_everything_but_what_its_rules_keep() {
    let kept_by_rules = k(&[
        (
            "Job.batch/shop/migrate",
            "finalize: released, not deleted, by rule 3 of policy gc of Application.core.oam.dev/shop/shop (propagation: orphan)",
        ),
        // Recorded with skipGC, as rule 1 had it recorded when it was dispatched.
        (
            "Secret/shop/web-tls",
            "finalize: released, not deleted: ResourceTracker.core.oam.dev/shop-shop records it with skipGC (rule 1 of policy gc of Application.core.oam.dev/shop/shop: strategy: never)",
        ),
    ]);
    let deleted = s(&[
        &["ConfigMap/shop/web-config", "ReplicaSet.apps/shop/web-7d4b9", "Service/shop/web"],
        &["Deployment.apps/shop/web", "ResourceTracker.core.oam.dev/shop-shop"],
        &["ResourceTracker.core.oam.dev/shop-v3-shop"],
        &["Application.core.oam.dev/shop/shop"],
    ]);
    // Being deleted, as the collector sees it…
    let p = plan(&["--gc", &format!("{K}/app-deleted.yaml")]);
    assert_eq!(steps(&p), deleted, "{p}");
    assert_eq!(kept(&p), kept_by_rules);
    assert!(stage(&p, "mark", "tracker", "reason").iter().all(|(_, r)| r == "application-being-deleted"));
    // …and deleted by a plan: the same set, the same steps.
    let p = plan(&["--delete", "application/shop/shop", &format!("{K}/app.yaml")]);
    assert_eq!(steps(&p), deleted, "{p}");
    assert_eq!(kept(&p), kept_by_rules);
    // While the Application lives, its collector deletes nothing.
    let p = plan(&["--gc", &format!("{K}/app.yaml")]);
    assert_eq!(steps(&p), Vec::<Vec<String>>::new());
    assert_eq!(
        stage(&p, "mark", "tracker", "reason"),
        k(&[
            ("ResourceTracker.core.oam.dev/shop-shop", "root"),
            ("ResourceTracker.core.oam.dev/shop-v3-shop", "current"),
        ])
    );
}

#[test]
fn a_root_tracker_deleted_by_hand_takes_what_it_records_but_skip_gc() {
    // The keeper finalizes a tracker being deleted whatever the policy says:
    // `strategy: onAppDelete` acted when the Service was recorded (in the
    // root tracker), not now (KubeVela's gc.go `Finalize`, dispatch.go
    // `record`). The Application dispatches it again on its next reconcile.
    let p = plan(&["--delete", "resourcetracker/shop-shop", &format!("{K}/app.yaml")]);
    assert_eq!(steps(&p), s(&[&["Service/shop/web"], &["ResourceTracker.core.oam.dev/shop-shop"]]), "{p}");
    assert_eq!(
        kept(&p),
        k(&[(
            "Secret/shop/web-tls",
            "finalize: released, not deleted: ResourceTracker.core.oam.dev/shop-shop records it with skipGC (rule 1 of policy gc of Application.core.oam.dev/shop/shop: strategy: never)"
        )])
    );
}

#[test]
fn components_five_six_seven_go_in_three_steps_five_first() {
    let p = plan(&["--gc", &format!("{K}/dependency.yaml")]);
    assert_eq!(
        steps(&p),
        s(&[
            &["Deployment.apps/default/c5", "Service/default/c5"],
            &["Deployment.apps/default/c6"],
            &["Deployment.apps/default/c7", "Service/default/c7"],
            &["ResourceTracker.core.oam.dev/chain-v1-default"],
            &["Application.core.oam.dev/default/chain"],
        ]),
        "{p}"
    );
    // The real docs example (dependsOn and inputs/outputs), with trackers.
    let p = plan(&[
        "--delete",
        "application/gc-dependency",
        &format!("{R}/docs-example-reverse-dependency-block1-L14-49.yaml"),
        &format!("{K}/realworld/gc-dependency-trackers.yaml"),
    ]);
    assert_eq!(
        steps(&p)[..3],
        s(&[
            &["Deployment.apps/default/test1"],
            &["Deployment.apps/default/test2"],
            &["Deployment.apps/default/test3"]
        ])[..],
        "{p}"
    );
}

#[test]
fn keep_legacy_resource_marks_only_trackers_whose_resources_are_gone_or_taken_over() {
    let p = plan(&["--gc", &format!("{K}/keep-legacy.yaml")]);
    assert_eq!(steps(&p), Vec::<Vec<String>>::new(), "{p}");
    assert_eq!(stage(&p, "mark", "tracker", "reason"), k(&[(V1, "keep-legacy-resource"), (V2, "current")]));
    assert!(p["stages"]["mark"][0]["message"].as_str().unwrap().contains("newest tracker of ConfigMap/default/legacy"));
    // Taken over by v2: v1 is marked, ConfigMap `legacy` stays with v2.
    let p = plan(&["--gc", &format!("{K}/keep-legacy-taken-over.yaml")]);
    assert_eq!(steps(&p), s(&[&[V1]]), "{p}");
    assert_eq!(
        kept(&p),
        k(&[("ConfigMap/default/legacy", &format!("finalize: still managed by the active tracker {V2}"))])
    );
}

#[test]
fn explain_names_the_stage_and_the_rule() {
    let (code, out, err) = run(&["explain", "configmap/default/old", "--gc", &format!("{K}/two-trackers.yaml")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(&format!(
            "{V1} (mark: outdated tracker (generation 1; Application.core.oam.dev/default/app is at generation 2))"
        )),
        "{out}"
    );
    let (_, out, _) = run(&["explain", "configmap/default/shared", "--gc", &format!("{K}/two-trackers.yaml")]);
    assert!(out.contains(&format!("kept, finalize: still managed by the active tracker {V2}")), "{out}");
    let (_, out, _) = run(&["explain", "secret/shop/web-tls", "--gc", &format!("{K}/app-deleted.yaml")]);
    assert!(out.contains("kept, finalize: released, not deleted: ResourceTracker.core.oam.dev/shop-shop records it with skipGC (rule 1 of policy gc"), "{out}");
    let (_, out, _) = run(&["explain", "resourcetracker/app-v1-default", "--gc", &format!("{K}/keep-legacy.yaml")]);
    assert!(out.contains("not in the plan: mark: not marked (keepLegacyResource)"), "{out}");
}

#[test]
fn real_applications_are_read_with_their_policies() {
    let p = plan(&[
        "--delete",
        "application/gc-propagation",
        &format!("{R}/app-with-custom-gc-propagation.yaml"),
        &format!("{K}/realworld/gc-propagation-trackers.yaml"),
    ]);
    assert_eq!(steps(&p)[0], vec!["Job.batch/default/pi".to_string()], "{p}");
    assert_eq!(kept(&p)[0].0, "Deployment.apps/default/orphan-gc");
    assert!(kept(&p)[0].1.contains("(propagation: orphan)"));
    // Two garbage-collect policies are merged, as the controller merges them.
    let p = plan(&[
        "--delete",
        "application/test",
        &format!("{R}/app-multi-resource-policies.yaml"),
        &format!("{K}/realworld/multi-policies-trackers.yaml"),
    ]);
    let kept: Vec<String> = kept(&p).into_iter().map(|(r, why)| format!("{r}: {why}")).collect();
    assert_eq!(kept, vec![
        "ConfigMap/default/test: finalize: released, not deleted: ResourceTracker.core.oam.dev/test-default records it with skipGC (rule 1 of policy gc-cm of Application.core.oam.dev/default/test: strategy: never)",
        "Secret/default/test: finalize: released, not deleted: ResourceTracker.core.oam.dev/test-default records it with skipGC (rule 1 of policy gc-secret of Application.core.oam.dev/default/test: strategy: never)",
    ]);
}

#[test]
fn every_real_world_sample_loads() {
    for entry in std::fs::read_dir(R).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let path = path.to_str().unwrap();
        let (_, report) = check_json(&[path]);
        assert_eq!(report["summary"]["objects"], 1, "{path}: {report}");
        let rules: Vec<&str> =
            report["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
        // Only the ApplicationRevision's owner reference, which has no uid
        // (SOURCES.md), and whose Application is not in the file.
        let expected: &[&str] = if path.ends_with("apprevision.yaml") { &["TD001", "TD003"] } else { &[] };
        assert_eq!(rules, expected, "{path}: {report}");
        let (code, _, err) = run(&["plan", "--gc", "--skip-invalid", path]);
        assert_eq!(code, 0, "{path}: {err}");
    }
}

#[test]
fn an_application_without_a_generation_cannot_tell_its_current_tracker() {
    let input = format!(
        "{}\n---\n{}",
        std::fs::read_to_string(format!("{R}/app_garbage_collect.yaml")).unwrap(),
        "apiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: garbage-collect-app-v1-default\n  labels: {app.oam.dev/name: garbage-collect-app, app.oam.dev/namespace: default}\nspec:\n  type: versioned\n  applicationGeneration: 1\n"
    );
    let (code, _, err) = common::run_stdin(&["plan", "--gc"], &input);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "Application.core.oam.dev/default/garbage-collect-app has 1 resource trackers but no metadata.generation"
        ),
        "{err}"
    );
}

#[test]
fn trackers_that_cannot_be_read_are_refused_with_their_place() {
    let input = "apiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: lost\nspec:\n  type: versioned\n---\napiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: packed\n  labels: {app.oam.dev/name: a, app.oam.dev/namespace: default}\nspec:\n  type: versioned\n  compression: {type: zstd, data: KLUv}\n";
    let (code, _, err) = common::run_stdin(&["plan", "--gc"], input);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ResourceTracker/lost has no `app.oam.dev/name` or `app.oam.dev/namespace` label"), "{err}");
    assert!(err.contains("ResourceTracker/packed stores its managed resources compressed (zstd)"), "{err}");
    assert!(err.contains("<stdin>:4:9"), "{err}");
    assert!(err.contains("<stdin>:15:23"), "{err}");
}

#[test]
fn trackers_whose_application_is_not_in_the_snapshot_are_marked_only_in_a_closed_world() {
    let p = plan(&["--gc", &format!("{K}/no-application.yaml")]);
    assert_eq!(steps(&p), Vec::<Vec<String>>::new(), "{p}");
    assert!(stage(&p, "mark", "tracker", "reason").iter().all(|(_, r)| r == "application-not-in-snapshot"));
    assert!(p["stages"]["mark"].as_array().unwrap().iter().all(|m| m["marked"] == false));
    let p = plan(&["--gc", "--closed-world", &format!("{K}/no-application.yaml")]);
    assert_eq!(steps(&p).len(), 2, "{p}");
    assert_eq!(steps(&p)[1].len(), 3, "{p}");
    let tracker = &p["steps"][1]["resources"][1];
    assert_eq!(
        tracker["reason"],
        "mark: its application Application.core.oam.dev/default/app is not in the snapshot (--closed-world)"
    );
}

/// A tracker of generation 1, an Application at generation 2 with `status`,
/// and the ConfigMap only the outdated tracker records.
fn upgraded(status: &str, uid_label: &str) -> String {
    format!(
        "apiVersion: core.oam.dev/v1beta1\nkind: Application\nmetadata: {{name: app, namespace: default, generation: 2}}\nspec:\n  components: [{{name: web, type: k8s-objects}}]\n{status}---\napiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: app-v1-default\n  labels: {{app.oam.dev/name: app, app.oam.dev/namespace: default{uid_label}}}\nspec:\n  type: versioned\n  applicationGeneration: 1\n  managedResources:\n  - {{apiVersion: v1, kind: ConfigMap, namespace: default, name: old, component: web}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: old, namespace: default}}\n"
    )
}

#[test]
fn an_application_without_a_status_has_no_succeeded_workflow_to_mark_after() {
    let (code, out, err) = common::run_stdin(&["plan", "--gc", "-o", "json"], &upgraded("", ""));
    assert_eq!(code, 0, "{err}");
    let p: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(steps(&p), Vec::<Vec<String>>::new(), "{p}");
    assert_eq!(p["stages"]["mark"][0]["reason"], "workflow-not-succeeded");
    assert_eq!(
        p["stages"]["mark"][0]["message"],
        "not marked: Application.core.oam.dev/default/app has no status in the snapshot; the controller marks outdated trackers only once its workflow has succeeded"
    );
    // The workflow's own status, without the Application's phase, says it too.
    let (_, out, _) =
        common::run_stdin(&["plan", "--gc", "-o", "json"], &upgraded("status:\n  workflow: {status: succeeded}\n", ""));
    let p: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(steps(&p), s(&[&["ConfigMap/default/old"], &[V1]]), "{p}");
}

#[test]
fn a_tracker_with_a_uid_label_whose_application_has_no_uid_cannot_be_told() {
    let input = upgraded("status: {status: running}\n", ", app.oam.dev/uid: 5f1c");
    let (code, _, err) = common::run_stdin(&["plan", "--gc"], &input);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("ResourceTracker.core.oam.dev/app-v1-default is labelled app.oam.dev/uid 5f1c, and Application.core.oam.dev/default/app has no metadata.uid in the snapshot"),
        "{err}"
    );
    // Outside --gc, only where the plan reaches that Application.
    let (code, _, err) = common::run_stdin(&["plan", "--delete", "configmap/default/old"], &input);
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = common::run_stdin(&["plan", "--delete", "resourcetracker/app-v1-default"], &input);
    assert_eq!(code, 1);
}

#[test]
fn skip_gc_that_the_policy_no_longer_says_keeps_with_a_warning() {
    // The never rule is gone; the root tracker still records the Secret
    // with skipGC: the keeper follows the record (and the plan says so).
    let text = std::fs::read_to_string(format!("{K}/app-deleted.yaml")).unwrap();
    let input = text.replace("          - selector: {resourceTypes: [Secret]}\n            strategy: never\n", "");
    assert_ne!(input, text);
    let (code, out, err) = common::run_stdin(&["plan", "--gc", "-o", "json"], &input);
    assert_eq!(code, 0, "{err}");
    let p: Value = serde_json::from_str(&out).unwrap();
    assert!(
        kept(&p).iter().any(|(r, why)| r == "Secret/shop/web-tls" && why.ends_with("records it with skipGC")),
        "{p}"
    );
    let warnings: Vec<&str> =
        p["warnings"].as_array().unwrap().iter().map(|w| w["message"].as_str().unwrap()).collect();
    assert_eq!(warnings, ["Secret/shop/web-tls is kept: ResourceTracker.core.oam.dev/shop-shop records it with skipGC, though no rule of the garbage-collect policy of Application.core.oam.dev/shop/shop selects it now; a strategy acts when a resource is dispatched, and KubeVela's resource keeper follows the record"]);
}

#[test]
fn a_current_tracker_older_than_an_outdated_one_stops_the_keeper() {
    // `ListApplicationResourceTrackers` checks it whatever picks the current
    // tracker: here the generation.
    let input = format!(
        "{}---\napiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: app-v3-default\n  labels: {{app.oam.dev/name: app, app.oam.dev/namespace: default}}\nspec:\n  type: versioned\n  applicationGeneration: 3\n---\napiVersion: core.oam.dev/v1beta1\nkind: ResourceTracker\nmetadata:\n  name: app-v2-default\n  labels: {{app.oam.dev/name: app, app.oam.dev/namespace: default}}\nspec:\n  type: versioned\n  applicationGeneration: 2\n",
        upgraded("status: {status: running}\n", "")
    );
    let (code, _, err) = common::run_stdin(&["plan", "--gc"], &input);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Application.core.oam.dev/default/app is at generation 2, whose tracker ResourceTracker.core.oam.dev/app-v2-default is of generation 2, older than an outdated tracker of generation 3"),
        "{err}"
    );
}
