//! The exit codes (CONTRACT §6), in one table: every way a run ends — a
//! command's status, an error of any layer — says which of these it is,
//! and only here is each a number.

/// How a run ended, as the shell sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Done as asked (exit 0).
    Success,
    /// Refused: the plan cannot be made, `check` found errors, a selector
    /// matched nothing, a plan file is stale… (exit 1).
    Refused,
    /// Unusable: flags, input or settings that cannot be used, output that
    /// cannot be written, or a bug (exit 2).
    Unusable,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Refused => 1,
            Exit::Unusable => 2,
        }
    }
}
