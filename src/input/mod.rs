//! The syntax layer: files, directories and standard input read into
//! [`Sources`]; files split into documents and list items; places in the
//! text ([`Span`]). Nothing here knows a dialect's wire format.

pub mod edit;
pub mod fast;
pub mod files;
pub mod json;
pub mod jsonruns;
pub mod lean;
pub mod locate;
pub mod outline;
pub mod source;
pub mod split;
pub mod tree;
pub mod unit;
pub mod walk;
pub mod yaml;

pub use files::{read_inputs, Limits, ReadProblem, Size};
pub use outline::{Outline, Shape};
pub use source::{Format, LineCol, SourceFile, Sources, Text};
pub use tree::Node;
pub use unit::{Form, ListHeader, Unit, UnitSpec};
