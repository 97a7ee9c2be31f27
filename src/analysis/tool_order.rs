//! `plan --as TOOL`: the order in which Helm, Argo CD, kapp or Flux would
//! delete the objects of a plan, and every place where that order breaks a
//! constraint teardown's plan keeps — an ownership, a destruction
//! dependency, a default rule: whatever relation the plan was ordered by,
//! so that new rules and edges are checked as soon as the plan has them.
//!
//! Each tool's order is built from its own source (the revisions named
//! below, and in the README):
//!
//! - Helm 3 (`helm`): helm/helm `pkg/releaseutil/kind_sorter.go` at
//!   5a4737d4a2a6ac89ef595181ac7e4c4fa7856e49 (module helm.sh/helm/v3):
//!   `UninstallOrder`, kinds it does not list last, alphabetically
//!   (`lessByKind`). `pkg/action/uninstall.go`: pre-delete hooks, then the
//!   release's resources, then post-delete hooks; `helm.sh/resource-policy:
//!   keep` is kept. `pkg/kube/client.go` `batchPerform`: the delete calls of
//!   one kind go out together, the next kind's once those calls returned —
//!   nothing waits for an object to be gone. `pkg/action/hooks.go`
//!   `hookByWeight`: hooks by weight, then name, one at a time, each waited
//!   for.
//! - Helm 4 (`helm4`): helm/helm `pkg/release/v1/util/kind_sorter.go` at
//!   20a1ca2345a667ecb611aed87b5c515c334c3de8: the same order with
//!   ValidatingWebhookConfiguration and MutatingWebhookConfiguration first
//!   (helm/helm#30701).
//! - Argo CD (`argocd`): argoproj/argo-cd `controller/sort_delete.go`
//!   `FilterObjectsForDeletion` (argo-cd#3959, c2e5ccc81e0aaca81a2d002436d39d52a4364d2d,
//!   Argo CD 2.3.1+): on Application deletion, the objects of the highest
//!   sync wave are deleted at once, and the next wave once none of them is
//!   left; within a wave there is no order (no kind order either). The
//!   wave is gitops-engine `syncwaves.Wave`: `argocd.argoproj.io/sync-wave`,
//!   else `helm.sh/hook-weight`, else 0. `controller/appcontroller.go`
//!   `shouldBeDeleted`: a CRD is never deleted, nor an object with
//!   `Delete=false` or `helm.sh/resource-policy: keep`. Pruning in a sync
//!   does the same (gitops-engine#538: prune waves reversed, each waited
//!   for).
//! - kapp (`kapp`): carvel-dev/kapp `pkg/kapp/config/default.go` at
//!   27123c836ef699eea5cb6f7ed0ce90943bf812e2, `changeRuleBindings`: custom
//!   resources are deleted before the CRDs group, everything else after it
//!   (both `ignoreIfCyclical`); ServiceAccounts and RBAC after kapp's
//!   `appcr` and `packageinstall` groups; and the objects' own
//!   `kapp.k14s.io/change-rule`s of the form `delete (before|after)
//!   deleting GROUP` (`upsert` rules do not order deletions). kapp waits
//!   for each change to finish (a deleted object to be gone) before the
//!   changes that come after it.
//! - Flux (`flux`): fluxcd/pkg `ssa/sort.go` at
//!   1d7d31b812fafa7a54a5db1050de56549d9f561a (`ReconcileOrder`) and
//!   `ssa/manager_delete.go` at 6637febc3169ea28bf2073e9239d8217013c0c72
//!   (`DeleteAll`: the reverse of that order, one delete call after the
//!   other, none waited for). Each Kustomization (its
//!   `kustomize.toolkit.fluxcd.io/name`/`namespace` labels) deletes what it
//!   applied on its own: `spec.dependsOn` does not order deletions
//!   (fluxcd/kustomize-controller#301).
//!
//! The constraints checked are the plan's relations between objects it
//! deletes in different steps, but owner references (and KubeVela's
//! trackers): an owner the tool deletes first takes what it owns with it
//! (background cascade). A Namespace or CRD deleted first is a breach: its
//! controller deletes everything it holds at once, in no order.
//!
//! What the tool does not delete itself is listed with why: an object with
//! an owner in the plan goes with it (the garbage collector; no tool
//! deletes what a controller made); kept by an annotation; in none of the
//! tool's units when the snapshot names units (an object of no release is
//! not Helm's), though it goes with a Namespace or CRD the tool deletes.
//!
//! O(objects + relations).

// No-panic lints (issue 19): this module indexes dense tables only: object
// ids of the plan's snapshot (its objects and references, one entry per
// object), positions in the members, batches, units and levels it makes
// here. Nothing here is indexed by a position read from input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids of the plan's snapshot index its per-object tables; members, batches, units and levels are numbered here"
)]

use crate::dialect::tools::{kapp_bound_group, keep_mark, KAPP_APPCR, KAPP_CRDS, KAPP_PACKAGEINSTALL};
use crate::graph::Csr;
use crate::model::kube::{builtin_namespaced, HelmHook, KappAction, KappWhen, KeepMark, Tools};
use crate::model::{Link, ObjId, Object, RelKind, Relation, Str};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Helm 3's `UninstallOrder` (helm/helm 5a4737d4, `pkg/releaseutil/kind_sorter.go`).
pub const HELM3_UNINSTALL_ORDER: [&str; 36] = [
    "APIService",
    "Ingress",
    "IngressClass",
    "Service",
    "CronJob",
    "Job",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "Deployment",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
    "DaemonSet",
    "RoleBindingList",
    "RoleBinding",
    "RoleList",
    "Role",
    "ClusterRoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleList",
    "ClusterRole",
    "CustomResourceDefinition",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ConfigMap",
    "SecretList",
    "Secret",
    "ServiceAccount",
    "PodDisruptionBudget",
    "PodSecurityPolicy",
    "LimitRange",
    "ResourceQuota",
    "NetworkPolicy",
    "Namespace",
    "PriorityClass",
];

/// What Helm 4 puts before [`HELM3_UNINSTALL_ORDER`] (helm/helm 20a1ca23,
/// `pkg/release/v1/util/kind_sorter.go`: "we remove validation before
/// mutation to ensure webhooks don't block removal").
pub const HELM4_FIRST: [&str; 2] = ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"];

/// Flux's `ReconcileOrder.First` (fluxcd/pkg 1d7d31b8, `ssa/sort.go`).
pub const FLUX_FIRST: [&str; 23] = [
    "CustomResourceDefinition",
    "Namespace",
    "ClusterClass",
    "RuntimeClass",
    "PriorityClass",
    "StorageClass",
    "VolumeSnapshotClass",
    "IngressClass",
    "GatewayClass",
    "ResourceQuota",
    "ServiceAccount",
    "Role",
    "ClusterRole",
    "RoleBinding",
    "ClusterRoleBinding",
    "ConfigMap",
    "Secret",
    "Service",
    "LimitRange",
    "Deployment",
    "StatefulSet",
    "CronJob",
    "PodDisruptionBudget",
];

/// Flux's `ReconcileOrder.Last`.
pub const FLUX_LAST: [&str; 2] = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

/// What the analysis reads of a plan.
pub struct Input<'a> {
    pub objects: &'a [Object],
    pub relations: &'a [Relation],
    /// The relations the plan's order relaxed (indices): not constraints.
    pub relaxed: &'a [u32],
    /// Each object's step in the plan; 0: not in the plan.
    pub step: &'a [u32],
    /// Each object's reference (ties and determinism).
    pub refs: &'a super::refs::Refs,
}

fn is_crd(o: &Object) -> bool {
    o.group.as_ref() == "apiextensions.k8s.io" && o.kind.as_ref() == "CustomResourceDefinition"
}

/// The unit of the tool an object says it belongs to.
fn unit_of(tool: Tool, t: &Tools) -> Option<Str> {
    let pair = |(ns, name): &(Str, Str)| Str::from(format!("{ns}/{name}"));
    match tool {
        Tool::Helm | Tool::Helm4 => t.helm_release.as_ref().map(pair),
        Tool::Argocd => t.argocd_app.clone(),
        Tool::Kapp => t.kapp_app.clone(),
        Tool::Flux => t.flux_owner.as_ref().map(pair),
    }
}

/// An annotation by which the tool keeps an object.
fn kept(tool: Tool, t: &Tools) -> Option<Keep> {
    match tool {
        Tool::Helm | Tool::Helm4 => t.helm_keep.then_some(Keep::HelmKeep),
        Tool::Argocd if t.argocd_no_delete => Some(Keep::ArgoNoDelete),
        Tool::Argocd => t.helm_keep.then_some(Keep::HelmKeep),
        Tool::Kapp => t.kapp_orphan.then_some(Keep::KappOrphan),
        Tool::Flux => t.flux_prune_disabled.then_some(Keep::FluxPruneDisabled),
    }
}

/// The Helm hook an object is for `helm uninstall`, if it is one.
fn helm_hook(t: &Tools) -> Option<HelmHook> {
    [HelmHook::PreDelete, HelmHook::PostDelete, HelmHook::Other].into_iter().find(|h| t.helm_hooks.contains(h))
}

/// Where an object of the plan is, for the tool.
#[derive(Clone, Debug)]
enum Place {
    /// The tool deletes it (or runs it, a hook), in this unit.
    Unit(u32),
    Other(Other),
}

pub fn order(input: &Input, tool: Tool) -> ToolOrder {
    let (owner, holder) = carriers(input);
    let (unit_names, mut place) = places(input, tool, &owner, &holder);
    let (units, members) = units_of(input, unit_names, &mut place);
    let (batches, cycle) = batches_of(input, tool, &members);
    let at = Where::new(input, &place, &units, &batches);
    let findings = breaches(input, tool, &at);
    let mut others: Vec<(ObjId, Other)> = place
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Some(Place::Other(o)) => Some((ObjId(i as u32), o.clone())),
            _ => None,
        })
        .collect();
    others.sort_by(|a, b| input.refs.name(a.0).cmp(input.refs.name(b.0)));
    ToolOrder { tool, units, batches, others, findings, cycle }
}

impl Input<'_> {
    fn planned(&self, i: usize) -> bool {
        self.step.get(i).is_some_and(|&s| s > 0)
    }

    /// The plan's order: by step, then by reference.
    fn plan_order(&self, a: usize, b: usize) -> std::cmp::Ordering {
        self.step[a].cmp(&self.step[b]).then_with(|| self.refs.get(a).cmp(&self.refs.get(b)))
    }
}

/// What carries each object of the plan: an owner of the plan (the
/// garbage collector), a Namespace or CRD of the plan (their controllers).
type Carriers = Vec<Option<(ObjId, RelKind)>>;

fn carriers(input: &Input) -> (Carriers, Carriers) {
    let n = input.objects.len();
    let mut owner: Carriers = vec![None; n];
    let mut holder: Carriers = vec![None; n];
    for r in input.relations {
        let (f, t) = (r.from.index(), r.to.index());
        if f == t || !input.planned(f) || !input.planned(t) || r.link != Link::Solid {
            continue;
        }
        match r.kind {
            RelKind::Owns | RelKind::Manages => {
                owner[t].get_or_insert((r.from, r.kind));
            }
            RelKind::Contains | RelKind::Defines => {
                holder[t].get_or_insert((r.from, r.kind));
            }
            _ => {}
        }
    }
    (owner, holder)
}

/// Where each object of the plan is for the tool, and the names of its
/// units as first met (when no object names one, the plan is one).
fn places(input: &Input, tool: Tool, owner: &Carriers, holder: &Carriers) -> (Vec<Option<Str>>, Vec<Option<Place>>) {
    let objects = input.objects;
    let n = objects.len();
    let none = Tools::default();
    let tools = |i: usize| objects[i].tools().unwrap_or(&none);
    let named: Vec<Option<Str>> = (0..n)
        .map(|i| match input.planned(i) && owner[i].is_none() {
            true => unit_of(tool, tools(i)),
            false => None,
        })
        .collect();
    let any_named = named.iter().any(Option::is_some);
    let mut unit_names: Vec<Option<Str>> = Vec::new();
    let mut place: Vec<Option<Place>> = vec![None; n];
    for i in (0..n).filter(|&i| input.planned(i)) {
        let o = &objects[i];
        let t = tools(i);
        let p = if let Some((carrier, how)) = owner[i] {
            Place::Other(Other::With { carrier, how })
        } else if let Some(k) = kept(tool, t) {
            Place::Other(Other::Kept(k))
        } else if tool == Tool::Argocd && is_crd(o) {
            Place::Other(Other::NeverDeleted)
        } else if matches!(tool, Tool::Helm | Tool::Helm4) && helm_hook(t) == Some(HelmHook::Other) {
            Place::Other(Other::OtherHook)
        } else if any_named && named[i].is_none() {
            match holder[i] {
                Some((carrier, how)) => Place::Other(Other::With { carrier, how }),
                None => Place::Other(Other::NotManaged),
            }
        } else {
            let u = match unit_names.iter().position(|x| *x == named[i]) {
                Some(u) => u,
                None => {
                    unit_names.push(named[i].clone());
                    unit_names.len() - 1
                }
            };
            Place::Unit(u as u32)
        };
        place[i] = Some(p);
    }
    (unit_names, place)
}

/// Units by name (`place` renumbered to match); their objects in plan order.
fn units_of(input: &Input, unit_names: Vec<Option<Str>>, place: &mut [Option<Place>]) -> (Vec<Unit>, Vec<Vec<usize>>) {
    let mut by_name: Vec<usize> = (0..unit_names.len()).collect();
    by_name.sort_by(|&a, &b| unit_names[a].cmp(&unit_names[b]));
    let mut renumber = vec![0u32; unit_names.len()];
    for (new, &old) in by_name.iter().enumerate() {
        renumber[old] = new as u32;
    }
    let units: Vec<Unit> = by_name.iter().map(|&u| Unit { name: unit_names[u].clone() }).collect();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
    for (i, p) in place.iter_mut().enumerate() {
        if let Some(Place::Unit(u)) = p {
            *u = renumber[*u as usize];
            members[*u as usize].push(i);
        }
    }
    for m in &mut members {
        m.sort_by(|a, b| input.plan_order(*a, *b));
    }
    (units, members)
}

/// Each unit's batches, in the tool's order; and the objects kapp's
/// change rules put in a cycle, in plan order.
fn batches_of(input: &Input, tool: Tool, members: &[Vec<usize>]) -> (Vec<Batch>, Vec<ObjId>) {
    let (objects, refs) = (input.objects, input.refs);
    let none = Tools::default();
    let tools = |i: usize| objects[i].tools().unwrap_or(&none);
    let mut batches: Vec<Batch> = Vec::new();
    let mut cycle: Vec<ObjId> = Vec::new();
    for (u, m) in members.iter().enumerate() {
        let made = match tool {
            Tool::Helm => helm(m, objects, &tools, &[], refs),
            Tool::Helm4 => helm(m, objects, &tools, &HELM4_FIRST, refs),
            Tool::Argocd => argocd(m, &tools),
            Tool::Kapp => {
                let (levels, cyclic) = kapp(m, objects, &tools);
                cycle.extend(cyclic.into_iter().map(|i| ObjId(i as u32)));
                levels
            }
            Tool::Flux => flux(m, objects),
        };
        for (rank, (key, mut objs)) in made.into_iter().enumerate() {
            objs.sort_by(|a, b| input.plan_order(*a, *b));
            batches.push(Batch {
                unit: u as u32,
                rank: rank as u32 + 1,
                key,
                objects: objs.into_iter().map(|i| ObjId(i as u32)).collect(),
            });
        }
    }
    cycle.sort_by(|a, b| input.plan_order(a.index(), b.index()));
    (batches, cycle)
}

/// Where each object of the plan ends up with the tool: the object it goes
/// with (its root), and that root's batch or why the tool leaves it.
struct Where<'a> {
    place: &'a [Option<Place>],
    units: &'a [Unit],
    batches: &'a [Batch],
    batch_of: Vec<Option<u32>>,
    root: Vec<u32>,
}

impl<'a> Where<'a> {
    fn new(input: &Input, place: &'a [Option<Place>], units: &'a [Unit], batches: &'a [Batch]) -> Where<'a> {
        let n = input.objects.len();
        let mut batch_of: Vec<Option<u32>> = vec![None; n];
        for (bi, b) in batches.iter().enumerate() {
            for o in &b.objects {
                batch_of[o.index()] = Some(bi as u32);
            }
        }
        // What each object goes with, to the object the tool deletes or
        // leaves (memoised; a loop of carriers ends where it closes).
        let mut root: Vec<u32> = vec![u32::MAX; n];
        for i in (0..n).filter(|&i| input.planned(i)) {
            let mut path = vec![i];
            let mut x = i;
            let r = loop {
                if root[x] != u32::MAX {
                    break root[x] as usize;
                }
                match &place[x] {
                    Some(Place::Other(Other::With { carrier, .. })) if !path.contains(&carrier.index()) => {
                        x = carrier.index();
                        path.push(x);
                    }
                    _ => break x,
                }
            };
            for p in path {
                root[p] = r as u32;
            }
        }
        Where { place, units, batches, batch_of, root }
    }

    fn root_of(&self, i: usize) -> usize {
        self.root.get(i).copied().filter(|&r| r != u32::MAX).map_or(i, |r| r as usize)
    }

    /// Where the tool deletes it (through what it goes with).
    fn pos(&self, i: usize) -> Option<Pos> {
        let r = self.root_of(i);
        let b = &self.batches[self.batch_of[r]? as usize];
        Some(Pos {
            unit: self.units[b.unit as usize].name.clone(),
            rank: b.rank,
            key: b.key.clone(),
            with: (r != i).then_some(ObjId(r as u32)),
        })
    }

    /// Why the tool leaves it (through what it goes with).
    fn left(&self, i: usize) -> Option<Other> {
        match &self.place[self.root_of(i)] {
            Some(Place::Other(o)) => Some(o.clone()),
            _ => None,
        }
    }

    /// Does `t` go with `f` (through its carriers)? The walk ends at `t`'s
    /// root: where its carriers end, or where a loop of them closes.
    fn carried_by(&self, t: usize, f: usize) -> bool {
        let end = self.root_of(t);
        let mut x = t;
        while x != end {
            match &self.place[x] {
                Some(Place::Other(Other::With { carrier, .. })) => {
                    if carrier.index() == f {
                        return true;
                    }
                    x = carrier.index();
                }
                _ => return false,
            }
        }
        false
    }
}

/// The constraints of the plan the tool's order breaks, grouped by the
/// object deleted too early, the breach and the kind of relation.
fn breaches(input: &Input, tool: Tool, at: &Where) -> Vec<ToolFinding> {
    let Input { relations, relaxed, step, refs, .. } = *input;
    let mut is_relaxed = vec![false; relations.len()];
    for &r in relaxed {
        if let Some(x) = is_relaxed.get_mut(r as usize) {
            *x = true;
        }
    }
    let mut groups: BTreeMap<(usize, Breach, RelKind), ToolFinding> = BTreeMap::new();
    for (ri, r) in relations.iter().enumerate() {
        let (f, t) = (r.from.index(), r.to.index());
        if f == t || !input.planned(f) || !input.planned(t) || is_relaxed[ri] {
            continue;
        }
        // An owner deleted before what it owns is the garbage collector's
        // background cascade, not a breach. A Namespace or CRD deleted
        // before what it holds is: its controller deletes all of it at
        // once, in no order.
        if matches!(r.kind, RelKind::Owns | RelKind::Manages) || (r.kind.is_ownership() && r.link != Link::Solid) {
            continue;
        }
        // Only what the plan itself keeps: `from` in a later step.
        if step[f] <= step[t] || at.carried_by(t, f) {
            continue;
        }
        // The tool must delete `from` (a hook is run, not deleted).
        let Some(first_at) = at.pos(f) else { continue };
        if first_at.key.is_hook() {
            continue;
        }
        let (breach, needed_at) = match at.pos(t) {
            // A hook of another event has run already (at install or
            // upgrade): what it needed then is not needed now.
            None if matches!(at.left(t), Some(Other::OtherHook)) => continue,
            None => (Breach::Leaves, None),
            Some(p) if p.unit != first_at.unit => (Breach::Unordered, Some(p)),
            Some(p) if first_at.rank < p.rank => (Breach::Before, Some(p)),
            Some(p) if first_at.rank == p.rank => (Breach::Together, Some(p)),
            Some(_) => continue,
        };
        let left = needed_at.is_none().then(|| at.left(t)).flatten();
        let needing = Needing { object: r.to, left, at: needed_at };
        groups
            .entry((f, breach, r.kind))
            .or_insert_with(|| ToolFinding {
                tool,
                breach,
                first: r.from,
                first_at,
                needed_by: Vec::new(),
                relation: *r,
            })
            .needed_by
            .push(needing);
    }
    let unit_index = |name: &Option<Str>| at.units.iter().position(|u| u.name == *name).unwrap_or(0);
    let mut findings: Vec<ToolFinding> = groups.into_values().collect();
    for f in &mut findings {
        f.needed_by.sort_by(|a, b| input.plan_order(a.object.index(), b.object.index()));
        f.needed_by.dedup_by_key(|x| x.object);
    }
    findings.sort_by(|a, b| {
        (unit_index(&a.first_at.unit), a.first_at.rank, refs.name(a.first), a.breach, a.relation.kind).cmp(&(
            unit_index(&b.first_at.unit),
            b.first_at.rank,
            refs.name(b.first),
            b.breach,
            b.relation.kind,
        ))
    });
    findings
}

/// A kapp change rule: (object position, group, before?, built-in rule?).
type KappRule = (usize, usize, bool, bool);

/// Each of the `m` objects' level under kapp's change groups and rules
/// (the objects' own, and with `with_builtin` kapp's built-in ones), or
/// the objects on a cycle.
fn kapp_levels(
    m: usize,
    group_members: &[Vec<usize>],
    rules: &[KappRule],
    with_builtin: bool,
) -> Result<Vec<u32>, Vec<usize>> {
    // Nodes: the objects, then per group a node before its members and
    // one after them. Edges (from, to, weight).
    let groups = group_members.len();
    let nodes = m + 2 * groups;
    let before = |g: usize| m + 2 * g;
    let after = |g: usize| m + 2 * g + 1;
    let mut edges: Vec<(usize, usize, u32)> = Vec::new();
    for (g, ms) in group_members.iter().enumerate() {
        for &x in ms {
            edges.push((before(g), x, 0));
            edges.push((x, after(g), 1));
        }
    }
    for &(x, g, is_before, builtin) in rules {
        if builtin && !with_builtin {
            continue;
        }
        let own = group_members[g].contains(&x);
        match (is_before, own) {
            (true, false) => edges.push((x, before(g), 1)),
            (false, false) => edges.push((after(g), x, 0)),
            // A change does not wait for itself: the others of its group.
            (true, true) => edges.extend(group_members[g].iter().filter(|&&y| y != x).map(|&y| (x, y, 1))),
            (false, true) => edges.extend(group_members[g].iter().filter(|&&y| y != x).map(|&y| (y, x, 1))),
        }
    }
    let mut indegree = vec![0u32; nodes];
    for &(_, b, _) in &edges {
        indegree[b] += 1;
    }
    let out = Csr::from_edges(nodes, edges.iter().map(|&(a, b, w)| (a as u32, (b as u32, w))));
    let mut level = vec![0u32; nodes];
    let mut queue: Vec<usize> = (0..nodes).filter(|&v| indegree[v] == 0).collect();
    let mut seen = 0;
    while let Some(v) = queue.pop() {
        seen += 1;
        for &(w, weight) in out.row(v) {
            let w = w as usize;
            level[w] = level[w].max(level[v] + weight);
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push(w);
            }
        }
    }
    match seen == nodes {
        true => Ok(level.iter().take(m).copied().collect()),
        false => Err((0..m).filter(|&x| indegree[x] > 0).collect()),
    }
}

/// Helm: pre-delete hooks one by one (weight, then name), the release's
/// objects kind by kind (`first` kinds, then Helm 3's UninstallOrder, then
/// unknown kinds alphabetically), then post-delete hooks.
fn helm<'t>(
    members: &[usize],
    objects: &[Object],
    tools: &impl Fn(usize) -> &'t Tools,
    first: &[&str],
    refs: &super::refs::Refs,
) -> Vec<(BatchKey, Vec<usize>)> {
    let hooks = |which: HelmHook| {
        let mut h: Vec<usize> = members.iter().copied().filter(|&i| helm_hook(tools(i)) == Some(which)).collect();
        h.sort_by(|&a, &b| {
            (tools(a).hook_weight, &objects[a].name, refs.get(a)).cmp(&(
                tools(b).hook_weight,
                &objects[b].name,
                refs.get(b),
            ))
        });
        h.into_iter().map(move |i| (BatchKey::Hook { hook: which, weight: tools(i).hook_weight }, vec![i]))
    };
    let mut kinds: BTreeMap<(bool, usize, Str), Vec<usize>> = BTreeMap::new();
    for &i in members.iter().filter(|&&i| helm_hook(tools(i)).is_none()) {
        let kind = &objects[i].kind;
        let known = first.iter().chain(HELM3_UNINSTALL_ORDER.iter()).position(|k| **k == **kind);
        let key = match known {
            Some(p) => (false, p, Str::from("")),
            None => (true, 0, kind.clone()),
        };
        kinds.entry(key).or_default().push(i);
    }
    let mut out: Vec<(BatchKey, Vec<usize>)> = hooks(HelmHook::PreDelete).collect();
    // (Each kind's list holds at least the object that made it.)
    out.extend(kinds.into_values().filter_map(|objs| {
        let kind = objects.get(*objs.first()?)?.kind.clone();
        let known = first.iter().chain(HELM3_UNINSTALL_ORDER.iter()).any(|k| **k == *kind);
        Some((BatchKey::Kind { kind, known }, objs))
    }));
    out.extend(hooks(HelmHook::PostDelete));
    out
}

/// Argo CD: the highest wave first, each wave at once.
fn argocd<'t>(members: &[usize], tools: &impl Fn(usize) -> &'t Tools) -> Vec<(BatchKey, Vec<usize>)> {
    let mut waves: BTreeMap<std::cmp::Reverse<i32>, Vec<usize>> = BTreeMap::new();
    for &i in members {
        let t = tools(i);
        waves.entry(std::cmp::Reverse(t.sync_wave.unwrap_or(t.hook_weight))).or_default().push(i);
    }
    waves.into_iter().map(|(w, objs)| (BatchKey::Wave(w.0), objs)).collect()
}

/// Flux: the reverse of `ReconcileOrder` (kind's index, group, kind,
/// namespace, name), one call at a time.
fn flux(members: &[usize], objects: &[Object]) -> Vec<(BatchKey, Vec<usize>)> {
    let index = |kind: &str| -> i64 {
        if let Some(p) = FLUX_FIRST.iter().position(|k| *k == kind) {
            p as i64 - FLUX_FIRST.len() as i64
        } else if let Some(p) = FLUX_LAST.iter().position(|k| *k == kind) {
            p as i64 + 1
        } else {
            0
        }
    };
    let key = |i: usize| {
        let o = &objects[i];
        (
            index(&o.kind),
            o.group.clone(),
            o.kind.clone(),
            o.namespace.clone().unwrap_or_else(|| Str::from("")),
            o.name.clone(),
        )
    };
    let mut sorted: Vec<usize> = members.to_vec();
    sorted.sort_by_cached_key(|&i| std::cmp::Reverse(key(i)));
    sorted.into_iter().map(|i| (BatchKey::Call, vec![i])).collect()
}

/// kapp: the levels of its change graph for deletions. Returns the levels
/// and the objects of a cycle kapp would refuse (put last).
fn kapp<'t>(
    members: &[usize],
    objects: &[Object],
    tools: &impl Fn(usize) -> &'t Tools,
) -> (Vec<(BatchKey, Vec<usize>)>, Vec<usize>) {
    // Change groups: the objects' own and kapp's built-in ones its delete
    // rules name.
    let mut group_ids: FxHashMap<Str, usize> = FxHashMap::default();
    let mut group_members: Vec<Vec<usize>> = Vec::new();
    fn group(name: &Str, ids: &mut FxHashMap<Str, usize>, members: &mut Vec<Vec<usize>>) -> usize {
        *ids.entry(name.clone()).or_insert_with(|| {
            members.push(Vec::new());
            members.len() - 1
        })
    }
    let (crds, appcr, pkgi) = (Str::from(KAPP_CRDS), Str::from(KAPP_APPCR), Str::from(KAPP_PACKAGEINSTALL));
    let g_crds = group(&crds, &mut group_ids, &mut group_members);
    let g_appcr = group(&appcr, &mut group_ids, &mut group_members);
    let g_pkgi = group(&pkgi, &mut group_ids, &mut group_members);
    let mut rules: Vec<KappRule> = Vec::new();
    for (k, &i) in members.iter().enumerate() {
        let o = &objects[i];
        let (g, kind) = (o.group.as_ref(), o.kind.as_ref());
        let crd = is_crd(o);
        let custom = !crd && builtin_namespaced(g, kind).is_none();
        let mut mine: Vec<usize> =
            tools(i).kapp_groups.iter().map(|n| group(n, &mut group_ids, &mut group_members)).collect();
        if crd {
            mine.push(g_crds);
        }
        if let Some(bound) = kapp_bound_group(g, kind) {
            mine.push(group(&Str::from(bound), &mut group_ids, &mut group_members));
        }
        mine.sort_unstable();
        mine.dedup();
        for gi in mine {
            group_members[gi].push(k);
        }
        if custom {
            rules.push((k, g_crds, true, true));
        } else if !crd {
            rules.push((k, g_crds, false, true));
        }
        let rbac = g == crate::model::kube::RBAC
            && matches!(kind, "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding");
        if rbac || (g.is_empty() && kind == "ServiceAccount") {
            rules.push((k, g_pkgi, false, true));
            rules.push((k, g_appcr, false, true));
        }
        for r in &tools(i).kapp_rules {
            if r.action == KappAction::Delete && r.other == KappAction::Delete {
                rules.push((k, group(&r.group, &mut group_ids, &mut group_members), r.when == KappWhen::Before, false));
            }
        }
    }
    let m = members.len();
    let levels = |with_builtin: bool| kapp_levels(m, &group_members, &rules, with_builtin);
    // Built-in rules are `ignoreIfCyclical`; the objects' own are not.
    let (level, cyclic) = match levels(true).or_else(|_| levels(false)) {
        Ok(level) => (level, Vec::new()),
        Err(cyclic) => {
            let mut level = vec![0u32; m];
            for &x in &cyclic {
                level[x] = u32::MAX;
            }
            (level, cyclic)
        }
    };
    let mut by_level: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (k, &i) in members.iter().enumerate() {
        by_level.entry(level[k]).or_default().push(i);
    }
    let cyclic = cyclic.into_iter().map(|k| members[k]).collect();
    (by_level.into_values().map(|objs| (BatchKey::Level, objs)).collect(), cyclic)
}

// The result: typed data, rendered by `plan::tool_order` and `render::tool_order`.

/// The tools whose deletion order `plan --as` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// `helm uninstall` of Helm 3: kinds in Helm's UninstallOrder (webhook
    /// configurations are not in it: they go last, with custom resources),
    /// delete calls one kind at a time, none waiting for deletion.
    Helm,
    /// `helm uninstall` of Helm 4, whose UninstallOrder starts with the
    /// webhook configurations (helm/helm#30701).
    Helm4,
    /// Argo CD deleting an Application (cascade) or pruning: highest sync
    /// wave first, a whole wave at once, the next once it is gone.
    Argocd,
    /// `kapp delete`: kapp's built-in change rules (custom resources, then
    /// CRDs, then the rest) and the objects' own delete change rules.
    Kapp,
    /// Flux kustomize-controller's garbage collection: each Kustomization
    /// deletes what it applied, in reverse apply order, one call at a time.
    Flux,
}

impl Tool {
    pub fn id(self) -> &'static str {
        match self {
            Tool::Helm => "helm",
            Tool::Helm4 => "helm4",
            Tool::Argocd => "argocd",
            Tool::Kapp => "kapp",
            Tool::Flux => "flux",
        }
    }

    /// The tool's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Helm => "Helm 3",
            Tool::Helm4 => "Helm 4",
            Tool::Argocd => "Argo CD",
            Tool::Kapp => "kapp",
            Tool::Flux => "Flux",
        }
    }

    /// What the tool's units are called (`release`, `Kustomization`…).
    pub fn unit_noun(self) -> &'static str {
        match self {
            Tool::Helm | Tool::Helm4 => "release",
            Tool::Argocd => "Application",
            Tool::Kapp => "app",
            Tool::Flux => "Kustomization",
        }
    }

    /// Does the tool wait until a batch is gone before it deletes the next?
    pub fn waits(self) -> bool {
        matches!(self, Tool::Argocd | Tool::Kapp)
    }
}

/// What a batch of the tool's order is, as the tool sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchKey {
    /// Helm: one kind of its UninstallOrder (`known`) or a kind it does not
    /// know (those go last, alphabetically).
    Kind { kind: Str, known: bool },
    /// A Helm hook, run (and waited for) one at a time.
    Hook { hook: HelmHook, weight: i32 },
    /// Argo CD: a sync wave.
    Wave(i32),
    /// kapp: a level of its change graph.
    Level,
    /// Flux: one delete call.
    Call,
}

/// Objects the tool deletes (or, for a hook, runs) together: nothing orders
/// them among themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Index into [`ToolOrder::units`].
    pub unit: u32,
    /// 1-based position in its unit's order.
    pub rank: u32,
    pub key: BatchKey,
    /// In teardown's plan order (step, then reference).
    pub objects: Vec<ObjId>,
}

/// One of the tool's units: a release, an Application, a kapp app, a
/// Kustomization (namespace/name), or `None` when the snapshot names none
/// and is read as one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub name: Option<Str>,
}

/// An annotation that makes the tool keep an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// `helm.sh/resource-policy: keep` (Helm, and Argo CD).
    HelmKeep,
    /// `argocd.argoproj.io/sync-options: Delete=false`.
    ArgoNoDelete,
    /// `kapp.k14s.io/delete-strategy: orphan`.
    KappOrphan,
    /// `kustomize.toolkit.fluxcd.io/prune: disabled`.
    FluxPruneDisabled,
}

impl Keep {
    pub fn annotation(self) -> &'static str {
        match self {
            Keep::HelmKeep => keep_mark(KeepMark::HelmKeep),
            Keep::ArgoNoDelete => keep_mark(KeepMark::ArgoNoDelete),
            Keep::KappOrphan => keep_mark(KeepMark::KappOrphan),
            Keep::FluxPruneDisabled => keep_mark(KeepMark::FluxPruneDisabled),
        }
    }
}

/// Why the tool does not delete one of the plan's objects itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Other {
    /// It goes with this object, which the tool deletes (or which goes with
    /// another): the garbage collector (`owns`, `manages`), the namespace
    /// controller (`contains`), the CRD's cleanup (`defines`).
    With { carrier: ObjId, how: RelKind },
    /// The tool keeps it, as this annotation says.
    Kept(Keep),
    /// The snapshot names units of the tool, and none holds it.
    NotManaged,
    /// A Helm hook of another event: `helm uninstall` neither runs nor
    /// deletes it.
    OtherHook,
    /// Argo CD never deletes a CustomResourceDefinition with its
    /// Application.
    NeverDeleted,
}

/// Where the tool deletes an object: its unit, its batch's rank and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    pub unit: Option<Str>,
    pub rank: u32,
    pub key: BatchKey,
    /// It is not deleted by the tool itself but goes with this object.
    pub with: Option<ObjId>,
}

/// How the tool's order breaks a constraint of teardown's plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Breach {
    /// The tool deletes the needed object in an earlier batch (for Helm and
    /// Flux: its delete call goes out earlier).
    Before,
    /// In the same batch: deleted at once, nothing makes it wait.
    Together,
    /// In different units, which nothing orders.
    Unordered,
    /// The tool deletes it and leaves what needs it.
    Leaves,
}

impl Breach {
    pub fn id(self) -> &'static str {
        match self {
            Breach::Before => "before",
            Breach::Together => "together",
            Breach::Unordered => "unordered",
            Breach::Leaves => "leaves",
        }
    }
}

/// An object that still needs the one deleted too early, and where the tool
/// deletes it (`None`: it does not, and why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needing {
    pub object: ObjId,
    pub at: Option<Pos>,
    /// Why the tool leaves it (with [`Breach::Leaves`]).
    pub left: Option<Other>,
}

/// The tool deletes `first` before (or with, or regardless of) objects that
/// teardown destroys before it, by one kind of relation. One per object
/// deleted too early, per breach and per kind of relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFinding {
    pub tool: Tool,
    pub breach: Breach,
    pub first: ObjId,
    pub first_at: Pos,
    /// What still needs it, in teardown's plan order.
    pub needed_by: Vec<Needing>,
    /// The constraint of teardown's plan broken (`first` is its `from`; the
    /// first of `needed_by` its `to`).
    pub relation: Relation,
}

/// The tool's order over the plan's objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOrder {
    pub tool: Tool,
    /// The units, by name.
    pub units: Vec<Unit>,
    /// Unit by unit, in the order the tool issues them.
    pub batches: Vec<Batch>,
    /// The plan's objects the tool does not delete itself, in reference
    /// order, and why.
    pub others: Vec<(ObjId, Other)>,
    pub findings: Vec<ToolFinding>,
    /// kapp: objects whose delete change rules form a cycle, which kapp
    /// refuses to apply (its last level here).
    pub cycle: Vec<ObjId>,
}
