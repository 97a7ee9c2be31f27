//! The plan a command's settings describe, made from its load: what
//! `plan`, `explain` and `apply` share.

use super::shared::Voice;
use crate::analysis::cascade::CascadeMode;
use crate::cli::InputArgs;
use crate::error::Error;
use crate::load::Snapshot;
use crate::plan::{self, Detail, Mode, Plan};
use crate::settings::{PlanSettings, Start, Started};
use crate::usable::{
    blocking_duplicates, load_usable, refuse_duplicates, refuse_findings, refuse_skipped, say_places, Loading, Reader,
};
use std::io::Read;

/// Load the input and make the plan the settings describe. Input that
/// cannot be read or used stops here (exit 2) unless `--skip-invalid`: a
/// plan must not miss objects. The snapshot's relations are the plan's
/// (the snapshot's own are left empty).
pub(super) fn make(
    settings: &PlanSettings,
    input: &InputArgs,
    detail: Detail,
    stdin: &mut dyn Read,
    stderr: &mut Vec<u8>,
    voice: Voice,
    read: Option<Reader>,
) -> Result<(Snapshot, Plan), Error> {
    let Voice { style, progress, rules, quiet } = voice;
    let paths = input.paths();
    let loading = Loading::plain(input.dialect.clone(), settings.skip_invalid, "plan", style, progress, &paths)
        .saying(rules, quiet)
        .limited(input.reading())
        .carrying(detail.places, read);
    let mut snapshot = load_usable(&loading, stdin, stderr)?;
    // Duplicates stop `--all` and `--gc` at once; a plan from chosen
    // objects is made, then refused only for those that could change it.
    let duplicates = blocking_duplicates(&snapshot);
    if !matches!(settings.start, Start::Delete(_) | Start::Prune(_)) {
        refuse_duplicates(&snapshot, "plan", style, stderr)?;
    }
    let mut timer = crate::timing::Timer::start();
    let started = start(settings, &snapshot, &loading, stdin, stderr)?;
    timer.lap("select");
    if settings.cascade == CascadeMode::Orphan {
        plan::mode::orphanable(&snapshot.objects, &started.0)?;
    }
    let mut finalizer_controllers = Vec::new();
    for (finalizer, query) in &settings.finalizer_controllers {
        finalizer_controllers.push((finalizer.clone(), query.select(&snapshot.objects)?));
    }
    let options = settings.options(started, finalizer_controllers, detail);
    let mut timer = crate::timing::Timer::start();
    // The plan takes the snapshot's relations rather than a copy: from
    // here on they are `plan.relations` (the first `snapshot_relations`
    // of them), and the snapshot's are empty; an error gives them back
    // (its places point at them).
    let relations = std::mem::take(&mut snapshot.resolved.relations);
    let mut plan = match plan::build_from(&snapshot, relations, &options) {
        Ok(plan) => plan,
        Err(made) => {
            let (e, relations) = *made;
            snapshot.resolved.relations = relations;
            refuse_duplicates(&snapshot, "plan", style, stderr)?;
            say_places(&snapshot, &e, style, stderr);
            return Err(e.into());
        }
    };
    timer.lap("plan");
    refuse_skipped(&snapshot, &plan, style, stderr)?;
    if !duplicates.is_empty() {
        let judged = plan::duplicates::judged(&snapshot, &plan, &duplicates);
        let bearing = plan::duplicates::bearing_findings(&snapshot, &plan, &judged.bearing);
        refuse_findings(&snapshot, bearing, "plan", style, stderr)?;
        plan::duplicates::set_aside(&snapshot, &mut plan, &judged.inert);
    }
    plan.dialect = input.dialect.clone();
    Ok((snapshot, plan))
}

/// Where the plan starts, read from the input (and from `--prune NEW`).
fn start(
    settings: &PlanSettings,
    snapshot: &Snapshot,
    loading: &Loading,
    stdin: &mut dyn Read,
    stderr: &mut Vec<u8>,
) -> Result<Started, Error> {
    Ok(match &settings.start {
        Start::All => (Mode::All, None, Vec::new(), Vec::new()),
        Start::Gc { root: None } => (Mode::Gc, None, Vec::new(), Vec::new()),
        Start::Gc { root: Some(id) } => match crate::dialect::collection_root(&snapshot.objects, id) {
            Ok(Some(root)) => (Mode::Gc, Some(root), Vec::new(), Vec::new()),
            Ok(None) => return Err(Error::NoMatch { selector: format!("--root {id}"), suggestions: Vec::new() }),
            Err(usage) => return Err(Error::Usage(usage)),
        },
        Start::Prune(new) => {
            // Never skipped: an object whose document in NEW is skipped
            // would look absent from NEW, and be pruned.
            let what = "plan (in --prune NEW)";
            let dialect = loading.dialect.clone();
            let (skip_invalid, digests, may_be_empty) = (false, false, true);
            let limits = loading.limits.clone();
            let loading =
                Loading { dialect, skip_invalid, what, digests, paths: new, may_be_empty, limits, ..*loading };
            let mut new = load_usable(&loading, stdin, stderr)?;
            // (A model deleted whole is empty on purpose.)
            let on_purpose = || new.sources.files.iter().any(|f| crate::dialect::empty_on_purpose(&f.text));
            if new.objects.is_empty() && !settings.allow_empty_new && !on_purpose() {
                return Err(Error::EmptyNew);
            }
            // NEW's objects written without a namespace where kubectl would
            // place them by its -n or context: refused (teardown cannot know).
            if let Err(m) = plan::prune::placed(&mut new.objects, &snapshot.objects, None) {
                return Err(Error::Usage(crate::render::prose::misplaced(&new, &m, None)?));
            }
            let (absent, in_new) = plan::absent_from(&snapshot.objects, &new.objects);
            (Mode::Prune(absent), None, in_new, Vec::new())
        }
        Start::Delete(targets) => {
            let selected = targets.select(&snapshot.objects)?;
            let mut named = Vec::new();
            for &id in &selected {
                if targets.names(id.of(&snapshot.objects)?) {
                    named.push(id);
                }
            }
            (Mode::Delete(selected), None, Vec::new(), named)
        }
    })
}
