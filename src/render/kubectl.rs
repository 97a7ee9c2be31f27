//! A plan as a bash script of kubectl commands (`plan -o kubectl`): one
//! block a step, deleting that step's cascade roots (see
//! `plan::roots`) and waiting for them; what goes with its owners is only
//! listed. Formatting only: the roots and what goes with them are
//! computed by the plan layer. The same plan gives the same bytes.

use super::count;
use crate::analysis::cascade::{CascadeMode, Cause};
use crate::escape::{escape as comment, shell_word as word};
use crate::internal::Internal;
use crate::model::kube::HelmHook;
use crate::model::snapshot::Snapshot;
use crate::model::{Identity, ObjId, Object};
use crate::plan::roots::{Roots, Unkept, With};
use crate::plan::{Mode, Plan, Refused};
use std::io::{self, Write};

/// At most this many names go into one kubectl command.
const NAMES_PER_COMMAND: usize = 16;

/// At most this many targets are named in the header.
const TARGETS_SHOWN: usize = 5;

/// What the script says it was made from.
pub struct Header {
    /// The inputs, as given.
    pub inputs: Vec<String>,
    /// `--prune NEW…`, as given.
    pub new: Vec<String>,
}

impl Header {
    pub fn of(inputs: &[std::path::PathBuf], new: &[std::path::PathBuf]) -> Header {
        let shown = |paths: &[std::path::PathBuf]| paths.iter().map(|p| p.display().to_string()).collect();
        Header { inputs: shown(inputs), new: shown(new) }
    }
}

/// The cascade roots `-o kubectl` deletes, or why it cannot: every object
/// the plan deletes must be a Kubernetes resource (read by a dialect whose
/// objects are, `Object::is_kubernetes`) with a name a shell command can
/// pass; kubectl must read every root the script names as that object
/// (the grammar `-o names` checks, less what only xargs would misread);
/// and under `--cascade orphan` no root may go while its controller is
/// there to recreate it. Known only once the input is read.
pub fn roots(snapshot: &Snapshot, plan: &Plan) -> Result<Roots, Refused> {
    let objects = &snapshot.objects;
    let deleted = plan.steps.iter().flatten().map(|id| id.of(objects)).collect::<Result<Vec<_>, _>>()?;
    let deleted = || deleted.iter().copied();
    let foreign = |o: &&Object| !o.is_kubernetes();
    if let Some(o) = deleted().find(foreign) {
        let name = match o.identity() {
            Identity::Id | Identity::Token => format!("id:{}", o.name),
            Identity::Coordinates | Identity::Ref => o.reference(),
        };
        let more = match deleted().filter(foreign).count() {
            0 | 1 => String::new(),
            n => format!(" ({n} objects of the plan are not Kubernetes resources)"),
        };
        return Err(Refused::Usage(format!(
            "-o kubectl: {name} is {}, not a Kubernetes resource; kubectl cannot delete it{more}",
            o.origin.noun
        )));
    }
    let unpassable =
        |o: &&Object| [&o.kind, &o.group, &o.name].into_iter().chain(o.namespace.as_ref()).any(|s| s.contains('\0'));
    if let Some(o) = deleted().find(unpassable) {
        return Err(Refused::Usage(format!(
            "-o kubectl: {:?} holds a NUL character, which no shell command can pass",
            o.reference()
        )));
    }
    let roots = crate::plan::roots::cascade_roots(objects, plan);
    super::printable::nameable(snapshot, &roots.steps, "-o kubectl")?;
    if let Some((x, controller)) = crate::plan::roots::recreated(objects, plan, &roots) {
        let step = |id: ObjId| plan.order.step.get(id.index()).copied().unwrap_or(0);
        return Err(Refused::Usage(format!(
            "-o kubectl --cascade orphan: the script would delete {} (step {}) while its controller {} (step {}) is still there to recreate it, and the copy would be orphaned; plan with --cascade background or foreground, or delete the controller alone",
            plan.refs.at(x)?,
            step(x),
            plan.refs.at(controller)?,
            step(controller)
        )));
    }
    if let Some(hang) = hang(objects, plan, &roots)? {
        return Err(Refused::Usage(hang));
    }
    Ok(roots)
}

/// Why the script cannot keep a finalizer whose controller the plan
/// deletes, if it cannot (`roots::finalizer_hang`).
fn hang(objects: &[Object], plan: &Plan, roots: &Roots) -> Result<Option<String>, Internal> {
    if roots.finalizers.is_empty() {
        return Ok(None);
    }
    let at = positions(objects, roots)?;
    let command = |id: ObjId| at.get(id.index()).copied().filter(|&p| p != usize::MAX);
    let Some(h) = crate::plan::roots::finalizer_hang(objects, plan, roots, command) else { return Ok(None) };
    let r = crate::internal::entry(&plan.relations, h.relation as usize, "relation")?;
    let step = |id: ObjId| plan.order.step.get(id.index()).copied().unwrap_or(0);
    let x = plan.refs.at(h.holder)?;
    let finalizer = h.holder.of(objects)?.finalizers.get(r.decl as usize).map_or("", |f| &**f);
    let (c, cs) = (plan.refs.at(r.from)?, step(r.from));
    let head = format!(
        "-o kubectl: {x} (step {}) carries finalizer {finalizer}, which {c} (step {cs}) removes, so it must be gone before {c} goes",
        step(h.holder)
    );
    Ok(Some(match h.why {
        Unkept::Recreated(by) => {
            let o = plan.relations.get(by as usize).map(|o| o.taker()).unwrap_or(r.from);
            let o = plan.refs.at(o)?;
            format!(
                "{head}; but the script cannot delete it by name: {o}, which takes it, would make it again; delete {o} first, with what it owns (kubectl delete --cascade=foreground --wait), then plan again"
            )
        }
        Unkept::RecreatedByKept(by) => {
            let o = plan.relations.get(by as usize).map(|o| o.taker()).unwrap_or(r.from);
            let o = plan.refs.at(o)?;
            format!(
                "{head}; but the script cannot delete it by name: {o}, which the plan keeps, would make it again, and it goes with what the script deletes after {c}; leave {c} out of the plan, or plan the deletion of {o} too"
            )
        }
        Unkept::Early(first) if first == h.holder => {
            let what = match plan.cascade_mode == CascadeMode::Foreground
                && !crate::plan::roots::takes_at_once(objects, plan, h.holder)
            {
                true => format!("plan with --cascade background, so that {c} goes once {x} is gone"),
                false => format!("remove the finalizer from {x} by hand once its cleanup is done, then plan again"),
            };
            format!("{head}; but {c} goes with {x}, and deleting {x} starts deleting {c} before {x} is gone, so {x} would hang; {what}")
        }
        Unkept::Early(first) if first == r.from => format!(
            "{head}; but the script would delete {c} no later than {x}, and {x} would hang; delete {x} first (kubectl delete --wait), then plan again"
        ),
        Unkept::Early(first) => format!(
            "{head}; but {c} goes with {} (step {}), which the script deletes no later than {x}, and {x} would hang; delete {x} first (kubectl delete --wait), then plan again",
            plan.refs.at(first)?,
            step(first)
        ),
    }))
}

/// The script for `plan`, whose cascade roots are `roots`.
pub fn script(objects: &[Object], plan: &Plan, roots: &Roots, header: &Header, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(head(plan, roots, header)?.as_bytes())?;
    let steps = plan.steps.len();
    // By object index, for a root named only for a finalizer: the first
    // `Finalizer` relation it is named for.
    let mut finalizer: Vec<Option<u32>> = Vec::new();
    if roots.held.iter().any(|&h| h) {
        finalizer = vec![None; objects.len()];
        for &ri in &roots.finalizers {
            let x = crate::internal::entry(&plan.relations, ri as usize, "relation")?.to.index();
            if roots.held.get(x) == Some(&true) {
                crate::internal::entry_mut(&mut finalizer, x, "object")?.get_or_insert(ri);
            }
        }
    }
    for (i, ids) in plan.steps.iter().enumerate() {
        let mut text = String::with_capacity(64 * ids.len() + 256);
        let named = roots.steps.get(i).map_or(&[][..], Vec::as_slice);
        hooks(plan, i as u32 + 1, HelmHook::PreDelete, &mut text)?;
        text.push_str(&format!("\n# step {} of {steps}: {}", i + 1, count(ids.len(), "object", "objects")));
        if !named.is_empty() && named.len() < ids.len() {
            text.push_str(&format!(", {} named here", named.len()));
        }
        text.push('\n');
        for &id in ids {
            text.push_str("#   ");
            text.push_str(&comment(plan.refs.at(id)?));
            if let Some(&ri) = finalizer.get(id.index()).and_then(Option::as_ref) {
                text.push_str(&comment(&held(objects, plan, ri)?));
            }
            if let Some(w) = roots.with.get(id.index()).filter(|_| roots.root.get(id.index()) == Some(&false)) {
                text.push_str(" (goes with ");
                text.push_str(&comment(&list(plan, w, false)?));
                text.push(')');
            }
            text.push('\n');
        }
        match named.is_empty() {
            true => {
                let w = roots.step_with.get(i).cloned().unwrap_or_default();
                let these = if ids.len() == 1 { "it goes" } else { "these go" };
                text.push_str(&format!("# nothing to run: {these} with {}\n", comment(&list(plan, &w, true)?)));
            }
            false => commands(objects, plan.cascade_mode, named, &mut text)?,
        }
        hooks(plan, i as u32 + 1, HelmHook::PostDelete, &mut text)?;
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// What a root named only for finalizer relation `ri` says of it:
/// ` (named: StatefulSet.apps/shop/db removes its finalizer F)`.
fn held(objects: &[Object], plan: &Plan, ri: u32) -> Result<String, Internal> {
    let r = crate::internal::entry(&plan.relations, ri as usize, "relation")?;
    let finalizer = r.to.of(objects)?.finalizers.get(r.decl as usize).map_or("", |f| &**f);
    Ok(format!(" (named: {} removes its finalizer {finalizer})", plan.refs.at(r.from)?))
}

/// The Helm hooks that run before (pre-delete) or after (post-delete) a
/// step, as comments: `helm uninstall` runs them, this script does not.
fn hooks(plan: &Plan, step: u32, hook: HelmHook, out: &mut String) -> Result<(), Internal> {
    let runs: Vec<&crate::plan::HookRun> = plan.hooks.iter().filter(|h| h.step == step && h.hook == hook).collect();
    if runs.is_empty() {
        return Ok(());
    }
    let when = if hook == HelmHook::PreDelete { "before" } else { "after" };
    out.push_str(&format!("\n# helm uninstall runs these hooks {when} step {step}; this script does not:\n"));
    for h in runs {
        out.push_str("#   ");
        let (name, (ns, release)) = (plan.refs.at(h.object)?, &h.release);
        let hook = super::prose::hook_name(h.hook);
        out.push_str(&comment(&format!("{name} ({hook} hook of release {ns}/{release}, weight {})", h.weight)));
        out.push('\n');
    }
    Ok(())
}

/// The shebang, the shell options and the header comment.
fn head(plan: &Plan, roots: &Roots, header: &Header) -> Result<String, Internal> {
    let mut s = String::from("#!/usr/bin/env bash\nset -euo pipefail\n\n");
    let mut line = |text: String| {
        s.push_str("# ");
        s.push_str(&comment(&text));
        s.push('\n');
    };
    line(match &plan.options_mode {
        Mode::Delete(_) => {
            let it = if plan.targets.len() == 1 { "it" } else { "them" };
            format!("Deletes {} (--delete) and what goes with {it}.", targets(plan)?)
        }
        Mode::Prune(_) => format!(
            "Deletes what {} (--prune NEW) lacks, and what goes with it.",
            header.new.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
        ),
        Mode::All => String::from("Deletes everything in its input (--all)."),
        Mode::Gc => String::from("Deletes what the garbage collector would delete now (--gc)."),
    });
    let (deleted, named) = (plan.deleted_count(), roots.count);
    let steps = count(plan.steps.len(), "step", "steps");
    let held = roots.held.iter().filter(|&&h| h).count();
    let they = if held == 1 { "it is" } else { "they are" };
    let finalizers = [
        format!("owners the plan deletes, and {held} carrying the finalizer of a controller the plan deletes,"),
        format!("named so that {they} gone before that controller goes."),
    ];
    let objects = count(deleted, "object", "objects");
    if deleted == 0 {
        line(String::from("Nothing to delete: the plan is empty."));
    } else if held > 0 && named == deleted {
        line(format!("{objects} in {steps}, each named here: the cascade roots, objects none of whose"));
        finalizers.into_iter().for_each(&mut line);
    } else if named == deleted {
        line(format!("{objects} in {steps}, each named here: none goes with an owner the plan deletes."));
    } else {
        let others = match deleted - named {
            1 => String::from("The other one goes with its owners"),
            k => format!("The other {k} go with their owners"),
        };
        if held > 0 {
            line(format!(
                "{objects} in {steps}. The script names {named} of them: the cascade roots, objects none of whose"
            ));
            finalizers.into_iter().for_each(&mut line);
            line(format!("{others}, deleted by Kubernetes (the garbage"));
        } else {
            line(format!(
                "{objects} in {steps}. The script names {named} of them, the cascade roots: objects none of whose"
            ));
            line(format!("owners the plan deletes. {others}, deleted by Kubernetes (the garbage"));
        }
        line(String::from("collector, the namespace and CRD controllers) in its own order, not in the steps below."));
        let by_controller = plan.cascade.cause.iter().any(|c| match c {
            Some(Cause::Relation(r)) => plan.relations.get(*r as usize).is_some_and(|r| r.kind.controller().is_some()),
            _ => false,
        });
        if by_controller {
            line(String::from(
                "Some are deleted by other Kubernetes controllers, outside owner references: the endpoints",
            ));
            line(String::from("controller, the pod garbage collector, the volume controller."));
        }
        for (app, controller) in application_controllers(plan) {
            line(format!(
                "{}: deleting it lets {} delete what it manages, then remove its finalizer;",
                plan.refs.at(app)?,
                controller.name()
            ));
            line(String::from("the script deletes that application object, not what it manages, and waits for it."));
        }
    }
    if !plan.kept.is_empty() || !plan.orphaned.is_empty() {
        line(format!(
            "Kept: {}; orphaned: {} (see `teardown plan` without -o kubectl).",
            count(plan.kept.len(), "object", "objects"),
            plan.orphaned.len()
        ));
    }
    line(
        match plan.cascade_mode {
            CascadeMode::Background => {
                "--cascade=background: a root goes at once and the garbage collector deletes its dependents after it,"
            }
            CascadeMode::Foreground => {
                "--cascade=foreground: a root goes once its dependents are gone, so --wait waits for them too."
            }
            CascadeMode::Orphan => {
                "--cascade=orphan: a root's dependents stay and lose their owner reference; only a Namespace"
            }
        }
        .to_string(),
    );
    match plan.cascade_mode {
        CascadeMode::Background => line(String::from("so they may still be going when the next step starts.")),
        CascadeMode::Foreground => {}
        CascadeMode::Orphan => line(String::from("or a CRD takes what it holds.")),
    }
    line(String::from("--wait: each command returns once what it names is gone."));
    line(String::from("--ignore-not-found: an object already gone (deleted by an earlier run, or with its owner)"));
    line(String::from("is not an error, so the script can be run again."));
    line(format!("Generated by teardown from {}.", header.inputs.join(", ")));
    for w in super::plan::warnings(plan).lines() {
        line(w.to_string());
    }
    Ok(s)
}

/// The targets of `--delete`, the first few of them.
fn targets(plan: &Plan) -> Result<String, Internal> {
    let shown = plan.targets.iter().take(TARGETS_SHOWN).map(|t| plan.refs.at(*t));
    let mut s = shown.collect::<Result<Vec<_>, _>>()?.join(", ");
    if plan.targets.len() > TARGETS_SHOWN {
        s.push_str(&format!(" and {} more", plan.targets.len() - TARGETS_SHOWN));
    }
    Ok(s)
}

/// The roots something goes with: `A, B` or, with their steps, `A (step 3)`.
fn list(plan: &Plan, with: &With, steps: bool) -> Result<String, Internal> {
    let mut parts: Vec<String> = with
        .roots
        .iter()
        .map(|r| {
            let name = plan.refs.at(*r)?;
            Ok(match steps {
                true => format!("{name} (step {})", plan.order.step.get(r.index()).copied().unwrap_or(0)),
                false => name.to_owned(),
            })
        })
        .collect::<Result<_, Internal>>()?;
    if with.more {
        parts.push(String::from("others"));
    }
    Ok(match parts.split_last() {
        None => String::from("their owners"),
        Some((one, [])) => one.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    })
}

/// One kubectl command for each run of roots of one kind in one namespace.
fn commands(objects: &[Object], mode: CascadeMode, roots: &[ObjId], out: &mut String) -> Result<(), Internal> {
    fn key(o: &Object) -> (String, Option<&str>) {
        (resource(o), o.namespace.as_deref())
    }
    let roots = roots.iter().map(|id| id.of(objects)).collect::<Result<Vec<&Object>, _>>()?;
    for run in runs(&roots, |o| key(o)) {
        let Some(&first) = run.first() else { continue };
        let (kind, namespace) = key(first);
        let names: Vec<&str> = run.iter().map(|o| &*o.name).collect();
        let mut flags = String::new();
        if let Some(ns) = namespace {
            flags.push_str(" -n ");
            flags.push_str(&word(ns));
        }
        flags.push_str(&format!(" --cascade={} --wait --ignore-not-found", mode.as_str()));
        let mut positional = word(&kind).into_owned();
        for name in &names {
            positional.push(' ');
            positional.push_str(&word(name));
        }
        // A word that starts with `-` would be read as a flag: after `--`,
        // it is not.
        let dashed = kind.starts_with('-') || names.iter().any(|n| n.starts_with('-'));
        // `$`, a backquote or a backslash in single quotes is meant literally.
        let words = || std::iter::once(kind.as_str()).chain(names.iter().copied()).chain(namespace);
        if words().any(|w| w.contains(['$', '`', '\\'])) {
            out.push_str("# shellcheck disable=SC1003,SC2016 # the quoted names are literal\n");
        }
        match dashed {
            true => out.push_str(&format!("kubectl delete{flags} -- {positional}\n")),
            false => out.push_str(&format!("kubectl delete {positional}{flags}\n")),
        }
    }
    Ok(())
}

/// A step's roots split into its commands: each a run of roots of one
/// `key` (resource and namespace), at most [`NAMES_PER_COMMAND`] of them.
fn runs<T, K: PartialEq>(items: &[T], key: impl Fn(&T) -> K) -> Vec<&[T]> {
    let mut out = Vec::new();
    let mut rest = items;
    while let Some(first) = rest.first() {
        // A run: the first root, and those after it of its kind and namespace.
        let k = key(first);
        let n = rest.iter().take(NAMES_PER_COMMAND).take_while(|o| key(o) == k).count().max(1);
        let (run, after) = rest.split_at_checked(n).unwrap_or((rest, &[]));
        out.push(run);
        rest = after;
    }
    out
}

/// By object index: the position of the command that deletes each root
/// among the script's commands (`usize::MAX` for what is not a root).
fn positions(objects: &[Object], roots: &Roots) -> Result<Vec<usize>, Internal> {
    let mut at = vec![usize::MAX; objects.len()];
    let mut k = 0;
    for step in &roots.steps {
        let named = step.iter().map(|&id| id.of(objects).map(|o| (id, o))).collect::<Result<Vec<_>, _>>()?;
        for run in runs(&named, |(_, o)| (resource(o), o.namespace.as_deref())) {
            for (id, _) in run {
                if let Some(p) = at.get_mut(id.index()) {
                    *p = k;
                }
            }
            k += 1;
        }
    }
    Ok(at)
}

/// The resource as kubectl takes it: `deployment.apps`, `pod`.
fn resource(o: &Object) -> String {
    let kind = o.kind.to_lowercase();
    match o.group.is_empty() {
        true => kind,
        false => format!("{kind}.{}", o.group),
    }
}

/// The application objects whose controllers take something of the plan
/// (`analysis::managed`), each once, in reference order.
fn application_controllers(plan: &Plan) -> Vec<(ObjId, crate::model::managed::Controller)> {
    let mut out: Vec<(ObjId, crate::model::managed::Controller)> = plan
        .cascade
        .cause
        .iter()
        .filter_map(|c| match c {
            Some(Cause::Relation(r)) => plan.relations.get(*r as usize),
            _ => None,
        })
        .filter_map(|r| crate::analysis::managed::controller(r).map(|c| (r.from, c)))
        .collect();
    out.sort_by(|a, b| plan.refs.get(a.0.index()).cmp(&plan.refs.get(b.0.index())));
    out.dedup();
    out
}
