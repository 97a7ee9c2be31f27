//! `--prune NEW`: which objects of the input NEW declares, and NEW's
//! objects whose namespace only `kubectl apply` would decide.

use super::refused::Refused;
use crate::model::kube::builtin_namespaced;
use crate::model::snapshot::Snapshot;
use crate::model::{anchor, ObjId, Object};
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

/// Refuse (exit 2) a NEW that holds a Kubernetes object written without
/// `metadata.namespace` whose kind is namespaced (built in, or defined so
/// by a CRD of NEW or of the input `old`) or of a scope nothing in the
/// inputs says (it may be namespaced). `kubectl apply` puts such an object
/// in the namespace of its `-n` or of the kubeconfig context, which
/// teardown cannot know: read as in `default`, NEW would declare none of
/// the input's objects of another namespace, and they would all be
/// pruned. The error names the first such object and where it is written.
pub fn placed(new: &Snapshot, old: &[Object]) -> Result<(), Refused> {
    let mut crds: FxHashMap<(&str, &str), bool> = FxHashMap::default();
    for crd in new.objects.iter().chain(old).filter_map(|o| o.crd.as_deref()) {
        crds.entry((&crd.group, &crd.kind)).or_insert(crd.namespaced);
    }
    // `None`: nothing says (a kind neither built in nor defined by a CRD).
    let namespaced =
        |o: &Object| builtin_namespaced(&o.group, &o.kind).or_else(|| crds.get(&(&*o.group, &*o.kind)).copied());
    let mut unplaced =
        new.objects.iter().filter(|o| o.is_kubernetes() && !o.namespace_written).map(|o| (o, namespaced(o)));
    let Some((o, known)) = unplaced.find(|&(_, n)| n != Some(false)) else { return Ok(()) };
    let more = unplaced.filter(|&(_, n)| n != Some(false)).count();
    let file = new.sources.get(o.span.file);
    let line = file.line_index(anchor::object(&new.sources, o).start) + 1;
    let group = if o.group.is_empty() { String::new() } else { format!(".{}", o.group) };
    let what = format!("{}{group}/{} ({}:{line})", o.kind, o.name, file.name);
    let (scope, crd) = match known {
        Some(_) => ("its kind is namespaced", ""),
        None => (
            "its kind is neither built in nor defined by a CRD in INPUT or NEW, so it may be namespaced",
            ", or add the CRD of its kind to INPUT or NEW",
        ),
    };
    let more = match more {
        0 => String::new(),
        1 => String::from(" (1 more object of NEW lacks one too)"),
        n => format!(" ({n} more objects of NEW lack one too)"),
    };
    Err(Refused::Usage(format!(
        "no plan: {what} in --prune NEW has no metadata.namespace, and {scope}{more}: `kubectl apply` puts a \
         namespaced object without one in the namespace of its -n or of the kubeconfig context, which teardown \
         cannot know, nor therefore which objects of INPUT NEW declares; set metadata.namespace in NEW (kustomize: \
         `namespace:` in kustomization.yaml){crd}"
    )))
}
