//! The README as a newcomer reads it: the two commands first (and CI runs
//! the second), a quick start, then the commands, then inputs and dialects;
//! every link goes to a file a clone has or to a heading that exists.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use std::path::Path;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The README's lines outside code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|l| {
            if l.starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// GitHub's anchor for a heading.
fn slug(heading: &str) -> String {
    heading
        .trim_start_matches('#')
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[test]
fn two_commands_first_and_ci_runs_the_second() {
    let text = readme();
    let first = text.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    let commands: Vec<&str> = first.lines().map(|l| l.split('#').next().unwrap_or("").trim()).collect();
    assert_eq!(commands, ["cargo run --release -- check fixtures/shop", "cargo test"]);
    let before = &text[..text.find("```sh").unwrap()];
    assert_eq!(before.trim(), "# teardown", "the two commands come first");
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let last = ci.lines().map(str::trim).rfind(|l| !l.is_empty() && !l.starts_with('#')).unwrap();
    assert_eq!(last, "cargo test", "CI runs the README's test command");
}

#[test]
fn quick_start_then_commands_then_inputs() {
    let text = readme();
    let headings: Vec<&str> = prose(&text).into_iter().filter(|l| l.starts_with("## ")).collect();
    let at = |h: &str| headings.iter().position(|x| *x == h).unwrap_or_else(|| panic!("no `{h}`: {headings:?}"));
    assert_eq!(at("## Quick start"), 0, "the quick start first");
    assert!(at("## Install") < at("## Commands"));
    for command in ["check", "plan", "explain", "simulate", "apply", "reconcile", "graph"] {
        let h = format!("## `teardown {command}`");
        assert!(at("## Commands") < at(&h) && at(&h) < at("## Inputs and dialects"), "{h}");
    }
    let quick = text.split("## Quick start").nth(1).unwrap().split("\n## ").next().unwrap();
    assert!(quick.contains("kubectl get -A -o yaml | teardown check -"), "a real pipeline");
    assert!(quick.contains("teardown plan --delete ns/shop dump.yaml"));
    let console = quick.split("```console\n").nth(1).expect("a console block, checked by trycmd");
    assert!(console.contains("$ teardown plan --delete ns/shop fixtures/shop.yaml\nSTEP"), "{console}");
}

#[test]
fn links_go_to_files_a_clone_has() {
    let text = readme();
    let anchors: Vec<String> = prose(&text).iter().filter(|l| l.starts_with('#')).map(|l| slug(l)).collect();
    let mut links = 0;
    for line in prose(&text) {
        for piece in line.split("](").skip(1) {
            let Some(target) = piece.split(')').next() else { continue };
            links += 1;
            if target.starts_with("https://") {
                continue;
            }
            if let Some(anchor) = target.strip_prefix('#') {
                assert!(anchors.iter().any(|a| a == anchor), "no heading for #{anchor}");
                continue;
            }
            assert!(!target.starts_with(".."), "a link out of the clone: {target}");
            assert!(repo().join(target.split('#').next().unwrap()).exists(), "a link to a missing file: {target}");
        }
    }
    assert!(links > 5);
    assert!(!text.contains("../shared/CONTRACT"), "the contract is not in a clone");
    assert_eq!(slug("### `plan -o kubectl`"), "plan--o-kubectl");
}

/// Snapshot tests of whole command lines (tests/cmd/*.trycmd), and the
/// examples in the README, which must show real output.
#[test]
fn examples_show_real_output() {
    trycmd::TestCases::new().env("NO_COLOR", "1").case("tests/cmd/*.trycmd").case("README.md");
}
