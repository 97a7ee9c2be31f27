//! `--skip-invalid` goes on without the documents that cannot be used, but
//! never takes one for absent: a plan whose decisions depend on a document
//! left out (an owner its dependents name, an object the cascade reaches
//! through it) is refused (exit 2), naming the object, the document's line
//! and what to do. A document left out that nothing depends on changes
//! nothing. Each case names what the plan did before.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common::run;
use std::fs;

fn write(d: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = d.path().join(name);
    fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A ReplicaSet that cannot be used (`canary: yes` is a boolean to
/// kubectl), and a Pod it owns.
const OWNER_LEFT_OUT: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: prod\n  \
uid: 00000000-0000-0000-0000-000000000001\n  labels: {canary: yes}\n---\n\
apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1-abc\n  namespace: prod\n  uid: 00000000-0000-0000-0000-000000000002\n  \
ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: 00000000-0000-0000-0000-000000000001, controller: true}\n";

/// A Secret owned by two ConfigMaps, the second of which cannot be used.
const SECOND_OWNER_LEFT_OUT: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns1, uid: aaaaaaaa-0000-0000-0000-000000000001}\n---\n\
apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: ns1, uid: aaaaaaaa-0000-0000-0000-000000000002, labels: {x: no}}\n---\n\
apiVersion: v1\nkind: Secret\nmetadata:\n  name: d\n  namespace: ns1\n  uid: aaaaaaaa-0000-0000-0000-000000000003\n  ownerReferences:\n  \
- {apiVersion: v1, kind: ConfigMap, name: a, uid: aaaaaaaa-0000-0000-0000-000000000001}\n  \
- {apiVersion: v1, kind: ConfigMap, name: b, uid: aaaaaaaa-0000-0000-0000-000000000002}\n";

/// A Deployment, its ReplicaSet (which cannot be used), and the
/// ReplicaSet's Pod.
const CHAIN: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: prod, uid: 00000000-0000-0000-0000-000000000000}\n---\n\
apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: prod\n  uid: 00000000-0000-0000-0000-000000000001\n  \
labels: {canary: yes}\n  ownerReferences:\n  \
- {apiVersion: apps/v1, kind: Deployment, name: web, uid: 00000000-0000-0000-0000-000000000000, controller: true}\n---\n\
apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1-abc\n  namespace: prod\n  uid: 00000000-0000-0000-0000-000000000002\n  \
ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: 00000000-0000-0000-0000-000000000001, controller: true}\n";

/// The run is refused (exit 2, nothing on stdout), the TD001 finding of
/// the document left out is said, and the error says `says`.
fn refused(args: &[&str], says: &str) -> String {
    let (code, out, err) = run(args);
    assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
    assert!(err.contains("TD001"), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(err.contains("; fix the document (its TD001 finding is above) and run again"), "{err}");
    err
}

#[test]
fn an_owner_left_out_is_not_garbage_collected_away() {
    // Before: `--gc --closed-world` deleted the Pod as "garbage: owner
    // ReplicaSet.apps/prod/web-1 is not in the snapshot", exit 0.
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "in.yaml", OWNER_LEFT_OUT);
    let says = format!(
        "no plan: Pod/prod/web-1-abc names owner ReplicaSet.apps/prod/web-1, whose document ({p}:1) --skip-invalid leaves out: the plan would take that owner for absent"
    );
    let err = refused(&["plan", "--gc", "--closed-world", "--skip-invalid", &p], &says);
    assert!(err.contains("in.yaml:7:20"), "the finding is said at its place: {err}");
    // Without --closed-world the Pod was kept "because its owner is not in
    // the snapshot"; deleted as a target, the warning that its controller
    // recreates it was lost.
    for args in [
        vec!["plan", "--gc", "--skip-invalid", &p],
        vec!["plan", "--all", "--skip-invalid", &p],
        vec!["plan", "--delete", "pod/prod/web-1-abc", "--skip-invalid", &p],
        vec!["explain", "pod/prod/web-1-abc", "--skip-invalid", &p],
    ] {
        refused(&args, &says);
    }
}

#[test]
fn a_second_owner_left_out_is_not_absent() {
    // Before: the plan deleted d, warning that b "is not in the snapshot",
    // and with --closed-world without a word; exit 0.
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "multi.yaml", SECOND_OWNER_LEFT_OUT);
    let says =
        format!("no plan: Secret/ns1/d names owner ConfigMap/ns1/b, whose document ({p}:5) --skip-invalid leaves out");
    refused(&["plan", "--delete", "cm/ns1/a", "--skip-invalid", &p], &says);
    refused(&["plan", "--delete", "cm/ns1/a", "--skip-invalid", "--closed-world", &p], &says);
}

#[test]
fn a_cascade_through_a_document_left_out_is_refused() {
    // Before: `plan --delete deploy/prod/web` listed the Deployment alone;
    // the cluster deletes its ReplicaSet and that one's Pod too.
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "chain.yaml", CHAIN);
    refused(
        &["plan", "--delete", "deploy/prod/web", "--skip-invalid", &p],
        &format!("no plan: deleting Deployment.apps/prod/web deletes ReplicaSet.apps/prod/web-1, whose document ({p}:5) --skip-invalid leaves out, and with it Pod/prod/web-1-abc, which it owns: the plan would miss Pod/prod/web-1-abc"),
    );
    // Orphaning the Deployment's dependents reaches nothing.
    let (code, out, err) =
        run(&["plan", "--delete", "deploy/prod/web", "--cascade", "orphan", "--skip-invalid", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (0, "deployment.apps/web -n prod\n"), "{err}");
}

#[test]
fn every_object_depending_on_one_is_counted() {
    let d = tempfile::tempdir().unwrap();
    let two_pods = OWNER_LEFT_OUT.to_string()
        + "---\n"
        + &OWNER_LEFT_OUT[OWNER_LEFT_OUT.find("apiVersion: v1").unwrap()..]
            .replace("web-1-abc", "web-1-def")
            .replace("0002", "0003");
    let p = write(&d, "two.yaml", &two_pods);
    refused(
        &["plan", "--gc", "--closed-world", "--skip-invalid", &p],
        "(1 more object depends on a document left out)",
    );
}

#[test]
fn a_document_left_out_that_nothing_depends_on_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    // Nothing names the ConfigMap left out.
    let unrelated = CHAIN.replace("canary: yes", "canary: \"yes\"")
        + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: junk, namespace: prod, labels: {on: yes}}\n";
    let p = write(&d, "unrelated.yaml", &unrelated);
    let clean = write(&d, "clean.yaml", &CHAIN.replace("canary: yes", "canary: \"yes\""));
    for args in [
        vec!["plan", "--delete", "deploy/prod/web", "-o", "names"],
        vec!["plan", "--all", "-o", "names"],
        vec!["plan", "--gc", "--closed-world", "-o", "names"],
    ] {
        let mut with = args.clone();
        with.extend(["--skip-invalid", &p]);
        let mut without = args.clone();
        without.push(&clean);
        let (code, out, err) = run(&with);
        assert_eq!(code, 0, "{with:?}: {err}");
        assert_eq!(out, run(&without).1, "{with:?}");
    }
    // The Pod names the ReplicaSet left out, but the plan does not touch it.
    let p = write(
        &d,
        "in.yaml",
        &(OWNER_LEFT_OUT.to_string()
            + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: prod}\n"),
    );
    let (code, out, err) = run(&["plan", "--delete", "cm/prod/other", "--skip-invalid", &p]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "STEP  ACTION  OBJECT                REASON\n1     delete  ConfigMap/prod/other  target\n");
    assert!(err.contains("warning[TD001]") && err.contains("1 object in 1 step, 0 kept, 1 warning"), "{err}");
    // A document left out under an owner the plan deletes, with no
    // dependents read: the plan goes on without it (as docs/inputs.md says).
    let p = write(&d, "leaf.yaml", &CHAIN[..CHAIN.rfind("---").unwrap()]);
    let (code, out, err) = run(&["plan", "--delete", "deploy/prod/web", "--skip-invalid", "-o", "names", &p]);
    assert_eq!((code, out.as_str()), (0, "deployment.apps/web -n prod\n"), "{err}");
}

/// A ReplicaSet whose name is written as a number (TD001: kubectl refuses
/// it), so that the document left out cannot be named, and a Pod it owns.
const UNNAMED_OWNER_LEFT_OUT: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: 1234\n  namespace: prod\n  \
uid: 00000000-0000-0000-0000-000000000001\n---\n\
apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: prod\n  uid: 00000000-0000-0000-0000-000000000002\n  \
ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: \"1234\", uid: 00000000-0000-0000-0000-000000000001, controller: true}\n";

#[test]
fn a_document_left_out_that_cannot_be_named_may_be_any_missing_owner() {
    // Before: `plan --gc --closed-world --skip-invalid` deleted Pod/prod/p
    // as garbage ("owner ReplicaSet.apps/1234 is not in the snapshot"), exit
    // 0: the ReplicaSet is in the file, its name written as a number.
    let d = tempfile::tempdir().unwrap();
    let p = write(&d, "in.yaml", UNNAMED_OWNER_LEFT_OUT);
    for args in [&["plan", "--gc", "--closed-world"][..], &["plan", "--delete", "pod/prod/p"], &["plan", "--all"]] {
        let (code, out, err) = run(&[args, &["--skip-invalid", &p]].concat());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains("TD001 unusable-input"), "{args:?}: {err}");
        assert!(
            err.contains(&format!(
                "teardown: error: no plan: Pod/prod/p names owner ReplicaSet.apps/1234, which is not in the snapshot, and --skip-invalid leaves out a document whose kind or name could not be read ({p}:4): the plan would take that owner for absent, though it may be that document; fix the document (its TD001 finding is above) and run again\n"
            )),
            "{args:?}: {err}"
        );
    }
    // A plan that decides nothing of an object with a missing owner goes on.
    let q = write(
        &d,
        "other.yaml",
        &format!(
            "{UNNAMED_OWNER_LEFT_OUT}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c, namespace: other}}\n"
        ),
    );
    let (code, out, err) = run(&["plan", "--delete", "cm/other/c", "--skip-invalid", "-o", "names", &q]);
    assert_eq!((code, out.as_str()), (0, "configmap/c -n other\n"), "{err}");
}
