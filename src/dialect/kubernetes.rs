//! The `kubernetes` dialect: `apiVersion` + `kind` + `metadata`, as printed by
//! `kubectl get -o yaml|json`, and manifests as written by hand; `List`s
//! (typed lists like `PodList` may leave out their items' `kind`) and
//! arrays of objects.
//!
//! Its wire structs name the fields teardown reads — and nothing else:
//! everything else (spec, status, managedFields…) is skipped by the parser
//! without being built. Scalars are lenient (a number where a string is
//! expected becomes its text) and `spec` is read leniently (a field of an
//! unexpected type is ignored), because custom resources put anything in
//! their spec.

use super::fields::{Key, LenientStr, Scalar, StrMap};
use super::{List, Out};
use crate::findings::{Finding, Rule};
use crate::input::outline::Value;
use crate::input::{locate, Outline, Shape, Span, Unit};
use crate::model::intern::intern;
use crate::model::kube::group_of;
use crate::model::{CrdDef, DepDecl, DepKind, DepTarget, Fields, Identity, Object, Origin, OwnerRef, Str};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::fmt;

pub struct Kubernetes;

pub static ORIGIN: Origin = Origin {
    dialect: "kubernetes",
    identity: Identity::Coordinates,
    fields: Fields {
        name: &["metadata", "name"],
        owners: "ownerReferences",
        dependency: DEPENDS_ON,
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "kind",
    },
};

impl super::Dialect for Kubernetes {
    fn name(&self) -> &'static str {
        "kubernetes"
    }

    fn about(&self) -> &'static str {
        "objects with `apiVersion`, `kind` and `metadata`, `List`s of them, arrays of them"
    }

    /// Any mapping no narrower dialect took (a mapping without a `kind` is
    /// still read, to say what it lacks), and arrays of objects.
    fn recognise(&self, unit: &Unit, outline: &Outline) -> Option<bool> {
        Some(match outline.shape {
            Shape::Map => true,
            Shape::Seq => unit.list.is_none(),
            Shape::Scalar | Shape::Null => false,
        })
    }

    /// A `List` (`items:`; a `…List` kind with `items: null` or none is
    /// empty, unless it is a named object), or an array of objects.
    fn list(&self, doc: &Unit) -> Option<List> {
        let o = doc.outline();
        let is_list = match o.shape {
            Shape::Seq => return Some(List { member: None, own_items: false }),
            Shape::Map => match o.get("kind") {
                Some(Value::Str(kind)) if kind.ends_with("List") => o.listy("items") || !named(doc),
                Some(Value::Str(_)) => false,
                _ => o.listy("items"),
            },
            _ => false,
        };
        is_list.then_some(List { member: Some("items"), own_items: false })
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        let raw: RawObject = match super::parse_object(unit) {
            Ok(raw) => raw,
            Err(finding) => return out.findings.push(finding),
        };
        let list = match unit.list {
            Some(l) => ListContext::new(l.outline.str("apiVersion"), l.outline.str("kind")),
            None => ListContext::default(),
        };
        out.objects.extend(convert(raw, unit.span(), unit.source_text(), list, &mut out.findings));
    }
}

/// Whether a document has a non-empty `metadata.name` (a named object
/// whose kind ends in `List` is an object, not a list).
fn named(doc: &Unit) -> bool {
    doc.child("metadata").is_some_and(|m| m.str("name").is_some_and(|n| !n.is_empty()))
}

/// The annotations teardown reads; all others are skipped.
pub const KEPT_ANNOTATIONS: [&str; 1] = [DEPENDS_ON];
pub const DEPENDS_ON: &str = "config.kubernetes.io/depends-on";

#[derive(Clone, Debug, Default)]
pub struct KeptAnnotations(pub Vec<(Str, Str)>);

impl KeptAnnotations {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }
}

impl<'de> Deserialize<'de> for KeptAnnotations {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeptAnnotations, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeptAnnotations;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeptAnnotations, E> {
                Ok(KeptAnnotations::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeptAnnotations, A::Error> {
                let mut out = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    if KEPT_ANNOTATIONS.contains(&&*k) {
                        let v = map.next_value::<Option<Scalar>>()?;
                        out.push((k.into_owned().into(), v.map(|v| v.0).unwrap_or_default()));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(KeptAnnotations(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// The parts of `spec` teardown reads. A CustomResourceDefinition's
/// `group`, `scope` and `names.kind`.
#[derive(Clone, Debug, Default)]
pub struct LenientSpec {
    pub group: Option<Str>,
    pub scope: Option<Str>,
    pub names_kind: Option<Str>,
}

impl<'de> Deserialize<'de> for LenientSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientSpec, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientSpec, E> {
                Ok(LenientSpec::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientSpec, A::Error> {
                let mut spec = LenientSpec::default();
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    match &*k {
                        "group" => spec.group = map.next_value::<LenientStr>()?.0,
                        "scope" => spec.scope = map.next_value::<LenientStr>()?.0,
                        "names" => spec.names_kind = map.next_value::<LenientNames>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(spec)
            }
            lenient_other_arms!(LenientSpec);
        }
        d.deserialize_any(V)
    }
}

/// `spec.names.kind` of a CRD.
#[derive(Default)]
struct LenientNames(Option<Str>);

impl<'de> Deserialize<'de> for LenientNames {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LenientNames, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LenientNames;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("anything")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<LenientNames, E> {
                Ok(LenientNames(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LenientNames, A::Error> {
                let mut kind = None;
                while let Some(Key(k)) = map.next_key::<Key>()? {
                    if &*k == "kind" {
                        kind = map.next_value::<LenientStr>()?.0;
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(LenientNames(kind))
            }
            lenient_other_arms!(LenientNames);
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an owner reference map")]
pub struct RawOwnerRef {
    #[serde(rename = "apiVersion")]
    pub api_version: Option<Scalar>,
    pub kind: Option<Scalar>,
    pub name: Option<Scalar>,
    pub uid: Option<Scalar>,
    pub controller: Option<bool>,
    #[serde(rename = "blockOwnerDeletion")]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a metadata map")]
pub struct RawMeta {
    pub name: Option<Scalar>,
    #[serde(rename = "generateName")]
    pub generate_name: Option<Scalar>,
    pub namespace: Option<Scalar>,
    pub uid: Option<Scalar>,
    pub labels: Option<StrMap>,
    pub annotations: Option<KeptAnnotations>,
    #[serde(rename = "ownerReferences")]
    pub owner_references: Option<Vec<RawOwnerRef>>,
    pub finalizers: Option<Vec<Scalar>>,
    #[serde(rename = "deletionTimestamp")]
    pub deletion_timestamp: Option<Scalar>,
}

/// One object: the fields every object-shaped dialect reads.
#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an object")]
pub struct RawObject {
    #[serde(rename = "apiVersion")]
    pub api_version: Option<Scalar>,
    pub kind: Option<Scalar>,
    pub metadata: Option<RawMeta>,
    #[serde(default)]
    pub spec: LenientSpec,
}

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
        let nonempty = |s: Option<Scalar>| s.filter(|s| !s.0.is_empty());
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
                Some(target) => deps.push(DepDecl { target, kind: DepKind::DependsOn, text: item.into() }),
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
        origin: &ORIGIN,
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
    fn spec_is_lenient() {
        let o: RawObject = serde_yaml::from_str("kind: X\nspec:\n  group: [1]\n  names: 3\n  scope: Cluster").unwrap();
        assert_eq!(o.spec.group, None);
        assert_eq!(o.spec.scope.as_deref(), Some("Cluster"));
        let o: RawObject = serde_json::from_str(r#"{"spec": "text"}"#).unwrap();
        assert!(o.spec.group.is_none());
    }

    #[test]
    fn only_kept_annotations_are_kept() {
        let m: RawMeta =
            serde_yaml::from_str("annotations:\n  a: b\n  config.kubernetes.io/depends-on: /namespaces/x/Secret/y\n")
                .unwrap();
        let a = m.annotations.unwrap();
        assert_eq!(a.0.len(), 1);
        assert_eq!(a.get(DEPENDS_ON), Some("/namespaces/x/Secret/y"));
    }

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
