//! The one error type that ends a run. Each knows its exit code (CONTRACT
//! §6); `main` prints it once, as `teardown: error: …`, after whatever the
//! run had to say first (the findings that led to it). Findings about the
//! input are not errors: they are data, reported by `check` and counted
//! into its exit code there.

use crate::apply::write::WriteError;
use crate::apply::ApplyError;
use crate::exit::Exit;
use crate::internal::Internal;
use crate::plan::{PlanError, Refused};
use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Bad flags or arguments (exit 2).
    Usage(String),
    /// A selector matched nothing (exit 1).
    NoMatch { selector: String, suggestions: Vec<String> },
    /// Writing output failed (exit 2; a closed pipe is not an error: exit 0).
    Output(std::io::Error),
    /// Inputs that could not be read: no `what` is made (exit 2).
    Unreadable { what: &'static str, inputs: usize },
    /// Input that cannot be used (TD001 findings), without `--skip-invalid`:
    /// a plan or graph without it would be wrong (exit 2).
    Unusable { what: &'static str, findings: usize },
    /// A plan that depends on a document `--skip-invalid` left out (exit
    /// 2): `object` names it as an owner (`owner`, at `place`), and the plan
    /// decides `object`'s fate, or deleting `via` reaches `object` through
    /// it; `more` other objects depend on skipped documents.
    Skipped { what: &'static str, object: String, owner: String, place: String, via: Option<String>, more: usize },
    /// `--skip-invalid` left out a document it could not name (its kind or
    /// name unreadable), and the plan decides the fate of an object whose
    /// owner is not in the snapshot: that owner may be the document (exit 2).
    SkippedUnnamed { what: &'static str, object: String, owner: String, place: String, more: usize },
    /// Different documents with one identity (TD002): which is the object?
    /// No `what` is made (exit 1).
    Duplicates { what: &'static str, objects: usize },
    /// `--prune NEW` holds nothing, so everything would be pruned (exit 1).
    EmptyNew,
    /// No object was read from any input (an empty dump): nothing to
    /// check or plan, and an empty dump must not pass (exit 2). The inputs,
    /// as they are named.
    EmptyInput { what: &'static str, inputs: Vec<String> },
    /// The plan cannot be made (exit 1).
    Plan(PlanError),
    /// A simulated deletion does not finish: objects wait forever (exit 1).
    Hangs { objects: usize },
    /// Custom resources or sub-resources that crd-reconciler's table cannot
    /// be applied to (a state that is not one, two controllers): exit 2.
    Unreconcilable { objects: usize },
    /// A plan file that is not applied: stale (exit 1), not a plan (exit 2)…
    Apply(ApplyError),
    /// A file could not be written (exit 2).
    Write(WriteError),
    /// A settings file (`teardown.toml`) that cannot be read or used, with
    /// the place in it (exit 2).
    Config { path: String, at: Option<(usize, usize)>, message: String },
    /// A bug in teardown, reported instead of a panic (exit 2).
    Internal(Internal),
}

impl From<Internal> for Error {
    fn from(e: Internal) -> Error {
        Error::Internal(e)
    }
}

impl From<Refused> for Error {
    fn from(e: Refused) -> Error {
        match e {
            Refused::Usage(message) => Error::Usage(message),
            Refused::Internal(e) => Error::Internal(e),
        }
    }
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }

    /// How a run that ends with this error ends.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Usage(_)
            | Error::Output(_)
            | Error::Unreadable { .. }
            | Error::Unusable { .. }
            | Error::Skipped { .. }
            | Error::SkippedUnnamed { .. }
            | Error::EmptyInput { .. }
            | Error::Unreconcilable { .. }
            | Error::Config { .. }
            | Error::Internal(_) => Exit::Unusable,
            Error::Apply(e) => e.exit(),
            Error::Write(w) => w.exit(),
            Error::NoMatch { .. }
            | Error::Duplicates { .. }
            | Error::EmptyNew
            | Error::Plan(_)
            | Error::Hangs { .. } => Exit::Refused,
        }
    }

    /// A reader that stopped reading (`| head`): not an error (exit 0).
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => f.write_str(m),
            Error::NoMatch { selector, suggestions } => {
                write!(f, "selector `{selector}` matches nothing")?;
                if !suggestions.is_empty() {
                    write!(f, "; closest: {}", suggestions.join(", "))?;
                }
                Ok(())
            }
            Error::Output(e) => match e.get_ref().and_then(|e| e.downcast_ref::<Internal>()) {
                Some(internal) => write!(f, "{internal}"),
                None => write!(f, "cannot write output: {e}"),
            },
            Error::Unreadable { what, inputs } => {
                write!(f, "no {what}: {} could not be read", count(*inputs, "input", "inputs"))
            }
            Error::Unusable { what, findings } => write!(
                f,
                "no {what}: input that cannot be read or used ({} above); fix it, or give --skip-invalid to go on without it",
                count(*findings, "TD001 finding", "TD001 findings")
            ),
            Error::Skipped { what, object, owner, place, via, more } => {
                match via {
                    None => write!(
                        f,
                        "no {what}: {object} names owner {owner}, whose document ({place}) --skip-invalid leaves out: the {what} would take that owner for absent, which decides what becomes of {object}"
                    )?,
                    Some(via) => write!(
                        f,
                        "no {what}: deleting {via} deletes {owner}, whose document ({place}) --skip-invalid leaves out, and with it {object}, which it owns: the {what} would miss {object}"
                    )?,
                }
                if *more > 0 {
                    let which = if *more == 1 { "object depends on a document" } else { "objects depend on documents" };
                    write!(f, " ({more} more {which} left out)")?;
                }
                f.write_str("; fix the document (its TD001 finding is above) and run again")
            }
            Error::SkippedUnnamed { what, object, owner, place, more } => {
                write!(
                    f,
                    "no {what}: {object} names owner {owner}, which is not in the snapshot, and --skip-invalid leaves out a document whose kind or name could not be read ({place}): the {what} would take that owner for absent, though it may be that document"
                )?;
                if *more > 0 {
                    let which = if *more == 1 { "object names an owner" } else { "objects name owners" };
                    write!(f, " ({more} more {which} not in the snapshot)")?;
                }
                f.write_str("; fix the document (its TD001 finding is above) and run again")
            }
            Error::Duplicates { what, objects } => write!(
                f,
                "no {what}: {} given twice with different content ({} above); keep one of each",
                count(*objects, "object is", "objects are"),
                count(*objects, "TD002 finding", "TD002 findings")
            ),
            Error::EmptyNew => f.write_str(
                "no plan: --prune NEW holds no objects, so everything in INPUT would be pruned; give --allow-empty-new if that is meant",
            ),
            Error::EmptyInput { what, inputs } => {
                let shown: Vec<String> = inputs
                    .iter()
                    .take(5)
                    .map(|i| if i == "-" { "standard input".to_string() } else { format!("`{}`", crate::escape::escape(i)) })
                    .collect();
                let more = match inputs.len().saturating_sub(5) {
                    0 => String::new(),
                    n => format!(" and {}", count(n, "other input", "other inputs")),
                };
                write!(
                    f,
                    "no {what}: no object in {}{more}; an empty snapshot is refused, so that a dump that failed never passes (`kubectl get` prints nothing without resource types: see the README's Quick start for a dump of every kind)",
                    shown.join(", ")
                )
            }
            Error::Plan(e) => write!(f, "{e}"),
            Error::Hangs { objects } => write!(
                f,
                "the deletion does not finish: {} forever (stalled, above)",
                count(*objects, "object waits", "objects wait")
            ),
            Error::Apply(e) => write!(f, "{e}"),
            Error::Write(w) => {
                match &w.why {
                    crate::apply::write::Why::Io(e) => write!(f, "cannot write {}: {e}; ", w.path)?,
                    crate::apply::write::Why::Replaced => write!(
                        f,
                        "{} was replaced while apply ran (a symbolic link on its way now points elsewhere, or another file took its name); ",
                        w.path
                    )?,
                }
                if w.unrestored.is_empty() {
                    write!(f, "no file was changed (every original is intact)")
                } else {
                    let at: Vec<String> = w.unrestored.iter().map(|(p, at)| format!("{p} (its original is {at})")).collect();
                    write!(
                        f,
                        "{} could not be put back: {}; the others are intact",
                        count(w.unrestored.len(), "file", "files"),
                        at.join(", ")
                    )
                }
            }
            Error::Config { path, at: Some((line, column)), message } => write!(f, "{path}:{line}:{column}: {message}"),
            Error::Config { path, at: None, message } => write!(f, "{path}: {message}"),
            Error::Unreconcilable { objects } => write!(
                f,
                "no reconciliation: {} cannot be read as crd-reconciler's (above)",
                count(*objects, "object", "objects")
            ),
            Error::Internal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<PlanError> for Error {
    fn from(e: PlanError) -> Error {
        Error::Plan(e)
    }
}
