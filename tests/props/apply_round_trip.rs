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
//! - D (in the property, not in teardown): it took any owner reference
//!   carrying a deleted owner's uid for a reference to that owner. One
//!   under other coordinates is none (CONTRACT §5: dangling, TD004, before
//!   the plan), and apply leaves it as it is (README, `teardown apply`): in
//!   the case found, a cluster-scoped object kept because that reference
//!   names a namespaced kind, which the collector never patches. The
//!   property now matches a reference by its own coordinates and uid, and
//!   checks that an object that stays, not orphaned, keeps every reference
//!   that was broken before.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::props_gen;
use props_gen::{file_text, kube, run, uid, Kube, KubeOpts, Native, Obj, Owner};
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

/// Does the owner reference `r` (as read back) name object `o` at `o`'s
/// own coordinates (group from its apiVersion, kind, name) with `o`'s uid?
/// A reference that only carries `o`'s uid, under other coordinates, is
/// not a reference to `o` (CONTRACT §5: dangling, TD004).
fn names_at_coordinates(k: &Kube, r: &Value, o: usize) -> bool {
    let d = k.objs[o].def();
    let group = |api: &str| api.rsplit_once('/').map_or("", |(g, _)| g).to_string();
    r["apiVersion"].as_str().map(group) == Some(group(d.api))
        && r["kind"] == d.kind
        && r["name"] == k.objs[o].name.as_str()
        && r["uid"] == uid(o).as_str()
}

proptest! {
    #![proptest_config(props_gen::config(48))]

    #[test]
    fn applying_a_plan_leaves_no_reference_dangling(c in case()) {
        round_trip_holds(&c)?;
    }
}

/// The property, for one case.
fn round_trip_holds(c: &Case) -> Result<(), TestCaseError> {
    let sel = c.targets.iter().map(|&i| format!("uid:{}", uid(i))).collect::<Vec<_>>().join(",");
    let modes: Vec<Vec<String>> =
        [vec!["--delete", &sel], vec!["--delete", &sel, "--cascade", "orphan"], vec!["--gc"], vec!["--all"]]
            .iter()
            .map(|m| m.iter().map(|s| s.to_string()).collect())
            .collect();
    for mode in modes {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_files(c, dir.path());
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
            let Some(i) =
                d["metadata"]["uid"].as_str().and_then(|u| u.strip_prefix('u')).and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            let now: Vec<&Value> = d["metadata"]["ownerReferences"].as_array().into_iter().flatten().collect();
            // Owner references that were solid before: an object that
            // stays (orphaned, or kept by another owner) lost every one
            // to an owner the plan deleted. A reference that carries
            // that owner's uid under other coordinates was never one
            // to it (TD004 before the plan), and is the next check's.
            for o in c.snap.solid_owners(i) {
                let target = c.snap.objs[o].reference();
                prop_assert!(
                    !(deleted.contains(&target) && now.iter().any(|r| names_at_coordinates(&c.snap, r, o))),
                    "{:?}: {} (orphaned: {}) still has its owner reference to {}",
                    mode,
                    me,
                    orphaned.contains(&me),
                    target
                );
            }
            // An object that stays and is not orphaned keeps every
            // owner reference that was broken before the plan, as it is
            // (README, `teardown apply`): the collector never takes one
            // out of an object it does not collect (a cluster-scoped
            // one with a namespaced owner: it stops at that reference),
            // and taking out the one that keeps it would let a later
            // plan delete it.
            if !orphaned.contains(&me) {
                for r in c.snap.objs[i].owners.iter().filter(|r| c.snap.solid(i, r).is_none()) {
                    let written = c.snap.owner_ref(r);
                    prop_assert!(
                        now.iter().any(|n| **n == written),
                        "{:?}: {} lost its owner reference {}, broken before the plan",
                        mode,
                        me,
                        written
                    );
                }
            }
            // Its depends-on annotation is as generated (apply never
            // edits it): a deleted target was warned about.
            for j in c.snap.depends_on(i) {
                let target = c.snap.objs[j].reference();
                if deleted.contains(&target) {
                    prop_assert!(
                        warned.contains(&(target.clone(), me.clone())),
                        "{:?}: {} depends on {}, which the plan deletes without a warning",
                        mode,
                        me,
                        target
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
            prop_assert!(
                had || open.contains(object),
                "{:?}: check finds a new dangling reference: {} {}",
                mode,
                rule,
                message
            );
        }
    }
    Ok(())
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

/// D: the case the property found (tests/props_apply.proptest-regressions),
/// written out. Widget.b.example.com/web (cluster-scoped) names x twice
/// with x's uid: at x's coordinates, and as a Widget of a.example.com, a
/// namespaced kind (so the collector never collects web, nor patches it:
/// kept). `--delete uid:u1` deletes x; apply takes out web's reference to
/// x and leaves the other as it is. The property took that one for a
/// reference to x.
#[test]
fn a_reference_with_a_deleted_owners_uid_under_other_coordinates_stays() {
    let obj = |kind, ns, name: &str, owners, deps, deleting, finalizers, label| Obj {
        kind,
        ns,
        name: name.into(),
        owners,
        deps,
        deleting,
        finalizers,
        label,
        keep: false,
        wave: None,
    };
    let snap = Kube {
        objs: vec![
            obj(3, 0, "web", vec![Owner::OtherGroup { i: 3 }], vec![0], false, vec![], None),
            obj(9, 0, "x", vec![Owner::WrongUid { i: 2 }], vec![], false, vec![], None),
            obj(10, 0, "api", vec![Owner::Right { i: 0, controller: false }], vec![], true, vec![1], None),
            obj(
                9,
                2,
                "web",
                vec![Owner::Right { i: 1, controller: true }, Owner::OtherGroup { i: 1 }],
                vec![],
                false,
                vec![],
                Some(0),
            ),
        ],
        namespaces: vec![true; 3],
        ns_deleting: vec![false; 3],
        crds: [false, false, false, false, false, false, false, true, true, true, true].to_vec(),
    };
    let c = Case { snap, targets: vec![1], of: vec![0; 11], format: vec![0, 0] };
    round_trip_holds(&c).unwrap();
}

/// D, by hand (fixtures/apply/never-collected-other-coordinates.yaml,
/// worked out there): web loses its reference to x, keeps the one with
/// x's uid under a.example.com and the one to a Widget that is not there,
/// and a `--gc --closed-world` plan after still keeps it, as the collector
/// does (it never collects a cluster-scoped object with a namespaced
/// owner). Taking the reference with x's uid out as well would let that
/// plan delete web.
#[test]
fn an_object_the_collector_never_collects_keeps_its_broken_references() {
    let fixture = "fixtures/apply/never-collected-other-coordinates.yaml";
    let (plan, after, findings) = round_trip(fixture, &["--delete", "widgets.b.example.com/x"]);
    assert_eq!(plan["kept"][0]["ref"], "Widget.b.example.com/web", "{plan}");
    assert_eq!(plan["kept"][0]["reasons"][0]["type"], "namespaced-owner", "{plan}");
    let refs = "  ownerReferences:\n  - {apiVersion: a.example.com/v1, kind: Widget, name: x, uid: 0d000000-0000-0000-0000-000000000001}\n  - {apiVersion: b.example.com/v1alpha1, kind: Widget, name: gone, uid: 0d000000-0000-0000-0000-000000000009}\n";
    assert!(after.ends_with(refs), "{after}");
    assert!(!after.contains("name: x, uid: 0d000000-0000-0000-0000-000000000001, controller: true"), "{after}");
    assert_eq!(findings, ["TD003", "TD003"], "{after}");
    // The plan after keeps web; had apply also taken out the reference
    // with x's uid, it would delete web, which the collector never does.
    let dir = tempfile::tempdir().unwrap();
    let gc = |name: &str, text: &str| {
        let copy = props_gen::write(dir.path(), name, text).to_string_lossy().into_owned();
        let (code, out, err) = common::run(&["plan", "--gc", "--closed-world", "-o", "json", &copy]);
        assert_eq!(code, 0, "{err}");
        refs_in(&serde_json::from_str(&out).unwrap(), "steps")
    };
    assert!(gc("after.yaml", &after).is_empty());
    let by_uid = after.replace(
        "  - {apiVersion: a.example.com/v1, kind: Widget, name: x, uid: 0d000000-0000-0000-0000-000000000001}\n",
        "",
    );
    assert_eq!(gc("by-uid.yaml", &by_uid), BTreeSet::from(["Widget.b.example.com/web".to_string()]));
}
