//! Finding controls, as ruff has them: `--select`, `--ignore`,
//! `--exit-zero`, `-q`, `teardown.toml` (found upward from the working
//! directory, or `--config`), `--finalizer-controller FINALIZER=external`,
//! and the finalizers of distributions' built-in controllers.
//!
//! Every test that could read a settings file runs in a directory of its
//! own with a `.git` in it, so that no teardown.toml above it is found.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use common::{findings, run, steps, teardown};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A fixture's absolute path (the tests below run in other directories).
fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name).display().to_string()
}

/// A directory that is a repository's root: discovery stops in it.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    dir
}

/// Run teardown in `dir`: (exit code, stdout, stderr).
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = teardown().current_dir(dir).args(args).output().expect("runs");
    (
        out.status.code().expect("exited normally"),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

/// `check -o json ARGS…` in `dir`: (exit code, the rules of the findings).
fn rules_in(dir: &Path, args: &[&str]) -> (i32, Vec<String>) {
    let mut all = vec!["check", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run_in(dir, &all);
    let json: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}\n{err}"));
    (code, findings(&json).into_iter().map(|f| f.0).collect())
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    path
}

fn three() -> [String; 3] {
    [
        fixture("check/td003-owner-missing.yaml"),
        fixture("check/td004-uid-mismatch.yaml"),
        fixture("check/td011-unknown-finalizer.yaml"),
    ]
}

#[test]
fn without_controls_every_rule_is_reported() {
    let dir = repo();
    let [a, b, c] = three();
    assert_eq!(rules_in(dir.path(), &[&a, &b, &c]), (1, vec!["TD003".into(), "TD004".into(), "TD011".into()]));
}

#[test]
fn select_reports_only_the_rules_it_names_by_id_or_name() {
    let dir = repo();
    let [a, b, c] = three();
    // TD004, the only error, is not selected: exit 0.
    assert_eq!(
        rules_in(dir.path(), &["--select", "TD003,TD011", &a, &b, &c]),
        (0, vec!["TD003".into(), "TD011".into()])
    );
    assert_eq!(
        rules_in(dir.path(), &["--select", "owner-not-found", "--select", "td011", &a, &b, &c]),
        (0, vec!["TD003".into(), "TD011".into()])
    );
    assert_eq!(rules_in(dir.path(), &["--select", "TD004", &a, &b, &c]), (1, vec!["TD004".into()]));
}

#[test]
fn ignore_takes_rules_out_and_the_exit_code_follows() {
    let dir = repo();
    let [a, b, c] = three();
    assert_eq!(rules_in(dir.path(), &["--ignore", "TD004", &a, &b, &c]), (0, vec!["TD003".into(), "TD011".into()]));
    assert_eq!(
        rules_in(dir.path(), &["--select", "ALL", "--ignore", "unknown-finalizer", &a, &b, &c]),
        (1, vec!["TD003".into(), "TD004".into()])
    );
    // The summary counts what is reported.
    let (code, out, _) = run_in(dir.path(), &["check", "--ignore", "TD004,TD011", &a, &b, &c]);
    assert_eq!(code, 0);
    assert!(out.ends_with("checked 3 files: 5 objects, 1 edge; 0 errors, 1 warning\n"), "{out}");
}

#[test]
fn select_and_ignore_naming_one_rule_contradict() {
    let dir = repo();
    let (code, _, err) =
        run_in(dir.path(), &["check", "--select", "TD011", "--ignore", "unknown-finalizer", "nowhere.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--select and --ignore both name TD011 (unknown-finalizer); say one"), "{err}");
}

#[test]
fn an_unknown_rule_is_a_usage_error_naming_the_closest_before_input_is_read() {
    let dir = repo();
    let (code, out, err) = run_in(dir.path(), &["check", "--select", "TD03", "nowhere.yaml"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.contains("--select: unknown rule `TD03`; closest: TD003 (owner-not-found)"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["plan", "--all", "--ignore", "owner-not-foud", "nowhere.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--ignore: unknown rule `owner-not-foud`; closest: TD003 (owner-not-found)"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["check", "--select", "bogus-words-here", "nowhere.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown rule `bogus-words-here`: rules are TD001–TD018"), "{err}");
}

#[test]
fn the_rule_set_applies_to_every_format() {
    let dir = repo();
    let [a, b, c] = three();
    let (code, out, _) = run_in(dir.path(), &["check", "-o", "sarif", "--select", "TD011", &a, &b, &c]);
    assert_eq!(code, 0);
    let sarif: Value = serde_json::from_str(&out).expect("SARIF");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.iter().map(|r| r["ruleId"].as_str().unwrap_or("")).collect::<Vec<_>>(), ["TD011"]);
    let (code, out, _) = run_in(dir.path(), &["check", "-o", "github", "--ignore", "TD003,TD011", &a, &b, &c]);
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("::error ") && out.contains("TD004"), "{out}");
    let (_, out, _) = run_in(dir.path(), &["check", "--statistics", "--ignore", "TD003", &a, &b, &c]);
    assert!(out.contains("| TD004 |") && out.contains("| TD011 |") && !out.contains("TD003"), "{out}");
    let (_, out, _) = run_in(dir.path(), &["check", "-o", "yaml", "--select", "TD003", &a, &b, &c]);
    assert!(out.contains("rule: TD003") && !out.contains("TD004") && !out.contains("TD011"), "{out}");
}

#[test]
fn input_that_cannot_be_read_is_reported_whatever_is_selected() {
    let dir = repo();
    let syntax = fixture("check/td001-syntax-error-in-doc-3.yaml");
    let (code, out, _) = run_in(dir.path(), &["check", &syntax]);
    assert_eq!(code, 2);
    assert!(out.contains("TD001 unusable-input: YAML"), "{out}");
    // --ignore covers every rule (issue 38): the document is left out,
    // as --skip-invalid leaves it out of a plan…
    let (code, out, _) = run_in(dir.path(), &["check", "--ignore", "TD001", &syntax]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("TD001"), "{out}");
    // …but a file that cannot be read at all is reported whatever is selected.
    let missing = dir.path().join("missing.yaml").display().to_string();
    let (code, _, err) = run_in(dir.path(), &["check", "--ignore", "TD001", &syntax, &missing]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn exit_zero_prints_the_findings_and_exits_0() {
    let dir = repo();
    let td004 = fixture("check/td004-uid-mismatch.yaml");
    let (code, out, _) = run_in(dir.path(), &["check", &td004]);
    assert_eq!(code, 1);
    let (code, with, _) = run_in(dir.path(), &["check", "--exit-zero", &td004]);
    assert_eq!((code, &with), (0, &out));
    // What an upload step needs: the SARIF, and a step that does not fail.
    let (code, out, _) = run_in(dir.path(), &["check", "-o", "sarif", "--exit-zero", &td004]);
    assert_eq!(code, 0);
    let sarif: Value = serde_json::from_str(&out).expect("SARIF");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "TD004");
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "error");
    // Input that cannot be read is no finding to forgive: exit 2.
    let (code, _, _) = run_in(dir.path(), &["check", "--exit-zero", "nowhere.yaml"]);
    assert_eq!(code, 2);
    let (code, _, _) =
        run_in(dir.path(), &["check", "--exit-zero", &fixture("check/td001-syntax-error-in-doc-3.yaml")]);
    assert_eq!(code, 2);
}

#[test]
fn quiet_check_prints_the_findings_without_the_summary_and_still_says_errors() {
    let dir = repo();
    let [a, b, c] = three();
    let (code, loud, _) = run_in(dir.path(), &["check", &a, &b, &c]);
    let (qcode, quiet, err) = run_in(dir.path(), &["check", "-q", &a, &b, &c]);
    assert_eq!((code, qcode, err.as_str()), (1, 1, ""));
    assert!(loud.contains("checked 3 files"));
    assert!(!quiet.contains("checked 3 files"), "{quiet}");
    assert!(quiet.contains("× TD004") && quiet.contains("⚠ TD011"), "{quiet}");
    // A clean snapshot says nothing at all.
    let (code, out, err) = run_in(dir.path(), &["-q", "check", &fixture("controls/distributions.yaml")]);
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    // Errors are still said.
    let (code, _, err) = run_in(dir.path(), &["check", "-q", "--select", "TD0", &a]);
    assert_eq!(code, 2);
    assert!(err.contains("teardown: error: --select: unknown rule `TD0`"), "{err}");
}

#[test]
fn quiet_plan_says_no_warnings_nor_summary_but_what_stops_it() {
    let dir = repo();
    let conflict = fixture("plan/murano-child-after-parent.yaml");
    let (code, out, err) = run_in(dir.path(), &["plan", "--all", &conflict]);
    assert_eq!(code, 0);
    assert!(err.contains("warning[TD012]") && err.contains("2 objects in 2 steps"), "{err}");
    let (code, qout, qerr) = run_in(dir.path(), &["plan", "-q", "--all", &conflict]);
    assert_eq!((code, qout, qerr.as_str()), (0, out, ""));
    let (code, _, err) = run_in(dir.path(), &["plan", "--all", "-o", "names", "-q", &conflict]);
    assert_eq!((code, err.as_str()), (0, ""));
    // What stops a plan is said, quiet or not.
    let (code, _, err) = run_in(dir.path(), &["-q", "plan", "--all", &fixture("check/td007-ownership-cycle.yaml")]);
    assert_eq!(code, 1);
    assert!(err.contains("× TD007 ownership-cycle") && err.contains("teardown: error: ownership cycle"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["plan", "-q", "--all", &fixture("check/td001-no-kind.yaml")]);
    assert_eq!(code, 2);
    assert!(err.contains("× TD001 unusable-input") && err.contains("teardown: error: no plan"), "{err}");
    // Other commands' warnings too.
    // (Beside a file with objects: alone, an empty file is empty input, an
    // error since issue 37.)
    let (empty, native) = (fixture("check/td013-empty.yaml"), fixture("formats/native.yaml"));
    let (_, _, err) = run_in(dir.path(), &["graph", &empty, &native]);
    assert!(err.contains("TD013"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["graph", "-q", &empty, &native]);
    assert_eq!((code, err.as_str()), (0, ""));
}

#[test]
fn ignoring_a_rule_hides_plan_warnings_not_the_plan() {
    let dir = repo();
    let conflict = fixture("plan/murano-child-after-parent.yaml");
    let json = |extra: &[&str]| -> Value {
        let mut args = vec!["plan", "--all", "-o", "json", &conflict];
        args.extend_from_slice(extra);
        let (code, out, err) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).expect("JSON")
    };
    let all = json(&[]);
    let ignored = json(&["--ignore", "TD012"]);
    assert_eq!(all["warnings"].as_array().map(Vec::len), Some(1));
    assert_eq!(ignored["warnings"], Value::Array(Vec::new()));
    assert_eq!(steps(&all), steps(&ignored));
    assert_eq!(all["relaxed"], ignored["relaxed"]);
    assert_eq!(ignored["relaxed"].as_array().map(Vec::len), Some(1));
    let (_, _, err) = run_in(dir.path(), &["plan", "--all", "--select", "TD011", &conflict]);
    assert!(!err.contains("TD012") && err.contains("0 warnings"), "{err}");
    // Ignoring TD001 never lets a plan run on input it cannot use.
    let (code, _, err) =
        run_in(dir.path(), &["plan", "--all", "--ignore", "TD001", &fixture("check/td001-no-kind.yaml")]);
    assert_eq!(code, 2);
    assert!(err.contains("TD001"), "{err}");
}

#[test]
fn teardown_toml_is_found_from_a_subdirectory() {
    let dir = repo();
    write(dir.path(), "teardown.toml", "# the team's settings\nignore = [\"TD004\"]\n");
    let below = dir.path().join("manifests/prod");
    std::fs::create_dir_all(&below).expect("mkdir");
    let [a, b, c] = three();
    assert_eq!(rules_in(&below, &[&a, &b, &c]), (0, vec!["TD003".into(), "TD011".into()]));
    assert_eq!(rules_in(dir.path(), &[&a, &b, &c]), (0, vec!["TD003".into(), "TD011".into()]));
    // --isolated reads none.
    assert_eq!(rules_in(&below, &["--isolated", &a, &b, &c]).1, ["TD003", "TD004", "TD011"]);
}

#[test]
fn discovery_stops_at_the_repository_root() {
    let outer = tempfile::tempdir().expect("tempdir");
    write(outer.path(), "teardown.toml", "ignore = [\"TD004\"]\n");
    let inner = outer.path().join("repo");
    std::fs::create_dir_all(inner.join(".git")).expect("mkdir");
    std::fs::create_dir_all(inner.join("sub")).expect("mkdir");
    let td004 = fixture("check/td004-uid-mismatch.yaml");
    assert_eq!(rules_in(&inner.join("sub"), &[&td004]), (1, vec!["TD004".into()]));
    // Above the repository it is found.
    assert_eq!(rules_in(outer.path(), &[&td004]), (0, vec![]));
}

#[test]
fn config_names_a_file_explicitly() {
    let dir = repo();
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let file = write(elsewhere.path(), "ci.toml", "select = [\"TD011\"]\n");
    let [a, b, c] = three();
    let file = file.display().to_string();
    assert_eq!(rules_in(dir.path(), &["--config", &file, &a, &b, &c]), (0, vec!["TD011".into()]));
    // A discovered file is not read when --config names one.
    write(dir.path(), "teardown.toml", "select = [\"TD003\"]\n");
    assert_eq!(rules_in(dir.path(), &["--config", &file, &a, &b, &c]), (0, vec!["TD011".into()]));
    let (code, _, err) = run_in(dir.path(), &["check", "--config", "missing.toml", &a]);
    assert_eq!(code, 2);
    assert!(err.contains("teardown: error: missing.toml: cannot read it"), "{err}");
    let (code, _, err) = run_in(dir.path(), &["check", "--config", &file, "--isolated", &a]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn flags_win_over_the_file() {
    let dir = repo();
    let [a, b, c] = three();
    write(dir.path(), "teardown.toml", "select = [\"TD004\", \"TD003\"]\nignore = [\"TD011\"]\n");
    assert_eq!(rules_in(dir.path(), &[&a, &b, &c]), (1, vec!["TD003".into(), "TD004".into()]));
    // --select starts over: the file's select and ignore no longer count.
    assert_eq!(rules_in(dir.path(), &["--select", "TD011", &a, &b, &c]), (0, vec!["TD011".into()]));
    // --ignore takes rules out of what the file selected.
    assert_eq!(rules_in(dir.path(), &["--ignore", "TD004", &a, &b, &c]), (0, vec!["TD003".into()]));
    // closed-world and deny from the file; a flag adds to them.
    write(dir.path(), "teardown.toml", "closed-world = true\n");
    let (code, out, _) = run_in(dir.path(), &["check", "-o", "json", &a]);
    assert_eq!(code, 1);
    assert_eq!(findings(&serde_json::from_str(&out).expect("JSON"))[0].1, "error");
    write(dir.path(), "teardown.toml", "deny = [\"warnings\"]\n");
    let (code, _) = rules_in(dir.path(), &[&c]);
    assert_eq!(code, 1);
    let (code, _) = rules_in(dir.path(), &["--isolated", &c]);
    assert_eq!(code, 0);
}

#[test]
fn a_bad_settings_file_is_refused_at_its_line_before_input_is_read() {
    let dir = repo();
    let cases = [
        (
            "select = [\"TD003\"]\n\nselct = [\"TD011\"]\n",
            "teardown.toml:3:1: unknown key `selct`; did you mean `select`?",
        ),
        ("closed-world = \"yes\"\n", "teardown.toml:1:16: `closed-world` must be true or false"),
        ("select = \"TD003\"\n", "teardown.toml:1:10: `select` must be a list of rule ids or names"),
        ("ignore = [\"TD003\", \"TD0011\"]\n", "teardown.toml:1:20: unknown rule `TD0011`; closest: TD001"),
        ("exit-zero = true\n", "teardown.toml:1:1: `exit-zero` is not a setting of the repository but of one run"),
        ("deny = [\"errors\"]\n", "teardown.toml:1:9: `deny` takes \"warnings\""),
        ("select = [\n", "teardown.toml:1:11: "),
        (
            "[finalizer-controllers]\n\"a.io/x\" = \"deploy/a/b/c/d\"\n",
            "teardown.toml:2:12: invalid selector `deploy/a/b/c/d`",
        ),
        (
            "[finalizer-controllers]\n\"a.io/x\" = 3\n",
            "teardown.toml:2:12: the controller of finalizer `a.io/x` must be",
        ),
    ];
    for (text, want) in cases {
        write(dir.path(), "teardown.toml", text);
        let (code, out, err) = run_in(dir.path(), &["check", "nowhere.yaml"]);
        assert_eq!((code, out.as_str()), (2, ""), "{text}");
        assert!(err.starts_with(&format!("teardown: error: {want}")), "{text}\n{err}");
    }
    // The file is found from below too, and named so that it can be opened.
    let below = dir.path().join("sub");
    std::fs::create_dir_all(&below).expect("mkdir");
    let (code, _, err) = run_in(&below, &["plan", "--all", "nowhere.yaml"]);
    assert_eq!(code, 2);
    let shown = dir.path().join("teardown.toml").display().to_string();
    assert!(err.contains(&format!("{shown}:2:12:")), "{err}");
}

#[test]
fn external_removes_td011_and_no_edge_changes_the_plan() {
    let dir = repo();
    let bucket = fixture("controls/bucket.yaml");
    assert_eq!(rules_in(dir.path(), &[&bucket]).1, ["TD011"]);
    let external = "example.com/delete-bucket=external";
    assert_eq!(rules_in(dir.path(), &["--finalizer-controller", external, &bucket]), (0, vec![]));
    let plan = |extra: &[&str]| -> Vec<Vec<String>> {
        let mut args = vec!["plan", "--all", "-o", "json", &bucket];
        args.extend_from_slice(extra);
        let (code, out, err) = run_in(dir.path(), &args);
        assert_eq!(code, 0, "{err}");
        steps(&serde_json::from_str(&out).expect("JSON"))
    };
    let none = plan(&[]);
    assert_eq!(none, [vec!["Bucket.example.com/data/logs", "ConfigMap/data/settings"], vec!["Namespace/data"]]);
    assert_eq!(plan(&["--finalizer-controller", external]), none);
    // The old way, a stand-in object as the controller, silences TD011 too,
    // but orders the stand-in after the Bucket: another plan.
    let stand_in = "example.com/delete-bucket=cm/data/settings";
    assert_eq!(rules_in(dir.path(), &["--finalizer-controller", stand_in, &bucket]), (0, vec![]));
    assert_eq!(
        plan(&["--finalizer-controller", stand_in]),
        [vec!["Bucket.example.com/data/logs"], vec!["ConfigMap/data/settings"], vec!["Namespace/data"]]
    );
    // The same from teardown.toml.
    write(dir.path(), "teardown.toml", "[finalizer-controllers]\n\"example.com/delete-bucket\" = \"external\"\n");
    assert_eq!(rules_in(dir.path(), &[&bucket]), (0, vec![]));
    assert_eq!(plan(&[]), none);
    // A flag maps its finalizer alone: the file's entry for it no longer counts.
    assert_eq!(plan(&["--finalizer-controller", stand_in])[1], ["ConfigMap/data/settings"]);
    let (code, out, _) = run_in(dir.path(), &["explain", "cm/data/settings", &bucket]);
    assert_eq!(code, 0);
    assert!(out.contains("step 1"), "{out}");
}

#[test]
fn external_and_a_selector_for_one_finalizer_contradict() {
    let dir = repo();
    let bucket = fixture("controls/bucket.yaml");
    let (code, _, err) = run_in(
        dir.path(),
        &[
            "plan",
            "--all",
            "--finalizer-controller",
            "example.com/delete-bucket=external",
            "--finalizer-controller",
            "example.com/delete-bucket=cm/data/settings",
            &bucket,
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("outside the snapshot") && err.contains("keep one"), "{err}");
    write(
        dir.path(),
        "teardown.toml",
        "[finalizer-controllers]\n\"example.com/delete-bucket\" = [\"cm/data/settings\", \"external\"]\n",
    );
    let (code, _, err) = run_in(dir.path(), &["check", &bucket]);
    assert_eq!(code, 2);
    assert!(err.contains("teardown.toml:2:31:") && err.contains("keep one"), "{err}");
}

#[test]
fn distribution_finalizers_are_known_without_configuration() {
    let dir = repo();
    // GKE, EKS (an IngressGroup's finalizer, by prefix), k3s, OpenShift.
    assert_eq!(rules_in(dir.path(), &[&fixture("controls/distributions.yaml")]), (0, vec![]));
    // The list is of exact strings: a finalizer merely like one is not known.
    let like = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\n  finalizers:\n  - networking.gke.io/ingress-finalizer-V3\n  - group.ingress.k8s.aws/\n";
    let file = write(dir.path(), "like.yaml", like);
    let (code, rules) = rules_in(dir.path(), &[&file.display().to_string()]);
    assert_eq!((code, rules), (0, vec!["TD011".to_string(), "TD011".to_string()]));
    // A mapping names the controller when the snapshot has it (as a
    // self-installed AWS Load Balancer Controller is): then it is ordered.
    let plan = |extra: &[&str]| -> Vec<Vec<String>> {
        let mut args = vec!["plan", "--all", "-o", "json", "fixtures/controls/distributions.yaml"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        steps(&serde_json::from_str(&out).expect("JSON"))
    };
    assert_eq!(plan(&[]).len(), 1);
    let mapped = plan(&["--finalizer-controller", "wrangler.cattle.io/on-helm-chart-remove=svc/kube-system/traefik"]);
    assert_eq!(mapped[1], ["Service/kube-system/traefik"]);
}

#[test]
fn the_docs_list_every_distribution_finalizer() {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/configuration.md")).expect("docs");
    for d in teardown::model::kube::DISTRIBUTION_FINALIZERS {
        assert!(page.contains(&format!("`{}`", d.finalizer)), "docs/configuration.md does not list {}", d.finalizer);
    }
}
