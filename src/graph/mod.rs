//! The owner / destruction-dependency graph.
//!
//! Node `i` is object `ObjId(i)`; each edge carries the index of its
//! [`Relation`]. Every edge points from the object destroyed later to the one
//! destroyed earlier (owner → dependent, depended-on → dependent).
//!
//! One representation, [`Csr`] (rows packed in one array), for every graph
//! here and in `analysis/`: the snapshot's relations ([`Graph`]), the
//! subgraphs whose strongly connected components [`scc`] finds (as
//! [`Rows`], which implements petgraph's visit traits, so that
//! `petgraph::algo` runs on it), the cycles [`cycles`] names, and the
//! layering graph of `analysis::order`.

pub mod csr;
pub mod cycles;
pub mod scc;

pub use csr::{Csr, Rows};

use crate::model::{ObjId, Object, Relation};

/// The relations of a snapshot as rows: out of each object (the relations
/// it is the `from` of: its dependents) and into it (its owners and what it
/// is destroyed before), each row in relation order.
pub struct Graph {
    out: Csr<u32>,
    inn: Csr<u32>,
}

impl Graph {
    pub fn build(objects: &[Object], relations: &[Relation]) -> Graph {
        Graph::with_nodes(objects.len(), relations)
    }

    /// The graph of `nodes` objects (ids `0..nodes`) and `relations`.
    pub fn with_nodes(nodes: usize, relations: &[Relation]) -> Graph {
        // The two directions at once: each is two passes over the
        // relations (a million objects have millions).
        let (out, inn) = rayon::join(
            || Csr::from_edges(nodes, relations.iter().zip(0u32..).map(|(r, i)| (r.from.0, i))),
            || Csr::from_edges(nodes, relations.iter().zip(0u32..).map(|(r, i)| (r.to.0, i))),
        );
        Graph { out, inn }
    }

    /// How many objects.
    pub fn node_count(&self) -> usize {
        self.out.len()
    }

    /// Relation indices of edges leaving `id` (what goes before it: its
    /// dependents), in the order the relations were made.
    pub fn dependents(&self, id: ObjId) -> Vec<u32> {
        self.out.row(id.index()).to_vec()
    }

    /// Relation indices of edges entering `id` (what goes after it: its
    /// owners and what it must be destroyed before), in relation order.
    pub fn dependencies(&self, id: ObjId) -> Vec<u32> {
        self.inn.row(id.index()).to_vec()
    }

    /// `dependencies`, into a buffer the caller reuses.
    pub fn dependencies_into(&self, id: ObjId, buf: &mut Vec<u32>) {
        buf.clear();
        buf.extend_from_slice(self.inn.row(id.index()));
    }

    /// `dependents`, into a buffer the caller reuses (no allocation per object).
    pub fn dependents_into(&self, id: ObjId, buf: &mut Vec<u32>) {
        buf.clear();
        buf.extend_from_slice(self.out.row(id.index()));
    }

    /// The relation indices of `dependents`, without a copy.
    pub fn out_of(&self, id: ObjId) -> &[u32] {
        self.out.row(id.index())
    }

    /// The relation indices of `dependencies`, without a copy.
    pub fn into_of(&self, id: ObjId) -> &[u32] {
        self.inn.row(id.index())
    }

    /// Relation indices of all edges at `id`, both ways: leaving it, then
    /// entering it, each latest relation first (a self-loop twice). Lookups
    /// that take the first match rely on this order.
    pub fn around(&self, id: ObjId) -> impl Iterator<Item = u32> + '_ {
        self.out.row(id.index()).iter().rev().chain(self.inn.row(id.index()).iter().rev()).copied()
    }

    pub fn edge_count(&self) -> usize {
        self.out.edge_count()
    }
}

/// A graph built the first time it is asked for: a plan of everything in
/// order, written as names, never walks one.
#[derive(Default)]
pub struct LazyGraph {
    nodes: usize,
    cell: std::sync::OnceLock<Graph>,
}

impl LazyGraph {
    pub fn new(nodes: usize) -> LazyGraph {
        LazyGraph { nodes, cell: std::sync::OnceLock::new() }
    }

    /// The graph of these relations (always the same ones for one `LazyGraph`).
    pub fn get(&self, relations: &[Relation]) -> &Graph {
        self.cell.get_or_init(|| Graph::with_nodes(self.nodes, relations))
    }

    /// Let the graph go (it is built again if asked for).
    pub fn forget(&mut self) {
        self.cell = std::sync::OnceLock::new();
    }
}
