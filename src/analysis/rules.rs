//! The default ordering rules of `plan` (`--no-default-rules` turns them
//! off): destruction-order edges between objects that are both in the plan,
//! each with the typed rule edge that made it ([`RuleEdge`]). They never
//! add an object to a plan nor take one out; the order treats them as the
//! weakest edges, relaxed (and listed, TD012) whenever they would make a
//! cycle with anything else — as kapp's `ignoreIfCyclical`.
//!
//! - `storage-after-claims` (Helm's uninstall order): a PersistentVolume
//!   after the claim bound to it (the claim's `spec.volumeName` or the
//!   volume's `spec.claimRef`), a StorageClass after the volumes and claims
//!   of its class (`spec.storageClassName`).
//! - `serviceaccount-after-workloads` (kapp #579, Flux #997, Helm #12627):
//!   a ServiceAccount after every workload of the plan that runs as it (a
//!   Pod's `serviceAccountName`, a Pod template's), and the RoleBindings
//!   and ClusterRoleBindings that name it as a subject after those
//!   workloads too. A workload that names none runs as `default`: that
//!   ServiceAccount, and the bindings that name it, are ordered only when
//!   the plan deletes them.
//!
//! O(objects + edges): one pass to index the plan's ServiceAccounts,
//! volumes, claims, classes and bindings by name, one to draw the edges.

use crate::model::kube::{is_binding, pod_spec_at, Facts};
use crate::model::{DefaultRule, Link, ObjId, Object, RelKind, Relation, RuleEdge, Str};
use rustc_hash::FxHashMap;

/// The edges of the default rules `enabled` between objects of the plan
/// (`in_set`), in object order, without repeats. `from` goes after `to`.
pub fn relations(objects: &[Object], in_set: &[bool], enabled: &[DefaultRule]) -> Vec<Relation> {
    let storage = enabled.contains(&DefaultRule::Storage);
    let accounts = enabled.contains(&DefaultRule::ServiceAccount);
    if !storage && !accounts {
        return Vec::new();
    }
    type Key<'a> = (&'a str, &'a str);
    // The plan's objects the rules point at, by namespace and name.
    let mut service_accounts: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut volumes: FxHashMap<&str, ObjId> = FxHashMap::default();
    let mut claims: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut classes: FxHashMap<&str, ObjId> = FxHashMap::default();
    let mut bindings: FxHashMap<Key, Vec<ObjId>> = FxHashMap::default();
    let kube = |i: usize| in_set[i] && objects[i].is_kubernetes();
    for (i, o) in objects.iter().enumerate().filter(|&(i, _)| kube(i)) {
        let id = ObjId(i as u32);
        let ns = o.namespace.as_deref().unwrap_or("");
        match (&*o.group, &*o.kind) {
            ("", "ServiceAccount") if accounts => {
                service_accounts.insert((ns, &o.name), id);
            }
            ("", "PersistentVolume") if storage => {
                volumes.insert(&o.name, id);
            }
            ("", "PersistentVolumeClaim") if storage => {
                claims.insert((ns, &o.name), id);
            }
            ("storage.k8s.io", "StorageClass") if storage => {
                classes.insert(&o.name, id);
            }
            (g, k) if accounts && is_binding(g, k) => {
                for (sns, sname) in o.facts.iter().flat_map(|f| f.subjects.iter()) {
                    bindings.entry((sns, sname)).or_default().push(id);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut edge = |edge: RuleEdge, from: ObjId, to: ObjId, declared_by: ObjId| {
        out.push(Relation {
            kind: RelKind::Rule(edge),
            from,
            to,
            link: Link::Solid,
            declared_by,
            decl: 0,
            controller: false,
        });
    };
    const DEFAULT: &str = "default";
    let none = Facts::default();
    for (i, o) in objects.iter().enumerate().filter(|&(i, _)| kube(i)) {
        let id = ObjId(i as u32);
        let ns = o.namespace.as_deref().unwrap_or("");
        let f = o.facts.as_deref().unwrap_or(&none);
        if accounts && pod_spec_at(&o.group, &o.kind).is_some() {
            let account: &str = f.service_account.as_deref().unwrap_or(DEFAULT);
            if let Some(&sa) = service_accounts.get(&(ns, account)) {
                edge(RuleEdge::RunsAs, sa, id, id);
            }
            for &b in bindings.get(&(ns, account)).into_iter().flatten() {
                edge(RuleEdge::Grants, b, id, id);
            }
            continue;
        }
        if !storage || !o.group.is_empty() {
            continue;
        }
        let class = |f: &Facts| f.storage_class.as_deref().and_then(|c| classes.get(c)).copied();
        match &*o.kind {
            "PersistentVolumeClaim" => {
                if let Some(&pv) = f.volume_name.as_deref().and_then(|v| volumes.get(v)) {
                    edge(RuleEdge::BoundClaim, pv, id, id);
                }
                if let Some(sc) = class(f) {
                    edge(RuleEdge::OfClass, sc, id, id);
                }
            }
            "PersistentVolume" => {
                let bound = f.claim_ref.as_ref().and_then(|(cns, cname): &(Str, Str)| claims.get(&(&**cns, &**cname)));
                if let Some(&pvc) = bound {
                    edge(RuleEdge::BoundClaim, id, pvc, id);
                }
                if let Some(sc) = class(f) {
                    edge(RuleEdge::OfClass, sc, id, id);
                }
            }
            _ => {}
        }
    }
    // A claim and its volume may both say they are bound: one edge.
    out.sort_by_key(|r| (r.from, r.to, r.kind));
    out.dedup_by_key(|r| (r.from, r.to, r.kind));
    out
}
