#!/usr/bin/env bash
# The live runtime's overhead (docs/enforcers.md, "Overhead"): bench/live/bank8.cpp (8 threads,
# nothing but synchronization) and bench/live/particles8.cpp (8 threads computing between
# barriers), N operations on annotated variables each (default 10^6), run plain, under
# ThreadSanitizer, and with the sfg runtime (enforce+hb+goldilocks, enforce alone, hb+goldilocks,
# no analysis); then each run's recorded trace through `sfgc trace` with the default analyses.
# Prints seconds (median of R runs, the variants interleaved) and the ratios to plain and to
# TSan.
# Usage: bench/live/run.sh [BUILD_DIR] [N] [R] [PROGRAMS...]
set -euo pipefail
build=${1:-build} n=${2:-1000000} runs=${3:-5}
shift $(($# < 3 ? $# : 3))
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(bank8 particles8)
bin=$build/bench sfgc=$build/sfgc/sfgc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The runs of the variants are interleaved, one of each per round, so that a slow stretch of a
# shared machine falls on all of them alike; each variant's time is the median of its runs.
t() { median <"$tmp/$1"; }
r() { echo "scale=2; $(t "$1") / $(t "$2")" | bc -l; }
for p in "${programs[@]}"; do
    spec=$(dirname "$0")/$p.sfg
    sfg() { env SFG_OPTIONS="analyses=$1:policy=collect" "$bin/live_$p" "$n"; }
    # One recorded run (recording costs too: not part of the times below), for sfgc trace.
    SFG_OPTIONS="analyses=:policy=collect" SFG_TRACE="$tmp/run.std" "$bin/live_$p" "$n" >/dev/null
    events=$(grep -vc '^#' "$tmp/run.std")
    rm -f "$tmp"/plain "$tmp"/tsan "$tmp"/sfg_* "$tmp"/trace_all
    for _ in $(seq "$runs"); do
        "$bin/live_${p}_plain" "$n" >>"$tmp/plain"
        [ -x "$bin/live_${p}_tsan" ] && "$bin/live_${p}_tsan" "$n" >>"$tmp/tsan"
        sfg enforce,hb,goldilocks >>"$tmp/sfg_all"
        sfg enforce >>"$tmp/sfg_enforce"
        sfg hb,goldilocks >>"$tmp/sfg_races"
        sfg "" >>"$tmp/sfg_none"
        s=$(date +%s.%N)
        "$sfgc" trace "$tmp/run.std" --spec "$spec" --analysis enforce,hb,goldilocks --threads 1 \
            >/dev/null || true
        e=$(date +%s.%N)
        echo "$e - $s" | bc -l >>"$tmp/trace_all"
    done
    echo "$p: 8 threads, $n operations, $events events; medians of $runs runs (seconds)"
    printf '%-36s %10s %8s %8s\n' "run" "seconds" "/ plain" "/ TSan"
    row() { # LABEL NAME
        printf '%-36s %10.4f %8s %8s\n' "$1" "$(t "$2")" "$(r "$2" plain)" \
            "$([ -f "$tmp/tsan" ] && r "$2" tsan || echo -)"
    }
    row "plain (SFG_DISABLE)" plain
    [ -f "$tmp/tsan" ] && row "plain, -fsanitize=thread" tsan
    row "sfg: enforce,hb,goldilocks" sfg_all
    row "sfg: enforce" sfg_enforce
    row "sfg: hb,goldilocks" sfg_races
    row "sfg: no analysis (the event path)" sfg_none
    printf '%-36s %10.4f\n' "sfgc trace, enforce,hb,goldilocks" "$(t trace_all)"
    echo "per event: live $(echo "scale=1; $(t sfg_all) * 1000000000 / $events" | bc -l) ns," \
        "sfgc trace $(echo "scale=1; $(t trace_all) * 1000000000 / $events" | bc -l) ns;" \
        "live / trace = $(r sfg_all trace_all)"
    echo
done
