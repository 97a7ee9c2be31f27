//! What the commands share: the environment a run sees, how it ends and
//! how a command speaks. (Loading input that must be usable is
//! `crate::usable`.)

use crate::cli::Format;
use crate::error::Error;
use crate::findings::RuleSet;
use crate::render::diagnostics::Style;
use std::io::{Read, Write};

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

/// A format the command does not offer: its `-o` refuses it before this
/// is reached (`cli::Formats`), so this says a bug, as a usage error.
pub(super) fn unoffered(command: &str, format: Format) -> Error {
    Error::Usage(format!("teardown {command} has no format {}", format.name()))
}
