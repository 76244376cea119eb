#!/usr/bin/env bash
# The live runtime's overhead (docs/enforcers.md, "Overhead"): bench/live/bank8.cpp, 8 threads and
# N operations on annotated variables (default 10^6), run plain, under ThreadSanitizer, and with
# the sfg runtime (enforce+hb+goldilocks, and enforce alone); then the run's recorded trace
# through `sfgc trace` with the same analyses. Prints seconds (median of R runs) and the ratios.
# Usage: bench/live/run.sh [BUILD_DIR] [N] [R]
set -euo pipefail
build=${1:-build} n=${2:-1000000} runs=${3:-5}
bin=$build/bench sfgc=$build/sfgc/sfgc spec=$(dirname "$0")/bank8.sfg
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run() { # NAME CMD...: the median of `runs` runs' printed seconds
    local name=$1
    shift
    for _ in $(seq "$runs"); do "$@"; done | median >"$tmp/$name"
}
run plain "$bin/live_bank8_plain" "$n"
[ -x "$bin/live_bank8_tsan" ] && run tsan "$bin/live_bank8_tsan" "$n"
run sfg_all env SFG_OPTIONS="analyses=enforce,hb,goldilocks:policy=collect" "$bin/live_bank8" "$n"
run sfg_enforce env SFG_OPTIONS="analyses=enforce:policy=collect" "$bin/live_bank8" "$n"
run sfg_none env SFG_OPTIONS="analyses=:policy=collect" "$bin/live_bank8" "$n"
# One recorded run (recording costs too: not part of the times above), then sfgc trace on it.
SFG_OPTIONS="analyses=:policy=collect" SFG_TRACE="$tmp/run.std" "$bin/live_bank8" "$n" >/dev/null
events=$(grep -vc '^#' "$tmp/run.std")
for _ in $(seq "$runs"); do
    s=$(date +%s.%N)
    "$sfgc" trace "$tmp/run.std" --spec "$spec" --analysis enforce,hb,goldilocks --threads 1 \
        >/dev/null || true
    e=$(date +%s.%N)
    echo "$e - $s" | bc -l
done | median >"$tmp/trace_all"
t() { cat "$tmp/$1"; }
r() { echo "scale=2; $(t "$1") / $(t "$2")" | bc -l; }
echo "bank8: 8 threads, $n operations, $events events; medians of $runs runs (seconds)"
printf '%-34s %10s %10s\n' "run" "seconds" "/ plain"
printf '%-34s %10.4f %10s\n' "plain (SFG_DISABLE)" "$(t plain)" "1"
[ -f "$tmp/tsan" ] && printf '%-34s %10.4f %10s\n' "plain, -fsanitize=thread" "$(t tsan)" "$(r tsan plain)"
printf '%-34s %10.4f %10s\n' "sfg: enforce,hb,goldilocks" "$(t sfg_all)" "$(r sfg_all plain)"
printf '%-34s %10.4f %10s\n' "sfg: enforce" "$(t sfg_enforce)" "$(r sfg_enforce plain)"
printf '%-34s %10.4f %10s\n' "sfg: no analysis (serialization)" "$(t sfg_none)" "$(r sfg_none plain)"
printf '%-34s %10.4f %10s\n' "sfgc trace, enforce,hb,goldilocks" "$(t trace_all)" "-"
echo "per event: live $(echo "scale=1; $(t sfg_all) * 1000000000 / $events" | bc -l) ns," \
    "sfgc trace $(echo "scale=1; $(t trace_all) * 1000000000 / $events" | bc -l) ns;" \
    "live / trace = $(r sfg_all trace_all)"
