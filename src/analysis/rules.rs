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
//!   and ClusterRoleBindings that name it as a subject, and the Roles and
//!   ClusterRoles those bindings grant (`roleRef`; a RoleBinding's Role is
//!   in the binding's namespace), after those workloads too — whether or
//!   not the plan deletes the binding. A workload that names none runs as
//!   `default`: that ServiceAccount, and the bindings that name it, are
//!   ordered only when the plan deletes them.
//! - `webhooks-before-backends` (Gatekeeper #1769, Helm #12360,
//!   egressgateway #748; kapp deletes CRDs before everything else so that
//!   conversion webhooks' backends outlive their calls): a
//!   ValidatingWebhookConfiguration, MutatingWebhookConfiguration or
//!   APIService before the Service it calls (`webhooks[].clientConfig.service`,
//!   `spec.service`), and before the workloads behind that Service: the
//!   Pods its `spec.selector` selects, their controllers up the chain
//!   (ReplicaSet, Deployment, and what controls that), and the workloads
//!   whose Pod template labels it selects. The Service is looked up in the
//!   whole snapshot: the plan need not delete it for its workloads to be
//!   ordered. Otherwise every admission call, the deletions that follow
//!   among them, fails ("failed calling webhook").
//! - `pods-first-in-namespace` (KEP-5080, ordered namespace deletion): in a
//!   Namespace the plan deletes, its Pods before everything else in it.
//!   Drawn through one barrier per namespace ([`RuleEdge::PodFirst`],
//!   [`RuleEdge::AfterPods`]): P Pods and R other objects make P + R edges.
//!
//! O(objects + relations + edges), and for the webhook rule the Pods and
//! workloads of the namespaces of the Services called, once per Service.

use crate::model::kube::{calls_services, is_binding, pod_spec_at, selects, Facts, PodSpecAt, RBAC};
use crate::model::{DefaultRule, Link, ObjId, Object, RelKind, Relation, RuleEdge, Str};
use rustc_hash::{FxHashMap, FxHashSet};

/// The edges of the default rules `enabled` between objects of the plan
/// (`in_set`), in object order, without repeats. `from` goes after `to`
/// (see [`RuleEdge::PodFirst`] and [`RuleEdge::AfterPods`] for the two
/// that stand for a namespace's barrier). `owners`: the snapshot's
/// relations, where the webhook rule finds Pods' controllers.
pub fn relations(objects: &[Object], owners: &[Relation], in_set: &[bool], enabled: &[DefaultRule]) -> Vec<Relation> {
    let on = |r: DefaultRule| enabled.contains(&r);
    // The rules look at the objects each on its own: they run at once,
    // and their edges join in this order (the order they were made in
    // one after the other), each rule's own in the order it made them.
    let (storage, accounts) = (on(DefaultRule::Storage), on(DefaultRule::ServiceAccount));
    let rule = |run: bool, made: &dyn Fn(&mut Vec<Relation>)| {
        let mut out = Vec::new();
        if run {
            made(&mut out);
        }
        out
    };
    let ((made, called), pods) = rayon::join(
        || {
            rayon::join(
                || rule(storage || accounts, &|out| storage_and_accounts(objects, in_set, storage, accounts, out)),
                || rule(on(DefaultRule::Webhooks), &|out| webhooks(objects, owners, in_set, out)),
            )
        },
        || rule(on(DefaultRule::NamespacePods), &|out| namespace_pods(objects, owners, in_set, out)),
    );
    // A claim and its volume may both say they are bound, two Pods of one
    // ReplicaSet lead to it: one edge (the first made: the sort is stable).
    let mut out = sorted(&[made, called, pods]);
    out.dedup_by_key(|r| (r.from, r.to, r.kind));
    out
}

/// The edges of `parts`, one after the other, sorted by `(from, to, kind)`,
/// stably (of equal ones, the first made first): put in place by `from`
/// (counted, then each where its object's edges start: no comparison), then
/// each object's few sorted by `(to, kind)` (a namespace's Pods come in
/// object order already).
fn sorted(parts: &[Vec<Relation>]) -> Vec<Relation> {
    let edges = || parts.iter().flatten();
    let Some(&first) = edges().next() else { return Vec::new() };
    let nodes = edges().map(|r| r.from.index() + 1).max().unwrap_or(0);
    // `next[i]`: where object i's next edge goes (its first, at first).
    let mut next = vec![0u32; nodes + 1];
    for r in edges() {
        if let Some(n) = next.get_mut(r.from.index() + 1) {
            *n += 1;
        }
    }
    let mut sum = 0;
    for n in next.iter_mut() {
        sum += *n;
        *n = sum;
    }
    let starts = next.clone();
    let mut out = vec![first; sum as usize];
    for r in edges() {
        if let Some(n) = next.get_mut(r.from.index()) {
            if let Some(slot) = out.get_mut(*n as usize) {
                *slot = *r;
            }
            *n += 1;
        }
    }
    for w in starts.windows(2) {
        if let [a, b] = *w {
            if b - a > 1 {
                if let Some(run) = out.get_mut(a as usize..b as usize) {
                    run.sort_by_key(|r| (r.to, r.kind));
                }
            }
        }
    }
    out
}

/// Is object `id` in the plan? (`in_set` has one entry per object: an id
/// that names none is not.)
fn planned(in_set: &[bool], id: ObjId) -> bool {
    in_set.get(id.index()).copied().unwrap_or(false)
}

fn edge(kind: RuleEdge, from: ObjId, to: ObjId, declared_by: ObjId) -> Relation {
    Relation::solid(RelKind::Rule(kind), from, to, declared_by, 0)
}

type Key<'a> = (&'a str, &'a str);

fn storage_and_accounts(objects: &[Object], in_set: &[bool], storage: bool, accounts: bool, out: &mut Vec<Relation>) {
    // The plan's objects the rules point at, by namespace and name.
    let mut service_accounts: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut volumes: FxHashMap<&str, ObjId> = FxHashMap::default();
    let mut claims: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut classes: FxHashMap<&str, ObjId> = FxHashMap::default();
    let mut roles: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut cluster_roles: FxHashMap<&str, ObjId> = FxHashMap::default();
    // Every binding of the snapshot: one the plan keeps still says which
    // roles the ServiceAccount has.
    let mut bindings: FxHashMap<Key, Vec<ObjId>> = FxHashMap::default();
    for (i, (o, &planned)) in objects.iter().zip(in_set).enumerate().filter(|(_, (o, _))| o.is_kubernetes()) {
        let id = ObjId(i as u32);
        let ns = o.namespace.as_deref().unwrap_or("");
        match (&*o.group, &*o.kind) {
            (g, k) if accounts && is_binding(g, k) => {
                for (sns, sname) in o.facts.iter().flat_map(|f| f.subjects().iter()) {
                    bindings.entry((sns, sname)).or_default().push(id);
                }
            }
            _ if !planned => {}
            ("", "ServiceAccount") if accounts => {
                service_accounts.insert((ns, &o.name), id);
            }
            (RBAC, "Role") if accounts => {
                roles.insert((ns, &o.name), id);
            }
            (RBAC, "ClusterRole") if accounts => {
                cluster_roles.insert(&o.name, id);
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
            _ => {}
        }
    }
    // The role a binding grants, if the plan deletes it.
    let granted = |b: ObjId| -> Option<ObjId> {
        let o = objects.get(b.index())?;
        let (kind, name) = o.facts.as_deref()?.role_ref().as_ref()?;
        match &**kind {
            "Role" if &*o.kind == "RoleBinding" => roles.get(&(o.namespace.as_deref().unwrap_or(""), &**name)).copied(),
            "ClusterRole" => cluster_roles.get(&**name).copied(),
            _ => None,
        }
    };
    const DEFAULT: &str = "default";
    let none = Facts::default();
    for (i, (o, _)) in objects.iter().zip(in_set).enumerate().filter(|(_, (o, planned))| **planned && o.is_kubernetes())
    {
        let id = ObjId(i as u32);
        let ns = o.namespace.as_deref().unwrap_or("");
        let f = o.facts.as_deref().unwrap_or(&none);
        if accounts && pod_spec_at(&o.group, &o.kind).is_some() {
            let account: &str = f.service_account().as_deref().unwrap_or(DEFAULT);
            if let Some(&sa) = service_accounts.get(&(ns, account)) {
                out.push(edge(RuleEdge::RunsAs, sa, id, id));
            }
            for &b in bindings.get(&(ns, account)).into_iter().flatten() {
                if planned(in_set, b) {
                    out.push(edge(RuleEdge::Grants, b, id, id));
                }
                if let Some(role) = granted(b) {
                    out.push(edge(RuleEdge::GrantedRole, role, id, id));
                }
            }
            continue;
        }
        if !storage || !o.group.is_empty() {
            continue;
        }
        let class = |f: &Facts| f.storage_class().as_deref().and_then(|c| classes.get(c)).copied();
        match &*o.kind {
            "PersistentVolumeClaim" => {
                if let Some(&pv) = f.volume_name().as_deref().and_then(|v| volumes.get(v)) {
                    out.push(edge(RuleEdge::BoundClaim, pv, id, id));
                }
                if let Some(sc) = class(f) {
                    out.push(edge(RuleEdge::OfClass, sc, id, id));
                }
            }
            "PersistentVolume" => {
                let bound =
                    f.claim_ref().as_ref().and_then(|(cns, cname): &(Str, Str)| claims.get(&(&**cns, &**cname)));
                if let Some(&pvc) = bound {
                    out.push(edge(RuleEdge::BoundClaim, id, pvc, id));
                }
                if let Some(sc) = class(f) {
                    out.push(edge(RuleEdge::OfClass, sc, id, id));
                }
            }
            _ => {}
        }
    }
}

/// Longest controller chain followed up from a Pod (a guard against
/// ownership cycles, which `check` reports as TD007).
const CHAIN: usize = 16;

/// `webhooks-before-backends`.
fn webhooks(objects: &[Object], owners: &[Relation], in_set: &[bool], out: &mut Vec<Relation>) {
    // The callers of the plan, and the Services they call.
    let mut callers: Vec<(ObjId, Key)> = Vec::new();
    for (i, (o, &planned)) in objects.iter().zip(in_set).enumerate() {
        if !(planned && o.is_kubernetes() && calls_services(&o.group, &o.kind)) {
            continue;
        }
        for c in o.facts.iter().flat_map(|f| f.calls().iter()) {
            callers.push((ObjId(i as u32), (&c.namespace, &c.name)));
        }
    }
    if callers.is_empty() {
        return;
    }
    let called: FxHashSet<Key> = callers.iter().map(|&(_, k)| k).collect();
    let namespaces: FxHashSet<&str> = called.iter().map(|&(ns, _)| ns).collect();
    // The Services called, and the Pods and workloads of their namespaces.
    let mut services: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut pods: FxHashMap<&str, Vec<ObjId>> = FxHashMap::default();
    let mut workloads: FxHashMap<&str, Vec<ObjId>> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate().filter(|(_, o)| o.is_kubernetes()) {
        let Some(ns) = o.namespace.as_deref().filter(|ns| namespaces.contains(ns)) else { continue };
        let id = ObjId(i as u32);
        match (&*o.group, &*o.kind, pod_spec_at(&o.group, &o.kind)) {
            ("", "Service", _) if called.contains(&(ns, &*o.name)) => {
                services.insert((ns, &o.name), id);
            }
            (_, _, Some(PodSpecAt::Pod)) => pods.entry(ns).or_default().push(id),
            (_, _, Some(_)) => workloads.entry(ns).or_default().push(id),
            _ => {}
        }
    }
    // Each object's controller (a solid owner reference with `controller: true`).
    let mut controller: FxHashMap<ObjId, ObjId> = FxHashMap::default();
    if !pods.is_empty() {
        for r in owners.iter().filter(|r| r.kind == RelKind::Owns && r.controller && r.link == Link::Solid) {
            if r.from != r.to {
                controller.entry(r.to).or_insert(r.from);
            }
        }
    }
    let none = Facts::default();
    let facts = |id: ObjId| objects.get(id.index()).and_then(|o| o.facts.as_deref()).unwrap_or(&none);
    // The workloads behind each Service, found once.
    let mut behind: FxHashMap<ObjId, Vec<ObjId>> = FxHashMap::default();
    for (caller, key) in callers {
        let Some(&service) = services.get(&key) else { continue };
        if planned(in_set, service) {
            out.push(edge(RuleEdge::CallsService, service, caller, caller));
        }
        let backends = behind.entry(service).or_insert_with(|| {
            let selector = facts(service).selector();
            let mut found = Vec::new();
            if selector.is_empty() {
                return found;
            }
            let mut seen: FxHashSet<ObjId> = FxHashSet::default();
            for &p in pods.get(key.0).into_iter().flatten() {
                if !objects.get(p.index()).is_some_and(|o| selects(selector, &o.labels)) {
                    continue;
                }
                // The Pod, then its controllers, until one already found.
                let mut at = Some(p);
                for _ in 0..CHAIN {
                    let Some(x) = at.filter(|&x| seen.insert(x)) else { break };
                    found.push(x);
                    at = controller.get(&x).copied();
                }
            }
            for &w in workloads.get(key.0).into_iter().flatten() {
                if selects(selector, facts(w).template_labels()) {
                    found.push(w);
                }
            }
            found.sort_unstable();
            found.dedup();
            found
        });
        for &b in backends.iter().filter(|b| planned(in_set, **b)) {
            out.push(edge(RuleEdge::CallsBackend, b, caller, caller));
        }
    }
}

/// `pods-first-in-namespace`: in each Namespace the plan deletes that
/// holds Pods of the plan, a [`RuleEdge::PodFirst`] edge from the Namespace
/// to each of them and an [`RuleEdge::AfterPods`] edge from each other
/// object of the plan in it to the Namespace — but for an object whose
/// finalizer a controller of the plan in the same namespace removes
/// (`--finalizer-controller`): that controller's Pods must still run when
/// it goes.
fn namespace_pods(objects: &[Object], relations: &[Relation], in_set: &[bool], out: &mut Vec<Relation>) {
    // The plan's Kubernetes objects, with their ids.
    let kube = || {
        objects
            .iter()
            .zip(in_set)
            .enumerate()
            .filter(|(_, (o, planned))| **planned && o.is_kubernetes())
            .map(|(i, (o, _))| (ObjId(i as u32), o))
    };
    let deleted: FxHashMap<&str, ObjId> =
        kube().filter(|(_, o)| o.is_namespace()).map(|(id, o)| (&*o.name, id)).collect();
    if deleted.is_empty() {
        return;
    }
    let namespace_of = |o: &Object| o.namespace.as_deref().and_then(|ns| deleted.get(ns)).copied();
    let is_pod = |o: &Object| o.group.is_empty() && &*o.kind == "Pod";
    let mut with_pods: FxHashSet<ObjId> = FxHashSet::default();
    for (id, o) in kube().filter(|(_, o)| is_pod(o)) {
        if let Some(ns) = namespace_of(o) {
            out.push(edge(RuleEdge::PodFirst, ns, id, ns));
            with_pods.insert(ns);
        }
    }
    if with_pods.is_empty() {
        return;
    }
    let finalized_here: FxHashSet<ObjId> = relations
        .iter()
        .filter(|r| r.kind == RelKind::Finalizer && planned(in_set, r.from))
        .filter(|r| match (objects.get(r.from.index()), objects.get(r.to.index())) {
            (Some(from), Some(to)) => from.namespace.is_some() && from.namespace == to.namespace,
            _ => false,
        })
        .map(|r| r.to)
        .collect();
    for (id, o) in kube().filter(|(_, o)| !is_pod(o)) {
        if finalized_here.contains(&id) {
            continue;
        }
        if let Some(ns) = namespace_of(o).filter(|ns| with_pods.contains(ns)) {
            out.push(edge(RuleEdge::AfterPods, id, ns, ns));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_sort_as_a_stable_sort_by_from_to_and_kind() {
        let kinds = [RuleEdge::AfterPods, RuleEdge::PodFirst, RuleEdge::RunsAs, RuleEdge::BoundClaim];
        // Equal (from, to, kind) edges told apart by who declared them.
        let part = |seed: u32, n: u32| -> Vec<Relation> {
            (0..n)
                .map(|i| {
                    let x = i.wrapping_mul(2_654_435_761).wrapping_add(seed);
                    let kind = kinds[(x as usize >> 3) % kinds.len()];
                    edge(kind, ObjId(x % 7 + (x >> 29)), ObjId((x >> 5) % 5), ObjId(seed * 1000 + i))
                })
                .collect()
        };
        let parts = [part(1, 300), Vec::new(), part(2, 5), part(3, 1000)];
        let mut expected: Vec<Relation> = parts.iter().flatten().copied().collect();
        expected.sort_by_key(|r| (r.from, r.to, r.kind));
        assert_eq!(sorted(&parts), expected);
        assert!(sorted(&[Vec::new(), Vec::new()]).is_empty());
    }
}
