//! Findings: what `check` reports, and what loading reports about bad input.
//!
//! A finding is data. It knows its rule, severity, message and the places in
//! the input it is about; the renderers in `render/` turn it into miette
//! diagnostics, JSON, SARIF or GitHub annotations.

use crate::span::Span;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// What teardown made of the input, said so that it can be checked:
    /// never an error, even under `--deny warnings`.
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The stable rule ids of CONTRACT §6. New rules take the next number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    Td001,
    Td002,
    Td003,
    Td004,
    Td005,
    Td006,
    Td007,
    Td008,
    Td009,
    Td010,
    Td011,
    Td012,
    Td013,
    Td014,
    Td015,
    Td016,
    Td017,
    Td018,
}

impl Rule {
    pub const ALL: [Rule; 18] = [
        Rule::Td001,
        Rule::Td002,
        Rule::Td003,
        Rule::Td004,
        Rule::Td005,
        Rule::Td006,
        Rule::Td007,
        Rule::Td008,
        Rule::Td009,
        Rule::Td010,
        Rule::Td011,
        Rule::Td012,
        Rule::Td013,
        Rule::Td014,
        Rule::Td015,
        Rule::Td016,
        Rule::Td017,
        Rule::Td018,
    ];

    pub fn id(self) -> &'static str {
        self.info().0
    }
    pub fn name(self) -> &'static str {
        self.info().1
    }
    pub fn default_severity(self) -> Severity {
        self.info().2
    }
    pub fn description(self) -> &'static str {
        self.info().3
    }

    fn info(self) -> (&'static str, &'static str, Severity, &'static str) {
        use Severity::*;
        match self {
            Rule::Td001 => ("TD001", "unusable-input", Error, "Parse error or unusable object."),
            Rule::Td002 => (
                "TD002",
                "duplicate-object",
                Error,
                "Two objects with the same kind, namespace and name, or the same uid.",
            ),
            Rule::Td003 => {
                ("TD003", "owner-not-found", Warning, "An owner reference names an object that is not in the snapshot.")
            }
            Rule::Td004 => (
                "TD004",
                "owner-uid-mismatch",
                Error,
                "The owner exists by kind and name, but its uid differs from the reference.",
            ),
            Rule::Td005 => (
                "TD005",
                "cross-namespace-owner",
                Error,
                "A namespaced object is owned by an object in another namespace.",
            ),
            Rule::Td006 => {
                ("TD006", "cluster-scoped-dependent", Error, "A cluster-scoped object is owned by a namespaced object.")
            }
            Rule::Td007 => ("TD007", "ownership-cycle", Error, "Objects own each other in a cycle."),
            Rule::Td008 => (
                "TD008",
                "destruction-cycle",
                Warning,
                "Destruction dependencies form a cycle; the objects are destroyed in one step.",
            ),
            Rule::Td009 => {
                ("TD009", "multiple-controllers", Error, "More than one owner reference has `controller: true`.")
            }
            Rule::Td010 => (
                "TD010",
                "dependency-not-found",
                Error,
                "A destruction dependency names an object that is not in the snapshot.",
            ),
            Rule::Td011 => (
                "TD011",
                "unknown-finalizer",
                Warning,
                "A finalizer that no known controller removes; deletion waits for it.",
            ),
            Rule::Td012 => (
                "TD012",
                "ordering-conflict",
                Warning,
                "Ownership and destruction dependencies contradict; the ownership edge is relaxed.",
            ),
            Rule::Td013 => ("TD013", "empty-input", Warning, "An input file holds no objects."),
            Rule::Td014 => {
                ("TD014", "kind-from-shape", Note, "An object that names no kind was read as the kind its shape shows.")
            }
            Rule::Td015 => (
                "TD015",
                "not-a-file",
                Note,
                "A FIFO, socket, device or symbolic link in an input directory was not read.",
            ),
            Rule::Td016 => (
                "TD016",
                "tool-order",
                Warning,
                "Another tool's deletion order destroys an object before one that still needs it (plan --as).",
            ),
            Rule::Td017 => (
                "TD017",
                "unresolvable-owner",
                Error,
                "An owner reference the garbage collector cannot resolve (a kind its apiVersion does not serve, a version Kubernetes no longer serves, a type nothing defines): it never collects the object.",
            ),
            Rule::Td018 => (
                "TD018",
                "not-an-object",
                Note,
                "A file or document that is no object of any dialect (a Helm chart's metadata or values, a kustomization, a Kptfile, local configuration, an unrendered template) was not read.",
            ),
        }
    }
}

impl Rule {
    /// The rule a word names: its id (`TD003`, any case) or its name
    /// (`owner-not-found`).
    pub fn named(word: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id().eq_ignore_ascii_case(word) || r.name() == word)
    }

    fn bit(self) -> u64 {
        1 << (self as u32)
    }
}

/// A set of rules: which findings are reported (`--select`, `--ignore`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet(u64);

impl RuleSet {
    pub const ALL: RuleSet = RuleSet((1 << Rule::ALL.len()) - 1);
    pub const NONE: RuleSet = RuleSet(0);

    pub fn contains(self, rule: Rule) -> bool {
        self.0 & rule.bit() != 0
    }
    pub fn with(self, rule: Rule) -> RuleSet {
        RuleSet(self.0 | rule.bit())
    }
    pub fn without(self, other: RuleSet) -> RuleSet {
        RuleSet(self.0 & !other.0)
    }
    /// Is this finding reported? Input that could not be read or parsed
    /// always is: it is not a rule's verdict but a run that cannot be
    /// complete (as ruff reports syntax errors whatever is selected).
    /// Is this finding reported? An input that could not be read at all
    /// always is; a document that could not be parsed or used (TD001) as
    /// `--select`/`--ignore` say, like every other finding (issue 38).
    pub fn reports(self, finding: &Finding) -> bool {
        (finding.fatal && finding.primary.is_none()) || self.contains(finding.rule)
    }
}

impl Default for RuleSet {
    fn default() -> RuleSet {
        RuleSet::ALL
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// A place in the input with a short text for it.
#[derive(Clone, Debug)]
pub struct Label {
    pub span: Span,
    pub text: String,
}

impl Label {
    pub fn new(span: Span, text: impl Into<String>) -> Label {
        Label { span, text: text.into() }
    }
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub rule: Rule,
    pub severity: Severity,
    pub message: String,
    /// Where the finding points; `None` only for inputs that could not be read.
    pub primary: Option<Label>,
    /// Further places ("defined here / again here", the owner of a dependent).
    pub secondary: Vec<Label>,
    /// The objects involved, as references (`Kind[.group]/[ns/]name` or an id).
    pub refs: Vec<String>,
    pub help: Option<String>,
    /// Set for input that could not be read or parsed: the run exits with 2.
    pub fatal: bool,
    /// For unreadable inputs (no span): the file name.
    pub file: Option<String>,
}

impl Finding {
    pub fn new(rule: Rule, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            severity: rule.default_severity(),
            message: message.into(),
            primary: None,
            secondary: Vec::new(),
            refs: Vec::new(),
            help: None,
            fatal: false,
            file: None,
        }
    }
    pub fn at(mut self, span: Span, text: impl Into<String>) -> Finding {
        self.primary = Some(Label::new(span, text));
        self
    }
    pub fn also(mut self, span: Span, text: impl Into<String>) -> Finding {
        self.secondary.push(Label::new(span, text));
        self
    }
    pub fn refs(mut self, refs: impl IntoIterator<Item = String>) -> Finding {
        self.refs.extend(refs);
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Finding {
        self.help = Some(help.into());
        self
    }
    pub fn fatal(mut self) -> Finding {
        self.fatal = true;
        self
    }
    pub fn in_file(mut self, name: impl Into<String>) -> Finding {
        self.file = Some(name.into());
        self
    }

    /// Sort key: file, position, rule, message — the same input always gives
    /// the same order.
    pub fn sort_key(&self) -> (u32, usize, Rule, &str) {
        match &self.primary {
            Some(l) => (l.span.file.0, l.span.start, self.rule, &self.message),
            None => (u32::MAX, 0, self.rule, &self.message),
        }
    }
}

/// How severities are adjusted by flags (`--closed-world`, `--deny warnings`).
#[derive(Clone, Copy, Debug, Default)]
pub struct SeverityPolicy {
    pub closed_world: bool,
    pub deny_warnings: bool,
}

impl SeverityPolicy {
    pub fn apply(&self, finding: &mut Finding) {
        finding.severity = self.severity(finding.rule, finding.severity);
    }

    /// The severity a finding of `rule` at `severity` gets.
    pub fn severity(&self, rule: Rule, severity: Severity) -> Severity {
        match severity {
            _ if self.closed_world && rule == Rule::Td003 => Severity::Error,
            Severity::Warning if self.deny_warnings => Severity::Error,
            other => other,
        }
    }
}

/// At most this many findings of one rule are listed, in every format; the
/// others are counted (the summary, the exit code and `--statistics` count
/// them all) and said as one line. Ten million unusable documents would
/// otherwise take gigabytes to hold and minutes to print.
pub const LISTED_PER_RULE: usize = 1000;

/// What is kept of a finding that is not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Unlisted {
    pub rule: Rule,
    pub severity: Severity,
    pub fatal: bool,
    /// It has a place in the input (an input not read has none).
    pub located: bool,
}

impl Unlisted {
    pub fn of(f: &Finding) -> Unlisted {
        Unlisted { rule: f.rule, severity: f.severity, fatal: f.fatal, located: f.primary.is_some() }
    }
}

/// The findings not listed (beyond [`LISTED_PER_RULE`] of a rule), counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Omitted(pub std::collections::BTreeMap<Unlisted, usize>);

impl Omitted {
    pub fn count(&mut self, f: &Finding) {
        *self.0.entry(Unlisted::of(f)).or_default() += 1;
    }

    pub fn merge(&mut self, other: &Omitted) {
        for (k, n) in &other.0 {
            *self.0.entry(*k).or_default() += n;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many of them `which` counts.
    pub fn count_of(&self, which: impl Fn(&Unlisted) -> bool) -> usize {
        self.0.iter().filter(|(k, _)| which(k)).map(|(_, n)| n).sum()
    }

    /// Only those `keep` keeps.
    pub fn retain(&mut self, keep: impl Fn(&Unlisted) -> bool) {
        self.0.retain(|k, _| keep(k));
    }

    /// Their severities as `policy` makes them.
    pub fn apply(&mut self, policy: &SeverityPolicy) {
        let old = std::mem::take(&mut self.0);
        for (mut k, n) in old {
            k.severity = policy.severity(k.rule, k.severity);
            *self.0.entry(k).or_default() += n;
        }
    }

    /// By rule and severity, in rule order: how many are not listed.
    pub fn groups(&self) -> Vec<(Rule, Severity, usize)> {
        let mut out: Vec<(Rule, Severity, usize)> = Vec::new();
        for (k, n) in &self.0 {
            match out.iter_mut().find(|(r, s, _)| *r == k.rule && *s == k.severity) {
                Some((_, _, total)) => *total += n,
                None => out.push((k.rule, k.severity, *n)),
            }
        }
        out
    }

    /// By rule, in rule order: how many are not listed.
    pub fn by_rule(&self) -> Vec<(Rule, usize)> {
        let mut by_rule: Vec<(Rule, usize)> = Vec::new();
        for (rule, _, n) in self.groups() {
            match by_rule.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, total)) => *total += n,
                None => by_rule.push((rule, n)),
            }
        }
        by_rule
    }

    /// One line for each rule with findings not listed.
    pub fn lines(&self) -> Vec<String> {
        self.by_rule().into_iter().map(|(rule, n)| Omitted::line(rule, n)).collect()
    }

    /// `12 more TD001 unusable-input findings are not listed (…)`.
    pub fn line(rule: Rule, n: usize) -> String {
        format!(
            "{n} more {} {} {} not listed (at most {LISTED_PER_RULE} findings of a rule are)",
            rule.id(),
            rule.name(),
            if n == 1 { "finding is" } else { "findings are" }
        )
    }
}

/// Keep, of `findings` (in their order), the first [`LISTED_PER_RULE`] of
/// each rule, and count the others into `omitted`. `at` are places in
/// `findings` (ascending), each moved to where it is once they are gone.
pub fn cap(findings: &mut Vec<Finding>, omitted: &mut Omitted, at: &mut [usize]) {
    let mut listed = [0usize; Rule::ALL.len()];
    let mut kept = Vec::with_capacity(findings.len().min(LISTED_PER_RULE * 4));
    let mut places = at.iter_mut().peekable();
    for (i, f) in std::mem::take(findings).into_iter().enumerate() {
        while let Some(p) = places.next_if(|p| **p <= i) {
            *p = kept.len();
        }
        match listed.get_mut(f.rule as usize) {
            Some(n) if *n < LISTED_PER_RULE => {
                *n += 1;
                kept.push(f);
            }
            _ => omitted.count(&f),
        }
    }
    for p in places {
        *p = kept.len();
    }
    *findings = kept;
}

/// [`cap`], when `findings` may hold more than it keeps: cheap to call
/// after each of many additions.
pub fn cap_often(findings: &mut Vec<Finding>, omitted: &mut Omitted, at: &mut [usize]) {
    if findings.len() >= 2 * LISTED_PER_RULE * Rule::ALL.len() {
        cap(findings, omitted, at);
    }
}

/// A value from the input as a message quotes it: whole when it is short,
/// else its start and how long it is (a 100 KB name must not make a
/// 100 KB error message).
pub fn quoted(value: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 64;
    if value.len() <= SHOWN {
        return value.into();
    }
    let mut end = SHOWN;
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", value.get(..end).unwrap_or_default(), value.len()).into()
}
