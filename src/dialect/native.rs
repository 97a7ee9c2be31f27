//! The `native` dialect, written by hand in tests and by non-Kubernetes users:
//!
//! ```yaml
//! resources:
//! - id: app
//! - id: db
//!   owners: [app]
//! - id: net
//!   owners: [app]
//!   destroyAfter: [vm1, vm2]   # net is destroyed after vm1 and vm2
//! ```

use super::api::{List, Out};
use super::fields::Scalar;
use crate::findings::{Finding, Rule};
use crate::input::{locate, Outline, Shape, Unit};
use crate::model::{
    Collector, DepDecl, DepKind, DepTarget, Fields, Identity, ModelKeys, Object, Origin, OwnerRef, StateKeys, Str,
    TrackingKeys,
};
use crate::span::Span;
use serde::Deserialize;

pub struct Native;

pub static ORIGIN: Origin = Origin {
    dialect: "native",
    noun: "an object of the native dialect",
    identity: Identity::Id,
    fields: Fields {
        name: &["id"],
        owners: "owners",
        dependency: "destroyAfter",
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "kind",
        deleted: "deletionTimestamp",
        tracking: &TrackingKeys::NONE,
        states: &StateKeys::NONE,
        models: &ModelKeys::NONE,
    },
    collector: Collector::KUBERNETES,
};

impl super::api::Dialect for Native {
    fn edits(&self) -> Option<&'static super::api::Edits> {
        Some(&super::api::Edits {
            owners: Some(&["owners"]),
            after: Some(&["destroyAfter"]),
            destroyed: None,
            span_at_key: false,
        })
    }

    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "a top-level `resources:` list of `{id, owners?, destroyAfter?}`"
    }

    fn recognise(&self, unit: &Unit) -> Option<bool> {
        Some(unit.list.is_none() && is_native(unit.outline()))
    }

    fn list(&self, doc: &Unit) -> Option<List> {
        is_native(doc.outline()).then_some(List { member: Some("resources"), own_items: true })
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        if unit.list.is_none() {
            // A document `--dialect native` was given that is not a list of resources.
            out.findings.push(
                Finding::new(Rule::Td001, "not a native document: no top-level `resources:` list")
                    .at(unit.head(), "this document"),
            );
            return;
        }
        match super::api::parse_object::<RawNative>(unit) {
            Ok(raw) => out.objects.extend(convert(raw, unit.span(), unit.source_text(), &mut out.findings)),
            Err(finding) => out.findings.push(finding),
        }
    }
}

/// A mapping without a `kind` whose `resources` is a list.
fn is_native(o: &Outline) -> bool {
    o.shape == Shape::Map && o.str("kind").is_none() && o.listy("resources")
}

/// A native resource: `{id, owners?, destroyAfter?}`.
#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a native resource `{id, owners, destroyAfter}`")]
pub struct RawNative {
    pub id: Option<Scalar>,
    pub owners: Option<Vec<Scalar>>,
    #[serde(rename = "destroyAfter")]
    pub destroy_after: Option<Vec<Scalar>>,
}

pub fn convert(raw: RawNative, span: Span, text: &str, out: &mut Vec<Finding>) -> Option<Object> {
    let id: Str = match raw.id {
        Some(id) if !id.0.is_empty() => id.0,
        _ => {
            out.push(
                Finding::new(Rule::Td001, "resource has no `id`")
                    .at(Span::new(span.file, locate::head(text, span.range())), "this resource")
                    .help("native resources are `{id, owners?, destroyAfter?}`"),
            );
            return None;
        }
    };
    let owners = raw
        .owners
        .unwrap_or_default()
        .into_iter()
        .map(|o| OwnerRef {
            group: "".into(),
            api_version: "".into(),
            kind: "".into(),
            name: o.0.clone(),
            uid: Some(o.0),
            controller: false,
            block_owner_deletion: false,
            namespace: None,
        })
        .collect();
    let deps = raw
        .destroy_after
        .unwrap_or_default()
        .into_iter()
        .map(|d| DepDecl { text: d.0.clone(), target: DepTarget::Id(d.0), kind: DepKind::DestroyAfter })
        .collect();
    Some(Object {
        origin: &ORIGIN,
        group: "".into(),
        kind: "".into(),
        namespace: None,
        namespace_written: false,
        scope_known: false,
        versioned: false,
        uid: Some(id.clone()),
        name: id,
        labels: Box::default(),
        owners,
        deps,
        finalizers: Box::default(),
        deletion_timestamp: None,
        crd: None,
        member: None,
        tracking: None,
        facts: None,
        desired_state: Default::default(),
        span,
    })
}
