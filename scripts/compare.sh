#!/usr/bin/env bash
# Compare two teardown binaries byte for byte (stdout, stderr and exit code)
# on every fixture and on any extra inputs given: check, graph, plan (in
# every format, with --as), explain and simulate (in every format) outputs
# must be identical; and reconcile on fixtures/reconcile, apply (--dry-run,
# and applied to a copy each) on plan files of fixtures/apply (orphaning,
# with --as, dangling references, copies, Murano) and on damaged ones.
#
# usage: scripts/compare.sh OLD_BINARY NEW_BINARY [INPUT...]
#   OLD_BINARY is usually a release build of the previous commit:
#   git worktree add /tmp/td-old HEAD~1 && (cd /tmp/td-old && cargo build --release)
#
# QUICK=1 runs only the first command list (check, graph, plan): the
# comparison before this script grew.
#
# IGNORE="steps.resources.reasons warnings.type" compares JSON (and YAML) outputs
# without those fields (dotted paths through objects and arrays): for a
# change that adds fields and must leave everything else as it was.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2"); shift 2

inputs=(fixtures/shop fixtures/shop.yaml fixtures/formats fixtures/plan fixtures/murano fixtures/murano/edge)
while IFS= read -r f; do inputs+=("$f"); done < <(find fixtures -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | LC_ALL=C sort)
while IFS= read -r d; do inputs+=("$d"); done < <(find fixtures/realworld/dependson -mindepth 1 -type d | LC_ALL=C sort)
inputs+=("$@")

commands=("check -o json" "check" "graph -o json" "graph" "plan --all -o json --allow-cycles" "plan --all --allow-cycles"
  "plan --gc -o json" "plan --gc" "plan --gc -o yaml" "explain --all --allow-cycles id:does-not-exist")

status=0
errfile=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$errfile" "$work"' EXIT
# Drop the IGNORE paths from a JSON document on stdin (anything else passes).
strip() {
  if [ -z "${IGNORE:-}" ]; then cat; return; fi
  python3 -c '
import json, sys
text = sys.stdin.read()
try:
    doc = json.loads(text)
except ValueError:
    try:
        import yaml  # plan -o yaml
        doc = yaml.safe_load(text)
        assert isinstance(doc, dict) and "schemaVersion" in doc
    except Exception:
        sys.stdout.write(text); sys.exit()
def drop(node, path):
    if isinstance(node, list):
        for x in node: drop(x, path)
    elif isinstance(node, dict):
        if len(path) == 1: node.pop(path[0], None)
        elif path[0] in node: drop(node[path[0]], path[1:])
for p in sys.argv[1:]: drop(doc, p.split("."))
print(json.dumps(doc, indent=2))
' $IGNORE
}
same() { # label, command words...
  local label=$1; shift
  # The exit code is taken before anything else runs (PIPESTATUS is the
  # last pipeline's).
  a=$("$old" "$@" 2>"$errfile" | strip; s=${PIPESTATUS[0]}; cat "$errfile"; echo "exit=$s")
  b=$("$new" "$@" 2>"$errfile" | strip; s=${PIPESTATUS[0]}; cat "$errfile"; echo "exit=$s")
  if [ "$a" != "$b" ]; then
    echo "DIFFERENT: $label"
    diff <(echo "$a") <(echo "$b") | head -10
    status=1
  fi
}
# More formats of each command.
formats=("plan --all --allow-cycles -o yaml" "plan --all --allow-cycles -o names" "plan --all --allow-cycles -o refs"
  "plan --all --allow-cycles -o dot" "plan --all --allow-cycles -o mermaid" "plan --all --allow-cycles -o kubectl"
  "plan --gc -o names" "plan --gc -o kubectl" "graph -o yaml" "graph -o dot" "graph -o mermaid" "graph -o names"
  "graph -o refs" "graph --dependencies -o json" "check -o yaml" "check -o sarif" "check -o github"
  "check --statistics" "check --statistics -o json" "plan --all --allow-cycles --as helm"
  "plan --all --allow-cycles -o json --as helm4" "plan --all --allow-cycles -o json --as argocd"
  "plan --all --allow-cycles --as kapp" "plan --all --allow-cycles -o yaml --as flux"
  "plan --all --allow-cycles -o wide" "plan --all --allow-cycles -o markdown" "plan --gc -o markdown" "check -o markdown")
[ -n "${QUICK:-}" ] && formats=()
# Commands about one object (SEL): the first and the last object `plan
# --all` deletes (the last is most often an owner).
selected=("plan --allow-cycles -o json --delete" "plan --allow-cycles --delete" "plan --allow-cycles -o names --delete"
  "plan --allow-cycles -o json --cascade orphan --delete" "plan --allow-cycles -o json --cascade foreground --delete"
  "plan --allow-cycles -o kubectl --delete" "explain --allow-cycles" "explain --allow-cycles -o json"
  "explain --gc" "simulate --controller kubernetes --delete" "simulate --controller kubernetes -o json --delete"
  "simulate --controller kubernetes --cascade foreground -o yaml --delete" "simulate --controller krake -o json --delete"
  "simulate --controller kubernetes -o names --delete" "simulate --controller kubernetes -o refs --delete"
  "simulate --controller krake --delete" "explain --allow-cycles -o yaml" "explain --allow-cycles -o names"
  "explain --allow-cycles -o refs")
[ -n "${QUICK:-}" ] && selected=()
# The selector of a reference `plan -o refs` prints: an id is `id:ID`.
selector() { case $1 in */*) echo "$1" ;; *) echo "id:$1" ;; esac; }
n=0
for input in "${inputs[@]}"; do
  for cmd in "${commands[@]}" "${formats[@]}"; do
    # shellcheck disable=SC2086
    same "$cmd $input" $cmd "$input"
    n=$((n + 1))
  done
  [ ${#selected[@]} = 0 ] && continue
  refs=$("$old" plan --all --allow-cycles -o refs "$input" 2>/dev/null)
  [ -z "$refs" ] && continue
  for sel in "$(selector "$(echo "$refs" | head -1)")" "$(selector "$(echo "$refs" | tail -1)")"; do
    for cmd in "${selected[@]}"; do
      # shellcheck disable=SC2086
      same "$cmd $sel $input" $cmd "$sel" "$input"
      n=$((n + 1))
    done
  done
done
if [ -z "${QUICK:-}" ]; then
  # reconcile: each row with its --desired file, when it has one.
  for f in fixtures/reconcile/*.yaml; do
    case $f in *-desired.yaml) continue ;; esac
    desired=()
    [ -f "${f%.yaml}-desired.yaml" ] && desired=(--desired "${f%.yaml}-desired.yaml")
    for out in table json yaml; do
      same "reconcile -o $out ${desired[*]} $f" reconcile -o "$out" "${desired[@]}" "$f"
      n=$((n + 1))
    done
  done
  # apply: plan files the old binary makes of fixtures/apply, applied with
  # --dry-run, then for real to a copy each (the files they leave compared).
  plans=("--all manifests" "--delete Deployment.apps/shop/web manifests" "--gc manifests" "--prune v2 v1"
    "--all --dialect native native-orphans.yaml" "--all murano-env.json" "--gc murano-env.json"
    "--all copies-a.yaml copies-b.yaml" "--delete id:a dangling-destroy-after.yaml" "--all orphan-two-refs.yaml"
    "--delete Deployment.apps/shop/web --cascade orphan manifests" "--all --as helm manifests"
    "--all dangling-depends-on.yaml" "--gc never-collected-other-coordinates.yaml")
  k=0
  for p in "${plans[@]}"; do
    for fmt in json yaml; do
      k=$((k + 1))
      for side in old new; do
        rm -rf "$work/$side$k" && cp -r fixtures/apply "$work/$side$k"
        # shellcheck disable=SC2086
        (cd "$work/$side$k" && "$old" plan $p -o "$fmt" > plan.$fmt 2>/dev/null)
      done
      # (not in a subshell: a difference must set the status)
      pushd "$work/old$k" >/dev/null && same "apply --dry-run (plan $p -o $fmt)" apply --dry-run plan.$fmt
      popd >/dev/null || exit 2
      n=$((n + 1))
      a=$(cd "$work/old$k" && "$old" apply plan.$fmt 2>&1; echo "exit=$?"; find . -type f | LC_ALL=C sort | xargs cat)
      b=$(cd "$work/new$k" && "$new" apply plan.$fmt 2>&1; echo "exit=$?"; find . -type f | LC_ALL=C sort | xargs cat)
      if [ "$a" != "$b" ]; then
        echo "DIFFERENT: apply (plan $p -o $fmt)"
        diff <(echo "$a") <(echo "$b") | head -10
        status=1
      fi
      n=$((n + 1))
    done
  done
  # apply of damaged plan files (what the reader refuses, and where): a
  # `ref` that is not a string, one missing, an object that is not there.
  k=$((k + 1))
  rm -rf "$work/bad" && cp -r fixtures/apply "$work/bad"
  (cd "$work/bad" && "$old" plan --all -o json manifests > plan.json 2>/dev/null)
  for damage in 's/"ref": "[^"]*"/"ref": 5/' 's/"ref": "[^"]*",//' 's|"ref": "[^"]*"|"ref": "Pod/elsewhere/gone"|'; do
    sed "0,/\"ref\": \"/{$damage}" "$work/bad/plan.json" > "$work/bad/damaged.json"
    pushd "$work/bad" >/dev/null && same "apply --dry-run (damaged: $damage)" apply --dry-run damaged.json
    popd >/dev/null || exit 2
    n=$((n + 1))
  done
fi
for f in fixtures/pairs/*; do
  for cmd in "plan --all -o json" "plan --all -o names" "check -o json" "graph -o json"; do
    # shellcheck disable=SC2086
    same "$cmd --dialect pairs $f" $cmd --dialect pairs "$f"
    n=$((n + 1))
  done
done
[ $status = 0 ] && echo "identical ($n runs)"
exit $status
