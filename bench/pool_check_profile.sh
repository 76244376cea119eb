#!/usr/bin/env bash
# The enforcer's CPU ns per event inside `sfgc check --mode random --jobs 1` of a thread pool, by
# sampling: n workers forked by main, each `acq m; let a = x; x = a + 1; rel m;`, under
# `var x : EX(main) ▷^fork [EX(each W)]^m;` (programs as bench/pool.sh writes them; an execution
# has 6n + 2 events: main's write and fork, each worker's start, acq, r, w, rel and exit).
#
# Method: `perf record -e cpu-clock -c PERIOD` (a sample every PERIOD ns of the process's CPU
# time, user and kernel), one run per size and round, the sizes' order rotated round by round so
# that a slow stretch of a shared machine falls on each; the enforcer's time is its samples times
# PERIOD, divided by executions x (6n + 2). The ratio to the first size is taken round by round.
# `--jobs 1`: two explorations at once share the caches, which costs 1,024 workers' enforcer
# 10-20% and 8 workers' nothing (one reason two earlier counts by hand disagreed; the other, too
# few samples at 8 workers: bench/README.md, "thread pools").
# Executions: 100,000 up to 16 workers, 1,000 up to 256, 200 past (each run 1.5 to 3.5 s; at 8
# workers about 1,800 of the enforcer's samples, so that the ratios' denominator is not the
# sampling's noise; 650 at 256, 1,100 at 1,024). The enforcer's setup (nets, index, groups;
# once a run, a few ms at 1,024 workers) is included, spread over the run's executions.
#
# Which samples are the enforcer's: those whose own symbol (perf's `sym`, demangled, parameters
# and template arguments included) contains `sfg::enforce::` (runtime/src/enforce: the index,
# the one-token groups, the candidate markings and colours, the name resolver, and the standard
# containers of their types) or `Enforce` (sfg::Enforcer and its Impl, EnforceViolation, the
# registry's EnforceAnalysis that the checker resets and asks for findings every execution).
# The checker has no other code for enforcement: its events reach the enforcer through the Fanout
# every analysis shares. Samples in code the enforcer calls but does not own (malloc, memmove,
# the kernel's page faults) are not counted: without call chains (the Release build has no frame
# pointers) they cannot be told from the interpreter's.
#
# Usage: bench/pool_check_profile.sh [SFGC [ROUNDS [SIZES [PERIOD]]]]
#   defaults: build-rel/sfgc/sfgc, 5, "8 256 1024", 100000 (ns: 10 kHz)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build-rel/sfgc/sfgc}
rounds=${2:-5}
sizes=${3:-8 256 1024}
period=${4:-100000}
command -v perf >/dev/null || { echo "pool_check_profile.sh: needs perf" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$sfgc" "$dir" "$rounds" "$period" $sizes <<'PY'
import os, re, statistics, subprocess, sys
sfgc, d, rounds, period = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sizes = [int(n) for n in sys.argv[5:]]
for n in sizes:
    ws = [f"w{i}" for i in range(n)]
    body = "program pool {\n" + "".join(
        f"  thread {w} {{ acq m; let a = x; x = a + 1; rel m; }}\n" for w in ws) + \
        f"  thread main {{ x = 0; fork {', '.join(ws)}; }}\n}}\n"
    with open(f"{d}/check_ex{n}.sfg", "w") as f:
        f.write(f"threads main, {', '.join(ws)};\nlock m;\ngroup W = {', '.join(ws)};\n"
                "var x : EX(main) ▷^fork [EX(each W)]^m;\n" + body)
execs = lambda n: 100000 if n <= 16 else 1000 if n <= 256 else 200
enforcer = re.compile(r"sfg::enforce::|Enforce")

def profile(n):
    """Samples in the enforcer's symbols, all samples, and the enforcer's symbols by samples."""
    data = f"{d}/perf{n}.data"
    run = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", str(period), "-o", data,
                          "--", sfgc, "check", f"{d}/check_ex{n}.sfg", "--mode", "random",
                          "--jobs", "1", "--max-executions", str(execs(n))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0 or "no findings" not in run.stdout:
        sys.exit(f"sfgc check of {n} workers: {run.stdout}{run.stderr}")
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort",
                             "sym", "-F", "sample,sym", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            check=True).stdout
    mine, total, top = 0, 0, {}
    for line in report.splitlines():
        m = re.match(r"\s*(\d+)\s+\[[.k]\]\s+(.*)", line)
        if not m:
            continue
        count, sym = int(m.group(1)), m.group(2).strip()
        total += count
        if enforcer.search(sym):
            mine += count
            top[sym] = top.get(sym, 0) + count
    os.remove(data)
    return mine, total, top

def load():
    return open("/proc/loadavg").read().split()[0]

med = statistics.median
span = lambda xs, f: f"{f.format(med(xs))} ({f.format(min(xs))}-{f.format(max(xs))})"
ns = {n: [] for n in sizes}
share = {n: [] for n in sizes}
last_top = {}
print(f"period {period} ns, executions {', '.join(f'{execs(n)} at {n}' for n in sizes)}; "
      f"load {load()}")
for r in range(rounds):
    order = sizes[r % len(sizes):] + sizes[:r % len(sizes)]
    for n in order:
        mine, total, top = profile(n)
        ns[n].append(mine * period / (execs(n) * (6 * n + 2)))
        share[n].append(mine / total)
        last_top[n] = top
    print(f"round {r + 1} (load {load()}): " + ", ".join(
        f"{n}: {ns[n][-1]:.1f} ns/event ({ns[n][-1] / ns[sizes[0]][-1]:.2f}x)" for n in sizes))
print(f"{'workers':>8} {'enforcer ns/event':>24} {'ratio to ' + str(sizes[0]):>22} "
      f"{'enforcer share of run':>24}")
for n in sizes:
    ratios = [a / b for a, b in zip(ns[n], ns[sizes[0]])]
    print(f"{n:>8} {span(ns[n], '{:.1f}'):>24} {span(ratios, '{:.2f}'):>22} "
          f"{span([100 * s for s in share[n]], '{:.1f}%'):>24}")
n = sizes[-1]
mine = sum(last_top[n].values())
print(f"the enforcer's symbols at {n} workers, last round, share of its samples:")
for sym, count in sorted(last_top[n].items(), key=lambda kv: -kv[1])[:12]:
    print(f"  {100 * count / mine:5.1f}%  {sym[:150]}")
PY
