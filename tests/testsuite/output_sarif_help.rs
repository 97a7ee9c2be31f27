//! SARIF that code scanning explains (issue 38, item 6): every rule with a
//! short and a full description, help as text and Markdown from its page
//! (docs/rules/TDxxx.md), and the page's URL when Cargo.toml names the
//! repository; the driver with its version; the whole document valid
//! against the SARIF 2.1.0 schema (tests/sarif/, vendored from OASIS).
//! And docs/ci.md's workflow on the actions' current major versions.

use crate::common::run;
use serde_json::Value;

fn repo() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The SARIF 2.1.0 schema, with formats (`uri`) checked.
fn sarif_schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("tests/sarif/sarif-schema-2.1.0.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["id"],
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    );
    jsonschema::options().should_validate_formats(true).build(&schema).unwrap()
}

fn sarif_of(files: &[&str]) -> Value {
    let mut args = vec!["check", "--isolated", "--exit-zero", "-o", "sarif"];
    args.extend_from_slice(files);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The text of a rule page's `## NAME` section, its links made text.
fn section(page: &str, name: &str) -> String {
    let body = page.split(&format!("\n## {name}\n")).nth(1).unwrap();
    let body = body.split("\n## ").next().unwrap().trim();
    let mut out = String::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let (text, tail) = after.split_once("](").unwrap();
        out.push_str(text);
        rest = &tail[tail.find(')').unwrap() + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn sarif_is_valid_sarif_2_1_0() {
    let schema = sarif_schema();
    for files in [
        &["fixtures/shop.yaml"][..],
        &[
            "fixtures/check/td002-duplicate.yaml",
            "fixtures/check/td003-owner-missing.yaml",
            "fixtures/notes/td014-crd-without-kind.yaml",
        ][..],
    ] {
        let doc = sarif_of(files);
        let errors: Vec<String> = schema.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{files:?}: {errors:#?}");
    }
    // The schema has teeth: a level SARIF does not have, a help URI that is
    // no absolute URI, a rule without an id.
    let doc = sarif_of(&["fixtures/check/td002-duplicate.yaml"]);
    for (pointer, value) in [
        ("/runs/0/results/0/level", Value::from("fatal")),
        ("/runs/0/tool/driver/rules/0/helpUri", Value::from("docs/rules/TD001.md")),
        ("/runs/0/tool/driver/rules/0/help", Value::from("text")),
    ] {
        let mut bad = doc.clone();
        let (parent, key) = pointer.rsplit_once('/').unwrap();
        bad.pointer_mut(parent).unwrap().as_object_mut().unwrap().insert(key.to_string(), value);
        assert!(!schema.is_valid(&bad), "{pointer}: accepted");
    }
}

#[test]
fn every_rule_is_explained_from_its_page() {
    let doc = sarif_of(&["fixtures/check/td002-duplicate.yaml"]);
    let driver = &doc["runs"][0]["tool"]["driver"];
    assert_eq!(driver["name"], "teardown");
    assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(driver["semanticVersion"], env!("CARGO_PKG_VERSION"));
    let repository = Some(env!("CARGO_PKG_REPOSITORY")).filter(|r| !r.is_empty()).map(|r| r.trim_end_matches('/'));
    // A URL only where Cargo.toml names the repository: never a made-up one.
    assert_eq!(driver["informationUri"].as_str(), repository);
    let rules = driver["rules"].as_array().unwrap();
    assert_eq!(rules.len(), 18);
    for rule in rules {
        let id = rule["id"].as_str().unwrap();
        let page = std::fs::read_to_string(repo().join(format!("docs/rules/{id}.md"))).unwrap();
        assert!(!rule["shortDescription"]["text"].as_str().unwrap().is_empty(), "{id}");
        assert_eq!(rule["fullDescription"]["text"].as_str().unwrap(), section(&page, "What it finds"), "{id}");
        let (text, markdown) = (rule["help"]["text"].as_str().unwrap(), rule["help"]["markdown"].as_str().unwrap());
        for part in ["What it finds", "Why it matters", "How to fix or silence it"] {
            assert!(text.contains(&format!("{part}: ")), "{id}: help.text has no {part}");
            assert!(markdown.contains(&format!("**{part}**\n\n")), "{id}: help.markdown has no {part}");
        }
        assert!(text.contains(&section(&page, "Why it matters")), "{id}: {text}");
        assert!(
            !markdown.contains("[←") && !markdown.contains("](TD") && !markdown.contains("](.."),
            "{id}: {markdown}"
        );
        assert!(!text.contains("shown above"), "{id}: the example is not in the help");
        match repository {
            Some(r) => assert_eq!(rule["helpUri"].as_str().unwrap(), format!("{r}/blob/HEAD/docs/rules/{id}.md")),
            None => assert!(rule.get("helpUri").is_none(), "{id}: a helpUri without a repository"),
        }
    }
}

/// docs/ci.md's workflow uses the current major version of each action
/// (actions/checkout v7.0.1, github/codeql-action v4.36.2, looked up in
/// their repositories in November 2026).
#[test]
fn the_workflow_uses_current_actions() {
    let page = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let uses: Vec<&str> = page.lines().filter_map(|l| l.split("uses: ").nth(1)).map(str::trim).collect();
    assert!(uses.len() >= 4, "{uses:?}");
    for u in uses {
        let (action, version) = u.split_once('@').unwrap();
        let current = match action {
            "actions/checkout" => "v7",
            "github/codeql-action/upload-sarif" => "v4",
            other => panic!("{other}: which is its current major version?"),
        };
        assert_eq!(version, current, "{action}");
    }
}
