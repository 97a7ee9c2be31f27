//! A loaded snapshot: the inputs' text, the objects read from them, their
//! resolved references and what loading found. Made by `load`, read by
//! every analysis (a value of the model, so that analyses need not import
//! the loading pipeline).

use crate::findings::{Finding, Omitted, Rule};
use crate::input::Sources;
use crate::model::resolve::Resolved;
use crate::model::{ObjId, Object};
use crate::span::Span;

/// Everything known about the input once it is loaded.
pub struct Snapshot {
    pub sources: Sources,
    pub objects: Vec<Object>,
    pub resolved: Resolved,
    /// Findings about the input itself: unreadable files, syntax errors,
    /// unusable objects (TD001), empty files (TD013); at most
    /// `findings::LISTED_PER_RULE` of a rule…
    pub findings: Vec<Finding>,
    /// …the others counted.
    pub omitted: Omitted,
    /// Where an object is written again, with the same content (overlapping
    /// dumps: it is one object): the object and the copy's span, by object.
    /// A plan file lists the copies, so that `apply` edits every one.
    pub copies: Vec<(ObjId, Span)>,
    /// The documents left out (TD001) whose identity could be read, in
    /// input order: `--skip-invalid` goes on without them, but a plan must
    /// not take one for absent (`analysis::skipped`).
    pub skipped: Vec<crate::model::skipped::Skipped>,
}

impl Snapshot {
    /// Did some input fail to read or parse? (exit code 2)
    pub fn has_fatal(&self) -> bool {
        self.findings.iter().any(|f| f.fatal) || self.omitted.count_of(|u| u.fatal) > 0
    }

    /// Did the input hold nothing at all: no object, and no document that
    /// failed to give one (TD001)? An empty dump, a `kubectl get` that
    /// printed nothing, a directory of empty files.
    pub fn holds_nothing(&self) -> bool {
        self.objects.is_empty()
            && !self.findings.iter().any(|f| f.rule == Rule::Td001)
            && self.omitted.count_of(|u| u.rule == Rule::Td001) == 0
    }

    /// The other places `id` is written (its copies), in file order: a
    /// slice of `copies`, which is sorted by object.
    pub fn copies_of(&self, id: ObjId) -> &[(ObjId, Span)] {
        let from = self.copies.partition_point(|(o, _)| *o < id);
        let to = self.copies.partition_point(|(o, _)| *o <= id);
        self.copies.get(from..to).unwrap_or_default()
    }
}
