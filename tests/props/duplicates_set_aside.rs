//! A plan made despite duplicates (TD002) is the plan made with every
//! duplicate resolved, either way (issue 38): over random snapshots of
//! ConfigMaps in two namespaces (their Namespaces there or not), with owner
//! references (right uid, another, a copy's), depends-on annotations and
//! labels, where some objects are written twice with other content (other
//! owners, dependencies, labels and uid). Whenever `plan --delete` (a name
//! or a label) succeeds with duplicates, every choice of one copy per
//! duplicate gives the same plan: the same steps, reasons, kept, orphaned,
//! relaxed, cycles, events and warnings, but the duplicates' own.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::props_gen::{run, write};
use proptest::prelude::*;
use serde_json::Value;
use std::fmt::Write as _;

const NAMESPACES: [&str; 2] = ["a", "b"];

/// One document of an object.
#[derive(Clone, Debug)]
struct Doc {
    /// (owner index, right uid?)
    owners: Vec<(usize, bool)>,
    deps: Vec<usize>,
    team: bool,
}

#[derive(Clone, Debug)]
struct Obj {
    ns: usize,
    doc: Doc,
    /// A second document with other content: a duplicate.
    again: Option<Doc>,
}

fn doc(n: usize) -> impl Strategy<Value = Doc> {
    // Sparse, so that some duplicates stand apart from the plan.
    (
        proptest::collection::vec((0..n, proptest::bool::weighted(0.8)), 0..3),
        proptest::bool::weighted(0.4),
        proptest::collection::vec(0..n, 0..2),
        proptest::bool::weighted(0.3),
        proptest::bool::weighted(0.3),
    )
        .prop_map(|(mut owners, owned, mut deps, depends, team)| {
            owners.truncate(if owned { owners.len() } else { 0 });
            deps.truncate(if depends { deps.len() } else { 0 });
            Doc { owners, deps, team }
        })
}

fn snapshot() -> impl Strategy<Value = (Vec<Obj>, Vec<bool>, usize, bool)> {
    (2usize..12).prop_flat_map(|n| {
        let obj = (0..NAMESPACES.len(), doc(n), proptest::option::weighted(0.25, doc(n)))
            .prop_map(|(ns, doc, again)| Obj { ns, doc, again });
        (
            proptest::collection::vec(obj, n),
            proptest::collection::vec(any::<bool>(), NAMESPACES.len()),
            0..n,
            proptest::bool::weighted(0.2),
        )
    })
}

/// The snapshot as YAML; `copy(i)`: which documents of object `i` to write
/// (first, second).
fn yaml(objs: &[Obj], namespaces: &[bool], copy: impl Fn(usize) -> (bool, bool)) -> String {
    let mut out = String::new();
    for (i, ns) in NAMESPACES.iter().enumerate() {
        if namespaces[i] {
            let _ = write!(out, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  uid: ns-{ns}\n");
        }
    }
    let one = |i: usize, d: &Doc, uid: &str| {
        let o = &objs[i];
        let ns = NAMESPACES[o.ns];
        let team = if d.team { "red" } else { "blue" };
        let mut s = format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o{i}\n  namespace: {ns}\n  uid: {uid}\n  labels: {{team: {team}}}\n"
        );
        let deps: Vec<String> =
            d.deps.iter().map(|&j| format!("/namespaces/{}/ConfigMap/o{j}", NAMESPACES[objs[j].ns])).collect();
        if !deps.is_empty() {
            let _ = writeln!(s, "  annotations:\n    config.kubernetes.io/depends-on: {}", deps.join(","));
        }
        if !d.owners.is_empty() {
            s.push_str("  ownerReferences:\n");
            for &(j, right) in &d.owners {
                // A wrong uid may be the owner's second copy's.
                let uid = if right { format!("u{j}") } else { format!("u{j}b") };
                let _ = writeln!(s, "  - {{apiVersion: v1, kind: ConfigMap, name: o{j}, uid: {uid}}}");
            }
        }
        s
    };
    for (i, o) in objs.iter().enumerate() {
        let (first, second) = copy(i);
        if first {
            out.push_str(&one(i, &o.doc, &format!("u{i}")));
        }
        if let (Some(d), true) = (&o.again, second) {
            out.push_str(&one(i, d, &format!("u{i}b")));
        }
    }
    out
}

/// A plan without what the duplicates change by being there: its inputs,
/// the places of its objects in them (the files differ), the duplicates'
/// own warnings, and the count of warnings.
fn comparable(mut plan: Value) -> Value {
    fn unplaced(v: &mut Value) {
        match v {
            Value::Object(o) => {
                for key in ["file", "line", "offset", "length"] {
                    o.remove(key);
                }
                o.values_mut().for_each(unplaced);
            }
            Value::Array(a) => a.iter_mut().for_each(unplaced),
            _ => {}
        }
    }
    unplaced(&mut plan);
    let o = plan.as_object_mut().unwrap();
    o.remove("inputs");
    o.remove("command");
    if let Some(w) = o.get_mut("warnings").and_then(Value::as_array_mut) {
        w.retain(|w| w["rule"] != "TD002");
    }
    if let Some(s) = o.get_mut("summary").and_then(Value::as_object_mut) {
        s.remove("warnings");
    }
    plan
}

proptest! {
    #![proptest_config(crate::props_gen::config(120))]

    #[test]
    fn a_plan_made_despite_duplicates_is_the_plan_of_either_copy(
        (objs, namespaces, target, by_label) in snapshot()
    ) {
        let dir = tempfile::tempdir().unwrap();
        let all = write(dir.path(), "all.yaml", &yaml(&objs, &namespaces, |_| (true, true)));
        let select: Vec<String> = match by_label {
            true => vec!["-l".into(), "team=red".into()],
            false => vec!["--delete".into(), format!("cm/{}/o{target}", NAMESPACES[objs[target].ns])],
        };
        let plan_of = |file: &std::path::Path| {
            let mut args: Vec<String> = vec!["plan".into(), "-o".into(), "json".into()];
            args.extend(select.iter().cloned());
            args.push(file.display().to_string());
            run(&args)
        };
        let (code, out, err) = plan_of(&all);
        let twice: Vec<usize> = (0..objs.len()).filter(|&i| objs[i].again.is_some()).collect();
        if twice.is_empty() || code != 0 {
            // No duplicate, or a plan refused (for a duplicate that could
            // change it, or for another reason): nothing to compare.
            let _ = err;
            return Ok(());
        }
        let made = comparable(serde_json::from_str(&out).unwrap());
        // Every choice of one copy per duplicate.
        for choice in 0u32..(1 << twice.len()) {
            let keep_second = |i: usize| twice.iter().position(|&t| t == i).is_some_and(|k| choice & (1 << k) != 0);
            let text = yaml(&objs, &namespaces, |i| match objs[i].again {
                Some(_) => (!keep_second(i), keep_second(i)),
                None => (true, false),
            });
            let one = write(dir.path(), &format!("one-{choice}.yaml"), &text);
            let (c, o, e) = plan_of(&one);
            prop_assert_eq!(c, 0, "choice {}: the plan with duplicates was made, this one is not: {}", choice, e);
            let resolved = comparable(serde_json::from_str(&o).unwrap());
            prop_assert_eq!(&made, &resolved, "choice {}:\n{}", choice, text);
        }
    }
}
