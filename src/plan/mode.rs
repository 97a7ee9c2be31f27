//! Which objects a plan starts from.

use crate::model::ObjId;

/// Which objects the plan starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `--delete SEL…`: these objects.
    Delete(Vec<ObjId>),
    /// `--prune NEW…`: these objects, absent from NEW.
    Prune(Vec<ObjId>),
    /// `--all`: everything in the input.
    All,
    /// `--gc`: what the garbage collector would delete now.
    Gc,
}

impl Mode {
    pub fn name(&self) -> &'static str {
        match self {
            Mode::Delete(_) => "delete",
            Mode::Prune(_) => "prune",
            Mode::All => "all",
            Mode::Gc => "gc",
        }
    }
}
