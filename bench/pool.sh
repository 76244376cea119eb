#!/usr/bin/env bash
# A thread pool under the lock discipline written for it (docs/enforcement.md, "Thread pools"):
# workers w0..w(n-1) in a group W, each round one of them (at random, seeded) takes lock m and
# writes x, `var x : [EX(each W)]^m;` against `var x : LOCK(m: W);`. For each pool size, CPU
# seconds (user + system) of `sfgc trace --analysis enforce`, median and range of RUNS runs, and
# of the same on a trace of one round (reading the spec and compiling its n^2 edges, past 64
# workers one edge family); ns per event of the difference. Then `sfgc check --mode random` of a
# program of n such workers forked by main for each n of CHECK_SIZES (10,000 executions up to 16
# workers, where the enforcer's part is a few µs an execution, 1,000 up to 256, 100 past), with
# each discipline and without one: ms per execution, and the enforcer's ns per event (with the
# discipline less without, over the execution's 6n + 2 events) and its ratio to the first
# size's, run by run, median (min-max); the difference of two runs is the load's as much as the
# enforcer's, which bench/pool_check_profile.sh measures by sampling. Last, the barrier
# discipline over the pool, `var x : [RS(W) ▷^b EX(w0)]^b;` with `barrier b(W);`: rounds in
# which every worker reads x, all pass b, w0 writes x, all pass b again (`sfgc trace --analysis
# enforce` on EVENTS events, less one round, as above).
#
# Usage: bench/pool.sh [SFGC [EVENTS [RUNS [SIZES [CHECK_SIZES]]]]]
#   defaults: build/sfgc/sfgc, 1000000, 3, "8 64 65 256 1024", "8 100 256 1024"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
events=${2:-1000000}
runs=${3:-3}
sizes=${4:-8 64 65 256 1024}
check_sizes=${5:-8 100 256 1024}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$events" "$check_sizes" $sizes <<'PY'
import random, sys
d, events, sizes = sys.argv[1], int(sys.argv[2]), [int(n) for n in sys.argv[4:]]
check_sizes = [int(n) for n in sys.argv[3].split()]
def head(ws):
    return f"threads main, {', '.join(ws)};\nlock m;\ngroup W = {', '.join(ws)};\n"
for n in sizes:
    ws = [f"w{i}" for i in range(n)]
    for name, disc in (("ex", "[EX(each W)]^m"), ("lock", "LOCK(m: W)")):
        with open(f"{d}/{name}{n}.sfg", "w") as f:
            f.write(head(ws) + f"var x : {disc};\n")
    with open(f"{d}/bar{n}.sfg", "w") as f:
        f.write(head(ws) + "barrier b(W);\nvar x : [RS(W) ▷^b EX(w0)]^b;\n")
    def barrier_round():
        passes = [f"{w}|benter(b)" for w in ws] + [f"{w}|bexit(b)" for w in ws]
        return [f"{w}|r(x)" for w in ws] + passes + ["w0|w(x)"] + passes
    with open(f"{d}/bar_one{n}.std", "w") as f:
        f.write("\n".join(barrier_round()) + "\n")
    with open(f"{d}/bar_pool{n}.std", "w") as f:
        one = barrier_round()
        f.write("\n".join(one * max(1, events // len(one))) + "\n")
    rng = random.Random(7)
    with open(f"{d}/one{n}.std", "w") as f:
        f.write("w0|acq(m)\nw0|w(x)\nw0|rel(m)\n")
    with open(f"{d}/pool{n}.std", "w") as f:
        lines = []
        for _ in range(events // 3):
            t = rng.choice(ws)
            lines += [f"{t}|acq(m)", f"{t}|w(x)", f"{t}|rel(m)"]
        f.write("\n".join(lines) + "\n")
for n in check_sizes:
    ws = [f"w{i}" for i in range(n)]
    body = "program pool {\n" + "".join(
        f"  thread {w} {{ acq m; let a = x; x = a + 1; rel m; }}\n" for w in ws) + \
        f"  thread main {{ x = 0; fork {', '.join(ws)}; }}\n}}\n"
    for name, disc in (("ex", " : EX(main) ▷^fork [EX(each W)]^m"),
                       ("lock", " : EX(main) ▷^fork LOCK(m: W)"), ("none", "")):
        with open(f"{d}/check_{name}{n}.sfg", "w") as f:
            f.write(head(ws) + f"var x{disc};\n" + body)
PY

python3 - "$sfgc" "$dir" "$runs" "$check_sizes" $sizes <<'PY'
import os, statistics, subprocess, sys
sfgc, d, runs, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[5:]
check_sizes = [int(n) for n in sys.argv[4].split()]
def cpu(args):
    p = subprocess.Popen([sfgc] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"sfgc {' '.join(args)} failed: {p.stderr.read().decode()}")
    return ru.ru_utime + ru.ru_stime
med = statistics.median
span = lambda ts: f"{med(ts):7.3f} s ({min(ts):.3f}-{max(ts):.3f})"
print(f"{'workers, discipline':26} {'sfgc trace':>24} {'one round':>24} {'ns/event':>9}")
for n in sizes:
    trace = f"{d}/pool{n}.std"
    events = sum(1 for _ in open(trace))
    for name in ("ex", "lock"):
        spec = ["--spec", f"{d}/{name}{n}.sfg", "--analysis", "enforce"]
        full = [cpu(["trace", trace] + spec) for _ in range(runs)]
        one = [cpu(["trace", f"{d}/one{n}.std"] + spec) for _ in range(runs)]
        label = f"{n} {'[EX(each W)]^m' if name == 'ex' else 'LOCK(m: W)'}"
        print(f"{label:26} {span(full):>24} {span(one):>24} "
              f"{(med(full) - med(one)) / events * 1e9:9.1f}")
# Every size and discipline interleaved, run by run, so that a slow stretch of a shared machine
# falls on each; the enforcer's ns per event is taken run by run (with less without), and its
# ratio to the first size's in the same run.
names = ("none", "ex", "lock")
execs = lambda n: 10000 if n <= 16 else 1000 if n <= 256 else 100
times = {(n, name): [] for n in check_sizes for name in names}
for _ in range(runs):
    for n in check_sizes:
        for name in names:
            times[n, name].append(cpu(["check", f"{d}/check_{name}{n}.sfg", "--mode", "random",
                                       "--max-executions", str(execs(n))]))
print(f"{'sfgc check, workers':26} {'executions':>24} {'ms/execution':>13} "
      f"{'enforcer ns/event':>24} {'ratio to ' + str(check_sizes[0]):>20}")
for n in check_sizes:
    for name in names:
        label = f"{n} " + {"ex": "[EX(each W)]^m", "lock": "LOCK(m: W)",
                           "none": "no discipline"}[name]
        cost = lambda m: [(a - b) / execs(m) / (6 * m + 2) * 1e9
                          for a, b in zip(times[m, name], times[m, "none"])]
        enforcer = ratio = ""
        if name != "none":
            enforcer = f"{med(cost(n)):.1f} ({min(cost(n)):.1f}-{max(cost(n)):.1f})"
            rs = [a / b for a, b in zip(cost(n), cost(check_sizes[0]))]
            ratio = f"{med(rs):.2f} ({min(rs):.2f}-{max(rs):.2f})"
        print(f"{label:26} {span(times[n, name]):>24} {med(times[n, name]) / execs(n) * 1e3:13.3f} "
              f"{enforcer:>24} {ratio:>20}")
print(f"{'barrier discipline, workers':26} {'sfgc trace':>24} {'one round':>24} {'ns/event':>9}")
for n in sizes:
    trace = f"{d}/bar_pool{n}.std"
    events = sum(1 for _ in open(trace))
    spec = ["--spec", f"{d}/bar{n}.sfg", "--analysis", "enforce"]
    full, one = [], []
    for _ in range(runs):
        full.append(cpu(["trace", trace] + spec))
        one.append(cpu(["trace", f"{d}/bar_one{n}.std"] + spec))
    label = f"{n} [RS(W) ▷^b EX(w0)]^b"
    print(f"{label:26} {span(full):>24} {span(one):>24} "
          f"{(med(full) - med(one)) / events * 1e9:9.1f}")
PY
