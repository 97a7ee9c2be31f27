//! Places in the input: a file's id and a byte range in it. A leaf: the
//! input layer makes spans, findings and the model keep them, renderers
//! turn them into lines and columns (through `input::Sources`).

use std::ops::Range;

/// Index of a file in `input::Sources`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

/// A byte range in one input file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span { file, start: range.start, end: range.end }
    }
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}
