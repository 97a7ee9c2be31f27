//! A simulation as a numbered trace (table) or an event list (JSON), with
//! its summary. Formatting only.

use super::columns::Columns;
use super::count;
use super::json;
use super::parts::Parts;
use crate::analysis::simulate::{Action, Actor, EventType, Name, Simulation, Verb};
use crate::escape;
use crate::internal::{entry, Internal};
use crate::model::{ControllerEdge, Str};
use crate::plan::reference::{self, Ref};
use serde::Serialize;
use std::borrow::Cow;
use std::io::{self, Write};

/// Finalizer `f` of the simulation's names.
fn name(names: &[Str], f: Name) -> Result<&str, Internal> {
    entry(names, f as usize, "finalizer name").map(|n| &**n)
}

fn actor<'a>(a: &Actor, names: &'a [Str]) -> Result<Cow<'a, str>, Internal> {
    Ok(match a {
        Actor::User => Cow::Borrowed("user"),
        Actor::Api => Cow::Borrowed("api"),
        Actor::Collector => Cow::Borrowed("collector"),
        Actor::Controller(f) => Cow::Owned(format!("controller ({})", name(names, *f)?)),
        Actor::Kube(e) => Cow::Borrowed(e.component()),
    })
}

fn action(a: &Action, refs: &[String], names: &[Str]) -> Result<Cow<'static, str>, Internal> {
    let name = |f: &Name| name(names, *f);
    Ok(match a {
        Action::Call(Verb::Delete) => Cow::Borrowed("DELETE"),
        Action::Call(Verb::Update) => Cow::Borrowed("UPDATE"),
        Action::Call(Verb::Read) => Cow::Borrowed("READ"),
        Action::Marked { finalizer: Some(f) } => Cow::Owned(format!("marked deleted, finalizer {} added", name(f)?)),
        Action::Marked { finalizer: None } => Cow::Borrowed("marked deleted"),
        Action::AlreadyDeleted => Cow::Borrowed("already being deleted: returned as it is"),
        Action::NotFound => Cow::Borrowed("not found: already gone"),
        Action::Event(EventType::Modified) => Cow::Borrowed("event MODIFIED"),
        Action::Event(EventType::Deleted) => Cow::Borrowed("event DELETED"),
        Action::Queued { again: false } => Cow::Borrowed("queued: in deletion"),
        Action::Queued { again: true } => Cow::Borrowed("queued again: a dependent is gone"),
        Action::QueuedUnblocked => Cow::Borrowed("queued again: a dependent no longer blocks it"),
        Action::Dependents(n) => {
            Cow::Owned(format!("has {n} {}: deletes each", if *n == 1 { "dependent" } else { "dependents" }))
        }
        Action::Waits(n) => {
            Cow::Owned(format!("waits for {n} blocking {}", if *n == 1 { "dependent" } else { "dependents" }))
        }
        Action::FinalizerRemoved(f) => Cow::Owned(format!("removes finalizer {}", name(f)?)),
        Action::OwnerRemoved(o) => Cow::Owned(format!("removes the owner reference to {}", o.of(refs)?)),
        Action::Unblocked => Cow::Borrowed(
            "makes its owner references non-blocking: a dependent of it waits for its own dependents (a circle)",
        ),
        Action::Unresolvable => {
            Cow::Borrowed("cannot resolve one of its owner references (TD017): never deleted, retried forever")
        }
        Action::Removed => Cow::Borrowed("no finalizer left: removed from the store"),
    })
}

fn summary(sim: &Simulation, refs: &[String]) -> Result<Vec<String>, Internal> {
    let calls: u32 = sim.calls.iter().sum();
    let by_verb: Vec<String> =
        Verb::ALL.iter().zip(sim.calls).filter(|(_, n)| *n > 0).map(|(v, n)| format!("{} {n}", v.as_str())).collect();
    let events: u32 = sim.events.iter().sum();
    let by_type: Vec<String> = EventType::ALL
        .iter()
        .zip(sim.events)
        .filter(|(_, n)| *n > 0)
        .map(|(e, n)| format!("{} {n}", e.as_str()))
        .collect();
    let list = |parts: Vec<String>| if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
    let mut lines = vec![
        format!("API calls: {calls}{}", list(by_verb)),
        format!("events: {events}{}", list(by_type)),
        format!("rounds: {}", sim.rounds),
        format!("{} removed", count(sim.removed.len(), "object", "objects")),
    ];
    for (id, waits) in &sim.stalled {
        let waits = waits.iter().map(|f| name(&sim.names, *f)).collect::<Result<Vec<&str>, _>>()?;
        lines.push(format!("stalled: {} waits forever for {}", id.of(refs)?, list_or_none(&waits)));
    }
    Ok(lines)
}

fn list_or_none(names: &[&str]) -> String {
    match names {
        [] => "nothing (no finalizer left, never removed)".to_string(),
        [one] => format!("finalizer {one}"),
        many => format!("finalizers {}", many.join(", ")),
    }
}

/// The trace, one numbered line an entry, then the summary. Written as it
/// is made: a cascade of a million objects is millions of lines.
pub fn table(sim: &Simulation, refs: &[String], out: &mut dyn Write) -> io::Result<()> {
    let header = ["#", "ROUND", "ACTOR", "OBJECT", "ACTION"];
    let digits = |n: usize| n.to_string().len();
    let mut widths = header.map(str::len);
    widths[0] = widths[0].max(digits(sim.entries.len()));
    widths[1] = widths[1].max(digits(sim.rounds as usize));
    for e in &sim.entries {
        let a = match &e.actor {
            Actor::Controller(f) => escape::width(name(&sim.names, *f)?) + "controller ()".len(),
            other => actor(other, &sim.names)?.len(),
        };
        widths[2] = widths[2].max(a);
        widths[3] = widths[3].max(escape::width(e.object.of(refs)?));
    }
    let columns = Columns { widths };
    let mut text = String::new();
    columns.line(header, &mut text);
    out.write_all(text.as_bytes())?;
    // Lines are made in parallel and written in order.
    Parts::new(4096, 16).write(&sim.entries, out, |i, e, part| {
        // As `Columns::line` lays it out (the last cell is never empty).
        let _ = write!(part, "{:<w0$}  {:<w1$}  ", i + 1, e.round, w0 = widths[0], w1 = widths[1]);
        for (cell, w) in [(&*actor(&e.actor, &sim.names)?, widths[2]), (&**e.object.of(refs)?, widths[3])] {
            part.extend_from_slice(escape::escape(cell).as_bytes());
            let n = if cell.is_ascii() && !escape::any(cell) { cell.len() } else { escape::width(cell) };
            part.extend(std::iter::repeat_n(b' ', w.saturating_sub(n) + 2));
        }
        part.extend_from_slice(escape::escape(&action(&e.action, refs, &sim.names)?).as_bytes());
        part.push(b'\n');
        Ok(())
    })?;
    text.clear();
    text.push('\n');
    for line in summary(sim, refs)? {
        text.push_str(&escape::escape(&line));
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

#[derive(Serialize)]
struct SummaryOut<'a> {
    calls: std::collections::BTreeMap<&'static str, u32>,
    events: std::collections::BTreeMap<&'static str, u32>,
    rounds: u32,
    removed: Vec<&'a str>,
    stalled: Vec<StalledOut<'a>>,
}

#[derive(Serialize)]
struct StalledOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    #[serde(rename = "waitsFor")]
    waits_for: Vec<&'a str>,
}

/// The JSON document, as YAML, its keys in the same order (JSON is YAML:
/// serde_yaml's mappings keep the order they are read in).
pub fn yaml(sim: &Simulation, refs: &[String], out: &mut dyn Write) -> io::Result<()> {
    let mut text = Vec::new();
    json(sim, refs, &mut text)?;
    let value: serde_yaml::Value = serde_yaml::from_slice(&text).map_err(io::Error::other)?;
    super::yaml::write(&value, out)
}

/// The trace as an event list (CONTRACT §6: an object with
/// `schemaVersion`), written as it is made.
pub fn json(sim: &Simulation, refs: &[String], out: &mut dyn Write) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut doc = json::Object::begin(&mut buf, 0);
    doc.num(&mut buf, "schemaVersion", 1);
    doc.str(&mut buf, "controller", sim.controller.as_str());
    doc.str(&mut buf, "cascade", sim.cascade.as_str());
    let targets = sim.targets.iter().map(|t| t.of(refs).map(String::as_str)).collect::<Result<Vec<&str>, _>>()?;
    doc.strs(&mut buf, "targets", &targets);
    doc.key(&mut buf, "events");
    buf.push(b'[');
    out.write_all(&buf)?;
    buf.clear();
    // Events are made in parallel and written in order.
    Parts::new(4096, 16).write(&sim.entries, out, |i, e, part| event(sim, refs, i, e, part))?;
    if sim.entries.is_empty() {
        buf.push(b']');
    } else {
        json::end_array(&mut buf, 2);
    }
    let summary = SummaryOut {
        calls: Verb::ALL.iter().zip(sim.calls).map(|(v, n)| (v.as_str(), n)).collect(),
        events: EventType::ALL.iter().zip(sim.events).map(|(e, n)| (e.as_str(), n)).collect(),
        rounds: sim.rounds,
        removed: sim.removed.iter().map(|r| r.of(refs).map(String::as_str)).collect::<Result<_, _>>()?,
        stalled: sim
            .stalled
            .iter()
            .map(|(id, waits)| {
                Ok(StalledOut {
                    object: Ref::new(id.of(refs)?),
                    waits_for: waits.iter().map(|f| name(&sim.names, *f)).collect::<Result<_, _>>()?,
                })
            })
            .collect::<Result<_, Internal>>()?,
    };
    doc.field(&mut buf, "summary", &summary)?;
    doc.end(&mut buf);
    buf.push(b'\n');
    out.write_all(&buf)
}

/// A Kubernetes controller acting outside ownerReferences, in JSON.
fn kube_actor(e: ControllerEdge) -> &'static str {
    match e {
        ControllerEdge::ServiceEndpoints => "endpoints-controller",
        ControllerEdge::NodePods => "pod-garbage-collector",
        ControllerEdge::ReclaimDelete | ControllerEdge::Released => "volume-controller",
    }
}

/// Event `i` of the trace, as an element of the `events` array.
fn event(
    sim: &Simulation,
    refs: &[String],
    i: usize,
    e: &crate::analysis::simulate::Entry,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    let name = |f: Name| name(&sim.names, f);
    json::element(buf, i == 0, 2);
    let mut o = json::Object::begin(buf, 2);
    o.num(buf, "seq", i as u64 + 1);
    o.num(buf, "round", e.round as u64);
    let (who, controller) = match &e.actor {
        Actor::User => ("user", None),
        Actor::Api => ("api", None),
        Actor::Collector => ("collector", None),
        Actor::Controller(f) => ("controller", Some(name(*f)?)),
        Actor::Kube(e) => (kube_actor(*e), None),
    };
    o.str(buf, "actor", who);
    o.opt_str(buf, "controller", controller);
    o.str(buf, reference::KEY, e.object.of(refs)?);
    let (kind, detail, count): (&str, Option<(&str, &str)>, Option<u32>) = match &e.action {
        Action::Call(v) => ("call", Some(("verb", v.as_str())), None),
        Action::Marked { finalizer } => ("marked", finalizer.map(name).transpose()?.map(|f| ("finalizer", f)), None),
        Action::AlreadyDeleted => ("already-deleted", None, None),
        Action::NotFound => ("not-found", None, None),
        Action::Event(t) => ("event", Some(("event", t.as_str())), None),
        Action::Queued { again: false } => ("queued", None, None),
        Action::Queued { again: true } => ("queued-again", None, None),
        Action::QueuedUnblocked => ("queued-unblocked", None, None),
        Action::Dependents(n) => ("dependents", None, Some(*n)),
        Action::Waits(n) => ("waits", None, Some(*n)),
        Action::FinalizerRemoved(f) => ("finalizer-removed", Some(("finalizer", name(*f)?)), None),
        Action::OwnerRemoved(x) => ("owner-removed", Some(("owner", x.of(refs)?.as_str())), None),
        Action::Unblocked => ("unblocked", None, None),
        Action::Unresolvable => ("unresolvable-owner", None, None),
        Action::Removed => ("removed", None, None),
    };
    o.str(buf, "type", kind);
    if let Some((k, v)) = detail {
        o.str(buf, k, v);
    }
    if let Some(n) = count {
        o.num(buf, "count", n as u64);
    }
    o.str(buf, "message", &action(&e.action, refs, &sim.names)?);
    o.end(buf);
    Ok(())
}
