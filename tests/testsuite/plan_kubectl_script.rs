//! `teardown plan -o kubectl`: the script deletes each step's cascade roots
//! (deleted objects none of whose owners the plan deletes) and nothing
//! else; what goes with its owners is only listed. Checked on fixtures
//! worked out by hand, and as a property of every fixture that reads as
//! Kubernetes: the named objects and what their deletion carries are
//! exactly the plan's deleted objects.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{run, run_stdin};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `teardown plan -o kubectl ARGS…`, which must succeed: the script.
fn script(args: &[&str]) -> String {
    let mut all = vec!["plan", "-o", "kubectl"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{all:?}: {err}");
    out
}

/// The command lines of a script (everything that is not a comment, a
/// blank line or the shell options).
fn commands(script: &str) -> Vec<&str> {
    script.lines().filter(|l| l.starts_with("kubectl ")).collect()
}

/// Every line that runs something: only the shell options and kubectl.
fn runs(script: &str) -> Vec<&str> {
    script.lines().filter(|l| !l.is_empty() && !l.starts_with('#') && *l != "set -euo pipefail").collect()
}

/// A command line split as bash splits it (words, single quotes, and the
/// backslash outside them: all the script writes).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' => out.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    w.push(q);
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    out.extend(word);
    out
}

/// One `kubectl delete`: the resource, the namespace, the names, the flags.
#[derive(Debug, PartialEq, Eq)]
struct Delete {
    resource: String,
    namespace: Option<String>,
    names: Vec<String>,
    flags: Vec<String>,
}

fn parse(line: &str) -> Delete {
    let w = words(line);
    assert_eq!(&w[..2], ["kubectl", "delete"], "{line}");
    let (mut positional, mut flags, mut namespace) = (Vec::new(), Vec::new(), None);
    let mut rest = w[2..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--" => positional.extend(rest.by_ref().cloned()),
            "-n" => namespace = rest.next().cloned(),
            f if f.starts_with('-') => flags.push(f.to_string()),
            _ => positional.push(a.clone()),
        }
    }
    assert!(!positional.is_empty(), "{line}");
    let resource = positional.remove(0);
    Delete { resource, namespace, names: positional, flags }
}

/// What `graph -o json` says of a snapshot: each object by kubectl's
/// coordinates (resource, namespace, name), and every relation.
struct Graph {
    by_coordinates: HashMap<(String, Option<String>, String), String>,
    namespaces: Vec<String>,
    owners: Vec<String>,
    /// (from, to, kind, link)
    edges: Vec<(String, String, String, String)>,
}

fn graph(extra: &[&str], input: &str) -> Option<Graph> {
    let mut args = vec!["graph", "-o", "json"];
    args.extend_from_slice(extra);
    args.push(input);
    let (code, out, _) = run(&args);
    if code != 0 {
        return None;
    }
    let v: Value = serde_json::from_str(&out).ok()?;
    let s = |x: &Value| x.as_str().map(str::to_string);
    let mut g = Graph { by_coordinates: HashMap::new(), namespaces: Vec::new(), owners: Vec::new(), edges: Vec::new() };
    for n in v["nodes"].as_array()? {
        let (kind, name, reference) = (s(&n["kind"])?, s(&n["name"])?, s(&n["ref"])?);
        let resource = match s(&n["group"]) {
            Some(group) => format!("{}.{group}", kind.to_lowercase()),
            None => kind.to_lowercase(),
        };
        if kind == "Namespace" && n["group"].is_null() {
            g.namespaces.push(reference.clone());
        }
        g.by_coordinates.insert((resource, s(&n["namespace"]), name), reference);
    }
    for e in v["edges"].as_array()? {
        let edge = (s(&e["from"])?, s(&e["to"])?, s(&e["kind"])?, s(&e["link"]).unwrap_or_default());
        if edge.2 == "owns" && !g.owners.contains(&edge.0) {
            g.owners.push(edge.0.clone());
        }
        g.edges.push(edge);
    }
    Some(g)
}

/// The references a script deletes by name, in its order.
fn named(script: &str, g: &Graph) -> Vec<String> {
    let mut out = Vec::new();
    for line in commands(script) {
        let d = parse(line);
        for name in d.names {
            let key = (d.resource.clone(), d.namespace.clone(), name);
            let r = g.by_coordinates.get(&key).unwrap_or_else(|| panic!("{line}: no object {key:?}"));
            out.push(r.clone());
        }
    }
    out
}

/// The references a plan (JSON) deletes.
fn deleted(plan: &Value) -> BTreeSet<String> {
    common::steps(plan).into_iter().flatten().collect()
}

/// Does a relation (kind, link) carry its dependent when its owner is
/// deleted? A Namespace its objects, a CRD its custom resources, whatever
/// the propagation; a solid owner reference (or a tracker) unless the
/// deletions orphan.
fn carries(kind: &str, link: &str, orphan: bool) -> bool {
    match kind {
        "contains" | "defines" => true,
        "owns" | "manages" => link == "solid" && !orphan,
        _ => false,
    }
}

/// What deleting `named` deletes, within the plan's `deleted` set.
fn closure(named: &[String], deleted: &BTreeSet<String>, g: &Graph, orphan: bool) -> BTreeSet<String> {
    let mut seen: BTreeSet<String> = named.iter().cloned().collect();
    let mut stack: Vec<String> = named.to_vec();
    while let Some(x) = stack.pop() {
        for (from, to, kind, link) in &g.edges {
            if *from == x && carries(kind, link, orphan) && deleted.contains(to) && seen.insert(to.clone()) {
                stack.push(to.clone());
            }
        }
    }
    seen
}

/// Deleted owners that carry `x`.
fn carrying_owners<'a>(x: &str, deleted: &BTreeSet<String>, g: &'a Graph, orphan: bool) -> Vec<&'a str> {
    g.edges
        .iter()
        .filter(|(from, to, kind, link)| to == x && from != x && deleted.contains(from) && carries(kind, link, orphan))
        .map(|(from, ..)| from.as_str())
        .collect()
}

fn bash_n(script: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("delete.sh");
    std::fs::write(&path, script).unwrap();
    let out = Command::new("bash").arg("-n").arg(&path).output().expect("bash runs");
    assert!(out.status.success(), "bash -n: {}\n{script}", String::from_utf8_lossy(&out.stderr));
}

/// `shellcheck -s bash` on the script: no findings. When shellcheck is not
/// installed, a skip (which fails in CI: `.ci/run` installs it).
fn shellcheck(script: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("delete.sh");
    std::fs::write(&path, script).unwrap();
    match Command::new("shellcheck").args(["-s", "bash"]).arg(&path).output() {
        Ok(out) => assert!(
            out.status.success(),
            "shellcheck: {}{}\n{script}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => crate::common::skip(&format!("shellcheck not run ({e}); only bash -n checked the script")),
    }
}

#[test]
fn deployment_deleted_by_name_alone_with_foreground_cascade() {
    let s = script(&["--delete", "deploy/web", "--cascade", "foreground", "fixtures/plan/deployment.yaml"]);
    assert!(s.starts_with("#!/usr/bin/env bash\nset -euo pipefail\n"), "{s}");
    assert_eq!(
        commands(&s),
        ["kubectl delete deployment.apps web -n prod --cascade=foreground --wait --ignore-not-found"]
    );
    assert_eq!(runs(&s).len(), 1, "{s}");
    // Neither a ReplicaSet nor a Pod is deleted by name; both are listed,
    // going with the Deployment.
    for line in runs(&s) {
        assert!(!line.contains("replicaset") && !line.contains("pod"), "{line}");
    }
    assert!(s.contains("#   ReplicaSet.apps/prod/web-6b7c (goes with Deployment.apps/prod/web)\n"), "{s}");
    assert!(s.contains("#   Pod/prod/web-5d4f-c (goes with Deployment.apps/prod/web)\n"), "{s}");
    assert!(s.contains("# nothing to run: these go with Deployment.apps/prod/web (step 3)\n"), "{s}");
    // The header: mode, counts, cascade, inputs.
    assert!(s.contains("# Deletes Deployment.apps/prod/web (--delete) and what goes with it.\n"), "{s}");
    assert!(s.contains("# 6 objects in 3 steps. The script names 1 of them, the cascade roots"), "{s}");
    assert!(s.contains("The other 5 go with their owners"), "{s}");
    assert!(s.contains("# --cascade=foreground"), "{s}");
    assert!(s.contains("# Generated by teardown from fixtures/plan/deployment.yaml.\n"), "{s}");
}

#[test]
fn each_cascade_mode_is_passed_as_kubectl_names_it() {
    for (flag, expected) in [(None, "background"), (Some("background"), "background"), (Some("orphan"), "orphan")] {
        let mut args = vec!["--delete", "deploy/web", "fixtures/plan/deployment.yaml"];
        if let Some(f) = flag {
            args.extend(["--cascade", f]);
        }
        let s = script(&args);
        assert_eq!(
            commands(&s),
            [format!("kubectl delete deployment.apps web -n prod --cascade={expected} --wait --ignore-not-found")]
        );
    }
}

#[test]
fn a_namespace_takes_what_it_holds() {
    let s = script(&["--delete", "ns/shop", "fixtures/shop"]);
    assert_eq!(commands(&s), ["kubectl delete namespace shop --cascade=background --wait --ignore-not-found"]);
    assert_eq!(runs(&s).len(), 1, "{s}");
    for r in
        ["Pod/shop/db-0", "Deployment.apps/shop/web", "Cart.shop.example.com/shop/cart-1", "Secret/shop/db-password"]
    {
        assert!(s.contains(&format!("#   {r} (goes with Namespace/shop)\n")), "{r}: {s}");
    }
    // The Namespace is cluster-scoped: no -n. The CRD too, with its group.
    let s = script(&["--all", "fixtures/shop"]);
    assert_eq!(
        commands(&s),
        [
            "kubectl delete customresourcedefinition.apiextensions.k8s.io carts.shop.example.com --cascade=background --wait --ignore-not-found",
            "kubectl delete namespace shop --cascade=background --wait --ignore-not-found",
        ]
    );
}

#[test]
fn an_object_with_an_owner_the_plan_keeps_is_never_deleted() {
    // The Pod's other owner stays: the plan keeps the Pod, and the script
    // deletes only the ReplicaSet (the collector keeps the Pod too).
    let s = script(&["--delete", "rs/left", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(
        commands(&s),
        ["kubectl delete replicaset.apps left -n prod --cascade=background --wait --ignore-not-found"]
    );
    assert!(!s.contains("shared"), "{s}");
    // With both owners deleted, the Pod goes with them.
    let s = script(&["--delete", "rs/left,rs/right", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(
        commands(&s),
        ["kubectl delete replicaset.apps left right -n prod --cascade=background --wait --ignore-not-found"]
    );
    assert!(
        s.contains("#   Pod/prod/shared (goes with ReplicaSet.apps/prod/left and ReplicaSet.apps/prod/right)\n"),
        "{s}"
    );
}

#[test]
fn multi_owner_any_is_refused_as_the_collector_would_keep_what_it_deletes() {
    // `--multi-owner any`: the plan deletes the Pod with `left`, although
    // `right` stays. Deleting `left` does not take the Pod (the collector
    // waits for every owner), and the Pod is no cascade root: a script would
    // name only `left`, and the Pod would never be deleted.
    let (code, out, _) =
        run(&["plan", "-o", "names", "--delete", "rs/left", "--multi-owner", "any", "fixtures/plan/two-owners.yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("pod/shared -n prod\n"), "{out}");
    let message = "teardown: error: -o kubectl --multi-owner any: Kubernetes' garbage collector deletes a dependent only when all its owners are gone, so an object the plan deletes with one owner while another stays would never be deleted by the script; plan without --multi-owner any, or print -o names\n";
    let (code, out, err) =
        run(&["plan", "-o", "kubectl", "--delete", "rs/left", "--multi-owner", "any", "fixtures/plan/two-owners.yaml"]);
    assert_eq!((code, out.as_str(), err.as_str()), (2, "", message));
    // Refused before any input is read (this one does not exist).
    let (code, _, err) = run(&["plan", "-o", "kubectl", "--all", "--multi-owner", "any", "no/such/input.yaml"]);
    assert_eq!((code, err.as_str()), (2, message));
    // `--multi-owner all` is fine.
    script(&["--delete", "rs/left", "--multi-owner", "all", "fixtures/plan/two-owners.yaml"]);
}

#[test]
fn what_kubectl_would_read_as_another_object_is_refused() {
    // The grammar -o names checks (less what only xargs misreads): a
    // command kubectl would read otherwise is never printed.
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "apiVersion: v1\nkind: Widget\nmetadata: {name: w, namespace: a}\n",
            "-o kubectl: Widget/a/w ({p}:3) is of the core group, which has no kind `Widget`: kubectl would look for `widget` in every API group",
        ),
        (
            "apiVersion: v1.foo.com/v1\nkind: Widget\nmetadata: {name: w, namespace: a}\n",
            "-o kubectl: Widget.v1.foo.com/a/w ({p}:3) has the group `v1.foo.com`, which kubectl would read as version v1 of the group foo.com",
        ),
        (
            "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
            "-o kubectl: Widget.example.com/w ({p}:3) has no namespace written and its kind is neither built in nor defined by a CRD in the input, so its scope is only guessed (cluster-scoped): if it is namespaced, kubectl's current namespace would decide what is deleted; add its CRD to the input or give its namespace",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: \"team a\"}\n",
            "-o kubectl: ConfigMap/team a/c ({p}:3) is in the namespace `team a`, which is not a DNS label",
        ),
    ];
    for (i, (text, says)) in cases.iter().enumerate() {
        let p = dir.path().join(format!("{i}.yaml"));
        std::fs::write(&p, text).unwrap();
        let p = p.to_string_lossy();
        let (code, out, err) = run(&["plan", "-o", "kubectl", "--all", &p]);
        assert_eq!((code, out.as_str()), (2, ""), "{text}: {err}");
        assert!(err.starts_with(&format!("teardown: error: {}", says.replace("{p}", &p))), "{text}: {err}");
        assert!(
            err.ends_with("; -o kubectl prints no command that kubectl could read as another object (-o refs prints the references as they are)\n"),
            "{err}"
        );
        // -o names refuses it too.
        assert_eq!(run(&["plan", "-o", "names", "--all", &p]).0, 2, "{text}");
    }
}

#[test]
fn objects_the_plan_takes_directly_are_named() {
    // --gc: the Pod whose owner has another uid has no owner the plan
    // deletes; the other Pod goes with its ReplicaSet, which is being deleted.
    let s = script(&["--gc", "fixtures/plan/gc.yaml"]);
    assert_eq!(
        commands(&s),
        [
            "kubectl delete pod report-old -n batch --cascade=background --wait --ignore-not-found",
            "kubectl delete replicaset.apps old -n batch --cascade=background --wait --ignore-not-found",
        ]
    );
    assert!(s.contains("#   Pod/batch/old-1 (goes with ReplicaSet.apps/batch/old)\n"), "{s}");
}

#[test]
fn an_ownership_cycle_is_deleted_through_one_of_its_objects() {
    let (code, out, err) =
        run(&["plan", "-o", "kubectl", "--all", "--allow-cycles", "fixtures/check/td007-ownership-cycle.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(commands(&out), ["kubectl delete configmap c -n loop --cascade=background --wait --ignore-not-found"]);
    // The plan's warnings go to stderr, and into the script's header.
    assert!(err.contains("warning[TD007]: ownership cycle planned as one group"), "{err}");
    assert!(out.contains("\n# warning[TD007]: ownership cycle planned as one group"), "{out}");
}

#[test]
fn warnings_go_to_stderr_as_with_names() {
    let args = ["--all", "fixtures/plan/murano-child-after-parent.yaml", "--dialect", "native"];
    let mut names = vec!["plan", "-o", "names"];
    names.extend_from_slice(&args);
    let (_, _, names_err) = run(&names);
    assert!(names_err.contains("warning[TD012]"), "{names_err}");
    // (A native plan is refused by -o kubectl: compare on a Kubernetes one.)
    let (code, _, err) = run(&["plan", "-o", "kubectl", "--delete", "pod/web-5d4f-a", "fixtures/shop"]);
    assert_eq!(code, 0, "{err}");
    let (_, _, names_err) = run(&["plan", "-o", "names", "--delete", "pod/web-5d4f-a", "fixtures/shop"]);
    assert!(
        err.contains("warning: Pod/shop/web-5d4f-a is deleted but its controller ReplicaSet.apps/shop/web-5d4f stays"),
        "{err}"
    );
    assert_eq!(err, names_err);
}

#[test]
fn scripts_pass_bash_and_shellcheck() {
    let cases: &[&[&str]] = &[
        &["--delete", "deploy/web", "--cascade", "foreground", "fixtures/plan/deployment.yaml"],
        &["--delete", "ns/shop", "fixtures/shop"],
        &["--all", "fixtures/shop"],
        &["--all", "fixtures/plan/two-owners.yaml"],
        &["--gc", "fixtures/kubevela/app-deleted.yaml"],
        &["--all", "--allow-cycles", "fixtures/check/td007-ownership-cycle.yaml"],
        // Nothing to delete: a script that runs nothing.
        &["--gc", "fixtures/plan/deployment.yaml"],
    ];
    for args in cases {
        let s = script(args);
        bash_n(&s);
        shellcheck(&s);
    }
}

/// Names that need quoting, or would be read as a flag: of Roles, whose
/// names the API server takes as path segments (a ConfigMap's must be DNS
/// subdomains). A name with a control character is no object's (TD001).
const ODD: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "it's here", namespace: team-a, uid: u1}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "-dash", namespace: plain, uid: u2}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: "$(touch pwned) `touch pwned` $HOME *", namespace: plain, uid: u3}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "a b", uid: u4}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: 'ends\', namespace: its, uid: u6}
"#;

#[test]
fn odd_names_reach_kubectl_as_one_word_each() {
    let (code, s, err) = run_stdin(&["plan", "-o", "kubectl", "--all", "-"], ODD);
    assert_eq!(code, 0, "{err}");
    bash_n(&s);
    shellcheck(&s);
    assert!(s.contains("# Generated by teardown from -.\n"), "{s}");
    // Run it with a kubectl that records its arguments.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let fake = dir.path().join("kubectl");
    std::fs::write(&fake, "#!/usr/bin/env bash\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$KUBECTL_LOG\"\nprintf 'END\\0' >> \"$KUBECTL_LOG\"\n").unwrap();
    let chmod = Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    assert!(chmod.success());
    let script = dir.path().join("delete.sh");
    std::fs::write(&script, &s).unwrap();
    let path = format!("{}:{}", dir.path().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new("bash")
        .arg(&script)
        .env("PATH", path)
        .env("KUBECTL_LOG", &log)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!dir.path().join("pwned").exists(), "a name was run as a command");
    let logged = std::fs::read_to_string(&log).unwrap();
    let mut calls: Vec<Vec<&str>> = Vec::new();
    let mut call = Vec::new();
    for a in logged.split('\0') {
        match a {
            "END" => calls.push(std::mem::take(&mut call)),
            "" => {}
            a => call.push(a),
        }
    }
    // Each call: delete, then (after `--` when a word starts with -) the
    // resource and names; -n and its value; the flags.
    let mut got: BTreeSet<(String, Option<String>, String)> = BTreeSet::new();
    for c in &calls {
        assert_eq!(c[0], "delete", "{c:?}");
        for f in ["--cascade=background", "--wait", "--ignore-not-found"] {
            assert!(c.contains(&f), "{c:?}");
        }
        let ns = c.iter().position(|a| *a == "-n").map(|i| c[i + 1].to_string());
        let mut positional: Vec<&str> = Vec::new();
        let mut i = 1;
        let mut after_dash = false;
        while i < c.len() {
            match c[i] {
                "--" if !after_dash => after_dash = true,
                "-n" if !after_dash => i += 1,
                a if a.starts_with("--") && !after_dash => {}
                a => positional.push(a),
            }
            i += 1;
        }
        for name in &positional[1..] {
            got.insert((positional[0].to_string(), ns.clone(), name.to_string()));
        }
    }
    let want: BTreeSet<(String, Option<String>, String)> = [
        ("role.rbac.authorization.k8s.io", Some("team-a"), "it's here"),
        ("role.rbac.authorization.k8s.io", Some("plain"), "-dash"),
        ("role.rbac.authorization.k8s.io", Some("plain"), "$(touch pwned) `touch pwned` $HOME *"),
        ("role.rbac.authorization.k8s.io", Some("its"), "ends\\"),
        ("clusterrole.rbac.authorization.k8s.io", None, "a b"),
    ]
    .into_iter()
    .map(|(r, n, m)| (r.to_string(), n.map(str::to_string), m.to_string()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn objects_that_are_not_kubernetes_resources_are_refused() {
    let cases = [
        (
            vec!["plan", "-o", "kubectl", "--all", "fixtures/murano/app-net-vms.json"],
            "-o kubectl: id:vm1 is a Murano object, not a Kubernetes resource; kubectl cannot delete it",
        ),
        (
            vec!["plan", "-o", "kubectl", "--all", "fixtures/formats/native.yaml"],
            "-o kubectl: id:vm1 is an object of the native dialect, not a Kubernetes resource; kubectl cannot delete it",
        ),
        (
            vec!["plan", "-o", "kubectl", "--delete", "id:App", "fixtures/plan/murano-app.yaml"],
            "is an object of the native dialect, not a Kubernetes resource; kubectl cannot delete it",
        ),
        (
            vec!["plan", "-o", "kubectl", "--all", "fixtures/krake/tree.yaml"],
            "is a Krake resource, not a Kubernetes resource; kubectl cannot delete it",
        ),
    ];
    for (args, message) in cases {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // A forced dialect whose objects are never Kubernetes resources is
    // refused before any input is read (this one does not exist).
    let (code, _, err) = run(&["plan", "-o", "kubectl", "--all", "--dialect", "pairs", "no/such/input.txt"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("-o kubectl prints kubectl commands, but --dialect pairs reads objects"), "{err}");
}

#[test]
fn orphan_is_refused_when_a_controller_would_recreate_what_the_script_deleted() {
    // Everything goes, Pods first, each by name (orphan does not cascade):
    // their ReplicaSets, deleted later, would recreate them.
    let (code, out, err) =
        run(&["plan", "-o", "kubectl", "--all", "--cascade", "orphan", "fixtures/plan/deployment.yaml"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("-o kubectl --cascade orphan: the script would delete Pod/prod/web-5d4f-c (step 1) while its controller ReplicaSet.apps/prod/web-5d4f (step 2) is still there"),
        "{err}"
    );
    // Inside a deleted Namespace, everything goes with it: nothing to refuse.
    let s = script(&["--delete", "ns/shop", "--cascade", "orphan", "fixtures/shop"]);
    assert_eq!(commands(&s), ["kubectl delete namespace shop --cascade=orphan --wait --ignore-not-found"]);
}

/// `--finalizer-controller` for the Database of finalizer-operator.yaml.
const DB_OPERATOR: &[&str] = &[
    "--delete",
    "ns/app",
    "--delete",
    "deploy/operators/db-operator",
    "--finalizer-controller",
    "example.com/cleanup=deploy/operators/db-operator",
];

#[test]
fn an_object_carrying_a_finalizer_is_named_before_its_controller_goes() {
    // The Database goes with Namespace/app, but its finalizer's controller
    // (the operator) is deleted in the step after it. Named only with the
    // Namespace, the operator went first and the Namespace hung; now the
    // Database is deleted by name, and waited for, before the operator.
    let s = script(&[DB_OPERATOR, &["fixtures/plan/finalizer-operator.yaml"]].concat());
    assert_eq!(
        commands(&s),
        [
            "kubectl delete database.example.com db -n app --cascade=background --wait --ignore-not-found",
            "kubectl delete deployment.apps db-operator -n operators --cascade=background --wait --ignore-not-found",
            "kubectl delete namespace app --cascade=background --wait --ignore-not-found",
        ]
    );
    assert!(s.contains("\n# step 1 of 2: 1 object\n#   Database.example.com/app/db (named: Deployment.apps/operators/db-operator removes its finalizer example.com/cleanup)\nkubectl delete database.example.com db"), "{s}");
    assert!(s.contains("# 3 objects in 2 steps, each named here: the cascade roots, objects none of whose\n# owners the plan deletes, and 1 carrying the finalizer of a controller the plan deletes,\n# named so that it is gone before that controller goes.\n"), "{s}");
    bash_n(&s);
    shellcheck(&s);
    // The README's sample: the Cart (step 1), in Namespace/shop with the
    // StatefulSet that removes its finalizer (step 2). Named with the
    // Namespace alone, both went in one pass.
    let s = script(&[
        "--delete",
        "ns/shop",
        "--finalizer-controller",
        "shop.example.com/checkout=sts/shop/db",
        "fixtures/shop",
    ]);
    assert_eq!(
        commands(&s),
        [
            "kubectl delete cart.shop.example.com cart-1 -n shop --cascade=background --wait --ignore-not-found",
            "kubectl delete namespace shop --cascade=background --wait --ignore-not-found",
        ]
    );
    assert!(s.contains("# 11 objects in 5 steps. The script names 2 of them: the cascade roots, objects none of whose\n# owners the plan deletes, and 1 carrying the finalizer of a controller the plan deletes,\n# named so that it is gone before that controller goes.\n# The other 9 go with their owners,"), "{s}");
    assert!(s.contains("\n# step 1 of 5: 4 objects, 1 named here\n"), "{s}");
    assert!(s.contains("#   StatefulSet.apps/shop/db (goes with Namespace/shop)\n"), "{s}");
}

#[test]
fn a_finalizer_the_script_cannot_keep_is_refused() {
    // The Database's controller (a DatabaseClaim) would make it again if it
    // were deleted by name, and with its Namespace it goes after the operator.
    let args = [&["plan", "-o", "kubectl"], DB_OPERATOR, &["fixtures/plan/finalizer-owned.yaml"]].concat();
    let (code, out, err) = run(&args);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("teardown: error: -o kubectl: Database.example.com/app/db (step 1) carries finalizer example.com/cleanup, which Deployment.apps/operators/db-operator (step 2) removes, so it must be gone before Deployment.apps/operators/db-operator goes; but the script cannot delete it by name: DatabaseClaim.example.com/app/db, which takes it, would make it again; delete DatabaseClaim.example.com/app/db first, with what it owns (kubectl delete --cascade=foreground --wait), then plan again\n"),
        "{err}"
    );
    // The plan itself is made (the refusal is -o kubectl's).
    let plan = [&["plan"], DB_OPERATOR, &["fixtures/plan/finalizer-owned.yaml"]].concat();
    assert_eq!(run(&plan).0, 0);
    // Its controller (a cluster-scoped Tenant) is kept by the plan: deleted
    // by name, the Database would be made again in the namespace, which then
    // hangs on the copy's finalizer once the operator is gone.
    let args = [&["plan", "-o", "kubectl"], DB_OPERATOR, &["fixtures/plan/finalizer-kept-controller.yaml"]].concat();
    let (code, out, err) = run(&args);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("but the script cannot delete it by name: Tenant.example.com/t1, which the plan keeps, would make it again, and it goes with what the script deletes after Deployment.apps/operators/db-operator; leave Deployment.apps/operators/db-operator out of the plan, or plan the deletion of Tenant.example.com/t1 too\n"),
        "{err}"
    );
    // A root deleted in the same step as its finalizer's controller, after
    // it in plan order (a cycle: --allow-cycles).
    let (code, out, err) = run(&[
        "plan",
        "-o",
        "kubectl",
        "--all",
        "--allow-cycles",
        "--finalizer-controller",
        "example.com/delete-logs=deploy/data/op",
        "fixtures/plan/finalizer-cycle-first.yaml",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("teardown: error: -o kubectl: Secret/data/logs (step 1) carries finalizer example.com/delete-logs, which Deployment.apps/data/op (step 1) removes, so it must be gone before Deployment.apps/data/op goes; but the script would delete Deployment.apps/data/op no later than Secret/data/logs, and Secret/data/logs would hang; delete Secret/data/logs first (kubectl delete --wait), then plan again\n"), "{err}");
    // A holder that owns its finalizer's controller: under background the
    // controller goes once the holder is gone (the script as before);
    // under foreground it goes first.
    let owned = |cascade: &str| {
        run(&[
            "plan",
            "-o",
            "kubectl",
            "--all",
            "--allow-cycles",
            "--cascade",
            cascade,
            "--finalizer-controller",
            "example.com/cleanup=ConfigMap/b/db",
            "fixtures/plan/finalizer-cycle-owned.yaml",
        ])
    };
    let (code, out, err) = owned("background");
    assert_eq!(code, 0, "{err}");
    assert_eq!(commands(&out), ["kubectl delete configmap web -n b --cascade=background --wait --ignore-not-found"]);
    let (code, _, err) = owned("foreground");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("but ConfigMap/b/db goes with ConfigMap/b/web, and deleting ConfigMap/b/web starts deleting ConfigMap/b/db before ConfigMap/b/web is gone, so ConfigMap/b/web would hang; plan with --cascade background, so that ConfigMap/b/db goes once ConfigMap/b/web is gone\n"), "{err}");
}

#[test]
fn a_plan_without_finalizer_controllers_keeps_its_script() {
    // The same objects without --finalizer-controller: the Database only
    // goes with its Namespace, byte for byte the script it always was.
    let s = script(&[
        "--delete",
        "ns/app",
        "--delete",
        "deploy/operators/db-operator",
        "fixtures/plan/finalizer-operator.yaml",
    ]);
    assert_eq!(
        s,
        "#!/usr/bin/env bash
set -euo pipefail

# Deletes Namespace/app, Deployment.apps/operators/db-operator (--delete) and what goes with them.
# 3 objects in 2 steps. The script names 2 of them, the cascade roots: objects none of whose
# owners the plan deletes. The other one goes with its owners, deleted by Kubernetes (the garbage
# collector, the namespace and CRD controllers) in its own order, not in the steps below.
# --cascade=background: a root goes at once and the garbage collector deletes its dependents after it,
# so they may still be going when the next step starts.
# --wait: each command returns once what it names is gone.
# --ignore-not-found: an object already gone (deleted by an earlier run, or with its owner)
# is not an error, so the script can be run again.
# Generated by teardown from fixtures/plan/finalizer-operator.yaml.

# step 1 of 2: 2 objects, 1 named here
#   Database.example.com/app/db (goes with Namespace/app)
#   Deployment.apps/operators/db-operator
kubectl delete deployment.apps db-operator -n operators --cascade=background --wait --ignore-not-found

# step 2 of 2: 1 object
#   Namespace/app
kubectl delete namespace app --cascade=background --wait --ignore-not-found
"
    );
}

#[test]
fn same_input_same_bytes() {
    let cases: &[&[&str]] = &[
        &["--all", "fixtures/shop"],
        &["--gc", "fixtures/kubevela/app-deleted.yaml"],
        &["--all", "fixtures/realworld/kubernetes/redhatqe-must-gather-kube-system.yaml"],
    ];
    for args in cases {
        let first = script(args);
        assert_eq!(first, script(args), "{args:?}");
    }
}

/// Every fixture file (YAML and JSON) under fixtures/.
fn fixtures() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "yaml" || x == "yml" || x == "json") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures")), &mut out);
    out.sort();
    out
}

/// What the property test covered.
#[derive(Default)]
struct Covered {
    scripts: usize,
    /// Scripts in which some deleted object goes with its owners.
    carried: usize,
    /// Scripts refused because kubectl would misread a root.
    refused: usize,
}

/// The property, for one input read with `dialect` (extra flags), under
/// each mode: the script names only objects the plan deletes, each once;
/// what the named objects carry is the plan's deleted set; with `strict`
/// (plain Kubernetes: every relation is what the graph shows), no named
/// object has an owner the plan deletes that carries it.
fn property(input: &str, dialect: &[&str], strict: bool, covered: &mut Covered) {
    let Some(g) = graph(dialect, input) else { return };
    // An application controller's managed-by relation may be one its
    // controller does not follow (issue 35): the graph does not show that.
    let strict = strict && !g.edges.iter().any(|e| e.2 == "manages");
    let mut modes: Vec<Vec<String>> =
        vec![vec!["--all".into()], vec!["--gc".into()], vec!["--gc".into(), "--closed-world".into()]];
    for r in g.namespaces.iter().take(3).chain(g.owners.iter().take(5)) {
        modes.push(vec!["--delete".into(), r.clone()]);
    }
    for mode in &modes {
        for cascade in ["background", "orphan"] {
            let mut args: Vec<&str> = vec!["plan", "-o", "json", "--cascade", cascade];
            args.extend(dialect);
            args.extend(mode.iter().map(String::as_str));
            args.push(input);
            let (code, out, _) = run(&args);
            if code != 0 {
                continue; // a plan that cannot be made (a cycle, a selector), or input that is not usable
            }
            let plan: Value = serde_json::from_str(&out).unwrap();
            let deleted = deleted(&plan);
            args[2] = "kubectl";
            let (code, s, err) = run(&args);
            if code == 2 && err.contains("-o kubectl --cascade orphan: the script would delete") {
                continue; // checked below: a controller would recreate a root
            }
            if code == 2 && err.contains("; -o kubectl prints no command that kubectl could read as another object") {
                // kubectl would misread a root: -o names refuses the plan too.
                args[2] = "names";
                assert_eq!(run(&args).0, 2, "{args:?}: -o kubectl refused, -o names did not: {err}");
                covered.refused += 1;
                continue;
            }
            assert_eq!(code, 0, "{args:?}: {err}");
            let orphan = cascade == "orphan";
            let named = named(&s, &g);
            let unique: BTreeSet<&String> = named.iter().collect();
            assert_eq!(unique.len(), named.len(), "{args:?}: a name twice\n{s}");
            for n in &named {
                assert!(deleted.contains(n), "{args:?}: {n} is named but the plan does not delete it\n{s}");
                if strict {
                    let owners = carrying_owners(n, &deleted, &g, orphan);
                    assert!(owners.is_empty(), "{args:?}: {n} is named but goes with {owners:?}\n{s}");
                }
            }
            assert_eq!(closure(&named, &deleted, &g, orphan), deleted, "{args:?}\n{s}");
            bash_n(&s);
            covered.scripts += 1;
            if named.len() < deleted.len() {
                covered.carried += 1;
            }
        }
    }
}

#[test]
fn named_objects_and_what_they_carry_are_the_plan() {
    let files = fixtures();
    let chunks: Vec<Vec<PathBuf>> = {
        let n = std::thread::available_parallelism().map_or(4, |n| n.get()).min(8);
        let mut chunks = vec![Vec::new(); n];
        for (i, f) in files.into_iter().enumerate() {
            chunks[i % n].push(f);
        }
        chunks
    };
    let covered: Vec<Covered> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                s.spawn(move || {
                    let mut covered = Covered::default();
                    for f in chunk {
                        let f = f.to_string_lossy();
                        // As Kubernetes: every document read by the kubernetes dialect.
                        property(&f, &["--dialect", "kubernetes"], true, &mut covered);
                        // As recognised (KubeVela's trackers manage their resources).
                        if f.contains("kubevela") {
                            property(&f, &[], false, &mut covered);
                        }
                    }
                    covered
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let scripts: usize = covered.iter().map(|c| c.scripts).sum();
    let carried: usize = covered.iter().map(|c| c.carried).sum();
    let refused: usize = covered.iter().map(|c| c.refused).sum();
    eprintln!("{scripts} scripts checked, {carried} with objects that go with their owners; {refused} refused");
    assert!(scripts >= 200 && carried >= 50, "too few cases: {scripts} scripts, {carried} carrying");
}

#[test]
fn refusals_leave_other_formats_alone() {
    // The same native plan is fine as names.
    let (code, out, _) = run(&["plan", "-o", "names", "--all", "fixtures/formats/native.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 4);
    // And the dialect rule is about -o kubectl only.
    let (code, _, err) = run(&["plan", "--all", "--dialect", "pairs", "fixtures/pairs/dressing.txt"]);
    assert_eq!(code, 0, "{err}");
}
