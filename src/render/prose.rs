//! The words of a plan: reasons, warnings, kept and orphaned objects,
//! hooks and another tool's order, as text. `plan` makes typed values
//! (`plan::reasons`, `plan::warnings`, `plan::tool_order`); every output
//! that says them in English says them through here, so that one place
//! holds the prose and `src/plan/` none (the test at the end keeps it so).

use crate::analysis::cascade::{self, Cause, Keep};
use crate::analysis::order::conflict_message;
use crate::analysis::tracking::Mark;
use crate::dialect::tools::{keep_mark, ARGOCD_SYNC_WAVE, CLI_UTILS_MUTATION, KAPP_CHANGE_RULE, KUBEVELA_SHARED_BY};
use crate::model::kube::{HelmHook, KappAction, KappRule, KappWhen, Reclaim};
use crate::model::served::Unresolvable;
use crate::model::tracking::Workflow;
use crate::model::{ControllerEdge, ObjId, RelKind, Relation, RuleEdge, ToolOrder};
use crate::plan::reasons::{Garbage, Kept, Names, Reason, Root, ToolWhy};
use crate::plan::tool_order::{BatchKey, Breach, Needing, Other, Pos, Tool, ToolFinding};
use crate::plan::tracking::MarkStage;
use crate::plan::warnings::{Ignored, Warning};
use crate::plan::Mode;
use crate::plan::{HookRun, Plan};
use std::fmt::Write as _;

// Reasons: why an object is deleted.

impl Reason {
    /// The reason as text.
    pub fn write(&self, names: &Names, out: &mut String) {
        let _ = match self {
            // (Words and names joined as they are: a plan of a whole
            // cluster says a reason for each object.)
            Reason::Target => said(out, &["target"]),
            Reason::AbsentFromNew => said(out, &["absent from NEW"]),
            Reason::OwnedBy(x) => said(out, &["owned by ", names.of(*x)]),
            Reason::ManagedBy(x) => said(out, &["managed by ", names.of(*x)]),
            Reason::ManagedThrough { app, controller } => {
                write!(out, "managed by {} {} ({})", names.of(*app), controller.through(), controller.name())
            }
            Reason::InNamespace(x) => said(out, &["in ", names.of(*x)]),
            Reason::DefinedBy(x) => said(out, &["defined by ", names.of(*x)]),
            Reason::With(x) => said(out, &["with ", names.of(*x)]),
            Reason::Garbage(g) => write_garbage(g, names, out),
            Reason::Notifies(x) => said(out, &["notifies ", names.of(*x)]),
            Reason::DependsOn(x) => said(out, &["depends-on ", names.of(*x)]),
            Reason::DestroyedAfter(x) => said(out, &["destroyed after ", names.of(*x)]),
            Reason::After { first, shown, more } => {
                out.push_str("after ");
                for (i, x) in first.iter().take(usize::from(*shown)).enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(names.of(*x));
                }
                match more {
                    0 => Ok(()),
                    n => write!(out, " and {n} more"),
                }
            }
            Reason::SubscribedTo(x) => said(out, &["subscribed to ", names.of(*x)]),
            Reason::WaitsFor { finalizer, removed_by: Some(x) } => {
                write!(out, "waits for finalizer {finalizer} (removed by {})", names.of(*x))
            }
            Reason::WaitsFor { finalizer, removed_by: None } => write!(out, "waits for finalizer {finalizer}"),
            Reason::Rule { edge, after } => said(
                out,
                &["after ", names.of(*after), ", ", rule_why(*edge), " (default rule ", edge.rule().id(), ")"],
            ),
            Reason::MutatesFrom(x) => {
                write!(out, "takes a value from {} ({CLI_UTILS_MUTATION})", names.of(*x))
            }
            Reason::Tool { why, after } => write_tool(why, *after, names, out),
            Reason::Controller { edge, by } => {
                let (lead, why) = controller_why(*edge);
                said(out, &[lead, " ", names.of(*by), " (", why, ")"])
            }
        };
    }
}

fn write_tool(why: &ToolWhy, after: ObjId, names: &Names, out: &mut String) -> std::fmt::Result {
    let after = names.of(after);
    match why {
        ToolWhy::SyncWave { app, wave, after_wave } => write!(
            out,
            "after {after}, of sync wave {after_wave} (Argo CD {ARGOCD_SYNC_WAVE}: application {app} deletes wave {after_wave} before wave {wave})"
        ),
        ToolWhy::KappRule { rule, declared_by } => write!(
            out,
            "after {after} ({KAPP_CHANGE_RULE} `{}` of {})",
            kapp_rule_text(rule),
            names.of(*declared_by)
        ),
        ToolWhy::FluxDependsOn => write!(out, "after {after}, which depends on it (Flux spec.dependsOn)"),
        ToolWhy::UsageBy { usage } => {
            write!(out, "after {after}, which uses it (Crossplane {})", names.of(*usage))
        }
        ToolWhy::UsageOf => write!(out, "after {after}, the Crossplane Usage that protects it"),
        ToolWhy::Record(ToolOrder::KappRecord) => {
            write!(out, "after {after}: kapp deletes the app record once the app's objects are gone")
        }
        ToolWhy::Record(_) => write!(out, "after {after}: Helm purges the release's records after its objects"),
    }
}

fn write_garbage(g: &Garbage, names: &Names, out: &mut String) -> std::fmt::Result {
    match g {
        Garbage::BeingDeleted(field) => write!(out, "being deleted ({field} is set)"),
        Garbage::OwnerNotInSnapshot(k) => {
            write!(out, "garbage: owner {} is not in the snapshot (--closed-world)", names.owner(*k))
        }
        Garbage::OwnerUidMismatch(x) => write!(out, "garbage: owner {} has another uid", names.of(*x)),
        Garbage::OwnerUidOfAnother { owner, uid_of } => write!(
            out,
            "garbage: owner {} is not in the snapshot; its uid is {}'s",
            names.owner(*owner),
            names.of(*uid_of)
        ),
        Garbage::OwnerInOtherNamespace(x) => write!(out, "garbage: owner {} is in another namespace", names.of(*x)),
        Garbage::OwnerBeingDeleted(x) => write!(out, "garbage: owner {} is being deleted", names.of(*x)),
        Garbage::NoOwnerLeft => write!(out, "garbage: no owner left"),
        Garbage::RemovedFromModel(words) => out.write_str(words),
        Garbage::Unreachable(Root::Object(x)) => write!(out, "garbage: unreachable from the root {}", names.of(*x)),
        Garbage::Unreachable(Root::Named(r)) => write!(out, "garbage: unreachable from the root {r}"),
        Garbage::Unreachable(Root::None) => write!(out, "garbage: unreachable (no root)"),
        Garbage::OutdatedTracker { app, generation, current } => write!(
            out,
            "mark: outdated tracker (generation {generation}; {} is at generation {current})",
            names.of(*app)
        ),
        Garbage::AppBeingDeleted(app) => write!(out, "mark: its application {} is being deleted", names.of(*app)),
        Garbage::AppNotInSnapshot(app) => {
            write!(out, "mark: its application {app} is not in the snapshot (--closed-world)")
        }
        Garbage::UnusedRevision(c) => {
            write!(out, "garbage: revision of component {c}, which no tracker that stays records")
        }
        Garbage::ClaimGone { claim, replaced: true } => write!(
            out,
            "garbage: its claim {claim} was deleted (the claim of that name has another uid); reclaim policy Delete: the volume controller deletes it"
        ),
        Garbage::ClaimGone { claim, replaced: false } => write!(
            out,
            "garbage: its claim {claim} is not in the snapshot (--closed-world); reclaim policy Delete: the volume controller deletes it"
        ),
    }
}

/// Reasons joined as one line of text (`owned by X; waits for finalizer f`).
pub fn reasons(reasons: &[Reason], names: &Names) -> String {
    let mut out = String::new();
    reasons_into(reasons, names, &mut out);
    out
}

/// [`reasons`], written at the end of `out` (the plan's JSON says them
/// for every object, into one buffer a thread).
pub fn reasons_into(reasons: &[Reason], names: &Names, out: &mut String) {
    for (i, r) in reasons.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        r.write(names, out);
    }
}

/// `words` one after the other, at the end of `out` (what `write!` of
/// them would write, without formatting).
fn said(out: &mut String, words: &[&str]) -> std::fmt::Result {
    for w in words {
        out.push_str(w);
    }
    Ok(())
}

/// A kapp change rule as written.
fn kapp_rule_text(r: &KappRule) -> String {
    let verb = |a: KappAction| match a {
        KappAction::Upsert => ("upsert", "upserting"),
        KappAction::Delete => ("delete", "deleting"),
    };
    let when = match r.when {
        KappWhen::Before => "before",
        KappWhen::After => "after",
    };
    format!("{} {when} {} {}", verb(r.action).0, verb(r.other).1, r.group)
}

/// How a controller's cascade takes an object: what it is to the object
/// that takes it, and what the controller does.
fn controller_why(e: ControllerEdge) -> (&'static str, &'static str) {
    match e {
        ControllerEdge::ServiceEndpoints => {
            ("with", "the endpoints controller deletes the Endpoints of a deleted Service")
        }
        ControllerEdge::NodePods => ("bound to", "the pod garbage collector deletes the Pods of a deleted Node"),
        ControllerEdge::ReclaimDelete => {
            ("bound to", "reclaim policy Delete: the volume controller deletes the volume of a deleted claim")
        }
        ControllerEdge::Released => ("bound to", "its reclaim policy keeps the volume"),
    }
}

/// Why a default rule puts an object after another, said of the other.
fn rule_why(e: RuleEdge) -> &'static str {
    match e {
        RuleEdge::BoundClaim => "the claim bound to it",
        RuleEdge::OfClass => "which is of its storage class",
        RuleEdge::RunsAs => "which runs as it",
        RuleEdge::Grants => "which runs as a ServiceAccount it binds",
        RuleEdge::GrantedRole => "which runs as a ServiceAccount granted it",
        RuleEdge::CallsService => "which calls it",
        RuleEdge::CallsBackend => "which calls a Service in front of it",
        RuleEdge::PodFirst => "as the Pods of its namespace go first",
        // (The order names the Pod instead; said of the Namespace.)
        RuleEdge::AfterPods => "whose Pods go first",
    }
}

/// Why another tool's metadata puts an object after another, said of the
/// other.
fn tool_why(o: ToolOrder) -> &'static str {
    match o {
        ToolOrder::SyncWave => "of a higher sync wave of its application",
        ToolOrder::KappRule => "by a change rule",
        ToolOrder::FluxDependsOn => "which depends on it",
        ToolOrder::UsageBy => "which uses it",
        ToolOrder::UsageOf => "the Usage that protects it",
        ToolOrder::HelmRecord => "an object of its release",
        ToolOrder::KappRecord => "an object of its app",
    }
}

/// An orphaned object's reason, as text: its owner is deleted with
/// `--cascade orphan`, or (`by_finalizer`) carries the `orphan` finalizer,
/// which the collector honours.
pub fn orphaned_message(owner: ObjId, names: &Names, by_finalizer: bool) -> String {
    match by_finalizer {
        false => format!("owner reference to {} removed (--cascade orphan)", names.of(owner)),
        true => format!(
            "owner reference to {} removed: it is deleted with the orphan finalizer, which the garbage collector honours",
            names.of(owner)
        ),
    }
}

/// The Kubernetes garbage collector's rule for an owner with the `orphan`
/// finalizer, and where upstream says so.
pub const ORPHAN_FINALIZER_RULE: &str = "an owner being deleted with the orphan finalizer has its dependents' references to it removed, and a dependent the collector deletes that carries the orphan finalizer is deleted with propagation Orphan (kubernetes/kubernetes pkg/controller/garbagecollector/garbagecollector.go: attemptToDeleteItem \"if an existing orphan finalizer is already on the object, honor it\", orphanDependents; graph_builder.go processTransitions)";

// Kept objects.

impl Kept {
    pub fn message(&self, names: &Names) -> String {
        match self {
            Kept::StillManagedBy(_) | Kept::Released { .. } => format!("finalize: {}", self.detail(names)),
            _ => self.detail(names),
        }
    }

    /// The message without the collector stage that decided it.
    pub fn detail(&self, names: &Names) -> String {
        let objects = |n: u32| if n == 1 { "object" } else { "objects" };
        match self {
            Kept::StillOwnedBy(x) => format!("still owned by {}", names.of(*x)),
            Kept::StillManagedBy(x) => format!("still managed by the active tracker {}", names.of(*x)),
            Kept::Released { tracker, app, keep, rule, about } => {
                let app = app.map_or("its application", |a| names.of(a));
                let named = rule.as_ref().map(|(policy, n)| match policy {
                    Some(policy) => format!("rule {n} of policy {policy}"),
                    None => format!("rule {n} of the garbage-collect policy"),
                });
                match keep {
                    Keep::SkipGc => match named {
                        Some(rule) => format!(
                            "released, not deleted: {} records it with skipGC ({rule} of {app}: strategy: never)",
                            names.of(*tracker)
                        ),
                        None => format!("released, not deleted: {} records it with skipGC", names.of(*tracker)),
                    },
                    Keep::Orphan { .. } => format!(
                        "released, not deleted, by {} of {app} (propagation: orphan)",
                        named.as_deref().unwrap_or("a rule")
                    ),
                    Keep::OrphanFinalizer => format!(
                        "released, not deleted: {app} carries the finalizer {} (vela delete --orphan)",
                        crate::dialect::kubevela::labels::ORPHAN_FINALIZER
                    ),
                    Keep::NotOwned => match about {
                        Some(other) => format!(
                            "not {app}'s any more: its labels name the Application {other}, and {KUBEVELA_SHARED_BY} does not list {app}; its collector leaves it"
                        ),
                        None => format!(
                            "not {app}'s any more: its labels name no Application (released), and {KUBEVELA_SHARED_BY} does not list {app}; its collector leaves it"
                        ),
                    },
                    Keep::Shared => format!(
                        "shared ({KUBEVELA_SHARED_BY}: {}): {app} only leaves its sharers; the last sharer deletes it",
                        about.as_deref().unwrap_or("")
                    ),
                }
            }
            Kept::NamespacedOwner(x) => {
                format!("a cluster-scoped object with a namespaced owner ({}) is never collected", names.of(*x))
            }
            Kept::NamespacedOwnerRef(owner) => {
                format!("a cluster-scoped object with a namespaced owner ({owner}) is never collected")
            }
            Kept::CollectorDone { owner, finalizers } => format!(
                "owner {} is being deleted without {}: its collector is done with it and deletes no dependent",
                names.of(*owner),
                finalizers.join(" or ")
            ),
            Kept::AlreadyDestroyed => "already destroyed (`destroyed: true`)".into(),
            Kept::Reachable => "still reachable from the root".into(),
            Kept::InNewModel => "still in the new model".into(),
            Kept::Protected { deleted_inside: n } => {
                format!("protected namespace: the API server refuses to delete it ({n} {} in it deleted)", objects(*n))
            }
            Kept::OwnerNotInSnapshot(k) => {
                format!("owner {} not in snapshot (the cluster may have it; see --closed-world)", names.owner(*k))
            }
            Kept::ClaimNotInSnapshot(claim) => {
                format!("its claim {claim} is not in the snapshot (the cluster may have it; see --closed-world)")
            }
            Kept::DeclaredInNew => "declared in NEW".into(),
            Kept::HoldsNew(n) => format!("still holds {n} {} NEW declares", objects(*n)),
            Kept::Annotated(m) => {
                format!("{} ({} leaves it)", keep_mark(*m), m.tool())
            }
            Kept::HelmHook { hook, release: (ns, name) } => format!(
                "Helm {} hook of release {ns}/{name}: Helm creates and runs it, it does not delete it",
                hook_name(*hook)
            ),
            Kept::InUse { usage, by: Some(by), .. } => format!(
                "in use by {} (Crossplane {}): the API refuses to delete it while both stay",
                names.of(*by),
                names.of(*usage)
            ),
            Kept::InUse { usage, by: None, reason } => format!(
                "protected by Crossplane {}{}: the API refuses to delete it while the Usage stays",
                names.of(*usage),
                reason.as_ref().map(|r| format!(" ({r})")).unwrap_or_default()
            ),
            Kept::Reclaim { claim, policy } => {
                let what = match policy {
                    Reclaim::Delete => "Delete",
                    Reclaim::Retain => "Retain: the volume controller releases it, with its data",
                    Reclaim::RetainByDefault => {
                        "not written, so Retain (the default for a volume created directly): the volume controller releases it, with its data"
                    }
                    Reclaim::Recycle => {
                        "Recycle: the volume controller scrubs it and makes it available again; the object stays"
                    }
                    Reclaim::Unknown => "not Delete, Retain or Recycle (the API server refuses it): taken as Retain",
                };
                format!("its claim {} is deleted; reclaim policy {what}", names.of(*claim))
            }
            Kept::UnresolvableOwner { owner, why, api_kind } => {
                let crd = match why {
                    Unresolvable::CrdVersion(c) => names.refs.name(*c),
                    _ => "",
                };
                let detail = api_kind.as_ref().map(|(api, kind)| why.describe(api, kind, crd)).unwrap_or_default();
                format!(
                    "the garbage collector cannot resolve its owner reference {owner} ({detail}): it never collects it, nor deletes it with an owner"
                )
            }
            Kept::Managed { app, controller, keep } => managed_detail(names.of(*app), *controller, keep),
        }
    }

    /// The collector's rule that keeps it and where upstream says so, for
    /// the reasons that follow a rule of the Kubernetes garbage collector
    /// teardown names (`explain`).
    pub fn rule(&self) -> Option<&'static str> {
        match self {
            Kept::UnresolvableOwner { .. } => Some(UNRESOLVABLE_RULE),
            _ => None,
        }
    }

    /// Why deleting an owner does not take it, in a few words (`explain`).
    pub fn because(&self) -> &'static str {
        match self {
            Kept::StillOwnedBy(_) | Kept::NamespacedOwner(_) | Kept::NamespacedOwnerRef(_) => "another owner stays",
            Kept::StillManagedBy(_) => "an active tracker still manages it",
            Kept::Released { keep: Keep::SkipGc, .. } => "its tracker records it with skipGC",
            Kept::Released { keep: Keep::Orphan { .. }, .. } => "a garbage-collect rule releases it",
            Kept::Released { keep: Keep::OrphanFinalizer, .. } => "its Application is deleted with --orphan",
            Kept::Released { keep: Keep::NotOwned, .. } => "it no longer belongs to that Application",
            Kept::Released { keep: Keep::Shared, .. } => "another Application shares it",
            Kept::CollectorDone { .. } => "the collector no longer cascades from that owner",
            Kept::AlreadyDestroyed => "it is already destroyed",
            Kept::Reachable => "the root still reaches it",
            Kept::InNewModel => "the new model still holds it",
            Kept::Protected { .. } => "the API server refuses to delete it",
            Kept::OwnerNotInSnapshot(_) => "its owner may still exist in the cluster",
            Kept::ClaimNotInSnapshot(_) => "its claim may still exist in the cluster",
            Kept::DeclaredInNew => "NEW still declares it",
            Kept::HoldsNew(_) => "it still holds objects NEW declares",
            Kept::Annotated(_) => "an annotation tells its tool to leave it",
            Kept::HelmHook { .. } => "it is a Helm hook, which Helm runs",
            Kept::InUse { .. } => "a Crossplane Usage protects it",
            Kept::Reclaim { .. } => "its reclaim policy keeps it",
            Kept::UnresolvableOwner { .. } => "the collector cannot resolve one of its owner references",
            Kept::Managed { keep: crate::model::managed::Keep::Releases(_), .. } => {
                "its application's controller leaves it"
            }
            Kept::Managed { .. } => "the application's controller leaves it",
        }
    }
}

/// Why an application's controller leaves an object it manages, in words.
fn managed_detail(
    app: &str,
    controller: crate::model::managed::Controller,
    keep: &crate::model::managed::Keep,
) -> String {
    use crate::model::managed::Keep as K;
    let who = controller.name();
    match keep {
        K::Releases(r) => format!("managed by {app}, but {who} leaves it: {}", r.text),
        K::Marked { mark, .. } => format!("managed by {app}, but it carries {mark}: {who} leaves it"),
        K::NeverKind { text, .. } => format!("managed by {app}, but {text}"),
        K::Mismatch { text, .. } => format!("listed by {app}, but {text}: {who} leaves it"),
        K::ProtectedNamespace => format!("managed by {app}, but {who} never deletes this namespace"),
    }
}

/// The Kubernetes garbage collector's rule for an owner reference it cannot
/// resolve, and where upstream says so.
pub const UNRESOLVABLE_RULE: &str = "the collector looks an owner up through the REST mapping of the reference's apiVersion and kind; when there is none, it never deletes the dependent and retries it forever (kubernetes/kubernetes pkg/controller/garbagecollector/garbagecollector.go: isDangling, attemptToDeleteWorker; garbagecollector_test.go TestConflictingData \"child -> existing owner with inaccessible API version\"; test/integration/garbagecollector/cluster_scoped_owner_test.go TestClusterScopedOwners)";

// Helm hooks and the plan's arrows.

/// A Helm hook's name as its annotation writes it.
pub fn hook_name(h: HelmHook) -> &'static str {
    match h {
        HelmHook::PreDelete => "pre-delete",
        HelmHook::PostDelete => "post-delete",
        HelmHook::Other => "other",
    }
}

/// `before` or `after` its step.
pub fn hook_when(h: &HookRun) -> &'static str {
    match h.hook {
        HelmHook::PostDelete => "after",
        _ => "before",
    }
}

impl HookRun {
    /// Where it runs, in words.
    pub fn message(&self) -> String {
        format!(
            "Helm runs it {} step {} ({} hook of release {}/{}, weight {})",
            hook_when(self),
            self.step,
            hook_name(self.hook),
            self.release.0,
            self.release.1,
            self.weight
        )
    }
}

/// How a relation reads along a plan arrow, from what goes first to what
/// goes after it: `ReplicaSet -> Deployment` is "owned by".
pub fn along(kind: RelKind) -> &'static str {
    match kind {
        RelKind::Owns => "owned by",
        RelKind::Contains => "in",
        RelKind::Defines => "defined by",
        RelKind::DestroyAfter => "before",
        RelKind::Finalizer => "finalizer removed by",
        RelKind::Manages => "managed by",
        RelKind::ComponentOrder => "component before",
        RelKind::Rule(e) => match e {
            RuleEdge::BoundClaim => "bound to",
            RuleEdge::OfClass => "of class",
            RuleEdge::RunsAs => "runs as",
            RuleEdge::Grants => "runs as a subject of",
            RuleEdge::GrantedRole => "runs as a grantee of",
            RuleEdge::CallsService => "calls",
            RuleEdge::CallsBackend => "calls a Service in front of",
            RuleEdge::PodFirst => "Pods first in namespace",
            RuleEdge::AfterPods => "after the Pods of",
        },
        RelKind::Tool(e) => match e.order {
            ToolOrder::SyncWave => "higher sync wave than",
            ToolOrder::KappRule => "change rule before",
            ToolOrder::FluxDependsOn => "depends on",
            ToolOrder::UsageBy => "uses",
            ToolOrder::UsageOf => "protects",
            ToolOrder::HelmRecord | ToolOrder::KappRecord => "record after",
        },
        RelKind::Controller(e) => match e {
            ControllerEdge::ServiceEndpoints => "takes (endpoints controller)",
            ControllerEdge::NodePods => "bound to (pod garbage collector)",
            ControllerEdge::ReclaimDelete | ControllerEdge::Released => "takes (volume controller)",
        },
    }
}

// `explain`'s chains.

/// `X owns Y` read from X: the verb for a relation, in the cascade direction.
fn cascade_verb(r: &Relation) -> &'static str {
    match r.kind {
        RelKind::Owns => "owns",
        RelKind::Contains => "contains",
        RelKind::Defines => "defines",
        RelKind::Manages => "manages",
        RelKind::Controller(_) => "takes",
        RelKind::DestroyAfter | RelKind::Finalizer | RelKind::ComponentOrder | RelKind::Rule(_) | RelKind::Tool(_) => {
            "goes after"
        }
    }
}

/// `X takes Y (the endpoints controller)`: the cascade verb, the next
/// object, and for a controller's cascade who performs it.
pub fn cascade_phrase(r: &Relation, next: &str) -> String {
    if let Some(c) = crate::analysis::managed::controller(r) {
        return format!("manages {next} {} ({})", c.through(), c.name());
    }
    match r.kind {
        RelKind::Controller(e) => format!("{} {next} ({})", cascade_verb(r), controller_why(e).1),
        _ => format!("{} {next}", cascade_verb(r)),
    }
}

/// Why X goes after Y, read from X.
pub fn order_phrase(plan: &Plan, r: &Relation, next: &str) -> String {
    match r.kind {
        RelKind::Owns | RelKind::Contains | RelKind::Defines | RelKind::Manages => {
            format!("{} {next}", cascade_verb(r))
        }
        RelKind::ComponentOrder if r.decl == u32::MAX => {
            format!(
                "goes after {next}, which recorded its component (a revision goes once no tracker that stays uses it)"
            )
        }
        RelKind::ComponentOrder => format!("goes after {next}, whose component depends on its own"),
        RelKind::DestroyAfter if r.declared_by == r.to && plan.members.get(r.to.index()) == Some(&true) => {
            format!("goes after {next}, whose destruction it subscribed to")
        }
        RelKind::DestroyAfter if r.declared_by == r.to => format!("goes after {next}, which depends on it"),
        RelKind::DestroyAfter => format!("is destroyed after {next}"),
        RelKind::Finalizer => format!("goes after {next}, whose finalizer its controller removes"),
        RelKind::Rule(e) => {
            format!("goes after {next}, {} (default rule {})", rule_why(e), e.rule().id())
        }
        RelKind::Tool(e) => {
            format!(
                "goes after {next}, {} ({} {})",
                tool_why(e.order),
                e.order.tool(),
                crate::dialect::tools::order_key(e.order)
            )
        }
        RelKind::Controller(e) => {
            let why = match e {
                ControllerEdge::ServiceEndpoints => {
                    "its Service: the endpoints controller deletes it once the Service is gone"
                }
                ControllerEdge::NodePods => "bound to it: Pods go before their Node, as a drain evicts them",
                ControllerEdge::ReclaimDelete | ControllerEdge::Released => {
                    "its claim: the volume controller reclaims it once the claim is gone"
                }
            };
            format!("goes after {next}, {why}")
        }
    }
}

// Warnings.

impl Warning {
    /// `warning[TD012]`, `note[TD014]`, `warning`: how a line about it starts.
    pub fn head(&self) -> String {
        let level = if self.is_note() { "note" } else { "warning" };
        match self.rule() {
            Some(rule) => format!("{level}[{}]", rule.id()),
            None => level.to_string(),
        }
    }

    pub fn message(&self, names: &Names) -> String {
        let list = |members: &[ObjId]| members.iter().map(|m| names.of(*m)).collect::<Vec<_>>().join(", ");
        match self {
            Warning::Input { line: 0, message, .. } => message.clone(),
            Warning::Input { file, line, column, message, .. } => format!("{file}:{line}:{column}: {message}"),
            Warning::DestructionCycle { members, step } => format!(
                "destruction-dependency cycle: {} are destroyed together in step {step}; their order inside it is undefined",
                list(members)
            ),
            Warning::OwnershipGroup { members, step } => {
                format!("ownership cycle planned as one group (--allow-cycles): {} in step {step}", list(members))
            }
            Warning::Relaxed { relaxed, because } => conflict_message(names.refs, relaxed, because.as_ref()),
            Warning::ControllerStays { object, controller } => format!(
                "{} is deleted but its controller {} stays and will recreate it",
                names.of(*object),
                names.of(*controller)
            ),
            Warning::WebhookStays { service, webhook, api_service: false } => format!(
                "{} is deleted but {} stays and calls it: every admission request it intercepts fails from then on (\"failed calling webhook\")",
                names.of(*service),
                names.of(*webhook)
            ),
            Warning::WebhookStays { service, webhook, api_service: true } => format!(
                "{} is deleted but {} stays and is served by it: every request to its API fails from then on, and API discovery with it (namespace deletions hang)",
                names.of(*service),
                names.of(*webhook)
            ),
            Warning::SharedUid { first, again, uid } => format!(
                "{} and {} share uid {uid}: owner references were resolved by their kind and name, not by this uid",
                names.of(*first),
                names.of(*again)
            ),
            Warning::KeepIgnored { object, mark, by } => {
                let (object, annotation, tool) = (names.of(*object), crate::dialect::tools::keep_mark(*mark), mark.tool());
                match by {
                    Ignored::Named => format!(
                        "{object} carries {annotation}, which tells {tool} to leave it; it is deleted because it is named"
                    ),
                    Ignored::With(kind, x) => {
                        let how = match kind {
                            RelKind::Contains => "its namespace: the namespace controller deletes everything in it",
                            RelKind::Defines => "its CustomResourceDefinition: every custom resource of it goes",
                            RelKind::Manages => {
                                "what manages it: its controller (an application's, or KubeVela's resource keeper) deletes it by its own records"
                            }
                            _ => "its last owner: the garbage collector deletes it",
                        };
                        format!(
                            "{object} carries {annotation}, but it goes with {} ({how}); that annotation only stops {tool}, and will not save it",
                            names.of(*x)
                        )
                    }
                    Ignored::Collector => format!(
                        "{object} carries {annotation}, but the garbage collector deletes it: that annotation only stops {tool}"
                    ),
                }
            }
            Warning::Hangs { holder, object, usage } => format!(
                "{} will not finish deleting: it holds {}, which Crossplane {} protects (the API refuses to delete it while the Usage stays)",
                names.of(*holder),
                names.of(*object),
                names.of(*usage)
            ),
            Warning::FinalizerSameStep { object, controller, finalizer, step } => format!(
                "{} and {}, the controller of its finalizer {finalizer}, are deleted in the same step {step}; the object hangs if the controller goes first",
                names.of(*object),
                names.of(*controller)
            ),
            Warning::EndpointsRewritten { endpoints, service } => format!(
                "{} is deleted but {}, which selects Pods, stays: the endpoints controller writes them again",
                names.of(*endpoints),
                names.of(*service)
            ),
            Warning::DependentStays { object, dependent } => format!(
                "{} is deleted but {}, which depends on it, stays: that dependency breaks, and names an object that is gone",
                names.of(*object),
                names.of(*dependent)
            ),
            Warning::OwnerOutsideSnapshot { object, with, owner } => format!(
                "{} goes with {}, but it also names owner {owner}, which is not in the snapshot: if the cluster has it, the garbage collector keeps {} (--closed-world: the snapshot is the whole cluster)",
                names.of(*object),
                names.of(*with),
                names.of(*object)
            ),
            Warning::ToolOrder(f) => f.message(names),
            Warning::Managed { app, note } => managed_message(names.of(*app), note),
            Warning::RecordOverPolicy { object, tracker, app, rule, strategy, deleted } => {
                let (object, tracker, app) = (names.of(*object), names.of(*tracker), names.of(*app));
                let rule = match rule {
                    Some((Some(policy), n)) => format!("rule {n} of policy {policy}"),
                    Some((None, n)) => format!("rule {n} of the garbage-collect policy"),
                    None => "no rule".into(),
                };
                let says = match (strategy, rule.as_str()) {
                    (Some(s), _) => format!("{rule} of {app} says strategy: {} now", s.as_str()),
                    (None, "no rule") => format!("no rule of the garbage-collect policy of {app} selects it now"),
                    (None, _) => format!("{rule} of {app}, the first that selects it, writes no strategy now"),
                };
                match deleted {
                    true => format!(
                        "{object} is deleted: {tracker} records it without skipGC, though {says}; a strategy acts when a resource is dispatched, and KubeVela's resource keeper follows the record"
                    ),
                    false => format!(
                        "{object} is kept: {tracker} records it with skipGC, though {says}; a strategy acts when a resource is dispatched, and KubeVela's resource keeper follows the record"
                    ),
                }
            }
        }
    }
}

/// A note of a deleted application object, in words.
fn managed_message(app: &str, note: &crate::model::managed::Note) -> String {
    use crate::dialect::controllers::marks::{ARGOCD_DELETION_APPROVED, HELM_OWNERSHIP};
    use crate::model::managed::Note;
    match note {
        Note::HelmReleaseInferred { namespace, name } => format!(
            "{app} uninstalls Helm release {namespace}/{name}, whose storage record is not in the snapshot: its objects are those Helm's ownership annotations ({HELM_OWNERSHIP}) name; objects of the release the snapshot lacks go too"
        ),
        Note::AwaitsConfirmation => format!(
            "{app}: an object (or the Application) says Delete=confirm or Prune=confirm: Argo CD deletes nothing until {ARGOCD_DELETION_APPROVED} is set after the deletion"
        ),
        Note::DeletionHangs(why) => format!("{app} will not finish deleting: {why}"),
        Note::ExternalResourceKept => format!(
            "{app} is deleted, but its external resource stays: its deletionPolicy (Orphan) or management policies (without Delete) tell Crossplane to leave it"
        ),
        Note::RemoteCluster(field) => format!(
            "{app} manages objects in another cluster ({field}): its controller deletes them there; this snapshot does not hold them"
        ),
        Note::StorageUndecoded { record } => {
            format!("{app}: the release's storage record {record} decides what is uninstalled")
        }
    }
}

// Another tool's order (`--as`).

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
}

impl Other {
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
fn carrier_name(how: RelKind) -> &'static str {
    match how {
        RelKind::Contains => "namespace controller",
        RelKind::Defines => "CRD cleanup",
        _ => "garbage collector",
    }
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

/// `ownership: contains`, `default rule storage-after-claims: bound-claim`.
fn constraint_text(kind: RelKind) -> String {
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
}

// The collector of a tracking application (KubeVela), and where an
// `explain` chain starts.

impl MarkStage {
    /// What the mark stage decided, in words.
    pub fn message(&self, names: &Names) -> String {
        let app = self.app.map_or("its application", |a| names.of(a));
        match &self.mark {
            Mark::Current => format!("active: the current tracker of {app}"),
            Mark::Root => format!("active: the root tracker of {app} (kept until it is deleted)"),
            Mark::Revisions => format!("active: the component-revision tracker of {app}"),
            Mark::Outdated { generation, current } => {
                format!("marked: outdated (generation {generation}; {app} is at generation {current})")
            }
            Mark::OtherVersion { version: Some(v), current } => {
                format!("marked: outdated (publish version {v}; {app} publishes {current})")
            }
            Mark::OtherVersion { version: None, current } => {
                format!("marked: outdated (no publish version; {app} publishes {current})")
            }
            Mark::WorkflowPending(w) => format!(
                "not marked: {}; the controller marks outdated trackers only once its workflow has succeeded",
                workflow_said(w, app)
            ),
            Mark::AppDeleted(_) => format!("marked: {app} is being deleted"),
            Mark::AppAbsent => "marked: its application is not in the snapshot (--closed-world)".into(),
            Mark::AppNotInSnapshot => {
                "not marked: its application is not in the snapshot (the cluster may have it; see --closed-world)"
                    .into()
            }
            Mark::AlreadyMarked => "marked: already being deleted".into(),
            Mark::Legacy { holds } => format!(
                "not marked (keepLegacyResource): it is still the newest tracker of {}, which exists",
                names.of(*holds)
            ),
            Mark::LegacyUnknown { .. } => format!(
                "not marked (keepLegacyResource): {} is not in the snapshot; the cluster may have it (see --closed-world)",
                self.entry.as_deref().unwrap_or("a resource")
            ),
        }
    }
}

/// What Application `app`'s status says of its workflow, in words.
fn workflow_said(w: &Workflow, app: &str) -> String {
    match w {
        Workflow::Succeeded => format!("the workflow of {app} has succeeded"),
        Workflow::Failed => format!("the workflow of {app} failed (and its policy has no continueOnFailure)"),
        Workflow::Pending(phase) => format!("{app} is at status {phase}"),
        Workflow::Unknown => format!("{app} has no status in the snapshot"),
    }
}

/// How the chain that reaches an object starts, in words.
pub fn origin_text(cause: Cause, mode: &Mode, models: &crate::model::ModelKeys) -> &'static str {
    match cause {
        Cause::Target if *mode == Mode::All => "everything in the input (--all)",
        Cause::Target => "a target of the plan",
        Cause::Garbage(cascade::Garbage::NoSolidOwner) => "garbage: none of its owners is solid",
        Cause::Garbage(cascade::Garbage::BeingDeleted) => "garbage: already being deleted",
        Cause::Garbage(cascade::Garbage::RemovedFromModel) => models.removed,
        Cause::Garbage(cascade::Garbage::Unreachable) => "garbage: unreachable from the root",
        Cause::Garbage(cascade::Garbage::Tracker) => "mark: a resource tracker its application's collector marked",
        Cause::Garbage(cascade::Garbage::UnusedRevision) => {
            "garbage: a component revision no tracker that stays records"
        }
        Cause::Garbage(cascade::Garbage::VolumeReleased { .. }) => {
            "garbage: a volume whose claim is gone, reclaim policy Delete"
        }
        Cause::Relation(_) => "deleted with its owner",
    }
}

/// `src/plan/` holds typed data, and this module its words: no string
/// literal of English prose (a letter, a space, a letter) in the code of
/// `src/plan/*.rs` (comments, attributes and `#[cfg(test)]` code aside),
/// but for the few listed in [`tests::ALLOWED`], each with why.
/// `PROSE_CHECK_DIR=DIR` checks another copy of the folder (an older
/// commit's) instead.
/// The refusal of a `--prune` NEW whose object `kubectl apply` would
/// place where teardown cannot know, or NEW contradicts `-n` (`namespace`):
/// the object, where it is written, why, and what to do.
pub fn misplaced(
    new: &crate::model::snapshot::Snapshot,
    m: &crate::plan::prune::Misplaced,
    namespace: Option<&str>,
) -> Result<String, crate::internal::Internal> {
    use crate::plan::prune::Why;
    let o = m.object.of(&new.objects)?;
    let file = new.sources.get(o.span.file);
    let line = file.line_index(crate::model::anchor::object(&new.sources, o).start) + 1;
    let group = if o.group.is_empty() { String::new() } else { format!(".{}", o.group) };
    let more = match m.more {
        0 => String::new(),
        1 => String::from(" (1 more object of NEW lacks one too)"),
        n => format!(" ({n} more objects of NEW lack one too)"),
    };
    Ok(match m.why {
        Why::Unplaced(known) => {
            let scope = match known {
                Some(_) => "its kind is namespaced",
                None => "its kind is neither built in nor defined by a CRD in INPUT or NEW, so it may be namespaced",
            };
            let kustomize = "set metadata.namespace in NEW (kustomize: `namespace:` in kustomization.yaml)";
            let fix = match (known, namespace) {
                (Some(_), _) => kustomize.to_string(),
                (None, None) => format!("{kustomize}, or add the CRD of its kind to INPUT or NEW"),
                (None, Some(ns)) => format!(
                    "{kustomize}, or add the CRD of its kind to INPUT or NEW (-n {ns} places it only if it is namespaced)"
                ),
            };
            format!(
                "no plan: {}{group}/{} ({}:{line}) in --prune NEW has no metadata.namespace, and {scope}{more}: \
                 `kubectl apply` puts a namespaced object without one in the namespace of its -n or of the \
                 kubeconfig context, which teardown cannot know, nor therefore which objects of INPUT NEW \
                 declares; {fix}",
                o.kind, o.name, file.name
            )
        }
        Why::Elsewhere => {
            let (written, given) = (o.namespace.as_deref().unwrap_or_default(), namespace.unwrap_or_default());
            format!(
                "no plan: {}{group}/{written}/{} ({}:{line}) in --prune NEW is in namespace {written}, but -n says \
                 {given}{more}: `kubectl apply -n {given}` refuses an object of another namespace; give the \
                 namespace once",
                o.kind, o.name, file.name
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    /// Prose `src/plan/` may keep: (file, how the literal starts, why).
    /// The list only shrinks: an entry nothing matches fails the check.
    const ALLOWED: &[(&str, &str, &str)] = &[
        // Errors that end the run (exit 1 or 2), not output of a plan: the
        // error type carries its own message, as every other layer's does.
        ("mod.rs", "ownership cycle: {cycle}; cut an edge", "PlanError's message (exit 1)"),
        ("mod.rs", "{app} has {trackers} resource trackers", "PlanError's message (exit 1)"),
        ("mod.rs", "{object} (step {object_step}) would hang", "PlanError's message (exit 1)"),
        ("mod.rs", "no order deletes {first}{}", "PlanError's message (exit 1)"),
        ("mode.rs", "--cascade orphan: {} is read by the {} dialect", "a refusal (exit 2)"),
        ("tool_order.rs", "--as {}: {} is {}, not a Kubernetes resource", "a refusal (exit 2)"),
        ("build.rs", "{} uninstalls a Helm release whose storage record", "PlanError::Unknowable (exit 1)"),
        ("build.rs", "{} is labelled {APP_UID} {uid}, not the uid", "PlanError::TrackerListing (exit 1)"),
        ("build.rs", "{} is labelled {APP_UID} {uid}, and {} has no", "PlanError::TrackerListing (exit 1)"),
        ("build.rs", "{} {}, whose tracker {} is of generation", "PlanError::TrackerListing (exit 1)"),
        ("build.rs", "publishes version {v}", "PlanError::TrackerListing (exit 1)"),
        ("build.rs", "is at generation {generation}", "PlanError::TrackerListing (exit 1)"),
        ("build.rs", "(none found)", "PlanError::OwnershipCycle: no edge to cut (exit 1)"),
        // TD002 findings (issue 38): a finding's message and help are the
        // finding's own text, as every finding of `analysis::check` is.
        ("duplicates.rs", "{mode} plans every object", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", "it is {what}", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", "the plan {} it", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", "it is joined to {}, which the plan {}", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", "{help}; it could change this plan", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", "starts from", "a TD002 finding's help that refuses the plan"),
        ("duplicates.rs", ": neither copy is in this plan", "a TD002 finding's message"),
    ];

    /// Is `literal` English prose: a letter, a space, a letter?
    fn prose(literal: &str) -> bool {
        let c: Vec<char> = literal.chars().collect();
        c.windows(3).any(|w| w[0].is_alphabetic() && w[1] == ' ' && w[2].is_alphabetic())
    }

    /// Rust text without its attributes (`#[…]`, `#![…]`: a lint's reason
    /// is no output), `#[cfg(test)]` kept for the scan to skip what it marks.
    fn without_attributes(text: &str) -> String {
        let c: Vec<char> = text.chars().collect();
        let (mut out, mut i) = (String::with_capacity(text.len()), 0);
        let starts = |i: usize, s: &str| c[i..].iter().take(s.len()).copied().eq(s.chars());
        while i < c.len() {
            if starts(i, "#[cfg(test)]") || !(starts(i, "#[") || starts(i, "#![")) {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let mut depth = 0usize;
            while i < c.len() {
                match c[i] {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                i += 1;
                if depth == 0 && c[i - 1] == ']' {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn plan_holds_no_prose() {
        let dir = std::env::var_os("PROSE_CHECK_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/plan"));
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        paths.sort();
        assert!(paths.len() > 10, "{}: the files of src/plan/", dir.display());
        let mut used = vec![false; ALLOWED.len()];
        let mut found = Vec::new();
        for path in &paths {
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(path).unwrap();
            for literal in crate::dialect::wire::literals(&without_attributes(&text)) {
                if !prose(&literal) {
                    continue;
                }
                match ALLOWED.iter().position(|(f, start, _)| *f == file && literal.starts_with(start)) {
                    Some(k) => used[k] = true,
                    None => found.push(format!("src/plan/{file}: \"{literal}\"")),
                }
            }
        }
        assert!(
            found.is_empty(),
            "English in src/plan/ (say it in src/render/prose.rs, or list it in ALLOWED with why):\n{}",
            found.join("\n")
        );
        let stale: Vec<_> = ALLOWED.iter().zip(used).filter(|(_, u)| !u).map(|(a, _)| a).collect();
        assert!(stale.is_empty(), "ALLOWED entries nothing matches any more: {stale:?}");
    }

    #[test]
    fn prose_is_a_letter_a_space_a_letter() {
        assert!(prose("owned by {}"));
        assert!(!prose("owned-by"));
        assert!(!prose("{}.{}/{ns}/{}"));
        assert!(!prose("{} {}/{}"));
        let attr = "#![allow(clippy::x, reason = \"a b\")]\n#[cfg(test)]\nmod t {}\nfn f() {}";
        assert_eq!(without_attributes(attr), "\n#[cfg(test)]\nmod t {}\nfn f() {}");
    }
}
