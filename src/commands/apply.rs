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
use crate::apply::place::{self, Found, Refusal, Root};
use crate::apply::write::Target;
use crate::apply::{self, clean, hook, planfile, ApplyError};
use crate::cli::{ApplyArgs, Cli, Command, PlanArgs, PlanFormat};
use crate::error::Error;
use crate::input::Size;
use crate::load::{LoadOptions, Snapshot};
use crate::render;
use crate::render::diagnostics::Style;
use clap::Parser;
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
    let (text, bom) = match plan_file.files.as_slice() {
        [file] => (file.text.to_string(), file.bom),
        _ => return Err(not_a_plan("not one file".into())),
    };
    let plan = planfile::parse(&text).map_err(|e| not_a_plan(clean(&e)))?;
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
            return Err(not_a_plan(format!("unknown dialect `{}`", clean(d))));
        }
    }
    let mut again = recorded(&plan.command).map_err(not_a_plan)?;
    let root = Root::of_plan(&args.plan).map_err(|e| not_a_plan(format!("its directory cannot be opened: {e}")))?;
    // A plan file never raises the limits of the command line.
    let limits = place::smaller(args.limits.limits(), again.input.reading());

    // Each input, found beneath the plan's directory, locked and read.
    place::raise_open_files();
    let mut found: Vec<Found> = Vec::with_capacity(plan.inputs.len());
    let mut dirs = place::Dirs::default();
    for input in &plan.inputs {
        let mut f = root.find(&input.path).map_err(|r| refusal(&name, r))?;
        dirs.share(&mut f);
        if let Some(twice) = found.iter().find(|g| g.key == f.key) {
            return Err(not_a_plan(format!(
                "it names one file twice ({} and {})",
                clean(&twice.recorded),
                clean(&f.recorded)
            )));
        }
        f.lock(!args.dry_run).map_err(|r| refusal(&name, r))?;
        found.push(f);
    }
    hook::at("locked").map_err(|e| refusal(&name, Refusal::Io { path: String::new(), error: e }))?;
    let left = place::leftovers(&found);
    if !left.is_empty() {
        return Err(Error::Apply(ApplyError::Leftovers { files: left.iter().map(|l| clean(l)).collect() }));
    }
    // In the order `plan` reads them.
    found.sort_by(|a, b| PathBuf::from(&a.recorded).cmp(&PathBuf::from(&b.recorded)));
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
    for new in &again.plan.prune {
        root.names(&new.to_string_lossy()).map_err(|r| refusal(&name, r))?;
    }
    let config = settings_file(&again, &root).map_err(|e| refusal(&name, e))?;
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
        return Err(Error::Apply(ApplyError::NotMadeAgain { command, what: differences(&plan, &made, &text) }));
    }

    let options = LoadOptions { dialect: plan.dialect.clone(), progress: false, digests: false, limits };
    let mut changes = apply::prepare(&plan, &snapshot, &options).map_err(Error::Apply)?;
    let mut targets: Vec<&Found> = Vec::with_capacity(changes.len());
    for c in &mut changes {
        let Some(f) = found.iter().find(|f| f.recorded == c.path) else {
            return Err(Error::Apply(ApplyError::Internal(crate::internal::Internal {
                what: "file",
                index: found.len(),
                len: found.len(),
            })));
        };
        replaceable(f)
            .map_err(|why| Error::Apply(ApplyError::Refused { file: clean(&root.show(f.recorded.as_ref())), why }))?;
        c.path = clean(&root.show(f.recorded.as_ref()));
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

/// The `plan` command a plan file records, parsed as the command line
/// is; it must name no input (the plan's `inputs` are its inputs) and
/// write a plan file (`-o json` or `yaml`).
fn recorded(command: &[String]) -> Result<PlanArgs, String> {
    if command.first().map(String::as_str) != Some("plan") {
        return Err("it records no `plan` command (`command`), as plan files of this teardown do".into());
    }
    let argv = std::iter::once("teardown").chain(command.iter().map(String::as_str));
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        let first = e.to_string().lines().next().unwrap_or_default().to_string();
        format!("its command cannot be read ({})", clean(first.trim_start_matches("error: ")))
    })?;
    let Command::Plan(args) = cli.command else {
        return Err("its command is not a `plan` command".into());
    };
    if !args.input.inputs.is_empty() {
        return Err("its command names inputs (a plan file names them in `inputs`)".into());
    }
    if !matches!(args.output, PlanFormat::Json | PlanFormat::Yaml) {
        return Err("its command does not write a plan file (-o json or -o yaml)".into());
    }
    Ok(args)
}

/// The settings file the command reads: `--config FILE` beneath the
/// plan's directory (found as an input is, and read through it), none with
/// `--isolated`, else the one found from the plan's directory up.
fn settings_file(args: &PlanArgs, root: &Root) -> Result<Option<crate::config::Config>, Refusal> {
    if args.config.isolated {
        return Ok(None);
    }
    match &args.config.config {
        Some(path) => {
            let recorded = path.to_string_lossy().into_owned();
            let f = root.find(&recorded)?;
            let (sources, problems) = place::sources(std::slice::from_ref(&f), crate::config::MAX_SIZE);
            if let Some(p) = problems.first() {
                return Err(Refusal::Io { path: recorded, error: std::io::Error::other(p.to_string()) });
            }
            let text = sources.files.first().map(|f| f.text.to_string()).unwrap_or_default();
            crate::config::parse(&text, &root.show(path))
                .map(Some)
                .map_err(|e| Refusal::Io { path: recorded, error: std::io::Error::other(e.to_string()) })
        }
        None => {
            let Some(dir) = root.real() else { return Ok(None) };
            let found = crate::config::find(&dir);
            let args = crate::cli::ConfigArgs { config: found, isolated: false, beside: Vec::new() };
            match args.config {
                Some(_) => crate::config::load(&args).map_err(|e| Refusal::Io {
                    path: crate::config::FILE_NAME.into(),
                    error: std::io::Error::other(e.to_string()),
                }),
                None => Ok(None),
            }
        }
    }
}

/// A refusal about a path of the plan `plan`, as an error of `apply`.
fn refusal(plan: &str, r: Refusal) -> Error {
    Error::Apply(match r {
        Refusal::Outside { path, why } => ApplyError::NotAPlan {
            path: plan.to_string(),
            why: format!("it names {}, outside its directory ({why})", clean(&path)),
        },
        Refusal::NotFound { path } => ApplyError::Stale {
            file: clean(&path),
            why: "is not there (apply reads the paths a plan records from the directory that holds the plan file)"
                .into(),
        },
        Refusal::NotRegular { path, what } => {
            ApplyError::Refused { file: clean(&path), why: format!("it is {what} now, not a regular file") }
        }
        Refusal::Changed { path } => {
            ApplyError::Refused { file: clean(&path), why: "it was replaced while apply ran".into() }
        }
        Refusal::Locked { path } => ApplyError::Refused {
            file: clean(&path),
            why: "another teardown apply is applying a plan to it (it holds the file's lock)".into(),
        },
        Refusal::Io { path, error } => ApplyError::Refused { file: clean(&path), why: clean(&error.to_string()) },
    })
}

/// Can the file be replaced by a new one without losing what it is?
/// Refused: a read-only file (it says not to change it), and one with
/// other hard links (they would keep the old text).
fn replaceable(f: &Found) -> Result<(), String> {
    let mode = f.stat.st_mode & 0o7777;
    if mode & 0o222 == 0 {
        return Err(format!("it is read-only (mode {mode:04o}); make it writable to apply the plan to it"));
    }
    let writable =
        rustix::fs::accessat(&*f.dir, f.leaf.as_os_str(), rustix::fs::Access::WRITE_OK, rustix::fs::AtFlags::EACCESS);
    if let Err(e) = writable {
        return Err(format!("you cannot write it ({e})"));
    }
    if f.stat.st_nlink > 1 {
        return Err(format!(
            "it has {} hard links; a new file in its place would leave the others holding the old text",
            f.stat.st_nlink
        ));
    }
    Ok(())
}

/// What differs between the plan file and the plan made again: the
/// objects one deletes or orphans and the other does not, else the first
/// line that differs.
fn differences(plan: &planfile::PlanFile, made: &[u8], text: &str) -> String {
    let made_text = String::from_utf8_lossy(made);
    if let Ok(again) = planfile::parse(&made_text) {
        let rows = |p: &planfile::PlanFile| -> Vec<(String, &'static str)> {
            let mut rows: Vec<(String, &'static str)> = p
                .steps
                .iter()
                .flat_map(|s| &s.resources)
                .map(|r| (r.reference.clone(), "deletes"))
                .chain(p.orphaned.iter().map(|r| (r.reference.clone(), "orphans")))
                .collect();
            rows.sort();
            rows
        };
        let (mine, theirs) = (rows(plan), rows(&again));
        if let Some((r, what)) = mine.iter().find(|x| !theirs.contains(x)) {
            return format!("it {what} {}, which that plan does not", clean(r));
        }
        if let Some((r, what)) = theirs.iter().find(|x| !mine.contains(x)) {
            return format!("that plan {what} {}, which it does not", clean(r));
        }
        let times = |rows: &[(String, &str)], row: &(String, &str)| rows.iter().filter(|x| *x == row).count();
        if let Some(row) = mine.iter().find(|row| times(&mine, row) > times(&theirs, row)) {
            return format!("it lists {} {} times", clean(&row.0), times(&mine, row));
        }
    }
    let line = text
        .lines()
        .zip(made_text.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| text.lines().count().min(made_text.lines().count()));
    format!("they differ from line {} of the plan file on", line + 1)
}
