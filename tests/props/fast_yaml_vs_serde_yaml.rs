//! The YAML fast path against serde_yaml: wherever the fast path answers,
//! its answer must be serde_yaml's — never an answer where serde_yaml
//! fails. Checked for three target types (the Kubernetes dialect's wire
//! struct; a whole value tree; `IgnoredAny`, which only validates) on every
//! YAML document of the fixtures (real-world dumps included), on generated
//! documents, and on documents mutated at random (most of them invalid).
//! Floors on how often the fast path answers keep the property from
//! passing by declining.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use proptest::prelude::*;
use serde::de::{DeserializeOwned, IgnoredAny};
use std::fmt::Debug;
use teardown::dialect::kubernetes::RawObject;
use teardown::input::fast::Doc;
use teardown::input::split;
use teardown::input::Node;

/// Did the fast path answer? Panics where it answers differently from serde_yaml.
fn agree_as<T: DeserializeOwned + Debug>(text: &str, fast: Option<Doc<'_>>, slow: &str) -> bool {
    let Some(fast) = fast else { return false };
    let Ok(f) = fast.parse::<T>() else { return false };
    match serde_yaml::from_str::<T>(slow) {
        Ok(s) => {
            assert_eq!(format!("{f:?}"), format!("{s:?}"), "fast and serde_yaml disagree on:\n{text:?}");
            true
        }
        Err(e) => panic!("fast path answered {f:?} where serde_yaml fails ({e}):\n{text:?}"),
    }
}

/// The three targets, for a whole document: how many the fast path answered.
fn agree_document(text: &str) -> [bool; 3] {
    [
        agree_as::<RawObject>(text, Doc::document(text), text),
        agree_as::<Node>(text, Doc::document(text), text),
        agree_as::<IgnoredAny>(text, Doc::document(text), text),
    ]
}

/// The same for an entry of a block sequence (read by serde_yaml as a
/// one-element list).
fn agree_entry(text: &str) -> bool {
    let Some(fast) = Doc::entry(text) else { return false };
    let Ok(f) = fast.parse::<RawObject>() else { return false };
    match serde_yaml::from_str::<Vec<RawObject>>(text) {
        Ok(mut s) if s.len() == 1 => {
            assert_eq!(format!("{f:?}"), format!("{:?}", s.remove(0)), "entry:\n{text:?}");
            true
        }
        other => panic!("fast path answered {f:?} where serde_yaml gives {other:?}:\n{text:?}"),
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

/// Every YAML document (not JSON) of the fixtures, with its file's name.
fn fixture_documents() -> Vec<(String, String)> {
    let mut files = Vec::new();
    yaml_files(std::path::Path::new("fixtures"), &mut files);
    files.sort();
    let mut docs = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else { continue };
        for range in split::yaml_documents(&text) {
            let Some(start) = split::first_content(&text, range.clone()) else { continue };
            let doc = &text[start..range.end];
            if !doc.starts_with(['{', '[']) {
                docs.push((file.display().to_string(), doc.to_string()));
            }
        }
    }
    docs
}

#[test]
fn agrees_with_serde_yaml_on_every_fixture() {
    let docs = fixture_documents();
    let (mut answered, mut items, mut fast_items) = ([0usize; 3], 0, 0);
    let mut large = (0, 0);
    for (file, doc) in &docs {
        let took = agree_document(doc);
        for (n, t) in answered.iter_mut().zip(took) {
            *n += usize::from(t);
        }
        if file.ends_with("kubevious-gke-large-cluster-2022-02.yaml") {
            large.0 += 1;
            large.1 += usize::from(took[0]);
        }
        if let Some(spans) = split::yaml_block_items(doc, 0..doc.len(), Some("items")) {
            for s in spans {
                let line_start = doc[..s.start].rfind('\n').map(|i| i + 1).unwrap_or(0);
                items += 1;
                fast_items += usize::from(agree_entry(&doc[line_start..s.end]));
            }
        }
    }
    let n = docs.len();
    eprintln!(
        "fast path: {answered:?} of {n} documents (wire struct, tree, validation); {fast_items} of {items} list items"
    );
    assert!(n > 1500 && items > 700, "{n} documents, {items} items");
    // kubectl's own output is what the fast path is for.
    assert!(large.1 * 100 >= large.0 * 95, "fast path read only {} of {} kubevious documents", large.1, large.0);
    assert!(fast_items * 100 >= items * 90, "fast path read only {fast_items} of {items} items");
    assert!(answered[2] * 100 >= n * 90, "fast path validated only {} of {n} documents", answered[2]);
}

/// A small deterministic generator (the same mutants on every run).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One random edit of the kinds that break YAML: a significant character
/// put in, taken out or replaced; a line indented, dedented, repeated or
/// dropped; a line's value replaced by a troublesome one.
fn mutate(doc: &str, rng: &mut Rng) -> String {
    const CHARS: &[&str] = &[
        ":", ": ", "-", "- ", " ", "\n", "\"", "'", "#", " #", "[", "]", "{", "}", "&a ", "*a", "!", "|", ">", "\t",
        "?", ",", "a", "0", "\\", "\r", "%", "@", "`", "<<: ", "\u{85}",
    ];
    const VALUES: &[&str] = &[
        "a: b",
        "\"a\" b",
        "'a'b",
        "*nope",
        "&x y",
        "[a, b",
        "{a: [b]}",
        "[a: b: c]",
        "|",
        "|-",
        "> x",
        "x #c",
        "0x10",
        "1e3",
        "~",
        "- item",
        "? k",
        "\"\\q\"",
        "'it''s'",
        "{}",
        "[]",
        "!!str 1",
    ];
    let lines: Vec<&str> = doc.split('\n').collect();
    let l = rng.below(lines.len());
    match rng.below(7) {
        0 => {
            let at = rng.below(doc.len() + 1);
            let at = (0..=at).rev().find(|&i| doc.is_char_boundary(i)).unwrap_or(0);
            format!("{}{}{}", &doc[..at], CHARS[rng.below(CHARS.len())], &doc[at..])
        }
        1 if !doc.is_empty() => {
            let at = rng.below(doc.len());
            let at = (0..=at).rev().find(|&i| doc.is_char_boundary(i)).unwrap_or(0);
            let end = doc[at..].chars().next().map_or(at, |c| at + c.len_utf8());
            format!("{}{}", &doc[..at], &doc[end..])
        }
        2 => {
            let mut v = lines.clone();
            let indented = format!("{}{}", " ".repeat(1 + rng.below(3)), lines[l]);
            v[l] = &indented;
            v.join("\n")
        }
        3 => {
            let mut v = lines.clone();
            v[l] = v[l].strip_prefix(' ').unwrap_or(v[l]);
            v.join("\n")
        }
        4 => {
            let mut v = lines.clone();
            if rng.below(2) == 0 {
                v.insert(l, lines[l]);
            } else {
                v.remove(l);
            }
            v.join("\n")
        }
        _ => {
            let line = lines[l];
            let value = VALUES[rng.below(VALUES.len())];
            let new = match line.find(": ") {
                Some(i) => format!("{}: {value}", &line[..i]),
                None => format!("{}{value}", &line[..line.len() - line.trim_start().len()]),
            };
            let mut v: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
            v[l] = new;
            v.join("\n")
        }
    }
}

#[test]
fn agrees_with_serde_yaml_on_mutated_documents() {
    // TEARDOWN_MUTANTS=N SEED=S: more mutants per document, for a longer hunt.
    let per_doc: usize = std::env::var("TEARDOWN_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
    let seed: u64 = std::env::var("SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x7ea2_d0e5);
    let step = if per_doc > 12 { 1 } else { 3 };
    let docs: Vec<String> =
        fixture_documents().into_iter().map(|(_, d)| d).filter(|d| d.len() < 12_000).step_by(step).collect();
    let mut rng = Rng(seed);
    let (mut mutants, mut invalid, mut answered) = (0usize, 0usize, [0usize; 3]);
    for doc in &docs {
        for _ in 0..per_doc {
            let mut m = mutate(doc, &mut rng);
            if rng.below(3) == 0 {
                m = mutate(&m, &mut rng);
            }
            mutants += 1;
            invalid += usize::from(serde_yaml::from_str::<IgnoredAny>(&m).is_err());
            let took = agree_document(&m);
            for (n, t) in answered.iter_mut().zip(took) {
                *n += usize::from(t);
            }
        }
    }
    eprintln!("{mutants} mutants, {invalid} not YAML; fast path answered {answered:?}");
    assert!(mutants > 5000 && invalid * 5 > mutants, "{mutants} mutants, {invalid} invalid");
    // The fast path still reads most mutants that are YAML.
    let valid = mutants - invalid;
    assert!(answered[2] * 100 >= valid * 60, "validated {} of {valid} valid mutants", answered[2]);
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
        Just("|-\n      block\n\n      text\n".to_string()),
        Just(">\n      folded\n      text".to_string()),
        Just("plain\n      continued".to_string()),
        Just("\"open\n  quote\"".to_string()),
        Just("a: b".to_string()),
        Just("\"a\" b".to_string()),
        Just("x\n  - y".to_string()),
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
        scalar(),
    )
        .prop_map(|(kind, name, uid, labels, finalizers, owners, spec_first, compact, extra)| {
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
            let spec = format!("spec:\n  template:\n    metadata:\n      name: not-this-one\n  script: |\n    kind: Fake\n    metadata: {{}}\n  args: [\"x\", 'y']\n  extra: {extra}\n");
            let head = format!("apiVersion: v1\nkind: {kind}\n");
            if spec_first { format!("{spec}{head}{meta}status: {{}}\n") } else { format!("{head}{meta}{spec}") }
        })
}

proptest! {
    #![proptest_config(crate::props_gen::config(3000))]

    #[test]
    fn agrees_with_serde_yaml_on_generated_documents(doc in document()) {
        agree_document(&doc);
    }
}

/// A value for a key of a generated document with anchors and aliases:
/// the forms the fast path reads (PyYAML's), and near misses it must
/// decline or read exactly as serde_yaml does. Names come from a small set,
/// so unknown, repeated and self-referring names happen.
fn anchored_value(indent: usize) -> BoxedStrategy<String> {
    let pad = " ".repeat(indent + 2);
    let name = prop_oneof![Just("id001"), Just("id002"), Just("a-b_1")];
    let body = prop_oneof![
        Just(format!("\n{pad}app: svc0\n{pad}tier: web")),
        Just(format!("\n{pad}- 1\n{pad}- k: v\n{pad}  j: [x, y]")),
        Just(format!("\n{pad}k: |\n{pad}  text\n{pad}n: ~")),
        Just(format!("\n{pad}inner: *id001")),
        Just(format!("\n{pad}inner: &id002\n{pad}  x: y")),
        Just(format!("\n{pad}app: svc0\n{pad}app: dup")),
        Just(" x".to_string()),
        Just(" # c".to_string()),
        Just(String::new()),
        Just("\n- a\n- b".to_string()),
    ];
    prop_oneof![
        4 => (name.clone(), body).prop_map(|(n, b)| format!("&{n}{b}")),
        4 => name.clone().prop_map(|n| format!("*{n}")),
        1 => name.clone().prop_map(|n| format!("*{n} # c")),
        1 => name.clone().prop_map(move |n| format!("*{n}\n{}x: y", " ".repeat(indent + 2))),
        1 => name.clone().prop_map(move |n| format!("\n{}- *{n}\n{}- &{n}\n{}  k: v", " ".repeat(indent), " ".repeat(indent), " ".repeat(indent))),
        1 => name.prop_map(move |n| format!("\n{}<<: *{n}\n{}k: v", " ".repeat(indent + 2), " ".repeat(indent + 2))),
        1 => Just("plain".to_string()),
    ]
    .boxed()
}

/// The forms the fast path reads, mostly; sometimes any of [`anchored_value`].
fn good_anchor(indent: usize) -> BoxedStrategy<String> {
    let pad = " ".repeat(indent + 2);
    prop_oneof![
        3 => Just(format!("&id001\n{pad}app: svc0")),
        1 => Just(format!("&id001\n{pad}- a\n{pad}- k: v\n{pad}  j: 'x'")),
        1 => Just(format!("&id001\n{pad}k: |\n{pad}  text\n{pad}n: 0x1F")),
        1 => anchored_value(indent),
    ]
    .boxed()
}

fn good_alias(indent: usize) -> BoxedStrategy<String> {
    let pad = " ".repeat(indent + 2);
    prop_oneof![
        4 => Just("*id001".to_string()),
        1 => Just(format!("\n{pad}app: other")),
        2 => anchored_value(indent),
    ]
    .boxed()
}

/// A Deployment in the generator's form, with its labels, selector and
/// template labels (and two more keys) drawn from [`anchored_value`].
fn anchored_document() -> impl Strategy<Value = String> {
    (good_anchor(2), good_alias(4), good_alias(6), good_alias(2), anchored_value(0), any::<bool>())
        .prop_map(|(labels, selector, template, extra, last, spec_first)| {
            let meta = format!("metadata:\n  name: svc0\n  namespace: team-0\n  labels: {labels}\n  annotations: {extra}\n");
            let spec = format!("spec:\n  replicas: 3\n  selector:\n    matchLabels: {selector}\n  template:\n    metadata:\n      labels: {template}\n    spec:\n      containers:\n      - name: svc0\n");
            let head = "apiVersion: apps/v1\nkind: Deployment\n";
            if spec_first { format!("{head}{spec}{meta}last: {last}\n") } else { format!("{head}{meta}{spec}last: {last}\n") }
        })
}

/// The generator's (PyYAML's) form, which the fast path must read.
const GENERATED_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc0\n  uid: d22f02f3-50e9-4079-879d-444008216b65\n  resourceVersion: '83689454'\n  namespace: team-0\n  labels: &id001\n    app: svc0\nspec:\n  replicas: 3\n  selector:\n    matchLabels: *id001\n  template:\n    metadata:\n      labels: *id001\n    spec:\n      containers:\n      - name: svc0\n        image: registry.example.com/svc0:v1.4.8\n        ports:\n        - containerPort: 8080\n          protocol: TCP\n";

#[test]
fn reads_the_generators_anchors_and_aliases() {
    assert_eq!(agree_document(GENERATED_DEPLOYMENT), [true; 3], "the fast path declined the generator's Deployment");
    // And mutations of it: wherever the fast path answers, serde_yaml agrees.
    let mut rng = Rng(0x40_a11a5);
    let (mut answered, mut valid) = (0, 0);
    for _ in 0..3000 {
        let mut m = mutate(GENERATED_DEPLOYMENT, &mut rng);
        if rng.below(2) == 0 {
            m = mutate(&m, &mut rng);
        }
        valid += usize::from(serde_yaml::from_str::<IgnoredAny>(&m).is_ok());
        answered += usize::from(agree_document(&m)[2]);
    }
    eprintln!("3000 mutants of the generator's Deployment: {valid} YAML, fast path validated {answered}");
    assert!(answered * 100 >= valid * 50, "validated {answered} of {valid} valid mutants");
}

proptest! {
    #![proptest_config(crate::props_gen::config(3000))]

    #[test]
    fn agrees_with_serde_yaml_on_anchored_documents(doc in anchored_document(), seed in any::<u64>()) {
        agree_document(&doc);
        let mut rng = Rng(seed);
        agree_document(&mutate(&doc, &mut rng));
    }
}

/// The generated documents with anchors and aliases are not passed by
/// declining: the fast path reads a good share of those serde_yaml reads,
/// and of those in exactly the generator's form, all.
#[test]
fn reads_most_anchored_documents_serde_yaml_reads() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = anchored_document();
    let (mut valid, mut answered) = (0, 0);
    for _ in 0..2000 {
        let doc = strategy.new_tree(&mut runner).unwrap().current();
        let ok = serde_yaml::from_str::<serde_yaml::Value>(&doc).is_ok();
        let took = agree_document(&doc);
        valid += usize::from(ok);
        answered += usize::from(took[1]);
        let m = mutate(&doc, &mut Rng(valid as u64 * 7919 + answered as u64));
        agree_document(&m);
    }
    eprintln!("2000 anchored documents: {valid} read by serde_yaml, {answered} by the fast path");
    // (Many of the others are in forms the fast path declines on purpose:
    // scalars anchored, names redefined, merge keys.)
    assert!(valid > 200 && answered * 100 >= valid * 25, "fast path read {answered} of {valid}");
}

/// Every combination of the forms the fast path reads, at the places a
/// Deployment has them: the fast path reads them all (as a tree, and when
/// only validating), and as serde_yaml does.
#[test]
fn reads_every_shape_of_the_subset() {
    let bodies = [
        "\n    app: svc0\n    tier: web",
        "\n    - a\n    - k: v\n      j: 'x'",
        "\n    k: |\n      text\n    n: 0x1F",
    ];
    let mut n = 0;
    for body in bodies {
        for mask in 0..16u32 {
            let pick = |bit: u32, pad: &str| {
                if mask & (1 << bit) != 0 {
                    "*id001".to_string()
                } else {
                    format!("\n{pad}app: other")
                }
            };
            let (selector, template, extra) = (pick(0, "      "), pick(1, "        "), pick(2, "    "));
            let last = if mask & 8 != 0 { "\n- *id001\n- *id001" } else { " *id001" };
            let doc = format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc0\n  labels: &id001{body}\n  annotations: {extra}\nspec:\n  selector:\n    matchLabels: {selector}\n  template:\n    metadata:\n      labels: {template}\n    spec: {{}}\nlast:{last}\n"
            );
            let took = agree_document(&doc);
            assert!(took[1] && took[2], "fast path declined:\n{doc}");
            n += 1;
        }
    }
    assert_eq!(n, 48);
}
