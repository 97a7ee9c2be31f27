//! Destruction order (CONTRACT §4): Murano's comparator, realised as a
//! longest-path layering of a constraint graph — never as a sort key.
//!
//! For objects A, B of the deletion set: A goes after B when A has a
//! destruction dependency on B (and not B on A), else when A owns B. Each
//! relation is transitive on its own, also through objects outside the set;
//! a chain that mixes the two kinds through an outside object constrains
//! nothing. So the layering graph has one node per object of the set and,
//! for each outside object, one node per kind (an "ownership copy" and a
//! "destruction copy") that take no step of their own.
//!
//! 1. Ownership cycles (of ownership edges alone) that touch the set are an
//!    error, or with `--allow-cycles` one group; cycles wholly outside the set
//!    are merged silently.
//! 2. Destruction-dependency cycles become one group each (a warning).
//! 3. Kahn's algorithm computes steps. When it stalls, every remaining cycle
//!    mixes both kinds, and destruction dependencies win: in a cycle where
//!    A's destruction dependency on B contradicts B owning A (directly or
//!    through others), A's own ownership links in the cycle are relaxed, and
//!    the walk goes on.
//!
//! Edges of the default rules (`RelKind::Rule`, only between objects of the
//! set) are weaker still: they take part in no cycle group, and when the
//! walk stalls on a cycle that holds one, a rule edge is relaxed first —
//! before any ownership edge — and listed as relaxed. A rule that orders
//! every member of one class after every member of another (the rest of a
//! namespace after its Pods) meets at a barrier: one node per namespace
//! that takes no step, after each Pod and before each other object, so
//! that its edges are as many as its objects, never their product
//! ([`RuleEdge::PodFirst`], [`RuleEdge::AfterPods`]).
//!
//! Other tools' metadata (`RelKind::Tool`) orders whole groups against
//! whole groups through hubs: a relation with a hub end is drawn to the
//! hub's node (numbered by its `decl`), which takes no step, so that "every
//! object of wave 2 before every object of wave 1" is as many edges as
//! objects. An object whose longest chain passes a hub is said to go right
//! after the object behind the hub.
//!
//! A node's step is its weight (1 for a group that holds objects of the set,
//! 0 otherwise) plus the largest step of what must go before it.
//! O((V + E) log V).

// No-panic lints (issue 19): this module indexes dense tables only. Object
// ids index `in_set` and `rank`, which the caller makes with the relations
// from one snapshot (one entry per object); layering nodes, edges, groups,
// hubs and the CSR offsets are numbered here, from 0, as the tables they
// index are made. Nothing here is indexed by a position read from input.
#![allow(
    clippy::indexing_slicing,
    reason = "object ids of one snapshot index its per-object tables; nodes, edges, groups and offsets are numbered here as their tables are made"
)]

use crate::graph::{scc, Csr, Rows};
use crate::model::{HubEnd, Link, ObjId, RelKind, Relation, RuleEdge};
use rayon::prelude::*;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    Destruction,
    Ownership,
}

/// Objects planned together in one step because they form a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub kind: GroupKind,
    /// Objects of the set in the group, in reference order.
    pub members: Vec<ObjId>,
}

#[derive(Clone, Debug)]
pub struct Order {
    /// 1-based step of each object of the set; 0 for objects outside it.
    pub step: Vec<u32>,
    pub steps: u32,
    /// Ownership relations dropped in favour of destruction dependencies,
    /// in reference order (owner, dependent).
    pub relaxed: Vec<u32>,
    /// For each of `relaxed`: the destruction dependency that won.
    pub relaxed_because: Vec<Option<u32>>,
    pub groups: Vec<Group>,
    /// For each object of the set: the relation to what goes right before it
    /// on its longest chain (`None` at step 1, or when only its own group
    /// members are before it).
    pub after: Vec<Option<u32>>,
    /// The same for objects outside the set, which a chain may pass through:
    /// [through ownership, through destruction dependencies]; only those
    /// with one, by object index (see [`Order::after_outside_of`]).
    pub after_outside: Vec<(u32, [Option<u32>; 2])>,
    /// The objects of the set in each cycle of destruction dependencies
    /// (two or more), in reference order; cycles by their first object.
    /// Ownership may order a cycle's members (owned first): then they are
    /// at several steps, and each step's members that no clause orders are
    /// one of `groups`.
    pub destruction_cycles: Vec<Vec<ObjId>>,
}

impl Order {
    /// The object's step: 0 when it is outside the set (and for an id that
    /// names no object).
    pub fn step_of(&self, id: ObjId) -> u32 {
        self.step.get(id.index()).copied().unwrap_or(0)
    }

    /// What goes right before `id`, an object outside the set, on a chain
    /// through it: [through ownership, through destruction dependencies].
    pub fn after_outside_of(&self, id: ObjId) -> [Option<u32>; 2] {
        match self.after_outside.binary_search_by_key(&id.0, |&(i, _)| i) {
            Ok(at) => self.after_outside.get(at).map_or([None; 2], |&(_, a)| a),
            Err(_) => [None; 2],
        }
    }
}

/// The plan cannot be made: objects of the set own each other in a cycle.
#[derive(Clone, Debug)]
pub struct OwnershipCycle {
    /// Objects of the set in the cycle's component, in reference order.
    pub members: Vec<ObjId>,
}

pub struct Input<'a> {
    pub relations: &'a [Relation],
    pub in_set: &'a [bool],
    /// Each object's position in reference order (ties and determinism).
    pub rank: &'a [u32],
    pub allow_cycles: bool,
}

/// Union-find over layering nodes.
struct Groups {
    parent: Vec<u32>,
}

impl Groups {
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            self.parent[hi as usize] = lo;
        }
    }
}

struct Edge {
    from: u32,
    to: u32,
    rel: u32,
    hard: bool,
    /// A default rule's edge (never hard).
    rule: bool,
    /// A destruction dependency inside a cycle split by ownership: it
    /// orders nothing.
    skip: bool,
    /// Ownership that ran through a relaxed link (relaxing is local): the
    /// owner before what the relaxed object owns, or the owners of the
    /// owner before the relaxed object. `rel` is the relation whose `to` is
    /// this edge's `to` (its `from` is the object the ownership runs
    /// through). Never listed as relaxed itself.
    derived: bool,
}

/// The cycles (components of two or more nodes, or one with a self-loop)
/// of the graph on `0..node_count` given by `edges`.
fn cycles_of(node_count: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Vec<Vec<u32>> {
    scc::cycles(&Rows::from_edges(node_count, edges))
}

/// The layering graph as it is made: one node per object of the set
/// (numbered first), an ownership and a destruction copy per outside object
/// as needed, a barrier per namespace, a node per hub; and its edges.
struct Net {
    /// Each object's [ownership, destruction] node (the same one for an
    /// object of the set; `u32::MAX`: none yet).
    node_of: Vec<[u32; 2]>,
    /// 1 for a node of an object of the set, 0 for one that takes no step.
    weight: Vec<u8>,
    /// Each node's place in reference order (ties and determinism).
    rank: Vec<u64>,
    objects_of: Vec<Option<ObjId>>,
    /// A namespace's barrier node, by the object that names it.
    barrier_of: rustc_hash::FxHashMap<usize, u32>,
    /// The node of each hub of other tools' group orders, by number.
    hub_node: Vec<u32>,
    edges: Vec<Edge>,
}

impl Net {
    /// The nodes of the objects of the set; no edges yet.
    fn new(input: &Input) -> Net {
        let n = input.in_set.len();
        let mut net = Net {
            node_of: vec![[u32::MAX; 2]; n],
            weight: Vec::with_capacity(n),
            rank: Vec::with_capacity(n),
            objects_of: Vec::with_capacity(n),
            barrier_of: rustc_hash::FxHashMap::default(),
            hub_node: Vec::new(),
            edges: Vec::with_capacity(input.relations.len()),
        };
        for i in (0..n).filter(|&i| input.in_set[i]) {
            let x = net.push(1, input.rank[i] as u64, Some(ObjId(i as u32)));
            net.node_of[i] = [x; 2];
        }
        net
    }

    fn push(&mut self, weight: u8, rank: u64, object: Option<ObjId>) -> u32 {
        self.weight.push(weight);
        self.rank.push(rank);
        self.objects_of.push(object);
        self.weight.len() as u32 - 1
    }

    /// The node of object `i` for an edge of one kind (`hard`: destruction).
    fn copy(&mut self, input: &Input, i: usize, hard: bool) -> u32 {
        let k = usize::from(hard);
        if self.node_of[i][k] == u32::MAX {
            let n = input.in_set.len() as u64;
            self.node_of[i][k] = self.push(0, (1 + k as u64) * n + input.rank[i] as u64, None);
        }
        self.node_of[i][k]
    }

    /// A namespace's barrier: a node of its own, after the namespace's Pods
    /// and before the rest of it, that takes no step.
    fn barrier(&mut self, input: &Input, i: usize) -> u32 {
        if let Some(&b) = self.barrier_of.get(&i) {
            return b;
        }
        let b = self.push(0, 3 * (input.in_set.len() as u64) + input.rank[i] as u64, None);
        self.barrier_of.insert(i, b);
        b
    }

    /// The node of hub `h`: a node of no object.
    fn hub(&mut self, input: &Input, h: u32) -> u32 {
        let h = h as usize;
        if self.hub_node.len() <= h {
            self.hub_node.resize(h + 1, u32::MAX);
        }
        if self.hub_node[h] == u32::MAX {
            self.hub_node[h] = self.push(0, 4 * (input.in_set.len() as u64) + h as u64, None);
        }
        self.hub_node[h]
    }

    /// The layering graph of the relations that order something.
    fn of(input: &Input) -> Net {
        let mut net = Net::new(input);
        for (ri, r) in input.relations.iter().enumerate() {
            // An owner link Kubernetes ignores (TD004–TD006) orders nothing,
            // nor does a released volume's binding (`RelKind::orders`).
            // (Nor a managed-by relation whose application object does not wait.)
            if (r.kind.is_ownership() && r.link != Link::Solid) || !r.kind.orders() || !super::managed::orders(r) {
                continue;
            }
            let ruled = r.kind.rule();
            let rule = ruled.is_some();
            let hard = r.kind.is_destruction();
            let at_hub = r.kind.tool().map_or(HubEnd::None, |t| t.hub);
            let from = match (at_hub, ruled.is_some_and(RuleEdge::from_is_barrier)) {
                (HubEnd::From, _) => net.hub(input, r.decl),
                (_, true) => net.barrier(input, r.from.index()),
                _ => net.copy(input, r.from.index(), hard),
            };
            let to = match (at_hub, ruled.is_some_and(RuleEdge::to_is_barrier)) {
                (HubEnd::To, _) => net.hub(input, r.decl),
                (_, true) => net.barrier(input, r.to.index()),
                _ => net.copy(input, r.to.index(), hard),
            };
            net.edges.push(Edge { from, to, rel: ri as u32, hard, rule, skip: false, derived: false });
        }
        net
    }

    /// The objects of the set among `nodes`, in reference order.
    fn members(&self, input: &Input, nodes: &[u32]) -> Vec<ObjId> {
        let mut m: Vec<ObjId> = nodes.iter().filter_map(|&x| self.objects_of[x as usize]).collect();
        m.sort_by_key(|o| input.rank[o.index()]);
        m
    }
}

/// Merge `rest` into the group of `first` (of `nodes`).
fn merge(groups: &mut Groups, nodes: &[u32]) {
    if let Some((&first, rest)) = nodes.split_first() {
        for &x in rest {
            groups.union(first, x);
        }
    }
}

pub fn order(input: &Input) -> Result<Order, OwnershipCycle> {
    let mut net = Net::of(input);
    let count = net.weight.len();
    let mut is_barrier = vec![false; count];
    for &b in net.barrier_of.values() {
        is_barrier[b as usize] = true;
    }
    // Most graphs have no cycle at all: layer them as they are.
    if let Some(plain) = layer_acyclic(count, &net.edges, &net.weight, &net.rank) {
        // (What `finish` does not read goes first: a million objects'
        // nodes hold tens of megabytes.)
        let Net { node_of, edges, .. } = net;
        return Ok(finish(input, &node_of, &edges, &is_barrier, plain, Vec::new()));
    }
    let mut groups = Groups { parent: (0..count as u32).collect() };
    let mut found = ownership_cycles(input, &net, &mut groups)?;
    let (mut destruction_cycles, split) = destruction_cycles(input, &net, &mut groups, &mut found);
    let mut pass = is_barrier.clone();
    let mut cycle_of = vec![u32::MAX; count];
    if !split.is_empty() {
        let mut tables = Tables { pass: &mut pass, is_barrier: &mut is_barrier, cycle_of: &mut cycle_of };
        through_split_cycles(input, &mut net, &mut groups, &split, &mut tables);
    }
    let count = net.weight.len();

    // 3. Kahn's algorithm over the groups, relaxing ownership when stalled.
    let rep: Vec<u32> = (0..count as u32).map(|x| groups.find(x)).collect();
    let cycle_of: Vec<u32> = (0..count).map(|g| cycle_of[rep[g] as usize]).collect();
    let out_hub: Vec<bool> = pass.iter().zip(&is_barrier).map(|(&p, &b)| p && !b).collect();
    let nodes =
        Nodes { weight: &net.weight, rank: &net.rank, barrier: &is_barrier, cycle_of: &cycle_of, out_hub: &out_hub };
    let lay = layer(count, &mut net.edges, rep, &nodes);
    let mut order = finish(input, &net.node_of, &net.edges, &pass, lay, found);
    destruction_cycles.sort_by_key(|m| m.first().map(|o| input.rank[o.index()]));
    order.destruction_cycles = destruction_cycles;
    Ok(order)
}

/// Step 1, cycles of ownership alone: each merged into one group (with
/// `--allow-cycles`, a group of the plan when it holds objects of the set).
/// Without --allow-cycles, one that touches the set is the error, and the
/// error names the one whose first object comes first in reference order,
/// whatever order the inputs were read in (tests/props_determinism.rs).
fn ownership_cycles(input: &Input, net: &Net, groups: &mut Groups) -> Result<Vec<Group>, OwnershipCycle> {
    let count = net.weight.len();
    let mut found: Vec<Group> = Vec::new();
    let mut refused: Option<Vec<ObjId>> = None;
    for cycle in cycles_of(count, net.edges.iter().filter(|e| !e.hard && !e.rule).map(|e| (e.from, e.to))) {
        let members = net.members(input, &cycle);
        if !members.is_empty() {
            if !input.allow_cycles {
                let first = |m: &[ObjId]| m.first().map(|o| input.rank[o.index()]);
                if refused.as_deref().is_none_or(|r| first(&members) < first(r)) {
                    refused = Some(members);
                }
                continue;
            }
            found.push(Group { kind: GroupKind::Ownership, members });
        }
        merge(groups, &cycle);
    }
    match refused {
        Some(members) => Err(OwnershipCycle { members }),
        None => Ok(found),
    }
}

/// Step 2, cycles of destruction dependencies (between the groups so far).
/// Their members depend on each other, so the comparator's first branch
/// orders none of them; its ELSE IF still does: ownership among them
/// (directly or through others) splits a cycle into levels, owned first,
/// and each level is one group. A cycle of one level is one group, as it
/// always was. Gives the objects of the set in each cycle (two or more),
/// and the cycles split into levels (their elements: groups of step 1).
fn destruction_cycles(
    input: &Input,
    net: &Net,
    groups: &mut Groups,
    found: &mut Vec<Group>,
) -> (Vec<Vec<ObjId>>, Vec<Vec<u32>>) {
    let (count, edges) = (net.weight.len(), &net.edges);
    let hard_edges: Vec<(u32, u32)> =
        edges.iter().filter(|e| e.hard).map(|e| (groups.find(e.from), groups.find(e.to))).collect();
    let hard_cycles = cycles_of(count, hard_edges.iter().copied());
    drop(hard_edges);
    let mut by_rep: Vec<Vec<u32>> = Vec::new();
    // Ownership between the groups so far, for the levels.
    let mut owned_by = Csr::from_edges(0, std::iter::empty());
    if !hard_cycles.is_empty() {
        by_rep = vec![Vec::new(); count];
        for x in 0..count as u32 {
            let g = groups.find(x);
            by_rep[g as usize].push(x);
        }
        let own: Vec<(u32, u32)> = edges
            .iter()
            .filter(|e| !e.hard && !e.rule)
            .map(|e| (groups.find(e.from), groups.find(e.to)))
            .filter(|(f, t)| f != t)
            .collect();
        owned_by = Csr::from_edges(count, own.iter().copied());
    }
    // A finalizer's controller removes the finalizer of an object that
    // carries it: deleted before that object, it leaves the object hanging
    // (the plan is refused). Per cycle, its finalizer edges between objects
    // of the set, as (controller, holder) positions in the cycle.
    let held = finalizers_in(&hard_cycles, edges, input.relations, &net.objects_of, groups);
    let mut destruction_cycles: Vec<Vec<ObjId>> = Vec::new();
    let mut split: Vec<Vec<u32>> = Vec::new();
    for (c, cycle) in hard_cycles.into_iter().enumerate() {
        // Members of ownership groups merged in step 1 come along.
        let nodes: Vec<u32> = cycle.iter().flat_map(|&g| by_rep[g as usize].iter().copied()).collect();
        let members = net.members(input, &nodes);
        if members.len() > 1 {
            destruction_cycles.push(members.clone());
        }
        // (A cycle through a group of objects that own each other, with
        // --allow-cycles, need not be one of objects that depend on each
        // other: it stays one group.)
        let single = cycle.iter().all(|&g| by_rep[g as usize].len() == 1);
        let mut level = match single {
            true => levels(&cycle, &owned_by),
            false => Vec::new(),
        };
        if let Some(held) = held.get(c) {
            keep_controllers_up(&mut level, held);
        }
        let top = level.iter().copied().max().unwrap_or(0);
        if top <= 1 {
            if !members.is_empty() {
                found.retain(|f| !f.members.iter().any(|m| members.contains(m)));
                found.push(Group { kind: GroupKind::Destruction, members });
            }
            merge(groups, &cycle);
            continue;
        }
        for l in 1..=top {
            let at: Vec<u32> = cycle.iter().zip(&level).filter(|(_, &k)| k == l).map(|(&g, _)| g).collect();
            let nodes: Vec<u32> = at.iter().flat_map(|&g| by_rep[g as usize].iter().copied()).collect();
            let members = net.members(input, &nodes);
            if at.len() > 1 && !members.is_empty() {
                found.retain(|f| !f.members.iter().any(|m| members.contains(m)));
                found.push(Group { kind: GroupKind::Destruction, members });
            }
            merge(groups, &at);
        }
        split.push(cycle);
    }
    (destruction_cycles, split)
}

/// Per layering node, what `through_split_cycles` extends as it adds nodes.
struct Tables<'a> {
    /// A node that takes no step and that a chain passes (a barrier, a
    /// split cycle's "out" node).
    pass: &'a mut Vec<bool>,
    is_barrier: &'a mut Vec<bool>,
    /// The node's split cycle (`u32::MAX`: none).
    cycle_of: &'a mut Vec<u32>,
}

/// Step 2b: a split cycle's dependencies inside it order nothing; what one
/// member depends on outside, every member does (through the others), and
/// what depends on one member depends on all: through two nodes of its own
/// that take no step, one after every level ("out"), one before every
/// level ("in").
fn through_split_cycles(input: &Input, net: &mut Net, groups: &mut Groups, split: &[Vec<u32>], t: &mut Tables) {
    let rels = input.relations;
    for (c, cycle) in split.iter().enumerate() {
        for &g in cycle {
            t.cycle_of[groups.find(g) as usize] = c as u32;
        }
    }
    // Per cycle: its hubs ("out", "in"), and per level the relation
    // of its first edge out and in, in reference order (not the order
    // the inputs were read in).
    let mut hubs: Vec<[u32; 2]> = vec![[u32::MAX; 2]; split.len()];
    let mut first: rustc_hash::FxHashMap<(u32, u32, bool), u32> = rustc_hash::FxHashMap::default();
    let key = |r: u32| {
        let rel = &rels[r as usize];
        (input.rank[rel.from.index()], input.rank[rel.to.index()], r)
    };
    let keep = |first: &mut rustc_hash::FxHashMap<(u32, u32, bool), u32>, at: (u32, u32, bool), r: u32| {
        let slot = first.entry(at).or_insert(r);
        if key(r) < key(*slot) {
            *slot = r;
        }
    };
    let Net { edges, weight, rank, objects_of, .. } = net;
    for e in edges.iter_mut().filter(|e| e.hard) {
        let (f, to) = (t.cycle_of[groups.find(e.from) as usize], t.cycle_of[groups.find(e.to) as usize]);
        if f != u32::MAX && f == to {
            e.skip = true;
            let level = groups.find(e.to);
            keep(&mut first, (f, level, false), e.rel);
            continue;
        }
        for (c, k, end) in [(f, 0usize, e.from), (to, 1, e.to)] {
            if c == u32::MAX {
                continue;
            }
            let level = groups.find(end);
            keep(&mut first, (c, level, k == 0), e.rel);
            let hub = &mut hubs[c as usize][k];
            if *hub == u32::MAX {
                // Ranked after everything else, by the cycle's first node.
                let low = split[c as usize].iter().map(|&g| rank[g as usize]).min().unwrap_or(0);
                *hub = weight.len() as u32;
                weight.push(0);
                rank.push((1 << 40) + 2 * low + k as u64);
                objects_of.push(None);
                groups.parent.push(*hub);
                t.pass.push(k == 0);
                t.is_barrier.push(false);
                t.cycle_of.push(u32::MAX);
            }
            if k == 0 {
                e.from = *hub;
            } else {
                e.to = *hub;
            }
        }
    }
    for (c, cycle) in split.iter().enumerate() {
        let mut levels: Vec<u32> = cycle.iter().map(|&g| groups.find(g)).collect();
        levels.sort_unstable();
        levels.dedup();
        let any =
            |out: bool| levels.iter().filter_map(|&l| first.get(&(c as u32, l, out)).copied()).min_by_key(|&r| key(r));
        for &l in &levels {
            let [out, inn] = hubs[c];
            if out != u32::MAX {
                let rel = first.get(&(c as u32, l, true)).copied().or_else(|| any(true)).unwrap_or(0);
                edges.push(Edge { from: l, to: out, rel, hard: true, rule: false, skip: false, derived: false });
            }
            if inn != u32::MAX {
                let rel = first.get(&(c as u32, l, false)).copied().or_else(|| any(false)).unwrap_or(0);
                edges.push(Edge { from: inn, to: l, rel, hard: true, rule: false, skip: false, derived: false });
            }
        }
    }
}

/// Each element's level in a destruction-dependency cycle (its groups): 1
/// and the largest level of the elements it owns, directly or through
/// groups outside the cycle (`owned_by`: ownership between groups, acyclic).
fn levels(cycle: &[u32], owned_by: &Csr) -> Vec<u32> {
    let inside: rustc_hash::FxHashSet<u32> = cycle.iter().copied().collect();
    // Longest path counting the cycle's elements: depth first, iterative.
    let mut value: rustc_hash::FxHashMap<u32, u32> = rustc_hash::FxHashMap::default();
    let mut stack: Vec<(u32, usize)> = Vec::new();
    let mut open: rustc_hash::FxHashSet<u32> = rustc_hash::FxHashSet::default();
    for &start in cycle {
        if value.contains_key(&start) || !open.insert(start) {
            continue;
        }
        stack.push((start, 0));
        while let Some(&mut (v, ref mut at)) = stack.last_mut() {
            let next = owned_by.row(v as usize).get(*at).copied();
            if let Some(w) = next {
                *at += 1;
                // (Acyclic: nothing open is reached again; the check only
                // keeps a broken input from looping.)
                if !value.contains_key(&w) && open.insert(w) {
                    stack.push((w, 0));
                }
                continue;
            }
            stack.pop();
            open.remove(&v);
            let below = owned_by.row(v as usize).iter().filter_map(|w| value.get(w)).max().copied();
            value.insert(v, u32::from(inside.contains(&v)) + below.unwrap_or(0));
        }
    }
    cycle.iter().map(|g| value.get(g).copied().unwrap_or(1)).collect()
}

/// Per destruction-dependency cycle (its elements: groups), the finalizer
/// edges between two of its elements that are objects of the set, as
/// (controller, holder) positions in the cycle; empty when there are none.
fn finalizers_in(
    cycles: &[Vec<u32>],
    edges: &[Edge],
    rels: &[Relation],
    objects_of: &[Option<ObjId>],
    groups: &mut Groups,
) -> Vec<Vec<(usize, usize)>> {
    let finalizer = |e: &&Edge| {
        e.hard
            && rels.get(e.rel as usize).is_some_and(|r| r.kind == RelKind::Finalizer)
            && objects_of[e.from as usize].is_some()
            && objects_of[e.to as usize].is_some()
    };
    if cycles.is_empty() || !edges.iter().any(|e| finalizer(&e)) {
        return Vec::new();
    }
    let mut at: rustc_hash::FxHashMap<u32, (usize, usize)> = rustc_hash::FxHashMap::default();
    for (c, cycle) in cycles.iter().enumerate() {
        for (p, &g) in cycle.iter().enumerate() {
            at.insert(g, (c, p));
        }
    }
    let mut held = vec![Vec::new(); cycles.len()];
    for e in edges.iter().filter(finalizer) {
        let (f, t) = (groups.find(e.from), groups.find(e.to));
        if let (Some(&(cf, pf)), Some(&(ct, pt))) = (at.get(&f), at.get(&t)) {
            if cf == ct && pf != pt {
                held[cf].push((pf, pt));
            }
        }
    }
    held
}

/// Ownership splits a destruction-dependency cycle into levels (owned
/// first), which orders the cycle's own dependencies against each other —
/// but a finalizer's controller must not go before an object carrying its
/// finalizer, or that object hangs (a plan refused for an order the plan
/// chose). Where the levels would put a controller (`held`: controller,
/// holder positions) below its holder, the levels from the controller's to
/// the holder's are one level: nothing orders them, so they go together
/// (a same-step warning), as the cycle did before it was split. The map is
/// monotone: a controller already above its holder stays above it.
fn keep_controllers_up(level: &mut [u32], held: &[(usize, usize)]) {
    let top = level.iter().copied().max().unwrap_or(0) as usize;
    // A turned-round span adds 1 at its lower level and takes 1 away at
    // its upper one: where the running sum is above 0 after level l, l and
    // l + 1 are one level.
    let mut open = vec![0i64; top + 2];
    let mut any = false;
    for &(c, h) in held {
        let (Some(&a), Some(&b)) = (level.get(c), level.get(h)) else { continue };
        if a < b {
            open[a as usize] += 1;
            open[b as usize] -= 1;
            any = true;
        }
    }
    if !any {
        return;
    }
    let mut to = vec![0u32; top + 1];
    let (mut next, mut spans) = (0u32, 0i64);
    for l in 1..=top {
        if spans == 0 {
            next += 1;
        }
        to[l] = next;
        spans += open[l];
    }
    for l in level.iter_mut() {
        *l = to[*l as usize];
    }
}

/// The result of Kahn's walk over groups of layering nodes.
struct Layering {
    rep: Vec<u32>,
    step: Vec<u32>,
    after_edge: Vec<Option<u32>>,
    /// Each edge relaxed, by edge (empty: none is).
    relaxed_edge: Vec<bool>,
    /// The hard edge each relaxed edge gave way to.
    relaxed_because: Vec<Option<usize>>,
}

/// An edge as the walk sees it from one end: the group at the other end,
/// and the edge's index with `HARD` set for a destruction dependency.
#[derive(Clone, Copy, Default)]
struct Adj {
    group: u32,
    edge: u32,
}

const HARD: u32 = 1 << 31;
/// A default rule's edge (see `Edge::rule`).
const RULE: u32 = 1 << 30;

impl Adj {
    fn index(self) -> usize {
        (self.edge & !(HARD | RULE)) as usize
    }
    fn hard(self) -> bool {
        self.edge & HARD != 0
    }
    fn rule(self) -> bool {
        self.edge & RULE != 0
    }
}

/// Out- and in-rows of the edges between distinct groups (the walk
/// touches each edge once, in order, without chasing indices).
fn csr(count: usize, edges: &[Edge], rep: &[u32]) -> (Csr<Adj>, Csr<Adj>) {
    let between = edges.iter().zip(0u32..).filter_map(|(e, n)| {
        let (f, t) = (rep[e.from as usize], rep[e.to as usize]);
        let edge = n | if e.hard { HARD } else { 0 } | if e.rule { RULE } else { 0 };
        (f != t && !e.skip).then_some((f, t, Adj { group: t, edge }, Adj { group: f, edge }))
    });
    Csr::both_ways(count, between)
}

/// Longest-path layering of a graph without cycles, by depth-first search
/// over out-edges only (the common case, and the one that must be fast on a
/// million objects); `None` at the first cycle. Gives what `layer` gives
/// for such a graph: each node's step is its weight plus the largest step
/// below it, and of equal edges the one to the node first in `rank`
/// (reference order, not the order the inputs were read in), then the one
/// written first, is remembered.
fn layer_acyclic(count: usize, edges: &[Edge], weight: &[u8], rank: &[u64]) -> Option<Layering> {
    // (target, edge) side by side: the walk reads them in order.
    let adj = Csr::from_edges(count, edges.iter().zip(0u32..).map(|(e, n)| (e.from, (e.to, n))));
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; count];
    let mut step = vec![0u32; count];
    let mut after_edge: Vec<Option<u32>> = vec![None; count];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in 0..count {
        if state[root] != NEW {
            continue;
        }
        state[root] = OPEN;
        stack.push((root as u32, adj.bounds(root).0));
        while let Some(&mut (v, ref mut pos)) = stack.last_mut() {
            let vi = v as usize;
            if *pos < adj.bounds(vi).1 {
                let t = adj.item(*pos).0 as usize;
                *pos += 1;
                match state[t] {
                    NEW => {
                        state[t] = OPEN;
                        stack.push((t as u32, adj.bounds(t).0));
                    }
                    OPEN => return None,
                    _ => {}
                }
                continue;
            }
            stack.pop();
            state[vi] = DONE;
            let mut best: Option<(u32, u64, usize)> = None;
            for &(t, e) in adj.row(vi) {
                let (s, r) = (step[t as usize], rank[t as usize]);
                if best.is_none_or(|(bs, br, be)| s > bs || (s == bs && (r, e as usize) < (br, be))) {
                    best = Some((s, r, e as usize));
                }
            }
            let best = best.map(|(s, _, e)| (s, e));
            step[vi] = u32::from(weight[vi]) + best.map(|b| b.0).unwrap_or(0);
            after_edge[vi] = best.filter(|b| b.0 > 0).map(|b| b.1 as u32);
        }
    }
    // (No edge is relaxed: no table of them.)
    Some(Layering {
        rep: (0..count as u32).collect(),
        step,
        after_edge,
        relaxed_edge: Vec::new(),
        relaxed_because: Vec::new(),
    })
}

/// What `layer` knows of each layering node.
struct Nodes<'a> {
    weight: &'a [u8],
    rank: &'a [u64],
    /// A namespace's barrier.
    barrier: &'a [bool],
    /// The node's split cycle of destruction dependencies (`u32::MAX`: none).
    cycle_of: &'a [u32],
    /// A split cycle's "out" node.
    out_hub: &'a [bool],
}

/// Kahn's walk as it goes: what is done, each group's step and what goes
/// right before it, what each group still waits for, the edges relaxed.
struct Walk {
    done: Vec<bool>,
    step: Vec<u32>,
    after_edge: Vec<Option<u32>>,
    relaxed_edge: Vec<bool>,
    relaxed_because: Vec<Option<usize>>,
    pending_hard: Vec<u32>,
    pending_soft: Vec<u32>,
    ready: VecDeque<usize>,
    /// Derived edges between groups, as the walk adds them.
    extra: Extra,
}

/// Each group's weight (the largest of its nodes') and rank (the first).
fn group_tables(count: usize, rep: &[u32], nodes: &Nodes) -> (Vec<u8>, Vec<u64>) {
    let mut g_weight = vec![0u8; count];
    let mut g_rank = vec![u64::MAX; count];
    for ((&g, &w), &r) in rep.iter().zip(nodes.weight).zip(nodes.rank) {
        let g = g as usize;
        g_weight[g] = g_weight[g].max(w);
        g_rank[g] = g_rank[g].min(r);
    }
    (g_weight, g_rank)
}

impl Walk {
    /// Nothing done; the groups that wait for nothing are ready.
    fn new(count: usize, edges: usize, out: &Csr<Adj>, is_group: impl Fn(usize) -> bool) -> Walk {
        let mut pending_hard = vec![0u32; count];
        let mut pending_soft = vec![0u32; count];
        for g in 0..count {
            for a in out.row(g) {
                if a.hard() {
                    pending_hard[g] += 1;
                } else {
                    pending_soft[g] += 1;
                }
            }
        }
        let ready = (0..count).filter(|&g| is_group(g) && pending_hard[g] == 0 && pending_soft[g] == 0).collect();
        Walk {
            done: vec![false; count],
            step: vec![0u32; count],
            after_edge: vec![None; count],
            relaxed_edge: vec![false; edges],
            relaxed_because: vec![None; edges],
            pending_hard,
            pending_soft,
            ready,
            extra: Extra::default(),
        }
    }

    /// Relax the edges `unblock` freed, each one alone: the derived edges
    /// it leaves are drawn (and appended to `edges`), and what no longer
    /// waits is ready.
    fn relax(&mut self, freed: Vec<Relax>, edges: &mut Vec<Edge>, owned: &mut Owned, at: (&[u32], &Csr<Adj>, &Nodes)) {
        let (rep, out, nodes) = at;
        let mut touched = Vec::new();
        // Relaxed edges whose derived edges are still to be drawn.
        let mut work: Vec<usize> = Vec::new();
        for relax in freed {
            for (x, e) in relax.edges {
                if self.relaxed_edge[e] {
                    continue;
                }
                self.relaxed_edge[e] = true;
                self.relaxed_because[e] = relax.because;
                self.pending_soft[x] -= 1;
                touched.push(x);
                if !edges[e].rule {
                    work.push(e);
                }
            }
        }
        while let Some(e) = work.pop() {
            for d in owned.around(edges, e, &self.relaxed_edge, rep) {
                let n = edges.len();
                let (f, t) = (rep[d.from as usize], rep[d.to as usize]);
                owned.add(&d, n as u32);
                edges.push(d);
                self.relaxed_edge.push(false);
                self.relaxed_because.push(None);
                // (What waits on a stalled group is not done.)
                if f == t || self.done[f as usize] {
                    continue;
                }
                if self.done[t as usize] {
                    self.extra.add(f, t, n as u32);
                    continue;
                }
                // A pair the comparator turns round (the owned group
                // depends on its owner, within a few steps) gives way
                // now, not one stall later: a chain of them would
                // otherwise stall once per link.
                let turned = depends_on(out, &self.done, t as usize, f as usize, TURN_LOOKUP);
                if turned && !same_cycle(nodes.cycle_of, f as usize, t as usize) {
                    self.relaxed_edge[n] = true;
                    work.push(n);
                    continue;
                }
                self.extra.add(f, t, n as u32);
                self.pending_soft[f as usize] += 1;
            }
        }
        for x in touched {
            if !self.done[x] && self.pending_hard[x] == 0 && self.pending_soft[x] == 0 {
                self.ready.push_back(x);
            }
        }
    }

    /// Group `g` is done: its step is its weight plus the largest step
    /// before it, and what waited only for it is ready.
    fn settle(
        &mut self,
        g: usize,
        edges: &[Edge],
        rows: (&Csr<Adj>, &Csr<Adj>),
        groups: (&[u8], &[u64]),
        nodes: &Nodes,
    ) {
        let ((out, inn), (g_weight, g_rank)) = (rows, groups);
        // The largest step before it; of equals, the edge to the group
        // first in reference order, then to the node first in reference
        // order (of a group of several: which member is named behind it),
        // then the edge written first. (Not the edge written first among
        // a group's members: that follows the order the inputs were read
        // in, tests/props_determinism.rs.)
        let mut best: Option<(u32, (u64, u64), usize)> = None;
        for a in out.row(g).iter().chain(self.extra.out(g)) {
            let e = a.index();
            if self.relaxed_edge[e] {
                continue;
            }
            let to = edges[e].to as usize;
            let (s, r) = (self.step[a.group as usize], (g_rank[a.group as usize], nodes.rank[to]));
            if best.is_none_or(|(bs, br, be)| s > bs || (s == bs && (r, e) < (br, be))) {
                best = Some((s, r, e));
            }
        }
        let best = best.map(|(s, _, e)| (s, e));
        self.step[g] = u32::from(g_weight[g]) + best.map(|b| b.0).unwrap_or(0);
        self.after_edge[g] = best.filter(|b| b.0 > 0).map(|b| b.1 as u32);
        for a in inn.row(g).iter().chain(self.extra.inn(g)) {
            let f = a.group as usize;
            if self.done[f] || self.relaxed_edge[a.index()] {
                continue;
            }
            if a.hard() {
                self.pending_hard[f] -= 1;
            } else {
                self.pending_soft[f] -= 1;
            }
            if self.pending_hard[f] == 0 && self.pending_soft[f] == 0 {
                self.ready.push_back(f);
            }
        }
    }
}

/// Kahn's algorithm over the groups `rep` defines: each group's step is its
/// weight plus the largest step of what must go before it. When stalled,
/// relax ownership edges — each one alone: what the relaxed object owns
/// stays owned by its owner, and the owner's owners still own the relaxed
/// object (edges `derived`, appended to `edges`, which the walk takes up as
/// it goes). `cycle_of`: each group's cycle of destruction dependencies
/// split by ownership (`u32::MAX`: none); ownership inside one is never
/// relaxed (its members depend on each other: the ELSE IF decides).
fn layer(count: usize, edges: &mut Vec<Edge>, rep: Vec<u32>, nodes: &Nodes) -> Layering {
    let (g_weight, g_rank) = group_tables(count, &rep, nodes);
    let (out, inn) = csr(count, edges, &rep);
    let is_group = |g: usize| rep[g] as usize == g;
    let mut w = Walk::new(count, edges.len(), &out, is_group);
    let total = (0..count).filter(|&g| is_group(g)).count();
    // Ownership by layering node, made at the first stall.
    let mut owned: Option<Owned> = None;
    let mut processed = 0;
    while processed < total {
        let Some(g) = w.ready.pop_front() else {
            // Stalled: what is left waits in cycles that mix both kinds.
            let freed = unblock(&Stall {
                count,
                out: &out,
                extra: &w.extra,
                done: &w.done,
                relaxed: &w.relaxed_edge,
                pending_hard: &w.pending_hard,
                pending_soft: &w.pending_soft,
                rank: &g_rank,
                is_group: &is_group,
                barrier: nodes.barrier,
                cycle_of: nodes.cycle_of,
                out_hub: nodes.out_hub,
                weight: &g_weight,
            });
            if freed.is_empty() {
                break;
            }
            let owned = owned.get_or_insert_with(|| Owned::new(count, edges));
            w.relax(freed, edges, owned, (&rep, &out, nodes));
            continue;
        };
        if w.done[g] {
            continue;
        }
        w.done[g] = true;
        processed += 1;
        w.settle(g, edges, (&out, &inn), (&g_weight, &g_rank), nodes);
    }
    let Walk { step, after_edge, relaxed_edge, relaxed_because, .. } = w;
    Layering { rep, step, after_edge, relaxed_edge, relaxed_because }
}

/// How many groups `depends_on` looks at, at most, when a derived edge is
/// drawn (beyond, the next stall decides).
const TURN_LOOKUP: usize = 64;

/// Does group `from` reach group `to` by destruction dependencies alone
/// (edges to groups not done), looking at `limit` groups at most?
fn depends_on(out: &Csr<Adj>, done: &[bool], from: usize, to: usize, limit: usize) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut queue = VecDeque::from([from]);
    while let Some(g) = queue.pop_front() {
        for a in out.row(g).iter().filter(|a| a.hard() && !done[a.group as usize]) {
            let t = a.group as usize;
            if t == to {
                return true;
            }
            if seen.len() < limit && seen.insert(t) {
                queue.push_back(t);
            }
        }
    }
    false
}

/// Are groups `x` and `a` members of one split cycle of destruction
/// dependencies (whose ownership is never relaxed)?
fn same_cycle(cycle_of: &[u32], x: usize, a: usize) -> bool {
    cycle_of[x] != u32::MAX && cycle_of[x] == cycle_of[a]
}

/// Derived edges between groups (ownership, never hard), by group.
#[derive(Default)]
struct Extra {
    out: rustc_hash::FxHashMap<u32, Vec<Adj>>,
    inn: rustc_hash::FxHashMap<u32, Vec<Adj>>,
}

impl Extra {
    fn add(&mut self, from: u32, to: u32, edge: u32) {
        self.out.entry(from).or_default().push(Adj { group: to, edge });
        self.inn.entry(to).or_default().push(Adj { group: from, edge });
    }
    fn out(&self, g: usize) -> &[Adj] {
        self.out.get(&(g as u32)).map_or(&[], Vec::as_slice)
    }
    fn inn(&self, g: usize) -> &[Adj] {
        self.inn.get(&(g as u32)).map_or(&[], Vec::as_slice)
    }
}

/// Ownership edges (not default rules) by layering node, out and in, and
/// every (owner, owned) pair they join: to relax one link alone.
struct Owned {
    out: rustc_hash::FxHashMap<u32, Vec<u32>>,
    inn: rustc_hash::FxHashMap<u32, Vec<u32>>,
    pairs: rustc_hash::FxHashSet<(u32, u32)>,
}

impl Owned {
    fn new(count: usize, edges: &[Edge]) -> Owned {
        let mut o = Owned {
            out: rustc_hash::FxHashMap::default(),
            inn: rustc_hash::FxHashMap::default(),
            pairs: rustc_hash::FxHashSet::default(),
        };
        o.out.reserve(count.min(edges.len()));
        for (n, e) in edges.iter().enumerate() {
            o.add(e, n as u32);
        }
        o
    }

    fn add(&mut self, e: &Edge, n: u32) {
        if e.hard || e.rule || e.skip {
            return;
        }
        self.out.entry(e.from).or_default().push(n);
        self.inn.entry(e.to).or_default().push(n);
        self.pairs.insert((e.from, e.to));
    }

    /// Relaxing ownership edge `e` (owner X, owned A) removes that link
    /// only: X still owns what A owns, and X's owners still own A — one
    /// new edge for each pair that no edge joins yet (a pair relaxed once
    /// is never drawn again, so this ends).
    fn around(&mut self, edges: &[Edge], e: usize, relaxed: &[bool], rep: &[u32]) -> Vec<Edge> {
        let (x, a) = (edges[e].from, edges[e].to);
        let live = |f: &u32| !relaxed[*f as usize] && *f as usize != e;
        let mut new = Vec::new();
        let below: Vec<u32> = self.out.get(&a).into_iter().flatten().filter(|f| live(f)).copied().collect();
        for f in below {
            let c = edges[f as usize].to;
            if rep[c as usize] != rep[x as usize] && self.pairs.insert((x, c)) {
                let rel = edges[f as usize].rel;
                new.push(Edge { from: x, to: c, rel, hard: false, rule: false, skip: false, derived: true });
            }
        }
        let above: Vec<u32> = self.inn.get(&x).into_iter().flatten().filter(|f| live(f)).copied().collect();
        for f in above {
            let p = edges[f as usize].from;
            if rep[p as usize] != rep[a as usize] && self.pairs.insert((p, a)) {
                let rel = edges[e].rel;
                new.push(Edge { from: p, to: a, rel, hard: false, rule: false, skip: false, derived: true });
            }
        }
        new
    }
}

/// Steps of objects from steps of groups. An object right after a
/// namespace's barrier (or a split cycle's "out" node: `barrier` holds
/// both) is said to be right after what is behind it.
fn finish(
    input: &Input,
    node_of: &[[u32; 2]],
    edges: &[Edge],
    barrier: &[bool],
    lay: Layering,
    mut found: Vec<Group>,
) -> Order {
    let n = input.in_set.len();
    let Layering { rep, step, after_edge, relaxed_edge, relaxed_because } = lay;
    let mut obj_step = vec![0u32; n];
    let mut after = vec![None; n];
    let mut after_outside = Vec::new();
    let mut steps = 0;
    // The relation to what goes right before a group: through a hub or a
    // namespace's barrier, the hub's own (whose `to` is the object behind
    // it), the barrier's (to its last Pod).
    let behind = |g: usize| -> Option<u32> {
        let e = after_edge[g]? as usize;
        let into_hub = barrier[edges[e].to as usize]
            || input.relations[edges[e].rel as usize].kind.tool().is_some_and(|t| t.hub == HubEnd::To);
        match into_hub {
            true => after_edge[rep[edges[e].to as usize] as usize]
                .map_or(Some(edges[e].rel), |e| Some(edges[e as usize].rel)),
            false => Some(edges[e].rel),
        }
    };
    for i in 0..n {
        if input.in_set[i] {
            let g = rep[node_of[i][0] as usize] as usize;
            obj_step[i] = step[g];
            after[i] = behind(g);
            steps = steps.max(step[g]);
        } else {
            let mut outside = [None; 2];
            for k in 0..2 {
                if node_of[i][k] != u32::MAX {
                    let g = rep[node_of[i][k] as usize] as usize;
                    outside[k] = behind(g);
                }
            }
            if outside != [None; 2] {
                after_outside.push((i as u32, outside));
            }
        }
    }
    // (A derived edge relaxed is no relation of the input's.)
    let mut pairs: Vec<(u32, Option<u32>)> = (0..relaxed_edge.len())
        .filter(|&e| relaxed_edge[e] && !edges[e].derived)
        .map(|e| (edges[e].rel, relaxed_because[e].map(|h| edges[h].rel)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup_by_key(|p| p.0);
    // In reference order (owner, dependent), not relation order, which
    // follows the order the inputs were read in (tests/props_determinism.rs).
    pairs.sort_by_key(|&(r, _)| {
        let rel = &input.relations[r as usize];
        (input.rank[rel.from.index()], input.rank[rel.to.index()], rel.kind, r)
    });
    let (relaxed, relaxed_because) = pairs.into_iter().unzip();
    found.sort_by_key(|g| g.members.first().map(|m| input.rank[m.index()]));
    Order {
        step: obj_step,
        steps,
        relaxed,
        relaxed_because,
        groups: found,
        after,
        after_outside,
        destruction_cycles: Vec::new(),
    }
}

/// What `unblock` looks at when Kahn's walk stalls.
struct Stall<'a, F: Fn(usize) -> bool> {
    count: usize,
    out: &'a Csr<Adj>,
    extra: &'a Extra,
    done: &'a [bool],
    relaxed: &'a [bool],
    pending_hard: &'a [u32],
    pending_soft: &'a [u32],
    rank: &'a [u64],
    is_group: &'a F,
    /// Is the group a namespace's barrier?
    barrier: &'a [bool],
    /// Each group's split cycle of destruction dependencies (see `layer`).
    cycle_of: &'a [u32],
    /// Is the group a split cycle's "out" node?
    out_hub: &'a [bool],
    /// 1 for a group that holds objects of the set, 0 otherwise.
    weight: &'a [u8],
}

/// Ownership (or default rules') edges to relax: (waiting group, edge), and
/// the edge they give way to (a destruction dependency; for a rule's edge,
/// the first edge of a path back).
struct Relax {
    edges: Vec<(usize, usize)>,
    because: Option<usize>,
}

/// The walk stalled: every group left waits for another. Among the strongly
/// connected components of what is left, take each one that waits for
/// nothing outside itself (a sink). Its destruction dependencies are acyclic
/// (their cycles were merged), so the cycle mixes both kinds: a group A
/// waits by a destruction dependency on a group B of the component, which
/// waits, by ownership, on A. A's own ownership links in the component (the
/// edges of its owners waiting for it) are relaxed; of several such A, the
/// first in reference order. Each relaxed edge lies on a cycle, since both
/// ends are in one component.
fn unblock<F: Fn(usize) -> bool>(s: &Stall<F>) -> Vec<Relax> {
    let live = |g: usize| (s.is_group)(g) && !s.done[g];
    let pending = |g: usize| {
        s.out
            .row(g)
            .iter()
            .chain(s.extra.out(g))
            .copied()
            .filter(move |a| !s.done[a.group as usize] && !s.relaxed[a.index()])
    };
    // Members of one cycle of destruction dependencies depend on each
    // other: ownership between them is the comparator's ELSE IF, never
    // relaxed.
    let same_cycle = |x: usize, a: usize| same_cycle(s.cycle_of, x, a);
    let (component, sccs) = left_components(s.count, live, &pending);
    let mut freed = Vec::new();
    for (c, members) in sccs.iter().enumerate() {
        if members.len() < 2 {
            continue;
        }
        let sink = members.iter().all(|&g| pending(g).all(|a| component[a.group as usize] == c));
        if !sink {
            continue;
        }
        let in_component = |g: usize| component[g] == c;
        // Default rules give way first: the first group (in reference
        // order) that waits by a rule on the component has those edges
        // relaxed.
        let ruled = members
            .iter()
            .copied()
            .filter(|&a| pending(a).any(|e| e.rule() && in_component(e.group as usize)))
            .min_by_key(|&a| (s.rank[a], a));
        if let Some(a) = ruled {
            let edges: Vec<(usize, usize)> =
                pending(a).filter(|e| e.rule() && in_component(e.group as usize)).map(|e| (a, e.index())).collect();
            // Of several, the edge to the group first in reference order
            // (not the one written first: that follows the order the
            // inputs were read in).
            let first = pending(a)
                .filter(|e| e.rule() && in_component(e.group as usize))
                .min_by_key(|e| (s.rank[e.group as usize], e.index()));
            let barrier = |g: usize| s.barrier[g];
            let because = first.and_then(|e| path_back(&pending, e.group as usize, a, &in_component, &barrier, s.rank));
            freed.push(Relax { edges, because });
            continue;
        }
        // First, pairs the comparator itself turns round: owners of a
        // group that the group depends on (directly or through others).
        if let Some(relax) = turned_round(s, members, &pending, &in_component, &same_cycle) {
            freed.push(relax);
            continue;
        }
        // A's own ownership links: those from objects outside the set
        // first (they order no pair of their own; relaxing one leaves its
        // owners owning A, and the pairs are decided above), then all.
        let chosen = |outside: bool| {
            members.iter().copied().filter_map(move |a| {
                let first_hard = |g: usize| {
                    pending(g)
                        .filter(|e| e.hard() && in_component(e.group as usize))
                        .min_by_key(|e| (s.rank[e.group as usize], e.index()))
                };
                let dependency = first_hard(a)?;
                // Into a split cycle's "out" node: the dependency is the
                // one that leaves it on the way back.
                let dependency = match s.out_hub[dependency.group as usize] {
                    true => first_hard(dependency.group as usize).unwrap_or(dependency),
                    false => dependency,
                };
                let owners: Vec<(usize, usize)> = members
                    .iter()
                    .filter(|&&x| !outside || s.weight[x] == 0)
                    .flat_map(|&x| {
                        pending(x)
                            .filter(move |e| !e.hard() && e.group as usize == a && !same_cycle(x, a))
                            .map(move |e| (x, e.index()))
                    })
                    .collect();
                (!owners.is_empty()).then_some((a, dependency.index(), owners))
            })
        };
        let first = |outside: bool| chosen(outside).min_by_key(|(a, _, _)| (s.rank[*a], *a));
        match first(true).or_else(|| first(false)) {
            Some((_, dependency, owners)) => freed.push(Relax { edges: owners, because: Some(dependency) }),
            None => {
                // No destruction dependency with an owner in the component:
                // free the group that waits on the fewest ownership edges.
                let g = members
                    .iter()
                    .copied()
                    .filter(|&g| s.pending_hard[g] == 0)
                    .min_by_key(|&g| (s.pending_soft[g], s.rank[g], g));
                if let Some(g) = g {
                    let edges = pending(g).filter(|a| !a.hard()).map(|a| (g, a.index())).collect();
                    freed.push(Relax { edges, because: None });
                }
            }
        }
    }
    freed
}
/// The strongly connected components of what is left of the walk (the
/// groups `live` holds, over the edges they still wait on, `pending`),
/// numbered densely: each group's component (`usize::MAX`: none), and the
/// groups of each component.
fn left_components<P, I>(count: usize, live: impl Fn(usize) -> bool, pending: &P) -> (Vec<usize>, Vec<Vec<usize>>)
where
    P: Fn(usize) -> I,
    I: Iterator<Item = Adj> + Clone,
{
    // The graph of what is left, numbered densely.
    let mut index = vec![u32::MAX; count];
    let mut groups = Vec::new();
    for g in (0..count).filter(|&g| live(g)) {
        index[g] = groups.len() as u32;
        groups.push(g);
    }
    let index = &index;
    let left = Rows::from_edges(
        groups.len(),
        groups.iter().flat_map(|&g| pending(g).map(move |a| (index[g], index[a.group as usize]))),
    );
    let (comp, _) = scc::components(&left);
    let mut component = vec![usize::MAX; count];
    let mut by_component: Vec<Vec<usize>> = Vec::new();
    for (i, &g) in groups.iter().enumerate() {
        let c = comp[i] as usize;
        component[g] = c;
        if by_component.len() <= c {
            by_component.resize(c + 1, Vec::new());
        }
        by_component[c].push(g);
    }
    (component, by_component)
}

/// Ownership edges x → a of a stalled component (a sink) whose owner x the
/// owned group a depends on, through destruction dependencies alone: the
/// comparator orders that pair a after x (its first branch), so the edge
/// gives way whatever else the cycle holds. Of the groups that have such
/// owners, the first in reference order, with every such owner; the
/// dependency it gives way to is the first edge of a's path to the first
/// of them. Each search is breadth first inside the component; after a
/// few times the component's size in all, the search gives up (`None`:
/// the caller's rule decides).
fn turned_round<F, P, I>(
    s: &Stall<F>,
    members: &[usize],
    pending: &P,
    in_component: &dyn Fn(usize) -> bool,
    same_cycle: &dyn Fn(usize, usize) -> bool,
) -> Option<Relax>
where
    F: Fn(usize) -> bool,
    P: Fn(usize) -> I,
    I: Iterator<Item = Adj>,
{
    // Owners of each group in the component.
    let mut owners: rustc_hash::FxHashMap<usize, Vec<(usize, usize)>> = rustc_hash::FxHashMap::default();
    let mut size = members.len();
    for &x in members {
        for e in pending(x).filter(|e| in_component(e.group as usize)) {
            size += 1;
            if !e.hard() && !e.rule() && !same_cycle(x, e.group as usize) {
                owners.entry(e.group as usize).or_default().push((x, e.index()));
            }
        }
    }
    let mut budget = 8 * size + 64;
    let mut order: Vec<usize> = owners.keys().copied().collect();
    order.sort_unstable_by_key(|&a| (s.rank[a], a));
    for a in order {
        let Some(mine) = owners.get(&a) else { continue };
        // Breadth first over destruction dependencies: each group reached,
        // with the first edge of the path to it (past a split cycle's "out"
        // node, the edge that leaves it).
        let mut first: rustc_hash::FxHashMap<usize, usize> = rustc_hash::FxHashMap::default();
        let mut queue = VecDeque::from([a]);
        while let Some(g) = queue.pop_front() {
            let mut next: Vec<Adj> = pending(g).filter(|e| e.hard() && in_component(e.group as usize)).collect();
            budget = budget.checked_sub(next.len() + 1)?;
            next.sort_unstable_by_key(|e| (s.rank[e.group as usize], e.index()));
            for e in next {
                let t = e.group as usize;
                if t == a || first.contains_key(&t) {
                    continue;
                }
                let via = match (g == a, first.get(&g)) {
                    (true, _) => e.index(),
                    (false, Some(&f)) if s.out_hub[g] && f == usize::MAX => e.index(),
                    (false, Some(&f)) => f,
                    (false, None) => continue,
                };
                // (Into an "out" node: the edge that leaves it decides.)
                first.insert(t, if g == a && s.out_hub[t] { usize::MAX } else { via });
                queue.push_back(t);
            }
        }
        let mut turned: Vec<(usize, usize)> = mine.iter().copied().filter(|(x, _)| first.contains_key(x)).collect();
        if turned.is_empty() {
            continue;
        }
        turned.sort_unstable_by_key(|&(x, e)| (s.rank[x], e));
        let because = turned.first().and_then(|(x, _)| first.get(x)).copied().filter(|&f| f != usize::MAX);
        return Some(Relax { edges: turned, because });
    }
    None
}

/// The first edge of a shortest path from `from` back to `to` inside the
/// component: what a relaxed rule's edge `to → from` contradicted. From a
/// namespace's barrier (no object), the first edge out of the Pod it leads
/// to (the barrier's own edge when that Pod is `to`'s group). Edges are
/// tried in the order of the groups they lead to (`rank`).
fn path_back<P, I>(
    pending: &P,
    from: usize,
    to: usize,
    in_component: &dyn Fn(usize) -> bool,
    barrier: &dyn Fn(usize) -> bool,
    rank: &[u64],
) -> Option<usize>
where
    P: Fn(usize) -> I,
    I: Iterator<Item = Adj>,
{
    // Breadth first, remembering the first edge each group was reached by.
    let mut first: rustc_hash::FxHashMap<usize, usize> = rustc_hash::FxHashMap::default();
    let mut queue = VecDeque::new();
    queue.push_back(from);
    first.insert(from, usize::MAX);
    while let Some(g) = queue.pop_front() {
        let mut edges: Vec<Adj> = pending(g).collect();
        edges.sort_by_key(|e| (rank[e.group as usize], e.index()));
        for e in edges {
            let t = e.group as usize;
            if !in_component(t) || first.contains_key(&t) {
                continue;
            }
            // Every group queued was reached first by an edge (or is `from`).
            let Some(&f) = first.get(&g) else { continue };
            let f = match f {
                usize::MAX if barrier(g) => usize::MAX,
                usize::MAX => e.index(),
                f => f,
            };
            if t == to {
                return Some(if f == usize::MAX { e.index() } else { f });
            }
            first.insert(t, f);
            queue.push_back(t);
        }
    }
    None
}

/// TD012: an ownership relation relaxed because a destruction dependency
/// contradicts it (A is destroyed after B, B owns A through this relation).
pub fn conflict_message(refs: &super::refs::Refs, relaxed: &Relation, because: Option<&Relation>) -> String {
    let (owner, owned) = (refs.name(relaxed.from), refs.name(relaxed.to));
    if let Some(edge) = relaxed.kind.rule() {
        // A default rule's edge: `owner` would go after `owned`.
        let rule = edge.rule().id();
        if edge == RuleEdge::AfterPods {
            // `owned` is the Namespace, standing for its Pods; the Pod that
            // must go after `owner` is where the path back leaves from (or
            // the barrier's edge to it).
            let pod_first = |d: &Relation| d.kind == RelKind::Rule(RuleEdge::PodFirst);
            let pod = because.map(|d| if pod_first(d) { d.to } else { d.from });
            let later = match pod {
                Some(p) => format!("{} must go after it", refs.name(p)),
                None => String::from("one of them must go after it"),
            };
            let why = match because.filter(|d| !pod_first(d)) {
                Some(d) => format!(" ({})", describe(refs, d, relaxed.from)),
                None => String::new(),
            };
            return format!(
                "ordering conflict: default rule {rule} would destroy {owner} after the Pods of {owned}, but {later}{why}; the rule's edge is relaxed"
            );
        }
        let why = match because {
            Some(d) => format!(" ({})", describe(refs, d, relaxed.from)),
            None => String::new(),
        };
        return format!(
            "ordering conflict: default rule {rule} would destroy {owner} after {owned}, but {owned} must go after it{why}; the rule's edge is relaxed"
        );
    }
    let how = relaxed.kind.as_str();
    match because {
        Some(d) if d.kind.tool().is_some() => {
            let (a, b) = (refs.name(d.from), refs.name(d.to));
            let Some(t) = d.kind.tool() else { return String::new() };
            let said = format!("{} {}", t.order.tool(), crate::dialect::tools::order_key(t.order));
            match t.hub {
                HubEnd::None => {
                    let through = if owner == b { String::new() } else { format!(" through {owner}") };
                    format!(
                        "ordering conflict: {a} is destroyed after {b} ({said}), but {b} {how} it{through}; the ownership edge {owner} {how} {owned} is relaxed"
                    )
                }
                _ => format!(
                    "ordering conflict: {said} puts {a} after a group of objects ({b} is one), but ownership puts it before one of them; the ownership edge {owner} {how} {owned} is relaxed"
                ),
            }
        }
        Some(d) => {
            let (a, b) = (refs.name(d.from), refs.name(d.to));
            let through = if owner == b { String::new() } else { format!(" through {owner}") };
            let what = match d.kind.controller() {
                Some(e) => format!("the {}'s cascade", e.component()),
                None => String::from("a destruction dependency"),
            };
            format!(
                "ordering conflict: {a} is destroyed after {b} ({what}), but {b} {how} it{through}; the ownership edge {owner} {how} {owned} is relaxed"
            )
        }
        None => format!(
            "ordering conflict: {owner} {how} {owned}, but destruction dependencies put {owned} after it; the ownership edge is relaxed"
        ),
    }
}

/// A relation that goes back to `back` (the object a relaxed rule's edge
/// would have put later), in the words of a conflict message.
fn describe(refs: &super::refs::Refs, d: &Relation, back: ObjId) -> String {
    let (a, b) = (refs.name(d.from), refs.name(d.to));
    let through = if d.to == back { "" } else { ", and through others" };
    match d.kind.rule() {
        // (The Namespace stands for its Pods, or for the rest of it.)
        Some(e @ RuleEdge::AfterPods) => {
            format!("{a} after the Pods of {b} by default rule {}, and through others", e.rule().id())
        }
        Some(e @ RuleEdge::PodFirst) => {
            format!("the rest of {a} after {b} by default rule {}, and through others", e.rule().id())
        }
        Some(e) => format!("{a} after {b} by default rule {}{through}", e.rule().id()),
        None if d.kind.is_ownership() => format!("{a} {} {b}{through}", d.kind.as_str()),
        None => match d.kind.tool() {
            Some(t) => format!(
                "{a} is destroyed after {b} by {} {}{through}",
                t.order.tool(),
                crate::dialect::tools::order_key(t.order)
            ),
            None => format!("{a} is destroyed after {b}{through}"),
        },
    }
}

/// Each object's position in reference order: ties broken, output stable.
pub fn reference_ranks(refs: &[String]) -> Vec<u32> {
    ranks(refs.len(), |i| refs.get(i).map_or("", String::as_str))
}

/// [`reference_ranks`] of references held packed.
pub fn ranks_of(refs: &super::refs::Refs) -> Vec<u32> {
    ranks(refs.len(), |i| refs.get(i).unwrap_or_default())
}

/// The ranks of `n` references, `reference(i)` the `i`th.
fn ranks<'a>(n: usize, reference: impl Fn(usize) -> &'a str + Sync) -> Vec<u32> {
    // The first 32 bytes as four big-endian numbers order like the strings
    // do (zero-padded: a prefix sorts first): sorted with each index, side
    // by side (no look-up of another table in each comparison); a run of
    // equal prefixes is then sorted by the next 32 bytes the same way, and
    // a run still equal by the whole references (ties by index). (The
    // first 32 are often alike: `Lease.coordination.k8s.io/kube-node-lease/`,
    // `RoleBinding.rbac.authorization.k8s.io/`.)
    let mut keys: Vec<([u64; 4], u32)> = (0..n).into_par_iter().map(|i| (key_at(reference(i), 0), i as u32)).collect();
    sort_keys(&mut keys);
    keys.par_chunk_by_mut(|a, b| a.0 == b.0).filter(|run| run.len() > 1).for_each(|run| {
        for k in run.iter_mut() {
            k.0 = key_at(reference(k.1 as usize), 32);
        }
        sort_keys(run);
        for run in run.chunk_by_mut(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
            run.sort_unstable_by(|a, b| reference(a.1 as usize).cmp(reference(b.1 as usize)).then(a.1.cmp(&b.1)));
        }
    });
    let mut rank = vec![0u32; n];
    for (r, &(_, i)) in keys.iter().enumerate() {
        rank[i as usize] = r as u32;
    }
    rank
}

/// The 32 bytes of `reference` from byte `from` on (zero-padded) as four
/// big-endian numbers: they order as those bytes do.
fn key_at(reference: &str, from: usize) -> [u64; 4] {
    let mut b = [0u8; 32];
    for (to, from) in b.iter_mut().zip(reference.as_bytes().get(from..).unwrap_or_default()) {
        *to = *from;
    }
    let mut key = [0u64; 4];
    for (k, c) in key.iter_mut().zip(b.chunks_exact(8)) {
        *k = <[u8; 8]>::try_from(c).map_or(0, u64::from_be_bytes);
    }
    key
}

/// Keys with their indexes, in order: compared field by field, unrolled
/// (as the derived order: the key's words, then the index).
fn sort_keys(keys: &mut [([u64; 4], u32)]) {
    keys.par_sort_unstable_by(|(a, i), (b, j)| {
        let [a0, a1, a2, a3] = *a;
        let [b0, b1, b2, b3] = *b;
        (a0, a1, a2, a3, i).cmp(&(b0, b1, b2, b3, j))
    });
}

/// The objects in rank order: `by_rank(rank)[r]` is the object whose rank
/// is `r` (ranks are a permutation of `0..rank.len()`).
pub fn by_rank(rank: &[u32]) -> Vec<u32> {
    let mut by = vec![0u32; rank.len()];
    for (i, &r) in rank.iter().enumerate() {
        if let Some(at) = by.get_mut(r as usize) {
            *at = i as u32;
        }
    }
    by
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, reason = "tests index the tables they made")]
mod tests {
    use super::*;

    /// What a rank is: the place of each reference in the references
    /// sorted as strings, equal ones by index.
    fn by_definition(refs: &[String]) -> Vec<u32> {
        let mut order: Vec<usize> = (0..refs.len()).collect();
        order.sort_by(|&a, &b| refs[a].cmp(&refs[b]).then(a.cmp(&b)));
        let mut rank = vec![0u32; refs.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r as u32;
        }
        rank
    }

    #[test]
    fn ranks_are_the_order_of_the_references_ties_by_index() {
        // Prefixes of 32 bytes alike (sorted by what follows), a NUL that
        // pads like the end of a shorter string, equal references, empty
        // ones, and more than a sort's small cases.
        let long = "ReplicaSet.apps/team-1/frontend-";
        let mut refs: Vec<String> = vec![
            format!("{long}b"),
            format!("{long}a"),
            long.to_owned(),
            format!("{long}a"),
            "ab".to_owned(),
            "ab\0".to_owned(),
            "ab".to_owned(),
            String::new(),
            "é".to_owned(),
            "e".to_owned(),
            String::new(),
        ];
        // Alike for 64 bytes and more, a NUL past the 32nd byte.
        let longer = format!("{long}{long}");
        refs.extend([format!("{long}x\0"), format!("{long}x"), longer.clone(), format!("{longer}\0")]);
        let mut x: u64 = 7;
        for _ in 0..3000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let suffix = (x >> 33) % 40;
            refs.push(match (x >> 20) % 4 {
                0 => format!("{long}{suffix}"),
                3 => format!("{longer}{suffix}"),
                1 => format!("Pod/ns-{}/p-{suffix}", (x >> 40) % 5),
                _ => format!("{}", suffix),
            });
        }
        let rank = reference_ranks(&refs);
        assert_eq!(rank, by_definition(&refs));
        let by = by_rank(&rank);
        for (r, &i) in by.iter().enumerate() {
            assert_eq!(rank[i as usize], r as u32);
        }
    }
}
