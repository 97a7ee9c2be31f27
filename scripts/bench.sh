#!/usr/bin/env bash
# The benchmark: generates inputs with the cluster snapshot generator
# gen_cluster.py, which is not part of this repository (GEN=PATH; by default
# ../shared/bench/gen_cluster.py beside the clone), cached in bench-data/, times teardown against its floors with hyperfine, and
# prints the ratios the scale issue asks for.
#
#   scripts/bench.sh          100k-object snapshots, linearity, a million pairs
#   scripts/bench.sh --full   also the million-object snapshot (1.1 GB; time and peak RSS)
#
# Needs: hyperfine, python3 (with PyYAML for the YAML snapshot), tsort.
set -euo pipefail
cd "$(dirname "$0")/.."
full=false
[ "${1:-}" = "--full" ] && full=true

gen=${GEN:-../shared/bench/gen_cluster.py}
[ -f "$gen" ] || [ -s bench-data/c200k.json ] || { echo "scripts/bench.sh: no snapshot generator at $gen; set GEN=path/to/gen_cluster.py" >&2; exit 2; }
data=bench-data
mkdir -p "$data"
make() { # file resources format
  [ -s "$data/$1" ] || { echo "generating $data/$1" >&2; python3 "$gen" --resources "$2" --format "$3" --out "$data/$1"; }
}
make c100k.json 100000 json
make c100k.yaml 100000 yaml
make c200k.json 200000 json
[ -s "$data/pairs1m500k.txt" ] || python3 scripts/gen_pairs.py 1000000 500000 1 > "$data/pairs1m500k.txt"
[ -s "$data/orphans20k.json" ] || python3 scripts/gen_orphans.py 20000 > "$data/orphans20k.json"
[ -s "$data/orphans60k.json" ] || python3 scripts/gen_orphans.py 60000 > "$data/orphans60k.json"
[ -s "$data/krake100k.json" ] || python3 scripts/gen_krake.py 100000 > "$data/krake100k.json"
[ -s "$data/chain200k.yaml" ] || python3 -c '
import sys
n = 200000
sys.stdout.write("resources:\n- id: o0\n" + "".join("- id: o%d\n  owners: [o%d]\n" % (i, i - 1) for i in range(1, n)))
' > "$data/chain200k.yaml"
$full && make c1m.json 1000000 json

cargo build --release --quiet --bins --examples
td=target/release/teardown
floor=target/release/examples/json_floor

hyperfine --warmup 2 --runs 10 -N --export-json "$data/bench.json" \
  -n floor "$floor $data/c100k.json" \
  -n check-json "$td check -o json $data/c100k.json" \
  -n check "$td check $data/c100k.json" \
  -n plan-all "$td plan --all $data/c100k.json" \
  -n plan-ns "$td plan --delete ns/team-1 $data/c100k.json" \
  -n plan-json "$td plan --all -o json $data/c100k.json" \
  -n gc-20k "$td plan --gc --closed-world -o json $data/orphans20k.json" \
  -n gc-60k "$td plan --gc --closed-world -o json $data/orphans60k.json" \
  -n check-yaml "$td check -o json $data/c100k.yaml" \
  -n check-200k "$td check -o json $data/c200k.json" \
  -n tsort "tsort $data/pairs1m500k.txt" \
  -n pairs "$td plan --all --dialect pairs -o names $data/pairs1m500k.txt" \
  -n krake-plan "$td plan --delete globalcloud/cloud $data/krake100k.json" \
  -n krake-sim "$td simulate --delete globalcloud/cloud --controller krake $data/krake100k.json" \
  -n krake-sim-json "$td simulate --delete globalcloud/cloud --controller krake -o json $data/krake100k.json" \
  >&2

python3 - "$data/bench.json" <<'EOF'
import json, sys
r = {x["command"]: x["median"] for x in json.load(open(sys.argv[1]))["results"]}
ms = lambda k: "%7.0f ms" % (r[k] * 1000)
rows = [
    ("serde_json floor, 100k JSON", ms("floor"), ""),
    ("check -o json, 100k JSON", ms("check-json"), "%.2f x floor (target <= 1.3)" % (r["check-json"] / r["floor"])),
    ("check, 100k JSON", ms("check"), "%.2f x floor" % (r["check"] / r["floor"])),
    ("plan --all, 100k JSON", ms("plan-all"), "%+.0f%% over check (target <= +10%%)" % (100 * (r["plan-all"] / r["check"] - 1))),
    ("plan --delete ns, 100k JSON", ms("plan-ns"), "%+.0f%% over check" % (100 * (r["plan-ns"] / r["check"] - 1))),
    ("plan --all -o json, 100k JSON", ms("plan-json"), "%.2f x check -o json (target <= 1.1)" % (r["plan-json"] / r["check-json"])),
    ("plan --gc, 20k missing owners", ms("gc-20k"), ""),
    ("plan --gc, 60k missing owners", ms("gc-60k"), "%.2f x the 20k time (linear: about 3)" % (r["gc-60k"] / r["gc-20k"])),
    ("check -o json, 100k YAML", ms("check-yaml"), "target <= 1500 ms"),
    ("check -o json, 200k JSON", ms("check-200k"), "%.2f x the 100k time (target <= 2.3)" % (r["check-200k"] / r["check-json"])),
    ("tsort, 1M pairs over 500k tokens", ms("tsort"), ""),
    ("plan --all --dialect pairs -o names", ms("pairs"), "%.2f x tsort (target <= 0.25)" % (r["pairs"] / r["tsort"])),
    ("plan --delete, Krake 100k", ms("krake-plan"), ""),
    ("simulate --controller krake, 100k", ms("krake-sim"), "%.2f x plan (1.1M trace lines)" % (r["krake-sim"] / r["krake-plan"])),
    ("simulate -o json, Krake 100k", ms("krake-sim-json"), "%.2f x plan" % (r["krake-sim-json"] / r["krake-plan"])),
]
for name, t, note in rows:
    print("%-38s %s  %s" % (name, t, note))
EOF

/usr/bin/time -f "%e s, peak RSS %M KB" -o "$data/time.txt" $td explain id:o0 --delete id:o0 "$data/chain200k.yaml" > "$data/explain.txt" 2>/dev/null || true
printf '%-38s %s, %s bytes out\n' "explain, head of a 200k chain" "$(cat "$data/time.txt")" "$(wc -c < "$data/explain.txt")"

if $full; then
  for cmd in "check" "plan --all" "plan --all -o json"; do
    /usr/bin/time -f "%e s, peak RSS %M KB" -o "$data/time.txt" $td $cmd "$data/c1m.json" > /dev/null 2>&1 || true
    printf '%-38s %s\n' "$cmd, 1M JSON" "$(cat "$data/time.txt")"
  done
fi
