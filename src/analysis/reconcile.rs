//! crd-reconciler's decision table (`teardown reconcile`, CONTRACT §5), as
//! the seed document "Reconciliation" writes it: for each sub-resource of a
//! custom resource, the rules are tried top to bottom and the first that
//! matches gives the action. The table is data ([`RULES`]); this module
//! finds the custom resources and their sub-resources, tells the facts
//! each rule looks at, and decides.
//!
//! How the table's words are read:
//! - *CR desired*: `Does not exist` when the custom resource is absent from
//!   the snapshot (a sub-resource's controller reference names it and
//!   nothing solid is there), `Deleting` when it has a deletionTimestamp,
//!   else its `spec.state`;
//! - *CR status*: its `status.state` (unwritten: only `*` matches);
//! - *sub-resource current state*: `Deleting` (a deletionTimestamp), `Does
//!   not exist` (named by `--desired`, absent from the snapshot), else the
//!   state its status tells ([`crate::model::lifecycle::Observed`]);
//!   *Non-terminal* is Pending or Running; a state that cannot be told (a
//!   Pod in phase Unknown) matches only `*`;
//! - *Ephemeral*: the sub-resource's kind is;
//! - *Spec matches*: the desired sub-resource (`--desired`) is contained in
//!   the live one ([`compare`]); without a desired one, it matches.
//!
//! All sub-resources are decided on the snapshot as it is. When several ask
//! to set the custom resource's state, Failed wins, then Pending, Running,
//! Completed (a failure is terminal; Completed tears every sub-resource
//! down, so it needs every ask).

use crate::input::Node;
use crate::model::lifecycle::{Lifecycle, Observed, Said, State};
use crate::model::{Link, ObjId, Object, RelKind, Relation};
use serde::Serialize;
use std::collections::HashMap;

/// The *CR desired* column's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Desired {
    State(State),
    Deleting,
    DoesNotExist,
}

/// A sub-resource's current state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum SubState {
    State(State),
    Deleting,
    DoesNotExist,
    /// Its status tells no state (a Pod in phase Unknown).
    Unknown,
}

/// What a rule asks of the sub-resource's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubPattern {
    Any,
    Is(State),
    /// Pending or Running.
    NonTerminal,
    Deleting,
    DoesNotExist,
}

/// What the controller does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Action {
    Nothing,
    DeleteSubResource,
    UpdateSubResource,
    RecreateSubResource,
    /// Set the custom resource's state.
    SetState(State),
}

/// One row of the table. `None`: `*`.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// Its row, from 1.
    pub row: u8,
    pub desired: Option<Desired>,
    pub status: Option<State>,
    pub sub: SubPattern,
    pub ephemeral: Option<bool>,
    /// `Some(true)`: spec matches; `Some(false)`: spec mismatch.
    pub spec_matches: Option<bool>,
    pub action: Action,
}

const fn rule(
    row: u8,
    desired: Option<Desired>,
    status: Option<State>,
    sub: SubPattern,
    ephemeral: Option<bool>,
    spec_matches: Option<bool>,
    action: Action,
) -> Rule {
    Rule { row, desired, status, sub, ephemeral, spec_matches, action }
}

use Action::*;
use State::*;
use SubPattern as S;

/// The table, top to bottom.
#[rustfmt::skip]
pub const RULES: [Rule; 18] = [
    rule(1,  Some(Desired::State(Failed)),    None,            S::Any,               None,        None,        Nothing),
    rule(2,  None,                            Some(Failed),    S::Any,               None,        None,        DeleteSubResource),
    rule(3,  Some(Desired::State(Pending)),   None,            S::Any,               None,        None,        Nothing),
    rule(4,  None,                            Some(Completed), S::Any,               None,        None,        DeleteSubResource),
    rule(5,  Some(Desired::Deleting),         None,            S::Any,               None,        None,        DeleteSubResource),
    rule(6,  Some(Desired::DoesNotExist),     None,            S::Any,               None,        None,        DeleteSubResource),
    rule(7,  None,                            Some(Running),   S::Is(Pending),       None,        Some(true),  SetState(Pending)),
    rule(8,  None,                            Some(Pending),   S::Is(Running),       None,        Some(true),  SetState(Running)),
    rule(9,  None,                            None,            S::NonTerminal,       Some(true),  Some(false), UpdateSubResource),
    rule(10, None,                            None,            S::NonTerminal,       Some(false), Some(false), SetState(Failed)),
    rule(11, None,                            None,            S::Deleting,          Some(true),  None,        Nothing),
    rule(12, None,                            None,            S::Deleting,          Some(false), None,        SetState(Failed)),
    rule(13, None,                            None,            S::DoesNotExist,      Some(true),  None,        RecreateSubResource),
    rule(14, None,                            Some(Running),   S::DoesNotExist,      Some(false), None,        SetState(Failed)),
    rule(15, None,                            None,            S::Is(Failed),        Some(true),  None,        RecreateSubResource),
    rule(16, None,                            None,            S::Is(Failed),        Some(false), None,        SetState(Failed)),
    rule(17, Some(Desired::State(Running)),   None,            S::Is(Completed),     None,        None,        Nothing),
    rule(18, Some(Desired::State(Completed)), None,            S::Is(Completed),     None,        None,        SetState(Completed)),
];

/// What the rules look at, for one sub-resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    pub desired: Desired,
    pub status: Option<State>,
    pub sub: SubState,
    pub ephemeral: bool,
    pub spec_matches: bool,
}

impl Rule {
    pub fn matches(&self, f: &Facts) -> bool {
        let sub = match self.sub {
            S::Any => true,
            S::Is(s) => f.sub == SubState::State(s),
            S::NonTerminal => matches!(f.sub, SubState::State(Pending | Running)),
            S::Deleting => f.sub == SubState::Deleting,
            S::DoesNotExist => f.sub == SubState::DoesNotExist,
        };
        self.desired.is_none_or(|d| d == f.desired)
            && self.status.is_none_or(|s| Some(s) == f.status)
            && sub
            && self.ephemeral.is_none_or(|e| e == f.ephemeral)
            && self.spec_matches.is_none_or(|m| m == f.spec_matches)
    }
}

/// The rows that match, in order: the first one decides.
pub fn matching(f: &Facts) -> Vec<u8> {
    RULES.iter().filter(|r| r.matches(f)).map(|r| r.row).collect()
}

/// How an object is named in the result.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Ident {
    pub reference: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
}

impl Ident {
    fn of(o: &Object) -> Ident {
        Ident {
            reference: o.reference(),
            kind: o.kind.to_string(),
            namespace: o.namespace.as_deref().map(str::to_string),
            name: o.name.to_string(),
            uid: o.uid.as_deref().map(str::to_string),
        }
    }
}

/// Why a custom resource a controller reference names does not exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Absence {
    /// Nothing at its coordinates.
    NotInSnapshot,
    /// Something is there, with another uid: another incarnation.
    UidMismatch,
    /// The reference's owner is in another namespace (never solid).
    OtherNamespace,
}

/// The live sub-resource against the desired one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spec {
    /// No `--desired`: every spec matches.
    NotCompared,
    /// `--desired` has no such object: nothing to compare, it matches.
    NotInDesired,
    Matches,
    Mismatch(Mismatch),
    /// It does not exist: there is no spec.
    Absent,
}

impl Spec {
    pub fn matches(&self) -> bool {
        !matches!(self, Spec::Mismatch(_))
    }
}

/// The first place where the live object differs from the desired one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// `spec.template.spec.containers[0].image`.
    pub path: String,
    /// The live value as JSON; `None`: not there.
    pub live: Option<String>,
    pub desired: String,
}

/// One sub-resource and what the table does with it.
#[derive(Clone, Debug, Serialize)]
pub struct SubResource {
    pub object: Ident,
    pub state: SubState,
    /// What told its state (when it exists and is not being deleted).
    pub observed: Option<Observed>,
    pub ephemeral: bool,
    pub spec: Spec,
    /// Every row that matches, in order; the first decided.
    pub matched: Vec<u8>,
    /// The deciding row; `None`: no row matches (nothing is done).
    pub rule: Option<u8>,
    pub action: Action,
}

/// A change of the custom resource's state, asked by sub-resources.
#[derive(Clone, Debug, Serialize)]
pub struct StateChange {
    pub to: State,
    /// The sub-resources (indices into `subs`) that ask for it, and those
    /// that ask for another state (it lost: Failed, Pending, Running,
    /// Completed, in that order, win).
    pub asked_by: Vec<usize>,
    pub overruled: Vec<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CustomResource {
    pub object: Ident,
    /// `None`: it exists.
    pub absence: Option<Absence>,
    pub desired: Desired,
    pub status: Option<State>,
    pub subs: Vec<SubResource>,
    pub change: Option<StateChange>,
}

/// The decisions for every custom resource, ordered by reference.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Reconciliation {
    pub resources: Vec<CustomResource>,
    /// Objects of `--desired` that no custom resource is found for (no
    /// controller reference to one, and absent from the snapshot).
    pub unplaced: Vec<String>,
}

/// Input that cannot be reconciled: the command reports each at its place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A custom resource without `spec.state` (not being deleted).
    NoDesiredState(ObjId),
    /// A state field with a value that is not one of the four states.
    NotAState { object: ObjId, status: bool },
    /// A sub-resource with more than one controller reference to a custom
    /// resource: whose is it?
    TwoControllers(ObjId),
    /// Its document cannot be read again on its own (an alias of an anchor
    /// outside it): its states cannot be told.
    Unreadable(ObjId),
}

/// Which sub-resource of the desired objects is compared with which live one.
pub struct DesiredSet<'a> {
    pub objects: &'a [Object],
    /// Compare live object with desired object: `None` when either cannot
    /// be read again.
    pub compare: &'a dyn Fn(ObjId, ObjId) -> Option<Spec>,
}

pub struct Input<'a> {
    pub objects: &'a [Object],
    pub relations: &'a [Relation],
    /// Is this (group, kind) a custom resource's?
    pub custom: &'a dyn Fn(&str, &str) -> bool,
    /// Is this (group, kind) ephemeral?
    pub ephemeral: &'a dyn Fn(&str, &str) -> bool,
    /// An object's states, read again from its document (`None`: it cannot be).
    pub lifecycle: &'a dyn Fn(ObjId) -> Option<Lifecycle>,
    pub desired: Option<DesiredSet<'a>>,
}

/// Where a sub-resource belongs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Owner {
    Present(ObjId),
    /// Where the reference points (its reference includes the group).
    Absent(Ident),
}

/// The Kubernetes objects of the snapshot that are custom resources.
pub fn custom_resources(input: &Input) -> Vec<ObjId> {
    let objects = input.objects;
    objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_kubernetes() && (input.custom)(&o.group, &o.kind))
        .map(|(i, _)| ObjId(i as u32))
        .collect()
}

/// The decisions, or what in the input stops them.
pub fn reconcile(input: &Input) -> Result<Reconciliation, Vec<(Problem, ObjId)>> {
    let mut problems = Vec::new();
    let (crs, live_subs) = controlled(input, &mut problems);
    let found = match &input.desired {
        Some(desired) => counterparts(input, desired, &live_subs),
        None => Counterparts::default(),
    };
    let Counterparts { counterpart, missing, mut unplaced } = found;
    let mut resources = custom_resource_facts(input, &crs, &mut problems);
    let subs = Subs { live: live_subs, counterpart, missing };
    attach(input, subs, &mut resources, &mut problems);
    if !problems.is_empty() {
        problems.sort_by_key(|p| p.1);
        problems.dedup();
        return Err(problems);
    }
    let mut resources = decide(resources);
    resources.sort_by(|a, b| {
        a.object.reference.cmp(&b.object.reference).then(a.absence.is_some().cmp(&b.absence.is_some()))
    });
    unplaced.sort();
    Ok(Reconciliation { resources, unplaced })
}

/// Every custom resource (and every one a sub-resource names, with why it
/// is absent), and each live sub-resource's custom resource: each custom
/// resource gets its place in the result, so that no sub-resource is left
/// without one.
fn controlled(
    input: &Input,
    problems: &mut Vec<(Problem, ObjId)>,
) -> (HashMap<Owner, Option<Absence>>, HashMap<ObjId, Owner>) {
    let objects = input.objects;
    let mut crs: HashMap<Owner, Option<Absence>> = HashMap::new();
    for id in custom_resources(input) {
        crs.insert(Owner::Present(id), None);
    }
    // Controller references to a custom resource: the relation each resolved to.
    let mut resolved: HashMap<(ObjId, u32), (ObjId, Link)> = HashMap::new();
    for r in input.relations.iter().filter(|r| r.kind == RelKind::Owns && r.controller) {
        resolved.insert((r.declared_by, r.decl), (r.from, r.link));
    }
    let mut live_subs: HashMap<ObjId, Owner> = HashMap::new();
    for (i, o) in objects.iter().enumerate() {
        let id = ObjId(i as u32);
        if !o.is_kubernetes() {
            continue;
        }
        let mut controllers =
            o.owners.iter().enumerate().filter(|(_, r)| r.controller && (input.custom)(&r.group, &r.kind));
        let Some((j, controller)) = controllers.next() else { continue };
        if controllers.next().is_some() {
            problems.push((Problem::TwoControllers(id), id));
            continue;
        }
        let owner = match resolved.get(&(id, j as u32)) {
            Some(&(cr, Link::Solid)) => {
                crs.entry(Owner::Present(cr)).or_insert(None);
                Owner::Present(cr)
            }
            found => {
                let absence = match found.map(|f| f.1) {
                    Some(Link::CrossNamespace) => Absence::OtherNamespace,
                    Some(Link::UidMismatch) => Absence::UidMismatch,
                    _ => Absence::NotInSnapshot,
                };
                let owner = absent_owner(o, controller);
                crs.entry(owner.clone()).or_insert(Some(absence));
                owner
            }
        };
        live_subs.insert(id, owner);
    }
    (crs, live_subs)
}

/// The desired objects: each live sub-resource's counterpart, those
/// missing from the snapshot (with their custom resource), and those no
/// custom resource controls.
#[derive(Default)]
struct Counterparts {
    counterpart: HashMap<ObjId, ObjId>,
    missing: Vec<(Owner, ObjId)>,
    unplaced: Vec<String>,
}

fn counterparts(input: &Input, desired: &DesiredSet, live_subs: &HashMap<ObjId, Owner>) -> Counterparts {
    let objects = input.objects;
    let mut counterpart: HashMap<ObjId, ObjId> = HashMap::new();
    let mut missing: Vec<(Owner, ObjId)> = Vec::new();
    let mut unplaced = Vec::new();
    let live_by_ref: HashMap<String, ObjId> =
        live_subs.keys().filter_map(|&id| Some((objects.get(id.index())?.reference(), id))).collect();
    let all_live: std::collections::HashSet<String> =
        objects.iter().filter(|o| o.has_coordinates()).map(Object::reference).collect();
    // Kubernetes objects by group, kind and name, in input order: where
    // an absent sub-resource's custom resource is looked for.
    let mut by_name: HashMap<(&str, &str, &str), Vec<ObjId>> = HashMap::new();
    for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes()) {
        by_name.entry((&*o.group, &*o.kind, &*o.name)).or_default().push(ObjId(i as u32));
    }
    for (i, d) in desired.objects.iter().enumerate() {
        let did = ObjId(i as u32);
        if !d.is_kubernetes() || (input.custom)(&d.group, &d.kind) {
            continue;
        }
        let reference = d.reference();
        if let Some(&live) = live_by_ref.get(&reference) {
            counterpart.insert(live, did);
            continue;
        }
        if all_live.contains(&reference) {
            continue; // there, but no custom resource's sub-resource
        }
        let controller = d.owners.iter().find(|r| r.controller && (input.custom)(&r.group, &r.kind));
        let Some(r) = controller else {
            unplaced.push(reference);
            continue;
        };
        let present = by_name.get(&(&*r.group, &*r.kind, &*r.name)).and_then(|ids| {
            ids.iter()
                .copied()
                .find(|id| objects.get(id.index()).is_some_and(|o| o.namespace.is_none() || o.namespace == d.namespace))
        });
        // Neither the custom resource nor the sub-resource exists: nothing to do.
        if let Some(cr) = present {
            missing.push((Owner::Present(cr), did));
        }
    }
    Counterparts { counterpart, missing, unplaced }
}

/// The custom resources' own facts, each with its place.
fn custom_resource_facts(
    input: &Input,
    crs: &HashMap<Owner, Option<Absence>>,
    problems: &mut Vec<(Problem, ObjId)>,
) -> Vec<(Owner, CustomResource)> {
    let objects = input.objects;
    let mut resources = Vec::new();
    for (owner, absence) in crs {
        let (object, desired, status) = match owner {
            Owner::Present(id) => {
                // (An id that names no object is unreadable: its finding cannot be made either.)
                let (Some(o), Some(lc)) = (objects.get(id.index()), (input.lifecycle)(*id)) else {
                    problems.push((Problem::Unreadable(*id), *id));
                    continue;
                };
                let status = match lc.current {
                    Said::State(s) => Some(s),
                    Said::Absent => None,
                    Said::Other => {
                        problems.push((Problem::NotAState { object: *id, status: true }, *id));
                        None
                    }
                };
                let desired = match (o.deletion_timestamp.is_some(), lc.desired) {
                    (true, _) => Desired::Deleting,
                    (false, Said::State(s)) => Desired::State(s),
                    (false, Said::Absent) => {
                        problems.push((Problem::NoDesiredState(*id), *id));
                        continue;
                    }
                    (false, Said::Other) => {
                        problems.push((Problem::NotAState { object: *id, status: false }, *id));
                        continue;
                    }
                };
                (Ident::of(o), desired, status)
            }
            Owner::Absent(ident) => (ident.clone(), Desired::DoesNotExist, None),
        };
        resources.push((
            owner.clone(),
            CustomResource { object, absence: *absence, desired, status, subs: Vec::new(), change: None },
        ));
    }
    resources
}

/// The sub-resources: live ones with their custom resource, their
/// counterparts among the desired objects, the desired ones missing.
struct Subs {
    live: HashMap<ObjId, Owner>,
    counterpart: HashMap<ObjId, ObjId>,
    missing: Vec<(Owner, ObjId)>,
}

/// Each sub-resource's facts, under its custom resource.
fn attach(input: &Input, subs: Subs, resources: &mut [(Owner, CustomResource)], problems: &mut Vec<(Problem, ObjId)>) {
    let objects = input.objects;
    let Subs { live: live_subs, counterpart, missing } = subs;
    let at: HashMap<Owner, usize> = resources.iter().enumerate().map(|(i, (o, _))| (o.clone(), i)).collect();

    // Each sub-resource's facts and decision.
    let mut live: Vec<(ObjId, Owner)> = live_subs.into_iter().collect();
    live.sort_by_key(|(id, _)| *id);
    for (id, owner) in live {
        let Some(o) = objects.get(id.index()) else {
            problems.push((Problem::Unreadable(id), id));
            continue;
        };
        let (state, observed) = match o.deletion_timestamp.is_some() {
            true => (SubState::Deleting, None),
            false => {
                let Some(lc) = (input.lifecycle)(id) else {
                    problems.push((Problem::Unreadable(id), id));
                    continue;
                };
                match lc.observed.state() {
                    Some(s) => (SubState::State(s), Some(lc.observed)),
                    None => (SubState::Unknown, Some(lc.observed)),
                }
            }
        };
        let spec = match (&input.desired, counterpart.get(&id)) {
            (None, _) => Spec::NotCompared,
            (Some(_), None) => Spec::NotInDesired,
            (Some(d), Some(&did)) => match (d.compare)(id, did) {
                Some(spec) => spec,
                None => Spec::NotCompared,
            },
        };
        let sub = SubResource {
            object: Ident::of(o),
            state,
            observed,
            ephemeral: (input.ephemeral)(&o.group, &o.kind),
            spec,
            matched: Vec::new(),
            rule: None,
            action: Nothing,
        };
        if let Some((_, cr)) = at.get(&owner).and_then(|&i| resources.get_mut(i)) {
            cr.subs.push(sub);
        }
    }
    if let Some(d) = &input.desired {
        for (owner, did) in missing {
            let Some(o) = d.objects.get(did.index()) else { continue };
            let sub = SubResource {
                object: Ident::of(o),
                state: SubState::DoesNotExist,
                observed: None,
                ephemeral: (input.ephemeral)(&o.group, &o.kind),
                spec: Spec::Absent,
                matched: Vec::new(),
                rule: None,
                action: Nothing,
            };
            if let Some((_, cr)) = at.get(&owner).and_then(|&i| resources.get_mut(i)) {
                cr.subs.push(sub);
            }
        }
    }
}

/// Each sub-resource's matching rules and action, each custom resource's
/// state change.
fn decide(resources: Vec<(Owner, CustomResource)>) -> Vec<CustomResource> {
    let mut resources: Vec<CustomResource> = resources.into_iter().map(|(_, cr)| cr).collect();
    for cr in &mut resources {
        cr.subs.sort_by(|a, b| a.object.reference.cmp(&b.object.reference));
        for sub in &mut cr.subs {
            let facts = Facts {
                desired: cr.desired,
                status: cr.status,
                sub: sub.state,
                ephemeral: sub.ephemeral,
                spec_matches: sub.spec.matches(),
            };
            sub.matched = matching(&facts);
            sub.rule = sub.matched.first().copied();
            sub.action = sub.rule.and_then(|row| RULES.iter().find(|r| r.row == row)).map_or(Nothing, |r| r.action);
        }
        cr.change = state_change(&cr.subs);
    }
    resources
}

/// Where controller reference `r` of `o` points, when nothing solid is there.
fn absent_owner(o: &Object, r: &crate::model::OwnerRef) -> Owner {
    let group = if r.group.is_empty() { String::new() } else { format!(".{}", r.group) };
    let reference = match &o.namespace {
        Some(ns) => format!("{}{group}/{ns}/{}", r.kind, r.name),
        None => format!("{}{group}/{}", r.kind, r.name),
    };
    Owner::Absent(Ident {
        reference,
        kind: r.kind.to_string(),
        namespace: o.namespace.as_deref().map(str::to_string),
        name: r.name.to_string(),
        uid: None,
    })
}

/// The custom resource's new state, when sub-resources ask for one.
fn state_change(subs: &[SubResource]) -> Option<StateChange> {
    const PRECEDENCE: [State; 4] = [Failed, Pending, Running, Completed];
    let asks: Vec<(usize, State)> = subs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s.action {
            SetState(to) => Some((i, to)),
            _ => None,
        })
        .collect();
    let to = PRECEDENCE.into_iter().find(|p| asks.iter().any(|(_, s)| s == p))?;
    Some(StateChange {
        to,
        asked_by: asks.iter().filter(|(_, s)| *s == to).map(|(i, _)| *i).collect(),
        overruled: asks.iter().filter(|(_, s)| *s != to).map(|(i, _)| *i).collect(),
    })
}

/// Is `desired` contained in `live` (every field it sets has the same value
/// there; lists item by item, of the same length)? An empty or null desired
/// value matches an absent one. `None`: it is; else the first difference.
pub fn compare(live: &Node, desired: &Node) -> Option<Mismatch> {
    let mut path = String::new();
    differ(Some(live), desired, &mut path)
}

fn differ(live: Option<&Node>, desired: &Node, path: &mut String) -> Option<Mismatch> {
    let empty = match desired {
        Node::Null => true,
        Node::Map(m) => m.is_empty(),
        Node::Seq(s) => s.is_empty(),
        _ => false,
    };
    let mismatch = |path: &str| {
        Some(Mismatch { path: path.to_string(), live: live.map(Node::to_json), desired: desired.to_json() })
    };
    let Some(live) = live else {
        return if empty { None } else { mismatch(path) };
    };
    match (desired, live) {
        (Node::Map(want), Node::Map(_)) => {
            for (k, v) in want {
                let key = k.scalar().unwrap_or_else(|| k.to_json());
                let at = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&key);
                let found = live.as_map().and_then(|m| m.iter().find(|(lk, _)| lk == k)).map(|(_, lv)| lv);
                if let Some(m) = differ(found, v, path) {
                    return Some(m);
                }
                path.truncate(at);
            }
            None
        }
        (Node::Seq(want), Node::Seq(have)) if want.len() == have.len() => {
            for (i, (w, h)) in want.iter().zip(have).enumerate() {
                let at = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(m) = differ(Some(h), w, path) {
                    return Some(m);
                }
                path.truncate(at);
            }
            None
        }
        (Node::Number(a), Node::Number(b))
            if a.parse::<f64>().ok().zip(b.parse::<f64>().ok()).is_some_and(|(x, y)| x == y) =>
        {
            None
        }
        (Node::Null, Node::Null) => None,
        _ if empty && matches!(live, Node::Null) => None,
        (d, l) if d == l => None,
        _ => mismatch(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(desired: Desired, status: Option<State>, sub: SubState, ephemeral: bool, spec_matches: bool) -> Facts {
        Facts { desired, status, sub, ephemeral, spec_matches }
    }

    #[test]
    fn rows_are_in_order() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.row as usize, i + 1);
        }
    }

    #[test]
    fn first_match_wins() {
        let f = facts(Desired::State(Failed), Some(Failed), SubState::State(Running), true, true);
        assert_eq!(matching(&f)[..2], [1, 2]);
        let f = facts(Desired::State(Running), Some(Completed), SubState::Deleting, true, true);
        assert_eq!(matching(&f), [4, 11]);
    }

    #[test]
    fn nothing_matches_a_running_sub_resource_of_a_running_resource() {
        let f = facts(Desired::State(Running), Some(Running), SubState::State(Running), true, true);
        assert!(matching(&f).is_empty());
    }

    fn yaml(text: &str) -> Node {
        serde_yaml::from_str(text).expect("yaml")
    }

    #[test]
    fn desired_is_contained_in_live() {
        let live = yaml("spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x:1\n        terminationMessagePath: /dev/termination-log\n");
        assert_eq!(compare(&live, &yaml("spec:\n  replicas: 2.0\n  template:\n    spec:\n      containers:\n      - {name: a, image: x:1}\n")), None);
        let m =
            compare(&live, &yaml("spec:\n  template:\n    spec:\n      containers:\n      - {name: a, image: x:2}\n"));
        assert_eq!(
            m,
            Some(Mismatch {
                path: "spec.template.spec.containers[0].image".into(),
                live: Some("\"x:1\"".into()),
                desired: "\"x:2\"".into()
            })
        );
        assert_eq!(compare(&live, &yaml("spec:\n  paused: null\n  selector: {}\n")), None);
        assert_eq!(
            compare(&live, &yaml("spec:\n  paused: true\n")).map(|m| (m.path, m.live)),
            Some(("spec.paused".into(), None))
        );
    }
}
