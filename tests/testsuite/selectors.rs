//! Selection as kubectl does it (CONTRACT §2, issue 17 item 1): a kind
//! alone, narrowed by `-n` and `-l`; `-n` and `-l` alone; a word that is a
//! kind or an id; what is refused rather than guessed; and the closest
//! matches of a selector that matches nothing, ranked by kind, then
//! namespace, then name.
//!
//! fixtures/select/namespaces.yaml (answers worked out by hand):
//! cluster-scoped: Namespace a, Namespace b, ClusterRole web-reader
//! (app=web), the CRD of the cluster-scoped Widget, Widget w1;
//! in a: Service web (app=web);
//! in b: Deployment web (app=web) → ReplicaSet web-1 (app=web) → Pod
//! web-1-x (app=web), Pod api-0 (app=api), ConfigMap settings, Stream s1
//! of a.example.com and of b.example.com, Stream s2 of a.example.com;
//! in c and d: Deployment web (app=web).
//! fixtures/select/mixed.yaml: Pod shop/web beside native ids pods, vm1,
//! AB, BA, AAA, aa, ZZ.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{run, run_stdin, steps};
use serde_json::Value;

const NS: &str = "fixtures/select/namespaces.yaml";
const MIXED: &str = "fixtures/select/mixed.yaml";

/// `plan -o json ARGS…`, which must succeed: its steps.
/// The steps of a plan that must succeed.
fn planned(args: &[&str]) -> Vec<Vec<String>> {
    steps(&common::plan(args))
}

/// Every object a plan deletes, sorted.
fn deleted(args: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = planned(args).into_iter().flatten().collect();
    all.sort();
    all
}

fn strings(refs: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = refs.iter().map(|r| r.to_string()).collect();
    v.sort();
    v
}

/// Runs `args`, which must fail with `code`; the error line (the last).
fn error(args: &[&str], code: i32) -> String {
    let (got, out, err) = run(args);
    assert_eq!(got, code, "{args:?}: {err}");
    assert_eq!(out, "", "{args:?}");
    assert_eq!(err.matches("teardown: error:").count(), 1, "{args:?}: {err}");
    err.lines().last().unwrap_or("").to_string()
}

const DEPLOY_B: [&str; 3] = ["Pod/b/web-1-x", "ReplicaSet.apps/b/web-1", "Deployment.apps/b/web"];

#[test]
fn a_kind_with_a_label_selector_takes_every_object_of_it_that_matches() {
    // Pods labelled app=web: web-1-x, not api-0 (app=api). Its ReplicaSet
    // stays, so it goes alone.
    assert_eq!(planned(&["--delete", "pods", "-l", "app=web", NS]), [["Pod/b/web-1-x"]]);
    // Every spelling kubectl takes for the kind.
    for kind in ["pod", "po", "Pods", "pods.v1", "pod.core"] {
        assert_eq!(planned(&["--delete", kind, "-l", "app=web", NS]), [["Pod/b/web-1-x"]], "{kind}");
    }
    // KEY alone: both Pods.
    assert_eq!(deleted(&["--delete", "po", "-l", "app", NS]), strings(&["Pod/b/api-0", "Pod/b/web-1-x"]));
    // Deployments labelled app=web in every namespace, with their cascade.
    assert_eq!(
        deleted(&["--delete", "deployments.apps", "-l", "app=web", NS]),
        strings(&[
            "Deployment.apps/b/web",
            "Deployment.apps/c/web",
            "Deployment.apps/d/web",
            "ReplicaSet.apps/b/web-1",
            "Pod/b/web-1-x"
        ])
    );
    // A kind alone: every object of it (the cluster-scoped Widget).
    assert_eq!(planned(&["--delete", "widgets", NS]), [["Widget.example.com/w1"]]);
}

#[test]
fn a_kind_with_a_namespace_takes_every_object_of_it_there() {
    // Deployment b/web and what it owns; not c/web nor d/web.
    let one_a_step: Vec<Vec<String>> = DEPLOY_B.iter().map(|r| vec![r.to_string()]).collect();
    assert_eq!(planned(&["--delete", "deploy", "-n", "b", NS]), one_a_step);
    assert_eq!(
        deleted(&["--delete", "streams.a.example.com", "-n", "b", NS]),
        strings(&["Stream.a.example.com/b/s1", "Stream.a.example.com/b/s2"])
    );
    // Several kinds at once, comma-separated; each must match something.
    assert_eq!(
        deleted(&["--delete", "deploy,cm", "-n", "b", NS]),
        strings(&["ConfigMap/b/settings", DEPLOY_B[0], DEPLOY_B[1], DEPLOY_B[2]])
    );
    assert_eq!(
        error(&["plan", "--delete", "deploy,cm", "-n", "a", NS], 1),
        "teardown: error: selector `deploy -n a` matches nothing; closest: Deployment.apps/b/web, \
         Deployment.apps/c/web, Deployment.apps/d/web"
    );
}

#[test]
fn a_namespace_alone_takes_every_object_in_it_and_nothing_cluster_scoped() {
    assert_eq!(
        deleted(&["-n", "b", NS]),
        strings(&[
            "ConfigMap/b/settings",
            "Pod/b/api-0",
            "Stream.a.example.com/b/s1",
            "Stream.a.example.com/b/s2",
            "Stream.b.example.com/b/s1",
            DEPLOY_B[0],
            DEPLOY_B[1],
            DEPLOY_B[2],
        ])
    );
    // Not the Namespace itself: --delete ns/a is that, with what it holds.
    assert_eq!(deleted(&["-n", "a", NS]), strings(&["Service/a/web"]));
    assert_eq!(planned(&["--delete", "ns/a", NS]), [["Service/a/web"], ["Namespace/a"]]);
    // The long flag, and graph --focus by -n alone: the same objects.
    assert_eq!(deleted(&["--namespace", "a", NS]), strings(&["Service/a/web"]));
    let (code, out, err) = run(&["graph", "-n", "a", NS]);
    assert_eq!((code, out.as_str()), (0, "Service/a/web\n"), "{err}");
}

#[test]
fn labels_alone_take_every_object_they_match() {
    // app=web: cluster-scoped ones too (the ClusterRole); not Pod api-0.
    assert_eq!(
        deleted(&["-l", "app=web", NS]),
        strings(&[
            "ClusterRole.rbac.authorization.k8s.io/web-reader",
            "Service/a/web",
            "Deployment.apps/c/web",
            "Deployment.apps/d/web",
            DEPLOY_B[0],
            DEPLOY_B[1],
            DEPLOY_B[2],
        ])
    );
    // With -n: only what is in the namespace.
    assert_eq!(deleted(&["-n", "b", "-l", "app=web", NS]), strings(&DEPLOY_B));
    assert_eq!(deleted(&["-n", "b", "-l", "app=api", NS]), strings(&["Pod/b/api-0"]));
    // A negative requirement is fine once something else narrows.
    assert_eq!(
        deleted(&["-n", "b", "-l", "!app", NS]),
        strings(&[
            "ConfigMap/b/settings",
            "Stream.a.example.com/b/s1",
            "Stream.a.example.com/b/s2",
            "Stream.b.example.com/b/s1"
        ])
    );
}

#[test]
fn explain_and_simulate_take_the_same_selection() {
    // explain: -n is a plan flag (the plan of `plan -n b`).
    let (code, out, err) = run(&["explain", "deploy/b/web", "-n", "b", NS]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Deployment.apps/b/web: deleted in step 3 of 3\n"), "{out}");
    assert!(out.contains("(a target of the plan)"), "{out}");
    // The object to explain may be a kind.
    let (code, out, _) = run(&["explain", "pods", "--delete", "deploy/b/web", NS]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Pod/b/web-1-x: deleted in step 1 of 3"), "{out}");
    assert!(out.contains("\nPod/b/api-0: not in the plan"), "{out}");
    // simulate --delete KIND -n NS.
    let (code, out, err) =
        run(&["simulate", "--delete", "deploy", "-n", "b", "--controller", "kubernetes", "-o", "json", NS]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["summary"]["removed"],
        serde_json::json!(["Deployment.apps/b/web", "ReplicaSet.apps/b/web-1", "Pod/b/web-1-x"])
    );
}

#[test]
fn a_word_is_a_kind_or_an_id_and_never_both() {
    // `pods` is the kind Pod and the id of a native object.
    assert_eq!(
        error(&["plan", "--delete", "pods", MIXED], 2),
        "teardown: error: selector `pods` is ambiguous: it is the kind Pod and the id of an object (Murano, \
         native or pairs); write id:pods for that object, or pods.core for every Pod"
    );
    // Either, written so that it is not.
    assert_eq!(planned(&["--delete", "id:pods", MIXED]), [["pods"]]);
    assert_eq!(planned(&["--delete", "pods.core", MIXED]), [["Pod/shop/web"]]);
    assert_eq!(planned(&["--delete", "pod/web", MIXED]), [["Pod/shop/web"]]);
    // Only an id.
    assert_eq!(planned(&["--delete", "vm1", MIXED]), [["vm1"]]);
    // Where nothing has coordinates a kind's name is an id: tsort tokens.
    let (code, out, err) =
        run_stdin(&["plan", "--dialect", "pairs", "--delete", "service", "-o", "names"], "service db\n");
    assert_eq!((code, out.as_str()), (0, "service\n"), "{err}");
}

#[test]
fn a_cluster_scoped_kind_with_a_namespace_is_refused() {
    // kubectl ignores -n for a cluster-scoped kind and deletes every
    // ClusterRole; teardown refuses, before reading any input.
    assert_eq!(
        error(&["plan", "--delete", "clusterroles", "-n", "b", "no-such-input"], 2),
        "teardown: error: selector `clusterroles` with -n b: ClusterRole.rbac.authorization.k8s.io is \
         cluster-scoped, so -n cannot narrow it (kubectl would ignore -n and select every ClusterRole); name the \
         objects (clusterroles/NAME), or drop -n to mean every ClusterRole"
    );
    let said = error(&["plan", "--delete", "ns", "-n", "b", "no-such-input"], 2);
    assert!(said.contains("Namespace is cluster-scoped"), "{said}");
    let said = error(&["simulate", "--delete", "crd", "-n", "b", "--controller", "kubernetes", "no-such-input"], 2);
    assert!(said.contains("CustomResourceDefinition.apiextensions.k8s.io is cluster-scoped"), "{said}");
    // A custom one: known from its CRD once the input is read.
    assert_eq!(
        error(&["plan", "--delete", "widgets", "-n", "b", NS], 2),
        "teardown: error: selector `widgets` with -n b: Widget.example.com is cluster-scoped, so -n cannot \
         narrow it (kubectl would ignore -n and select every Widget); name the objects (widgets/NAME), or drop -n \
         to mean every Widget"
    );
    let said = error(&["graph", "--focus", "widget", "-n", "b", NS], 2);
    assert!(said.contains("Widget.example.com is cluster-scoped"), "{said}");
    // A cluster-scoped object named: as kubectl, -n does not hide it.
    assert_eq!(
        planned(&["--delete", "clusterrole/web-reader", "-n", "b", NS]),
        [["ClusterRole.rbac.authorization.k8s.io/web-reader"]]
    );
}

#[test]
fn a_kind_of_several_groups_is_refused() {
    assert_eq!(
        error(&["plan", "--delete", "streams", NS], 2),
        "teardown: error: selector `streams` names several kinds: Stream.a.example.com, Stream.b.example.com; \
         write the kind with its group (streams.a.example.com)"
    );
    assert_eq!(
        error(&["plan", "--delete", "stream/s1", NS], 2),
        "teardown: error: selector `stream/s1` matches objects of several kinds (Stream.a.example.com/b/s1, \
         Stream.b.example.com/b/s1); write the kind with its group (stream.a.example.com/s1)"
    );
    // One kind has that name: no doubt.
    assert_eq!(planned(&["--delete", "stream/s2", NS]), [["Stream.a.example.com/b/s2"]]);
    assert_eq!(planned(&["--delete", "stream.b.example.com/s1", NS]), [["Stream.b.example.com/b/s1"]]);
}

#[test]
fn flags_that_cannot_narrow_are_refused_before_any_input_is_read() {
    // No input exists: each is refused on its flags alone (exit 2).
    let none = "no-such-input";
    let cases: [(&[&str], &str); 10] = [
        (
            &["plan", "--all", "-n", "b", none],
            "--all deletes everything in the input, and -n b cannot narrow it: give --all without -n b, or -n b \
             without --all to delete every object -n b matches",
        ),
        (
            &["plan", "--gc", "-l", "app=web", none],
            "--gc deletes what the garbage collector would, and -l app=web cannot narrow it: give --gc without -l \
             app=web, or -l app=web without --gc to delete every object -l app=web matches",
        ),
        (
            &["plan", "--prune", none, "-n", "b", "-l", "app=web", none],
            "--prune deletes what NEW lacks, and -n b -l app=web cannot narrow it: give --prune without -n b -l \
             app=web, or -n b -l app=web without --prune to delete every object -n b -l app=web matches",
        ),
        (
            &["explain", "pod/b/api-0", "--all", "-n", "b", none],
            "--all deletes everything in the input, and -n b cannot narrow it: give --all without -n b, or -n b \
             without --all to delete every object -n b matches",
        ),
        (
            &["plan", "--delete", "id:vm1", "-n", "b", none],
            "selector `id:vm1` with -n b: `vm1` is the id of an object (Murano, native or pairs), which is in no \
             namespace; drop -n",
        ),
        (
            &["plan", "--delete", "pod/a/web", "-n", "b", none],
            "selector `pod/a/web` is in namespace a, but -n says b; give the namespace once",
        ),
        (
            &["plan", "-l", "!app", none],
            "-l !app alone selects every object it does not exclude, Namespaces and CRDs with everything in them \
             included; add KEY=VALUE or KEY, a kind (--delete KIND), or -n NAMESPACE",
        ),
        (
            &["plan", "-l", "tier!=db", none],
            "-l tier!=db alone selects every object it does not exclude, Namespaces and CRDs with everything in \
             them included; add KEY=VALUE or KEY, a kind (--delete KIND), or -n NAMESPACE",
        ),
        (
            &["plan", "-l", ",", none],
            "-l `,`: empty label selector (it would match every object); give KEY=VALUE, KEY!=VALUE, KEY or !KEY",
        ),
        (&["graph", "-n", "", none], "-n: empty namespace"),
    ];
    for (args, says) in cases {
        assert_eq!(error(args, 2), format!("teardown: error: {says}"), "{args:?}");
    }
    // An id read as such, with -n: known once the input is read.
    assert_eq!(
        error(&["plan", "--delete", "vm1", "-n", "b", MIXED], 2),
        "teardown: error: selector `vm1` with -n b: `vm1` is the id of an object (Murano, native or pairs), which \
         is in no namespace; drop -n"
    );
    // Nothing to select: clap names every way to say what.
    let (code, _, err) = run(&["plan", NS]);
    assert_eq!(code, 2);
    assert!(err.contains("--delete <SELECTOR>|--all|--gc|--prune <NEW>|--namespace <NAMESPACE>|--selector <LABELS>"));
}

#[test]
fn a_selector_that_matches_nothing_names_the_closest_by_kind_then_namespace_then_name() {
    let cases: [(&[&str], &str); 14] = [
        // Before: three Deployments named web, and not the Service.
        (
            &["--delete", "svc/web", "-n", "b", NS],
            "selector `svc/web -n b` matches nothing; closest: Service/a/web, Deployment.apps/b/web, \
             Deployment.apps/c/web",
        ),
        (&["--delete", "svc/b/web", NS], "selector `svc/b/web` matches nothing; closest: Service/a/web, Deployment.apps/b/web, Deployment.apps/c/web"),
        // The kind right, the name far: every Pod, closest name first.
        (&["--delete", "pod/zzz", NS], "selector `pod/zzz` matches nothing; closest: Pod/b/api-0, Pod/b/web-1-x"),
        (
            &["--delete", "deploy/wbe", NS],
            "selector `deploy/wbe` matches nothing; closest: Deployment.apps/b/web, Deployment.apps/c/web, \
             Deployment.apps/d/web",
        ),
        // A kind with -n: its objects, closest namespace first.
        (
            &["--delete", "deploy", "-n", "bb", NS],
            "selector `deploy -n bb` matches nothing; closest: Deployment.apps/b/web, Deployment.apps/c/web, \
             Deployment.apps/d/web",
        ),
        // A word that is neither a kind nor an id: the closest kinds (then ids).
        (&["--delete", "deploymnets", NS], "selector `deploymnets` matches nothing; closest: Deployment.apps"),
        (
            &["--delete", "streem", NS],
            "selector `streem` matches nothing; closest: Stream.a.example.com, Stream.b.example.com",
        ),
        (&["--delete", "pdos", MIXED], "selector `pdos` matches nothing; closest: Pod, id:pods"),
        // A built-in kind the input lacks: nothing close.
        (&["--delete", "secrets", NS], "selector `secrets` matches nothing"),
        // Ids: case ignored when ranking, never when matching.
        (&["--delete", "id:AA", MIXED], "selector `id:AA` matches nothing; closest: id:aa, id:AAA, id:AB"),
        // Uids, each with its object.
        (
            &["--delete", "uid:5f1c7a4e-0b6d-4c8a-9d2e-1a3b5c7d9e10", NS],
            "selector `uid:5f1c7a4e-0b6d-4c8a-9d2e-1a3b5c7d9e10` matches nothing; closest: \
             uid:5f1c7a4e-0b6d-4c8a-9d2e-1a3b5c7d9e01 (Deployment.apps/b/web), \
             uid:5f1c7a4e-0b6d-4c8a-9d2e-1a3b5c7d9e02 (ReplicaSet.apps/b/web-1), \
             uid:5f1c7a4e-0b6d-4c8a-9d2e-1a3b5c7d9e03 (Pod/b/web-1-x)",
        ),
        // -n and -l alone: the closest namespace, label.
        (&["-n", "bb", NS], "selector `-n bb` matches nothing; closest: -n b"),
        (&["-l", "app=wbe", NS], "selector `-l app=wbe` matches nothing; closest: -l app=web"),
        (&["-n", "b", "-l", "app=wbe", NS], "selector `-n b -l app=wbe` matches nothing; closest: -l app=web"),
    ];
    for (args, says) in cases {
        let mut all = vec!["plan"];
        all.extend_from_slice(args);
        assert_eq!(error(&all, 1), format!("teardown: error: {says}"), "{args:?}");
    }
}
