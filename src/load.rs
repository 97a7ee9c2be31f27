//! The loading pipeline: read the inputs (`input`), split each file into
//! documents, hand each document to the dialect that recognises it (the
//! items of a list to theirs), then resolve references (`model`).
//! Documents, and then the items of lists, are read in parallel; objects
//! keep the order of the input.

use crate::dialect::{self, Out, REGISTRY};
use crate::findings::{self, Finding, Omitted, Rule};
use crate::input::jsonruns::{self, After};
use crate::input::unit::Items;
use crate::input::{
    self, json, split, Form, Format, Limits, ListHeader, ReadProblem, Size, SourceFile, Sources, Unit, UnitSpec,
};
use crate::model::resolve::{self, Resolved};
use crate::model::skipped::Skipped;
use crate::model::{ObjId, Object};
use crate::span::{FileId, Span};
use rayon::prelude::*;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

pub use crate::model::snapshot::Snapshot;

#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `--dialect`: read every document with the dialect of this name.
    pub dialect: Option<String>,
    /// Show a progress bar on stderr for large inputs (stderr is a terminal).
    pub progress: bool,
    /// Compute each input's sha256 while parsing (for plan files).
    pub digests: bool,
    /// `--max-file-size`, `--max-object-size`.
    pub limits: Limits,
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

/// A file, as split before anything is parsed.
enum Pieces {
    /// Its documents.
    Docs(Vec<UnitSpec>),
    /// It is one large JSON list, read in runs.
    Runs(Box<jsonruns::Runs>),
}

impl Pieces {
    fn is_empty(&self) -> bool {
        matches!(self, Pieces::Docs(docs) if docs.is_empty())
    }
}

/// What the parallel reading works through, in input order.
enum Task<'s> {
    Doc(FileId, &'s UnitSpec),
    /// A file read in runs (already: its output waits in order).
    Runs,
}

/// Documents read one after the other by one thread, and where, between
/// their objects, the items of lists and files read in runs go.
#[derive(Default)]
struct Batch {
    out: Out,
    marks: Vec<(usize, usize, Mark)>,
}

enum Mark {
    Items(FileId, Vec<UnitSpec>),
    Runs,
}

impl Batch {
    /// At most `findings::LISTED_PER_RULE` findings of a rule kept: the
    /// batch's documents are one run of the input, and a finding past the
    /// first of its rule in it is past them in the input too.
    fn tidy(&mut self) {
        let (findings, omitted) = (&mut self.out.findings, &mut self.out.omitted);
        if findings.len() < 2 * findings::LISTED_PER_RULE * Rule::ALL.len() {
            return;
        }
        let mut at: Vec<usize> = self.marks.iter().map(|(_, f, _)| *f).collect();
        findings::cap(findings, omitted, &mut at);
        for ((_, f, _), new) in self.marks.iter_mut().zip(at) {
            *f = new;
        }
    }
}

struct Reader<'s> {
    sources: &'s Sources,
    forced: Option<usize>,
    bar: Option<indicatif::ProgressBar>,
    /// `--max-object-size`.
    max_object: u64,
}

pub fn load(inputs: &[PathBuf], options: &LoadOptions, stdin: &mut dyn Read) -> Snapshot {
    let mut timer = crate::timing::Timer::start();
    let (sources, problems) = input::read_inputs(inputs, stdin, options.limits.clone());
    timer.lap("read");
    let (objects, resolved, (findings, omitted), copies, skipped) = parse(&sources, problems, options, timer);
    Snapshot { sources, objects, resolved, findings, omitted, copies, skipped }
}

/// The end of a command that loaded `snapshot`: the process ends next and
/// its memory goes back at once, whereas freeing the objects one by one
/// costs 3 % of the instructions of `check -o json`, all on one thread
/// after everything else (issue 40).
pub fn let_go(snapshot: Snapshot) {
    std::mem::forget(snapshot);
}

/// Load sources already in memory (`apply` reads what it wrote back).
pub fn load_sources(sources: Sources, options: &LoadOptions) -> Snapshot {
    load_read(sources, Vec::new(), options)
}

/// Load sources read elsewhere, with what could not be read (`apply`
/// reads the inputs through the directory it checked them in).
pub fn load_read(sources: Sources, problems: Vec<ReadProblem>, options: &LoadOptions) -> Snapshot {
    let timer = crate::timing::Timer::start();
    let (objects, resolved, (findings, omitted), copies, skipped) = parse(&sources, problems, options, timer);
    Snapshot { sources, objects, resolved, findings, omitted, copies, skipped }
}

/// What parsing gives: the objects, resolved, the findings, where
/// objects are written again (see [`Snapshot::copies`]), and the documents
/// left out whose identity could be read (see [`Snapshot::skipped`]).
type Parsed = (Vec<Object>, Resolved, (Vec<Finding>, Omitted), Vec<(ObjId, Span)>, Vec<Skipped>);

/// Everything after reading, in phases: which files to read
/// ([`files_to_read`]); whole-file dialects; documents into objects
/// ([`read_documents`]), put back in input order ([`assemble`]); then
/// resolved ([`resolve_objects`]).
fn parse(
    sources: &Sources,
    problems: Vec<input::ReadProblem>,
    options: &LoadOptions,
    mut timer: crate::timing::Timer,
) -> Parsed {
    if options.digests {
        // A plan file records each input's digest: hashed from now on by a
        // thread that runs when a core would idle; whoever asks for a
        // digest first takes over where it got to (`SourceFile::sha256`).
        input::source::digest_in_background(sources.files.clone());
    }
    let forced = options.dialect.as_deref().and_then(dialect::by_name);
    let (mut findings, files) = files_to_read(sources, problems, forced);

    // Dialects that read whole files.
    if let Some(read) = forced.and_then(|f| REGISTRY.get(f)?.read_files(sources, &files)) {
        for &id in &files {
            let file = sources.get(id);
            if file.text.trim().is_empty() {
                findings.push(empty(file, id, "pairs"));
            }
        }
        findings.extend(read.findings);
        timer.lap("whole files");
        let resolved = Resolved { relations: read.relations, ..Resolved::default() };
        let mut omitted = Omitted::default();
        findings::cap(&mut findings, &mut omitted, &mut []);
        return (read.objects, resolved, (findings, omitted), Vec::new(), Vec::new());
    }

    let size: usize = files.iter().map(|&id| sources.get(id).text.len()).sum();
    let bar = (options.progress && size >= PROGRESS_AT).then(|| progress_bar(size));
    let reader = Reader { sources, forced, bar, max_object: options.limits.object_size };
    let read = read_documents(&reader, &files, &mut findings, &mut timer);
    let (mut objects, mut omitted, skipped) = assemble(read, &mut findings);
    findings::cap(&mut findings, &mut omitted, &mut []);
    timer.lap("assemble");
    if let Some(bar) = &reader.bar {
        bar.set_message("resolving");
    }
    resolve::assign_scopes(&mut objects);
    timer.lap("scopes");
    let (mut resolved, written_again) = resolve_objects(sources, &mut objects);
    // Application controllers' managed sets (issue 35): relations of
    // their own, made once the objects are final.
    let (apps, external) = crate::dialect::controllers::read(sources, &objects);
    if !apps.is_empty() {
        resolved.managed = crate::analysis::managed::add(&objects, &mut resolved.relations, apps);
    }
    resolved.managed.external_kept = external;
    timer.lap("resolve");
    if let Some(bar) = reader.bar {
        bar.finish_and_clear();
    }
    (objects, resolved, (findings, omitted), written_again, skipped)
}

/// The files to read (those that could be read, and, unless a dialect is
/// forced, hold objects at all), and what reading found.
fn files_to_read(
    sources: &Sources,
    problems: Vec<input::ReadProblem>,
    forced: Option<usize>,
) -> (Vec<Finding>, Vec<FileId>) {
    let mut findings = Vec::new();
    let mut skip = vec![false; sources.files.len()];
    for problem in problems {
        findings.push(read_problem(sources, &mut skip, problem));
    }
    if forced.is_none() {
        findings.extend(input::walk::skip_not_objects(sources, &mut skip));
    }
    let files = sources.ids().zip(&skip).filter(|(_, skip)| !**skip).map(|(id, _)| id).collect();
    (findings, files)
}

/// What [`read_documents`] read: documents in batches (marking where the
/// items of their lists, and large lists read in runs, go), the items, and
/// the large lists.
struct ReadDocs {
    batches: Vec<Batch>,
    items: std::vec::IntoIter<Out>,
    runs: std::vec::IntoIter<Out>,
}

/// Read every document of `files` into objects, in parallel: large lists
/// first, each in parallel runs (a file whose runs do not check out is
/// read the general way); then documents, in batches; then the items of
/// their lists.
fn read_documents(
    reader: &Reader,
    files: &[FileId],
    findings: &mut Vec<Finding>,
    timer: &mut crate::timing::Timer,
) -> ReadDocs {
    let sources = reader.sources;
    let per_file: Vec<(FileId, Pieces)> =
        files.par_iter().map(|&id| (id, split_file(sources.get(id), rayon::current_num_threads()))).collect();
    for (id, pieces) in &per_file {
        if pieces.is_empty() {
            findings.push(empty(sources.get(*id), *id, "objects"));
        }
    }
    timer.lap("split");
    let mut runs_out: Vec<Out> = Vec::new();
    // (file, its documents, whether it was read in runs)
    let mut general: Vec<(FileId, Vec<UnitSpec>, bool)> = Vec::new();
    for (id, pieces) in per_file {
        match pieces {
            Pieces::Docs(docs) => general.push((id, docs, false)),
            Pieces::Runs(r) => match reader.runs(id, &r) {
                Some(out) => {
                    runs_out.push(out);
                    general.push((id, Vec::new(), true));
                }
                None => general.push((id, json_values(sources.get(id)), false)),
            },
        }
    }
    timer.lap("lists");
    // Documents, in parallel, read in batches (a list's items are read
    // after: the batch marks where they go)…
    let batches: Vec<Batch> = general
        .par_iter()
        .flat_map(|(id, specs, in_runs)| {
            let runs = in_runs.then_some(Task::Runs);
            runs.into_par_iter().chain(specs.par_iter().map(move |s| Task::Doc(*id, s)))
        })
        .fold(Batch::default, |mut batch, task| {
            match task {
                Task::Doc(id, spec) => {
                    if let Some(items) = reader.document(id, spec, &mut batch.out) {
                        batch.marks.push((batch.out.objects.len(), batch.out.findings.len(), Mark::Items(id, items)));
                    }
                    batch.tidy();
                }
                Task::Runs => batch.marks.push((batch.out.objects.len(), batch.out.findings.len(), Mark::Runs)),
            }
            batch
        })
        .collect();
    // …then the items of their lists, in parallel.
    let items: Vec<(FileId, &UnitSpec)> = batches
        .iter()
        .flat_map(|b| &b.marks)
        .filter_map(|(_, _, m)| match m {
            Mark::Items(id, specs) => Some(specs.iter().map(move |s| (*id, s))),
            Mark::Runs => None,
        })
        .flatten()
        .collect();
    // (In runs of items, each keeping at most `findings::LISTED_PER_RULE`
    // findings of a rule.)
    let item_outs = items
        .par_chunks(4096)
        .flat_map_iter(|chunk| {
            let (mut listed, mut outs) = ([0usize; Rule::ALL.len()], Vec::with_capacity(chunk.len()));
            for &(id, spec) in chunk {
                let mut out = reader.item(id, spec);
                let found = std::mem::take(&mut out.findings);
                for f in found {
                    match listed.get_mut(f.rule as usize) {
                        Some(n) if *n < findings::LISTED_PER_RULE => {
                            *n += 1;
                            out.findings.push(f);
                        }
                        _ => out.omitted.count(&f),
                    }
                }
                outs.push(out);
            }
            outs
        })
        .collect::<Vec<Out>>();
    timer.lap("parse");
    ReadDocs { batches, items: item_outs.into_iter(), runs: runs_out.into_iter() }
}

/// The objects and findings read, in input order (each batch's documents,
/// with the items of their lists and the large lists where they were),
/// and the documents left out whose identity could be read, in input order.
fn assemble(read: ReadDocs, findings: &mut Vec<Finding>) -> (Vec<Object>, Omitted, Vec<Skipped>) {
    let ReadDocs { batches, items: mut item_outs, runs: mut runs_out } = read;
    let total = batches.iter().map(|b| b.out.objects.len()).sum::<usize>()
        + item_outs.as_slice().iter().chain(runs_out.as_slice()).map(|o| o.objects.len()).sum::<usize>();
    let mut objects: Vec<Object> = Vec::new();
    let mut omitted = Omitted::default();
    let mut skipped = Vec::new();
    for mut batch in batches {
        omitted.merge(&batch.out.omitted);
        skipped.append(&mut batch.out.skipped);
        let (mut objs, mut finds) = (batch.out.objects.into_iter(), batch.out.findings.into_iter());
        let (mut o_at, mut f_at) = (0, 0);
        for (o, f, mark) in batch.marks {
            append(&mut objects, total, objs.by_ref().take(o - o_at));
            findings.extend(finds.by_ref().take(f - f_at));
            (o_at, f_at) = (o, f);
            let outs: Vec<Out> = match mark {
                Mark::Items(_, specs) => item_outs.by_ref().take(specs.len()).collect(),
                Mark::Runs => runs_out.next().into_iter().collect(),
            };
            for out in outs {
                if objects.is_empty() && out.objects.capacity() >= total {
                    // One large list holds them all: its vector is the snapshot's, not copied.
                    objects = out.objects;
                } else {
                    append(&mut objects, total, out.objects);
                }
                findings.extend(out.findings);
                omitted.merge(&out.omitted);
                skipped.extend(out.skipped);
                findings::cap_often(findings, &mut omitted, &mut []);
            }
        }
        append(&mut objects, total, objs);
        findings.extend(finds);
        findings::cap_often(findings, &mut omitted, &mut []);
    }
    // (A batch's own documents were put before its lists' items.)
    skipped.sort_by_key(|s: &Skipped| (s.span.file, s.span.range().start));
    (objects, omitted, skipped)
}

/// Resolve the objects' references; the same object given twice
/// (overlapping dumps) is one object, and where it is written again is
/// kept (see [`Snapshot::copies`]). Different documents with one identity
/// stay duplicates (TD002).
fn resolve_objects(sources: &Sources, objects: &mut Vec<Object>) -> (Resolved, Vec<(ObjId, Span)>) {
    let resolved = resolve::resolve(objects);
    let mut written_again = Vec::new();
    if resolved.duplicates.is_empty() {
        return (resolved, written_again);
    }
    let copies = copies(sources, objects, &resolved);
    if copies.is_empty() {
        return (resolved, written_again);
    }
    // Each copy belongs to the object it repeats (itself not a copy); ids
    // shift down by the copies before them.
    let mut first_of = rustc_hash::FxHashMap::default();
    for d in &resolved.duplicates {
        if let Some(&of) = copies.get(&d.again.index()) {
            let first = *first_of.get(&of).unwrap_or(&of);
            first_of.insert(d.again.index(), first);
        }
    }
    let mut dropped: Vec<usize> = copies.keys().copied().collect();
    dropped.sort_unstable();
    for (&again, &first) in &first_of {
        // `again` is a duplicate `resolve` found among these objects.
        let Some(copy) = objects.get(again) else { continue };
        let kept = ObjId((first - dropped.partition_point(|&c| c < first)) as u32);
        written_again.push((kept, copy.span));
    }
    written_again.sort_unstable_by_key(|(id, span)| (*id, span.file, span.range().start));
    let mut n = 0;
    objects.retain(|_| {
        n += 1;
        !copies.contains_key(&(n - 1))
    });
    (resolve::resolve(objects), written_again)
}

/// The objects that repeat an earlier one with the same identity and the
/// same content (read as values: key order and layout do not matter), each
/// with the one it repeats: the first of that identity, or an earlier
/// duplicate of it with other content (so that three documents, two of
/// them alike, are two objects and one TD002 whatever the order of the
/// files: tests/plans_right.rs).
fn copies(sources: &Sources, objects: &[Object], resolved: &Resolved) -> rustc_hash::FxHashMap<usize, usize> {
    let text = |o: &Object| (&*sources.get(o.span.file).text, o.span.range());
    // The text from the start of the object's first line: the same bytes
    // there are the same value.
    let written = |t: &'_ str, r: std::ops::Range<usize>| {
        let line_start = t.get(..r.start)?.rfind('\n').map_or(0, |i| i + 1);
        t.get(line_start..r.end).map(str::to_owned)
    };
    let same = |a: usize, b: usize| {
        let (Some(a), Some(b)) = (objects.get(a), objects.get(b)) else {
            return false;
        };
        let ((ta, ra), (tb, rb)) = (text(a), text(b));
        if written(ta, ra.clone()).is_some_and(|w| Some(w) == written(tb, rb.clone())) {
            return true;
        }
        match (input::Node::at(ta, ra), input::Node::at(tb, rb)) {
            (Some(x), Some(y)) => x.same(&y),
            _ => false,
        }
    };
    // The other contents seen so far of each identity, by its first object.
    let mut versions: rustc_hash::FxHashMap<usize, Vec<usize>> = rustc_hash::FxHashMap::default();
    let mut out = rustc_hash::FxHashMap::default();
    for d in &resolved.duplicates {
        let (first, again) = (d.first.index(), d.again.index());
        if out.contains_key(&again) {
            continue;
        }
        let seen = versions.entry(first).or_default();
        match std::iter::once(first).chain(seen.iter().copied()).find(|&v| v != again && same(v, again)) {
            Some(v) => {
                out.insert(again, v);
            }
            None if !seen.contains(&again) => seen.push(again),
            None => {}
        }
    }
    out
}

/// Add objects to the snapshot's vector, sized for all `total` at once.
fn append(objects: &mut Vec<Object>, total: usize, more: impl IntoIterator<Item = Object>) {
    if objects.capacity() < total {
        objects.reserve_exact(total - objects.len());
    }
    objects.extend(more);
}

impl Reader<'_> {
    fn progress(&self, bytes: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes as u64);
        }
    }

    /// Read a document into `out`, or find the items of the list it is.
    fn document(&self, id: FileId, spec: &UnitSpec, out: &mut Out) -> Option<Vec<UnitSpec>> {
        let file = self.sources.get(id);
        let unit = Unit::new(file, id, spec);
        let Some((d, dialect)) = dialect::recognise(&unit, self.forced).and_then(|d| Some((d, *REGISTRY.get(d)?)))
        else {
            out.findings.extend(dialect::unrecognised(&unit));
            self.progress(spec.range.len());
            return None;
        };
        let Some(list) = dialect.list(&unit) else {
            match self.oversized(&unit, spec.range.len()) {
                Some(finding) => out.findings.push(finding),
                None => dialect.read(&unit, out),
            }
            self.progress(spec.range.len());
            return None;
        };
        let header = || {
            Arc::new(ListHeader {
                outline: unit.outline().clone().into_owned(),
                taken_by: d,
                own_items: list.own_items,
            })
        };
        match unit.items(list.member) {
            Items::Split(items) => {
                let header = header();
                Some(
                    items
                        .into_iter()
                        .map(|(range, form)| UnitSpec { range, form, list: Some(header.clone()) })
                        .collect(),
                )
            }
            Items::Values(values) => {
                // Read here, one after the other: such lists are small.
                let header = header();
                for value in values {
                    let item = Unit::value(file, id, spec.range.clone(), value, Some(&header));
                    self.read_item(&item, out);
                }
                self.progress(spec.range.len());
                None
            }
            Items::Broken(finding) => {
                out.findings.push(finding);
                self.progress(spec.range.len());
                None
            }
        }
    }

    fn item(&self, id: FileId, spec: &UnitSpec) -> Out {
        let unit = Unit::new(self.sources.get(id), id, spec);
        let mut out = Out::default();
        match self.oversized(&unit, spec.range.len()) {
            Some(finding) => out.findings.push(finding),
            None => self.read_item(&unit, &mut out),
        }
        self.progress(spec.range.len());
        out
    }

    /// TD001 for an object larger than `--max-object-size`.
    fn oversized(&self, unit: &Unit, len: usize) -> Option<Finding> {
        let size = len as u64;
        (size > self.max_object).then(|| {
            Finding::new(
                Rule::Td001,
                format!(
                    "object is {}, more than the limit of {} (--max-object-size)",
                    Size(size),
                    Size(self.max_object)
                ),
            )
            .at(unit.head(), "this object")
            .help(format!(
                "no object from a cluster is this large (the API server refuses a request over 3 MiB); \
                 if it is meant, raise the limit: --max-object-size {}",
                Size(size.next_power_of_two()).flag()
            ))
        })
    }

    fn read_item(&self, unit: &Unit, out: &mut Out) {
        if let Some(dialect) = dialect::recognise(unit, self.forced).and_then(|d| REGISTRY.get(d)) {
            dialect.read(unit, out);
        }
    }

    /// Read a large JSON list in parallel runs; `None` when the guesses of
    /// `jsonruns` do not hold (the caller then reads the file whole).
    fn runs(&self, id: FileId, runs: &jsonruns::Runs) -> Option<Out> {
        let header_spec = UnitSpec { range: 0..runs.header.text.len(), form: Form::Json, list: None };
        let header_unit = Unit::new(&runs.header, FileId(u32::MAX), &header_spec);
        let d = dialect::recognise(&header_unit, self.forced)?;
        let list = REGISTRY.get(d)?.list(&header_unit)?;
        if list.member != Some(runs.member.as_str()) {
            return None;
        }
        let header =
            ListHeader { outline: header_unit.outline().clone().into_owned(), taken_by: d, own_items: list.own_items };
        let file = self.sources.get(id);
        let b = file.text.as_bytes();
        struct Run {
            out: Out,
            /// Objects past the run's share of the snapshot's vector (its
            /// items' lines undercounted them).
            extra: Vec<Object>,
            /// Where the item after the run starts, or the list's `]`.
            next: Option<usize>,
            close: Option<usize>,
        }
        // One vector for the whole list, each run writing its share (made
        // for the items its lines show): the runs' objects are not copied
        // into another when they are joined.
        let shares: Vec<usize> = runs
            .starts
            .par_iter()
            .enumerate()
            .map(|(n, &start)| {
                let stop = runs.starts.get(n + 1).copied().unwrap_or(usize::MAX);
                runs.items_in(b, start..stop.min(runs.close))
            })
            .collect();
        // (Made in parallel: its pages are zeroed by the threads that fill
        // them, not one.)
        let total = shares.iter().sum();
        let mut slots: Vec<Option<Object>> = Vec::with_capacity(total);
        slots.par_extend((0..total).into_par_iter().map(|_| None));
        let mut parts: Vec<&mut [Option<Object>]> = Vec::with_capacity(shares.len());
        let mut rest = slots.as_mut_slice();
        for &share in &shares {
            let (part, after) = rest.split_at_mut_checked(share)?;
            parts.push(part);
            rest = after;
        }
        let results: Vec<Option<Run>> = runs
            .starts
            .par_iter()
            .zip(parts)
            .enumerate()
            .map(|(n, (&start, part))| {
                let stop = runs.starts.get(n + 1).copied().unwrap_or(usize::MAX);
                let mut run = Run { out: Out::default(), extra: Vec::new(), next: None, close: None };
                let mut free = part.iter_mut();
                let mut pos = start;
                loop {
                    if pos >= stop {
                        run.next = Some(pos);
                        break;
                    }
                    let unit = Unit::streamed(file, id, pos, Some(&header));
                    let mark = run.out.mark();
                    self.read_item(&unit, &mut run.out);
                    let end = unit.skip()?;
                    // Its size is known only once it is read: if too large,
                    // what it gave goes.
                    if let Some(finding) = self.oversized(&unit, end - pos) {
                        run.out.instead(mark, finding);
                    }
                    for object in run.out.objects.drain(..) {
                        match free.next() {
                            Some(slot) => *slot = Some(object),
                            None => run.extra.push(object),
                        }
                    }
                    findings::cap_often(&mut run.out.findings, &mut run.out.omitted, &mut []);
                    match jsonruns::after_item(b, end) {
                        After::Next(p) => pos = p,
                        After::Close(c) => {
                            run.close = Some(c);
                            break;
                        }
                        After::Broken => return None,
                    }
                }
                self.progress(stop.min(b.len()) - start);
                Some(run)
            })
            .collect();
        // Each run ends where the next begins; the last at the list's `]`.
        let mut out = Out::default();
        let mut extra = Vec::new();
        for (n, run) in results.into_iter().enumerate() {
            let run = run?;
            match runs.starts.get(n + 1) {
                Some(&next) if run.next == Some(next) => {}
                None if run.close == Some(runs.close) => {}
                _ => return None,
            }
            extra.push(run.extra);
            out.findings.extend(run.out.findings);
            out.skipped.extend(run.out.skipped);
            out.omitted.merge(&run.out.omitted);
            findings::cap_often(&mut out.findings, &mut out.omitted, &mut []);
        }
        out.objects = if extra.iter().all(Vec::is_empty) {
            filled(slots)
        } else {
            // A run held more objects than its share: each run's, in order.
            let mut slots = slots.into_iter();
            let mut objects = Vec::with_capacity(slots.len() + extra.iter().map(Vec::len).sum::<usize>());
            for (share, more) in shares.into_iter().zip(extra) {
                objects.extend(slots.by_ref().take(share).flatten());
                objects.extend(more);
            }
            objects
        };
        Some(out)
    }
}

/// The objects of the filled slots, in the slots' own vector (collected in
/// place, which `flatten` is not: no second vector of a large list).
#[allow(clippy::filter_map_identity, reason = "collected in place, which flatten is not")]
fn filled(slots: Vec<Option<Object>>) -> Vec<Object> {
    slots.into_iter().filter_map(|slot| slot).collect()
}

/// The documents of a file: YAML documents, or top-level JSON values; a
/// large JSON list in runs.
fn split_file(file: &SourceFile, threads: usize) -> Pieces {
    let text = &*file.text;
    let b = text.as_bytes();
    // Text not named `.json` that holds JSON documents one after another
    // is read as a `.json` file is.
    if file.format == Format::Json || json::is_stream(b, jsonruns::MIN_LEN) {
        if split::first_content(text, 0..text.len()).is_none() {
            return Pieces::Docs(Vec::new());
        }
        let start = json::skip_ws(b, 0);
        if b.get(start) == Some(&b'{') && b.len() >= jsonruns::MIN_LEN {
            if let Some(runs) = jsonruns::runs(text, start, threads) {
                return Pieces::Runs(Box::new(runs));
            }
        }
        return Pieces::Docs(json_values(file));
    }
    let documents = split::yaml_documents(text);
    let mut docs = Vec::with_capacity(documents.len());
    docs.extend(documents.into_iter().filter_map(|d| {
        let start = split::first_content(text, d.clone())?;
        Some(UnitSpec { range: start..d.end, form: Form::Yaml, list: None })
    }));
    Pieces::Docs(docs)
}

/// The top-level values of a JSON file (one, or NDJSON); from the first
/// value that does not scan, the rest of the file as one (its error is
/// reported there).
fn json_values(file: &SourceFile) -> Vec<UnitSpec> {
    let b = file.text.as_bytes();
    // The values' places, then the specs, made in a vector of their number:
    // ten million `{}` (30 MB) make ten million specs, and a vector grown
    // by doubling would take up to twice their memory, and a copy.
    let values = || {
        let mut i = json::skip_ws(b, 0);
        std::iter::from_fn(move || {
            if i >= b.len() {
                return None;
            }
            let start = i;
            let end = json::value_end(b, i).unwrap_or(b.len());
            i = if end == b.len() { b.len() } else { json::skip_ws(b, end) };
            Some(start..end)
        })
    };
    let mut out = Vec::with_capacity(values().count());
    out.extend(values().map(|range| UnitSpec { range, form: Form::Json, list: None }));
    out
}

fn empty(file: &SourceFile, id: FileId, what: &str) -> Finding {
    Finding::new(Rule::Td013, format!("{} holds no {what}", file.name))
        .at(Span::new(id, 0..0), "empty")
        .in_file(file.name.clone())
}

fn read_problem(sources: &Sources, skip: &mut [bool], problem: ReadProblem) -> Finding {
    match problem {
        ReadProblem::NotUtf8 { file, offset, .. } => {
            if let Some(skip) = skip.get_mut(file.0 as usize) {
                *skip = true;
            }
            let text = &sources.get(file).text;
            let end = text.get(offset..).and_then(|t| t.chars().next()).map_or(offset, |c| offset + c.len_utf8());
            Finding::new(Rule::Td001, "file is not valid UTF-8")
                .at(Span::new(file, offset..end), "first invalid byte")
                .help("YAML and JSON inputs must be UTF-8")
                .fatal()
        }
        ReadProblem::Skipped { name, what } => Finding::new(Rule::Td015, format!("{name}: not read: {what}"))
            .in_file(name)
            .help("only regular files are read from a directory; name a FIFO on the command line to read it"),
        ReadProblem::Link { .. } => Finding::new(Rule::Td015, problem.to_string())
            .in_file(problem.name())
            .help("a symbolic link in a directory is followed only with -L/--follow, and only to a file or directory inside the directory named; name a file on the command line to read it wherever it is"),
        ReadProblem::NoFiles { .. } => Finding::new(Rule::Td013, problem.to_string())
            .in_file(problem.name())
            .help("teardown reads *.yaml, *.yml and *.json files from a directory (not hidden ones); name another file to read it"),
        ReadProblem::TooLarge { size, limit, .. } => {
            let raise = Size(size.unwrap_or(limit.saturating_mul(2)).next_power_of_two()).flag();
            Finding::new(Rule::Td001, problem.to_string())
                .in_file(problem.name())
                .help(format!("if the file is meant, raise the limit: --max-file-size {raise}"))
                .fatal()
        }
        other => Finding::new(Rule::Td001, other.to_string()).in_file(other.name()).fatal(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(items: impl Fn(usize) -> String, head: &str, tail: &str) -> SourceFile {
        let mut text = format!("{{\n{head}");
        let n = 150_000;
        for i in 0..n {
            text.push_str(&items(i));
            text.push_str(if i + 1 < n { ",\n" } else { "\n" });
        }
        text.push_str(tail);
        assert!(text.len() >= jsonruns::MIN_LEN);
        SourceFile::new("big.json".into(), None, Format::Json, text)
    }

    /// Large lists are read in runs, whichever dialect holds them, and give
    /// what the general way gives.
    #[test]
    fn large_lists_are_read_in_runs() {
        let kubectl = big(
            |i| {
                format!("  {{\n   \"apiVersion\": \"v1\",\n   \"kind\": \"ConfigMap\",\n   \"metadata\": {{\"name\": \"c{i}\", \"namespace\": \"ns\", \"uid\": \"u{i}\", \"labels\": {{\"app\": \"a\"}}}}\n  }}")
            },
            " \"apiVersion\": \"v1\",\n \"items\": [\n",
            " ],\n \"kind\": \"List\",\n \"metadata\": {\"resourceVersion\": \"\"}\n}\n",
        );
        let native =
            big(|i| format!("  {{\"id\": \"r{i}\", \"owners\": [\"r{}\"]}}", i / 2), " \"resources\": [\n", " ]\n}\n");
        // Two items in three begin their line unlike the first: a run's
        // share, counted from the lines that begin as the first item's,
        // is short, and what it read past its share joins in order.
        let uneven = big(
            |i| {
                let indent = if i % 3 == 0 { "  " } else { "" };
                format!("{indent}{{\"apiVersion\": \"v1\", \"kind\": \"Secret\", \"metadata\": {{\"name\": \"s{i}\", \"namespace\": \"ns\", \"uid\": \"u{i}\"}}}}")
            },
            " \"apiVersion\": \"v1\",\n \"items\": [\n",
            " ],\n \"kind\": \"List\"\n}\n",
        );
        for (file, expect) in [(kubectl, "ConfigMap"), (native, ""), (uneven, "Secret")] {
            let sources = Sources { files: vec![std::sync::Arc::new(file)] };
            let reader = Reader { sources: &sources, forced: None, bar: None, max_object: Limits::OBJECT_SIZE };
            let pieces = split_file(sources.get(FileId(0)), 4);
            let Pieces::Runs(runs) = &pieces else { panic!("not read in runs") };
            assert!(runs.starts.len() > 1);
            let out = reader.runs(FileId(0), runs).expect("the runs check out");
            assert_eq!(out.objects.len(), 150_000);
            assert!(out.findings.is_empty());
            assert!(out.objects.iter().all(|o| &*o.kind == expect));
            // The general way gives the same objects.
            let mut general = Out::default();
            for spec in json_values(sources.get(FileId(0))) {
                if let Some(items) = reader.document(FileId(0), &spec, &mut general) {
                    for item in &items {
                        let o = reader.item(FileId(0), item);
                        general.objects.extend(o.objects);
                    }
                }
            }
            let names = |objs: &[Object]| objs.iter().map(|o| (o.name.clone(), o.span)).collect::<Vec<_>>();
            assert_eq!(names(&out.objects), names(&general.objects));
        }
    }
}
