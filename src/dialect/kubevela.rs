//! The `kubevela` dialect: KubeVela's Application (`core.oam.dev`) with its
//! components and `garbage-collect` policies, and its ResourceTrackers with
//! the resources each manages:
//!
//! ```yaml
//! apiVersion: core.oam.dev/v1beta1
//! kind: ResourceTracker
//! metadata:
//!   name: app-v2-default
//!   labels: {app.oam.dev/name: app, app.oam.dev/namespace: default}
//! spec:
//!   type: versioned            # root | versioned | component-revision
//!   applicationGeneration: 2
//!   managedResources:
//!   - {apiVersion: v1, kind: ConfigMap, namespace: default, name: cm, component: web}
//! ```
//!
//! Both are Kubernetes objects (read as the `kubernetes` dialect reads
//! them: metadata, owner references, finalizers); this dialect adds what
//! KubeVela's resource keeper works from: an Application's generation,
//! `app.oam.dev/publishVersion` annotation and workflow state (`status`);
//! a tracker's Application (its `app.oam.dev/name` and
//! `app.oam.dev/namespace` labels name it), the uid of the Application that
//! made it (`app.oam.dev/uid`) and its publish version. Several
//! `garbage-collect` policies are merged (rules in order, `keepLegacyResource`,
//! `continueOnFailure` and `order: dependency` if any sets them), as the
//! controller merges them. Compressed trackers (`spec.compression`) cannot
//! be read and are refused.

use super::api::{Dialect, List, Out};
use super::fields::{LenientStr, StrMap, Text};
use super::kubernetes::Kubernetes;
use crate::findings::{Finding, Rule};
use crate::input::{locate, Node, Outline, Shape, Unit};
use crate::model::intern::intern;
use crate::model::kube::group_of;
use crate::model::lifecycle::Lifecycle;
use crate::model::tracking::{
    AppSpec, Component, DependsHow, GcPolicy, GcRule, Key, Managed, Propagation, RuleSelector, Strategy, TrackerKind,
    TrackerSpec, Tracking, Workflow,
};
use crate::model::{Collector, Fields, Identity, ModelKeys, Object, Origin, Str, TrackingKeys};
use crate::span::Span;
use serde::Deserialize;

pub struct KubeVela;

const GROUP: &str = "core.oam.dev";
use labels::{APP_NAME, APP_NAMESPACE, APP_UID, ORPHAN_FINALIZER};
/// The finalizers the controller's collector deletes through.
const FINALIZERS: &[&str] = &["app.oam.dev/resource-tracker-finalizer", "resourcetracker.core.oam.dev/finalizer"];
const OWN_FINALIZERS: &[&str] =
    &["app.oam.dev/resource-tracker-finalizer", "resourcetracker.core.oam.dev/finalizer", ORPHAN_FINALIZER];

/// The labels KubeVela writes on what an Application dispatches (and on
/// its trackers), and what its resource keeper reads of them.
pub mod labels {
    /// The Application a resource (or tracker) belongs to: its name…
    pub const APP_NAME: &str = "app.oam.dev/name";
    /// …and its namespace.
    pub const APP_NAMESPACE: &str = "app.oam.dev/namespace";
    /// A tracker: the uid of the Application that made it.
    pub const APP_UID: &str = "app.oam.dev/uid";
    /// The component a resource was rendered from.
    pub const COMPONENT: &str = "app.oam.dev/component";
    /// The type of that component.
    pub const WORKLOAD_TYPE: &str = "workload.oam.dev/type";
    /// `WORKLOAD` or `TRAIT`.
    pub const OAM_RESOURCE_TYPE: &str = "app.oam.dev/resourceType";
    /// The trait that made it.
    pub const TRAIT_TYPE: &str = "trait.oam.dev/type";
    /// `vela delete --orphan` adds it to the Application: its collector
    /// releases what it manages, and removes it with its own finalizer.
    pub const ORPHAN_FINALIZER: &str = "app.oam.dev/orphan-resource";
}

pub static ORIGIN: Origin = Origin {
    dialect: "kubevela",
    noun: "a KubeVela object",
    identity: Identity::Coordinates,
    fields: Fields {
        name: &["metadata", "name"],
        owners: "ownerReferences",
        dependency: "dependsOn",
        finalizers: "finalizers",
        namespace: "namespace",
        kind: "kind",
        deleted: "deletionTimestamp",
        tracking: &TrackingKeys {
            manages: "managedResources",
            components: "components",
            depends: &["dependsOn", "from"],
        },
        states: &super::kubernetes::STATE_KEYS,
        models: &ModelKeys::NONE,
    },
    collector: Collector {
        // The Application controller's collector deletes through them, and
        // removes them once done (the sweep); the orphan finalizer with them.
        finalizers: OWN_FINALIZERS,
        cascade_finalizers: FINALIZERS,
        ..Collector::KUBERNETES
    },
};

/// `Application`, `ResourceTracker`, or a list of them, of `core.oam.dev`.
fn kind_of<'a>(o: &'a Outline<'a>) -> Option<&'a str> {
    let group = o.str("apiVersion")?.split_once('/')?.0;
    (group == GROUP).then_some(())?;
    o.str("kind")
}

fn ours(kind: &str) -> bool {
    matches!(kind, "Application" | "ResourceTracker")
}

impl Dialect for KubeVela {
    fn edits(&self) -> Option<&'static super::api::Edits> {
        Some(&super::api::Edits {
            owners: Some(&["metadata", "ownerReferences"]),
            after: None,
            destroyed: None,
            span_at_key: false,
        })
    }

    fn origin(&self) -> &'static Origin {
        &ORIGIN
    }

    fn about(&self) -> &'static str {
        "KubeVela Applications and ResourceTrackers (`core.oam.dev`), lists of them"
    }

    fn recognise(&self, unit: &Unit) -> Option<bool> {
        // An item written apiVersion first, as kubectl writes one, of
        // another group: not ours, whatever else its outline holds (so
        // none is made: most items of a large list are such).
        if unit.first_str("apiVersion").is_some_and(|v| v.split_once('/').is_none_or(|(group, _)| group != GROUP)) {
            return Some(false);
        }
        let o = unit.outline();
        if o.shape != Shape::Map {
            return Some(false);
        }
        match (o.str("apiVersion"), o.str("kind")) {
            (Some(_), Some(_)) => Some(kind_of(o).is_some_and(|k| ours(k) || k.strip_suffix("List").is_some_and(ours))),
            _ if o.complete => Some(false),
            _ => None,
        }
    }

    fn list(&self, doc: &Unit) -> Option<List> {
        let o = doc.outline();
        let listy = kind_of(o).and_then(|k| k.strip_suffix("List")).is_some_and(ours) && o.listy("items");
        listy.then_some(List { member: Some("items"), own_items: true })
    }

    /// As Kubernetes objects: their spec.
    fn desired_part(&self, document: &Node, object: &Object) -> Option<Node> {
        Kubernetes.desired_part(document, object)
    }

    fn lifecycle(&self, document: &Node, object: &Object) -> Option<Lifecycle> {
        Kubernetes.lifecycle(document, object)
    }

    fn read(&self, unit: &Unit, out: &mut Out) {
        let mut read = Out::default();
        Kubernetes.read(unit, &mut read);
        out.findings.append(&mut read.findings);
        let Some(mut object) = read.objects.pop() else { return };
        object.origin = &ORIGIN;
        let raw: RawVela = match super::api::parse_object(unit) {
            Ok(raw) => raw,
            Err(finding) => return out.findings.push(finding),
        };
        let head = at(unit, &["metadata", "name"], &object.name);
        // The scope of its own kinds is known, CRD or no CRD in the input.
        object.scope_known = matches!(&*object.kind, "Application" | "ResourceTracker");
        let tracking = match &*object.kind {
            "Application" => {
                // Applications are namespaced: one written without a namespace is in `default`.
                if object.namespace.is_none() {
                    object.namespace = Some(intern("default"));
                    object.namespace_written = true;
                }
                application(raw, &object, unit, out)
            }
            "ResourceTracker" => {
                object.namespace = None;
                object.namespace_written = false;
                match tracker(raw, &object, head, unit, out) {
                    Some(t) => Tracking::Tracker(t),
                    None => return,
                }
            }
            _ => {
                out.objects.push(object);
                return;
            }
        };
        object.tracking = Some(Box::new(tracking));
        out.objects.push(object);
    }
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a KubeVela object")]
struct RawVela {
    metadata: Option<RawMeta>,
    spec: Option<RawSpec>,
    status: Option<RawStatus>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "metadata")]
struct RawMeta {
    generation: Option<u64>,
    labels: Option<StrMap>,
    annotations: Option<RawAnnotations>,
}

/// The annotations read here (every annotation is a string: the
/// `kubernetes` dialect holds them to it).
#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "annotations")]
struct RawAnnotations {
    #[serde(rename = "app.oam.dev/publishVersion")]
    publish_version: Option<Text>,
}

/// An Application's status, read leniently: the controller writes it.
#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a status")]
struct RawStatus {
    #[serde(default)]
    status: LenientStr,
    #[serde(default)]
    workflow: Option<RawWorkflowStatus>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a workflow status")]
struct RawWorkflowStatus {
    #[serde(default)]
    status: LenientStr,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a spec")]
struct RawSpec {
    components: Option<Vec<RawComponent>>,
    policies: Option<Vec<RawPolicy>>,
    #[serde(rename = "type")]
    type_name: Option<Text>,
    #[serde(rename = "applicationGeneration")]
    application_generation: Option<u64>,
    #[serde(rename = "managedResources")]
    managed_resources: Option<Vec<RawManaged>>,
    compression: Option<RawCompression>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a component")]
struct RawComponent {
    name: Option<Text>,
    #[serde(rename = "type")]
    type_name: Option<Text>,
    #[serde(rename = "dependsOn")]
    depends_on: Option<Vec<Text>>,
    inputs: Option<Vec<RawInput>>,
    outputs: Option<Vec<RawOutput>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an input")]
struct RawInput {
    from: Option<Text>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "an output")]
struct RawOutput {
    name: Option<Text>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a policy")]
struct RawPolicy {
    name: Option<Text>,
    #[serde(rename = "type")]
    type_name: Option<Text>,
    properties: Option<serde_json::Value>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "garbage-collect properties", rename_all = "camelCase")]
struct RawGcProps {
    keep_legacy_resource: Option<bool>,
    continue_on_failure: Option<bool>,
    order: Option<Text>,
    rules: Option<Vec<RawRule>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a garbage-collect rule")]
struct RawRule {
    selector: Option<RawSelector>,
    strategy: Option<Text>,
    propagation: Option<Text>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a rule selector", rename_all = "camelCase")]
struct RawSelector {
    component_names: Option<Vec<Text>>,
    component_types: Option<Vec<Text>>,
    oam_types: Option<Vec<Text>>,
    trait_types: Option<Vec<Text>>,
    resource_types: Option<Vec<Text>>,
    resource_names: Option<Vec<Text>>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a managed resource", rename_all = "camelCase")]
struct RawManaged {
    api_version: Option<Text>,
    kind: Option<Text>,
    name: Option<Text>,
    namespace: Option<Text>,
    cluster: Option<Text>,
    component: Option<Text>,
    #[serde(rename = "trait")]
    trait_type: Option<Text>,
    deleted: Option<bool>,
    #[serde(rename = "skipGC")]
    skip_gc: Option<bool>,
}

#[derive(Deserialize, Debug, Default)]
#[serde(expecting = "a compression")]
struct RawCompression {
    #[serde(rename = "type")]
    type_name: Option<Text>,
}

fn nonempty(t: Option<Text>) -> Option<Str> {
    t.map(|t| t.0).filter(|t| !t.is_empty())
}

fn strs(v: Option<Vec<Text>>) -> Box<[Str]> {
    v.unwrap_or_default().into_iter().filter_map(|t| nonempty(Some(t))).collect()
}

/// A finding at `needle` (a scalar of the object's text), or at its head.
fn at(unit: &Unit, path: &[&str], needle: &str) -> Span {
    let text = unit.source_text();
    let range = locate::value_after(text, unit.span().range(), path, needle)
        .or_else(|| path.last().and_then(|k| locate::key_after(text, unit.span().range(), k)))
        .unwrap_or_else(|| locate::head(text, unit.span().range()));
    Span::new(unit.span().file, range)
}

fn application(raw: RawVela, object: &Object, unit: &Unit, out: &mut Out) -> Tracking {
    let spec = raw.spec.unwrap_or_default();
    let components = components(spec.components.unwrap_or_default(), object, unit, out);
    let policy = gc_policy(spec.policies.unwrap_or_default(), object, unit, out);
    let meta = raw.metadata.unwrap_or_default();
    let publish_version = meta.annotations.and_then(|a| nonempty(a.publish_version));
    Tracking::Application(AppSpec {
        generation: meta.generation,
        publish_version,
        workflow: workflow(raw.status),
        components: components.into(),
        policy,
    })
}

/// An Application's components, each with what it depends on (`dependsOn`,
/// and the component whose output it takes as input); TD001 for one
/// without a name, TD010 for a dependency on no component.
fn components(raw_components: Vec<RawComponent>, object: &Object, unit: &Unit, out: &mut Out) -> Vec<Component> {
    let reference = || format!("{}/{}", object.kind, object.name);
    // Which component writes each output.
    let mut outputs: Vec<(Str, Str)> = Vec::new();
    for c in &raw_components {
        let Some(name) = c.name.as_ref().map(|n| n.0.clone()) else { continue };
        for o in c.outputs.iter().flatten() {
            if let Some(output) = o.name.as_ref().map(|n| n.0.clone()) {
                outputs.push((output, name.clone()));
            }
        }
    }
    let mut components = Vec::new();
    for c in raw_components {
        let Some(name) = nonempty(c.name) else {
            out.findings.push(
                Finding::new(Rule::Td001, format!("a component of {} has no `name`", reference()))
                    .at(at(unit, &["components"], ""), "here")
                    .refs([object.reference()]),
            );
            continue;
        };
        let mut depends_on: Vec<(Str, DependsHow)> =
            strs(c.depends_on).iter().map(|d| (d.clone(), DependsHow::DependsOn)).collect();
        for input in c.inputs.unwrap_or_default() {
            let Some(from) = nonempty(input.from) else { continue };
            match outputs.iter().find(|(o, _)| *o == from) {
                Some((_, writer)) if *writer != name => depends_on.push((writer.clone(), DependsHow::Input(from))),
                Some(_) => {}
                None => out.findings.push(
                    Finding::new(
                        Rule::Td010,
                        format!("component {name} of {} takes input `{from}`, which no component outputs", reference()),
                    )
                    .at(at(unit, &["from"], &from), "no component has this output")
                    .refs([object.reference()]),
                ),
            }
        }
        components.push(Component { name, type_name: nonempty(c.type_name), depends_on: depends_on.into() });
    }
    for c in &components {
        for (d, _) in c.depends_on.iter() {
            if !components.iter().any(|x| x.name == *d) {
                out.findings.push(
                    Finding::new(
                        Rule::Td010,
                        format!(
                            "component {} of {} depends on {d}, which is not one of its components",
                            c.name,
                            reference()
                        ),
                    )
                    .at(at(unit, &["dependsOn"], d), "no such component")
                    .refs([object.reference()]),
                );
            }
        }
    }
    components
}

/// The Application's `garbage-collect` policies, as one: its flags, the
/// first one's name, the rules of all; TD001 for a policy that cannot be
/// read (it is left out).
fn gc_policy(policies: Vec<RawPolicy>, object: &Object, unit: &Unit, out: &mut Out) -> GcPolicy {
    let mut policy = GcPolicy::default();
    let mut rules = Vec::new();
    for p in policies {
        if p.type_name.as_ref().map(|t| &*t.0) != Some("garbage-collect") {
            continue;
        }
        let name = nonempty(p.name);
        let props: RawGcProps = match p.properties.map(serde_json::from_value).transpose() {
            Ok(props) => props.unwrap_or_default(),
            Err(e) => {
                out.findings.push(
                    Finding::new(
                        Rule::Td001,
                        format!("the garbage-collect policy of {}/{} cannot be read: {e}", object.kind, object.name),
                    )
                    .at(at(unit, &["policies"], "garbage-collect"), "this policy")
                    .refs([object.reference()])
                    .help("its collector cannot be predicted; fix the policy or leave the Application out"),
                );
                continue;
            }
        };
        policy.keep_legacy |= props.keep_legacy_resource.unwrap_or(false);
        policy.continue_on_failure |= props.continue_on_failure.unwrap_or(false);
        policy.order_dependency |= props.order.as_ref().map(|o| &*o.0) == Some("dependency");
        if policy.name.is_none() {
            policy.name = name.clone();
        }
        for (k, r) in props.rules.unwrap_or_default().into_iter().enumerate() {
            rules.extend(gc_rule(r, k as u32, &name, object, unit, out));
        }
    }
    policy.rules = rules.into();
    policy
}

/// Rule `index` of the policy `policy`; none (and a finding) when its
/// strategy or propagation is not one KubeVela knows.
fn gc_rule(
    r: RawRule,
    index: u32,
    policy: &Option<Str>,
    object: &Object,
    unit: &Unit,
    out: &mut Out,
) -> Option<GcRule> {
    let strategy = match r.strategy.as_ref().map(|s| &*s.0) {
        None | Some("") => None,
        Some("onAppUpdate") => Some(Strategy::OnAppUpdate),
        Some("onAppDelete") => Some(Strategy::OnAppDelete),
        Some("never") => Some(Strategy::Never),
        Some(other) => {
            out.findings.push(unknown_value(unit, object, "strategy", other, "onAppUpdate, onAppDelete or never"));
            return None;
        }
    };
    let propagation = match r.propagation.as_ref().map(|s| &*s.0) {
        None => None,
        Some("cascading") => Some(Propagation::Cascading),
        Some("orphan") => Some(Propagation::Orphan),
        Some(other) => {
            out.findings.push(unknown_value(unit, object, "propagation", other, "orphan or cascading"));
            return None;
        }
    };
    let s = r.selector.unwrap_or_default();
    Some(GcRule {
        selector: RuleSelector {
            component_names: strs(s.component_names),
            component_types: strs(s.component_types),
            oam_types: strs(s.oam_types),
            trait_types: strs(s.trait_types),
            resource_types: strs(s.resource_types),
            resource_names: strs(s.resource_names),
        },
        strategy,
        propagation,
        policy: policy.clone(),
        index,
    })
}

/// Where the Application's last reconcile left its workflow: its phase
/// (`status.status`), else its workflow's (`status.workflow.status`).
fn workflow(status: Option<RawStatus>) -> Workflow {
    let Some(status) = status else { return Workflow::Unknown };
    let phase = status.status.0.filter(|p| !p.is_empty());
    let run = status.workflow.and_then(|w| w.status.0).filter(|p| !p.is_empty());
    match (phase, run) {
        (Some(p), _) if matches!(&*p, "running" | "unhealthy") => Workflow::Succeeded,
        (Some(p), _) if &*p == "workflowFailed" => Workflow::Failed,
        (Some(p), _) => Workflow::Pending(p),
        (None, Some(r)) if &*r == "succeeded" => Workflow::Succeeded,
        (None, Some(r)) if &*r == "failed" => Workflow::Failed,
        (None, Some(r)) => Workflow::Pending(r),
        (None, None) => Workflow::Unknown,
    }
}

fn unknown_value(unit: &Unit, object: &Object, field: &str, value: &str, expected: &str) -> Finding {
    Finding::new(
        Rule::Td001,
        format!("a garbage-collect rule of {}/{} has {field} `{value}`", object.kind, object.name),
    )
    .at(at(unit, &[field], value), "not a known value")
    .refs([object.reference()])
    .help(format!("{field} is {expected}; the collector cannot be predicted for an unknown one"))
}

fn tracker(raw: RawVela, object: &Object, head: Span, unit: &Unit, out: &mut Out) -> Option<TrackerSpec> {
    let reference = || format!("{}/{}", object.kind, object.name);
    let meta = raw.metadata.unwrap_or_default();
    let publish_version = meta.annotations.and_then(|a| nonempty(a.publish_version));
    let labels = meta.labels.map(|l| l.0).unwrap_or_default();
    let label = |k: &str| labels.iter().find(|(key, _)| &**key == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let refuse = |message: String, help: &str| {
        Finding::new(Rule::Td001, message).at(head, "this tracker").refs([object.reference()]).help(help.to_string())
    };
    let (Some(app_name), Some(app_namespace)) = (label(APP_NAME), label(APP_NAMESPACE)) else {
        out.findings.push(refuse(
            format!(
                "{} has no `{APP_NAME}` or `{APP_NAMESPACE}` label: whose tracker it is cannot be told",
                reference()
            ),
            "KubeVela labels every tracker with its Application's name and namespace; dump trackers with their labels",
        ));
        return None;
    };
    let spec = raw.spec.unwrap_or_default();
    if let Some(c) = spec.compression.as_ref().and_then(|c| c.type_name.as_ref()).filter(|t| !t.0.is_empty()) {
        out.findings.push(
            refuse(
                format!("{} stores its managed resources compressed ({}): they cannot be read", reference(), c.0),
                "turn off ResourceTracker compression in the KubeVela controller, or leave this tracker out",
            )
            .at(at(unit, &["compression"], &c.0), "compressed"),
        );
        return None;
    }
    let kind = match spec.type_name.as_ref().map(|t| &*t.0) {
        Some("root") => TrackerKind::Root,
        Some("versioned") => TrackerKind::Versioned,
        Some("component-revision") => TrackerKind::ComponentRevision,
        other => {
            out.findings.push(
                refuse(
                    format!(
                        "{} has spec.type {}: not root, versioned or component-revision",
                        reference(),
                        other.unwrap_or("(none)")
                    ),
                    "the collector treats each type differently; a tracker of an unknown type cannot be planned",
                )
                .at(at(unit, &["spec", "type"], other.unwrap_or("")), "this type"),
            );
            return None;
        }
    };
    let mut managed = Vec::new();
    for (i, m) in spec.managed_resources.unwrap_or_default().into_iter().enumerate() {
        let (Some(kind), Some(name)) = (nonempty(m.kind), nonempty(m.name)) else {
            out.findings.push(
                Finding::new(
                    Rule::Td001,
                    format!("managed resource #{} of {} has no `kind` or no `name`", i + 1, reference()),
                )
                .at(at(unit, &["managedResources"], ""), "here")
                .refs([object.reference()]),
            );
            continue;
        };
        let api_version = nonempty(m.api_version).unwrap_or_else(|| Str::from(""));
        managed.push(Managed {
            group: group_of(&api_version, &kind),
            kind: intern(&kind),
            namespace: nonempty(m.namespace).map(|n| intern(&n)),
            name,
            cluster: nonempty(m.cluster).filter(|c| &**c != "local"),
            component: nonempty(m.component).map(|c| intern(&c)),
            trait_type: nonempty(m.trait_type).map(|t| intern(&t)),
            deleted: m.deleted.unwrap_or(false),
            skip_gc: m.skip_gc.unwrap_or(false),
        });
    }
    Some(TrackerSpec {
        app: Key { group: intern(GROUP), kind: intern("Application"), namespace: Some(app_namespace), name: app_name },
        app_uid: label(APP_UID),
        publish_version,
        kind,
        generation: spec.application_generation,
        managed: managed.into(),
    })
}
