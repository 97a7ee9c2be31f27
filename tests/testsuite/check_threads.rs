//! `check` looks at a snapshot with its rules on every core (issue 40):
//! the report is the same bytes at any thread count, the findings of each
//! rule joined in the rules' order.

use crate::common::teardown;

/// Every rule's fixture at once: findings of TD001–TD017 in one report.
fn fixtures() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir("fixtures/check")
        .expect("fixtures/check")
        .map(|e| e.expect("entry").path().display().to_string())
        .filter(|p| p.ends_with(".yaml"))
        .collect();
    files.sort();
    files
}

fn check_at(threads: &str, format: &str) -> (Option<i32>, Vec<u8>) {
    let out = teardown()
        .env("RAYON_NUM_THREADS", threads)
        .args(["check", "-o", format])
        .args(fixtures())
        .output()
        .expect("runs");
    (out.status.code(), out.stdout)
}

#[test]
fn a_check_report_is_the_same_at_any_thread_count() {
    for format in ["json", "table"] {
        let one = check_at("1", format);
        let report = String::from_utf8_lossy(&one.1);
        for rule in ["TD001", "TD002", "TD003", "TD007", "TD008", "TD009", "TD010", "TD011", "TD012"] {
            assert!(report.contains(rule), "{rule} is in the report:\n{report}");
        }
        for threads in ["2", "3", "8"] {
            assert_eq!(check_at(threads, format), one, "{format} at {threads} threads");
        }
    }
}
