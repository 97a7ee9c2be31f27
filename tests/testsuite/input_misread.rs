//! The reading side: nothing misread, nothing dropped. An input that cannot
//! be read or used stops `plan`, `explain` and `graph` unless told to go on
//! without it; YAML is read as kubectl reads it; the YAML fast path never
//! accepts what YAML rejects; Murano errors are Murano's; no input hangs or
//! takes quadratic time. Each case names the input that was misread before.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{check_json, f, findings, run, run_stdin, teardown};
use std::fs;
use std::time::Duration;

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(d: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = d.path().join(name);
    fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A ReplicaSet and two Pods it owns; the second Pod's labels are a list.
const BAD_LABELS: &str = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\n  namespace: default\n  uid: rs-1\n---\n\
apiVersion: v1\nkind: Pod\nmetadata:\n  name: p1\n  namespace: default\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-1}\n---\n\
apiVersion: v1\nkind: Pod\nmetadata:\n  name: p2\n  namespace: default\n  labels:\n  - a\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-1}\n";

#[test]
fn an_unusable_document_stops_the_plan() {
    // Before: the plan left p2 out and exited 0.
    let d = tmp();
    let p = write(&d, "rs.yaml", BAD_LABELS);
    let (code, out, err) = run(&["plan", "--delete", "rs/rs", &p]);
    assert_eq!(code, 2, "{out}");
    assert!(out.is_empty());
    assert!(err.contains("rs.yaml:22:3"), "the document is named at its line: {err}");
    assert!(err.contains("no plan: input that cannot be read or used (1 TD001 finding above)"), "{err}");
    assert!(err.contains("--skip-invalid"), "{err}");
    // explain and graph stop too.
    for args in [vec!["explain", "pod/p1", &p], vec!["graph", &p], vec!["graph", "-o", "json", &p]] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.is_empty() && err.contains("TD001"), "{args:?}: {err}");
    }
    // Told to go on, the plan says what it left out.
    let (code, out, err) = run(&["plan", "--delete", "rs/rs", "--skip-invalid", "-o", "json", &p]);
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(plan["warnings"][0]["rule"], "TD001");
    let message = plan["warnings"][0]["message"].as_str().unwrap();
    assert!(message.starts_with(&format!("{p}:22:3: Pod/default/p2: YAML: metadata.labels")), "{message}");
    let (code, out, _) = run(&["graph", "--skip-invalid", &p]);
    assert_eq!(code, 0);
    assert!(out.contains("Pod/default/p1"));
    // check reports it, and exits 2 as the plan does (issue 38).
    let (code, r) = check_json(&[&p]);
    assert_eq!((code, findings(&r)), (2, vec![f("TD001", "error", 22, 3)]));
}

#[test]
fn tsort_pairs_are_not_read_as_nothing() {
    // Before: printed nothing and exited 0.
    let (code, out, err) = run_stdin(&["plan", "--all", "-o", "names"], "a b\nb c\n");
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("document is a scalar, not an object"), "{err}");
    assert!(err.contains("read it with `--dialect pairs`"), "{err}");
    let (code, out, _) = run_stdin(&["plan", "--all", "-o", "names", "--dialect", "pairs"], "a b\nb c\n");
    assert_eq!((code, out.as_str()), (0, "a\nb\nc\n"));
}

#[test]
fn merge_keys_are_honoured() {
    // Before: the Pod landed in `default`.
    let d = tmp();
    let p = write(
        &d,
        "m.yaml",
        "apiVersion: v1\nkind: Pod\nx-meta: &m\n  namespace: shop\n  labels: {app: web}\nmetadata:\n  <<: *m\n  name: p\n",
    );
    let (code, out, err) = run(&["plan", "--all", "-o", "refs", &p]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/p\n"), "{err}");
    // Its merged labels are read too.
    let (code, r) = check_json(&[&p]);
    assert_eq!((code, findings(&r)), (0, vec![]));
    let (code, out, _) = run(&["plan", "--delete", "pod/p", "-l", "app=web", "-o", "refs", &p]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/p\n"));
}

#[test]
fn numbers_and_booleans_are_not_names() {
    // Before: `0x10` became the name `16`, and `1e3` the name `1000`.
    let d = tmp();
    for (value, what) in [("0x10", "a number"), ("1e3", "a number"), ("true", "a boolean")] {
        let p = write(&d, "n.yaml", &format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {value}\n"));
        let (code, r) = check_json(&[&p]);
        assert_eq!((code, findings(&r)), (2, vec![f("TD001", "error", 4, 9)]), "{value}");
        assert_eq!(
            r["findings"][0]["message"],
            format!("YAML: metadata.name: `{value}` is {what} where a string belongs; kubectl refuses it")
        );
        assert_eq!(r["findings"][0]["help"], format!("write it in quotes: name: \"{value}\""));
        let (code, out, _) = run(&["plan", "--all", "-o", "names", &p]);
        assert_eq!((code, out.as_str()), (2, ""), "{value}: never a rewritten name");
    }
    // What YAML 1.2 reads as a string but kubectl (YAML 1.1) does not.
    for (value, what) in [("yes", "a boolean"), ("017", "a number"), ("2021-01-02", "a timestamp")] {
        let p = write(
            &d,
            "k.yaml",
            &format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    v: {value}\n"),
        );
        let (code, r) = check_json(&[&p]);
        assert_eq!((code, findings(&r)), (2, vec![f("TD001", "error", 6, 8)]), "{value}");
        let m = r["findings"][0]["message"].as_str().unwrap();
        assert!(m.contains(&format!("`{value}` is {what} to kubectl")), "{m}");
    }
    // Quoted, they are strings.
    let p = write(&d, "q.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"0x10\"\n  labels:\n    v: 'yes'\n");
    let (code, out, _) = run(&["plan", "--all", "-o", "refs", &p]);
    assert_eq!((code, out.as_str()), (0, "Pod/default/0x10\n"));
    // JSON: the field is named too.
    let p = write(&d, "n.json", "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": 16}}");
    let (code, r) = check_json(&[&p]);
    assert_eq!(code, 2);
    assert_eq!(r["findings"][0]["message"], "JSON: name: `16` is a number where a string belongs; kubectl refuses it");
}

#[test]
fn the_fast_path_never_accepts_what_yaml_rejects() {
    // Before: each was read without a finding, its error unseen.
    let d = tmp();
    let head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n";
    for (body, line, column) in [
        ("  x: 1\n  - b\n", 7, 3), // a `- item` after a scalar value at the same indent
        ("  x: *nope\n", 6, 6),    // an undefined alias
        ("  x: a: b\n", 6, 7),     // `k: a: b`
        ("  x: \"a\" b\n", 6, 10), // `k: "a" b`
    ] {
        let p = write(&d, "f.yaml", &format!("{head}{body}"));
        let (code, r) = check_json(&[&p]);
        assert_eq!(code, 2, "{body:?}: a syntax error: {r}");
        assert_eq!(findings(&r), vec![f("TD001", "error", line, column)], "{body:?}");
    }
}

#[test]
fn murano_errors_are_murano_errors() {
    // Before: each was "object has no kind", an empty plan and exit 0.
    let d = tmp();
    let mut bomb = vec!["'?': {id: env, type: E}".to_string(), "a0: &a0 [x, x, x, x, x, x, x, x, x, x]".to_string()];
    for i in 1..9 {
        bomb.push(format!("a{i}: &a{i} [{}]", vec![format!("*a{}", i - 1); 10].join(", ")));
    }
    let deep =
        format!("{{\"?\": {{\"id\": \"env\", \"type\": \"E\"}}, \"x\": {}{}}}", "[".repeat(50_000), "]".repeat(50_000));
    let big_id = format!("{{\"?\": {{\"id\": {}, \"type\": \"E\"}}}}", "9".repeat(400));
    for (name, text, cause) in [
        ("bomb.yaml", bomb.join("\n"), "repetition limit exceeded"),
        ("deep.json", deep, "collections nest deeper than 512 levels"),
        ("id.json", big_id, "number out of range"),
    ] {
        let p = write(&d, name, &text);
        let (code, out, err) = run(&["plan", "--all", &p]);
        assert_eq!(code, 2, "{name}: {out}");
        assert!(err.contains(cause), "{name}: {err}");
        assert!(!err.contains("no `kind`"), "{name}: {err}");
    }
}

#[test]
fn special_files_neither_hang_nor_vanish() {
    use std::os::unix::net::UnixListener;
    let d = tmp();
    let dir = d.path().join("dir");
    fs::create_dir(&dir).unwrap();
    fs::copy("fixtures/shop.yaml", dir.join("shop.yaml")).unwrap();
    let fifo = dir.join("pipe.yaml");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let _socket = UnixListener::bind(dir.join("sock.yaml")).unwrap();
    // Before: reading the directory waited on the FIFO forever.
    let out = teardown()
        .args(["check", "-o", "json", &dir.to_string_lossy()])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "TD015")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(notes.len(), 2, "{r}");
    assert!(notes.iter().any(|m| m.ends_with("pipe.yaml: not read: a FIFO")), "{notes:?}");
    assert!(notes.iter().any(|m| m.ends_with("sock.yaml: not read: a socket")), "{notes:?}");
    assert_eq!(r["summary"]["objects"], 12);
    // Named on the command line, a FIFO is read like standard input.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::write(fifo, fs::read("fixtures/shop.yaml").unwrap()).unwrap())
    };
    let out = teardown()
        .args(["plan", "--all", "-o", "names", &fifo.to_string_lossy()])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 12);
}

#[test]
fn deep_flow_nesting_is_refused_not_ground_through() {
    // Before: 40,000 levels took 18 s, 80,000 did not finish in 20 s. The
    // limit here only guards against that again; bench.sh measures speed.
    let d = tmp();
    for depth in [40_000, 80_000] {
        let p = write(
            &d,
            "deep.yaml",
            &format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels: {}{}\n",
                "[".repeat(depth),
                "]".repeat(depth)
            ),
        );
        let out = teardown().args(["check", "-o", "json", &p]).timeout(Duration::from_secs(10)).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "depth {depth}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // Where the nesting passes 512: two block levels, then 511 brackets.
        assert_eq!(findings(&r), vec![f("TD001", "error", 5, 11 + 510)]);
        assert_eq!(r["findings"][0]["message"], "YAML: collections nest deeper than 512 levels");
    }
}

#[test]
fn prune_never_skips_an_unusable_new_document() {
    // A document of NEW skipped would look absent, and be pruned.
    let d = tmp();
    let old = write(&d, "old.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: ns\n");
    let new = write(
        &d,
        "new.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  namespace: ns\n  labels: [x]\n",
    );
    for extra in [vec![], vec!["--skip-invalid"]] {
        let mut args = vec!["plan", "--prune", &new, "-o", "names", &old];
        args.extend(extra.iter().copied());
        let (code, out, err) = run(&args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains("no plan (in --prune NEW)"), "{err}");
    }
}
