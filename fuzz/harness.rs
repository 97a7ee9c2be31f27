//! What each fuzz target does with its bytes, and the properties it holds
//! them to (a failed property panics).
//!
//! One file, included by every target in `fuzz/fuzz_targets/` and by
//! `tests/fuzz.rs` (`#[path = "../fuzz/harness.rs"] mod harness;`), which
//! runs every input kept under `fuzz/regressions/<target>/` through [`run`]
//! with `cargo test` on stable. Nothing here is in the library: commands run
//! in process through `Cli::parse_args` and `commands::run`, with the bytes
//! as standard input, as `src/main.rs` runs them.
//!
//! Targets:
//! - `kubernetes`, `krake`, `murano`, `kubevela`, `native`, `pairs`: the bytes
//!   read with `--dialect NAME`; `auto`: with the dialect recognised
//!   ([`dialect`]).
//! - `fast_yaml`: the YAML fast path against serde_yaml ([`fast_yaml`]).
//! - `planner`: a random graph in the native dialect, planned ([`planner`]).
//! - `apply`: a plan file, applied to a small snapshot in a scratch
//!   directory ([`apply`]).

// A failed property is a panic: that is how a fuzz target reports it.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]
#![allow(dead_code)]

use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use teardown::cli::Cli;
use teardown::commands::{self, Env};

/// Every target, by name (the names of `fuzz/fuzz_targets/*.rs` and of the
/// directories under `fuzz/regressions/`).
pub const TARGETS: &[&str] =
    &["kubernetes", "krake", "murano", "kubevela", "native", "pairs", "auto", "fast_yaml", "planner", "apply"];

/// Run target `target` on `data`. Panics when a property fails, or on an
/// unknown target.
pub fn run(target: &str, data: &[u8]) {
    match target {
        // Each dialect of the registry is a target of its name.
        _ if teardown::dialect::by_name(target).is_some() => dialect(Some(target), data),
        "auto" => dialect(None, data),
        "fast_yaml" => fast_yaml(data),
        "planner" => planner(data),
        "apply" => apply(data),
        _ => panic!("no fuzz target {target:?}"),
    }
}

/// How one in-process run of the CLI ended.
pub struct Outcome {
    pub args: Vec<String>,
    pub code: u8,
    pub stdout: Vec<u8>,
    /// Diagnostics, warnings and the error line (`teardown: error: …`), as
    /// `main` writes them.
    pub stderr: String,
}

impl Outcome {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The JSON document on stdout (`-o json`).
    fn json(&self) -> Json {
        match serde_json::from_slice(&self.stdout) {
            Ok(v) => v,
            Err(e) => panic!("{:?}: stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.args, self.stdout(), self.stderr),
        }
    }

    fn fail(&self, what: &str) -> ! {
        panic!("{:?} (exit {}): {what}\nstdout:\n{}\nstderr:\n{}", self.args, self.code, self.stdout(), self.stderr)
    }
}

/// `teardown ARGS…` with `stdin` as standard input, in process: what
/// `src/main.rs` does, with buffers for the three streams.
pub fn teardown(args: &[&str], stdin: &[u8]) -> Outcome {
    let mut argv: Vec<OsString> = vec!["teardown".into()];
    argv.extend(args.iter().map(OsString::from));
    let cli = Cli::parse_args(argv);
    let mut input = stdin;
    let mut stdout = Vec::new();
    let mut said = Vec::new();
    let env = Env {
        stdin: &mut input,
        stdout_is_terminal: false,
        stdin_is_terminal: false,
        progress: false,
        no_color: true,
        quiet: cli.quiet,
        stdout: &mut stdout,
        stderr: &mut said,
    };
    let code = match commands::run(cli, env) {
        Ok(status) => status.exit_code(),
        Err(e) if e.is_closed_pipe() => 0,
        Err(e) => {
            said.extend_from_slice(format!("teardown: error: {e}\n").as_bytes());
            e.exit_code()
        }
    };
    Outcome {
        args: args.iter().map(|a| a.to_string()).collect(),
        code,
        stdout,
        stderr: String::from_utf8_lossy(&said).into_owned(),
    }
}

/// The name findings and errors give standard input.
const STDIN: &str = "<stdin>";

/// The exit codes of README "Exit codes": 0, 1 and 2. 101 is a panic, which
/// the fuzzer sees as a crash before this is asked.
fn documented_exit(o: &Outcome) {
    if o.code > 2 {
        o.fail("exit code outside the documented 0, 1, 2");
    }
}

/// `check -o json`'s findings: each one points into the input, by file and
/// line. Returns the findings.
fn findings_name_input(o: &Outcome) -> Vec<Json> {
    let doc = o.json();
    let Some(findings) = doc["findings"].as_array() else { o.fail("no `findings` array") };
    for f in findings {
        if f["file"].as_str() != Some(STDIN) || f["line"].as_u64().is_none_or(|l| l == 0) {
            o.fail(&format!("a finding that does not name {STDIN} and a line: {f}"));
        }
    }
    findings.clone()
}

fn has_rule(findings: &[Json], rule: &str) -> bool {
    findings.iter().any(|f| f["rule"] == rule)
}

/// A plan (`plan -o json`, exit 0) that is well formed: steps numbered from
/// 1 without gaps, none empty; each object listed once among the steps and
/// `kept`, and neither deleted nor kept if orphaned (once for each owner);
/// every object of a step pointing into the input.
/// Returns each deleted object's step, by ref.
fn plan_well_formed(o: &Outcome) -> BTreeMap<String, u64> {
    let plan = o.json();
    let Some(steps) = plan["steps"].as_array() else { o.fail("no `steps` array") };
    let mut step_of = BTreeMap::new();
    for (i, s) in steps.iter().enumerate() {
        if s["step"].as_u64() != Some(i as u64 + 1) {
            o.fail(&format!("step {} is numbered {}", i + 1, s["step"]));
        }
        let Some(resources) = s["resources"].as_array().filter(|r| !r.is_empty()) else {
            o.fail(&format!("step {} is empty", i + 1));
        };
        for r in resources {
            let Some(reference) = r["ref"].as_str() else { o.fail(&format!("a resource without a ref: {r}")) };
            if r["file"].as_str() != Some(STDIN) {
                o.fail(&format!("{reference} does not name {STDIN}: {r}"));
            }
            if step_of.insert(reference.to_string(), i as u64 + 1).is_some() {
                o.fail(&format!("{reference} is in the plan twice"));
            }
        }
    }
    let mut seen: BTreeSet<String> = step_of.keys().cloned().collect();
    let Some(kept) = plan["kept"].as_array() else { o.fail("no `kept` array") };
    for r in kept {
        let Some(reference) = r["ref"].as_str() else { o.fail(&format!("a kept entry without a ref: {r}")) };
        if !seen.insert(reference.to_string()) {
            o.fail(&format!("{reference} is listed twice (deleted or kept)"));
        }
    }
    // An orphaned object has a row for each owner whose reference it loses.
    let Some(orphaned) = plan["orphaned"].as_array() else { o.fail("no `orphaned` array") };
    let mut rows = BTreeSet::new();
    for r in orphaned {
        let (Some(reference), Some(owner)) = (r["ref"].as_str(), r["owner"].as_str()) else {
            o.fail(&format!("an orphaned entry without a ref and an owner: {r}"))
        };
        if seen.contains(reference) {
            o.fail(&format!("{reference} is orphaned and deleted or kept"));
        }
        if !rows.insert((reference, owner)) {
            o.fail(&format!("{reference} is orphaned from {owner} twice"));
        }
    }
    step_of
}

/// The dialect targets: `check` and `plan --all` of the bytes, read with
/// `--dialect NAME` (or recognised, for `None`).
///
/// - no panic; exit codes 0, 1 or 2;
/// - every finding of `check` names `<stdin>` and a line; a `plan` that
///   fails says so naming `<stdin>` (the findings that stop it);
/// - the plan is well formed ([`plan_well_formed`]), and the same twice;
/// - `check` and `plan` agree: input that `check` finds usable (no TD001) is
///   not refused by `plan` as unusable (exit 2); input `check` passes (exit
///   0) is planned (exit 0).
pub fn dialect(name: Option<&str>, data: &[u8]) {
    let mut args: Vec<&str> = vec!["--isolated", "-o", "json"];
    if let Some(name) = name {
        args.extend(["--dialect", name]);
    }
    args.push("-");
    let check = teardown(&[&["check"], &args[..]].concat(), data);
    documented_exit(&check);
    let plan = teardown(&[&["plan", "--all"], &args[..]].concat(), data);
    documented_exit(&plan);
    // Input that holds no object is refused by both (exit 2), naming
    // standard input (issue 37).
    let empty = |o: &Outcome| o.code == 2 && o.stderr.contains("no object in standard input");
    if empty(&check) || empty(&plan) {
        if !(empty(&check) && empty(&plan)) {
            plan.fail(&format!("check and plan disagree on empty input:\n{}", check.stderr));
        }
        return;
    }
    let findings = findings_name_input(&check);
    if plan.code == 0 {
        plan_well_formed(&plan);
        let again = teardown(&[&["plan", "--all"], &args[..]].concat(), data);
        if again.stdout != plan.stdout || again.stderr != plan.stderr {
            plan.fail(&format!("a second run differs:\n{}\n{}", again.stdout(), again.stderr));
        }
    } else if !plan.stderr.contains(STDIN) {
        plan.fail(&format!("the error does not name {STDIN}"));
    }
    if plan.code == 2 && !has_rule(&findings, "TD001") {
        plan.fail(&format!("plan refuses input (exit 2) in which check finds nothing unusable:\n{}", check.stdout()));
    }
    if check.code == 0 && plan.code != 0 {
        plan.fail(&format!("plan fails on input check passes:\n{}", check.stdout()));
    }
}

// ---------------------------------------------------------------------------
// fast_yaml

use serde::de::IgnoredAny;
use teardown::dialect::kubernetes::RawObject;
use teardown::input::fast::{self, Doc};
use teardown::input::outline::{Value as Member, ValueOutline};
use teardown::input::{split, Node, Outline};

/// Where the fast path answers, its answer is serde_yaml's (the library's
/// serde path, `input::yaml::from_str`):
///
/// 1. for each YAML document of the bytes (and, for a block sequence, its
///    first entry), read as the Kubernetes wire struct, a value tree,
///    `IgnoredAny` and the outline type: the fast path answers only what
///    serde_yaml answers, and the same; its outline (top-level keys, what
///    each holds, and the same for the mappings they hold) is serde_yaml's
///    where both read one;
/// 2. the whole bytes through `check` and `plan --all` (dialects
///    recognised), with the fast path on and off in process: the same
///    output, or both fail (check: both with TD001; plan: the same exit
///    code).
pub fn fast_yaml(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        for range in split::yaml_documents(text) {
            let Some(start) = split::first_content(text, range.clone()) else { continue };
            let doc = &text[start..range.end];
            if doc.starts_with(['{', '[']) {
                continue; // read as JSON first
            }
            if let Some(fast) = Doc::document(doc) {
                agree::<RawObject>(doc, &fast, doc);
                agree::<IgnoredAny>(doc, &fast, doc);
                agree::<Node>(doc, &fast, doc);
                agree::<ValueOutline>(doc, &fast, doc);
                if let (Some(outline), Ok(read)) =
                    (fast.outline(), teardown::input::yaml::from_str::<ValueOutline>(doc))
                {
                    outline_agrees(doc, &outline, &read.top);
                    for m in outline.members.iter().filter(|m| m.value == Member::Map) {
                        let theirs = read.children.iter().find(|(k, _)| *k == m.key);
                        if let (Some(mine), Some((_, theirs))) = (fast.child_outline(m.at.clone()), theirs) {
                            outline_agrees(doc, &mine, theirs);
                        }
                    }
                }
            }
            if let Some(entry) = Doc::entry(doc) {
                if let Ok(f) = entry.parse::<RawObject>() {
                    match teardown::input::yaml::from_str::<Vec<RawObject>>(doc) {
                        Ok(s) if s.len() == 1 => {
                            assert_eq!(format!("{f:?}"), format!("{:?}", s[0]), "entry:\n{doc:?}")
                        }
                        other => panic!("fast path read the entry as {f:?}, serde_yaml as {other:?}:\n{doc:?}"),
                    }
                }
            }
        }
    }
    both_ways(data);
}

/// The fast path's answer for `T`, checked against serde_yaml's; returns
/// serde_yaml's value when the fast path answered.
fn agree<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str, fast: &Doc, slow: &str) -> Option<T> {
    let f = fast.parse::<T>().ok()?;
    match teardown::input::yaml::from_str::<T>(slow) {
        Ok(s) => {
            assert_eq!(
                format!("{f:?}"),
                format!("{s:?}"),
                "fast path and serde_yaml read {} differently:\n{text:?}",
                std::any::type_name::<T>()
            );
            Some(s)
        }
        Err(e) => panic!(
            "fast path read {} as {f:?} where serde_yaml fails ({}):\n{text:?}",
            std::any::type_name::<T>(),
            e.message
        ),
    }
}

/// The fast path's outline of a document (or of a mapping it holds) is
/// what serde_yaml reads there (`ValueOutline`, the outline the unit takes
/// when the fast path gives none): the shape, the keys in order, what each
/// holds (a block scalar, not decoded by the fast path, is a string).
fn outline_agrees(text: &str, fast: &Outline, read: &Outline) {
    assert_eq!(fast.shape, read.shape, "outline shape:\n{text:?}");
    assert!(fast.complete, "fast outline incomplete:\n{text:?}");
    let keys = |o: &Outline| o.members.iter().map(|m| m.key.to_string()).collect::<Vec<_>>();
    assert_eq!(keys(fast), keys(read), "outline keys:\n{text:?}");
    for (m, r) in fast.members.iter().zip(&read.members) {
        let ok = match (&m.value, &r.value) {
            (Member::Unknown, Member::Str(_)) => true,
            (a, b) => a == b,
        };
        assert!(ok, "outline of key {:?}: fast path {:?}, serde_yaml {:?}\n{text:?}", m.key, m.value, r.value);
    }
}

/// The fast path is a process-wide switch: one input at a time.
static FAST_SWITCH: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `check` and `plan --all` of `data`, with the fast path on, then off.
fn both_ways(data: &[u8]) {
    let _one = FAST_SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    let commands: [&[&str]; 2] =
        [&["check", "--isolated", "-o", "json", "-"], &["plan", "--isolated", "--all", "-o", "json", "-"]];
    for args in commands {
        let on = teardown(args, data);
        fast::force_disabled(true);
        let off = std::panic::catch_unwind(|| teardown(args, data));
        fast::force_disabled(false);
        let off = match off {
            Ok(off) => off,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        if on.code == off.code && on.stdout == off.stdout {
            continue;
        }
        let why = if args[0] == "check" {
            let (a, b) = (findings_name_input(&on), findings_name_input(&off));
            if has_rule(&a, "TD001") && has_rule(&b, "TD001") {
                continue; // both refuse some of it
            }
            "check differs with the fast path on (above) and off"
        } else {
            if on.code != 0 && on.code == off.code {
                continue; // both fail, alike
            }
            "plan differs with the fast path on (above) and off"
        };
        on.fail(&format!("{why}:\nexit {}\nstdout:\n{}\nstderr:\n{}", off.code, off.stdout(), off.stderr));
    }
}

// ---------------------------------------------------------------------------
// planner

/// The bytes, read as choices.
struct Choices<'a> {
    data: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    /// The next byte; 0 once the bytes run out.
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// A number in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n
    }
}

/// A graph made from the bytes, in the native dialect.
#[derive(Debug)]
pub struct Graph {
    pub ids: Vec<String>,
    /// `owners[i]`: the ids object `i` names as its owners (perhaps one the
    /// graph lacks, or itself).
    pub owners: Vec<Vec<String>>,
    /// `after[i]`: the ids object `i` is destroyed after.
    pub after: Vec<Vec<String>>,
}

/// What is planned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    All,
    /// `--delete` of one object, its dependents going by the cascade.
    Delete(usize),
}

#[derive(Debug, Clone, Copy)]
struct Options {
    mode: Mode,
    allow_cycles: bool,
    /// `--multi-owner any`.
    any_owner: bool,
    /// `--cascade orphan`.
    orphan: bool,
    json: bool,
}

const MISSING: &str = "gone";

fn graph_of(c: &mut Choices) -> Graph {
    let n = 1 + c.below(10);
    let ids: Vec<String> = (0..n).map(|i| format!("o{i}")).collect();
    let names = |c: &mut Choices| -> Vec<String> {
        // A few references, each to an object of the graph, or (rarely) to
        // one it lacks.
        let k = c.below(4).saturating_sub(1) + usize::from(c.byte() & 0xc0 == 0xc0);
        (0..k)
            .map(|_| {
                let t = c.below(n + 1);
                if t == n {
                    MISSING.to_string()
                } else {
                    ids[t].clone()
                }
            })
            .collect()
    };
    let mut owners = Vec::new();
    let mut after = Vec::new();
    for _ in 0..n {
        owners.push(names(c));
        after.push(names(c));
    }
    Graph { ids, owners, after }
}

impl Graph {
    fn yaml(&self) -> String {
        let mut s = String::from("resources:\n");
        for (i, id) in self.ids.iter().enumerate() {
            s += &format!("- id: {id}\n");
            if !self.owners[i].is_empty() {
                s += &format!("  owners: [{}]\n", self.owners[i].join(", "));
            }
            if !self.after[i].is_empty() {
                s += &format!("  destroyAfter: [{}]\n", self.after[i].join(", "));
            }
        }
        s
    }

    fn json(&self) -> String {
        let resources: Vec<Json> = self
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| serde_json::json!({"id": id, "owners": self.owners[i], "destroyAfter": self.after[i]}))
            .collect();
        serde_json::json!({ "resources": resources }).to_string()
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.ids.iter().position(|i| i == id)
    }

    /// Ownership edges `(owner, dependent)` between objects of the graph
    /// (each pair once).
    fn owns(&self) -> BTreeSet<(usize, usize)> {
        self.edges(&self.owners).into_iter().map(|(d, o)| (o, d)).collect()
    }

    /// Destruction dependencies `(a, b)`: `a` is destroyed after `b`.
    fn afters(&self) -> BTreeSet<(usize, usize)> {
        self.edges(&self.after)
    }

    /// `(i, j)` for each object `i` and each id in `lists[i]` naming object
    /// `j` of the graph (each pair once).
    fn edges(&self, lists: &[Vec<String>]) -> BTreeSet<(usize, usize)> {
        let mut out = BTreeSet::new();
        for (i, list) in lists.iter().enumerate() {
            for j in list.iter().filter_map(|id| self.index(id)) {
                out.insert((i, j));
            }
        }
        out
    }
}

/// Strongly connected components of a graph on `0..n` (Tarjan, iterative
/// enough for the few dozen nodes made here): a component number per node.
fn components(n: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in edges {
        adj[a].push(b);
    }
    // Reachability by depth-first search from each node; n is small.
    let mut reach = vec![vec![false; n]; n];
    for (s, row) in reach.iter_mut().enumerate() {
        let mut stack = vec![s];
        row[s] = true;
        while let Some(v) = stack.pop() {
            for &w in &adj[v] {
                if !row[w] {
                    row[w] = true;
                    stack.push(w);
                }
            }
        }
    }
    let mut comp = vec![usize::MAX; n];
    let mut next = 0;
    for a in 0..n {
        if comp[a] == usize::MAX {
            for b in a..n {
                if reach[a][b] && reach[b][a] {
                    comp[b] = next;
                }
            }
            next += 1;
        }
    }
    comp
}

/// Is there a cycle through node `v` (a component of two or more, or a
/// self-loop)?
fn on_cycle(v: usize, comp: &[usize], edges: &[(usize, usize)]) -> bool {
    comp.iter().filter(|&&c| c == comp[v]).count() > 1 || edges.contains(&(v, v))
}

/// The planner target: a random graph of up to ten objects (owners and
/// destruction dependencies, some to objects it lacks, cycles allowed),
/// written in the native dialect (YAML or JSON), planned with `--all` or
/// `--delete` of one object, with or without `--allow-cycles`,
/// `--multi-owner any`, `--cascade orphan`. Then, against a model built here
/// from README "teardown plan" (CONTRACT §4–5):
///
/// - the plan deletes exactly the objects it should: everything (`--all`);
///   the target and, by the cascade, each dependent whose owners are all
///   deleted (`any`: one of them); with `--cascade orphan` the target alone,
///   its dependents orphaned; what the cascade reaches and does not delete
///   is kept; each object deleted, kept or orphaned once;
/// - an ownership cycle among deleted objects is an error (exit 1, naming
///   `<stdin>`) unless `--allow-cycles`; nothing else fails;
/// - every ordering constraint holds: an owner after what it owns, an
///   object after what it is destroyed after — each transitive on its own,
///   also through objects not deleted — except the ownership edges the plan
///   lists as relaxed, each of which lies on a cycle with a destruction
///   dependency; objects in one cycle share a step;
/// - steps are minimal: an object's step is 1 + the largest step of what
///   must go before it (1 when nothing must).
pub fn planner(data: &[u8]) {
    let mut c = Choices { data, at: 0 };
    let graph = graph_of(&mut c);
    let flags = c.byte();
    let n = graph.ids.len();
    let options = Options {
        mode: if flags & 1 == 0 { Mode::All } else { Mode::Delete(c.below(n)) },
        allow_cycles: flags & 2 != 0,
        any_owner: flags & 4 != 0,
        orphan: flags & 8 != 0 && flags & 1 != 0,
        json: flags & 16 != 0,
    };
    let input = if options.json { graph.json() } else { graph.yaml() };
    let mut args = vec!["plan", "--isolated", "--dialect", "native", "-o", "json"];
    match options.mode {
        Mode::All => args.push("--all"),
        Mode::Delete(t) => args.extend(["--delete", &graph.ids[t]]),
    }
    if options.allow_cycles {
        args.push("--allow-cycles");
    }
    if options.any_owner {
        args.extend(["--multi-owner", "any"]);
    }
    if options.orphan {
        args.extend(["--cascade", "orphan"]);
    }
    args.push("-");
    let o = teardown(&args, input.as_bytes());
    let context = format!("{graph:?}\n{options:?}\ninput:\n{input}");
    let fail = |what: &str| -> ! { o.fail(&format!("{what}\n{context}")) };

    let owns = graph.owns();
    let afters = graph.afters();

    // What is deleted, kept, orphaned.
    let mut deleted = vec![false; n];
    let mut kept = vec![false; n];
    let mut orphaned = vec![false; n];
    match options.mode {
        Mode::All => deleted = vec![true; n],
        Mode::Delete(t) => {
            deleted[t] = true;
            if options.orphan {
                for &(o, d) in &owns {
                    if o == t && d != t {
                        orphaned[d] = true;
                    }
                }
            } else {
                // The least fixed point of the cascade.
                loop {
                    let mut changed = false;
                    for d in 0..n {
                        if deleted[d] {
                            continue;
                        }
                        let mine: Vec<usize> = owns.iter().filter(|e| e.1 == d).map(|e| e.0).collect();
                        let goes = if options.any_owner {
                            mine.iter().any(|&o| deleted[o])
                        } else {
                            !mine.is_empty() && mine.iter().all(|&o| deleted[o])
                        };
                        if goes {
                            deleted[d] = true;
                            changed = true;
                        }
                    }
                    if !changed {
                        break;
                    }
                }
                for &(o, d) in &owns {
                    if deleted[o] && !deleted[d] {
                        kept[d] = true;
                    }
                }
            }
        }
    }

    // The layering graph (README "In which order"): a node per deleted
    // object; an object not deleted has an ownership copy (n + i) and a
    // destruction copy (2n + i), so that a chain mixing the two kinds
    // through it constrains nothing. Edge (a, b): a goes after b.
    let own_node = |i: usize| if deleted[i] { i } else { n + i };
    let dep_node = |i: usize| if deleted[i] { i } else { 2 * n + i };
    let soft: Vec<(usize, usize)> = owns.iter().map(|&(o, d)| (own_node(o), own_node(d))).collect();
    let hard: Vec<(usize, usize)> = afters.iter().map(|&(a, b)| (dep_node(a), dep_node(b))).collect();
    let nodes = 3 * n;

    // Ownership cycles touching the deleted objects.
    let soft_comp = components(nodes, &soft);
    let owner_cycle = (0..n).any(|i| deleted[i] && on_cycle(i, &soft_comp, &soft));
    if owner_cycle && !options.allow_cycles {
        if o.code != 1 || !o.stderr.contains("ownership cycle") || !o.stderr.contains(STDIN) {
            fail("an ownership cycle among deleted objects: exit 1 naming the cycle and <stdin> expected");
        }
        return;
    }
    if o.code != 0 {
        fail("the plan failed");
    }
    let step_of = plan_well_formed(&o);
    let plan = o.json();
    let refs_in = |list: &str| -> BTreeSet<String> {
        plan[list].as_array().into_iter().flatten().filter_map(|r| r["ref"].as_str().map(String::from)).collect()
    };
    let ids_where =
        |flags: &[bool]| -> BTreeSet<String> { (0..n).filter(|&i| flags[i]).map(|i| graph.ids[i].clone()).collect() };
    let planned: BTreeSet<String> = step_of.keys().cloned().collect();
    if planned != ids_where(&deleted) {
        fail(&format!("deletes {planned:?}, expected {:?}", ids_where(&deleted)));
    }
    if refs_in("kept") != ids_where(&kept) {
        fail(&format!("keeps {:?}, expected {:?}", refs_in("kept"), ids_where(&kept)));
    }
    if refs_in("orphaned") != ids_where(&orphaned) {
        fail(&format!("orphans {:?}, expected {:?}", refs_in("orphaned"), ids_where(&orphaned)));
    }

    // Relaxed ownership edges: real ones, each on a cycle with a
    // destruction dependency (in the same component of the whole graph, not
    // of ownership alone).
    let all: Vec<(usize, usize)> = soft.iter().chain(&hard).copied().collect();
    let all_comp = components(nodes, &all);
    let mut relaxed = BTreeSet::new();
    for r in plan["relaxed"].as_array().into_iter().flatten() {
        let (Some(owner), Some(dependent)) =
            (r["owner"].as_str().and_then(|x| graph.index(x)), r["dependent"].as_str().and_then(|x| graph.index(x)))
        else {
            fail(&format!("relaxed edge of unknown objects: {r}"));
        };
        if !owns.contains(&(owner, dependent)) {
            fail(&format!("relaxed edge that is not an ownership edge: {r}"));
        }
        let (a, b) = (own_node(owner), own_node(dependent));
        if all_comp[a] != all_comp[b] || soft_comp[a] == soft_comp[b] {
            fail(&format!("relaxed edge on no cycle with a destruction dependency: {r}"));
        }
        relaxed.insert((a, b));
    }

    // What remains: ownership (less what was relaxed) and destruction
    // dependencies. Ownership cycles (allowed) are groups, then
    // destruction cycles between groups; no other cycle may remain.
    let kept_soft: Vec<(usize, usize)> = soft.iter().copied().filter(|e| !relaxed.contains(e)).collect();
    let g1 = components(nodes, &kept_soft);
    let g1_edges: Vec<(usize, usize)> = hard.iter().map(|&(a, b)| (g1[a], g1[b])).collect();
    let g2 = components(nodes, &g1_edges);
    let group = |v: usize| g2[g1[v]];
    let groups = nodes; // group numbers are below this
    let dag: BTreeSet<(usize, usize)> =
        kept_soft.iter().chain(&hard).map(|&(a, b)| (group(a), group(b))).filter(|(a, b)| a != b).collect();
    let dag: Vec<(usize, usize)> = dag.into_iter().collect();
    let dag_comp = components(groups, &dag);
    if (0..groups).any(|g| dag_comp.iter().filter(|&&c| c == dag_comp[g]).count() > 1) {
        fail(&format!("a cycle of ownership and destruction dependencies remains (relaxed: {relaxed:?})"));
    }
    // Longest path: a group's step is its weight (1 if it holds a deleted
    // object) plus the largest step of the groups it goes after.
    let mut weight = vec![0u64; groups];
    for i in 0..n {
        if deleted[i] {
            weight[group(i)] = 1;
        }
    }
    let mut step = vec![None::<u64>; groups];
    fn depth(g: usize, dag: &[(usize, usize)], weight: &[u64], step: &mut Vec<Option<u64>>) -> u64 {
        if let Some(s) = step[g] {
            return s;
        }
        let below = dag.iter().filter(|e| e.0 == g).map(|e| depth(e.1, dag, weight, step)).max().unwrap_or(0);
        let s = weight[g] + below;
        step[g] = Some(s);
        s
    }
    for i in 0..n {
        if deleted[i] {
            let want = depth(group(i), &dag, &weight, &mut step);
            let got = step_of[&graph.ids[i]];
            if got != want {
                fail(&format!(
                    "{} is in step {got}; by its constraints (relaxed: {relaxed:?}) it belongs in step {want}",
                    graph.ids[i]
                ));
            }
        }
    }
}

/// The `apply` target's snapshot (`fuzz/apply-snapshot/`), by path in the
/// scratch directory: the plan's directory is `dir/` (the plan file is
/// `dir/plan.json`), and `outside.yaml` is beside it. `dir/link.yaml`
/// is a symbolic link to `../outside.yaml`.
const APPLY_FILES: &[(&str, &str)] = &[
    ("dir/manifests/web.yaml", include_str!("apply-snapshot/manifests/web.yaml")),
    ("dir/manifests/pods.json", include_str!("apply-snapshot/manifests/pods.json")),
    ("dir/other.yaml", include_str!("apply-snapshot/other.yaml")),
    ("outside.yaml", include_str!("apply-snapshot/outside.yaml")),
];

/// Every file under `root` by path: its bytes, or where a link points.
fn tree(root: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, out);
            } else if meta.file_type().is_symlink() {
                let to = std::fs::read_link(&path).unwrap();
                out.insert(name, format!("-> {}", to.display()).into_bytes());
            } else {
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The objects `plan --all` finds in `files` (absolute paths), by ref.
fn objects_in(files: &[String]) -> BTreeSet<String> {
    let mut args = vec!["plan", "--isolated", "--all", "--allow-cycles", "-o", "json"];
    args.extend(files.iter().map(String::as_str));
    let o = teardown(&args, b"");
    if o.code == 2 && o.stderr.contains("no object in") {
        return BTreeSet::new(); // nothing left: empty input is refused (issue 37)
    }
    if o.code != 0 {
        o.fail("the snapshot's files no longer plan");
    }
    plan_well_formed_refs(&o.json())
}

fn plan_well_formed_refs(plan: &Json) -> BTreeSet<String> {
    plan["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["resources"].as_array().into_iter().flatten())
        .filter_map(|r| r["ref"].as_str().map(String::from))
        .collect()
}

/// `apply`: the bytes are a plan file, applied in process to the snapshot
/// of [`APPLY_FILES`] in a scratch directory. Seeds: plans teardown makes
/// of that snapshot (`cd dir && teardown plan --isolated … manifests -o
/// json`), and hostile edits of them (`fuzz/regressions/apply/`).
///
/// - no panic; exit 0, 1 or 2;
/// - all or nothing: a refused plan (exit 1 or 2) changes no file;
/// - never a write outside the inputs: an applied plan (exit 0) changes
///   only files its `inputs` name beneath its directory, each with a
///   backup holding its original (`FILE.bak`), and leaves no temporary
///   file; `outside.yaml` never changes;
/// - what it applies is what it says: the objects left are those of the
///   snapshot less those the plan deletes.
pub fn apply(data: &[u8]) {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let root = std::env::temp_dir().join(format!("teardown-fuzz-apply-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    for (path, text) in APPLY_FILES {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    std::os::unix::fs::symlink("../outside.yaml", root.join("dir/link.yaml")).unwrap();
    let plan_path = root.join("dir/plan.json");
    std::fs::write(&plan_path, data).unwrap();
    let before = tree(&root);
    let o = teardown(&["apply", &plan_path.to_string_lossy()], b"");
    documented_exit(&o);
    let after = tree(&root);
    let changed: BTreeSet<&String> =
        before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
    let context = String::from_utf8_lossy(data).into_owned();
    let fail = |what: &str| -> ! { o.fail(&format!("{what}\nplan file:\n{context}")) };
    if o.code != 0 {
        if !changed.is_empty() {
            fail(&format!("a refused plan changed {changed:?}"));
        }
        let _ = std::fs::remove_dir_all(&root);
        return;
    }
    // Applied: the plan file is one teardown made, so it parses.
    let plan: Json = serde_json::from_slice(data).or_else(|_| serde_yaml::from_slice(data)).unwrap();
    let dir = root.join("dir");
    let inputs: BTreeSet<String> = plan["inputs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| i["path"].as_str())
        .map(|p| {
            let p = dir.join(p);
            p.strip_prefix(&root).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
        })
        .collect();
    for path in &changed {
        let input = inputs.contains(*path);
        let backup = path.strip_suffix(".bak").is_some_and(|i| {
            inputs.contains(i) && changed.contains(&i.to_string()) && after.get(*path) == before.get(i)
        });
        if !input && !backup {
            fail(&format!("apply changed {path}, which is neither an input of the plan nor its backup"));
        }
        if input && after.get(&format!("{path}.bak")) != before.get(*path) {
            fail(&format!("{path} changed without a backup holding its original"));
        }
    }
    if after.keys().any(|k| k.contains(".teardown-")) {
        fail(&format!("temporary files left: {:?}", after.keys().collect::<Vec<_>>()));
    }
    // What is left: the snapshot less what the plan deletes.
    let files = |t: &BTreeMap<String, Vec<u8>>, bak: bool| -> Vec<String> {
        APPLY_FILES
            .iter()
            .filter(|(p, _)| p.starts_with("dir/"))
            .map(
                |(p, _)| {
                    if bak && after.contains_key(&format!("{p}.bak")) {
                        format!("{p}.bak")
                    } else {
                        p.to_string()
                    }
                },
            )
            .filter(|p| t.contains_key(p))
            .map(|p| root.join(p).to_string_lossy().into_owned())
            .collect()
    };
    let was = objects_in(&files(&after, true));
    let left = objects_in(&files(&after, false));
    let deleted = plan_well_formed_refs(&plan);
    let expected: BTreeSet<String> = was.difference(&deleted).cloned().collect();
    if left != expected {
        fail(&format!("left {left:?}; the snapshot less what the plan deletes is {expected:?}"));
    }
    let _ = std::fs::remove_dir_all(&root);
}
