#!/usr/bin/env python3
"""Pods whose owners are missing from the snapshot, as a kubectl List in
JSON: what `plan --gc --closed-world` collects, one garbage reason each.
Every tenth Pod's ReplicaSet is present but with another uid. The same
argument always gives the same bytes.

usage: gen_orphans.py PODS > orphans.json
"""
import json
import sys

n = int(sys.argv[1])
items = []
for i in range(n):
    rs = "web-%d" % (i // 10)
    items.append({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "pod-%d" % i, "namespace": "ns-%d" % (i % 50), "uid": "pod-uid-%d" % i,
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                          "uid": "rs-uid-%d" % (i // 10), "controller": True}]},
    })
    if i % 10 == 0 and i % 20 == 0:
        items.append({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                      "metadata": {"name": rs, "namespace": "ns-%d" % (i % 50), "uid": "other-%d" % i}})
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, sys.stdout, indent=1)
