#!/usr/bin/env bash
# Compare two teardown binaries byte for byte (stdout, stderr and exit code)
# on every fixture and on any extra inputs given: check, graph and plan
# outputs must be identical.
#
# usage: scripts/compare.sh OLD_BINARY NEW_BINARY [INPUT...]
#   OLD_BINARY is usually a release build of the previous commit:
#   git worktree add /tmp/td-old HEAD~1 && (cd /tmp/td-old && cargo build --release)
set -uo pipefail
cd "$(dirname "$0")/.."
old=$1 new=$2; shift 2

inputs=(fixtures/shop fixtures/shop.yaml fixtures/formats fixtures/plan fixtures/murano fixtures/murano/edge)
while IFS= read -r f; do inputs+=("$f"); done < <(find fixtures -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) | LC_ALL=C sort)
while IFS= read -r d; do inputs+=("$d"); done < <(find fixtures/realworld/dependson -mindepth 1 -type d | LC_ALL=C sort)
inputs+=("$@")

commands=("check -o json" "check" "graph -o json" "graph" "plan --all -o json --allow-cycles" "plan --all --allow-cycles"
  "plan --gc -o json" "explain --all --allow-cycles id:does-not-exist")

status=0
same() { # label, command words...
  local label=$1; shift
  a=$("$old" "$@" 2>&1; echo "exit=$?")
  b=$("$new" "$@" 2>&1; echo "exit=$?")
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
