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
//!    mixes both kinds: the node with no pending destruction dependency and
//!    the fewest pending ownership edges has those ownership edges relaxed
//!    (destruction dependencies win), and the walk goes on.
//!
//! A node's step is its weight (1 for a group that holds objects of the set,
//! 0 otherwise) plus the largest step of what must go before it.
//! O((V + E) log V).

use crate::model::{Link, ObjId, Relation};
use petgraph::graph::{DiGraph, NodeIndex};
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
    /// Ownership relations dropped in favour of destruction dependencies.
    pub relaxed: Vec<u32>,
    pub groups: Vec<Group>,
    /// For each object of the set: the relation to what goes right before it
    /// on its longest chain (`None` at step 1, or when only its own group
    /// members are before it).
    pub after: Vec<Option<u32>>,
    /// The same for objects outside the set, which a chain may pass through:
    /// [through ownership, through destruction dependencies].
    pub after_outside: Vec<[Option<u32>; 2]>,
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
}

/// Strongly connected components (of at least two nodes, or one node with a
/// self-loop) of the graph on `nodes` given by `edges`, as lists of nodes.
fn cycles_of(node_count: usize, edges: impl Iterator<Item = (u32, u32)>) -> Vec<Vec<u32>> {
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(node_count, 0);
    for _ in 0..node_count {
        g.add_node(());
    }
    let mut self_loop = vec![false; node_count];
    for (a, b) in edges {
        if a == b {
            self_loop[a as usize] = true;
        } else {
            g.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), ());
        }
    }
    petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1 || self_loop[c[0].index()])
        .map(|c| c.into_iter().map(|n| n.index() as u32).collect())
        .collect()
}

pub fn order(input: &Input) -> Result<Order, OwnershipCycle> {
    let n = input.in_set.len();
    let rels = input.relations;
    // Layering nodes: one per object of the set, numbered first; an outside
    // object gets an ownership copy and a destruction copy as needed.
    let mut node_of = vec![[u32::MAX; 2]; n];
    let mut weight: Vec<u8> = Vec::with_capacity(n);
    let mut rank: Vec<u64> = Vec::with_capacity(n);
    let mut objects_of: Vec<Option<ObjId>> = Vec::with_capacity(n);
    for (i, slot) in node_of.iter_mut().enumerate() {
        if input.in_set[i] {
            *slot = [weight.len() as u32; 2];
            weight.push(1);
            rank.push(input.rank[i] as u64);
            objects_of.push(Some(ObjId(i as u32)));
        }
    }
    let mut node =
        |i: usize, hard: bool, weight: &mut Vec<u8>, rank: &mut Vec<u64>, objects_of: &mut Vec<Option<ObjId>>| {
            let k = usize::from(hard);
            if node_of[i][k] == u32::MAX {
                node_of[i][k] = weight.len() as u32;
                weight.push(0);
                rank.push((1 + k as u64) * (n as u64) + input.rank[i] as u64);
                objects_of.push(None);
            }
            node_of[i][k]
        };
    let mut edges = Vec::with_capacity(rels.len());
    for (ri, r) in rels.iter().enumerate() {
        // An owner link Kubernetes ignores (TD004–TD006) orders nothing.
        if r.kind.is_ownership() && r.link != Link::Solid {
            continue;
        }
        let hard = r.kind.is_destruction();
        let from = node(r.from.index(), hard, &mut weight, &mut rank, &mut objects_of);
        let to = node(r.to.index(), hard, &mut weight, &mut rank, &mut objects_of);
        edges.push(Edge { from, to, rel: ri as u32, hard });
    }
    let count = weight.len();
    let mut groups = Groups { parent: (0..count as u32).collect() };
    let mut found: Vec<Group> = Vec::new();
    let members_of = |nodes: &[u32], objects_of: &[Option<ObjId>]| -> Vec<ObjId> {
        let mut m: Vec<ObjId> = nodes.iter().filter_map(|&x| objects_of[x as usize]).collect();
        m.sort_by_key(|o| input.rank[o.index()]);
        m
    };

    // Most graphs have no cycle at all: layer them as they are. (A self-loop
    // is a cycle the walk does not see.)
    if !edges.iter().any(|e| e.from == e.to) {
        let plain = layer(count, &edges, (0..count as u32).collect(), &weight, &rank, false);
        if plain.complete {
            return Ok(finish(input, &node_of, &edges, plain, Vec::new()));
        }
    }

    // 1. Cycles of ownership alone.
    for cycle in cycles_of(count, edges.iter().filter(|e| !e.hard).map(|e| (e.from, e.to))) {
        let members = members_of(&cycle, &objects_of);
        if !members.is_empty() {
            if !input.allow_cycles {
                return Err(OwnershipCycle { members });
            }
            found.push(Group { kind: GroupKind::Ownership, members });
        }
        for &x in &cycle[1..] {
            groups.union(cycle[0], x);
        }
    }
    // 2. Cycles of destruction dependencies (between the groups so far).
    let hard_edges: Vec<(u32, u32)> =
        edges.iter().filter(|e| e.hard).map(|e| (groups.find(e.from), groups.find(e.to))).collect();
    let hard_cycles = cycles_of(count, hard_edges.into_iter());
    let mut by_rep: Vec<Vec<u32>> = Vec::new();
    if !hard_cycles.is_empty() {
        by_rep = vec![Vec::new(); count];
        for x in 0..count as u32 {
            let g = groups.find(x);
            by_rep[g as usize].push(x);
        }
    }
    for cycle in hard_cycles {
        // Members of ownership groups merged in step 1 come along.
        let nodes: Vec<u32> = cycle.iter().flat_map(|&g| by_rep[g as usize].iter().copied()).collect();
        let members = members_of(&nodes, &objects_of);
        if !members.is_empty() {
            found.retain(|f| !f.members.iter().any(|m| members.contains(m)));
            found.push(Group { kind: GroupKind::Destruction, members });
        }
        for &x in &cycle[1..] {
            groups.union(cycle[0], x);
        }
    }

    // 3. Kahn's algorithm over the groups, relaxing ownership when stalled.
    let rep: Vec<u32> = (0..count as u32).map(|x| groups.find(x)).collect();
    let Layering { rep, step, after_edge, relaxed_edge, .. } = layer(count, &edges, rep, &weight, &rank, true);
    Ok(finish(input, &node_of, &edges, Layering { rep, step, after_edge, relaxed_edge, complete: true }, found))
}

/// The result of Kahn's walk over groups of layering nodes.
struct Layering {
    rep: Vec<u32>,
    step: Vec<u32>,
    after_edge: Vec<Option<usize>>,
    relaxed_edge: Vec<bool>,
    /// Every group got a step (false: stalled, and not allowed to relax).
    complete: bool,
}

/// Kahn's algorithm over the groups `rep` defines: each group's step is its
/// weight plus the largest step of what must go before it. When stalled,
/// relax ownership edges (`relax`) or give up.
fn layer(count: usize, edges: &[Edge], rep: Vec<u32>, weight: &[u8], rank: &[u64], relax: bool) -> Layering {
    let mut g_weight = vec![0u8; count];
    let mut g_rank = vec![u64::MAX; count];
    for x in 0..count {
        let g = rep[x] as usize;
        g_weight[g] = g_weight[g].max(weight[x]);
        g_rank[g] = g_rank[g].min(rank[x]);
    }
    // Edges between distinct groups, by source (out) and target (in).
    let inter: Vec<usize> =
        (0..edges.len()).filter(|&e| rep[edges[e].from as usize] != rep[edges[e].to as usize]).collect();
    let mut out_start = vec![0usize; count + 1];
    let mut in_start = vec![0usize; count + 1];
    for &e in &inter {
        out_start[rep[edges[e].from as usize] as usize + 1] += 1;
        in_start[rep[edges[e].to as usize] as usize + 1] += 1;
    }
    for i in 0..count {
        out_start[i + 1] += out_start[i];
        in_start[i + 1] += in_start[i];
    }
    let mut out_list = vec![0usize; inter.len()];
    let mut in_list = vec![0usize; inter.len()];
    {
        let mut o = out_start.clone();
        let mut i = in_start.clone();
        for &e in &inter {
            let f = rep[edges[e].from as usize] as usize;
            let t = rep[edges[e].to as usize] as usize;
            out_list[o[f]] = e;
            o[f] += 1;
            in_list[i[t]] = e;
            i[t] += 1;
        }
    }
    let is_group = |g: usize| rep[g] as usize == g;
    let mut pending_hard = vec![0u32; count];
    let mut pending_soft = vec![0u32; count];
    for &e in &inter {
        let f = rep[edges[e].from as usize] as usize;
        if edges[e].hard {
            pending_hard[f] += 1;
        } else {
            pending_soft[f] += 1;
        }
    }
    let mut done = vec![false; count];
    let mut relaxed_edge = vec![false; edges.len()];
    let mut step = vec![0u32; count];
    let mut after_edge: Vec<Option<usize>> = vec![None; count];
    let mut ready: VecDeque<usize> = VecDeque::new();
    let total = (0..count).filter(|&g| is_group(g)).count();
    for g in (0..count).filter(|&g| is_group(g)) {
        if pending_hard[g] == 0 && pending_soft[g] == 0 {
            ready.push_back(g);
        }
    }
    let mut processed = 0;
    while processed < total {
        let Some(g) = ready.pop_front() else {
            if !relax {
                return Layering { rep, step, after_edge, relaxed_edge, complete: false };
            }
            // Stalled: what is left waits in cycles that mix both kinds.
            let freed = unblock(&Stall {
                count,
                edges,
                rep: &rep,
                out_start: &out_start,
                out_list: &out_list,
                done: &done,
                pending_hard: &pending_hard,
                pending_soft: &pending_soft,
                rank: &g_rank,
                is_group: &is_group,
            });
            if freed.is_empty() {
                break;
            }
            for (g, relax) in freed {
                for e in relax {
                    relaxed_edge[e] = true;
                }
                pending_soft[g] = 0;
                ready.push_back(g);
            }
            continue;
        };
        if done[g] {
            continue;
        }
        done[g] = true;
        processed += 1;
        let mut best: Option<(u32, usize)> = None;
        for &e in &out_list[out_start[g]..out_start[g + 1]] {
            if relaxed_edge[e] {
                continue;
            }
            let t = rep[edges[e].to as usize] as usize;
            let s = step[t];
            if best.is_none_or(|(bs, be)| s > bs || (s == bs && edges[e].rel < edges[be].rel)) {
                best = Some((s, e));
            }
        }
        step[g] = u32::from(g_weight[g]) + best.map(|b| b.0).unwrap_or(0);
        after_edge[g] = best.filter(|b| b.0 > 0).map(|b| b.1);
        for &e in &in_list[in_start[g]..in_start[g + 1]] {
            let f = rep[edges[e].from as usize] as usize;
            if done[f] || relaxed_edge[e] {
                continue;
            }
            if edges[e].hard {
                pending_hard[f] -= 1;
            } else {
                pending_soft[f] -= 1;
            }
            if pending_hard[f] == 0 && pending_soft[f] == 0 {
                ready.push_back(f);
            }
        }
    }

    Layering { rep, step, after_edge, relaxed_edge, complete: processed == total }
}

/// Steps of objects from steps of groups.
fn finish(input: &Input, node_of: &[[u32; 2]], edges: &[Edge], lay: Layering, mut found: Vec<Group>) -> Order {
    let n = input.in_set.len();
    let Layering { rep, step, after_edge, relaxed_edge, .. } = lay;
    let mut obj_step = vec![0u32; n];
    let mut after = vec![None; n];
    let mut after_outside = vec![[None; 2]; n];
    let mut steps = 0;
    for i in 0..n {
        if input.in_set[i] {
            let g = rep[node_of[i][0] as usize] as usize;
            obj_step[i] = step[g];
            after[i] = after_edge[g].map(|e| edges[e].rel);
            steps = steps.max(step[g]);
        } else {
            for k in 0..2 {
                if node_of[i][k] != u32::MAX {
                    let g = rep[node_of[i][k] as usize] as usize;
                    after_outside[i][k] = after_edge[g].map(|e| edges[e].rel);
                }
            }
        }
    }
    let mut relaxed: Vec<u32> = (0..edges.len()).filter(|&e| relaxed_edge[e]).map(|e| edges[e].rel).collect();
    relaxed.sort_unstable();
    relaxed.dedup();
    found.sort_by_key(|g| g.members.first().map(|m| input.rank[m.index()]));
    Order { step: obj_step, steps, relaxed, groups: found, after, after_outside }
}

/// What `unblock` looks at when Kahn's walk stalls.
struct Stall<'a, F: Fn(usize) -> bool> {
    count: usize,
    edges: &'a [Edge],
    rep: &'a [u32],
    out_start: &'a [usize],
    out_list: &'a [usize],
    done: &'a [bool],
    pending_hard: &'a [u32],
    pending_soft: &'a [u32],
    rank: &'a [u64],
    is_group: &'a F,
}

/// The walk stalled: every group left waits for another. Among the strongly
/// connected components of what is left, take each one that waits for
/// nothing outside itself (a sink). Its destruction dependencies are acyclic
/// (their cycles were merged), so one of its groups waits on ownership edges
/// only: the one with the fewest (then the first in reference order) has
/// those edges relaxed. Each relaxed edge lies on a cycle, since both ends
/// are in one component. Returns (group, edges to relax) pairs.
fn unblock<F: Fn(usize) -> bool>(s: &Stall<F>) -> Vec<(usize, Vec<usize>)> {
    let live = |g: usize| (s.is_group)(g) && !s.done[g];
    let target = |e: usize| s.rep[s.edges[e].to as usize] as usize;
    let pending =
        |g: usize| s.out_list[s.out_start[g]..s.out_start[g + 1]].iter().copied().filter(move |&e| !s.done[target(e)]);
    let mut graph: DiGraph<usize, ()> = DiGraph::new();
    let mut index = vec![u32::MAX; s.count];
    for g in (0..s.count).filter(|&g| live(g)) {
        index[g] = graph.add_node(g).index() as u32;
    }
    for g in (0..s.count).filter(|&g| live(g)) {
        for e in pending(g) {
            graph.add_edge(NodeIndex::new(index[g] as usize), NodeIndex::new(index[target(e)] as usize), ());
        }
    }
    let mut component = vec![usize::MAX; s.count];
    let sccs = petgraph::algo::kosaraju_scc(&graph);
    for (c, scc) in sccs.iter().enumerate() {
        for n in scc {
            component[graph[*n]] = c;
        }
    }
    let mut freed = Vec::new();
    for (c, scc) in sccs.iter().enumerate() {
        if scc.len() < 2 {
            continue;
        }
        let members: Vec<usize> = scc.iter().map(|n| graph[*n]).collect();
        let sink = members.iter().all(|&g| pending(g).all(|e| component[target(e)] == c));
        if !sink {
            continue;
        }
        let chosen = members
            .iter()
            .copied()
            .filter(|&g| s.pending_hard[g] == 0)
            .min_by_key(|&g| (s.pending_soft[g], s.rank[g], g));
        if let Some(g) = chosen {
            freed.push((g, pending(g).filter(|&e| !s.edges[e].hard).collect()));
        }
    }
    freed.sort_unstable_by_key(|(g, _)| *g);
    freed
}
