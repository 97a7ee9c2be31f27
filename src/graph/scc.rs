//! Strongly connected components, by `petgraph::algo::kosaraju_scc` on
//! [`Rows`]. Kosaraju, not petgraph's Tarjan: petgraph's Tarjan recurses
//! once per node of a path, and a chain may be a million objects long;
//! Kosaraju walks with a stack of its own.
//!
//! petgraph gives the components in an order of its walk, and each one's
//! nodes in the order it found them; here both are normalised (a
//! component's nodes increasing, components in order of their smallest
//! node), so that no output depends on the algorithm.

// No-panic lints (issue 19): every node is below the count the `Rows` was
// made with (its callers give object ids with the object count, or nodes
// numbered densely with their count); the tables here are sized by it.
#![allow(clippy::indexing_slicing, reason = "nodes are below the node count every table here is sized by")]

use super::csr::Rows;

/// The component of every node (components numbered in order of their
/// smallest node), and how many there are.
pub fn components(g: &Rows) -> (Vec<u32>, usize) {
    let sccs = petgraph::algo::kosaraju_scc(g);
    // petgraph's numbering (its order of finding them), then renumbered in
    // order of each component's smallest node: one pass, no sort.
    let mut found = vec![0u32; g.len()];
    for (c, scc) in sccs.iter().enumerate() {
        for &v in scc {
            if let Some(at) = found.get_mut(v as usize) {
                *at = c as u32;
            }
        }
    }
    let mut number = vec![u32::MAX; sccs.len()];
    let mut count = 0u32;
    let comp = found
        .iter()
        .map(|&c| match number.get_mut(c as usize) {
            Some(n) if *n == u32::MAX => {
                *n = count;
                count += 1;
                *n
            }
            Some(n) => *n,
            None => u32::MAX,
        })
        .collect();
    (comp, count as usize)
}

/// The components with more than one node, or one node with a self-loop:
/// the cycles. Each as its nodes in increasing order; components in order of
/// their first node.
pub fn cycles(g: &Rows) -> Vec<Vec<u32>> {
    // A node on a cycle always waits for one of its predecessors: peeling
    // the nodes that wait for none (Kahn's walk) leaves the cycles and what
    // hangs below them. Most graphs have none: nothing is left.
    let n = g.len();
    let mut waits: Vec<u32> = (0..n as u32).map(|v| g.predecessors(v).len() as u32).collect();
    let mut free: Vec<u32> = (0..n as u32).filter(|&v| waits[v as usize] == 0).collect();
    while let Some(v) = free.pop() {
        for &w in g.successors(v) {
            waits[w as usize] -= 1;
            if waits[w as usize] == 0 {
                free.push(w);
            }
        }
    }
    // The rest, numbered densely in increasing order (so that the order of
    // nodes is the same in both numberings).
    let rest: Vec<u32> = (0..n as u32).filter(|&v| waits[v as usize] > 0).collect();
    if rest.is_empty() {
        return Vec::new();
    }
    let mut index = vec![u32::MAX; n];
    for (i, &v) in rest.iter().enumerate() {
        index[v as usize] = i as u32;
    }
    let index = &index;
    let sub = Rows::from_edges(
        rest.len(),
        rest.iter().flat_map(|&v| {
            g.successors(v)
                .iter()
                .filter(|&&w| index[w as usize] != u32::MAX)
                .map(move |&w| (index[v as usize], index[w as usize]))
        }),
    );
    let mut out: Vec<Vec<u32>> = petgraph::algo::kosaraju_scc(&sub)
        .into_iter()
        .filter(|scc| match *scc.as_slice() {
            [only] => sub.successors(only).contains(&only),
            _ => true,
        })
        .map(|scc| {
            let mut scc: Vec<u32> = scc.into_iter().map(|i| rest[i as usize]).collect();
            scc.sort_unstable();
            scc
        })
        .collect();
    out.sort_unstable_by_key(|scc| scc.first().copied());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_components_and_self_loops() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 4, 4 → 3, 5 → 5, 6 alone.
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)];
        let g = Rows::from_edges(7, edges.iter().copied());
        assert_eq!(cycles(&g), vec![vec![0, 1, 2], vec![3, 4], vec![5]]);
        let (comp, count) = components(&g);
        assert_eq!(count, 4);
        assert_eq!(comp, vec![0, 0, 0, 1, 1, 2, 3]);
    }

    #[test]
    fn the_order_does_not_follow_the_walk() {
        // The same components whichever node the edges name first.
        let a = Rows::from_edges(6, [(5, 4), (4, 5), (0, 1), (1, 0), (2, 3), (3, 2)].into_iter());
        let b = Rows::from_edges(6, [(0, 1), (1, 0), (3, 2), (2, 3), (4, 5), (5, 4)].into_iter());
        assert_eq!(cycles(&a), vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        assert_eq!(cycles(&a), cycles(&b));
        assert_eq!(components(&a), components(&b));
    }

    #[test]
    fn what_hangs_below_a_cycle_is_no_cycle() {
        // 0 → 1 → 2 → 1, 2 → 3 → 4 → 4, 5 → 0; 6 → 7 → 6 and 8 alone.
        let edges = [(0, 1), (1, 2), (2, 1), (2, 3), (3, 4), (4, 4), (5, 0), (6, 7), (7, 6)];
        let g = Rows::from_edges(9, edges.iter().copied());
        assert_eq!(cycles(&g), vec![vec![1, 2], vec![4], vec![6, 7]]);
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let n = 1_000_000u32;
        let g = Rows::from_edges(n as usize, (0..n - 1).map(|i| (i, i + 1)));
        assert!(cycles(&g).is_empty());
        let g = Rows::from_edges(n as usize, (0..n).map(|i| (i, (i + 1) % n)));
        assert_eq!(cycles(&g).len(), 1);
    }
}
