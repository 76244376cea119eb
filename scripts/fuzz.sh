#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with Clang into build-fuzz/ (or $SFG_FUZZ_BUILD_DIR)
# and fuzzes each for a while:
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [HARNESS...]
#
# HARNESS: fuzz_spec, fuzz_program, fuzz_trace_text, fuzz_trace_binary (default: all; the
# `fuzz_` may be left out), one after the other, N seconds each (default 60) with J processes
# (libFuzzer -fork=J, default 1). A finding does not stop the run: every crash, timeout (10 s
# an input), out-of-memory (2 GB) and leak is saved to BUILD/fuzz/artifacts/HARNESS/. The corpus
# of each harness, BUILD/fuzz/corpus/HARNESS, grows from run to run; the collected and
# generated seeds (BUILD/fuzz/seeds/) are read as well. Prints per harness executions, coverage
# (cov: edges, ft: features) and findings; exit status 1 when anything was found.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SFG_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=60 jobs=1 wanted=()
usage() {
    echo "usage: $0 [--seconds N] [--jobs J] [fuzz_spec|fuzz_program|fuzz_trace_text|fuzz_trace_binary...]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) wanted+=("fuzz_${1#fuzz_}"); shift ;;
    esac
done
[[ $seconds =~ ^[1-9][0-9]*$ && $jobs =~ ^[1-9][0-9]*$ ]] || usage

"$root/scripts/deps.sh"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DSFG_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

declare -A bin seeds max_len dict
names=()
while read -r name b s m d; do
    names+=("$name")
    bin[$name]=$b seeds[$name]=$s max_len[$name]=$m dict[$name]=$d
done <"$build/fuzz/harnesses.txt"
[ ${#wanted[@]} -gt 0 ] || wanted=("${names[@]}")
for h in "${wanted[@]}"; do
    [ -n "${bin[$h]:-}" ] || { echo "fuzz.sh: no harness '$h' (have: ${names[*]})" >&2; exit 2; }
done

found=0
summary=()
for h in "${wanted[@]}"; do
    corpus=$build/fuzz/corpus/$h artifacts=$build/fuzz/artifacts/$h log=$build/fuzz/logs/$h.log
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    before=$(find "$artifacts" -type f | sort)
    echo "fuzz.sh: $h for ${seconds}s with $jobs job(s), log $log" >&2
    # -fork keeps fuzzing after a finding; its children print the final stats into their own
    # logs, the parent's last status line has the totals.
    set +e
    "${bin[$h]}" -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="${max_len[$h]}" \
        -dict="${dict[$h]}" -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "${seeds[$h]}" >"$log" 2>&1
    rc=$?
    set -e
    status=$(grep -a '^#[0-9]*: cov: ' "$log" | tail -1 || true)
    execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$status")
    cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$status")
    ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$status")
    corp=$(find "$corpus" -type f | wc -l)
    new=$(comm -13 <(echo "$before") <(find "$artifacts" -type f | sort) | sed '/^$/d')
    n=$(sed '/^$/d' <<<"$new" | wc -l)
    line="$h: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, corpus $corp, findings $n"
    [ "$rc" -eq 0 ] || line+=" (libFuzzer exit status $rc, see $log)"
    summary+=("$line")
    if [ "$n" -gt 0 ] || [ "$rc" -ne 0 ]; then
        found=1
        while read -r a; do
            [ -n "$a" ] && summary+=("  $a  (reproduce: ${bin[$h]} $a)")
        done <<<"$new"
    fi
done
printf '%s\n' "${summary[@]}"
exit "$found"
