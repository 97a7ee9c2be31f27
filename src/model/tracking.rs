//! Applications that track what they deploy (KubeVela): the Application's
//! components and garbage-collect policy, and its resource trackers with
//! the resources each manages — in the model's terms. The `kubevela`
//! dialect reads them; `resolve` turns them into relations (a tracker
//! manages its resources, an application its trackers, a component's
//! resources go before those of the components it depends on);
//! `analysis::tracking` decides what the application's collector does.

use super::intern::Str;

/// What an object of a tracking application is.
#[derive(Clone, Debug)]
pub enum Tracking {
    Application(AppSpec),
    Tracker(TrackerSpec),
}

/// An Application: its generation, publish version, workflow state,
/// components and garbage-collect policy.
#[derive(Clone, Debug, Default)]
pub struct AppSpec {
    /// `metadata.generation`: which versioned tracker is current.
    pub generation: Option<u64>,
    /// The `app.oam.dev/publishVersion` annotation: when written, the
    /// current tracker is the versioned one of this publish version.
    pub publish_version: Option<Str>,
    /// Where its last reconcile left its workflow (`status`).
    pub workflow: Workflow,
    pub components: Box<[Component]>,
    pub policy: GcPolicy,
}

/// How far an Application's workflow got, as its `status` says: the
/// controller runs the mark stage (and collects component revisions)
/// only once it has succeeded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Workflow {
    /// `status.status` is `running` or `unhealthy` (the reconcile went past
    /// the workflow), or, without it, `status.workflow.status` is `succeeded`.
    Succeeded,
    /// `workflowFailed` (or the workflow's status `failed`): marked only
    /// with the policy's `continueOnFailure`.
    Failed,
    /// Any other phase (running, suspended, terminated, not rendered yet):
    /// the phase as written.
    Pending(Str),
    /// No `status`: the workflow has not run (or the dump left it out).
    #[default]
    Unknown,
}

impl AppSpec {
    pub fn component(&self, name: &str) -> Option<&Component> {
        self.components.iter().find(|c| &*c.name == name)
    }
}

#[derive(Clone, Debug)]
pub struct Component {
    pub name: Str,
    /// Its type (`webservice`), which rules select by.
    pub type_name: Option<Str>,
    /// The components it depends on (`dependsOn`, and those whose outputs
    /// its inputs take), each with how.
    pub depends_on: Box<[(Str, DependsHow)]>,
}

/// How one component depends on another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DependsHow {
    /// `dependsOn`.
    DependsOn,
    /// One of its inputs is this output of the other.
    Input(Str),
}

/// The `garbage-collect` policies, merged as the controller merges them
/// (`pkg/policy` `ParsePolicy`: rules concatenated, booleans or-ed).
#[derive(Clone, Debug, Default)]
pub struct GcPolicy {
    /// `keepLegacyResource`: an outdated tracker is marked only when what it
    /// manages is gone or managed by a newer tracker.
    pub keep_legacy: bool,
    /// `continueOnFailure`: the mark stage runs after a failed workflow too.
    pub continue_on_failure: bool,
    /// `order: dependency`.
    pub order_dependency: bool,
    pub rules: Box<[GcRule]>,
    /// The policy's name, for messages.
    pub name: Option<Str>,
}

/// A rule. The strategy is the first matching rule's (`FindStrategy`,
/// applied when a resource is recorded: nothing when that rule writes
/// none); the propagation the first matching rule's that writes one
/// (`FindDeleteOption`, applied when it is deleted).
#[derive(Clone, Debug)]
pub struct GcRule {
    pub selector: RuleSelector,
    /// `None`: not written.
    pub strategy: Option<Strategy>,
    /// `None`: not written.
    pub propagation: Option<Propagation>,
    /// The policy it is written in, and its place there (0-based).
    pub policy: Option<Str>,
    pub index: u32,
}

/// Every non-empty list must hold the resource's value; an empty selector
/// matches nothing.
#[derive(Clone, Debug, Default)]
pub struct RuleSelector {
    pub component_names: Box<[Str]>,
    pub component_types: Box<[Str]>,
    pub oam_types: Box<[Str]>,
    pub trait_types: Box<[Str]>,
    pub resource_types: Box<[Str]>,
    pub resource_names: Box<[Str]>,
}

/// What a rule's selector is matched against.
pub struct RuleFacts<'a> {
    pub component: Option<&'a str>,
    pub component_type: Option<&'a str>,
    /// `WORKLOAD` or `TRAIT`.
    pub oam_type: Option<&'a str>,
    pub trait_type: Option<&'a str>,
    pub kind: &'a str,
    pub name: &'a str,
}

impl RuleSelector {
    pub fn matches(&self, f: &RuleFacts) -> bool {
        let conditions = [
            (&self.component_names, f.component),
            (&self.component_types, f.component_type),
            (&self.oam_types, f.oam_type),
            (&self.trait_types, f.trait_type),
            (&self.resource_types, Some(f.kind)),
            (&self.resource_names, Some(f.name)),
        ];
        let mut any = false;
        for (list, value) in conditions {
            if list.is_empty() {
                continue;
            }
            let hit = value.is_some_and(|v| !v.is_empty() && list.iter().any(|x| &**x == v));
            if !hit {
                return false;
            }
            any = true;
        }
        any
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Collected when no longer used (the default).
    OnAppUpdate,
    /// Collected only with the Application.
    OnAppDelete,
    /// Never collected.
    Never,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::OnAppUpdate => "onAppUpdate",
            Strategy::OnAppDelete => "onAppDelete",
            Strategy::Never => "never",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Propagation {
    Cascading,
    /// The resource is released (kept, its tracking dropped), not deleted.
    Orphan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrackerKind {
    /// Resources that live as long as the Application (`onAppDelete`, `never`).
    Root,
    /// Resources of one generation of the Application.
    Versioned,
    /// The component revisions (ControllerRevisions) of its components.
    ComponentRevision,
}

impl TrackerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TrackerKind::Root => "root",
            TrackerKind::Versioned => "versioned",
            TrackerKind::ComponentRevision => "component-revision",
        }
    }
}

/// An object named by group, kind, namespace and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    pub group: Str,
    pub kind: Str,
    pub namespace: Option<Str>,
    pub name: Str,
}

/// A resource tracker: whose it is, what kind, and what it manages.
#[derive(Clone, Debug)]
pub struct TrackerSpec {
    /// Its Application.
    pub app: Key,
    /// The `app.oam.dev/uid` label: the uid of the Application that made it.
    pub app_uid: Option<Str>,
    /// The `app.oam.dev/publishVersion` annotation (versioned trackers).
    pub publish_version: Option<Str>,
    pub kind: TrackerKind,
    /// The Application generation it records (versioned trackers).
    pub generation: Option<u64>,
    pub managed: Box<[Managed]>,
}

/// One managed resource as a tracker records it.
#[derive(Clone, Debug)]
pub struct Managed {
    /// API group (normalised as for objects), kind, namespace, name.
    pub group: Str,
    pub kind: Str,
    pub namespace: Option<Str>,
    pub name: Str,
    /// The cluster it was dispatched to; `None`: the local cluster.
    pub cluster: Option<Str>,
    pub component: Option<Str>,
    pub trait_type: Option<Str>,
    /// Recorded as deleted: the tracker no longer holds it.
    pub deleted: bool,
    /// Released rather than deleted when collected.
    pub skip_gc: bool,
}

impl Managed {
    /// `Kind/[namespace/]name`, for messages.
    pub fn reference(&self) -> String {
        let group = if self.group.is_empty() { String::new() } else { format!(".{}", self.group) };
        match &self.namespace {
            Some(ns) => format!("{}{group}/{ns}/{}", self.kind, self.name),
            None => format!("{}{group}/{}", self.kind, self.name),
        }
    }
}
