//! `plan --as helm|helm4|argocd|kapp|flux` (fixtures/as/): the order each
//! tool would delete the plan's objects in, built from that tool's own
//! source (named in each test and in the fixture, where the order is worked
//! out by hand), and the TD016 findings where it destroys an object before
//! one that still needs it. The plan itself, and the exit code, stay
//! teardown's.
//!
//! Findings are checked as "at least these": rules added to the plan add
//! constraints, and so findings.

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{plan, run, steps};
use serde_json::Value;

const GATEKEEPER: &str = "fixtures/as/gatekeeper.yaml";
const HELM: &str = "fixtures/as/helm.yaml";
const ARGOCD: &str = "fixtures/as/argocd.yaml";
const KAPP: &str = "fixtures/as/kapp.yaml";
const FLUX: &str = "fixtures/as/flux.yaml";

/// The tool's order: per batch, (unit, rank, refs).
fn order(v: &Value) -> Vec<(String, u64, Vec<String>)> {
    v["as"]["order"]
        .as_array()
        .expect("an `as` section with an order")
        .iter()
        .map(|b| {
            let refs = b["refs"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
            (b["unit"].as_str().unwrap_or("").to_string(), b["rank"].as_u64().unwrap(), refs)
        })
        .collect()
}

/// The refs of each batch, in the tool's order.
fn batches(v: &Value) -> Vec<Vec<String>> {
    order(v).into_iter().map(|(_, _, refs)| refs).collect()
}

fn s(items: &[&[&str]]) -> Vec<Vec<String>> {
    items.iter().map(|b| b.iter().map(|r| r.to_string()).collect()).collect()
}

/// The finding about `first` of this type and constraint relation, if any.
fn finding<'a>(v: &'a Value, kind: &str, first: &str, relation: &str) -> Option<&'a Value> {
    v["as"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == kind && f["first"]["ref"] == first && f["constraint"]["relation"] == relation)
}

fn needed_by(f: &Value) -> Vec<&str> {
    f["neededBy"].as_array().unwrap().iter().map(|n| n["ref"].as_str().unwrap()).collect()
}

fn other<'a>(v: &'a Value, reference: &str) -> &'a Value {
    v["as"]["others"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["ref"] == reference)
        .unwrap_or_else(|| panic!("{reference} not among what the tool leaves: {}", v["as"]["others"]))
}

/// Helm 3: helm/helm 5a4737d4 `pkg/releaseutil/kind_sorter.go`
/// (UninstallOrder; kinds it does not list last, alphabetically),
/// `pkg/action/uninstall.go` (pre-delete hooks, the release, post-delete
/// hooks) and `pkg/action/hooks.go` (hookByWeight: weight, then name).
#[test]
fn helm_deletes_kind_by_kind_in_its_uninstall_order_between_its_hooks() {
    let v = plan(&["--all", "--as", "helm", HELM]);
    assert_eq!(v["as"]["tool"], "helm");
    assert_eq!(v["as"]["name"], "Helm 3");
    assert_eq!(v["as"]["waits"], false);
    assert_eq!(v["as"]["units"], serde_json::json!(["shop/web"]));
    assert_eq!(
        batches(&v),
        s(&[
            &["Job.batch/shop/web-drain"],
            &["Job.batch/shop/web-cleanup"],
            &["Deployment.apps/shop/web"],
            &["RoleBinding.rbac.authorization.k8s.io/shop/web"],
            &["Role.rbac.authorization.k8s.io/shop/web"],
            &["PersistentVolumeClaim/shop/data"],
            &["PersistentVolume/pv-data"],
            &["StorageClass.storage.k8s.io/fast"],
            &["Secret/shop/widget-creds"],
            &["ServiceAccount/shop/web"],
            &["PodMonitor.monitoring.coreos.com/shop/web"],
            &["Widget.example.com/shop/w1"],
            &["Job.batch/shop/web-notify"],
        ])
    );
    let o = v["as"]["order"].as_array().unwrap();
    assert_eq!(
        o[0],
        serde_json::json!({"unit": "shop/web", "rank": 1, "action": "run", "by": "hook", "hook": "pre-delete", "weight": -1, "refs": ["Job.batch/shop/web-drain"]})
    );
    assert_eq!(o[2]["by"], "kind");
    assert_eq!(o[2]["kind"], "Deployment");
    assert_eq!(o[2]["known"], true);
    assert_eq!(o[11]["known"], false);
    assert_eq!(o[12]["hook"], "post-delete");
    // What Helm does not delete itself.
    assert_eq!(other(&v, "Namespace/shop")["type"], "not-managed");
    assert_eq!(other(&v, "Job.batch/shop/web-migrate")["type"], "other-hook");
    assert_eq!(other(&v, "ReplicaSet.apps/shop/web-5d4f")["with"], "Deployment.apps/shop/web");
    assert_eq!(other(&v, "Pod/shop/web-5d4f-a")["with"], "ReplicaSet.apps/shop/web-5d4f");
    // Widget w1 depends-on its Secret: teardown deletes the Secret after it,
    // Helm 3 in an earlier batch (Secret is in UninstallOrder, Widget not).
    let f = finding(&v, "before", "Secret/shop/widget-creds", "destroy-after").expect("the Secret before the Widget");
    assert_eq!(needed_by(f), ["Widget.example.com/shop/w1"]);
    assert_eq!(f["first"]["rank"], 9);
    assert_eq!(f["neededBy"][0]["rank"], 12);
    assert_eq!(f["constraint"], serde_json::json!({"type": "destruction", "relation": "destroy-after"}));
    assert_eq!(f["rule"], "TD016");
    assert!(v["warnings"].as_array().unwrap().iter().any(|w| w["rule"] == "TD016"
        && w["type"] == "tool-order"
        && w["message"]
            == "Helm 3 deletes Secret/shop/widget-creds (batch 9, Secret) before Widget.example.com/shop/w1 (batch 12, Widget), which teardown destroys first (destruction dependency: destroy-after)"));
    // Helm 4 orders these kinds alike.
    assert_eq!(batches(&plan(&["--all", "--as", "helm4", HELM])), batches(&v));
}

/// The Gatekeeper-like snapshot with Helm 3's UninstallOrder (helm/helm
/// 5a4737d4): the CRD and the Namespace go before the Config custom
/// resource they define and contain (kinds Helm does not list go last).
#[test]
fn gatekeeper_helm_deletes_crd_and_namespace_before_the_custom_resource() {
    let v = plan(&["--all", "--as", "helm", GATEKEEPER]);
    assert_eq!(
        batches(&v),
        s(&[
            &["Service/gk/gatekeeper-webhook-service"],
            &["Deployment.apps/gk/gatekeeper-controller-manager"],
            &["ClusterRoleBinding.rbac.authorization.k8s.io/gatekeeper-manager-rolebinding"],
            &["ClusterRole.rbac.authorization.k8s.io/gatekeeper-manager-role"],
            &["CustomResourceDefinition.apiextensions.k8s.io/configs.config.gatekeeper.sh"],
            &["ServiceAccount/gk/gatekeeper-admin"],
            &["Namespace/gk"],
            &["Config.config.gatekeeper.sh/gk/config"],
            &["ValidatingWebhookConfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration"],
        ])
    );
    // No tool metadata: the snapshot is one unit.
    assert_eq!(v["as"]["units"], serde_json::json!([null]));
    let crd = "CustomResourceDefinition.apiextensions.k8s.io/configs.config.gatekeeper.sh";
    let f = finding(&v, "before", crd, "defines").expect("the CRD before its Config");
    assert_eq!(needed_by(f), ["Config.config.gatekeeper.sh/gk/config"]);
    let f = finding(&v, "before", "Namespace/gk", "contains").expect("the Namespace before the Config");
    assert_eq!(needed_by(f), ["Config.config.gatekeeper.sh/gk/config"]);
    // The ServiceAccount and its binding go after the Deployment that runs
    // as it, in Helm's order too.
    assert!(finding(&v, "before", "ServiceAccount/gk/gatekeeper-admin", "rule").is_none());
    // The plan is teardown's, with or without --as; TD016 warnings only.
    let plain = plan(&["--all", GATEKEEPER]);
    assert_eq!(steps(&v), steps(&plain));
    assert!(plain.get("as").is_none());
    let (code, out, err) = run(&["plan", "--all", "--as", "helm", GATEKEEPER]);
    assert_eq!(code, 0);
    assert!(out.contains("\nHELM  STEP  OBJECT"), "{out}");
    assert!(out.contains("\n8     3     Config.config.gatekeeper.sh/gk/config"), "{out}");
    assert!(err.contains("warning[TD016]: Helm 3 deletes Namespace/gk (batch 7, Namespace) before Config.config.gatekeeper.sh/gk/config (batch 8, Config), which teardown destroys first (ownership: contains)\n"), "{err}");
}

/// The acceptance: Helm 3 deletes the Service (batch 1) before the
/// ValidatingWebhookConfiguration that calls it (a kind Helm 3 does not
/// list: last). The constraint is the default rule that puts a webhook
/// configuration before its Service.
#[test]
fn gatekeeper_helm_deletes_the_service_before_the_webhook_configuration() {
    // Enabled when the rule "webhook configuration before its Service" is in src/analysis/rules.rs.
    let v = plan(&["--all", "--as", "helm", GATEKEEPER]);
    let vwc = "ValidatingWebhookConfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration";
    let f = v["as"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == "before" && f["first"]["ref"] == "Service/gk/gatekeeper-webhook-service")
        .expect("Helm deletes the Service before the webhook configuration");
    assert!(needed_by(f).contains(&vwc), "{f}");
    assert_eq!(f["constraint"]["type"], "rule");
    // Helm 4 deletes webhook configurations first: no such finding.
    let v4 = plan(&["--all", "--as", "helm4", GATEKEEPER]);
    assert!(v4["as"]["findings"].as_array().unwrap().iter().all(|f| !needed_by(f).contains(&vwc)));
}

/// Helm 4: helm/helm 20a1ca23 `pkg/release/v1/util/kind_sorter.go` —
/// ValidatingWebhookConfiguration, MutatingWebhookConfiguration, then Helm
/// 3's UninstallOrder.
#[test]
fn helm4_deletes_webhook_configurations_first() {
    let v = plan(&["--all", "--as", "helm4", GATEKEEPER]);
    assert_eq!(v["as"]["name"], "Helm 4");
    let b = batches(&v);
    assert_eq!(
        b[0],
        ["ValidatingWebhookConfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration"]
    );
    assert_eq!(b[1], ["Service/gk/gatekeeper-webhook-service"]);
    assert_eq!(b.last().unwrap(), &["Config.config.gatekeeper.sh/gk/config"]);
}

/// Argo CD deleting an Application: argoproj/argo-cd
/// `controller/sort_delete.go` FilterObjectsForDeletion (argo-cd#3959,
/// c2e5ccc8): highest wave first, a wave at once, the next once it is gone;
/// gitops-engine `syncwaves.Wave` (sync-wave, else helm.sh/hook-weight,
/// else 0); `controller/appcontroller.go` shouldBeDeleted (never a CRD).
#[test]
fn argocd_deletes_the_highest_wave_first_a_wave_at_once() {
    let v = plan(&[
        "--all",
        "--as",
        "argocd",
        "--finalizer-controller",
        "example.com/cleanup=deploy/shop/widget-operator",
        ARGOCD,
    ]);
    assert_eq!(v["as"]["waits"], true);
    assert_eq!(
        batches(&v),
        s(&[
            &["Secret/shop/w2-creds"],
            &["Widget.example.com/shop/w2"],
            &["Widget.example.com/shop/w1", "Deployment.apps/shop/widget-operator"],
            &["ServiceAccount/shop/widget-operator"],
        ])
    );
    let waves: Vec<i64> = v["as"]["order"].as_array().unwrap().iter().map(|b| b["wave"].as_i64().unwrap()).collect();
    assert_eq!(waves, [3, 2, 0, -1]);
    assert_eq!(order(&v)[0].0, "shop");
    assert_eq!(other(&v, "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com")["type"], "never-deleted");
    // The operator and the Widget whose finalizer it removes, in one wave:
    // deleted at once (argo-cd#9296).
    let f = finding(&v, "together", "Deployment.apps/shop/widget-operator", "finalizer").expect("operator with w1");
    assert_eq!(needed_by(f), ["Widget.example.com/shop/w1"]);
    // w2 depends-on its Secret, whose hook weight puts it in a higher wave
    // (3): teardown's own plan reads that wave too, so the two contradict
    // each other and are destroyed together (TD008), and Argo CD deleting
    // the Secret first breaks nothing teardown keeps.
    let step = |r: &str| plain_step(&v, r);
    assert_eq!(step("Secret/shop/w2-creds"), step("Widget.example.com/shop/w2"));
    assert!(finding(&v, "before", "Secret/shop/w2-creds", "destroy-after").is_none());
    // w2 (wave 2) goes before its operator (wave 0).
    assert!(v["as"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| !needed_by(f).contains(&"Widget.example.com/shop/w2") || f["first"]["ref"] == "Secret/shop/w2-creds"));
}

/// kapp delete: carvel-dev/kapp 27123c83 `pkg/kapp/config/default.go`
/// changeRuleBindings (custom resources before CRDs, the rest after) and
/// the objects' own `delete … deleting` change rules; `upsert` rules do not
/// order deletions.
#[test]
fn kapp_deletes_custom_resources_then_crds_then_the_rest_by_its_rules() {
    let v = plan(&[
        "--all",
        "--as",
        "kapp",
        "--finalizer-controller",
        "example.com/cleanup=deploy/shop/widget-operator",
        KAPP,
    ]);
    assert_eq!(
        batches(&v),
        s(&[
            &["Widget.example.com/shop/w1"],
            &["CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"],
            &[
                "Service/shop/widget-webhook",
                "Deployment.apps/shop/widget-operator",
                "ServiceAccount/shop/widget-operator"
            ],
            &["ConfigMap/shop/settings"],
        ])
    );
    assert_eq!(v["as"]["units"], serde_json::json!(["shop-app"]));
    assert!(v["as"]["order"].as_array().unwrap().iter().all(|b| b["by"] == "level"));
    // The ServiceAccount in the Deployment's level (kapp#579).
    let f = finding(&v, "together", "ServiceAccount/shop/widget-operator", "rule").expect("SA with its workload");
    assert_eq!(needed_by(f), ["Deployment.apps/shop/widget-operator"]);
    assert_eq!(f["constraint"]["rule"], "serviceaccount-after-workloads");
    assert!(v["as"].get("cycle").is_none());
}

/// kapp refuses a cycle of the objects' own rules: both listed, last.
#[test]
fn kapp_lists_a_cycle_of_delete_rules() {
    let v = plan(&["--all", "--as", "kapp", "fixtures/as/kapp-cycle.yaml"]);
    assert_eq!(batches(&v), s(&[&["Secret/shop/c"], &["ConfigMap/shop/a", "ConfigMap/shop/b"]]));
    assert_eq!(v["as"]["cycle"], serde_json::json!(["ConfigMap/shop/a", "ConfigMap/shop/b"]));
    let (_, out, _) = run(&["plan", "--all", "--as", "kapp", "fixtures/as/kapp-cycle.yaml"]);
    assert!(out.contains("ConfigMap/shop/a  in a cycle of delete change rules: kapp refuses to delete\n"), "{out}");
}

/// Flux: fluxcd/pkg `ssa/manager_delete.go` 6637febc DeleteAll (the reverse
/// of `ssa/sort.go` 1d7d31b8 ReconcileOrder, one call at a time), per
/// Kustomization; dependsOn does not order deletions
/// (fluxcd/kustomize-controller#301).
#[test]
fn flux_deletes_each_kustomization_in_reverse_apply_order_independently() {
    let v =
        plan(&["--all", "--as", "flux", "--finalizer-controller", "example.com/cleanup=deploy/widgets/operator", FLUX]);
    let units: Vec<(String, u64, Vec<String>)> = order(&v);
    let got: Vec<(&str, u64, &str)> = units.iter().map(|(u, r, refs)| (u.as_str(), *r, refs[0].as_str())).collect();
    assert_eq!(
        got,
        [
            ("flux-system/apps", 1, "Widget.example.com/widgets/w1"),
            ("flux-system/flux-system", 1, "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/infra"),
            ("flux-system/flux-system", 2, "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps"),
            ("flux-system/infra", 1, "ValidatingWebhookConfiguration.admissionregistration.k8s.io/widgets.example.com"),
            ("flux-system/infra", 2, "Deployment.apps/widgets/operator"),
            ("flux-system/infra", 3, "Service/widgets/operator-webhook"),
            ("flux-system/infra", 4, "ServiceAccount/widgets/operator"),
            ("flux-system/infra", 5, "Namespace/widgets"),
            ("flux-system/infra", 6, "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"),
        ]
    );
    assert!(units.iter().all(|(_, _, refs)| refs.len() == 1), "one call at a time");
    // The Widget's operator, CRD and Namespace are another Kustomization's.
    for (first, relation) in [
        ("Deployment.apps/widgets/operator", "finalizer"),
        ("CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", "defines"),
        ("Namespace/widgets", "contains"),
    ] {
        let f = finding(&v, "unordered", first, relation).unwrap_or_else(|| panic!("{first}"));
        assert_eq!(needed_by(f), ["Widget.example.com/widgets/w1"]);
        assert_eq!(f["first"]["unit"], "flux-system/infra");
        assert_eq!(f["neededBy"][0]["unit"], "flux-system/apps");
        assert!(f["message"].as_str().unwrap().contains("fluxcd/kustomize-controller#301"));
    }
}

/// What a tool keeps is not in its order (when the plan deletes it; a plan
/// that honours the annotation keeps it itself).
#[test]
fn objects_a_tool_keeps_are_listed_with_the_annotation() {
    for (tool, annotation) in [
        ("helm", "helm.sh/resource-policy: keep"),
        ("argocd", "argocd.argoproj.io/sync-options: Delete=false"),
        ("kapp", "kapp.k14s.io/delete-strategy: orphan"),
        ("flux", "kustomize.toolkit.fluxcd.io/prune: disabled"),
    ] {
        let v = plan(&["--all", "--as", tool, "fixtures/as/keep.yaml"]);
        let (key, value) = annotation.split_once(": ").unwrap();
        let name = format!("ConfigMap/shop/{}", key.rsplit('/').next().unwrap());
        let planned = steps(&v).iter().flatten().any(|r| *r == name);
        let in_order = batches(&v).iter().flatten().any(|r| *r == name);
        assert!(!in_order, "{tool} deletes {name} ({key}: {value})");
        if planned {
            let o = other(&v, &name);
            assert_eq!((o["type"].as_str(), o["annotation"].as_str()), (Some("kept"), Some(annotation)), "{tool}");
        }
    }
}

/// `--ignore TD016` hides the warnings; the `as` section keeps its
/// findings (as `relaxed` keeps what TD012 warns about).
#[test]
fn ignoring_td016_hides_the_warnings_only() {
    let v = plan(&["--all", "--as", "helm", "--ignore", "TD016", GATEKEEPER]);
    assert!(v["warnings"].as_array().unwrap().iter().all(|w| w["rule"] != "TD016"));
    assert!(!v["as"]["findings"].as_array().unwrap().is_empty());
    let (code, _, err) = run(&["plan", "--all", "--as", "helm", "--ignore", "tool-order", GATEKEEPER]);
    assert_eq!(code, 0);
    assert!(!err.contains("TD016"), "{err}");
    let (_, yaml, _) = run(&["plan", "--all", "--as", "flux", "-o", "yaml", GATEKEEPER]);
    assert!(yaml.contains("\nas:\n  tool: flux\n"), "{yaml}");
}

/// Formats that print teardown's plan alone refuse --as, before any input
/// is read.
#[test]
fn as_is_refused_where_it_would_not_be_shown() {
    for format in ["names", "refs", "kubectl", "dot", "mermaid"] {
        let (code, _, err) = run(&["plan", "--all", "--as", "argocd", "-o", format, "no/such/file.yaml"]);
        assert_eq!(code, 2, "{format}");
        assert!(
            err.contains(&format!(
                "--as argocd shows Argo CD's order beside the plan, which -o {format} does not print"
            )),
            "{err}"
        );
    }
    let (code, _, err) = run(&["plan", "--all", "--as", "chef", GATEKEEPER]);
    assert_eq!(code, 2);
    assert!(err.contains("possible values: helm, helm4, argocd, kapp, flux"), "{err}");
}

/// Helm deletes what its release holds and leaves the rest: a workload of
/// no release that runs as the release's ServiceAccount loses it (`leaves`);
/// a hook of another event (install) has run already: no finding.
#[test]
fn helm_leaves_a_workload_of_no_release_without_its_service_account() {
    let v = plan(&["--all", "--as", "helm", "fixtures/as/leaves.yaml"]);
    assert_eq!(batches(&v), s(&[&["ServiceAccount/shop/web"]]));
    assert_eq!(other(&v, "Deployment.apps/shop/agent")["type"], "not-managed");
    assert_eq!(other(&v, "Job.batch/shop/web-migrate")["type"], "other-hook");
    let f = finding(&v, "leaves", "ServiceAccount/shop/web", "rule").expect("the agent left without its account");
    assert_eq!(needed_by(f), ["Deployment.apps/shop/agent"]);
    assert_eq!(f["neededBy"][0]["left"], "not-managed");
    assert!(f["neededBy"][0].get("rank").is_none());
    assert_eq!(
        f["message"],
        "Helm 3 deletes ServiceAccount/shop/web (batch 1, ServiceAccount) but leaves Deployment.apps/shop/agent (in no release: Helm 3 does not delete it), which still needs it (default rule serviceaccount-after-workloads: runs-as)"
    );
    assert_eq!(v["as"]["findings"].as_array().unwrap().len(), 1, "{}", v["as"]["findings"]);
}

/// The tools delete Kubernetes resources: a plan of another dialect's
/// objects is refused (with --dialect, before the input is read).
#[test]
fn as_is_refused_for_objects_that_are_not_kubernetes_resources() {
    let (code, _, err) = run(&["plan", "--all", "--as", "kapp", "fixtures/plan/murano-app.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--as kapp: VM1 is an object of the native dialect, not a Kubernetes resource, and kapp deletes none (4 such in the plan)"), "{err}");
    let (code, _, err) = run(&["plan", "--all", "--as", "flux", "--dialect", "pairs", "no/such/file.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("--as flux: --dialect pairs reads objects that are not Kubernetes resources"), "{err}");
}

/// An owner the tool deletes before what it owns takes it with it (the
/// garbage collector's background cascade): not a finding.
#[test]
fn an_owner_deleted_first_is_no_finding() {
    let v = plan(&["--all", "--as", "helm", "fixtures/as/two-owners.yaml"]);
    assert_eq!(batches(&v), s(&[&["Service/team-1/svc1"], &["Certificate.cert-manager.io/team-1/svc1-tls"]]));
    assert_eq!(other(&v, "Secret/team-1/svc1-tls")["type"], "with");
    assert_eq!(v["as"]["findings"], serde_json::json!([]));
    assert_eq!(steps(&v)[0], ["Secret/team-1/svc1-tls"]);
}

/// The step of an object in teardown's own plan (JSON).
fn plain_step(v: &serde_json::Value, reference: &str) -> u64 {
    v["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|s| s["resources"].as_array().into_iter().flatten().any(|r| r["ref"] == reference))
        .and_then(|s| s["step"].as_u64())
        .unwrap_or_else(|| panic!("{reference} is not in the plan's steps"))
}
