//! Cycles: strongly connected components of a subgraph, and for each one its
//! shortest cycle — one with no shortcut, which names every edge a user has
//! to look at.

use super::scc;
use super::{Graph, Rows};
use crate::model::{ObjId, Object, Relation};
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    /// The objects in cycle order: `relations[i]` goes from `nodes[i]` to
    /// `nodes[(i + 1) % len]`.
    pub nodes: Vec<ObjId>,
    pub relations: Vec<u32>,
    /// Every object of the strongly connected component, sorted.
    pub component: Vec<ObjId>,
}

/// The cycles among the relations for which `keep` holds: one per strongly
/// connected component (with more than one object, or a self-loop), in order
/// of each component's first object.
pub fn find(graph: &Graph, relations: &[Relation], keep: impl Fn(&Relation) -> bool) -> Vec<Cycle> {
    find_ordered(graph, relations, keep, |ids| ids.iter().map(|id| id.0).collect())
}

/// [`find`], with objects taken in reference order rather than in the
/// order the inputs were read in: which cycle of a component is shown,
/// where it starts, and the order of the cycles follow the objects'
/// references, so that naming the input files in another order changes
/// nothing (tests/props_determinism.rs). References are made only for
/// objects on a cycle.
pub fn find_by_reference(
    objects: &[Object],
    graph: &Graph,
    relations: &[Relation],
    keep: impl Fn(&Relation) -> bool,
) -> Vec<Cycle> {
    find_ordered(graph, relations, keep, |ids| {
        ids.iter().map(|id| objects.get(id.index()).map(Object::reference).unwrap_or_default()).collect()
    })
}

/// The cycles, objects ranked by `rank` (given a component, each member's
/// rank, in the component's order).
fn find_ordered<R: Ord + Clone>(
    graph: &Graph,
    relations: &[Relation],
    keep: impl Fn(&Relation) -> bool,
    rank: impl Fn(&[ObjId]) -> Vec<R>,
) -> Vec<Cycle> {
    let kept = relations.iter().filter(|r| keep(r)).map(|r| (r.from.0, r.to.0));
    let csr = Rows::from_edges(graph.node_count(), kept);
    let mut out: Vec<(R, Cycle)> = Vec::new();
    for scc in scc::cycles(&csr) {
        let mut component: Vec<ObjId> = scc.into_iter().map(ObjId).collect();
        component.sort_unstable();
        if let [only] = component[..] {
            let self_loop = graph
                .out_of(only)
                .iter()
                .copied()
                .filter(|&r| relations.get(r as usize).is_some_and(|r| r.to == only && keep(r)))
                .min();
            if let Some(r) = self_loop {
                let first = rank(&component).into_iter().next();
                out.extend(first.map(|k| (k, Cycle { nodes: component.clone(), relations: vec![r], component })));
            }
            continue;
        }
        // Members in rank order, and each one's rank.
        let ranks = rank(&component);
        let mut by_rank: Vec<usize> = (0..component.len()).collect();
        by_rank.sort_by(|&a, &b| ranks.get(a).cmp(&ranks.get(b)).then(a.cmp(&b)));
        let rank_of = |id: ObjId| component.binary_search(&id).ok().and_then(|i| ranks.get(i));
        // The shortest cycle through any object: a breadth-first search from
        // each (from the first SEARCH_LIMIT of a very large component).
        let mut best: Option<Cycle> = None;
        for &start in by_rank.iter().take(SEARCH_LIMIT).filter_map(|&i| component.get(i)) {
            if let Some(c) = shortest_through(graph, relations, &keep, &component, start, &rank_of) {
                if best.as_ref().is_none_or(|b| c.nodes.len() < b.nodes.len()) {
                    best = Some(c);
                }
            }
            if best.as_ref().is_some_and(|b| b.nodes.len() == 2) {
                break;
            }
        }
        let first = by_rank.first().and_then(|&i| ranks.get(i)).cloned();
        out.extend(first.zip(best));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.into_iter().map(|(_, c)| c).collect()
}

/// Components larger than this are searched from their first objects only.
const SEARCH_LIMIT: usize = 256;

/// Breadth-first search from `start` back to itself, staying inside the
/// component; edges are tried in the order of the objects they lead to
/// (`rank_of`), then in relation order.
fn shortest_through<'a, R: Ord + 'a>(
    graph: &Graph,
    relations: &[Relation],
    keep: &impl Fn(&Relation) -> bool,
    component: &[ObjId],
    start: ObjId,
    rank_of: &impl Fn(ObjId) -> Option<&'a R>,
) -> Option<Cycle> {
    let inside = |id: ObjId| component.binary_search(&id).is_ok();
    let mut parent: HashMap<ObjId, (ObjId, u32)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        let mut edges: Vec<(u32, ObjId)> = graph
            .out_of(at)
            .iter()
            .filter_map(|&r| relations.get(r as usize).filter(|rel| keep(rel)).map(|rel| (r, rel.to)))
            .filter(|(_, t)| inside(*t))
            .collect();
        edges.sort_by(|a, b| rank_of(a.1).cmp(&rank_of(b.1)).then(a.cmp(b)));
        for (r, next) in edges {
            if next == start {
                let mut nodes = vec![at];
                let mut rels = vec![r];
                let mut cur = at;
                while cur != start {
                    // Every object the search reached but `start` has its parent.
                    let &(p, pr) = parent.get(&cur)?;
                    nodes.push(p);
                    rels.push(pr);
                    cur = p;
                }
                nodes.reverse();
                rels.reverse();
                // nodes now starts with `start`; rels[i] goes nodes[i] → nodes[i+1].
                return Some(Cycle { nodes, relations: rels, component: component.to_vec() });
            }
            if next != start && !parent.contains_key(&next) {
                parent.insert(next, (at, r));
                queue.push_back(next);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Link, RelKind};

    fn rel(from: u32, to: u32, kind: RelKind) -> Relation {
        Relation {
            kind,
            from: ObjId(from),
            to: ObjId(to),
            link: Link::Solid,
            declared_by: ObjId(to),
            decl: 0,
            controller: false,
        }
    }

    fn graph(n: usize, rels: &[Relation]) -> Graph {
        Graph::with_nodes(n, rels)
    }

    #[test]
    fn finds_the_shortest_cycle_in_a_component() {
        // 0 → 1 → 2 → 3 → 0 and a shortcut 1 → 0.
        let rels = vec![
            rel(0, 1, RelKind::Owns),
            rel(1, 2, RelKind::Owns),
            rel(2, 3, RelKind::Owns),
            rel(3, 0, RelKind::Owns),
            rel(1, 0, RelKind::Owns),
        ];
        let g = graph(4, &rels);
        let cycles = find(&g, &rels, |_| true);
        assert_eq!(cycles.len(), 1);
        assert_eq!(cycles[0].nodes, vec![ObjId(0), ObjId(1)]);
        assert_eq!(cycles[0].relations, vec![0, 4]);
        assert_eq!(cycles[0].component.len(), 4);
    }

    #[test]
    fn the_shortest_cycle_need_not_pass_the_first_object() {
        // a(0) ← c(2), b(1) ← a, b ← c, c ← b: the 2-cycle b ↔ c is shorter
        // than a → b → c → a.
        let rels = vec![
            rel(2, 0, RelKind::Owns),
            rel(0, 1, RelKind::Owns),
            rel(2, 1, RelKind::Owns),
            rel(1, 2, RelKind::Owns),
        ];
        let g = graph(3, &rels);
        let cycles = find(&g, &rels, |_| true);
        assert_eq!(cycles.len(), 1);
        assert_eq!(cycles[0].nodes, vec![ObjId(1), ObjId(2)]);
        assert_eq!(cycles[0].relations, vec![3, 2]);
    }

    #[test]
    fn filters_edges_and_sees_self_loops() {
        let rels = vec![rel(0, 1, RelKind::Owns), rel(1, 0, RelKind::DestroyAfter), rel(2, 2, RelKind::DestroyAfter)];
        let g = graph(3, &rels);
        assert!(find(&g, &rels, |r| r.kind == RelKind::Owns).is_empty());
        let d = find(&g, &rels, |r| r.kind == RelKind::DestroyAfter);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].nodes, vec![ObjId(2)]);
        assert_eq!(find(&g, &rels, |_| true).len(), 2);
    }
}
