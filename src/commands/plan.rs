//! `teardown plan`: a deletion plan, rendered in the format asked for.

use super::shared::{diagnostics, load_usable, refuse_duplicates, Env, Loading, Reader, Status, Voice};
use crate::analysis::cascade::CascadeMode;
use crate::analysis::check as checks;
use crate::cli::{InputArgs, PlanArgs, PlanFormat};
use crate::error::Error;
use crate::findings::Rule;
use crate::load::Snapshot;
use crate::model::{Identity, ObjId};
use crate::plan::{self, Detail, Mode, Plan, PlanError};
use crate::render;
use crate::render::diagnostics::Style;
use crate::settings::{PlanSettings, Start};
use std::io::Read;
use std::path::PathBuf;

pub fn run(args: PlanArgs, env: Env, style: Style) -> Result<Status, Error> {
    let voice = Voice { style, progress: env.progress, rules: crate::findings::RuleSet::ALL, quiet: env.quiet };
    let (snapshot, plan, settings) = made(&args, None, None, env.stdin, env.stderr, voice)?;
    let roots = match args.output {
        PlanFormat::Kubectl => Some(kubectl_roots(&snapshot, &plan)?),
        _ => None,
    };
    if args.output == PlanFormat::Names {
        super::names::printable(&snapshot, &plan.steps, "-o names")?;
    }
    let mut timer = crate::timing::Timer::start();
    let out = &mut *env.stdout;
    let written = match args.output {
        PlanFormat::Table => render::plan::table(&plan, &snapshot.objects, style, false, out),
        PlanFormat::Wide => render::plan::table(&plan, &snapshot.objects, style, true, out),
        PlanFormat::Markdown => render::glance::markdown(&snapshot, &plan, out),
        PlanFormat::Json => render::plan::json(&snapshot, &plan, out),
        PlanFormat::Yaml => render::plan::yaml(&snapshot, &plan, out),
        PlanFormat::Names => render::plan::names(&plan, &snapshot.objects, out),
        PlanFormat::Refs => render::plan::refs(&plan, out),
        PlanFormat::Dot => out.write_all(render::plan::dot(&plan)?.as_bytes()),
        PlanFormat::Mermaid => out.write_all(render::plan::mermaid(&plan)?.as_bytes()),
        PlanFormat::Kubectl => {
            let shown = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
            let new = match &settings.start {
                Start::Prune(new) => shown(new),
                _ => Vec::new(),
            };
            let header = render::kubectl::Header { inputs: &shown(&args.input.paths()), new: &new };
            roots
                .as_ref()
                .map_or(Ok(()), |roots| render::kubectl::script(&snapshot.objects, &plan, roots, &header, out))
        }
    };
    written.map_err(Error::Output)?;
    timer.lap("render");
    let said = match args.output {
        PlanFormat::Table | PlanFormat::Wide => {
            render::plan::summary(&plan, &render::glance::summary_of(&snapshot, &plan), style)
        }
        PlanFormat::Json | PlanFormat::Yaml | PlanFormat::Markdown => String::new(),
        PlanFormat::Names | PlanFormat::Refs | PlanFormat::Dot | PlanFormat::Mermaid | PlanFormat::Kubectl => {
            render::plan::warnings_painted(&plan, style)
        }
    };
    crate::load::let_go(snapshot);
    if !env.quiet {
        env.stderr.extend_from_slice(said.as_bytes());
    }
    if args.fail_on == Some(crate::cli::FailOn::DataLoss) && !plan.data_loss.is_empty() {
        let what = render::glance::losses_short(&plan.data_loss);
        let line = format!("the plan destroys {what} for good (--fail-on data-loss)");
        env.stderr.extend_from_slice(format!("teardown: error: {}\n", crate::escape::escape(&line)).as_bytes());
        return Ok(Status::Findings);
    }
    Ok(Status::Success)
}

/// The plan `args` ask for, made as `plan` makes it: the snapshot, the
/// plan (with `--as`, and the warnings the finding controls let through)
/// and its settings. `config`: the settings file `apply` read for it
/// (instead of looking for one); `read`: how `apply` reads the inputs;
/// `voice.rules` is the controls'.
fn made(
    args: &PlanArgs,
    config: Option<Option<crate::config::Config>>,
    read: Option<Reader>,
    stdin: &mut dyn Read,
    stderr: &mut Vec<u8>,
    voice: Voice,
) -> Result<(Snapshot, Plan, PlanSettings), Error> {
    let mut settings = PlanSettings::new(&args.plan, false)?;
    crate::settings::plan_output(args.output, args.input.dialect.as_deref(), settings.multi_owner)?;
    crate::settings::plan_as(args.output, args.input.dialect.as_deref(), args.as_tool)?;
    let finalizers = &args.plan.finalizer_controller;
    let controls = match config {
        None => crate::settings::controls(&args.rules, &args.config, finalizers)?,
        Some(file) => crate::settings::controls_with(&args.rules, file, finalizers)?,
    };
    crate::settings::with_controls(&mut settings, &controls);
    crate::settings::spaced_selector(&args.plan.delete, &args.input.inputs)?;
    let voice = Voice { rules: controls.rules, ..voice };
    let detail = match args.output {
        PlanFormat::Table | PlanFormat::Wide | PlanFormat::Markdown => Detail { reasons: true, places: false },
        PlanFormat::Json | PlanFormat::Yaml => Detail::ALL,
        PlanFormat::Names | PlanFormat::Refs | PlanFormat::Dot | PlanFormat::Mermaid | PlanFormat::Kubectl => {
            Detail::default()
        }
    };
    let (snapshot, mut plan) = make(&settings, &args.input, detail, stdin, stderr, voice, read)?;
    // `--as`: the tool's order, and its findings as warnings (TD016). The
    // plan's steps stay what they are.
    if let Some(tool) = args.as_tool {
        // The tools delete Kubernetes resources; another dialect's objects
        // would be placed in an order no tool has.
        let mut foreign = Vec::new();
        for &id in plan.steps.iter().flatten() {
            if !id.of(&snapshot.objects)?.is_kubernetes() {
                foreign.push(id);
            }
        }
        if let Some(&id) = foreign.first() {
            return Err(Error::Usage(format!(
                "--as {}: {} is {}, not a Kubernetes resource, and {} deletes none ({} such in the plan)",
                tool.id(),
                id.of(&plan.refs)?,
                id.of(&snapshot.objects)?.origin.noun,
                tool.name(),
                foreign.len()
            )));
        }
        let order = plan::tool_order::of(&snapshot.objects, &plan, tool);
        plan.warnings.extend(order.findings.iter().map(|f| plan::Warning::ToolOrder(Box::new(f.clone()))));
        plan.tool_order = Some(order);
    }
    // Ignoring a rule hides its warnings, in every format; the plan itself
    // (its steps, relaxed edges and cycles) stays what it is.
    plan.warnings.retain(|w| w.rule().is_none_or(|r| controls.rules.contains(r)));
    plan.command = args.recorded.0.clone();
    Ok((snapshot, plan, settings))
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
    let voice = Voice { style, progress: false, rules: crate::findings::RuleSet::ALL, quiet: true };
    let (snapshot, plan, _) = made(args, Some(config), Some(read), &mut std::io::empty(), stderr, voice)?;
    let mut out = Vec::new();
    let written = match args.output {
        PlanFormat::Json => render::plan::json(&snapshot, &plan, &mut out),
        PlanFormat::Yaml => render::plan::yaml(&snapshot, &plan, &mut out),
        _ => return Err(Error::Usage("a plan file is written with -o json or -o yaml".into())),
    };
    written.map_err(Error::Output)?;
    Ok((snapshot, out))
}

/// The cascade roots `-o kubectl` deletes, or why it cannot: every object
/// the plan deletes must be a Kubernetes resource (read by a dialect whose
/// objects are, `Object::is_kubernetes`) with a name a shell command can
/// pass; kubectl must read every root the script names as that object
/// (the grammar `-o names` checks, less what only xargs would misread);
/// and under `--cascade orphan` no root may go while its controller is
/// there to recreate it. Known only once the input is read.
fn kubectl_roots(snapshot: &Snapshot, plan: &Plan) -> Result<plan::roots::Roots, Error> {
    let objects = &snapshot.objects;
    let deleted = plan.steps.iter().flatten().map(|id| id.of(objects)).collect::<Result<Vec<_>, _>>()?;
    let deleted = || deleted.iter().copied();
    let foreign = |o: &&crate::model::Object| !o.is_kubernetes();
    if let Some(o) = deleted().find(foreign) {
        let name = match o.identity() {
            Identity::Id | Identity::Token => format!("id:{}", o.name),
            Identity::Coordinates | Identity::Ref => o.reference(),
        };
        let more = match deleted().filter(foreign).count() {
            0 | 1 => String::new(),
            n => format!(" ({n} objects of the plan are not Kubernetes resources)"),
        };
        return Err(Error::Usage(format!(
            "-o kubectl: {name} is {}, not a Kubernetes resource; kubectl cannot delete it{more}",
            o.origin.noun
        )));
    }
    let unpassable = |o: &&crate::model::Object| {
        [&o.kind, &o.group, &o.name].into_iter().chain(o.namespace.as_ref()).any(|s| s.contains('\0'))
    };
    if let Some(o) = deleted().find(unpassable) {
        return Err(Error::Usage(format!(
            "-o kubectl: {:?} holds a NUL character, which no shell command can pass",
            o.reference()
        )));
    }
    let roots = plan::roots::cascade_roots(objects, plan);
    super::names::nameable(snapshot, &roots.steps, "-o kubectl")?;
    if let Some((x, controller)) = plan::roots::recreated(objects, plan, &roots) {
        let step = |id: ObjId| plan.order.step.get(id.index()).copied().unwrap_or(0);
        return Err(Error::Usage(format!(
            "-o kubectl --cascade orphan: the script would delete {} (step {}) while its controller {} (step {}) is still there to recreate it, and the copy would be orphaned; plan with --cascade background or foreground, or delete the controller alone",
            x.of(&plan.refs)?,
            step(x),
            controller.of(&plan.refs)?,
            step(controller)
        )));
    }
    Ok(roots)
}

/// Load the input and make the plan the settings describe. Input that
/// cannot be read or used stops here (exit 2) unless `--skip-invalid`: a
/// plan must not miss objects.
pub(super) fn make(
    settings: &PlanSettings,
    input: &InputArgs,
    detail: Detail,
    stdin: &mut dyn Read,
    stderr: &mut Vec<u8>,
    voice: Voice,
    read: Option<Reader>,
) -> Result<(Snapshot, Plan), Error> {
    let Voice { style, progress, rules, quiet } = voice;
    let paths = input.paths();
    let loading = Loading {
        dialect: input.dialect.clone(),
        skip_invalid: settings.skip_invalid,
        what: "plan",
        digests: detail.places,
        carried: true,
        style,
        progress,
        paths: &paths,
        rules,
        quiet,
        limits: input.reading(),
        read,
        may_be_empty: false,
    };
    let snapshot = load_usable(&loading, stdin, stderr)?;
    refuse_duplicates(&snapshot, "plan", style, stderr)?;
    let mut declared_in_new = Vec::new();
    let mut root = None;
    let mut named = Vec::new();
    let mut timer = crate::timing::Timer::start();
    let mode = match &settings.start {
        Start::All => Mode::All,
        Start::Gc { root: at } => {
            root = match at.as_deref().map(|id| (id, crate::dialect::murano::root(&snapshot.objects, id))) {
                None => None,
                Some((_, Ok(Some(id)))) => Some(id),
                Some((id, Ok(None))) => {
                    return Err(Error::NoMatch { selector: format!("--root {id}"), suggestions: Vec::new() })
                }
                Some((_, Err(usage))) => return Err(Error::Usage(usage)),
            };
            Mode::Gc
        }
        Start::Prune(new) => {
            // Never skipped: an object whose document in NEW is skipped
            // would look absent from NEW, and be pruned.
            let loading = Loading {
                skip_invalid: false,
                what: "plan (in --prune NEW)",
                digests: false,
                paths: new,
                may_be_empty: true,
                ..loading
            };
            let new = load_usable(&loading, stdin, stderr)?;
            // (A deleted Murano environment, `{"Objects": null}`, is empty
            // on purpose: Murano destroys everything.)
            let deleted = || new.sources.files.iter().any(|f| crate::dialect::murano::deletes_environment(&f.text));
            if new.objects.is_empty() && !settings.allow_empty_new && !deleted() {
                return Err(Error::EmptyNew);
            }
            let (absent, in_new) = plan::absent_from(&snapshot.objects, &new.objects);
            declared_in_new = in_new;
            Mode::Prune(absent)
        }
        Start::Delete(targets) => {
            let selected = targets.select(&snapshot.objects)?;
            for &id in &selected {
                if targets.names(id.of(&snapshot.objects)?) {
                    named.push(id);
                }
            }
            Mode::Delete(selected)
        }
    };
    timer.lap("select");
    // `--cascade orphan` on a system that cannot orphan would plan what it
    // will never do.
    if settings.cascade == CascadeMode::Orphan {
        let targets: &[ObjId] = match &mode {
            Mode::Delete(t) | Mode::Prune(t) => t,
            _ => &[],
        };
        let targets = targets.iter().map(|t| t.of(&snapshot.objects)).collect::<Result<Vec<_>, _>>()?;
        if let Some(o) = targets.into_iter().find(|o| !o.origin.collector.orphans) {
            return Err(Error::Usage(format!(
                "--cascade orphan: {} is read by the {} dialect, whose collector cannot orphan dependents (it deletes every one)",
                o.reference(),
                o.origin.dialect
            )));
        }
    }
    let mut finalizer_controllers = Vec::new();
    for (finalizer, query) in &settings.finalizer_controllers {
        finalizer_controllers.push((finalizer.clone(), query.select(&snapshot.objects)?));
    }
    let options = plan::Options {
        root,
        mode,
        cascade: settings.cascade,
        multi_owner: settings.multi_owner,
        allow_cycles: settings.allow_cycles,
        finalizer_controllers,
        closed_world: settings.closed_world,
        declared_in_new,
        detail,
        default_rules: match settings.default_rules {
            true => crate::model::DefaultRule::ALL.to_vec(),
            false => Vec::new(),
        },
        named,
    };
    let mut timer = crate::timing::Timer::start();
    let plan = match plan::build(&snapshot, &options) {
        Ok(plan) => plan,
        Err(e) => {
            say_places(&snapshot, &e, style, stderr);
            return Err(e.into());
        }
    };
    timer.lap("plan");
    let mut plan = plan;
    plan.dialect = input.dialect.clone();
    Ok((snapshot, plan))
}

/// An error with places in the input shows them, as the finding `check`
/// reports for it, before `main` says the error: an ownership cycle is the
/// TD007 finding with every owner reference of the cycle at its line.
pub(super) fn say_places(snapshot: &Snapshot, error: &PlanError, style: Style, stderr: &mut Vec<u8>) {
    if let PlanError::OwnershipCycle { found: Some(cycle), .. } = error {
        if let Some(finding) = checks::cycle_finding(snapshot, cycle, Rule::Td007) {
            diagnostics(snapshot, &[finding], &Default::default(), style, stderr);
        }
    }
}
