//! The commands: each turns its settings into a result, written to
//! `Env::stdout` as it is made, and returns how the run ended. One file a
//! command; what they share (loading input that must be usable) is here.

mod apply;
mod check;
mod explain;
mod graph;
mod names;
mod plan;
mod reconcile;
mod simulate;

use crate::analysis::check as checks;
use crate::cli::{Cli, ColorWhen, Command};
use crate::error::Error;
use crate::findings::{Finding, Omitted, Rule, RuleSet};
use crate::input::Limits;
use crate::load::{self, LoadOptions, Snapshot};
use crate::render::diagnostics::Style;
use clap::CommandFactory;
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
        match self {
            Status::Success => 0,
            Status::Findings => 1,
            Status::InputFailed => 2,
        }
    }
}

pub fn run(cli: Cli, env: Env) -> Result<Status, Error> {
    let color = match cli.color {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => env.stdout_is_terminal && !env.no_color,
    };
    let style = Style { color };
    if let Some((name, input)) = cli.command.input() {
        if input.inputs.is_empty() && env.stdin_is_terminal {
            return Err(Error::Usage(format!(
                "no INPUT given, and standard input is a terminal: name files or directories \
                 (`teardown {name} manifests/`), or pipe a snapshot in (`kubectl get -A -o yaml | teardown {name}`); \
                 `-` reads the terminal until Ctrl-D"
            )));
        }
    }
    match cli.command {
        Command::Check(args) => check::run(args, env, style),
        Command::Graph(args) => graph::run(args, env, style),
        Command::Plan(args) => plan::run(args, env, style),
        Command::Explain(args) => explain::run(args, env, style),
        Command::Simulate(args) => simulate::run(args, env, style),
        Command::Reconcile(args) => reconcile::run(args, env, style),
        Command::Apply(args) => apply::run(args, env, style),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "teardown", env.stdout);
            Ok(Status::Success)
        }
        Command::Man { command } => {
            let mut cli = Cli::command();
            cli.build();
            let page = match command {
                None => crate::render::man::whole(&cli, env.stdout),
                Some(name) => {
                    let pages = || crate::render::man::pages(&cli);
                    let Some(sub) = pages().find(|s| s.get_name() == name) else {
                        let names: Vec<&str> = pages().map(|s| s.get_name()).collect();
                        return Err(Error::Usage(format!(
                            "no man page for `{name}`; there is one for {}",
                            names.join(", ")
                        )));
                    };
                    crate::render::man::page(&cli, sub, env.stdout)
                }
            };
            page.map_err(Error::Output)?;
            Ok(Status::Success)
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
struct Loading<'a> {
    dialect: Option<String>,
    /// `--skip-invalid`: go on without documents that cannot be used.
    skip_invalid: bool,
    /// What is not made when input cannot be used: "plan", "graph".
    what: &'static str,
    /// Plan files record each input's sha256.
    digests: bool,
    /// The command's own result carries what loading found (a plan's
    /// warnings do): it is said on stderr only when it stops the command.
    carried: bool,
    style: Style,
    progress: bool,
    paths: &'a [PathBuf],
    /// The rules whose findings are said (`--select`, `--ignore`).
    rules: RuleSet,
    /// `-q`: say only what stops the command.
    quiet: bool,
    /// `--max-file-size`, `--max-object-size`.
    limits: Limits,
    /// Reads the inputs instead of `load::load` (`apply`).
    read: Option<plan::Reader<'a>>,
    /// The inputs may hold no object at all (`--prune NEW`, `reconcile
    /// --desired`); the snapshot a command reads may not (exit 2).
    may_be_empty: bool,
}

impl<'a> Loading<'a> {
    /// Reading for a command whose output records no digests and carries
    /// nothing of what loading found (`graph`, `simulate`).
    fn plain(
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
    fn limited(self, limits: Limits) -> Loading<'a> {
        Loading { limits, ..self }
    }

    /// Reading inputs that may hold no object at all.
    fn may_be_empty(self) -> Loading<'a> {
        Loading { may_be_empty: true, ..self }
    }

    /// What is said, as the finding controls and `-q` say.
    fn saying(self, rules: RuleSet, quiet: bool) -> Loading<'a> {
        Loading { rules, quiet, ..self }
    }
}

/// Load input that a plan or graph can use. What loading found goes to
/// stderr; an input that cannot be read stops the command (exit 2), and so
/// does a document that cannot be parsed or used (TD001) — a plan or graph
/// without it would be wrong — unless `--skip-invalid` says to go on without
/// it (its finding is then a warning).
fn load_usable(how: &Loading, stdin: &mut dyn Read, stderr: &mut Vec<u8>) -> Result<Snapshot, Error> {
    let options =
        LoadOptions { dialect: how.dialect.clone(), progress: how.progress, digests: how.digests, limits: how.limits };
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
fn empty_input(what: &'static str, paths: &[PathBuf]) -> Error {
    Error::EmptyInput { what, inputs: paths.iter().map(|p| p.display().to_string()).collect() }
}

/// Findings as diagnostics on stderr, without `check`'s summary line.
fn diagnostics(snapshot: &Snapshot, findings: &[Finding], omitted: &Omitted, style: Style, out: &mut Vec<u8>) {
    let text = crate::render::diagnostics::render(&snapshot.sources, findings, omitted, None, style);
    out.extend_from_slice(text.as_bytes());
}

/// Two different documents that give one object (TD002) stop a plan: which
/// one is the object? (Exit 1.) The same uid on objects of other
/// coordinates does not: an owner reference's coordinates decide, and the
/// plan warns.
fn refuse_duplicates(snapshot: &Snapshot, what: &'static str, style: Style, stderr: &mut Vec<u8>) -> Result<(), Error> {
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
