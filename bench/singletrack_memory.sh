#!/usr/bin/env bash
# Time and memory of `sfgc trace --analysis singletrack` beside `--analysis fasttrack` on one long
# trace with deterministic blocks (docs/determinism.md, "Cost"): a thread pool whose 8 workers take
# tasks from a locked queue (outside any block) and run each task in a block (reads of a shared
# input, writes of its own result); every 1,000 tasks the main thread opens a block that forks two
# children, which pass a barrier, and ends it before joining them; a reader outside every block
# reads results of finished blocks (races, which fasttrack reports, but serializable). Reports
# CPU seconds, ns per event and peak RSS (GNU time) of each, and the ratios. The trace has no
# conflict and no cycle, so memory shows what the collection of finished blocks and unary
# transactions leaves.
#
# Usage: bench/singletrack_memory.sh [SFGC [EVENTS]]   (defaults: build/sfgc/sfgc, 10000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
events=${2:-10000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace=$dir/pool.std

python3 - "$trace" "$events" <<'EOF'
import random, sys
path, target = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
out = open(path, "w")
n = 0
buf = []
def line(s):
    global n
    buf.append(s)
    n += 1
    if len(buf) >= 100000:
        out.write("\n".join(buf) + "\n"); buf.clear()
workers = [f"P{i}" for i in range(8)]
line("M|fork(" + ",".join(workers) + ",R)")
for k in range(64):
    line(f"M|w(in{k})")
# Each worker's pending steps; the steps of the workers interleave at random.
# (The critical section on q is one step, so that no other worker takes q meanwhile.)
def task(w, t):
    s = [[f"{w}|acq(q)", f"{w}|r(next)", f"{w}|w(next)", f"{w}|rel(q)"], [f"{w}|begin"]]
    for _ in range(3):
        s.append([f"{w}|r(in{rng.randrange(64)})"])
    res = f"res{w}_{t % 16}"
    s += [[f"{w}|w({res})"], [f"{w}|r({res})"], [f"{w}|w({res})"], [f"{w}|end"]]
    return s
pending = {w: [] for w in workers}
tasks = 0
forks = 0
while n < target:
    w = rng.choice(workers)
    if not pending[w]:
        pending[w] = task(w, tasks)
        tasks += 1
        if tasks % 1000 == 0:
            a, b = f"A{forks}", f"B{forks}"
            forks += 1
            for s in ["M|begin", f"M|fork({a},{b})", f"{a}|w(x{a})", f"{b}|w(x{b})",
                      f"{a}|benter(bar)", f"{b}|benter(bar)", f"{a}|bexit(bar)", "M|end",
                      f"{b}|bexit(bar)", f"{a}|r(x{b})", f"{b}|r(x{a})", f"M|join({a},{b})"]:
                line(s)
        if tasks % 7 == 0: # a result of w's finished blocks (a race, but serializable)
            line(f"R|r(res{w}_{rng.randrange(16)})")
    for s in pending[w].pop(0):
        line(s)
for w in workers:
    for step in pending[w]:
        for s in step:
            line(s)
out.write("\n".join(buf) + "\n")
out.close()
print(f"trace: {n} events, {tasks} tasks, {forks} forking blocks", file=sys.stderr)
EOF

run() { # analysis -> "cpu_seconds peak_kb" in $dir/$1
    /usr/bin/time -f "%U %S %M" -o "$dir/time" "$sfgc" trace "$trace" --analysis "$1" --threads 1 \
        >"$dir/out" 2>&1 || [ $? = 1 ] || { cat "$dir/out"; exit 1; } # 1: findings (races)
    tail -1 "$dir/out"
    # (GNU time puts "Command exited with non-zero status" first.)
    tail -1 "$dir/time" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }' >"$dir/$1"
}
run fasttrack
run singletrack
run eraser # a cheap analysis: the reading floor, roughly
read -r ft_cpu ft_kb <"$dir/fasttrack"
read -r st_cpu st_kb <"$dir/singletrack"
read -r rd_cpu rd_kb <"$dir/eraser"
n=$(grep -cv '^#' "$trace")
awk -v n="$n" -v fc="$ft_cpu" -v fk="$ft_kb" -v sc="$st_cpu" -v sk="$st_kb" -v rc="$rd_cpu" '
BEGIN {
    printf "events %d\n", n
    printf "fasttrack:   %.2f s CPU, %.0f ns/event, peak RSS %.1f MB\n", fc, fc / n * 1e9, fk / 1024
    printf "singletrack: %.2f s CPU, %.0f ns/event, peak RSS %.1f MB\n", sc, sc / n * 1e9, sk / 1024
    printf "eraser (floor-ish): %.2f s CPU\n", rc
    printf "singletrack / fasttrack: time %.2f, memory %.2f\n", sc / fc, sk / fk
}'
