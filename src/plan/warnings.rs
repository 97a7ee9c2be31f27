//! What a plan warns about: typed values, each with its finding rule (if it
//! has one), the objects it is about, and its text.

use super::reasons::Names;
use super::tool_order::ToolFinding;
use crate::analysis::cascade::Cascade;
use crate::analysis::order::{conflict_message, GroupKind, Order};
use crate::findings::Rule;
use crate::graph::Graph;
use crate::load::Snapshot;
use crate::model::{Link, ObjId, RelKind, Relation, Str};

#[derive(Clone, Debug)]
pub enum Warning {
    /// A finding about the input, carried into the plan (`--skip-invalid`,
    /// TD013…), at its place; `line` 0: about a whole file or directory not
    /// read, which its message names.
    Input { rule: Rule, file: String, line: usize, column: usize, message: String, refs: Vec<String> },
    /// Objects that must each be destroyed after another (TD008): one step.
    DestructionCycle { members: Vec<ObjId>, step: u32 },
    /// `--allow-cycles`: objects that own each other (TD007), one step.
    OwnershipGroup { members: Vec<ObjId>, step: u32 },
    /// An ownership relation relaxed for a destruction dependency (TD012).
    Relaxed { relaxed: Relation, because: Option<Relation> },
    /// A deleted object whose controller stays, and will recreate it.
    ControllerStays { object: ObjId, controller: ObjId },
    /// Two objects with one uid (TD002): owner references went by coordinates.
    SharedUid { first: ObjId, again: ObjId, uid: Str },
    /// An object and the controller of its finalizer in one step.
    FinalizerSameStep { object: ObjId, controller: ObjId, finalizer: String, step: u32 },
    /// `plan --as TOOL`: that tool's order breaks a constraint of the plan
    /// (TD016).
    ToolOrder(Box<ToolFinding>),
}

impl Warning {
    pub fn id(&self) -> &'static str {
        match self {
            Warning::Input { .. } => "input",
            Warning::DestructionCycle { .. } => "destruction-cycle",
            Warning::OwnershipGroup { .. } => "ownership-cycle",
            Warning::Relaxed { .. } => "relaxed",
            Warning::ControllerStays { .. } => "controller-stays",
            Warning::SharedUid { .. } => "shared-uid",
            Warning::FinalizerSameStep { .. } => "finalizer-same-step",
            Warning::ToolOrder(_) => "tool-order",
        }
    }

    pub fn rule(&self) -> Option<Rule> {
        match self {
            Warning::Input { rule, .. } => Some(*rule),
            Warning::DestructionCycle { .. } => Some(Rule::Td008),
            Warning::OwnershipGroup { .. } => Some(Rule::Td007),
            Warning::Relaxed { .. } => Some(Rule::Td012),
            Warning::SharedUid { .. } => Some(Rule::Td002),
            Warning::ToolOrder(_) => Some(Rule::Td016),
            Warning::ControllerStays { .. } | Warning::FinalizerSameStep { .. } => None,
        }
    }

    /// The objects it is about, by reference.
    pub fn refs<'a>(&'a self, names: &Names<'a>) -> Vec<&'a str> {
        match self {
            Warning::Input { refs, .. } => refs.iter().map(String::as_str).collect(),
            Warning::DestructionCycle { members, .. } | Warning::OwnershipGroup { members, .. } => {
                members.iter().map(|m| names.of(*m)).collect()
            }
            Warning::Relaxed { relaxed, .. } => vec![names.of(relaxed.from), names.of(relaxed.to)],
            Warning::ControllerStays { object, controller: other }
            | Warning::SharedUid { first: object, again: other, .. }
            | Warning::FinalizerSameStep { object, controller: other, .. } => {
                vec![names.of(*object), names.of(*other)]
            }
            Warning::ToolOrder(f) => f.refs(names),
        }
    }

    pub fn message(&self, names: &Names) -> String {
        let list = |members: &[ObjId]| members.iter().map(|m| names.of(*m)).collect::<Vec<_>>().join(", ");
        match self {
            Warning::Input { line: 0, message, .. } => message.clone(),
            Warning::Input { file, line, column, message, .. } => format!("{file}:{line}:{column}: {message}"),
            Warning::DestructionCycle { members, step } => format!(
                "destruction-dependency cycle: {} are destroyed together in step {step}; their order inside it is undefined",
                list(members)
            ),
            Warning::OwnershipGroup { members, step } => {
                format!("ownership cycle planned as one group (--allow-cycles): {} in step {step}", list(members))
            }
            Warning::Relaxed { relaxed, because } => conflict_message(names.refs, relaxed, because.as_ref()),
            Warning::ControllerStays { object, controller } => format!(
                "{} is deleted but its controller {} stays and will recreate it",
                names.of(*object),
                names.of(*controller)
            ),
            Warning::SharedUid { first, again, uid } => format!(
                "{} and {} share uid {uid}: owner references were resolved by their kind and name, not by this uid",
                names.of(*first),
                names.of(*again)
            ),
            Warning::FinalizerSameStep { object, controller, finalizer, step } => format!(
                "{} and {}, the controller of its finalizer {finalizer}, are deleted in the same step {step}; the object hangs if the controller goes first",
                names.of(*object),
                names.of(*controller)
            ),
            Warning::ToolOrder(f) => f.message(names),
        }
    }
}

/// What warnings are found in.
pub(super) struct Context<'a> {
    pub snapshot: &'a Snapshot,
    pub relations: &'a [Relation],
    pub graph: &'a Graph,
    pub cascade: &'a Cascade,
    pub order: &'a Order,
    /// `--all`: nothing stays, so no controller recreates anything.
    pub all: bool,
}

/// The plan's warnings, in order: findings about the input, grouped
/// cycles, relaxed edges, controllers that stay, shared uids.
pub(super) fn collect(cx: &Context) -> Vec<Warning> {
    let (snapshot, relations, cascade) = (cx.snapshot, cx.relations, cx.cascade);
    let objects = &snapshot.objects;
    let mut warnings = Vec::new();
    for f in snapshot.findings.iter() {
        if let Some(l) = &f.primary {
            let file = snapshot.sources.get(l.span.file);
            let lc = file.line_col(l.span.start);
            warnings.push(Warning::Input {
                rule: f.rule,
                file: file.name.clone(),
                line: lc.line,
                column: lc.column,
                message: f.message.clone(),
                refs: f.refs.clone(),
            });
        } else if let (Some(file), false) = (&f.file, f.fatal) {
            // A file or directory not read (a FIFO, a directory without
            // files): no line to point at; the message names it.
            warnings.push(Warning::Input {
                rule: f.rule,
                file: file.clone(),
                line: 0,
                column: 0,
                message: f.message.clone(),
                refs: f.refs.clone(),
            });
        }
    }
    for g in &cx.order.groups {
        let step = g.members.first().map(|m| cx.order.step[m.index()]).unwrap_or(0);
        let members = g.members.clone();
        warnings.push(match g.kind {
            GroupKind::Destruction => Warning::DestructionCycle { members, step },
            GroupKind::Ownership => Warning::OwnershipGroup { members, step },
        });
    }
    for (&r, because) in cx.order.relaxed.iter().zip(&cx.order.relaxed_because) {
        warnings
            .push(Warning::Relaxed { relaxed: relations[r as usize], because: because.map(|b| relations[b as usize]) });
    }
    // A deleted object whose controller stays is recreated by it.
    if !cx.all {
        let mut owners = Vec::new();
        for (i, cause) in cascade.cause.iter().enumerate() {
            if cause.is_none() {
                continue;
            }
            let id = ObjId(i as u32);
            cx.graph.dependencies_into(id, &mut owners);
            for &r in &owners {
                let rel = &relations[r as usize];
                if rel.kind == RelKind::Owns
                    && rel.controller
                    && rel.link == Link::Solid
                    && !cascade.deleted(rel.from)
                    && objects[rel.from.index()].deletion_timestamp.is_none()
                {
                    warnings.push(Warning::ControllerStays { object: id, controller: rel.from });
                }
            }
        }
    }
    // One uid on objects of other coordinates: references went by coordinates.
    for d in snapshot.resolved.duplicates.iter().filter(|d| d.by_uid) {
        if cascade.deleted(d.first) || cascade.deleted(d.again) {
            let uid = objects[d.first.index()].uid.clone().unwrap_or_else(|| Str::from(""));
            warnings.push(Warning::SharedUid { first: d.first, again: d.again, uid });
        }
    }
    warnings
}
