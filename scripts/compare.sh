#!/usr/bin/env bash
# Compare two teardown binaries byte for byte (stdout, stderr and exit code)
# on every fixture and on any extra inputs given: check, graph and plan
# outputs must be identical.
#
# usage: scripts/compare.sh OLD_BINARY NEW_BINARY [INPUT...]
#   OLD_BINARY is usually a release build of the previous commit:
#   git worktree add /tmp/td-old HEAD~1 && (cd /tmp/td-old && cargo build --release)
#
# IGNORE="steps.resources.reasons warnings.type" compares JSON (and YAML) outputs
# without those fields (dotted paths through objects and arrays): for a
# change that adds fields and must leave everything else as it was.
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2; shift 2

inputs=(fixtures/shop fixtures/shop.yaml fixtures/formats fixtures/plan fixtures/murano fixtures/murano/edge)
while IFS= read -r f; do inputs+=("$f"); done < <(find fixtures -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | LC_ALL=C sort)
while IFS= read -r d; do inputs+=("$d"); done < <(find fixtures/realworld/dependson -mindepth 1 -type d | LC_ALL=C sort)
inputs+=("$@")

commands=("check -o json" "check" "graph -o json" "graph" "plan --all -o json --allow-cycles" "plan --all --allow-cycles"
  "plan --gc -o json" "plan --gc" "plan --gc -o yaml" "explain --all --allow-cycles id:does-not-exist")

status=0
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
# stderr of each run, in a file of this run's own: several clones compared
# at once on one machine must not read each other's.
err=$(mktemp)
trap 'rm -f "$err"' EXIT
same() { # label, command words...
  local label=$1; shift
  a=$("$old" "$@" 2>"$err" | strip; cat "$err"; echo "exit=${PIPESTATUS[0]}")
  b=$("$new" "$@" 2>"$err" | strip; cat "$err"; echo "exit=${PIPESTATUS[0]}")
  if [ "$a" != "$b" ]; then
    echo "DIFFERENT: $label"
    diff <(echo "$a") <(echo "$b") | head -10
    status=1
  fi
}
n=0
for input in "${inputs[@]}"; do
  for cmd in "${commands[@]}"; do
    # shellcheck disable=SC2086
    same "$cmd $input" $cmd "$input"
    n=$((n + 1))
  done
done
for f in fixtures/pairs/*; do
  for cmd in "plan --all -o json" "plan --all -o names" "check -o json" "graph -o json"; do
    # shellcheck disable=SC2086
    same "$cmd --dialect pairs $f" $cmd --dialect pairs "$f"
    n=$((n + 1))
  done
done
[ $status = 0 ] && echo "identical ($n runs)"
exit $status
