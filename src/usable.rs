//! Input a command can use: loaded, and refused (exit 2) when it cannot
//! be read or used, holds nothing, or gives one object twice (exit 1).
//! What loading found is said on stderr as the finding controls let it.

use crate::analysis::check as checks;
use crate::error::Error;
use crate::findings::{Finding, Omitted, Rule, RuleSet};
use crate::input::Limits;
use crate::load::{self, LoadOptions, Snapshot};
use crate::plan::PlanError;
use crate::render::diagnostics::Style;
use std::io::Read;
use std::path::PathBuf;

/// What loading needs to know.
pub struct Loading<'a> {
    pub dialect: Option<String>,
    /// `--skip-invalid`: go on without documents that cannot be used.
    pub skip_invalid: bool,
    /// What is not made when input cannot be used: "plan", "graph".
    pub what: &'static str,
    /// Plan files record each input's sha256.
    pub digests: bool,
    /// The command's own result carries what loading found (a plan's
    /// warnings do): it is said on stderr only when it stops the command.
    pub carried: bool,
    pub style: Style,
    pub progress: bool,
    pub paths: &'a [PathBuf],
    /// The rules whose findings are said (`--select`, `--ignore`).
    pub rules: RuleSet,
    /// `-q`: say only what stops the command.
    pub quiet: bool,
    /// `--max-file-size`, `--max-object-size`.
    pub limits: Limits,
    /// Reads the inputs instead of `load::load` (`apply`).
    pub read: Option<Reader<'a>>,
    /// The inputs may hold no object at all (`--prune NEW`, `reconcile
    /// --desired`); the snapshot a command reads may not (exit 2).
    pub may_be_empty: bool,
}

impl<'a> Loading<'a> {
    /// Reading for a command whose output records no digests and carries
    /// nothing of what loading found (`graph`, `simulate`).
    pub fn plain(
        dialect: Option<String>,
        skip_invalid: bool,
        what: &'static str,
        style: Style,
        progress: bool,
        paths: &'a [PathBuf],
    ) -> Loading<'a> {
        Loading {
            dialect,
            skip_invalid,
            what,
            digests: false,
            carried: false,
            style,
            progress,
            paths,
            rules: RuleSet::ALL,
            quiet: false,
            limits: Limits::default(),
            read: None,
            may_be_empty: false,
        }
    }

    /// Reading within these limits.
    pub fn limited(self, limits: Limits) -> Loading<'a> {
        Loading { limits, ..self }
    }

    /// Reading for a plan, whose result carries what loading found:
    /// recording each input's digest when `digests`, read by `read` when
    /// given (`apply`).
    pub fn carrying(self, digests: bool, read: Option<Reader<'a>>) -> Loading<'a> {
        Loading { digests, carried: true, read, ..self }
    }

    /// Reading inputs that may hold no object at all.
    pub fn may_be_empty(self) -> Loading<'a> {
        Loading { may_be_empty: true, ..self }
    }

    /// What is said, as the finding controls and `-q` say.
    pub fn saying(self, rules: RuleSet, quiet: bool) -> Loading<'a> {
        Loading { rules, quiet, ..self }
    }
}

/// Load input that a plan or graph can use. What loading found goes to
/// stderr; an input that cannot be read stops the command (exit 2), and so
/// does a document that cannot be parsed or used (TD001) — a plan or graph
/// without it would be wrong — unless `--skip-invalid` says to go on without
/// it (its finding is then a warning).
pub fn load_usable(how: &Loading, stdin: &mut dyn Read, stderr: &mut Vec<u8>) -> Result<Snapshot, Error> {
    let options = LoadOptions {
        dialect: how.dialect.clone(),
        progress: how.progress,
        digests: how.digests,
        limits: how.limits.clone(),
    };
    let snapshot = match how.read {
        Some(read) => read(how.paths, &options),
        None => load::load(how.paths, &options, stdin),
    };
    let (findings, omitted) = (&snapshot.findings, &snapshot.omitted);
    let empty = !how.may_be_empty && snapshot.holds_nothing();
    if findings.is_empty() && !empty {
        return Ok(snapshot);
    }
    // (The findings not listed count too.)
    let unreadable = findings.iter().filter(|f| f.rule == Rule::Td001 && f.primary.is_none()).count()
        + omitted.count_of(|u| u.rule == Rule::Td001 && !u.located);
    let invalid = findings.iter().filter(|f| f.rule == Rule::Td001).count()
        + omitted.count_of(|u| u.rule == Rule::Td001)
        - unreadable;
    let stop = if unreadable > 0 {
        Some(Error::Unreadable { what: how.what, inputs: unreadable })
    } else if invalid > 0 && !how.skip_invalid {
        Some(Error::Unusable { what: how.what, findings: invalid })
    } else if empty {
        Some(empty_input(how.what, how.paths))
    } else {
        None
    };
    // What stops the command is always said; the rest as --select,
    // --ignore and -q let it be.
    let says = |rule: Rule, fatal: bool| match &stop {
        Some(_) if rule == Rule::Td001 => true,
        _ => !how.quiet && (fatal || how.rules.contains(rule)) && (stop.is_some() || !how.carried),
    };
    let said: Vec<Finding> = findings.iter().filter(|f| says(f.rule, f.fatal)).cloned().collect();
    let mut unsaid = omitted.clone();
    unsaid.retain(|u| says(u.rule, u.fatal));
    if !said.is_empty() {
        diagnostics(&snapshot, &said, &unsaid, how.style, stderr);
    }
    match stop {
        Some(e) => Err(e),
        None => Ok(snapshot),
    }
}

/// The error of a snapshot that holds nothing (CONTRACT §6: empty input is
/// an error, so that an empty dump never passes), naming the inputs.
pub fn empty_input(what: &'static str, paths: &[PathBuf]) -> Error {
    Error::EmptyInput { what, inputs: paths.iter().map(|p| p.display().to_string()).collect() }
}

/// Findings as diagnostics on stderr, without `check`'s summary line.
pub fn diagnostics(snapshot: &Snapshot, findings: &[Finding], omitted: &Omitted, style: Style, out: &mut Vec<u8>) {
    let text = crate::render::diagnostics::render(&snapshot.sources, findings, omitted, None, style);
    out.extend_from_slice(text.as_bytes());
}

/// Two different documents that give one object (TD002) stop a simulation
/// or a reconciliation (and `plan --all`, `--gc`): which one is the
/// object? (Exit 1.) The same uid on objects of other coordinates does
/// not: an owner reference's coordinates decide, and the plan warns.
pub fn refuse_duplicates(
    snapshot: &Snapshot,
    what: &'static str,
    style: Style,
    stderr: &mut Vec<u8>,
) -> Result<(), Error> {
    let findings =
        blocking_duplicates(snapshot).iter().filter_map(|d| checks::duplicate_finding(snapshot, d)).collect();
    refuse_findings(snapshot, findings, what, style, stderr)
}

/// The duplicates that stop a command that needs to know which document
/// is the object: two documents at one identity, or one uid on objects
/// without coordinates (`plan` sets aside those that cannot change it:
/// `plan::duplicates`).
pub fn blocking_duplicates(snapshot: &Snapshot) -> Vec<crate::model::resolve::Duplicate> {
    let objects = &snapshot.objects;
    let blocks =
        |d: &&crate::model::resolve::Duplicate| !d.by_uid || d.first.of(objects).is_ok_and(|o| !o.has_coordinates());
    snapshot.resolved.duplicates.iter().filter(blocks).copied().collect()
}

/// TD002 findings that stop `what` (exit 1), said on stderr; none: go on.
pub fn refuse_findings(
    snapshot: &Snapshot,
    mut findings: Vec<Finding>,
    what: &'static str,
    style: Style,
    stderr: &mut Vec<u8>,
) -> Result<(), Error> {
    if findings.is_empty() {
        return Ok(());
    }
    let objects = findings.len();
    let mut omitted = Omitted::default();
    crate::findings::cap(&mut findings, &mut omitted, &mut []);
    diagnostics(snapshot, &findings, &omitted, style, stderr);
    Err(Error::Duplicates { what, objects })
}

/// A plan that depends on a document `--skip-invalid` left out is
/// refused (exit 2; `analysis::skipped`): an owner left out is not absent.
/// The TD001 findings of the documents it depends on are said on stderr
/// (a plan carries them, and there is none).
pub fn refuse_skipped(
    snapshot: &Snapshot,
    plan: &crate::plan::Plan,
    style: Style,
    stderr: &mut Vec<u8>,
) -> Result<(), Error> {
    // TD001 findings outside every document whose identity was kept: a
    // document left out that could not be named (its kind or name
    // unreadable, a syntax error, past --max-object-size).
    let named = |f: &&Finding| {
        f.primary.as_ref().is_some_and(|l| {
            snapshot
                .skipped
                .iter()
                .any(|s| s.span.file == l.span.file && s.span.range().contains(&l.span.range().start))
        })
    };
    let mut unnamed: Vec<Finding> =
        snapshot.findings.iter().filter(|f| f.rule == Rule::Td001).filter(|f| !named(f)).cloned().collect();
    // (TD001 also marks parts of documents that are read: an owner
    // reference without a uid. Those are no documents left out.)
    if !unnamed.is_empty() {
        let mut read: Vec<(u32, usize, usize)> =
            snapshot.objects.iter().map(|o| (o.span.file.0, o.span.range().start, o.span.range().end)).collect();
        read.sort_unstable();
        let inside = |f: &Finding| {
            f.primary.as_ref().is_some_and(|l| {
                let (file, at) = (l.span.file.0, l.span.range().start);
                let k = read.partition_point(|&(rf, rs, _)| (rf, rs) <= (file, at));
                k.checked_sub(1)
                    .and_then(|k| read.get(k))
                    .is_some_and(|&(rf, rs, re)| rf == file && rs <= at && at < re)
            })
        };
        unnamed.retain(|f| !inside(f));
    }
    if snapshot.skipped.is_empty() && unnamed.is_empty() {
        return Ok(());
    }
    let mut in_plan = vec![false; snapshot.objects.len()];
    let ids = plan.kept.iter().map(|(id, _)| *id).chain(plan.orphaned.iter().map(|(id, _)| *id));
    for id in ids.chain(plan.steps.iter().flatten().copied()) {
        if let Some(slot) = in_plan.get_mut(id.index()) {
            *slot = true;
        }
    }
    let in_plan = |id: crate::model::ObjId| plan.cascade.deleted(id) || in_plan.get(id.index()) == Some(&true);
    let deleted = |id| plan.cascade.deleted(id);
    let cascades = plan.cascade_mode != crate::analysis::cascade::CascadeMode::Orphan;
    let found = crate::analysis::skipped::depending(snapshot, &in_plan, &deleted, cascades);
    let Some(first) = found.first() else { return refuse_unnamed(snapshot, plan, &in_plan, &unnamed, style, stderr) };
    let Some(left_out) = snapshot.skipped.get(first.skipped) else { return Ok(()) };
    let span = left_out.span;
    let file = snapshot.sources.get(span.file);
    let place = format!("{}:{}", file.name, file.line_col(span.range().start).line);
    let of_it = |f: &&Finding| {
        f.rule == Rule::Td001
            && f.primary
                .as_ref()
                .is_some_and(|l| l.span.file == span.file && span.range().contains(&l.span.range().start))
    };
    let said: Vec<Finding> = snapshot.findings.iter().filter(of_it).cloned().collect();
    if !said.is_empty() {
        diagnostics(snapshot, &said, &Omitted::default(), style, stderr);
    }
    let name = |id: crate::model::ObjId| plan.refs.name(id).to_string();
    let via = match first.how {
        crate::analysis::skipped::How::Owner => None,
        crate::analysis::skipped::How::Reached { via } => Some(name(via)),
    };
    let mut objects: Vec<_> = found.iter().map(|d| d.object).collect();
    objects.sort_unstable();
    objects.dedup();
    Err(Error::Skipped {
        what: "plan",
        object: name(first.object),
        owner: left_out.reference.clone(),
        place,
        via,
        more: objects.len() - 1,
    })
}

/// With a document left out that could not be named (`unnamed`: its TD001
/// findings), a plan that decides the fate of an object whose owner is not
/// in the snapshot is refused: that owner may be the document.
fn refuse_unnamed(
    snapshot: &Snapshot,
    plan: &crate::plan::Plan,
    in_plan: &dyn Fn(crate::model::ObjId) -> bool,
    unnamed: &[Finding],
    style: Style,
    stderr: &mut Vec<u8>,
) -> Result<(), Error> {
    let Some(finding) = unnamed.first() else { return Ok(()) };
    let mut objects: Vec<_> = snapshot.resolved.missing_owners.iter().filter(|(id, _)| in_plan(*id)).collect();
    objects.sort_unstable();
    let Some(&&(id, j)) = objects.first() else { return Ok(()) };
    let Some(r) = snapshot.objects.get(id.index()).and_then(|o| o.owners.get(j as usize)) else { return Ok(()) };
    let place = match &finding.primary {
        Some(l) => {
            let file = snapshot.sources.get(l.span.file);
            format!("{}:{}", file.name, file.line_col(l.span.range().start).line)
        }
        None => String::from("its place unknown"),
    };
    diagnostics(snapshot, unnamed, &Omitted::default(), style, stderr);
    let group = if r.group.is_empty() { String::new() } else { format!(".{}", r.group) };
    let mut ids: Vec<_> = objects.iter().map(|(id, _)| *id).collect();
    ids.dedup();
    Err(Error::SkippedUnnamed {
        what: "plan",
        object: plan.refs.name(id).to_string(),
        owner: format!("{}{group}/{}", r.kind, r.name),
        place,
        more: ids.len() - 1,
    })
}

/// Reads a plan's inputs instead of `load::load` (`apply` reads them
/// through the directory it checked them in).
pub type Reader<'a> = &'a dyn Fn(&[PathBuf], &crate::load::LoadOptions) -> Snapshot;

/// An error with places in the input shows them, as the finding `check`
/// reports for it, before `main` says the error: an ownership cycle is the
/// TD007 finding with every owner reference of the cycle at its line.
pub fn say_places(snapshot: &Snapshot, error: &PlanError, style: Style, stderr: &mut Vec<u8>) {
    if let PlanError::OwnershipCycle { found: Some(cycle), .. } = error {
        if let Some(finding) = checks::cycle_finding(snapshot, cycle, Rule::Td007) {
            diagnostics(snapshot, &[finding], &Default::default(), style, stderr);
        }
    }
}
