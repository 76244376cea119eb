#!/usr/bin/env bash
# sfg::explore against `sfgc check`, per execution, on the programs (bench/explore_programs.cpp):
# ROUNDS runs of the whole benchmark, one after the other (a program's check row, then its
# explore row), then a Markdown table: per program the executions, the median process CPU time
# of each row, and explore / check per execution taken round by round, "median (min–max)".
#
#   bench/explore_programs.sh [ROUNDS] [BENCHMARK FLAGS...]    # default 5 rounds
#
# Environment: SFG_BUILD_DIR (default build-rel: `SFG_BUILD_DIR=build-rel SFG_BUILD_TYPE=Release
# SFG_TARGET=bench_explore_programs scripts/build.sh`); REPS (default 1): repetitions of each row
# in a round, the round's time their median. The benchmark's notes (programs left out, two rows
# that do not agree) are printed on stderr.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SFG_BUILD_DIR:-$root/build-rel}
case $build in /*) ;; *) build=$root/$build ;; esac
bench=$build/bench/bench_explore_programs
case ${1:-} in -h | --help)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
[ -x "$bench" ] || { echo "explore_programs: $bench not built" >&2; exit 2; }
rounds=${1:-5}
shift $(($# > 0 ? 1 : 0))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "$(date -u '+%F %H:%M') UTC, $rounds rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for round in $(seq "$rounds"); do
    "$bench" --benchmark_out="$tmp/$round.json" --benchmark_out_format=json \
        --benchmark_repetitions="${REPS:-1}" "$@" \
        >/dev/null 2>"$tmp/$round.err"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
sort -u "$tmp"/*.err | grep '^explore_programs:' >&2 || true
python3 - "$tmp" "$rounds" <<'EOF'
import json, statistics, sys

tmp, rounds = sys.argv[1], int(sys.argv[2])
scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
# rows[program][kind] = [(ms, executions, classes) per round]
rows = {}
for r in range(1, rounds + 1):
    with open(f"{tmp}/{r}.json") as f:
        for b in json.load(f)["benchmarks"]:
            # With repetitions (REPS), a round's row is the median of its repetitions.
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            if b.get("run_type") == "iteration" and b.get("repetitions", 1) > 1:
                continue
            kind, program = b.get("run_name", b["name"]).split("/")[:2]
            ms = b["cpu_time"] * scale[b["time_unit"]]
            rows.setdefault(program, {}).setdefault(kind, []).append(
                (ms, int(b["executions"]), int(b["classes"])))


def fmt(x):
    return f"{x:.3g}" if x < 1000 else f"{x:.0f}"


def med(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 2]  # the lower median, as bench/ab.sh


print("| program | executions | classes | check ms | explore ms | explore / check per execution |")
print("|---|---:|---:|---:|---:|---|")
for program, kinds in rows.items():
    check, explore = kinds.get("check"), kinds.get("explore")
    if not check or not explore:
        continue
    ce, ee = check[0][1], explore[0][1]
    execs = f"{ce:,}" if ce == ee else f"{ce:,} (explore {ee:,})"
    cc, ec = check[0][2], explore[0][2]
    classes = f"{cc:,}" if cc == ec else f"{cc:,} (explore {ec:,})"
    ratios = [(e[0] / e[1]) / (c[0] / c[1]) for c, e in zip(check, explore)]
    print(f"| {program} | {execs} | {classes} | {fmt(med(c[0] for c in check))} | "
          f"{fmt(med(e[0] for e in explore))} | {med(ratios):.2f} "
          f"({min(ratios):.2f}–{max(ratios):.2f}) |")
EOF
