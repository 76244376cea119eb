#!/usr/bin/env bash
# A thread pool under the lock discipline written for it (docs/enforcement.md, "Thread pools"):
# workers w0..w(n-1) in a group W, each round one of them (at random, seeded) takes lock m and
# writes x, `var x : [EX(each W)]^m;` against `var x : LOCK(m: W);`. For each pool size, CPU
# seconds (user + system) of `sfgc trace --analysis enforce`, median and range of RUNS runs, and
# of the same on a trace of one round (reading the spec and compiling its n^2 edges); ns per
# event of the difference. Then `sfgc check --mode random` of a program of 100 such workers
# forked by main (1,000 executions), with each discipline and without one: ms per execution.
#
# Usage: bench/pool.sh [SFGC [EVENTS [RUNS [SIZES]]]]
#   defaults: build/sfgc/sfgc, 1000000, 3, "8 64 65 256"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
events=${2:-1000000}
runs=${3:-3}
sizes=${4:-8 64 65 256}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$events" $sizes <<'PY'
import random, sys
d, events, sizes = sys.argv[1], int(sys.argv[2]), [int(n) for n in sys.argv[3:]]
def head(ws):
    return f"threads main, {', '.join(ws)};\nlock m;\ngroup W = {', '.join(ws)};\n"
for n in sizes:
    ws = [f"w{i}" for i in range(n)]
    for name, disc in (("ex", "[EX(each W)]^m"), ("lock", "LOCK(m: W)")):
        with open(f"{d}/{name}{n}.sfg", "w") as f:
            f.write(head(ws) + f"var x : {disc};\n")
    rng = random.Random(7)
    with open(f"{d}/one{n}.std", "w") as f:
        f.write("w0|acq(m)\nw0|w(x)\nw0|rel(m)\n")
    with open(f"{d}/pool{n}.std", "w") as f:
        lines = []
        for _ in range(events // 3):
            t = rng.choice(ws)
            lines += [f"{t}|acq(m)", f"{t}|w(x)", f"{t}|rel(m)"]
        f.write("\n".join(lines) + "\n")
ws = [f"w{i}" for i in range(100)]
body = "program pool {\n" + "".join(
    f"  thread {w} {{ acq m; let a = x; x = a + 1; rel m; }}\n" for w in ws) + \
    f"  thread main {{ x = 0; fork {', '.join(ws)}; }}\n}}\n"
for name, disc in (("ex", " : EX(main) ▷^fork [EX(each W)]^m"),
                   ("lock", " : EX(main) ▷^fork LOCK(m: W)"), ("none", "")):
    with open(f"{d}/check_{name}.sfg", "w") as f:
        f.write(head(ws) + f"var x{disc};\n" + body)
PY

python3 - "$sfgc" "$dir" "$runs" $sizes <<'PY'
import os, statistics, subprocess, sys
sfgc, d, runs, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
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
print(f"{'sfgc check, 100 workers':26} {'1,000 executions':>24} {'ms/execution':>24}")
for name in ("ex", "lock", "none"):
    times = [cpu(["check", f"{d}/check_{name}.sfg", "--mode", "random", "--max-executions",
                  "1000"]) for _ in range(runs)]
    label = {"ex": "[EX(each W)]^m", "lock": "LOCK(m: W)", "none": "no discipline"}[name]
    print(f"{label:26} {span(times):>24} {med(times):24.3f}")
PY
