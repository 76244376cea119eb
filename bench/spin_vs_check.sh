#!/usr/bin/env bash
# Time to a complete verdict: `sfgc check --mode naive`, `sfgc check --mode dpor` and Spin on the
# model `sfgc check --emit-promela` writes (docs/programs.md, part 9). See bench/README.md.
#
#   bench/spin_vs_check.sh [PROGRAM.sfg ...]    # default: some specs/programs + generated ones
#
# Environment: SFGC (default $SFG_BUILD_DIR/sfgc/sfgc, SFG_BUILD_DIR default build-rel: build it
# with `SFG_BUILD_DIR=build-rel SFG_BUILD_TYPE=Release scripts/build.sh`), RUNS (repetitions,
# the fastest is kept, default 3), TIMEOUT (seconds per run, default 120), JOBS (sfgc check's
# --jobs, default 1: one core, as pan), KEEP=1 keeps the scratch directory. Wall-clock times in ms
# (hyperfine is not assumed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SFG_BUILD_DIR:-$root/build-rel}
case $build in /*) ;; *) build=$root/$build ;; esac
sfgc=${SFGC:-$build/sfgc/sfgc}
runs=${RUNS:-3}
timeout_s=${TIMEOUT:-120}
jobs=${JOBS:-1}
for tool in "$sfgc" spin gcc jq; do
    command -v "$tool" >/dev/null || { echo "spin_vs_check: $tool not found" >&2; exit 2; }
done
work=$(mktemp -d /tmp/sfg-spin-bench.XXXXXX)
[ "${KEEP:-0}" = 1 ] && echo "scratch: $work" >&2 || trap 'rm -rf "$work"' EXIT

# ---- generated programs (3-5 threads) ----

# main forks N workers that each add 1 to x under lock m, K times, joins them, asserts the sum.
gen_counter() {
    local n=$1 k=$2 ts="" i
    for ((i = 0; i < n; i++)); do ts+="${ts:+, }w$i"; done
    echo "threads main, $ts;"
    echo "lock m;"
    echo "var x;"
    echo "program counter_${n}x${k} {"
    echo "  thread main { fork $ts; join $ts; assert x == $((n * k)); }"
    for ((i = 0; i < n; i++)); do
        echo "  thread w$i { repeat $k { acq m; let t = x; x = t + 1; rel m; } }"
    done
    echo "}"
}

# N dining philosophers with one lock per fork taken left then right: deadlocks.
gen_philosophers() {
    local n=$1 ts="" ls="" vs="" i
    for ((i = 0; i < n; i++)); do
        ts+="${ts:+, }p$i"
        ls+="${ls:+, }f$i"
        vs+="${vs:+, }eat$i"
    done
    echo "threads $ts;"
    echo "lock $ls;"
    echo "var $vs;"
    echo "program philosophers_$n {"
    for ((i = 0; i < n; i++)); do
        echo "  thread p$i { acq f$i; acq f$(((i + 1) % n)); eat$i = 1; rel f$(((i + 1) % n)); rel f$i; }"
    done
    echo "}"
}

# N particles, R rounds: write own cell, barrier, read the next one's, barrier (clean).
gen_particles() {
    local n=$1 r=$2 ts="" vs="" i
    for ((i = 0; i < n; i++)); do
        ts+="${ts:+, }q$i"
        vs+="${vs:+, }c$i"
    done
    echo "threads $ts;"
    echo "barrier b($ts);"
    echo "var $vs;"
    echo "program particles_${n}x${r} {"
    for ((i = 0; i < n; i++)); do
        echo "  thread q$i { let i = 0; repeat $r { i = i + 1; c$i = i; barrier b; let o = c$(((i + 1) % n)); assert o == i; barrier b; } }"
    done
    echo "}"
}

case ${1:-} in -h | --help)
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac
for f in "$@"; do
    [ -f "$f" ] || { echo "spin_vs_check: $f: no such file" >&2; exit 2; }
done
if [ $# -gt 0 ]; then
    programs=("$@")
else
    programs=()
    for p in fig2_1_bank_racy fig2_3_bank fig2_7_hidden_race fig3_5_handshake \
        fig3_6_lock_violation peterson bounded_buffer lock_order_deadlock; do
        programs+=("$root/specs/programs/$p/$p.sfg")
    done
    gen_counter 4 2 >"$work/counter_4x2.sfg"
    gen_philosophers 4 >"$work/philosophers_4.sfg"
    gen_philosophers 5 >"$work/philosophers_5.sfg"
    gen_particles 3 1 >"$work/particles_3x1.sfg"
    gen_particles 4 1 >"$work/particles_4x1.sfg"
    gen_particles 3 2 >"$work/particles_3x2.sfg"
    gen_particles 5 1 >"$work/particles_5x1.sfg"
    programs+=("$work/counter_4x2.sfg" "$work/philosophers_4.sfg" "$work/philosophers_5.sfg"
        "$work/particles_3x1.sfg" "$work/particles_4x1.sfg" "$work/particles_3x2.sfg"
        "$work/particles_5x1.sfg")
fi

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# best_ms CMD: the fastest of $runs wall-clock runs of the shell command CMD, in ms ("timeout"
# if one hits $timeout_s); its last stdout is in $work/out.
best_ms() {
    local best="" t0 t1 i rc
    for ((i = 0; i < runs; i++)); do
        t0=$(now_ms)
        rc=0
        timeout "$timeout_s" bash -c "$1" >"$work/out" 2>"$work/err" || rc=$?
        t1=$(now_ms)
        if [ $rc = 124 ]; then
            echo timeout
            return
        fi
        if [ -z "$best" ] || [ $((t1 - t0)) -lt "$best" ]; then best=$((t1 - t0)); fi
    done
    echo "$best"
}

ratio() { # a b -> a/b to 3 significant digits, or "-"
    if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && $2 -gt 0 ]]; then
        awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3g", a / b }'
    else
        echo "-"
    fi
}

# Our verdicts in Spin's terms: A = assertion-like finding (assert, divzero, ill-formed but a
# join of a never-forked thread), D = deadlock; "-" = none.
our_verdict() {
    jq -r 'def k: [.findings[].kind]; (if any(.findings[]; .kind == "assert" or .kind == "divzero"
        or (.kind == "ill-formed" and (.message | test("never forked") | not))) then "A" else "" end)
        + (if any(.findings[]; .kind == "deadlock") then "D" else "" end) | if . == "" then "-" else . end' "$1"
}

row() {
    printf '| %-19s | %7s | %6s | %6s | %8s | %7s | %7s | %6s | %4s | %4s | %6s | %6s | %6s | %6s |\n' "$@"
}
row program 'naive execs' 'dpor execs' 'spin states' 'naive ms' 'dpor ms' 'spin ms' 'pan ms' \
    ours spin 'naive/spin' 'dpor/spin' 'naive/pan' 'dpor/pan'
row --- ---: ---: ---: ---: ---: ---: ---: :-: :-: ---: ---: ---: ---:

for f in "${programs[@]}"; do
    name=$(basename "$f" .sfg)
    dir=$work/$name
    mkdir -p "$dir"
    # Ours: a complete search (no execution bound in practice) for every finding kind.
    check="'$sfgc' check '$f' --max-executions 1000000000 --max-states 100000000000 --jobs $jobs --format json"
    naive=$(best_ms "$check --mode naive")
    cp "$work/out" "$dir/naive.json"
    dpor=$(best_ms "$check --mode dpor")
    cp "$work/out" "$dir/dpor.json"
    execs=$(jq -r '.executions' "$dir/naive.json" 2>/dev/null || echo "?")
    dexecs=$(jq -r '.executions' "$dir/dpor.json" 2>/dev/null || echo "?")
    ours=$(our_verdict "$dir/naive.json" 2>/dev/null || echo "?")
    # Spin: translate, compile, search the whole state space. -DSAFETY drops only the cycle
    # checks (we check no liveness); assertions and invalid end states (our deadlocks) stay on.
    # -c0: do not stop at the first error, as our checker does not; -n: no unreached-code list;
    # -m100000: depth bound (a warning below if hit); -w20: a 2^20-slot hash table (the default
    # 2^24 costs ~2 s of page faults per run, more than these searches; it still chains).
    "$sfgc" check "$f" --emit-promela "$dir/m.pml" >/dev/null
    pan="./pan -m100000 -w20 -c0 -n"
    spin_ms=$(best_ms "cd '$dir' && spin -a m.pml >/dev/null && gcc -O2 -DSAFETY -w -o pan pan.c && $pan")
    pan_ms=$(best_ms "cd '$dir' && $pan")
    cp "$work/out" "$dir/pan.out"
    if grep -q "max search depth too small" "$dir/pan.out"; then
        echo "warning: $name: pan's depth bound was hit" >&2
    fi
    states=$(awk '/states, stored/ { print $1; exit }' "$dir/pan.out")
    sv=""
    if grep -q "assertion violated" "$dir/pan.out"; then sv+=A; fi
    if grep -q "invalid end state (at depth" "$dir/pan.out"; then sv+=D; fi
    row "$name" "$execs" "$dexecs" "${states:-?}" "$naive" "$dpor" "$spin_ms" "$pan_ms" "$ours" \
        "${sv:--}" "$(ratio "$naive" "$spin_ms")" "$(ratio "$dpor" "$spin_ms")" \
        "$(ratio "$naive" "$pan_ms")" "$(ratio "$dpor" "$pan_ms")"
done
