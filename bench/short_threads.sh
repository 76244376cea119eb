#!/usr/bin/env bash
# Cost of short-lived threads (docs/traces.md, "Cost"): a pool that forks and joins one worker per
# task -- one worker alive at a time beside main -- against the same tasks done by 8 long-lived
# workers, with the same number of events. Each task: the worker takes the queue lock q a few
# times to update a shared total, and writes and reads a result of its own; main reads the result
# after the task (after the join, or after a handshake on q). Reports, per analysis, CPU seconds
# and peak RSS of `sfgc trace` on both traces, and their ratios (median and range over runs).
#
# Then the same in the live runtime (bench/live/pool.cpp, beside build/bench/live_pool): a
# sfg::thread per task against 8 long-lived sfg::threads, plain (SFG_DISABLE) and with each
# analysis; wall-clock seconds (the program's own) and peak RSS.
#
# Usage: bench/short_threads.sh [SFGC [TASKS [RUNS [ANALYSES]]]]
#   defaults: build/sfgc/sfgc, 60000, 7, "hb fasttrack goldilocks singletrack eraser"
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sfgc=${1:-$root/build/sfgc/sfgc}
tasks=${2:-60000}
runs=${3:-7}
analyses=${4:-hb fasttrack goldilocks singletrack eraser}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

python3 - "$dir" "$tasks" <<'PY'
import sys
d, tasks = sys.argv[1], int(sys.argv[2])
# Names of one width in both traces, so that they cost the same to read.
def task(w, i, out):
    for k in range(7):
        out += [f"{w}|acq(q)", f"{w}|r(total)", f"{w}|w(total)", f"{w}|rel(q)"]
    out += [f"{w}|w(res{i % 64:02})", f"{w}|r(res{i % 64:02})"]
short, pool = [], []
pool.append("main|fork(" + ",".join(f"W{k:06}" for k in range(8)) + ")")
for i in range(tasks):
    # A worker of its own: fork, the task, three local writes and reads, join, main reads.
    w = f"T{i:06}"
    short.append(f"main|fork({w})")
    task(w, i, short)
    for k in range(3):
        short += [f"{w}|w(loc{k})", f"{w}|r(loc{k})"]
    short += [f"main|join({w})", f"main|r(res{i % 64:02})"]
    # One of 8 workers: main hands the task over through h, the worker hands the result back
    # through r.
    p = f"W{i % 8:06}"
    pool += ["main|acq(h)", "main|rel(h)", f"{p}|acq(h)", f"{p}|rel(h)"]
    task(p, i, pool)
    pool += [f"{p}|acq(r)", f"{p}|rel(r)", "main|acq(r)", f"main|r(res{i % 64:02})", "main|rel(r)"]
pool.append("main|join(" + ",".join(f"W{k:06}" for k in range(8)) + ")")
open(f"{d}/short.std", "w").write("\n".join(short) + "\n")
open(f"{d}/pool.std", "w").write("\n".join(pool) + "\n")
print(f"short-lived: {len(short)} events, {tasks + 1} threads; pool: {len(pool)} events, 9 threads",
      file=sys.stderr)
PY

python3 - "$sfgc" "$dir" "$runs" $analyses <<'PY'
# Each analysis: the two traces in turn, `runs` times; CPU time (user + system) and peak RSS of
# each run from wait4, the ratio short-lived / 8 workers of each pair, then the median ratio and
# its range.
import os, statistics, subprocess, sys
sfgc, d, runs, analyses = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
# Peak RSS through GNU time: a child of this Python process would count the interpreter's pages.
def run(trace, analysis):
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", f"{d}/rss", sfgc, "trace",
                          f"{d}/{trace}.std", "--analysis", analysis, "--threads", "1"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        return None # refused (the memory limit) or failed
    rss = int(open(f"{d}/rss").read().split()[-1])
    return ru.ru_utime + ru.ru_stime, rss / 1024
print(f"{'analysis':12} {'short-lived s':>13} {'MiB':>6} {'8 workers s':>12} {'MiB':>6}"
      f"   time ratio (range)     memory ratio (range)")
for a in analyses:
    pairs = []
    for _ in range(runs):
        s, p = run("short", a), run("pool", a)
        if s is None:
            pairs = None
            break
        pairs.append((s, p))
    if pairs is None:
        print(f"{a:12} {'refused':>13}")
        continue
    med = lambda xs: statistics.median(xs)
    tr = [s[0] / p[0] for s, p in pairs]
    mr = [s[1] / p[1] for s, p in pairs]
    print(f"{a:12} {med([s[0] for s, _ in pairs]):13.3f} {med([s[1] for s, _ in pairs]):6.1f}"
          f" {med([p[0] for _, p in pairs]):12.3f} {med([p[1] for _, p in pairs]):6.1f}"
          f"   {med(tr):5.2f} ({min(tr):.2f}-{max(tr):.2f})    {med(mr):5.2f} ({min(mr):.2f}-{max(mr):.2f})")
PY

bench=$(dirname "$sfgc")/../bench
[ -x "$bench/live_pool" ] || exit 0
echo
echo "live (bench/live/pool.cpp, $tasks tasks)"
python3 - "$bench" "$tasks" "$runs" plain "" $analyses <<'PY'
import os, statistics, subprocess, sys
bench, tasks, runs, variants = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
rss_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"sfg_live_rss_{os.getpid()}")
def run(mode, analysis):
    exe = f"{bench}/live_pool_plain" if analysis == "plain" else f"{bench}/live_pool"
    env = dict(os.environ, SFG_OPTIONS=f"analyses={analysis}:policy=collect")
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, exe, mode, tasks],
                       stdout=subprocess.PIPE, env=env)
    if p.returncode != 0:
        return None
    rss = int(open(rss_file).read().split()[-1])
    return float(p.stdout), rss / 1024
print(f"{'analyses':12} {'short-lived s':>13} {'MiB':>6} {'8 workers s':>12} {'MiB':>6}"
      f"   time ratio (range)     memory ratio (range)")
for a in variants:
    pairs = []
    for _ in range(runs):
        s, p = run("short", a), run("pool", a)
        if s is None or p is None:
            pairs = None
            break
        pairs.append((s, p))
    name = a if a else "(none)"
    if pairs is None:
        print(f"{name:12} {'failed':>13}")
        continue
    med = statistics.median
    tr = [s[0] / p[0] for s, p in pairs]
    mr = [s[1] / p[1] for s, p in pairs]
    print(f"{name:12} {med([s[0] for s, _ in pairs]):13.3f} {med([s[1] for s, _ in pairs]):6.1f}"
          f" {med([p[0] for _, p in pairs]):12.3f} {med([p[1] for _, p in pairs]):6.1f}"
          f"   {med(tr):5.2f} ({min(tr):.2f}-{max(tr):.2f})    {med(mr):5.2f} ({min(mr):.2f}-{max(mr):.2f})")
PY
