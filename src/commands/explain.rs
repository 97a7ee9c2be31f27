//! `teardown explain`: why an object is (or is not) in a plan, and why at
//! its step.

use super::{Env, Status};
use crate::cli::{ExplainArgs, ExplainFormat};
use crate::error::Error;
use crate::plan::{explain, Detail};
use crate::render;
use crate::render::diagnostics::Style;
use crate::select::Query;
use crate::settings::PlanSettings;

pub fn run(args: ExplainArgs, env: Env, style: Style) -> Result<Status, Error> {
    let query = Query::new(std::slice::from_ref(&args.object), None, None)?;
    let settings = PlanSettings::new(&args.plan, true)?;
    let (snapshot, plan) = super::plan::make(
        &settings,
        &args.input,
        Detail { reasons: true, places: false },
        env.stdin,
        env.stderr,
        env.progress,
        style,
    )?;
    let ids = query.select(&snapshot.objects)?;
    let explanations: Vec<_> = ids.iter().map(|&id| explain::explain(&plan, id)).collect();
    let text = match args.output {
        ExplainFormat::Text => render::explain::text(&plan, &explanations),
        ExplainFormat::Json => render::explain::json(&plan, &explanations),
    };
    env.stdout.write_all(text.as_bytes()).map_err(Error::Output)?;
    Ok(Status::Success)
}
