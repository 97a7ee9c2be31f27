//! A plan as a table, JSON / YAML (CONTRACT §6), names, DOT or Mermaid.
//! Formatting only: every reason, warning and place is in the plan.

use super::count;
use super::diagnostics::Style;
use super::json;
use super::paint::{kind_len, Paint};
use super::prose;
use crate::dialect::tools::{keep_mark, order_key, CLI_UTILS_MUTATION, HELM_HOOK};
use crate::internal::{entry, Internal};
use crate::load::Snapshot;
use crate::model::{HubEnd, Link, ObjId, Object, RelKind, RuleEdge};
use crate::plan::reasons::Names;
use crate::plan::reference::Ref;
use crate::plan::{EventKind, Garbage, Kept, Plan, Reason, Root};
use rayon::prelude::*;
use serde::Serialize;
use std::io::{self, Write};

/// Rows (and JSON resources) are made this many at a time, in parallel,
/// and written before the next: a plan of a million objects is never held
/// as text.
const BATCH: usize = 1 << 14;

/// The plan as a kubectl-style table: STEP, ACTION, OBJECT, REASON. (The
/// warnings and summary go to stderr.) With colour, actions and the
/// objects' kinds are painted.
pub fn table(plan: &Plan, objects: &[Object], style: Style, wide: bool, out: &mut dyn Write) -> io::Result<()> {
    let names = plan.names();
    let orphaned: Vec<(String, String)> = plan
        .orphaned
        .iter()
        .map(|&(_, owner)| {
            let why = prose::orphaned_message(owner, &names, plan.orphaned_by_finalizer(owner));
            Ok((owner.of(&plan.order.step)?.to_string(), why))
        })
        .collect::<Result<_, Internal>>()?;
    let kept: Vec<String> = plan.kept.iter().map(|(_, by)| by.message(&names)).collect();
    // Widths: the last column is not padded, so reasons need not be known yet.
    let width = crate::escape::width;
    let mut widths = [width("STEP"), width("ACTION"), width("OBJECT"), 0];
    widths[0] = widths[0].max(plan.steps.len().to_string().len());
    for (s, _) in &orphaned {
        widths[0] = widths[0].max(s.len());
    }
    let ids = plan.steps.iter().flatten().chain(plan.orphaned.iter().map(|(id, _)| id));
    let ids = ids.chain(plan.kept.iter().map(|(id, _)| id));
    widths[2] = widths[2].max(ids.map(|id| width(names.of(*id))).max().unwrap_or(0));
    let actions = [("delete", plan.deleted_count()), ("orphan", orphaned.len()), ("keep", kept.len())];
    widths[1] = actions.iter().filter(|(_, n)| *n > 0).map(|(a, _)| a.len()).fold(widths[1], usize::max);
    if !plan.data_loss.is_empty() {
        widths[1] = widths[1].max(LOST.len());
    }
    let columns = super::columns::Columns { widths };
    let row = |cells: [&str; 4], id: ObjId, action: Paint, out: &mut String| -> Result<(), Internal> {
        match style.color {
            false => columns.line(cells, out),
            true => {
                let kind = Some((Paint::Kind, kind_len(id.of(objects)?)));
                let [step, act, object, reason] = cells;
                let cells = [(step, None), (act, Some((action, usize::MAX))), (object, kind), (reason, None)];
                columns.line_painted(cells, style, out)
            }
        }
        Ok(())
    };
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
                        let reason = match wide {
                            true => prose::reasons(plan.reasons.of(id), &names),
                            false => super::glance::short_reason(plan.reasons.of(id), &names),
                        };
                        let action = if plan.loss_of(id).is_some() { LOST } else { "delete" };
                        row([&label, action, names.of(id), &reason], id, Paint::Delete, &mut s)?;
                    }
                    Ok(s)
                })
                .collect::<Result<_, Internal>>()?;
            for c in chunks {
                out.write_all(c.as_bytes())?;
            }
        }
    }
    text.clear();
    for (&(id, _), (step, reason)) in plan.orphaned.iter().zip(&orphaned) {
        row([step, "orphan", names.of(id), reason], id, Paint::Orphan, &mut text)?;
    }
    for (&(id, _), reason) in plan.kept.iter().zip(&kept) {
        let action = if plan.loss_of(id).is_some() { KEPT_LOST } else { "keep" };
        row(["-", action, names.of(id), reason], id, Paint::Keep, &mut text)?;
    }
    out.write_all(text.as_bytes())?;
    if !plan.data_loss.is_empty() {
        out.write_all(b"\n")?;
        out.write_all(super::glance::data_loss_table(plan).as_bytes())?;
    }
    // Without subscriptions the events only repeat the steps.
    if plan.events.iter().any(|e| e.kind != EventKind::Destroyed) {
        out.write_all(b"\n")?;
        out.write_all(events_table(plan).as_bytes())?;
    }
    if !plan.hooks.is_empty() {
        out.write_all(b"\n")?;
        out.write_all(hooks_table(plan).as_bytes())?;
    }
    if let Some(stages) = &plan.stages {
        out.write_all(b"\n")?;
        out.write_all(super::tracking::table(&names, stages).as_bytes())?;
    }
    if let Some(order) = &plan.tool_order {
        out.write_all(super::tool_order::table(order, plan).as_bytes())?;
    }
    Ok(())
}

/// The action of a deleted object the plan destroys for good (the table's
/// marker; the section after the table says what goes).
const LOST: &str = "delete!";
/// A kept object whose contents the plan destroys (a recycled volume).
const KEPT_LOST: &str = "keep!";

/// The Helm hooks that run around the steps, in the order they run.
fn hooks_table(plan: &Plan) -> String {
    let names = plan.names();
    let rows: Vec<[String; 5]> = plan
        .hooks
        .iter()
        .map(|h| {
            [
                prose::hook_name(h.hook).to_string(),
                format!("{} step {}", prose::hook_when(h), h.step),
                names.of(h.object).to_string(),
                format!("{}/{}", h.release.0, h.release.1),
                h.weight.to_string(),
            ]
        })
        .collect();
    let header = ["HELM HOOK", "RUNS", "OBJECT", "RELEASE", "WEIGHT"];
    super::columns::table(header, &rows)
}

/// Murano's notifications, in the order they happen.
fn events_table(plan: &Plan) -> String {
    let names = plan.names();
    let rows: Vec<[String; 5]> = plan
        .events
        .iter()
        .map(|e| {
            [
                e.kind.as_str().to_string(),
                e.step.to_string(),
                names.of(e.object).to_string(),
                e.subscriber.map(|s| names.of(s).to_string()).unwrap_or_default(),
                e.handlers.join(", "),
            ]
        })
        .collect();
    let header = ["EVENT", "STEP", "OBJECT", "SUBSCRIBER", "HANDLER"];
    super::columns::table(header, &rows)
}

/// The warnings, one a line (for the header of a script).
pub fn warnings(plan: &Plan) -> String {
    warnings_painted(plan, Style { color: false })
}

/// The warnings, one a line, for stderr (formats that do not carry them),
/// `warning[…]` painted with colour.
pub fn warnings_painted(plan: &Plan, style: Style) -> String {
    let names = plan.names();
    let mut out = String::new();
    for w in &plan.warnings {
        let paint = if w.is_note() { Paint::Quiet } else { Paint::Warning };
        style.push(paint, &w.head(), &mut out);
        out.push_str(": ");
        out.push_str(&crate::escape::escape(&w.message(&names)));
        out.push('\n');
    }
    out
}

/// Warnings and the one-line summary, for stderr under `-o table`.
pub fn summary(plan: &Plan, summary: &crate::plan::summary::Summary, style: Style) -> String {
    let mut out = warnings_painted(plan, style);
    let mut line = format!(
        "{} in {}, {} kept",
        count(plan.deleted_count(), "object", "objects"),
        count(plan.steps.len(), "step", "steps"),
        plan.kept.len()
    );
    if !plan.orphaned.is_empty() {
        line.push_str(&format!(", {} orphaned", plan.orphaned.len()));
    }
    if !plan.hooks.is_empty() {
        line.push_str(&format!(", {} run", count(plan.hooks.len(), "Helm hook", "Helm hooks")));
    }
    line.push_str(&format!(", {}", count(summary.warnings, "warning", "warnings")));
    if summary.notes > 0 {
        line.push_str(&format!(", {}", count(summary.notes, "note", "notes")));
    }
    out.push_str(&line);
    out.push('\n');
    for l in super::glance::summary_lines(summary, plan) {
        out.push_str("  ");
        out.push_str(&crate::escape::escape(&l));
        out.push('\n');
    }
    out
}

/// `-o names`: one object a line in plan order, as `xargs -L1 kubectl
/// delete` takes it (see [`super::names`]). The objects must have been
/// found printable.
pub fn names(plan: &Plan, objects: &[Object], out: &mut dyn Write) -> io::Result<()> {
    super::names::kubectl(objects, &plan.steps.concat(), out)
}

/// `-o refs`: one full reference a line, in plan order.
pub fn refs(plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    super::names::refs(&plan.refs, plan.steps.iter().flatten().copied(), out)
}

/// A typed reason in JSON: its id and what it points at.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct ReasonOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// For `garbage`: which rule of the collector.
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
    /// For `rule`: which default rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    #[serde(flatten)]
    object: Option<Ref<&'a str>>,
    /// An owner reference that names no object, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    refs: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    more: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    root: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finalizer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<u32>,
    /// Another tool's metadata: which tool (`argocd`, `kapp`, `flux`,
    /// `crossplane`, `helm`, `cli-utils`)…
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'static str>,
    /// …and the annotation or field that says it.
    #[serde(skip_serializing_if = "Option::is_none")]
    annotation: Option<&'static str>,
}

fn reason_out<'a>(r: &'a Reason, names: &Names<'a>) -> ReasonOut<'a> {
    let mut out = ReasonOut { kind: r.id(), object: r.object().map(|x| names.at(x)), ..ReasonOut::default() };
    match r {
        Reason::Garbage(g) => {
            out.why = Some(g.id());
            match g {
                Garbage::OwnerNotInSnapshot(k) | Garbage::OwnerUidOfAnother { owner: k, .. } => {
                    out.owner = Some(names.owner(*k))
                }
                Garbage::Unreachable(Root::Object(x)) => out.root = Some(names.of(*x)),
                Garbage::Unreachable(Root::Named(x)) => out.root = Some(x),
                Garbage::ClaimGone { claim, .. } => out.object = Some(Ref::new(claim)),
                _ => {}
            }
        }
        Reason::After { first, shown, more } => {
            out.refs = first.iter().take(usize::from(*shown)).map(|x| names.of(*x)).collect();
            out.more = Some(*more);
        }
        Reason::WaitsFor { finalizer, .. } => out.finalizer = Some(finalizer),
        Reason::Rule { edge, .. } => {
            out.why = Some(edge.id());
            out.rule = Some(edge.rule().id());
        }
        Reason::Tool { why, .. } => {
            let order = why.order();
            out.tool = Some(order.tool_id());
            out.why = Some(order.id());
            out.annotation = Some(order_key(order));
        }
        Reason::MutatesFrom(_) => {
            out.tool = Some("cli-utils");
            out.annotation = Some(CLI_UTILS_MUTATION);
        }
        Reason::Controller { edge, .. } => out.why = Some(edge.id()),
        Reason::ManagedThrough { controller, .. } => out.tool = Some(controller.id()),
        _ => {}
    }
    out
}

fn kept_out<'a>(k: &'a Kept, names: &Names<'a>) -> ReasonOut<'a> {
    let mut out = ReasonOut { kind: k.id(), ..ReasonOut::default() };
    match k {
        Kept::StillOwnedBy(x) | Kept::NamespacedOwner(x) | Kept::CollectorDone { owner: x, .. } => {
            out.object = Some(names.at(*x))
        }
        Kept::OwnerNotInSnapshot(o) => out.owner = Some(names.owner(*o)),
        Kept::ClaimNotInSnapshot(claim) | Kept::NamespacedOwnerRef(claim) => out.object = Some(Ref::new(claim)),
        Kept::UnresolvableOwner { owner, why, .. } => {
            out.owner = Some(owner);
            out.why = Some(why.id());
        }
        Kept::Protected { deleted_inside: n } | Kept::HoldsNew(n) => out.count = Some(*n),
        Kept::Annotated(m) => {
            out.tool = Some(m.tool_id());
            out.why = Some(m.id());
            out.annotation = Some(keep_mark(*m));
        }
        Kept::HelmHook { hook, .. } => {
            out.tool = Some("helm");
            out.why = Some(prose::hook_name(*hook));
            out.annotation = Some(HELM_HOOK);
        }
        Kept::InUse { usage, by, .. } => {
            out.tool = Some("crossplane");
            out.object = Some(names.at(*usage));
            out.refs = by.iter().map(|b| names.of(*b)).collect();
        }
        Kept::Reclaim { claim, policy } => {
            out.object = Some(names.at(*claim));
            out.why = Some(policy.id());
        }
        Kept::Managed { app, controller, keep } => {
            out.object = Some(names.at(*app));
            out.tool = Some(controller.id());
            out.why = keep.why();
        }
        _ => {}
    }
    out
}

#[derive(Serialize)]
struct ResourceOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    action: &'static str,
    /// The reasons as text.
    reason: String,
    /// The reasons, typed.
    reasons: Vec<ReasonOut<'a>>,
    #[serde(rename = "waitsFor", skip_serializing_if = "Vec::is_empty")]
    waits_for: Vec<&'a str>,
    #[serde(rename = "keptBy", skip_serializing_if = "Option::is_none")]
    kept_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    /// Murano: the type as written.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    type_name: Option<&'a str>,
    /// Murano: surviving objects that refer to this one by id; it stays in
    /// the model, marked `destroyed: true`.
    #[serde(rename = "referencedBy", skip_serializing_if = "Vec::is_empty")]
    referenced_by: Vec<&'a str>,
    /// What deleting it destroys for good.
    #[serde(rename = "dataLoss", skip_serializing_if = "Option::is_none")]
    data_loss: Option<super::glance::LossOut<'a>>,
    file: &'a str,
    line: u32,
    /// The object's document (or list item) is `length` bytes from `offset`
    /// of its file: where `apply` edits it.
    offset: usize,
    length: usize,
    /// The same object written again (overlapping dumps): `apply` edits
    /// every copy.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    copies: Vec<PlaceOut<'a>>,
}

/// Another place an object is written.
#[derive(Serialize)]
struct PlaceOut<'a> {
    file: &'a str,
    line: u32,
    offset: usize,
    length: usize,
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
            let made = batch.par_iter().map(|&id| deleted(snapshot, plan, id)).collect::<Result<Vec<ResourceOut>, _>>();
            let made = made.map_err(serde::ser::Error::custom)?;
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
    kind: &'static str,
    /// A default rule's edge: the rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'static str>,
    /// A default rule's edge: why, as a rule reason's `why` says it
    /// (`after-pods`: the dependent is a Namespace, standing for its Pods).
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<&'static str>,
}

#[derive(Serialize)]
struct CycleOut<'a> {
    kind: &'static str,
    step: u32,
    refs: Vec<&'a str>,
}

#[derive(Serialize)]
struct WarningOut<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    rule: Option<&'static str>,
    message: String,
    refs: Vec<&'a str>,
}

#[derive(Serialize)]
struct HookOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    hook: &'static str,
    release: String,
    weight: i32,
    /// `before` (pre-delete) or `after` (post-delete) `step`.
    runs: &'static str,
    step: u32,
}

#[derive(Serialize)]
struct InputOut<'a> {
    path: &'a str,
    sha256: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanOut<'a> {
    schema_version: u32,
    mode: &'static str,
    cascade: &'static str,
    multi_owner: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    dialect: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    targets: Vec<&'a str>,
    /// Counts, and what the plan destroys for good.
    summary: super::glance::SummaryOut<'a>,
    steps: StepsOut<'a>,
    kept: Vec<ResourceOut<'a>>,
    orphaned: Vec<ResourceOut<'a>>,
    relaxed: Vec<RelaxedOut<'a>>,
    cycles: Vec<CycleOut<'a>>,
    warnings: Vec<WarningOut<'a>>,
    events: Vec<EventOut<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    hooks: Vec<HookOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stages: Option<super::tracking::StagesOut<'a>>,
    /// `--as TOOL`: that tool's order and where it breaks the plan's.
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    tool_order: Option<super::tool_order::ToolOrderOut<'a>>,
    /// The `plan` command, without its inputs (`apply` makes the plan again).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    command: Vec<&'a str>,
    inputs: Vec<InputOut<'a>>,
}

fn resource<'a>(
    snapshot: &'a Snapshot,
    plan: &'a Plan,
    id: ObjId,
    action: &'static str,
) -> Result<ResourceOut<'a>, Internal> {
    let o: &Object = id.of(&snapshot.objects)?;
    let (uid, oid) = match o.has_coordinates() {
        true => (o.uid.as_deref(), None),
        false => (None, Some(&*o.name)),
    };
    Ok(ResourceOut {
        object: Ref::new(plan.refs.at(id)?),
        kind: &o.kind,
        namespace: o.namespace.as_deref(),
        name: &o.name,
        uid,
        id: oid,
        action,
        reason: String::new(),
        reasons: Vec::new(),
        waits_for: Vec::new(),
        kept_by: None,
        owner: None,
        type_name: o.member.as_deref().map(|m| &*m.type_name),
        referenced_by: Vec::new(),
        data_loss: None,
        file: &snapshot.sources.get(o.span.file).name,
        line: plan.lines.get(id.index()).copied().unwrap_or(0),
        offset: o.span.start,
        length: o.span.len(),
        copies: copies(snapshot, id),
    })
}

/// The other places `id` is written, in file order.
fn copies(snapshot: &Snapshot, id: ObjId) -> Vec<PlaceOut<'_>> {
    snapshot
        .copies_of(id)
        .iter()
        .map(|(_, span)| {
            let file = snapshot.sources.get(span.file);
            PlaceOut {
                file: &file.name,
                line: file.line_index(span.start) as u32 + 1,
                offset: span.start,
                length: span.len(),
            }
        })
        .collect()
}

fn deleted<'a>(snapshot: &'a Snapshot, plan: &'a Plan, id: ObjId) -> Result<ResourceOut<'a>, Internal> {
    let names = plan.names();
    let why = plan.reasons.of(id);
    let mut r = resource(snapshot, plan, id, "delete")?;
    r.reason = prose::reasons(why, &names);
    r.reasons = why.iter().map(|x| reason_out(x, &names)).collect();
    r.waits_for = plan.waits_for(id.of(&snapshot.objects)?).collect();
    if let Some(by) = plan.still_referenced.get(&id) {
        r.referenced_by = by.iter().map(|b| names.of(*b)).collect();
    }
    r.data_loss = plan.loss_of(id).map(|l| super::glance::loss_out(l, &names, false));
    Ok(r)
}

fn plan_out<'a>(
    snapshot: &'a Snapshot,
    plan: &'a Plan,
    summary: &'a crate::plan::summary::Summary,
) -> Result<PlanOut<'a>, Internal> {
    let names = plan.names();
    let kept = plan
        .kept
        .iter()
        .map(|(id, by)| {
            let mut r = resource(snapshot, plan, *id, "keep")?;
            r.reason = by.message(&names);
            r.reasons = vec![kept_out(by, &names)];
            r.kept_by = by.keeper(&names);
            r.data_loss = plan.loss_of(*id).map(|l| super::glance::loss_out(l, &names, false));
            Ok(r)
        })
        .collect::<Result<_, Internal>>()?;
    let orphaned = plan
        .orphaned
        .iter()
        .map(|&(id, owner)| {
            let mut r = resource(snapshot, plan, id, "orphan")?;
            let by_finalizer = plan.orphaned_by_finalizer(owner);
            r.reason = prose::orphaned_message(owner, &names, by_finalizer);
            let mut why = ReasonOut { kind: "orphaned", object: Some(names.at(owner)), ..ReasonOut::default() };
            if by_finalizer {
                why.why = Some("orphan-finalizer");
                why.finalizer = Some("orphan");
            }
            r.reasons = vec![why];
            r.owner = Some(names.of(owner));
            Ok(r)
        })
        .collect::<Result<_, Internal>>()?;
    let relaxed = plan
        .order
        .relaxed
        .iter()
        .map(|&r| {
            let rel = entry(&plan.relations, r as usize, "relation")?;
            Ok(RelaxedOut {
                owner: names.of(rel.from),
                dependent: names.of(rel.to),
                kind: rel.kind.as_str(),
                rule: rel.kind.rule().map(|e| e.rule().id()),
                why: rel.kind.rule().map(RuleEdge::id),
            })
        })
        .collect::<Result<_, Internal>>()?;
    let cycles = plan
        .order
        .groups
        .iter()
        .map(|g| {
            Ok(CycleOut {
                kind: match g.kind {
                    crate::analysis::order::GroupKind::Destruction => "destruction",
                    crate::analysis::order::GroupKind::Ownership => "ownership",
                },
                step: g.members.first().map(|m| m.of(&plan.order.step).copied()).transpose()?.unwrap_or(0),
                refs: g.members.iter().map(|m| names.of(*m)).collect(),
            })
        })
        .collect::<Result<_, Internal>>()?;
    let warnings = plan
        .warnings
        .iter()
        .map(|w| WarningOut {
            kind: w.id(),
            rule: w.rule().map(|r| r.id()),
            message: w.message(&names),
            refs: w.refs(&names),
        })
        .collect();
    Ok(PlanOut {
        schema_version: 1,
        mode: plan.options_mode.name(),
        cascade: plan.cascade_mode.as_str(),
        multi_owner: plan.multi_owner.as_str(),
        dialect: plan.dialect.as_deref(),
        targets: plan.targets.iter().map(|id| names.of(*id)).collect(),
        summary: super::glance::summary_out(summary, plan, &names),
        steps: StepsOut { snapshot, plan },
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
                object: names.of(e.object),
                subscriber: e.subscriber.map(|s| names.of(s)),
                handlers: e.handlers.iter().map(|h| &**h).collect(),
            })
            .collect(),
        hooks: plan
            .hooks
            .iter()
            .map(|h| HookOut {
                object: Ref::new(names.of(h.object)),
                hook: prose::hook_name(h.hook),
                release: format!("{}/{}", h.release.0, h.release.1),
                weight: h.weight,
                runs: prose::hook_when(h),
                step: h.step,
            })
            .collect(),
        stages: plan.stages.as_ref().map(|s| super::tracking::out(&names, s)),
        tool_order: plan.tool_order.as_ref().map(|o| super::tool_order::out(o, plan)),
        command: plan.command.iter().map(String::as_str).collect(),
        inputs: plan.inputs.iter().map(|i| InputOut { path: &i.path, sha256: &i.sha256 }).collect(),
    })
}

/// `"key": ` on a line of its own among a step's resource's fields (five
/// levels in), not the first: what `json::Object::key` writes there.
macro_rules! field {
    ($key:literal) => {
        concat!(",\n          \"", $key, "\": ").as_bytes()
    };
}

/// The same among the fields of one of its reasons (seven levels in).
macro_rules! why_field {
    ($key:literal) => {
        concat!(",\n              \"", $key, "\": ").as_bytes()
    };
}

thread_local! {
    /// A thread's buffer for a resource's reasons as text (said for every
    /// object: no string of its own each).
    static PROSE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// What writing the plan's deleted resources needs, made once: each one
/// is written straight from the plan into its part's bytes, as the
/// `Serialize` of [`deleted`]'s `ResourceOut` writes it with serde_json's
/// pretty layout four levels in (a step's resource; a plan of a whole
/// cluster has one for each object; the tests below hold the two equal).
struct Deleted<'a> {
    snapshot: &'a Snapshot,
    plan: &'a Plan,
    names: Names<'a>,
    /// Each input's name as a JSON string, escaped once.
    files: Vec<Vec<u8>>,
}

impl<'a> Deleted<'a> {
    fn new(snapshot: &'a Snapshot, plan: &'a Plan) -> Deleted<'a> {
        let file = |f: &std::sync::Arc<crate::input::SourceFile>| {
            let mut name = Vec::new();
            json::string(&mut name, &f.name);
            name
        };
        Deleted { snapshot, plan, names: plan.names(), files: snapshot.sources.files.iter().map(file).collect() }
    }

    /// Ask for what writing the resources ahead reads first, so that its
    /// fetch from memory overlaps the writing of those before (a step's
    /// resources are in no order of memory): the object `far` ahead, and
    /// the name, namespace, uid, reference and reasons of the one `near`
    /// ahead, whose object was asked for before.
    fn fetch(&self, far: Option<ObjId>, near: Option<ObjId>) {
        let objects = &self.snapshot.objects;
        if let Some(o) = far.and_then(|id| objects.get(id.index())) {
            let at = (o as *const Object).cast::<u8>();
            for line in 0..std::mem::size_of::<Object>().div_ceil(64) {
                prefetch(at.wrapping_add(64 * line));
            }
        }
        let Some((id, o)) = near.and_then(|id| Some((id, objects.get(id.index())?))) else { return };
        prefetch(o.name.as_ptr());
        for s in [o.namespace.as_deref(), o.uid.as_deref()].into_iter().flatten() {
            prefetch(s.as_ptr());
        }
        prefetch(self.plan.refs.name(id).as_ptr());
        prefetch(self.plan.reasons.of(id).as_ptr().cast());
    }

    /// The deleted object `id`, the first of its step's resources or not.
    fn write(&self, buf: &mut Vec<u8>, first: bool, id: ObjId) -> Result<(), Internal> {
        let (snapshot, plan) = (self.snapshot, self.plan);
        let o: &Object = id.of(&snapshot.objects)?;
        let open: &[u8] = match first {
            true => b"\n        {\n          \"ref\": ",
            false => b",\n        {\n          \"ref\": ",
        };
        buf.extend_from_slice(open);
        json::string(buf, plan.refs.at(id)?);
        buf.extend_from_slice(field!("kind"));
        json::string(buf, &o.kind);
        buf.extend_from_slice(field!("namespace"));
        match o.namespace.as_deref() {
            Some(ns) => json::string(buf, ns),
            None => buf.extend_from_slice(b"null"),
        }
        buf.extend_from_slice(field!("name"));
        json::string(buf, &o.name);
        match (o.has_coordinates(), o.uid.as_deref()) {
            (true, Some(uid)) => {
                buf.extend_from_slice(field!("uid"));
                json::string(buf, uid);
            }
            (true, None) => {}
            (false, _) => {
                buf.extend_from_slice(field!("id"));
                json::string(buf, &o.name);
            }
        }
        buf.extend_from_slice(concat!(",\n          \"action\": \"delete\"", ",\n          \"reason\": ").as_bytes());
        let why = plan.reasons.of(id);
        PROSE.with_borrow_mut(|text| {
            text.clear();
            prose::reasons_into(why, &self.names, text);
            json::string(buf, text);
        });
        buf.extend_from_slice(field!("reasons"));
        self.reasons(buf, why);
        self.rare(buf, id, o);
        buf.extend_from_slice(field!("file"));
        let file = self.files.get(o.span.file.0 as usize);
        buf.extend_from_slice(file.map_or(b"\"\"".as_slice(), Vec::as_slice));
        buf.extend_from_slice(field!("line"));
        json::number(buf, plan.lines.get(id.index()).copied().unwrap_or(0).into());
        buf.extend_from_slice(field!("offset"));
        json::number(buf, o.span.start as u64);
        buf.extend_from_slice(field!("length"));
        json::number(buf, o.span.len() as u64);
        let copies = copies(snapshot, id);
        if !copies.is_empty() {
            let mut fields = json::Object::after_fields(4);
            fields.key(buf, "copies");
            buf.push(b'[');
            for (i, c) in copies.iter().enumerate() {
                json::element(buf, i == 0, 6);
                let mut w = json::Object::begin(buf, 6);
                w.str(buf, "file", c.file);
                w.num(buf, "line", c.line.into());
                w.num(buf, "offset", c.offset as u64);
                w.num(buf, "length", c.length as u64);
                w.end(buf);
            }
            json::end_array(buf, 6);
        }
        buf.extend_from_slice(b"\n        }");
        Ok(())
    }

    /// The typed reasons, `[]` when there are none.
    fn reasons(&self, buf: &mut Vec<u8>, why: &[Reason]) {
        if why.is_empty() {
            buf.extend_from_slice(b"[]");
            return;
        }
        for (i, r) in why.iter().enumerate() {
            let why = reason_out(r, &self.names);
            let open: &[u8] = match i {
                0 => b"[\n            {\n              \"type\": ",
                _ => b",\n            {\n              \"type\": ",
            };
            buf.extend_from_slice(open);
            json::string(buf, why.kind);
            if let Some(x) = why.why {
                buf.extend_from_slice(why_field!("why"));
                json::string(buf, x);
            }
            if let Some(x) = why.rule {
                buf.extend_from_slice(why_field!("rule"));
                json::string(buf, x);
            }
            if let Some(x) = why.object {
                buf.extend_from_slice(why_field!("ref"));
                json::string(buf, x.reference);
            }
            let mut w = json::Object::after_fields(6);
            w.opt_str(buf, "owner", why.owner);
            if !why.refs.is_empty() {
                w.strs(buf, "refs", &why.refs);
            }
            if let Some(more) = why.more {
                w.num(buf, "more", more.into());
            }
            w.opt_str(buf, "root", why.root);
            w.opt_str(buf, "finalizer", why.finalizer);
            if let Some(count) = why.count {
                w.num(buf, "count", count.into());
            }
            w.opt_str(buf, "tool", why.tool);
            w.opt_str(buf, "annotation", why.annotation);
            w.end(buf);
        }
        buf.extend_from_slice(b"\n          ]");
    }

    /// The fields few deleted objects have: the finalizers it waits for,
    /// its type (Murano), who still refers to it, what it destroys.
    fn rare(&self, buf: &mut Vec<u8>, id: ObjId, o: &Object) {
        let (plan, names) = (self.plan, &self.names);
        let mut fields = json::Object::after_fields(4);
        let mut waits = plan.waits_for(o).peekable();
        if waits.peek().is_some() {
            fields.strs(buf, "waitsFor", &waits.collect::<Vec<_>>());
        }
        fields.opt_str(buf, "type", o.member.as_deref().map(|m| &*m.type_name));
        if let Some(by) = plan.still_referenced.get(&id) {
            fields.strs(buf, "referencedBy", &by.iter().map(|b| names.of(*b)).collect::<Vec<_>>());
        }
        if let Some(loss) = plan.loss_of(id) {
            fields.key(buf, "dataLoss");
            super::glance::write_loss(buf, 5, &super::glance::loss_out(loss, names, false));
        }
    }
}

/// The plan as JSON: the bytes `serde_json::to_writer_pretty` would write,
/// with the resources of each step made in parallel and written as they
/// are made.
pub fn json(snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    // Resources are written in parts of 256, made in parallel, sixteen
    // held at once (a part of a whole cluster's plan is ~170 kB: ~670
    // bytes a resource, up to ~1,000 in a step of owned ones, so a part's
    // buffer is made ready for 1,024 a resource and seldom grows).
    json_in(super::parts::Parts::new(256, 16).sized(1024), snapshot, plan, out)
}

/// How many resources ahead of the one written [`Deleted::fetch`] asks
/// for their strings (and twice as many for their objects).
const AHEAD: usize = 4;

/// A hint that the byte at `at` is read soon (nothing on other machines).
fn prefetch(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults,
    // whatever the address; SSE is part of every x86_64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// [`json`], the resources written in `parts`.
fn json_in(mut parts: super::parts::Parts, snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    let mut timer = crate::timing::Timer::start();
    let summary = super::glance::summary_of(snapshot, plan);
    let p = plan_out(snapshot, plan, &summary)?;
    let resources = Deleted::new(snapshot, plan);
    let mut buf = Vec::with_capacity(1 << 16);
    let mut doc = json::Object::begin(&mut buf, 0);
    doc.field(&mut buf, "schemaVersion", &p.schema_version)?;
    doc.field(&mut buf, "mode", p.mode)?;
    doc.field(&mut buf, "cascade", p.cascade)?;
    doc.field(&mut buf, "multiOwner", p.multi_owner)?;
    if let Some(d) = p.dialect {
        doc.field(&mut buf, "dialect", d)?;
    }
    if !p.targets.is_empty() {
        doc.field(&mut buf, "targets", &p.targets)?;
    }
    doc.field(&mut buf, "summary", &p.summary)?;
    doc.key(&mut buf, "steps");
    buf.push(b'[');
    timer.lap("  head");
    for (i, ids) in plan.steps.iter().enumerate() {
        json::element(&mut buf, i == 0, 2);
        let mut step = json::Object::begin(&mut buf, 2);
        step.field(&mut buf, "step", &(i + 1))?;
        step.key(&mut buf, "resources");
        buf.push(b'[');
        // Parts go out as they are (no copy); their buffers are used again.
        out.write_all(&buf)?;
        buf.clear();
        parts.write(ids, out, |i, &id, part| {
            resources.fetch(ids.get(i + 2 * AHEAD).copied(), ids.get(i + AHEAD).copied());
            Ok(resources.write(part, i == 0, id)?)
        })?;
        if ids.is_empty() {
            buf.push(b']');
        } else {
            json::end_array(&mut buf, 4);
        }
        step.end(&mut buf);
    }
    if plan.steps.is_empty() {
        buf.push(b']');
    } else {
        json::end_array(&mut buf, 2);
    }
    timer.lap("  steps");
    doc.field(&mut buf, "kept", &p.kept)?;
    doc.field(&mut buf, "orphaned", &p.orphaned)?;
    doc.field(&mut buf, "relaxed", &p.relaxed)?;
    doc.field(&mut buf, "cycles", &p.cycles)?;
    doc.field(&mut buf, "warnings", &p.warnings)?;
    doc.field(&mut buf, "events", &p.events)?;
    if !p.hooks.is_empty() {
        doc.field(&mut buf, "hooks", &p.hooks)?;
    }
    if let Some(stages) = &p.stages {
        doc.field(&mut buf, "stages", stages)?;
    }
    if let Some(tool_order) = &p.tool_order {
        doc.field(&mut buf, "as", tool_order)?;
    }
    if !p.command.is_empty() {
        doc.field(&mut buf, "command", &p.command)?;
    }
    doc.field(&mut buf, "inputs", &p.inputs)?;
    doc.end(&mut buf);
    buf.push(b'\n');
    out.write_all(&buf)?;
    timer.lap("  tail");
    Ok(())
}

pub fn yaml(snapshot: &Snapshot, plan: &Plan, out: &mut dyn Write) -> io::Result<()> {
    let summary = super::glance::summary_of(snapshot, plan);
    super::yaml::write(&plan_out(snapshot, plan, &summary)?, out)
}

/// An end of a plan arrow: an object, or a hub of another tool's group
/// order (a node that stands for a group, drawn as a point).
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    Object(ObjId),
    Hub(u32),
}

impl End {
    /// Its node's name: an object's place in the plan's order (steps, each
    /// in reference order), not its index, which follows the order the
    /// inputs were read in (tests/props_determinism.rs).
    fn id(self, number: &[usize]) -> String {
        match self {
            End::Object(o) => format!("n{}", number.get(o.index()).copied().unwrap_or_default()),
            End::Hub(h) => format!("h{h}"),
        }
    }
}

/// Each deleted object's place in the plan's order (see [`End::id`]).
fn node_numbers(plan: &Plan) -> Vec<usize> {
    let mut number = vec![0; plan.refs.len()];
    for (k, id) in plan.steps.iter().flatten().enumerate() {
        if let Some(slot) = number.get_mut(id.index()) {
            *slot = k;
        }
    }
    number
}

/// Constraint edges between objects of the plan, earlier → later, labelled
/// to read along the arrow (through hubs: earlier → hub → later). The
/// rule that puts the rest of a namespace after its Pods is drawn from the
/// Pod each object goes right after (its relations stand for the
/// namespace's barrier, not for the Namespace); a relaxed one from the
/// Namespace, "after the Pods of".
fn plan_edges(plan: &Plan) -> Vec<(End, End, &'static str, bool)> {
    let mut relaxed = vec![false; plan.relations.len()];
    for &r in &plan.order.relaxed {
        if let Some(x) = relaxed.get_mut(r as usize) {
            *x = true;
        }
    }
    let deleted = |id: ObjId| plan.cascade.deleted(id);
    let mut edges: Vec<_> = plan
        .relations
        .iter()
        .zip(relaxed)
        .filter(|(r, _)| !(r.kind.is_ownership() && r.link != Link::Solid) && r.kind.orders())
        .filter(|(r, relaxed)| match r.kind.rule() {
            Some(RuleEdge::PodFirst) => false,
            Some(RuleEdge::AfterPods) => *relaxed,
            // An object's reference names its namespace: the arrow to the
            // Namespace would only say it again, once per object.
            _ => r.kind != RelKind::Contains,
        })
        .filter_map(|(r, relaxed)| {
            let hub = r.kind.tool().map_or(HubEnd::None, |t| t.hub);
            let (first, then) = match hub {
                HubEnd::None if deleted(r.from) && deleted(r.to) && r.from != r.to => {
                    (End::Object(r.to), End::Object(r.from))
                }
                HubEnd::To if deleted(r.from) => (End::Hub(r.decl), End::Object(r.from)),
                HubEnd::From if deleted(r.to) => (End::Object(r.to), End::Hub(r.decl)),
                _ => return None,
            };
            // Out of a hub, the arrow needs no second label.
            let label = if hub == HubEnd::To { "" } else { prose::along(r.kind) };
            Some((first, then, label, relaxed))
        })
        .collect();
    for (i, after) in plan.order.after.iter().enumerate() {
        let Some(r) = after.and_then(|r| plan.relations.get(r as usize)) else { continue };
        if r.kind == RelKind::Rule(RuleEdge::PodFirst) && plan.cascade.deleted(ObjId(i as u32)) {
            edges.push((End::Object(r.to), End::Object(ObjId(i as u32)), prose::along(r.kind), false));
        }
    }
    // In reference order, not relation order (which follows the order the
    // inputs were read in).
    let key = |e: &End| match *e {
        End::Object(o) => (0, plan.refs.name(o), 0),
        End::Hub(h) => (1, "", h),
    };
    edges.sort_by(|x, y| (key(&x.0), key(&x.1), x.2, x.3).cmp(&(key(&y.0), key(&y.1), y.2, y.3)));
    edges
}

/// The hubs the edges pass, each once, in order.
fn hubs(edges: &[(End, End, &'static str, bool)]) -> Vec<u32> {
    let mut hubs: Vec<u32> = edges
        .iter()
        .flat_map(|(a, b, ..)| [*a, *b])
        .filter_map(|e| match e {
            End::Hub(h) => Some(h),
            End::Object(_) => None,
        })
        .collect();
    hubs.sort_unstable();
    hubs.dedup();
    hubs
}

/// Graphviz: one cluster per step, edges from what goes first to what goes
/// after it.
pub fn dot(plan: &Plan) -> Result<String, Internal> {
    let mut out = String::from(
        "digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n",
    );
    let n = node_numbers(plan);
    out.push_str("  newrank=true;\n");
    for (i, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!("  subgraph cluster_step{} {{\n    label=\"step {}\";\n", i + 1, i + 1));
        for id in step {
            out.push_str(&format!(
                "    {} [label=\"{}\"];\n",
                End::Object(*id).id(&n),
                crate::escape::dot(plan.refs.at(*id)?)
            ));
        }
        out.push_str("  }\n");
    }
    // The steps in order, left to right, whatever the edges say.
    let firsts: Vec<End> = plan.steps.iter().filter_map(|s| s.first()).map(|&id| End::Object(id)).collect();
    for pair in firsts.windows(2) {
        if let [a, b] = pair {
            out.push_str(&format!("  {} -> {} [style=invis, weight=10];\n", a.id(&n), b.id(&n)));
        }
    }
    let edges = plan_edges(plan);
    for h in hubs(&edges) {
        out.push_str(&format!("  h{h} [shape=point, label=\"\"];\n"));
    }
    for (a, b, label, relaxed) in edges {
        let style = if relaxed { ", style=dashed, color=red, fontcolor=red" } else { "" };
        let label = if relaxed { format!("{label} (relaxed)") } else { label.to_string() };
        out.push_str(&format!("  {} -> {} [label=\"{}\"{style}];\n", a.id(&n), b.id(&n), label));
    }
    out.push_str("}\n");
    Ok(out)
}

pub fn mermaid(plan: &Plan) -> Result<String, Internal> {
    let mut out = String::from("flowchart LR\n");
    let n = node_numbers(plan);
    for (i, step) in plan.steps.iter().enumerate() {
        out.push_str(&format!("  subgraph step{}[\"step {}\"]\n", i + 1, i + 1));
        for id in step {
            let name = crate::escape::mermaid(plan.refs.at(*id)?);
            out.push_str(&format!("    {}[\"{name}\"]\n", End::Object(*id).id(&n)));
        }
        out.push_str("  end\n");
    }
    let edges = plan_edges(plan);
    for h in hubs(&edges) {
        out.push_str(&format!("  h{h}(( ))\n"));
    }
    for (a, b, label, relaxed) in edges {
        let arrow = if relaxed { "-.->" } else { "-->" };
        let label = if relaxed { format!("{label} relaxed") } else { label.to_string() };
        match label.is_empty() {
            true => out.push_str(&format!("  {} {arrow} {}\n", a.id(&n), b.id(&n))),
            false => out.push_str(&format!("  {} {arrow}|{label}| {}\n", a.id(&n), b.id(&n))),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cascade::CascadeMode;
    use crate::load::{load, LoadOptions};
    use crate::plan::{build, Detail, Mode, Options};

    /// The plans of `inputs` (each a run's files): `--all`, `--gc`, and
    /// `--delete` of the first object and of any named `keys` (Murano's,
    /// which objects kept still refer to).
    fn plans_of(inputs: &[Vec<std::path::PathBuf>]) -> Vec<(String, Snapshot, Plan)> {
        let mut plans = Vec::new();
        for files in inputs {
            let pairs = files.iter().any(|f| f.extension().is_some_and(|e| e == "txt"));
            let dialect = pairs.then(|| "pairs".to_string());
            let options = LoadOptions { dialect, progress: false, digests: true, ..LoadOptions::default() };
            let snapshot = load(files, &options, &mut std::io::empty());
            let chosen = snapshot.objects.iter().enumerate().filter(|(i, o)| *i == 0 || &*o.name == "keys");
            let chosen = chosen.map(|(i, _)| ObjId(i as u32)).collect();
            for mode in [Mode::All, Mode::Gc, Mode::Delete(chosen)] {
                let snapshot = load(files, &options, &mut std::io::empty());
                let options = Options {
                    mode,
                    cascade: CascadeMode::Background,
                    multi_owner: None,
                    allow_cycles: true,
                    finalizer_controllers: Vec::new(),
                    root: None,
                    closed_world: false,
                    declared_in_new: Vec::new(),
                    detail: Detail::ALL,
                    default_rules: crate::model::DefaultRule::ALL.to_vec(),
                    named: Vec::new(),
                };
                let what = format!("{files:?} {:?}", options.mode);
                if let Ok(plan) = build(&snapshot, &options) {
                    plans.push((what, snapshot, plan));
                }
            }
        }
        plans
    }

    /// What serde_json writes for the whole plan, in one piece.
    fn serde_whole(snapshot: &Snapshot, plan: &Plan) -> String {
        let summary = super::super::glance::summary_of(snapshot, plan);
        let mut whole = serde_json::to_vec_pretty(&plan_out(snapshot, plan, &summary).unwrap()).unwrap();
        whole.push(b'\n');
        String::from_utf8(whole).unwrap()
    }

    /// The JSON written in parallel parts is, byte for byte, what serde_json
    /// writes for the whole plan: with the parts `json` writes, and with
    /// parts of one to three resources, one to three parts a batch (every
    /// join between parts and batches, and in the first and last places).
    /// The fixtures between them hold every field a resource can have.
    #[test]
    fn json_in_parts_is_serde_json_pretty() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut inputs: Vec<Vec<std::path::PathBuf>> = Vec::new();
        for dir in ["plan", "owners", "prune", "murano", "pairs", "rules", "tools", "copies"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
            for path in entries.flatten().map(|e| e.path()) {
                match path.is_dir() {
                    // A run of several files (objects written twice).
                    true => {
                        let mut files: Vec<_> = std::fs::read_dir(&path).unwrap().flatten().map(|e| e.path()).collect();
                        files.sort();
                        inputs.push(files);
                    }
                    false => inputs.push(vec![path]),
                }
            }
        }
        inputs.sort();
        assert!(inputs.len() > 10, "fixtures not found");
        let plans = plans_of(&inputs);
        assert!(plans.len() > 10);
        let mut seen = std::collections::BTreeSet::new();
        for (what, snapshot, plan) in &plans {
            let whole = serde_whole(snapshot, plan);
            for key in ["waitsFor", "referencedBy", "dataLoss", "copies", "type", "\"id\"", "\"uid\"", "\"more\""] {
                if whole.contains(key) {
                    seen.insert(key);
                }
            }
            let mut fast = Vec::new();
            json(snapshot, plan, &mut fast).unwrap();
            assert_eq!(String::from_utf8(fast).unwrap(), whole, "{what}");
            for (part, parts) in [(1, 2), (2, 2), (1, 4), (3, 6)] {
                let mut small = Vec::new();
                json_in(super::super::parts::Parts::new(part, parts), snapshot, plan, &mut small).unwrap();
                assert_eq!(String::from_utf8(small).unwrap(), whole, "{what}, parts of {part}, {parts} at once");
            }
        }
        assert_eq!(seen.len(), 8, "fields seen: {seen:?}");
    }

    /// Asking ahead for what is written is a hint only: any id (past the
    /// objects, or none at the end of a step) is taken quietly.
    #[test]
    fn fetching_ahead_takes_any_id() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let plans = plans_of(&[vec![root.join("plan/deployment.yaml")]]);
        let (_, snapshot, plan) = plans.first().unwrap();
        let resources = Deleted::new(snapshot, plan);
        let n = snapshot.objects.len() as u32;
        assert!(n > 0);
        for id in [None, Some(ObjId(0)), Some(ObjId(n - 1)), Some(ObjId(n)), Some(ObjId(u32::MAX))] {
            resources.fetch(id, id);
            resources.fetch(None, id);
            resources.fetch(id, None);
        }
    }

    /// Names, ids, reasons and the input's own path that JSON must escape
    /// (quotes, backslashes, past and within eight-byte words, beside
    /// characters of several bytes) come out as serde_json escapes them,
    /// in parts of any size.
    #[test]
    fn json_escapes_in_parts_as_serde_json_does() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("in \"quotes\" and \\ back");
        std::fs::create_dir(&dir).unwrap();
        let file = dir.join("pa\"irs\\.txt");
        let pairs = "a\"b c\\d\nc\\d é€😀\nq\"q\"q\"q\"q\"q\"q\"q\"q long\\\\name-longer-than-a-word\"\n\
                     é€😀 plain-name\nplain-name a\"b\n";
        std::fs::write(&file, pairs).unwrap();
        let plans = plans_of(&[vec![file]]);
        assert!(!plans.is_empty());
        for (what, snapshot, plan) in &plans {
            let whole = serde_whole(snapshot, plan);
            if what.ends_with("All") {
                assert!(plan.deleted_count() >= 6 && whole.contains("after a\\\"b"), "{whole}");
            }
            assert!(whole.contains("\\\"quotes\\\" and \\\\ back"), "{whole}");
            for (part, parts) in [(256, 16), (1, 2), (2, 2), (3, 6)] {
                let mut small = Vec::new();
                json_in(super::super::parts::Parts::new(part, parts), snapshot, plan, &mut small).unwrap();
                assert_eq!(String::from_utf8(small).unwrap(), whole, "{what}, parts of {part}, {parts} at once");
            }
        }
    }
}
