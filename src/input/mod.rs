//! The syntax layer: files, directories and standard input read into
//! [`Sources`]; files split into documents and list items; places in the
//! text ([`Span`]). Nothing here knows a dialect's wire format.

pub mod files;
pub mod locate;
pub mod source;
pub mod split;

pub use files::{read_inputs, ReadProblem};
pub use source::{FileId, Format, LineCol, SourceFile, Sources, Span, Text};
