//! What the commands share: the environment a run sees, how it ends,
//! how a command speaks, and loading input that must be usable.

use crate::analysis::check as checks;
use crate::error::Error;
use crate::findings::{Finding, Omitted, Rule, RuleSet};
use crate::input::Limits;
use crate::load::{self, LoadOptions, Snapshot};
use crate::render::diagnostics::Style;
use std::io::{Read, Write};
use std::path::PathBuf;

/// The environment a run sees, so that tests can pin it.
pub struct Env<'a> {
    pub stdin: &'a mut dyn Read,
    /// Where results go, as they are made (a million-object plan is never
    /// held in memory whole).
    pub stdout: &'a mut dyn Write,
    /// What is said after the output (warnings, the findings that stop a
    /// plan, the summary line): written once the output is.
    pub stderr: &'a mut Vec<u8>,
    pub stdout_is_terminal: bool,
    /// Standard input is a terminal: a command given no INPUT would wait
    /// for a snapshot to be typed, so it says what it needs instead.
    pub stdin_is_terminal: bool,
    /// Progress bars for large inputs (stderr is a terminal).
    pub progress: bool,
    pub no_color: bool,
    /// `-q`: nothing on stderr but errors.
    pub quiet: bool,
}

/// How a run that made its output ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Success,
    /// `check` found errors (exit 1).
    Findings,
    /// `check` could not read some input (exit 2); what it could read is reported.
    InputFailed,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        self.exit().code()
    }

    pub fn exit(self) -> crate::exit::Exit {
        match self {
            Status::Success => crate::exit::Exit::Success,
            Status::Findings => crate::exit::Exit::Refused,
            Status::InputFailed => crate::exit::Exit::Unusable,
        }
    }
}

/// How a command speaks: colors, progress bars, which findings it says
/// (`--select`, `--ignore`) and whether it says anything but errors (`-q`).
#[derive(Clone, Copy, Debug)]
pub(super) struct Voice {
    pub style: Style,
    pub progress: bool,
    pub rules: RuleSet,
    pub quiet: bool,
}

/// What loading needs to know.
pub(super) struct Loading<'a> {
    pub(super) dialect: Option<String>,
    /// `--skip-invalid`: go on without documents that cannot be used.
    pub(super) skip_invalid: bool,
    /// What is not made when input cannot be used: "plan", "graph".
    pub(super) what: &'static str,
    /// Plan files record each input's sha256.
    pub(super) digests: bool,
    /// The command's own result carries what loading found (a plan's
    /// warnings do): it is said on stderr only when it stops the command.
    pub(super) carried: bool,
    pub(super) style: Style,
    pub(super) progress: bool,
    pub(super) paths: &'a [PathBuf],
    /// The rules whose findings are said (`--select`, `--ignore`).
    pub(super) rules: RuleSet,
    /// `-q`: say only what stops the command.
    pub(super) quiet: bool,
    /// `--max-file-size`, `--max-object-size`.
    pub(super) limits: Limits,
    /// Reads the inputs instead of `load::load` (`apply`).
    pub(super) read: Option<Reader<'a>>,
    /// The inputs may hold no object at all (`--prune NEW`, `reconcile
    /// --desired`); the snapshot a command reads may not (exit 2).
    pub(super) may_be_empty: bool,
}

impl<'a> Loading<'a> {
    /// Reading for a command whose output records no digests and carries
    /// nothing of what loading found (`graph`, `simulate`).
    pub(super) fn plain(
        dialect: Option<String>,
        skip_invalid: bool,
        what: &'static str,
        style: Style,
        progress: bool,
        paths: &'a [PathBuf],
    ) -> Loading<'a> {
        Loading {
            dialect,
            skip_invalid,
            what,
            digests: false,
            carried: false,
            style,
            progress,
            paths,
            rules: RuleSet::ALL,
            quiet: false,
            limits: Limits::default(),
            read: None,
            may_be_empty: false,
        }
    }

    /// Reading within these limits.
    pub(super) fn limited(self, limits: Limits) -> Loading<'a> {
        Loading { limits, ..self }
    }

    /// Reading inputs that may hold no object at all.
    pub(super) fn may_be_empty(self) -> Loading<'a> {
        Loading { may_be_empty: true, ..self }
    }

    /// What is said, as the finding controls and `-q` say.
    pub(super) fn saying(self, rules: RuleSet, quiet: bool) -> Loading<'a> {
        Loading { rules, quiet, ..self }
    }
}

/// Load input that a plan or graph can use. What loading found goes to
/// stderr; an input that cannot be read stops the command (exit 2), and so
/// does a document that cannot be parsed or used (TD001) — a plan or graph
/// without it would be wrong — unless `--skip-invalid` says to go on without
/// it (its finding is then a warning).
pub(super) fn load_usable(how: &Loading, stdin: &mut dyn Read, stderr: &mut Vec<u8>) -> Result<Snapshot, Error> {
    let options = LoadOptions {
        dialect: how.dialect.clone(),
        progress: how.progress,
        digests: how.digests,
        limits: how.limits.clone(),
    };
    let snapshot = match how.read {
        Some(read) => read(how.paths, &options),
        None => load::load(how.paths, &options, stdin),
    };
    let (findings, omitted) = (&snapshot.findings, &snapshot.omitted);
    let empty = !how.may_be_empty && snapshot.holds_nothing();
    if findings.is_empty() && !empty {
        return Ok(snapshot);
    }
    // (The findings not listed count too.)
    let unreadable = findings.iter().filter(|f| f.rule == Rule::Td001 && f.primary.is_none()).count()
        + omitted.count_of(|u| u.rule == Rule::Td001 && !u.located);
    let invalid = findings.iter().filter(|f| f.rule == Rule::Td001).count()
        + omitted.count_of(|u| u.rule == Rule::Td001)
        - unreadable;
    let stop = if unreadable > 0 {
        Some(Error::Unreadable { what: how.what, inputs: unreadable })
    } else if invalid > 0 && !how.skip_invalid {
        Some(Error::Unusable { what: how.what, findings: invalid })
    } else if empty {
        Some(empty_input(how.what, how.paths))
    } else {
        None
    };
    // What stops the command is always said; the rest as --select,
    // --ignore and -q let it be.
    let says = |rule: Rule, fatal: bool| match &stop {
        Some(_) if rule == Rule::Td001 => true,
        _ => !how.quiet && (fatal || how.rules.contains(rule)) && (stop.is_some() || !how.carried),
    };
    let said: Vec<Finding> = findings.iter().filter(|f| says(f.rule, f.fatal)).cloned().collect();
    let mut unsaid = omitted.clone();
    unsaid.retain(|u| says(u.rule, u.fatal));
    if !said.is_empty() {
        diagnostics(&snapshot, &said, &unsaid, how.style, stderr);
    }
    match stop {
        Some(e) => Err(e),
        None => Ok(snapshot),
    }
}

/// The error of a snapshot that holds nothing (CONTRACT §6: empty input is
/// an error, so that an empty dump never passes), naming the inputs.
pub(super) fn empty_input(what: &'static str, paths: &[PathBuf]) -> Error {
    Error::EmptyInput { what, inputs: paths.iter().map(|p| p.display().to_string()).collect() }
}

/// Findings as diagnostics on stderr, without `check`'s summary line.
pub(super) fn diagnostics(
    snapshot: &Snapshot,
    findings: &[Finding],
    omitted: &Omitted,
    style: Style,
    out: &mut Vec<u8>,
) {
    let text = crate::render::diagnostics::render(&snapshot.sources, findings, omitted, None, style);
    out.extend_from_slice(text.as_bytes());
}

/// Two different documents that give one object (TD002) stop a plan: which
/// one is the object? (Exit 1.) The same uid on objects of other
/// coordinates does not: an owner reference's coordinates decide, and the
/// plan warns.
pub(super) fn refuse_duplicates(
    snapshot: &Snapshot,
    what: &'static str,
    style: Style,
    stderr: &mut Vec<u8>,
) -> Result<(), Error> {
    let objects = &snapshot.objects;
    let mut findings =
        checks::duplicate_findings(snapshot, |d| !d.by_uid || d.first.of(objects).is_ok_and(|o| !o.has_coordinates()));
    if findings.is_empty() {
        return Ok(());
    }
    let objects = findings.len();
    let mut omitted = Omitted::default();
    crate::findings::cap(&mut findings, &mut omitted, &mut []);
    diagnostics(snapshot, &findings, &omitted, style, stderr);
    Err(Error::Duplicates { what, objects })
}

/// Reads a plan's inputs instead of `load::load` (`apply` reads them
/// through the directory it checked them in).
pub type Reader<'a> = &'a dyn Fn(&[PathBuf], &crate::load::LoadOptions) -> Snapshot;
