//! A plan and the TD002 duplicates of its snapshot (issue 38): those that
//! could change the plan refuse it, each with why; those that cannot
//! ([`crate::analysis::duplicates`] states the rule) are the plan's
//! warnings.

use super::warnings::{self, Warning};
use super::{Mode, Plan};
use crate::analysis::check::duplicate_finding;
use crate::analysis::duplicates::{judge, Bearing, Judged, Made};
use crate::findings::Finding;
use crate::load::Snapshot;
use crate::model::resolve::Duplicate;
use crate::model::ObjId;

/// Judge `duplicates` against `plan`, made from `snapshot` with both
/// copies of each.
pub fn judged(snapshot: &Snapshot, plan: &Plan, duplicates: &[Duplicate]) -> Judged {
    let mut touched = vec![false; snapshot.objects.len()];
    let mut touch = |id: ObjId| {
        if let Some(t) = touched.get_mut(id.index()) {
            *t = true;
        }
    };
    plan.targets.iter().chain(plan.steps.iter().flatten()).copied().for_each(&mut touch);
    plan.kept.iter().map(|(id, _)| *id).for_each(&mut touch);
    plan.orphaned.iter().flat_map(|&(id, owner)| [id, owner]).for_each(&mut touch);
    plan.hooks.iter().map(|h| h.object).for_each(&mut touch);
    let everything = match plan.options_mode {
        Mode::All => Some("--all"),
        Mode::Gc => Some("--gc"),
        Mode::Delete(_) | Mode::Prune(_) => None,
    };
    let made = Made {
        objects: &snapshot.objects,
        relations: &plan.relations,
        managed: &snapshot.resolved.managed,
        everything,
        touched: &touched,
    };
    judge(&made, duplicates)
}

/// The TD002 findings of the duplicates that could change `plan`, each
/// saying why.
pub fn bearing_findings(snapshot: &Snapshot, plan: &Plan, bearing: &[(Duplicate, Bearing)]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (d, why) in bearing {
        let Some(mut f) = duplicate_finding(snapshot, d) else { continue };
        let why = match why {
            Bearing::Mode(mode) => format!("{mode} plans every object"),
            Bearing::Kind(what) => format!("it is {what}"),
            Bearing::Reaches(id) if *id == d.first || *id == d.again => format!("the plan {} it", did(plan, *id)),
            Bearing::Reaches(id) => {
                format!("it is joined to {}, which the plan {}", plan.names().of(*id), did(plan, *id))
            }
        };
        let help = f.help.take().unwrap_or_default();
        out.push(f.help(format!("{help}; it could change this plan: {why}")));
    }
    out
}

/// What the plan does with `id`, in words.
fn did(plan: &Plan, id: ObjId) -> &'static str {
    if plan.targets.contains(&id) {
        "starts from"
    } else if plan.cascade.deleted(id) {
        "deletes"
    } else if plan.kept.iter().any(|(k, _)| *k == id) {
        "keeps"
    } else {
        "orphans"
    }
}

/// The duplicates that cannot change `plan`, as its warnings: TD002, at
/// the second copy, after the other findings about the input.
pub fn set_aside(snapshot: &Snapshot, plan: &mut Plan, inert: &[Duplicate]) {
    let said: Vec<Warning> = inert
        .iter()
        .filter_map(|d| duplicate_finding(snapshot, d))
        .filter_map(|mut f| {
            f.message.push_str(
                ": neither copy is in this plan or joined to anything in it, so either gives this plan (`check` reports it as an error)",
            );
            warnings::carried(snapshot, &f)
        })
        .collect();
    let at = plan.warnings.iter().position(|w| !matches!(w, Warning::Input { .. })).unwrap_or(plan.warnings.len());
    plan.warnings.splice(at..at, said);
}
