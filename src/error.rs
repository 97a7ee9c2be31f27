//! Errors that end a run. Each knows its exit code (CONTRACT §6).
//! Findings about the input are not errors: they are data, reported by
//! `check` and counted into the exit code there.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// Bad flags or arguments (exit 2).
    Usage(String),
    /// A selector matched nothing (exit 1).
    NoMatch { selector: String, suggestions: Vec<String> },
    /// Writing output failed for a reason other than a closed pipe (exit 2).
    Output(std::io::Error),
}

impl Error {
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::Output(_) => 2,
            Error::NoMatch { .. } => 1,
        }
    }
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
            Error::Output(e) => write!(f, "cannot write output: {e}"),
        }
    }
}

impl std::error::Error for Error {}
