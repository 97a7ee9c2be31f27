//! A plan made despite duplicates (TD002) is the plan made with every
//! duplicate resolved, either way (issue 38): over random snapshots of
//! ConfigMaps, Deployments, Services, Roles and RoleBindings in two
//! namespaces (their Namespaces there or not; a webhook configuration
//! calling one of the Services, or not), with owner references (right uid,
//! another, a copy's), depends-on annotations, labels, ServiceAccounts,
//! selectors and subjects (what the default rules read), where some
//! objects are written twice with other content (other owners,
//! dependencies, labels, accounts, selectors, subjects and uid). Whenever `plan --delete` (a name
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

/// The kinds of the snapshots: (apiVersion, kind, group, what a selector calls it).
const KINDS: [(&str, &str, &str, &str); 5] = [
    ("v1", "ConfigMap", "", "configmap"),
    ("apps/v1", "Deployment", "apps", "deployment"),
    ("v1", "Service", "", "service"),
    ("rbac.authorization.k8s.io/v1", "Role", "rbac.authorization.k8s.io", "role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", "rbac.authorization.k8s.io", "rolebinding"),
];

/// One document of an object.
#[derive(Clone, Debug)]
struct Doc {
    /// (owner index, right uid?)
    owners: Vec<(usize, bool)>,
    deps: Vec<usize>,
    team: bool,
    /// A Deployment's ServiceAccount and Pod labels, a Service's selector,
    /// a RoleBinding's subject: `red` or `blue`.
    red: bool,
}

#[derive(Clone, Debug)]
struct Obj {
    ns: usize,
    /// Index into KINDS.
    kind: usize,
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
        any::<bool>(),
    )
        .prop_map(|(mut owners, owned, mut deps, depends, team, red)| {
            owners.truncate(if owned { owners.len() } else { 0 });
            deps.truncate(if depends { deps.len() } else { 0 });
            Doc { owners, deps, team, red }
        })
}

/// Objects, Namespaces present, the target, by label?, the webhook
/// configuration's Service (and whether it is a target too).
type Generated = (Vec<Obj>, Vec<bool>, usize, bool, Option<(usize, bool)>);

fn snapshot() -> impl Strategy<Value = Generated> {
    (2usize..12).prop_flat_map(|n| {
        let obj = (0..NAMESPACES.len(), 0..KINDS.len(), doc(n), proptest::option::weighted(0.25, doc(n)))
            .prop_map(|(ns, kind, doc, again)| Obj { ns, kind, doc, again });
        (
            proptest::collection::vec(obj, n),
            proptest::collection::vec(any::<bool>(), NAMESPACES.len()),
            0..n,
            proptest::bool::weighted(0.2),
            proptest::option::weighted(0.3, (0..n, any::<bool>())),
        )
    })
}

/// An object's reference as a depends-on annotation writes it.
fn dep_ref(objs: &[Obj], j: usize) -> String {
    let (_, kind, group, _) = KINDS[objs[j].kind];
    format!("{group}/namespaces/{}/{kind}/o{j}", NAMESPACES[objs[j].ns])
}

/// The snapshot as YAML; `copy(i)`: which documents of object `i` to write
/// (first, second); `webhook`: the Service a webhook configuration calls.
fn yaml(objs: &[Obj], namespaces: &[bool], webhook: Option<usize>, copy: impl Fn(usize) -> (bool, bool)) -> String {
    let mut out = String::new();
    for (i, ns) in NAMESPACES.iter().enumerate() {
        if namespaces[i] {
            let _ = write!(out, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  uid: ns-{ns}\n");
        }
    }
    if let Some(k) = webhook {
        let _ = write!(
            out,
            "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\n  uid: w\nwebhooks:\n- name: w.example.com\n  failurePolicy: Fail\n  clientConfig:\n    service: {{namespace: {}, name: o{k}}}\n",
            NAMESPACES[objs[k].ns]
        );
    }
    let one = |i: usize, d: &Doc, uid: &str| {
        let o = &objs[i];
        let ns = NAMESPACES[o.ns];
        let (api, kind, _, _) = KINDS[o.kind];
        let team = if d.team { "red" } else { "blue" };
        let red = if d.red { "red" } else { "blue" };
        let mut s = format!(
            "---\napiVersion: {api}\nkind: {kind}\nmetadata:\n  name: o{i}\n  namespace: {ns}\n  uid: {uid}\n  labels: {{team: {team}}}\n"
        );
        let deps: Vec<String> = d.deps.iter().map(|&j| dep_ref(objs, j)).collect();
        if !deps.is_empty() {
            let _ = writeln!(s, "  annotations:\n    config.kubernetes.io/depends-on: {}", deps.join(","));
        }
        if !d.owners.is_empty() {
            s.push_str("  ownerReferences:\n");
            for &(j, right) in &d.owners {
                // A wrong uid may be the owner's second copy's.
                let uid = if right { format!("u{j}") } else { format!("u{j}b") };
                let (api, kind, _, _) = KINDS[objs[j].kind];
                let _ = writeln!(s, "  - {{apiVersion: {api}, kind: {kind}, name: o{j}, uid: {uid}}}");
            }
        }
        match kind {
            "Deployment" => {
                let _ = writeln!(s, "spec:\n  template:\n    metadata: {{labels: {{app: {red}}}}}\n    spec: {{serviceAccountName: {red}}}");
            }
            "Service" => {
                let _ = writeln!(s, "spec: {{selector: {{app: {red}}}}}");
            }
            "RoleBinding" => {
                // It grants the Role of its first dependency, if that is a Role.
                let role =
                    d.deps.first().filter(|&&j| objs[j].kind == 3).map_or("none".to_string(), |j| format!("o{j}"));
                let _ = writeln!(
                    s,
                    "subjects: [{{kind: ServiceAccount, name: {red}, namespace: {ns}}}]\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {role}}}"
                );
            }
            _ => {}
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
        (objs, namespaces, target, by_label, webhook) in snapshot()
    ) {
        let dir = tempfile::tempdir().unwrap();
        let service = webhook.map(|(k, _)| k).filter(|&k| objs[k].kind == 2);
        let all = write(dir.path(), "all.yaml", &yaml(&objs, &namespaces, service, |_| (true, true)));
        let mut delete = format!("{}/{}/o{target}", KINDS[objs[target].kind].3, NAMESPACES[objs[target].ns]);
        if service.is_some() && webhook.is_some_and(|(_, also)| also) {
            delete.push_str(",validatingwebhookconfiguration/w");
        }
        let select: Vec<String> = match by_label {
            true => vec!["-l".into(), "team=red".into()],
            false => vec!["--delete".into(), delete],
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
            let text = yaml(&objs, &namespaces, service, |i| match objs[i].again {
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
