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
use crate::model::{ObjId, RelKind};
use std::fmt::Write as _;

pub use super::reasons::hook_name;

impl BatchKey {
    /// `Service`, `wave 5`, `pre-delete hook, weight 1`; empty for kapp's
    /// levels and Flux's calls, which the rank says.
    pub fn text(&self) -> String {
        match self {
            BatchKey::Kind { kind, .. } => kind.to_string(),
            BatchKey::Hook { hook, weight } => format!("{} hook, weight {weight}", hook_name(*hook)),
            BatchKey::Wave(w) => format!("wave {w}"),
            BatchKey::Level | BatchKey::Call => String::new(),
        }
    }

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

    /// `with Deployment.apps/gk/ctrl (garbage collector)` and the like.
    pub fn message(&self, tool: Tool, names: &Names) -> String {
        match self {
            Other::With { carrier, how } => format!("with {} ({})", names.of(*carrier), carrier_name(*how)),
            Other::Kept(k) => format!("kept: {}", k.annotation()),
            Other::NotManaged => format!("in no {}: {} does not delete it", tool.unit_noun(), tool.name()),
            Other::OtherHook => String::from("a hook of another event: helm uninstall leaves it"),
            Other::NeverDeleted => String::from("Argo CD never deletes a CRD with its Application"),
        }
    }
}

/// Who deletes a dependent that goes with its owner.
pub fn carrier_name(how: RelKind) -> &'static str {
    match how {
        RelKind::Contains => "namespace controller",
        RelKind::Defines => "CRD cleanup",
        _ => "garbage collector",
    }
}

impl Pos {
    /// `batch 3, Service`, `wave 2`, `with Deployment.apps/gk/ctrl, call 4`;
    /// with `unit`, then ` of release gk/gatekeeper`.
    fn write(&self, tool: Tool, unit: bool, names: &Names, out: &mut String) {
        if let Some(w) = self.with {
            let _ = write!(out, "with {}, ", names.of(w));
        }
        let _ = match (&self.key, tool) {
            (BatchKey::Kind { kind, .. }, _) => write!(out, "batch {}, {kind}", self.rank),
            (k @ (BatchKey::Hook { .. } | BatchKey::Wave(_)), _) => write!(out, "{}", k.text()),
            (BatchKey::Level, _) => write!(out, "level {}", self.rank),
            (BatchKey::Call, _) => write!(out, "call {}", self.rank),
        };
        if let Some(u) = self.unit.as_ref().filter(|_| unit) {
            let _ = write!(out, " of {} {u}", tool.unit_noun());
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

/// `ownership: contains`, `default rule storage-after-claims: bound-claim`.
pub fn constraint_text(kind: RelKind) -> String {
    match kind.rule() {
        Some(e) => format!("default rule {}: {}", e.rule().id(), e.id()),
        None if kind.is_ownership() => format!("ownership: {}", kind.as_str()),
        None => format!("destruction dependency: {}", kind.as_str()),
    }
}

/// How many of the objects a finding is about its message names.
const SHOWN: usize = 3;

impl ToolFinding {
    pub fn message(&self, names: &Names) -> String {
        let tool = self.tool;
        let mut out = String::new();
        let first = names.of(self.first);
        // Units are said where they differ.
        let units = self.breach == Breach::Unordered;
        let mut pos = String::new();
        self.first_at.write(tool, units, names, &mut pos);
        let _ = match self.breach {
            Breach::Before => write!(out, "{} deletes {first} ({pos}) before ", tool.name()),
            Breach::Together => write!(out, "{} deletes {first} in the same batch ({pos}) as ", tool.name()),
            Breach::Unordered => write!(out, "{} deletes {first} ({pos}) independently of ", tool.name()),
            Breach::Leaves => write!(out, "{} deletes {first} ({pos}) but leaves ", tool.name()),
        };
        // What goes with another of the list is said with it.
        let listed = |x: ObjId| self.needed_by.iter().any(|n| n.object == x);
        let goes_with = |n: &Needing| n.at.as_ref().and_then(|p| p.with).filter(|w| listed(*w));
        let shown: Vec<&Needing> = self.needed_by.iter().filter(|n| goes_with(n).is_none()).collect();
        for (i, n) in shown.iter().take(SHOWN).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(names.of(n.object));
            let mut at = String::new();
            match (&n.at, &n.left) {
                (Some(p), _) if self.breach != Breach::Together => p.write(tool, units, names, &mut at),
                (Some(Pos { with: Some(w), .. }), _) => {
                    let _ = write!(at, "with {}", names.of(*w));
                }
                (_, Some(o)) => at = o.message(tool, names),
                _ => {}
            }
            if !at.is_empty() {
                let _ = write!(out, " ({at})");
            }
            match self.needed_by.iter().filter(|m| goes_with(m) == Some(n.object)).count() {
                0 => {}
                1 => out.push_str(" and 1 object that goes with it"),
                k => {
                    let _ = write!(out, " and {k} objects that go with it");
                }
            }
        }
        if shown.len() > SHOWN {
            let _ = write!(out, " and {} more", shown.len() - SHOWN);
        }
        let still = match (self.breach, self.needed_by.len()) {
            (Breach::Leaves, 1) => "which still needs it",
            (Breach::Leaves, _) => "which still need it",
            _ => "which teardown destroys first",
        };
        let _ = write!(out, ", {still} ({})", constraint_text(self.relation.kind));
        match (self.breach, tool) {
            (Breach::Together, _) => out.push_str("; nothing makes it wait"),
            (Breach::Unordered, Tool::Flux) => out.push_str(
                "; Kustomizations delete what they applied independently, not in reverse dependsOn (fluxcd/kustomize-controller#301)",
            ),
            (Breach::Unordered, Tool::Argocd) => out.push_str("; each Application deletes its own objects"),
            (Breach::Unordered, _) => {
                let _ = write!(out, "; the order you delete the {}s in decides", tool.unit_noun());
            }
            _ => {}
        }
        out
    }

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
            id.of(&plan.refs)?,
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
