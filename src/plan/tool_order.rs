//! `plan --as TOOL`: the order another tool would delete the plan's objects
//! in, beside teardown's, and every place where that order destroys an
//! object before one that still needs it. Typed data, made by
//! [`crate::analysis::tool_order`] over the plan's objects and the
//! relations the plan is ordered by; rendered by `render::tool_order`.
//! Nothing here changes the plan.

pub use crate::analysis::tool_order::{
    Batch, BatchKey, Breach, Keep, Needing, Other, Pos, Tool, ToolFinding, ToolOrder, Unit,
};

use super::reasons::Names;
use crate::model::RelKind;

impl BatchKey {
    /// Is the batch a hook the tool runs (rather than deletes)?
    pub fn is_hook(&self) -> bool {
        matches!(self, BatchKey::Hook { .. })
    }
}

impl Other {
    pub fn id(&self) -> &'static str {
        match self {
            Other::With { .. } => "with",
            Other::Kept(_) => "kept",
            Other::NotManaged => "not-managed",
            Other::OtherHook => "other-hook",
            Other::NeverDeleted => "never-deleted",
        }
    }
}

/// The constraint a relation is, for messages and JSON: `ownership`,
/// `destruction` (a destruction dependency) or `rule` (a default rule).
pub fn constraint_type(kind: RelKind) -> &'static str {
    if kind.rule().is_some() {
        "rule"
    } else if kind.is_ownership() {
        "ownership"
    } else {
        "destruction"
    }
}

impl ToolFinding {
    /// The objects it is about: the one deleted too early, then those
    /// that need it.
    pub fn refs<'a>(&self, names: &Names<'a>) -> Vec<&'a str> {
        std::iter::once(self.first).chain(self.needed_by.iter().map(|n| n.object)).map(|x| names.of(x)).collect()
    }
}

/// The order `tool` would delete the objects of `plan` in.
pub fn of(objects: &[crate::model::Object], plan: &super::Plan, tool: Tool) -> ToolOrder {
    crate::analysis::tool_order::order(
        &crate::analysis::tool_order::Input {
            objects,
            relations: &plan.relations,
            relaxed: &plan.order.relaxed,
            step: &plan.order.step,
            refs: &plan.refs,
        },
        tool,
    )
}

/// `--as TOOL`: the tool's order beside `plan`, and its findings as
/// warnings (TD016); the plan's steps stay what they are. The tools delete
/// Kubernetes resources: a plan with another dialect's objects is refused,
/// since they would be placed in an order no tool has.
pub fn beside(
    objects: &[crate::model::Object],
    plan: &mut super::Plan,
    tool: Tool,
) -> Result<(), super::refused::Refused> {
    let mut foreign = Vec::new();
    for &id in plan.steps.iter().flatten() {
        if !id.of(objects)?.is_kubernetes() {
            foreign.push(id);
        }
    }
    if let Some(&id) = foreign.first() {
        return Err(super::refused::Refused::Usage(format!(
            "--as {}: {} is {}, not a Kubernetes resource, and {} deletes none ({} such in the plan)",
            tool.id(),
            plan.refs.at(id)?,
            id.of(objects)?.origin.noun,
            tool.name(),
            foreign.len()
        )));
    }
    let order = of(objects, plan, tool);
    plan.warnings.extend(order.findings.iter().map(|f| super::Warning::ToolOrder(Box::new(f.clone()))));
    plan.tool_order = Some(order);
    Ok(())
}
