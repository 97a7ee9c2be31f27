//! `teardown apply PLAN`: a saved plan made into edits of the snapshot
//! files (CONTRACT §7), with no planning again.
//!
//! - [`planfile`]: the plan file as read;
//! - [`prepare`]: each input checked against its recorded sha256, each
//!   planned object found at its recorded place, the edits made and then
//!   checked by reading the new text back;
//! - [`write`]: the new files written next to the old ones, synced and
//!   renamed over them (with a `.bak` unless asked not to).

pub mod hook;
pub mod place;
pub mod planfile;
pub mod write;

use crate::dialect;
use crate::input::edit::{self, Op};
use crate::input::{Node, SourceFile, Sources};
use crate::internal::{entry_mut, Internal};
use crate::load::{self, LoadOptions, Snapshot};
use crate::model::{Link, ObjId, Object, RelKind, Relation};
use crate::span::{FileId, Span};
use planfile::{Place, PlanFile};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Why a plan is not applied. Nothing is written.
#[derive(Debug)]
pub enum ApplyError {
    /// Not a plan file teardown can apply (exit 2).
    NotAPlan { path: String, why: String },
    /// The plan was made from standard input: there is no file to change (exit 2).
    FromStdin,
    /// An input changed since the plan was made, or is gone (exit 1).
    Stale { file: String, why: String },
    /// The plan names an object where the input has another (exit 1).
    Mismatch { file: String, line: u32, planned: String, found: Option<String> },
    /// An edit cannot be made exactly, or reading the result back did not
    /// give what the plan asks for (exit 1).
    Unappliable { file: String, line: usize, what: String },
    /// The plan is not the one teardown makes from its recorded command
    /// and its inputs (exit 1).
    NotMadeAgain { command: String, what: String },
    /// A file the plan names cannot be changed safely: read-only, with
    /// other hard links, not a regular file any more, locked by another
    /// run, replaced while this one ran (exit 1).
    Refused { file: String, why: String },
    /// A run that did not finish left its temporary files (exit 1).
    Leftovers { files: Vec<String> },
    /// A bug in teardown, reported instead of a panic (exit 2).
    Internal(Internal),
}

impl ApplyError {
    pub fn exit(&self) -> crate::exit::Exit {
        match self {
            ApplyError::NotAPlan { .. } | ApplyError::FromStdin | ApplyError::Internal(_) => {
                crate::exit::Exit::Unusable
            }
            _ => crate::exit::Exit::Refused,
        }
    }
}

impl From<Internal> for ApplyError {
    fn from(e: Internal) -> ApplyError {
        ApplyError::Internal(e)
    }
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::NotAPlan { path, why } => {
                write!(f, "{path} is not a plan file teardown can apply: {why}; make one with `teardown plan … -o json`")
            }
            ApplyError::FromStdin => f.write_str(
                "the plan was made from standard input: there is no file to change; plan the files themselves",
            ),
            ApplyError::Stale { file, why } => write!(
                f,
                "stale plan: {file} {why}; nothing was written; make the plan again from the files as they are"
            ),
            ApplyError::Mismatch { file, line, planned, found } => match found {
                Some(found) => write!(
                    f,
                    "the plan does not match the input: it names {planned} at {file}:{line}, where the input has {found}; nothing was written"
                ),
                None => write!(
                    f,
                    "the plan does not match the input: it names {planned} at {file}:{line}, where the input has no object; nothing was written"
                ),
            },
            ApplyError::Unappliable { file, line, what } => {
                write!(f, "cannot apply the plan to {file}:{line}: {what}; nothing was written")
            }
            ApplyError::NotMadeAgain { command, what } => write!(
                f,
                "the plan is not the one teardown makes from the command it records ({command}) and its inputs: {what}; nothing was written; make the plan again"
            ),
            ApplyError::Refused { file, why } => write!(f, "cannot apply the plan to {file}: {why}; nothing was written"),
            ApplyError::Leftovers { files } => write!(
                f,
                "an earlier apply did not finish: it left {}; each `.new` holds a new text never put in place (delete it), \
                 each `.old` the original of the file beside it, whose new text is in place (rename it over that file to undo \
                 the change, or delete it); nothing was written",
                files.join(", ")
            ),
            ApplyError::Internal(e) => write!(f, "{e}; nothing was written"),
        }
    }
}

/// One file's change.
#[derive(Debug)]
pub struct Change {
    pub path: String,
    pub before: String,
    /// `None`: nothing but blank lines, comments and separators would be
    /// left, so the file itself goes.
    pub after: Option<String>,
    /// Documents (or list items, or nested objects) taken out.
    pub removed: usize,
    /// Owner references taken out of objects that stay (orphaned ones,
    /// and those another owner keeps).
    pub orphaned: usize,
    /// Destruction dependencies on removed objects taken out of objects
    /// that stay.
    pub unordered: usize,
    /// Murano objects kept in place, marked `destroyed: true`.
    pub marked: usize,
    /// The file starts with a UTF-8 byte-order mark (not in `before` and
    /// `after`), which the new file keeps.
    pub bom: bool,
}

/// What happens to an object of the snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fate {
    Stays,
    Removed,
    /// Destroyed, but kept in place with its `destroyed` mark.
    Marked,
}

/// Check `plan` against the snapshot of its inputs and make every file's
/// change, each checked by reading it back. Pure: nothing is written.
///
/// The phases: the inputs' digests; the places of what the plan deletes
/// ([`removed`]); the owner references orphaned objects lose ([`orphan`]);
/// the references the plan would leave dangling ([`dangling`]); the removed
/// objects that hold one that stays, marked instead ([`mark_holders`]);
/// each file's change ([`changes`]).
pub fn prepare(plan: &PlanFile, snapshot: &Snapshot, options: &LoadOptions) -> Result<Vec<Change>, ApplyError> {
    digests(plan, &snapshot.sources)?;
    let finder = Finder::new(snapshot);
    let (mut fate, places) = removed(plan, &finder)?;
    if fate.iter().all(|f| *f == Fate::Stays) && plan.orphaned.is_empty() {
        return Ok(Vec::new());
    }
    let mut strips = Strips::default();
    orphan(plan, &finder, &fate, &mut strips)?;
    dangling(snapshot, &fate, &mut strips)?;
    mark_holders(snapshot, &places, &mut fate)?;
    changes(snapshot, places.into_iter().chain(strips.work), &fate, options)
}

/// What a plan file names, found in the snapshot: every place of every
/// object (its copies' too), by file and span.
struct Finder<'a> {
    snapshot: &'a Snapshot,
    file_of: HashMap<&'a str, FileId>,
    at: HashMap<(FileId, usize, usize), ObjId>,
}

impl<'a> Finder<'a> {
    fn new(snapshot: &'a Snapshot) -> Finder<'a> {
        let sources = &snapshot.sources;
        let file_of = sources.ids().map(|id| (sources.get(id).name.as_str(), id)).collect();
        let mut at = HashMap::with_capacity(snapshot.objects.len());
        for (i, o) in snapshot.objects.iter().enumerate() {
            at.insert((o.span.file, o.span.start, o.span.end), ObjId(i as u32));
        }
        for (id, span) in &snapshot.copies {
            at.insert((span.file, span.start, span.end), *id);
        }
        Finder { snapshot, file_of, at }
    }

    /// The object the plan names `reference` at `place`, and its value's
    /// span there; refused when another object is there, or one `apply`
    /// cannot edit.
    fn find(&self, reference: &str, place: &Place) -> Result<Work, ApplyError> {
        let mismatch = |found| ApplyError::Mismatch {
            file: place.file.clone(),
            line: place.line,
            planned: reference.to_string(),
            found,
        };
        let file = *self.file_of.get(place.file.as_str()).ok_or_else(|| mismatch(None))?;
        let span = Span::new(file, place.offset..place.offset + place.length);
        let id = *self.at.get(&(file, span.start, span.end)).ok_or_else(|| mismatch(None))?;
        let o = id.of(&self.snapshot.objects)?;
        let found = o.reference();
        if found != reference {
            return Err(mismatch(Some(found)));
        }
        let unappliable =
            |what: String| ApplyError::Unappliable { file: place.file.clone(), line: place.line as usize, what };
        if o.member.as_deref().is_some_and(|m| m.copies > 0 || m.section != crate::model::Section::Model) {
            return Err(unappliable(format!(
                "{reference} is in a deployment task ({} and {}): apply edits object models, not tasks",
                o.origin.fields.models.model, o.origin.fields.models.copy
            )));
        }
        let text: &str = &self.snapshot.sources.get(file).text;
        let value = value_span(text, o, span).map_err(|u| unappliable(format!("{reference}: {}", u.what)))?;
        Ok(Work { id, span: value, decl: None, start: span.start })
    }
}

/// The fate of each object the plan deletes (removed, or marked when
/// surviving objects refer to it), and the places to remove or mark (an
/// object's copies with it, each listed as the snapshot writes them).
fn removed(plan: &PlanFile, finder: &Finder) -> Result<(Vec<Fate>, Vec<Work>), ApplyError> {
    let snapshot = finder.snapshot;
    let mut fate = vec![Fate::Stays; snapshot.objects.len()];
    let mut places: Vec<Work> = Vec::new();
    for r in plan.steps.iter().flat_map(|s| &s.resources) {
        let w = finder.find(&r.reference, &r.place)?;
        let id = w.id;
        *id.of_mut(&mut fate)? = if r.referenced_by.is_empty() { Fate::Removed } else { Fate::Marked };
        places.push(w);
        for c in &r.copies {
            places.push(finder.find(&r.reference, c)?);
        }
        let listed = 1 + r.copies.len();
        let written = 1 + snapshot.copies_of(id).len();
        if listed != written {
            return Err(ApplyError::Mismatch {
                file: r.place.file.clone(),
                line: r.place.line,
                planned: format!("{} written {listed} times", r.reference),
                found: Some(format!("it written {written} times")),
            });
        }
    }
    Ok((fate, places))
}

/// Entries to take out of objects that stay, each once.
#[derive(Default)]
struct Strips {
    work: Vec<Work>,
    /// (object, entry) already taken out, so that none is taken out twice.
    taken: HashSet<(ObjId, Entry)>,
}

impl Strips {
    /// Take `entry` out of the object at `w`, and out of its copies, unless
    /// it is already.
    fn strip(&mut self, snapshot: &Snapshot, w: Work, entry: Entry) {
        if !self.taken.insert((w.id, entry)) {
            return;
        }
        self.work.push(Work { decl: Some(entry), ..w });
        for (copy, span) in snapshot.copies_of(w.id) {
            self.work.push(Work { id: *copy, span: *span, decl: Some(entry), start: span.start });
        }
    }
}

/// Orphaned objects lose the owner reference their owner's deletion
/// would have followed.
fn orphan(plan: &PlanFile, finder: &Finder, fate: &[Fate], strips: &mut Strips) -> Result<(), ApplyError> {
    let snapshot = finder.snapshot;
    let objects = &snapshot.objects;
    let by_ref: HashMap<String, Vec<ObjId>> = {
        let mut m: HashMap<String, Vec<ObjId>> = HashMap::new();
        for (i, o) in objects.iter().enumerate() {
            m.entry(o.reference()).or_default().push(ObjId(i as u32));
        }
        m
    };
    for r in &plan.orphaned {
        let w = finder.find(&r.reference, &r.place)?;
        let id = w.id;
        let unappliable =
            |what: String| ApplyError::Unappliable { file: r.place.file.clone(), line: r.place.line as usize, what };
        // Orphaned is what stays without its owner: not what goes.
        if *id.of(fate)? != Fate::Stays {
            return Err(unappliable(format!("{} is orphaned in the plan, which also deletes it", r.reference)));
        }
        let owner = r.owner.as_deref().unwrap_or_default();
        let owners = by_ref.get(owner).map(Vec::as_slice).unwrap_or_default();
        // Every reference to that owner (an object may name it twice).
        let rels: Vec<&Relation> = snapshot
            .resolved
            .relations
            .iter()
            .filter(|rel| {
                rel.to == id && owners.contains(&rel.from) && matches!(rel.kind, RelKind::Owns | RelKind::Manages)
            })
            .collect();
        if rels.is_empty() {
            return Err(unappliable(format!("{} has no owner reference to {owner}", r.reference)));
        }
        for rel in rels {
            if rel.declared_by != id {
                // Written in the owner's document, which the plan deletes.
                if *rel.declared_by.of(fate)? != Fate::Removed {
                    return Err(unappliable(format!(
                        "the reference to {} is written in {owner}, which stays",
                        r.reference
                    )));
                }
                continue;
            }
            let o = id.of(objects)?;
            if edits_of(o).and_then(|e| e.owners).is_none() {
                return Err(unappliable(format!(
                    "{} is owned by how it is written (the {} dialect): it cannot be orphaned in place",
                    r.reference, o.origin.dialect
                )));
            }
            strips.strip(snapshot, w, Entry::Owner(rel.decl));
        }
    }
    Ok(())
}

/// References the plan would leave dangling in objects that stay: an
/// owner reference to an owner it removes (the Kubernetes collector
/// takes it out of an object that another owner keeps), a destruction
/// dependency on an object it removes (nothing is left to wait for).
/// Taken out where the dialect writes them as a list; references that
/// were broken before the plan (not solid) are left as they are.
fn dangling(snapshot: &Snapshot, fate: &[Fate], strips: &mut Strips) -> Result<(), ApplyError> {
    let sources = &snapshot.sources;
    for rel in &snapshot.resolved.relations {
        let id = rel.declared_by;
        let (named, entry) = match rel.kind {
            RelKind::Owns if id == rel.to && rel.link == Link::Solid => (rel.from, Entry::Owner(rel.decl)),
            RelKind::DestroyAfter if id == rel.from => (rel.to, Entry::After(rel.decl)),
            _ => continue,
        };
        if *id.of(fate)? != Fate::Stays || *named.of(fate)? != Fate::Removed {
            continue;
        }
        let o = id.of(&snapshot.objects)?;
        let listed = edits_of(o).and_then(|e| match entry {
            Entry::Owner(_) => e.owners,
            Entry::After(_) => e.after,
        });
        if listed.is_none() || strips.taken.contains(&(id, entry)) {
            continue;
        }
        let text: &str = &sources.get(o.span.file).text;
        let value = value_span(text, o, o.span).map_err(|u| {
            let file = sources.get(o.span.file);
            ApplyError::Unappliable {
                file: file.name.clone(),
                line: file.line_index(o.span.start) + 1,
                what: format!("{}: {}", o.reference(), u.what),
            }
        })?;
        strips.strip(snapshot, Work { id, span: value, decl: None, start: o.span.start }, entry);
    }
    Ok(())
}

/// A removed object that holds one that stays (Murano nesting) keeps its
/// place, marked destroyed, as the one it holds does; until no more is.
fn mark_holders(snapshot: &Snapshot, places: &[Work], fate: &mut [Fate]) -> Result<(), ApplyError> {
    let (objects, sources) = (&snapshot.objects, &snapshot.sources);
    loop {
        // The objects that stay, by file and start, to look up in order.
        let mut staying: Vec<(FileId, usize, u32)> = objects
            .iter()
            .zip(fate.iter())
            .enumerate()
            .filter(|(_, (_, fate))| **fate != Fate::Removed)
            .map(|(j, (o, _))| (o.span.file, o.span.start, j as u32))
            .collect();
        staying.sort_unstable();
        let mut changed = false;
        for &Work { id, span, .. } in places {
            if *id.of(fate)? != Fate::Removed {
                continue;
            }
            let from = staying.partition_point(|&(f, s, _)| (f, s) < (span.file, span.start));
            let holds_survivor = staying
                .iter()
                .skip(from)
                .take_while(|&&(f, s, _)| f == span.file && s < span.end)
                .any(|&(_, _, j)| j != id.0);
            if holds_survivor {
                let o = id.of(objects)?;
                if edits_of(o).and_then(|e| e.destroyed).is_none() {
                    return Err(ApplyError::Unappliable {
                        file: sources.get(span.file).name.clone(),
                        line: sources.get(span.file).line_index(span.start) + 1,
                        what: format!("{} holds an object that stays", o.reference()),
                    });
                }
                *id.of_mut(fate)? = Fate::Marked;
                changed = true;
            }
        }
        if !changed {
            return Ok(());
        }
    }
}

/// Each file's change, from the work on its objects, in file order.
fn changes(
    snapshot: &Snapshot,
    work: impl Iterator<Item = Work>,
    fate: &[Fate],
    options: &LoadOptions,
) -> Result<Vec<Change>, ApplyError> {
    let sources = &snapshot.sources;
    let mut by_file: Vec<Vec<Work>> = vec![Vec::new(); sources.files.len()];
    for w in work {
        entry_mut(&mut by_file, w.span.file.0 as usize, "file")?.push(w);
    }
    let mut changes = Vec::new();
    for (f, work) in by_file.iter().enumerate() {
        if work.is_empty() {
            continue;
        }
        let file = sources.get(FileId(f as u32));
        changes.push(change(file, work, &snapshot.objects, fate, options)?);
    }
    Ok(changes)
}

/// Every input of `plan` is among `sources`, with the digest the plan
/// records (else the plan is stale).
pub fn digests(plan: &PlanFile, sources: &Sources) -> Result<(), ApplyError> {
    let file_of: HashMap<&str, FileId> = sources.ids().map(|id| (sources.get(id).name.as_str(), id)).collect();
    for input in &plan.inputs {
        let Some(&id) = file_of.get(input.path.as_str()) else {
            return Err(ApplyError::Stale { file: clean(&input.path), why: "could not be read".into() });
        };
        let now = sources.get(id).sha256();
        if now != input.sha256 {
            return Err(ApplyError::Stale {
                file: clean(&input.path),
                why: format!(
                    "changed since the plan was made (sha256 {} in the plan, {now} now)",
                    clean(short(&input.sha256))
                ),
            });
        }
    }
    Ok(())
}

/// Text from the plan file, as it may be shown (one escaping for every
/// output: `crate::escape`).
pub fn clean(s: &str) -> String {
    crate::escape::escape(s).into_owned()
}

/// Ranges, to ask whether one of them holds another range.
struct Cover {
    /// (start, end), sorted by start and then by end, longest first.
    ranges: Vec<(usize, usize)>,
    /// The largest end among `ranges[..i]`.
    max_end: Vec<usize>,
}

impl Cover {
    fn new(ranges: impl Iterator<Item = std::ops::Range<usize>>) -> Cover {
        let mut ranges: Vec<(usize, usize)> = ranges.map(|r| (r.start, r.end)).collect();
        ranges.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        ranges.dedup();
        let mut max_end = Vec::with_capacity(ranges.len() + 1);
        let mut m = 0;
        for &(_, e) in &ranges {
            max_end.push(m);
            m = m.max(e);
        }
        max_end.push(m);
        Cover { ranges, max_end }
    }

    /// Is `r` inside one of the ranges, other than `r` itself? An empty
    /// `r` (a position) is inside a range that holds it.
    fn holds(&self, r: std::ops::Range<usize>) -> bool {
        // Ranges before `r` in the order: those that start earlier, or at
        // its start and end later.
        let i = self.ranges.partition_point(|&(s, e)| s < r.start || (s == r.start && e > r.end));
        let end = if r.is_empty() { r.end + 1 } else { r.end };
        // `max_end` has an entry more than `ranges`: `i` is one of them.
        self.max_end.get(i).is_some_and(|&m| m >= end)
            || (r.is_empty() && self.ranges.get(i).is_some_and(|&(s, e)| s == r.start && e > r.start))
    }
}

/// An object `apply` changes, at one of its places.
#[derive(Clone, Copy, Debug)]
struct Work {
    id: ObjId,
    /// Its whole value.
    span: Span,
    /// The entry it loses (else it is removed or marked).
    decl: Option<Entry>,
    /// Where its span starts as read (Murano: at its `"?"` key).
    start: usize,
}

/// An entry `apply` takes out of an object that stays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Entry {
    /// Its owner reference `n` (at [`dialect::Edits::owners`]).
    Owner(u32),
    /// Its destruction dependency `n` (at [`dialect::Edits::after`]).
    After(u32),
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

fn edits_of(o: &Object) -> Option<&'static dialect::Edits> {
    dialect::by_name(o.origin.dialect).and_then(|i| dialect::REGISTRY.get(i)).and_then(|d| d.edits())
}

/// Where an object's whole value is written: its span, or (a dialect whose
/// spans start at a key) the mapping that holds that key.
fn value_span(text: &str, o: &Object, span: Span) -> Result<Span, edit::Unsupported> {
    match edits_of(o) {
        Some(e) if e.span_at_key => Ok(Span::new(span.file, edit::holder_of_key(text, span.start)?)),
        _ => Ok(span),
    }
}

/// One file's edits, made and read back.
fn change(
    file: &SourceFile,
    work: &[Work],
    objects: &[Object],
    fate: &[Fate],
    options: &LoadOptions,
) -> Result<Change, ApplyError> {
    let text: &str = &file.text;
    let line = |at: usize| file.line_index(at) + 1;
    let refuse = |at: usize, what: String| ApplyError::Unappliable { file: file.name.clone(), line: line(at), what };
    let mut ops = Vec::new();
    let (mut removed, mut orphaned, mut unordered, mut marked) = (0, 0, 0, 0);
    let mut removed_spans: Vec<Span> = Vec::new();
    for w in work {
        if w.decl.is_none() && *w.id.of(fate)? == Fate::Removed {
            removed_spans.push(w.span);
        }
    }
    let cover = Cover::new(removed_spans.iter().map(Span::range));
    let inside_removed = |s: &Span| cover.holds(s.range());
    // An edit is made, and counted, once however often the plan names it.
    let mut done: HashSet<(usize, usize, Option<Entry>)> = HashSet::with_capacity(work.len());
    for &Work { id, span, decl, .. } in work {
        if !done.insert((span.start, span.end, decl)) {
            continue;
        }
        let o = id.of(objects)?;
        let Some(how) = edits_of(o) else {
            return Err(refuse(
                span.start,
                format!(
                    "{} is read by the {} dialect, whose input apply does not edit",
                    o.reference(),
                    o.origin.dialect
                ),
            ));
        };
        match (decl, *id.of(fate)?) {
            (Some(Entry::Owner(index)), _) => {
                let Some(path) = how.owners else {
                    return Err(refuse(span.start, format!("{} cannot be orphaned in place", o.reference())));
                };
                ops.push(Op::RemoveEntry { span: span.range(), path, index: index as usize });
                orphaned += 1;
            }
            (Some(Entry::After(index)), _) => {
                let Some(path) = how.after else {
                    return Err(refuse(span.start, format!("{} cannot lose a dependency in place", o.reference())));
                };
                ops.push(Op::RemoveEntry { span: span.range(), path, index: index as usize });
                unordered += 1;
            }
            (None, Fate::Removed) if inside_removed(&span) => {}
            (None, Fate::Removed) => {
                ops.push(Op::Remove { span: span.range() });
                removed += 1;
            }
            (None, Fate::Marked) => {
                let Some((path, key)) = how.destroyed else {
                    return Err(refuse(span.start, format!("{} cannot be kept marked destroyed", o.reference())));
                };
                if !inside_removed(&span) {
                    ops.push(Op::SetTrue { span: span.range(), path, key });
                    marked += 1;
                }
            }
            (None, Fate::Stays) => {}
        }
    }
    let edits = edit::edits(text, &ops).map_err(|u| refuse(u.at, format!("{} at this line", u.what)))?;
    let after = edit::apply(text, &edits);
    check(file, &after, &edits, work, fate, options)?;
    let empty = after.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    });
    Ok(Change {
        path: file.name.clone(),
        before: text.to_string(),
        after: (!empty).then_some(after),
        removed,
        orphaned,
        unordered,
        marked,
        bom: file.bom,
    })
}

/// Read the new text back, alone and as the old text read alone: every
/// object that stays is there, in order; one no edit touched is byte for
/// byte what it was; an orphaned one lost exactly its owner reference; a
/// marked one is marked; no new problem appeared.
fn check(
    file: &SourceFile,
    after: &str,
    edits: &[edit::Edit],
    work: &[Work],
    fate: &[Fate],
    options: &LoadOptions,
) -> Result<(), ApplyError> {
    let alone = |text: &str| {
        let one = SourceFile::new(file.name.clone(), None, file.format, text.to_string());
        load::load_sources(Sources { files: vec![std::sync::Arc::new(one)] }, options)
    };
    let old = alone(&file.text);
    let new = alone(after);
    let broken = |what: String| ApplyError::Unappliable { file: file.name.clone(), line: 1, what };
    // Every error counts, those listed and those only counted past the cap.
    let problems = |s: &Snapshot| {
        let error = crate::findings::Severity::Error;
        s.findings.iter().filter(|f| f.severity == error).count() + s.omitted.count_of(|u| u.severity == error)
    };
    if problems(&new) > problems(&old) {
        return Err(broken("the edited file no longer reads cleanly (a teardown bug: please report it)".into()));
    }
    let expected = staying(&old, work, fate)?;
    if expected.len() != new.objects.len() {
        return Err(broken(format!(
            "reading the result back gives {} objects where {} should stay (a teardown bug: please report it)",
            new.objects.len(),
            expected.len()
        )));
    }
    let read = ReadBack { file, after, edits, strips: &stripped(work), fate };
    for ((o, plan), n) in expected.iter().zip(&new.objects) {
        read.object(o, *plan, n)?;
    }
    Ok(())
}

/// What the plan does to an object: removes or marks it (no entry), or
/// takes the entry out of it.
type Planned = (ObjId, Option<Entry>);

/// The objects of the file read alone that stay, in order, each with what
/// the plan does to it, found by place.
fn staying<'s>(
    old: &'s Snapshot,
    work: &[Work],
    fate: &[Fate],
) -> Result<Vec<(&'s Object, Option<Planned>)>, ApplyError> {
    let planned: HashMap<usize, Planned> = work.iter().map(|w| (w.start, (w.id, w.decl))).collect();
    let mut removed = Vec::new();
    for w in work {
        if w.decl.is_none() && *w.id.of(fate)? == Fate::Removed {
            removed.push(w.span.range());
        }
    }
    let removed = Cover::new(removed.into_iter());
    Ok(old
        .objects
        .iter()
        .filter(|o| !removed.holds(o.span.start..o.span.start))
        .map(|o| (o, planned.get(&o.span.start).copied()))
        .collect())
}

/// The owner references and the dependencies each object that stays
/// loses, by where it starts, last first.
fn stripped(work: &[Work]) -> HashMap<usize, (Vec<usize>, Vec<usize>)> {
    let mut strips: HashMap<usize, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for w in work {
        match w.decl {
            Some(Entry::Owner(d)) => strips.entry(w.start).or_default().0.push(d as usize),
            Some(Entry::After(d)) => strips.entry(w.start).or_default().1.push(d as usize),
            None => {}
        }
    }
    for (owners, after) in strips.values_mut() {
        for ds in [owners, after] {
            ds.sort_unstable_by(|a, b| b.cmp(a));
            ds.dedup();
        }
    }
    strips
}

/// A file's new text read back against its old one.
struct ReadBack<'a> {
    file: &'a SourceFile,
    after: &'a str,
    edits: &'a [edit::Edit],
    strips: &'a HashMap<usize, (Vec<usize>, Vec<usize>)>,
    fate: &'a [Fate],
}

impl ReadBack<'_> {
    /// `o` of the old text, read again as `n`: the same object, its text
    /// unchanged unless an edit touched it, with the references and the
    /// mark the plan leaves it.
    fn object(&self, o: &Object, plan: Option<Planned>, n: &Object) -> Result<(), ApplyError> {
        let (text, after) = (&*self.file.text, self.after);
        let reference = o.reference();
        let wrong = |what: &str| ApplyError::Unappliable {
            file: self.file.name.clone(),
            line: 1,
            what: format!("{reference}: {what} after the edit (a teardown bug: please report it)"),
        };
        if n.reference() != reference {
            return Err(wrong("another object is read in its place"));
        }
        let (Ok(was), Ok(is)) = (value_span(text, o, o.span), value_span(after, n, n.span)) else {
            return Err(wrong("its place cannot be found"));
        };
        // Edits are sorted and apart: the first that ends after `was` starts.
        let first = self.edits.partition_point(|e| e.range.end.max(e.range.start + 1) <= was.start);
        let touched = self.edits.get(first).is_some_and(|e| e.range.start < was.end);
        if !touched {
            let (Some(then), Some(now)) = (text.get(was.range()), after.get(is.range())) else {
                return Err(wrong("its place cannot be found"));
            };
            if then != now {
                return Err(wrong("its text changed"));
            }
        }
        let mut owners = o.owners.to_vec();
        let mut deps: Vec<&str> = o.deps.iter().map(|d| &*d.text).collect();
        if let Some((from_owners, from_deps)) = self.strips.get(&o.span.start) {
            // Sorted from the last entry down: each index stays right.
            for &d in from_owners {
                if d < owners.len() {
                    owners.remove(d);
                }
            }
            for &d in from_deps {
                if d < deps.len() {
                    deps.remove(d);
                }
            }
            if !only_entries_gone(text, after, o, n, from_owners, from_deps) {
                return Err(wrong("more than the references it loses changed"));
            }
        }
        if owners[..] != n.owners[..] {
            return Err(wrong("its owner references are not the ones expected"));
        }
        if !deps.iter().copied().eq(n.deps.iter().map(|d| &*d.text)) {
            return Err(wrong("its dependencies are not the ones expected"));
        }
        let is_marked = match plan {
            Some((id, None)) => *id.of(self.fate)? == Fate::Marked,
            _ => false,
        };
        let was = o.member.as_deref().is_some_and(|m| m.destroyed);
        let now = n.member.as_deref().is_some_and(|m| m.destroyed);
        if now != (was || is_marked) {
            return Err(wrong("its destroyed mark is not the one expected"));
        }
        Ok(())
    }
}

/// `o`'s value in `text` without the owner references and dependencies
/// (indexes, last first) it loses is `n`'s in `after`.
fn only_entries_gone(text: &str, after: &str, o: &Object, n: &Object, owners: &[usize], deps: &[usize]) -> bool {
    let how = edits_of(o);
    let mut expect = Node::at(text, o.span.range());
    // An item of a list is read as a list of that one item.
    let item = match expect.as_mut() {
        Some(Node::Seq(items)) if items.len() == 1 => items.first_mut(),
        node => node,
    };
    if let Some(node) = item {
        for (path, ds) in [(how.and_then(|e| e.owners), owners), (how.and_then(|e| e.after), deps)] {
            if !ds.is_empty() {
                node.remove_entries(path.unwrap_or_default(), ds);
            }
        }
    }
    expect == Node::at(after, n.span.range())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan file made by hand for one file, `text`, deleting the objects
    /// at `deleted` (indices of its objects), each listed `times` times.
    fn prepared(text: &str, deleted: &[usize], times: usize) -> Result<Vec<Change>, ApplyError> {
        let one = SourceFile::new("f.yaml".into(), None, crate::input::Format::Yaml, text.to_string());
        let options = LoadOptions::default();
        let snapshot = load::load_sources(Sources { files: vec![std::sync::Arc::new(one)] }, &options);
        let resources: Vec<serde_json::Value> = deleted
            .iter()
            .flat_map(|&i| {
                let o = &snapshot.objects[i];
                let r = serde_json::json!({
                    "ref": o.reference(), "file": "f.yaml", "line": 1,
                    "offset": o.span.start, "length": o.span.len(),
                });
                std::iter::repeat_n(r, times)
            })
            .collect();
        let plan = serde_json::json!({
            "schemaVersion": 1, "mode": "delete", "steps": [{"resources": resources}],
            "inputs": [{"path": "f.yaml", "sha256": snapshot.sources.get(FileId(0)).sha256()}],
        });
        let plan: PlanFile =
            serde_json::from_value(plan).map_err(|e| ApplyError::NotAPlan { path: "-".into(), why: e.to_string() })?;
        prepare(&plan, &snapshot, &options)
    }

    /// An object the plan names many times is removed, and counted, once
    /// (was: counted each time: "1001 objects removed").
    #[test]
    fn an_edit_named_twice_is_made_and_counted_once() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x}\n";
        let changes = prepared(text, &[0], 1000).expect("applies");
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].removed, 1);
        assert_eq!(
            changes[0].after.as_deref(),
            Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x}\n")
        );
    }
}
