//! The CI path as docs/ci.md writes it: the GitHub Actions workflow's steps
//! (all but the install) run on a snapshot with an error and on a clean one,
//! with the exit codes the page states; the pre-commit hook's command runs
//! as pre-commit would run it.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use serde_yaml::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A directory holding only `teardown` (the binary under test), for PATH.
fn bin_dir() -> tempfile::TempDir {
    let bin =
        std::env::var_os("TEARDOWN_BIN").map(PathBuf::from).unwrap_or_else(|| assert_cmd::cargo::cargo_bin("teardown"));
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(bin, dir.path().join("teardown")).unwrap();
    dir
}

/// docs/ci.md's workflow: the YAML block that uploads SARIF.
fn workflow() -> Value {
    let readme = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let block = readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("upload-sarif"))
        .expect("a workflow in docs/ci.md");
    serde_yaml::from_str(block).expect("the workflow is YAML")
}

/// A repository checkout with `manifests/` holding these fixture files.
fn checkout(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    for f in files {
        let from = repo().join(f);
        std::fs::copy(&from, manifests.join(from.file_name().unwrap())).unwrap();
    }
    dir
}

struct Step {
    name: String,
    code: i32,
    stdout: String,
}

/// Run the workflow's `run` steps but the install, in order, as a runner
/// would (bash -e, the workflow's env), each whatever the last gave.
fn run_steps(workflow: &Value, dir: &Path) -> Vec<Step> {
    let bin = bin_dir();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let steps = workflow["jobs"]["check"]["steps"].as_sequence().expect("steps");
    let mut out = Vec::new();
    for step in steps {
        let Some(script) = step["run"].as_str() else { continue };
        if script.contains("cargo install") {
            continue; // the install: the binary under test stands in
        }
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(dir)
            .env("PATH", &path)
            .env_remove("NO_COLOR");
        if let Some(env) = workflow["env"].as_mapping() {
            for (k, v) in env {
                cmd.env(k.as_str().unwrap(), v.as_str().unwrap());
            }
        }
        let result = cmd.output().unwrap();
        out.push(Step {
            name: step["name"].as_str().unwrap_or(script).to_string(),
            code: result.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&result.stdout).into_owned(),
        });
    }
    out
}

fn sarif(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("teardown.sarif")).expect("the SARIF step writes teardown.sarif");
    serde_json::from_str(&text).expect("SARIF is JSON")
}

#[test]
fn the_workflow_uploads_findings_and_fails_on_errors() {
    let workflow = workflow();
    let steps = workflow["jobs"]["check"]["steps"].as_sequence().unwrap();
    let upload = steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.contains("upload-sarif"))).unwrap();
    assert_eq!(upload["with"]["sarif_file"].as_str(), Some("teardown.sarif"));
    assert!(upload["if"].as_str().is_some_and(|c| c.contains("cancelled") || c.contains("always")), "uploads always");
    assert_eq!(workflow["jobs"]["check"]["permissions"]["security-events"].as_str(), Some("write"));

    let dir = checkout(&["fixtures/check/td010-dependency-missing.yaml", "fixtures/check/td003-owner-missing.yaml"]);
    let ran = run_steps(&workflow, dir.path());
    assert_eq!(ran.len(), 2, "the SARIF step and the failing step");
    assert_eq!((ran[0].name.as_str(), ran[0].code), ("Findings as SARIF", 0), "SARIF with --exit-zero passes");
    let report = sarif(dir.path());
    assert_eq!(report["version"], "2.1.0");
    let results = report["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "TD010" && r["level"] == "error"), "{results:?}");
    assert!(results.iter().any(|r| r["ruleId"] == "TD003" && r["level"] == "warning"));
    assert_eq!(ran[1].code, 1, "the last step fails the job on errors");
    assert!(ran[1].stdout.contains("::error file=manifests/td010-dependency-missing.yaml"), "{}", ran[1].stdout);

    // Warnings alone pass; the SARIF still carries them.
    let dir = checkout(&["fixtures/check/td003-owner-missing.yaml"]);
    let ran = run_steps(&workflow, dir.path());
    assert_eq!(ran.iter().map(|s| s.code).collect::<Vec<_>>(), [0, 0]);
    assert!(ran[1].stdout.contains("::warning"));
    assert_eq!(sarif(dir.path())["runs"][0]["results"].as_array().unwrap().len(), 1);

    // Input that cannot be read fails the SARIF step too (exit 2).
    let dir = checkout(&["fixtures/check/td003-owner-missing.yaml"]);
    std::fs::write(dir.path().join("manifests/broken.yaml"), [0xff, 0xfe]).unwrap();
    let ran = run_steps(&workflow, dir.path());
    assert_eq!(ran[0].code, 2);
}

#[test]
fn the_pre_commit_hook_checks_the_tree() {
    let text = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Value = serde_yaml::from_str(&text).unwrap();
    let hook = &hooks[0];
    assert_eq!(hook["id"].as_str(), Some("teardown-check"));
    assert_eq!(hook["language"].as_str(), Some("rust"), "pre-commit builds it with cargo");
    assert_eq!(hook["pass_filenames"].as_bool(), Some(false), "the whole tree, not the changed files");
    let entry = hook["entry"].as_str().unwrap();
    let args: Vec<&str> = hook["args"].as_sequence().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    let files = hook["files"].as_str().unwrap();
    assert_eq!(files, r"\.(ya?ml|json)$", "runs when a YAML or JSON file changes");

    let bin = bin_dir();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    // pre-commit runs `entry args…` in the root of the repository that uses the hook.
    let run = |dir: &Path| {
        let mut words = entry.split_whitespace();
        let mut cmd = Command::new(words.next().unwrap());
        cmd.args(words).args(&args).current_dir(dir).env("PATH", &path).stdin(std::process::Stdio::null());
        cmd.output().unwrap().status.code().unwrap()
    };
    let clean = checkout(&["fixtures/check/td003-owner-missing.yaml"]);
    assert_eq!(run(clean.path()), 0);
    let broken = checkout(&["fixtures/check/td010-dependency-missing.yaml"]);
    assert_eq!(run(broken.path()), 1, "an error fails the commit");
}
