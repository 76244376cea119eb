#!/usr/bin/env bash
# Compile-time benchmark driver (see bench/README.md "## compile").
#
#   scripts/bench_compile.sh [--quick] [--no-gbench] [--big]
#
# 1. builds bench_compile in build-bench/ (Release);
# 2. runs the Google Benchmark program (time per compile, phase times, BigO fits, peak memory
#    with the peak reset per benchmark) -> $OUT/gbench.json and gbench.txt;
# 3. runs every size of every family once in a fresh process (`bench_compile --size F N`), so
#    VmHWM is that size's peak alone -> $OUT/sizes.jsonl, and prints per family the growth
#    exponent k of time ~ N^k and of peak memory (least squares on log-log over the larger half
#    of the sizes);
# 4. --big adds one_disc 1000 (10^6 edges: about 2 minutes and 11 GB) to step 3.
# Environment: BUILD (default build-bench), OUT (default $BUILD/bench-compile).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build-bench}
OUT=${OUT:-$BUILD/bench-compile}
QUICK=0 GBENCH=1 BIG=0
for a in "$@"; do
    case $a in
    --quick) QUICK=1 ;;
    --no-gbench) GBENCH=0 ;;
    --big) BIG=1 ;;
    *) echo "usage: $0 [--quick] [--no-gbench] [--big]" >&2; exit 2 ;;
    esac
done

cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
make -C "$BUILD" -j"$(nproc)" bench_compile >/dev/null
BIN=$BUILD/bench/bench_compile
mkdir -p "$OUT"

if [ "$GBENCH" = 1 ]; then
    filter=.
    [ "$QUICK" = 1 ] && filter='threads|nested/|chain/[0-9]{1,3}/|many_vars/(125|250|500|1000)/'
    "$BIN" --benchmark_filter="$filter" --benchmark_out="$OUT/gbench.json" \
        --benchmark_out_format=json | tee "$OUT/gbench.txt"
fi

declare -A SIZES=(
    [threads]="2 4 8 16 32 64 128 256"
    [nested]="1 2 4 8 16 32 64 128 200"
    [nested_same]="1 2 4 8 16 32 64 128 200"
    [chain]="1 10 100 250 500 1000 2000 4000 8000 16000"
    [many_vars]="64 125 250 500 1000 2000 4000 8000"
    [one_disc]="16 32 64 125 250 500"
)
[ "$QUICK" = 1 ] && SIZES[one_disc]="16 32 64 125" && SIZES[chain]="1 10 100 250 500 1000"
[ "$BIG" = 1 ] && SIZES[one_disc]="${SIZES[one_disc]} 1000"

: >"$OUT/sizes.jsonl"
field() { sed -E "s/.*\"$1\": ([^,}]*).*/\1/" <<<"$2"; }
printf '\n%-12s %7s %9s %9s %10s %10s %10s %9s\n' family N modes edges total_ms compile_ms to_json_ms peak_MB
for f in threads nested nested_same chain many_vars one_disc; do
    for n in ${SIZES[$f]}; do
        if ! line=$("$BIN" --size "$f" "$n"); then
            echo "$f $n: exit status $?" >&2
            continue
        fi
        echo "$line" >>"$OUT/sizes.jsonl"
        awk -v f="$f" -v n="$n" -v m="$(field modes "$line")" -v e="$(field edges "$line")" \
            -v s="$(field seconds "$line")" -v c="$(field compile_s "$line")" \
            -v j="$(field to_json_s "$line")" -v p="$(field vmhwm_mb "$line")" \
            'BEGIN { printf "%-12s %7d %9d %9d %10.2f %10.2f %10.2f %9.1f\n", f, n, m, e, s*1e3, c*1e3, j*1e3, p }'
    done
done

# Growth exponents: least-squares slope of log(y) on log(N) over the larger half of the sizes.
echo
echo "growth exponents (y ~ N^k, fitted on the larger half of the sizes of each family):"
printf '%-12s %8s %8s %8s\n' family k_time k_compile k_peak
for f in threads nested nested_same chain many_vars one_disc; do
    grep "\"family\": \"$f\"" "$OUT/sizes.jsonl" |
        sed -E 's/.*"n": ([0-9]+).*"seconds": ([0-9.e-]+), "compile_s": ([0-9.e-]+).*"base_rss_mb": ([0-9.]+), "vmhwm_mb": ([0-9.]+).*/\1 \2 \3 \4 \5/' |
        awk -v f="$f" '
            { n[NR] = $1; t[NR] = $2; c[NR] = $3; p[NR] = $5 }
            function slope(y, from, to,    i, sx, sy, sxx, sxy, k, x, v) {
                for (i = from; i <= to; ++i) {
                    x = log(n[i]); v = log(y[i]); ++k
                    sx += x; sy += v; sxx += x * x; sxy += x * v
                }
                return k < 2 ? 0 : (k * sxy - sx * sy) / (k * sxx - sx * sx)
            }
            END {
                if (NR < 2) exit
                from = int(NR / 2) + (NR > 3 ? 0 : 1)
                printf "%-12s %8.2f %8.2f %8.2f\n", f, slope(t, from, NR), slope(c, from, NR), slope(p, from, NR)
            }'
done

# A long chain of sequences is a left-deep tree: probe the sizes past the README's range for a
# crash (a crash is a bug: docs/limits.md: never a crash, whatever the input).
echo
echo "crash probe (fresh process each):"
for n in 16000 24000 32000 100000; do
    set +e
    "$BIN" --size chain "$n" >/dev/null 2>&1
    rc=$?
    set -e
    echo "  chain $n: exit status $rc$([ $rc -ge 128 ] && echo " (signal $((rc - 128)))")"
done
echo "results in $OUT"
