//! What a dialect is: the trait each dialect implements, and what reading
//! gives. A dialect's file imports this, and `mod.rs` (the registry)
//! imports each dialect: no circle.

// Errors are findings, made only on the error path.
#![allow(clippy::result_large_err)]

use crate::findings::{Finding, Rule};
use crate::input::{Node, Shape, Sources, Unit};
use crate::model::lifecycle::Lifecycle;
use crate::model::{Object, Origin, Relation};
use crate::span::FileId;

/// One kind of input.
pub trait Dialect: Sync {
    /// The name `--dialect` takes and messages use: its origin's.
    fn name(&self) -> &'static str {
        self.origin().dialect
    }

    /// What its documents look like, one line (for `--help` and messages).
    fn about(&self) -> &'static str;

    /// What the objects it reads are (every object it reads has this origin).
    fn origin(&self) -> &'static Origin;

    /// Is this unit (a document, or an item of a list: `unit.list`) this
    /// dialect's? Look at `unit.shape()` and `unit.outline()` (made when
    /// first asked for: answer from what is cheapest). `None`: the outline
    /// does not show enough yet (an item of a large JSON list, read as it
    /// streams, shows its first keys only); the question is asked again
    /// with the whole outline. Never asked under `--dialect`.
    fn recognise(&self, unit: &Unit) -> Option<bool>;

    /// Where the units of a document this dialect took are, when they are
    /// read one by one: the items of a list.
    fn list(&self, _doc: &Unit) -> Option<List> {
        None
    }

    /// Read a unit this dialect took (or that `--dialect` gave it).
    fn read(&self, unit: &Unit, out: &mut Out);

    /// Dialects that read whole files, not documents (tsort pairs): read
    /// these files. Only under `--dialect`.
    fn read_files(&self, _sources: &Sources, _files: &[FileId]) -> Option<Files> {
        None
    }

    /// Read only when `--dialect` names it.
    fn forced_only(&self) -> bool {
        false
    }

    /// A hint for a document no dialect read, when it looks like this
    /// dialect's input.
    fn hint(&self, _unit: &Unit) -> Option<&'static str> {
        None
    }

    /// Where `teardown apply` edits this dialect's objects. `None`: its
    /// input is not a set of documents to edit (tsort pairs).
    fn edits(&self) -> Option<&'static Edits> {
        None
    }

    /// What `reconcile --desired` compares of an object: the part of its
    /// document that says what the object should be. `document` is the
    /// object's document read again as a value (for an item of a list read
    /// whole: the list). `None`: not found there, or this dialect's objects
    /// are not compared.
    fn desired_part(&self, _document: &Node, _object: &Object) -> Option<Node> {
        None
    }

    /// An object's states in crd-reconciler's terms (`reconcile`), from its
    /// document read again as a value (as for [`Dialect::desired_part`]).
    /// `None`: not found there, or this dialect's objects have none.
    fn lifecycle(&self, _document: &Node, _object: &Object) -> Option<Lifecycle> {
        None
    }
}

/// Where the items of a list document are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct List {
    /// The key that holds them; `None`: the document is the list.
    pub member: Option<&'static str>,
    /// Every item is the list's dialect's (else each item is recognised
    /// like a document, and goes to the list's dialect when none takes it).
    pub own_items: bool,
}

/// What reading units gave.
#[derive(Default)]
pub struct Out {
    pub objects: Vec<Object>,
    pub findings: Vec<Finding>,
    /// Findings past the cap (`findings::LISTED_PER_RULE`), counted: the
    /// reader keeps, of a long run of units, only the first of each rule.
    pub omitted: crate::findings::Omitted,
    /// Documents that give no object (TD001) but whose identity could be
    /// read: what `--skip-invalid` goes on without.
    pub skipped: Vec<crate::model::skipped::Skipped>,
}

/// Where an [`Out`] stands: how many objects, findings and skipped
/// documents it holds.
#[derive(Clone, Copy)]
pub struct Mark(usize, usize, usize);

impl Out {
    /// Where it stands, to take back what is read after ([`Out::instead`]).
    pub fn mark(&self) -> Mark {
        Mark(self.objects.len(), self.findings.len(), self.skipped.len())
    }

    /// Take back what was read since `mark`, and give `finding` instead.
    pub fn instead(&mut self, mark: Mark, finding: Finding) {
        self.objects.truncate(mark.0);
        self.findings.truncate(mark.1);
        self.skipped.truncate(mark.2);
        self.findings.push(finding);
    }
}

/// What a whole-file dialect gave.
pub struct Files {
    pub objects: Vec<Object>,
    pub relations: Vec<Relation>,
    pub findings: Vec<Finding>,
}

/// Where an object's own mapping holds what `apply` changes (syntax
/// paths, from the object's mapping; `input::edit` makes the edits).
#[derive(Debug)]
pub struct Edits {
    /// The list of owner references: entry `n` is the object's `owners[n]`
    /// (an orphaned object loses it). `None`: ownership is not written in
    /// the dependent (nesting), so nothing can be orphaned.
    pub owners: Option<&'static [&'static str]>,
    /// The list of destruction dependencies the object declares as the one
    /// destroyed after (`destroyAfter`): entry `n` is the object's
    /// `deps[n]` (an entry naming an object the plan removes is taken
    /// out). `None`: not written as such a list.
    pub after: Option<&'static [&'static str]>,
    /// The mapping and key of a mark that keeps a destroyed object in
    /// place (Murano's `"?": {destroyed: true}`).
    pub destroyed: Option<(&'static [&'static str], &'static str)>,
    /// An object's span starts at a key of its mapping (Murano's `"?"`
    /// header), not at the mapping itself.
    pub span_at_key: bool,
}

/// Read a unit that must be an object as `T`. A JSON array or scalar is
/// named as such; YAML reports its own type error.
pub fn parse_object<T: serde::de::DeserializeOwned>(unit: &Unit) -> Result<T, Finding> {
    let shape = unit.shape();
    if unit.is_json() && matches!(shape, Shape::Seq | Shape::Scalar | Shape::Null) {
        return Err(not_an_object(unit, shape.describe()));
    }
    unit.parse()
}

/// TD001 for a unit that is an array or a scalar where an object belongs.
pub fn not_an_object(unit: &Unit, what: &str) -> Finding {
    Finding::new(Rule::Td001, format!("document is {what}, not an object"))
        .at(unit.head(), "here")
        .help("each document must be an object, a `List` with `items`, or an array of objects")
}
