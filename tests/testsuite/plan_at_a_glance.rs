//! Plans read at a glance (issue 36): what a plan destroys for good
//! (docs/data-loss.md), its summary, `--fail-on data-loss`, the table's
//! short reasons and `-o wide`, and `-o markdown`.

use crate::common::{self, json_of, resource, run};
use serde_json::Value;

const VOLUMES: &str = "fixtures/glance/volumes.yaml";
const CRD: &str = "fixtures/glance/crd.yaml";
const GKE: &str = "fixtures/realworld/kubernetes/kubevious-gke-large-cluster-2022-02.yaml";
const MYSQL_PV: &str = "PersistentVolume/pvc-8e3448af-a0f6-4f5c-ac55-ca92f18e4cc8";

/// `summary.dataLoss` of a plan: (ref, type) in plan order.
fn losses(v: &Value) -> Vec<(String, String)> {
    v["summary"]["dataLoss"]
        .as_array()
        .unwrap_or_else(|| panic!("no summary.dataLoss: {v}"))
        .iter()
        .map(|l| (l["ref"].as_str().unwrap().to_string(), l["type"].as_str().unwrap().to_string()))
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn a_namespace_plan_lists_what_it_destroys_for_good() {
    let v = json_of("plan", &["--delete", "ns/db", VOLUMES]);
    // In plan order. Not listed: the Retain volume (kept), the claims whose
    // volumes the snapshot holds, the Secrets an owner, a tool or the
    // token controller writes again, the ConfigMap.
    assert_eq!(
        losses(&v),
        pairs(&[
            ("PersistentVolumeClaim/db/scratch", "claim-of-unknown-volume"),
            ("Secret/db/creds", "secret"),
            ("PersistentVolume/pv-pg-0", "volume"),
            ("Namespace/db", "namespace"),
        ])
    );
    let pv = &resource(&v, "PersistentVolume/pv-pg-0")["dataLoss"];
    assert_eq!(pv["capacity"], "10Gi");
    assert_eq!(pv["storageClass"], "fast");
    assert_eq!(pv["claim"], "PersistentVolumeClaim/db/data-pg-0");
    assert_eq!(resource(&v, "Namespace/db")["dataLoss"]["inSnapshot"], 9);
    assert_eq!(resource(&v, "PersistentVolumeClaim/db/scratch")["dataLoss"]["volume"], "pv-elsewhere");
    assert_eq!(resource(&v, "Secret/db/creds")["dataLoss"]["secretType"], "Opaque");
    for kept in ["Secret/db/chart-creds", "Secret/db/pg-tls", "Secret/db/pg-token", "ConfigMap/db/settings"] {
        assert!(resource(&v, kept).get("dataLoss").is_none(), "{kept}");
    }
    assert!(v["kept"].as_array().unwrap().iter().any(|k| k["ref"] == "PersistentVolume/pv-logs"));
}

#[test]
fn the_table_marks_each_loss_and_lists_them_after_the_steps() {
    let (code, out, err) = run(&["plan", "--delete", "ns/db", VOLUMES]);
    assert_eq!(code, 0, "{err}");
    let marked: Vec<&str> = out
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("delete!"))
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(
        marked,
        ["PersistentVolumeClaim/db/scratch", "Secret/db/creds", "PersistentVolume/pv-pg-0", "Namespace/db"]
    );
    let section = out.split("DESTROYED FOR GOOD").nth(1).expect("a section after the table");
    assert!(
        section.contains("PersistentVolume/pv-pg-0          10Gi volume of class fast, reclaim policy Delete"),
        "{out}"
    );
    assert!(
        err.contains(
            "destroyed for good: 1 volume (10Gi), 1 claim of an unknown volume (5Gi), 1 Namespace, 1 Secret\n"
        ),
        "{err}"
    );
    // Nothing destroyed for good: no marker, no section, no line.
    let (code, out, err) = run(&["plan", "--delete", "cm/db/settings", VOLUMES]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("delete!") && !out.contains("DESTROYED") && !err.contains("destroyed"), "{out}{err}");
}

#[test]
fn a_statefulset_that_deletes_its_claims_takes_their_volumes() {
    // whenDeleted: Delete: the StatefulSet controller made the set an owner
    // of its claim (updateClaimOwnerRefForSetAndPod), the collector deletes
    // the claim with the set, the volume controller the volume.
    let v = json_of("plan", &["--delete", "sts/db/pg", VOLUMES]);
    assert_eq!(losses(&v), pairs(&[("PersistentVolume/pv-pg-0", "volume")]));
    let pv = &resource(&v, "PersistentVolume/pv-pg-0")["dataLoss"];
    assert_eq!(pv["statefulSet"], "StatefulSet.apps/db/pg");
    assert_eq!(pv["claim"], "PersistentVolumeClaim/db/data-pg-0");
    // A volume deleted directly.
    let v = json_of("plan", &["--delete", "pv/pv-pg-0", VOLUMES]);
    assert_eq!(losses(&v), pairs(&[("PersistentVolume/pv-pg-0", "volume")]));
    assert!(resource(&v, "PersistentVolume/pv-pg-0")["dataLoss"].get("claim").is_none());
    // Retain: not listed.
    let v = json_of("plan", &["--delete", "pv/pv-logs", VOLUMES]);
    assert_eq!(losses(&v), pairs(&[]));
}

#[test]
fn a_crd_takes_every_custom_resource_of_its_kind() {
    let v = json_of("plan", &["--delete", "crd/widgets.example.com", CRD]);
    assert_eq!(
        losses(&v),
        pairs(&[("CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", "custom-resources")])
    );
    let l = &v["summary"]["dataLoss"][0];
    assert_eq!((l["defines"].as_str(), l["inSnapshot"].as_u64()), (Some("Widget.example.com"), Some(2)));
    assert!(l["message"].as_str().unwrap().contains("any it lacks"), "{l}");
}

#[test]
fn the_summary_counts_by_action_kind_and_step() {
    let v = json_of("plan", &["--delete", "ns/db", VOLUMES]);
    let s = &v["summary"];
    assert_eq!((s["delete"].as_u64(), s["orphan"].as_u64(), s["keep"].as_u64()), (Some(11), Some(0), Some(1)));
    assert_eq!(s["steps"], 3);
    assert_eq!(s["byStep"], serde_json::json!([8, 2, 1]));
    assert_eq!(s["byKind"][0], serde_json::json!({"kind": "Secret", "count": 4}));
    assert_eq!(s["byKind"][1], serde_json::json!({"kind": "PersistentVolumeClaim", "count": 3}));
    assert_eq!((s["warnings"].as_u64(), s["notes"].as_u64()), (Some(0), Some(0)));
    // YAML carries the same summary.
    let (code, out, _) = run(&["plan", "--delete", "ns/db", "-o", "yaml", VOLUMES]);
    assert_eq!(code, 0);
    let y: Value = serde_yaml::from_str(&out).unwrap();
    assert_eq!(y["summary"], v["summary"]);
}

#[test]
fn fail_on_data_loss_exits_1_after_the_plan() {
    let (code, out, err) = run(&["plan", "--delete", "sts/db/pg", "--fail-on", "data-loss", VOLUMES]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("PersistentVolume/pv-pg-0"), "the plan is printed: {out}");
    assert!(err.contains("teardown: error: the plan destroys 1 volume (10Gi) for good (--fail-on data-loss)"), "{err}");
    let (code, _, err) = run(&["plan", "--delete", "cm/db/settings", "--fail-on", "data-loss", VOLUMES]);
    assert_eq!(code, 0, "{err}");
    let (code, _, _) = run(&["plan", "--delete", "ns/db", "--fail-on", "data-loss", "-o", "names", VOLUMES]);
    assert_eq!(code, 1);
}

#[test]
fn the_gke_dump_flags_the_mysql_volume() {
    let v = json_of("plan", &["--delete", "namespace/kubevious", GKE]);
    let l = resource(&v, MYSQL_PV)["dataLoss"].clone();
    assert_eq!(l["type"], "volume");
    assert_eq!((l["capacity"].as_str(), l["storageClass"].as_str()), (Some("40Gi"), Some("standard")));
    assert_eq!(l["claim"], "PersistentVolumeClaim/kubevious/data-kubevious-mysql-0");
    assert!(losses(&v).contains(&(MYSQL_PV.to_string(), "volume".to_string())));
    assert!(losses(&v).contains(&("Namespace/kubevious".to_string(), "namespace".to_string())));
    // The table: the volume's row marked, most rows under 120 columns, no
    // default rule's ordering repeated on the rows that are in the
    // namespace (the steps show it); -o wide keeps the full chain.
    let (code, out, err) = run(&["plan", "--delete", "namespace/kubevious", GKE]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().skip(1).take_while(|l| !l.is_empty()).collect();
    assert_eq!(rows.len(), 83);
    assert!(rows.iter().any(|r| r.contains("delete!") && r.contains(MYSQL_PV)));
    let long = rows.iter().filter(|r| r.chars().count() > 120).count();
    assert!(long <= 3, "{long} rows over 120 columns:\n{out}");
    assert!(!out.contains("default rule"), "{out}");
    let (_, wide, _) = run(&["plan", "--delete", "namespace/kubevious", "-o", "wide", GKE]);
    assert!(wide.contains("as the Pods of its namespace go first (default rule pods-first-in-namespace)"), "{wide}");
    assert_eq!(wide.lines().filter(|l| l.contains("default rule")).count(), 64);
}

#[test]
fn markdown_gives_the_summary_the_losses_then_the_steps_collapsed() {
    let (code, out, err) = run(&["plan", "--delete", "ns/db", "-o", "markdown", VOLUMES]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("### teardown plan: 11 to delete, 0 to orphan, 1 to keep, in 3 steps\n"), "{out}");
    let loss = out.find("#### Destroyed for good").expect("a losses section");
    let steps = out.find("<details><summary>Steps (11 objects)</summary>").expect("collapsed steps");
    assert!(loss < steps, "{out}");
    assert!(out.contains("| PersistentVolume/pv-pg-0 | 10Gi volume of class fast, reclaim policy Delete"), "{out}");
    assert!(out.contains("| 3 | delete! | Namespace/db | target |"), "{out}");
    assert!(out.trim_end().ends_with("</details>"), "{out}");
}

#[test]
fn markdown_fits_a_github_comment_and_counts_what_it_leaves_out() {
    let (code, out, err) = run(&["plan", "--all", "--allow-cycles", "-o", "markdown", GKE]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() < 65_536, "{} bytes", out.len());
    assert!(out.contains("more objects not shown (GitHub's comment limit)"), "{}", &out[out.len() - 400..]);
    assert!(out.contains("</details>"));
}

#[test]
fn markdown_escapes_names_from_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.yaml");
    std::fs::write(&file, "resources:\n  - id: \"a|b<script>`x`\"\n").unwrap();
    let (code, out, err) = run(&["plan", "--all", "-o", "markdown", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| 1 | delete | a\\|b&lt;script&gt;\\`x\\` |"), "{out}");
    assert!(!out.contains("<script>"), "{out}");
}

/// The prune job of docs/ci.md: its `run` line, run as GitHub runs it, on a
/// pull request that removes a Namespace.
#[test]
fn the_readme_prune_job_writes_markdown_and_fails_on_data_loss() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/ci.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains("run: teardown plan --prune") && l.contains("GITHUB_STEP_SUMMARY"))
        .expect("the prune job in docs/ci.md");
    let command = line.trim_start().strip_prefix("run: ").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (side, files) in [("old", vec!["fixtures/glance/volumes.yaml"]), ("new", vec!["fixtures/glance/crd.yaml"])] {
        let m = dir.path().join(side).join("manifests");
        std::fs::create_dir_all(&m).unwrap();
        for f in files {
            std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + f, m.join("m.yaml")).unwrap();
        }
    }
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(common::bin(), bin.join("teardown")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let summary = dir.path().join("summary.md");
    let out = std::process::Command::new("bash")
        .args(["-e", "-c", command])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("### teardown plan: "), "{md}");
    assert!(md.contains("| Namespace/db | everything in it goes with it"), "{md}");
}

#[test]
fn pictures_draw_the_steps_in_order_without_an_arrow_to_each_namespace() {
    let (code, out, err) = run(&["plan", "--delete", "namespace/kubevious", "-o", "dot", GKE]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("[label=\"in\"]"), "{out}");
    // Step k's first object is tied to step k+1's, unseen, so that the
    // steps are laid out in order.
    let first = |k: usize| {
        let cluster = out.split(&format!("subgraph cluster_step{k} {{")).nth(1).unwrap();
        cluster.lines().nth(2).unwrap().trim().split(' ').next().unwrap().to_string()
    };
    for k in 1..5 {
        assert!(out.contains(&format!("  {} -> {} [style=invis, weight=10];\n", first(k), first(k + 1))), "{k}: {out}");
    }
    assert_eq!(out.matches("style=invis").count(), 4);
    // 236 arrows before, 81 of them to the Namespace.
    assert_eq!(out.lines().filter(|l| l.contains(" -> ") && !l.contains("invis")).count(), 155);
    let (code, out, _) = run(&["plan", "--delete", "namespace/kubevious", "-o", "mermaid", GKE]);
    assert_eq!(code, 0);
    assert!(!out.contains("|in|") && out.contains("subgraph step5[\"step 5\"]"), "{out}");
}

// ---------------------------------------------------------------------------
// The published JSON Schemas (schemas/).

fn schema(name: &str) -> jsonschema::Validator {
    let path = format!("{}/schemas/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["$id"], format!("urn:teardown:schema:{name}"), "{path}");
    jsonschema::validator_for(&doc).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The errors of `doc` against `v`, one a line (empty: valid).
fn invalid(v: &jsonschema::Validator, doc: &Value) -> String {
    v.iter_errors(doc).map(|e| format!("{} at {}\n", e, e.instance_path())).collect()
}

/// Every fixture, as scripts/compare.sh lists them.
fn fixtures() -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
                out.push(p.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap().to_str().unwrap().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"), &mut out);
    out
}

#[test]
fn every_json_output_of_every_fixture_validates_against_its_schema() {
    let commands: [(&str, &[&str]); 4] = [
        ("check", &["check", "-o", "json"]),
        ("graph", &["graph", "-o", "json"]),
        ("plan", &["plan", "--all", "--allow-cycles", "-o", "json"]),
        ("plan", &["plan", "--gc", "-o", "json"]),
    ];
    let files = fixtures();
    assert!(files.len() > 200, "{}", files.len());
    let validators: Vec<(&str, jsonschema::Validator)> =
        ["check", "graph", "plan"].into_iter().map(|n| (n, schema(n))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (checked, failures) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let (mut checked, mut failures) = (0, Vec::new());
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        for (name, args) in &commands {
                            let mut all = args.to_vec();
                            all.push(file);
                            let (_, out, _) = run(&all);
                            // A plan that cannot be made prints no JSON (exit 1 or 2).
                            if out.is_empty() {
                                continue;
                            }
                            let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{all:?}: {e}"));
                            let v = &validators.iter().find(|(n, _)| n == name).unwrap().1;
                            let errors = invalid(v, &doc);
                            if !errors.is_empty() {
                                failures.push(format!("{all:?}:\n{errors}"));
                            }
                            checked += 1;
                        }
                    }
                    (checked, failures)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).fold((0, Vec::new()), |(n, mut f), (m, g)| {
            f.extend(g);
            (n + m, f)
        })
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 600, "{checked}");
}

#[test]
fn the_other_commands_json_validates_too() {
    let cases: [(&str, &[&str]); 7] = [
        ("explain", &["explain", "--all", "Pod/shop/db-0", "-o", "json", "fixtures/shop.yaml"]),
        ("explain", &["explain", "--delete", "ns/db", "pv/pv-logs", "-o", "json", VOLUMES]),
        (
            "simulate",
            &["simulate", "--delete", "deploy/web", "--controller", "kubernetes", "-o", "json", "fixtures/shop.yaml"],
        ),
        (
            "simulate",
            &[
                "simulate",
                "--delete",
                "cluster/testing/C",
                "--controller",
                "krake",
                "-o",
                "json",
                "fixtures/krake/app-on-cluster.yaml",
            ],
        ),
        ("reconcile", &["reconcile", "-o", "json", "fixtures/reconcile/several-kinds.yaml"]),
        ("plan", &["plan", "--delete", "ns/db", "-o", "json", VOLUMES]),
        ("plan", &["plan", "--all", "--as", "helm", "-o", "json", "fixtures/as/helm.yaml"]),
    ];
    for (name, args) in cases {
        let (code, out, err) = run(args);
        assert!(code == 0 || !out.is_empty(), "{args:?}: {err}");
        let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}\n{out}"));
        let errors = invalid(&schema(name), &doc);
        assert!(errors.is_empty(), "{args:?}:\n{errors}");
    }
    // YAML is the same document.
    let (_, out, _) = run(&["plan", "--delete", "ns/db", "-o", "yaml", VOLUMES]);
    let doc: Value = serde_yaml::from_str(&out).unwrap();
    assert_eq!(invalid(&schema("plan"), &doc), "");
}

#[test]
fn a_schema_refuses_what_breaks_it() {
    // The schemas are not vacuous: a plan without its steps, a finding of
    // an unknown severity, a loss of an unknown type are refused.
    let mut plan = json_of("plan", &["--delete", "ns/db", VOLUMES]);
    let v = schema("plan");
    assert_eq!(invalid(&v, &plan), "");
    plan["summary"]["dataLoss"][0]["type"] = "misplaced".into();
    assert!(!invalid(&v, &plan).is_empty());
    plan.as_object_mut().unwrap().remove("steps");
    assert!(invalid(&v, &plan).contains("steps"), "{}", invalid(&v, &plan));
    let (_, out, _) = run(&["check", "-o", "json", "fixtures/shop.yaml"]);
    let mut check: Value = serde_json::from_str(&out).unwrap();
    check["findings"][0]["severity"] = "fatal".into();
    assert!(!invalid(&schema("check"), &check).is_empty());
}

#[test]
fn check_markdown_gives_the_counts_then_the_findings() {
    let (code, out, err) = run(&["check", "-o", "markdown", "fixtures/shop.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("### teardown check: 0 errors, 1 warning, 0 notes\n"), "{out}");
    assert!(
        out.contains("| warning | TD011 unknown-finalizer | fixtures/shop.yaml:145:5 | Cart.shop.example.com/shop/cart-1: finalizer shop.example.com/checkout has no known controller |"),
        "{out}"
    );
    // Errors: exit 1, as every format.
    let (code, out, _) = run(&["check", "-o", "markdown", "fixtures/check/td005-cross-namespace.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("| error | TD005"), "{out}");
}

#[test]
fn gc_of_a_volume_whose_claim_is_gone_is_a_loss() {
    let v = json_of("plan", &["--gc", "fixtures/cascades/volumes.yaml"]);
    assert_eq!(losses(&v), pairs(&[("PersistentVolume/pv-old", "volume")]));
    let l = &resource(&v, "PersistentVolume/pv-old")["dataLoss"];
    assert!(l["message"].as_str().unwrap().contains("its claim is gone"), "{l}");
}
