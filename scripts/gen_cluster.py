#!/usr/bin/env python3
"""A synthetic but realistic Kubernetes cluster snapshot, for the benchmark
(scripts/bench.sh). Python 3 standard library only; the same --seed and
--resources always give the same bytes.

Every object has apiVersion, kind and metadata (name, namespace, uid,
resourceVersion, creationTimestamp, labels, ownerReferences, finalizers)
and a spec and status of realistic size. Shapes follow what real
controllers create:

  Deployment -> ReplicaSet (2 revisions) -> Pod
  StatefulSet -> Pod, ControllerRevision        (PVCs are left unowned)
  DaemonSet -> Pod, ControllerRevision
  CronJob -> Job -> Pod
  Service -> EndpointSlice
  Node -> Lease (kube-node-lease)
  custom resource "App" (apps.example.com) -> Deployment, Service, ConfigMap
  Certificate (cert-manager.io) -> Secret
  a few objects with two owners, and `config.kubernetes.io/depends-on`
  annotations between some Deployments and ConfigMaps.

The shapes, and the random draws that make them, are those of the
generator earlier benchmarks used (its JSON output is byte for byte the
same for the same seed), so that their figures stay comparable.

usage:
  gen_cluster.py --resources 100000 --format json --out cluster.json
  gen_cluster.py --resources 100000 --format yaml --out cluster.yaml

--format json: one `kind: List` (`json.dump`, indent 1); yaml: a
multi-document stream in block style, byte for byte what PyYAML's safe
dumper prints (a Deployment's labels, one value written three times, as an
anchor and two aliases, which teardown's YAML fast path reads in that form
only); ndjson: one object a line.
"""
import argparse
import json
import random
import re
import sys
import uuid


class Cluster:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.objects = []

    def uid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def add(self, api, kind, name, ns=None, owners=(), labels=None, spec=None,
            status=None, annotations=None, finalizers=None):
        rng = self.rng
        meta = {"name": name, "uid": self.uid(),
                "resourceVersion": str(rng.randint(1000, 99999999)),
                "creationTimestamp": "2026-0%d-1%dT0%d:1%d:2%dZ" % (
                    rng.randint(1, 9), rng.randint(0, 9), rng.randint(0, 9),
                    rng.randint(0, 9), rng.randint(0, 9))}
        if ns is not None:
            meta["namespace"] = ns
        if labels:
            meta["labels"] = labels
        if annotations:
            meta["annotations"] = annotations
        if finalizers:
            meta["finalizers"] = finalizers
        if owners:
            meta["ownerReferences"] = [
                {"apiVersion": o["apiVersion"], "kind": o["kind"],
                 "name": o["metadata"]["name"], "uid": o["metadata"]["uid"],
                 "controller": i == 0, "blockOwnerDeletion": True}
                for i, o in enumerate(owners)]
        obj = {"apiVersion": api, "kind": kind, "metadata": meta}
        if spec is not None:
            obj["spec"] = spec
        if status is not None:
            obj["status"] = status
        self.objects.append(obj)
        return obj

    # --- payloads -------------------------------------------------------------
    def container(self, name):
        rng = self.rng
        return {"name": name,
                "image": "registry.example.com/%s:v%d.%d.%d" % (
                    name, rng.randint(1, 3), rng.randint(0, 20), rng.randint(0, 9)),
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "env": [{"name": "LOG_LEVEL", "value": "info"},
                        {"name": "POD_NAME", "valueFrom": {"fieldRef": {
                            "fieldPath": "metadata.name"}}}],
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                              "limits": {"cpu": "500m", "memory": "512Mi"}},
                "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}]}

    def pod_spec(self, app):
        return {"containers": [self.container(app)],
                "volumes": [{"name": "config", "configMap": {"name": app + "-config"}}],
                "serviceAccountName": "default",
                "nodeName": "node-%d" % self.rng.randint(0, 99)}

    def pod_status(self):
        rng = self.rng
        return {"phase": "Running",
                "conditions": [{"type": t, "status": "True",
                                "lastTransitionTime": "2026-10-01T00:00:00Z"}
                               for t in ("Initialized", "Ready", "ContainersReady",
                                         "PodScheduled")],
                "podIP": "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255),
                                         rng.randint(1, 254)),
                "startTime": "2026-10-01T00:00:00Z"}

    def suffix(self, n=5):
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))

    # --- workloads ------------------------------------------------------------
    def deployment(self, ns, app, owner=None, replicas=3):
        labels = {"app": app}
        dep = self.add("apps/v1", "Deployment", app, ns, owners=[owner] if owner else (),
                       labels=labels,
                       spec={"replicas": replicas, "selector": {"matchLabels": labels},
                             "template": {"metadata": {"labels": labels},
                                          "spec": self.pod_spec(app)}},
                       status={"replicas": replicas, "readyReplicas": replicas})
        for rev in range(2):
            h = self.suffix(9)
            rs = self.add("apps/v1", "ReplicaSet", "%s-%s" % (app, h), ns, owners=[dep],
                          labels=dict(labels, **{"pod-template-hash": h}),
                          spec={"replicas": replicas if rev else 0},
                          status={"replicas": replicas if rev else 0})
            if rev:
                for _ in range(replicas):
                    self.add("v1", "Pod", "%s-%s-%s" % (app, h, self.suffix()), ns,
                             owners=[rs], labels=labels, spec=self.pod_spec(app),
                             status=self.pod_status())
        return dep

    def statefulset(self, ns, app, replicas=3):
        sts = self.add("apps/v1", "StatefulSet", app, ns, labels={"app": app},
                       spec={"replicas": replicas, "serviceName": app},
                       status={"replicas": replicas})
        self.add("apps/v1", "ControllerRevision", "%s-%s" % (app, self.suffix(10)), ns,
                 owners=[sts])
        for i in range(replicas):
            self.add("v1", "Pod", "%s-%d" % (app, i), ns, owners=[sts], labels={"app": app},
                     spec=self.pod_spec(app), status=self.pod_status())
            self.add("v1", "PersistentVolumeClaim", "data-%s-%d" % (app, i), ns,
                     spec={"accessModes": ["ReadWriteOnce"],
                           "resources": {"requests": {"storage": "10Gi"}}},
                     finalizers=["kubernetes.io/pvc-protection"])

    def daemonset(self, ns, app, nodes):
        ds = self.add("apps/v1", "DaemonSet", app, ns, labels={"app": app},
                      spec={"selector": {"matchLabels": {"app": app}}})
        self.add("apps/v1", "ControllerRevision", "%s-%s" % (app, self.suffix(10)), ns,
                 owners=[ds])
        for _ in nodes:
            self.add("v1", "Pod", "%s-%s" % (app, self.suffix()), ns, owners=[ds],
                     labels={"app": app}, spec=self.pod_spec(app), status=self.pod_status())

    def cronjob(self, ns, app):
        cj = self.add("batch/v1", "CronJob", app, ns, spec={"schedule": "*/5 * * * *"})
        for _ in range(2):
            job = self.add("batch/v1", "Job", "%s-%d" % (app, self.rng.randint(10**7, 10**8)),
                           ns, owners=[cj], spec={"backoffLimit": 3},
                           status={"succeeded": 1})
            self.add("v1", "Pod", "%s-%s" % (job["metadata"]["name"], self.suffix()), ns,
                     owners=[job], spec=self.pod_spec(app),
                     status=dict(self.pod_status(), phase="Succeeded"))

    def service(self, ns, app, owner=None):
        svc = self.add("v1", "Service", app, ns, owners=[owner] if owner else (),
                       spec={"selector": {"app": app},
                             "ports": [{"port": 80, "targetPort": 8080}]})
        self.add("discovery.k8s.io/v1", "EndpointSlice", "%s-%s" % (app, self.suffix()), ns,
                 owners=[svc], labels={"kubernetes.io/service-name": app})
        return svc

    def app_cr(self, ns, app):
        cr = self.add("apps.example.com/v1", "App", app, ns,
                      spec={"image": "registry.example.com/%s" % app},
                      finalizers=["apps.example.com/cleanup"])
        cm = self.add("v1", "ConfigMap", app + "-config", ns, owners=[cr])
        dep = self.deployment(ns, app, owner=cr)
        dep["metadata"]["annotations"] = {
            "config.kubernetes.io/depends-on":
                "/namespaces/%s/ConfigMap/%s" % (ns, cm["metadata"]["name"])}
        self.service(ns, app, owner=cr)

    def certificate(self, ns, app, extra_owner=None):
        cert = self.add("cert-manager.io/v1", "Certificate", app + "-tls", ns,
                        spec={"secretName": app + "-tls"})
        self.add("v1", "Secret", app + "-tls", ns,
                 owners=[cert] + ([extra_owner] if extra_owner else []))


def generate(target, seed):
    c = Cluster(seed)
    for group, kind, plural in (("apps.example.com", "App", "apps"),
                                ("cert-manager.io", "Certificate", "certificates")):
        c.add("apiextensions.k8s.io/v1", "CustomResourceDefinition", "%s.%s" % (plural, group),
              spec={"group": group, "scope": "Namespaced",
                    "names": {"kind": kind, "plural": plural, "singular": kind.lower(),
                              "listKind": kind + "List"},
                    "versions": [{"name": "v1", "served": True, "storage": True}]})
    nodes = []
    for i in range(max(3, target // 2000)):
        node = c.add("v1", "Node", "node-%d" % i,
                     status={"capacity": {"cpu": "16", "memory": "64Gi"}})
        c.add("coordination.k8s.io/v1", "Lease", "node-%d" % i, "kube-node-lease",
              owners=[node])
        nodes.append(node)
    c.add("v1", "Namespace", "kube-node-lease", spec={"finalizers": ["kubernetes"]})
    c.add("v1", "Namespace", "kube-system", spec={"finalizers": ["kubernetes"]})
    c.daemonset("kube-system", "kube-proxy", nodes[:min(len(nodes), 50)])
    n = 0
    while len(c.objects) < target:
        ns = "team-%d" % n
        n += 1
        c.add("v1", "Namespace", ns, spec={"finalizers": ["kubernetes"]})
        c.add("v1", "ServiceAccount", "default", ns)
        for a in range(c.rng.randint(2, 6)):
            app = "svc%d" % a
            shape = c.rng.random()
            if shape < 0.5:
                c.deployment(ns, app)
                svc = c.service(ns, app)
                c.add("v1", "ConfigMap", app + "-config", ns)
                if c.rng.random() < 0.3:
                    c.certificate(ns, app, extra_owner=svc if c.rng.random() < 0.5 else None)
            elif shape < 0.65:
                c.statefulset(ns, app)
                c.service(ns, app)
            elif shape < 0.8:
                c.cronjob(ns, app)
            else:
                c.app_cr(ns, app)
    return c.objects


# --- YAML, block style (what PyYAML's safe dumper prints for these values) ---

# Plain scalars that a YAML 1.1 reader would take for something other than
# a string (booleans, null, numbers, timestamps), and characters a plain
# scalar cannot start with or hold: those strings are single-quoted.
_NOT_PLAIN = re.compile(
    r"""^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE
        |on|On|ON|off|Off|OFF|null|Null|NULL|~
        |[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?
        |[-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?0x[0-9a-fA-F_]+|[-+]?0o?[0-7_]+|[-+]?0b[01_]+
        |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
        |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
        |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:(?:[Tt]|[ \t]+).*)?
        |=|<<)$""", re.X)
_PLAIN_CHARS = re.compile(r"^[A-Za-z0-9_./-][A-Za-z0-9_./:@-]*$")


def _scalar(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, (int, float)):
        return repr(v)
    if v == "" or _NOT_PLAIN.match(v) or not _PLAIN_CHARS.match(v) or v.endswith(":") \
            or v.startswith("-") and (len(v) == 1 or v[1] == " "):
        return "'" + v.replace("'", "''") + "'"
    return v


def _anchors(v):
    """The anchors of a document: a mapping or sequence met more than once
    (the same Python object) is written once with `&idNNN`, then as an
    alias, as PyYAML does; numbered in the order of their second meeting."""
    seen, anchors = set(), {}

    def walk(x):
        if not isinstance(x, (dict, list)):
            return
        if id(x) in seen:
            anchors.setdefault(id(x), "id%03d" % (len(anchors) + 1))
            return
        seen.add(id(x))
        for y in (x.values() if isinstance(x, dict) else x):
            walk(y)

    walk(v)
    return anchors


def _emit(v, indent, out, anchors):
    """A mapping or sequence value at column `indent` (already on its line
    for a sequence item's first key)."""
    pad = " " * indent
    if isinstance(v, dict):
        first = True
        for k, x in v.items():
            lead = "" if first and out and not out[-1].endswith("\n") else pad
            first = False
            _entry(lead + _scalar(k) + ":", x, indent, out, anchors)
    else:
        for x in v:
            out.append(pad + "- ")
            if isinstance(x, dict) and x:
                _emit(x, indent + 2, out, anchors)
            elif isinstance(x, list) and x:
                out.append("\n")
                _emit(x, indent + 2, out, anchors)
            else:
                out.append(_flow(x) + "\n")


def _flow(v):
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return _scalar(v)


def _entry(head, v, indent, out, anchors):
    name = anchors.get(id(v)) if isinstance(v, (dict, list)) and v else None
    if name is not None:
        if name.startswith("*"):
            out.append(head + " " + name + "\n")
            return
        anchors[id(v)] = "*" + name
        head += " &" + name
    if isinstance(v, dict) and v:
        out.append(head + "\n")
        _emit(v, indent + 2, out, anchors)
    elif isinstance(v, list) and v:
        # PyYAML writes a sequence in a mapping at the mapping's own column.
        out.append(head + "\n")
        _emit(v, indent, out, anchors)
    else:
        out.append(head + " " + _flow(v) + "\n")


def yaml_documents(objects, fh):
    for i, o in enumerate(objects):
        out = [] if i == 0 else ["---\n"]
        _emit(o, 0, out, _anchors(o))
        fh.write("".join(out))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--resources", type=int, default=10000,
                   help="about how many objects to write (a few more may come)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--format", choices=("yaml", "json", "ndjson"), default="yaml")
    p.add_argument("--out", default="-", help="a file, or '-' for stdout")
    a = p.parse_args()
    objects = generate(a.resources, a.seed)
    fh = sys.stdout if a.out == "-" else open(a.out, "w")
    with fh:
        if a.format == "yaml":
            yaml_documents(objects, fh)
        elif a.format == "json":
            json.dump({"apiVersion": "v1", "kind": "List", "items": objects}, fh, indent=1)
        else:
            for o in objects:
                fh.write(json.dumps(o, separators=(",", ":")) + "\n")
    print("%d objects" % len(objects), file=sys.stderr)


if __name__ == "__main__":
    main()
