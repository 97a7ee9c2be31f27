//! TD011's help names the workloads that can serve a finalizer whose
//! domain is a CRD group of the snapshot, each as a ready
//! `--finalizer-controller` flag (issue 18; fixtures/cascades/td011-*.yaml
//! say what each models and the candidates worked out by hand).

// Test code: a failed unwrap or index is a failed test (not shipped; see clippy.toml).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::string_slice)]

use crate::common;
use common::{check_json, run};

const FILE: &str = "fixtures/cascades/td011-candidates.yaml";
const PLAIN: &str =
    "name the controller that removes it: --finalizer-controller F=KIND/NAMESPACE/NAME, or F=external if it runs outside the snapshot";

/// The help of the TD011 finding about `object`.
fn help(file: &str, object: &str) -> String {
    let (_, v) = check_json(&[file]);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "TD011" && f["refs"][0] == object)
        .unwrap_or_else(|| panic!("no TD011 for {object}: {v}"));
    f["help"].as_str().unwrap().to_string()
}

fn plain(finalizer: &str) -> String {
    PLAIN.replace('F', finalizer)
}

#[test]
fn workloads_granted_update_on_the_group_are_named_as_ready_flags() {
    let f = "cert-manager.io/cleanup";
    assert_eq!(
        help(FILE, "Certificate.cert-manager.io/app/web"),
        format!("{}; workloads granted update on acme.cert-manager.io, cert-manager.io (the CRD groups of its domain) by RBAC of the snapshot: --finalizer-controller {f}=Deployment.apps/cert-manager/cert-manager", plain(f))
    );
    // A RoleBinding grants in its own namespace: team/bot counts for team.
    assert!(help(FILE, "Certificate.cert-manager.io/team/api").ends_with(&format!(
        ": --finalizer-controller {f}=Deployment.apps/cert-manager/cert-manager or --finalizer-controller {f}=Deployment.apps/team/bot"
    )));
    // A finalizer without `/` is its own domain, under the CRD groups.
    let f = "finalizer.acme.cert-manager.io";
    assert!(help(FILE, "Challenge.acme.cert-manager.io/app/web-1").ends_with(&format!(
        "by RBAC of the snapshot: --finalizer-controller {f}=Deployment.apps/cert-manager/cert-manager"
    )));
}

#[test]
fn the_flags_it_names_are_ready_to_use() {
    let (code, out, err) = run(&[
        "check",
        "--finalizer-controller",
        "cert-manager.io/cleanup=Deployment.apps/cert-manager/cert-manager",
        "--finalizer-controller",
        "finalizer.acme.cert-manager.io=Deployment.apps/cert-manager/cert-manager",
        FILE,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("cert-manager.io/cleanup has no known controller"), "{out}");
    assert!(!out.contains("finalizer.acme.cert-manager.io has no known controller"), "{out}");
    assert_eq!(out.matches("TD011").count(), 3, "{out}");
}

#[test]
fn without_rbac_naming_the_group_by_name_then_by_wildcard_then_none() {
    let f = "gizmo.dev/cleanup";
    assert_eq!(
        help(FILE, "Gizmo.gizmo.dev/app/g"),
        format!("{}; no RBAC of the snapshot names gizmo.dev (the CRD group of its domain); workloads named after its domain: --finalizer-controller {f}=CronJob.batch/app/gizmo-sweep or --finalizer-controller {f}=Deployment.apps/app/gizmo-a or --finalizer-controller {f}=Deployment.apps/app/gizmo-b (and 1 more)", plain(f))
    );
    let f = "things.example.net/x";
    assert_eq!(
        help(FILE, "Thing.things.example.net/app/t"),
        format!("{}; no RBAC of the snapshot names things.example.net (the CRD group of its domain) and no workload is named after it; workloads granted update on every group (`*`): --finalizer-controller {f}=Deployment.apps/ops/tool", plain(f))
    );
    assert_eq!(
        help("fixtures/cascades/td011-none.yaml", "Thing.things.example.net/t"),
        format!("{}; no workload of the snapshot is granted update on things.example.net (the CRD group of its domain), nor named after it", plain(f))
    );
    // No CRD of its domain: the plain help.
    assert_eq!(help(FILE, "ConfigMap/app/plain"), plain("example.com/cleanup"));
}

#[test]
fn the_readme_example_names_cert_manager() {
    let f = "cert-manager.io/cleanup";
    assert_eq!(
        help("fixtures/cascades/td011-cert-manager.yaml", "Certificate.cert-manager.io/app/web"),
        format!("{}; workloads granted update on cert-manager.io (the CRD group of its domain) by RBAC of the snapshot: --finalizer-controller {f}=Deployment.apps/cert-manager/cert-manager", plain(f))
    );
}
