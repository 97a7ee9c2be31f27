//! `teardown explain` output: the table (text), JSON or YAML. (`-o names`
//! and `-o refs`: `super::names`.)

use super::diagnostics::Style;
use super::paint::{kind_len, Paint};
use super::prose::{cascade_phrase, order_phrase, origin_text, orphaned_message, ORPHAN_FINALIZER_RULE};
use crate::escape::escape;
use crate::internal::{entry, Internal};
use crate::model::{ControllerEdge, ObjId, Object, Relation};
use crate::plan::explain::{Explanation, Link, Status};
use crate::plan::reference::Ref;
use crate::plan::Plan;
use serde::Serialize;
use std::io::{self, Write};

/// Relation `r` of the plan.
fn relation(plan: &Plan, r: u32) -> Result<&Relation, Internal> {
    entry(&plan.relations, r as usize, "relation")
}

/// An object's reference, its kind painted.
fn who(plan: &Plan, objects: &[Object], id: ObjId, style: Style) -> Result<String, Internal> {
    let r = plan.refs.at(id)?;
    Ok(match objects.get(id.index()) {
        Some(o) => style.reference(r, kind_len(o)),
        None => r.to_owned(),
    })
}

/// The object a link's relation runs through, when it is not the link's
/// own: ownership that runs through a relaxed link (P owns G through C), a
/// dependency of another member of a cycle. (Default rules and other
/// tools' group orders pass nodes of their own, and say so themselves.)
fn through(r: &Relation, at: ObjId) -> Option<ObjId> {
    (r.from != at && r.kind.rule().is_none() && r.kind.tool().is_none()).then_some(r.from)
}

/// How the chain that reaches an object starts.
fn origin(plan: &Plan, e: &Explanation) -> String {
    if let Some(r) = &e.origin_reason {
        let mut s = String::new();
        r.write(&plan.names(), &mut s);
        return s;
    }
    e.origin.map_or("", |cause| origin_text(cause, &plan.options_mode, plan.models)).to_string()
}

fn step_note(plan: &Plan, link: &Link) -> Result<String, Internal> {
    Ok(if plan.cascade.deleted(link.object) {
        format!("step {}", link.object.of(&plan.order.step)?)
    } else {
        "not deleted".to_string()
    })
}

/// The explanations as text (`-o table`); with colour, kinds, what
/// happens to the object and the headings are painted.
pub fn text(plan: &Plan, objects: &[Object], explanations: &[Explanation], style: Style) -> Result<String, Internal> {
    let who = |id: ObjId| who(plan, objects, id, style);
    let heading = |text: &str| style.paint(Paint::Heading, text);
    let mut out = String::new();
    for (n, e) in explanations.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let me = who(e.object)?;
        match &e.status {
            Status::Deleted { step } => {
                let deleted = style.paint(Paint::Delete, "deleted");
                out.push_str(&format!("{me}: {deleted} in step {step} of {}\n", plan.order.steps));
                if let Some(run) = &e.run {
                    out.push_str(&format!("  {}\n", escape(&run.message())));
                }
                out.push_str(&format!("\n{}\n", heading("why it is deleted:")));
                let mut prev: Option<&Link> = None;
                for link in &e.reached {
                    let who = who(link.object)?;
                    match prev {
                        None => {
                            let why = origin(plan, e);
                            let why = escape(&why);
                            out.push_str(&format!("  {who} ({why})\n"));
                        }
                        Some(Link { relation: Some(r), .. }) => {
                            out.push_str(&format!("  └ {}\n", cascade_phrase(relation(plan, *r)?, &who)));
                        }
                        Some(_) => {}
                    }
                    prev = Some(link);
                }
                out.push_str(&format!("\n{}\n", heading(&format!("why step {step}:"))));
                if e.before.len() <= 1 {
                    out.push_str("  nothing in the plan must be destroyed before it\n");
                } else {
                    let mut prev: Option<&Link> = None;
                    for link in &e.before {
                        let note = step_note(plan, link)?;
                        match prev {
                            None => out.push_str(&format!("  {} ({note})\n", who(link.object)?)),
                            Some(p) => {
                                let phrase = match p.relation.map(|r| relation(plan, r)).transpose()? {
                                    Some(r) => match through(r, p.object) {
                                        Some(x) => {
                                            format!("{} through {}", order_phrase(plan, r, &who(r.to)?), who(x)?)
                                        }
                                        None => order_phrase(plan, r, &who(r.to)?),
                                    },
                                    None => String::new(),
                                };
                                out.push_str(&format!("  └ {phrase} ({note})\n"));
                            }
                        }
                        prev = Some(link);
                    }
                }
            }
            Status::Kept(by) => {
                let kept = style.paint(Paint::Keep, "kept");
                out.push_str(&format!("{me}: {kept}, {}\n", escape(&by.message(&plan.names()))));
                if let Some(rule) = by.rule() {
                    out.push_str(&format!("  the collector's rule: {rule}\n"));
                }
                if let Some(run) = &e.run {
                    out.push_str(&format!("  {}\n", escape(&run.message())));
                }
                if let Some(r) = e.reached_via {
                    let owner = who(relation(plan, r)?.taker())?;
                    let because = by.because();
                    let because = escape(because);
                    out.push_str(&format!("  deleting {owner} does not take it, because {because}\n"));
                }
            }
            Status::Orphaned(owner) => {
                let by_finalizer = plan.orphaned_by_finalizer(*owner);
                let owner = who(*owner)?;
                let orphaned = style.paint(Paint::Orphan, "orphaned");
                match by_finalizer {
                    false => out.push_str(&format!(
                        "{me}: {orphaned}: not deleted; its owner reference to {owner} is removed (--cascade orphan)\n"
                    )),
                    true => {
                        out.push_str(&format!(
                            "{me}: {orphaned}: not deleted; its owner reference to {owner} is removed: {owner} is deleted with the orphan finalizer\n"
                        ));
                        out.push_str(&format!("  the collector's rule: {ORPHAN_FINALIZER_RULE}\n"));
                    }
                }
            }
            Status::NotInPlan => {
                let not = style.paint(Paint::Quiet, "not in the plan");
                match &e.mark {
                    Some(m) => out.push_str(&format!("{me}: {not}: mark: {}\n", escape(&m.message(&plan.names())))),
                    None => out.push_str(&format!(
                        "{me}: {not}: it is not a target, and nothing deleted owns or contains it\n"
                    )),
                }
            }
        }
    }
    Ok(out)
}

#[derive(Serialize)]
struct LinkOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u32>,
    /// The relation to the next link, read from this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    relation: Option<&'static str>,
    /// For a controller's cascade: which one (`node-pods`…).
    #[serde(skip_serializing_if = "Option::is_none")]
    cascade: Option<&'static str>,
    /// The object the relation runs through, when it is not this link's
    /// (ownership through a relaxed link, a dependency of another member
    /// of a cycle).
    #[serde(skip_serializing_if = "Option::is_none")]
    through: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ExplanationOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
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
    /// The Kubernetes garbage collector's rule the reason follows, with
    /// its upstream source, for the rules teardown names.
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
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

fn links<'a>(plan: &'a Plan, chain: &[Link], with_step: bool) -> Result<Vec<LinkOut<'a>>, Internal> {
    chain
        .iter()
        .map(|l| {
            let rel = l.relation.map(|r| relation(plan, r)).transpose()?;
            let kind = rel.map(|r| r.kind);
            // (Only the chain of steps reads relations forward from a link.)
            let through =
                rel.filter(|_| with_step).and_then(|r| through(r, l.object)).map(|x| plan.refs.at(x)).transpose()?;
            Ok(LinkOut {
                object: Ref::new(plan.refs.at(l.object)?),
                step: if with_step && plan.cascade.deleted(l.object) {
                    Some(*l.object.of(&plan.order.step)?)
                } else {
                    None
                },
                relation: kind.map(|k| k.as_str()),
                cascade: kind.and_then(|k| k.controller()).map(ControllerEdge::id),
                through,
            })
        })
        .collect()
}

/// The explanations as a document (`-o json`, `-o yaml`).
fn document<'a>(plan: &'a Plan, explanations: &[Explanation]) -> Result<ExplainOut<'a>, Internal> {
    let explanations = explanations
        .iter()
        .map(|e| {
            let (status, step, reason, rule) = match &e.status {
                Status::Deleted { step } => ("deleted", Some(*step), None, None),
                Status::Kept(by) => ("kept", None, Some(by.message(&plan.names())), by.rule()),
                Status::Orphaned(owner) => {
                    let by_finalizer = plan.orphaned_by_finalizer(*owner);
                    let rule = by_finalizer.then_some(ORPHAN_FINALIZER_RULE);
                    ("orphaned", None, Some(orphaned_message(*owner, &plan.names(), by_finalizer)), rule)
                }
                Status::NotInPlan => ("not-in-plan", None, None, None),
            };
            Ok(ExplanationOut {
                object: Ref::new(plan.refs.at(e.object)?),
                status,
                step,
                steps: plan.order.steps,
                origin: e.origin.map(|_| origin(plan, e)),
                reached: links(plan, &e.reached, false)?,
                before: links(plan, &e.before, true)?,
                reason,
                rule,
                mark: e.mark.as_ref().map(|m| m.message(&plan.names())),
                hook: e.run.as_ref().map(|r| r.message()),
            })
        })
        .collect::<Result<_, Internal>>()?;
    Ok(ExplainOut { schema_version: 1, explanations })
}

pub fn json(plan: &Plan, explanations: &[Explanation]) -> Result<String, Internal> {
    let mut s = serde_json::to_string_pretty(&document(plan, explanations)?).unwrap_or_default();
    s.push('\n');
    Ok(s)
}

/// The same document as [`json`], in YAML.
pub fn yaml(plan: &Plan, explanations: &[Explanation], out: &mut dyn Write) -> io::Result<()> {
    super::yaml::write(&document(plan, explanations)?, out)
}
