#!/usr/bin/env bash
# Compare two teardown binaries byte for byte on the fixtures (and any extra
# inputs given): check, graph and plan outputs must be identical.
# usage: scripts/compare.sh OLD_BINARY NEW_BINARY [INPUT...]
set -uo pipefail
old=$1 new=$2; shift 2
inputs=(fixtures/realworld/kubernetes/*.yaml fixtures/shop fixtures/shop.yaml fixtures/formats fixtures/plan "$@")
status=0
for input in "${inputs[@]}"; do
  for cmd in "check -o json" "check" "graph -o json" "graph" "plan --all -o json --allow-cycles" "plan --gc -o json"; do
    a=$($old $cmd "$input" 2>&1; echo "exit=$?")
    b=$($new $cmd "$input" 2>&1; echo "exit=$?")
    if [ "$a" != "$b" ]; then
      echo "DIFFERENT: $cmd $input"
      diff <(echo "$a") <(echo "$b") | head -10
      status=1
    fi
  done
done
[ $status = 0 ] && echo "identical"
exit $status
