//! Teardown's own bugs, reported instead of a panic (CONTRACT §6): an id
//! that names no entry of the table it indexes. A leaf, so that the model
//! and every layer above it can look an id up without a panic.

use std::fmt;

/// A broken invariant of teardown's own making, reported instead of a
/// panic (CONTRACT §6: never a panic): an id that names no entry of the
/// table it indexes. Ids are made by the snapshot or plan whose tables they
/// index, so this is a bug (an id of one snapshot used with another's
/// objects), never something the input can cause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Internal {
    /// What the id names: "object", "relation", "finalizer name"…
    pub what: &'static str,
    pub index: usize,
    /// How many entries the table has.
    pub len: usize,
}

impl fmt::Display for Internal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "internal error: {} {} is not one of the {} there are (a bug in teardown; please report it)",
            self.what, self.index, self.len
        )
    }
}

impl std::error::Error for Internal {}

/// Renderers write to an `io::Write`: an internal error travels as an I/O
/// error there, and is told apart again when printed.
impl From<Internal> for std::io::Error {
    fn from(e: Internal) -> std::io::Error {
        std::io::Error::other(e)
    }
}

/// Entry `index` of `table` (a table made with the ids that index it), or
/// the internal error that says there is none.
pub fn entry<'a, T>(table: &'a [T], index: usize, what: &'static str) -> Result<&'a T, Internal> {
    table.get(index).ok_or(Internal { what, index, len: table.len() })
}

/// `entry`, to change in place.
pub fn entry_mut<'a, T>(table: &'a mut [T], index: usize, what: &'static str) -> Result<&'a mut T, Internal> {
    let len = table.len();
    table.get_mut(index).ok_or(Internal { what, index, len })
}
