//! `teardown explain`: why an object is (or is not) in a plan, and why at
//! its step.

use super::shared::{Env, Status, Voice};
use crate::cli::{ExplainArgs, Format};
use crate::error::Error;
use crate::plan::{explain, Detail};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::ExplainSettings;

pub fn run(args: ExplainArgs, env: Env, style: Style) -> Result<Status, Error> {
    let settings = ExplainSettings::new(&args)?;
    let voice = Voice { style, progress: env.progress, rules: settings.rules, quiet: env.quiet };
    let (snapshot, plan) = super::planned::make(
        &settings.plan,
        &args.input,
        Detail { reasons: true, places: false },
        env.stdin,
        env.stderr,
        voice,
        None,
    )?;
    let ids = settings.object.select(&snapshot.objects)?;
    let explanations: Vec<_> = ids.iter().map(|&id| explain::explain(&plan, id)).collect();
    let out = &mut *env.stdout;
    let written = match args.output {
        Format::Table => {
            out.write_all(render::explain::text(&plan, &snapshot.objects, &explanations, style)?.as_bytes())
        }
        Format::Json => out.write_all(render::explain::json(&plan, &explanations)?.as_bytes()),
        Format::Yaml => render::explain::yaml(&plan, &explanations, out),
        Format::Names => {
            let named = explain::named(&plan, &explanations);
            render::printable::printable(&snapshot, &[&named], "-o names")?;
            render::names::kubectl(&snapshot.objects, &named, out)
        }
        Format::Refs => {
            let named = explain::named(&plan, &explanations);
            render::names::refs(&plan.refs, named.into_iter(), out)
        }
        other => return Err(super::shared::unoffered("explain", other)),
    };
    written.map_err(Error::Output)?;
    Ok(Status::Success)
}
