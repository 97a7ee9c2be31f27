//! TD011's candidates: the workloads of the snapshot that can serve a
//! finalizer no known controller removes, so that `--finalizer-controller`
//! is one copy-paste away (issue 18).
//!
//! A finalizer's domain is the part before its `/` (`cert-manager.io` of
//! `cert-manager.io/finalizer`; a finalizer without `/` is its own domain,
//! as Argo CD's `resources-finalizer.argocd.argoproj.io`). Its groups are
//! those of the CRDs of the snapshot that are the domain, or of which one
//! is a parent domain of the other (`cert-manager.io` and
//! `acme.cert-manager.io`; `argoproj.io` for Argo CD's finalizer); the
//! shorter of the two must have a dot, so that no top-level domain matches
//! everything.
//!
//! A workload can serve it when it runs as a ServiceAccount (a Pod's or Pod
//! template's `serviceAccountName`, else `default`) that a RoleBinding or
//! ClusterRoleBinding of the snapshot names as a subject, for a Role or
//! ClusterRole whose `rules` allow `update`, `patch` or `*` on a resource
//! (not a subresource) of one of those groups, or of `*` — what removing a
//! finalizer takes. A RoleBinding grants in its own namespace only: it
//! counts for an object of that namespace. Of a workload and what it
//! controls (a Deployment's ReplicaSets and Pods), only the topmost of the
//! snapshot is named.
//!
//! Rules that name one of the groups come first. When none does, the
//! fallback is by name: workloads whose namespace or name holds the
//! domain's first label (`cert-manager` of `cert-manager.io`), when that
//! label is at least 4 characters long. Last, workloads whose rules allow
//! it on every group (`*`: a cluster-admin can remove any finalizer, which
//! says little about which controller does). Each help says which way its
//! candidates were found.
//!
//! Deterministic: candidates in reference order, at most [`SHOWN`].

use crate::model::kube::{is_binding, is_role, pod_spec_at};
use crate::model::{Link, ObjId, Object, RelKind, Relation, Str};
use rustc_hash::{FxHashMap, FxHashSet};

/// How many candidates a help names.
pub const SHOWN: usize = 3;

/// How the candidates were found, in the order they are looked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// RBAC of the snapshot grants them update on one of the groups, by
    /// name.
    Granted,
    /// Their namespace or name holds the domain's first label.
    ByName,
    /// RBAC of the snapshot grants them update on every group (`*`): they
    /// can, but so can anything with such a role.
    GrantedAll,
}

/// The candidates for one finalizer on one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The CRD groups the finalizer's domain matches, sorted.
    pub groups: Vec<Str>,
    pub how: How,
    /// The first [`SHOWN`] candidates, in reference order.
    pub workloads: Vec<ObjId>,
    /// How many more there are.
    pub more: usize,
}

/// What finding candidates needs of a snapshot, indexed once.
pub struct Candidates<'a> {
    objects: &'a [Object],
    /// CRD groups of the snapshot, sorted, without repeats.
    crd_groups: Vec<Str>,
    /// Top-level workloads by the ServiceAccount they run as (namespace,
    /// name).
    workloads: FxHashMap<(Str, Str), Vec<ObjId>>,
    /// Every top-level workload (the fallback).
    all_workloads: Vec<ObjId>,
    /// What each binding of a role that updates something grants.
    grants: Vec<Grant>,
    /// Answers already given, by finalizer and the object's namespace
    /// (all a finding's candidates depend on): a snapshot has thousands of
    /// objects with one finalizer.
    answers: FxHashMap<(Str, Option<Str>), Option<Found>>,
    /// The fallback by name of each domain's first label.
    by_name: FxHashMap<Str, Vec<ObjId>>,
}

/// What one binding grants.
struct Grant {
    /// A RoleBinding's namespace: it grants there alone.
    scope: Option<Str>,
    /// The groups its role allows update on (`*`: all).
    groups: Box<[Str]>,
    /// Its ServiceAccount subjects (namespace, name).
    subjects: Box<[(Str, Str)]>,
}

/// The domain of a finalizer: before its `/`, or all of it.
pub fn domain(finalizer: &str) -> &str {
    finalizer.split_once('/').map_or(finalizer, |(d, _)| d)
}

/// Is one of `a`, `b` the other, or a parent domain of it (the shorter
/// with a dot)?
fn related(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.contains('.')
        && (short == long || long.strip_suffix(short).is_some_and(|head| head.ends_with('.') && head.len() > 1))
}

impl<'a> Candidates<'a> {
    pub fn new(objects: &'a [Object], relations: &[Relation]) -> Candidates<'a> {
        let mut crd_groups: Vec<Str> = objects.iter().filter_map(|o| o.crd.as_ref().map(|c| c.group.clone())).collect();
        crd_groups.sort_unstable();
        crd_groups.dedup();
        // A workload some workload of the snapshot controls is not named.
        // (Relations are between objects of `objects`: every `get` finds one.)
        let mut controlled = vec![false; objects.len()];
        for r in relations {
            if r.kind == RelKind::Owns && r.controller && r.link == Link::Solid && r.from != r.to {
                let Some(owner) = objects.get(r.from.index()) else { continue };
                if let Some(c) =
                    controlled.get_mut(r.to.index()).filter(|_| pod_spec_at(&owner.group, &owner.kind).is_some())
                {
                    *c = true;
                }
            }
        }
        let mut all_workloads: Vec<ObjId> = Vec::new();
        let mut roles: FxHashMap<(&str, Option<&str>, &str), &[Str]> = FxHashMap::default();
        for (i, (o, controlled)) in objects.iter().zip(&controlled).enumerate() {
            if !o.is_kubernetes() {
                continue;
            }
            if pod_spec_at(&o.group, &o.kind).is_some() && !controlled {
                all_workloads.push(ObjId(i as u32));
            }
            if is_role(&o.group, &o.kind) {
                let groups = o.facts.as_deref().map_or(&[][..], |f| f.updates_groups());
                roles.entry((&o.kind, o.namespace.as_deref(), &o.name)).or_insert(groups);
            }
        }
        let mut workloads: FxHashMap<(Str, Str), Vec<ObjId>> = FxHashMap::default();
        for &w in &all_workloads {
            let Some(o) = objects.get(w.index()) else { continue };
            let account =
                o.facts.as_deref().and_then(|f| f.service_account().clone()).unwrap_or_else(|| "default".into());
            let ns = o.namespace.clone().unwrap_or_else(|| "default".into());
            workloads.entry((ns, account)).or_default().push(w);
        }
        let mut grants = Vec::new();
        for o in objects.iter().filter(|o| o.is_kubernetes() && is_binding(&o.group, &o.kind)) {
            let Some(f) = o.facts.as_deref() else { continue };
            let Some((kind, name)) = f.role_ref() else { continue };
            let own = match &*o.kind {
                "RoleBinding" => o.namespace.clone(),
                _ => None,
            };
            let role = match &**kind {
                "ClusterRole" => roles.get(&("ClusterRole", None, &**name)),
                "Role" if own.is_some() => roles.get(&("Role", own.as_deref(), &**name)),
                _ => None,
            };
            if let Some(groups) = role.filter(|g| !g.is_empty()).map(|g| Box::<[Str]>::from(*g)) {
                grants.push(Grant { scope: own, groups, subjects: f.subjects().into() });
            }
        }
        Candidates {
            objects,
            crd_groups,
            workloads,
            all_workloads,
            grants,
            answers: FxHashMap::default(),
            by_name: FxHashMap::default(),
        }
    }

    /// The candidates for `finalizer` on `object`; `None` when its domain
    /// is no CRD group's of the snapshot.
    pub fn of(&mut self, finalizer: &Str, object: &Object) -> Option<Found> {
        let key = (finalizer.clone(), object.namespace.clone());
        if let Some(found) = self.answers.get(&key) {
            return found.clone();
        }
        let found = self.find(finalizer, object);
        self.answers.insert(key, found.clone());
        found
    }

    fn find(&mut self, finalizer: &str, object: &Object) -> Option<Found> {
        let domain = domain(finalizer);
        let groups: Vec<Str> = self.crd_groups.iter().filter(|g| related(domain, g)).cloned().collect();
        if groups.is_empty() {
            return None;
        }
        // Workloads granted update on the groups by name, and on `*`.
        let mut named: FxHashSet<ObjId> = FxHashSet::default();
        let mut all: FxHashSet<ObjId> = FxHashSet::default();
        for Grant { scope, groups: allowed, subjects } in &self.grants {
            // A RoleBinding grants in its namespace alone.
            if scope.as_ref().is_some_and(|ns| object.namespace.as_ref() != Some(ns)) {
                continue;
            }
            let into = match (allowed.iter().any(|a| groups.contains(a)), allowed.iter().any(|a| &**a == "*")) {
                (true, _) => &mut named,
                (false, true) => &mut all,
                (false, false) => continue,
            };
            for account in subjects.iter() {
                into.extend(self.workloads.get(account).into_iter().flatten().copied());
            }
        }
        let (how, mut list) = if !named.is_empty() {
            (How::Granted, named.into_iter().collect())
        } else {
            match self.named_after(domain) {
                // Sorted once, for every finding of the domain.
                list if !list.is_empty() => {
                    let more = list.len().saturating_sub(SHOWN);
                    let workloads = list.iter().take(SHOWN).copied().collect();
                    return Some(Found { groups, how: How::ByName, workloads, more });
                }
                _ => (How::GrantedAll, all.into_iter().collect::<Vec<_>>()),
            }
        };
        list.sort_by_cached_key(|&w| self.reference(w));
        let more = list.len().saturating_sub(SHOWN);
        list.truncate(SHOWN);
        Some(Found { groups, how, workloads: list, more })
    }

    /// The workloads whose namespace or name holds the domain's first
    /// label (at least 4 characters), in reference order.
    fn named_after(&mut self, domain: &str) -> &[ObjId] {
        let label = domain.split('.').next().unwrap_or("");
        let (objects, all) = (self.objects, &self.all_workloads);
        self.by_name.entry(Str::from(label)).or_insert_with(|| {
            let holds = |id: &ObjId| {
                objects.get(id.index()).is_some_and(|o| {
                    o.name.contains(label) || o.namespace.as_deref().is_some_and(|ns| ns.contains(label))
                })
            };
            let mut list: Vec<ObjId> = match label.len() >= 4 {
                true => all.iter().copied().filter(holds).collect(),
                false => Vec::new(),
            };
            list.sort_by_cached_key(|w| objects.get(w.index()).map(Object::reference));
            list
        })
    }

    /// The object's reference (as the flag's selector writes it); `None`
    /// for an id not of these objects.
    pub fn reference(&self, id: ObjId) -> Option<String> {
        self.objects.get(id.index()).map(Object::reference)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_relate_by_dns_suffix() {
        assert_eq!(domain("cert-manager.io/finalizer"), "cert-manager.io");
        assert_eq!(domain("resources-finalizer.argocd.argoproj.io"), "resources-finalizer.argocd.argoproj.io");
        assert!(related("cert-manager.io", "cert-manager.io"));
        assert!(related("cert-manager.io", "acme.cert-manager.io"));
        assert!(related("resources-finalizer.argocd.argoproj.io", "argoproj.io"));
        assert!(!related("manager.io", "cert-manager.io"), "a label is whole");
        assert!(!related("io", "cert-manager.io"), "a top-level domain matches nothing");
        assert!(!related("example.com", "example.org"));
    }
}
