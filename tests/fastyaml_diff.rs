//! The YAML fast path against serde_yaml: wherever the fast path answers,
//! its answer must be serde_yaml's. Checked on every YAML document of the
//! fixtures (real-world dumps included) and on generated documents.

use proptest::prelude::*;
use teardown::dialect::fastyaml;
use teardown::dialect::raw::RawObject;
use teardown::input::split;

fn agree(text: &str, fast: Option<RawObject>, slow: Result<RawObject, serde_yaml::Error>) -> bool {
    match (fast, slow) {
        (Some(f), Ok(s)) => {
            assert_eq!(format!("{f:?}"), format!("{s:?}"), "fast and serde_yaml disagree on:\n{text}");
            true
        }
        (Some(f), Err(e)) => panic!("fast path answered {f:?} where serde_yaml fails ({e}):\n{text}"),
        (None, _) => false,
    }
}

fn yaml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

#[test]
fn agrees_with_serde_yaml_on_every_fixture() {
    let mut files = Vec::new();
    yaml_files(std::path::Path::new("fixtures"), &mut files);
    files.sort();
    let (mut docs, mut fast_docs, mut items, mut fast_items) = (0, 0, 0, 0);
    let mut large = (0, 0);
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for range in split::yaml_documents(&text) {
            let Some(start) = split::first_content(&text, range.clone()) else { continue };
            let doc = &text[start..range.end];
            if doc.starts_with(['{', '[']) {
                continue;
            }
            docs += 1;
            let took = agree(doc, fastyaml::document(doc), serde_yaml::from_str(doc));
            fast_docs += usize::from(took);
            if file.ends_with("kubevious-gke-large-cluster-2022-02.yaml") {
                large.0 += 1;
                large.1 += usize::from(took);
            }
            if let Some(spans) = split::yaml_block_items(&text, start..range.end, Some("items")) {
                for s in spans {
                    let line_start = text[..s.start].rfind('\n').map(|i| i + 1).unwrap_or(0).max(start);
                    let item = &text[line_start..s.end];
                    items += 1;
                    let slow = serde_yaml::from_str::<Vec<RawObject>>(item).map(|mut v| v.remove(0));
                    fast_items += usize::from(agree(item, fastyaml::item(item), slow));
                }
            }
        }
    }
    eprintln!("fast path: {fast_docs} of {docs} documents, {fast_items} of {items} list items");
    assert!(docs > 1500 && items > 700, "{docs} documents, {items} items");
    // kubectl's own output is what the fast path is for.
    assert!(large.1 * 100 >= large.0 * 95, "fast path read only {} of {} kubevious documents", large.1, large.0);
    assert!(fast_items * 100 >= items * 90, "fast path read only {fast_items} of {items} items");
}

/// Documents shaped like Kubernetes objects, with the scalar spellings,
/// quoting, comments and skipped subtrees that trip readers up.
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9.-]{0,12}",
        "[0-9]{1,4}",
        Just("0x1F".to_string()),
        Just("007".to_string()),
        Just("1.5e3".to_string()),
        Just("true".to_string()),
        Just("~".to_string()),
        Just("null".to_string()),
        Just(".inf".to_string()),
        Just("'it''s'".to_string()),
        Just("\"a\\tb\\u00e9\"".to_string()),
        Just("\"quoted: colon\"".to_string()),
        Just("a # comment".to_string()),
        Just("[a, b]".to_string()),
        Just("{a: b}".to_string()),
        Just("&anchor x".to_string()),
        Just("*alias".to_string()),
        Just("!!str 5".to_string()),
        Just("|\n      block\n      text".to_string()),
        Just("plain\n      continued".to_string()),
        Just("\"open\n  quote\"".to_string()),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        scalar(),
        scalar(),
        scalar(),
        proptest::collection::vec((scalar(), scalar()), 0..3),
        proptest::collection::vec(scalar(), 0..3),
        proptest::collection::vec((scalar(), scalar(), any::<bool>()), 0..3),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(kind, name, uid, labels, finalizers, owners, spec_first, compact)| {
            let mut meta = format!("metadata:\n  name: {name}\n  uid: {uid}\n");
            if !labels.is_empty() {
                meta.push_str("  labels:\n");
                for (i, (k, v)) in labels.iter().enumerate() {
                    let k = if k.contains('\n') || k.starts_with(['[', '{', '&', '*', '!', '|', '~']) { format!("k{i}") } else { k.clone() };
                    meta.push_str(&format!("    {k}: {v}\n"));
                }
            }
            if !finalizers.is_empty() {
                meta.push_str("  finalizers:\n");
                for f in &finalizers {
                    meta.push_str(&format!("  - {f}\n"));
                }
            }
            if !owners.is_empty() {
                meta.push_str("  ownerReferences:\n");
                for (n, u, c) in &owners {
                    let dash = if compact { "  " } else { "    " };
                    meta.push_str(&format!("{dash}- apiVersion: v1\n{dash}  kind: ConfigMap\n{dash}  name: {n}\n{dash}  uid: {u}\n{dash}  controller: {c}\n"));
                }
            }
            let spec = "spec:\n  template:\n    metadata:\n      name: not-this-one\n  script: |\n    kind: Fake\n    metadata: {}\n  args: [\"x\", 'y']\n";
            let head = format!("apiVersion: v1\nkind: {kind}\n");
            if spec_first { format!("{spec}{head}{meta}status: {{}}\n") } else { format!("{head}{meta}{spec}") }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_serde_yaml_on_generated_documents(doc in document()) {
        agree(&doc, fastyaml::document(&doc), serde_yaml::from_str(&doc));
    }
}
