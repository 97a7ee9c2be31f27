#!/usr/bin/env python3
"""Custom resources for `teardown reconcile`: N Streams (spec.state Running,
status Running or Pending), each controlling three Pods (Running, Pending,
Failed), as multi-document YAML on stdout.

usage: scripts/gen_streams.py N > bench-data/streams.yaml
"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
docs = []
for i in range(n):
    status = "Running" if i % 3 else "Pending"
    docs.append(f"apiVersion: example.com/v1\nkind: Stream\nmetadata:\n  name: s{i}\n  namespace: ml\n  uid: u{i}\n"
                f"spec:\n  state: Running\nstatus:\n  state: {status}\n")
    for j, phase in enumerate(["Running", "Pending", "Failed"]):
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: s{i}-{j}\n  namespace: ml\n  ownerReferences:\n"
                    f"  - apiVersion: example.com/v1\n    kind: Stream\n    name: s{i}\n    uid: u{i}\n    controller: true\n"
                    f"status:\n  phase: {phase}\n  conditions:\n  - type: Ready\n    status: \"True\"\n")
sys.stdout.write("---\n".join(docs))
