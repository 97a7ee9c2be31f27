//! Murano's events (CONTRACT §4): who is warned, notified and told about
//! each destruction, in the order it happens; and the destroyed objects
//! that surviving objects still refer to.

use crate::analysis::cascade::Cascade;
use crate::analysis::gc;
use crate::model::{ObjId, Object, RelKind, Relation};
use std::collections::HashMap;

/// What a Murano subscriber is told about an object's destruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// Before anything is destroyed: the object will be.
    Warned,
    /// Just before the object is destroyed (its handler is called).
    Notified,
    /// The object itself is destroyed.
    Destroyed,
    /// After: the object was destroyed.
    ToldDestroyed,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Warned => "warned",
            EventKind::Notified => "notified",
            EventKind::Destroyed => "destroyed",
            EventKind::ToldDestroyed => "told-destroyed",
        }
    }
}

/// One event of a Murano destruction, in the order they happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: EventKind,
    /// The step of the destroyed object.
    pub step: u32,
    /// The destroyed object.
    pub object: ObjId,
    /// Who is told (not for `Destroyed`).
    pub subscriber: Option<ObjId>,
    /// The handlers named by the subscriber's subscriptions to the object
    /// (for `Notified`): it is told once, however many it holds.
    pub handlers: Vec<crate::model::Str>,
}

/// Murano's notifications (CONTRACT §4): for every destroyed object B and
/// each subscriber A of B's destruction, A is warned before anything is
/// destroyed, notified (its handler called) just before B, and told after.
/// Subscribers are told in the order of B's `onDestruction` list (the
/// first subscription of each), with every handler they name, in that
/// order (Murano's executor walks the list). In a cycle of destruction
/// dependencies (`cycles`), every handler for a member is called before
/// the first member is destroyed.
pub(super) fn destruction_events(
    objects: &[Object],
    relations: &[Relation],
    steps: &[Vec<ObjId>],
    cycles: &[Vec<ObjId>],
) -> Vec<Event> {
    if !objects.iter().any(|o| o.member.is_some()) {
        return Vec::new();
    }
    // Each object's subscriptions: (where in its list, subscriber, handler).
    type Listed<'a> = Vec<(u64, ObjId, Option<&'a crate::model::Str>)>;
    let mut listed: HashMap<ObjId, Listed> = HashMap::new();
    // (Relations are between objects of `objects`: every `get` finds one.)
    for r in relations {
        let Some(m) = objects.get(r.declared_by.index()).and_then(|o| o.member.as_deref()) else { continue };
        if r.kind != RelKind::DestroyAfter || r.to != r.declared_by {
            continue;
        }
        if objects.get(r.from.index()).and_then(|o| o.member.as_deref()).is_some_and(|s| s.destroyed) {
            continue; // a destroyed subscriber hears nothing
        }
        let handler = m.handlers.get(r.decl as usize).and_then(Option::as_ref);
        listed.entry(r.to).or_default().push((2 * u64::from(r.decl) + 1, r.from, handler));
    }
    for (i, o) in objects.iter().enumerate() {
        let Some(m) = o.member.as_deref() else { continue };
        if let Some(own) = m.own_destruction.as_deref() {
            let b = ObjId(i as u32);
            let at = 2 * u64::from(m.own_at);
            let entries = listed.entry(b).or_default();
            entries.push((at, b, None));
            entries.extend(own.iter().map(|h| (at, b, Some(h))));
        }
    }
    // Subscribers of each object, once each, with every handler they name.
    type Subscribers = Vec<(ObjId, Vec<crate::model::Str>)>;
    let mut subscribers: HashMap<ObjId, Subscribers> = HashMap::new();
    for (b, mut entries) in listed {
        // (Stable: one subscriber's own handlers keep their order.)
        entries.sort_by_key(|e| e.0);
        let subs = subscribers.entry(b).or_default();
        for (_, a, handler) in entries {
            let at = match subs.iter().position(|(s, _)| *s == a) {
                Some(at) => at,
                None => {
                    subs.push((a, Vec::new()));
                    subs.len() - 1
                }
            };
            if let (Some((_, handlers)), Some(h)) = (subs.get_mut(at), handler) {
                if !handlers.contains(h) {
                    handlers.push(h.clone());
                }
            }
        }
    }
    let none = Vec::new();
    let destroyed = || {
        steps.iter().enumerate().flat_map(|(k, step)| {
            let member = |b: &&ObjId| objects.get(b.index()).is_some_and(|o| o.member.is_some());
            step.iter().filter(member).map(move |&b| (k as u32 + 1, b))
        })
    };
    // The members of each cycle, in the order they are destroyed.
    let mut cycle_of: HashMap<ObjId, usize> = HashMap::new();
    for (c, members) in cycles.iter().enumerate() {
        cycle_of.extend(members.iter().map(|&m| (m, c)));
    }
    let mut in_cycle: Vec<Vec<(u32, ObjId)>> = vec![Vec::new(); cycles.len()];
    for (step, b) in destroyed() {
        if let Some(members) = cycle_of.get(&b).and_then(|&c| in_cycle.get_mut(c)) {
            members.push((step, b));
        }
    }
    let mut events = Vec::new();
    let event = |kind, step, object, subscriber, handlers| Event { kind, step, object, subscriber, handlers };
    for (step, b) in destroyed() {
        for (a, _) in subscribers.get(&b).unwrap_or(&none) {
            events.push(event(EventKind::Warned, step, b, Some(*a), Vec::new()));
        }
    }
    let notify = |events: &mut Vec<Event>, step: u32, b: ObjId| {
        for (a, handlers) in subscribers.get(&b).unwrap_or(&none) {
            events.push(event(EventKind::Notified, step, b, Some(*a), handlers.clone()));
        }
    };
    for (step, b) in destroyed() {
        match cycle_of.get(&b).and_then(|&c| in_cycle.get_mut(c)) {
            // The first member of its cycle to go: every member's handlers now.
            Some(members) => {
                for (s, m) in std::mem::take(members) {
                    notify(&mut events, s, m);
                }
            }
            None => notify(&mut events, step, b),
        }
        events.push(event(EventKind::Destroyed, step, b, None, Vec::new()));
        for (a, _) in subscribers.get(&b).unwrap_or(&none) {
            events.push(event(EventKind::ToldDestroyed, step, b, Some(*a), Vec::new()));
        }
    }
    events
}

/// Murano objects the plan destroys that objects it keeps still refer to by
/// id: they stay in the model, marked `destroyed: true` (CONTRACT §7); with
/// those objects, in reference order.
pub(super) fn still_referenced(objects: &[Object], cascade: &Cascade, rank: &[u32]) -> HashMap<ObjId, Vec<ObjId>> {
    let mut by: HashMap<ObjId, Vec<ObjId>> = HashMap::new();
    if !objects.iter().any(|o| o.member.is_some()) {
        return by;
    }
    for (i, (o, targets)) in objects.iter().zip(gc::references(objects)).enumerate() {
        let from = ObjId(i as u32);
        let alive = !cascade.deleted(from) && !o.member.as_deref().is_some_and(|m| m.destroyed);
        if !alive {
            continue;
        }
        for t in targets {
            if cascade.deleted(t) {
                by.entry(t).or_default().push(from);
            }
        }
    }
    for froms in by.values_mut() {
        froms.sort_by_key(|f| rank.get(f.index()));
        froms.dedup();
    }
    by
}
