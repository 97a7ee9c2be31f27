//! Selection (issue 19, deliverable 3; CONTRACT §2): a selector never
//! matches an object of another group, and matches exactly what the
//! contract says.
//!
//! The snapshot (tests/props_gen) holds objects of one kind name in
//! several groups: ConfigMap (core, and custom `c.example.com`), Deployment
//! (`apps`, some written with the legacy `extensions/v1beta1`, and custom
//! `ex.com`), Event (core and `events.k8s.io`, both built in), Widget (two
//! custom groups, one namespaced, one cluster-scoped), ClusterRole, Pod,
//! ReplicaSet; names shared across kinds, namespaces and labels; CRDs for
//! some custom kinds. Selectors come in every form the contract lists: the
//! kind as `Kind`, lower and upper case, plural, short name, `kind.group`,
//! `plural.group`, `kind.version.group` (`kind.v1` and `kind.core` for the
//! core group), the legacy `deployment.extensions`; alone, `KIND/NAME`,
//! `KIND/NAMESPACE/NAME`; with `-n` and `-l`; and `-n`, `-l` alone.
//!
//! Invariants (`plan --delete SEL -o json`, the plan's `targets`):
//! - every target is of the selector's kind and group: the group written
//!   (legacy groups as their successors), or, for a kind name alone, the
//!   built-in kind's group when one has that name (kubectl's discovery:
//!   `event` is core, `deploy` is `apps`, `configmaps` is core), else a
//!   group of that custom kind;
//! - the targets are exactly the objects of that kind and group that the
//!   name, namespace (`-n` lets a named cluster-scoped object through; a
//!   kind alone with `-n` takes only namespaced objects) and labels select;
//!   a selector that matches nothing is an error, and so is a kind name
//!   alone that names custom kinds of several groups (write the group);
//! - `-n NS` alone selects every namespaced object in NS, `-l` alone every
//!   object with those labels.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::props_gen;
use props_gen::{kube, run, Kube, KubeOpts, KINDS, LABELS, NAMES, NAMESPACES};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// How the kind is written.
#[derive(Clone, Copy, Debug)]
enum Form {
    Kind,
    Lower,
    Upper,
    Plural,
    Short,
    KindGroup,
    PluralGroup,
    KindVersionGroup,
    /// `deployment.extensions`, for `apps` Deployments.
    Legacy,
    UpperGroup,
}

const FORMS: [Form; 10] = [
    Form::Kind,
    Form::Lower,
    Form::Upper,
    Form::Plural,
    Form::Short,
    Form::KindGroup,
    Form::PluralGroup,
    Form::KindVersionGroup,
    Form::Legacy,
    Form::UpperGroup,
];

/// The kind part of a selector for kind `k` in `form`, and the group it
/// names (`None`: a kind name alone). `None` when the form does not apply.
fn kind_text(k: usize, form: Form) -> Option<(String, Option<&'static str>)> {
    let d = &KINDS[k];
    let version = d.api.rsplit('/').next().unwrap_or("v1");
    let group = if d.group.is_empty() { "core" } else { d.group };
    Some(match form {
        Form::Kind => (d.kind.to_string(), None),
        Form::Lower => (d.kind.to_lowercase(), None),
        Form::Upper => (d.kind.to_uppercase(), None),
        Form::Plural => (d.plural.to_string(), None),
        Form::Short => (d.short?.to_string(), None),
        Form::KindGroup => (format!("{}.{group}", d.kind.to_lowercase()), Some(d.group)),
        Form::PluralGroup => (format!("{}.{group}", d.plural), Some(d.group)),
        // The core group's is `kind.v1` (a version alone).
        Form::KindVersionGroup if d.group.is_empty() => (format!("{}.{version}", d.plural), Some("")),
        Form::KindVersionGroup => (format!("{}.{version}.{}", d.kind.to_lowercase(), d.group), Some(d.group)),
        Form::Legacy if d.group == "apps" && d.kind == "Deployment" => ("deployment.extensions".into(), Some("apps")),
        Form::Legacy => return None,
        Form::UpperGroup => (format!("{}.{}", d.kind.to_uppercase(), group.to_uppercase()), Some(d.group)),
    })
}

/// The kinds (indices) a kind part names.
fn named_kinds(k: usize, group: Option<&str>) -> Vec<usize> {
    let name = KINDS[k].kind;
    match group {
        Some(g) => (0..KINDS.len()).filter(|&j| KINDS[j].kind == name && KINDS[j].group == g).collect(),
        None => match (0..KINDS.len()).find(|&j| KINDS[j].kind == name && KINDS[j].builtin) {
            // kubectl's discovery: the built-in kind (the first, core, for Event).
            Some(b) => vec![b],
            None => (0..KINDS.len()).filter(|&j| KINDS[j].kind == name).collect(),
        },
    }
}

#[derive(Clone, Debug)]
struct Case {
    snap: Kube,
    /// Apps Deployments written as `extensions/v1beta1`.
    legacy: Vec<bool>,
    kind: usize,
    form: usize,
    /// 0: kind alone; 1: KIND/NAME; 2: KIND/NS/NAME.
    shape: u8,
    name: usize,
    ns: usize,
    /// `-n NS`.
    with_ns: Option<usize>,
    /// `-l app=LABEL`.
    label: Option<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    let opts = KubeOpts {
        owners: false,
        deps: false,
        deleting: false,
        finalizers: false,
        keep: false,
        broken_owners: false,
        waves: false,
    };
    kube(14, opts).prop_flat_map(|snap| {
        let n = snap.objs.len();
        (
            Just(snap),
            proptest::collection::vec(any::<bool>(), n),
            0..KINDS.len(),
            0..FORMS.len(),
            0u8..3,
            0..NAMES.len(),
            0..NAMESPACES.len(),
            proptest::option::weighted(0.3, 0..NAMESPACES.len()),
            proptest::option::weighted(0.3, 0..LABELS.len()),
        )
            .prop_map(|(snap, legacy, kind, form, shape, name, ns, with_ns, label)| Case {
                snap,
                legacy,
                kind,
                form,
                shape,
                name,
                ns,
                with_ns,
                label,
            })
    })
}

/// The snapshot, with the legacy Deployments.
fn yaml(c: &Case) -> String {
    let mut docs = c.snap.documents();
    let first = docs.len() - c.snap.objs.len();
    for (i, o) in c.snap.objs.iter().enumerate() {
        if c.legacy[i] && KINDS[o.kind].group == "apps" && KINDS[o.kind].kind == "Deployment" {
            docs[first + i]["apiVersion"] = "extensions/v1beta1".into();
        }
    }
    props_gen::yaml_stream(&docs)
}

fn targets(args: &[String]) -> (i32, Option<BTreeSet<String>>, String) {
    let (code, out, err) = run(args);
    let v: Option<Value> = serde_json::from_str(&out).ok();
    let t = v
        .and_then(|v| v["targets"].as_array().map(|a| a.iter().filter_map(|r| r.as_str().map(String::from)).collect()));
    (code, t, err)
}

proptest! {
    #![proptest_config(props_gen::config(256))]

    #[test]
    fn a_selector_matches_its_kind_and_group_and_exactly_what_it_says(c in case()) {
        let Some((kind_text, group)) = kind_text(c.kind, FORMS[c.form]) else { return Ok(()) };
        let dir = tempfile::tempdir().unwrap();
        let input = props_gen::write(dir.path(), "snap.yaml", &yaml(&c)).to_string_lossy().into_owned();
        let (name, ns) = (NAMES[c.name], NAMESPACES[c.ns]);
        let sel = match c.shape {
            0 => kind_text.clone(),
            1 => format!("{kind_text}/{name}"),
            _ => format!("{kind_text}/{ns}/{name}"),
        };
        let mut args: Vec<String> = ["plan", "-o", "json", "--cascade", "orphan", "--allow-cycles", "--delete", &sel]
            .iter().map(|s| s.to_string()).collect();
        if let Some(n) = c.with_ns {
            args.extend(["-n".to_string(), NAMESPACES[n].to_string()]);
        }
        if let Some(l) = c.label {
            args.extend(["-l".to_string(), format!("app={}", LABELS[l])]);
        }
        args.push(input);
        let (code, got, err) = targets(&args);

        // The oracle.
        let kinds = named_kinds(c.kind, group);
        let objs = &c.snap.objs;
        let of_kind: Vec<usize> = (0..objs.len()).filter(|&i| kinds.contains(&objs[i].kind)).collect();
        let selected: Vec<usize> = of_kind.iter().copied().filter(|&i| {
            let o = &objs[i];
            let named = match c.shape {
                0 => true,
                1 => o.name == name,
                _ => o.name == name && o.namespace() == Some(ns),
            };
            let in_ns = match (c.with_ns, c.shape, o.namespace()) {
                (None, _, _) => true,
                (Some(n), _, Some(x)) => x == NAMESPACES[n],
                // -n lets a named cluster-scoped object through; a kind alone
                // takes only namespaced objects.
                (Some(_), s, None) => s != 0,
            };
            let labelled = c.label.is_none_or(|l| o.label == Some(l));
            named && in_ns && labelled
        }).collect();
        let groups = |ids: &[usize]| ids.iter().map(|&i| objs[i].kind).collect::<BTreeSet<usize>>();
        // A kind alone with -n whose objects are cluster-scoped: refused.
        // (Known to be: built in, by its CRD, or by its objects.)
        let cluster_kind_with_ns = c.shape == 0
            && c.with_ns.is_some()
            && kinds.iter().any(|&k| !KINDS[k].namespaced && (KINDS[k].builtin || c.snap.crds[k] || groups(&of_kind).contains(&k)));
        // A kind name alone naming custom kinds of several groups.
        let several = group.is_none() && kinds.len() > 1
            && (groups(&of_kind).len() > 1 || kinds.iter().any(|&k| c.snap.crds[k]) && kinds.iter().filter(|&&k| c.snap.crds[k] || groups(&of_kind).contains(&k)).count() > 1);

        // Whatever the outcome: no target of another kind or group.
        if let Some(t) = &got {
            for r in t {
                let ok = objs.iter().enumerate().any(|(i, o)| &o.reference() == r && kinds.contains(&objs[i].kind));
                prop_assert!(ok, "`{}`: {} is of another kind or group than {:?}", sel, r, kinds.iter().map(|&k| format!("{}.{}", KINDS[k].kind, KINDS[k].group)).collect::<Vec<_>>());
            }
        }
        // KIND/NAMESPACE/NAME with another -n: refused.
        let two_namespaces = c.shape == 2 && c.with_ns.is_some_and(|n| n != c.ns);
        if cluster_kind_with_ns || two_namespaces {
            prop_assert!(code == 2 && got.is_none(), "`{}` {:?}: expected a refusal, exit {}", sel, args, code);
            return Ok(());
        }
        if several {
            prop_assert!(code != 0 || got.as_ref().is_some_and(|t| t.iter().all(|r| selected.iter().any(|&i| &objs[i].reference() == r))),
                "`{}` {:?}: expected a refusal or a subset of {:?}", sel, args, selected);
            return Ok(());
        }
        let want: BTreeSet<String> = selected.iter().map(|&i| objs[i].reference()).collect();
        if want.is_empty() {
            prop_assert_eq!(code, 1, "`{}` matches nothing, but: {:?}\n{}", sel, got, err);
        } else {
            prop_assert_eq!(code, 0, "`{}` {:?}: {}", sel, args, err);
            prop_assert_eq!(got, Some(want), "`{}` {:?}", sel, args);
        }
    }

    #[test]
    fn namespace_and_labels_alone_select_what_they_match(snap in kube(14, KubeOpts { owners: false, deps: false, deleting: false, finalizers: false, keep: false, broken_owners: false, waves: false }), ns in 0..NAMESPACES.len(), label in 0..LABELS.len()) {
        let dir = tempfile::tempdir().unwrap();
        let input = props_gen::write(dir.path(), "snap.yaml", &snap.yaml()).to_string_lossy().into_owned();
        for (flag, value) in [("-n", NAMESPACES[ns].to_string()), ("-l", format!("app={}", LABELS[label]))] {
            let args: Vec<String> = ["plan", "-o", "json", "--cascade", "orphan", "--allow-cycles", flag, &value, &input]
                .iter().map(|s| s.to_string()).collect();
            let (code, got, err) = targets(&args);
            let want: BTreeSet<String> = snap.objs.iter().filter(|o| match flag {
                "-n" => o.namespace() == Some(NAMESPACES[ns]),
                _ => o.label == Some(label),
            }).map(|o| o.reference()).collect();
            if want.is_empty() {
                prop_assert_eq!(code, 1, "{} {}: {:?} {}", flag, value, got, err);
            } else {
                prop_assert_eq!(code, 0, "{} {}: {}", flag, value, err);
                prop_assert_eq!(got, Some(want), "{} {}", flag, value);
            }
        }
    }
}
