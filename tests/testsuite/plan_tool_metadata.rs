//! Other tools' ordering metadata and keep annotations (issue 18,
//! deliverables 2 and 3; fixtures/tools/, each file says what it models and
//! the order worked out by hand): Argo CD sync waves, kapp change rules,
//! Flux dependsOn, Crossplane Usages, Helm hooks and cli-utils'
//! apply-time-mutation as destruction dependencies, each with its typed
//! reason; Helm's, kapp's, Argo CD's, Flux's and cli-utils' keep and orphan
//! annotations honoured where the tool is the one that deletes, and never
//! against Kubernetes' namespace controller or garbage collector.

use crate::common;
use common::{kept, plan, resource, run, s, steps, warnings};
use serde_json::{json, Value};

fn kept_refs(v: &Value) -> Vec<String> {
    kept(v).into_iter().map(|(r, _)| r).collect()
}

const WAVES: &str = "fixtures/tools/argocd-waves.yaml";

/// Argo CD #3211 (PR #3959): an application's higher waves are deleted
/// first; the wave is gitops-engine's syncwaves.Wave.
#[test]
fn argocd_deletes_higher_sync_waves_first_within_an_application() {
    let v = plan(&["--all", WAVES]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/shop/loose", "ConfigMap/shop/unrelated", "Job.batch/shop/migrate"],
            &["Widget.example.com/shop/w1", "Widget.example.com/shop/w2"],
            &["ConfigMap/shop/settings", "Pod/shop/presync-check", "Service/shop/web"],
            &["Deployment.apps/shop/operator"],
        ])
    );
    let settings = resource(&v, "ConfigMap/shop/settings");
    assert_eq!(
        settings["reason"],
        "after Widget.example.com/shop/w1, of sync wave 1 (Argo CD argocd.argoproj.io/sync-wave: application shop deletes wave 1 before wave 0)"
    );
    assert_eq!(
        settings["reasons"][0],
        json!({"type": "tool", "why": "sync-wave", "ref": "Widget.example.com/shop/w1", "tool": "argocd", "annotation": "argocd.argoproj.io/sync-wave"})
    );
    // The Helm hook weight stands in for a missing wave; an Argo CD hook's
    // Helm weight does not.
    assert!(resource(&v, "Widget.example.com/shop/w1")["reason"]
        .as_str()
        .unwrap()
        .starts_with("after Job.batch/shop/migrate, of sync wave 2"));
    assert!(v["warnings"].as_array().unwrap().is_empty());
    // Only what the plan deletes is ordered: wave 0 and wave -1 alone.
    let v = plan(&["--delete", "deploy/operator", "--delete", "cm/shop/settings", WAVES]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/shop/settings"], &["Deployment.apps/shop/operator"]]));
    // --no-default-rules turns other tools' metadata off too (the
    // contract's "ordering knowledge"): the waves no longer order the plan.
    assert!(steps(&plan(&["--all", "--no-default-rules", WAVES])).len() < 4);
}

#[test]
fn a_wave_order_goes_through_a_hub_and_explain_names_the_object_behind_it() {
    // Waves 1 and 0 are 2 and 3 objects: 5 edges through a hub, drawn as a
    // point; explain's chain goes from object to object.
    let (code, out, _) = run(&["plan", "--all", "-o", "dot", WAVES]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("[shape=point").count(), 1, "{out}");
    assert_eq!(out.matches("-> h0").count(), 2, "{out}");
    assert_eq!(out.matches("h0 -> ").count(), 3, "{out}");
    let (_, out, _) = run(&["plan", "--all", "-o", "mermaid", WAVES]);
    assert!(out.contains("  h0(( ))\n") && out.contains("  h0 --> n"), "{out}");
    let (code, out, err) = run(&["explain", "deploy/operator", "--all", WAVES]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("why step 4:"), "{out}");
    assert!(out.contains("└ goes after ConfigMap/shop/settings, of a higher sync wave of its application (Argo CD argocd.argoproj.io/sync-wave) (step 3)"), "{out}");
    assert!(out.contains("└ goes after Widget.example.com/shop/w1, of a higher sync wave of its application (Argo CD argocd.argoproj.io/sync-wave) (step 2)"), "{out}");
    assert!(out.contains("└ goes after Job.batch/shop/migrate"), "{out}");
}

const KAPP: &str = "fixtures/tools/kapp.yaml";

/// kapp's change rules, read for a deletion (issue 18: `upsert after
/// upserting G` means G's members are deleted after it).
#[test]
fn kapp_change_rules_order_against_change_groups() {
    let v = plan(&["--all", KAPP]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "ConfigMap/app/follow",
                "Deployment.apps/app/api",
                "Deployment.apps/app/worker",
                "Job.batch/app/backup",
                "Secret/app/certs",
            ],
            &["ConfigMap/app/ca", "ConfigMap/app/db-config", "ConfigMap/app/lead", "StatefulSet.apps/app/db"],
            &["ConfigMap/app/audit", "Service/app/svc"],
        ])
    );
    assert_eq!(
        resource(&v, "ConfigMap/app/ca")["reason"],
        "after Secret/app/certs (kapp.k14s.io/change-rule `upsert before upserting apps.big.co/certs` of ConfigMap/app/ca)"
    );
    assert_eq!(
        resource(&v, "StatefulSet.apps/app/db")["reason"],
        "after Deployment.apps/app/api (kapp.k14s.io/change-rule `upsert after upserting apps.big.co/db` of Deployment.apps/app/api)"
    );
    // Its delete rule wins over its upsert rule on the same group.
    assert_eq!(
        resource(&v, "Service/app/svc")["reason"],
        "after ConfigMap/app/db-config (kapp.k14s.io/change-rule `delete after deleting apps.big.co/db` of Service/app/svc)"
    );
    // A declarer in its own group is not ordered against itself.
    assert!(v["cycles"].as_array().unwrap().is_empty());
    assert_eq!(resource(&v, "ConfigMap/app/lead")["reasons"][0]["why"], "change-rule");
}

const FLUX: &str = "fixtures/tools/flux.yaml";

/// Flux kustomize-controller #301: the dependent goes first.
#[test]
fn flux_dependents_go_before_what_they_depend_on() {
    let v = plan(&["--all", FLUX]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "HelmRelease.helm.toolkit.fluxcd.io/team/api",
                "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/monitoring",
                "Kustomization.kustomize.toolkit.fluxcd.io/team/tenant",
            ],
            &[
                "HelmRelease.helm.toolkit.fluxcd.io/team/redis",
                "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps"
            ],
            &["Kustomization.kustomize.toolkit.fluxcd.io/flux-system/infra"],
        ])
    );
    assert_eq!(
        resource(&v, "HelmRelease.helm.toolkit.fluxcd.io/team/redis")["reason"],
        "after HelmRelease.helm.toolkit.fluxcd.io/team/api, which depends on it (Flux spec.dependsOn)"
    );
    // Through a Kustomization the plan keeps, the chain still orders.
    let v = plan(&[
        "--delete",
        "kustomization/flux-system/monitoring",
        "--delete",
        "kustomization/flux-system/infra",
        FLUX,
    ]);
    assert_eq!(
        steps(&v),
        s(&[
            &["Kustomization.kustomize.toolkit.fluxcd.io/flux-system/monitoring"],
            &["Kustomization.kustomize.toolkit.fluxcd.io/flux-system/infra"],
        ])
    );
}

const XP: &str = "fixtures/tools/crossplane.yaml";

/// Crossplane's Usages: `of` after `by`; without `by`, kept while the
/// Usage stays (the API refuses its deletion).
#[test]
fn crossplane_usage_puts_of_after_by_and_keeps_what_it_protects() {
    let v = plan(&["--all", XP]);
    assert_eq!(
        steps(&v)[0],
        [
            "ClusterUsage.protection.crossplane.io/protect-db",
            "Release.helm.crossplane.io/prom",
            "Usage.apiextensions.crossplane.io/release-uses-cluster"
        ]
    );
    assert!(steps(&v)[1].contains(&"Cluster.eks.aws.upbound.io/main".to_string()));
    assert!(steps(&v)[1].contains(&"Instance.rds.aws.upbound.io/prod-db".to_string()));
    assert_eq!(
        resource(&v, "Cluster.eks.aws.upbound.io/main")["reason"],
        "after Release.helm.crossplane.io/prom, which uses it (Crossplane Usage.apiextensions.crossplane.io/release-uses-cluster)"
    );
    assert_eq!(
        resource(&v, "Instance.rds.aws.upbound.io/prod-db")["reason"],
        "after ClusterUsage.protection.crossplane.io/protect-db, the Crossplane Usage that protects it"
    );

    // The Usage and its `by` stay: the Cluster is kept.
    let v = plan(&["--delete", "cluster/main", XP]);
    assert!(steps(&v).is_empty());
    assert_eq!(
        kept(&v),
        [(
            "Cluster.eks.aws.upbound.io/main".to_string(),
            "in use by Release.helm.crossplane.io/prom (Crossplane Usage.apiextensions.crossplane.io/release-uses-cluster): the API refuses to delete it while both stay".to_string()
        )]
    );
    assert_eq!(
        v["kept"][0]["reasons"][0],
        json!({"type": "in-use", "ref": "Usage.apiextensions.crossplane.io/release-uses-cluster", "refs": ["Release.helm.crossplane.io/prom"], "tool": "crossplane"})
    );
    // Its `by` goes: the Cluster goes after it.
    let v = plan(&["--delete", "cluster/main", "--delete", "release/prom", XP]);
    assert_eq!(steps(&v), s(&[&["Release.helm.crossplane.io/prom"], &["Cluster.eks.aws.upbound.io/main"]]));

    // A reason alone: kept while the Usage stays, even named.
    let v = plan(&["--delete", "instance/prod-db", XP]);
    assert!(steps(&v).is_empty());
    assert_eq!(
        kept(&v)[0].1,
        "protected by Crossplane ClusterUsage.protection.crossplane.io/protect-db (production data): the API refuses to delete it while the Usage stays"
    );
    let v = plan(&["--delete", "instance/prod-db", "--delete", "clusterusage/protect-db", XP]);
    assert_eq!(
        steps(&v),
        s(&[&["ClusterUsage.protection.crossplane.io/protect-db"], &["Instance.rds.aws.upbound.io/prod-db"]])
    );
}

#[test]
fn a_namespace_that_holds_what_a_usage_protects_never_finishes() {
    let v = plan(&["--delete", "ns/infra", "fixtures/tools/crossplane-namespaced.yaml"]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/infra/settings"], &["Namespace/infra"]]));
    assert_eq!(kept_refs(&v), ["Bucket.s3.aws.m.upbound.io/infra/logs"]);
    assert_eq!(
        warnings(&v),
        [(
            "hangs".to_string(),
            "Namespace/infra will not finish deleting: it holds Bucket.s3.aws.m.upbound.io/infra/logs, which Crossplane Usage.protection.crossplane.io/team/keep-logs protects (the API refuses to delete it while the Usage stays)".to_string()
        )]
    );
    let v = plan(&["--all", "fixtures/tools/crossplane-namespaced.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/infra/settings", "Usage.protection.crossplane.io/team/keep-logs"],
            &["Bucket.s3.aws.m.upbound.io/infra/logs", "Namespace/team"],
            &["Namespace/infra"],
        ])
    );
}

const HOOKS: &str = "fixtures/tools/helm-hooks.yaml";

/// Helm runs pre-delete hooks before it deletes anything of the release,
/// post-delete hooks after, by weight, then kind, then name
/// (pkg/action/hooks.go); they are runs, not deletions.
#[test]
fn helm_hooks_run_around_their_release_in_helms_order() {
    let v = plan(&["--all", HOOKS]);
    assert_eq!(
        steps(&v),
        s(&[
            &["ConfigMap/shop/web-config", "ReplicaSet.apps/shop/web-5d4f", "Service/shop/web"],
            &["Deployment.apps/shop/web"],
        ])
    );
    let hooks: Vec<(&str, &str, &str, i64, u64)> = v["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["ref"].as_str().unwrap(),
                h["hook"].as_str().unwrap(),
                h["runs"].as_str().unwrap(),
                h["weight"].as_i64().unwrap(),
                h["step"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hooks,
        [
            ("ConfigMap/shop/pre-hook", "pre-delete", "before", -5, 1),
            ("Job.batch/shop/backup", "pre-delete", "before", -5, 1),
            ("Job.batch/shop/drain", "pre-delete", "before", -5, 1),
            ("Pod/shop/cleanup", "pre-delete", "before", 10, 1),
            ("Job.batch/shop/notify", "post-delete", "after", 0, 2),
        ]
    );
    assert_eq!(
        kept_refs(&v),
        [
            "ConfigMap/shop/pre-hook",
            "Job.batch/shop/backup",
            "Job.batch/shop/drain",
            "Job.batch/shop/notify",
            "Pod/shop/cleanup"
        ]
    );
    assert_eq!(
        kept(&v)[1].1,
        "Helm pre-delete hook of release shop/web: Helm creates and runs it, it does not delete it"
    );
    // Runs are no deletions: -o names and -o refs leave them out.
    let (_, names, _) = run(&["plan", "--all", "-o", "names", HOOKS]);
    assert_eq!(names.lines().count(), 4, "{names}");
    // The table lists them after the steps; the script says where Helm runs them.
    let (_, table, err) = run(&["plan", "--all", HOOKS]);
    assert!(table.contains("HELM HOOK    RUNS           OBJECT                   RELEASE   WEIGHT\npre-delete   before step 1  ConfigMap/shop/pre-hook  shop/web  -5\n"), "{table}");
    assert!(err.contains("4 objects in 2 steps, 5 kept, 5 Helm hooks run, 0 warnings"), "{err}");
    let (_, script, _) = run(&["plan", "--all", "-o", "kubectl", HOOKS]);
    assert!(script.contains("# helm uninstall runs these hooks after step 2; this script does not:\n#   Job.batch/shop/notify (post-delete hook of release shop/web, weight 0)\n"), "{script}");
    let (_, out, _) = run(&["explain", "job/notify", "--all", HOOKS]);
    assert!(out.contains("  Helm runs it after step 2 (post-delete hook of release shop/web, weight 0)"), "{out}");
    // A prune is no uninstall: Helm runs no delete hook (they stay kept).
    let v = plan(&["--prune", "fixtures/tools/keep-new.yaml", HOOKS]);
    assert_eq!(steps(&v).concat().len(), 4);
    assert_eq!(kept_refs(&v).len(), 5);
    assert!(v.get("hooks").is_none());
    // A hook named on its own is deleted, and nothing of its release runs.
    let v = plan(&["--delete", "job/shop/backup", HOOKS]);
    assert_eq!(steps(&v), s(&[&["Job.batch/shop/backup"]]));
    assert!(v.get("hooks").is_none());
}

/// cli-utils' apply-time-mutation sources, read as depends-on.
#[test]
fn apply_time_mutation_sources_are_dependencies() {
    let v = plan(&["--all", "fixtures/tools/mutation.yaml"]);
    assert_eq!(steps(&v), s(&[&["Deployment.apps/app/consumer"], &["ConfigMap/app/source"]]));
    let consumer = resource(&v, "Deployment.apps/app/consumer");
    assert_eq!(
        consumer["reason"],
        "takes a value from ConfigMap/app/source (config.kubernetes.io/apply-time-mutation)"
    );
    assert_eq!(
        consumer["reasons"][0],
        json!({"type": "apply-time-mutation", "ref": "ConfigMap/app/source", "tool": "cli-utils", "annotation": "config.kubernetes.io/apply-time-mutation"})
    );
}

/// Hard, like depends-on: against an owner reference the ownership edge is
/// relaxed (TD012 names the annotation); a cycle is one group (TD008).
#[test]
fn tool_metadata_is_hard_and_contradictions_are_listed() {
    let v = plan(&["--all", "fixtures/tools/conflict.yaml"]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "ConfigMap/x/parent",
                "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/a",
                "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/b",
            ],
            &["ConfigMap/x/child"],
        ])
    );
    assert_eq!(
        v["relaxed"],
        json!([{"owner": "ConfigMap/x/parent", "dependent": "ConfigMap/x/child", "kind": "owns"}])
    );
    let w = warnings(&v);
    assert!(w.contains(&(
        "relaxed".to_string(),
        "ordering conflict: ConfigMap/x/child is destroyed after ConfigMap/x/parent (Argo CD argocd.argoproj.io/sync-wave), but ConfigMap/x/parent owns it; the ownership edge ConfigMap/x/parent owns ConfigMap/x/child is relaxed".to_string()
    )), "{w:?}");
    assert_eq!(v["cycles"][0]["kind"], "destruction");
}

const KEEP: &str = "fixtures/tools/keep.yaml";

/// Each keep annotation, where its tool is the one that deletes.
#[test]
fn keep_annotations_keep_what_is_selected_not_named() {
    let v = plan(&["--all", KEEP]);
    assert_eq!(
        steps(&v),
        s(&[&[
            "ConfigMap/keep/argo-no-prune",
            "ConfigMap/keep/flux-no-prune",
            "ConfigMap/keep/plain",
            "ReplicaSet.apps/keep/web-1"
        ]])
    );
    assert_eq!(
        kept(&v),
        [
            ("ConfigMap/keep/argo-no-delete", "argocd.argoproj.io/sync-options: Delete=false (Argo CD leaves it)"),
            ("ConfigMap/keep/detached", "client.lifecycle.config.k8s.io/deletion: detach (cli-utils leaves it)"),
            ("ConfigMap/keep/helm-kept", "helm.sh/resource-policy: keep (Helm leaves it)"),
            ("ConfigMap/keep/kapp-orphan", "kapp.k14s.io/delete-strategy: orphan (kapp leaves it)"),
            ("Deployment.apps/keep/web", "helm.sh/resource-policy: keep (Helm leaves it)"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(
        v["kept"][2]["reasons"][0],
        json!({"type": "keep-annotation", "why": "helm-resource-policy-keep", "tool": "helm", "annotation": "helm.sh/resource-policy: keep"})
    );
    // What it keeps, it keeps as a kept owner: its ReplicaSet, selected
    // too, goes, and the Deployment will make another.
    assert_eq!(
        warnings(&v),
        [(
            "controller-stays".to_string(),
            "ReplicaSet.apps/keep/web-1 is deleted but its controller Deployment.apps/keep/web stays and will recreate it".to_string()
        )]
    );
    // Selected by kind: the same.
    let v = plan(&["--delete", "deploy", "-n", "keep", KEEP]);
    assert!(steps(&v).is_empty());
    assert_eq!(kept_refs(&v), ["Deployment.apps/keep/web"]);
    // -o names and -o kubectl leave kept objects out.
    let (_, names, _) = run(&["plan", "--all", "-o", "names", KEEP]);
    assert!(!names.contains("helm-kept") && names.lines().count() == 4, "{names}");
}

#[test]
fn prune_only_annotations_count_under_prune() {
    let v = plan(&["--prune", "fixtures/tools/keep-new.yaml", KEEP]);
    assert!(steps(&v).is_empty());
    assert_eq!(
        kept_refs(&v),
        [
            "ConfigMap/keep/argo-no-delete",
            "ConfigMap/keep/argo-no-prune",
            "ConfigMap/keep/detached",
            "ConfigMap/keep/flux-no-prune",
            "ConfigMap/keep/helm-kept",
            "ConfigMap/keep/kapp-orphan",
        ]
    );
    assert_eq!(kept(&v)[1].1, "argocd.argoproj.io/sync-options: Prune=false (Argo CD leaves it)");
    assert_eq!(kept(&v)[3].1, "kustomize.toolkit.fluxcd.io/prune: disabled (Flux leaves it)");
}

#[test]
fn a_named_target_is_deleted_with_a_warning_naming_its_annotation() {
    let v = plan(&["--delete", "cm/keep/helm-kept", KEEP]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/keep/helm-kept"]]));
    assert_eq!(
        warnings(&v),
        [(
            "keep-ignored".to_string(),
            "ConfigMap/keep/helm-kept carries helm.sh/resource-policy: keep, which tells Helm to leave it; it is deleted because it is named".to_string()
        )]
    );
}

const KEEP_NS: &str = "fixtures/tools/keep-ns.yaml";

/// The annotations only stop their tool: a deleted Namespace or last owner
/// takes the object, and the plan says so.
#[test]
fn namespace_deletion_and_the_garbage_collector_ignore_keep_annotations() {
    for args in [&["--delete", "ns/shop"][..], &["--all"][..]] {
        let mut all = args.to_vec();
        all.push(KEEP_NS);
        let v = plan(&all);
        assert_eq!(
            steps(&v),
            s(&[&["ConfigMap/shop/kept", "ConfigMap/shop/owned"], &["ConfigMap/shop/owner"], &["Namespace/shop"]]),
            "{args:?}"
        );
        assert!(kept(&v).is_empty(), "{args:?}: never kept what the cluster deletes");
        assert_eq!(
            warnings(&v),
            [
                ("keep-ignored".to_string(), "ConfigMap/shop/kept carries helm.sh/resource-policy: keep, but it goes with Namespace/shop (its namespace: the namespace controller deletes everything in it); that annotation only stops Helm, and will not save it".to_string()),
                ("keep-ignored".to_string(), "ConfigMap/shop/owned carries kapp.k14s.io/delete-strategy: orphan, but it goes with Namespace/shop (its namespace: the namespace controller deletes everything in it); that annotation only stops kapp, and will not save it".to_string()),
            ],
            "{args:?}"
        );
    }
    let v = plan(&["--delete", "cm/shop/owner", KEEP_NS]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/shop/owned"], &["ConfigMap/shop/owner"]]));
    assert_eq!(
        warnings(&v)[0].1,
        "ConfigMap/shop/owned carries kapp.k14s.io/delete-strategy: orphan, but it goes with ConfigMap/shop/owner (its last owner: the garbage collector deletes it); that annotation only stops kapp, and will not save it"
    );
    // Selected by kind: kept is kept; owned still goes with its only owner.
    let v = plan(&["--delete", "cm", "-n", "shop", KEEP_NS]);
    assert_eq!(steps(&v), s(&[&["ConfigMap/shop/owned"], &["ConfigMap/shop/owner"]]));
    assert_eq!(kept_refs(&v), ["ConfigMap/shop/kept"]);
    assert_eq!(warnings(&v).len(), 1);
}

/// explain says why a kept object stays.
#[test]
fn explain_names_the_keep_annotation() {
    let (code, out, err) = run(&["explain", "cm/keep/helm-kept", "--all", KEEP]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "ConfigMap/keep/helm-kept: kept, helm.sh/resource-policy: keep (Helm leaves it)\n");
    let (code, out, err) = run(&["explain", "cm/keep/helm-kept", "--all", "-o", "json", KEEP]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["explanations"][0]["status"], "kept");
}
