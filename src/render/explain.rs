//! `teardown explain` output: the table (text), JSON or YAML. (`-o names`
//! and `-o refs`: `super::names`.)

use super::diagnostics::Style;
use super::paint::{kind_len, Paint};
use crate::model::{ControllerEdge, ObjId, Object, RelKind, Relation};
use crate::plan::explain::{origin_text, Explanation, Link, Status};
use crate::plan::reasons::{controller_why, orphaned_message};
use crate::plan::Plan;
use serde::Serialize;
use std::io::{self, Write};

/// `X owns Y` read from X: the verb for a relation, in the cascade direction.
fn cascade_verb(r: &Relation) -> &'static str {
    match r.kind {
        RelKind::Owns => "owns",
        RelKind::Contains => "contains",
        RelKind::Defines => "defines",
        RelKind::Manages => "manages",
        RelKind::Controller(_) => "takes",
        RelKind::DestroyAfter | RelKind::Finalizer | RelKind::ComponentOrder | RelKind::Rule(_) | RelKind::Tool(_) => {
            "goes after"
        }
    }
}

/// `X takes Y (the endpoints controller)`: the cascade verb, the next
/// object, and for a controller's cascade who performs it.
fn cascade_phrase(r: &Relation, next: &str) -> String {
    match r.kind {
        RelKind::Controller(e) => format!("{} {next} ({})", cascade_verb(r), controller_why(e).1),
        _ => format!("{} {next}", cascade_verb(r)),
    }
}

/// An object's reference, its kind painted.
fn who(plan: &Plan, objects: &[Object], id: ObjId, style: Style) -> String {
    let r = &plan.refs[id.index()];
    match objects.get(id.index()) {
        Some(o) => style.reference(r, kind_len(o)),
        None => r.clone(),
    }
}

/// Why X goes after Y, read from X.
fn order_phrase(plan: &Plan, r: &Relation, next: &str) -> String {
    match r.kind {
        RelKind::Owns | RelKind::Contains | RelKind::Defines | RelKind::Manages => {
            format!("{} {next}", cascade_verb(r))
        }
        RelKind::ComponentOrder => format!("goes after {next}, whose component depends on its own"),
        RelKind::DestroyAfter if r.declared_by == r.to && plan.murano.get(r.to.index()) == Some(&true) => {
            format!("goes after {next}, whose destruction it subscribed to")
        }
        RelKind::DestroyAfter if r.declared_by == r.to => format!("goes after {next}, which depends on it"),
        RelKind::DestroyAfter => format!("is destroyed after {next}"),
        RelKind::Finalizer => format!("goes after {next}, whose finalizer its controller removes"),
        RelKind::Rule(e) => {
            format!("goes after {next}, {} (default rule {})", crate::plan::reasons::rule_why(e), e.rule().id())
        }
        RelKind::Tool(e) => {
            format!(
                "goes after {next}, {} ({} {})",
                crate::plan::reasons::tool_why(e.order),
                e.order.tool(),
                e.order.key()
            )
        }
        RelKind::Controller(e) => {
            let why = match e {
                ControllerEdge::ServiceEndpoints => {
                    "its Service: the endpoints controller deletes it once the Service is gone"
                }
                ControllerEdge::NodePods => "bound to it: Pods go before their Node, as a drain evicts them",
                ControllerEdge::ReclaimDelete | ControllerEdge::Released => {
                    "its claim: the volume controller reclaims it once the claim is gone"
                }
            };
            format!("goes after {next}, {why}")
        }
    }
}

/// How the chain that reaches an object starts.
fn origin(plan: &Plan, e: &Explanation) -> String {
    if let Some(r) = &e.origin_reason {
        let mut s = String::new();
        r.write(&plan.names(), &mut s);
        return s;
    }
    e.origin.map_or("", |cause| origin_text(cause, &plan.options_mode)).to_string()
}

fn step_note(plan: &Plan, link: &Link) -> String {
    if plan.cascade.deleted(link.object) {
        format!("step {}", plan.order.step[link.object.index()])
    } else {
        "not deleted".to_string()
    }
}

/// The explanations as text (`-o table`); with colour, kinds, what
/// happens to the object and the headings are painted.
pub fn text(plan: &Plan, objects: &[Object], explanations: &[Explanation], style: Style) -> String {
    let who = |id: ObjId| who(plan, objects, id, style);
    let heading = |text: &str| style.paint(Paint::Heading, text);
    let mut out = String::new();
    for (n, e) in explanations.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let me = who(e.object);
        match &e.status {
            Status::Deleted { step } => {
                let deleted = style.paint(Paint::Delete, "deleted");
                out.push_str(&format!("{me}: {deleted} in step {step} of {}\n", plan.order.steps));
                if let Some(run) = &e.run {
                    out.push_str(&format!("  {}\n", run.message()));
                }
                out.push_str(&format!("\n{}\n", heading("why it is deleted:")));
                for (i, link) in e.reached.iter().enumerate() {
                    let who = who(link.object);
                    if i == 0 {
                        let why = origin(plan, e);
                        out.push_str(&format!("  {who} ({why})\n"));
                    } else if let Some(r) = e.reached[i - 1].relation {
                        out.push_str(&format!("  └ {}\n", cascade_phrase(&plan.relations[r as usize], &who)));
                    }
                }
                out.push_str(&format!("\n{}\n", heading(&format!("why step {step}:"))));
                if e.before.len() <= 1 {
                    out.push_str("  nothing in the plan must be destroyed before it\n");
                } else {
                    for (i, link) in e.before.iter().enumerate() {
                        let note = step_note(plan, link);
                        if i == 0 {
                            out.push_str(&format!("  {} ({note})\n", who(link.object)));
                        } else {
                            let prev = e.before[i - 1].relation.map(|r| &plan.relations[r as usize]);
                            let phrase = prev.map(|r| order_phrase(plan, r, &who(r.to))).unwrap_or_default();
                            out.push_str(&format!("  └ {phrase} ({note})\n"));
                        }
                    }
                }
            }
            Status::Kept(by) => {
                let kept = style.paint(Paint::Keep, "kept");
                out.push_str(&format!("{me}: {kept}, {}\n", by.message(&plan.names())));
                if let Some(run) = &e.run {
                    out.push_str(&format!("  {}\n", run.message()));
                }
                if let Some(r) = e.reached_via {
                    let owner = who(plan.relations[r as usize].taker());
                    let because = by.because();
                    out.push_str(&format!("  deleting {owner} does not take it, because {because}\n"));
                }
            }
            Status::Orphaned(owner) => {
                let owner = who(*owner);
                let orphaned = style.paint(Paint::Orphan, "orphaned");
                out.push_str(&format!(
                    "{me}: {orphaned}: not deleted; its owner reference to {owner} is removed (--cascade orphan)\n"
                ));
            }
            Status::NotInPlan => {
                let not = style.paint(Paint::Quiet, "not in the plan");
                match &e.mark {
                    Some(m) => out.push_str(&format!("{me}: {not}: mark: {}\n", m.message(&plan.names()))),
                    None => out.push_str(&format!(
                        "{me}: {not}: it is not a target, and nothing deleted owns or contains it\n"
                    )),
                }
            }
        }
    }
    out
}

#[derive(Serialize)]
struct LinkOut<'a> {
    #[serde(rename = "ref")]
    reference: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u32>,
    /// The relation to the next link, read from this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<&'static str>,
    /// For a controller's cascade: which one (`node-pods`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplanationOut<'a> {
    #[serde(rename = "ref")]
    reference: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u32>,
    steps: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<String>,
    reached: Vec<LinkOut<'a>>,
    before: Vec<LinkOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mark: Option<String>,
    /// A Helm hook the plan lists as run: where.
    #[serde(skip_serializing_if = "Option::is_none")]
    hook: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplainOut<'a> {
    schema_version: u32,
    explanations: Vec<ExplanationOut<'a>>,
}

fn links<'a>(plan: &'a Plan, chain: &[Link], with_step: bool) -> Vec<LinkOut<'a>> {
    chain
        .iter()
        .map(|l| LinkOut {
            reference: &plan.refs[l.object.index()],
            step: if with_step && plan.cascade.deleted(l.object) {
                Some(plan.order.step[l.object.index()])
            } else {
                None
            },
            relation: l.relation.map(|r| plan.relations[r as usize].kind.as_str()),
            cascade: l.relation.and_then(|r| plan.relations[r as usize].kind.controller()).map(ControllerEdge::id),
        })
        .collect()
}

/// The explanations as a document (`-o json`, `-o yaml`).
fn document<'a>(plan: &'a Plan, explanations: &[Explanation]) -> ExplainOut<'a> {
    let explanations = explanations
        .iter()
        .map(|e| {
            let (status, step, reason) = match &e.status {
                Status::Deleted { step } => ("deleted", Some(*step), None),
                Status::Kept(by) => ("kept", None, Some(by.message(&plan.names()))),
                Status::Orphaned(owner) => ("orphaned", None, Some(orphaned_message(*owner, &plan.names()))),
                Status::NotInPlan => ("not-in-plan", None, None),
            };
            ExplanationOut {
                reference: &plan.refs[e.object.index()],
                status,
                step,
                steps: plan.order.steps,
                origin: e.origin.map(|_| origin(plan, e)),
                reached: links(plan, &e.reached, false),
                before: links(plan, &e.before, true),
                reason,
                mark: e.mark.as_ref().map(|m| m.message(&plan.names())),
                hook: e.run.as_ref().map(|r| r.message()),
            }
        })
        .collect();
    ExplainOut { schema_version: 1, explanations }
}

pub fn json(plan: &Plan, explanations: &[Explanation]) -> String {
    let mut s = serde_json::to_string_pretty(&document(plan, explanations)).unwrap_or_default();
    s.push('\n');
    s
}

/// The same document as [`json`], in YAML.
pub fn yaml(plan: &Plan, explanations: &[Explanation], out: &mut dyn Write) -> io::Result<()> {
    super::yaml::write(&document(plan, explanations), out)
}
