//! `--prune NEW`: which objects of the input NEW declares, and NEW's
//! objects whose namespace only `kubectl apply` would decide.

use crate::model::intern::intern;
use crate::model::kube::builtin_namespaced;
use crate::model::{ObjId, Object, Str};
use rustc_hash::FxHashMap;

/// `--prune`: the objects of `old` that `new` does not declare (by kind,
/// namespace and name for Kubernetes, by id otherwise), in input order —
/// the targets — and for each object of `old` whether `new` declares it.
/// Murano objects already destroyed are left out.
pub fn absent_from(old: &[Object], new: &[Object]) -> (Vec<ObjId>, Vec<bool>) {
    let key = |o: &Object| (o.has_coordinates(), o.reference());
    let present: std::collections::HashSet<(bool, String)> = new.iter().map(key).collect();
    let declared: Vec<bool> = old.iter().map(|o| present.contains(&key(o))).collect();
    let absent = old
        .iter()
        .zip(&declared)
        .enumerate()
        .filter(|&(_, (o, &declared))| !o.member.as_deref().is_some_and(|m| m.destroyed) && !declared)
        .map(|(i, _)| ObjId(i as u32))
        .collect();
    (absent, declared)
}

/// An object of NEW whose place teardown cannot know or NEW contradicts
/// (said in words by `render::prose::misplaced`): the first, and how many
/// more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Misplaced {
    /// Of NEW's objects.
    pub object: ObjId,
    pub why: Why,
    pub more: usize,
}

/// What is wrong with where NEW puts an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Written without a namespace, its kind namespaced (`Some(true)`) or
    /// of a scope nothing says (`None`).
    Unplaced(Option<bool>),
    /// Written in another namespace than `-n`'s.
    Elsewhere,
}

/// Place NEW's objects as `kubectl apply` would, or refuse.
///
/// A Kubernetes object of NEW written without `metadata.namespace` whose
/// kind is namespaced (built in, or defined so by a CRD of NEW or of the
/// input `old`) or of a scope nothing in the inputs says (it may be
/// namespaced) is put by `kubectl apply` in the namespace of its `-n` or
/// of the kubeconfig context. Without `namespace` (`plan -n`) teardown
/// cannot know which: read as in `default`, NEW would declare none of the
/// input's objects of another namespace, and they would all be pruned; so
/// it is refused. With `namespace`, a namespaced one is put in it, as
/// `kubectl apply -n` does; one of unknown scope is still refused (kubectl
/// would place it only if it is namespaced), and so is an object written
/// in another namespace (kubectl refuses it).
pub fn placed(new: &mut [Object], old: &[Object], namespace: Option<&str>) -> Result<(), Misplaced> {
    let mut crds: FxHashMap<(Str, Str), bool> = FxHashMap::default();
    for crd in new.iter().chain(old).filter_map(|o| o.crd.as_deref()) {
        crds.entry((crd.group.clone(), crd.kind.clone())).or_insert(crd.namespaced);
    }
    // `None`: nothing says (a kind neither built in nor defined by a CRD).
    let namespaced = |o: &Object| {
        builtin_namespaced(&o.group, &o.kind).or_else(|| crds.get(&(o.group.clone(), o.kind.clone())).copied())
    };
    let misplaced = |o: &Object| -> Option<Why> {
        if !o.is_kubernetes() {
            return None;
        }
        if o.namespace_written {
            // (A cluster-scoped object has lost the namespace written.)
            let elsewhere = o.namespace.as_deref().zip(namespace).is_some_and(|(written, given)| written != given);
            return elsewhere.then_some(Why::Elsewhere);
        }
        match namespaced(o) {
            Some(false) => None,
            Some(true) if namespace.is_some() => None,
            known => Some(Why::Unplaced(known)),
        }
    };
    let mut found = new.iter().enumerate().filter_map(|(i, o)| Some((ObjId(i as u32), misplaced(o)?)));
    if let Some((object, why)) = found.next() {
        return Err(Misplaced { object, why, more: found.count() });
    }
    if let Some(ns) = namespace {
        let ns = intern(ns);
        for o in new.iter_mut() {
            if o.is_kubernetes() && !o.namespace_written && namespaced(o) == Some(true) {
                o.namespace = Some(ns.clone());
            }
        }
    }
    Ok(())
}
