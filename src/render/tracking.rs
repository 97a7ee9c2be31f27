//! A tracking application's collector (KubeVela's) in a plan: its stages
//! (`plan --gc` of resource trackers), a
//! table after the plan's, and the plan file's `stages`. Formatting only.

use crate::plan::reasons::Names;
use crate::plan::reference::Ref;
use crate::plan::tracking::{Fate, Stages};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StagesOut<'a> {
    mark: Vec<MarkOut<'a>>,
    finalize: Vec<FinalizeOut<'a>>,
    sweep: Vec<SweepOut<'a>>,
    component_revisions: Vec<RevisionOut<'a>>,
}

#[derive(Serialize)]
struct MarkOut<'a> {
    tracker: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    generation: Option<u64>,
    application: Option<&'a str>,
    marked: bool,
    reason: &'static str,
    message: String,
}

#[derive(Serialize)]
struct FinalizeOut<'a> {
    tracker: &'a str,
    resource: &'a str,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'static str>,
    message: String,
}

#[derive(Serialize)]
struct SweepOut<'a> {
    tracker: &'a str,
    step: u32,
    after: u32,
    message: String,
}

#[derive(Serialize)]
struct RevisionOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    component: &'a str,
}

fn resources(n: u32) -> &'static str {
    if n == 1 {
        "resource"
    } else {
        "resources"
    }
}

fn finalize<'a>(names: &Names<'a>, s: &'a Stages) -> Vec<FinalizeOut<'a>> {
    s.finalize
        .iter()
        .map(|f| {
            let (resource, action, step, reason, message) = match &f.fate {
                Fate::Deleted { object, step } => {
                    (names.of(*object), "delete", Some(*step), None, format!("delete at step {step}"))
                }
                Fate::Kept { object, why } => (names.of(*object), "keep", None, Some(why.id()), why.detail(names)),
                Fate::Untouched { object } => {
                    (names.of(*object), "none", None, None, "not deleted by this tracker's collection".into())
                }
                Fate::NotInSnapshot { cluster: Some(c) } => {
                    (&*f.resource, "none", None, None, format!("on cluster {c}, not in the snapshot"))
                }
                Fate::NotInSnapshot { cluster: None } => {
                    (&*f.resource, "none", None, None, "not in the snapshot (already gone)".into())
                }
                Fate::RecordedDeleted => (&*f.resource, "none", None, None, "recorded as deleted".into()),
            };
            FinalizeOut { tracker: names.of(f.tracker), resource, action, step, reason, message }
        })
        .collect()
}

pub fn out<'a>(names: &Names<'a>, s: &'a Stages) -> StagesOut<'a> {
    StagesOut {
        mark: s
            .mark
            .iter()
            .map(|m| MarkOut {
                tracker: names.of(m.tracker),
                kind: m.kind.as_str(),
                generation: m.generation,
                application: m.app.map(|a| names.of(a)),
                marked: m.mark.marked(),
                reason: m.id(),
                message: m.message(names),
            })
            .collect(),
        finalize: finalize(names, s),
        sweep: s
            .sweep
            .iter()
            .map(|w| SweepOut {
                tracker: names.of(w.tracker),
                step: w.step,
                after: w.after,
                message: sweep_message(w.step, w.after),
            })
            .collect(),
        component_revisions: s
            .revisions
            .iter()
            .map(|(id, c)| RevisionOut { object: Ref::new(names.of(*id)), component: c })
            .collect(),
    }
}

fn sweep_message(step: u32, after: u32) -> String {
    match after {
        0 => format!("finalizer removed now (step {step}): nothing it deletes is left"),
        1 => format!("finalizer removed at step {step}, once the resource it deletes is gone"),
        n => format!("finalizer removed at step {step}, once the {n} {} it deletes are gone", resources(n)),
    }
}

/// The stages as a table: STAGE, OBJECT, DECISION.
pub fn table(names: &Names, s: &Stages) -> String {
    let mut rows: Vec<[String; 3]> = Vec::new();
    for m in &s.mark {
        rows.push(["mark".into(), names.of(m.tracker).into(), m.message(names)]);
    }
    for (f, o) in s.finalize.iter().zip(finalize(names, s)) {
        let decision = match o.action {
            "keep" => format!("keep: {} (tracked by {})", o.message, names.of(f.tracker)),
            _ => format!("{} (tracked by {})", o.message, names.of(f.tracker)),
        };
        rows.push(["finalize".into(), o.resource.into(), decision]);
    }
    for w in &s.sweep {
        rows.push(["sweep".into(), names.of(w.tracker).into(), sweep_message(w.step, w.after)]);
    }
    for (id, c) in &s.revisions {
        rows.push(["revision".into(), names.of(*id).into(), format!("delete: component {c} is no longer used")]);
    }
    super::columns::table(["STAGE", "OBJECT", "DECISION"], &rows)
}
