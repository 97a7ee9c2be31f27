//! `teardown reconcile`: crd-reconciler's decision table over a snapshot.

use super::shared::{Env, Status};
use crate::analysis::reconcile::{self, DesiredSet, Input, Spec};
use crate::cli::{Format, ReconcileArgs};
use crate::dialect;
use crate::error::Error;
use crate::findings::Finding;
use crate::model::lifecycle::{Lifecycle, Said};
use crate::model::{ObjId, Object};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::ReconcileSettings;
use crate::usable::{diagnostics, load_usable, refuse_duplicates, Loading};
use rayon::prelude::*;
use std::collections::HashSet;

pub fn run(args: ReconcileArgs, env: Env, style: Style) -> Result<Status, Error> {
    let settings = ReconcileSettings::new(&args)?;
    let paths = args.input.paths();
    let loading = Loading::plain(args.input.dialect.clone(), false, "reconciliation", style, env.progress, &paths)
        .saying(settings.rules, env.quiet)
        .limited(args.input.reading());
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    refuse_duplicates(&snapshot, "reconciliation", style, env.stderr)?;
    let desired = match settings.desired.is_empty() {
        true => None,
        false => {
            let loading =
                Loading::plain(args.input.dialect.clone(), false, "reconciliation", style, false, &settings.desired)
                    .saying(settings.rules, env.quiet)
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
                .map(|&(p, _)| render::reconcile::problem(&snapshot, p, settings.kinds.is_empty()))
                .collect::<Result<Vec<Finding>, _>>()?;
            diagnostics(&snapshot, &findings, &Default::default(), style, env.stderr);
            return Err(Error::Unreconcilable { objects: findings.len() });
        }
    };
    if !env.quiet {
        env.stderr.extend_from_slice(render::reconcile::warnings(&result, settings.kinds.is_empty()).as_bytes());
    }
    let out = &mut *env.stdout;
    let written = match args.output {
        Format::Table => render::reconcile::table(&result, out),
        Format::Json => render::reconcile::json(&result, out),
        Format::Yaml => render::reconcile::yaml(&result, out),
        other => return Err(super::shared::unoffered("reconcile", other)),
    };
    written.map_err(Error::Output)?;
    if args.output == Format::Table && !result.resources.is_empty() && !env.quiet {
        env.stderr.extend_from_slice(format!("{}\n", render::reconcile::summary(&result)).as_bytes());
    }
    Ok(Status::Success)
}
