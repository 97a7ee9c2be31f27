//! The one graph representation: rows packed in one array (compressed
//! sparse rows). Row `v` is `items[start[v]..start[v + 1]]`; an item is what
//! a user keeps per edge (the node it leads to, a relation index, or both).

// No-panic lints (issue 19): `start` has one entry per node and one more,
// made by `from_edges` from the node count the caller gives, and its offsets
// count the items `from_edges` places; `row` answers an empty row for a node
// outside the graph.
#![allow(
    clippy::indexing_slicing,
    reason = "rows are below the node count `start` is sized by; offsets are computed by from_edges"
)]

/// A directed graph as compressed sparse rows: one row per node, holding an
/// item per edge leaving it, in the order the edges were given.
#[derive(Clone, Debug, Default)]
pub struct Csr<T = u32> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy + Default> Csr<T> {
    /// From `(row, item)` pairs over rows `0..n` (every row below `n`): each
    /// row's items in the order given.
    pub fn from_edges(n: usize, edges: impl Iterator<Item = (u32, T)> + Clone) -> Csr<T> {
        let mut start = vec![0u32; n + 1];
        for (f, _) in edges.clone() {
            start[f as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut items = vec![T::default(); start[n] as usize];
        let mut at = start.clone();
        for (f, t) in edges {
            items[at[f as usize] as usize] = t;
            at[f as usize] += 1;
        }
        Csr { start, items }
    }

    /// The rows out of and into each node at once, from `(from, to, out
    /// item, in item)` edges over nodes `0..n`, in the order given.
    pub fn both_ways(n: usize, edges: impl Iterator<Item = (u32, u32, T, T)> + Clone) -> (Csr<T>, Csr<T>) {
        let mut out_start = vec![0u32; n + 1];
        let mut in_start = vec![0u32; n + 1];
        for (f, t, _, _) in edges.clone() {
            out_start[f as usize + 1] += 1;
            in_start[t as usize + 1] += 1;
        }
        for i in 0..n {
            out_start[i + 1] += out_start[i];
            in_start[i + 1] += in_start[i];
        }
        let mut out = vec![T::default(); out_start[n] as usize];
        let mut inn = vec![T::default(); in_start[n] as usize];
        let mut o = out_start.clone();
        let mut i = in_start.clone();
        for (f, t, a, b) in edges {
            out[o[f as usize] as usize] = a;
            o[f as usize] += 1;
            inn[i[t as usize] as usize] = b;
            i[t as usize] += 1;
        }
        (Csr { start: out_start, items: out }, Csr { start: in_start, items: inn })
    }
}

impl<T> Csr<T> {
    /// How many nodes (rows).
    pub fn len(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many edges (items).
    pub fn edge_count(&self) -> usize {
        self.items.len()
    }

    /// The items of row `v`, in the order given; empty for a node outside.
    pub fn row(&self, v: usize) -> &[T] {
        match (self.start.get(v), self.start.get(v + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Where row `v` starts and ends among all items (for a walk that keeps
    /// its place in a row as a number); `v` must be a node.
    pub fn bounds(&self, v: usize) -> (u32, u32) {
        (self.start[v], self.start[v + 1])
    }

    /// The item at a place `bounds` gave.
    pub fn item(&self, at: u32) -> &T {
        &self.items[at as usize]
    }
}

/// A directed graph over nodes `0..n` as two [`Csr`]s of node ids: the
/// successors of each node and its predecessors, each in the order the
/// edges were given. It implements petgraph's visit traits, so that
/// `petgraph::algo` runs on it (node ids are `u32`; edges have no id).
#[derive(Clone, Debug, Default)]
pub struct Rows {
    out: Csr<u32>,
    inn: Csr<u32>,
}

impl Rows {
    /// From `(from, to)` edges over nodes `0..n` (every node below `n`).
    pub fn from_edges(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Rows {
        let (out, inn) = Csr::both_ways(n, edges.map(|(f, t)| (f, t, t, f)));
        Rows { out, inn }
    }

    /// How many nodes.
    pub fn len(&self) -> usize {
        self.out.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The successors of `v`, in edge order (empty for a node outside).
    pub fn successors(&self, v: u32) -> &[u32] {
        self.out.row(v as usize)
    }

    /// The predecessors of `v`, in edge order (empty for a node outside).
    pub fn predecessors(&self, v: u32) -> &[u32] {
        self.inn.row(v as usize)
    }
}

/// Which nodes a walk has seen (petgraph's `VisitMap` for [`Rows`]).
pub struct Seen(Vec<bool>);

impl petgraph::visit::VisitMap<u32> for Seen {
    fn visit(&mut self, a: u32) -> bool {
        match self.0.get_mut(a as usize) {
            Some(seen) => !std::mem::replace(seen, true),
            None => false,
        }
    }
    fn is_visited(&self, a: &u32) -> bool {
        self.0.get(*a as usize).copied().unwrap_or(false)
    }
    fn unvisit(&mut self, a: u32) -> bool {
        self.0.get_mut(a as usize).is_some_and(|seen| std::mem::replace(seen, false))
    }
}

impl petgraph::visit::GraphBase for Rows {
    type NodeId = u32;
    type EdgeId = ();
}

impl petgraph::visit::NodeIndexable for Rows {
    fn node_bound(&self) -> usize {
        self.len()
    }
    fn to_index(&self, a: u32) -> usize {
        a as usize
    }
    fn from_index(&self, i: usize) -> u32 {
        i as u32
    }
}

impl petgraph::visit::NodeCount for Rows {
    fn node_count(&self) -> usize {
        self.len()
    }
}

impl petgraph::visit::Visitable for Rows {
    type Map = Seen;
    fn visit_map(&self) -> Seen {
        Seen(vec![false; self.len()])
    }
    fn reset_map(&self, map: &mut Seen) {
        map.0.clear();
        map.0.resize(self.len(), false);
    }
}

impl<'a> petgraph::visit::IntoNeighbors for &'a Rows {
    type Neighbors = std::iter::Copied<std::slice::Iter<'a, u32>>;
    fn neighbors(self, a: u32) -> Self::Neighbors {
        self.out.row(a as usize).iter().copied()
    }
}

impl<'a> petgraph::visit::IntoNeighborsDirected for &'a Rows {
    type NeighborsDirected = std::iter::Copied<std::slice::Iter<'a, u32>>;
    fn neighbors_directed(self, a: u32, d: petgraph::Direction) -> Self::NeighborsDirected {
        match d {
            petgraph::Direction::Outgoing => self.out.row(a as usize).iter().copied(),
            petgraph::Direction::Incoming => self.inn.row(a as usize).iter().copied(),
        }
    }
}

impl petgraph::visit::IntoNodeIdentifiers for &Rows {
    type NodeIdentifiers = std::ops::Range<u32>;
    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..self.len() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_the_order_given() {
        let g = Csr::from_edges(4, [(2, 9u32), (0, 1), (2, 3), (0, 7)].into_iter());
        assert_eq!(g.len(), 4);
        assert_eq!(g.row(0), &[1, 7]);
        assert!(g.row(1).is_empty());
        assert_eq!(g.row(2), &[9, 3]);
        assert!(g.row(4).is_empty());
        assert_eq!(g.edge_count(), 4);
        let (out, inn) = Csr::both_ways(3, [(0, 1, 10u32, 20u32), (2, 1, 11, 21), (0, 2, 12, 22)].into_iter());
        assert_eq!(out.row(0), &[10, 12]);
        assert_eq!(inn.row(1), &[20, 21]);
        assert_eq!(inn.row(2), &[22]);
        assert_eq!(out.bounds(2), (2, 3));
        assert_eq!(*out.item(2), 11);
    }
}
