//! `teardown simulate`: a garbage collector's workflow on the snapshot.

use super::shared::{Env, Status};
use crate::analysis::order::reference_ranks;
use crate::analysis::simulate::{self, Controller};
use crate::cli::{Format, SimulateArgs};
use crate::error::Error;
use crate::graph::Graph;
use crate::model::{Link, ObjId, Object, RelKind};
use crate::plan::ownership_cycle_error;
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::SimulateSettings;
use crate::usable::{load_usable, refuse_duplicates, say_places, Loading};
use rayon::prelude::*;

pub fn run(args: SimulateArgs, env: Env, style: Style) -> Result<Status, Error> {
    let settings = SimulateSettings::new(&args)?;
    let paths = args.input.paths();
    let loading =
        Loading::plain(args.input.dialect.clone(), args.skip_invalid, "simulation", style, env.progress, &paths)
            .saying(settings.rules, env.quiet)
            .limited(args.input.reading());
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    refuse_duplicates(&snapshot, "simulation", style, env.stderr)?;
    let targets = settings.targets.select(&snapshot.objects)?;
    let objects = &snapshot.objects;
    let relations = &snapshot.resolved.relations;
    // Krake's collector refuses a dependency cycle: stop, as plan does,
    // with the whole cycle. (One that Kubernetes' collector cannot finish
    // shows as objects that stall.)
    let mut timer = crate::timing::Timer::start();
    let reach = reachable(objects, relations, &targets);
    if args.controller == Controller::Krake {
        let graph = Graph::build(objects, relations);
        let cycles = crate::graph::cycles::find_by_reference(objects, &graph, relations, |r| {
            r.kind == RelKind::Owns && r.link == Link::Solid
        });
        let reached = |o: &ObjId| reach.get(o.index()).copied().unwrap_or(false);
        if let Some(c) = cycles.iter().find(|c| c.component.iter().any(reached)) {
            let refs = crate::analysis::refs::Refs::of(objects);
            let error = ownership_cycle_error(objects, relations, &graph, &refs, &c.component);
            say_places(&snapshot, &error, style, env.stderr);
            return Err(error.into());
        }
    }
    timer.lap("cycles");
    let refs: Vec<String> = objects.par_iter().map(Object::reference).collect();
    let rank = reference_ranks(&refs);
    // (Without --closed-world: a type nothing in the snapshot defines may
    // be defined in the cluster.)
    let unresolvable = match args.controller {
        Controller::Kubernetes => snapshot.resolved.unresolvable_by_object(objects.len(), false),
        Controller::Krake => Vec::new(),
    };
    let sim = simulate::simulate(&simulate::Input {
        objects,
        relations,
        rank: &rank,
        targets: &targets,
        controller: args.controller,
        cascade: settings.cascade,
        unresolvable: &unresolvable,
        managed: &snapshot.resolved.managed,
    });
    timer.lap("simulate");
    let out = &mut *env.stdout;
    let written = match args.output {
        Format::Table => render::simulate::table(&sim, &refs, out),
        Format::Json => render::simulate::json(&sim, &refs, out),
        Format::Yaml => render::simulate::yaml(&sim, &refs, out),
        Format::Names => {
            render::printable::printable(&snapshot, &[&sim.removed], "-o names")?;
            render::names::kubectl(objects, &sim.removed, out)
        }
        Format::Refs => {
            render::names::refs(&crate::analysis::refs::Refs::from_strings(&refs), sim.removed.iter().copied(), out)
        }
        other => return Err(super::shared::unoffered("simulate", other)),
    };
    written.map_err(Error::Output)?;
    timer.lap("render");
    match sim.stalled.len() {
        0 => Ok(Status::Success),
        objects => Err(Error::Hangs { objects }),
    }
}

/// The objects the deletion of `targets` can reach through solid ownership.
fn reachable(objects: &[Object], relations: &[crate::model::Relation], targets: &[ObjId]) -> Vec<bool> {
    // Ids are positions in `objects`, which the relations and targets
    // were made from: `get` finds each one.
    let mut dependents = vec![Vec::new(); objects.len()];
    for r in relations.iter().filter(|r| r.kind == RelKind::Owns && r.link == Link::Solid) {
        if let Some(d) = dependents.get_mut(r.from.index()) {
            d.push(r.to);
        }
    }
    let mut seen = vec![false; objects.len()];
    let mut stack: Vec<ObjId> = targets.to_vec();
    while let Some(id) = stack.pop() {
        match seen.get_mut(id.index()) {
            Some(seen) if !*seen => *seen = true,
            _ => continue,
        }
        stack.extend(dependents.get(id.index()).into_iter().flatten().copied());
    }
    seen
}
