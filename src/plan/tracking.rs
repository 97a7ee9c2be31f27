//! The stages of a tracking application's collector (KubeVela), as the plan
//! shows them under `--gc`: mark (every tracker, marked or not, and why),
//! finalize (every resource a marked tracker records: deleted at which
//! step, or kept and why), sweep (when each marked tracker loses its
//! finalizer) and the component revisions collected.

use super::reasons::Kept;
use crate::analysis::cascade::Cascade;
use crate::analysis::order::Order;
use crate::analysis::tracking::{tracker_of, Collection, Mark};
use crate::model::tracking::TrackerKind;
use crate::model::{ObjId, Object, RelKind, Relation};
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub struct Stages {
    /// Every resource tracker, in reference order, with its Application
    /// (if in the snapshot) and what the mark stage decided.
    pub mark: Vec<MarkStage>,
    /// What the marked trackers record, tracker by tracker.
    pub finalize: Vec<Finalize>,
    /// The marked trackers and when each loses its finalizer.
    pub sweep: Vec<Sweep>,
    /// Component revisions the collector deletes, with their component.
    pub revisions: Vec<(ObjId, String)>,
}

#[derive(Clone, Debug)]
pub struct MarkStage {
    pub tracker: ObjId,
    pub kind: TrackerKind,
    pub generation: Option<u64>,
    pub app: Option<ObjId>,
    pub mark: Mark,
    /// `Mark::LegacyUnknown`: the reference of the entry not in the snapshot.
    pub entry: Option<String>,
}

#[derive(Clone, Debug)]
pub struct Finalize {
    pub tracker: ObjId,
    /// The resource as the tracker records it.
    pub resource: String,
    pub fate: Fate,
}

#[derive(Clone, Debug)]
pub enum Fate {
    /// Deleted at this step.
    Deleted { object: ObjId, step: u32 },
    /// In the snapshot, kept.
    Kept { object: ObjId, why: Kept },
    /// In the snapshot and in the plan's deletion set for another reason, or
    /// reached by nothing (kept for no collector reason).
    Untouched { object: ObjId },
    /// Not in the snapshot: already gone, or on another cluster.
    NotInSnapshot { cluster: Option<String> },
    /// The tracker records it as deleted.
    RecordedDeleted,
}

#[derive(Clone, Debug)]
pub struct Sweep {
    pub tracker: ObjId,
    /// The step at which it goes (its finalizer removed).
    pub step: u32,
    /// How many resources it deletes first.
    pub after: u32,
}

impl MarkStage {
    pub fn id(&self) -> &'static str {
        match self.mark {
            Mark::Current => "current",
            Mark::Root => "root",
            Mark::Revisions => "component-revisions",
            Mark::Outdated { .. } | Mark::OtherVersion { .. } => "outdated",
            Mark::WorkflowPending(_) => "workflow-not-succeeded",
            Mark::AppDeleted(_) => "application-being-deleted",
            Mark::AppAbsent => "application-not-in-snapshot",
            Mark::AppNotInSnapshot => "application-not-in-snapshot",
            Mark::AlreadyMarked => "already-marked",
            Mark::Legacy { .. } => "keep-legacy-resource",
            Mark::LegacyUnknown { .. } => "keep-legacy-resource",
        }
    }
}

/// The stages, from the collector's decisions and the plan made from them.
pub fn stages(
    objects: &[Object],
    relations: &[Relation],
    collection: &Collection,
    cascade: &Cascade,
    kept: &[(ObjId, Kept)],
    order: &Order,
    rank: &[u32],
) -> Stages {
    let kept: HashMap<ObjId, &Kept> = kept.iter().map(|(id, k)| (*id, k)).collect();
    let mut resolved: HashMap<(ObjId, u32), ObjId> = HashMap::new();
    // Each managed resource's first record (tracker, entry), for revisions.
    let mut record: HashMap<ObjId, (ObjId, u32)> = HashMap::new();
    for r in relations.iter().filter(|r| r.kind == RelKind::Manages && r.decl != u32::MAX) {
        resolved.insert((r.from, r.decl), r.to);
        record.entry(r.to).or_insert((r.from, r.decl));
    }
    let mut out = Stages::default();
    for (tracker, app, mark) in &collection.trackers {
        let Some(t) = objects.get(tracker.index()).and_then(tracker_of) else { continue };
        let entry = match mark {
            Mark::LegacyUnknown { entry } => t.managed.get(*entry as usize).map(|m| m.reference()),
            _ => None,
        };
        out.mark.push(MarkStage {
            tracker: *tracker,
            kind: t.kind,
            generation: t.generation,
            app: *app,
            mark: mark.clone(),
            entry,
        });
        if !mark.marked() || !cascade.deleted(*tracker) {
            continue;
        }
        let mut after = 0;
        for (j, m) in t.managed.iter().enumerate() {
            let fate = match resolved.get(&(*tracker, j as u32)) {
                _ if m.deleted => Fate::RecordedDeleted,
                Some(&object) if cascade.deleted(object) => {
                    after += 1;
                    Fate::Deleted { object, step: order.step_of(object) }
                }
                Some(&object) => match kept.get(&object) {
                    Some(why) => Fate::Kept { object, why: (*why).clone() },
                    None => Fate::Untouched { object },
                },
                None => Fate::NotInSnapshot { cluster: m.cluster.as_deref().map(String::from) },
            };
            out.finalize.push(Finalize { tracker: *tracker, resource: m.reference(), fate });
        }
        out.sweep.push(Sweep { tracker: *tracker, step: order.step_of(*tracker), after });
    }
    // `rank` has one entry per object: every key is `Some`.
    let rank = |id: ObjId| rank.get(id.index()).copied();
    out.mark.sort_by_key(|m| rank(m.tracker));
    let position: HashMap<ObjId, usize> = out.mark.iter().enumerate().map(|(i, m)| (m.tracker, i)).collect();
    out.finalize.sort_by_key(|f| position.get(&f.tracker).copied());
    out.sweep.sort_by_key(|s| rank(s.tracker));
    for &(id, why) in &collection.seeds {
        if why != crate::analysis::cascade::Garbage::UnusedRevision || !cascade.deleted(id) {
            continue;
        }
        let component = record
            .get(&id)
            .and_then(|&(t, j)| tracker_of(objects.get(t.index())?)?.managed.get(j as usize)?.component.clone());
        out.revisions.push((id, component.map(|c| c.to_string()).unwrap_or_default()));
    }
    out.revisions.sort_by_key(|(id, _)| rank(*id));
    out
}
