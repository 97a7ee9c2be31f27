//! A plan at a glance: what it destroys for good, its summary, the short
//! reasons of the table, and the Markdown view for pull requests. The data
//! is the plan's ([`crate::plan::summary`], [`crate::analysis::data_loss`]);
//! this module only words and lays it out.

use super::count;
use crate::analysis::data_loss::{Loss, Via, What};
use crate::plan::reasons::{Names, Reason};
use crate::plan::reference::{self, Ref};
use crate::plan::summary::Summary;
use crate::plan::Plan;
use serde::Serialize;

/// What one loss takes, in words (after the object's reference).
pub fn loss_message(loss: &Loss, names: &Names) -> String {
    let size = |capacity: Option<&str>, class: Option<&str>| {
        let mut s = match capacity {
            Some(c) => format!("{c} volume"),
            None => String::from("volume"),
        };
        if let Some(class) = class {
            s.push_str(&format!(" of class {class}"));
        }
        s
    };
    match &loss.what {
        What::Volume { capacity, storage_class, via } => {
            let volume = size(capacity.as_deref(), storage_class.as_deref());
            let how = match via {
                Via::Direct => String::from("deleted, and its storage with it"),
                Via::Claim { claim, set: None } => {
                    format!("its storage is deleted once its claim {} is", names.of(*claim))
                }
                Via::Claim { claim, set: Some(set) } => format!(
                    "its storage is deleted once its claim {} is, which {} deletes (persistentVolumeClaimRetentionPolicy.whenDeleted: Delete)",
                    names.of(*claim),
                    names.of(*set)
                ),
                Via::Released => String::from("its claim is gone: the volume controller deletes its storage"),
            };
            format!("{volume}, reclaim policy Delete: {how}")
        }
        What::RecycledVolume { capacity, storage_class, claim, deleted } => format!(
            "{}, reclaim policy Recycle: once its claim {} is deleted, the volume controller's recycler deletes every file on it; {}",
            size(capacity.as_deref(), storage_class.as_deref()),
            names.of(*claim),
            match deleted {
                true => "the plan then deletes the volume, which its policy does not free: the storage stays, possibly emptied",
                false => "the volume stays, empty",
            }
        ),
        What::ClaimOfUnknownVolume { volume, capacity, storage_class } => format!(
            "claim of a {} bound to PersistentVolume/{volume}, which the snapshot lacks: its reclaim policy cannot be told (a dynamically provisioned volume's is its StorageClass's, Delete unless it says otherwise)",
            size(capacity.as_deref(), storage_class.as_deref())
        ),
        What::CustomResources { group, kind, in_snapshot } => format!(
            "every {kind}.{group} in the cluster goes with it ({} in the snapshot, and any it lacks)",
            in_snapshot
        ),
        What::Namespace { in_snapshot } => format!(
            "everything in it goes with it ({} in the snapshot, and any it lacks)",
            count(*in_snapshot as usize, "object", "objects")
        ),
        What::Secret { secret_type } => {
            let kind = match secret_type {
                Some(t) => format!("a Secret of type {t}"),
                None => String::from("a Secret"),
            };
            format!("{kind} nothing in the snapshot recreates: no owner, no controller, no tool manages it")
        }
    }
}

/// The error line of `--fail-on data-loss` when the plan destroys
/// something for good.
pub fn data_loss_refusal(losses: &[Loss]) -> String {
    let line = format!("the plan destroys {} for good (--fail-on data-loss)", losses_short(losses));
    format!("teardown: error: {}\n", crate::escape::escape(&line))
}

/// What the plan destroys for good, in a few words: `1 volume (40Gi), 1 Namespace`.
pub fn losses_short(losses: &[Loss]) -> String {
    let mut kinds: Vec<(&'static str, &'static str, usize, Vec<&str>)> = vec![
        ("volume", "volumes", 0, Vec::new()),
        ("recycled volume", "recycled volumes", 0, Vec::new()),
        ("claim of an unknown volume", "claims of unknown volumes", 0, Vec::new()),
        ("CustomResourceDefinition", "CustomResourceDefinitions", 0, Vec::new()),
        ("Namespace", "Namespaces", 0, Vec::new()),
        ("Secret", "Secrets", 0, Vec::new()),
    ];
    for l in losses {
        let i = match l.what {
            What::Volume { .. } => 0,
            What::RecycledVolume { .. } => 1,
            What::ClaimOfUnknownVolume { .. } => 2,
            What::CustomResources { .. } => 3,
            What::Namespace { .. } => 4,
            What::Secret { .. } => 5,
        };
        if let Some(k) = kinds.get_mut(i) {
            k.2 += 1;
            k.3.extend(l.what.capacity());
        }
    }
    let parts: Vec<String> = kinds
        .iter()
        .filter(|k| k.2 > 0)
        .map(|(one, many, n, sizes)| match sizes.is_empty() {
            true => count(*n, one, many),
            false => format!("{} ({})", count(*n, one, many), sizes.join(", ")),
        })
        .collect();
    match parts.is_empty() {
        true => String::from("nothing"),
        false => parts.join(", "),
    }
}

/// The table's reason of a deleted object: its first reason (why it is
/// deleted), then only what the table does not already show: the
/// finalizers it waits for and the orderings its input declares. The
/// default rules' orderings are left out (the steps show them); `-o wide`
/// and `explain` give the full chain.
pub fn short_reason(reasons: &[Reason], names: &Names) -> String {
    let mut out = String::new();
    for (i, r) in reasons.iter().enumerate() {
        let shown = i == 0
            || matches!(
                r,
                Reason::WaitsFor { .. }
                    | Reason::DependsOn(_)
                    | Reason::DestroyedAfter(_)
                    | Reason::Tool { .. }
                    | Reason::MutatesFrom(_)
                    | Reason::Notifies(_)
                    | Reason::SubscribedTo(_)
            );
        if shown {
            if !out.is_empty() {
                out.push_str("; ");
            }
            r.write(names, &mut out);
        }
    }
    out
}

/// The section after the table: what the plan destroys for good, one a line.
pub fn data_loss_table(plan: &Plan) -> String {
    let names = plan.names();
    let rows: Vec<[String; 2]> =
        plan.data_loss.iter().map(|l| [names.of(l.object).to_string(), loss_message(l, &names)]).collect();
    super::columns::table(["DESTROYED FOR GOOD (! above)", "WHAT GOES"], &rows)
}

/// A plan of more objects than this gets its counts by kind and by step
/// in the summary on stderr: fewer, the table is taken in at a glance.
pub const GLANCE_AT: usize = 20;

/// The summary's lines after the one-line count (stderr): by kind and by
/// step for a plan of more than [`GLANCE_AT`] objects, and what is
/// destroyed for good, if anything.
pub fn summary_lines(summary: &Summary, plan: &Plan) -> Vec<String> {
    let mut lines = Vec::new();
    if summary.delete > GLANCE_AT {
        lines.extend(counts_lines(summary));
    }
    if !plan.data_loss.is_empty() {
        lines.push(format!("destroyed for good: {}", losses_short(&plan.data_loss)));
    }
    lines
}

/// `by kind: …` and `by step: …`.
fn counts_lines(summary: &Summary) -> [String; 2] {
    let kinds: Vec<String> = summary.by_kind.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let steps: Vec<String> = summary.by_step.iter().enumerate().map(|(i, n)| format!("{}: {n}", i + 1)).collect();
    [format!("by kind: {}", kinds.join(", ")), format!("by step: {}", steps.join(", "))]
}

/// The plan's summary in JSON and YAML.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryOut<'a> {
    delete: usize,
    orphan: usize,
    keep: usize,
    steps: usize,
    by_step: Vec<usize>,
    by_kind: Vec<KindCount<'a>>,
    data_loss: Vec<LossOut<'a>>,
    warnings: usize,
    notes: usize,
}

#[derive(Serialize)]
pub struct KindCount<'a> {
    kind: &'a str,
    count: usize,
}

/// One loss, typed, in JSON and YAML: in the summary with its `ref`, on
/// its resource without.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LossOut<'a> {
    #[serde(flatten)]
    pub object: Option<Ref<&'a str>>,
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class: Option<&'a str>,
    /// A volume: the claim whose deletion takes it…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<&'a str>,
    /// …and the StatefulSet whose retention policy takes that claim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stateful_set: Option<&'a str>,
    /// A claim of a volume the snapshot lacks: that volume's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume: Option<&'a str>,
    /// A CRD: the kind it defines (`Kind.group`); a CRD or a Namespace:
    /// how many objects of the snapshot go with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defines: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_snapshot: Option<u32>,
    /// A Secret: its type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret_type: Option<&'a str>,
    pub message: String,
}

pub fn loss_out<'a>(loss: &'a Loss, names: &Names<'a>, with_ref: bool) -> LossOut<'a> {
    let mut out = LossOut {
        object: with_ref.then(|| names.at(loss.object)),
        kind: loss.what.id(),
        capacity: loss.what.capacity(),
        storage_class: loss.what.storage_class(),
        claim: None,
        stateful_set: None,
        volume: None,
        defines: None,
        in_snapshot: None,
        secret_type: None,
        message: loss_message(loss, names),
    };
    match &loss.what {
        What::Volume { via: Via::Claim { claim, set }, .. } => {
            out.claim = Some(names.of(*claim));
            out.stateful_set = set.map(|s| names.of(s));
        }
        What::RecycledVolume { claim, .. } => out.claim = Some(names.of(*claim)),
        What::ClaimOfUnknownVolume { volume, .. } => out.volume = Some(volume),
        What::CustomResources { group, kind, in_snapshot } => {
            out.defines = Some(format!("{kind}.{group}"));
            out.in_snapshot = Some(*in_snapshot);
        }
        What::Namespace { in_snapshot } => out.in_snapshot = Some(*in_snapshot),
        What::Secret { secret_type } => out.secret_type = secret_type.as_deref(),
        What::Volume { .. } => {}
    }
    out
}

pub fn summary_out<'a>(summary: &'a Summary, plan: &'a Plan, names: &Names<'a>) -> SummaryOut<'a> {
    SummaryOut {
        delete: summary.delete,
        orphan: summary.orphan,
        keep: summary.keep,
        steps: summary.by_step.len(),
        by_step: summary.by_step.clone(),
        by_kind: summary.by_kind.iter().map(|(k, n)| KindCount { kind: k, count: *n }).collect(),
        data_loss: plan.data_loss.iter().map(|l| loss_out(l, names, true)).collect(),
        warnings: summary.warnings,
        notes: summary.notes,
    }
}

/// A loss as its `Serialize` writes it with serde_json's pretty layout,
/// `depth` levels in (the plan's resources are written without serde).
pub fn write_loss(buf: &mut Vec<u8>, depth: usize, l: &LossOut) {
    let mut o = super::json::Object::begin(buf, depth);
    o.opt_str(buf, reference::KEY, l.object.map(|x| x.reference));
    o.str(buf, "type", l.kind);
    o.opt_str(buf, "capacity", l.capacity);
    o.opt_str(buf, "storageClass", l.storage_class);
    o.opt_str(buf, "claim", l.claim);
    o.opt_str(buf, "statefulSet", l.stateful_set);
    o.opt_str(buf, "volume", l.volume);
    o.opt_str(buf, "defines", l.defines.as_deref());
    if let Some(n) = l.in_snapshot {
        o.num(buf, "inSnapshot", n.into());
    }
    o.opt_str(buf, "secretType", l.secret_type);
    o.str(buf, "message", &l.message);
    o.end(buf);
}

/// The summary of a plan made from `snapshot`.
pub fn summary_of(snapshot: &crate::load::Snapshot, plan: &Plan) -> Summary {
    // The notes the plan carries (those `--ignore` leaves), each line of
    // notes not listed for the number it stands for.
    let unlisted = snapshot.omitted.by_rule();
    let notes = plan
        .warnings
        .iter()
        .filter(|w| w.is_note())
        .map(|w| match w {
            crate::plan::Warning::Input { rule, file, line: 0, .. } if file.is_empty() => {
                unlisted.iter().find(|(r, _)| r == rule).map_or(1, |(_, n)| *n)
            }
            _ => 1,
        })
        .sum();
    crate::plan::summary::of(plan, &snapshot.objects, notes)
}

/// GitHub refuses a comment longer than 65536 characters; the steps are
/// cut to stay under this, with a count of what is left out.
const MARKDOWN_BUDGET: usize = 60_000;

/// Text for a Markdown table cell or line: control characters escaped (as
/// everywhere), Markdown's and HTML's special characters made literal, so
/// that a name from the input cannot shape the comment.
pub fn md(s: &str) -> String {
    let s = crate::escape::escape(s);
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '#' | '~' | '!' | '$' | '@' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `plan -o markdown`: for a pull-request comment or a job summary. The
/// summary first, then what the plan destroys for good, then the steps
/// (and warnings) in collapsed sections, cut with a count to fit GitHub's
/// limit.
pub fn markdown(snapshot: &crate::load::Snapshot, plan: &Plan, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let names = plan.names();
    let summary = summary_of(snapshot, plan);
    let mut s = String::new();
    let steps = count(summary.by_step.len(), "step", "steps");
    s.push_str(&format!(
        "### teardown plan: {} to delete, {} to orphan, {} to keep, in {steps}\n\n",
        summary.delete, summary.orphan, summary.keep
    ));
    let lost = plan.data_loss.len();
    match lost {
        0 => s.push_str("**Destroyed for good:** nothing.\n\n"),
        _ => s.push_str(&format!("**Destroyed for good:** {}.\n\n", md(&losses_short(&plan.data_loss)))),
    }
    if summary.delete > 0 {
        for l in counts_lines(&summary) {
            s.push_str(&format!("- {}\n", md(&l)));
        }
    }
    s.push_str(&format!(
        "- {}, {}\n\n",
        count(summary.warnings, "warning", "warnings"),
        count(summary.notes, "note", "notes")
    ));
    if lost > 0 {
        s.push_str("#### Destroyed for good\n\n| object | what goes |\n|---|---|\n");
        let mut shown = 0;
        for l in &plan.data_loss {
            let row = format!("| {} | {} |\n", md(names.of(l.object)), md(&loss_message(l, &names)));
            if s.len() + row.len() > MARKDOWN_BUDGET / 2 {
                break;
            }
            s.push_str(&row);
            shown += 1;
        }
        if shown < lost {
            s.push_str(&format!("\n… and {} more not shown.\n", lost - shown));
        }
        s.push('\n');
    }
    s.push_str(&format!(
        "<details><summary>Steps ({})</summary>\n\n| step | action | object | reason |\n|---|---|---|---|\n",
        count(summary.delete, "object", "objects")
    ));
    let mut shown = 0;
    let budget = MARKDOWN_BUDGET.saturating_sub(warnings_len(plan).min(MARKDOWN_BUDGET / 4));
    'steps: for (i, ids) in plan.steps.iter().enumerate() {
        for &id in ids {
            let action = if plan.loss_of(id).is_some() { "delete!" } else { "delete" };
            let reason = short_reason(plan.reasons.of(id), &names);
            let row = format!("| {} | {action} | {} | {} |\n", i + 1, md(names.of(id)), md(&reason));
            if s.len() + row.len() > budget {
                break 'steps;
            }
            s.push_str(&row);
            shown += 1;
        }
    }
    if shown < summary.delete {
        s.push_str(&format!(
            "\n… and {} not shown (GitHub's comment limit); `teardown plan` lists them all.\n",
            count(summary.delete - shown, "more object", "more objects")
        ));
    }
    s.push_str("\n</details>\n");
    if !plan.warnings.is_empty() {
        let listed = plan.warnings.iter().filter(|w| !w.is_note()).count();
        let title = match plan.warnings.len() - listed {
            0 => format!("Warnings ({listed})"),
            notes => format!("Warnings ({listed}) and notes ({notes})"),
        };
        s.push_str(&format!("\n<details><summary>{title}</summary>\n\n"));
        let mut left = MARKDOWN_BUDGET / 4;
        for (i, w) in plan.warnings.iter().enumerate() {
            let line = format!("- {}: {}\n", w.head(), md(&w.message(&names)));
            if line.len() > left {
                s.push_str(&format!("- … and {} more\n", plan.warnings.len() - i));
                break;
            }
            left -= line.len();
            s.push_str(&line);
        }
        s.push_str("\n</details>\n");
    }
    out.write_all(s.as_bytes())
}

/// About how long the warnings' section is (for the steps' budget).
fn warnings_len(plan: &Plan) -> usize {
    let names = plan.names();
    plan.warnings.iter().map(|w| w.message(&names).len() + 24).sum()
}

/// `check -o markdown`: for a pull-request comment or a job summary. The
/// counts, then one row per finding (cut with a count to fit GitHub's
/// limit).
pub fn check_markdown(
    sources: &crate::input::Sources,
    findings: &[crate::findings::Finding],
    omitted: &crate::findings::Omitted,
    counts: &crate::analysis::check::Counts,
) -> String {
    let mut s = format!(
        "### teardown check: {}, {}, {}\n\n",
        count(counts.errors, "error", "errors"),
        count(counts.warnings, "warning", "warnings"),
        count(counts.notes, "note", "notes")
    );
    s.push_str(&format!(
        "{} read: {}, {}.\n\n",
        count(counts.files, "file", "files"),
        count(counts.objects, "object", "objects"),
        count(counts.edges, "edge", "edges")
    ));
    if findings.is_empty() {
        s.push_str("No findings.\n");
        return s;
    }
    s.push_str("| severity | rule | where | message |\n|---|---|---|---|\n");
    let mut shown = 0;
    for f in findings {
        let place = match (&f.primary, &f.file) {
            (Some(p), _) => {
                let file = sources.get(p.span.file);
                let at = file.line_col(p.span.start);
                format!("{}:{}:{}", file.name, at.line, at.column)
            }
            (None, Some(file)) => file.to_string(),
            (None, None) => String::new(),
        };
        let row = format!(
            "| {} | {} {} | {} | {} |\n",
            f.severity.as_str(),
            f.rule.id(),
            f.rule.name(),
            md(&place),
            md(&f.message)
        );
        if s.len() + row.len() > MARKDOWN_BUDGET {
            break;
        }
        s.push_str(&row);
        shown += 1;
    }
    if shown < findings.len() {
        s.push_str(&format!(
            "\n… and {} not shown (GitHub's comment limit); `teardown check` lists them all.\n",
            count(findings.len() - shown, "more finding", "more findings")
        ));
    }
    for line in omitted.lines() {
        s.push_str(&format!("\n{}\n", md(&line)));
    }
    s
}
