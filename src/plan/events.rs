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
pub(super) fn murano_events(
    objects: &[Object],
    relations: &[Relation],
    steps: &[Vec<ObjId>],
    rank: &[u32],
) -> Vec<Event> {
    if !objects.iter().any(|o| o.murano.is_some()) {
        return Vec::new();
    }
    // Subscribers of each object, once each, with every handler they name,
    // in reference order.
    type Subscribers = Vec<(ObjId, Vec<crate::model::Str>)>;
    let mut subscribers: HashMap<ObjId, Subscribers> = HashMap::new();
    let mut add = |b: ObjId, a: ObjId, handler: Option<&crate::model::Str>| {
        let subs = subscribers.entry(b).or_default();
        let handlers = match subs.iter().position(|(s, _)| *s == a) {
            Some(at) => subs.get_mut(at),
            None => {
                subs.push((a, Vec::new()));
                subs.last_mut()
            }
        };
        if let (Some((_, handlers)), Some(h)) = (handlers, handler) {
            if !handlers.contains(h) {
                handlers.push(h.clone());
            }
        }
    };
    // (Relations are between objects of `objects`: every `get` finds one.)
    for r in relations {
        let Some(m) = objects.get(r.declared_by.index()).and_then(|o| o.murano.as_deref()) else { continue };
        if r.kind != RelKind::DestroyAfter || r.to != r.declared_by {
            continue;
        }
        if objects.get(r.from.index()).and_then(|o| o.murano.as_deref()).is_some_and(|s| s.destroyed) {
            continue; // a destroyed subscriber hears nothing
        }
        add(r.to, r.from, m.handlers.get(r.decl as usize).and_then(Option::as_ref));
    }
    for (i, o) in objects.iter().enumerate() {
        if let Some(own) = o.murano.as_deref().and_then(|m| m.own_destruction.as_deref()) {
            let b = ObjId(i as u32);
            add(b, b, None);
            for h in own {
                add(b, b, Some(h));
            }
        }
    }
    // `rank` has one entry per object: every key is `Some`.
    let rank = |id: ObjId| rank.get(id.index()).copied();
    for subs in subscribers.values_mut() {
        subs.sort_by_key(|(s, _)| rank(*s));
    }
    let none = Vec::new();
    let destroyed = || {
        steps.iter().enumerate().flat_map(|(k, step)| {
            let murano = |b: &&ObjId| objects.get(b.index()).is_some_and(|o| o.murano.is_some());
            step.iter().filter(murano).map(move |&b| (k as u32 + 1, b))
        })
    };
    let mut events = Vec::new();
    let event = |kind, step, object, subscriber, handlers| Event { kind, step, object, subscriber, handlers };
    for (step, b) in destroyed() {
        for (a, _) in subscribers.get(&b).unwrap_or(&none) {
            events.push(event(EventKind::Warned, step, b, Some(*a), Vec::new()));
        }
    }
    for (step, b) in destroyed() {
        let subs = subscribers.get(&b).unwrap_or(&none);
        for (a, handlers) in subs {
            events.push(event(EventKind::Notified, step, b, Some(*a), handlers.clone()));
        }
        events.push(event(EventKind::Destroyed, step, b, None, Vec::new()));
        for (a, _) in subs {
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
    if !objects.iter().any(|o| o.murano.is_some()) {
        return by;
    }
    for (i, (o, targets)) in objects.iter().zip(gc::references(objects)).enumerate() {
        let from = ObjId(i as u32);
        let alive = !cascade.deleted(from) && !o.murano.as_deref().is_some_and(|m| m.destroyed);
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
