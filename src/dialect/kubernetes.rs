//! The `kubernetes` dialect: `apiVersion` + `kind` + `metadata`, as printed by
//! `kubectl get -o yaml|json`, and manifests as written by hand.

use super::raw::{RawObject, DEPENDS_ON};
use crate::findings::{Finding, Rule};
use crate::input::locate;
use crate::input::Span;
use crate::model::intern::intern;
use crate::model::kube::group_of;
use crate::model::{CrdDef, DepDecl, DepSide, DepTarget, Dialect, Object, OwnerRef, Str};

/// What a `List` tells its items: typed lists (`PodList`) may leave out the
/// items' own `kind` and `apiVersion`.
#[derive(Clone, Copy, Default)]
pub struct ListContext<'a> {
    /// The object is an item of a list.
    pub in_list: bool,
    pub api_version: Option<&'a str>,
    /// The item kind implied by the list kind (`PodList` → `Pod`).
    pub item_kind: Option<&'a str>,
}

impl<'a> ListContext<'a> {
    pub fn new(api_version: Option<&'a str>, list_kind: Option<&'a str>) -> ListContext<'a> {
        let item_kind = list_kind.and_then(|k| k.strip_suffix("List")).filter(|k| !k.is_empty());
        ListContext { in_list: true, api_version, item_kind }
    }
}

/// Turn one parsed object into a model object. Problems are reported as TD001
/// findings; an object without a kind or a name is dropped (it cannot be
/// identified), any other problem keeps the object.
pub fn convert(raw: RawObject, span: Span, text: &str, list: ListContext, out: &mut Vec<Finding>) -> Option<Object> {
    let head = Span::new(span.file, locate::head(text, span.range()));
    let kind: Str = match (raw.kind, list.item_kind) {
        (Some(k), _) if !k.0.is_empty() => k.0,
        (_, Some(k)) => k.into(),
        _ => {
            let help = if list.in_list {
                "the list has no kind either, so the items' kind cannot be implied; \
                 a typed list needs `kind: <Kind>List`"
            } else {
                "every object needs `apiVersion`, `kind` and `metadata.name`"
            };
            out.push(Finding::new(Rule::Td001, "object has no `kind`").at(head, "this object").help(help));
            return None;
        }
    };
    let api_version: Str = match (raw.api_version, list.api_version) {
        (Some(v), _) if !v.0.is_empty() => v.0,
        (_, Some(v)) => v.into(),
        _ => {
            out.push(
                Finding::new(Rule::Td001, format!("{kind} has no `apiVersion`"))
                    .at(head, "this object")
                    .help("every object needs `apiVersion`, `kind` and `metadata.name`"),
            );
            "".into()
        }
    };
    let meta = raw.metadata.unwrap_or_default();
    let name: Str = match meta.name {
        Some(n) if !n.0.is_empty() => n.0,
        _ => {
            let help = if meta.generate_name.is_some() {
                "`generateName` objects get their name from the API server; a snapshot needs the name"
            } else {
                "every object needs `apiVersion`, `kind` and `metadata.name`"
            };
            out.push(
                Finding::new(Rule::Td001, format!("{kind} has no `metadata.name`")).at(head, "this object").help(help),
            );
            return None;
        }
    };
    let group = group_of(&api_version, &kind);
    let kind = intern(&kind);
    let namespace: Option<Str> = meta.namespace.map(|n| n.0).filter(|n| !n.is_empty()).map(|n| intern(&n));
    // For messages only: made when one is needed.
    let reference = || format!("{kind}/{name}");

    let mut owners = Vec::new();
    for (i, r) in meta.owner_references.unwrap_or_default().into_iter().enumerate() {
        let at = |needle: Option<&str>| -> Span {
            let found = needle.and_then(|n| locate::value_after(text, span.range(), &["ownerReferences"], n));
            let range =
                found.or_else(|| locate::key_after(text, span.range(), "ownerReferences")).unwrap_or(head.range());
            Span::new(span.file, range)
        };
        let nonempty = |s: Option<super::raw::Scalar>| s.filter(|s| !s.0.is_empty());
        let (Some(okind), Some(oname)) = (nonempty(r.kind), nonempty(r.name)) else {
            out.push(
                Finding::new(
                    Rule::Td001,
                    format!("owner reference #{} of {} has no `kind` or no `name`", i + 1, reference()),
                )
                .at(at(r.uid.as_ref().map(|u| &*u.0)), "this owner reference")
                .refs([reference()]),
            );
            continue;
        };
        let uid = r.uid.map(|u| u.0).filter(|u| !u.is_empty());
        if uid.is_none() {
            out.push(
                Finding::new(
                    Rule::Td001,
                    format!(
                        "owner reference #{} of {} ({}/{}) has no `uid`",
                        i + 1,
                        reference(),
                        okind.0,
                        oname.0
                    ),
                )
                .at(at(Some(&oname.0)), "no uid here")
                .refs([reference()])
                .help("the API server rejects owner references without a uid; teardown resolves this one by kind and name"),
            );
        }
        owners.push(OwnerRef {
            group: group_of(r.api_version.as_ref().map(|v| &*v.0).unwrap_or(""), &okind.0),
            kind: intern(&okind.0),
            name: oname.0,
            uid,
            controller: r.controller.unwrap_or(false),
            block_owner_deletion: r.block_owner_deletion.unwrap_or(false),
        });
    }

    let mut deps = Vec::new();
    let annotations = meta.annotations.unwrap_or_default();
    if let Some(value) = annotations.get(DEPENDS_ON) {
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match parse_depends_on(item) {
                Some(target) => deps.push(DepDecl { target, side: DepSide::Before, text: item.into() }),
                None => {
                    let range = locate::scalar_after(text, span.range(), item)
                        .or_else(|| locate::key_after(text, span.range(), DEPENDS_ON))
                        .unwrap_or(head.range());
                    out.push(
                        Finding::new(
                            Rule::Td001,
                            format!("{}: `{item}` is not a depends-on reference", reference()),
                        )
                        .at(Span::new(span.file, range), "not GROUP/KIND/NAME or GROUP/namespaces/NAMESPACE/KIND/NAME")
                        .refs([reference()])
                        .help("write `group/kind/name` for cluster-scoped objects and `group/namespaces/namespace/kind/name` for namespaced ones (the core group is empty: `/namespaces/default/Secret/db`)"),
                    );
                }
            }
        }
    }

    let crd = if &*kind == "CustomResourceDefinition" && &*group == "apiextensions.k8s.io" {
        match (raw.spec.group, raw.spec.names_kind) {
            (Some(g), Some(k)) => {
                Some(Box::new(CrdDef { group: g, kind: k, namespaced: raw.spec.scope.as_deref() != Some("Cluster") }))
            }
            _ => None,
        }
    } else {
        None
    };

    Some(Object {
        dialect: Dialect::Kubernetes,
        group,
        kind,
        namespace_written: namespace.is_some(),
        namespace,
        name,
        uid: meta.uid.map(|u| u.0).filter(|u| !u.is_empty()),
        labels: meta
            .labels
            .map(|l| l.0)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (intern(&k), intern(&v)))
            .collect(),
        owners: owners.into(),
        deps: deps.into(),
        finalizers: meta.finalizers.unwrap_or_default().into_iter().map(|f| intern(&f.0)).collect(),
        deletion_timestamp: meta.deletion_timestamp.map(|d| d.0).filter(|d| !d.is_empty()),
        crd,
        murano: None,
        span,
    })
}

/// A cli-utils object reference: `group/kind/name` (cluster-scoped) or
/// `group/namespaces/namespace/kind/name` (namespaced). The core group is empty.
pub fn parse_depends_on(s: &str) -> Option<DepTarget> {
    let parts: Vec<&str> = s.split('/').collect();
    let ok = |p: &str| !p.is_empty();
    match parts.as_slice() {
        [group, "namespaces", ns, kind, name] if ok(ns) && ok(kind) && ok(name) => Some(DepTarget::Object {
            group: (*group).into(),
            kind: (*kind).into(),
            namespace: Some((*ns).into()),
            name: (*name).into(),
        }),
        [group, kind, name] if ok(kind) && ok(name) => Some(DepTarget::Object {
            group: (*group).into(),
            kind: (*kind).into(),
            namespace: None,
            name: (*name).into(),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_on_references() {
        assert_eq!(
            parse_depends_on("apps/namespaces/default/StatefulSet/db"),
            Some(DepTarget::Object {
                group: "apps".into(),
                kind: "StatefulSet".into(),
                namespace: Some("default".into()),
                name: "db".into()
            })
        );
        assert_eq!(
            parse_depends_on("/namespaces/default/Secret/s"),
            Some(DepTarget::Object {
                group: "".into(),
                kind: "Secret".into(),
                namespace: Some("default".into()),
                name: "s".into()
            })
        );
        assert_eq!(
            parse_depends_on("rbac.authorization.k8s.io/ClusterRole/r"),
            Some(DepTarget::Object {
                group: "rbac.authorization.k8s.io".into(),
                kind: "ClusterRole".into(),
                namespace: None,
                name: "r".into()
            })
        );
        assert_eq!(parse_depends_on("Secret/s"), None);
        assert_eq!(parse_depends_on("a/namespaces//Secret/s"), None);
    }
}
