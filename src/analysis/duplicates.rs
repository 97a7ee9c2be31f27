//! Duplicates that cannot change a plan (issue 38): two different
//! documents with one identity (TD002) leave a `--delete` or `--prune`
//! plan alone when neither copy can reach it. Right or refused: a
//! duplicate is set aside only when all of these hold, else it refuses
//! the plan.
//!
//! 1. The plan starts from chosen objects (`--delete`, `--prune`): `--all`
//!    deletes every object, and `--gc` asks the collector about every one.
//! 2. Neither copy is an object whose content decides for others without a
//!    relation that says so: a CustomResourceDefinition (the kinds it
//!    defines, their scope, whether an owner reference's type is served),
//!    a webhook configuration or APIService (it calls Services by name), a
//!    Murano object (the model's tree and ids), an object of a tracking
//!    application (KubeVela's keeper reads trackers and Applications
//!    together); and both copies are read by one dialect (the collectors'
//!    rule can depend on which dialects a snapshot holds).
//! 3. Neither copy is joined to anything the plan touches: objects are
//!    joined by every relation the plan was made with (owner references,
//!    a Namespace's objects, a CRD's resources, the controllers' cascades,
//!    application controllers' managed sets and their records, destruction
//!    dependencies, finalizer controllers, the default rules and other
//!    tools' orders), in either direction and through any number of
//!    objects, and the copies of one identity are one object (a reference
//!    to the identity reaches whichever copy is kept). What the plan
//!    touches: its targets, what it deletes, keeps or orphans. One
//!    exception: a Namespace (or CRD) that the plan does not touch and
//!    that is in no relation but holding its objects joins nothing. Not
//!    deleted, it takes nothing; its objects do not count it as an owner;
//!    the order puts it after what it holds and nothing before it, so no
//!    chain of the order runs through it. (Without the exception every
//!    object of a namespace whose Namespace is in the dump would be joined.)
//!
//!    Objects the default rules and Crossplane's Usages read by name are
//!    joined too (a Service and its callers, a binding and the workloads
//!    of the ServiceAccounts it names, a Usage and what it names).
//!
//! Why that is enough: the cascade, the multi-owner rule, the order and
//! the warnings read an object's owners, dependents, dependencies and
//! their content, never an object no relation (or name, above) joins to
//! them; every
//! relation either copy takes part in is in the union of relations the
//! plan was made with (both copies are in the snapshot), so an identity
//! outside every joined part that touches the plan keeps that part's
//! relations the same whichever copy is dropped. A selector sees both
//! copies, so a copy it selects is a target (rule 3).

use crate::model::kube::{calls_services, is_binding, pod_spec_at};
use crate::model::managed::Managed;
use crate::model::resolve::Duplicate;
use crate::model::{ObjId, Object, RelKind, Relation};
use rustc_hash::FxHashMap;

/// Why a duplicate could change the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bearing {
    /// The plan deletes everything (`--all`) or asks about everything (`--gc`).
    Mode(&'static str),
    /// A copy decides for other objects by its content (rule 2): what it is.
    Kind(&'static str),
    /// A copy is this object, or is joined to it, and the plan touches it.
    Reaches(ObjId),
}

/// The duplicates of one plan, judged.
#[derive(Debug, Default)]
pub struct Judged {
    /// Duplicates that cannot change the plan, in the order given.
    pub inert: Vec<Duplicate>,
    /// Duplicates that could, each with why, in the order given.
    pub bearing: Vec<(Duplicate, Bearing)>,
}

/// What a plan was made from, for [`judge`].
pub struct Made<'a> {
    pub objects: &'a [Object],
    /// Every relation the plan was made with.
    pub relations: &'a [Relation],
    pub managed: &'a Managed,
    /// `Some(mode)`: the plan starts from every object (rule 1).
    pub everything: Option<&'static str>,
    /// By object: does the plan touch it (a target, deleted, kept, orphaned)?
    pub touched: &'a [bool],
}

/// Judge `duplicates` (TD002 pairs of one snapshot) against the plan `made`.
pub fn judge(made: &Made, duplicates: &[Duplicate]) -> Judged {
    let mut judged = Judged::default();
    if duplicates.is_empty() {
        return judged;
    }
    let n = made.objects.len();
    let touched = |id: ObjId| made.touched.get(id.index()).copied().unwrap_or(false);
    let holds = |r: &Relation| matches!(r.kind, RelKind::Contains | RelKind::Defines);
    // Objects in a relation other than holding (a Namespace its objects, a
    // CRD its resources).
    let mut related = vec![false; n];
    for r in made.relations.iter().filter(|r| !holds(r)) {
        for id in [r.from, r.to, r.declared_by] {
            if let Some(slot) = related.get_mut(id.index()) {
                *slot = true;
            }
        }
    }
    for &(app, record) in &made.managed.records {
        for id in [app, record] {
            if let Some(slot) = related.get_mut(id.index()) {
                *slot = true;
            }
        }
    }
    let mut joined = Joined::new(n);
    for r in made.relations {
        // A holder the plan does not touch, in no other relation, joins
        // nothing: not deleted, it takes nothing; the order puts it after
        // what it holds and nothing before it, so no order runs through it.
        if holds(r) && !touched(r.from) && !related.get(r.from.index()).copied().unwrap_or(true) {
            continue;
        }
        joined.union(r.from, r.to);
        joined.union(r.from, r.declared_by);
    }
    for &(app, record) in &made.managed.records {
        joined.union(app, record);
    }
    for u in super::tools::usages(made.objects) {
        for other in u.of.into_iter().chain(u.by) {
            joined.union(u.usage, other);
        }
    }
    couple_by_name(made.objects, &mut joined);
    for d in duplicates {
        joined.union(d.first, d.again);
    }
    // Of each joined part, the first object the plan touches.
    let mut touches: Vec<Option<ObjId>> = vec![None; n];
    for (i, _) in made.touched.iter().enumerate().filter(|(_, t)| **t) {
        let id = ObjId(i as u32);
        let root = joined.find(id);
        if let Some(slot) = touches.get_mut(root.index()) {
            slot.get_or_insert(id);
        }
    }
    for d in duplicates {
        let bearing = match made.everything {
            Some(mode) => Some(Bearing::Mode(mode)),
            None => content_decides(made.objects, d).map(Bearing::Kind).or_else(|| {
                // A copy the plan touches itself, else the first object
                // of its part that the plan touches.
                let itself = [d.first, d.again].into_iter().find(|&c| touched(c));
                itself.or_else(|| touches.get(joined.find(d.first).index()).copied().flatten()).map(Bearing::Reaches)
            }),
        };
        match bearing {
            Some(why) => judged.bearing.push((*d, why)),
            None => judged.inert.push(*d),
        }
    }
    judged
}

/// What the plan reads by name rather than through a relation, joined: a
/// Crossplane Usage and what it names (it keeps `of` even without the
/// tools' order, `--no-default-rules`); a Service and the webhook
/// configurations and APIServices that call it (its selector picks the
/// workloads the default rules order them before); a RoleBinding or
/// ClusterRoleBinding and the workloads that run as a ServiceAccount it
/// names (it picks the roles ordered after them).
fn couple_by_name(objects: &[Object], joined: &mut Joined) {
    type Key<'a> = (&'a str, &'a str);
    let mut services: FxHashMap<Key, Vec<ObjId>> = FxHashMap::default();
    let mut runs_as: FxHashMap<Key, Vec<ObjId>> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes()) {
        let (id, ns) = (ObjId(i as u32), o.namespace.as_deref().unwrap_or(""));
        if o.group.is_empty() && &*o.kind == "Service" {
            services.entry((ns, &o.name)).or_default().push(id);
        }
        if pod_spec_at(&o.group, &o.kind).is_some() {
            let account = o.facts.as_deref().and_then(|f| f.service_account().as_deref()).unwrap_or("default");
            runs_as.entry((ns, account)).or_default().push(id);
        }
    }
    for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes()) {
        let (id, Some(f)) = (ObjId(i as u32), o.facts.as_deref()) else { continue };
        if calls_services(&o.group, &o.kind) {
            for c in f.calls().iter() {
                services.get(&(&*c.namespace, &*c.name)).into_iter().flatten().for_each(|&s| joined.union(id, s));
            }
        }
        if is_binding(&o.group, &o.kind) {
            for (ns, name) in f.subjects().iter() {
                runs_as.get(&(&**ns, &**name)).into_iter().flatten().for_each(|&w| joined.union(id, w));
            }
        }
    }
}

/// Rule 2: what a copy is when its content decides for other objects
/// without a relation (or the copies are read by two dialects).
fn content_decides(objects: &[Object], d: &Duplicate) -> Option<&'static str> {
    let (Some(a), Some(b)) = (objects.get(d.first.index()), objects.get(d.again.index())) else {
        return Some("an object teardown cannot find");
    };
    if a.origin.dialect != b.origin.dialect {
        return Some("read by two dialects");
    }
    [a, b].into_iter().find_map(|o| {
        if o.crd.is_some() || (o.is_kubernetes() && &*o.kind == "CustomResourceDefinition") {
            Some("a CustomResourceDefinition: it decides the kinds it defines, their scope and which owner references are served")
        } else if o.is_kubernetes() && calls_services(&o.group, &o.kind) {
            Some("a webhook configuration or APIService: it calls Services by name")
        } else if o.member.is_some() {
            Some("a Murano object: the model's tree and ids decide together")
        } else if o.tracking.is_some() {
            Some("an object of a tracking application: its keeper reads trackers and Applications together")
        } else {
            None
        }
    })
}

/// Objects joined into parts (union–find, path halving).
struct Joined {
    parent: Vec<u32>,
}

impl Joined {
    fn new(n: usize) -> Joined {
        Joined { parent: (0..n as u32).collect() }
    }

    fn find(&mut self, id: ObjId) -> ObjId {
        let mut x = id.0;
        while let Some(&p) = self.parent.get(x as usize) {
            if p == x {
                break;
            }
            let grand = self.parent.get(p as usize).copied().unwrap_or(p);
            if let Some(slot) = self.parent.get_mut(x as usize) {
                *slot = grand;
            }
            x = grand;
        }
        ObjId(x)
    }

    fn union(&mut self, a: ObjId, b: ObjId) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        // The smaller id is the root: the same parts whatever the order of unions.
        let (root, child) = if ra.0 < rb.0 { (ra, rb) } else { (rb, ra) };
        if let Some(slot) = self.parent.get_mut(child.index()) {
            *slot = root.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_through_any_number_of_objects() {
        let mut j = Joined::new(6);
        j.union(ObjId(4), ObjId(2));
        j.union(ObjId(2), ObjId(5));
        j.union(ObjId(0), ObjId(1));
        assert_eq!(j.find(ObjId(5)), j.find(ObjId(4)));
        assert_ne!(j.find(ObjId(5)), j.find(ObjId(0)));
        assert_eq!(j.find(ObjId(3)), ObjId(3));
        j.union(ObjId(1), ObjId(5));
        assert_eq!(j.find(ObjId(4)), j.find(ObjId(0)));
    }
}
