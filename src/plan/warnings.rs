//! What a plan warns about: typed values, each with its finding rule (if it
//! has one) and the objects it is about; `render::prose` says each in
//! words.

use super::reasons::Names;
use super::tool_order::ToolFinding;
use crate::analysis::cascade::{Cascade, Cause, MultiOwner};
use crate::analysis::order::{GroupKind, Order};
use crate::findings::Rule;
use crate::graph::LazyGraph;
use crate::load::Snapshot;
use crate::model::kube::{calls_services, KeepMark, ServiceCall};
use crate::model::{ControllerEdge, Link, ObjId, Object, RelKind, Relation, Str};
use rustc_hash::{FxHashMap, FxHashSet};

#[derive(Clone, Debug)]
pub enum Warning {
    /// A finding about the input, carried into the plan (`--skip-invalid`,
    /// TD013…), at its place; `line` 0: about a whole file or directory not
    /// read, which its message names.
    Input { rule: Rule, file: String, line: usize, column: usize, message: String, refs: Vec<String> },
    /// Objects that must each be destroyed after another (TD008): one step.
    DestructionCycle { members: Vec<ObjId>, step: u32 },
    /// `--allow-cycles`: objects that own each other (TD007), one step.
    OwnershipGroup { members: Vec<ObjId>, step: u32 },
    /// An ownership relation relaxed for a destruction dependency (TD012).
    Relaxed { relaxed: Relation, because: Option<Relation> },
    /// A deleted object whose controller stays, and will recreate it.
    ControllerStays { object: ObjId, controller: ObjId },
    /// What a deleted application object's controller does that the plan
    /// must say (`model::managed::Note`).
    Managed { app: ObjId, note: crate::model::managed::Note },
    /// A deleted Service that a webhook configuration (or, `api_service`,
    /// an APIService) the plan keeps still calls: every request that goes
    /// through it fails from then on.
    WebhookStays { service: ObjId, webhook: ObjId, api_service: bool },
    /// Two objects with one uid (TD002): owner references went by coordinates.
    SharedUid { first: ObjId, again: ObjId, uid: Str },
    /// An object and the controller of its finalizer in one step.
    FinalizerSameStep { object: ObjId, controller: ObjId, finalizer: String, step: u32 },
    /// A deleted object whose annotation tells its tool to leave it: the
    /// annotation only stops that tool, not what deletes it here.
    KeepIgnored { object: ObjId, mark: KeepMark, by: Ignored },
    /// A deleted Namespace (or CRD) that still holds an object a Crossplane
    /// Usage keeps: it never finishes deleting.
    Hangs { holder: ObjId, object: ObjId, usage: ObjId },
    /// Endpoints deleted while the Service of their name stays and selects
    /// Pods: the endpoints controller writes them again.
    EndpointsRewritten { endpoints: ObjId, service: ObjId },
    /// A deleted object that one the plan keeps depends on (a destruction
    /// dependency, `depends-on` or `destroyAfter`: the deleted one was to
    /// be destroyed after it): the dependency is broken, and the object
    /// that stays names one that is gone (TD010 from then on).
    DependentStays { object: ObjId, dependent: ObjId },
    /// A dependent the plan deletes with its owner, which has another
    /// owner reference naming an object the snapshot lacks (TD003): the
    /// cluster may have it, and then the collector keeps the dependent.
    OwnerOutsideSnapshot { object: ObjId, with: ObjId, owner: String },
    /// `plan --as TOOL`: that tool's order breaks a constraint of the plan
    /// (TD016).
    ToolOrder(Box<ToolFinding>),
    /// KubeVela: `tracker` records `object` otherwise than its
    /// Application's garbage-collect policy says now (the first rule that
    /// selects it, `rule`, with `strategy`; none: no rule does, or it
    /// writes no strategy). A strategy acts when a resource is recorded,
    /// so the keeper follows the record: `deleted`, the plan deletes what
    /// the policy would keep; else a `skipGC` record keeps what the policy
    /// would not.
    RecordOverPolicy {
        object: ObjId,
        tracker: ObjId,
        app: ObjId,
        rule: Option<(Option<Str>, u32)>,
        strategy: Option<crate::model::tracking::Strategy>,
        deleted: bool,
    },
}

/// What deletes an object despite its keep annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ignored {
    /// It is named (`--delete KIND/NAME`): the user asks for it.
    Named,
    /// Taken with this object by this relation (its Namespace, its last
    /// owner, its CRD, the tracker that manages it), whose controller reads
    /// no annotation.
    With(RelKind, ObjId),
    /// The garbage collector takes it (`--gc`).
    Collector,
}

impl Warning {
    pub fn id(&self) -> &'static str {
        match self {
            Warning::Input { .. } => "input",
            Warning::DestructionCycle { .. } => "destruction-cycle",
            Warning::OwnershipGroup { .. } => "ownership-cycle",
            Warning::Relaxed { .. } => "relaxed",
            Warning::ControllerStays { .. } => "controller-stays",
            Warning::Managed { note, .. } => note.id(),
            Warning::WebhookStays { .. } => "webhook-stays",
            Warning::SharedUid { .. } => "shared-uid",
            Warning::FinalizerSameStep { .. } => "finalizer-same-step",
            Warning::KeepIgnored { .. } => "keep-ignored",
            Warning::Hangs { .. } => "hangs",
            Warning::EndpointsRewritten { .. } => "endpoints-rewritten",
            Warning::DependentStays { .. } => "dependent-stays",
            Warning::OwnerOutsideSnapshot { .. } => "owner-outside-snapshot",
            Warning::ToolOrder(_) => "tool-order",
            Warning::RecordOverPolicy { .. } => "record-over-policy",
        }
    }

    /// Is it a note about the input (TD014, TD015: what teardown made of
    /// it, said so that it can be checked) rather than a warning? Notes are
    /// listed with the warnings, never counted as warnings.
    pub fn is_note(&self) -> bool {
        matches!(self, Warning::Input { rule, .. } if rule.default_severity() == crate::findings::Severity::Note)
    }

    pub fn rule(&self) -> Option<Rule> {
        match self {
            Warning::Input { rule, .. } => Some(*rule),
            Warning::DestructionCycle { .. } => Some(Rule::Td008),
            Warning::OwnershipGroup { .. } => Some(Rule::Td007),
            Warning::Relaxed { .. } => Some(Rule::Td012),
            Warning::SharedUid { .. } => Some(Rule::Td002),
            Warning::ToolOrder(_) => Some(Rule::Td016),
            Warning::ControllerStays { .. }
            | Warning::Managed { .. }
            | Warning::WebhookStays { .. }
            | Warning::FinalizerSameStep { .. }
            | Warning::KeepIgnored { .. }
            | Warning::Hangs { .. }
            | Warning::EndpointsRewritten { .. }
            | Warning::DependentStays { .. }
            | Warning::OwnerOutsideSnapshot { .. }
            | Warning::RecordOverPolicy { .. } => None,
        }
    }

    /// The objects it is about, by reference.
    pub fn refs<'a>(&'a self, names: &Names<'a>) -> Vec<&'a str> {
        match self {
            Warning::Input { refs, .. } => refs.iter().map(String::as_str).collect(),
            Warning::DestructionCycle { members, .. } | Warning::OwnershipGroup { members, .. } => {
                members.iter().map(|m| names.of(*m)).collect()
            }
            Warning::Relaxed { relaxed, .. } => vec![names.of(relaxed.from), names.of(relaxed.to)],
            Warning::Managed { app, .. } => vec![names.of(*app)],
            Warning::ControllerStays { object, controller: other }
            | Warning::WebhookStays { service: object, webhook: other, .. }
            | Warning::SharedUid { first: object, again: other, .. }
            | Warning::FinalizerSameStep { object, controller: other, .. }
            | Warning::EndpointsRewritten { endpoints: object, service: other }
            | Warning::DependentStays { object, dependent: other }
            | Warning::OwnerOutsideSnapshot { object, with: other, .. } => {
                vec![names.of(*object), names.of(*other)]
            }
            Warning::KeepIgnored { object, by: Ignored::With(_, other), .. } => {
                vec![names.of(*object), names.of(*other)]
            }
            Warning::KeepIgnored { object, .. } => vec![names.of(*object)],
            Warning::Hangs { holder, object, usage } => vec![names.of(*holder), names.of(*object), names.of(*usage)],
            Warning::ToolOrder(f) => f.refs(names),
            Warning::RecordOverPolicy { object, tracker, .. } => vec![names.of(*object), names.of(*tracker)],
        }
    }
}

/// Each warning's place among the plan's warnings: its kind's place (the
/// order [`collect`] and `plan::build` find them in), then the objects it
/// names in reference order (`rank`), not the order the inputs were read
/// in (tests/props_determinism.rs). Warnings about the input stay first,
/// in path order.
pub(super) fn sort(warnings: &mut [Warning], rank: &[u32]) {
    let at = |id: &ObjId| rank.get(id.index()).copied().unwrap_or(u32::MAX);
    warnings.sort_by_cached_key(|w| {
        let (kind, objects): (u8, Vec<ObjId>) = match w {
            Warning::Input { .. } => (0, Vec::new()),
            Warning::DestructionCycle { members, .. } | Warning::OwnershipGroup { members, .. } => (1, members.clone()),
            Warning::Relaxed { relaxed, .. } => (2, vec![relaxed.from, relaxed.to]),
            Warning::ControllerStays { object, controller: other }
            | Warning::EndpointsRewritten { endpoints: object, service: other } => (3, vec![*object, *other]),
            Warning::WebhookStays { service, webhook, .. } => (4, vec![*service, *webhook]),
            Warning::SharedUid { first, again, .. } => (5, vec![*first, *again]),
            Warning::FinalizerSameStep { object, controller, .. } => (6, vec![*object, *controller]),
            Warning::KeepIgnored { object, .. } => (7, vec![*object]),
            Warning::Hangs { holder, object, usage } => (8, vec![*holder, *object, *usage]),
            Warning::DependentStays { object, dependent } => (9, vec![*object, *dependent]),
            Warning::OwnerOutsideSnapshot { object, with, .. } => (10, vec![*object, *with]),
            Warning::ToolOrder(_) => (11, Vec::new()),
            Warning::RecordOverPolicy { object, tracker, .. } => (12, vec![*object, *tracker]),
            Warning::Managed { app, .. } => (13, vec![*app]),
        };
        (kind, objects.iter().map(at).collect::<Vec<u32>>())
    });
}

/// A finding about the input as a plan's warning, at its place (`None`:
/// a fatal finding with no place, which stops the plan instead).
pub(super) fn carried(snapshot: &Snapshot, f: &crate::findings::Finding) -> Option<Warning> {
    if let Some(l) = &f.primary {
        let file = snapshot.sources.get(l.span.file);
        let lc = file.line_col(l.span.start);
        Some(Warning::Input {
            rule: f.rule,
            file: file.name.clone(),
            line: lc.line,
            column: lc.column,
            message: f.message.clone(),
            refs: f.refs.clone(),
        })
    } else if let (Some(file), false) = (&f.file, f.fatal) {
        // A file or directory not read (a FIFO, a directory without
        // files): no line to point at; the message names it.
        Some(Warning::Input {
            rule: f.rule,
            file: file.clone(),
            line: 0,
            column: 0,
            message: f.message.clone(),
            refs: f.refs.clone(),
        })
    } else {
        None
    }
}

/// What warnings are found in.
pub(super) struct Context<'a> {
    pub snapshot: &'a Snapshot,
    pub relations: &'a [Relation],
    /// The graph of `relations`, made only when a warning needs it (not
    /// under `--all`).
    pub graph: &'a LazyGraph,
    pub cascade: &'a Cascade,
    pub order: &'a Order,
    /// `--all`: nothing stays, so no controller recreates anything.
    pub all: bool,
    /// Does the snapshot hold a Kubernetes object? (Only one calls a Service.)
    pub kubernetes: bool,
}

/// The plan's warnings, in order: findings about the input, grouped
/// cycles, relaxed edges, controllers that stay, webhook configurations
/// that stay, shared uids.
pub(super) fn collect(cx: &Context) -> Vec<Warning> {
    let (snapshot, relations, cascade) = (cx.snapshot, cx.relations, cx.cascade);
    let objects = &snapshot.objects;
    let mut warnings = Vec::new();
    warnings.extend(snapshot.findings.iter().filter_map(|f| carried(snapshot, f)));
    // The findings not listed: how many.
    for (rule, n) in snapshot.omitted.by_rule() {
        let message = crate::findings::Omitted::line(rule, n);
        warnings.push(Warning::Input { rule, file: String::new(), line: 0, column: 0, message, refs: Vec::new() });
    }
    for g in &cx.order.groups {
        let step = g.members.first().map_or(0, |m| cx.order.step_of(*m));
        let members = g.members.clone();
        warnings.push(match g.kind {
            GroupKind::Destruction => Warning::DestructionCycle { members, step },
            GroupKind::Ownership => Warning::OwnershipGroup { members, step },
        });
    }
    // Relation and object ids below were made with these relations and
    // objects: every `get` finds its entry.
    let relation = |r: u32| relations.get(r as usize);
    for (&r, because) in cx.order.relaxed.iter().zip(&cx.order.relaxed_because) {
        let Some(&relaxed) = relation(r) else { continue };
        warnings.push(Warning::Relaxed { relaxed, because: because.and_then(relation).copied() });
    }
    // A deleted object whose controller stays is recreated by it — but a
    // DaemonSet makes no Pod for a Node that is gone: the Pods the pod
    // garbage collector takes with their Node are not recreated. Endpoints
    // whose Service stays and selects Pods are written again by the
    // endpoints controller.
    if !cx.all {
        let graph = cx.graph.get(relations);
        let mut owners = Vec::new();
        for (i, (cause, o)) in cascade.cause.iter().zip(objects).enumerate() {
            let Some(cause) = cause else { continue };
            let id = ObjId(i as u32);
            let with_node = match cause {
                Cause::Relation(r) => {
                    relation(*r).is_some_and(|r| r.kind == RelKind::Controller(ControllerEdge::NodePods))
                }
                _ => false,
            };
            graph.dependencies_into(id, &mut owners);
            for &r in &owners {
                let Some(rel) = relation(r) else { continue };
                let Some(controller) = objects.get(rel.from.index()) else { continue };
                let daemon = with_node && &*controller.group == "apps" && &*controller.kind == "DaemonSet";
                // (An application object's managed set counts: its
                // controller applies it again.)
                if matches!(rel.kind, RelKind::Owns | RelKind::Manages)
                    && rel.controller
                    && rel.link == Link::Solid
                    && !cascade.deleted(rel.from)
                    && controller.deletion_timestamp.is_none()
                    && !daemon
                {
                    warnings.push(Warning::ControllerStays { object: id, controller: rel.from });
                }
            }
            let endpoints = o.is_kubernetes() && o.group.is_empty() && &*o.kind == "Endpoints";
            for r in graph.around(id).filter(|_| endpoints).filter_map(relation) {
                let Some(service) = objects.get(r.to.index()) else { continue };
                if r.kind == RelKind::Controller(ControllerEdge::ServiceEndpoints)
                    && r.from == id
                    && !cascade.deleted(r.to)
                    && service.deletion_timestamp.is_none()
                    && service.facts.as_deref().is_some_and(|f| f.selects())
                {
                    warnings.push(Warning::EndpointsRewritten { endpoints: id, service: r.to });
                }
            }
        }
    }
    if cx.kubernetes {
        warnings.extend(webhooks_stay(objects, cascade));
    }
    if !cx.all {
        warnings.extend(dependents_stay(objects, relations, cascade));
    }
    // One uid on objects of other coordinates: references went by coordinates.
    for d in snapshot.resolved.duplicates.iter().filter(|d| d.by_uid) {
        if cascade.deleted(d.first) || cascade.deleted(d.again) {
            let uid = objects.get(d.first.index()).and_then(|o| o.uid.clone()).unwrap_or_else(|| Str::from(""));
            warnings.push(Warning::SharedUid { first: d.first, again: d.again, uid });
        }
    }
    warnings
}

/// Webhook configurations and APIServices that stay (not deleted, nor being
/// deleted) and call a Service the plan deletes, with a call that fails
/// closed (a webhook's `failurePolicy: Fail`; an APIService always): in
/// object order, then in the order the calls are written.
fn webhooks_stay(objects: &[Object], cascade: &Cascade) -> Vec<Warning> {
    let staying = |(i, o): &(usize, &Object)| {
        o.is_kubernetes()
            && calls_services(&o.group, &o.kind)
            && !cascade.deleted(ObjId(*i as u32))
            && o.deletion_timestamp.is_none()
    };
    let calls: Vec<(ObjId, &ServiceCall, bool)> = objects
        .iter()
        .enumerate()
        .filter(staying)
        .flat_map(|(i, o)| {
            let api_service = &*o.kind == "APIService";
            o.facts.iter().flat_map(|f| f.calls().iter()).map(move |c| (ObjId(i as u32), c, api_service))
        })
        .filter(|(_, c, _)| c.fails_closed)
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let wanted: FxHashSet<(&str, &str)> = calls.iter().map(|(_, c, _)| (&*c.namespace, &*c.name)).collect();
    let deleted: FxHashMap<(&str, &str), ObjId> = objects
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            o.is_kubernetes() && o.group.is_empty() && &*o.kind == "Service" && cascade.deleted(ObjId(*i as u32))
        })
        .filter_map(|(i, o)| {
            let key = (o.namespace.as_deref()?, &*o.name);
            wanted.contains(&key).then_some((key, ObjId(i as u32)))
        })
        .collect();
    calls
        .into_iter()
        .filter_map(|(webhook, c, api_service)| {
            let &service = deleted.get(&(&*c.namespace, &*c.name))?;
            Some(Warning::WebhookStays { service, webhook, api_service })
        })
        .collect()
}

/// Deleted objects that an object the plan keeps depends on: a destruction dependency (`depends-on`, `destroyAfter`)
/// whose `from` goes while its `to` stays, in relation order. Not for a
/// Murano subscriber: it subscribed to be notified of that destruction.
fn dependents_stay(objects: &[Object], relations: &[Relation], cascade: &Cascade) -> Vec<Warning> {
    let mut seen = FxHashSet::default();
    relations
        .iter()
        .filter(|r| r.kind == RelKind::DestroyAfter && cascade.deleted(r.from) && !cascade.deleted(r.to))
        .filter(|r| objects.get(r.to.index()).is_some_and(|o| o.member.is_none()))
        .filter(|r| seen.insert((r.from, r.to)))
        .map(|r| Warning::DependentStays { object: r.from, dependent: r.to })
        .collect()
}

/// Dependents the cascade deletes with an owner (`--multi-owner all`) that
/// also name an owner the snapshot lacks (TD003): the plan counts it gone,
/// as it must to list everything that may go; the cluster keeps the
/// dependent if it has that owner. Not with `--closed-world`, nor under
/// `--gc`, which keeps such a dependent instead.
pub(super) fn owners_outside(
    snapshot: &Snapshot,
    relations: &[Relation],
    cascade: &Cascade,
    multi_owner: MultiOwner,
) -> Vec<Warning> {
    let objects = &snapshot.objects;
    let mut seen = FxHashSet::default();
    let mut out = Vec::new();
    for &(id, decl) in snapshot.resolved.missing_owners.iter() {
        let Some(Some(Cause::Relation(r))) = cascade.cause.get(id.index()) else { continue };
        let Some(rel) = relations.get(*r as usize).filter(|r| r.kind == RelKind::Owns) else { continue };
        let Some(o) = objects.get(id.index()) else { continue };
        if multi_owner.any_owner(o) || !seen.insert(id) {
            continue;
        }
        out.push(Warning::OwnerOutsideSnapshot { object: id, with: rel.from, owner: o.owner_reference(decl as usize) });
    }
    out
}
