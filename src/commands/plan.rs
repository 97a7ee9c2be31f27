//! `teardown plan`: a deletion plan, rendered in the format asked for.

use super::planned::make;
use super::shared::{Env, Status, Voice};
use crate::cli::{Format, PlanArgs};
use crate::error::Error;
use crate::load::Snapshot;
use crate::plan::Plan;
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::{PlanCommand, Start};
use crate::usable::Reader;
use std::io::Read;

pub fn run(args: PlanArgs, env: Env, style: Style) -> Result<Status, Error> {
    let settings = PlanCommand::new(&args, None)?;
    let voice = Voice { style, progress: env.progress, rules: settings.rules, quiet: env.quiet };
    let (snapshot, mut plan) = made(&settings, &args, None, env.stdin, env.stderr, voice)?;
    let mut timer = crate::timing::Timer::start();
    if matches!(args.output, Format::Json | Format::Yaml) {
        // (The graph is the plan's largest part these outputs never read.)
        plan.forget_graph();
    }
    let roots = match args.output {
        Format::Kubectl => Some(render::kubectl::roots(&snapshot, &plan)?),
        _ => None,
    };
    if args.output == Format::Names {
        render::printable::printable(&snapshot, &plan.steps, "-o names")?;
    }
    timer.lap("prepare");
    let (objects, out) = (&snapshot.objects, &mut *env.stdout);
    let written = match args.output {
        Format::Table => render::plan::table(&plan, objects, style, false, out),
        Format::Wide => render::plan::table(&plan, objects, style, true, out),
        Format::Markdown => render::glance::markdown(&snapshot, &plan, out),
        Format::Json => render::plan::json(&snapshot, &plan, out),
        Format::Yaml => render::plan::yaml(&snapshot, &plan, out),
        Format::Names => render::plan::names(&plan, objects, out),
        Format::Refs => render::plan::refs(&plan, out),
        Format::Dot => out.write_all(render::plan::dot(&plan)?.as_bytes()),
        Format::Mermaid => out.write_all(render::plan::mermaid(&plan)?.as_bytes()),
        Format::Kubectl => {
            let new = match &settings.plan.start {
                Start::Prune(new) => new.as_slice(),
                _ => &[],
            };
            let header = render::kubectl::Header::of(&args.input.paths(), new);
            roots.as_ref().map_or(Ok(()), |roots| render::kubectl::script(objects, &plan, roots, &header, out))
        }
        other => return Err(super::shared::unoffered("plan", other)),
    };
    written.map_err(Error::Output)?;
    timer.lap("render");
    let said = match args.output {
        Format::Table | Format::Wide => {
            render::plan::summary(&plan, &render::glance::summary_of(&snapshot, &plan), style)
        }
        Format::Json | Format::Yaml | Format::Markdown => String::new(),
        _ => render::plan::warnings_painted(&plan, style),
    };
    crate::load::let_go(snapshot);
    if !env.quiet {
        env.stderr.extend_from_slice(said.as_bytes());
    }
    if settings.fail_on_data_loss && !plan.data_loss.is_empty() {
        env.stderr.extend_from_slice(render::glance::data_loss_refusal(&plan.data_loss).as_bytes());
        return Ok(Status::Findings);
    }
    Ok(Status::Success)
}

/// The plan `settings` describe, made as `plan` makes it (with `--as`,
/// and the warnings the finding controls let through). `read`: how
/// `apply` reads the inputs.
fn made(
    settings: &PlanCommand,
    args: &PlanArgs,
    read: Option<Reader>,
    stdin: &mut dyn Read,
    stderr: &mut Vec<u8>,
    voice: Voice,
) -> Result<(Snapshot, Plan), Error> {
    let (snapshot, mut plan) = make(&settings.plan, &args.input, settings.detail, stdin, stderr, voice, read)?;
    if let Some(tool) = settings.tool_order {
        crate::plan::tool_order::beside(&snapshot.objects, &mut plan, tool)?;
    }
    // Ignoring a rule hides its warnings, in every format; the plan itself
    // (its steps, relaxed edges and cycles) stays what it is.
    plan.warnings.retain(|w| w.rule().is_none_or(|r| settings.rules.contains(r)));
    plan.command = args.recorded.0.clone();
    Ok((snapshot, plan))
}

/// Make the plan of a plan file's recorded command again, from inputs
/// `read` reads (`apply`), with the settings file `config` (already read):
/// the snapshot and the plan file's bytes, as `plan` writes them.
pub(super) fn again(
    args: &PlanArgs,
    config: Option<crate::config::Config>,
    read: Reader,
    stderr: &mut Vec<u8>,
    style: Style,
) -> Result<(Snapshot, Vec<u8>), Error> {
    let settings = PlanCommand::new(args, Some(config))?;
    let voice = Voice { style, progress: false, rules: settings.rules, quiet: true };
    let (mut snapshot, plan) = made(&settings, args, Some(read), &mut std::io::empty(), stderr, voice)?;
    let mut out = Vec::new();
    let written = match args.output {
        Format::Json => render::plan::json(&snapshot, &plan, &mut out),
        Format::Yaml => render::plan::yaml(&snapshot, &plan, &mut out),
        _ => return Err(Error::Usage("a plan file is written with -o json or -o yaml".into())),
    };
    written.map_err(Error::Output)?;
    // `apply` reads the snapshot's relations: the plan's first ones.
    let mut relations = plan.relations;
    relations.truncate(plan.snapshot_relations);
    snapshot.resolved.relations = relations;
    Ok((snapshot, out))
}
