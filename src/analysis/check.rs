//! `teardown check`: the rules of CONTRACT §6 over a loaded snapshot.

use super::candidates::{Candidates, Found, How};
use crate::dialect::collector_finalizer;
use crate::findings::{self, Finding, Omitted, Rule, RuleSet, Severity, SeverityPolicy};
use crate::graph::cycles::{self, Cycle};
use crate::graph::Graph;
use crate::model::kube::{distribution_finalizer, BUILTIN_FINALIZERS};
use crate::model::resolve::Duplicate;
use crate::model::snapshot::Snapshot;
use crate::model::{anchor, Link, ObjId, Object, RelKind, Relation};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Finalizers whose controller was named with `--finalizer-controller`
    /// or in teardown.toml (objects of the snapshot, or `external`).
    pub known_finalizers: Vec<String>,
    pub policy: SeverityPolicy,
    /// The rules reported (`--select`, `--ignore`): the others are not
    /// looked for, or are left out.
    pub rules: RuleSet,
}

/// Counts for the summary line.
#[derive(Clone, Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// `check --packages`: how many packages were checked.
    #[serde(skip_serializing_if = "is_zero")]
    pub packages: usize,
    pub files: usize,
    pub objects: usize,
    pub edges: usize,
    /// Edges by relation kind (`owns`, `contains`, `defines`, `destroy-after`).
    pub edges_by_kind: BTreeMap<&'static str, usize>,
    pub errors: usize,
    pub warnings: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub notes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub struct CheckReport {
    /// At most `findings::LISTED_PER_RULE` of a rule…
    pub findings: Vec<Finding>,
    /// …the others counted (and in `counts`).
    pub omitted: Omitted,
    pub counts: Counts,
    /// Some input could not be read or parsed (exit 2).
    pub fatal: bool,
}

pub fn check(snapshot: &Snapshot, graph: &Graph, options: &CheckOptions) -> CheckReport {
    let mut t = crate::timing::Timer::start();
    let mut findings = found(snapshot, graph, options);
    t.lap("  rules");

    // Rules not reported are left out before anything is counted: the
    // exit code, the summary and every format see the same findings.
    findings.retain(|f| options.rules.reports(f));
    for f in &mut findings {
        options.policy.apply(f);
    }
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut omitted = snapshot.omitted.clone();
    omitted.retain(|u| (u.fatal && !u.located) || options.rules.contains(u.rule));
    omitted.apply(&options.policy);
    findings::cap(&mut findings, &mut omitted, &mut []);

    let rels = &snapshot.resolved.relations;
    // The snapshot's own edges (not those --finalizer-controller adds).
    let own = || rels.iter().filter(|r| r.kind != crate::model::RelKind::Finalizer);
    let mut counts = Counts {
        files: snapshot.sources.files.len(),
        objects: snapshot.objects.len(),
        edges: own().count(),
        ..Counts::default()
    };
    for r in own() {
        *counts.edges_by_kind.entry(r.kind.as_str()).or_default() += 1;
    }
    let severities =
        findings.iter().map(|f| (f.severity, 1)).chain(omitted.groups().into_iter().map(|(_, s, n)| (s, n)));
    for (severity, n) in severities {
        match severity {
            Severity::Error => counts.errors += n,
            Severity::Warning => counts.warnings += n,
            Severity::Note => counts.notes += n,
        }
    }
    // Input that cannot be read, parsed or used (TD001, reported) ends the
    // run with exit 2, as it ends a plan: the README's Exit codes.
    let fatal = findings.iter().any(|f| f.rule == Rule::Td001) || omitted.count_of(|u| u.rule == Rule::Td001) > 0;
    CheckReport { fatal, findings, omitted, counts }
}

/// One rule's (or rules') look at the snapshot, into findings of its own.
type Look<'a> = Box<dyn Fn(&mut Vec<Finding>) + Send + Sync + 'a>;

/// What loading found and what each rule finds, in the rules' order: the
/// rules look at the snapshot on every core, each into findings of its
/// own, joined in the order they were listed (the same findings, in the
/// same order, as one after the other).
fn found(snapshot: &Snapshot, graph: &Graph, options: &CheckOptions) -> Vec<Finding> {
    use rayon::prelude::*;
    let on = |rule: Rule| options.rules.contains(rule);
    let rels = &snapshot.resolved.relations;
    let cycles_of = |rule: Rule, edge: fn(&Relation) -> bool| -> Look {
        Box::new(move |out| {
            let cycles = cycles::find_by_reference(&snapshot.objects, graph, rels, edge);
            out.extend(cycles.iter().filter_map(|c| cycle_finding(snapshot, c, rule)));
        })
    };
    let mut looks: Vec<Look> = vec![Box::new(|out| out.extend_from_slice(&snapshot.findings))];
    if on(Rule::Td002) {
        looks.push(Box::new(|out| duplicates(snapshot, out)));
    }
    if [Rule::Td003, Rule::Td004, Rule::Td005, Rule::Td006, Rule::Td017].into_iter().any(on) {
        looks.push(Box::new(|out| owners(snapshot, options.policy.closed_world, out)));
    }
    if on(Rule::Td009) {
        looks.push(Box::new(|out| controllers(snapshot, out)));
    }
    if on(Rule::Td010) {
        looks.push(Box::new(|out| missing_deps(snapshot, out)));
    }
    if on(Rule::Td011) {
        looks.push(Box::new(|out| finalizers(snapshot, options, out)));
    }
    // Owner links Kubernetes ignores (TD004–TD006) make no ownership cycle
    // (nor a managed-by relation whose application does not wait).
    if on(Rule::Td007) {
        looks.push(cycles_of(Rule::Td007, |r| {
            r.kind.is_ownership() && r.link == Link::Solid && super::managed::orders(r)
        }));
    }
    if on(Rule::Td008) {
        looks.push(cycles_of(Rule::Td008, |r| r.kind.is_destruction()));
    }
    if on(Rule::Td012) {
        looks.push(Box::new(|out| conflicts(snapshot, graph, out)));
    }
    let parts: Vec<Vec<Finding>> = looks
        .par_iter()
        .with_max_len(1)
        .map(|look| {
            let mut out = Vec::new();
            look(&mut out);
            out
        })
        .collect();
    parts.into_iter().flatten().collect()
}

// The ids and positions below were made by `resolve` and `cycles` over
// this snapshot: every lookup finds its object. One that did not would
// drop its finding (never panic, never name another object).

fn object(s: &Snapshot, id: ObjId) -> Option<&Object> {
    s.objects.get(id.index())
}

fn relation(s: &Snapshot, r: u32) -> Option<&Relation> {
    s.resolved.relations.get(r as usize)
}

fn reference(s: &Snapshot, id: ObjId) -> Option<String> {
    object(s, id).map(Object::reference)
}

fn duplicates(s: &Snapshot, out: &mut Vec<Finding>) {
    out.extend(duplicate_findings(s, |_| true));
}

/// Two documents that give one identity: TD002 findings, for the
/// duplicates `which` picks.
pub fn duplicate_findings(s: &Snapshot, which: impl Fn(&Duplicate) -> bool) -> Vec<Finding> {
    s.resolved.duplicates.iter().filter(|d| which(d)).filter_map(|d| duplicate_finding(s, d)).collect()
}

/// The TD002 finding of one duplicate (`None`: not objects of `s`).
pub fn duplicate_finding(s: &Snapshot, d: &Duplicate) -> Option<Finding> {
    let (Some(first), Some(again)) = (object(s, d.first), object(s, d.again)) else { return None };
    let f = if d.by_uid {
        Finding::new(
            Rule::Td002,
            format!(
                "{} has the same uid as {} ({})",
                again.reference(),
                first.reference(),
                again.uid.as_deref().unwrap_or("")
            ),
        )
    } else {
        Finding::new(Rule::Td002, format!("duplicate object {}", again.reference()))
    };
    Some(
        f.at(anchor::object(&s.sources, again), "again here")
            .also(anchor::object(&s.sources, first), "first defined here")
            .refs([first.reference(), again.reference()])
            .help(if d.by_uid {
                "a uid names one object; remove one of the two"
            } else {
                "the same object written twice with different content: which is current? keep one"
            }),
    )
}

fn owners(s: &Snapshot, closed_world: bool, out: &mut Vec<Finding>) {
    let unresolvable = |id: ObjId, j: u32| s.resolved.unresolvable_ref(id, j, closed_world).is_some();
    unresolvable_owners(s, closed_world, out);
    for &(id, j) in &s.resolved.missing_owners {
        if unresolvable(id, j) {
            continue;
        }
        let Some(o) = object(s, id) else { continue };
        let Some(r) = o.owners.get(j as usize) else { continue };
        let owner = o.owner_reference(j as usize);
        let uid = r.uid.as_deref().map(|u| format!(" (uid {u})")).unwrap_or_default();
        out.push(
            Finding::new(Rule::Td003, format!("{}: owner {owner}{uid} is not in the snapshot", o.reference()))
                .at(anchor::owner_ref(&s.sources, o, j), "owner not found")
                .refs([o.reference()])
                .help(match o.origin.collector.collects_dangling {
                    true => format!(
                        "if the snapshot is the whole cluster (--closed-world), the garbage collector deletes {}",
                        o.reference()
                    ),
                    false => format!(
                        "the {} garbage collector follows deletions only: {} stays until it is deleted",
                        o.origin.dialect,
                        o.reference()
                    ),
                }),
        );
    }
    for r in &s.resolved.relations {
        if r.kind != RelKind::Owns || r.link == Link::Solid {
            continue;
        }
        if r.kind == RelKind::Owns && unresolvable(r.to, r.decl) {
            continue;
        }
        let (Some(dep), Some(owner)) = (object(s, r.to), object(s, r.from)) else { continue };
        let Some(oref) = dep.owners.get(r.decl as usize) else { continue };
        let at = anchor::owner_ref(&s.sources, dep, r.decl);
        let owner_at = anchor::object(&s.sources, owner);
        let f = match r.link {
            Link::UidMismatch => Finding::new(
                Rule::Td004,
                format!(
                    "{}: owner {} has uid {}, but the reference says {}",
                    dep.reference(),
                    owner.reference(),
                    owner.uid.as_deref().unwrap_or("(none)"),
                    oref.uid.as_deref().unwrap_or("(none)")
                ),
            )
            .at(at, "this uid")
            .also(owner_at, "the owner by this name has another uid")
            .help("the reference points at an earlier object of the same name: Kubernetes treats the owner as gone and collects the dependent"),
            Link::OtherCoordinates => Finding::new(
                Rule::Td004,
                format!(
                    "{}: owner {} is not in the snapshot; its uid {} is {}'s",
                    dep.reference(),
                    dep.owner_reference(r.decl as usize),
                    oref.uid.as_deref().unwrap_or("(none)"),
                    owner.reference(),
                ),
            )
            .at(at, "this reference")
            .also(owner_at, "the object with this uid")
            .help("Kubernetes looks an owner up by its kind and name and checks the uid: this reference dangles, and the collector deletes the dependent"),
            Link::CrossNamespace => Finding::new(
                Rule::Td005,
                format!(
                    "{} is owned by {} in another namespace",
                    dep.reference(),
                    owner.reference()
                ),
            )
            .at(at, "owner in another namespace")
            .also(owner_at, "the owner")
            .help("owner references cannot cross namespaces: Kubernetes treats the owner as absent and collects the dependent"),
            Link::ClusterScopedDependent => Finding::new(
                Rule::Td006,
                format!(
                    "cluster-scoped {} is owned by namespaced {}",
                    dep.reference(),
                    owner.reference()
                ),
            )
            .at(at, "namespaced owner")
            .also(owner_at, "the owner")
            .help("a cluster-scoped object can only have cluster-scoped owners; Kubernetes never collects this one"),
            Link::Solid => continue,
        };
        out.push(f.refs([dep.reference(), owner.reference()]));
    }
}

/// TD017: owner references the collector cannot resolve (a type nothing
/// defines only in a closed world). The object a reference's uid or
/// coordinates name, if the snapshot has one, is pointed at too.
fn unresolvable_owners(s: &Snapshot, closed_world: bool, out: &mut Vec<Finding>) {
    let rels = &s.resolved.relations;
    for &(id, j, why) in s.resolved.unresolvable.iter().filter(|(_, _, w)| w.holds(closed_world)) {
        let Some(dep) = object(s, id) else { continue };
        let Some(r) = dep.owners.get(j as usize) else { continue };
        let crd = match why {
            crate::model::served::Unresolvable::CrdVersion(c) => reference(s, c).unwrap_or_default(),
            _ => String::new(),
        };
        let mut f = Finding::new(
            Rule::Td017,
            format!(
                "{}: the garbage collector cannot resolve owner {} {}/{}: {}",
                dep.reference(),
                r.api_version,
                r.kind,
                r.name,
                why.describe(&r.api_version, &r.kind, &crd)
            ),
        )
        .at(anchor::owner_ref(&s.sources, dep, j), "this owner reference")
        .help(format!(
            "the collector never collects {} and never deletes it with an owner: it looks an owner up through the REST mapping of the reference's apiVersion and kind, and retries a reference it cannot map forever (garbagecollector.go isDangling); {}",
            dep.reference(),
            match why {
                crate::model::served::Unresolvable::Undefined => {
                    "if the cluster defines the type, the snapshot lacks its CRD: add it, or leave out --closed-world"
                }
                _ => "write the apiVersion the owner is served at",
            }
        ));
        let mut refs = vec![dep.reference()];
        let owner =
            rels.iter().find(|x| x.kind == RelKind::Owns && x.to == id && x.decl == j).and_then(|x| object(s, x.from));
        if let Some(owner) = owner {
            f = f.also(anchor::object(&s.sources, owner), "the object this reference names by uid or name");
            refs.push(owner.reference());
        }
        if let Some(crd) = match why {
            crate::model::served::Unresolvable::CrdVersion(c) => object(s, c),
            _ => None,
        } {
            f = f.also(anchor::object(&s.sources, crd), "the CRD, which does not serve this version");
        }
        out.push(f.refs(refs));
    }
}

fn controllers(s: &Snapshot, out: &mut Vec<Finding>) {
    for o in &s.objects {
        let ctl: Vec<(usize, &crate::model::OwnerRef)> =
            o.owners.iter().enumerate().filter(|(_, r)| r.controller).collect();
        let [(first, _), (second, _), more @ ..] = ctl.as_slice() else { continue };
        let names: Vec<String> = ctl.iter().map(|(_, r)| format!("{}/{}", r.kind, r.name)).collect();
        let mut f = Finding::new(
            Rule::Td009,
            format!("{} has {} controller references: {}", o.reference(), ctl.len(), names.join(", ")),
        )
        .at(anchor::owner_ref(&s.sources, o, *second as u32), "second controller")
        .also(anchor::owner_ref(&s.sources, o, *first as u32), "first controller")
        .refs([o.reference()])
        .help("at most one owner reference may have `controller: true`");
        for (i, _) in more {
            f = f.also(anchor::owner_ref(&s.sources, o, *i as u32), "another controller");
        }
        out.push(f);
    }
}

fn missing_deps(s: &Snapshot, out: &mut Vec<Finding>) {
    for &(id, j) in &s.resolved.missing_deps {
        let Some(o) = object(s, id) else { continue };
        let Some(d) = o.deps.get(j as usize) else { continue };
        out.push(
            Finding::new(
                Rule::Td010,
                format!("{}: destruction dependency {} is not in the snapshot", o.reference(), d.text),
            )
            .at(anchor::dep(&s.sources, o, j), "not found")
            .refs([o.reference()])
            .help("the dependency is ignored when ordering; add the object to the input or remove the reference"),
        );
    }
}

fn finalizers(s: &Snapshot, options: &CheckOptions, out: &mut Vec<Finding>) {
    let known = |f: &str| {
        BUILTIN_FINALIZERS.contains(&f)
            || collector_finalizer(f)
            || distribution_finalizer(f).is_some()
            || options.known_finalizers.iter().any(|k| k == f)
    };
    // The workloads that can serve a finalizer, indexed on first need.
    let mut candidates: Option<Candidates> = None;
    for o in &s.objects {
        let own = o.origin.collector.finalizers;
        for f in o.finalizers.iter().filter(|f| !known(f) && !own.contains(&&***f)) {
            let index = candidates.get_or_insert_with(|| Candidates::new(&s.objects, &s.resolved.relations));
            let mut help = format!(
                "name the controller that removes it: --finalizer-controller {f}=KIND/NAMESPACE/NAME, or {f}=external if it runs outside the snapshot"
            );
            if let Some(found) = o.is_kubernetes().then(|| index.of(f, o)).flatten() {
                let index = &*index;
                help.push_str(&candidates_help(index, f, &found));
            }
            out.push(
                Finding::new(Rule::Td011, format!("{}: finalizer {f} has no known controller", o.reference()))
                    .at(anchor::finalizer(&s.sources, o, f), "deletion waits for this finalizer")
                    .refs([o.reference()])
                    .help(help),
            );
        }
    }
}

/// TD011's candidates, as the rest of its help: each a ready flag.
fn candidates_help(index: &Candidates, f: &str, found: &Found) -> String {
    let groups = found.groups.iter().map(|g| &**g).collect::<Vec<_>>().join(", ");
    let of = match found.groups.len() {
        1 => "the CRD group of its domain",
        _ => "the CRD groups of its domain",
    };
    let flags = found
        .workloads
        .iter()
        .filter_map(|&w| index.reference(w).map(|r| format!("--finalizer-controller {f}={r}")))
        .collect::<Vec<_>>()
        .join(" or ");
    let more = match found.more {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    match (found.how, found.workloads.is_empty()) {
        (_, true) => format!(
            "; no workload of the snapshot is granted update on {groups} ({of}), nor named after it"
        ),
        (How::Granted, false) => {
            format!("; workloads granted update on {groups} ({of}) by RBAC of the snapshot: {flags}{more}")
        }
        (How::ByName, false) => format!(
            "; no RBAC of the snapshot names {groups} ({of}); workloads named after its domain: {flags}{more}"
        ),
        (How::GrantedAll, false) => format!(
            "; no RBAC of the snapshot names {groups} ({of}) and no workload is named after it; workloads granted update on every group (`*`): {flags}{more}"
        ),
    }
}

/// `A owns B owns C owns A` / `A is destroyed after B, after …`.
/// (`None`: a cycle of another snapshot.)
pub fn describe_cycle(s: &Snapshot, c: &Cycle) -> Option<String> {
    let mut text = reference(s, *c.nodes.first()?)?;
    // `relations[i]` goes from `nodes[i]` to `nodes[i + 1]`, the last back to the first.
    for (&r, &next) in c.relations.iter().zip(c.nodes.iter().cycle().skip(1)) {
        let rel = relation(s, r)?;
        let verb = match rel.kind {
            RelKind::Owns => "owns",
            RelKind::Contains => "contains",
            RelKind::Defines => "defines",
            RelKind::Manages => "manages",
            RelKind::DestroyAfter
            | RelKind::Finalizer
            | RelKind::ComponentOrder
            | RelKind::Rule(_)
            | RelKind::Tool(_)
            | RelKind::Controller(_) => "goes after",
        };
        text.push_str(&format!(" {verb} {}", reference(s, next)?));
    }
    Some(text)
}

/// A cycle as a finding: the edge written first in the input is the
/// primary place, the others follow in cycle order. (`None`: a cycle of
/// another snapshot.)
pub fn cycle_finding(s: &Snapshot, c: &Cycle, rule: Rule) -> Option<Finding> {
    let what = match rule {
        Rule::Td007 => "ownership cycle",
        _ => "destruction-dependency cycle",
    };
    let mut message = format!("{what}: {}", describe_cycle(s, c)?);
    if c.component.len() > c.nodes.len() {
        message
            .push_str(&format!(" (one cycle of a group of {} objects that depend on each other)", c.component.len()));
    }
    let label = |r: u32| {
        let rel = relation(s, r)?;
        let verb = match rel.kind {
            RelKind::Owns => "is owned by",
            RelKind::Contains => "is contained in",
            RelKind::Defines => "is defined by",
            RelKind::Manages => "is managed by",
            RelKind::DestroyAfter
            | RelKind::Finalizer
            | RelKind::ComponentOrder
            | RelKind::Rule(_)
            | RelKind::Tool(_)
            | RelKind::Controller(_) => "goes before",
        };
        let (a, b) = (object(s, rel.to)?, object(s, rel.from)?);
        Some((anchor::relation(&s.sources, &s.objects, rel)?, format!("{} {verb} {}", a.short(), b.short())))
    };
    // The finding points at the edge written first in the input; the other
    // edges follow in cycle order.
    let mut labels = c.relations.iter().map(|&r| label(r)).collect::<Option<Vec<_>>>()?;
    let (first, _) = labels.iter().enumerate().min_by_key(|(_, l)| l.0)?;
    let (at, text) = labels.remove(first);
    let mut f = Finding::new(rule, message).at(at, text);
    for (at, text) in labels {
        f = f.also(at, text);
    }
    let last = relation(s, *c.relations.last()?)?;
    let cut = format!("{} → {}", reference(s, last.from)?, reference(s, last.to)?);
    let help = match rule {
        Rule::Td007 => format!(
            "remove one edge of the cycle, for example {cut}; `plan --allow-cycles` deletes the group in one step"
        ),
        _ => match c.relations.iter().filter_map(|&r| relation(s, r)).find(|r| r.kind == RelKind::Finalizer) {
            // --finalizer-controller made this cycle: the object can hang.
            Some(r) => {
                let (object, controller) = (object(s, r.to)?, object(s, r.from)?);
                let finalizer = object.finalizers.get(r.decl as usize).map(|f| &**f).unwrap_or("");
                format!(
                    "{} waits for its finalizer {finalizer}, which {} removes: destroyed together, it hangs if the controller goes first; remove the destruction dependency that puts the controller first",
                    object.reference(),
                    controller.reference()
                )
            }
            None => "the objects of the cycle are destroyed together, in one step; their order inside it is undefined"
                .to_string(),
        },
    };
    let refs = c.nodes.iter().map(|&n| reference(s, n)).collect::<Option<Vec<_>>>()?;
    Some(f.refs(refs).help(help))
}

/// TD012: ownership edges the destruction order of the whole snapshot has to
/// relax, because destruction dependencies put the owned object later.
fn conflicts(s: &Snapshot, graph: &Graph, out: &mut Vec<Finding>) {
    // A conflict needs a cycle that mixes ownership and destruction
    // dependencies; most snapshots have none, and then there is nothing to order.
    let rels = &s.resolved.relations;
    let orders = |r: &crate::model::Relation| r.kind.orders() && (r.kind.is_destruction() || r.link == Link::Solid);
    let csr = crate::graph::Rows::from_edges(
        graph.node_count(),
        rels.iter().filter(|r| orders(r)).map(|r| (r.from.0, r.to.0)),
    );
    let mut component = vec![usize::MAX; s.objects.len()];
    let mut mixed = false;
    for (c, scc) in crate::graph::scc::cycles(&csr).into_iter().enumerate() {
        if scc.len() > 1 {
            for n in scc {
                if let Some(at) = component.get_mut(n as usize) {
                    *at = c;
                }
            }
        }
    }
    let component_of = |id: ObjId| component.get(id.index()).copied().unwrap_or(usize::MAX);
    let mut kinds: rustc_hash::FxHashMap<usize, (bool, bool)> = rustc_hash::FxHashMap::default();
    for r in rels.iter().filter(|r| orders(r)) {
        let c = component_of(r.from);
        if c != usize::MAX && c == component_of(r.to) {
            let k = kinds.entry(c).or_default();
            if r.kind.is_destruction() {
                k.1 = true;
            } else {
                k.0 = true;
            }
            mixed |= k.0 && k.1;
        }
    }
    if !mixed {
        return;
    }
    let refs = super::refs::Refs::of(&s.objects);
    let rank = super::order::ranks_of(&refs);
    let in_set = vec![true; s.objects.len()];
    let input =
        super::order::Input { relations: &s.resolved.relations, in_set: &in_set, rank: &rank, allow_cycles: true };
    let Ok(order) = super::order::order(&input) else { return };
    for (&r, because) in order.relaxed.iter().zip(&order.relaxed_because) {
        let Some(rel) = relation(s, r) else { continue };
        let (Some(owner), Some(owned)) = (refs.get(rel.from.index()), refs.get(rel.to.index())) else { continue };
        let because = because.and_then(|b| relation(s, b));
        let Some(at) = anchor::relation(&s.sources, &s.objects, rel) else { continue };
        out.push(
            Finding::new(Rule::Td012, super::order::conflict_message(&refs, rel, because))
                .at(at, "relaxed")
                .refs([owner.to_owned(), owned.to_owned()])
                .help(format!(
                    "{owned} is destroyed after {owner}; if that is wrong, remove the destruction dependency"
                )),
        );
    }
}

/// How many findings of one rule at one severity (`check --statistics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleCount {
    pub rule: Rule,
    pub severity: Severity,
    pub count: usize,
}

/// Findings counted by rule and severity: most frequent first, then by
/// rule id, errors before warnings.
pub fn statistics(findings: &[Finding], omitted: &Omitted) -> Vec<RuleCount> {
    let mut counts: BTreeMap<(Rule, Severity), usize> = BTreeMap::new();
    for f in findings {
        *counts.entry((f.rule, f.severity)).or_default() += 1;
    }
    for (rule, severity, n) in omitted.groups() {
        *counts.entry((rule, severity)).or_default() += n;
    }
    let mut out: Vec<RuleCount> =
        counts.into_iter().map(|((rule, severity), count)| RuleCount { rule, severity, count }).collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(&b.rule)).then(b.severity.cmp(&a.severity)));
    out
}
