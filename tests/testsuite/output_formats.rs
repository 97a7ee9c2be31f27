//! Output formats: SARIF, GitHub annotations, YAML, graph JSON / DOT /
//! Mermaid, completions, the man page, and color handling.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{run, teardown};
use serde_json::Value;

#[test]
fn sarif_has_what_github_code_scanning_requires() {
    let (code, out, _) = run(&[
        "check",
        "-o",
        "sarif",
        "fixtures/check/td002-duplicate.yaml",
        "fixtures/check/td003-owner-missing.yaml",
    ]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["$schema"], "https://json.schemastore.org/sarif-2.1.0.json");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "teardown");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 18);
    assert_eq!(rules[2]["id"], "TD003");
    assert_eq!(rules[2]["defaultConfiguration"]["level"], "warning");
    assert_eq!(rules[13]["id"], "TD014");
    assert_eq!(rules[13]["defaultConfiguration"]["level"], "note");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    let r = &results[0];
    assert_eq!(r["ruleId"], "TD002");
    assert_eq!(r["ruleIndex"], 1);
    assert_eq!(r["level"], "error");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "fixtures/check/td002-duplicate.yaml");
    assert_eq!(loc["region"]["startLine"], 11);
    assert_eq!(loc["region"]["startColumn"], 9);
    assert_eq!(loc["region"]["endColumn"], 17);
    assert_eq!(r["relatedLocations"][0]["message"]["text"], "first defined here");
    assert_eq!(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 4);
    assert_eq!(results[1]["ruleId"], "TD003");
    assert_eq!(results[1]["level"], "warning");
    // Every result has a message and a location with a line.
    for r in results {
        assert!(r["message"]["text"].as_str().is_some_and(|t| !t.is_empty()));
        assert!(r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn github_annotations_escape_their_data() {
    let (code, out, _) = run(&["check", "-o", "github", "fixtures/check/td003-owner-missing.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "::warning file=fixtures/check/td003-owner-missing.yaml,line=11,col=10,endLine=11,endColumn=46,\
         title=TD003 owner-not-found::Pod/shop/web-7c9d-abcde: owner ReplicaSet.apps/shop/web-7c9d \
         (uid 22222222-0000-0000-0000-0000000000ff) is not in the snapshot%0Ahelp: if the snapshot is the \
         whole cluster (--closed-world), the garbage collector deletes Pod/shop/web-7c9d-abcde\n"
    );
}

#[test]
fn yaml_output_is_the_json_document() {
    let (_, json, _) = run(&["check", "-o", "json", "fixtures/check/td009-two-controllers.yaml"]);
    let (_, yaml, _) = run(&["check", "-o", "yaml", "fixtures/check/td009-two-controllers.yaml"]);
    let a: Value = serde_json::from_str(&json).unwrap();
    let b: Value = serde_yaml::from_str(&yaml).unwrap();
    assert_eq!(a, b);
}

#[test]
fn graph_json_lists_nodes_and_edges() {
    let (code, out, _) = run(&["graph", "-o", "json", "--focus", "deploy/web", "fixtures/shop"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schemaVersion"], 1);
    let refs: Vec<&str> = v["nodes"].as_array().unwrap().iter().map(|n| n["ref"].as_str().unwrap()).collect();
    assert_eq!(
        refs,
        ["Deployment.apps/shop/web", "Pod/shop/web-5d4f-a", "Pod/shop/web-5d4f-b", "ReplicaSet.apps/shop/web-5d4f"]
    );
    let edges: Vec<(String, String, String)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["from"].as_str().unwrap().into(), e["to"].as_str().unwrap().into(), e["kind"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(
        edges,
        [
            ("Deployment.apps/shop/web".into(), "ReplicaSet.apps/shop/web-5d4f".into(), "owns".into()),
            ("ReplicaSet.apps/shop/web-5d4f".into(), "Pod/shop/web-5d4f-a".into(), "owns".into()),
            ("ReplicaSet.apps/shop/web-5d4f".into(), "Pod/shop/web-5d4f-b".into(), "owns".into()),
        ]
    );
    assert_eq!(v["nodes"][0]["file"], "fixtures/shop/20-web.yaml");
    assert_eq!(v["nodes"][0]["line"], 1);
}

#[test]
fn graph_dot_is_accepted_by_graphviz() {
    if std::process::Command::new("dot").arg("-V").output().is_err() {
        // CI installs Graphviz (.ci/run): a skip there fails.
        crate::common::skip("Graphviz `dot` is not installed");
        return;
    }
    // fixtures/check holds unusable documents on purpose: graph the rest.
    for input in ["fixtures/shop", "fixtures/realworld/kubernetes/argo-rollouts-info-testdata.yaml", "fixtures/check"] {
        let (code, out, err) = run(&["graph", "-o", "dot", "--skip-invalid", input]);
        assert_eq!(code, 0, "{input}: {err}");
        assert!(out.starts_with("digraph teardown {"), "{input}: {err}");
        let mut child = std::process::Command::new("dot")
            .arg("-Tsvg")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(out.as_bytes()).unwrap();
        let result = child.wait_with_output().unwrap();
        assert!(
            result.status.success(),
            "dot rejected the graph of {input}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert!(String::from_utf8_lossy(&result.stdout).contains("<svg"));
    }
}

#[test]
fn graph_mermaid() {
    let (code, out, _) = run(&["graph", "-o", "mermaid", "--focus", "svc/web", "fixtures/shop"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "flowchart LR\n  n0[\"EndpointSlice.discovery.k8s.io/shop/web-abc\"]\n  n1[\"Service/shop/web\"]\n  n1 -->|owns| n0\n"
    );
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, _) = run(&["completions", shell]);
        assert_eq!(code, 0);
        assert!(out.contains("closed-world"), "{shell} completion lacks check flags");
    }
    let (code, out, _) = run(&["man"]);
    assert_eq!(code, 0);
    assert!(out.starts_with(".ie \\n(.g .ds Aq") || out.contains(".TH teardown"), "{}", &out[..200]);
    assert!(out.contains("teardown"));
}

#[test]
fn color_follows_flag_and_no_color() {
    let input = "fixtures/check/td003-owner-missing.yaml";
    let plain = teardown().args(["check", input]).output().unwrap().stdout;
    assert!(!plain.contains(&0x1b), "no color when not a terminal");
    let always = teardown().args(["--color", "always", "check", input]).output().unwrap().stdout;
    assert!(always.contains(&0x1b), "--color always colors");
    let no_color = teardown().env("NO_COLOR", "1").args(["--color", "always", "check", input]).output().unwrap().stdout;
    assert!(no_color.contains(&0x1b), "--color always wins over NO_COLOR");
    let never = teardown().args(["--color", "never", "check", input]).output().unwrap().stdout;
    assert_eq!(never, plain);
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, err) = run(&["check", "--output", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid value 'nope'"), "{err}");
    let (code, _, err) = run(&["check", "--finalizer-controller", "no-equals-sign", "fixtures/shop"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected FINALIZER=SELECTOR"), "{err}");
    let (code, _, err) = run(&["graph", "--focus", "a/b/c/d", "fixtures/shop"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid selector"), "{err}");
}

#[test]
fn output_is_deterministic() {
    let a = run(&["graph", "-o", "json", "fixtures/realworld/kubernetes/kubevious-gke-large-cluster-2022-02.yaml"]);
    let b = run(&["graph", "-o", "json", "fixtures/realworld/kubernetes/kubevious-gke-large-cluster-2022-02.yaml"]);
    assert_eq!(a, b);
    let a = run(&["check", "-o", "json", "fixtures/realworld/kubernetes"]);
    let b = run(&["check", "-o", "json", "fixtures/realworld/kubernetes"]);
    assert_eq!(a, b);
}

#[test]
fn broken_pipe_is_not_an_error() {
    // The exit code of teardown run with `args` whose standard output is
    // closed at once: every write fails with EPIPE.
    fn with_closed_stdout(args: &[&std::ffi::OsStr]) -> Option<i32> {
        use std::process::{Command, Stdio};
        let bin = std::env::var_os("TEARDOWN_BIN").map_or(assert_cmd::cargo::cargo_bin("teardown"), Into::into);
        let mut child = Command::new(bin)
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        child.wait().unwrap().code()
    }
    fn os<'a>(args: &[&'a str]) -> Vec<&'a std::ffi::OsStr> {
        args.iter().map(|&a| std::ffi::OsStr::new(a)).collect()
    }
    assert_eq!(with_closed_stdout(&os(&["graph", "fixtures/realworld/kubernetes"])), Some(0));
    // Every plan format. Before: -o yaml exited 2 ("cannot write output").
    // (More output than one buffer, so that the renderer itself meets the closed pipe.)
    let dir = tempfile::tempdir().unwrap();
    let pairs = dir.path().join("chain.txt");
    std::fs::write(&pairs, (0..20_000).map(|i| format!("t{i} t{}\n", i + 1)).collect::<String>()).unwrap();
    for format in ["table", "json", "yaml", "names", "refs", "dot", "mermaid"] {
        let mut args = os(&["plan", "--all", "--dialect", "pairs", "-o", format]);
        args.push(pairs.as_os_str());
        assert_eq!(with_closed_stdout(&args), Some(0), "-o {format}");
    }
}

#[test]
fn cross_flag_rules_come_before_reading_input() {
    // Before: the missing input was reported first, and only then --root.
    let (code, _, err) = run(&["plan", "--all", "--root", "x", "/nonexistent/teardown-input"]);
    assert_eq!(code, 2);
    assert_eq!(err, "teardown: error: --root is where --gc starts; give --gc\n");
}

#[test]
fn plan_arrows_read_along_the_arrow() {
    // Before: `ReplicaSet -> Deployment [label="owns"]`, "the ReplicaSet owns the Deployment".
    let (code, out, _) = run(&["plan", "--delete", "deploy/web", "-o", "dot", "fixtures/shop"]);
    assert_eq!(code, 0);
    let node = |r: &str| {
        let line =
            out.lines().find(|l| l.contains(&format!("[label=\"{r}\"]"))).unwrap_or_else(|| panic!("{r}: {out}"));
        line.trim().split(' ').next().unwrap().to_string()
    };
    let (rs, deploy) = (node("ReplicaSet.apps/shop/web-5d4f"), node("Deployment.apps/shop/web"));
    assert!(out.contains(&format!("  {rs} -> {deploy} [label=\"owned by\"];\n")), "{out}");
    let (code, out, _) = run(&["plan", "--delete", "ns/shop", "-o", "mermaid", "fixtures/shop"]);
    assert_eq!(code, 0);
    assert!(!out.contains("-->|in| "), "no arrow to the Namespace (its objects' references name it): {out}");
    assert!(!out.contains("|contains|") && !out.contains("|owns|"), "{out}");
}
