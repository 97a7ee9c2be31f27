//! The README and docs/ as a newcomer reads them: the README short, the two
//! commands first (and CI runs the second), then what teardown does, install,
//! the quick starts, the commands and exit codes; docs/ a page per command,
//! dialect and rule. Every `console` example runs (trycmd), every relative
//! link leads to a file a clone has and to a heading that exists there.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use std::path::{Path, PathBuf};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// README.md and every markdown file under docs/, as paths from the root.
fn pages() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    let mut dirs = vec![repo().join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(repo()).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// The lines outside code blocks.
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

fn anchors(text: &str) -> Vec<String> {
    prose(text).iter().filter(|l| l.starts_with('#')).map(|l| slug(l)).collect()
}

#[test]
fn two_commands_first_and_ci_runs_the_second() {
    let text = read("README.md");
    let first = text.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    let commands: Vec<&str> = first.lines().map(|l| l.split('#').next().unwrap_or("").trim()).collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- check --finalizer-controller shop.example.com/checkout=sts/shop/db fixtures/shop",
            "cargo test"
        ]
    );
    let before = &text[..text.find("```sh").unwrap()];
    assert_eq!(before.trim(), "# teardown", "the two commands come first");
    let ci = read(".ci/run");
    let last = ci.lines().map(str::trim).rfind(|l| !l.is_empty() && !l.starts_with('#')).unwrap();
    assert_eq!(last, "cargo test", "CI runs the README's test command");
}

#[test]
fn the_readme_is_short_and_in_a_newcomers_order() {
    let text = read("README.md");
    let lines = text.lines().count();
    assert!(lines < 300, "README.md has {lines} lines: move the detail into docs/");
    let headings: Vec<&str> = prose(&text).into_iter().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings, ["## Install", "## Quick start", "## Commands", "## Exit codes", "## Read on"]);
    // What teardown does comes before Install, and names every dialect.
    let intro = text.split("## Install").next().unwrap();
    for dialect in ["kubernetes", "krake", "murano", "kubevela", "native", "pairs"] {
        assert!(intro.contains(&format!("**{dialect}**")), "the introduction does not name {dialect}");
    }
    // Three quick starts: a dry-run plan, check in CI, apply.
    let quick = text.split("## Quick start").nth(1).unwrap().split("\n## ").next().unwrap();
    let starts: Vec<&str> = prose(quick).into_iter().filter(|l| l.starts_with("### ")).collect();
    assert_eq!(starts.len(), 3, "{starts:?}");
    assert!(starts[0].contains("dry-run plan") && starts[1].contains("`check` in CI") && starts[2].contains("`apply`"));
    // A dump of every kind the cluster lists (`kubectl get -A` alone is
    // refused by kubectl; pipelines.rs runs the Quick start).
    assert!(quick.contains("kubectl api-resources --verbs=list -o name"), "a real dump");
    assert!(quick.contains("teardown plan --delete ns/shop dump.yaml"));
    let console = quick.split("```console\n").nth(1).expect("a console block, checked by trycmd");
    assert!(console.contains("$ teardown plan --delete ns/shop fixtures/shop.yaml\nSTEP"), "{console}");
    // The exit-code table has the three codes.
    let exits = text.split("## Exit codes").nth(1).unwrap().split("\n## ").next().unwrap();
    for code in ["| 0 |", "| 1 |", "| 2 |"] {
        assert!(exits.contains(code), "{code}");
    }
}

/// Nothing a clone lacks: no contract sections, no issue numbers, no dated
/// run logs.
#[test]
fn no_reference_to_what_a_clone_lacks() {
    for page in pages() {
        let text = read(&page);
        for word in ["CONTRACT", "§", "../shared", "/work/"] {
            assert!(!text.contains(word), "{page}: `{word}`");
        }
        for line in prose(&text) {
            let lower = line.to_lowercase();
            for (i, _) in lower.match_indices("issue ") {
                let next = lower[i + 6..].chars().next();
                assert!(!next.is_some_and(|c| c.is_ascii_digit()), "{page}: an issue number: {line}");
            }
            assert!(!line.contains("session"), "{page}: a note about a work session: {line}");
        }
    }
}

#[test]
fn links_go_to_files_a_clone_has_and_headings_that_exist() {
    let mut links = 0;
    for page in pages() {
        let text = read(&page);
        let dir = Path::new(&page).parent().unwrap().to_path_buf();
        for line in prose(&text) {
            for piece in line.split("](").skip(1) {
                let Some(target) = piece.split(')').next() else { continue };
                links += 1;
                if target.starts_with("https://") {
                    continue;
                }
                assert!(!target.starts_with("http:") && !target.starts_with('/'), "{page}: {target}");
                let (file, anchor) = match target.split_once('#') {
                    Some((f, a)) => (f, Some(a)),
                    None => (target, None),
                };
                let path: PathBuf = if file.is_empty() { PathBuf::from(&page) } else { normalise(&dir.join(file)) };
                assert!(!path.starts_with(".."), "{page}: a link out of the clone: {target}");
                let shown = path.display().to_string();
                assert!(repo().join(&path).exists(), "{page}: a link to a missing file: {target}");
                if let Some(anchor) = anchor {
                    let there = read(&shown);
                    assert!(anchors(&there).iter().any(|a| a == anchor), "{page}: no heading #{anchor} in {shown}");
                }
            }
        }
    }
    assert!(links > 100, "{links} links");
    assert_eq!(slug("### `plan -o kubectl`"), "plan--o-kubectl");
}

/// `a/b/../c` as `a/c`, without touching the filesystem.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Every page is reachable from docs/README.md, the index.
#[test]
fn the_index_reaches_every_page() {
    let mut seen = vec!["docs/README.md".to_string()];
    let mut todo = vec!["docs/README.md".to_string()];
    while let Some(page) = todo.pop() {
        let dir = Path::new(&page).parent().unwrap().to_path_buf();
        for line in prose(&read(&page)) {
            for piece in line.split("](").skip(1) {
                let Some(target) = piece.split(')').next() else { continue };
                let file = target.split('#').next().unwrap();
                if file.is_empty() || target.starts_with("https://") || !file.ends_with(".md") {
                    continue;
                }
                let path = normalise(&dir.join(file)).display().to_string();
                if path.starts_with("docs/") && repo().join(&path).exists() && !seen.contains(&path) {
                    seen.push(path.clone());
                    todo.push(path);
                }
            }
        }
    }
    for page in pages().into_iter().filter(|p| p.starts_with("docs/")) {
        assert!(seen.contains(&page), "{page} is not reachable from docs/README.md");
    }
}

/// A page per rule, named by its id (`docs/rules/TD004.md`: stable, for
/// links from findings), each with the four parts, listed in the index.
#[test]
fn every_rule_has_its_page() {
    let (code, out, err) = crate::common::run(&["check", "-o", "sarif", "--isolated", "fixtures/shop.yaml"]);
    assert_eq!(code, 0, "{err}");
    let sarif: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.len() >= 17);
    let index = read("docs/rules/README.md");
    for rule in rules {
        let (id, name) = (rule["id"].as_str().unwrap(), rule["name"].as_str().unwrap());
        let page = read(&format!("docs/rules/{id}.md"));
        assert!(page.starts_with(&format!("# {id} {name}\n")), "docs/rules/{id}.md: title");
        for part in ["## What it finds", "## Why it matters", "## Example", "## How to fix or silence it"] {
            assert!(page.contains(part), "docs/rules/{id}.md: no `{part}`");
        }
        let example = page.split("## Example").nth(1).unwrap();
        assert!(
            example.contains("```console\n$ teardown ") && example.contains(id),
            "docs/rules/{id}.md: an example that triggers it"
        );
        assert!(index.contains(&format!("| [{id}]({id}.md) | {name} |")), "docs/rules/README.md does not list {id}");
    }
}

/// A page per command and per dialect.
#[test]
fn every_command_and_dialect_has_its_page() {
    let (code, _, err) = crate::common::run(&["man", "nope"]);
    assert_eq!(code, 2);
    let commands = err.split("there is one for ").nth(1).unwrap().trim();
    for command in commands.split(", ") {
        let page = match command {
            "completions" | "man" => "completions-and-man".to_string(),
            c => c.to_string(),
        };
        let text = read(&format!("docs/commands/{page}.md"));
        assert!(text.contains(&format!("`teardown {command}")), "docs/commands/{page}.md: {command}");
    }
    let (_, help, _) = crate::common::run(&["check", "--help"]);
    let values = help.split("--dialect").nth(1).unwrap().split("Possible values:").nth(1).unwrap();
    let values = values.trim_start_matches('\n').split("\n\n").next().unwrap();
    let mut dialects = 0;
    for line in values.lines().map(str::trim) {
        let Some(name) = line.strip_prefix("- ").and_then(|l| l.split(':').next()) else { continue };
        dialects += 1;
        let text = read(&format!("docs/dialects/{name}.md"));
        assert!(text.starts_with(&format!("# The `{name}` dialect")), "docs/dialects/{name}.md");
    }
    assert_eq!(dialects, 6);
}

/// Snapshot tests of whole command lines (tests/cmd/*.trycmd), and the
/// examples of the README and of docs/, which must show real output.
#[test]
fn examples_show_real_output() {
    trycmd::TestCases::new()
        .env("NO_COLOR", "1")
        .case("tests/cmd/*.trycmd")
        .case("README.md")
        .case("docs/*.md")
        .case("docs/*/*.md");
}
