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

use super::raw::RawNative;
use crate::findings::{Finding, Rule};
use crate::input::locate;
use crate::input::Span;
use crate::model::{DepDecl, DepSide, DepTarget, Dialect, Object, OwnerRef, Str};

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
            kind: "".into(),
            name: o.0.clone(),
            uid: Some(o.0),
            controller: false,
            block_owner_deletion: false,
        })
        .collect();
    let deps = raw
        .destroy_after
        .unwrap_or_default()
        .into_iter()
        .map(|d| DepDecl { text: d.0.clone(), target: DepTarget::Id(d.0), side: DepSide::After })
        .collect();
    Some(Object {
        dialect: Dialect::Native,
        group: "".into(),
        kind: "".into(),
        namespace: None,
        namespace_written: false,
        uid: Some(id.clone()),
        name: id,
        labels: Box::default(),
        owners,
        deps,
        finalizers: Box::default(),
        deletion_timestamp: None,
        crd: None,
        murano: None,
        span,
    })
}
