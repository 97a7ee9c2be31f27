//! Help that teaches: every command's `--help` ends with examples that
//! parse, `teardown man` has every flag, colour follows `--color` and
//! NO_COLOR (the help too), a terminal on standard input is not waited on,
//! and an input directory without files is a warning.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;

use clap::{CommandFactory, Parser};
use common::{run, teardown};
use teardown::cli::Cli;

/// The commands `teardown --help` lists (not `help`).
fn commands() -> Vec<String> {
    Cli::command().get_subcommands().map(|c| c.get_name().to_string()).filter(|n| n != "help").collect()
}

/// The lines of the Examples section a help text ends with.
fn examples(help: &str) -> Vec<String> {
    let (_, section) = help.rsplit_once("\nExamples:\n").unwrap_or_else(|| panic!("no Examples section:\n{help}"));
    section.lines().map(|l| l.trim().to_string()).filter(|l| !l.is_empty()).collect()
}

/// The teardown command of an example line: its words up to a pipe, a
/// redirection, `&&` or a comment.
fn teardown_words(line: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let start = words.iter().position(|w| *w == "teardown")?;
    let words = &words[start..];
    let end = words.iter().position(|w| ["|", ">", "&&", "#"].contains(w) || w.starts_with('#')).unwrap_or(words.len());
    Some(words[..end].iter().map(|w| w.to_string()).collect())
}

#[test]
fn every_command_help_ends_with_examples_that_parse() {
    let mut names = vec![String::new()];
    names.extend(commands());
    for name in names {
        let args: Vec<&str> = if name.is_empty() { vec!["--help"] } else { vec![name.as_str(), "--help"] };
        let (code, help, _) = run(&args);
        assert_eq!(code, 0, "{args:?}");
        let lines = examples(&help);
        assert!(lines.len() >= 3, "`{name} --help` shows {} examples:\n{help}", lines.len());
        assert!(help.trim_end().ends_with(lines.last().map(String::as_str).unwrap_or("")), "examples end the help");
        let (mut ran, mut own) = (0, 0);
        for line in &lines {
            let Some(words) = teardown_words(line) else { continue };
            if let Err(e) = Cli::try_parse_from(&words) {
                panic!("example of `{name}` does not parse: {line}\n{e}");
            }
            ran += 1;
            own += usize::from(name.is_empty() || words.get(1) == Some(&name));
        }
        assert!(ran >= 3 || (ran >= 2 && lines.len() >= 3), "`{name}`: examples that run teardown:\n{help}");
        assert!(own >= 2, "`{name}`: at least two examples run `{name}`:\n{help}");
    }
}

#[test]
fn output_flag_lists_each_format_with_a_line() {
    for name in ["check", "plan", "explain", "graph", "simulate", "reconcile"] {
        let (_, help, _) = run(&[name, "--help"]);
        let output = help.split("-o, --output <FORMAT>").nth(1).unwrap_or_else(|| panic!("`{name}`: no -o"));
        let values = output.split("Possible values:").nth(1).unwrap_or_else(|| panic!("`{name}` -o lists no values"));
        let values: Vec<&str> = values.lines().skip(1).take_while(|l| !l.trim().is_empty()).collect();
        let items: Vec<&str> = values.iter().map(|l| l.trim()).filter(|l| l.starts_with("- ")).collect();
        assert!(items.len() >= 2, "`{name}`: {values:?}");
        for item in items {
            assert!(item.contains(": "), "`{name}` -o: `{item}` has no line saying what it is");
        }
    }
}

#[test]
fn man_holds_every_command_and_every_flag() {
    let (code, page, _) = run(&["man"]);
    assert_eq!(code, 0);
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "roff");
    let cli = Cli::command();
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        let heading = format!(".SH \"TEARDOWN {}\"", sub.get_name().to_uppercase());
        assert!(page.contains(&heading), "the whole page has a section for {}", sub.get_name());
        let (code, own, _) = run(&["man", sub.get_name()]);
        assert_eq!(code, 0);
        assert!(own.contains(&format!(".TH teardown-{} 1", sub.get_name())), "its own page: {}", &own[..200]);
        assert!(own.contains(".SH EXAMPLES"), "{} page has examples", sub.get_name());
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                let roff = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
                assert!(page.contains(&roff), "teardown man lacks {} --{long}", sub.get_name());
                assert!(own.contains(&roff), "teardown man {} lacks --{long}", sub.get_name());
            }
        }
    }
    let (code, _, err) = run(&["man", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no man page for `nope`; there is one for check, plan"), "{err}");
}

#[test]
fn man_pages_render() {
    if std::process::Command::new("man").arg("--version").output().is_err() {
        crate::common::skip("man is not installed; the pages are not rendered");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for page in ["", "plan"] {
        let args: Vec<&str> = if page.is_empty() { vec!["man"] } else { vec!["man", page] };
        let out = teardown().args(&args).output().unwrap();
        let file = dir.path().join("page.1");
        std::fs::write(&file, out.stdout).unwrap();
        let shown = std::process::Command::new("man").env("MANWIDTH", "100").arg("-l").arg(&file).output().unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        assert!(text.contains("--delete") && text.contains("EXAMPLES"), "{text}");
        assert!(!String::from_utf8_lossy(&shown.stderr).contains("warning"), "roff warnings");
    }
}

/// Run `line` under a pseudo-terminal (util-linux `script`), so that
/// standard input and output are terminals; `None` without `script`.
fn on_terminal(line: &str, env: &[(&str, &str)]) -> Option<(i32, String)> {
    let bin = std::env::var_os("TEARDOWN_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("teardown"));
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &line.replace("teardown", &bin.to_string_lossy()), "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(out) if out.status.code().is_some() => {
            Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned()))
        }
        _ => {
            crate::common::skip("util-linux `script` is not available; terminal behaviour is not tested");
            None
        }
    }
}

#[test]
fn help_colour_follows_color_and_no_color() {
    let plain = |args: &[&str]| {
        let out = teardown().args(args).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(plain(&["--color", "always", "plan", "--help"]).contains('\x1b'), "--color always colours the help");
    assert!(plain(&["plan", "--help", "--color=always"]).contains('\x1b'));
    assert!(!plain(&["--color", "never", "plan", "--help"]).contains('\x1b'));
    let Some((code, shown)) = on_terminal("teardown plan --help", &[]) else { return };
    assert_eq!(code, 0);
    assert!(shown.contains('\x1b'), "a terminal gets colour");
    let (_, shown) = on_terminal("teardown plan --help", &[("NO_COLOR", "1")]).unwrap_or_default();
    assert!(!shown.contains('\x1b'), "NO_COLOR: none");
    let (_, shown) = on_terminal("teardown --color never plan --help", &[]).unwrap_or_default();
    assert!(!shown.contains('\x1b'), "--color never: none, on a terminal too");
    let (_, shown) = on_terminal("teardown plan --colr never", &[("NO_COLOR", "1")]).unwrap_or_default();
    assert!(shown.contains("unexpected argument") && !shown.contains('\x1b'), "usage errors too: {shown}");
}

#[test]
fn no_input_on_a_terminal_says_what_it_needs() {
    let Some((code, shown)) = on_terminal("teardown check", &[]) else { return };
    assert_eq!(code, 2, "{shown}");
    assert!(
        shown.contains("no INPUT given, and standard input is a terminal")
            && shown.contains("kubectl get -A -o yaml | teardown check"),
        "{shown}"
    );
    let (code, shown) = on_terminal("teardown plan --all", &[]).unwrap_or_default();
    assert_eq!(code, 2, "{shown}");
    // Named input, or a pipe, is read as before.
    let (code, _) = on_terminal("teardown check fixtures/shop", &[]).unwrap_or_default();
    assert_eq!(code, 0);
    let (code, shown) = on_terminal("echo 'kind: Namespace' | teardown check", &[]).unwrap_or_default();
    assert!(code == 2 && shown.contains("TD001"), "a pipe is read: {shown}");
}

#[test]
fn a_directory_without_files_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/notes.txt"), "not read").unwrap();
    std::fs::write(dir.path().join(".hidden.yaml"), "kind: Namespace").unwrap();
    let path = dir.path().to_str().unwrap();
    // With files beside it, a warning (TD013).
    let (code, out, _) = run(&["check", path, "fixtures/formats/native.yaml", "-o", "json"]);
    assert_eq!(code, 0, "a warning");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &report["findings"][0];
    assert_eq!(f["rule"], "TD013");
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["file"], path);
    assert!(f["message"].as_str().unwrap().contains("no *.yaml, *.yml or *.json file in this directory"));
    let (code, _, err) = run(&["plan", "--all", path, "fixtures/formats/native.yaml"]);
    assert_eq!(code, 0);
    assert!(err.contains(&format!("warning[TD013]: {path}: no *.yaml")), "{err}");
    // Alone, it is input that holds no object: an error (exit 2, issue
    // 37), after the warning that says why.
    let (code, out, err) = run(&["check", path]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("no *.yaml, *.yml or *.json file in this directory"), "{err}");
    assert!(err.contains(&format!("no object in `{path}`")), "{err}");
    // A directory with a file that holds nothing is the file's warning, not the directory's.
    std::fs::write(dir.path().join("sub/empty.yaml"), "").unwrap();
    let (_, out, _) = run(&["check", path, "fixtures/formats/native.yaml", "-o", "json"]);
    assert!(!out.contains("in this directory") && out.contains("holds no objects"), "{out}");
}

#[test]
fn readme_install_steps_work_on_a_fresh_home() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let install = readme.split("\n## Install\n").nth(1).expect("an Install section");
    let block = install.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("a sh block");
    let home = tempfile::tempdir().unwrap();
    let bin = std::env::var_os("TEARDOWN_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("teardown"));
    let bindir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&bin, bindir.path().join("teardown")).unwrap();
    let path = format!("{}:{}", bindir.path().display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        if line.starts_with("cargo install") {
            continue; // install aside: the binary under test stands in
        }
        let out = std::process::Command::new("bash")
            .args(["-euo", "pipefail", "-c", line])
            .env("HOME", home.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(out.status.success(), "`{line}` fails on a fresh home: {}", String::from_utf8_lossy(&out.stderr));
        ran += 1;
    }
    assert!(ran >= 3, "{block}");
    let completion = home.path().join(".local/share/bash-completion/completions/teardown");
    assert!(std::fs::read_to_string(completion).unwrap().contains("_teardown"));
    let page = std::fs::read_to_string(home.path().join(".local/share/man/man1/teardown.1")).unwrap();
    assert!(page.contains(".TH teardown 1"));
}

#[test]
fn example_words_are_found() {
    assert_eq!(
        teardown_words("kubectl get -A -o yaml | teardown check -   # x"),
        Some(vec!["teardown".into(), "check".into(), "-".into()])
    );
    assert!(Cli::try_parse_from(["teardown", "plan", "--nope"]).is_err(), "the parse test can fail");
}
