//! Strongly connected components, by `petgraph::algo::kosaraju_scc` on
//! [`Rows`]. Kosaraju, not petgraph's Tarjan: petgraph's Tarjan recurses
//! once per node of a path, and a chain may be a million objects long;
//! Kosaraju walks with a stack of its own.
//!
//! petgraph gives the components in an order of its walk, and each one's
//! nodes in the order it found them; here both are normalised (a
//! component's nodes increasing, components in order of their smallest
//! node), so that no output depends on the algorithm.

use super::csr::Rows;

/// The components, each as its nodes in increasing order, in order of
/// their smallest node.
fn normalised(g: &Rows) -> Vec<Vec<u32>> {
    let mut sccs = petgraph::algo::kosaraju_scc(g);
    for scc in &mut sccs {
        scc.sort_unstable();
    }
    sccs.sort_unstable_by_key(|scc| scc.first().copied());
    sccs
}

/// The component of every node (components numbered in order of their
/// smallest node), and how many there are.
pub fn components(g: &Rows) -> (Vec<u32>, usize) {
    let sccs = normalised(g);
    let mut comp = vec![u32::MAX; g.len()];
    for (c, scc) in sccs.iter().enumerate() {
        for &v in scc {
            if let Some(at) = comp.get_mut(v as usize) {
                *at = c as u32;
            }
        }
    }
    (comp, sccs.len())
}

/// The components with more than one node, or one node with a self-loop:
/// the cycles. Each as its nodes in increasing order; components in order of
/// their first node.
pub fn cycles(g: &Rows) -> Vec<Vec<u32>> {
    let mut sccs = normalised(g);
    sccs.retain(|scc| match *scc.as_slice() {
        [only] => g.successors(only).contains(&only),
        _ => true,
    });
    sccs
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
    fn a_long_chain_does_not_overflow() {
        let n = 1_000_000u32;
        let g = Rows::from_edges(n as usize, (0..n - 1).map(|i| (i, i + 1)));
        assert!(cycles(&g).is_empty());
        let g = Rows::from_edges(n as usize, (0..n).map(|i| (i, (i + 1) % n)));
        assert_eq!(cycles(&g).len(), 1);
    }
}
