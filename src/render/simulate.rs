//! A simulation as a numbered trace (table) or an event list (JSON), with
//! its summary. Formatting only.

use super::columns::Columns;
use crate::analysis::simulate::{Action, Actor, EventType, Simulation, Verb};
use serde::Serialize;
use std::io::{self, Write};

fn actor(a: &Actor) -> String {
    match a {
        Actor::User => "user".into(),
        Actor::Api => "api".into(),
        Actor::Collector => "collector".into(),
        Actor::Controller(f) => format!("controller ({f})"),
    }
}

fn action(a: &Action, refs: &[String]) -> String {
    match a {
        Action::Call(Verb::Delete) => "DELETE".into(),
        Action::Call(Verb::Update) => "UPDATE".into(),
        Action::Call(Verb::Read) => "READ".into(),
        Action::Marked { finalizer: Some(f) } => format!("marked deleted, finalizer {f} added"),
        Action::Marked { finalizer: None } => "marked deleted".into(),
        Action::AlreadyDeleted => "already being deleted: returned as it is".into(),
        Action::NotFound => "not found: already gone".into(),
        Action::Event(e) => format!("event {}", e.as_str()),
        Action::Queued { again: false } => "queued: in deletion".into(),
        Action::Queued { again: true } => "queued again: a dependent is gone".into(),
        Action::Dependents(n) => format!("has {n} {}: deletes each", if *n == 1 { "dependent" } else { "dependents" }),
        Action::Waits(n) => {
            format!("waits for {n} blocking {}", if *n == 1 { "dependent" } else { "dependents" })
        }
        Action::FinalizerRemoved(f) => format!("removes finalizer {f}"),
        Action::OwnerRemoved(o) => format!("removes the owner reference to {}", refs[o.index()]),
        Action::Removed => "no finalizer left: removed from the store".into(),
    }
}

fn summary(sim: &Simulation) -> Vec<String> {
    let count = |n: u32, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
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
    vec![
        format!("API calls: {calls} ({})", by_verb.join(", ")),
        format!("events: {events} ({})", by_type.join(", ")),
        format!("rounds: {}", sim.rounds),
        format!("{} removed", count(sim.removed.len() as u32, "object", "objects")),
    ]
}

/// The trace, one numbered line an entry, then the summary.
pub fn table(sim: &Simulation, refs: &[String], out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<[String; 5]> = sim
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            [
                (i + 1).to_string(),
                e.round.to_string(),
                actor(&e.actor),
                refs[e.object.index()].clone(),
                action(&e.action, refs),
            ]
        })
        .collect();
    let header = ["#", "ROUND", "ACTOR", "OBJECT", "ACTION"];
    let mut widths = [0; 5];
    for row in std::iter::once(header.map(String::from)).chain(rows.iter().cloned()) {
        for (w, cell) in widths.iter_mut().zip(&row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let columns = Columns { widths };
    let mut text = String::new();
    columns.line(header, &mut text);
    for row in &rows {
        columns.line([&row[0], &row[1], &row[2], &row[3], &row[4]], &mut text);
    }
    text.push('\n');
    for line in summary(sim) {
        text.push_str(&line);
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SimulationOut<'a> {
    schema_version: u32,
    controller: &'static str,
    cascade: &'static str,
    targets: Vec<&'a str>,
    events: Vec<EntryOut<'a>>,
    summary: SummaryOut<'a>,
}

#[derive(Serialize)]
struct EntryOut<'a> {
    seq: usize,
    round: u32,
    actor: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    controller: Option<&'a str>,
    #[serde(rename = "ref")]
    reference: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    verb: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    finalizer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<u32>,
    message: String,
}

#[derive(Serialize)]
struct SummaryOut<'a> {
    calls: std::collections::BTreeMap<&'static str, u32>,
    events: std::collections::BTreeMap<&'static str, u32>,
    rounds: u32,
    removed: Vec<&'a str>,
}

/// The trace as an event list (CONTRACT §6: an object with `schemaVersion`).
pub fn json(sim: &Simulation, refs: &[String], out: &mut dyn Write) -> io::Result<()> {
    let events = sim
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut entry = EntryOut {
                seq: i + 1,
                round: e.round,
                actor: match e.actor {
                    Actor::User => "user",
                    Actor::Api => "api",
                    Actor::Collector => "collector",
                    Actor::Controller(_) => "controller",
                },
                controller: match &e.actor {
                    Actor::Controller(f) => Some(f),
                    _ => None,
                },
                reference: &refs[e.object.index()],
                kind: "",
                verb: None,
                event: None,
                finalizer: None,
                owner: None,
                count: None,
                message: action(&e.action, refs),
            };
            entry.kind = match &e.action {
                Action::Call(v) => {
                    entry.verb = Some(v.as_str());
                    "call"
                }
                Action::Marked { finalizer } => {
                    entry.finalizer = finalizer.as_deref();
                    "marked"
                }
                Action::AlreadyDeleted => "already-deleted",
                Action::NotFound => "not-found",
                Action::Event(t) => {
                    entry.event = Some(t.as_str());
                    "event"
                }
                Action::Queued { again: false } => "queued",
                Action::Queued { again: true } => "queued-again",
                Action::Dependents(n) => {
                    entry.count = Some(*n);
                    "dependents"
                }
                Action::Waits(n) => {
                    entry.count = Some(*n);
                    "waits"
                }
                Action::FinalizerRemoved(f) => {
                    entry.finalizer = Some(f);
                    "finalizer-removed"
                }
                Action::OwnerRemoved(o) => {
                    entry.owner = Some(&refs[o.index()]);
                    "owner-removed"
                }
                Action::Removed => "removed",
            };
            entry
        })
        .collect();
    let doc = SimulationOut {
        schema_version: 1,
        controller: sim.controller.as_str(),
        cascade: sim.cascade.as_str(),
        targets: sim.targets.iter().map(|t| refs[t.index()].as_str()).collect(),
        events,
        summary: SummaryOut {
            calls: Verb::ALL.iter().zip(sim.calls).map(|(v, n)| (v.as_str(), n)).collect(),
            events: EventType::ALL.iter().zip(sim.events).map(|(e, n)| (e.as_str(), n)).collect(),
            rounds: sim.rounds,
            removed: sim.removed.iter().map(|r| refs[r.index()].as_str()).collect(),
        },
    };
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
    out.write_all(b"\n")
}
