//! Reading inputs: formats, directories, standard input, and bad input.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{check_json, f, findings, run, teardown};
use std::fs;

fn nodes(args: &[&str]) -> Vec<(String, String, u64)> {
    let mut all = vec!["graph", "-o", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let file = n["file"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
            (n["ref"].as_str().unwrap().to_string(), file, n["line"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn every_input_shape_is_read_with_its_line() {
    let got = nodes(&["fixtures/formats"]);
    let want: Vec<(String, String, u64)> = [
        ("ConfigMap/formats/from-anchor", "mixed-stream.yaml", 7),
        ("ConfigMap/formats/from-flow-yaml", "mixed-stream.yaml", 5),
        ("ConfigMap/formats/from-json-array-1", "array.json", 2),
        ("ConfigMap/formats/from-json-array-2", "array.json", 3),
        ("ConfigMap/formats/from-json-in-yaml", "mixed-stream.yaml", 2),
        ("ConfigMap/formats/from-json-list-1", "list.json", 5),
        ("ConfigMap/formats/from-json-list-2", "list.json", 6),
        ("ConfigMap/formats/from-ndjson-1", "ndjson.json", 1),
        ("ConfigMap/formats/from-ndjson-2", "ndjson.json", 2),
        ("ConfigMap/formats/from-tagged", "mixed-stream.yaml", 17),
        ("ConfigMap/formats/from-yaml-array-1", "array.yaml", 1),
        ("ConfigMap/formats/from-yaml-array-2", "array.yaml", 6),
        ("ConfigMap/formats/from-yaml-list-1", "list.yaml", 4),
        ("ConfigMap/formats/from-yaml-list-2", "list.yaml", 9),
        // A typed list (`SecretList`) implies its items' kind and apiVersion.
        ("Secret/formats/from-typed-list", "typed-list.json", 6),
        ("app", "native.yaml", 3),
        ("net", "native.yaml", 4),
        ("vm1", "native.yaml", 7),
        ("vm2", "native.yaml", 9),
    ]
    .into_iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn directory_file_and_stdin_give_the_same_result() {
    // fixtures/shop.yaml is the files of fixtures/shop/ joined with `---`.
    let dir = run(&["graph", "fixtures/shop"]);
    let file = run(&["graph", "fixtures/shop.yaml"]);
    let text = fs::read("fixtures/shop.yaml").unwrap();
    let stdin = teardown().args(["graph", "-"]).write_stdin(text.clone()).output().unwrap();
    assert_eq!(dir.0, 0);
    assert_eq!(dir, file);
    assert_eq!(dir.1.as_bytes(), &stdin.stdout[..]);
    // No INPUT means standard input.
    let implicit = teardown().args(["graph"]).write_stdin(text.clone()).output().unwrap();
    assert_eq!(stdin.stdout, implicit.stdout);

    let strip = |mut v: serde_json::Value| {
        for f in v["findings"].as_array_mut().unwrap() {
            for k in ["file", "line", "column", "endLine", "endColumn", "labels"] {
                f.as_object_mut().unwrap().remove(k);
            }
        }
        v["summary"].as_object_mut().unwrap().remove("files");
        v
    };
    let (c1, a) = check_json(&["fixtures/shop"]);
    let (c2, b) = check_json(&["fixtures/shop.yaml"]);
    let out = teardown().args(["check", "-o", "json"]).write_stdin(text).output().unwrap();
    let c = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((c1, c2, out.status.code()), (0, 0, Some(0)));
    assert_eq!(a["findings"].as_array().unwrap().len(), 1);
    let (a, b, c) = (strip(a), strip(b), strip(c));
    assert_eq!(a, b);
    assert_eq!(a, c);
}

#[test]
fn stdin_findings_name_stdin() {
    let out = teardown()
        .args(["check", "-o", "json", "-"])
        .write_stdin("apiVersion: v1\nkind: Pod\nmetadata:\n  namespace: x\n")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(findings(&v), vec![f("TD001", "error", 1, 1)]);
    assert_eq!(v["findings"][0]["file"], "<stdin>");
    assert_eq!(v["findings"][0]["message"], "Pod has no `metadata.name`");
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn path(dir: &tempfile::TempDir, name: &str) -> String {
    dir.path().join(name).to_string_lossy().into_owned()
}

#[test]
fn a_scalar_document_is_unusable_not_fatal() {
    let d = tmp();
    fs::write(d.path().join("s.yaml"), "just a string\n---\n42\n---\n~\n").unwrap();
    let (code, v) = check_json(&[&path(&d, "s.yaml")]);
    assert_eq!(findings(&v), vec![f("TD001", "error", 1, 1), f("TD001", "error", 3, 1)]);
    assert_eq!(v["findings"][0]["message"], "document is a scalar, not an object");
    assert_eq!(code, 2);
}

#[test]
fn an_owner_reference_without_uid_is_reported_and_resolved_by_name() {
    let d = tmp();
    fs::write(
        d.path().join("o.yaml"),
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: rs\n  namespace: ns\n---\n\
         apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: rs\n",
    )
    .unwrap();
    let (code, v) = check_json(&[&path(&d, "o.yaml")]);
    assert_eq!(findings(&v), vec![f("TD001", "error", 15, 11)]);
    assert_eq!(v["summary"]["edges"], 1);
    assert_eq!(code, 2);
}

#[test]
fn invalid_utf8_names_the_file_line_and_column() {
    let d = tmp();
    fs::write(d.path().join("bad.yaml"), b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: caf\xe9\n".as_slice())
        .unwrap();
    let (code, v) = check_json(&[&path(&d, "bad.yaml")]);
    assert_eq!(findings(&v), vec![f("TD001", "error", 4, 12)]);
    assert_eq!(v["findings"][0]["message"], "file is not valid UTF-8");
    assert_eq!(v["findings"][0]["file"], path(&d, "bad.yaml"));
    assert_eq!(code, 2);
}

#[test]
fn a_10mb_single_line_is_located_but_not_printed() {
    let d = tmp();
    let mut items = Vec::new();
    for i in 0..60_000 {
        items.push(format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"cm-{i}","namespace":"big","uid":"u-{i}"}}}}"#
        ));
    }
    // The last item has an owner that is missing.
    items.push(r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"big","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"gone","uid":"u-gone"}]}}"#.to_string());
    let text = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#, items.join(","));
    assert!(text.len() > 5_000_000 && !text.contains('\n'));
    fs::write(d.path().join("one-line.json"), &text).unwrap();
    let column = text.find("u-gone").unwrap() + 1;

    let (code, v) = check_json(&[&path(&d, "one-line.json")]);
    assert_eq!(code, 0);
    assert_eq!(findings(&v), vec![f("TD003", "warning", 1, column as u64)]);
    assert_eq!(v["summary"]["objects"], 60_001);

    let (code, out, _) = run(&["check", &path(&d, "one-line.json")]);
    assert_eq!(code, 0);
    assert!(out.len() < 2_000, "the report must not print the line: {} bytes", out.len());
    assert!(out.contains(&format!("one-line.json:1:{column}")), "{out}");
}

#[test]
fn an_unreadable_file_in_a_directory_is_an_error_that_names_it() {
    let d = tmp();
    fs::write(d.path().join("a.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n").unwrap();
    std::os::unix::fs::symlink(d.path().join("missing-target"), d.path().join("b.yaml")).unwrap();
    fs::write(d.path().join("c.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: c\n").unwrap();
    // Files that are not YAML or JSON, and hidden ones, are not read.
    fs::write(d.path().join("notes.txt"), "not yaml: [").unwrap();
    fs::create_dir(d.path().join(".git")).unwrap();
    fs::write(d.path().join(".git").join("x.yaml"), "not yaml: [").unwrap();
    // (A link is read with -L only; without, it is a note.)
    let (code, v) = check_json(&["-L", &d.path().to_string_lossy()]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["objects"], 2, "the other files are still read");
    let problems = v["findings"].as_array().unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0]["rule"], "TD001");
    assert_eq!(problems[0]["file"], path(&d, "b.yaml"));
    assert!(problems[0]["message"].as_str().unwrap().contains("cannot read"), "{v}");
}

#[test]
fn a_missing_input_is_an_error() {
    let (code, out, _) = run(&["check", "fixtures/does-not-exist.yaml"]);
    assert_eq!(code, 2);
    assert!(out.contains("fixtures/does-not-exist.yaml: no such file or directory"), "{out}");
}

#[test]
fn json_syntax_errors_point_into_the_file() {
    let d = tmp();
    fs::write(d.path().join("x.json"), "{\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"p\",}\n}\n").unwrap();
    let (code, v) = check_json(&[&path(&d, "x.json")]);
    assert_eq!(code, 2);
    // serde_json reports the trailing comma where it expects the next key.
    assert_eq!(findings(&v), vec![f("TD001", "error", 3, 28)]);
    assert_eq!(v["findings"][0]["message"], "JSON: trailing comma", "{v}");
}

#[test]
fn forced_dialect() {
    // A `resources:` document is native unless told otherwise.
    let (code, v) = check_json(&["--dialect", "kubernetes", "fixtures/formats/native.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(findings(&v), vec![f("TD001", "error", 2, 1)]);
    let (code, v) = check_json(&["--dialect", "native", "fixtures/formats/list.yaml"]);
    assert_eq!(code, 2);
    assert_eq!(v["findings"][0]["message"], "not a native document: no top-level `resources:` list");
}

#[test]
fn a_chain_of_200k_owners_neither_overflows_nor_prints_quadratic_indentation() {
    let d = tmp();
    let n = 200_000;
    let mut resources = vec![r#"{"id": "r0"}"#.to_string()];
    for i in 1..n {
        resources.push(format!(r#"{{"id": "r{i}", "owners": ["r{}"]}}"#, i - 1));
    }
    fs::write(d.path().join("chain.json"), format!(r#"{{"resources": [{}]}}"#, resources.join(",\n"))).unwrap();
    let (code, v) = check_json(&[&path(&d, "chain.json")]);
    assert_eq!(code, 0);
    assert_eq!((v["summary"]["objects"].as_u64(), v["summary"]["edges"].as_u64()), (Some(n), Some(n - 1)));
    let (code, out, _) = run(&["graph", &path(&d, "chain.json")]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), n as usize);
    // Linear: at most 32 levels of indentation per line.
    assert!(out.len() < 200 * n as usize, "{} bytes", out.len());
    assert!(out.ends_with(&format!("└── r{} [depth {}]\n", n - 1, n - 1)));
}

/// A bad item of a YAML list costs only itself (found in review: the whole
/// list used to be dropped without a word).
#[test]
fn a_bad_list_item_is_reported_and_spares_the_others() {
    let d = tmp();
    fs::write(
        d.path().join("l.yaml"),
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- 5\n\
         - apiVersion: v1\n  kind: Pod\n  metadata:\n    name: c\n    ownerReferences: 7\n\
         - apiVersion: v1\n  kind: Pod\n  metadata: {name: d}\n",
    )
    .unwrap();
    let (code, v) = check_json(&[&path(&d, "l.yaml")]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["objects"], 2);
    assert_eq!(findings(&v), vec![f("TD001", "error", 7, 3), f("TD001", "error", 12, 22)]);
    assert_eq!(v["findings"][0]["message"], "YAML: invalid type: integer `5`, expected an object");
    assert_eq!(
        v["findings"][1]["message"],
        "Pod/c: YAML: metadata.ownerReferences: invalid type: integer `7`, expected a sequence"
    );

    fs::write(d.path().join("n.yaml"), "resources:\n- id: a\n- 5\n- id: c\n").unwrap();
    let (code, v) = check_json(&[&path(&d, "n.yaml")]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["objects"], 2);
    assert_eq!(findings(&v), vec![f("TD001", "error", 3, 3)]);

    fs::write(d.path().join("s.yaml"), "- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- 5\n").unwrap();
    let (code, v) = check_json(&[&path(&d, "s.yaml")]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["objects"], 1);
    assert_eq!(findings(&v), vec![f("TD001", "error", 4, 3)]);
}

#[test]
fn well_formed_but_unusual_yaml_is_not_a_syntax_error() {
    let d = tmp();
    let deep = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\nspec: {}{}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    fs::write(d.path().join("deep.yaml"), deep).unwrap();
    let big =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  labels:\n    n: 999999999999999999999999999999\n";
    fs::write(d.path().join("big.yaml"), big).unwrap();
    let (code, v) = check_json(&[&path(&d, "deep.yaml"), &path(&d, "big.yaml")]);
    // Deep nesting in a field teardown skips is fine; a label value written
    // as a (huge) number is refused as kubectl refuses it — not a syntax error.
    assert_eq!(code, 2, "{v}");
    assert_eq!(v["summary"]["objects"], 1);
    assert_eq!(findings(&v), vec![f("TD001", "error", 6, 8)]);
    assert_eq!(
        v["findings"][0]["message"],
        "ConfigMap/big: YAML: metadata.labels.n: `999999999999999999999999999999` is a number where a string belongs; kubectl refuses it"
    );
}

#[test]
fn yaml_messages_carry_no_document_relative_line_numbers() {
    let d = tmp();
    fs::write(
        d.path().join("m.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\nmetadata: {name: b: c}\n",
    )
    .unwrap();
    let (code, v) = check_json(&[&path(&d, "m.yaml")]);
    assert_eq!(code, 2);
    // Column 19 is the second `:` inside the flow mapping.
    assert_eq!(findings(&v), vec![f("TD001", "error", 5, 19)]);
    let message = v["findings"][0]["message"].as_str().unwrap();
    assert!(!message.contains("line"), "{message}");
}

#[test]
fn labels_point_at_the_name_not_an_equal_namespace() {
    let d = tmp();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: web\n  name: web\n";
    // The same identity with other content (an identical copy is one object).
    fs::write(d.path().join("d.yaml"), format!("{cm}---\n{cm}  uid: u-2\n")).unwrap();
    let (_, v) = check_json(&[&path(&d, "d.yaml")]);
    assert_eq!(findings(&v), vec![f("TD002", "error", 11, 9)]);
    assert_eq!(v["findings"][0]["labels"][1]["line"], 5);
}

#[test]
fn an_owner_reference_with_empty_kind_and_name_is_unusable() {
    let d = tmp();
    fs::write(
        d.path().join("e.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  ownerReferences:\n  - {apiVersion: \"\", kind: \"\", name: \"\", uid: \"\"}\n",
    )
    .unwrap();
    let (code, v) = check_json(&[&path(&d, "e.yaml")]);
    assert_eq!(code, 2);
    assert_eq!(findings(&v), vec![f("TD001", "error", 5, 3)]);
    assert_eq!(v["findings"][0]["message"], "owner reference #1 of Pod/p has no `kind` or no `name`");
}
