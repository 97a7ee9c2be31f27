//! Conformance with the systems teardown models: each case is derived from
//! that system's own tests and code, never from teardown's output.
//!
//! One test binary (`cargo test --test conformance`), one `#[test]` per
//! system folder. A case is a YAML file `tests/conformance/<system>/<id>.yaml`:
//!
//! ```yaml
//! title: Background deletion of an owner takes its dependents
//! upstream:                      # one or more: where the expectation comes from
//!   - repo: kubernetes/kubernetes
//!     file: test/integration/garbagecollector/garbage_collector_test.go
//!     test: TestCascadingDeletion
//!     says: "the assertion, quoted or restated"
//! derivation: how the expectation follows from upstream (optional)
//! command: [plan, --delete, configmap/a, -n, x, -o, json]
//! files:                         # written into a fresh temporary directory,
//!   snapshot.yaml: |             # which is the working directory of the run
//!     apiVersion: v1
//!     ...
//! expect: { exit: 0, deleted: [ConfigMap/x/a] }
//! ```
//!
//! Expectations (every key optional; references are the `ref` of the JSON):
//! - `exit`: the exit code (default 0)
//! - `deleted`: the exact set of references in `steps` (any action)
//! - `deletes` / `not_deleted`: references that must (not) be in `steps`
//! - `kept`: references that must be in `kept`; `kept_reasons`: {ref: [reason types]}
//! - `orphaned`: the exact set of references in `orphaned`
//! - `steps`: the exact steps, each a set of references, step 1 first
//! - `before`: pairs [a, b]: a's step is smaller than b's; `same_step`: pairs in one step
//! - `warnings` / `no_warnings`: warning types that must (not) appear
//! - `relaxed`: number of relaxed edges; `cycles`: number of cycles
//! - `findings` / `no_findings`: rule ids that must (not) appear in a `check`
//! - `events`: Murano events as strings `event object [subscriber]`, the exact sequence
//! - `sim`: for `simulate -o json`: {TYPE: [refs]}, the exact set of refs that have
//!   an event of that type (e.g. `removed`); `sim_outcome`: the JSON `outcome`/`stalled`
//!   checks via `json`
//! - `sim_sequence`: for `simulate -o json`, events as `type ref` (and the
//!   event's finalizer, owner, verb or watch event when it has one) that must
//!   occur in this order (others may come between)
//! - `json`: [{pointer: "/a/0/b", equals: VALUE}] checks on the parsed stdout
//! - `stdout_contains` / `stderr_contains` / `stdout_lacks`: substrings
//!
//! `CONFORMANCE_CASE=substring` runs only matching cases; `TEARDOWN_BIN=PATH`
//! runs them against another build (to show that a case fails on an old one).
//! Every case must be listed in its folder's README.md (the table).

// Test code: a failed unwrap or index is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use serde_json::Value as Json;
use serde_yaml::Value as Yaml;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn binary() -> PathBuf {
    match std::env::var_os("TEARDOWN_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => PathBuf::from(env!("CARGO_BIN_EXE_teardown")),
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

/// The case files of one system, sorted.
fn cases(system: &str) -> Vec<PathBuf> {
    let dir = root().join(system);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn strings(v: &Yaml) -> Vec<String> {
    match v {
        Yaml::Sequence(items) => items.iter().map(scalar).collect(),
        Yaml::Null => Vec::new(),
        other => vec![scalar(other)],
    }
}

fn scalar(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => s.clone(),
        Yaml::Number(n) => n.to_string(),
        Yaml::Bool(b) => b.to_string(),
        other => panic!("expected a scalar, got {other:?}"),
    }
}

fn refs_of(list: &Json) -> Vec<String> {
    list.as_array().map(|a| a.iter().filter_map(|r| r["ref"].as_str().map(String::from)).collect()).unwrap_or_default()
}

fn steps_of(plan: &Json) -> Vec<BTreeSet<String>> {
    plan["steps"]
        .as_array()
        .map(|steps| steps.iter().map(|s| refs_of(&s["resources"]).into_iter().collect()).collect())
        .unwrap_or_default()
}

fn step_of(steps: &[BTreeSet<String>], reference: &str) -> Option<usize> {
    steps.iter().position(|s| s.contains(reference))
}

fn set(v: &[String]) -> BTreeSet<String> {
    v.iter().cloned().collect()
}

/// Run one case; returns the list of failed expectations.
fn run_case(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let case: Yaml = serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut bad = Vec::new();
    for key in ["title", "upstream", "command", "expect"] {
        if case.get(key).is_none() {
            bad.push(format!("the case has no `{key}`"));
        }
    }
    if let Some(up) = case.get("upstream") {
        let list = match up {
            Yaml::Sequence(items) => items.clone(),
            other => vec![other.clone()],
        };
        for u in &list {
            for key in ["repo", "file", "says"] {
                if u.get(key).is_none() {
                    bad.push(format!("an upstream citation has no `{key}`"));
                }
            }
        }
    }
    if !bad.is_empty() {
        return bad;
    }
    let dir = tempfile::tempdir().unwrap();
    if let Some(Yaml::Mapping(files)) = case.get("files") {
        for (name, content) in files {
            let name = scalar(name);
            let file = dir.path().join(&name);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            std::fs::write(file, scalar(content)).unwrap();
        }
    }
    let args = strings(&case["command"]);
    let out = Command::new(binary())
        .args(&args)
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let expect = &case["expect"];
    let json: Json = serde_json::from_str(&stdout).unwrap_or(Json::Null);
    let want_exit = expect.get("exit").and_then(Yaml::as_i64).unwrap_or(0);
    if i64::from(code) != want_exit {
        bad.push(format!("exit {code}, expected {want_exit}"));
    }
    let steps = steps_of(&json);
    let in_steps: BTreeSet<String> = steps.iter().flatten().cloned().collect();
    let Yaml::Mapping(map) = expect else {
        return vec!["`expect` is not a mapping".into()];
    };
    for (key, want) in map {
        let key = scalar(key);
        match key.as_str() {
            "exit" => {}
            "deleted" => {
                let want = set(&strings(want));
                if want != in_steps {
                    bad.push(format!("deleted {in_steps:?}, expected {want:?}"));
                }
            }
            "deletes" => {
                for r in strings(want) {
                    if !in_steps.contains(&r) {
                        bad.push(format!("{r} is not in the plan's steps"));
                    }
                }
            }
            "not_deleted" => {
                for r in strings(want) {
                    if in_steps.contains(&r) {
                        bad.push(format!("{r} is in the plan's steps"));
                    }
                }
            }
            "kept" => {
                let kept = set(&refs_of(&json["kept"]));
                for r in strings(want) {
                    if !kept.contains(&r) {
                        bad.push(format!("{r} is not kept (kept: {kept:?})"));
                    }
                }
            }
            "kept_reasons" => {
                let Yaml::Mapping(m) = want else { panic!("kept_reasons: a mapping") };
                for (r, types) in m {
                    let r = scalar(r);
                    let entry = json["kept"].as_array().and_then(|a| a.iter().find(|k| k["ref"] == r.as_str()));
                    let Some(entry) = entry else {
                        bad.push(format!("{r} is not kept"));
                        continue;
                    };
                    let have: Vec<String> = entry["reasons"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|x| x["type"].as_str().map(String::from)).collect())
                        .unwrap_or_default();
                    for t in strings(types) {
                        if !have.contains(&t) {
                            bad.push(format!("{r} is kept without reason type {t} (has {have:?})"));
                        }
                    }
                }
            }
            "orphaned" => {
                let have = set(&refs_of(&json["orphaned"]));
                let want = set(&strings(want));
                if have != want {
                    bad.push(format!("orphaned {have:?}, expected {want:?}"));
                }
            }
            "steps" => {
                let want: Vec<BTreeSet<String>> = match want {
                    Yaml::Sequence(s) => s.iter().map(|x| set(&strings(x))).collect(),
                    _ => panic!("steps: a list of lists"),
                };
                if want != steps {
                    bad.push(format!("steps {steps:?}, expected {want:?}"));
                }
            }
            "before" | "same_step" => {
                let Yaml::Sequence(pairs) = want else { panic!("{key}: a list of pairs") };
                for pair in pairs {
                    let p = strings(pair);
                    let (a, b) = (step_of(&steps, &p[0]), step_of(&steps, &p[1]));
                    let ok = match (a, b) {
                        (Some(a), Some(b)) => {
                            if key == "before" {
                                a < b
                            } else {
                                a == b
                            }
                        }
                        _ => false,
                    };
                    if !ok {
                        bad.push(format!("{key} {} {}: steps {a:?} and {b:?}", p[0], p[1]));
                    }
                }
            }
            "warnings" | "no_warnings" => {
                let have: BTreeSet<String> = json["warnings"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|w| w["type"].as_str().map(String::from)).collect())
                    .unwrap_or_default();
                for t in strings(want) {
                    if (key == "warnings") != have.contains(&t) {
                        bad.push(format!("{key}: {t} (warnings: {have:?})"));
                    }
                }
            }
            "relaxed" | "cycles" => {
                let n = json[key.as_str()].as_array().map_or(0, Vec::len);
                let w = want.as_u64().unwrap() as usize;
                if n != w {
                    bad.push(format!("{n} {key}, expected {w}"));
                }
            }
            "findings" | "no_findings" => {
                let have: BTreeSet<String> = json["findings"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|f| f["rule"].as_str().map(String::from)).collect())
                    .unwrap_or_default();
                for r in strings(want) {
                    if (key == "findings") != have.contains(&r) {
                        bad.push(format!("{key}: {r} (findings: {have:?})"));
                    }
                }
            }
            "events" => {
                let have = event_lines(&json, "event", "object", &["subscriber"]);
                let want = strings(want);
                if have != want {
                    bad.push(format!("events {have:?}, expected {want:?}"));
                }
            }
            "sim" => {
                let Yaml::Mapping(m) = want else { panic!("sim: a mapping") };
                for (t, refs) in m {
                    let t = scalar(t);
                    let have: BTreeSet<String> = json["events"]
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter(|e| e["type"] == t.as_str())
                                .filter_map(|e| e["ref"].as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default();
                    let want = set(&strings(refs));
                    if have != want {
                        bad.push(format!("simulate `{t}` events for {have:?}, expected {want:?}"));
                    }
                }
            }
            "sim_sequence" => {
                let have = event_lines(&json, "type", "ref", &["finalizer", "owner", "verb", "event"]);
                let want = strings(want);
                let mut at = have.iter();
                if let Some(missing) = want.iter().find(|w| !at.any(|h| h == *w)) {
                    bad.push(format!("simulate events lack {missing:?} in order (events: {have:?})"));
                }
            }
            "json" => {
                let Yaml::Sequence(checks) = want else { panic!("json: a list") };
                for c in checks {
                    let pointer = scalar(&c["pointer"]);
                    let equals: Json = serde_json::to_value(&c["equals"]).unwrap();
                    let have = json.pointer(&pointer).cloned().unwrap_or(Json::Null);
                    if have != equals {
                        bad.push(format!("{pointer} is {have}, expected {equals}"));
                    }
                }
            }
            "stdout_contains" | "stderr_contains" | "stdout_lacks" => {
                let (hay, lack) = match key.as_str() {
                    "stdout_contains" => (&stdout, false),
                    "stdout_lacks" => (&stdout, true),
                    _ => (&stderr, false),
                };
                for s in strings(want) {
                    if hay.contains(&s) == lack {
                        bad.push(format!("{key}: {s:?}"));
                    }
                }
            }
            other => bad.push(format!("unknown expectation `{other}`")),
        }
    }
    if !bad.is_empty() {
        bad.push(format!(
            "command: teardown {}\nstdout:\n{}\nstderr:\n{}",
            args.join(" "),
            clip(&stdout),
            clip(&stderr)
        ));
    }
    bad
}

/// The output's events, each as `A B` (the values of keys `a` and `b`),
/// and ` C` for the first key of `more` it has.
fn event_lines(json: &Json, a: &str, b: &str, more: &[&str]) -> Vec<String> {
    let line = |e: &Json| {
        let mut s = format!("{} {}", e[a].as_str().unwrap_or("?"), e[b].as_str().unwrap_or("?"));
        if let Some(c) = more.iter().find_map(|k| e[*k].as_str()) {
            s.push(' ');
            s.push_str(c);
        }
        s
    };
    json["events"].as_array().map(|list| list.iter().map(line).collect()).unwrap_or_default()
}

fn clip(s: &str) -> String {
    if s.len() > 4000 {
        let mut end = 4000;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}… ({} bytes)", &s[..end], s.len())
    } else {
        s.to_string()
    }
}

/// Run every case of `system`; fail with every broken expectation listed.
fn suite(system: &str) {
    let filter = std::env::var("CONFORMANCE_CASE").unwrap_or_default();
    let readme = std::fs::read_to_string(root().join(system).join("README.md")).unwrap_or_default();
    let mut failures = Vec::new();
    let mut ran = 0;
    for path in cases(system) {
        let id = path.file_stem().unwrap().to_string_lossy().into_owned();
        if !readme.contains(&id) {
            failures.push(format!("{system}/{id}: not listed in {system}/README.md"));
        }
        if !id.contains(&filter) {
            continue;
        }
        ran += 1;
        for b in run_case(&path) {
            failures.push(format!("{system}/{id}: {b}"));
        }
    }
    assert!(filter.is_empty() || ran > 0 || cases(system).is_empty(), "no case matches {filter}");
    assert!(failures.is_empty(), "{} conformance failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// Every folder beside this file is a system with a `#[test]` below.
#[test]
fn every_system_folder_has_a_test() {
    // A system's folder and its `#[test]` below come together.
    let known = ["kubernetes", "kubevela", "murano", "krake", "argocd", "crossplane", "flux", "helm", "k3s", "kapp"];
    for entry in std::fs::read_dir(root()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let listed = known.contains(&name.as_str()) || PENDING.contains(&name.as_str());
            assert!(listed, "tests/conformance/{name} has no #[test] in main.rs");
            assert!(!cases(&name).is_empty(), "tests/conformance/{name} has no case");
        }
    }
}

/// Suites written ahead of their feature (issue 35: the cascades of
/// application controllers, docs/controllers/CASCADES.md): their cases fail
/// until it exists, so they are not run; moving a name from here to `known`
/// with its `#[test]` registers it. Until then each case must be well formed
/// and listed in its README.
const PENDING: [&str; 0] = [];

#[test]
fn pending_cases_are_well_formed() {
    for system in PENDING {
        let readme = std::fs::read_to_string(root().join(system).join("README.md")).unwrap_or_default();
        for path in cases(system) {
            let id = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(readme.contains(&id), "{system}/{id}: not listed in {system}/README.md");
            let case: Yaml = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for key in ["title", "upstream", "command", "expect", "files"] {
                assert!(case.get(key).is_some(), "{system}/{id}: no `{key}`");
            }
        }
    }
}

#[test]
fn kubernetes() {
    suite("kubernetes");
}

#[test]
fn kubevela() {
    suite("kubevela");
}

#[test]
fn murano() {
    suite("murano");
}

#[test]
fn krake() {
    suite("krake");
}

#[test]
fn argocd() {
    suite("argocd");
}

#[test]
fn flux() {
    suite("flux");
}

#[test]
fn helm() {
    suite("helm");
}

#[test]
fn k3s() {
    suite("k3s");
}

#[test]
fn kapp() {
    suite("kapp");
}

#[test]
fn crossplane() {
    suite("crossplane");
}
