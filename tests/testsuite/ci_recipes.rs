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

/// Both hooks (`language: rust`, built on first use, and `language:
/// system`, the teardown on PATH) run on the staged files, and check each
/// one's package whole (issue 38): not `.`, not the files alone.
#[test]
fn the_pre_commit_hooks_check_the_staged_files_packages() {
    let text = std::fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let hooks: Value = serde_yaml::from_str(&text).unwrap();
    let hooks = hooks.as_sequence().unwrap();
    let languages: Vec<&str> = hooks.iter().map(|h| h["language"].as_str().unwrap()).collect();
    assert_eq!(languages, ["rust", "system"], "built with cargo, or installed once");
    let ids: Vec<&str> = hooks.iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["teardown-check", "teardown-check-system"]);

    // A repository of two kpt packages: `shop` whole is clean (its
    // Deployment depends on a Secret in another file), `broken`'s
    // dependency is missing.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let write = |name: &str, text: &str| {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    let kptfile = |name: &str| format!("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: {name}\n");
    write("shop/Kptfile", &kptfile("shop"));
    write(
        "shop/app/web.yaml",
        &std::fs::read_to_string(repo().join("fixtures/check/td010-dependency-missing.yaml")).unwrap(),
    );
    write("shop/secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-password\n  namespace: default\n");
    write("broken/Kptfile", &kptfile("broken"));
    write(
        "broken/web.yaml",
        &std::fs::read_to_string(repo().join("fixtures/check/td010-dependency-missing.yaml")).unwrap(),
    );

    let bin = bin_dir();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    for hook in hooks {
        assert_eq!(hook["pass_filenames"].as_bool(), Some(true), "the staged files, not the tree");
        let files = regex_lite(hook["files"].as_str().unwrap());
        let entry = hook["entry"].as_str().unwrap();
        let args: Vec<&str> =
            hook["args"].as_sequence().map(|a| a.iter().map(|a| a.as_str().unwrap()).collect()).unwrap_or_default();
        // pre-commit runs `entry args… FILES…` in the repository's root,
        // the staged files that match `files`.
        let run = |staged: &[&str]| {
            let staged: Vec<&str> = staged.iter().copied().filter(|f| files(f)).collect();
            assert!(!staged.is_empty());
            let mut words = entry.split_whitespace();
            let mut cmd = Command::new(words.next().unwrap());
            cmd.args(words).args(&args).args(&staged).current_dir(root).env("PATH", &path);
            cmd.stdin(std::process::Stdio::null());
            let out = cmd.output().unwrap();
            (out.status.code().unwrap(), String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let (code, out) = run(&["shop/app/web.yaml"]);
        assert_eq!(code, 0, "the Secret of its package is found; `broken` is not checked: {out}");
        assert_eq!(run(&["shop/Kptfile"]).0, 0, "a Kptfile staged checks its package");
        let (code, out) = run(&["broken/web.yaml", "shop/secret.yaml"]);
        assert_eq!(code, 1, "an error fails the commit: {out}");
        assert!(out.contains("broken/web.yaml") && !out.contains("shop/app/web.yaml"), "{out}");
    }
}

/// The hooks' `files` pattern, for the names used above: a YAML or JSON
/// file, or a Kptfile.
fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
    assert_eq!(pattern, r"(\.(ya?ml|json)|(^|/)(Kptfile|Kustomization))$", "the pattern this test reads");
    |f: &str| {
        [".yaml", ".yml", ".json"].iter().any(|e| f.ends_with(e))
            || ["Kptfile", "Kustomization"].iter().any(|n| f == *n || f.ends_with(&format!("/{n}")))
    }
}
