//! A deletion plan, as typed data: what is deleted in which step and why,
//! what is kept or orphaned and why, which ownership edges were relaxed,
//! which cycles were grouped, what to look out for, and Murano's events.
//! It holds no prose: `render::prose` says its reasons, warnings and
//! labels in words; the other renderers (`render::plan`,
//! `render::explain`…) only format it.
//!
//! - [`build`]: seeding, the cascade, the order, hang detection;
//! - [`reasons`]: why each object is deleted, kept or orphaned;
//! - [`warnings`]: what the plan warns about, each with its finding rule;
//! - [`events`]: the notifications of an object model's destruction
//!   (Murano's) and still-referenced objects;
//! - [`tracking`]: the stages of a tracking application's collector
//!   (KubeVela's) under `--gc`;
//! - [`tool_order`]: another tool's order beside the plan (`--as`);
//! - [`mode`], [`roots`], [`refused`]: where a plan starts, the cascade
//!   roots of `-o kubectl`, what is refused once the input is read;
//! - [`prune`]: what `--prune NEW` declares, and where NEW's objects are;
//! - [`explain`]: one object's chains (`teardown explain`);
//! - [`reference`]: an object as every output names it (`ref`).

pub mod build;
pub mod duplicates;
pub mod events;
pub mod explain;
pub mod mode;
pub mod prune;
pub mod reasons;
pub mod reference;
pub mod refused;
pub mod roots;
pub mod summary;
pub mod tool_order;
pub mod tracking;
pub mod warnings;

pub use build::{build, build_from, finalizer_relations, ownership_cycle_error};
pub use events::{Event, EventKind};
pub use mode::Mode;
pub use prune::absent_from;
pub use reasons::{Garbage, Kept, Reason, Root};
pub use refused::Refused;
pub use warnings::Warning;

use crate::analysis::cascade::{Cascade, CascadeMode, Gate, MultiOwner};
use crate::analysis::order::Order;
use crate::graph::cycles::Cycle;
use crate::graph::{Graph, LazyGraph};
use crate::model::{DefaultRule, ObjId, Object, Relation};
use std::collections::HashMap;

/// What a plan holds beyond its steps, for the formats that show it. A
/// plan made for `-o names` needs no reasons; only plan files (JSON, YAML)
/// need each object's place and each input's digest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detail {
    /// Why each deleted object is deleted ([`Plan::reasons`]).
    pub reasons: bool,
    /// Each object's line ([`Plan::lines`]) and each input's sha256 ([`Plan::inputs`]).
    pub places: bool,
}

impl Detail {
    pub const ALL: Detail = Detail { reasons: true, places: true };
}

pub struct Options {
    pub mode: Mode,
    pub cascade: CascadeMode,
    /// `--multi-owner`; `None`: each dialect's collector's rule.
    pub multi_owner: Option<MultiOwner>,
    pub allow_cycles: bool,
    /// `--finalizer-controller`: each finalizer with the objects whose
    /// controllers remove it.
    pub finalizer_controllers: Vec<(String, Vec<ObjId>)>,
    /// `--root`: where Murano's collection starts (default: the first tree).
    pub root: Option<ObjId>,
    /// `--closed-world`: the snapshot is the whole cluster.
    pub closed_world: bool,
    /// `--prune`: which objects of the input NEW declares (else empty).
    pub declared_in_new: Vec<bool>,
    pub detail: Detail,
    /// The default ordering rules that apply (all of them unless
    /// `--no-default-rules`).
    pub default_rules: Vec<DefaultRule>,
    /// `--delete`: the targets named one by one (`KIND/NAME`, `uid:`,
    /// `id:`), sorted, rather than selected by kind, label or namespace. A
    /// named target is deleted even when a tool's annotation would keep it.
    pub named: Vec<ObjId>,
}

/// Why a plan cannot be made (exit 1).
#[derive(Clone, Debug)]
pub enum PlanError {
    /// Objects of the deletion set own each other: `found` is the cycle
    /// whose edges the command shows at their places in the input.
    OwnershipCycle { cycle: String, cut: String, found: Option<Cycle> },
    /// An Application has versioned resource trackers but no
    /// `metadata.generation`: which tracker is current cannot be told.
    NoGeneration { app: String, trackers: u32 },
    /// KubeVela's resource keeper refuses to list an Application's trackers
    /// (and so collects nothing of it): the message says why.
    TrackerListing { message: String },
    /// An object would wait forever for a finalizer whose controller is
    /// deleted in an earlier step.
    Hang { object: String, finalizer: String, controller: String, object_step: u32, controller_step: u32 },
    /// Objects of the deletion set the order gave no step (a cycle it
    /// could not relax): never a plan without them.
    Unplaced { objects: usize, first: String },
    /// What an application controller would delete cannot be told from
    /// the snapshot (issue 35): the message says why.
    Unknowable { message: String },
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanError::OwnershipCycle { cycle, cut, .. } => write!(
                f,
                "ownership cycle: {cycle}; cut an edge (for example remove the owner reference {cut}), or plan the cycle as one group with --allow-cycles"
            ),
            PlanError::NoGeneration { app, trackers } => write!(
                f,
                "{app} has {trackers} resource trackers but no metadata.generation: which of them is current, and so which are outdated, cannot be told; dump the Application from the cluster (`kubectl get application -o yaml` prints its generation)"
            ),
            PlanError::TrackerListing { message } | PlanError::Unknowable { message } => f.write_str(message),
            PlanError::Hang { object, finalizer, controller, object_step, controller_step } => write!(
                f,
                "{object} (step {object_step}) would hang: its finalizer {finalizer} is removed by {controller}, which is deleted earlier (step {controller_step})"
            ),
            PlanError::Unplaced { objects, first } => write!(
                f,
                "no order deletes {first}{}: the constraints between them cannot all be met; this is a bug in teardown, please report it with the input",
                match objects {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                }
            ),
        }
    }
}

/// A Helm `pre-delete` or `post-delete` hook the plan lists where Helm
/// runs it: before the first step (after the last) that deletes an object
/// of its release. Helm creates the hook's object and waits for it (a Job
/// to complete) before going on; it is not a deletion, and `-o names`,
/// `-o kubectl` and `apply` leave it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookRun {
    pub object: ObjId,
    pub hook: crate::model::kube::HelmHook,
    /// The release: namespace and name.
    pub release: (crate::model::Str, crate::model::Str),
    /// `helm.sh/hook-weight`.
    pub weight: i32,
    /// Pre-delete: it runs before this step; post-delete: after it.
    pub step: u32,
}

/// An input of the plan, as a plan file records it.
#[derive(Clone, Debug)]
pub struct Input {
    pub path: String,
    pub sha256: String,
}

pub struct Plan {
    pub options_mode: Mode,
    pub cascade_mode: CascadeMode,
    /// The rule the cascade followed (`by-dialect` when the snapshot's
    /// dialects differ and no `--multi-owner` was given).
    pub multi_owner: MultiOwner,
    /// The snapshot's relations, then those `--finalizer-controller` adds,
    /// then the default rules' edges between objects of the plan.
    pub relations: Vec<Relation>,
    /// How many of `relations` are the snapshot's (see [`build_from`]).
    pub snapshot_relations: usize,
    /// Relations the collector of a tracking application (KubeVela) does not
    /// follow, by relation index (empty: none): what a tracker releases
    /// rather than deletes.
    pub gates: Vec<Option<Gate>>,
    graph: LazyGraph,
    pub cascade: Cascade,
    pub order: Order,
    /// The objects of each step (index 0 is step 1), in reference order.
    pub steps: Vec<Vec<ObjId>>,
    /// Why each deleted object is deleted (with [`Detail::reasons`]).
    pub reasons: reasons::Reasons,
    /// The kept objects, in reference order, and why each stays.
    pub kept: Vec<(ObjId, Kept)>,
    /// The orphaned objects, in reference order, with the owner whose
    /// reference they lose.
    pub orphaned: Vec<(ObjId, ObjId)>,
    pub warnings: Vec<Warning>,
    /// References of every object, by index (computed once).
    pub refs: crate::analysis::refs::Refs,
    /// Owner references that name no object of the snapshot, as written
    /// (`Network.operator.openshift.io/cluster`), for reasons to point at.
    pub owner_refs: Vec<String>,
    /// Murano notifications and destructions, in order (empty for other dialects).
    pub events: Vec<Event>,
    /// Murano objects destroyed by the plan that surviving objects still
    /// refer to by id (they stay in the model, marked `destroyed: true`),
    /// with those objects, in reference order.
    pub still_referenced: HashMap<ObjId, Vec<ObjId>>,
    /// `--root`: where Murano's collection started (else at each model's root).
    pub root: Option<ObjId>,
    /// Which objects are objects of an object model (empty when none is).
    pub members: Vec<bool>,
    /// The keys of the snapshot's object models, for messages.
    pub models: &'static crate::model::ModelKeys,
    /// Each object's 1-based line in its file (with [`Detail::places`]).
    pub lines: Vec<u32>,
    /// The inputs and their digests (with [`Detail::places`]).
    pub inputs: Vec<Input>,
    /// `--dialect`, when one was forced: a plan file records it, so that
    /// `apply` reads the inputs as the plan did.
    pub dialect: Option<String>,
    /// The `plan` command that made it, as a plan file records it
    /// ([`crate::cli::Recorded`]): `apply` makes the plan again from it.
    pub command: Vec<String>,
    /// `--delete` / `--prune`: the targets, in the order given.
    pub targets: Vec<ObjId>,
    /// `--gc` of a snapshot with resource trackers: the collector's stages.
    pub stages: Option<tracking::Stages>,
    /// Helm hooks that run around the steps, in the order they run.
    pub hooks: Vec<HookRun>,
    /// `--as TOOL`: the order that tool would delete the plan's objects in.
    pub tool_order: Option<tool_order::ToolOrder>,
    /// What the plan destroys for good, in plan order.
    pub data_loss: Vec<crate::analysis::data_loss::Loss>,
    /// Each loss's object and place in `data_loss`, by object.
    pub loss_index: Vec<(u32, u32)>,
}

impl Plan {
    /// What deleting `id` destroys for good, if anything.
    pub fn loss_of(&self, id: ObjId) -> Option<&crate::analysis::data_loss::Loss> {
        let at = self.loss_index.binary_search_by_key(&id.0, |&(o, _)| o).ok()?;
        self.data_loss.get(self.loss_index.get(at)?.1 as usize)
    }
}

impl Plan {
    /// The graph of the plan's relations (built on first use).
    pub fn graph(&self) -> &Graph {
        self.graph.get(&self.relations)
    }

    /// Let the graph go before an output that walks none (it is built
    /// again if asked for): a plan of a million objects holds tens of
    /// megabytes in it.
    pub fn forget_graph(&mut self) {
        self.graph.forget();
    }

    pub fn deleted_count(&self) -> usize {
        self.steps.iter().map(Vec::len).sum()
    }

    /// What names objects and absent owners in messages.
    pub fn names(&self) -> reasons::Names<'_> {
        reasons::Names { refs: &self.refs, owner_refs: &self.owner_refs }
    }

    /// Is an object orphaned from `owner` because `owner` carries the
    /// `orphan` finalizer (not because `--cascade orphan` names it)?
    pub fn orphaned_by_finalizer(&self, owner: ObjId) -> bool {
        let named =
            matches!(self.cascade.cause.get(owner.index()), Some(Some(crate::analysis::cascade::Cause::Target)));
        !(named && self.cascade_mode == crate::analysis::cascade::CascadeMode::Orphan)
    }

    /// Finalizers an object waits for: all but the collector's own.
    pub fn waits_for<'a>(&self, o: &'a Object) -> impl Iterator<Item = &'a str> {
        waits_for(o)
    }
}

/// Finalizers an object waits for: all but the collector's own.
pub fn waits_for(o: &Object) -> impl Iterator<Item = &str> {
    o.finalizers.iter().map(|f| &**f).filter(|f| crate::dialect::waits_for_finalizer(o, f))
}
