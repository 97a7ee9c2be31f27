//! Property tests of whole plans (CONTRACT §5) over random Kubernetes
//! snapshots: objects in namespaces with owner references (some to the
//! right uid, some to another, some to objects that are not there), some
//! being deleted, some documents written twice. For every plan:
//! no object at two steps; under `--multi-owner all`, nothing deleted
//! through ownership while a live solid owner stays; nothing pruned that
//! NEW declares; no protected namespace deleted.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use proptest::prelude::*;
use std::fmt::Write;
use std::path::PathBuf;
use teardown::analysis::cascade::{CascadeMode, Cause, MultiOwner};
use teardown::load::{load, LoadOptions};
use teardown::model::{Link, ObjId, RelKind};
use teardown::plan::{self, Mode, Options};

#[derive(Clone, Debug)]
struct Obj {
    ns: usize,
    /// (owner index, right uid?)
    owners: Vec<(usize, bool)>,
    deleting: bool,
    twice: bool,
    /// `helm.sh/resource-policy: keep`.
    keep: bool,
}

const NAMESPACES: [&str; 3] = ["default", "a", "b"];

fn snapshot() -> impl Strategy<Value = (Vec<Obj>, Vec<bool>, Vec<bool>, Vec<bool>)> {
    (1usize..10).prop_flat_map(|n| {
        let obj = (
            0..NAMESPACES.len(),
            proptest::collection::vec((0..n + 2, proptest::bool::weighted(0.8)), 0..3),
            proptest::bool::weighted(0.1),
            proptest::bool::weighted(0.1),
            proptest::bool::weighted(0.3),
        )
            .prop_map(|(ns, owners, deleting, twice, keep)| Obj { ns, owners, deleting, twice, keep });
        (
            proptest::collection::vec(obj, n),
            proptest::collection::vec(any::<bool>(), NAMESPACES.len()), // Namespace objects present
            proptest::collection::vec(proptest::bool::weighted(0.3), n), // targets
            proptest::collection::vec(proptest::bool::weighted(0.5), n), // in NEW
        )
    })
}

/// The snapshot as YAML: Namespaces first, then ConfigMaps o0… (an owner
/// index past the end names an object that is not there).
fn yaml(objs: &[Obj], namespaces: &[bool], keep: impl Fn(usize) -> bool) -> String {
    let mut out = String::new();
    for (i, ns) in NAMESPACES.iter().enumerate() {
        if namespaces[i] {
            let _ = write!(out, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n  uid: ns-{ns}\n");
        }
    }
    for (i, o) in objs.iter().enumerate().filter(|(i, _)| keep(*i)) {
        let mut doc = format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o{i}\n  namespace: {}\n  uid: u{i}\n",
            NAMESPACES[o.ns]
        );
        if o.deleting {
            doc.push_str("  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n");
        }
        if o.keep {
            doc.push_str("  annotations: {helm.sh/resource-policy: keep}\n");
        }
        if !o.owners.is_empty() {
            doc.push_str("  ownerReferences:\n");
            for &(j, right) in &o.owners {
                let uid = if right { format!("u{j}") } else { format!("other-{j}") };
                let _ = writeln!(doc, "  - {{apiVersion: v1, kind: ConfigMap, name: o{j}, uid: {uid}}}");
            }
        }
        out.push_str(&doc);
        if o.twice {
            out.push_str(&doc); // the same object again: one object
        }
    }
    out
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

proptest! {
    #![proptest_config(crate::props_gen::config(300))]

    #[test]
    fn plans_keep_their_promises((objs, namespaces, targets, in_new) in snapshot()) {
        let dir = tempfile::tempdir().unwrap();
        let input = write(&dir, "old.yaml", &yaml(&objs, &namespaces, |_| true));
        let snapshot = load(&[input], &LoadOptions::default(), &mut std::io::empty());
        prop_assert!(snapshot.findings.iter().all(|f| f.rule.id() != "TD001"), "{:?}", snapshot.findings);
        prop_assert!(snapshot.resolved.duplicates.is_empty(), "a document written twice is one object");
        let by_name = |name: &str| snapshot.objects.iter().position(|o| &*o.name == name).map(|i| ObjId(i as u32));
        let target_ids: Vec<ObjId> =
            (0..objs.len()).filter(|&i| targets[i]).filter_map(|i| by_name(&format!("o{i}"))).collect();
        let new = write(&dir, "new.yaml", &yaml(&objs, &namespaces, |i| in_new[i]));
        let new = load(&[new], &LoadOptions::default(), &mut std::io::empty());
        let (absent, declared) = plan::absent_from(&snapshot.objects, &new.objects);

        for mode in [Mode::Delete(target_ids.clone()), Mode::All, Mode::Gc, Mode::Prune(absent.clone())] {
            let prune = matches!(mode, Mode::Prune(_));
            let options = Options {
                mode: mode.clone(),
                cascade: CascadeMode::Background,
                multi_owner: Some(MultiOwner::All),
                allow_cycles: true,
                finalizer_controllers: Vec::new(),
                root: None,
                closed_world: false,
                declared_in_new: if prune { declared.clone() } else { Vec::new() },
                detail: plan::Detail::ALL,
                default_rules: teardown::model::DefaultRule::ALL.to_vec(),
                named: Vec::new(),
            };
            let p = match plan::build(&snapshot, &options) {
                Ok(p) => p,
                Err(e) => return Err(TestCaseError::fail(format!("{mode:?}: {e}"))),
            };
            // No object at two steps.
            let mut seen = vec![false; snapshot.objects.len()];
            for id in p.steps.iter().flatten() {
                prop_assert!(!seen[id.index()], "{} at two steps", p.refs.name(*id));
                seen[id.index()] = true;
            }
            for (i, o) in snapshot.objects.iter().enumerate() {
                let deleted = p.cascade.cause[i].is_some();
                prop_assert_eq!(deleted, seen[i], "{} in the set but at no step", p.refs.get(i).unwrap_or_default());
                // Protected namespaces are never deleted.
                if &*o.kind == "Namespace" && &*o.name == "default" {
                    prop_assert!(!deleted, "{} deleted", p.refs.get(i).unwrap_or_default());
                }
                // Nothing pruned that NEW declares.
                if prune && declared[i] {
                    prop_assert!(!deleted, "{} pruned, but NEW declares it", p.refs.get(i).unwrap_or_default());
                }
                // A keep annotation keeps what is selected (nothing here is
                // named); only what deletes it anyway — its Namespace, its
                // last owner, the collector — takes it, with a warning.
                let annotated = o.tools().is_some_and(|t| t.helm_keep);
                if annotated && deleted {
                    prop_assert!(
                        !matches!(p.cascade.cause[i], Some(Cause::Target)),
                        "{} kept by its annotation, but deleted as a target", p.refs.get(i).unwrap_or_default()
                    );
                    let warned = p.warnings.iter().any(|w| matches!(w, plan::Warning::KeepIgnored { object, .. } if object.index() == i));
                    prop_assert!(warned, "{} deleted despite its annotation, without a warning", p.refs.get(i).unwrap_or_default());
                }
                // Never kept what its deleted Namespace takes.
                let ns_deleted = p.relations.iter().any(|r| r.kind == RelKind::Contains && r.to.index() == i && p.cascade.cause[r.from.index()].is_some());
                if ns_deleted && mode != Mode::Gc {
                    prop_assert!(deleted, "{} kept, but its Namespace is deleted", p.refs.get(i).unwrap_or_default());
                }
                // Taken by ownership only when no live solid owner stays.
                if let Some(Cause::Relation(r)) = p.cascade.cause[i] {
                    if p.relations[r as usize].kind == RelKind::Owns {
                        for rel in p.relations.iter().filter(|r| r.kind == RelKind::Owns && r.to.index() == i) {
                            let owner = &snapshot.objects[rel.from.index()];
                            if rel.link == Link::Solid && owner.deletion_timestamp.is_none() {
                                prop_assert!(
                                    p.cascade.cause[rel.from.index()].is_some(),
                                    "{} deleted while its solid owner {} stays", p.refs.get(i).unwrap_or_default(), p.refs.name(rel.from)
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
