//! A plan as a table, JSON / YAML (CONTRACT §6), names, DOT or Mermaid.

use crate::analysis::cascade::{Cause, Garbage};
use crate::analysis::explain::origin_text;
use crate::load::Snapshot;
use crate::model::{DepKind, Identity, Link, ObjId, Object, RelKind};
use crate::plan::{kept_reason, EventKind, Mode, Plan};
use rayon::prelude::*;
use serde::Serialize;
use std::io::{self, Write};

/// Why an object is in the plan, as text: how it got there, what it depends
/// on, what it waits for.
pub fn reason(snapshot: &Snapshot, plan: &Plan, id: ObjId) -> String {
    let objects = &snapshot.objects;
    let o = &objects[id.index()];
    let mut parts: Vec<String> = Vec::new();
    match plan.cascade.cause[id.index()] {
        Some(Cause::Target) if matches!(plan.options_mode, Mode::Delete(_)) => parts.push("target".into()),
        Some(Cause::Target) if matches!(plan.options_mode, Mode::Prune(_)) => parts.push("absent from NEW".into()),
        Some(Cause::Target) => {
            // --all: say what owns it, if anything does.
            if let Some(r) = first_owner(plan, id) {
                parts.push(r);
            }
        }
        Some(Cause::Garbage(Garbage::BeingDeleted)) => parts.push("being deleted (deletionTimestamp is set)".into()),
        Some(Cause::Garbage(Garbage::NoSolidOwner)) => parts.push(no_solid_owner(snapshot, plan, id)),
        Some(cause @ Cause::Garbage(Garbage::RemovedFromModel)) => parts.push(origin_text(cause).into()),
        Some(Cause::Garbage(Garbage::Unreachable)) => {
            let model_root = o.murano.as_deref().and_then(|m| m.model_root.as_deref());
            parts.push(match (plan.root, model_root) {
                (Some(r), _) => format!("garbage: unreachable from the root {}", plan.refs[r.index()]),
                (None, Some(r)) => format!("garbage: unreachable from the root {r}"),
                (None, None) => "garbage: unreachable (no root)".into(),
            })
        }
        Some(Cause::Relation(r)) => {
            let rel = &plan.relations[r as usize];
            let from = &plan.refs[rel.from.index()];
            parts.push(match rel.kind {
                RelKind::Owns => format!("owned by {from}"),
                RelKind::Contains => format!("in {from}"),
                RelKind::Defines => format!("defined by {from}"),
                RelKind::DestroyAfter | RelKind::Finalizer => format!("with {from}"),
            });
        }
        None => {}
    }
    for (j, d) in o.deps.iter().enumerate() {
        let target = plan
            .graph()
            .around(id)
            .map(|r| &plan.relations[r as usize])
            .find(|r| r.kind == RelKind::DestroyAfter && r.declared_by == id && r.decl == j as u32);
        let Some(target) = target else { continue };
        match d.kind {
            DepKind::Notifies => parts.push(format!("notifies {}", plan.refs[target.from.index()])),
            DepKind::DependsOn => parts.push(format!("depends-on {}", plan.refs[target.from.index()])),
            DepKind::DestroyAfter => parts.push(format!("destroyed after {}", plan.refs[target.to.index()])),
        }
    }
    if o.identity() == Identity::Token {
        parts.extend(pairs_after(plan, id));
    }
    {
        // What it subscribed to: relations declared by what notifies it.
        let mut subscribed: Vec<u32> = plan
            .graph()
            .around(id)
            .filter(|&r| {
                let r = &plan.relations[r as usize];
                r.kind == RelKind::DestroyAfter
                    && r.from == id
                    && objects[r.declared_by.index()]
                        .deps
                        .get(r.decl as usize)
                        .is_some_and(|d| d.kind == DepKind::Notifies)
            })
            .collect();
        subscribed.sort_unstable();
        for r in subscribed {
            parts.push(format!("subscribed to {}", plan.refs[plan.relations[r as usize].to.index()]));
        }
    }
    for f in plan.waits_for(o) {
        let controller = plan.graph().around(id).map(|r| &plan.relations[r as usize]).find(|r| {
            r.kind == RelKind::Finalizer && r.to == id && o.finalizers.get(r.decl as usize).is_some_and(|x| **x == *f)
        });
        match controller {
            Some(r) => parts.push(format!("waits for finalizer {f} (removed by {})", plan.refs[r.from.index()])),
            None => parts.push(format!("waits for finalizer {f}")),
        }
    }
    parts.dedup(); // two subscriptions of one pair are one notification
    parts.join("; ")
}

/// For a token of `--dialect pairs`: the tokens written before it
/// (`after a, b and 3 more`), in input order.
fn pairs_after(plan: &Plan, id: ObjId) -> Option<String> {
    const SHOWN: usize = 3;
    let mut before: Vec<u32> = plan
        .graph()
        .around(id)
        .filter(|&r| {
            let r = &plan.relations[r as usize];
            r.kind == RelKind::DestroyAfter && r.from == id
        })
        .collect();
    if before.is_empty() {
        return None;
    }
    before.sort_unstable();
    let names: Vec<&str> =
        before.iter().take(SHOWN).map(|&r| plan.refs[plan.relations[r as usize].to.index()].as_str()).collect();
    let more = before.len().saturating_sub(SHOWN);
    Some(match more {
        0 => format!("after {}", names.join(", ")),
        _ => format!("after {} and {more} more", names.join(", ")),
    })
}

fn first_owner(plan: &Plan, id: ObjId) -> Option<String> {
    // The first owner as written: the lowest relation index.
    plan.graph()
        .around(id)
        .filter(|&r| {
            let r = &plan.relations[r as usize];
            r.to == id && r.kind == RelKind::Owns && r.link == Link::Solid
        })
        .min()
        .map(|r| format!("owned by {}", plan.refs[plan.relations[r as usize].from.index()]))
}

fn no_solid_owner(snapshot: &Snapshot, plan: &Plan, id: ObjId) -> String {
    let o = &snapshot.objects[id.index()];
    if let Some(&(_, j)) = snapshot.resolved.missing_owners.iter().find(|(d, _)| *d == id) {
        return format!("garbage: owner {} is not in the snapshot (--closed-world)", o.owner_reference(j as usize));
    }
    let broken = plan
        .graph()
        .dependencies(id)
        .into_iter()
        .map(|r| &plan.relations[r as usize])
        .find(|r| r.kind == RelKind::Owns);
    match broken {
        Some(r) if r.link == Link::UidMismatch => {
            format!("garbage: owner {} has another uid", plan.refs[r.from.index()])
        }
        Some(r) if r.link == Link::OtherCoordinates => {
            format!(
                "garbage: owner {} is not in the snapshot; its uid is {}'s",
                snapshot.objects[r.to.index()].owner_reference(r.decl as usize),
                plan.refs[r.from.index()]
            )
        }
        Some(r) if r.link == Link::CrossNamespace => {
            format!("garbage: owner {} is in another namespace", plan.refs[r.from.index()])
        }
        Some(r) => format!("garbage: owner {} is being deleted", plan.refs[r.from.index()]),
        None => "garbage: no owner left".into(),
    }
}

/// The table of steps (stdout); the warnings and summary go to stderr.
/// Rows are made, reasons and all, this many at a time (in parallel), and
/// written before the next: a plan of a million objects is never held as text.
const BATCH: usize = 1 << 16;

/// The plan as a kubectl-style table: STEP, ACTION, OBJECT, REASON.
pub fn table(snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    let orphaned: Vec<(String, String)> = plan
        .cascade
        .orphaned
        .iter()
        .map(|&(_, r)| {
            let owner = plan.relations[r as usize].from;
            (
                plan.order.step[owner.index()].to_string(),
                format!("owner reference to {} removed (--cascade orphan)", plan.refs[owner.index()]),
            )
        })
        .collect();
    let kept: Vec<String> = plan.cascade.kept.iter().map(|&(_, by)| kept_reason(plan, by).0).collect();
    // Widths: the last column is not padded, so reasons need not be known yet.
    let width = |s: &str| s.chars().count();
    let mut widths = [width("STEP"), width("ACTION"), width("OBJECT"), 0];
    widths[0] = widths[0].max(plan.steps.len().to_string().len());
    for (s, _) in &orphaned {
        widths[0] = widths[0].max(s.len());
    }
    let ids = plan.steps.iter().flatten().chain(plan.cascade.orphaned.iter().map(|(id, _)| id));
    let ids = ids.chain(plan.cascade.kept.iter().map(|(id, _)| id));
    widths[2] = widths[2].max(ids.map(|id| width(&plan.refs[id.index()])).max().unwrap_or(0));
    let actions = [("delete", plan.deleted_count()), ("orphan", orphaned.len()), ("keep", kept.len())];
    widths[1] = actions.iter().filter(|(_, n)| *n > 0).map(|(a, _)| a.len()).fold(widths[1], usize::max);
    let columns = super::columns::Columns { widths };
    let mut text = String::new();
    columns.line(["STEP", "ACTION", "OBJECT", "REASON"], &mut text);
    out.write_all(text.as_bytes())?;
    for (i, step) in plan.steps.iter().enumerate() {
        let label = (i + 1).to_string();
        for batch in step.chunks(BATCH) {
            let chunks: Vec<String> = batch
                .par_chunks(1024)
                .map(|ids| {
                    let mut s = String::with_capacity(ids.len() * 100);
                    for &id in ids {
                        let reason = reason(snapshot, plan, id);
                        columns.line([&label, "delete", &plan.refs[id.index()], &reason], &mut s);
                    }
                    s
                })
                .collect();
            for c in chunks {
                out.write_all(c.as_bytes())?;
            }
        }
    }
    text.clear();
    for (&(id, _), (step, reason)) in plan.cascade.orphaned.iter().zip(&orphaned) {
        columns.line([step, "orphan", &plan.refs[id.index()], reason], &mut text);
    }
    for (&(id, _), reason) in plan.cascade.kept.iter().zip(&kept) {
        columns.line(["-", "keep", &plan.refs[id.index()], reason], &mut text);
    }
    out.write_all(text.as_bytes())?;
    // Without subscriptions the events only repeat the steps.
    if plan.events.iter().any(|e| e.kind != EventKind::Destroyed) {
        out.write_all(b"\n")?;
        out.write_all(events_table(plan).as_bytes())?;
    }
    Ok(())
}

/// Murano's notifications, in the order they happen.
fn events_table(plan: &Plan) -> String {
    let rows: Vec<[String; 5]> = plan
        .events
        .iter()
        .map(|e| {
            [
                e.kind.as_str().to_string(),
                e.step.to_string(),
                plan.refs[e.object.index()].clone(),
                e.subscriber.map(|s| plan.refs[s.index()].clone()).unwrap_or_default(),
                e.handlers.join(", "),
            ]
        })
        .collect();
    let header = ["EVENT", "STEP", "OBJECT", "SUBSCRIBER", "HANDLER"];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let columns = super::columns::Columns { widths };
    let mut text = String::new();
    columns.line(header, &mut text);
    for row in &rows {
        columns.line([&row[0], &row[1], &row[2], &row[3], &row[4]], &mut text);
    }
    text
}

/// The warnings, one a line, for stderr (formats that do not carry them).
pub fn warnings(plan: &Plan) -> String {
    let mut out = String::new();
    for w in &plan.warnings {
        match w.rule {
            Some(rule) => out.push_str(&format!("warning[{}]: {}\n", rule.id(), w.message)),
            None => out.push_str(&format!("warning: {}\n", w.message)),
        }
    }
    out
}

/// Warnings and the one-line summary, for stderr under `-o table`.
pub fn summary(plan: &Plan) -> String {
    let mut out = warnings(plan);
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = format!(
        "{} in {}, {} kept",
        plural(plan.deleted_count(), "object", "objects"),
        plural(plan.steps.len(), "step", "steps"),
        plan.cascade.kept.len()
    );
    if !plan.cascade.orphaned.is_empty() {
        line.push_str(&format!(", {} orphaned", plan.cascade.orphaned.len()));
    }
    line.push_str(&format!(", {}", plural(plan.warnings.len(), "warning", "warnings")));
    out.push_str(&line);
    out.push('\n');
    out
}

/// One reference a line, in plan order (ready for `xargs`).
pub fn names(plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    for step in &plan.steps {
        for id in step {
            out.write_all(plan.refs[id.index()].as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct ResourceOut<'a> {
    #[serde(rename = "ref")]
    reference: &'a str,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    action: &'static str,
    reason: String,
    #[serde(rename = "waitsFor", skip_serializing_if = "Vec::is_empty")]
    waits_for: Vec<&'a str>,
    #[serde(rename = "keptBy", skip_serializing_if = "Option::is_none")]
    kept_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    /// Murano: the type as written.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    type_name: Option<&'a str>,
    /// Murano: surviving objects that refer to this one by id; it stays in
    /// the model, marked `destroyed: true`.
    #[serde(rename = "referencedBy", skip_serializing_if = "Vec::is_empty")]
    referenced_by: Vec<&'a str>,
    file: &'a str,
    line: usize,
}

#[derive(Serialize)]
struct EventOut<'a> {
    event: &'static str,
    step: u32,
    object: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    subscriber: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    handlers: Vec<&'a str>,
}

/// The steps, made as they are written (see `BATCH`).
struct StepsOut<'a> {
    snapshot: &'a Snapshot,
    plan: &'a Plan,
}

impl Serialize for StepsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.plan.steps.len()))?;
        for (i, ids) in self.plan.steps.iter().enumerate() {
            seq.serialize_element(&StepOut {
                step: i + 1,
                resources: ResourcesOut { snapshot: self.snapshot, plan: self.plan, ids },
            })?;
        }
        seq.end()
    }
}

struct ResourcesOut<'a> {
    snapshot: &'a Snapshot,
    plan: &'a Plan,
    ids: &'a [ObjId],
}

impl Serialize for ResourcesOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let (snapshot, plan) = (self.snapshot, self.plan);
        let mut seq = s.serialize_seq(Some(self.ids.len()))?;
        for batch in self.ids.chunks(BATCH) {
            let made: Vec<ResourceOut> = batch
                .par_iter()
                .map(|&id| resource(snapshot, plan, id, "delete", reason(snapshot, plan, id)))
                .collect();
            for r in &made {
                seq.serialize_element(r)?;
            }
        }
        seq.end()
    }
}

#[derive(Serialize)]
struct StepOut<'a> {
    step: usize,
    resources: ResourcesOut<'a>,
}

#[derive(Serialize)]
struct RelaxedOut<'a> {
    owner: &'a str,
    dependent: &'a str,
    kind: RelKind,
}

#[derive(Serialize)]
struct CycleOut<'a> {
    kind: &'static str,
    step: u32,
    refs: Vec<&'a str>,
}

#[derive(Serialize)]
struct WarningOut<'a> {
    rule: Option<&'static str>,
    message: &'a str,
    refs: &'a [String],
}

#[derive(Serialize)]
struct InputOut<'a> {
    path: &'a str,
    sha256: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanOut<'a> {
    schema_version: u32,
    mode: &'static str,
    cascade: &'static str,
    multi_owner: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    targets: Vec<&'a str>,
    steps: StepsOut<'a>,
    kept: Vec<ResourceOut<'a>>,
    orphaned: Vec<ResourceOut<'a>>,
    relaxed: Vec<RelaxedOut<'a>>,
    cycles: Vec<CycleOut<'a>>,
    warnings: Vec<WarningOut<'a>>,
    events: Vec<EventOut<'a>>,
    inputs: Vec<InputOut<'a>>,
}

fn resource<'a>(
    snapshot: &'a Snapshot,
    plan: &'a Plan,
    id: ObjId,
    action: &'static str,
    reason: String,
) -> ResourceOut<'a> {
    let o: &Object = &snapshot.objects[id.index()];
    let file = snapshot.sources.get(o.span.file);
    let (uid, oid) = match o.has_coordinates() {
        true => (o.uid.as_deref(), None),
        false => (None, Some(&*o.name)),
    };
    ResourceOut {
        reference: &plan.refs[id.index()],
        kind: &o.kind,
        namespace: o.namespace.as_deref(),
        name: &o.name,
        uid,
        id: oid,
        action,
        reason,
        waits_for: if action == "delete" { plan.waits_for(o).collect() } else { Vec::new() },
        kept_by: None,
        owner: None,
        type_name: o.murano.as_deref().map(|m| &*m.type_name),
        referenced_by: match action {
            "delete" => plan
                .still_referenced
                .iter()
                .find(|(t, _)| *t == id)
                .map(|(_, by)| by.iter().map(|b| plan.refs[b.index()].as_str()).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        },
        file: &file.name,
        line: file.line_index(o.span.start) + 1,
    }
}

fn plan_out<'a>(snapshot: &'a Snapshot, plan: &'a Plan) -> PlanOut<'a> {
    let inputs = snapshot.sources.files.par_iter().map(|f| InputOut { path: &f.name, sha256: f.sha256() }).collect();
    let steps = StepsOut { snapshot, plan };
    let kept = plan
        .cascade
        .kept
        .iter()
        .map(|&(id, by)| {
            let (text, keeper) = kept_reason(plan, by);
            let mut r = resource(snapshot, plan, id, "keep", text);
            r.kept_by = keeper;
            r
        })
        .collect();
    let orphaned = plan
        .cascade
        .orphaned
        .iter()
        .map(|&(id, rel)| {
            let owner = plan.relations[rel as usize].from;
            let text = format!("owner reference to {} removed (--cascade orphan)", plan.refs[owner.index()]);
            let mut r = resource(snapshot, plan, id, "orphan", text);
            r.owner = Some(&plan.refs[owner.index()]);
            r
        })
        .collect();
    let relaxed = plan
        .order
        .relaxed
        .iter()
        .map(|&r| {
            let rel = &plan.relations[r as usize];
            RelaxedOut { owner: &plan.refs[rel.from.index()], dependent: &plan.refs[rel.to.index()], kind: rel.kind }
        })
        .collect();
    let cycles = plan
        .order
        .groups
        .iter()
        .map(|g| CycleOut {
            kind: match g.kind {
                crate::analysis::order::GroupKind::Destruction => "destruction",
                crate::analysis::order::GroupKind::Ownership => "ownership",
            },
            step: g.members.first().map(|m| plan.order.step[m.index()]).unwrap_or(0),
            refs: g.members.iter().map(|m| plan.refs[m.index()].as_str()).collect(),
        })
        .collect();
    let warnings = plan
        .warnings
        .iter()
        .map(|w| WarningOut { rule: w.rule.map(|r| r.id()), message: &w.message, refs: &w.refs })
        .collect();
    let targets = match &plan.options_mode {
        Mode::Delete(t) | Mode::Prune(t) => t.iter().map(|id| plan.refs[id.index()].as_str()).collect(),
        _ => Vec::new(),
    };
    PlanOut {
        schema_version: 1,
        mode: plan.options_mode.name(),
        cascade: plan.cascade_mode.as_str(),
        multi_owner: plan.multi_owner.as_str(),
        targets,
        steps,
        kept,
        orphaned,
        relaxed,
        cycles,
        warnings,
        events: plan
            .events
            .iter()
            .map(|e| EventOut {
                event: e.kind.as_str(),
                step: e.step,
                object: &plan.refs[e.object.index()],
                subscriber: e.subscriber.map(|s| plan.refs[s.index()].as_str()),
                handlers: e.handlers.iter().map(|h| &**h).collect(),
            })
            .collect(),
        inputs,
    }
}

pub fn json(snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &plan_out(snapshot, plan))?;
    out.write_all(b"\n")
}

pub fn yaml(snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    // serde_yaml wraps the writer's error: keep it, so that a closed pipe
    // stays a closed pipe (exit 0), not a YAML error.
    struct Keep<'a> {
        out: &'a mut dyn Write,
        error: Option<io::Error>,
    }
    impl Write for Keep<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.out.write(buf).inspect_err(|e| self.error = Some(io::Error::new(e.kind(), e.to_string())))
        }
        fn flush(&mut self) -> io::Result<()> {
            self.out.flush().inspect_err(|e| self.error = Some(io::Error::new(e.kind(), e.to_string())))
        }
    }
    let mut keep = Keep { out, error: None };
    match serde_yaml::to_writer(&mut keep, &plan_out(snapshot, plan)) {
        Ok(()) => Ok(()),
        Err(e) => Err(keep.error.take().unwrap_or_else(|| io::Error::other(e))),
    }
}

/// How a relation reads along a plan arrow, from what goes first to what
/// goes after it: `ReplicaSet -> Deployment` is "owned by".
fn along(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Owns => "owned by",
        RelKind::Contains => "in",
        RelKind::Defines => "defined by",
        RelKind::DestroyAfter => "before",
        RelKind::Finalizer => "finalizer removed by",
    }
}

/// Constraint edges between objects of the plan, earlier → later, labelled
/// to read along the arrow.
fn plan_edges(plan: &Plan) -> Vec<(ObjId, ObjId, &'static str, bool)> {
    let mut relaxed = vec![false; plan.relations.len()];
    for &r in &plan.order.relaxed {
        relaxed[r as usize] = true;
    }
    plan.relations
        .iter()
        .enumerate()
        .filter(|(_, r)| plan.cascade.deleted(r.from) && plan.cascade.deleted(r.to) && r.from != r.to)
        .filter(|(_, r)| !(r.kind.is_ownership() && r.link != Link::Solid))
        .map(|(i, r)| (r.to, r.from, along(r.kind), relaxed[i]))
        .collect()
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Graphviz: one cluster per step, edges from what goes first to what goes
/// after it.
pub fn dot(plan: &Plan) -> String {
    let mut out = String::from(
        "digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
    );
    for (i, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!("  subgraph cluster_step{} {{\n    label=\"step {}\";\n", i + 1, i + 1));
        for id in step {
            out.push_str(&format!("    n{} [label=\"{}\"];\n", id.0, dot_escape(&plan.refs[id.index()])));
        }
        out.push_str("  }\n");
    }
    for (a, b, label, relaxed) in plan_edges(plan) {
        let style = if relaxed { ", style=dashed, color=red, fontcolor=red" } else { "" };
        let label = if relaxed { format!("{label} (relaxed)") } else { label.to_string() };
        out.push_str(&format!("  n{} -> n{} [label=\"{}\"{style}];\n", a.0, b.0, label));
    }
    out.push_str("}\n");
    out
}

pub fn mermaid(plan: &Plan) -> String {
    let mut out = String::from("flowchart LR\n");
    for (i, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!("  subgraph step{}[\"step {}\"]\n", i + 1, i + 1));
        for id in step {
            out.push_str(&format!("    n{}[\"{}\"]\n", id.0, plan.refs[id.index()].replace('"', "#quot;")));
        }
        out.push_str("  end\n");
    }
    for (a, b, label, relaxed) in plan_edges(plan) {
        let arrow = if relaxed { "-.->" } else { "-->" };
        let label = if relaxed { format!("{label} relaxed") } else { label.to_string() };
        out.push_str(&format!("  n{} {arrow}|{label}| n{}\n", a.0, b.0));
    }
    out
}
