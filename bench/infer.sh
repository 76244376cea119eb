#!/usr/bin/env bash
# Time and peak memory of `sfgc infer` beside `sfgc trace --analysis fasttrack` on one long trace
# (docs/infer.md): main initialises two variables and forks 8 workers, which then, in a random
# order, update four variables under four locks, read the configuration and write their own
# variable, or add to a total under its lock; main joins them and reads the total. Both commands
# read on one thread (--threads 1), alternately, ROUNDS times; per round the ratios infer /
# fasttrack of CPU time (user + system) and of peak RSS. Prints each side's median and
# the ratios as "median (min-max)".
#
# Usage: bench/infer.sh [SFGC [EVENTS [ROUNDS]]]   (defaults: build/sfgc/sfgc, 10000000, 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
events=${2:-10000000}
rounds=${3:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir/big.std" "$events" <<'PY'
import random, sys
path, target = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
workers = [f"W{i}" for i in range(8)]
with open(path, "w") as out:
    lines = ["main|w(config)", "main|w(total)", "main|fork(" + ",".join(workers) + ")"]
    n = len(lines)
    while n < target:
        w = rng.choice(workers)
        r = rng.randrange(10)
        if r < 5:
            k = rng.randrange(4)
            lines += [f"{w}|acq(m{k})", f"{w}|r(v{k})", f"{w}|w(v{k})", f"{w}|rel(m{k})"]
            n += 4
        elif r < 8:
            lines += [f"{w}|r(config)", f"{w}|w(local_{w})"]
            n += 2
        else:
            lines += [f"{w}|acq(t)", f"{w}|w(total)", f"{w}|rel(t)"]
            n += 3
        if len(lines) >= 100000:
            out.write("\n".join(lines) + "\n")
            lines.clear()
    lines += ["main|join(" + ",".join(workers) + ")", "main|r(total)"]
    out.write("\n".join(lines) + "\n")
PY

# The child's own rusage (wait4): microseconds, where GNU time's %U and %S count hundredths, a
# few percent of a 0.3 s run.
measure() { # command... -> "cpu_seconds peak_kb"
    python3 - "$dir/out" "$@" <<'PY' || { cat "$dir/out"; exit 1; }
import os, sys
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
pid = os.fork()
if pid == 0:
    os.dup2(out, 1), os.dup2(out, 2)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, ru = os.wait4(pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(1)
print(f"{ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss}")
PY
}

: >"$dir/rows"
for ((i = 0; i < rounds; i++)); do
    read -r fc fk < <(measure "$sfgc" trace "$dir/big.std" --analysis fasttrack --threads 1)
    read -r ic ik < <(measure "$sfgc" infer "$dir/big.std" --threads 1 -o "$dir/out.sfg")
    echo "$fc $fk $ic $ik" >>"$dir/rows"
done
grep '^var' "$dir/out.sfg" | sed 's/^/  /'
python3 - "$dir/rows" "$events" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def span(xs):
    return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})"
fc = [r[0] for r in rows]; fk = [r[1] / 1024 for r in rows]
ic = [r[2] for r in rows]; ik = [r[3] / 1024 for r in rows]
print(f"events {int(sys.argv[2])}, {len(rows)} rounds")
print(f"  fasttrack: CPU {span(fc)} s, peak RSS {span(fk)} MiB")
print(f"  infer:     CPU {span(ic)} s, peak RSS {span(ik)} MiB")
print(f"  infer / fasttrack: time {span([i / f for i, f in zip(ic, fc)])}, "
      f"memory {span([i / f for i, f in zip(ik, fk)])}")
PY
