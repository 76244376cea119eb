#!/usr/bin/env bash
# `sfgc check --jobs 1` against `--jobs J` on programs of 10^5 executions and more
# (docs/programs.md, "More than one core"). See bench/README.md.
#
#   bench/check_jobs.sh [PROGRAM.sfg ...]    # default: generated counter_5x2, racy_4x2, counter_4x3
#
# Environment: SFGC (default $SFG_BUILD_DIR/sfgc/sfgc, SFG_BUILD_DIR default build-rel), RUNS
# (runs of each configuration, interleaved 1, J, 1, J, ...; default 7), JOBS (J, default 2).
# Prints wall-clock ms per configuration (median, min, max over the runs), the speedup of the
# medians and the spread of the run-by-run ratios, and checks that the reports are identical.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SFG_BUILD_DIR:-$root/build-rel}
case $build in /*) ;; *) build=$root/$build ;; esac
sfgc=${SFGC:-$build/sfgc/sfgc}
runs=${RUNS:-7}
jobs=${JOBS:-2}
command -v "$sfgc" >/dev/null || { echo "check_jobs: $sfgc not found" >&2; exit 2; }
work=$(mktemp -d /tmp/sfg-check-jobs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# main forks N workers that each add 1 to x under lock m, K times (or, for w0, without it).
gen() {
    local name=$1 n=$2 k=$3 racy=$4 ts="" i
    for ((i = 0; i < n; i++)); do ts+="${ts:+, }w$i"; done
    echo "threads main, $ts;"
    echo "lock m;"
    echo "var x, y : [EX(main) ⊔ EX(w0)]^m;"
    echo "program ${name} {"
    echo "  thread main { fork $ts; join $ts; assert x == $((n * k)); }"
    for ((i = 0; i < n; i++)); do
        if [ "$racy" = 1 ] && [ $i = 0 ]; then
            echo "  thread w$i { repeat $k { let t = x; x = t + 1; } acq m; y = 1; rel m; }"
        else
            echo "  thread w$i { repeat $k { acq m; let t = x; x = t + 1; rel m; } }"
        fi
    done
    echo "}"
}

if [ $# -gt 0 ]; then
    programs=("$@")
else
    gen counter_5x2 5 2 0 >"$work/counter_5x2.sfg"
    gen racy_4x2 4 2 1 >"$work/racy_4x2.sfg"
    gen counter_4x3 4 3 0 >"$work/counter_4x3.sfg"
    programs=("$work/counter_5x2.sfg" "$work/racy_4x2.sfg" "$work/counter_4x3.sfg")
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }
run_ms() { # JOBS OUT FILE -> ms
    local t0 t1 rc=0
    t0=$(now_ms)
    "$sfgc" check "$3" --jobs "$1" >"$2" 2>/dev/null || rc=$?
    t1=$(now_ms)
    [ $rc -le 1 ] || { echo "check_jobs: sfgc failed on $3" >&2; exit 2; }
    echo $((t1 - t0))
}
stats() { # numbers... -> "median min max"
    printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END {
        m = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
        printf "%g %g %g", m, a[1], a[NR] }'
}

printf '| program | executions | --jobs 1 ms (median, min-max) | --jobs %s ms | speedup (medians) | ratios min-max |\n' "$jobs"
printf '|---|---:|---:|---:|---:|---:|\n'
for f in "${programs[@]}"; do
    name=$(basename "$f" .sfg)
    one=() many=() ratios=()
    for ((i = 0; i < runs; i++)); do
        a=$(run_ms 1 "$work/one.out" "$f")
        b=$(run_ms "$jobs" "$work/many.out" "$f")
        cmp -s "$work/one.out" "$work/many.out" || { echo "check_jobs: $name: reports differ" >&2; exit 1; }
        one+=("$a") many+=("$b")
        ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')")
    done
    read -r m1 lo1 hi1 <<<"$(stats "${one[@]}")"
    read -r m2 lo2 hi2 <<<"$(stats "${many[@]}")"
    read -r _ rlo rhi <<<"$(stats "${ratios[@]}")"
    execs=$(head -1 "$work/one.out" | sed 's/.*: \([0-9]*\) executions.*/\1/')
    printf '| %s | %s | %s (%s-%s) | %s (%s-%s) | %.2f | %s-%s |\n' "$name" "$execs" "$m1" "$lo1" \
        "$hi1" "$m2" "$lo2" "$hi2" "$(awk -v a="$m1" -v b="$m2" 'BEGIN { print a / b }')" "$rlo" "$rhi"
done
