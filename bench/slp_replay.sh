#!/usr/bin/env bash
# Replaying compressed traces end to end (docs/compressed.md, "When compression pays"): `sfgc
# trace` on an SLP against `sfgc trace --analysis fasttrack` on the trace's text, in one run.
#
#   realistic  bench_analyses' trace (EVENTS events, a location on every line) compressed by
#              `sfgc compress`: little repetition, so `--slp-mode auto` expands it. Rows: hb on
#              the text, and hb on the SLP in auto, expand and grammar mode.
#   loop       bench_slp's bufwriter family, LOOP_EVENTS events: a loop with a fixed schedule,
#              which auto runs on the grammar. Row: hb on the SLP.
#
# Every command runs RUNS times, one of each per round (a slow stretch of this shared machine
# falls on all of them alike), after a round not timed; a row gives the median wall time, and the
# ratio to fasttrack on the text taken round by round: its median and [min, max] over the rounds.
# Usage: bench/slp_replay.sh [BUILD_DIR] [RUNS] [EVENTS] [LOOP_EVENTS]
# GRAMMAR=0 leaves out the realistic trace on the grammar (some 13 s and 3.5 GB a run).
# BASELINE=OTHER_SFGC adds the SLP rows run by another build's sfgc, in the same rounds (before
# and after a change). VERBOSE=1 prints every round's times too.
set -euo pipefail
build=${1:-build} runs=${2:-7} events=${3:-5000000} loop_events=${4:-64000000}
sfgc=$build/sfgc/sfgc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/bench/bench_analyses" --write-trace "$tmp/real.std" "$events" >/dev/null
echo "realistic: $("$sfgc" compress "$tmp/real.std" -o "$tmp/real.slp" --stats 2>&1)"
"$build/bench/bench_slp" --write-trace bufwriter "$tmp/loop.std" "$loop_events"
echo "loop:      $("$sfgc" compress "$tmp/loop.std" -o "$tmp/loop.slp" --stats 2>&1)"
echo "files: realistic $(du -h "$tmp/real.std" | cut -f1) text, $(du -h "$tmp/real.slp" |
    cut -f1) SLP; loop $(du -h "$tmp/loop.std" | cut -f1) text, $(du -h "$tmp/loop.slp" |
    cut -f1) SLP"

# The files written, to disk before any timing (their write-back would fall on the first rounds).
sync "$tmp"/*

# NAME COMMAND...: one timed run, its wall seconds appended to $tmp/NAME.
run() {
    local name=$1
    shift
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || [ $? -eq 1 ] # exit 1: a race found
    e=$(date +%s%N)
    [ "$round" = 0 ] || echo "$(((e - s) / 1000))" >>"$tmp/$name"
}
base=${BASELINE:-}
rows=(real_ft real_hb_text real_auto real_expand)
[ -z "$base" ] || rows+=(base_real_auto base_real_expand)
[ "${GRAMMAR:-1}" = 0 ] || rows+=(real_grammar)
rows+=(loop_ft loop_auto)
[ -z "$base" ] || rows+=(base_loop_auto)
# A round not timed first: the files in the page cache, the machine's caches warm for each command.
for round in $(seq 0 "$runs"); do
    run real_ft "$sfgc" trace "$tmp/real.std" --analysis fasttrack
    run real_hb_text "$sfgc" trace "$tmp/real.std" --analysis hb
    run real_auto "$sfgc" trace "$tmp/real.slp" --analysis hb
    run real_expand "$sfgc" trace "$tmp/real.slp" --analysis hb --slp-mode expand
    if [ -n "$base" ]; then
        run base_real_auto "$base" trace "$tmp/real.slp" --analysis hb
        run base_real_expand "$base" trace "$tmp/real.slp" --analysis hb --slp-mode expand
    fi
    [ "${GRAMMAR:-1}" = 0 ] ||
        run real_grammar "$sfgc" trace "$tmp/real.slp" --analysis hb --slp-mode grammar \
            --max-memory 8192
    run loop_ft "$sfgc" trace "$tmp/loop.std" --analysis fasttrack
    run loop_auto "$sfgc" trace "$tmp/loop.slp" --analysis hb
    [ -z "$base" ] || run base_loop_auto "$base" trace "$tmp/loop.slp" --analysis hb
done

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# ROW REF: per-round ratios ROW / REF, "median [min, max]".
ratios() {
    paste "$tmp/$1" "$tmp/$2" | awk '{printf "%.4f\n", $1 / $2}' >"$tmp/ratio"
    printf '%.2f [%.2f, %.2f]' "$(median <"$tmp/ratio")" "$(sort -g "$tmp/ratio" | head -1)" \
        "$(sort -g "$tmp/ratio" | tail -1)"
}
echo
echo "wall time, median of $runs runs; ratio to fasttrack on the same trace's text, round by round:"
echo "median [min, max]"
printf '%-44s %10s  %s\n' "run" "ms" "x fasttrack on the text"
label() {
    case $1 in
    real_ft) echo "realistic: fasttrack on the text" ;;
    real_hb_text) echo "realistic: hb on the text" ;;
    real_auto) echo "realistic: hb on the SLP (auto)" ;;
    real_expand) echo "realistic: hb on the SLP (expand)" ;;
    real_grammar) echo "realistic: hb on the SLP (grammar)" ;;
    loop_ft) echo "loop: fasttrack on the text" ;;
    loop_auto) echo "loop: hb on the SLP (auto: the grammar)" ;;
    base_real_auto) echo "realistic: hb on the SLP (auto), baseline" ;;
    base_real_expand) echo "realistic: hb on the SLP (expand), baseline" ;;
    base_loop_auto) echo "loop: hb on the SLP (auto), baseline" ;;
    esac
}
for row in "${rows[@]}"; do
    ref=real_ft
    [[ $row == *loop_* ]] && ref=loop_ft
    printf '%-44s %10.1f  %s\n' "$(label "$row")" "$(median <"$tmp/$row" | awk '{print $1 / 1000}')" \
        "$(ratios "$row" "$ref")"
done
if [ "${VERBOSE:-0}" != 0 ]; then # every round's milliseconds, in order
    for row in "${rows[@]}"; do
        printf '%-18s %s\n' "$row" "$(awk '{printf "%.0f ", $1 / 1000}' "$tmp/$row")"
    done
fi
echo "loop: the grammar is $(ratios loop_ft loop_auto)x faster than fasttrack on the text"
[ -z "$base" ] ||
    echo "loop, baseline: the grammar is $(ratios loop_ft base_loop_auto)x faster than fasttrack on the text"
