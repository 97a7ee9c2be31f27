//! A reconciliation as a table (one line a sub-resource, then the state
//! changes and the text of the rules that fired), JSON or YAML.
//! Formatting only.

use super::columns;
use super::count;
use crate::analysis::reconcile::{
    Absence, Action, CustomResource, Desired, Ident, Mismatch, Problem, Reconciliation, Rule, Spec, StateChange,
    SubPattern, SubResource, SubState, RULES,
};
use crate::findings::Finding;
use crate::internal::Internal;
use crate::model::anchor;
use crate::model::lifecycle::{Observed, State};
use crate::model::snapshot::Snapshot;
use crate::plan::reference::Ref;
use serde::Serialize;
use std::io::{self, Write};

/// The *CR desired* cell of a rule, or a custom resource's desired state.
fn desired(d: Desired) -> &'static str {
    match d {
        Desired::State(s) => s.as_str(),
        Desired::Deleting => "Deleting",
        Desired::DoesNotExist => "Does not exist",
    }
}

fn sub_state(s: SubState) -> &'static str {
    match s {
        SubState::State(s) => s.as_str(),
        SubState::Deleting => "Deleting",
        SubState::DoesNotExist => "Does not exist",
        SubState::Unknown => "Unknown",
    }
}

/// What in the status told the state.
fn observed(o: Observed) -> &'static str {
    match o {
        Observed::NotRead => "",
        Observed::StatusState(_) => "status.state",
        Observed::NoStatus => "no status yet",
        Observed::PodPhase(State::Pending) | Observed::ClaimPhase(State::Pending) => "phase Pending",
        Observed::PodPhase(State::Running) => "phase Running",
        Observed::PodPhase(State::Completed) => "phase Succeeded",
        Observed::PodPhase(State::Failed) => "phase Failed",
        Observed::PodUnknown => "phase Unknown",
        Observed::ClaimPhase(State::Running) => "phase Bound",
        Observed::ClaimPhase(_) => "phase Lost",
        Observed::JobComplete => "condition Complete",
        Observed::JobFailed => "condition Failed",
        Observed::JobActive => "active Pods",
        Observed::JobWaiting => "no active Pod",
        Observed::Available => "Available",
        Observed::NotAvailable => "not Available",
        Observed::DeadlineExceeded => "progress deadline exceeded",
        Observed::ReplicaFailure => "ReplicaFailure",
        Observed::ReplicasReady => "replicas ready",
        Observed::ReplicasNotReady => "replicas not ready",
        Observed::Exists => "exists",
    }
}

/// An action as the table writes it.
fn action_text(a: Action) -> String {
    match a {
        Action::Nothing => "Do nothing.".into(),
        Action::DeleteSubResource => "Delete sub-resource.".into(),
        Action::UpdateSubResource => "Update sub-resource.".into(),
        Action::RecreateSubResource => "Recreate the sub-resource.".into(),
        Action::SetState(s) => format!("Set custom resource state to {}.", s.as_str().to_ascii_lowercase()),
    }
}

/// An action, short, for a table line and for scripts.
fn action_name(a: Action) -> &'static str {
    match a {
        Action::Nothing => "nothing",
        Action::DeleteSubResource => "delete",
        Action::UpdateSubResource => "update",
        Action::RecreateSubResource => "recreate",
        Action::SetState(_) => "set-state",
    }
}

/// The three condition cells of a rule, as the table writes them.
fn cells(r: &Rule) -> [String; 3] {
    let mut sub: Vec<&str> = Vec::new();
    match r.sub {
        SubPattern::Any => {}
        SubPattern::Is(s) => sub.push(s.as_str()),
        SubPattern::NonTerminal => sub.push("Non-terminal"),
        SubPattern::Deleting => sub.push("Deleting"),
        SubPattern::DoesNotExist => sub.push("Does not exist"),
    }
    match r.ephemeral {
        Some(true) => sub.push("Ephemeral"),
        Some(false) => sub.push("Non-ephemeral"),
        None => {}
    }
    match r.spec_matches {
        Some(true) => sub.push("Spec matches"),
        Some(false) => sub.push("Spec mismatch"),
        None => {}
    }
    [
        r.desired.map_or("*", desired).to_string(),
        r.status.map_or("*", State::as_str).to_string(),
        if sub.is_empty() { "*".to_string() } else { sub.join(", ") },
    ]
}

fn spec_text(s: &Spec) -> String {
    match s {
        Spec::NotCompared => "not compared".into(),
        Spec::NotInDesired => "not in --desired".into(),
        Spec::Matches => "matches".into(),
        Spec::Mismatch(m) => {
            let short = |v: &str| match v.char_indices().nth(24).and_then(|(at, _)| v.get(..at)) {
                Some(head) => format!("{head}…"),
                None => v.to_string(),
            };
            let live = m.live.as_deref().map_or("absent".to_string(), short);
            format!("mismatch at {} (live {live}, desired {})", m.path, short(&m.desired))
        }
        Spec::Absent => "-".into(),
    }
}

fn rule_cell(sub: &SubResource) -> String {
    match sub.matched.split_first() {
        None => "-".into(),
        Some((first, [])) => first.to_string(),
        Some((first, rest)) => {
            let rest: Vec<String> = rest.iter().map(u8::to_string).collect();
            format!("{first} (also {})", rest.join(", "))
        }
    }
}

fn action_cell(sub: &SubResource) -> String {
    match (sub.rule, sub.action) {
        (None, _) => "do nothing (no rule matches)".into(),
        (Some(_), a) => {
            let text = action_text(a);
            let text = text.trim_end_matches('.');
            let mut c = text.chars();
            c.next().map(|f| f.to_ascii_lowercase().to_string() + c.as_str()).unwrap_or_default()
        }
    }
}

fn state_cell(sub: &SubResource) -> String {
    match sub.observed.map(observed).filter(|o| !o.is_empty()) {
        Some(why) => format!("{} ({why})", sub_state(sub.state)),
        None => sub_state(sub.state).to_string(),
    }
}

fn cr_desired_cell(cr: &CustomResource) -> String {
    match cr.absence {
        None | Some(Absence::NotInSnapshot) => desired(cr.desired).to_string(),
        Some(Absence::UidMismatch) => format!("{} (uid differs)", desired(cr.desired)),
        Some(Absence::OtherNamespace) => format!("{} (other namespace)", desired(cr.desired)),
    }
}

fn change_text(cr: &CustomResource, change: &StateChange) -> String {
    let from = cr.status.map_or("(no status)", State::as_str);
    let by = |ids: &[usize]| -> String {
        ids.iter()
            .filter_map(|&i| cr.subs.get(i))
            .map(|s| format!("{} (rule {})", s.object.reference, s.rule.unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut text =
        format!("{}: {from} -> {} asked by {}", cr.object.reference, change.to.as_str(), by(&change.asked_by));
    if !change.overruled.is_empty() {
        text.push_str(&format!("; overrules {}", by(&change.overruled)));
    }
    text
}

/// The table.
pub fn table(r: &Reconciliation, out: &mut dyn Write) -> io::Result<()> {
    if r.resources.is_empty() {
        return Ok(());
    }
    const HEAD: [&str; 9] =
        ["CUSTOM RESOURCE", "DESIRED", "STATUS", "SUB-RESOURCE", "STATE", "EPHEMERAL", "SPEC", "RULE", "ACTION"];
    let mut rows: Vec<[String; 9]> = Vec::new();
    for cr in &r.resources {
        let head = [cr.object.reference.clone(), cr_desired_cell(cr), cr.status.map_or("-", State::as_str).to_string()];
        if cr.subs.is_empty() {
            let [a, b, c] = head;
            rows.push([
                a,
                b,
                c,
                "(no sub-resources)".into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ]);
            continue;
        }
        for (i, sub) in cr.subs.iter().enumerate() {
            let [a, b, c] = if i == 0 { head.clone() } else { Default::default() };
            rows.push([
                a,
                b,
                c,
                sub.object.reference.clone(),
                state_cell(sub),
                if sub.ephemeral { "yes" } else { "no" }.into(),
                spec_text(&sub.spec),
                rule_cell(sub),
                action_cell(sub),
            ]);
        }
    }
    let mut text = columns::table(HEAD, &rows);
    let changes: Vec<String> =
        r.resources.iter().filter_map(|cr| cr.change.as_ref().map(|c| change_text(cr, c))).collect();
    if !changes.is_empty() {
        text.push_str("\nState changes:\n");
        for c in changes {
            text.push_str(&format!("  {}\n", crate::escape::escape(&c)));
        }
    }
    let mut fired: Vec<u8> = r.resources.iter().flat_map(|cr| cr.subs.iter().filter_map(|s| s.rule)).collect();
    fired.sort_unstable();
    fired.dedup();
    if !fired.is_empty() {
        text.push_str("\nRules that fired (the first that matches, top to bottom):\n");
        let legend: Vec<[String; 5]> = fired
            .iter()
            .filter_map(|&row| RULES.get(row as usize - 1))
            .map(|rule| {
                let [d, s, c] = cells(rule);
                [format!("{}", rule.row), d, s, c, action_text(rule.action)]
            })
            .collect();
        let head = ["ROW", "CR DESIRED", "CR STATUS", "SUB-RESOURCE CURRENT STATE", "ACTION"];
        for line in columns::table(head, &legend).lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    out.write_all(text.as_bytes())
}

/// The stderr summary line of the table.
pub fn summary(r: &Reconciliation) -> String {
    let subs: usize = r.resources.iter().map(|cr| cr.subs.len()).sum();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for sub in r.resources.iter().flat_map(|cr| &cr.subs) {
        let name = action_name(sub.action);
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort();
    let changes = r.resources.iter().filter(|cr| cr.change.is_some()).count();
    let mut line = format!(
        "{}, {}",
        count(r.resources.len(), "custom resource", "custom resources"),
        count(subs, "sub-resource", "sub-resources")
    );
    if !counts.is_empty() {
        let list: Vec<String> = counts.iter().map(|(n, c)| format!("{c} {n}")).collect();
        line.push_str(&format!(": {}", list.join(", ")));
    }
    match changes {
        0 => line.push_str("; no state change"),
        n => line.push_str(&format!("; {} state", count(n, "custom resource changes", "custom resources change"))),
    }
    line
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Out<'a> {
    schema_version: u32,
    custom_resources: Vec<CrOut<'a>>,
    /// Objects of --desired placed under no custom resource.
    desired_without_custom_resource: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjectOut<'a> {
    #[serde(flatten)]
    object: Ref<&'a str>,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    uid: Option<&'a str>,
}

impl<'a> ObjectOut<'a> {
    fn of(i: &'a Ident) -> ObjectOut<'a> {
        ObjectOut {
            object: Ref::new(&i.reference),
            kind: &i.kind,
            namespace: i.namespace.as_deref(),
            name: &i.name,
            uid: i.uid.as_deref(),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CrOut<'a> {
    #[serde(flatten)]
    object: ObjectOut<'a>,
    exists: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    absence: Option<Absence>,
    desired: &'static str,
    status: Option<&'static str>,
    sub_resources: Vec<SubOut<'a>>,
    state_change: Option<ChangeOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubOut<'a> {
    #[serde(flatten)]
    object: ObjectOut<'a>,
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    state_from: Option<&'static str>,
    ephemeral: bool,
    spec: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    spec_mismatch: Option<&'a Mismatch>,
    matched: &'a [u8],
    rule: Option<RuleOut>,
    action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    set_state: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuleOut {
    row: u8,
    cr_desired: String,
    cr_status: String,
    sub_resource: String,
    action: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeOut<'a> {
    from: Option<&'static str>,
    to: &'static str,
    asked_by: Vec<&'a str>,
    overruled: Vec<&'a str>,
}

fn out(r: &Reconciliation) -> Out<'_> {
    let custom_resources = r
        .resources
        .iter()
        .map(|cr| {
            let refs =
                |ids: &[usize]| ids.iter().filter_map(|&i| cr.subs.get(i)).map(|s| &*s.object.reference).collect();
            CrOut {
                object: ObjectOut::of(&cr.object),
                exists: cr.absence.is_none(),
                absence: cr.absence,
                desired: match cr.desired {
                    Desired::State(s) => s.as_str(),
                    Desired::Deleting => "Deleting",
                    Desired::DoesNotExist => "DoesNotExist",
                },
                status: cr.status.map(State::as_str),
                sub_resources: cr.subs.iter().map(sub_out).collect(),
                state_change: cr.change.as_ref().map(|c| ChangeOut {
                    from: cr.status.map(State::as_str),
                    to: c.to.as_str(),
                    asked_by: refs(&c.asked_by),
                    overruled: refs(&c.overruled),
                }),
            }
        })
        .collect();
    Out { schema_version: 1, custom_resources, desired_without_custom_resource: &r.unplaced }
}

fn sub_out(s: &SubResource) -> SubOut<'_> {
    SubOut {
        object: ObjectOut::of(&s.object),
        state: match s.state {
            SubState::DoesNotExist => "DoesNotExist",
            other => sub_state(other),
        },
        state_from: s.observed.map(observed).filter(|o| !o.is_empty()),
        ephemeral: s.ephemeral,
        spec: match &s.spec {
            Spec::NotCompared => "not-compared",
            Spec::NotInDesired => "not-in-desired",
            Spec::Matches => "matches",
            Spec::Mismatch(_) => "mismatch",
            Spec::Absent => "absent",
        },
        spec_mismatch: match &s.spec {
            Spec::Mismatch(m) => Some(m),
            _ => None,
        },
        matched: &s.matched,
        rule: s.rule.and_then(|row| RULES.get(row as usize - 1)).map(|rule| {
            let [cr_desired, cr_status, sub_resource] = cells(rule);
            RuleOut { row: rule.row, cr_desired, cr_status, sub_resource, action: action_text(rule.action) }
        }),
        action: action_name(s.action),
        set_state: match s.action {
            Action::SetState(st) => Some(st.as_str()),
            _ => None,
        },
    }
}

pub fn json(r: &Reconciliation, w: &mut dyn Write) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(&out(r)).map_err(io::Error::other)?;
    bytes.push(b'\n');
    w.write_all(&bytes)
}

pub fn yaml(r: &Reconciliation, w: &mut dyn Write) -> io::Result<()> {
    super::yaml::write(&out(r), w)
}
/// The finding for input that cannot be reconciled, at its place.
pub fn problem(snapshot: &Snapshot, p: Problem, found_kinds: bool) -> Result<Finding, Internal> {
    let objects = &snapshot.objects;
    let sources = &snapshot.sources;
    let kinds_help = if found_kinds {
        "; it is taken for a custom resource because it has a spec.state: if its kind is not a custom resource's, name those kinds with --kind"
    } else {
        ""
    };
    let (id, rule, message, at, label, help) = match p {
        Problem::NoDesiredState(id) => (
            id,
            crate::findings::Rule::Td001,
            "has no spec.state".to_string(),
            None,
            "this custom resource",
            "crd-reconciler's table starts from the desired state: write spec.state (Pending, Running, Completed or Failed)".to_string(),
        ),
        Problem::NotAState { object, status } => (
            object,
            crate::findings::Rule::Td001,
            format!("has a {} that is not a state", if status { "status.state" } else { "spec.state" }),
            Some(status),
            "not Pending, Running, Completed or Failed",
            format!("crd-reconciler's states are Pending, Running, Completed and Failed, spelled so{kinds_help}"),
        ),
        Problem::Unreadable(id) => (
            id,
            crate::findings::Rule::Td001,
            "cannot be read again on its own to tell its states".to_string(),
            None,
            "this object",
            "its document uses an anchor defined outside it; write the values out".to_string(),
        ),
        Problem::TwoControllers(id) => (
            id,
            crate::findings::Rule::Td009,
            "has more than one controller reference to a custom resource".to_string(),
            None,
            "this sub-resource",
            "a sub-resource belongs to the one custom resource its controller reference names; the API server allows one".to_string(),
        ),
    };
    let o = id.of(objects)?;
    let span = match at {
        Some(status) => anchor::state(sources, o, status),
        None => anchor::object(sources, o),
    };
    Ok(Finding::new(rule, format!("{} {message}", o.reference())).at(span, label).refs([o.reference()]).help(help))
}

/// What `reconcile` warns of on stderr: no custom resource found, and
/// `--desired` objects that are no sub-resource of any. `found_kinds`: the
/// kinds were found by their `spec.state` (no `--kind`).
pub fn warnings(result: &Reconciliation, found_kinds: bool) -> String {
    let mut out = String::new();
    if result.resources.is_empty() {
        let why = match found_kinds {
            true => "no object has a spec.state; name the kinds of the custom resources with --kind",
            false => "no object of the --kind kinds, and no sub-resource of one",
        };
        out.push_str(&format!("warning: no custom resources: {why}\n"));
    }
    for reference in &result.unplaced {
        out.push_str(&format!("warning: --desired {} is not in INPUT and has no controller reference to a custom resource: not a sub-resource of any (ignored)\n", crate::escape::escape(reference)));
    }
    out
}
