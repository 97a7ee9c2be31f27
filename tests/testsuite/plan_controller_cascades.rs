//! Cascades Kubernetes controllers perform outside ownerReferences (issue
//! 18; fixtures/cascades/, each file says what it models and the plans
//! worked out by hand): a Service takes its Endpoints (the endpoints
//! controller), a Node the Pods bound to it (the pod garbage collector), a
//! claim its bound volume when the volume's reclaim policy is Delete (the
//! volume controller). Hard: whatever `--cascade` says, whatever
//! `--no-default-rules` turns off.

use crate::common;
use common::{json_of, kept, plan, resource, run, s, steps, warnings};
use serde_json::{json, Value};

const SVC: &str = "fixtures/cascades/service-endpoints.yaml";
const NODE: &str = "fixtures/cascades/node-pods.yaml";
const PV: &str = "fixtures/cascades/volumes.yaml";

#[test]
fn a_service_takes_its_endpoints_after_it_and_its_endpoint_slices_before() {
    let v = plan(&["--delete", "svc/web", SVC]);
    assert_eq!(
        steps(&v),
        s(&[&["EndpointSlice.discovery.k8s.io/shop/web-7x2kq"], &["Service/shop/web"], &["Endpoints/shop/web"]])
    );
    let ep = resource(&v, "Endpoints/shop/web");
    assert_eq!(
        ep["reason"],
        "with Service/shop/web (the endpoints controller deletes the Endpoints of a deleted Service)"
    );
    assert_eq!(ep["reasons"], json!([{"type": "controller", "why": "service-endpoints", "ref": "Service/shop/web"}]));
    // The EndpointSlice has an owner reference: the garbage collector's.
    assert_eq!(resource(&v, "EndpointSlice.discovery.k8s.io/shop/web-7x2kq")["reason"], "owned by Service/shop/web");
    assert!(kept(&v).is_empty(), "Endpoints/shop/other has no Service of its name deleted");
    assert!(warnings(&v).is_empty());
}

#[test]
fn cascade_orphan_still_takes_the_endpoints() {
    let v = plan(&["--delete", "svc/web", "--cascade", "orphan", SVC]);
    assert_eq!(steps(&v), s(&[&["Service/shop/web"], &["Endpoints/shop/web"]]));
    assert_eq!(v["orphaned"][0]["ref"], "EndpointSlice.discovery.k8s.io/shop/web-7x2kq");
    // Nor does --no-default-rules turn it off: it is not a rule.
    let off = plan(&["--delete", "svc/web", "--cascade", "orphan", "--no-default-rules", SVC]);
    assert_eq!(steps(&off), steps(&v));
}

#[test]
fn endpoints_deleted_alone_while_their_service_stays_are_written_again() {
    let v = plan(&["--delete", "endpoints/web", SVC]);
    assert_eq!(steps(&v), s(&[&["Endpoints/shop/web"]]));
    assert_eq!(
        warnings(&v),
        vec![(
            "endpoints-rewritten".to_string(),
            "Endpoints/shop/web is deleted but Service/shop/web, which selects Pods, stays: the endpoints controller writes them again".to_string()
        )]
    );
    assert_eq!(v["warnings"][0]["refs"], json!(["Endpoints/shop/web", "Service/shop/web"]));
    let v = plan(&["--delete", "endpoints/other", SVC]);
    assert!(warnings(&v).is_empty(), "no Service of that name");
}

#[test]
fn a_node_takes_the_pods_bound_to_it_before_it() {
    for extra in [&[][..], &["--cascade", "orphan"], &["--no-default-rules"]] {
        let mut args = vec!["--delete", "node/n1"];
        args.extend_from_slice(extra);
        args.push(NODE);
        let v = plan(&args);
        assert_eq!(
            steps(&v),
            s(&[&["Pod/shop/agent-n1", "Pod/shop/static", "Pod/shop/web-6b7c-a"], &["Node/n1"]]),
            "{extra:?}"
        );
        assert_eq!(
            resource(&v, "Pod/shop/static")["reasons"],
            json!([{"type": "controller", "why": "node-pods", "ref": "Node/n1"}])
        );
        assert_eq!(
            resource(&v, "Pod/shop/web-6b7c-a")["reason"],
            "bound to Node/n1 (the pod garbage collector deletes the Pods of a deleted Node)"
        );
        // The ReplicaSet recreates its Pod elsewhere; the DaemonSet makes
        // none for a Node that is gone.
        assert_eq!(
            warnings(&v),
            vec![(
                "controller-stays".to_string(),
                "Pod/shop/web-6b7c-a is deleted but its controller ReplicaSet.apps/shop/web-6b7c stays and will recreate it"
                    .to_string()
            )],
            "{extra:?}"
        );
        assert!(kept(&v).is_empty());
        assert!(v["orphaned"].as_array().unwrap().is_empty());
    }
}

#[test]
fn a_claim_takes_its_volume_when_the_policy_is_delete() {
    for extra in [&[][..], &["--cascade", "orphan"], &["--no-default-rules"]] {
        let mut args = vec!["--delete", "pvc/data"];
        args.extend_from_slice(extra);
        args.push(PV);
        let v = plan(&args);
        assert_eq!(steps(&v), s(&[&["PersistentVolumeClaim/shop/data"], &["PersistentVolume/pv-data"]]), "{extra:?}");
        let pv = resource(&v, "PersistentVolume/pv-data");
        assert_eq!(
            pv["reason"],
            "bound to PersistentVolumeClaim/shop/data (reclaim policy Delete: the volume controller deletes the volume of a deleted claim)"
        );
        assert_eq!(
            pv["reasons"],
            json!([{"type": "controller", "why": "reclaim-delete", "ref": "PersistentVolumeClaim/shop/data"}])
        );
    }
    // A claim that pre-binds its volume by spec.volumeName alone.
    let v = plan(&["--delete", "pvc/pre", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolumeClaim/shop/pre"], &["PersistentVolume/pv-pre"]]));
}

#[test]
fn retain_recycle_and_no_policy_keep_the_volume_with_that_reason() {
    let v = plan(&["--delete", "pvc/logs", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolumeClaim/shop/logs"]]));
    assert_eq!(
        kept(&v),
        vec![(
            "PersistentVolume/pv-logs".to_string(),
            "its claim PersistentVolumeClaim/shop/logs is deleted; reclaim policy Retain: the volume controller releases it, with its data".to_string()
        )]
    );
    assert_eq!(
        v["kept"][0]["reasons"],
        json!([{"type": "reclaim-policy", "why": "retain", "ref": "PersistentVolumeClaim/shop/logs"}])
    );
    assert_eq!(v["kept"][0]["keptBy"], "PersistentVolumeClaim/shop/logs");
    for (claim, volume, why) in [
        ("pvc/cache", "PersistentVolume/pv-cache", "retain-by-default"),
        ("pvc/scratch", "PersistentVolume/pv-scratch", "recycle"),
    ] {
        let v = plan(&["--delete", claim, PV]);
        assert_eq!(v["kept"][0]["ref"], volume);
        assert_eq!(v["kept"][0]["reasons"][0]["why"], why);
        assert_eq!(v["steps"].as_array().unwrap().len(), 1);
    }
    let (code, out, err) = run(&["plan", "--delete", "pvc/cache", PV]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("-     keep    PersistentVolume/pv-cache         its claim PersistentVolumeClaim/shop/cache is deleted; reclaim policy not written, so Retain (the default for a volume created directly): the volume controller releases it, with its data\n"),
        "{out}"
    );
}

#[test]
fn a_volume_bound_to_another_claim_or_to_a_claim_not_in_the_snapshot_is_not_reached() {
    // pv-old's claimRef names shop/again with another uid: an earlier claim
    // of that name. pv-gone's claim is not in the snapshot.
    let v = plan(&["--delete", "pvc/again", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolumeClaim/shop/again"]]));
    assert!(kept(&v).is_empty());
    let v = plan(&["--delete", "pv/pv-gone", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolume/pv-gone"]]));
    let g = json_of("graph", &["--focus", "pv/pv-gone", PV]);
    assert!(g["edges"].as_array().unwrap().is_empty(), "{g}");
}

#[test]
fn a_namespace_takes_its_claims_and_they_their_delete_volumes() {
    let v = plan(&["--delete", "ns/shop", PV]);
    assert_eq!(
        steps(&v),
        s(&[
            &[
                "PersistentVolumeClaim/shop/again",
                "PersistentVolumeClaim/shop/cache",
                "PersistentVolumeClaim/shop/data",
                "PersistentVolumeClaim/shop/logs",
                "PersistentVolumeClaim/shop/pre",
                "PersistentVolumeClaim/shop/scratch",
            ],
            &["Namespace/shop", "PersistentVolume/pv-data", "PersistentVolume/pv-pre"],
        ])
    );
    let kept: Vec<String> = kept(&v).into_iter().map(|(r, _)| r).collect();
    assert_eq!(kept, ["PersistentVolume/pv-cache", "PersistentVolume/pv-logs", "PersistentVolume/pv-scratch"]);
}

#[test]
fn explain_names_the_controller() {
    let (code, out, err) = run(&["explain", "endpoints/web", "--delete", "svc/web", SVC]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "Endpoints/shop/web: deleted in step 3 of 3

why it is deleted:
  Service/shop/web (a target of the plan)
  └ takes Endpoints/shop/web (the endpoints controller deletes the Endpoints of a deleted Service)

why step 3:
  Endpoints/shop/web (step 3)
  └ goes after Service/shop/web, its Service: the endpoints controller deletes it once the Service is gone (step 2)
  └ owns EndpointSlice.discovery.k8s.io/shop/web-7x2kq (step 1)
"
    );
    let (code, out, err) = run(&["explain", "pv/pv-logs", "--delete", "pvc/logs", PV]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with(
            "  deleting PersistentVolumeClaim/shop/logs does not take it, because its reclaim policy keeps it\n"
        ),
        "{out}"
    );
    let (code, out, err) = run(&["explain", "node/n1", "--delete", "node/n1", NODE]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            // Of the Pods at step 1, the first in reference order.
            "goes after Pod/shop/agent-n1, bound to it: Pods go before their Node, as a drain evicts them (step 1)"
        ),
        "{out}"
    );
    let v = json_of("explain", &["pod/static", "--delete", "node/n1", NODE]);
    assert_eq!(
        v["explanations"][0]["reached"],
        json!([{"ref": "Node/n1", "relation": "controller", "cascade": "node-pods"}, {"ref": "Pod/shop/static"}])
    );
}

#[test]
fn graph_and_check_show_the_controller_edges() {
    let g = json_of("graph", &[NODE]);
    let edges: Vec<&Value> = g["edges"].as_array().unwrap().iter().filter(|e| e["from"] == "Node/n1").collect();
    assert_eq!(edges.len(), 3);
    assert_eq!(edges[0]["kind"], json!({"controller": "node-pods"}));
    let (code, out, err) = run(&["graph", "-o", "dot", SVC]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("[label=\"controller: service-endpoints\", style=bold"), "{out}");
    let (_, v) = common::check_json(&[PV]);
    // Bound pairs: data, logs, cache, scratch (claimRef), pre (volumeName);
    // not pv-old (another uid), not pv-gone (no such claim).
    assert_eq!(v["summary"]["edgesByKind"]["controller"], 5);
    let (_, v) = common::check_json(&[NODE]);
    assert_eq!(v["summary"]["edgesByKind"], json!({"owns": 3, "controller": 4}));
}

#[test]
fn simulate_lets_the_controllers_delete_what_they_take() {
    let v = json_of("simulate", &["--controller", "kubernetes", "--cascade", "orphan", "--delete", "svc/web", SVC]);
    let by_controller: Vec<(&str, &str)> = v["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == "endpoints-controller")
        .map(|e| (e["ref"].as_str().unwrap(), e["type"].as_str().unwrap()))
        .collect();
    assert_eq!(by_controller, [("Endpoints/shop/web", "call")]);
    let removed = run(&["simulate", "--controller", "kubernetes", "-o", "refs", "--delete", "node/n1", NODE]).1;
    assert_eq!(removed, "Node/n1\nPod/shop/agent-n1\nPod/shop/static\nPod/shop/web-6b7c-a\n");
    let removed = run(&["simulate", "--controller", "kubernetes", "-o", "refs", "--delete", "pvc/logs", PV]).1;
    assert_eq!(removed, "PersistentVolumeClaim/shop/logs\n", "Retain: the volume stays");
}

#[test]
fn the_kubectl_script_leaves_them_to_their_controllers() {
    let (code, out, err) = run(&["plan", "-o", "kubectl", "--delete", "svc/web", SVC]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("#   Endpoints/shop/web (goes with Service/shop/web)\n# nothing to run: it goes with Service/shop/web (step 2)\n"), "{out}");
    assert!(out.contains("# Some are deleted by other Kubernetes controllers, outside owner references"), "{out}");
    assert_eq!(out.matches("kubectl delete").count(), 1, "{out}");
}

#[test]
fn what_a_controller_deletes_is_never_listed_as_kept() {
    // NEW still declares Endpoints shop/web, but not its Service: pruning
    // the Service makes the endpoints controller delete them.
    let v = plan(&["--prune", "fixtures/cascades/prune-new.yaml", SVC]);
    assert_eq!(
        steps(&v),
        s(&[&["EndpointSlice.discovery.k8s.io/shop/web-7x2kq"], &["Service/shop/web"], &["Endpoints/shop/web"]])
    );
    assert_eq!(resource(&v, "Endpoints/shop/web")["reasons"][0]["type"], "controller");
    assert!(kept(&v).iter().all(|(r, _)| r != "Endpoints/shop/web"), "{:?}", kept(&v));
}

#[test]
fn gc_takes_a_delete_volume_whose_claim_is_gone() {
    let v = plan(&["--gc", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolume/pv-old"]]));
    assert_eq!(
        resource(&v, "PersistentVolume/pv-old")["reason"],
        "garbage: its claim PersistentVolumeClaim/shop/again was deleted (the claim of that name has another uid); reclaim policy Delete: the volume controller deletes it"
    );
    assert_eq!(
        kept(&v),
        vec![(
            "PersistentVolume/pv-gone".to_string(),
            "its claim PersistentVolumeClaim/shop/gone is not in the snapshot (the cluster may have it; see --closed-world)"
                .to_string()
        )]
    );
    assert_eq!(v["kept"][0]["reasons"][0]["type"], "claim-not-in-snapshot");
    let v = plan(&["--gc", "--closed-world", PV]);
    assert_eq!(steps(&v), s(&[&["PersistentVolume/pv-gone", "PersistentVolume/pv-old"]]));
    assert_eq!(
        resource(&v, "PersistentVolume/pv-gone")["reasons"],
        json!([{"type": "garbage", "why": "claim-gone", "ref": "PersistentVolumeClaim/shop/gone"}])
    );
    assert!(kept(&v).is_empty());
}

/// A dependent deleted with its owner that also names an owner the
/// snapshot lacks (fixtures/cascades/owner-outside-snapshot.yaml): the plan
/// lists it (all that may go), and says the cluster keeps it if it has that
/// owner. Not with --closed-world; not for a dependent with no other owner.
#[test]
fn a_dependent_with_an_owner_outside_the_snapshot_goes_with_a_warning() {
    const F: &str = "fixtures/cascades/owner-outside-snapshot.yaml";
    let v = plan(&["--delete", "rs/left", F]);
    assert_eq!(steps(&v), s(&[&["Pod/prod/shared", "Pod/prod/solo"], &["ReplicaSet.apps/prod/left"]]));
    assert_eq!(
        warnings(&v),
        [(
            "owner-outside-snapshot".to_string(),
            "Pod/prod/shared goes with ReplicaSet.apps/prod/left, but it also names owner ReplicaSet.apps/prod/right, which is not in the snapshot: if the cluster has it, the garbage collector keeps Pod/prod/shared (--closed-world: the snapshot is the whole cluster)".to_string()
        )]
    );
    assert_eq!(v["warnings"][0]["refs"], json!(["Pod/prod/shared", "ReplicaSet.apps/prod/left"]));
    let closed = plan(&["--delete", "rs/left", "--closed-world", F]);
    assert_eq!(steps(&closed), steps(&v));
    assert!(warnings(&closed).is_empty());
    // --gc keeps such a dependent instead; here nothing is garbage (left is there).
    assert!(warnings(&plan(&["--gc", F])).is_empty());
}
