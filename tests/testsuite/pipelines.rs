//! Shell pipelines that cannot hurt, every kind of input stream, and a
//! first hour without stumbles (issue 37), one test (or a few) per item:
//! 1. `-o names` through a plain `xargs kubectl delete` (a fake kubectl
//!    first on PATH logs each call) never reaches an object outside the
//!    plan; 2. JSON documents one after another, in any file and on
//!    standard input; 3. empty input is an error; 4. the README's Quick
//!    start, run as written against a fake kubectl; 5. help headings, the
//!    dialects, the `TYPE NAME` hint; 6. kubectl's label selector grammar
//!    and `-A`; 7. the release and dist profiles, and man pages installed
//!    as the README says.

use crate::common::shell::Shell;
use crate::common::{run, run_stdin};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path).to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------
// 1. -o names and xargs

/// Objects in two namespaces, as in the issue: a Deployment `book-app` in
/// `books` and one in `gitlab`.
const TWO_NAMESPACES: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: book-app, namespace: books, uid: u1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: runner, namespace: gitlab, uid: u2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: book-app, namespace: gitlab, uid: u3}
";

/// What kubectl deletes when `calls` are its commands: (`TYPE/NAME`,
/// namespace) for each object named, the namespace the command's last
/// `-n` (none: the current namespace, `CURRENT`).
fn deleted(calls: &[Vec<String>]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for call in calls {
        assert_eq!(call.first().map(String::as_str), Some("delete"), "{call:?}");
        let mut ns = "CURRENT".to_string();
        let mut objects = Vec::new();
        let mut words = call[1..].iter();
        while let Some(w) = words.next() {
            if w == "-n" {
                ns = words.next().cloned().unwrap_or_default();
            } else {
                objects.push(w.clone());
            }
        }
        out.extend(objects.into_iter().map(|o| (o, ns.clone())));
    }
    out
}

/// `teardown ARGS -o names | xargs kubectl delete` (plain xargs: lines
/// joined) in a shell; the objects kubectl deletes, and teardown's exit code.
fn through_xargs(shell: &Shell, args: &str) -> (BTreeSet<(String, String)>, i32) {
    let (code, _, err) = shell
        .bash(&format!("set +o pipefail; teardown {args} -o names | xargs kubectl delete; exit ${{PIPESTATUS[0]}}"));
    let mut calls = shell.calls();
    // GNU xargs runs the command once even without input: `kubectl delete`
    // alone names nothing.
    calls.retain(|c| c.len() > 1);
    eprintln!("{err}");
    (deleted(&calls), code)
}

/// The plan's objects as kubectl names them, with their namespaces.
fn planned(args: &[&str]) -> BTreeSet<(String, String)> {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    let plan: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut set = BTreeSet::new();
    for step in plan["steps"].as_array().unwrap() {
        for r in step["resources"].as_array().unwrap() {
            // `Kind[.group]/[namespace/]name`.
            let parts: Vec<&str> = r["ref"].as_str().unwrap().split('/').collect();
            let (ty, ns, name) = match parts[..] {
                [ty, ns, name] => (ty, ns, name),
                [ty, name] => (ty, "CURRENT", name),
                _ => panic!("{r}"),
            };
            let (kind, group) = ty.split_once('.').unwrap_or((ty, ""));
            let ty = if group.is_empty() { kind.to_lowercase() } else { format!("{}.{group}", kind.to_lowercase()) };
            set.insert((format!("{ty}/{name}"), ns.to_string()));
        }
    }
    set
}

#[test]
fn names_through_a_plain_xargs_reach_no_object_outside_the_plan() {
    let shell = Shell::new();
    let snapshot = shell.path().join("two.yaml");
    std::fs::write(&snapshot, TWO_NAMESPACES).unwrap();
    let s = snapshot.to_string_lossy();
    // Several namespaces: lines joined by xargs would take the last -n.
    // Refused (exit 2), and nothing reaches kubectl.
    let (gone, code) = through_xargs(&shell, &format!("plan --all {s}"));
    let plan = planned(&["plan", "--all", &s]);
    assert!(
        gone.is_subset(&plan),
        "kubectl deleted {:?}, outside the plan",
        gone.difference(&plan).collect::<Vec<_>>()
    );
    assert_eq!((code, gone.len()), (2, 0));
    let (code, _, err) = run(&["plan", "--all", "-o", "names", &s]);
    assert_eq!(code, 2);
    assert!(err.contains("more than one namespace (`") && err.contains("-o kubectl"), "{err}");
    assert!(err.contains("`books`") && err.contains("`gitlab`"), "{err}");
    // graph, explain and simulate print -o names by the same rule.
    for args in [
        vec!["graph", "-o", "names", &s],
        vec!["explain", "deploy/books/book-app", "-o", "names", &s],
        vec!["simulate", "--controller", "kubernetes", "--delete", "deploy", "-o", "names", &s],
    ] {
        let (code, out, err) = run(&args);
        if code == 0 {
            let namespaces: BTreeSet<&str> = out.lines().filter_map(|l| l.split(" -n ").nth(1)).collect();
            assert!(namespaces.len() <= 1, "{args:?}: {out}");
        } else {
            assert!(err.contains("more than one namespace"), "{args:?}: {err}");
        }
    }
    // One namespace (and cluster-scoped objects): every object kubectl
    // deletes is the plan's, however xargs joins the lines.
    let shop = repo("fixtures/shop");
    let (gone, code) = through_xargs(&shell, &format!("plan --delete ns/shop {shop}"));
    assert_eq!(code, 0);
    let mut plan = planned(&["plan", "--delete", "ns/shop", &shop]);
    // kubectl reads a cluster-scoped object in no namespace, whatever -n says.
    let cluster: Vec<_> = plan.iter().filter(|(_, ns)| ns == "CURRENT").cloned().collect();
    for (o, _) in cluster {
        plan.remove(&(o.clone(), "CURRENT".into()));
        plan.insert((o, "shop".into()));
    }
    assert_eq!(gone, plan);
    // Narrowed to one namespace, the two-namespace snapshot prints.
    let (code, out, err) = run(&["plan", "-n", "gitlab", "-o", "names", &s]);
    assert_eq!((code, out.as_str()), (0, "configmap/book-app -n gitlab\ndeployment.apps/runner -n gitlab\n"), "{err}");
}

#[test]
fn help_and_readme_run_a_plan_with_kubectl_output() {
    let (_, help, _) = run(&["plan", "--help"]);
    assert!(!help.contains("xargs -L1 kubectl delete"), "{help}");
    assert!(help.contains("-o kubectl > delete.sh"), "{help}");
    assert!(help.contains("how to run a plan"), "{help}");
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    // No example deletes with -o names: it lists every object, Pods before
    // the ReplicaSet that would recreate them (the cascade-roots rule).
    for line in readme.lines().filter(|l| l.contains("| xargs")) {
        assert!(!(line.contains("-o names") && line.contains("kubectl delete")), "README: {line}");
    }
}

// ---------------------------------------------------------------------------
// 2. Streams

const DEPLOY: &str = r#"{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "a", "uid": "u1"}
}
"#;

const RS_LIST: &str = r#"{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "a", "uid": "u2", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "u1", "controller": true}]}}]}
"#;

const POD_NDJSON: &str = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1-a", "namespace": "a", "uid": "u3", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u2", "controller": true}]}}
{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1-b", "namespace": "a", "uid": "u4", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u2", "controller": true}]}}
"#;

fn stream() -> String {
    format!("{DEPLOY}{RS_LIST}\n{POD_NDJSON}")
}

const STREAM_PLAN: &str = "Pod/a/web-1-a\nPod/a/web-1-b\nReplicaSet.apps/a/web-1\nDeployment.apps/a/web\n";

#[test]
fn json_documents_one_after_another_are_read_from_stdin_and_any_file() {
    // `{ kubectl get deploy -o json; kubectl get rs -o json; … } | teardown check -`
    let (code, out, err) = run_stdin(&["check", "-"], &stream());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("4 objects, 3 edges; no findings") || out.contains("4 objects, 3 edges; no findings"),
        "{out}{err}"
    );
    let (code, out, err) = run_stdin(&["plan", "--delete", "deploy/a/web", "-o", "refs"], &stream());
    assert_eq!((code, out.as_str()), (0, STREAM_PLAN), "{err}");
    // Whatever the file is called.
    let dir = tempfile::tempdir().unwrap();
    for name in ["dump.yaml", "dump.txt", "dump", "dump.json"] {
        let p = dir.path().join(name);
        std::fs::write(&p, stream()).unwrap();
        let (code, out, err) = run(&["plan", "--delete", "deploy/a/web", "-o", "refs", &p.to_string_lossy()]);
        assert_eq!((code, out.as_str()), (0, STREAM_PLAN), "{name}: {err}");
    }
    // Through process substitution (a FIFO named on the command line).
    let shell = Shell::new();
    std::fs::write(shell.path().join("a.json"), DEPLOY).unwrap();
    std::fs::write(shell.path().join("b.json"), format!("{RS_LIST}{POD_NDJSON}")).unwrap();
    let (code, out, err) = shell.bash("teardown plan --delete deploy/a/web -o refs <(cat a.json b.json)");
    assert_eq!((code, out.as_str()), (0, STREAM_PLAN), "{err}");
}

#[test]
fn a_broken_document_of_a_stream_is_named_by_file_and_line() {
    let text =
        format!("{DEPLOY}{{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n \"metadata\": {{\"name\": 7}}}}\n{POD_NDJSON}");
    let (code, out, _) = run_stdin(&["check", "-o", "json", "-"], &text);
    assert_eq!(code, 2, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &report["findings"][0];
    assert_eq!((f["rule"].as_str(), f["file"].as_str()), (Some("TD001"), Some("<stdin>")), "{f}");
    assert_eq!((f["line"].as_u64(), f["column"].as_u64()), (Some(7), Some(23)), "{f}");
    // The documents after it are read.
    assert_eq!(report["summary"]["objects"].as_u64(), Some(3), "{report}");
    // A YAML stream of JSON documents parted by `---` is still YAML.
    let yaml = format!("{DEPLOY}---\n{RS_LIST}");
    let (code, _, err) = run_stdin(&["check", "-"], &yaml);
    assert_eq!(code, 0, "{err}");
}

// ---------------------------------------------------------------------------
// 3. Empty input

#[test]
fn empty_input_is_an_error_naming_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "# nothing\n---\n").unwrap();
    let e = empty.to_string_lossy().into_owned();
    let commands: [&[&str]; 7] = [
        &["check"],
        &["check", "-o", "json", "--exit-zero"],
        &["plan", "--all"],
        &["explain", "deploy/a/web"],
        &["graph"],
        &["simulate", "--controller", "kubernetes", "--delete", "deploy/a/web"],
        &["reconcile"],
    ];
    for command in commands {
        // Standard input, empty (what `kubectl get -A -o yaml | …` gave).
        let mut args = command.to_vec();
        args.push("-");
        let (code, out, err) = run_stdin(&args, "");
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("no object in standard input"), "{args:?}: {err}");
        // A file that holds only a comment.
        let mut args = command.to_vec();
        args.push(&e);
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(&format!("no object in `{e}`")), "{args:?}: {err}");
    }
    // --dialect pairs reads whole files: an empty one is empty input too.
    let (code, _, err) = run_stdin(&["plan", "--all", "--dialect", "pairs", "-"], "\n");
    assert_eq!(code, 2, "{err}");
    // An empty --prune NEW is still its own refusal (exit 1).
    let shop = repo("fixtures/shop.yaml");
    let (code, _, err) = run(&["plan", "--prune", &e, &shop]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--allow-empty-new"), "{err}");
}

// ---------------------------------------------------------------------------
// 4. The Quick start

/// The lines of the README's first ```sh block under `heading`.
fn readme_block(heading: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let at = readme.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("README has no {heading}"));
    let rest = &readme[at..];
    let start = rest.find("```sh\n").unwrap() + "```sh\n".len();
    let end = start + rest[start..].find("```").unwrap();
    rest[start..end].lines().map(str::to_string).collect()
}

#[test]
fn the_quick_start_works_as_written() {
    let shell = Shell::new();
    // The cluster: the sample snapshot; it lists these kinds.
    std::fs::copy(repo("fixtures/shop.yaml"), shell.path().join("cluster.yaml")).unwrap();
    std::fs::write(
        shell.path().join("api-resources.txt"),
        "namespaces\npods\nsecrets\nservices\ndeployments.apps\nreplicasets.apps\nstatefulsets.apps\ncarts.shop.example.com\n",
    )
    .unwrap();
    let script = readme_block("## Quick start").join("\n");
    let (code, out, err) = shell.bash(&script);
    assert_eq!(code, 0, "the Quick start failed:\n{script}\n{out}\n{err}");
    let calls = shell.calls();
    // The dump asked for every kind the cluster lists, in every namespace.
    let get = calls.iter().find(|c| c.first().map(String::as_str) == Some("get")).expect("a kubectl get");
    assert!(get.iter().any(|a| a == "-A"), "{get:?}");
    assert!(
        get.iter().any(|a| a
            == "namespaces,pods,secrets,services,deployments.apps,replicasets.apps,statefulsets.apps,carts.shop.example.com"),
        "{get:?}"
    );
    // The plan ran as -o kubectl's script: the namespace, its cascade root.
    let deletes: Vec<&Vec<String>> = calls.iter().filter(|c| c.first().map(String::as_str) == Some("delete")).collect();
    assert_eq!(deletes.len(), 1, "{calls:?}");
    assert_eq!(deletes[0][1..3], ["namespace".to_string(), "shop".to_string()]);
}

#[test]
fn the_readme_first_command_checks_the_sample_clean() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let line = readme.lines().find(|l| l.starts_with("cargo run --release -- ")).expect("the first command");
    let words: Vec<&str> =
        line["cargo run --release -- ".len()..].split('#').next().unwrap().split_whitespace().collect();
    let (code, out, err) = run(&words);
    assert_eq!(code, 0, "{err}");
    assert!(format!("{out}{err}").contains("no findings"), "{line}: {out}{err}");
}

// ---------------------------------------------------------------------------
// 5. Help

/// The flags listed under `heading` in `help`.
fn under(help: &str, heading: &str) -> Vec<String> {
    let mut in_it = false;
    let mut flags = Vec::new();
    for line in help.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            in_it = line == format!("{heading}:");
            continue;
        }
        let word = line.trim_start();
        if in_it && line.starts_with("  ") && !line.starts_with("          ") && word.starts_with('-') {
            let flag = word.split([' ', ',', '=']).find(|w| w.starts_with("--")).unwrap_or(word);
            flags.push(flag.split([' ', '=', '<']).next().unwrap().to_string());
        }
    }
    flags
}

#[test]
fn flags_are_under_their_own_headings() {
    for command in ["check", "plan", "explain", "graph", "simulate", "reconcile", "apply"] {
        let (_, help, _) = run(&[command, "--help"]);
        assert_eq!(under(&help, "Limits"), ["--max-file-size", "--max-object-size"], "{command}:\n{help}");
    }
    let (_, help, _) = run(&["plan", "--help"]);
    assert_eq!(under(&help, "Selection"), ["--namespace", "--selector", "--all-namespaces"], "{help}");
    for flag in ["--delete", "--all", "--output"] {
        assert!(under(&help, "Options").iter().any(|f| f == flag), "{flag}:\n{help}");
    }
}

#[test]
fn the_top_level_help_names_every_dialect() {
    // Every dialect `--dialect` takes, as clap lists them.
    let (_, _, err) = run(&["check", "--dialect", "bogus", "-"]);
    let values = err.split("[possible values: ").nth(1).unwrap().split(']').next().unwrap();
    let dialects: Vec<&str> = values.split(", ").collect();
    assert!(dialects.len() >= 6, "{dialects:?}");
    let (_, help, _) = run(&["--help"]);
    for d in dialects {
        assert!(help.lines().any(|l| l.trim_start().starts_with(&format!("{d} "))), "{d}:\n{help}");
    }
}

#[test]
fn a_selector_written_with_a_space_gets_a_hint() {
    let shop = repo("fixtures/shop.yaml");
    for args in [vec!["plan", "--delete", "deploy", "web", &shop], vec!["explain", "deploy", "web", &shop]] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("did you mean `deploy/web`?"), "{args:?}: {err}");
    }
}

// ---------------------------------------------------------------------------
// 6. Selection

fn refs(args: &[&str]) -> (i32, String, String) {
    let mut all = args.to_vec();
    all.extend(["-o", "refs", "fixtures/shop.yaml"]);
    run(&all)
}

#[test]
fn set_based_label_selectors_as_kubectl_parses_them() {
    let (code, out, err) = refs(&["plan", "--delete", "pods", "-l", "app in (web, db)"]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/db-0\nPod/shop/web-5d4f-a\nPod/shop/web-5d4f-b\n"), "{err}");
    let (code, out, err) = refs(&["plan", "--delete", "pods", "-l", "app notin (web)"]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/db-0\n"), "{err}");
    let (code, out, err) = refs(&["plan", "--delete", "pods", "-l", "app,!nonesuch,app in (db)"]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/db-0\n"), "{err}");
    // Errors quote the whole expression.
    for bad in ["app in (web", "app in web", "app=web,", "app notin", "!app=web"] {
        let (code, _, err) = refs(&["plan", "--delete", "pods", "-l", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains(&format!("invalid label selector `{bad}`: ")), "{bad}: {err}");
    }
}

#[test]
fn all_namespaces_is_accepted() {
    let (code, out, err) = refs(&["plan", "--delete", "pods", "-A", "-l", "app=db"]);
    assert_eq!((code, out.as_str()), (0, "Pod/shop/db-0\n"), "{err}");
    let (code, _, err) = refs(&["graph", "--all-namespaces"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = refs(&["plan", "--delete", "pods", "-A", "-n", "shop"]);
    assert_eq!(code, 2, "{err}");
}

// ---------------------------------------------------------------------------
// 7. Build profiles and man pages

#[test]
fn release_builds_fast_and_dist_is_fat() {
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(repo("Cargo.toml")).unwrap()).unwrap();
    let release = &manifest["profile"]["release"];
    assert!(release.get("lto").is_none_or(|l| l.as_str() != Some("fat")), "{release:?}");
    assert!(release.get("codegen-units").is_none_or(|c| c.as_integer() != Some(1)), "{release:?}");
    let dist = &manifest["profile"]["dist"];
    assert_eq!(dist["inherits"].as_str(), Some("release"));
    assert_eq!((dist["lto"].as_str(), dist["codegen-units"].as_integer()), (Some("fat"), Some(1)));
}

#[test]
fn the_install_steps_install_a_man_page_for_every_command() {
    let shell = Shell::new();
    let lines: Vec<String> = readme_block("## Install")
        .into_iter()
        .filter(|l| !l.starts_with("cargo ") && !l.contains("teardown completions"))
        .collect();
    let (code, out, err) = shell.bash(&lines.join("\n"));
    assert_eq!(code, 0, "{lines:?}\n{out}{err}");
    let man1: PathBuf = shell.path().join(".local/share/man/man1");
    let (_, help, _) = run(&["--help"]);
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 9, "{commands:?}");
    assert!(man1.join("teardown.1").exists());
    for c in commands {
        let page = man1.join(format!("teardown-{c}.1"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|_| panic!("no {}", page.display()));
        assert!(text.contains(".TH"), "{c}");
    }
}
