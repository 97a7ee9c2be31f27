#!/usr/bin/env bash
# Draws the plan of a real namespace deletion as an SVG for the docs:
# `plan -o dot` of deleting the kubevious namespace in the public GKE dump
# under fixtures/realworld/, rendered by Graphviz (`dot`, from the graphviz
# package). Run from the repository root: scripts/plan-picture.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/plan-kubevious.svg
cargo run --quiet --release -- plan --delete namespace/kubevious \
  fixtures/realworld/kubernetes/kubevious-gke-large-cluster-2022-02.yaml -o dot 2>/dev/null |
  dot -Tsvg >"$out"
echo "wrote $out"
