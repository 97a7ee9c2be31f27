//! `plan --as TOOL`: the order another tool would delete the plan's objects
//! in, beside teardown's, and every place where that order destroys an
//! object before one that still needs it. Typed data, made by
//! [`crate::analysis::tool_order`] over the plan's objects and the
//! relations the plan is ordered by; rendered by `render::tool_order`.
//! Nothing here changes the plan.

use super::reasons::Names;
use crate::model::kube::HelmHook;
use crate::model::{ObjId, RelKind, Relation, Str};
use std::fmt::Write as _;

/// The tools whose deletion order `plan --as` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// `helm uninstall` of Helm 3: kinds in Helm's UninstallOrder (webhook
    /// configurations are not in it: they go last, with custom resources),
    /// delete calls one kind at a time, none waiting for deletion.
    Helm,
    /// `helm uninstall` of Helm 4, whose UninstallOrder starts with the
    /// webhook configurations (helm/helm#30701).
    Helm4,
    /// Argo CD deleting an Application (cascade) or pruning: highest sync
    /// wave first, a whole wave at once, the next once it is gone.
    Argocd,
    /// `kapp delete`: kapp's built-in change rules (custom resources, then
    /// CRDs, then the rest) and the objects' own delete change rules.
    Kapp,
    /// Flux kustomize-controller's garbage collection: each Kustomization
    /// deletes what it applied, in reverse apply order, one call at a time.
    Flux,
}

impl Tool {
    pub fn id(self) -> &'static str {
        match self {
            Tool::Helm => "helm",
            Tool::Helm4 => "helm4",
            Tool::Argocd => "argocd",
            Tool::Kapp => "kapp",
            Tool::Flux => "flux",
        }
    }

    /// The tool's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Helm => "Helm 3",
            Tool::Helm4 => "Helm 4",
            Tool::Argocd => "Argo CD",
            Tool::Kapp => "kapp",
            Tool::Flux => "Flux",
        }
    }

    /// What the tool's units are called (`release`, `Kustomization`…).
    pub fn unit_noun(self) -> &'static str {
        match self {
            Tool::Helm | Tool::Helm4 => "release",
            Tool::Argocd => "Application",
            Tool::Kapp => "app",
            Tool::Flux => "Kustomization",
        }
    }

    /// Does the tool wait until a batch is gone before it deletes the next?
    pub fn waits(self) -> bool {
        matches!(self, Tool::Argocd | Tool::Kapp)
    }
}

/// What a batch of the tool's order is, as the tool sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchKey {
    /// Helm: one kind of its UninstallOrder (`known`) or a kind it does not
    /// know (those go last, alphabetically).
    Kind { kind: Str, known: bool },
    /// A Helm hook, run (and waited for) one at a time.
    Hook { hook: HelmHook, weight: i32 },
    /// Argo CD: a sync wave.
    Wave(i32),
    /// kapp: a level of its change graph.
    Level,
    /// Flux: one delete call.
    Call,
}

impl BatchKey {
    /// `Service`, `wave 5`, `pre-delete hook, weight 1`; empty for kapp's
    /// levels and Flux's calls, which the rank says.
    pub fn text(&self) -> String {
        match self {
            BatchKey::Kind { kind, .. } => kind.to_string(),
            BatchKey::Hook { hook, weight } => format!("{} hook, weight {weight}", hook_name(*hook)),
            BatchKey::Wave(w) => format!("wave {w}"),
            BatchKey::Level | BatchKey::Call => String::new(),
        }
    }

    /// Is the batch a hook the tool runs (rather than deletes)?
    pub fn is_hook(&self) -> bool {
        matches!(self, BatchKey::Hook { .. })
    }
}

pub fn hook_name(h: HelmHook) -> &'static str {
    match h {
        HelmHook::PreDelete => "pre-delete",
        HelmHook::PostDelete => "post-delete",
        HelmHook::Other => "other",
    }
}

/// Objects the tool deletes (or, for a hook, runs) together: nothing orders
/// them among themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Index into [`ToolOrder::units`].
    pub unit: u32,
    /// 1-based position in its unit's order.
    pub rank: u32,
    pub key: BatchKey,
    /// In teardown's plan order (step, then reference).
    pub objects: Vec<ObjId>,
}

/// One of the tool's units: a release, an Application, a kapp app, a
/// Kustomization (namespace/name), or `None` when the snapshot names none
/// and is read as one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unit {
    pub name: Option<Str>,
}

/// An annotation that makes the tool keep an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// `helm.sh/resource-policy: keep` (Helm, and Argo CD).
    HelmKeep,
    /// `argocd.argoproj.io/sync-options: Delete=false`.
    ArgoNoDelete,
    /// `kapp.k14s.io/delete-strategy: orphan`.
    KappOrphan,
    /// `kustomize.toolkit.fluxcd.io/prune: disabled`.
    FluxPruneDisabled,
}

impl Keep {
    pub fn annotation(self) -> &'static str {
        match self {
            Keep::HelmKeep => "helm.sh/resource-policy: keep",
            Keep::ArgoNoDelete => "argocd.argoproj.io/sync-options: Delete=false",
            Keep::KappOrphan => "kapp.k14s.io/delete-strategy: orphan",
            Keep::FluxPruneDisabled => "kustomize.toolkit.fluxcd.io/prune: disabled",
        }
    }
}

/// Why the tool does not delete one of the plan's objects itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Other {
    /// It goes with this object, which the tool deletes (or which goes with
    /// another): the garbage collector (`owns`, `manages`), the namespace
    /// controller (`contains`), the CRD's cleanup (`defines`).
    With { carrier: ObjId, how: RelKind },
    /// The tool keeps it, as this annotation says.
    Kept(Keep),
    /// The snapshot names units of the tool, and none holds it.
    NotManaged,
    /// A Helm hook of another event: `helm uninstall` neither runs nor
    /// deletes it.
    OtherHook,
    /// Argo CD never deletes a CustomResourceDefinition with its
    /// Application.
    NeverDeleted,
}

impl Other {
    pub fn id(&self) -> &'static str {
        match self {
            Other::With { .. } => "with",
            Other::Kept(_) => "kept",
            Other::NotManaged => "not-managed",
            Other::OtherHook => "other-hook",
            Other::NeverDeleted => "never-deleted",
        }
    }

    /// `with Deployment.apps/gk/ctrl (garbage collector)` and the like.
    pub fn message(&self, tool: Tool, names: &Names) -> String {
        match self {
            Other::With { carrier, how } => format!("with {} ({})", names.of(*carrier), carrier_name(*how)),
            Other::Kept(k) => format!("kept: {}", k.annotation()),
            Other::NotManaged => format!("in no {}: {} does not delete it", tool.unit_noun(), tool.name()),
            Other::OtherHook => String::from("a hook of another event: helm uninstall leaves it"),
            Other::NeverDeleted => String::from("Argo CD never deletes a CRD with its Application"),
        }
    }
}

/// Who deletes a dependent that goes with its owner.
pub fn carrier_name(how: RelKind) -> &'static str {
    match how {
        RelKind::Contains => "namespace controller",
        RelKind::Defines => "CRD cleanup",
        _ => "garbage collector",
    }
}

/// Where the tool deletes an object: its unit, its batch's rank and key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pos {
    pub unit: Option<Str>,
    pub rank: u32,
    pub key: BatchKey,
    /// It is not deleted by the tool itself but goes with this object.
    pub with: Option<ObjId>,
}

impl Pos {
    /// `batch 3, Service`, `wave 2`, `with Deployment.apps/gk/ctrl, call 4`;
    /// with `unit`, then ` of release gk/gatekeeper`.
    fn write(&self, tool: Tool, unit: bool, names: &Names, out: &mut String) {
        if let Some(w) = self.with {
            let _ = write!(out, "with {}, ", names.of(w));
        }
        let _ = match (&self.key, tool) {
            (BatchKey::Kind { kind, .. }, _) => write!(out, "batch {}, {kind}", self.rank),
            (k @ (BatchKey::Hook { .. } | BatchKey::Wave(_)), _) => write!(out, "{}", k.text()),
            (BatchKey::Level, _) => write!(out, "level {}", self.rank),
            (BatchKey::Call, _) => write!(out, "call {}", self.rank),
        };
        if let Some(u) = self.unit.as_ref().filter(|_| unit) {
            let _ = write!(out, " of {} {u}", tool.unit_noun());
        }
    }
}

/// How the tool's order breaks a constraint of teardown's plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Breach {
    /// The tool deletes the needed object in an earlier batch (for Helm and
    /// Flux: its delete call goes out earlier).
    Before,
    /// In the same batch: deleted at once, nothing makes it wait.
    Together,
    /// In different units, which nothing orders.
    Unordered,
    /// The tool deletes it and leaves what needs it.
    Leaves,
}

impl Breach {
    pub fn id(self) -> &'static str {
        match self {
            Breach::Before => "before",
            Breach::Together => "together",
            Breach::Unordered => "unordered",
            Breach::Leaves => "leaves",
        }
    }
}

/// An object that still needs the one deleted too early, and where the tool
/// deletes it (`None`: it does not, and why).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Needing {
    pub object: ObjId,
    pub at: Option<Pos>,
    /// Why the tool leaves it (with [`Breach::Leaves`]).
    pub left: Option<Other>,
}

/// The tool deletes `first` before (or with, or regardless of) objects that
/// teardown destroys before it, by one kind of relation. One per object
/// deleted too early, per breach and per kind of relation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFinding {
    pub tool: Tool,
    pub breach: Breach,
    pub first: ObjId,
    pub first_at: Pos,
    /// What still needs it, in teardown's plan order.
    pub needed_by: Vec<Needing>,
    /// The constraint of teardown's plan broken (`first` is its `from`; the
    /// first of `needed_by` its `to`).
    pub relation: Relation,
}

/// The constraint a relation is, for messages and JSON: `ownership`,
/// `destruction` (a destruction dependency) or `rule` (a default rule).
pub fn constraint_type(kind: RelKind) -> &'static str {
    if kind.rule().is_some() {
        "rule"
    } else if kind.is_ownership() {
        "ownership"
    } else {
        "destruction"
    }
}

/// `ownership: contains`, `default rule storage-after-claims: bound-claim`.
pub fn constraint_text(kind: RelKind) -> String {
    match kind.rule() {
        Some(e) => format!("default rule {}: {}", e.rule().id(), e.id()),
        None if kind.is_ownership() => format!("ownership: {}", kind.as_str()),
        None => format!("destruction dependency: {}", kind.as_str()),
    }
}

/// How many of the objects a finding is about its message names.
const SHOWN: usize = 3;

impl ToolFinding {
    pub fn message(&self, names: &Names) -> String {
        let tool = self.tool;
        let mut out = String::new();
        let first = names.of(self.first);
        // Units are said where they differ.
        let units = self.breach == Breach::Unordered;
        let mut pos = String::new();
        self.first_at.write(tool, units, names, &mut pos);
        let _ = match self.breach {
            Breach::Before => write!(out, "{} deletes {first} ({pos}) before ", tool.name()),
            Breach::Together => write!(out, "{} deletes {first} in the same batch ({pos}) as ", tool.name()),
            Breach::Unordered => write!(out, "{} deletes {first} ({pos}) independently of ", tool.name()),
            Breach::Leaves => write!(out, "{} deletes {first} ({pos}) but leaves ", tool.name()),
        };
        // What goes with another of the list is said with it.
        let listed = |x: ObjId| self.needed_by.iter().any(|n| n.object == x);
        let goes_with = |n: &Needing| n.at.as_ref().and_then(|p| p.with).filter(|w| listed(*w));
        let shown: Vec<&Needing> = self.needed_by.iter().filter(|n| goes_with(n).is_none()).collect();
        for (i, n) in shown.iter().take(SHOWN).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(names.of(n.object));
            let mut at = String::new();
            match (&n.at, &n.left) {
                (Some(p), _) if self.breach != Breach::Together => p.write(tool, units, names, &mut at),
                (Some(Pos { with: Some(w), .. }), _) => {
                    let _ = write!(at, "with {}", names.of(*w));
                }
                (_, Some(o)) => at = o.message(tool, names),
                _ => {}
            }
            if !at.is_empty() {
                let _ = write!(out, " ({at})");
            }
            match self.needed_by.iter().filter(|m| goes_with(m) == Some(n.object)).count() {
                0 => {}
                1 => out.push_str(" and 1 object that goes with it"),
                k => {
                    let _ = write!(out, " and {k} objects that go with it");
                }
            }
        }
        if shown.len() > SHOWN {
            let _ = write!(out, " and {} more", shown.len() - SHOWN);
        }
        let still = match (self.breach, self.needed_by.len()) {
            (Breach::Leaves, 1) => "which still needs it",
            (Breach::Leaves, _) => "which still need it",
            _ => "which teardown destroys first",
        };
        let _ = write!(out, ", {still} ({})", constraint_text(self.relation.kind));
        match (self.breach, tool) {
            (Breach::Together, _) => out.push_str("; nothing makes it wait"),
            (Breach::Unordered, Tool::Flux) => out.push_str(
                "; Kustomizations delete what they applied independently, not in reverse dependsOn (fluxcd/kustomize-controller#301)",
            ),
            (Breach::Unordered, Tool::Argocd) => out.push_str("; each Application deletes its own objects"),
            (Breach::Unordered, _) => {
                let _ = write!(out, "; the order you delete the {}s in decides", tool.unit_noun());
            }
            _ => {}
        }
        out
    }

    /// The objects it is about: the one deleted too early, then those
    /// that need it.
    pub fn refs<'a>(&self, names: &Names<'a>) -> Vec<&'a str> {
        std::iter::once(self.first).chain(self.needed_by.iter().map(|n| n.object)).map(|x| names.of(x)).collect()
    }
}

/// The tool's order over the plan's objects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOrder {
    pub tool: Tool,
    /// The units, by name.
    pub units: Vec<Unit>,
    /// Unit by unit, in the order the tool issues them.
    pub batches: Vec<Batch>,
    /// The plan's objects the tool does not delete itself, in reference
    /// order, and why.
    pub others: Vec<(ObjId, Other)>,
    pub findings: Vec<ToolFinding>,
    /// kapp: objects whose delete change rules form a cycle, which kapp
    /// refuses to apply (its last level here).
    pub cycle: Vec<ObjId>,
}

/// The order `tool` would delete the objects of `plan` in.
pub fn of(objects: &[crate::model::Object], plan: &super::Plan, tool: Tool) -> ToolOrder {
    crate::analysis::tool_order::order(
        &crate::analysis::tool_order::Input {
            objects,
            relations: &plan.relations,
            relaxed: &plan.order.relaxed,
            step: &plan.order.step,
            refs: &plan.refs,
        },
        tool,
    )
}
