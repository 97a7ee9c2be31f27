//! `teardown explain`: why an object is (or is not) in a plan, and why at
//! its step.

use super::shared::{Env, Status, Voice};
use crate::cli::{ExplainArgs, ExplainFormat, RuleArgs};
use crate::error::Error;
use crate::plan::{explain, Detail};
use crate::render;
use crate::render::diagnostics::Style;
use crate::select::Query;
use crate::settings::PlanSettings;

pub fn run(args: ExplainArgs, env: Env, style: Style) -> Result<Status, Error> {
    let query = Query::new(std::slice::from_ref(&args.object), None, None)?;
    let mut settings = PlanSettings::new(&args.plan, true)?;
    let controls = crate::settings::controls(&RuleArgs::default(), &args.config, &args.plan.finalizer_controller)?;
    crate::settings::with_controls(&mut settings, &controls);
    let selectors: Vec<String> = std::iter::once(&args.object).chain(&args.plan.delete).cloned().collect();
    crate::settings::spaced_selector(&selectors, &args.input.inputs)?;
    let voice = Voice { style, progress: env.progress, rules: controls.rules, quiet: env.quiet };
    let (snapshot, plan) = super::plan::make(
        &settings,
        &args.input,
        Detail { reasons: true, places: false },
        env.stdin,
        env.stderr,
        voice,
        None,
    )?;
    let ids = query.select(&snapshot.objects)?;
    let explanations: Vec<_> = ids.iter().map(|&id| explain::explain(&plan, id)).collect();
    let out = &mut *env.stdout;
    let written = match args.output {
        ExplainFormat::Table => {
            out.write_all(render::explain::text(&plan, &snapshot.objects, &explanations, style)?.as_bytes())
        }
        ExplainFormat::Json => out.write_all(render::explain::json(&plan, &explanations)?.as_bytes()),
        ExplainFormat::Yaml => render::explain::yaml(&plan, &explanations, out),
        ExplainFormat::Names => {
            let named = explain::named(&plan, &explanations);
            super::names::printable(&snapshot, &[&named], "-o names")?;
            render::names::kubectl(&snapshot.objects, named.into_iter(), out)
        }
        ExplainFormat::Refs => {
            let named = explain::named(&plan, &explanations);
            render::names::refs(&plan.refs, named.into_iter(), out)
        }
    };
    written.map_err(Error::Output)?;
    Ok(Status::Success)
}
