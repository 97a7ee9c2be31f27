//! `teardown apply PLAN`: a saved plan made into edits of its input files.

use super::{load_usable, Env, Loading, Status};
use crate::apply::{self, planfile, ApplyError};
use crate::cli::ApplyArgs;
use crate::error::Error;
use crate::load::LoadOptions;
use crate::render;
use crate::render::diagnostics::Style;
use std::path::PathBuf;

pub fn run(args: ApplyArgs, env: Env, style: Style) -> Result<Status, Error> {
    let name = args.plan.display().to_string();
    let not_a_plan = |why: String| Error::Apply(ApplyError::NotAPlan { path: name.clone(), why });
    // Read as inputs are, within the same limits.
    let (plan_file, problems) =
        crate::input::read_inputs(std::slice::from_ref(&args.plan), env.stdin, args.limits.limits());
    if let Some(problem) = problems.first() {
        let path = if args.plan.as_os_str() == "-" { "<stdin>".to_string() } else { name.clone() };
        let why = problem.to_string();
        let why = why.strip_prefix(&format!("{}: ", problem.name())).unwrap_or(&why).to_string();
        return Err(Error::Apply(ApplyError::NotAPlan { path, why }));
    }
    let text = match plan_file.files.as_slice() {
        [file] => file.text.to_string(),
        _ => return Err(not_a_plan("not one file".into())),
    };
    let plan = planfile::parse(&text).map_err(not_a_plan)?;
    if plan.schema_version != 1 {
        return Err(not_a_plan(format!("schemaVersion {} (this teardown reads 1)", plan.schema_version)));
    }
    if plan.inputs.is_empty() {
        return Err(not_a_plan("it records no inputs".into()));
    }
    if plan.inputs.iter().any(|i| i.path == "<stdin>") {
        return Err(Error::Apply(ApplyError::FromStdin));
    }
    if let Some(d) = &plan.dialect {
        if crate::dialect::by_name(d).is_none() {
            return Err(not_a_plan(format!("unknown dialect `{d}`")));
        }
    }
    let paths: Vec<PathBuf> = plan.inputs.iter().map(|i| PathBuf::from(&i.path)).collect();
    // The inputs as they are now: read as the plan read them. Documents
    // that cannot be used were left out of the plan (`--skip-invalid`) and
    // are left as they are.
    let mut loading = Loading::plain(plan.dialect.clone(), true, "apply", style, env.progress, &paths)
        .saying(crate::findings::RuleSet::ALL, env.quiet)
        .limited(args.limits.limits());
    loading.digests = true;
    let snapshot = load_usable(&loading, env.stdin, env.stderr).map_err(|e| match e {
        Error::Unreadable { .. } => Error::Apply(ApplyError::Stale {
            file: paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
            why: "could not be read (above)".into(),
        }),
        e => e,
    })?;
    let options =
        LoadOptions { dialect: plan.dialect.clone(), progress: false, digests: false, limits: args.limits.limits() };
    let changes = apply::prepare(&plan, &snapshot, &options).map_err(Error::Apply)?;
    if args.dry_run {
        let diff = render::apply::diff(&changes);
        env.stdout.write_all(diff.as_bytes()).map_err(Error::Output)?;
        if !env.quiet {
            env.stderr.extend_from_slice(render::apply::summary(&changes, None).as_bytes());
        }
        return Ok(Status::Success);
    }
    let written = apply::write::write(&changes, !args.no_backup).map_err(Error::Write)?;
    env.stdout.write_all(render::apply::summary(&changes, Some(&written)).as_bytes()).map_err(Error::Output)?;
    Ok(Status::Success)
}
