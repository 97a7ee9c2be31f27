#!/usr/bin/env bash
# The benchmark: generates its inputs with this repository's own generators
# (scripts/gen_cluster.py and the others beside it: Python 3, standard
# library only), cached in bench-data/, times teardown against its floors
# and prints the ratios the scale issues ask for.
#
#   scripts/bench.sh                  100k-object snapshots, linearity, a million pairs
#   scripts/bench.sh --full           also the million-object snapshot (1.1 GB: time, peak RSS)
#   scripts/bench.sh --instructions   also instruction counts (callgrind, one thread) on
#                                     20k-object snapshots and 100k pairs: steady where
#                                     wall times are not
#
# RUNS=N (default 9): each command runs N times, the commands taking turns
# (one run of each, then the next round), so that a slow minute of a shared
# machine falls on all of them; the figures are medians. BIN=PATH times
# another build of teardown (the floors are built from this checkout);
# FLOOR=PATH another build of examples/json_floor (e.g. both from
# `cargo build --profile dist --bins --examples`, under target/dist/).
#
# Each timed run comes right after an untimed run of the same command
# (WARM=0: without it, as before), so that every command, and both sides of
# every ratio, start on memory the same command has just given back. On a
# virtual machine that reports free memory to its host (virtio-balloon free
# page reporting), memory that was free for a while, or that a command with
# another footprint gave back (tsort, serde_yaml), is faulted in again from
# the host on first touch: the kernel's page zeroing then costs 10 times as
# much system time (about 1.4 s instead of 0.1 s for 512 MB of huge pages),
# and a ratio measured it as much as teardown. The system CPU column shows
# what is left of it.
#
# Needs: python3, tsort (coreutils); valgrind for --instructions.
set -euo pipefail
cd "$(dirname "$0")/.."
full=false
instructions=false
for a in "$@"; do
  case $a in
    --full) full=true ;;
    --instructions) instructions=true ;;
    *) echo "usage: scripts/bench.sh [--full] [--instructions]" >&2; exit 2 ;;
  esac
done
runs=${RUNS:-9}
data=bench-data
mkdir -p "$data"

make() { # file resources format
  [ -s "$data/$1" ] || { echo "generating $data/$1" >&2; python3 scripts/gen_cluster.py --resources "$2" --format "$3" --out "$data/$1"; }
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
if $instructions; then
  make c20k.json 20000 json
  make c20k.yaml 20000 yaml
  [ -s "$data/pairs100k50k.txt" ] || python3 scripts/gen_pairs.py 100000 50000 1 > "$data/pairs100k50k.txt"
fi

cargo build --release --quiet --bins --examples
td=${BIN:-target/release/teardown}
floor=${FLOOR:-target/release/examples/json_floor}
plan_floor=${PLAN_FLOOR:-target/release/examples/plan_floor}

# name <TAB> command (`> FILE` at the end: stdout to that file, else to /dev/null).
cat > "$data/commands.tsv" <<EOF
floor	$floor $data/c100k.json
check-json	$td check -o json $data/c100k.json
check	$td check $data/c100k.json
plan-all	$td plan --all $data/c100k.json
plan-ns	$td plan --delete ns/team-1 $data/c100k.json
plan-json	$td plan --all -o json $data/c100k.json > $data/plan.json
plan-floor	$plan_floor $data/c100k.json $data/plan.json $data/plan-floor.json
check-yaml	$td check -o json $data/c100k.yaml
serde-yaml	env TEARDOWN_NO_FAST_YAML=1 $td check -o json $data/c100k.yaml
check-200k	$td check -o json $data/c200k.json
gc-20k	$td plan --gc --closed-world -o json $data/orphans20k.json
gc-60k	$td plan --gc --closed-world -o json $data/orphans60k.json
tsort	tsort $data/pairs1m500k.txt
pairs	$td plan --all --dialect pairs -o names $data/pairs1m500k.txt
krake-plan	$td plan --delete globalcloud/cloud $data/krake100k.json
krake-sim	$td simulate --delete globalcloud/cloud --controller krake $data/krake100k.json
krake-sim-json	$td simulate --delete globalcloud/cloud --controller krake -o json $data/krake100k.json
EOF

python3 - "$data" "$runs" "${WARM:-1}" <<'EOF'
import os, resource, shlex, statistics, subprocess, sys, time
data, runs, warm = sys.argv[1], int(sys.argv[2]), sys.argv[3] != "0"
cmds = [l.rstrip("\n").split("\t") for l in open(os.path.join(data, "commands.tsv")) if l.strip()]
wall = {n: [] for n, _ in cmds}
user = {n: [] for n, _ in cmds}
system = {n: [] for n, _ in cmds}

def run(cmd, name):
    """Run `cmd`: its wall, user and system time."""
    argv = shlex.split(cmd)
    out = "/dev/null"
    if len(argv) > 2 and argv[-2] == ">":
        argv, out = argv[:-2], argv[-1]
    if name == "plan-floor":
        # Its own clock (the plan it reads first is not timed): "sum N ms".
        said = subprocess.run(argv, capture_output=True, text=True)
        if said.returncode != 0:
            sys.exit("scripts/bench.sh: `%s` exited %d: %s" % (cmd, said.returncode, said.stderr))
        return float(said.stdout.rsplit("sum ", 1)[1].split()[0]) / 1000, 0.0, 0.0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out, "wb") as fh:
        rc = subprocess.call(argv, stdout=fh, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc not in (0, 1):  # check exits 1 when it finds errors
        sys.exit("scripts/bench.sh: `%s` exited %d" % (cmd, rc))
    return took, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime

for r in range(runs):
    print("round %d of %d" % (r + 1, runs), file=sys.stderr)
    for name, cmd in cmds:
        if warm:
            run(cmd, name)  # the same command just before: see the header
        took, usr, sys_ = run(cmd, name)
        wall[name].append(took)
        user[name].append(usr)
        system[name].append(sys_)
w = {n: statistics.median(v) for n, v in wall.items()}
u = {n: statistics.median(v) for n, v in user.items()}
st = {n: statistics.median(v) for n, v in system.items()}
ms = lambda k: "%7.0f ms" % (w[k] * 1000)
x = lambda a, b: "%.2f x %s" % (w[a] / w[b], b)
rows = [
    ("serde_json floor, 100k JSON (108 MB)", "floor", ""),
    ("check -o json, 100k JSON", "check-json", x("check-json", "floor") + " (target <= 1.15)"),
    ("check, 100k JSON", "check", x("check", "floor")),
    ("plan --all, 100k JSON", "plan-all", "%+.0f%% over check" % (100 * (w["plan-all"] / w["check"] - 1))),
    ("plan --delete ns, 100k JSON", "plan-ns", "%+.0f%% over check" % (100 * (w["plan-ns"] / w["check"] - 1))),
    ("plan --all -o json > file, 100k JSON", "plan-json", x("plan-json", "check-json") + " (target <= 1.2)"),
    # What a plan file must do beyond check, at the least (examples/plan_floor.rs):
    # against it, what teardown's plan adds to check's wall time.
    ("plan's floor: sha256 of the input, serde_json writing the plan to a file, one core", "plan-floor",
     "plan-json - check-json = %.0f ms: %.2f x this" % ((w["plan-json"] - w["check-json"]) * 1000, (w["plan-json"] - w["check-json"]) / w["plan-floor"])),
    ("check -o json, 100k YAML (75 MB)", "check-yaml", x("check-yaml", "serde-yaml") + " (target <= 0.25)"),
    ("the same, TEARDOWN_NO_FAST_YAML=1", "serde-yaml", "serde_yaml for every document"),
    ("check -o json, 200k JSON", "check-200k", "%.2f x the 100k time (linear: 2)" % (w["check-200k"] / w["check-json"])),
    ("plan --gc, 20k missing owners", "gc-20k", ""),
    ("plan --gc, 60k missing owners", "gc-60k", "%.2f x the 20k time (linear: 3)" % (w["gc-60k"] / w["gc-20k"])),
    ("tsort, 1M pairs over 500k tokens", "tsort", ""),
    ("plan --all --dialect pairs -o names", "pairs", x("pairs", "tsort") + " (target <= 0.2)"),
    ("plan --delete, Krake 100k", "krake-plan", ""),
    ("simulate --controller krake, 100k", "krake-sim", x("krake-sim", "krake-plan")),
    ("simulate -o json, Krake 100k", "krake-sim-json", x("krake-sim-json", "krake-plan")),
]
# A Markdown table: docs/contributing.md's is this output.
print("| what (medians of %d alternating runs%s) | wall | user CPU | system CPU | against |" % (runs, ", each after one of the same" if warm else ""))
print("|---|---|---|---|---|")
for label, k, note in rows:
    cpu = ("%5.0f ms | %4.0f ms" % (u[k] * 1000, st[k] * 1000)) if k != "plan-floor" else "|"
    print("| %s | %s | %s | %s |" % (label, ms(k).strip(), cpu, note))
EOF

/usr/bin/time -f "%e s, %S s system, peak RSS %M KB" -o "$data/time.txt" $td explain id:o0 --delete id:o0 "$data/chain200k.yaml" > "$data/explain.txt" 2>/dev/null || true
printf '| %s | %s, %s bytes out | | | |\n' "explain, head of a 200k chain" "$(cat "$data/time.txt")" "$(wc -c < "$data/explain.txt")"

if $full; then
  for cmd in "check" "plan --all" "plan --all -o json"; do
    for i in 1 2 3; do
      /usr/bin/time -f "%e s, %S s system, peak RSS %M KB" -o "$data/time.txt" $td $cmd "$data/c1m.json" > "$data/out.txt" 2>/dev/null || true
      printf '| %s | %s | | | target <= 2 GB |\n' "$cmd, 1M JSON" "$(cat "$data/time.txt")"
    done
  done
  rm -f "$data/out.txt"
fi

if $instructions; then
  ir() { # name command...: instructions executed, one thread
    local f="$data/callgrind.$1"
    shift
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$f" "$@" > /dev/null 2>&1 || true
    awk '/^summary:/ { print $2 }' "$f"
  }
  f=$(ir floor "$floor" "$data/c20k.json")
  c=$(ir check-json "$td" check -o json "$data/c20k.json")
  p=$(ir plan-json "$td" plan --all -o json "$data/c20k.json")
  y=$(ir check-yaml "$td" check -o json "$data/c20k.yaml")
  s=$(TEARDOWN_NO_FAST_YAML=1 ir serde-yaml "$td" check -o json "$data/c20k.yaml")
  t=$(ir tsort tsort "$data/pairs100k50k.txt")
  q=$(ir pairs "$td" plan --all --dialect pairs -o names "$data/pairs100k50k.txt")
  python3 - "$f" "$c" "$p" "$y" "$s" "$t" "$q" <<'EOF'
import sys
f, c, p, y, s, t, q = (int(v) for v in sys.argv[1:])
M = lambda n: "%9.1f M" % (n / 1e6)
print()
print("| instructions (callgrind, RAYON_NUM_THREADS=1) | Ir | against |")
print("|---|---|---|")
for label, n, note in [
    ("serde_json floor, 20k JSON", f, ""),
    ("check -o json, 20k JSON", c, "%.2f x floor" % (c / f)),
    # (Under valgrind sha2 finds no SHA extensions: the input's digest,
    # computed on a thread of its own, costs about 52 instructions a byte
    # here, a few natively.)
    ("plan --all -o json, 20k JSON", p, "%.2f x check -o json (with a software sha256 of the input)" % (p / c)),
    ("check -o json, 20k YAML", y, "%.2f x serde_yaml" % (y / s)),
    ("the same, TEARDOWN_NO_FAST_YAML=1", s, ""),
    ("tsort, 100k pairs over 50k tokens", t, ""),
    ("plan --all --dialect pairs -o names", q, "%.2f x tsort" % (q / t)),
]:
    print("| %s | %s | %s |" % (label, M(n).strip(), note))
EOF
fi
