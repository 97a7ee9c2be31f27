//! Property tests of the destruction order (CONTRACT §4) over random graphs
//! of ownership and destruction dependencies, some objects outside the
//! deletion set. An independent oracle computes the constraints the
//! comparator implies; the order must satisfy every one that was not
//! relaxed, put every object at the earliest step those allow, and relax
//! only ownership edges that lie on a cycle.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use proptest::prelude::*;
use teardown::analysis::order::{order, Input};
use teardown::model::{Link, ObjId, RelKind, Relation};

fn rel(from: usize, to: usize, kind: RelKind) -> Relation {
    Relation {
        kind,
        from: ObjId(from as u32),
        to: ObjId(to as u32),
        link: Link::Solid,
        declared_by: ObjId(to as u32),
        decl: 0,
        controller: false,
    }
}

/// Objects reachable from `a` by relations of one kind (ownership or
/// destruction) whose intermediate objects are all outside the set, and
/// whose ownership edges are not in `dropped`: the constraints "a after b".
fn constrained(a: usize, rels: &[Relation], in_set: &[bool], destruction: bool, dropped: &[bool]) -> Vec<usize> {
    let n = in_set.len();
    let mut seen = vec![false; n];
    let mut stack = vec![a];
    let mut out = Vec::new();
    while let Some(x) = stack.pop() {
        for (i, r) in rels.iter().enumerate() {
            if r.from.index() != x || r.kind.is_destruction() != destruction || dropped[i] {
                continue;
            }
            let y = r.to.index();
            if seen[y] {
                continue;
            }
            seen[y] = true;
            if in_set[y] {
                out.push(y);
            } else {
                stack.push(y);
            }
        }
    }
    out
}

fn reaches(from: usize, to: usize, rels: &[Relation], n: usize, keep: impl Fn(&Relation) -> bool) -> bool {
    let mut seen = vec![false; n];
    let mut stack = vec![from];
    while let Some(x) = stack.pop() {
        for r in rels.iter().filter(|r| r.from.index() == x && keep(r)) {
            let y = r.to.index();
            if y == to {
                return true;
            }
            if !seen[y] {
                seen[y] = true;
                stack.push(y);
            }
        }
    }
    false
}

/// Generated edges (from, to, a destruction dependency?) as relations.
fn relations(edges: &[(usize, usize, bool)]) -> Vec<Relation> {
    edges.iter().map(|&(a, b, dd)| rel(a, b, if dd { RelKind::DestroyAfter } else { RelKind::Owns })).collect()
}

/// Murano's comparator, pair by pair (CONTRACT §4): `d[a][b]`, a has a
/// destruction dependency on b, `o[a][b]`, a owns b; each transitive on its
/// own, through any objects.
struct Comparator {
    d: Vec<Vec<bool>>,
    o: Vec<Vec<bool>>,
}

impl Comparator {
    fn new(rels: &[Relation], n: usize) -> Comparator {
        let closure = |destruction: bool| -> Vec<Vec<bool>> {
            (0..n)
                .map(|a| (0..n).map(|b| reaches(a, b, rels, n, |r| r.kind.is_destruction() == destruction)).collect())
                .collect()
        };
        Comparator { d: closure(true), o: closure(false) }
    }

    /// IF a depends on b AND NOT b on a THEN a after b; ELSE IF a owns b
    /// THEN a after b — where a dependency that contradicts ownership wins
    /// (b owns a, a depends on b: a after b, never b after a).
    fn after(&self, a: usize, b: usize) -> bool {
        let first = |x: usize, y: usize| self.d[x][y] && !self.d[y][x];
        a != b && (first(a, b) || (self.o[a][b] && !first(b, a)))
    }
}

/// A generated graph: object count, edges (from, to, a destruction
/// dependency?), which objects are in the set.
type Graph = (usize, Vec<(usize, usize, bool)>, Vec<bool>);

fn graphs() -> impl Strategy<Value = Graph> {
    (1usize..13).prop_flat_map(|n| {
        (
            Just(n),
            proptest::collection::vec((0..n, 0..n, any::<bool>()), 0..(2 * n + 2)),
            proptest::collection::vec(proptest::bool::weighted(0.8), n),
        )
    })
}

/// `graphs()` and some `--finalizer-controller` relations besides:
/// (controller, holder).
fn finalized() -> impl Strategy<Value = (Graph, Vec<(usize, usize)>)> {
    graphs()
        .prop_flat_map(|(n, edges, in_set)| (Just((n, edges, in_set)), proptest::collection::vec((0..n, 0..n), 1..4)))
}

proptest! {
    #![proptest_config(crate::props_gen::config(4000))]

    #[test]
    fn every_kept_constraint_holds_and_steps_are_minimal((n, edges, in_set) in graphs()) {
        let rels: Vec<Relation> = relations(&edges);
        let rank: Vec<u32> = (0..n as u32).collect();

        // Without --allow-cycles: an error exactly when objects of the set own
        // each other (a cycle of ownership edges through one of them).
        let strict = order(&Input { relations: &rels, in_set: &in_set, rank: &rank, allow_cycles: false });
        let own_cycle = (0..n).any(|a| in_set[a] && reaches(a, a, &rels, n, |r| r.kind.is_ownership()));
        prop_assert_eq!(strict.is_err(), own_cycle);

        let o = order(&Input { relations: &rels, in_set: &in_set, rank: &rank, allow_cycles: true }).unwrap();
        let mut dropped = vec![false; rels.len()];
        for (&r, because) in o.relaxed.iter().zip(&o.relaxed_because) {
            // Only ownership is relaxed, and only on a cycle.
            prop_assert!(rels[r as usize].kind.is_ownership());
            // The relaxed edge is the own ownership link of the object whose
            // destruction dependency won (CONTRACT §4).
            if let Some(b) = because {
                let d = &rels[*b as usize];
                prop_assert!(d.kind.is_destruction());
                // (or of what A must follow anyway: through a group planned
                // together, or a chain through objects outside the set). The
                // cycle it breaks runs owner -> A ... -> x, x after y, y ... -> owner.
                let relaxed = &rels[r as usize];
                let other = |e: &Relation| !(e.from == relaxed.from && e.to == relaxed.to && e.kind == relaxed.kind);
                let (a, x, y, owner) = (relaxed.to.index(), d.from.index(), d.to.index(), relaxed.from.index());
                prop_assert!(a == x || reaches(a, x, &rels, n, other), "relaxed {:?} for {:?}", relaxed, d);
                prop_assert!(y == owner || reaches(y, owner, &rels, n, other), "relaxed {:?} for {:?}", relaxed, d);
            }
            prop_assert!(reaches(rels[r as usize].to.index(), rels[r as usize].from.index(), &rels, n, |_| true));
            for (i, x) in rels.iter().enumerate() {
                if x.from == rels[r as usize].from && x.to == rels[r as usize].to && x.kind == rels[r as usize].kind {
                    dropped[i] = true;
                }
            }
        }
        let cmp = Comparator::new(&rels, n);
        let mut group = (0..n).collect::<Vec<usize>>();
        for g in &o.groups {
            let first = g.members[0].index();
            for m in &g.members {
                group[m.index()] = first;
            }
        }
        for a in 0..n {
            if !in_set[a] {
                prop_assert_eq!(o.step[a], 0);
                continue;
            }
            prop_assert!(o.step[a] >= 1 && o.step[a] <= o.steps);
            for destruction in [false, true] {
                for b in constrained(a, &rels, &in_set, destruction, &dropped) {
                    // Objects that depend on each other: their dependencies
                    // order neither (the comparator's first branch needs
                    // NOT B on A).
                    if destruction && cmp.d[b][a] {
                        continue;
                    }
                    if group[a] != group[b] {
                        prop_assert!(o.step[a] > o.step[b], "{} after {}: steps {} and {}", a, b, o.step[a], o.step[b]);
                    } else {
                        prop_assert_eq!(o.step[a], o.step[b]);
                    }
                }
            }
        }
        // Minimal: a group's step is one more than the largest step of what
        // the comparator puts before any of its members, where the order
        // keeps it before (relaxing one link keeps the rest: P owns C owns
        // G, C depends on P puts P after G).
        for a in (0..n).filter(|&a| in_set[a]) {
            let members: Vec<usize> = (0..n).filter(|&m| in_set[m] && group[m] == group[a]).collect();
            let mut before = 0;
            for &m in &members {
                for b in (0..n).filter(|&b| in_set[b] && group[b] != group[a] && cmp.after(m, b)) {
                    if o.step[b] < o.step[a] {
                        before = before.max(o.step[b]);
                    }
                }
            }
            prop_assert_eq!(o.step[a], before + 1, "object {} could move", a);
        }
    }

    /// Relaxing a link never changes an order that the other constraints
    /// imply (issue 32): every pair the comparator orders, on no cycle of
    /// what it orders, is in that order — ownership through a relaxed
    /// object too (P owns C owns G, C depends on P: G, P, C), and owner
    /// and owned that depend on each other (the ELSE IF: owned first).
    #[test]
    fn the_comparator_holds_off_its_cycles((n, edges, in_set) in graphs()) {
        let rels = relations(&edges);
        let rank: Vec<u32> = (0..n as u32).collect();
        let o = order(&Input { relations: &rels, in_set: &in_set, rank: &rank, allow_cycles: true }).unwrap();
        let cmp = Comparator::new(&rels, n);
        // What the comparator orders, transitively (between objects of the set).
        // (A group planned as one step joins its members both ways.)
        let grouped = |a: usize, b: usize| {
            o.groups.iter().any(|x| x.members.contains(&ObjId(a as u32)) && x.members.contains(&ObjId(b as u32)))
        };
        let mut g = vec![vec![false; n]; n];
        for a in (0..n).filter(|&a| in_set[a]) {
            for b in (0..n).filter(|&b| in_set[b]) {
                g[a][b] = cmp.after(a, b) || (a != b && grouped(a, b));
            }
        }
        for k in 0..n {
            for a in 0..n {
                for b in 0..n {
                    g[a][b] = g[a][b] || (g[a][k] && g[k][b]);
                }
            }
        }
        // A relaxed link is the one the contract names (A's own, when A's
        // dependency on B contradicts B owning A through others): that
        // pair, and only that pair, is free.
        let relaxed = |a: usize, b: usize| {
            o.relaxed.iter().any(|&r| rels[r as usize].from.index() == a && rels[r as usize].to.index() == b)
        };
        for a in (0..n).filter(|&a| in_set[a]) {
            for b in (0..n).filter(|&b| in_set[b] && cmp.after(a, b) && !g[b][a] && !grouped(a, b) && !relaxed(a, b)) {
                prop_assert!(o.step[a] > o.step[b], "{} after {}: steps {} and {}", a, b, o.step[a], o.step[b]);
            }
        }
    }

    /// A finalizer's controller never goes before an object of the set
    /// carrying its finalizer (that object would hang, and the plan is
    /// refused: CONTRACT §5), though ownership splits the destruction-
    /// dependency cycles they make into levels, owned first (issue 32).
    /// They may share a step.
    #[test]
    fn a_finalizer_controller_never_goes_first(((n, edges, in_set), fin) in finalized()) {
        let mut rels = relations(&edges);
        rels.extend(fin.iter().filter(|(c, h)| c != h).map(|&(c, h)| rel(c, h, RelKind::Finalizer)));
        let rank: Vec<u32> = (0..n as u32).collect();
        let o = order(&Input { relations: &rels, in_set: &in_set, rank: &rank, allow_cycles: true }).unwrap();
        for r in rels.iter().filter(|r| r.kind == RelKind::Finalizer) {
            let (c, h) = (r.from.index(), r.to.index());
            if in_set[c] && in_set[h] {
                prop_assert!(o.step[c] >= o.step[h], "controller {} at step {}, before {} at step {}", c, o.step[c], h, o.step[h]);
            }
        }
    }
}

#[test]
fn relaxing_is_local() {
    // P(0) owns C(1) owns G(2), C depends on P: relaxing P owns C leaves P
    // owning G: G, P, C (CONTRACT §4). Before: G and P in one step.
    let rels = vec![rel(0, 1, RelKind::Owns), rel(1, 2, RelKind::Owns), rel(1, 0, RelKind::DestroyAfter)];
    let o = order(&Input { relations: &rels, in_set: &[true; 3], rank: &[0, 1, 2], allow_cycles: false }).unwrap();
    assert_eq!((o.step[2], o.step[0], o.step[1]), (1, 2, 3));
    assert_eq!(o.relaxed, [0]);
    // P's step is decided by G, through C (the relation C owns G).
    assert_eq!(o.after[0], Some(1));
    // Q owns P too: Q still owns C, through P.
    let mut rels = rels;
    rels.push(rel(3, 0, RelKind::Owns));
    let o = order(&Input { relations: &rels, in_set: &[true; 4], rank: &[0, 1, 2, 3], allow_cycles: false }).unwrap();
    assert_eq!((o.step[2], o.step[0], o.step[1], o.step[3]), (1, 2, 3, 4));
}

#[test]
fn a_long_chain_of_relaxed_links_is_planned_in_one_pass() {
    // r(0) owns c1 owns c2 … owns cN, each depending on r: every link from r
    // is turned round in turn (r owns c1, then r owns c2 through c1, …).
    // Drawn as they come, not one stall per link (quadratic: minutes).
    let n = 20_000;
    let mut rels = Vec::new();
    for i in 1..=n {
        rels.push(rel(i - 1, i, RelKind::Owns));
        rels.push(rel(i, 0, RelKind::DestroyAfter));
    }
    let in_set = vec![true; n + 1];
    let rank: Vec<u32> = (0..=n as u32).collect();
    let o = order(&Input { relations: &rels, in_set: &in_set, rank: &rank, allow_cycles: false }).unwrap();
    // r first, then cN … c1: each owns the next.
    assert_eq!((o.step[0], o.step[n], o.step[1], o.steps), (1, 2, n as u32 + 1, n as u32 + 1));
    assert_eq!(o.relaxed, [0]);
}

#[test]
fn owner_and_owned_that_depend_on_each_other_go_owned_first() {
    // A(0) owns B(1), each depends on the other: the comparator's ELSE IF
    // orders them, B first, and no clause leaves a group (before: one step).
    let rels = vec![rel(0, 1, RelKind::Owns), rel(0, 1, RelKind::DestroyAfter), rel(1, 0, RelKind::DestroyAfter)];
    let o = order(&Input { relations: &rels, in_set: &[true; 2], rank: &[0, 1], allow_cycles: false }).unwrap();
    assert_eq!((o.step[1], o.step[0]), (1, 2));
    assert!(o.groups.is_empty() && o.relaxed.is_empty());
    assert_eq!(o.destruction_cycles, [vec![ObjId(0), ObjId(1)]]);
    // A third member C that nothing orders: B and C in one group, A after.
    let mut rels = rels;
    rels.extend([rel(2, 0, RelKind::DestroyAfter), rel(0, 2, RelKind::DestroyAfter)]);
    let o = order(&Input { relations: &rels, in_set: &[true; 3], rank: &[0, 1, 2], allow_cycles: false }).unwrap();
    assert_eq!((o.step[1], o.step[2], o.step[0]), (1, 1, 2));
    assert_eq!(o.groups.len(), 1);
    assert_eq!(o.groups[0].members, [ObjId(1), ObjId(2)]);
}

#[test]
fn a_split_cycle_never_puts_a_finalizer_controller_below_its_object() {
    // web(0) owns db(1); db depends on web (web after db) and controls
    // web's finalizer (db after web). Owned first would put db before web,
    // which then hangs: nothing orders them, one group.
    let rels = vec![rel(0, 1, RelKind::Owns), rel(0, 1, RelKind::DestroyAfter), rel(1, 0, RelKind::Finalizer)];
    let o = order(&Input { relations: &rels, in_set: &[true; 2], rank: &[0, 1], allow_cycles: false }).unwrap();
    assert_eq!((o.step[0], o.step[1]), (1, 1));
    assert_eq!(o.groups.len(), 1);
    assert_eq!(o.groups[0].members, [ObjId(0), ObjId(1)]);
    assert!(o.relaxed.is_empty());
    // A controller the levels put above its object: the split stands.
    let rels = vec![rel(0, 1, RelKind::Owns), rel(0, 1, RelKind::Finalizer), rel(1, 0, RelKind::DestroyAfter)];
    let o = order(&Input { relations: &rels, in_set: &[true; 2], rank: &[0, 1], allow_cycles: false }).unwrap();
    assert_eq!((o.step[1], o.step[0]), (1, 2));
    assert!(o.groups.is_empty());
    // Three levels, A(0) owns B(1) owns C(2), in one cycle (A after C, B
    // after A, C after B): C controls B's finalizer. Only the levels from
    // C's to B's join: B and C in step 1, A in step 2 (not C, B, A).
    let rels = vec![
        rel(0, 1, RelKind::Owns),
        rel(1, 2, RelKind::Owns),
        rel(0, 2, RelKind::DestroyAfter),
        rel(1, 0, RelKind::DestroyAfter),
        rel(2, 1, RelKind::Finalizer),
    ];
    let o = order(&Input { relations: &rels, in_set: &[true; 3], rank: &[0, 1, 2], allow_cycles: false }).unwrap();
    assert_eq!((o.step[2], o.step[1], o.step[0]), (1, 1, 2));
    assert_eq!(o.groups.len(), 1);
    assert_eq!(o.groups[0].members, [ObjId(1), ObjId(2)]);
}

#[test]
fn transitivity_passes_outside_objects_of_one_kind_only() {
    // 0 owns 1 owns 2, with 1 outside the set: 0 still goes after 2.
    let rels = vec![rel(0, 1, RelKind::Owns), rel(1, 2, RelKind::Owns)];
    let o = order(&Input { relations: &rels, in_set: &[true, false, true], rank: &[0, 1, 2], allow_cycles: false })
        .unwrap();
    assert_eq!((o.step[0], o.step[2], o.steps), (2, 1, 2));
    // 0 owns 1, 1 goes after 2 (destruction): a mixed chain through an
    // outside object constrains nothing.
    let rels = vec![rel(0, 1, RelKind::Owns), rel(1, 2, RelKind::DestroyAfter)];
    let o = order(&Input { relations: &rels, in_set: &[true, false, true], rank: &[0, 1, 2], allow_cycles: false })
        .unwrap();
    assert_eq!((o.step[0], o.step[2], o.steps), (1, 1, 1));
}

/// A namespace's barrier (pods-first-in-namespace: `PodFirst` from the
/// Namespace to each Pod, `AfterPods` from each other object to the
/// Namespace) orders as the P × R pairwise rule edges it stands for, with
/// P + R edges: the same steps whenever nothing is relaxed, and otherwise
/// every object whose own edge is kept still goes after every Pod. The
/// Namespace is object 0; objects 1.. are Pods or not at random, in the set
/// or not; owner references and destruction dependencies at random.
/// (object count, edges (from, to, destruction?), in the set, a Pod).
type Namespaced = (usize, Vec<(usize, usize, bool)>, Vec<bool>, Vec<bool>);

fn namespaces() -> impl Strategy<Value = Namespaced> {
    (2usize..12).prop_flat_map(|n| {
        (
            Just(n),
            proptest::collection::vec((1..n, 1..n, any::<bool>()), 0..(2 * n)),
            proptest::collection::vec(proptest::bool::weighted(0.85), n),
            proptest::collection::vec(proptest::bool::weighted(0.4), n),
        )
    })
}

proptest! {
    #![proptest_config(crate::props_gen::config(3000))]

    #[test]
    fn a_namespace_barrier_orders_as_the_pairwise_edges((n, edges, mut in_set, pod) in namespaces()) {
        use teardown::model::RuleEdge;
        in_set[0] = true;
        let base: Vec<Relation> = relations(&edges);
        let (set, pods) = (&in_set, &pod);
        let members = |p: bool| (1..n).filter(move |&i| set[i] && pods[i] == p);
        let mut barrier = base.clone();
        let mut pairs = base.clone();
        // Object 0 holds everything (the namespace's Contains edges).
        for i in 1..n {
            barrier.push(rel(0, i, RelKind::Contains));
            pairs.push(rel(0, i, RelKind::Contains));
        }
        if members(true).next().is_some() {
            barrier.extend(members(true).map(|p| rel(0, p, RelKind::Rule(RuleEdge::PodFirst))));
            barrier.extend(members(false).map(|x| rel(x, 0, RelKind::Rule(RuleEdge::AfterPods))));
            for x in members(false) {
                pairs.extend(members(true).map(|p| rel(x, p, RelKind::Rule(RuleEdge::RunsAs))));
            }
        }
        let rank: Vec<u32> = (0..n as u32).collect();
        let input = |rels| Input { relations: rels, in_set: &in_set, rank: &rank, allow_cycles: true };
        let (Ok(b), Ok(p)) = (order(&input(&barrier)), order(&input(&pairs))) else {
            return Ok(());
        };
        // A Pod's edge from the barrier is never what gives way.
        for &r in &b.relaxed {
            prop_assert_ne!(barrier[r as usize].kind, RelKind::Rule(RuleEdge::PodFirst));
        }
        let relaxed_rule = |o: &teardown::analysis::order::Order, rels: &[Relation]| {
            o.relaxed.iter().any(|&r| rels[r as usize].kind.rule().is_some())
        };
        if !relaxed_rule(&b, &barrier) && !relaxed_rule(&p, &pairs) && b.groups.is_empty() && p.groups.is_empty() {
            prop_assert_eq!(&b.step, &p.step);
        }
        // Whatever was relaxed: an object whose edge to the barrier stands
        // goes after every Pod (outside a group planned together).
        let kept_barrier = |x: usize| {
            barrier.iter().enumerate().any(|(i, r)| {
                r.kind == RelKind::Rule(RuleEdge::AfterPods) && r.from.index() == x && !b.relaxed.contains(&(i as u32))
            })
        };
        let grouped = |x: usize, y: usize| {
            b.groups.iter().any(|g| g.members.contains(&ObjId(x as u32)) && g.members.contains(&ObjId(y as u32)))
        };
        for x in members(false).filter(|&x| kept_barrier(x)) {
            for q in members(true).filter(|&q| !grouped(x, q)) {
                prop_assert!(b.step[x] > b.step[q], "{} after Pod {}: steps {} and {}", x, q, b.step[x], b.step[q]);
            }
            // The order says which Pod it goes right after, when that decided.
            if let Some(r) = b.after[x] {
                if barrier[r as usize].kind == RelKind::Rule(RuleEdge::PodFirst) {
                    let q = barrier[r as usize].to.index();
                    prop_assert_eq!(b.step[q] + 1, b.step[x]);
                }
            }
        }
    }
}

/// Another tool's group order (every object of `late` after every object
/// of `early`) drawn through a hub gives the steps the pairwise edges give,
/// and relaxes the same ownership edges (analysis::tools draws hubs so
/// that two waves of ten thousand objects are not a hundred million edges).
fn hubbed() -> impl Strategy<Value = (usize, Vec<usize>, Vec<(usize, usize, bool)>)> {
    (4usize..12).prop_flat_map(|n| {
        (
            Just(n),
            // Each object: 0 late, 1 early, 2 neither.
            proptest::collection::vec(0usize..3, n),
            proptest::collection::vec((0..n, 0..n, any::<bool>()), 0..(2 * n)),
        )
    })
}

proptest! {
    #![proptest_config(crate::props_gen::config(2000))]

    #[test]
    fn a_hub_orders_like_every_pair((n, side, edges) in hubbed()) {
        use teardown::model::{HubEnd, ToolEdge, ToolOrder};
        let tool = |hub| RelKind::Tool(ToolEdge { order: ToolOrder::SyncWave, hub });
        let late: Vec<usize> = (0..n).filter(|&i| side[i] == 0).collect();
        let early: Vec<usize> = (0..n).filter(|&i| side[i] == 1).collect();
        prop_assume!(!late.is_empty() && !early.is_empty());
        let base: Vec<Relation> = relations(&edges);
        let mut pairs = base.clone();
        for &l in &late {
            for &e in &early {
                pairs.push(rel(l, e, tool(HubEnd::None)));
            }
        }
        let mut hub = base.clone();
        for &l in &late {
            hub.push(Relation { decl: 0, ..rel(l, early[0], tool(HubEnd::To)) });
        }
        for &e in &early {
            hub.push(Relation { decl: 0, ..rel(late[0], e, tool(HubEnd::From)) });
        }
        let in_set = vec![true; n];
        let rank: Vec<u32> = (0..n as u32).collect();
        let a = order(&Input { relations: &pairs, in_set: &in_set, rank: &rank, allow_cycles: true }).unwrap();
        let b = order(&Input { relations: &hub, in_set: &in_set, rank: &rank, allow_cycles: true }).unwrap();
        prop_assert_eq!(&a.step, &b.step);
        // Relaxed: the same ownership edges (the base relations come first in both).
        let owned = |o: &teardown::analysis::order::Order| -> Vec<u32> {
            o.relaxed.iter().copied().filter(|&r| (r as usize) < base.len()).collect()
        };
        prop_assert_eq!(owned(&a), owned(&b));
        // Each object's step is decided by an edge to an object one step
        // before it (through the hub, the object behind it).
        for (i, after) in b.after.iter().enumerate() {
            if let Some(r) = after {
                let to = hub[*r as usize].to.index();
                prop_assert!(b.step[to] < b.step[i], "{} after {} at step {}", i, to, b.step[to]);
            }
        }
    }
}
