//! The `krake` dialect: Krake resources (rak-n-rok/Krake), as its API
//! serves them and its bootstrap files hold them:
//!
//! ```yaml
//! api: kubernetes
//! kind: Application
//! metadata:
//!   name: a
//!   namespace: testing
//!   uid: 7f0c…
//!   owners:                      # ResourceRefs: api, namespace, kind, name
//!   - {api: kubernetes, namespace: testing, kind: Cluster, name: c}
//!   finalizers: [kubernetes_resources_deletion, cascade_deletion]
//!   deleted: 2024-05-01T10:00:00Z   # being deleted
//! ```
//!
//! Recognised by a top-level `api` (not `apiVersion`) beside `kind`; a
//! `…List` of them (`items`) too. An owner is the resource at exactly the
//! reference's api, kind, namespace (`null`: a resource without one) and
//! name. Krake's collector deletes every direct dependent of a deleted
//! resource, whatever its other owners, through the `cascade_deletion`
//! finalizer the API adds on deletion; it never collects a resource whose
//! owner is merely gone.

use super::api::{List, Out};
use super::fields::{StrMap, Text};
use crate::findings::{Finding, Rule};
use crate::input::{locate, Outline, Shape, Unit};
use crate::model::intern::intern;
use crate::model::{Collector, Fields, Identity, ModelKeys, Object, Origin, OwnerRef, StateKeys, TrackingKeys};
use crate::span::Span;
use serde::Deserialize;

pub struct Krake;

/// The finalizer Krake's API adds to a deleted resource; its collector
/// removes it once the resource has no dependents left.
pub const CASCADE_DELETION: &str = "cascade_deletion";

pub static ORIGIN: Origin = Origin {
    dialect: "krake",
    noun: "a Krake resource",
    identity: Identity::Ref,
    fields: Fields {
        name: &["metadata", "name"],
        owners: "owners",
        dependency: "owners",
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "kind",
        deleted: "deleted",
        tracking: &TrackingKeys::NONE,
        states: &StateKeys::NONE,
        models: &ModelKeys::NONE,
    },
    collector: Collector {
        any_owner: true,
        collects_dangling: false,
        cascade_finalizers: &[CASCADE_DELETION],
        // Krake's Kubernetes application and infrastructure controllers.
        finalizers: &[CASCADE_DELETION, "kubernetes_resources_deletion", "infrastructure_resources_deletion"],
        orphans: false,
    },
};

impl super::api::Dialect for Krake {
    fn edits(&self) -> Option<&'static super::api::Edits> {
        Some(&super::api::Edits {
            owners: Some(&["metadata", "owners"]),
            after: None,
            destroyed: None,
            span_at_key: false,
        })
    }

    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "Krake resources: `api`, `kind` and `metadata` (with `owners` as ResourceRefs), `…List`s of them"
    }

    fn recognise(&self, unit: &Unit) -> Option<bool> {
        // An item written apiVersion first has one: not Krake's (so its
        // outline is not made for the question).
        if unit.first_str("apiVersion").is_some() {
            return Some(false);
        }
        is_krake(unit.outline())
    }

    fn list(&self, doc: &Unit) -> Option<List> {
        let o = doc.outline();
        let listy = is_krake(o) == Some(true) && o.str("kind").is_some_and(|k| k.ends_with("List")) && o.listy("items");
        listy.then_some(List { member: Some("items"), own_items: true })
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        match super::api::parse_object::<RawResource>(unit) {
            Ok(raw) => out.objects.extend(convert(raw, unit.span(), unit.source_text(), &mut out.findings)),
            Err(finding) => out.findings.push(finding),
        }
    }
}

/// A mapping with a string `api` and a `kind`, and no `apiVersion`. `None`:
/// the outline does not show enough yet. An `api` written like a
/// Kubernetes apiVersion (`v1`, `apps/v1`) is a Kubernetes object with a
/// misspelt key, which that dialect reports, not a Krake resource.
fn is_krake(o: &Outline) -> Option<bool> {
    match o.str("api") {
        Some(api) if o.shape == Shape::Map && !looks_like_api_version(api) => {}
        _ => return Some(false),
    }
    match (o.str("kind"), o.has("apiVersion")) {
        (Some(_), Some(false)) => Some(true),
        (_, Some(true)) => Some(false),
        _ if o.has("kind") == Some(false) => Some(false),
        _ => None,
    }
}

/// `v1`, `v2beta1`, `apps/v1`: Kubernetes' apiVersion shapes. (Krake's
/// APIs are names: `core`, `kubernetes`, `infrastructure`, `openstack`.)
fn looks_like_api_version(api: &str) -> bool {
    let version = |v: &str| {
        v.strip_prefix('v').is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit()) && rest.chars().all(|c| c.is_ascii_alphanumeric())
        })
    };
    api.contains('/') || version(api)
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a Krake resource `{api, kind, metadata}`")]
struct RawResource {
    api: Option<Text>,
    kind: Option<Text>,
    metadata: Option<RawMeta>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "Krake metadata")]
struct RawMeta {
    name: Option<Text>,
    namespace: Option<Text>,
    uid: Option<Text>,
    labels: Option<StrMap>,
    owners: Option<Vec<RawOwner>>,
    finalizers: Option<Vec<Text>>,
    deleted: Option<Text>,
}

/// An owner: a ResourceRef (Krake's data model), or a string (the form
/// Krake's OpenAPI file declares), which names no kind and is refused.
#[derive(Deserialize, Debug)]
#[serde(untagged, expecting = "a ResourceRef `{api, namespace, kind, name}`")]
enum RawOwner {
    Ref(RawRef),
    Text(Text),
}

#[derive(Deserialize, Debug)]
#[serde(expecting = "a ResourceRef `{api, namespace, kind, name}`")]
struct RawRef {
    api: Option<Text>,
    namespace: Option<Text>,
    kind: Option<Text>,
    name: Option<Text>,
}

fn convert(raw: RawResource, span: Span, text: &str, out: &mut Vec<Finding>) -> Option<Object> {
    let head = Span::new(span.file, locate::head(text, span.range()));
    let nonempty = |t: Option<Text>| t.map(|t| t.0).filter(|t| !t.is_empty());
    let meta = raw.metadata.unwrap_or_default();
    let (Some(api), Some(kind), Some(name)) = (nonempty(raw.api), nonempty(raw.kind), nonempty(meta.name)) else {
        out.push(
            Finding::new(Rule::Td001, "Krake resource without `api`, `kind` or `metadata.name`")
                .at(head, "this resource")
                .help("every Krake resource has `api`, `kind` and `metadata.name`"),
        );
        return None;
    };
    let reference = || format!("{kind}/{name}");
    let mut owners = Vec::new();
    for (i, owner) in meta.owners.unwrap_or_default().into_iter().enumerate() {
        let at = |needle: &str| {
            let found = locate::value_after(text, span.range(), &["owners"], needle)
                .or_else(|| locate::key_after(text, span.range(), "owners"));
            Span::new(span.file, found.unwrap_or(head.range()))
        };
        match owner {
            RawOwner::Ref(r) => {
                let (Some(oapi), Some(okind), Some(oname)) = (nonempty(r.api), nonempty(r.kind), nonempty(r.name)) else {
                    out.push(
                        Finding::new(
                            Rule::Td001,
                            format!("owner #{} of {} lacks `api`, `kind` or `name`", i + 1, reference()),
                        )
                        .at(at(""), "this owner")
                        .refs([reference()])
                        .help("a Krake owner is a ResourceRef `{api, namespace, kind, name}`"),
                    );
                    continue;
                };
                owners.push(OwnerRef {
                    group: intern(&oapi),
                    api_version: intern(""),
                    kind: intern(&okind),
                    name: oname,
                    uid: None,
                    controller: false,
                    block_owner_deletion: false,
                    namespace: nonempty(r.namespace).map(|n| intern(&n)),
                });
            }
            RawOwner::Text(t) => out.push(
                Finding::new(Rule::Td001, format!("owner #{} of {} is a string: `{}`", i + 1, reference(), t.0))
                    .at(at(&t.0), "not a ResourceRef")
                    .refs([reference()])
                    .help("write the owner as Krake stores it: a ResourceRef `{api, namespace, kind, name}` (a string names no kind)"),
            ),
        }
    }
    let namespace = meta.namespace.map(|n| n.0).filter(|n| !n.is_empty());
    Some(Object {
        origin: &ORIGIN,
        group: intern(&api),
        kind: intern(&kind),
        namespace_written: namespace.is_some(),
        scope_known: false,
        versioned: false,
        namespace,
        name,
        uid: nonempty(meta.uid),
        labels: meta
            .labels
            .map(|l| l.0)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (intern(&k), intern(&v)))
            .collect(),
        owners: owners.into(),
        deps: Box::default(),
        finalizers: meta.finalizers.unwrap_or_default().into_iter().map(|f| intern(&f.0)).collect(),
        deletion_timestamp: nonempty(meta.deleted),
        crd: None,
        member: None,
        tracking: None,
        facts: None,
        desired_state: Default::default(),
        span,
    })
}
