//! Other tools' ordering metadata, as destruction dependencies of `plan`
//! (issue 18): what Argo CD, kapp, Flux and Crossplane write on the objects
//! they manage to order their own deletions, read from the typed
//! [`Tools`](crate::model::kube::Tools) the Kubernetes dialect keeps. Each
//! edge is a [`RelKind::Tool`] relation, `from` destroyed after `to`.
//!
//! They are hard, like `config.kubernetes.io/depends-on`: they are what the
//! user declared, not teardown's guess. A contradiction with ownership
//! relaxes the ownership edge (TD012, naming the tool and its annotation),
//! a cycle among them is one group (TD008).
//!
//! - Argo CD `argocd.argoproj.io/sync-wave` (Argo CD #3211, PR #3959;
//!   gitops-engine #538 for prune): within one application, every object of
//!   a higher wave goes before every object of a lower one. An object's
//!   wave is gitops-engine's `syncwaves.Wave`: the annotation, else 0 for an
//!   Argo CD hook, else the Helm hook weight, else 0. Only the objects of
//!   the plan count (consecutive waves among them are chained), and only
//!   applications of which one object of the plan writes a `sync-wave` (a
//!   Helm release's instance label alone, with hook weights, is no Argo CD
//!   application).
//! - kapp `kapp.k14s.io/change-group` / `change-rule` (kapp's "apply
//!   ordering" docs), within one kapp app (`kapp.k14s.io/app`, or none):
//!   `delete before deleting G` puts the object before every member of G,
//!   `delete after deleting G` after them; `upsert after upserting G` (it
//!   needs G) puts it before G's members, and `upsert before upserting G`
//!   (G needs it) after them. An object's delete rule on a group wins over
//!   its upsert rule on the same group; rules that mix upserts and deletes
//!   order nothing on a deletion.
//! - Flux `spec.dependsOn` of a Kustomization or HelmRelease (kustomize-
//!   controller #301): the dependent goes before what it depends on.
//! - Crossplane `Usage` / `ClusterUsage` (Crossplane's "Usages" docs): `of`
//!   goes after `by`, and after the Usage itself (which blocks its deletion
//!   while it exists). What keeps `of` when neither goes is `plan::build`'s.
//!
//! Groups go through hubs (see [`ToolEdge`]): the edges are as many as the
//! objects and declarations, never their product. O(objects + edges).

use crate::model::kube::{is_usage, KappAction, KappRule, KappWhen, Tools, UsageRef, FLUX_DEPENDENT_KINDS};
use crate::model::{HubEnd, ObjId, Object, RelKind, Relation, ToolEdge, ToolOrder};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// A resolved Crossplane Usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsageLink {
    pub usage: ObjId,
    /// `spec.of`, when it names an object of the snapshot.
    pub of: Option<ObjId>,
    /// `spec.by`, when written and it names an object of the snapshot.
    pub by: Option<ObjId>,
    /// `spec.by` is written (whether or not the snapshot has it).
    pub by_written: bool,
}

/// The Usages of the snapshot, with what their `of` and `by` name, in
/// object order.
pub fn usages(objects: &[Object]) -> Vec<UsageLink> {
    let declared: Vec<(usize, &crate::model::kube::Usage)> = objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.is_kubernetes() && is_usage(&o.group, &o.kind))
        .filter_map(|(i, o)| o.tools().and_then(|t| t.usage.as_deref()).map(|u| (i, u)))
        .collect();
    if declared.is_empty() {
        return Vec::new();
    }
    let refs = || declared.iter().flat_map(|(_, u)| u.of.iter().chain(u.by.iter()));
    let kinds: FxHashSet<(&str, &str)> = refs().map(|r| (&*r.group, &*r.kind)).collect();
    type Key<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);
    let mut index: FxHashMap<Key, ObjId> = FxHashMap::default();
    for (i, o) in objects.iter().enumerate() {
        if o.is_kubernetes() && kinds.contains(&(&*o.group, &*o.kind)) {
            index.entry((&o.group, &o.kind, o.namespace.as_deref(), &o.name)).or_insert(ObjId(i as u32));
        }
    }
    let find = |r: &UsageRef| {
        let name = r.name.as_deref()?;
        index
            .get(&(&*r.group, &*r.kind, r.namespace.as_deref(), name))
            .or_else(|| index.get(&(&*r.group, &*r.kind, None, name)))
            .copied()
    };
    declared
        .iter()
        .map(|&(i, u)| UsageLink {
            usage: ObjId(i as u32),
            of: u.of.as_ref().and_then(find).filter(|&o| o.index() != i),
            by: u.by.as_ref().and_then(find).filter(|&b| b.index() != i),
            by_written: u.by.is_some(),
        })
        .collect()
}

/// Which side of its group a kapp change rule puts the declaring object on
/// a deletion: `Some(true)` after every member, `Some(false)` before.
pub fn kapp_after(rule: &KappRule) -> Option<bool> {
    match (rule.action, rule.when, rule.other) {
        (KappAction::Delete, KappWhen::After, KappAction::Delete) => Some(true),
        (KappAction::Delete, KappWhen::Before, KappAction::Delete) => Some(false),
        // It needs G to exist first: it is deleted first.
        (KappAction::Upsert, KappWhen::After, KappAction::Upsert) => Some(false),
        // G needs it to exist first: G is deleted first.
        (KappAction::Upsert, KappWhen::Before, KappAction::Upsert) => Some(true),
        _ => None,
    }
}

/// The kapp change rules of an object that order a deletion: (rule, after
/// its group?). A delete rule on a group wins over an upsert rule on it.
pub fn kapp_rules(t: &Tools) -> impl Iterator<Item = (&KappRule, bool)> {
    let deletes: Vec<&str> = t
        .kapp_rules
        .iter()
        .filter(|r| r.action == KappAction::Delete && r.other == KappAction::Delete)
        .map(|r| &*r.group)
        .collect();
    t.kapp_rules.iter().filter_map(move |r| {
        let after = kapp_after(r)?;
        let overridden = r.action == KappAction::Upsert && deletes.contains(&&*r.group);
        (!overridden).then_some((r, after))
    })
}

/// The relations other tools' metadata adds: sync waves between objects
/// of the plan (`in_set`), kapp rules, Flux `dependsOn` and Usages between
/// any objects (a chain through one the plan keeps still orders). `rank`
/// is each object's place in reference order.
pub fn relations(objects: &[Object], in_set: &[bool], rank: &[u32], usages: &[UsageLink]) -> Vec<Relation> {
    let mut w = Wiring { rank, out: Vec::new(), hubs: 0 };
    waves(objects, in_set, &mut w);
    kapp(objects, &mut w);
    flux(objects, &mut w);
    for u in usages {
        let Some(of) = u.of else { continue };
        if let Some(by) = u.by {
            w.edge(ToolOrder::UsageBy, of, by, u.usage, 0);
        }
        w.edge(ToolOrder::UsageOf, of, u.usage, u.usage, 1);
    }
    let mut out = w.out;
    out.sort_by_key(|r| (r.from, r.to, r.kind, r.decl));
    out.dedup_by_key(|r| (r.from, r.to, r.kind, r.decl));
    out
}

/// Draws the edges, through a hub where a group is ordered against a group.
struct Wiring<'a> {
    rank: &'a [u32],
    out: Vec<Relation>,
    hubs: u32,
}

impl Wiring<'_> {
    fn relation(&mut self, order: ToolOrder, hub: HubEnd, from: ObjId, to: ObjId, declared_by: ObjId, decl: u32) {
        self.out.push(Relation::solid(RelKind::Tool(ToolEdge { order, hub }), from, to, declared_by, decl));
    }

    /// `late` goes after `early`.
    fn edge(&mut self, order: ToolOrder, late: ObjId, early: ObjId, declared_by: ObjId, decl: u32) {
        if late != early {
            self.relation(order, HubEnd::None, late, early, declared_by, decl);
        }
    }

    /// Every object of `late` goes after every object of `early` (each
    /// sorted by reference, without repeats, an object in at most one of
    /// them): directly when one side has one object, else through a hub.
    fn all_after(&mut self, order: ToolOrder, late: &[ObjId], early: &[ObjId]) {
        let (Some(&first_late), Some(&first_early)) = (late.first(), early.first()) else { return };
        if late.len() == 1 || early.len() == 1 {
            for &l in late {
                for &e in early {
                    self.edge(order, l, e, l, 0);
                }
            }
            return;
        }
        let hub = self.hubs;
        self.hubs += 1;
        for &l in late {
            self.relation(order, HubEnd::To, l, first_early, l, hub);
        }
        for &e in early {
            self.relation(order, HubEnd::From, first_late, e, e, hub);
        }
    }

    /// The object's place in reference order (`rank` has one per object).
    fn rank(&self, id: ObjId) -> Option<u32> {
        self.rank.get(id.index()).copied()
    }

    fn sorted(&self, mut ids: Vec<ObjId>) -> Vec<ObjId> {
        ids.sort_by_key(|id| self.rank(*id));
        ids.dedup();
        ids
    }
}

fn tools(o: &Object) -> Option<&Tools> {
    o.tools().filter(|_| o.is_kubernetes())
}

/// Argo CD: within an application, higher waves first.
fn waves(objects: &[Object], in_set: &[bool], w: &mut Wiring) {
    let mut apps: BTreeMap<&str, (bool, BTreeMap<i32, Vec<ObjId>>)> = BTreeMap::new();
    for (i, (o, _)) in objects.iter().zip(in_set).enumerate().filter(|(_, (_, in_set))| **in_set) {
        let Some(t) = tools(o) else { continue };
        let Some(app) = t.argocd_app.as_deref() else { continue };
        let (explicit, by_wave) = apps.entry(app).or_default();
        *explicit |= t.sync_wave.is_some();
        by_wave.entry(t.wave()).or_default().push(ObjId(i as u32));
    }
    for (_, (explicit, by_wave)) in apps {
        if !explicit {
            continue;
        }
        let waves: Vec<Vec<ObjId>> = by_wave.into_values().map(|ids| w.sorted(ids)).collect();
        // Lower waves go after the next higher wave of the plan.
        for pair in waves.windows(2) {
            if let [late, early] = pair {
                w.all_after(ToolOrder::SyncWave, late, early);
            }
        }
    }
}

/// kapp: change rules against change groups, within one kapp app.
fn kapp(objects: &[Object], w: &mut Wiring) {
    type Key<'a> = (Option<&'a str>, &'a str);
    let mut members: FxHashMap<Key, Vec<ObjId>> = FxHashMap::default();
    // (group, declarers going after it, declarers going before it)
    let mut declared: BTreeMap<Key, (Vec<ObjId>, Vec<ObjId>)> = BTreeMap::new();
    for (i, o) in objects.iter().enumerate() {
        let Some(t) = tools(o) else { continue };
        if t.kapp_groups.is_empty() && t.kapp_rules.is_empty() {
            continue;
        }
        let scope = t.kapp_app.as_deref();
        let id = ObjId(i as u32);
        for g in &t.kapp_groups {
            members.entry((scope, g)).or_default().push(id);
        }
        for (rule, after) in kapp_rules(t) {
            let (late, early) = declared.entry((scope, &rule.group)).or_default();
            if after {
                late.push(id);
            } else {
                early.push(id);
            }
        }
    }
    for (key, (after, before)) in declared {
        let Some(group) = members.remove(&key).map(|m| w.sorted(m)) else { continue };
        let (after, before) = (w.sorted(after), w.sorted(before));
        // Declarers after the group (and, for `before`, the group after
        // its declarers). A declarer in its own group is not ordered
        // against itself: when it is the only one, its edges are drawn
        // directly (one per member); several such declarers wait for each
        // other, a cycle kapp would refuse too, and stay on the hub.
        for (declarers, declarers_after) in [(after, true), (before, false)] {
            let inside: Vec<ObjId> = declarers
                .iter()
                .copied()
                .filter(|d| group.binary_search_by_key(&w.rank(*d), |m| w.rank(*m)).is_ok())
                .collect();
            let (declarers, group) = match inside.as_slice() {
                [only] => {
                    let others: Vec<ObjId> = group.iter().copied().filter(|m| m != only).collect();
                    let rest: Vec<ObjId> = declarers.iter().copied().filter(|d| d != only).collect();
                    for &m in &others {
                        match declarers_after {
                            true => w.edge(ToolOrder::KappRule, *only, m, *only, 0),
                            false => w.edge(ToolOrder::KappRule, m, *only, *only, 0),
                        }
                    }
                    // The other declarers against it, as a member.
                    for &d in &rest {
                        match declarers_after {
                            true => w.edge(ToolOrder::KappRule, d, *only, d, 0),
                            false => w.edge(ToolOrder::KappRule, *only, d, d, 0),
                        }
                    }
                    (rest, others)
                }
                _ => (declarers, group.clone()),
            };
            match declarers_after {
                true => w.all_after(ToolOrder::KappRule, &declarers, &group),
                false => w.all_after(ToolOrder::KappRule, &group, &declarers),
            }
        }
    }
}

/// Flux: a Kustomization or HelmRelease goes before those it depends on.
fn flux(objects: &[Object], w: &mut Wiring) {
    type Key<'a> = (&'a str, &'a str, &'a str, &'a str);
    let mut index: FxHashMap<Key, ObjId> = FxHashMap::default();
    let mut dependents = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if !o.is_kubernetes() || !FLUX_DEPENDENT_KINDS.contains(&(&*o.group, &*o.kind)) {
            continue;
        }
        let ns = o.namespace.as_deref().unwrap_or("");
        index.entry((&o.group, &o.kind, ns, &o.name)).or_insert(ObjId(i as u32));
        if tools(o).is_some_and(|t| !t.flux_depends_on.is_empty()) {
            dependents.push((i, o));
        }
    }
    for (i, o) in dependents {
        let Some(t) = tools(o) else { continue };
        for (j, (ns, name)) in t.flux_depends_on.iter().enumerate() {
            if let Some(&target) = index.get(&(&*o.group, &*o.kind, &**ns, &**name)) {
                w.edge(ToolOrder::FluxDependsOn, target, ObjId(i as u32), ObjId(i as u32), j as u32);
            }
        }
    }
}

/// Helm's install order of kinds (pkg/releaseutil/kind_sorter.go,
/// `InstallOrder`), by which it orders hooks of one weight; kinds it does
/// not list go last (`usize::MAX`; among them, by kind, then name).
pub fn helm_install_order(kind: &str) -> usize {
    const INSTALL_ORDER: [&str; 33] = [
        "Namespace",
        "NetworkPolicy",
        "ResourceQuota",
        "LimitRange",
        "PodSecurityPolicy",
        "PodDisruptionBudget",
        "ServiceAccount",
        "Secret",
        "ConfigMap",
        "StorageClass",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "CustomResourceDefinition",
        "ClusterRole",
        "ClusterRoleList",
        "ClusterRoleBinding",
        "ClusterRoleBindingList",
        "Role",
        "RoleList",
        "RoleBinding",
        "RoleBindingList",
        "Service",
        "DaemonSet",
        "Pod",
        "ReplicationController",
        "ReplicaSet",
        "Deployment",
        "HorizontalPodAutoscaler",
        "StatefulSet",
        "Job",
        "CronJob",
        "Ingress",
        "APIService",
    ];
    INSTALL_ORDER.iter().position(|k| *k == kind).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intern::intern;

    fn rule(action: KappAction, when: KappWhen, other: KappAction, group: &str) -> KappRule {
        KappRule { action, when, other, group: intern(group) }
    }

    #[test]
    fn kapp_rules_read_for_a_deletion() {
        use KappAction::{Delete, Upsert};
        use KappWhen::{After, Before};
        assert_eq!(kapp_after(&rule(Delete, After, Delete, "g")), Some(true));
        assert_eq!(kapp_after(&rule(Delete, Before, Delete, "g")), Some(false));
        // It needs G: it goes first. G needs it: it goes after G.
        assert_eq!(kapp_after(&rule(Upsert, After, Upsert, "g")), Some(false));
        assert_eq!(kapp_after(&rule(Upsert, Before, Upsert, "g")), Some(true));
        assert_eq!(kapp_after(&rule(Delete, Before, Upsert, "g")), None);
        assert_eq!(kapp_after(&rule(Upsert, After, Delete, "g")), None);
        // A delete rule on a group wins over an upsert rule on it.
        let t = Tools {
            kapp_rules: vec![
                rule(Upsert, After, Upsert, "g"),
                rule(Delete, After, Delete, "g"),
                rule(Upsert, After, Upsert, "h"),
            ],
            ..Tools::default()
        };
        let read: Vec<(&str, bool)> = kapp_rules(&t).map(|(r, after)| (&*r.group, after)).collect();
        assert_eq!(read, [("g", true), ("h", false)]);
    }

    #[test]
    fn helm_orders_hooks_of_one_weight_by_install_order() {
        assert!(helm_install_order("ConfigMap") < helm_install_order("Job"));
        assert!(helm_install_order("ServiceAccount") < helm_install_order("Pod"));
        assert_eq!(helm_install_order("Widget"), usize::MAX);
    }
}
