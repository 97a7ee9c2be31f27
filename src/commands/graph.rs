//! `teardown graph`: the owner / destruction-dependency graph.

use super::shared::{Env, Status};
use crate::analysis::view::{self, Direction, ViewOptions};
use crate::cli::{Format, GraphArgs};
use crate::error::Error;
use crate::graph::Graph;
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::GraphSettings;
use crate::usable::{load_usable, Loading};

pub fn run(args: GraphArgs, env: Env, style: Style) -> Result<Status, Error> {
    let settings = GraphSettings::new(&args)?;
    let paths = args.input.paths();
    let loading = Loading::plain(args.input.dialect.clone(), args.skip_invalid, "graph", style, env.progress, &paths)
        .saying(settings.rules, env.quiet)
        .limited(args.input.reading());
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    let focus = if settings.focus.is_empty() { None } else { Some(settings.focus.select(&snapshot.objects)?) };
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    let direction = if args.dependencies { Direction::Dependencies } else { Direction::Dependents };
    let rels = &snapshot.resolved.relations;
    let view = view::build(&snapshot.objects, rels, &graph, &ViewOptions { direction, focus, depth: args.depth });
    let objects = &snapshot.objects;
    let out = &mut *env.stdout;
    let written = match args.output {
        Format::Tree => out.write_all(render::graph::tree(objects, rels, &view, style)?.as_bytes()),
        Format::Json => out.write_all(render::graph::json(&snapshot.sources, objects, rels, &view)?.as_bytes()),
        Format::Yaml => render::graph::yaml(&snapshot.sources, objects, rels, &view, out),
        Format::Names => {
            let shown = view.tree_order();
            render::printable::printable(&snapshot, &[&shown], "-o names")?;
            render::names::kubectl(objects, &shown, out)
        }
        Format::Refs => render::names::object_refs(objects, view.tree_order().into_iter(), out),
        Format::Dot => out.write_all(render::graph::dot(objects, rels, &view)?.as_bytes()),
        Format::Mermaid => out.write_all(render::graph::mermaid(objects, rels, &view)?.as_bytes()),
        other => return Err(super::shared::unoffered("graph", other)),
    };
    written.map_err(Error::Output)?;
    Ok(Status::Success)
}
