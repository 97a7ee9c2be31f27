//! A request refused once the input is read.

/// What the command line asks cannot be done with this input (exit 2), or
/// teardown's own bug: known only once the input is read (`--as` with an
/// object no tool deletes, `-o names` with an object no line can name).
#[derive(Debug)]
pub enum Refused {
    Usage(String),
    Internal(crate::internal::Internal),
}

impl From<crate::internal::Internal> for Refused {
    fn from(e: crate::internal::Internal) -> Refused {
        Refused::Internal(e)
    }
}
