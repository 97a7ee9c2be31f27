//! `teardown reconcile`: crd-reconciler's decision table over a snapshot.

use super::shared::{diagnostics, load_usable, refuse_duplicates, Env, Loading, Status};
use crate::analysis::reconcile::{self, DesiredSet, Input, Problem, Spec};
use crate::cli::{ReconcileArgs, ReconcileFormat};
use crate::dialect;
use crate::error::Error;
use crate::findings::{Finding, Rule};
use crate::internal::Internal;
use crate::load::Snapshot;
use crate::model::lifecycle::{Lifecycle, Said};
use crate::model::{anchor, ObjId, Object};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::ReconcileSettings;
use rayon::prelude::*;
use std::collections::HashSet;

pub fn run(args: ReconcileArgs, env: Env, style: Style) -> Result<Status, Error> {
    // Every rule between flags before any input is read.
    let settings = ReconcileSettings::new(&args)?;
    let controls = crate::settings::controls(&args.rules, &args.config, &[])?;
    let paths = args.input.paths();
    let loading = Loading::plain(args.input.dialect.clone(), false, "reconciliation", style, env.progress, &paths)
        .saying(controls.rules, env.quiet)
        .limited(args.input.reading());
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    refuse_duplicates(&snapshot, "reconciliation", style, env.stderr)?;
    let desired = match settings.desired.is_empty() {
        true => None,
        false => {
            let loading =
                Loading::plain(args.input.dialect.clone(), false, "reconciliation", style, false, &settings.desired)
                    .saying(controls.rules, env.quiet)
                    .limited(args.input.reading())
                    .may_be_empty();
            let mut no_stdin = std::io::empty();
            let desired = load_usable(&loading, &mut no_stdin, env.stderr)?;
            refuse_duplicates(&desired, "reconciliation", style, env.stderr)?;
            Some(desired)
        }
    };
    let objects = &snapshot.objects;
    for kind in &settings.kinds {
        let named = objects.iter().filter(|o| o.is_kubernetes()).any(|o| {
            kind.names(&o.group, &o.kind) || o.owners.iter().any(|r| r.controller && kind.names(&r.group, &r.kind))
        });
        if !named {
            return Err(Error::NoMatch {
                selector: format!("--kind {}", kind.text),
                suggestions: crate::select::closest_kinds_of(kind, &snapshot.objects),
            });
        }
    }
    // Without --kind: the kinds of the objects that say a desired state.
    let found: HashSet<(&str, &str)> = objects
        .iter()
        .filter(|o| o.is_kubernetes() && o.desired_state != Said::Absent)
        .map(|o| (&*o.group, &*o.kind))
        .collect();
    let custom = |group: &str, kind: &str| match settings.kinds.is_empty() {
        true => found.contains(&(group, kind)),
        false => settings.kinds.iter().any(|k| k.names(group, kind)),
    };
    let ephemeral = |group: &str, kind: &str| settings.is_ephemeral(group, kind);
    // The states of the custom resources and their would-be sub-resources,
    // read again from their documents, in parallel (the rest is never read).
    let wanted = |o: &Object| {
        o.is_kubernetes()
            && (custom(&o.group, &o.kind) || o.owners.iter().any(|r| r.controller && custom(&r.group, &r.kind)))
    };
    let states: Vec<Option<Lifecycle>> =
        objects.par_iter().map(|o| if wanted(o) { dialect::lifecycle(&snapshot.sources, o) } else { None }).collect();
    // Ids of INPUT index `objects` and `states`; ids of --desired, its objects.
    let lifecycle = |id: ObjId| states.get(id.index()).copied().flatten();
    let compare = |live: ObjId, want: ObjId| -> Option<Spec> {
        let desired = desired.as_ref()?;
        let l = dialect::desired_part(&snapshot.sources, objects.get(live.index())?)?;
        let d = dialect::desired_part(&desired.sources, desired.objects.get(want.index())?)?;
        Some(match reconcile::compare(&l, &d) {
            None => Spec::Matches,
            Some(m) => Spec::Mismatch(m),
        })
    };
    let input = Input {
        objects,
        relations: &snapshot.resolved.relations,
        custom: &custom,
        ephemeral: &ephemeral,
        lifecycle: &lifecycle,
        desired: desired.as_ref().map(|d| DesiredSet { objects: &d.objects, compare: &compare }),
    };
    let result = match reconcile::reconcile(&input) {
        Ok(result) => result,
        Err(problems) => {
            let findings = problems
                .iter()
                .map(|&(p, _)| problem(&snapshot, p, settings.kinds.is_empty()))
                .collect::<Result<Vec<Finding>, _>>()?;
            diagnostics(&snapshot, &findings, &Default::default(), style, env.stderr);
            return Err(Error::Unreconcilable { objects: findings.len() });
        }
    };
    if result.resources.is_empty() && !env.quiet {
        let why = match settings.kinds.is_empty() {
            true => "no object has a spec.state; name the kinds of the custom resources with --kind",
            false => "no object of the --kind kinds, and no sub-resource of one",
        };
        env.stderr.extend_from_slice(format!("warning: no custom resources: {why}\n").as_bytes());
    }
    for reference in result.unplaced.iter().filter(|_| !env.quiet) {
        env.stderr.extend_from_slice(
            format!("warning: --desired {} is not in INPUT and has no controller reference to a custom resource: not a sub-resource of any (ignored)\n", crate::escape::escape(reference)).as_bytes(),
        );
    }
    let out = &mut *env.stdout;
    let written = match args.output {
        ReconcileFormat::Table => render::reconcile::table(&result, out),
        ReconcileFormat::Json => render::reconcile::json(&result, out),
        ReconcileFormat::Yaml => render::reconcile::yaml(&result, out),
    };
    written.map_err(Error::Output)?;
    if args.output == ReconcileFormat::Table && !result.resources.is_empty() && !env.quiet {
        env.stderr.extend_from_slice(format!("{}\n", render::reconcile::summary(&result)).as_bytes());
    }
    Ok(Status::Success)
}

/// The finding for input that cannot be reconciled, at its place.
fn problem(snapshot: &Snapshot, p: Problem, found_kinds: bool) -> Result<Finding, Internal> {
    let objects = &snapshot.objects;
    let sources = &snapshot.sources;
    let kinds_help = if found_kinds {
        "; it is taken for a custom resource because it has a spec.state: if its kind is not a custom resource's, name those kinds with --kind"
    } else {
        ""
    };
    let (id, rule, message, at, label, help) = match p {
        Problem::NoDesiredState(id) => (
            id,
            Rule::Td001,
            "has no spec.state".to_string(),
            None,
            "this custom resource",
            "crd-reconciler's table starts from the desired state: write spec.state (Pending, Running, Completed or Failed)".to_string(),
        ),
        Problem::NotAState { object, status } => (
            object,
            Rule::Td001,
            format!("has a {} that is not a state", if status { "status.state" } else { "spec.state" }),
            Some(status),
            "not Pending, Running, Completed or Failed",
            format!("crd-reconciler's states are Pending, Running, Completed and Failed, spelled so{kinds_help}"),
        ),
        Problem::Unreadable(id) => (
            id,
            Rule::Td001,
            "cannot be read again on its own to tell its states".to_string(),
            None,
            "this object",
            "its document uses an anchor defined outside it; write the values out".to_string(),
        ),
        Problem::TwoControllers(id) => (
            id,
            Rule::Td009,
            "has more than one controller reference to a custom resource".to_string(),
            None,
            "this sub-resource",
            "a sub-resource belongs to the one custom resource its controller reference names; the API server allows one".to_string(),
        ),
    };
    let o = id.of(objects)?;
    let span = match at {
        Some(status) => anchor::state(sources, o, status),
        None => anchor::object(sources, o),
    };
    Ok(Finding::new(rule, format!("{} {message}", o.reference())).at(span, label).refs([o.reference()]).help(help))
}
