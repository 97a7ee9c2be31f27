//! The loading pipeline: read → split into documents → parse documents (in
//! parallel) → assign scopes → resolve references. Each step is its own
//! function so that new dialects plug into the parse step alone.

use crate::dialect::{self, DocOutput, Unit};
use crate::findings::{Finding, Rule};
use crate::input::{self, FileId, ReadProblem, Sources, Span};
use crate::model::resolve::{self, Resolved};
use crate::model::{Dialect, Object};
use rayon::prelude::*;
use std::io::Read;
use std::path::PathBuf;

/// Everything known about the input once it is loaded.
pub struct Snapshot {
    pub sources: Sources,
    pub objects: Vec<Object>,
    pub resolved: Resolved,
    /// Findings about the input itself: unreadable files, syntax errors,
    /// unusable objects (TD001), empty files (TD013).
    pub findings: Vec<Finding>,
}

impl Snapshot {
    /// Did some input fail to read or parse? (exit code 2)
    pub fn has_fatal(&self) -> bool {
        self.findings.iter().any(|f| f.fatal)
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--dialect`: read every document with this dialect.
    pub dialect: Option<Dialect>,
    /// Show a progress bar on stderr for large inputs (stderr is a terminal).
    pub progress: bool,
}

/// Inputs at least this large (about a second of parsing) get a progress bar.
const PROGRESS_AT: usize = 64 << 20;

fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(Some(total as u64), indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template("{msg:>10} [{bar:40}] {bytes}/{total_bytes} ({eta})")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message("parsing");
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

pub fn load(inputs: &[PathBuf], options: &LoadOptions, stdin: &mut dyn Read) -> Snapshot {
    let mut timer = crate::timing::Timer::start();
    let (sources, problems) = input::read_inputs(inputs, stdin);
    timer.lap("read");
    let mut findings = Vec::new();
    let mut skip = vec![false; sources.files.len()];
    for problem in problems {
        findings.push(read_problem(&sources, &mut skip, problem));
    }

    if options.dialect == Some(Dialect::Pairs) {
        return load_pairs(sources, &skip, findings, timer);
    }
    let units = split(&sources, &skip, options.dialect, &mut findings);
    timer.lap("split");
    let size: usize = sources.files.iter().map(|f| f.text.len()).sum();
    let bar = (options.progress && size >= PROGRESS_AT).then(|| progress_bar(size));
    // Parse units in parallel; `fold` keeps them in order, in batches.
    let outputs: Vec<DocOutput> = units
        .par_iter()
        .fold(DocOutput::default, |mut out, (file, unit)| {
            dialect::parse_unit(sources.get(*file), *file, unit, options.dialect, &mut out);
            if let Some(bar) = &bar {
                bar.inc(unit.len(sources.get(*file).text.len()) as u64);
            }
            out
        })
        .collect();

    let mut objects = Vec::with_capacity(outputs.iter().map(|o| o.objects.len()).sum());
    let mut runs = Vec::new();
    for out in outputs {
        objects.extend(out.objects);
        findings.extend(out.findings);
        runs.extend(out.runs);
    }
    timer.lap("parse");
    // Large JSON lists: check the runs, convert their items, and put them in
    // their file's place.
    while !runs.is_empty() {
        let file = runs[0].file;
        let n = runs.iter().take_while(|r| r.file == file).count();
        let rest = runs.split_off(n);
        let out = dialect::jsonruns::finish(sources.get(file), file, runs, options.dialect);
        runs = rest;
        let at = objects.partition_point(|o| o.span.file < file);
        if objects.is_empty() {
            objects = out.objects; // the common case: one large file; no copy
        } else {
            objects.splice(at..at, out.objects);
        }
        findings.extend(out.findings);
    }
    timer.lap("lists");
    if let Some(bar) = &bar {
        bar.set_message("resolving");
    }
    resolve::assign_scopes(&mut objects);
    timer.lap("scopes");
    let resolved = resolve::resolve(&objects);
    timer.lap("resolve");
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    Snapshot { sources, objects, resolved, findings }
}

fn read_problem(sources: &Sources, skip: &mut [bool], problem: ReadProblem) -> Finding {
    match problem {
        ReadProblem::NotUtf8 { file, offset, .. } => {
            skip[file.0 as usize] = true;
            let text = &sources.get(file).text;
            let end = text[offset..].chars().next().map(|c| offset + c.len_utf8()).unwrap_or(offset);
            Finding::new(Rule::Td001, "file is not valid UTF-8")
                .at(Span::new(file, offset..end), "first invalid byte")
                .help("YAML and JSON inputs must be UTF-8")
                .fatal()
        }
        other => Finding::new(Rule::Td001, other.to_string()).in_file(other.name()).fatal(),
    }
}

/// The units of every readable file, in file order (files split in parallel).
fn split(
    sources: &Sources,
    skip: &[bool],
    dialect: Option<Dialect>,
    findings: &mut Vec<Finding>,
) -> Vec<(FileId, Unit)> {
    let per_file: Vec<(Vec<Unit>, bool)> = sources
        .files
        .par_iter()
        .enumerate()
        .map(|(i, file)| if skip[i] { (Vec::new(), true) } else { dialect::units(file, dialect) })
        .collect();
    let mut units = Vec::with_capacity(per_file.iter().map(|(u, _)| u.len()).sum());
    for (id, (file_units, any)) in sources.ids().zip(per_file) {
        if !any {
            let file = sources.get(id);
            findings.push(
                Finding::new(Rule::Td013, format!("{} holds no objects", file.name))
                    .at(Span::new(id, 0..0), "empty")
                    .in_file(file.name.clone()),
            );
        }
        units.extend(file_units.into_iter().map(|u| (id, u)));
    }
    units
}

/// `--dialect pairs`: tokens, not documents; relations made directly.
fn load_pairs(
    sources: Sources,
    skip: &[bool],
    mut findings: Vec<Finding>,
    mut timer: crate::timing::Timer,
) -> Snapshot {
    let files: Vec<FileId> = sources.ids().filter(|id| !skip[id.0 as usize]).collect();
    for &id in &files {
        let file = sources.get(id);
        if file.text.trim().is_empty() {
            findings.push(
                Finding::new(Rule::Td013, format!("{} holds no pairs", file.name))
                    .at(Span::new(id, 0..0), "empty")
                    .in_file(file.name.clone()),
            );
        }
    }
    timer.lap("pairs: check");
    let pairs = dialect::pairs::load(&sources, &files);
    findings.extend(pairs.findings);
    timer.lap("pairs");
    let resolved = Resolved { relations: pairs.relations, ..Resolved::default() };
    Snapshot { sources, objects: pairs.objects, resolved, findings }
}
