//! `teardown apply PLAN`: a saved plan made into edits of its input files
//! (CONTRACT §7). A plan file is not trusted (a pull request can carry
//! one): `apply` edits only the files it names beneath its own directory
//! (`apply::place`), and only when teardown makes the same plan again from
//! the command it records and those files as they are now.
//!
//! In order: the plan file read; its inputs found beneath its directory,
//! locked and read (each once, through the handle of the directory it is
//! in), their digests checked; the plan made again from those bytes and
//! compared with the plan file, byte for byte; the edits made and checked
//! (`apply::prepare`); then written all or nothing where the files were
//! found (`apply::write`).

use super::plan;
use super::shared::{Env, Status};
use crate::apply::place::{self, refusal, Found, Root};
use crate::apply::write::Target;
use crate::apply::{self, clean, planfile, ApplyError};
use crate::cli::ApplyArgs;
use crate::error::Error;
use crate::input::Size;
use crate::load::{LoadOptions, Snapshot};
use crate::render;
use crate::render::diagnostics::Style;
use std::path::PathBuf;

pub fn run(args: ApplyArgs, env: Env, style: Style) -> Result<Status, Error> {
    let name = args.plan.display().to_string();
    let not_a_plan = |why: String| Error::Apply(ApplyError::NotAPlan { path: name.clone(), why });
    let (plan, text, bom) = place::read_plan(&args.plan, env.stdin, args.limits.limits()).map_err(Error::Apply)?;
    let mut again = crate::settings::recorded_plan(&plan.command).map_err(not_a_plan)?;
    let root = Root::of_plan(&args.plan).map_err(|e| not_a_plan(format!("its directory cannot be opened: {e}")))?;
    // A plan file never raises the limits of the command line.
    let limits = place::smaller(args.limits.limits(), again.input.reading());
    // Each input, found beneath the plan's directory, locked and read.
    let found = place::found_all(&root, &plan.inputs, !args.dry_run, &name).map_err(Error::Apply)?;
    let (sources, problems) = place::sources(&found, limits.file_size);
    if let Some(p) = problems.first() {
        return Err(Error::Apply(ApplyError::Stale {
            file: clean(p.name()),
            why: format!("cannot be read: {}", clean(&p.to_string())),
        }));
    }
    apply::digests(&plan, &sources).map_err(Error::Apply)?;

    // Made again, from those bytes: the same plan, byte for byte.
    let inputs: Vec<PathBuf> = found.iter().map(|f| PathBuf::from(&f.recorded)).collect();
    again.input.inputs = inputs.clone();
    again.input.limits.max_file_size = Size(limits.file_size);
    again.input.limits.max_object_size = Size(limits.object_size);
    let refused = |r| Error::Apply(refusal(&name, r));
    for new in &again.plan.prune {
        root.names(&new.to_string_lossy()).map_err(refused)?;
    }
    let config = crate::settings::plan_file_config(&again, &root).map_err(refused)?;
    let read = |paths: &[PathBuf], options: &LoadOptions| -> Snapshot {
        if paths == inputs.as_slice() {
            crate::load::load_read(crate::input::Sources { files: sources.files.clone() }, Vec::new(), options)
        } else {
            let (read, problems) = root.read(paths, limits.file_size);
            crate::load::load_read(read, problems, options)
        }
    };
    let command = clean(&plan.command.join(" "));
    let (snapshot, made) = plan::again(&again, config, &read, env.stderr, style).map_err(|e| {
        Error::Apply(ApplyError::NotMadeAgain { command: command.clone(), what: format!("that command fails: {e}") })
    })?;
    if bom || made != text.as_bytes() {
        let what = planfile::differences(&plan, &made, &text);
        return Err(Error::Apply(ApplyError::NotMadeAgain { command, what }));
    }

    let options = LoadOptions { dialect: plan.dialect.clone(), progress: false, digests: false, limits };
    let mut changes = apply::prepare(&plan, &snapshot, &options).map_err(Error::Apply)?;
    let mut targets: Vec<&Found> = Vec::with_capacity(changes.len());
    for c in &mut changes {
        let Some(f) = found.iter().find(|f| f.recorded == c.path) else {
            let (index, len) = (found.len(), found.len());
            return Err(Error::Apply(ApplyError::Internal(crate::internal::Internal { what: "file", index, len })));
        };
        let shown = clean(&root.show(f.recorded.as_ref()));
        place::replaceable(f).map_err(|why| Error::Apply(ApplyError::Refused { file: shown.clone(), why }))?;
        c.path = shown;
        targets.push(f);
    }
    if args.dry_run {
        let diff = render::apply::diff(&changes);
        env.stdout.write_all(diff.as_bytes()).map_err(Error::Output)?;
        if !env.quiet {
            env.stderr.extend_from_slice(render::apply::summary(&changes, None).as_bytes());
        }
        return Ok(Status::Success);
    }
    let targets: Vec<Target> = changes.iter().zip(targets).map(|(change, found)| Target { change, found }).collect();
    let written = apply::write::write(&targets, &found, &root, !args.no_backup).map_err(|mut e| {
        e.path = clean(&e.path);
        Error::Write(e)
    })?;
    env.stdout.write_all(render::apply::summary(&changes, Some(&written)).as_bytes()).map_err(Error::Output)?;
    Ok(Status::Success)
}
