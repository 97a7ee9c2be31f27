//! teardown's command line, tested by feature: one test binary
//! (`cargo test --test testsuite`), one module per feature, all sharing the
//! helpers of `tests/common/` (run the binary, parse its JSON, skip a check
//! that cannot run here). Modules are named by what they cover, with a
//! prefix for the area: `check_*`, `plan_*`, `input_*`, `output_*`,
//! `dialect_*`. Run one area with a filter: `cargo test --test testsuite
//! plan_`; one module: `cargo test --test testsuite plan_default_rules::`.
//!
//! The other test binaries: `tests/props/` (property tests on generated
//! snapshots) and `tests/conformance/` (cases derived from the systems
//! teardown models). Fixtures are under `fixtures/`; snapshot tests of whole
//! command lines under `tests/cmd/` and in the docs (`docs.rs`).

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

#[path = "../common/mod.rs"]
mod common;

// `teardown apply`: plan files applied to the snapshot files.
mod apply;
// `teardown check`: one fixture per rule, and TD011's candidates.
mod check_finalizer_candidates;
mod check_rules;
mod check_threads;
// CI on real repositories: packages, files that are not objects, exclude, settings beside the inputs.
mod ci_packages;
// The CI recipes of docs/ci.md, run as CI runs them.
mod ci_recipes;
// The dialects that have more than the Kubernetes reading.
mod dialect_krake;
mod dialect_kubevela;
mod dialect_murano;
mod dialect_pairs;
// README and docs/: the examples show real output, the links lead somewhere.
mod docs;
// `--select`, `--ignore`, `--exit-zero`, `-q`, teardown.toml, external finalizers.
mod finding_controls;
// Every input kept under fuzz/regressions/, through the fuzz targets' harness.
mod fuzz_regressions;
// `--help`, `teardown man`, completions, a terminal on standard input.
mod help_and_man;
// Reading: hostile input within the limits, nothing misread, every input shape.
mod input_limits;
mod input_misread;
mod input_shapes;
mod input_skip_invalid;
// Output: SARIF, GitHub, YAML, graph formats, pipes; names and refs, colour.
mod output_formats;
mod output_names_refs_colour;
// SARIF rules explained from their pages, valid against the 2.1.0 schema.
mod output_sarif_help;
// Shell pipelines: -o names through xargs, streams on stdin, empty input,
// the README's Quick start against a fake kubectl, help, selectors, profiles.
mod pipelines;
// `teardown plan`: what it deletes, in which order, and why.
mod plan_application_controllers;
mod plan_as_tool;
// What a plan destroys for good, its summary, short reasons, markdown, schemas.
mod plan_at_a_glance;
mod plan_cascade_and_order;
mod plan_controller_cascades;
mod plan_default_rules;
// Duplicates that cannot change a plan are its warnings; the others refuse it.
mod plan_duplicates;
mod plan_json_explain_and_errors;
mod plan_kubectl_script;
// Notes about the input are counted apart from a plan's warnings.
mod plan_notes_counts;
mod plan_right_or_refused;
mod plan_tool_metadata;
// The public dumps under fixtures/realworld/.
mod realworld_dumps;
// `teardown reconcile`, `teardown simulate`.
mod reconcile;
mod simulate;
// Selectors as kubectl reads them, and the closest matches of one that matches nothing.
mod selectors;

/// A check that cannot run says why and goes through `common::skip` (which
/// fails in CI) or `common::skip_expected`: no test returns early with a
/// note of its own, which CI would count as a pass.
#[test]
fn skips_go_through_common() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = 0;
    for dir in ["testsuite", "props", "conformance"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for pattern in ["eprintln!(\"skip", "eprintln!(\"note:"] {
                assert!(
                    !text.contains(pattern),
                    "{}: a skip of its own ({pattern}…): use common::skip",
                    path.display()
                );
            }
        }
    }
    assert!(files > 20, "{files} test files");
}
