//! Generators and helpers shared by the property tests (the modules of tests/props/):
//! Kubernetes-shaped snapshots (several groups with the same kind names,
//! built-in and custom, namespaced and cluster-scoped; Namespaces and CRDs;
//! owner references with uids — right, wrong, to another group's kind, to
//! objects that are not there; finalizers; `deletionTimestamp`;
//! `config.kubernetes.io/depends-on`; labels; keep annotations), native
//! ones (`resources: [{id, owners, destroyAfter}]`), the oracle that says
//! which owner references are solid (CONTRACT §5, worked out from the
//! generated values, not from what teardown resolved), and an in-process
//! runner of one command.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]
#![allow(dead_code)]

use proptest::prelude::*;
use serde_json::{json, Value};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use teardown::cli::Cli;
use teardown::commands::{self, Env};

/// How many cases a property runs: `PROPTEST_CASES` when set (to run
/// more once), else `default` (each property stays well under ~20 s in a
/// debug build).
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// The configuration of every property here: `default` cases (or
/// `PROPTEST_CASES`), failures kept in `tests/props/<module>.proptest-regressions`
/// and run first next time. Cases a property sets aside (`prop_assume!`)
/// may be as many as the cases run (proptest's 1,024 alone made
/// `order_comparator::a_hub_orders_like_every_pair` abort, "Too many global
/// rejects", at `PROPTEST_CASES=8000`).
pub fn config(default: u32) -> ProptestConfig {
    let cases = cases(default);
    ProptestConfig {
        cases,
        max_global_rejects: cases.max(1024),
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// Run one command in-process (as src/main.rs does, without a process per
/// case): (exit code, stdout, stderr). Errors end stderr with the line
/// main prints.
pub fn run<S: AsRef<str>>(args: &[S]) -> (i32, String, String) {
    use clap::Parser;
    let mut argv: Vec<String> = vec!["teardown".into()];
    argv.extend(args.iter().map(|a| a.as_ref().to_string()));
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => panic!("{argv:?}: {e}"),
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let env = Env {
        stdin: &mut std::io::empty(),
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal: false,
        stdin_is_terminal: false,
        progress: false,
        no_color: true,
        quiet: cli.quiet,
    };
    let code = match commands::run(cli, env) {
        Ok(status) => i32::from(status.exit_code()),
        Err(e) => {
            let _ = writeln!(stderr, "teardown: error: {e}");
            i32::from(e.exit_code())
        }
    };
    (code, String::from_utf8(stdout).expect("utf-8 stdout"), String::from_utf8(stderr).expect("utf-8 stderr"))
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

// ---------------------------------------------------------------------------
// Kubernetes snapshots

/// A kind of the generated snapshots.
#[derive(Clone, Copy, Debug)]
pub struct KindDef {
    pub api: &'static str,
    pub group: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    /// kubectl's short name (built-in kinds only).
    pub short: Option<&'static str>,
    pub namespaced: bool,
    pub builtin: bool,
}

const fn k(
    api: &'static str,
    group: &'static str,
    kind: &'static str,
    plural: &'static str,
    short: Option<&'static str>,
    namespaced: bool,
    builtin: bool,
) -> KindDef {
    KindDef { api, group, kind, plural, short, namespaced, builtin }
}

/// The same kind names in several groups: ConfigMap (core, and a custom
/// one), Deployment (apps, and a custom one), Widget (two custom groups,
/// one namespaced, one cluster-scoped), Event (core and events.k8s.io, both
/// built in: kubectl's discovery picks core), ClusterRole (built-in,
/// cluster-scoped), Pod, ReplicaSet.
pub const KINDS: &[KindDef] = &[
    k("v1", "", "ConfigMap", "configmaps", Some("cm"), true, true),
    k("v1", "", "Pod", "pods", Some("po"), true, true),
    k("apps/v1", "apps", "Deployment", "deployments", Some("deploy"), true, true),
    k("apps/v1", "apps", "ReplicaSet", "replicasets", Some("rs"), true, true),
    k("rbac.authorization.k8s.io/v1", "rbac.authorization.k8s.io", "ClusterRole", "clusterroles", None, false, true),
    k("v1", "", "Event", "events", Some("ev"), true, true),
    k("events.k8s.io/v1", "events.k8s.io", "Event", "events", None, true, true),
    k("ex.com/v1", "ex.com", "Deployment", "deployments", None, true, false),
    k("a.example.com/v1", "a.example.com", "Widget", "widgets", None, true, false),
    k("b.example.com/v1alpha1", "b.example.com", "Widget", "widgets", None, false, false),
    k("c.example.com/v1beta1", "c.example.com", "ConfigMap", "configmaps", None, true, false),
];

pub const NAMESPACES: [&str; 3] = ["default", "a", "b"];
/// Few names, so that objects of different kinds and groups share them.
/// (Not `y`, `n`, `on`…: kubectl reads them as booleans, TD001.)
pub const NAMES: [&str; 4] = ["web", "db", "x", "api"];
pub const FINALIZERS: [&str; 3] = ["example.com/cleanup", "kubernetes.io/pvc-protection", "foregroundDeletion"];
pub const LABELS: [&str; 2] = ["web", "api"];

/// An owner reference, as generated.
#[derive(Clone, Debug)]
pub enum Owner {
    /// To object `i`, with its apiVersion, kind, name and uid.
    Right { i: usize, controller: bool },
    /// To object `i`'s coordinates with another uid (TD004).
    WrongUid { i: usize },
    /// To object `i`'s name and uid, but another group of the same kind
    /// name (a reference whose uid belongs to an object of other
    /// coordinates: dangling, TD004); a `Right` when its kind has no other group.
    OtherGroup { i: usize },
    /// To an object that is not in the snapshot (TD003).
    Ghost { kind: usize, j: usize },
}

#[derive(Clone, Debug)]
pub struct Obj {
    pub kind: usize,
    pub ns: usize,
    pub name: String,
    pub owners: Vec<Owner>,
    /// depends-on targets (object indices).
    pub deps: Vec<usize>,
    pub deleting: bool,
    pub finalizers: Vec<usize>,
    pub label: Option<usize>,
    /// `helm.sh/resource-policy: keep`.
    pub keep: bool,
    /// Argo CD `sync-wave` (with the instance label of application `shop`).
    pub wave: Option<i8>,
}

impl Obj {
    pub fn def(&self) -> &'static KindDef {
        &KINDS[self.kind]
    }
    pub fn namespace(&self) -> Option<&'static str> {
        self.def().namespaced.then(|| NAMESPACES[self.ns])
    }
    /// teardown's reference: `Kind[.group]/[namespace/]name`.
    pub fn reference(&self) -> String {
        let d = self.def();
        let kind = if d.group.is_empty() { d.kind.to_string() } else { format!("{}.{}", d.kind, d.group) };
        match self.namespace() {
            Some(ns) => format!("{kind}/{ns}/{}", self.name),
            None => format!("{kind}/{}", self.name),
        }
    }
}

/// What the snapshot's switches say.
#[derive(Clone, Debug)]
pub struct KubeOpts {
    pub owners: bool,
    pub deps: bool,
    pub deleting: bool,
    pub finalizers: bool,
    pub keep: bool,
    /// Owner references of every sort (else only `Right` ones).
    pub broken_owners: bool,
    /// Argo CD sync waves.
    pub waves: bool,
}

impl KubeOpts {
    pub const ALL: KubeOpts = KubeOpts {
        owners: true,
        deps: true,
        deleting: true,
        finalizers: true,
        keep: true,
        broken_owners: true,
        waves: true,
    };
}

#[derive(Clone, Debug)]
pub struct Kube {
    pub objs: Vec<Obj>,
    /// Which Namespace objects are present.
    pub namespaces: Vec<bool>,
    /// Which of them are being deleted (`deletionTimestamp`).
    pub ns_deleting: Vec<bool>,
    /// Which custom kinds have their CRD in the snapshot (by kind index).
    pub crds: Vec<bool>,
}

pub fn kube(max: usize, o: KubeOpts) -> impl Strategy<Value = Kube> {
    (1..max + 1).prop_flat_map(move |n| {
        let broken = o.broken_owners;
        let owner =
            (0..4u8, 0..n, any::<bool>(), 0..KINDS.len(), 0..2usize).prop_map(move |(how, i, c, kind, j)| match how {
                0 if broken => Owner::WrongUid { i },
                1 if broken => Owner::OtherGroup { i },
                2 if broken && j == 0 => Owner::Ghost { kind, j },
                _ => Owner::Right { i, controller: c },
            });
        let obj = (
            0..KINDS.len(),
            0..NAMESPACES.len(),
            0..NAMES.len(),
            proptest::collection::vec(owner, 0..if o.owners { 3 } else { 1 }),
            proptest::collection::vec(0..n, 0..if o.deps { 2 } else { 1 }),
            proptest::bool::weighted(if o.deleting { 0.1 } else { 0.0 }),
            proptest::collection::vec(0..FINALIZERS.len(), 0..if o.finalizers { 2 } else { 1 }),
            proptest::option::weighted(0.5, 0..LABELS.len()),
            proptest::bool::weighted(if o.keep { 0.1 } else { 0.0 }),
            if o.waves { proptest::option::weighted(0.2, -1i8..3).boxed() } else { Just(None).boxed() },
        )
            .prop_map(|(kind, ns, name, owners, deps, deleting, finalizers, label, keep, wave)| Obj {
                kind,
                ns,
                name: NAMES[name].to_string(),
                owners,
                deps,
                deleting,
                finalizers,
                label,
                keep,
                wave,
            });
        (
            proptest::collection::vec(obj, n),
            proptest::collection::vec(proptest::bool::weighted(0.6), NAMESPACES.len()),
            proptest::collection::vec(proptest::bool::weighted(if o.deleting { 0.15 } else { 0.0 }), NAMESPACES.len()),
            proptest::collection::vec(proptest::bool::weighted(0.4), KINDS.len()),
        )
            .prop_map(|(mut objs, namespaces, ns_deleting, mut crds)| {
                // One object per identity: a later one of the same kind,
                // group, namespace and name gets a name of its own.
                for i in 0..objs.len() {
                    let same =
                        |a: &Obj, b: &Obj| a.kind == b.kind && a.namespace() == b.namespace() && a.name == b.name;
                    if objs[..i].iter().any(|p| same(p, &objs[i])) {
                        objs[i].name = format!("o{i}");
                    }
                }
                for (i, c) in crds.iter_mut().enumerate() {
                    *c &= !KINDS[i].builtin;
                }
                Kube { objs, namespaces, ns_deleting, crds }
            })
    })
}

pub fn uid(i: usize) -> String {
    format!("u{i}")
}

/// Another group with the same kind name, if there is one.
pub fn other_group(kind: usize) -> Option<usize> {
    (0..KINDS.len()).find(|&j| j != kind && KINDS[j].kind == KINDS[kind].kind)
}

impl Kube {
    /// The namespaces some object is in (or whose Namespace object is present).
    fn ns_object(&self, ns: usize) -> Value {
        let mut v = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACES[ns], "uid": format!("ns-{}", NAMESPACES[ns])}});
        if self.ns_deleting[ns] {
            v["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        v
    }

    fn crd(&self, kind: usize) -> Value {
        let d = &KINDS[kind];
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{}.{}", d.plural, d.group), "uid": format!("crd-{kind}")},
            "spec": {
                "group": d.group,
                "scope": if d.namespaced { "Namespaced" } else { "Cluster" },
                "names": {"kind": d.kind, "plural": d.plural},
                "versions": [{"name": d.api.rsplit('/').next().unwrap_or("v1"), "served": true, "storage": true}],
            },
        })
    }

    /// The owner reference `r` as written.
    pub fn owner_ref(&self, r: &Owner) -> Value {
        match *r {
            Owner::Right { i, controller } => {
                let t = &self.objs[i];
                let mut v = json!({"apiVersion": t.def().api, "kind": t.def().kind, "name": t.name, "uid": uid(i)});
                if controller {
                    v["controller"] = json!(true);
                }
                v
            }
            Owner::WrongUid { i } => {
                let t = &self.objs[i];
                json!({"apiVersion": t.def().api, "kind": t.def().kind, "name": t.name, "uid": format!("wrong-{i}")})
            }
            Owner::OtherGroup { i } => {
                let t = &self.objs[i];
                let g = other_group(t.kind).unwrap_or(t.kind);
                json!({"apiVersion": KINDS[g].api, "kind": t.def().kind, "name": t.name, "uid": uid(i)})
            }
            Owner::Ghost { kind, j } => {
                json!({"apiVersion": KINDS[kind].api, "kind": KINDS[kind].kind, "name": format!("ghost{j}"), "uid": format!("g{j}")})
            }
        }
    }

    /// cli-utils' object reference for depends-on.
    fn dep_ref(&self, i: usize) -> String {
        let t = &self.objs[i];
        let d = t.def();
        match t.namespace() {
            Some(ns) => format!("{}/namespaces/{ns}/{}/{}", d.group, d.kind, t.name),
            None => format!("{}/{}/{}", d.group, d.kind, t.name),
        }
    }

    pub fn object(&self, i: usize) -> Value {
        let o = &self.objs[i];
        let mut meta = json!({"name": o.name, "uid": uid(i)});
        if let Some(ns) = o.namespace() {
            meta["namespace"] = json!(ns);
        }
        let mut labels = serde_json::Map::new();
        if let Some(l) = o.label {
            labels.insert("app".into(), json!(LABELS[l]));
        }
        if o.wave.is_some() {
            labels.insert("app.kubernetes.io/instance".into(), json!("shop"));
        }
        if !labels.is_empty() {
            meta["labels"] = Value::Object(labels);
        }
        let mut annotations = serde_json::Map::new();
        if !o.deps.is_empty() {
            let deps: Vec<String> = o.deps.iter().map(|&j| self.dep_ref(j)).collect();
            annotations.insert("config.kubernetes.io/depends-on".into(), json!(deps.join(",")));
        }
        if o.keep {
            annotations.insert("helm.sh/resource-policy".into(), json!("keep"));
        }
        if let Some(w) = o.wave {
            annotations.insert("argocd.argoproj.io/sync-wave".into(), json!(w.to_string()));
        }
        if !annotations.is_empty() {
            meta["annotations"] = Value::Object(annotations);
        }
        if o.deleting {
            meta["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        if !o.finalizers.is_empty() {
            let mut f: Vec<&str> = o.finalizers.iter().map(|&f| FINALIZERS[f]).collect();
            f.dedup();
            meta["finalizers"] = json!(f);
        }
        if !o.owners.is_empty() {
            meta["ownerReferences"] = Value::Array(o.owners.iter().map(|r| self.owner_ref(r)).collect());
        }
        json!({"apiVersion": o.def().api, "kind": o.def().kind, "metadata": meta})
    }

    /// Every document: Namespaces, CRDs, then the objects.
    pub fn documents(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for ns in 0..NAMESPACES.len() {
            if self.namespaces[ns] {
                out.push(self.ns_object(ns));
            }
        }
        for kind in 0..KINDS.len() {
            if self.crds[kind] {
                out.push(self.crd(kind));
            }
        }
        out.extend((0..self.objs.len()).map(|i| self.object(i)));
        out
    }

    /// The whole snapshot as one YAML stream.
    pub fn yaml(&self) -> String {
        yaml_stream(&self.documents())
    }

    // -- the oracle ---------------------------------------------------------

    /// Is owner reference `r` of object `d` solid, as the Kubernetes
    /// collector decides (CONTRACT §5): the object at the reference's own
    /// coordinates (group and kind, name, in the dependent's namespace or
    /// the cluster scope) exists and has the referenced uid? (Whether it is
    /// being deleted is [`Kube::live`]'s business.) Returns the owner.
    pub fn solid(&self, d: usize, r: &Owner) -> Option<usize> {
        let Owner::Right { i, .. } = *r else {
            // OtherGroup without another group is written as Right.
            if let Owner::OtherGroup { i } = *r {
                if other_group(self.objs[i].kind).is_none() {
                    return self.solid(d, &Owner::Right { i, controller: false });
                }
            }
            return None;
        };
        let (dep, owner) = (&self.objs[d], &self.objs[i]);
        match (owner.namespace(), dep.namespace()) {
            (None, _) => Some(i),
            (Some(a), Some(b)) if a == b => Some(i),
            // Another namespace (Kubernetes looks in the dependent's), or a
            // cluster-scoped dependent of a namespaced owner (never collected).
            _ => None,
        }
    }

    /// A cluster-scoped object with a namespaced owner: never collected
    /// (Kubernetes' collector stops at such a reference, whatever the other
    /// owners). As teardown can know it: an owner of the snapshot at the
    /// reference's name and uid that is namespaced; or, for an object whose
    /// own scope is known (built in, or its CRD is in the snapshot), a
    /// reference to a kind known to be namespaced (built in, or by its CRD).
    pub fn never_collected(&self, d: usize) -> bool {
        let dep = &self.objs[d];
        if dep.namespace().is_some() {
            return false;
        }
        let known = |k: usize| KINDS[k].builtin || self.crds[k];
        let by_kind = |k: usize| known(dep.kind) && known(k) && KINDS[k].namespaced;
        dep.owners.iter().any(|r| match *r {
            Owner::Right { i, .. } => self.objs[i].namespace().is_some(),
            Owner::OtherGroup { i } => match other_group(self.objs[i].kind) {
                None => self.objs[i].namespace().is_some(),
                Some(g) => by_kind(g),
            },
            Owner::WrongUid { i } => by_kind(self.objs[i].kind),
            Owner::Ghost { kind, .. } => by_kind(kind),
        })
    }

    /// Does an owner reference of `d` name an object the snapshot lacks —
    /// nothing at its coordinates, and its uid no object's — which the
    /// cluster may still have (TD003; the collector's answer depends on it
    /// unless `--closed-world`)? A reference whose coordinates hold another
    /// uid, or whose uid is an object's elsewhere, dangles for sure.
    pub fn owner_maybe_elsewhere(&self, d: usize) -> bool {
        let dep = &self.objs[d];
        dep.owners.iter().any(|r| match *r {
            Owner::Ghost { .. } => true,
            Owner::WrongUid { i } => {
                let t = &self.objs[i];
                let ns = if t.def().namespaced { dep.namespace() } else { None };
                !self.objs.iter().any(|o| o.kind == t.kind && o.name == t.name && o.namespace() == ns)
            }
            _ => false,
        })
    }

    /// Does an owner reference of `d` name a type nothing in the snapshot
    /// defines — a custom group and kind with no CRD and no object of it?
    /// With `--closed-world` the collector cannot resolve it (its REST
    /// mapping fails): it never collects `d`, nor deletes it with an owner
    /// (TD017; docs/dialects/kubernetes.md). Built-in kinds here are all
    /// served, and a generated CRD serves the version references use.
    pub fn undefined_owner_type(&self, d: usize) -> bool {
        let undefined = |k: usize| !KINDS[k].builtin && !self.crds[k] && !self.objs.iter().any(|o| o.kind == k);
        self.objs[d].owners.iter().any(|r| match *r {
            Owner::OtherGroup { i } => other_group(self.objs[i].kind).is_some_and(undefined),
            Owner::Ghost { kind, .. } => undefined(kind),
            Owner::Right { .. } | Owner::WrongUid { .. } => false,
        })
    }

    /// The solid owners of `d` (each once).
    pub fn solid_owners(&self, d: usize) -> Vec<usize> {
        let mut v: Vec<usize> = self.objs[d].owners.iter().filter_map(|r| self.solid(d, r)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Solid and not being deleted.
    pub fn live_owners(&self, d: usize) -> Vec<usize> {
        self.solid_owners(d).into_iter().filter(|&i| !self.objs[i].deleting).collect()
    }

    /// The depends-on targets of `d` that exist (each once).
    pub fn depends_on(&self, d: usize) -> Vec<usize> {
        let mut v = self.objs[d].deps.clone();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn namespace_ref(ns: &str) -> String {
        format!("Namespace/{ns}")
    }

    pub fn crd_ref(&self, kind: usize) -> String {
        let d = &KINDS[kind];
        format!("CustomResourceDefinition.apiextensions.k8s.io/{}.{}", d.plural, d.group)
    }
}

/// Documents as one YAML stream.
pub fn yaml_stream(docs: &[Value]) -> String {
    let mut out = String::new();
    for d in docs {
        out.push_str("---\n");
        out.push_str(&serde_yaml::to_string(d).expect("YAML"));
    }
    out
}

/// Documents as one file in `format`: 0 a YAML stream, 1 a JSON `List`,
/// 2 a JSON array, 3 a YAML `List`.
pub fn file_text(docs: &[Value], format: u8) -> (String, &'static str) {
    let list = || json!({"apiVersion": "v1", "kind": "List", "items": docs});
    match format {
        1 => (serde_json::to_string_pretty(&list()).unwrap(), "json"),
        2 => (serde_json::to_string(&Value::Array(docs.to_vec())).unwrap(), "json"),
        3 => (serde_yaml::to_string(&list()).unwrap(), "yml"),
        _ => (yaml_stream(docs), "yaml"),
    }
}

// ---------------------------------------------------------------------------
// Native snapshots

#[derive(Clone, Debug)]
pub struct NativeRes {
    pub owners: Vec<usize>,
    pub after: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct Native {
    pub res: Vec<NativeRes>,
}

pub fn native(max: usize) -> impl Strategy<Value = Native> {
    (1..max + 1).prop_flat_map(|n| {
        let res = (proptest::collection::vec(0..n, 0..3), proptest::collection::vec(0..n, 0..3)).prop_map(
            |(mut owners, mut after)| {
                owners.sort_unstable();
                owners.dedup();
                after.sort_unstable();
                after.dedup();
                NativeRes { owners, after }
            },
        );
        proptest::collection::vec(res, n).prop_map(|res| Native { res })
    })
}

impl Native {
    pub fn id(i: usize) -> String {
        format!("r{i}")
    }

    pub fn resource(&self, i: usize) -> Value {
        let r = &self.res[i];
        let mut v = json!({"id": Native::id(i)});
        if !r.owners.is_empty() {
            v["owners"] = json!(r.owners.iter().map(|&j| Native::id(j)).collect::<Vec<_>>());
        }
        if !r.after.is_empty() {
            v["destroyAfter"] = json!(r.after.iter().map(|&j| Native::id(j)).collect::<Vec<_>>());
        }
        v
    }

    /// Resources `items` as one native document.
    pub fn document(&self, items: &[usize]) -> String {
        let list: Vec<Value> = items.iter().map(|&i| self.resource(i)).collect();
        serde_yaml::to_string(&json!({ "resources": list })).unwrap()
    }
}
