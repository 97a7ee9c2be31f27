//! The data behind `teardown graph`: which objects and edges to show, and the
//! tree walk (shared objects, cycles, depth) — computed here so that the
//! renderers only format.

use crate::graph::Graph;
use crate::model::{ObjId, Object, RelKind, Relation};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From an object to what hangs off it (what it owns, what goes first).
    Dependents,
    /// From an object to what it hangs off (its owners, what goes after it).
    Dependencies,
}

impl Direction {
    fn reverse(self) -> Direction {
        match self {
            Direction::Dependents => Direction::Dependencies,
            Direction::Dependencies => Direction::Dependents,
        }
    }
}

/// One line of a tree, in pre-order. (Flat, not nested: a chain may be a
/// million objects deep, and nothing here recurses.)
#[derive(Clone, Debug)]
pub struct TreeLine {
    pub object: ObjId,
    /// The relation that links this line to its parent (`None` for roots).
    pub via: Option<u32>,
    /// 0 for roots.
    pub depth: usize,
    /// The last child of its parent (or the last root).
    pub last: bool,
    /// The object has more than one parent in the tree.
    pub shared: bool,
    /// Its subtree was printed above; not repeated.
    pub repeat: bool,
    /// Already on the path from the root: a cycle, not walked again.
    pub cycle: bool,
    /// Children left out because of `--depth`.
    pub hidden: usize,
}

#[derive(Clone, Debug)]
pub struct GraphView {
    pub direction: Direction,
    /// Objects shown, in reference order.
    pub nodes: Vec<ObjId>,
    /// Relations among the shown objects, in reference order (from, to, kind).
    pub edges: Vec<u32>,
    pub lines: Vec<TreeLine>,
}

impl GraphView {
    /// The objects the tree shows, each once, in the order it first shows
    /// them (`graph -o names`).
    pub fn tree_order(&self) -> Vec<ObjId> {
        let mut seen = rustc_hash::FxHashSet::default();
        self.lines.iter().map(|l| l.object).filter(|&id| seen.insert(id)).collect()
    }
}

pub struct ViewOptions {
    pub direction: Direction,
    /// `--focus` (and `-l`/`-n`): the roots; `None` shows everything.
    pub focus: Option<Vec<ObjId>>,
    pub depth: Option<usize>,
}

/// Relations shown in a tree, for one object and direction. A Namespace or
/// CRD edge is shown only for objects that have no owner reference: a Pod
/// appears under its ReplicaSet, not again under its Namespace.
///
/// The graph's edges carry indexes of `rels`, between objects `owned` has
/// an entry for: every `get` finds its entry.
fn tree_edges(graph: &Graph, rels: &[Relation], owned: &[bool], id: ObjId, dir: Direction) -> Vec<(u32, ObjId)> {
    let implicit = |r: &Relation| matches!(r.kind, RelKind::Contains | RelKind::Defines);
    let owned = |id: ObjId| owned.get(id.index()).copied().unwrap_or(false);
    let edges = match dir {
        Direction::Dependents => graph.dependents(id),
        Direction::Dependencies => graph.dependencies(id),
    };
    edges
        .into_iter()
        .filter_map(|r| {
            let rel = rels.get(r as usize)?;
            match dir {
                Direction::Dependents => (!(implicit(rel) && owned(rel.to))).then_some((r, rel.to)),
                Direction::Dependencies => (!(implicit(rel) && owned(id))).then_some((r, rel.from)),
            }
        })
        .collect()
}

pub fn build(objects: &[Object], rels: &[Relation], graph: &Graph, opts: &ViewOptions) -> GraphView {
    let refs: Vec<String> = objects.iter().map(Object::reference).collect();
    let mut owned = vec![false; objects.len()];
    for r in rels.iter().filter(|r| r.kind == RelKind::Owns) {
        if let Some(owned) = owned.get_mut(r.to.index()) {
            *owned = true;
        }
    }
    // How many parents (owners, containers, what goes after it) each object
    // has: the `shared` mark, whichever way the tree is walked.
    let mut parents = vec![0usize; objects.len()];
    for i in 0..objects.len() {
        for (_, child) in tree_edges(graph, rels, &owned, ObjId(i as u32), Direction::Dependents) {
            if let Some(p) = parents.get_mut(child.index()) {
                *p += 1;
            }
        }
    }
    let by_ref =
        |ids: &mut Vec<ObjId>| ids.sort_by(|a, b| refs.get(a.index()).cmp(&refs.get(b.index())).then(a.cmp(b)));

    let mut walker = Walker {
        graph,
        rels,
        owned: &owned,
        parents: &parents,
        refs: &refs,
        dir: opts.direction,
        depth: opts.depth,
        expanded: vec![false; objects.len()],
        on_path: vec![false; objects.len()],
    };
    let mut lines = Vec::new();
    match &opts.focus {
        Some(ids) => {
            let mut roots = ids.clone();
            by_ref(&mut roots);
            roots.dedup();
            for r in roots {
                walker.walk(r, &mut lines);
            }
        }
        None => {
            let mut roots: Vec<ObjId> = (0..objects.len() as u32)
                .map(ObjId)
                .filter(|&id| tree_edges(graph, rels, &owned, id, opts.direction.reverse()).is_empty())
                .collect();
            by_ref(&mut roots);
            for r in roots {
                walker.walk(r, &mut lines);
            }
            // Objects reachable only through a cycle have no root: they
            // start trees of their own, after the others.
            let mut rest: Vec<ObjId> =
                (0..).zip(&walker.expanded).filter(|(_, expanded)| !**expanded).map(|(i, _)| ObjId(i)).collect();
            by_ref(&mut rest);
            for id in rest {
                if walker.expanded.get(id.index()) == Some(&false) {
                    walker.walk(id, &mut lines);
                }
            }
        }
    }
    if let Some(line) = lines.iter_mut().rfind(|l| l.depth == 0) {
        line.last = true;
    }

    let shown: BTreeSet<ObjId> = lines.iter().map(|l| l.object).collect();
    let mut nodes: Vec<ObjId> = shown.iter().copied().collect();
    by_ref(&mut nodes);
    let mut edges: Vec<u32> =
        (0..).zip(rels).filter(|(_, r)| shown.contains(&r.from) && shown.contains(&r.to)).map(|(i, _)| i).collect();
    edges.sort_by(|&a, &b| by_relation(&refs, rels, a, b));
    GraphView { direction: opts.direction, nodes, edges, lines }
}

/// Relations in reference order: from, to, kind, link, the object that
/// declares it and where. Not relation order, which follows the order the
/// inputs were read in: naming the files in another order must not change
/// the output (tests/props_determinism.rs).
fn by_relation(refs: &[String], rels: &[Relation], a: u32, b: u32) -> std::cmp::Ordering {
    let at = |id: ObjId| refs.get(id.index()).map(String::as_str);
    let key = |i: u32| {
        rels.get(i as usize)
            .map(|r| (at(r.from), at(r.to), r.kind, r.link.as_str(), r.controller, at(r.declared_by), r.decl))
    };
    key(a).cmp(&key(b)).then(a.cmp(&b))
}

struct Walker<'a> {
    graph: &'a Graph,
    rels: &'a [Relation],
    owned: &'a [bool],
    parents: &'a [usize],
    refs: &'a [String],
    dir: Direction,
    depth: Option<usize>,
    expanded: Vec<bool>,
    on_path: Vec<bool>,
}

type Children = std::iter::Peekable<std::vec::IntoIter<(u32, ObjId)>>;

impl Walker<'_> {
    /// Depth-first from `root`, appending lines in pre-order, with an explicit
    /// stack. Each object is expanded once.
    fn walk(&mut self, root: ObjId, out: &mut Vec<TreeLine>) {
        let mut stack: Vec<(Children, ObjId, usize)> = Vec::new();
        if let Some(children) = self.enter(root, None, 0, false, out) {
            stack.push((children.into_iter().peekable(), root, 0));
        }
        while let Some((children, parent, depth)) = stack.last_mut() {
            let (parent, depth) = (*parent, *depth);
            match children.next() {
                Some((r, child)) => {
                    let last = children.peek().is_none();
                    if let Some(grand) = self.enter(child, Some(r), depth + 1, last, out) {
                        stack.push((grand.into_iter().peekable(), child, depth + 1));
                    }
                }
                None => {
                    if let Some(on_path) = self.on_path.get_mut(parent.index()) {
                        *on_path = false;
                    }
                    stack.pop();
                }
            }
        }
    }

    /// Add the line for `id`; `Some(children)` when it is to be expanded.
    fn enter(
        &mut self,
        id: ObjId,
        via: Option<u32>,
        depth: usize,
        last: bool,
        out: &mut Vec<TreeLine>,
    ) -> Option<Vec<(u32, ObjId)>> {
        let i = id.index();
        let mut line = TreeLine {
            object: id,
            via,
            depth,
            last,
            shared: self.parents.get(i).is_some_and(|&p| p > 1),
            repeat: false,
            cycle: false,
            hidden: 0,
        };
        // (An id of no object, from another snapshot, is never expanded.)
        let (Some(on_path), Some(expanded)) = (self.on_path.get_mut(i), self.expanded.get_mut(i)) else {
            out.push(line);
            return None;
        };
        let result = if *on_path {
            line.cycle = true;
            None
        } else if *expanded {
            line.repeat = true;
            None
        } else {
            *expanded = true;
            let mut edges = tree_edges(self.graph, self.rels, self.owned, id, self.dir);
            let (refs, rels) = (self.refs, self.rels);
            edges.sort_by(|a, b| {
                refs.get(a.1.index()).cmp(&refs.get(b.1.index())).then(by_relation(refs, rels, a.0, b.0))
            });
            if self.depth.is_some_and(|d| depth >= d) {
                line.hidden = edges.len();
                None
            } else {
                *on_path = true;
                Some(edges)
            }
        };
        out.push(line);
        result
    }
}
