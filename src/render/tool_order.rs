//! `plan --as TOOL`: the tool's order after the plan's table, and the plan
//! file's `as` section. Formatting only: the order, what the tool leaves
//! and the findings are in [`ToolOrder`].

use super::columns::Columns;
use crate::plan::reasons::Names;
use crate::plan::reference::Ref;
use crate::plan::tool_order::{constraint_type, BatchKey, Needing, Other, Pos, Tool, ToolFinding, ToolOrder};
use crate::plan::Plan;
use serde::Serialize;

/// What the tool does, said before its order.
fn intro(tool: Tool) -> &'static str {
    match tool {
        Tool::Helm | Tool::Helm4 => {
            "deletes kind by kind (helm uninstall): a kind's delete calls go out once the previous\nkind's have returned; it waits for no object to be gone."
        }
        Tool::Argocd => {
            "deletes the highest sync wave first (deleting the Application), a whole wave at once,\nthe next once it is gone."
        }
        Tool::Kapp => {
            "deletes custom resources, then CRDs, then the rest, as the objects' delete change rules\nallow (kapp delete), each step once the one before is gone."
        }
        Tool::Flux => {
            "deletes in reverse apply order, one call after the other, waiting for no object to be\ngone (a Kustomization's garbage collection); Kustomizations do so independently."
        }
    }
}

/// The NOTE of a batch's object.
fn batch_note(key: &BatchKey) -> String {
    match key {
        BatchKey::Kind { kind, known: false } => format!("{kind} (a kind Helm does not order: last)"),
        BatchKey::Hook { .. } => format!("run: {}", key.text()),
        _ => key.text(),
    }
}

/// The tool's order as a table: the tool's rank, the object's step in
/// teardown's plan, the object, a note; a heading per named unit; then the
/// objects the tool does not delete itself.
pub fn table(order: &ToolOrder, plan: &Plan) -> String {
    let names = plan.names();
    let tool = order.tool;
    let step = |id: crate::model::ObjId| plan.order.step.get(id.index()).copied().unwrap_or(0).to_string();
    let column = tool.id().to_ascii_uppercase();
    // (heading before this row, cells)
    let mut rows: Vec<(Option<String>, [String; 4])> = Vec::new();
    let mut unit = u32::MAX;
    for b in &order.batches {
        let mut heading = None;
        if b.unit != unit {
            unit = b.unit;
            heading = order
                .units
                .get(b.unit as usize)
                .and_then(|u| u.name.as_ref())
                .map(|n| format!("{} {n}:", tool.unit_noun()));
        }
        for &id in &b.objects {
            let mut note = batch_note(&b.key);
            if order.cycle.contains(&id) {
                note = String::from("in a cycle of delete change rules: kapp refuses to delete");
            }
            rows.push((heading.take(), [b.rank.to_string(), step(id), names.of(id).to_string(), note]));
        }
    }
    let mut heading = (!order.others.is_empty()).then(|| format!("not deleted by {} itself:", tool.name()));
    for (id, other) in &order.others {
        rows.push((
            heading.take(),
            [String::from("-"), step(*id), names.of(*id).to_string(), other.message(tool, &names)],
        ));
    }
    let head = [column.as_str(), "STEP", "OBJECT", "NOTE"];
    let columns = Columns { widths: super::columns::widths(head, rows.iter().map(|(_, row)| row)) };
    let mut out = format!("\n{} {}\n", tool.name(), intro(tool));
    columns.line(head, &mut out);
    for (heading, row) in &rows {
        if let Some(h) = heading {
            out.push_str(&crate::escape::escape(h));
            out.push('\n');
        }
        columns.line(row.each_ref().map(String::as_str), &mut out);
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOrderOut<'a> {
    tool: &'static str,
    name: &'static str,
    /// Does the tool wait for a batch to be gone before the next?
    waits: bool,
    units: Vec<Option<&'a str>>,
    order: Vec<BatchOut<'a>>,
    others: Vec<OtherOut<'a>>,
    findings: Vec<FindingOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    cycle: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BatchOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    unit: Option<&'a str>,
    rank: u32,
    /// `delete`, or `run` (a Helm hook).
    action: &'static str,
    /// What the batch is: `kind`, `hook`, `wave`, `level` or `call`.
    by: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    known: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hook: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wave: Option<i32>,
    refs: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OtherOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    with: Option<&'a str>,
    /// The relation it goes with its carrier by.
    #[serde(skip_serializing_if = "Option::is_none")]
    how: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotation: Option<&'static str>,
    message: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PosOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unit: Option<&'a str>,
    /// Its batch's rank; none when the tool leaves it.
    #[serde(skip_serializing_if = "Option::is_none")]
    rank: Option<u32>,
    /// It goes with this object, which the tool deletes.
    #[serde(skip_serializing_if = "Option::is_none")]
    with: Option<&'a str>,
    /// Why the tool leaves it.
    #[serde(skip_serializing_if = "Option::is_none")]
    left: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ConstraintOut {
    /// `ownership`, `destruction` or `rule`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The relation (`contains`, `destroy-after`, `rule`…).
    relation: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FindingOut<'a> {
    /// `before`, `together`, `unordered` or `leaves`.
    #[serde(rename = "type")]
    kind: &'static str,
    rule: &'static str,
    /// The object the tool deletes too early.
    first: PosOut<'a>,
    /// What still needs it.
    needed_by: Vec<PosOut<'a>>,
    constraint: ConstraintOut,
    message: String,
}

fn pos_out<'a>(id: crate::model::ObjId, at: Option<&'a Pos>, left: Option<&Other>, names: &Names<'a>) -> PosOut<'a> {
    PosOut {
        object: Ref::new(names.of(id)),
        unit: at.and_then(|p| p.unit.as_deref()),
        rank: at.map(|p| p.rank),
        with: at.and_then(|p| p.with).map(|w| names.of(w)),
        left: left.map(Other::id),
    }
}

fn finding_out<'a>(f: &'a ToolFinding, names: &Names<'a>) -> FindingOut<'a> {
    let kind = f.relation.kind;
    FindingOut {
        kind: f.breach.id(),
        rule: crate::findings::Rule::Td016.id(),
        first: pos_out(f.first, Some(&f.first_at), None, names),
        needed_by: f
            .needed_by
            .iter()
            .map(|Needing { object, at, left }| pos_out(*object, at.as_ref(), left.as_ref(), names))
            .collect(),
        constraint: ConstraintOut {
            kind: constraint_type(kind),
            relation: kind.as_str(),
            rule: kind.rule().map(|e| e.rule().id()),
            why: kind.rule().map(|e| e.id()),
        },
        message: f.message(names),
    }
}

/// The plan file's `as` section.
pub fn out<'a>(order: &'a ToolOrder, plan: &'a Plan) -> ToolOrderOut<'a> {
    let names = plan.names();
    let unit = |u: u32| order.units.get(u as usize).and_then(|u| u.name.as_deref());
    ToolOrderOut {
        tool: order.tool.id(),
        name: order.tool.name(),
        waits: order.tool.waits(),
        units: order.units.iter().map(|u| u.name.as_deref()).collect(),
        order: order
            .batches
            .iter()
            .map(|b| {
                let mut o = BatchOut {
                    unit: unit(b.unit),
                    rank: b.rank,
                    action: if b.key.is_hook() { "run" } else { "delete" },
                    by: "",
                    kind: None,
                    known: None,
                    hook: None,
                    weight: None,
                    wave: None,
                    refs: b.objects.iter().map(|id| names.of(*id)).collect(),
                };
                match &b.key {
                    BatchKey::Kind { kind, known } => {
                        o.by = "kind";
                        o.kind = Some(kind);
                        o.known = Some(*known);
                    }
                    BatchKey::Hook { hook, weight } => {
                        o.by = "hook";
                        o.hook = Some(super::prose::hook_name(*hook));
                        o.weight = Some(*weight);
                    }
                    BatchKey::Wave(w) => {
                        o.by = "wave";
                        o.wave = Some(*w);
                    }
                    BatchKey::Level => o.by = "level",
                    BatchKey::Call => o.by = "call",
                }
                o
            })
            .collect(),
        others: order
            .others
            .iter()
            .map(|(id, other)| OtherOut {
                object: Ref::new(names.of(*id)),
                kind: other.id(),
                with: match other {
                    Other::With { carrier, .. } => Some(names.of(*carrier)),
                    _ => None,
                },
                how: match other {
                    Other::With { how, .. } => Some(how.as_str()),
                    _ => None,
                },
                annotation: match other {
                    Other::Kept(k) => Some(k.annotation()),
                    _ => None,
                },
                message: other.message(order.tool, &names),
            })
            .collect(),
        findings: order.findings.iter().map(|f| finding_out(f, &names)).collect(),
        cycle: order.cycle.iter().map(|id| names.of(*id)).collect(),
    }
}
