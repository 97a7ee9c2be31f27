//! The `pairs` dialect: tsort-compatible input (`X Y`: X is destroyed before Y).

use crate::common;
use common::{run, run_stdin};

#[test]
fn dressing_in_steps() {
    // Worked out by hand from the pairs: nothing has to precede shirt, socks,
    // undershorts or watch; pants follow undershorts and tie follows shirt;
    // belt follows pants and shirt, shoes follow pants, socks, undershorts;
    // jacket follows tie and belt.
    let (code, out, err) = run(&["plan", "--all", "--dialect", "pairs", "fixtures/pairs/dressing.txt"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "STEP  ACTION  OBJECT       REASON\n\
         1     delete  shirt\n\
         1     delete  socks\n\
         1     delete  undershorts\n\
         1     delete  watch\n\
         2     delete  pants        after undershorts\n\
         2     delete  tie          after shirt\n\
         3     delete  belt         after pants, shirt\n\
         3     delete  shoes        after pants, socks, undershorts\n\
         4     delete  jacket       after tie, belt\n"
    );
    assert_eq!(err, "9 objects in 4 steps, 0 kept, 0 warnings\n");
}

#[test]
fn reason_names_at_most_three_predecessors() {
    let (code, out, _) = run_stdin(&["plan", "--all", "--dialect", "pairs"], "a z\nb z\nc z\nd z\n");
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("2     delete  z       after a, b, c and 1 more"));
}

#[test]
fn names_are_a_valid_tsort_order() {
    let (code, out, _) = run(&["plan", "--all", "--dialect", "pairs", "-o", "names", "fixtures/pairs/dressing.txt"]);
    assert_eq!(code, 0);
    let order: Vec<&str> = out.lines().collect();
    let text = std::fs::read_to_string("fixtures/pairs/dressing.txt").unwrap();
    let tokens: Vec<&str> = text.split_whitespace().collect();
    for pair in tokens.chunks(2) {
        let pos = |t: &str| order.iter().position(|o| *o == t).unwrap();
        assert!(pair[0] == pair[1] || pos(pair[0]) < pos(pair[1]), "{pair:?} in {order:?}");
    }
    // The same tokens as tsort prints, if tsort is here to ask.
    if let Ok(t) = std::process::Command::new("tsort").arg("fixtures/pairs/dressing.txt").output() {
        let mut a: Vec<&str> = order.clone();
        let tsort = String::from_utf8(t.stdout).unwrap();
        let mut b: Vec<&str> = tsort.lines().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}

#[test]
fn cycles_are_one_step_and_odd_input_is_an_error() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.txt");
    std::fs::write(&p, "a b\nb c\nc a\nc d\n").unwrap();
    let (code, out, err) = run(&["plan", "--all", "--dialect", "pairs", "-o", "names", &p.to_string_lossy()]);
    assert_eq!(code, 0);
    assert_eq!(out, "a\nb\nc\nd\n");
    assert!(
        err.contains("warning[TD008]: destruction-dependency cycle: a, b, c are destroyed together in step 1"),
        "{err}"
    );
    std::fs::write(&p, "a b\nc\n").unwrap();
    let (code, _, err) = run(&["check", "--dialect", "pairs", &p.to_string_lossy()]);
    assert_eq!(code, 2);
    let (_, out, _) = run(&["check", "--dialect", "pairs", "-o", "json", &p.to_string_lossy()]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"][0]["line"], 2);
    assert_eq!(v["findings"][0]["message"], "odd number of tokens: the last one has no partner");
    let _ = err;
}
