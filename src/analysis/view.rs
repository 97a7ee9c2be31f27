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
    /// Relations among the shown objects, in relation order.
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
fn tree_edges(graph: &Graph, rels: &[Relation], owned: &[bool], id: ObjId, dir: Direction) -> Vec<(u32, ObjId)> {
    let implicit = |r: &Relation| matches!(r.kind, RelKind::Contains | RelKind::Defines);
    match dir {
        Direction::Dependents => graph
            .dependents(id)
            .into_iter()
            .filter(|&r| !(implicit(&rels[r as usize]) && owned[rels[r as usize].to.index()]))
            .map(|r| (r, rels[r as usize].to))
            .collect(),
        Direction::Dependencies => graph
            .dependencies(id)
            .into_iter()
            .filter(|&r| !(implicit(&rels[r as usize]) && owned[id.index()]))
            .map(|r| (r, rels[r as usize].from))
            .collect(),
    }
}

pub fn build(objects: &[Object], rels: &[Relation], graph: &Graph, opts: &ViewOptions) -> GraphView {
    let refs: Vec<String> = objects.iter().map(Object::reference).collect();
    let mut owned = vec![false; objects.len()];
    for r in rels.iter().filter(|r| r.kind == RelKind::Owns) {
        owned[r.to.index()] = true;
    }
    // How many parents (owners, containers, what goes after it) each object
    // has: the `shared` mark, whichever way the tree is walked.
    let mut parents = vec![0usize; objects.len()];
    for i in 0..objects.len() {
        for (_, child) in tree_edges(graph, rels, &owned, ObjId(i as u32), Direction::Dependents) {
            parents[child.index()] += 1;
        }
    }
    let by_ref = |ids: &mut Vec<ObjId>| ids.sort_by(|a, b| refs[a.index()].cmp(&refs[b.index()]).then(a.cmp(b)));

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
                (0..objects.len() as u32).map(ObjId).filter(|id| !walker.expanded[id.index()]).collect();
            by_ref(&mut rest);
            for id in rest {
                if !walker.expanded[id.index()] {
                    walker.walk(id, &mut lines);
                }
            }
        }
    }
    if let Some(i) = lines.iter().rposition(|l| l.depth == 0) {
        lines[i].last = true;
    }

    let shown: BTreeSet<ObjId> = lines.iter().map(|l| l.object).collect();
    let mut nodes: Vec<ObjId> = shown.iter().copied().collect();
    by_ref(&mut nodes);
    let edges = (0..rels.len() as u32)
        .filter(|&i| {
            let r = &rels[i as usize];
            shown.contains(&r.from) && shown.contains(&r.to)
        })
        .collect();
    GraphView { direction: opts.direction, nodes, edges, lines }
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
                    self.on_path[parent.index()] = false;
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
            shared: self.parents[i] > 1,
            repeat: false,
            cycle: false,
            hidden: 0,
        };
        let result = if self.on_path[i] {
            line.cycle = true;
            None
        } else if self.expanded[i] {
            line.repeat = true;
            None
        } else {
            self.expanded[i] = true;
            let mut edges = tree_edges(self.graph, self.rels, self.owned, id, self.dir);
            edges.sort_by(|a, b| self.refs[a.1.index()].cmp(&self.refs[b.1.index()]).then(a.0.cmp(&b.0)));
            if self.depth.is_some_and(|d| depth >= d) {
                line.hidden = edges.len();
                None
            } else {
                self.on_path[i] = true;
                Some(edges)
            }
        };
        out.push(line);
        result
    }
}
