//! `teardown graph`: the owner / destruction-dependency graph.

use super::shared::{load_usable, Env, Loading, Status};
use crate::analysis::view::{self, Direction, ViewOptions};
use crate::cli::{GraphArgs, GraphFormat};
use crate::error::Error;
use crate::graph::Graph;
use crate::render;
use crate::render::diagnostics::Style;

pub fn run(args: GraphArgs, env: Env, style: Style) -> Result<Status, Error> {
    let query = crate::settings::selection(&args.focus, &args.select)?;
    let controls = crate::settings::controls(&args.rules, &args.config, &[])?;
    crate::settings::spaced_selector(&args.focus, &args.input.inputs)?;
    let paths = args.input.paths();
    let loading = Loading::plain(args.input.dialect.clone(), args.skip_invalid, "graph", style, env.progress, &paths)
        .saying(controls.rules, env.quiet)
        .limited(args.input.reading());
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    let focus = if query.is_empty() { None } else { Some(query.select(&snapshot.objects)?) };
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    let direction = if args.dependencies { Direction::Dependencies } else { Direction::Dependents };
    let rels = &snapshot.resolved.relations;
    let view = view::build(&snapshot.objects, rels, &graph, &ViewOptions { direction, focus, depth: args.depth });
    let objects = &snapshot.objects;
    let out = &mut *env.stdout;
    let written = match args.output {
        GraphFormat::Tree => out.write_all(render::graph::tree(objects, rels, &view, style)?.as_bytes()),
        GraphFormat::Json => out.write_all(render::graph::json(&snapshot.sources, objects, rels, &view)?.as_bytes()),
        GraphFormat::Yaml => render::graph::yaml(&snapshot.sources, objects, rels, &view, out),
        GraphFormat::Names => {
            let shown = view.tree_order();
            super::names::printable(&snapshot, &[&shown], "-o names")?;
            render::names::kubectl(objects, shown.into_iter(), out)
        }
        GraphFormat::Refs => render::names::object_refs(objects, view.tree_order().into_iter(), out),
        GraphFormat::Dot => out.write_all(render::graph::dot(objects, rels, &view)?.as_bytes()),
        GraphFormat::Mermaid => out.write_all(render::graph::mermaid(objects, rels, &view)?.as_bytes()),
    };
    written.map_err(Error::Output)?;
    Ok(Status::Success)
}
