//! The owner / destruction-dependency graph.
//!
//! Node `i` is object `ObjId(i)`; each edge carries the index of its
//! [`Relation`]. Every edge points from the object destroyed later to the one
//! destroyed earlier (owner → dependent, depended-on → dependent).

pub mod cycles;
pub mod scc;

use crate::model::{ObjId, Object, Relation};
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::Direction;

pub struct Graph {
    pub g: DiGraph<(), u32>,
}

impl Graph {
    pub fn build(objects: &[Object], relations: &[Relation]) -> Graph {
        Graph::with_nodes(objects.len(), relations)
    }

    /// The graph of `nodes` objects (ids `0..nodes`) and `relations`.
    pub fn with_nodes(nodes: usize, relations: &[Relation]) -> Graph {
        let mut g = DiGraph::with_capacity(nodes, relations.len());
        for _ in 0..nodes {
            g.add_node(());
        }
        for (i, r) in relations.iter().enumerate() {
            g.add_edge(node(r.from), node(r.to), i as u32);
        }
        Graph { g }
    }

    /// Relation indices of edges leaving `id` (what goes before it: its
    /// dependents), in the order the relations were made.
    pub fn dependents(&self, id: ObjId) -> Vec<u32> {
        self.edges(id, Direction::Outgoing)
    }

    /// Relation indices of edges entering `id` (what goes after it: its
    /// owners and what it must be destroyed before), in relation order.
    pub fn dependencies(&self, id: ObjId) -> Vec<u32> {
        self.edges(id, Direction::Incoming)
    }

    fn edges(&self, id: ObjId, dir: Direction) -> Vec<u32> {
        let mut v = Vec::new();
        self.edges_into(id, dir, &mut v);
        v
    }

    /// `dependencies`, into a buffer the caller reuses.
    pub fn dependencies_into(&self, id: ObjId, buf: &mut Vec<u32>) {
        self.edges_into(id, Direction::Incoming, buf)
    }

    /// `dependents`, into a buffer the caller reuses (no allocation per object).
    pub fn dependents_into(&self, id: ObjId, buf: &mut Vec<u32>) {
        self.edges_into(id, Direction::Outgoing, buf)
    }

    fn edges_into(&self, id: ObjId, dir: Direction, buf: &mut Vec<u32>) {
        buf.clear();
        buf.extend(self.g.edges_directed(node(id), dir).map(|e| *e.weight()));
        buf.sort_unstable();
    }

    /// Relation indices of all edges at `id`, both ways, in no set order
    /// (for lookups that do not care, without allocating).
    pub fn around(&self, id: ObjId) -> impl Iterator<Item = u32> + '_ {
        self.g
            .edges_directed(node(id), Direction::Outgoing)
            .chain(self.g.edges_directed(node(id), Direction::Incoming))
            .map(|e| *e.weight())
    }

    pub fn edge_count(&self) -> usize {
        self.g.edge_count()
    }

    pub fn relation_of(&self, e: EdgeIndex) -> u32 {
        self.g[e]
    }
}

pub fn node(id: ObjId) -> NodeIndex {
    NodeIndex::new(id.index())
}

pub fn obj(n: NodeIndex) -> ObjId {
    ObjId(n.index() as u32)
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
}
