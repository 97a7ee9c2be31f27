//! CI on real repositories (issue 38): packages checked each as a snapshot
//! of its own (`check --packages`), files that are no objects skipped with
//! a note (TD018), `--exclude` and teardown.toml's `exclude`, the settings
//! file found beside the inputs, one exit code for an unusable document in
//! `check` and `plan`, `--ignore TD001`, and a TD001 naming its object.
//!
//! `fixtures/packages/kpt/` holds kpt examples copied from
//! `fixtures/realworld/dependson/` (Apache-2.0, see its SOURCES.md), each
//! package marked by a Kptfile as upstream marks it.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use common::{check_json, findings, run, teardown};
use serde_json::Value;
use std::path::{Path, PathBuf};

const KPT: &str = "fixtures/packages/kpt";
const MIXED: &str = "fixtures/packages/mixed";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The rules of a report's findings, and the files they point into.
fn rules_and_files(report: &Value) -> (Vec<String>, Vec<String>) {
    let all = report["findings"].as_array().unwrap();
    let rules = all.iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect();
    let files = all.iter().map(|f| f["file"].as_str().unwrap_or("").to_string()).collect();
    (rules, files)
}

fn count(rules: &[String], rule: &str) -> usize {
    rules.iter().filter(|r| *r == rule).count()
}

/// A directory that is a repository's root (settings discovery stops in it).
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

/// Copy a fixture directory into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = teardown().current_dir(dir).args(args).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Item 1. As one snapshot, the five kpt packages give five TD002
/// duplicates between them (eight in ../shared/realworld/dependson); each checked on its own, none, and the
/// dependencies each package leaves dangling upstream (SOURCES.md:
/// `outside-resource`, `secret-reader`) are its TD010s.
#[test]
fn the_kpt_blueprints_are_checked_per_package() {
    let (code, whole) = check_json(&[KPT]);
    let (rules, _) = rules_and_files(&whole);
    assert_eq!(code, 1);
    assert_eq!(count(&rules, "TD002"), 5, "{rules:?}");

    let (code, report) = check_json(&["--packages", KPT]);
    assert_eq!(code, 1, "the TD010s are errors");
    let (rules, files) = rules_and_files(&report);
    assert_eq!(count(&rules, "TD002"), 0, "{rules:?}");
    assert_eq!(count(&rules, "TD010"), 3, "{rules:?}");
    assert_eq!(count(&rules, "TD018"), 2, "the two setters ConfigMaps are local configuration: {rules:?}");
    assert_eq!(report["summary"]["packages"], 5);
    assert_eq!(report["summary"]["files"], 11);
    // Each finding points into its own package's file, as named.
    let set_namespace = format!("{KPT}/kpt-functions-catalog/examples/set-namespace-depends-on/resources.yaml");
    assert!(files.contains(&set_namespace), "{files:?}");
    assert!(files.iter().all(|f| f.starts_with(KPT)), "{files:?}");

    // -o github and SARIF carry the same paths.
    let (code, github, _) = run(&["check", "--packages", "-o", "github", KPT]);
    assert_eq!(code, 1);
    assert!(github.contains(&format!("::error file={set_namespace},line=24,")), "{github}");
    let (_, sarif, _) = run(&["check", "--packages", "-o", "sarif", KPT]);
    let sarif: Value = serde_json::from_str(&sarif).unwrap();
    let uris: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&set_namespace.as_str()), "{uris:?}");
}

/// Item 1, a file named: it stands for the outermost package above it
/// (kpt applies a subpackage with its parent), so the Deployment's
/// depends-on a StatefulSet of the `mysql` subpackage resolves.
#[test]
fn a_file_named_stands_for_its_package() {
    let file = format!("{KPT}/kpt/package-examples/wordpress-with-dependencies/mysql/statefulset.yaml");
    let (code, alone) = check_json(&[&file]);
    assert_eq!((code, alone["summary"]["files"].clone()), (0, Value::from(1)));
    let (code, report) = check_json(&["--packages", &file]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["summary"]["packages"], 1);
    assert_eq!(report["summary"]["files"], 3, "the package whole, its subpackage with it");
    assert_eq!(report["summary"]["edgesByKind"]["destroy-after"], 2, "{report}");
}

/// Item 2. A chart's Chart.yaml, values.yaml and templates, a
/// kustomization.yaml and a local-config document are no objects: each a
/// note, nothing an error (today: four TD001 and exit 2, and a template
/// read as a Service).
#[test]
fn files_that_are_not_objects_are_skipped_with_a_note() {
    let (code, report) = check_json(&[MIXED]);
    assert_eq!(code, 0, "{report}");
    let (rules, _) = rules_and_files(&report);
    assert_eq!(rules, vec!["TD018"; 6], "{report}");
    assert_eq!(report["summary"]["objects"], 2, "the Namespace and one ConfigMap");
    let messages: Vec<&str> =
        report["findings"].as_array().unwrap().iter().map(|f| f["message"].as_str().unwrap()).collect();
    let templates =
        messages.iter().filter(|m| m.contains("unrendered template") && m.contains("helm template")).count();
    assert_eq!(templates, 2, "{messages:?}");
    assert!(messages.iter().any(|m| m.starts_with("ConfigMap/shop/fn-config is local configuration")), "{messages:?}");

    // A plan leaves them out, and says so: never a silent loss.
    let (code, out, err) = run(&["plan", "--delete", "ns/shop", "-o", "json", MIXED]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    let warned: Vec<&str> = plan["warnings"].as_array().unwrap().iter().filter_map(|w| w["rule"].as_str()).collect();
    assert_eq!(warned, vec!["TD018"; 6], "{plan}");
    assert!(!out.contains("Service/"), "a template is no Service to delete: {out}");
}

/// Item 2. `--exclude GLOB`, and teardown.toml's `extend-exclude` beside
/// the inputs, leave paths out of the walk.
#[test]
fn exclude_leaves_paths_out() {
    let (code, report) = check_json(&["--exclude", "kpt-functions-catalog", KPT]);
    let (rules, files) = rules_and_files(&report);
    assert_eq!(code, 1, "the blueprints' duplicates stay");
    assert!(files.iter().all(|f| !f.contains("kpt-functions-catalog")), "{files:?}");
    assert_eq!(count(&rules, "TD010"), 0, "{rules:?}");
    let (code, _, err) = run(&["check", "--exclude", "*.yaml", KPT]);
    assert_eq!(code, 2, "nothing left to read is empty input: {err}");

    let repo = repo();
    copy_dir(&root().join(KPT), &repo.path().join("deploy"));
    std::fs::write(
        repo.path().join("deploy/teardown.toml"),
        "extend-exclude = [\"kpt-functions-catalog\", \"blueprints/**/org\"]\n",
    )
    .unwrap();
    let elsewhere = self::repo();
    let deploy = repo.path().join("deploy").display().to_string();
    let (code, out, err) = run_in(elsewhere.path(), &["check", "-o", "json", &deploy]);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let (rules, files) = rules_and_files(&report);
    assert!(files.iter().all(|f| !f.contains("kpt-functions-catalog") && !f.contains("/org/")), "{files:?}");
    assert_eq!(count(&rules, "TD002"), 0, "{rules:?}");
    assert_eq!(code, 0, "{report}");
}

/// Item 3. teardown.toml is found beside the inputs (ruff's rule), not
/// only in the working directory; `--config` overrides it.
#[test]
fn the_settings_file_is_found_beside_the_inputs() {
    let repo = repo();
    let deploy = repo.path().join("deploy");
    std::fs::create_dir(&deploy).unwrap();
    std::fs::copy(root().join("fixtures/check/td010-dependency-missing.yaml"), deploy.join("app.yaml")).unwrap();
    std::fs::write(repo.path().join("teardown.toml"), "ignore = [\"TD010\"]\n").unwrap();
    let elsewhere = self::repo();
    let shown = deploy.display().to_string();
    let (code, _, err) = run_in(elsewhere.path(), &["check", &shown]);
    assert_eq!(code, 0, "the file beside the inputs ignores TD010: {err}");
    // The nearest wins: one in the working directory does not count.
    std::fs::write(elsewhere.path().join("teardown.toml"), "select = [\"TD010\"]\n").unwrap();
    assert_eq!(run_in(elsewhere.path(), &["check", &shown]).0, 0);
    // --config overrides both.
    let (code, _, _) = run_in(elsewhere.path(), &["check", "--config", "teardown.toml", &shown]);
    assert_eq!(code, 1);
}

/// Item 3. The same unusable document gives exit 2 in `check` and `plan`,
/// and its TD001 names its object though `labels` cannot be read.
#[test]
fn an_unusable_document_exits_2_in_check_and_plan() {
    let file = "fixtures/reading/labels-as-a-list.yaml";
    let (check, _, _) = run(&["check", file]);
    let (check_zero, _, _) = run(&["check", "--exit-zero", file]);
    let (plan, _, err) = run(&["plan", "--delete", "rs/web", file]);
    assert_eq!((check, check_zero, plan), (2, 2, 2), "{err}");
    let (_, report) = check_json(&[file]);
    let td001 = &report["findings"].as_array().unwrap().iter().find(|f| f["rule"] == "TD001").unwrap().clone();
    assert!(td001["message"].as_str().unwrap().starts_with("Pod/shop/web-2: "), "{td001}");
    assert!(td001["refs"].as_array().unwrap().contains(&Value::from("Pod/shop/web-2")), "{td001}");
}

/// Item 3. `--ignore TD001` covers every TD001 about a document, a syntax
/// error included (today it ends `check` with exit 2 whatever the flags);
/// a file that cannot be read at all still exits 2.
#[test]
fn ignore_covers_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    let broken: PathBuf = dir.path().join("broken.yaml");
    std::fs::write(&broken, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: a\n").unwrap();
    let broken = broken.display().to_string();
    let (code, report) = check_json(&[&broken]);
    assert_eq!((code, findings(&report)[0].0.as_str()), (2, "TD001"));
    let (code, report) = check_json(&["--ignore", "TD001", &broken]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["summary"]["objects"], 1);
    let missing = dir.path().join("missing.yaml").display().to_string();
    assert_eq!(run(&["check", "--ignore", "TD001", &missing]).0, 2);
}

/// Each package's findings point into its own files. Two packages whose
/// Pods sit at the same offsets of their first file (file ids restart in
/// each package's snapshot), with the owner reference written on other
/// lines: the second finding was given the first one's places (line 11,
/// `labels: {a: b}`, where its uid is on line 10).
#[test]
fn a_packages_findings_point_into_its_own_files() {
    let dir = repo();
    let kptfile = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";
    let head = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: ns\n";
    let owner = "  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: rs\n    uid: u-1\n";
    let labels = "  labels: {a: b}\n";
    for (p, text) in [("p1", format!("{head}{labels}{owner}")), ("p2", format!("{head}{owner}{labels}"))] {
        std::fs::create_dir(dir.path().join(p)).unwrap();
        std::fs::write(dir.path().join(p).join("Kptfile"), kptfile).unwrap();
        std::fs::write(dir.path().join(p).join("a.yaml"), text).unwrap();
    }
    let (code, out, err) = run_in(dir.path(), &["check", "--packages", "-o", "json", "p1", "p2"]);
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap();
    let places: Vec<(String, u64, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["file"].as_str().unwrap().to_string(), f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(places, [("p1/a.yaml".to_string(), 11, 10), ("p2/a.yaml".to_string(), 10, 10)], "{out}");
}
