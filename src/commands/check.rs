//! `teardown check`: findings about a snapshot.

use super::shared::{Env, Status};
use crate::analysis::check::{self, CheckOptions};
use crate::cli::{CheckArgs, Format};
use crate::error::Error;
use crate::findings::SeverityPolicy;
use crate::graph::Graph;
use crate::input::Limits;
use crate::load::{self, LoadOptions};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::Controls;

pub fn run(args: CheckArgs, env: Env, style: Style) -> Result<Status, Error> {
    let controls = crate::settings::check(&args)?;
    let paths = args.input.paths();
    let options =
        |limits| LoadOptions { dialect: args.input.dialect.clone(), progress: env.progress, digests: false, limits };
    let mut timer = crate::timing::Timer::start();
    let (sources, report) = if args.packages {
        // Each package a snapshot of its own (issue 38).
        let exclude = args.input.excluded.as_deref().cloned().unwrap_or_default();
        let (mut parts, mut any) = (Vec::new(), false);
        for package in crate::input::walk::packages(&paths, &exclude) {
            let exclude = Some(std::sync::Arc::new(exclude.clone().with_dirs(&package.nested)));
            let limits = Limits { exclude, ..args.input.reading() };
            let mut snapshot = load::load(std::slice::from_ref(&package.root), &options(limits), env.stdin);
            any |= !snapshot.holds_nothing();
            let report = check_one(&mut snapshot, &controls, false)?;
            parts.push((snapshot.sources, report));
        }
        if !any {
            return Err(crate::usable::empty_input("check", &paths));
        }
        crate::analysis::packages::merge(parts)
    } else {
        let mut snapshot = load::load(&paths, &options(args.input.reading()), env.stdin);
        if snapshot.holds_nothing() {
            // What was found instead (an empty file, a directory without
            // files) is said first.
            // (As --select and --ignore say: an ignored TD013 is not said.)
            let said: Vec<_> = snapshot.findings.iter().filter(|f| controls.rules.reports(f)).cloned().collect();
            if !env.quiet && !said.is_empty() {
                crate::usable::diagnostics(&snapshot, &said, &snapshot.omitted, style, env.stderr);
            }
            return Err(crate::usable::empty_input("check", &paths));
        }
        let report = check_one(&mut snapshot, &controls, true)?;
        let sources = std::mem::take(&mut snapshot.sources);
        load::let_go(snapshot);
        (sources, report)
    };
    timer.lap("check");
    let sources = &sources;
    // -q: no summary line under the tables.
    let summary = (!env.quiet).then_some(&report.counts);
    let (findings, omitted) = (&report.findings, &report.omitted);
    let text = match (args.statistics, args.output) {
        (true, Format::Json) => {
            render::findings::statistics_json(&check::statistics(findings, omitted), &report.counts)
        }
        (true, _) => render::findings::statistics_table(&check::statistics(findings, omitted), summary),
        (false, Format::Table) => render::diagnostics::render(sources, findings, omitted, summary, style),
        (false, Format::Json) => render::findings::json(sources, findings, omitted, &report.counts),
        (false, Format::Yaml) => render::findings::yaml(sources, findings, omitted, &report.counts),
        (false, Format::Sarif) => render::findings::sarif(sources, findings, omitted),
        (false, Format::Github) => render::findings::github(sources, findings, omitted),
        (false, Format::Markdown) => render::glance::check_markdown(sources, findings, omitted, &report.counts),
        (false, other) => return Err(super::shared::unoffered("check", other)),
    };
    // -q: the findings without the summary line under them, nor the blank
    // line that would part them from it.
    let text = match (env.quiet, args.output) {
        (true, Format::Table) if text.trim_end().is_empty() => String::new(),
        (true, Format::Table) => format!("{}\n", text.trim_end()),
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
    Ok(status)
}

/// Check one snapshot. `whole`: it is every input, and a finalizer
/// controller's selector that matches nothing in it is an error; a
/// package may not hold it (it orders nothing there).
fn check_one(snapshot: &mut load::Snapshot, controls: &Controls, whole: bool) -> Result<check::CheckReport, Error> {
    let mut resolved = Vec::new();
    for (finalizer, query) in &controls.finalizers.named {
        match query.select(&snapshot.objects) {
            Ok(found) => resolved.push((finalizer.clone(), found)),
            Err(e) if whole => return Err(e),
            Err(_) => {}
        }
    }
    // What plan orders by, check analyses: each controller goes after the
    // objects carrying its finalizer (cycles and conflicts that makes are
    // findings here too). A controller outside the snapshot orders nothing.
    let extra = crate::plan::finalizer_relations(&snapshot.objects, &resolved);
    snapshot.resolved.relations.extend(extra);
    let mut timer = crate::timing::Timer::start();
    let graph = Graph::build(&snapshot.objects, &snapshot.resolved.relations);
    timer.lap("graph");
    let finalizers = &controls.finalizers;
    let options = CheckOptions {
        known_finalizers: finalizers.named.iter().map(|(f, _)| f.clone()).chain(finalizers.external.clone()).collect(),
        policy: SeverityPolicy { closed_world: controls.closed_world, deny_warnings: controls.deny_warnings },
        rules: controls.rules,
    };
    Ok(check::check(snapshot, &graph, &options))
}
