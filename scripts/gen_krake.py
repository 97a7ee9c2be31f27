#!/usr/bin/env python3
"""A Krake snapshot of about N resources, as a JSON list: a GlobalCloud that
owns every Cluster (namespaces p0..p99), each Cluster owning nine
Applications; every tenth Application also runs on the next Cluster of its
namespace (two owners). Applications carry Krake's application-controller
finalizer. `simulate --delete globalcloud/cloud --controller krake` deletes
all of it. The same argument always gives the same bytes.

usage: gen_krake.py N > krake.json
"""
import json
import sys

n = int(sys.argv[1])
clusters = max(1, n // 10)
items = [{"api": "infrastructure", "kind": "GlobalCloud",
          "metadata": {"name": "cloud", "namespace": None, "uid": "cloud-uid", "owners": []}}]
cloud = {"api": "infrastructure", "namespace": None, "kind": "GlobalCloud", "name": "cloud"}
for c in range(clusters):
    ns = "p%d" % (c % 100)
    items.append({"api": "kubernetes", "kind": "Cluster",
                  "metadata": {"name": "c%d" % c, "namespace": ns, "uid": "c-uid-%d" % c, "owners": [cloud],
                               "finalizers": []}})
for c in range(clusters):
    ns = "p%d" % (c % 100)
    for a in range(9):
        owners = [{"api": "kubernetes", "namespace": ns, "kind": "Cluster", "name": "c%d" % c}]
        if a == 0 and c + 100 < clusters:
            owners.append({"api": "kubernetes", "namespace": ns, "kind": "Cluster", "name": "c%d" % (c + 100)})
        items.append({"api": "kubernetes", "kind": "Application",
                      "metadata": {"name": "app-%d-%d" % (c, a), "namespace": ns, "uid": "a-uid-%d-%d" % (c, a),
                                   "owners": owners, "finalizers": ["kubernetes_resources_deletion"]}})
json.dump({"api": "kubernetes", "kind": "ApplicationList", "metadata": {}, "items": items}, sys.stdout, indent=1)
sys.stdout.write("\n")
