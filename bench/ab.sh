#!/usr/bin/env bash
# Before/after of one Google Benchmark binary built in two trees, in the same minutes: the two
# binaries run alternately, ROUNDS times each, so that a slow stretch of a shared machine falls on
# both alike. Prints per benchmark row the median CPU time of each side and the ratio after/before
# taken round by round, "median (min-max)".
# Usage: bench/ab.sh BEFORE_BUILD AFTER_BUILD BENCH [ROUNDS] [BENCHMARK FLAGS...]
#   bench/ab.sh ../base/build-rel build-rel bench_enforce 5 --benchmark_filter=Barrier
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
before=$1 after=$2 bench=$3 rounds=${4:-5}
shift $(($# < 4 ? $# : 4))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for round in $(seq "$rounds"); do
    for side in before after; do
        dir=$before
        [ "$side" = after ] && dir=$after
        # Console rows: NAME TIME UNIT CPU UNIT ITERATIONS [COUNTERS] (the CSV reporter refuses
        # rows with different counters).
        "$dir/bench/$bench" --benchmark_format=console --benchmark_color=false "$@" 2>/dev/null |
            awk -v side="$side" -v round="$round" \
                'NF >= 6 && $2 ~ /^[0-9.e+-]+$/ && $4 ~ /^[0-9.e+-]+$/ { print side, round, $1, $4, $5 }' >>"$tmp/rows"
    done
done
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-48s %14s %14s  %s\n' benchmark before after 'after/before median (min-max)'
awk '{ print $3 }' "$tmp/rows" | awk '!seen[$0]++' | while read -r name; do
    awk -v n="$name" '$3 == n && $1 == "before" { print $4 }' "$tmp/rows" >"$tmp/b"
    awk -v n="$name" '$3 == n && $1 == "after" { print $4 }' "$tmp/rows" >"$tmp/a"
    unit=$(awk -v n="$name" '$3 == n { print $5; exit }' "$tmp/rows")
    paste "$tmp/b" "$tmp/a" | awk '$1 > 0 { print $2 / $1 }' | sort -g >"$tmp/r"
    [ -s "$tmp/r" ] || continue
    printf '%-48s %11.4g %-2s %11.4g %-2s  %.3f (%.3f-%.3f)\n' "$name" "$(median <"$tmp/b")" \
        "$unit" "$(median <"$tmp/a")" "$unit" "$(median <"$tmp/r")" "$(head -1 "$tmp/r")" \
        "$(tail -1 "$tmp/r")"
done
