//! The fuzz targets' inputs as ordinary tests, on stable: every file kept
//! under `fuzz/regressions/<target>/` (a crash, timeout or disagreement the
//! fuzzer found, minimised, and fixed since) is run through the target's
//! harness, `fuzz/harness.rs`, the same code the fuzz targets run; a target without
//! an input fails (each has at least a seed). And, in
//! CI, the fuzz crate itself is built (`cargo build --manifest-path
//! fuzz/Cargo.toml`), so that the targets keep compiling.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use crate::common;
#[path = "../../fuzz/harness.rs"]
mod harness;

use std::path::Path;

/// Run every regression input of `target`; at least one must exist.
fn regressions(target: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(target);
    let mut files: Vec<_> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    // A target without an input would pass having run nothing.
    assert!(!files.is_empty(), "fuzz/regressions/{target}/ holds no input: add one (a find, or a seed)");
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| harness::run(target, &data));
        if let Err(panic) = outcome {
            eprintln!("fuzz regression {} failed", file.display());
            std::panic::resume_unwind(panic);
        }
    }
}

macro_rules! regression_tests {
    ($($target:ident),*) => {
        $(#[test]
        fn $target() {
            regressions(stringify!($target));
        })*

        /// Every target has its test here, and every directory under
        /// `fuzz/regressions/` is a target.
        #[test]
        fn every_target_is_tested() {
            let tested = [$(stringify!($target)),*];
            assert_eq!(tested.as_slice(), harness::TARGETS);
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
            for entry in std::fs::read_dir(root).into_iter().flatten() {
                let entry = entry.unwrap();
                if !entry.file_type().unwrap().is_dir() {
                    continue;
                }
                let name = entry.file_name().into_string().unwrap();
                assert!(harness::TARGETS.contains(&name.as_str()), "fuzz/regressions/{name}: no such target");
            }
        }
    };
}

regression_tests!(kubernetes, krake, murano, kubevela, native, pairs, auto, fast_yaml, planner, apply);

/// The fuzz crate builds on stable: in CI (`CI` set), or when
/// `TEARDOWN_FUZZ_BUILD` is set; else skipped (it builds teardown a second
/// time, in its own target directory, so that it never waits on the lock of
/// the one running this test).
#[test]
fn fuzz_targets_build_on_stable() {
    if std::env::var_os("CI").is_none() && std::env::var_os("TEARDOWN_FUZZ_BUILD").is_none() {
        common::skip_expected("set CI or TEARDOWN_FUZZ_BUILD to build the fuzz targets");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--locked", "--manifest-path"])
        .arg(root.join("fuzz/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .status()
        .unwrap();
    assert!(status.success(), "cargo build --manifest-path fuzz/Cargo.toml failed");
}

/// The same answer with the YAML fast path and without it
/// (`TEARDOWN_NO_FAST_YAML=1`), byte for byte, for documents that held
/// something no dialect reads (a ConfigMap's `spec`, an unknown key of
/// `metadata`) the fast path does not outline past the top level:
/// - `alias-bomb-under-spec.yaml` (issue 19): anchors `&a0`..`&a9`, each a
///   list of nine aliases of the one before;
/// - `duplicate-key-under-metadata.yaml` (found by the `fast_yaml` target):
///   `env:` twice under `metadata`;
/// - `nesting-200-under-spec.yaml`: flow sequences 200 deep (the case of
///   tests/inputs.rs `well_formed_but_unusual_yaml_is_not_a_syntax_error`);
/// - `syntax-error-under-data.yaml`: an unclosed flow sequence.
///
/// Was: each read (the first three: one object; the last: exit 2 at the
/// error) with the fast path, and with it off refused as "document is an
/// object, not an object" (exit 1), because the outline then came from a
/// value tree of the whole document. Now the outline reads the top level
/// in both ways, and a document that cannot be outlined is reported with
/// serde_yaml's error, at its place.
#[test]
fn answered_alike_with_and_without_the_fast_path() {
    for name in [
        "alias-bomb-under-spec.yaml",
        "duplicate-key-under-metadata.yaml",
        "nesting-200-under-spec.yaml",
        "syntax-error-under-data.yaml",
    ] {
        let file = format!("fuzz/regressions/fast_yaml/{name}");
        let mut said = Vec::new();
        for off in [false, true] {
            let mut cmd = common::teardown();
            cmd.args(["check", "--isolated", &file]);
            if off {
                cmd.env("TEARDOWN_NO_FAST_YAML", "1");
            }
            let out = cmd.output().unwrap();
            let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
            assert!(!text.contains("not an object"), "{file} (fast path off: {off}):\n{text}");
            said.push((out.status.code(), text));
        }
        assert_eq!(said[0], said[1], "{file}: with the fast path on (left) and off (right)");
    }
    let (code, text, _) =
        common::run(&["check", "--isolated", "fuzz/regressions/fast_yaml/syntax-error-under-data.yaml"]);
    assert_eq!(code, 2);
    assert!(text.contains("TD001 unusable-input: YAML: did not find expected \',\' or \']\'"), "{text}");
    assert!(text.contains("[fuzz/regressions/fast_yaml/syntax-error-under-data.yaml:6:15]"), "{text}");
}
