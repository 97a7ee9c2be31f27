//! `teardown check`: findings about a snapshot.

use super::shared::{Env, Status};
use crate::analysis::check::{self, CheckOptions};
use crate::cli::{CheckArgs, CheckFormat};
use crate::error::Error;
use crate::findings::SeverityPolicy;
use crate::graph::Graph;
use crate::load::{self, LoadOptions};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::Controls;

pub fn run(args: CheckArgs, env: Env, style: Style) -> Result<Status, Error> {
    let controls = crate::settings::check(&args)?;
    let options = LoadOptions {
        dialect: args.input.dialect.clone(),
        progress: env.progress,
        digests: false,
        limits: args.input.reading(),
    };
    let paths = args.input.paths();
    let mut snapshot = load::load(&paths, &options, env.stdin);
    if snapshot.holds_nothing() {
        // What was found instead (an empty file, a directory without
        // files) is said first.
        // (As --select and --ignore say: an ignored TD013 is not said.)
        let said: Vec<_> = snapshot.findings.iter().filter(|f| controls.rules.reports(f)).cloned().collect();
        if !env.quiet && !said.is_empty() {
            super::shared::diagnostics(&snapshot, &said, &snapshot.omitted, style, env.stderr);
        }
        return Err(super::shared::empty_input("check", &paths));
    }
    let mut resolved = Vec::new();
    for (finalizer, query) in &controls.finalizers.named {
        resolved.push((finalizer.clone(), query.select(&snapshot.objects)?));
    }
    // What plan orders by, check analyses: each controller goes after the
    // objects carrying its finalizer (cycles and conflicts that makes are
    // findings here too). A controller outside the snapshot orders nothing.
    let extra = crate::plan::finalizer_relations(&snapshot.objects, &resolved);
    snapshot.resolved.relations.extend(extra);
    let mut timer = crate::timing::Timer::start();
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    timer.lap("graph");
    let Controls { rules, closed_world, deny_warnings, finalizers } = controls;
    let options = CheckOptions {
        known_finalizers: finalizers.named.into_iter().map(|(f, _)| f).chain(finalizers.external).collect(),
        policy: SeverityPolicy { closed_world, deny_warnings },
        rules,
    };
    let report = check::check(&snapshot, &graph, &options);
    timer.lap("check");
    let sources = &snapshot.sources;
    // -q: no summary line under the tables.
    let summary = (!env.quiet).then_some(&report.counts);
    let (findings, omitted) = (&report.findings, &report.omitted);
    let text = match (args.statistics, args.output) {
        (true, CheckFormat::Json) => {
            render::findings::statistics_json(&check::statistics(findings, omitted), &report.counts)
        }
        (true, _) => render::findings::statistics_table(&check::statistics(findings, omitted), summary),
        (false, CheckFormat::Table) => render::diagnostics::render(sources, findings, omitted, summary, style),
        (false, CheckFormat::Json) => render::findings::json(sources, findings, omitted, &report.counts),
        (false, CheckFormat::Yaml) => render::findings::yaml(sources, findings, omitted, &report.counts),
        (false, CheckFormat::Sarif) => render::findings::sarif(sources, findings, omitted),
        (false, CheckFormat::Github) => render::findings::github(sources, findings, omitted),
        (false, CheckFormat::Markdown) => render::glance::check_markdown(sources, findings, omitted, &report.counts),
    };
    // -q: the findings without the summary line under them, nor the blank
    // line that would part them from it.
    let text = match (env.quiet, args.output) {
        (true, CheckFormat::Table) if text.trim_end().is_empty() => String::new(),
        (true, CheckFormat::Table) => format!("{}\n", text.trim_end()),
        _ => text,
    };
    timer.lap("render");
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    let status = if report.fatal {
        // Input that could not be read: not a finding --exit-zero forgives.
        Status::InputFailed
    } else if report.counts.errors > 0 && !args.exit_zero {
        Status::Findings
    } else {
        Status::Success
    };
    load::let_go(snapshot);
    Ok(status)
}
