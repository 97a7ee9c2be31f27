//! Dialects: how each kind of input is recognised and read into model
//! objects. The syntax layer (`input`) hands over units — documents, and
//! items of lists — that it has split and can parse; a dialect says
//! whether a unit is its own, where the items of a document it took are,
//! and reads a unit into objects and findings.
//!
//! A dialect is one file here and one line in [`REGISTRY`]. No other file
//! knows a dialect's wire format.

// Errors are findings, made only on the error path.
#![allow(clippy::result_large_err)]

pub mod api;
#[macro_use]
pub mod fields;
pub mod krake;
pub mod kubernetes;
pub mod kubevela;
pub mod murano;
pub mod native;
pub mod pairs;
pub mod status;
pub mod tools;

pub use api::{not_an_object, parse_object, Dialect, Edits, Files, List, Out};

use crate::findings::Finding;
use crate::input::{Node, Shape, Sources, Unit};
use crate::model::lifecycle::Lifecycle;
use crate::model::Object;

/// An object's document read again from its file, and its dialect. `None`
/// when the document no longer reads on its own.
fn reread(sources: &Sources, object: &Object) -> Option<(&'static dyn Dialect, Node)> {
    let dialect = *REGISTRY.iter().find(|d| d.name() == object.origin.dialect)?;
    Some((dialect, Node::at(&sources.get(object.span.file).text, object.span.range())?))
}

/// [`Dialect::desired_part`] of an object.
pub fn desired_part(sources: &Sources, object: &Object) -> Option<Node> {
    let (dialect, document) = reread(sources, object)?;
    dialect.desired_part(&document, object)
}

/// [`Dialect::lifecycle`] of an object.
pub fn lifecycle(sources: &Sources, object: &Object) -> Option<Lifecycle> {
    let (dialect, document) = reread(sources, object)?;
    dialect.lifecycle(&document, object)
}

/// Every dialect, in the order they are asked whether a unit is theirs: the
/// first that says yes reads it. `kubernetes` reads any mapping that no
/// dialect before it takes (and says what it lacks), so it comes after
/// those that recognise something narrower.
pub static REGISTRY: &[&dyn Dialect] =
    &[&murano::Murano, &native::Native, &krake::Krake, &kubevela::KubeVela, &kubernetes::Kubernetes, &pairs::Pairs];

/// Is `f` a collector's own finalizer (CONTRACT §5): Kubernetes' or
/// Krake's, on an object of any dialect? Never listed as "waits for",
/// never TD011.
pub fn collector_finalizer(f: &str) -> bool {
    crate::model::kube::COLLECTOR_FINALIZERS.contains(&f) || f == krake::CASCADE_DELETION
}

/// Does `o` wait for finalizer `f`: is it neither a collector's own nor
/// one through which `o`'s own collector cascades?
pub fn waits_for_finalizer(o: &Object, f: &str) -> bool {
    !collector_finalizer(f) && !o.origin.collector.cascade_finalizers.contains(&f)
}

/// A dialect's index in [`REGISTRY`], by name.
pub fn by_name(name: &str) -> Option<usize> {
    REGISTRY.iter().position(|d| d.name() == name)
}

/// Which dialect reads `unit`: `forced`; else the first that recognises it;
/// else, for an item of a list, the list's dialect. `None`: no dialect.
pub fn recognise(unit: &Unit, forced: Option<usize>) -> Option<usize> {
    if forced.is_some() {
        return forced;
    }
    if let Some(list) = unit.list {
        if list.own_items {
            return Some(list.taken_by);
        }
    }
    let ask = || -> Result<Option<usize>, ()> {
        for (i, d) in REGISTRY.iter().enumerate() {
            if d.forced_only() {
                continue;
            }
            match d.recognise(unit) {
                Some(true) => return Ok(Some(i)),
                Some(false) => {}
                None => return Err(()),
            }
        }
        Ok(None)
    };
    let found = match ask() {
        Ok(found) => found,
        Err(()) => {
            unit.complete_outline();
            ask().unwrap_or(None)
        }
    };
    found.or(unit.list.map(|l| l.taken_by))
}

/// The finding for a document no dialect reads.
pub fn unrecognised(unit: &Unit) -> Option<Finding> {
    if let Some(finding) = unit.unreadable() {
        return Some(finding.clone());
    }
    let shape = unit.outline().shape;
    if shape == Shape::Null {
        return None; // an empty document
    }
    if shape == Shape::Map && !unit.outline().complete {
        // An outline that could not be made: the document does not parse,
        // and the parser says why (a control character, say).
        if let Err(finding) = unit.tree() {
            return Some(finding.clone());
        }
    }
    let mut finding = not_an_object(unit, shape.describe());
    if let Some(hint) = REGISTRY.iter().find_map(|d| d.hint(unit)) {
        finding = finding.help(hint);
    }
    Some(finding)
}
