//! Notes are not warnings (issue 38, item 5): every place that counts a
//! plan's warnings leaves the notes about the input (TD014, TD015) out and
//! counts them apart; `check`'s levels (`-o github`, `-o sarif`,
//! `--deny warnings`) keep a note a note.

use crate::common::run;
use serde_json::Value;

const K3S: &str = "fixtures/realworld/kubernetes/troubleshoot-k3s-supportbundle-2022.yaml";
const CRD_WITHOUT_KIND: &str = "fixtures/notes/td014-crd-without-kind.yaml";

/// The k3s support bundle: twelve CRDs written without a kind (TD014
/// notes) and two Helm charts whose records are not there (warnings). Was
/// "14 warnings" in the table, the JSON summary and the markdown.
#[test]
fn a_plan_counts_its_notes_apart_from_its_warnings() {
    let (code, _, err) = run(&["plan", "--all", K3S]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("206 objects in 6 steps, 4 kept, 2 warnings, 12 notes\n"), "{err}");
    assert_eq!(err.matches("note[TD014]: ").count(), 12, "{err}");
    assert!(!err.contains("warning[TD014]"), "{err}");

    let (code, out, err) = run(&["plan", "--all", "-o", "json", K3S]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((plan["summary"]["warnings"].as_u64(), plan["summary"]["notes"].as_u64()), (Some(2), Some(12)));

    let (code, out, err) = run(&["plan", "--all", "-o", "markdown", K3S]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\n- 2 warnings, 12 notes\n"), "{out}");
    assert!(out.contains("<details><summary>Warnings (2) and notes (12)</summary>"), "{out}");
    assert_eq!(out.matches("- note\\[TD014\\]: ").count() + out.matches("- note[TD014]: ").count(), 12, "{out}");

    // Ignored notes are not counted either.
    let (code, out, _) = run(&["plan", "--all", "--ignore", "TD014", "-o", "json", K3S]);
    assert_eq!(code, 0);
    let plan: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((plan["summary"]["warnings"].as_u64(), plan["summary"]["notes"].as_u64()), (Some(2), Some(0)));
}

/// A plan whose only remark is a note has no warning.
#[test]
fn a_note_alone_is_no_warning() {
    let (code, _, err) = run(&["plan", "--all", CRD_WITHOUT_KIND]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(", 0 warnings, 1 note\n"), "{err}");
    assert!(err.starts_with("note[TD014]: "), "{err}");
}

/// `check` already kept notes apart: a GitHub notice, a SARIF note, never
/// an error under `--deny warnings`.
#[test]
fn check_levels_keep_a_note_a_note() {
    let (code, out, err) = run(&["check", "--deny", "warnings", "-o", "github", CRD_WITHOUT_KIND]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("::notice "), "{out}");
    let (code, out, err) = run(&["check", "--deny", "warnings", "-o", "sarif", CRD_WITHOUT_KIND]);
    assert_eq!(code, 0, "{err}");
    let sarif: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(sarif["runs"][0]["results"][0]["level"], "note");
    assert_eq!(sarif["runs"][0]["results"][0]["ruleId"], "TD014");
}
