#!/usr/bin/env bash
# Cost of a LOCK mode (docs/enforcement.md, "LOCK modes"; thesis §5.2) against the discipline
# closest to it in the thesis' chapter 4, [EX(t0) ⊔ ... ⊔ EX(t7)]^m: the same trace enforced
# against each. Eight threads take lock m in a random order; inside, each reads and writes a few
# of VARS variables; every variable is LOCK(m: t0..t7) in one spec and [⊔ EX(t)]^m in the other,
# and both admit the trace. Two pairs: the variables' whole discipline (`var x : LOCK(m: T);`,
# a net without transitions), and the same in a phase after main forks the threads
# (`EX(main) ▷^fork LOCK(m: T)` against `EX(main) ▷^fork [⊔ EX(t)]^m`, the trace preceded by
# the fork). Reports CPU seconds (user + system) of `sfgc trace --analysis enforce` for each spec,
# ns per event, and the ratio LOCK / [⊔ EX]^m of each pair of runs: median and range.
#
# Usage: bench/lock_mode.sh [SFGC [EVENTS [RUNS [VARS]]]]
#   defaults: build/sfgc/sfgc, 10000000, 7, 16
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
events=${2:-10000000}
runs=${3:-7}
vars=${4:-16}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$events" "$vars" <<'PY'
import random, sys
d, target, nvars = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
threads = [f"t{i}" for i in range(8)]
head = f"threads {', '.join(threads)};\nlock m;\n"
names = ", ".join(threads)
ex = " ⊔ ".join(f"EX({t})" for t in threads)
with open(f"{d}/lock.sfg", "w") as f:
    f.write(head + "".join(f"var x{k} : LOCK(m: {names});\n" for k in range(nvars)))
with open(f"{d}/ex.sfg", "w") as f:
    f.write(head + "".join(f"var x{k} : [{ex}]^m;\n" for k in range(nvars)))
phase = f"threads main, {names};\nlock m;\n"
with open(f"{d}/lock_phase.sfg", "w") as f:
    f.write(phase + "".join(f"var x{k} : EX(main) ▷^fork LOCK(m: {names});\n"
                            for k in range(nvars)))
with open(f"{d}/ex_phase.sfg", "w") as f:
    f.write(phase + "".join(f"var x{k} : EX(main) ▷^fork [{ex}]^m;\n" for k in range(nvars)))
rng = random.Random(7)
n = 0
with open(f"{d}/trace.std", "w") as out:
    buf = []
    while n < target:
        t = rng.choice(threads)
        buf.append(f"{t}|acq(m)")
        for _ in range(3):
            x = f"x{rng.randrange(nvars)}"
            buf += [f"{t}|r({x})", f"{t}|w({x})"]
        buf.append(f"{t}|rel(m)")
        n += 8
        if len(buf) >= 100000:
            out.write("\n".join(buf) + "\n")
            buf.clear()
    out.write("\n".join(buf) + "\n")
with open(f"{d}/phase.std", "w") as out, open(f"{d}/trace.std") as body:
    out.write(f"main|fork({','.join(threads)})\n")
    for chunk in iter(lambda: body.read(1 << 20), ""):
        out.write(chunk)
print(f"{n} events, 8 threads, {nvars} variables", file=sys.stderr)
PY

python3 - "$sfgc" "$dir" "$runs" <<'PY'
import os, statistics, subprocess, sys
sfgc, d, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
events = sum(1 for _ in open(f"{d}/trace.std"))
def run(trace, spec):
    p = subprocess.Popen([sfgc, "trace", f"{d}/{trace}.std", "--spec", f"{d}/{spec}.sfg",
                          "--analysis", "enforce"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"sfgc trace with {spec}.sfg did not admit the trace: {p.stderr.read().decode()}")
    return ru.ru_utime + ru.ru_stime
cases = [("the whole discipline", "trace", "lock", "ex"),
         ("in a phase after a fork", "phase", "lock_phase", "ex_phase")]
times = {c[0]: [] for c in cases}
for _ in range(runs): # interleaved, so that every spec sees the same machine
    for name, trace, lock, ex in cases:
        times[name].append((run(trace, lock), run(trace, ex)))
med = statistics.median
print(f"{'case':24} {'spec':8} {'CPU s':>7} {'ns/event':>9}")
for name, *_ in cases:
    pairs = times[name]
    lock, ex = [p[0] for p in pairs], [p[1] for p in pairs]
    ratios = [a / b for a, b in pairs]
    print(f"{name:24} {'LOCK':8} {med(lock):7.3f} {med(lock) / events * 1e9:9.1f}")
    print(f"{name:24} {'[⊔ EX]^m':8} {med(ex):7.3f} {med(ex) / events * 1e9:9.1f}")
    print(f"{name:24} ratio LOCK / [⊔ EX]^m: {med(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}), {runs} runs")
PY
