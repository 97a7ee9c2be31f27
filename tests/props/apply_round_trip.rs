//! The apply round trip (issue 19, deliverable 3; CONTRACT §7): plan a
//! generated snapshot split across files (YAML streams, JSON and YAML
//! `List`s, JSON arrays), save the plan (`plan … -o json`), `apply` it to
//! the files, read them back.
//!
//! Invariants, for `--delete` of random targets (background and orphan
//! cascades), `--gc` and `--all`:
//! - apply succeeds, and the files then hold exactly the objects the plan
//!   does not delete (read back with `check -o json`, and parsed here);
//! - no reference left dangling by the plan: every owner reference and
//!   depends-on entry that named an object of the snapshot before names
//!   one after, unless the plan removed that reference (an orphaned
//!   object's), and `check` after finds no object with a dangling
//!   reference (TD003 owner not found, TD010 dependency not found) that
//!   had none before (an owner reference already broken — TD004, TD005,
//!   TD006 — may become TD003 when its object goes).
//!
//! The same for native snapshots (`owners`, `destroyAfter`).
//!
//! Defects the property found, fixed, each with a test at the end:
//! - A: an object kept because another solid owner stays kept its owner
//!   reference to the owner the plan deletes (TD003 after apply); apply now
//!   takes it out, as the Kubernetes collector does.
//! - B: the plan deleted an object that a Kubernetes object it keeps
//!   depends on (`config.kubernetes.io/depends-on`) without a word; it now
//!   warns (`dependent-stays`), and the annotation (never rewritten) is left
//!   to `check` (TD010), as warned.
//! - C: native `destroyAfter` entries naming a deleted resource stayed
//!   (TD010 after apply); apply now takes them out.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::props_gen;
use props_gen::{file_text, kube, run, uid, Kube, KubeOpts, Native};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

#[derive(Clone, Debug)]
struct Case {
    snap: Kube,
    targets: Vec<usize>,
    /// Each document's file (of `files`), each file's format.
    of: Vec<usize>,
    format: Vec<u8>,
}

fn case() -> impl Strategy<Value = Case> {
    kube(10, KubeOpts { waves: false, keep: false, ..KubeOpts::ALL }).prop_flat_map(|snap| {
        let n = snap.objs.len();
        let docs = snap.documents().len();
        (Just(snap), proptest::collection::vec(0..n, 1..3), 1usize..4).prop_flat_map(move |(snap, targets, files)| {
            (
                Just(snap),
                Just(targets),
                proptest::collection::vec(0..files, docs),
                proptest::collection::vec(0u8..4, files),
            )
                .prop_map(|(snap, targets, of, format)| Case { snap, targets, of, format })
        })
    })
}

/// Write the snapshot's files into `dir`: their paths.
fn write_files(c: &Case, dir: &Path) -> Vec<String> {
    let docs = c.snap.documents();
    (0..c.format.len())
        .map(|j| {
            let mine: Vec<Value> = docs.iter().zip(&c.of).filter(|(_, &f)| f == j).map(|(d, _)| d.clone()).collect();
            let (text, ext) = file_text(&mine, c.format[j]);
            props_gen::write(dir, &format!("f{j}.{ext}"), &text).to_string_lossy().into_owned()
        })
        .collect()
}

/// Every object document in the files, parsed (JSON or YAML; streams,
/// `List`s and arrays).
fn documents(paths: &[String]) -> Vec<Value> {
    let mut out = Vec::new();
    for p in paths {
        let Ok(text) = std::fs::read_to_string(p) else { continue }; // a file apply emptied is gone
        let values: Vec<Value> = match serde_json::from_str::<Value>(&text) {
            Ok(v) => vec![v],
            Err(_) => serde_yaml::Deserializer::from_str(&text)
                .filter_map(|d| <Value as serde::Deserialize>::deserialize(d).ok())
                .collect(),
        };
        for v in values {
            match v {
                Value::Array(items) => out.extend(items),
                Value::Object(ref o) if o.contains_key("items") => {
                    out.extend(o["items"].as_array().cloned().unwrap_or_default())
                }
                Value::Null => {}
                v => out.push(v),
            }
        }
    }
    out
}

/// `check -o json`: its findings of `rules`, as (rule, message, the
/// object it is about).
fn findings(paths: &[String], rules: &[&str]) -> BTreeSet<(String, String, String)> {
    let mut args = vec!["check".to_string(), "-o".into(), "json".into(), "--exit-zero".into()];
    args.extend(paths.iter().filter(|p| Path::new(p).exists()).cloned());
    let (_, out, _) = run(&args);
    let v: Value = serde_json::from_str(&out).unwrap_or_default();
    let text = |x: &Value| x.as_str().unwrap_or("").to_string();
    v["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| rules.iter().any(|r| f["rule"] == *r))
        .map(|f| (text(&f["rule"]), text(&f["message"]), text(&f["refs"][0])))
        .collect()
}

/// Plan, save, apply: the plan.
fn plan_and_apply(dir: &Path, mode: &[String], paths: &[String]) -> Result<Value, String> {
    let mut args: Vec<String> = vec!["plan".into(), "-o".into(), "json".into(), "--allow-cycles".into()];
    args.extend(mode.iter().cloned());
    args.extend(paths.iter().cloned());
    let (code, out, err) = run(&args);
    if code != 0 {
        return Err(format!("{args:?}: exit {code}\n{err}"));
    }
    let plan: Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let file = props_gen::write(dir, "plan.json", &out).to_string_lossy().into_owned();
    let (code, _, err) = run(&["apply", file.as_str(), "--no-backup"]);
    if code != 0 {
        return Err(format!("apply of {mode:?}: exit {code}\n{err}"));
    }
    Ok(plan)
}

fn refs_in(plan: &Value, key: &str) -> BTreeSet<String> {
    let list = match key {
        "steps" => plan["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|s| s["resources"].as_array().into_iter().flatten())
            .collect::<Vec<_>>(),
        k => plan[k].as_array().into_iter().flatten().collect(),
    };
    list.into_iter().filter_map(|r| r["ref"].as_str().map(String::from)).collect()
}

/// A Kubernetes document's reference, as teardown writes it.
fn reference_of(k: &Kube, doc: &Value) -> Option<String> {
    let uid = doc["metadata"]["uid"].as_str()?;
    if let Some(i) = uid.strip_prefix('u').and_then(|n| n.parse::<usize>().ok()) {
        return k.objs.get(i).map(|o| o.reference());
    }
    let name = doc["metadata"]["name"].as_str()?;
    match doc["kind"].as_str()? {
        "Namespace" => Some(Kube::namespace_ref(name)),
        _ => Some(format!("CustomResourceDefinition.apiextensions.k8s.io/{name}")),
    }
}

proptest! {
    #![proptest_config(props_gen::config(48))]

    #[test]
    fn applying_a_plan_leaves_no_reference_dangling(c in case()) {
        let sel = c.targets.iter().map(|&i| format!("uid:{}", uid(i))).collect::<Vec<_>>().join(",");
        let modes: Vec<Vec<String>> = [
            vec!["--delete", &sel],
            vec!["--delete", &sel, "--cascade", "orphan"],
            vec!["--gc"],
            vec!["--all"],
        ].iter().map(|m| m.iter().map(|s| s.to_string()).collect()).collect();
        for mode in modes {
            let dir = tempfile::tempdir().unwrap();
            let paths = write_files(&c, dir.path());
            let dangling = ["TD003", "TD004", "TD005", "TD006", "TD010"];
            let before = findings(&paths, &dangling);
            let plan = plan_and_apply(dir.path(), &mode, &paths).map_err(TestCaseError::fail)?;
            let deleted = refs_in(&plan, "steps");
            let orphaned = refs_in(&plan, "orphaned");
            let docs = documents(&paths);
            let after: BTreeSet<String> = docs.iter().filter_map(|d| reference_of(&c.snap, d)).collect();
            // Exactly what the plan does not delete is left.
            let all: BTreeSet<String> = c.snap.documents().iter().filter_map(|d| reference_of(&c.snap, d)).collect();
            let want: BTreeSet<String> = all.difference(&deleted).cloned().collect();
            prop_assert_eq!(&after, &want, "{:?}: what is left", mode);
            // No owner reference to an object of the snapshot names one the
            // plan deleted; a depends-on annotation (never edited) that does
            // was warned about (`dependent-stays`), and that object is left
            // out of what `check` says.
            let warned: BTreeSet<(String, String)> = plan["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|w| w["type"] == "dependent-stays")
                .map(|w| (w["refs"][0].as_str().unwrap_or("").to_string(), w["refs"][1].as_str().unwrap_or("").to_string()))
                .collect();
            let mut open = BTreeSet::new();
            for d in &docs {
                let Some(me) = reference_of(&c.snap, d) else { continue };
                let Some(i) = d["metadata"]["uid"].as_str().and_then(|u| u.strip_prefix('u')).and_then(|n| n.parse::<usize>().ok()) else { continue };
                let now: BTreeSet<&str> = d["metadata"]["ownerReferences"].as_array().into_iter().flatten().filter_map(|o| o["uid"].as_str()).collect();
                // Owner references that were solid before: an object that
                // stays (orphaned, or kept by another owner) lost every one
                // to an owner the plan deleted.
                for o in c.snap.solid_owners(i) {
                    let target = c.snap.objs[o].reference();
                    prop_assert!(
                        !(deleted.contains(&target) && now.contains(uid(o).as_str())),
                        "{:?}: {} (orphaned: {}) still has its owner reference to {}", mode, me, orphaned.contains(&me), target
                    );
                }
                // Its depends-on annotation is as generated (apply never
                // edits it): a deleted target was warned about.
                for j in c.snap.depends_on(i) {
                    let target = c.snap.objs[j].reference();
                    if deleted.contains(&target) {
                        prop_assert!(
                            warned.contains(&(target.clone(), me.clone())),
                            "{:?}: {} depends on {}, which the plan deletes without a warning", mode, me, target
                        );
                        open.insert(me.clone());
                    }
                }
            }
            // `check` agrees: no other object has a dangling reference it did
            // not have (an owner reference already broken — TD003 to TD006 —
            // may be broken another way when an object goes).
            let now = findings(&paths, &dangling);
            let class = |r: &str| r == "TD010";
            for (rule, message, object) in &now {
                let had = before.iter().any(|(r, _, o)| o == object && class(r) == class(rule));
                prop_assert!(had || open.contains(object), "{:?}: check finds a new dangling reference: {} {}", mode, rule, message);
            }
        }
    }
}

fn native_case() -> impl Strategy<Value = (Native, Vec<usize>, bool)> {
    props_gen::native(10).prop_flat_map(|n| {
        let len = n.res.len();
        (Just(n), proptest::collection::vec(0..len, 1..3), any::<bool>())
    })
}

proptest! {
    #![proptest_config(props_gen::config(64))]

    #[test]
    fn applying_a_native_plan_leaves_no_reference_dangling((n, targets, orphan) in native_case()) {
        let dir = tempfile::tempdir().unwrap();
        let all: Vec<usize> = (0..n.res.len()).collect();
        let path = props_gen::write(dir.path(), "native.yaml", &n.document(&all)).to_string_lossy().into_owned();
        let sel = targets.iter().map(|&i| format!("id:{}", Native::id(i))).collect::<Vec<_>>().join(",");
        let mut mode = vec!["--delete".to_string(), sel];
        if orphan {
            mode.extend(["--cascade".to_string(), "orphan".to_string()]);
        }
        let plan = plan_and_apply(dir.path(), &mode, std::slice::from_ref(&path)).map_err(TestCaseError::fail)?;
        let deleted = refs_in(&plan, "steps");
        let after: Value = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap_or_default()).unwrap_or_default();
        let left: Vec<&Value> = after["resources"].as_array().into_iter().flatten().collect();
        let ids: BTreeSet<String> = left.iter().filter_map(|r| r["id"].as_str().map(String::from)).collect();
        let want: BTreeSet<String> = all.iter().map(|&i| Native::id(i)).filter(|i| !deleted.contains(i)).collect();
        prop_assert_eq!(&ids, &want, "{:?}: what is left", mode);
        // No resource left names one the plan deleted: an orphaned one, or
        // one another owner keeps, lost its `owners` entry; a `destroyAfter`
        // entry naming a deleted resource is gone.
        let orphaned = refs_in(&plan, "orphaned");
        for r in left {
            let id = r["id"].as_str().unwrap_or_default();
            for key in ["owners", "destroyAfter"] {
                for t in r[key].as_array().into_iter().flatten().filter_map(Value::as_str) {
                    prop_assert!(
                        !deleted.contains(t),
                        "{:?}: {} (orphaned: {}) still names {} in {}", mode, id, orphaned.contains(id), t, key
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The defects the property found, worked out by hand.

use crate::common;

/// Plan `args` on a copy of `fixture`, apply it, check the result: the
/// plan, the file after, and the findings of TD003 and TD010 after.
fn round_trip(fixture: &str, args: &[&str]) -> (Value, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let name = Path::new(fixture).file_name().unwrap().to_string_lossy().into_owned();
    let copy = props_gen::write(dir.path(), &name, &std::fs::read_to_string(fixture).unwrap());
    let copy = copy.to_string_lossy().into_owned();
    let mut plan = vec!["plan", "-o", "json"];
    plan.extend_from_slice(args);
    plan.push(&copy);
    let (code, out, err) = common::run(&plan);
    assert_eq!(code, 0, "{err}");
    let file = props_gen::write(dir.path(), "plan.json", &out).to_string_lossy().into_owned();
    let (code, _, err) = common::run(&["apply", &file, "--no-backup"]);
    assert_eq!(code, 0, "{err}");
    let (_, v) = common::check_json(&[&copy]);
    let findings = common::findings(&v).into_iter().filter(|f| f.0 == "TD003" || f.0 == "TD010").map(|f| f.0).collect();
    (serde_json::from_str(&out).unwrap(), std::fs::read_to_string(&copy).unwrap(), findings)
}

/// A: Pod/prod/shared, owned by ReplicaSets left and right, stays when
/// left goes, and loses its owner reference to left (as the Kubernetes
/// collector takes it out), keeping the one to right. Was: kept, and
/// TD003 after apply.
#[test]
fn a_kept_object_keeps_no_reference_to_a_deleted_owner() {
    let (plan, after, findings) = round_trip("fixtures/plan/two-owners.yaml", &["--delete", "rs/left"]);
    assert!(plan["warnings"].as_array().unwrap().is_empty(), "{plan}");
    assert!(findings.is_empty(), "{findings:?}");
    assert!(!after.contains("uid: rs-left"), "{after}");
    assert!(
        after.contains("  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: right, uid: rs-right}\n"),
        "{after}"
    );
}

/// B: the plan deletes ConfigMap settings, which Deployment app (kept)
/// depends on: it says so (`dependent-stays`), and `check` after apply
/// finds the dependency that names nothing (TD010), as warned. Was: not a
/// word. The annotation is not rewritten.
#[test]
fn a_plan_that_deletes_what_a_kept_object_depends_on_says_so() {
    let (plan, after, findings) = round_trip("fixtures/apply/dangling-depends-on.yaml", &["--delete", "cm/settings"]);
    let warnings = plan["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{plan}");
    assert_eq!(warnings[0]["type"], "dependent-stays");
    assert_eq!(warnings[0]["refs"], serde_json::json!(["ConfigMap/shop/settings", "Deployment.apps/shop/app"]));
    assert_eq!(
        warnings[0]["message"],
        "ConfigMap/shop/settings is deleted but Deployment.apps/shop/app, which depends on it, stays: that dependency breaks, and names an object that is gone"
    );
    assert!(after.contains("config.kubernetes.io/depends-on: /namespaces/shop/ConfigMap/settings"), "{after}");
    assert_eq!(findings, ["TD010"]);
}

/// C: net, destroyed after vm, stays when vm goes: its `destroyAfter`
/// entry naming vm is taken out (the key with it). Was: left, and TD010
/// after apply.
#[test]
fn a_destroy_after_entry_naming_a_deleted_resource_is_taken_out() {
    let (plan, after, findings) = round_trip("fixtures/apply/dangling-destroy-after.yaml", &["--delete", "id:vm"]);
    assert!(plan["warnings"].as_array().unwrap().is_empty(), "{plan}");
    assert!(findings.is_empty(), "{findings:?}");
    assert!(after.ends_with("resources:\n- id: net\n\n"), "{after}");
}

/// The mirror of C: vm, destroyed after net, goes while net stays: net
/// depends on it, and the plan says so. Nothing is left dangling in the
/// file (the entry was vm's).
#[test]
fn deleting_a_resource_that_must_outlive_a_kept_one_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = props_gen::write(dir.path(), "n.yaml", "resources:\n- id: vm\n  destroyAfter: [net]\n- id: net\n");
    let (code, out, err) = common::run(&["plan", "-o", "json", "--delete", "id:vm", path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(plan["warnings"][0]["type"], "dependent-stays", "{plan}");
    assert_eq!(plan["warnings"][0]["refs"], serde_json::json!(["vm", "net"]));
}
