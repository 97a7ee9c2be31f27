//! `teardown graph`: the owner / destruction-dependency graph.

use super::{load_usable, Env, Loading, Status};
use crate::analysis::view::{self, Direction, ViewOptions};
use crate::cli::{GraphArgs, GraphFormat};
use crate::error::Error;
use crate::graph::Graph;
use crate::render;
use crate::render::diagnostics::Style;

pub fn run(args: GraphArgs, env: Env, style: Style) -> Result<Status, Error> {
    let query = crate::settings::selection(&args.focus, &args.select)?;
    let controls = crate::settings::controls(&args.rules, &args.config, &[])?;
    let paths = args.input.paths();
    let loading = Loading::plain(args.input.dialect.clone(), args.skip_invalid, "graph", style, env.progress, &paths)
        .saying(controls.rules, env.quiet);
    let snapshot = load_usable(&loading, env.stdin, env.stderr)?;
    let focus = if query.is_empty() { None } else { Some(query.select(&snapshot.objects)?) };
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    let direction = if args.dependencies { Direction::Dependencies } else { Direction::Dependents };
    let rels = &snapshot.resolved.relations;
    let view = view::build(&snapshot.objects, rels, &graph, &ViewOptions { direction, focus, depth: args.depth });
    let objects = &snapshot.objects;
    let text = match args.output {
        GraphFormat::Tree => render::graph::tree(objects, rels, &view),
        GraphFormat::Json => render::graph::json(&snapshot.sources, objects, rels, &view),
        GraphFormat::Dot => render::graph::dot(objects, rels, &view),
        GraphFormat::Mermaid => render::graph::mermaid(objects, rels, &view),
    };
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    Ok(Status::Success)
}
