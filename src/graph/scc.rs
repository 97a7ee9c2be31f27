//! Strongly connected components: Tarjan's algorithm, iterative (a chain may
//! be a million objects long), over adjacency packed in one array.

// No-panic lints (issue 19): every index is a node below the count a `Csr`
// was made with (callers give object ids with the object count, or layering
// nodes with their count), or an offset `Csr::from_edges` computed; the
// algorithm's tables are sized by that count.
#![allow(
    clippy::indexing_slicing,
    reason = "nodes are below the node count every table here is sized by; offsets are computed by Csr::from_edges"
)]

/// A directed graph as compressed sparse rows: the successors of `v` are
/// `targets[start[v]..start[v + 1]]`.
pub struct Csr {
    pub start: Vec<u32>,
    pub targets: Vec<u32>,
}

impl Csr {
    /// From `(from, to)` edges over nodes `0..n`, successors in edge order.
    pub fn from_edges(n: usize, edges: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n + 1];
        for (f, _) in edges.clone() {
            start[f as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut targets = vec![0u32; start[n] as usize];
        let mut at = start.clone();
        for (f, t) in edges {
            targets[at[f as usize] as usize] = t;
            at[f as usize] += 1;
        }
        Csr { start, targets }
    }

    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn successors(&self, v: usize) -> &[u32] {
        &self.targets[self.start[v] as usize..self.start[v + 1] as usize]
    }
}

/// The component of every node (components numbered in reverse topological
/// order of the condensation), and how many there are.
pub fn components(g: &Csr) -> (Vec<u32>, usize) {
    const NONE: u32 = u32::MAX;
    let n = g.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut count = 0u32;
    for s in 0..n as u32 {
        if index[s as usize] != NONE {
            continue;
        }
        index[s as usize] = counter;
        low[s as usize] = counter;
        counter += 1;
        stack.push(s);
        on_stack[s as usize] = true;
        call.push((s, g.start[s as usize]));
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            let vi = v as usize;
            if *pos < g.start[vi + 1] {
                let w = g.targets[*pos as usize];
                *pos += 1;
                let wi = w as usize;
                if index[wi] == NONE {
                    index[wi] = counter;
                    low[wi] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[wi] = true;
                    call.push((w, g.start[wi]));
                } else if on_stack[wi] {
                    low[vi] = low[vi].min(index[wi]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u as usize] = low[u as usize].min(low[vi]);
            }
            if low[vi] == index[vi] {
                while let Some(x) = stack.pop() {
                    on_stack[x as usize] = false;
                    comp[x as usize] = count;
                    if x == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count as usize)
}

/// The components with more than one node, or one node with a self-loop:
/// the cycles. Each as its nodes in increasing order; components in order of
/// their first node.
pub fn cycles(g: &Csr) -> Vec<Vec<u32>> {
    let (comp, count) = components(g);
    let mut size = vec![0u32; count];
    for &c in &comp {
        size[c as usize] += 1;
    }
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (v, &c) in comp.iter().enumerate() {
        let c = c as usize;
        if size[c] > 1 || g.successors(v).contains(&(v as u32)) {
            members[c].push(v as u32);
        }
    }
    let mut out: Vec<Vec<u32>> = members.into_iter().filter(|m| !m.is_empty()).collect();
    out.sort_by_key(|m| m.first().copied());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_components_and_self_loops() {
        // 0 → 1 → 2 → 0, 2 → 3, 3 → 4, 4 → 3, 5 → 5, 6 alone.
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)];
        let g = Csr::from_edges(7, edges.iter().copied());
        assert_eq!(cycles(&g), vec![vec![0, 1, 2], vec![3, 4], vec![5]]);
        let (comp, count) = components(&g);
        assert_eq!(count, 4);
        // Reverse topological: {3, 4} is finished before {0, 1, 2}.
        assert!(comp[3] < comp[0]);
    }

    #[test]
    fn a_long_chain_does_not_overflow() {
        let n = 1_000_000u32;
        let g = Csr::from_edges(n as usize, (0..n - 1).map(|i| (i, i + 1)));
        assert!(cycles(&g).is_empty());
        let g = Csr::from_edges(n as usize, (0..n).map(|i| (i, (i + 1) % n)));
        assert_eq!(cycles(&g).len(), 1);
    }
}
