//! Helpers shared by the CLI tests.
#![allow(dead_code)]
// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

pub mod shell;

use assert_cmd::Command;
use serde_json::Value;

/// The binary under test; `TEARDOWN_BIN=PATH` runs the tests against
/// another build (to show that a new test fails on an old one).
pub fn teardown() -> Command {
    let mut cmd = match std::env::var_os("TEARDOWN_BIN") {
        Some(bin) => Command::new(bin),
        None => Command::cargo_bin("teardown").expect("binary built"),
    };
    cmd.env_remove("NO_COLOR").current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

/// Run teardown with `args`, return (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    finish(teardown().args(args).output().expect("runs"))
}

fn finish(out: std::process::Output) -> (i32, String, String) {
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// Run teardown with `args` and `stdin` on standard input.
pub fn run_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    finish(teardown().args(args).write_stdin(stdin.to_string()).output().expect("runs"))
}

/// `teardown check -o json ARGS…`: (exit code, parsed JSON).
pub fn check_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    let json = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"));
    (code, json)
}

/// The findings of a check report as (rule, severity, line, column).
pub fn findings(report: &Value) -> Vec<(String, String, u64, u64)> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["severity"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["column"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

pub fn f(rule: &str, severity: &str, line: u64, column: u64) -> (String, String, u64, u64) {
    (rule.to_string(), severity.to_string(), line, column)
}

/// The kept objects of a plan (JSON) as (reference, reason).
pub fn kept(plan: &Value) -> Vec<(String, String)> {
    plan["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["ref"].as_str().unwrap().to_string(), k["reason"].as_str().unwrap().to_string()))
        .collect()
}

/// The steps of a plan (JSON) as lists of references.
pub fn steps(plan: &Value) -> Vec<Vec<String>> {
    plan["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["resources"].as_array().unwrap().iter().map(|r| r["ref"].as_str().unwrap().to_string()).collect())
        .collect()
}

/// `teardown COMMAND -o json ARGS…`, which must succeed: its JSON.
pub fn json_of(command: &str, args: &[&str]) -> Value {
    let mut all = vec![command, "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{all:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// A check that cannot run here (a tool is missing): says why on stderr.
/// In CI (`CI` set) it fails instead: `.ci/run` installs every tool the
/// tests use, so a skip there is a missing install step, not a pass.
pub fn skip(why: &str) {
    assert!(std::env::var_os("CI").is_none(), "skipped in CI, which should have run it: {why}");
    eprintln!("skipped: {why}");
}

/// A check that cannot run in this environment, CI's included (e.g. as
/// root, where permissions do not stop writes): says why on stderr.
pub fn skip_expected(why: &str) {
    eprintln!("skipped (expected here): {why}");
}

/// `teardown plan -o json ARGS…`, which must succeed: the plan.
pub fn plan(args: &[&str]) -> Value {
    json_of("plan", args)
}

/// `teardown plan -o json ARGS…`, however it ends: (exit code, the plan —
/// `Null` when nothing was printed —, stderr).
pub fn try_plan(args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["plan", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    let v = if out.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\nstderr: {err}"))
    };
    (code, v, err)
}

/// Steps written as lists of references (what `steps` returns).
pub fn s(items: &[&[&str]]) -> Vec<Vec<String>> {
    items.iter().map(|step| step.iter().map(|r| r.to_string()).collect()).collect()
}

/// The resource `reference` of a plan, wherever it is in its steps.
pub fn resource<'a>(v: &'a Value, reference: &str) -> &'a Value {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["resources"].as_array().unwrap())
        .find(|r| r["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not in the plan"))
}

/// A plan's warnings: type and message.
pub fn warnings(v: &Value) -> Vec<(String, String)> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["type"].as_str().unwrap().to_string(), w["message"].as_str().unwrap().to_string()))
        .collect()
}

/// The path of the binary under test (`TEARDOWN_BIN`, or this build's),
/// for a test that starts it itself (to stop it, or run two at once).
pub fn bin() -> std::path::PathBuf {
    std::env::var_os("TEARDOWN_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("teardown"))
}
