#!/usr/bin/env bash
# Peak memory and time of `sfgc trace --analysis goldilocks` beside `--analysis fasttrack` on one
# long trace in which variables are left alone for good (docs/traces.md, "goldilocks"): main forks
# 8 workers; each writes its own counter once, then the workers loop on variables protected by
# four locks (acq, read, write, rel), in a random order. Goldilocks' list of sync events would be
# pinned by the counters' locksets from their only write onward; the catch-ups re-anchor them.
# Reports CPU seconds, peak RSS (GNU time) and the ratios, for each trace length given.
#
# Usage: bench/goldilocks_memory.sh [SFGC [EVENTS...]]   (defaults: build/sfgc/sfgc, 1000000 8000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000000 8000000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

run() { # trace analysis -> "cpu_seconds peak_kb"
    /usr/bin/time -f "%U %S %M" -o "$dir/time" "$sfgc" trace "$1" --analysis "$2" --threads 1 \
        >"$dir/out" 2>&1 || { cat "$dir/out"; exit 1; }
    tail -1 "$dir/time" | awk '{ printf "%.3f %d\n", $1 + $2, $3 }'
}

for events in "${sizes[@]}"; do
    trace=$dir/counters_$events.std
    python3 - "$trace" "$events" <<'PY'
import random, sys
path, target = sys.argv[1], int(sys.argv[2])
rng = random.Random(23)
workers = [f"W{i}" for i in range(8)]
lines = ["main|fork(" + ",".join(workers) + ")"]
for w in workers:
    lines.append(f"{w}|w(counter_{w})")
with open(path, "w") as out:
    n = len(lines)
    while n < target:
        w = rng.choice(workers)
        k = rng.randrange(4)
        lines += [f"{w}|acq(m{k})", f"{w}|r(v{k})", f"{w}|w(v{k})", f"{w}|rel(m{k})"]
        n += 4
        if len(lines) >= 100000:
            out.write("\n".join(lines) + "\n")
            lines.clear()
    out.write("\n".join(lines) + "\n")
PY
    read -r ft_cpu ft_kb < <(run "$trace" fasttrack)
    read -r gl_cpu gl_kb < <(run "$trace" goldilocks)
    read -r hb_cpu hb_kb < <(run "$trace" hb)
    awk -v n="$events" -v fc="$ft_cpu" -v fk="$ft_kb" -v gc="$gl_cpu" -v gk="$gl_kb" \
        -v hc="$hb_cpu" -v hk="$hb_kb" 'BEGIN {
        printf "events %d\n", n
        printf "  fasttrack:  %.2f s CPU, peak RSS %.1f MiB\n", fc, fk / 1024
        printf "  hb:         %.2f s CPU, peak RSS %.1f MiB\n", hc, hk / 1024
        printf "  goldilocks: %.2f s CPU, peak RSS %.1f MiB\n", gc, gk / 1024
        printf "  goldilocks / fasttrack: memory %.2f, time %.2f\n", gk / fk, gc / fc
    }'
done
