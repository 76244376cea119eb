#!/usr/bin/env bash
# The fuzz tests of ctest (fuzz/CMakeLists.txt):
#   ctest_fuzz.sh replay HARNESS WORKDIR [FLAGS...] -- DIR...  every file of the DIRs once
#   ctest_fuzz.sh fuzz   HARNESS WORKDIR [FLAGS...] -- DIR...  fuzz from the DIRs as seeds
# Missing DIRs are skipped. Exit status non-zero on a crash, a timeout or the memory limit
# (libFuzzer's); findings are written to WORKDIR/artifacts/, new inputs to WORKDIR/corpus/.
set -euo pipefail
mode=$1 bin=$2 work=$3
shift 3
flags=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    flags+=("$1")
    shift
done
[ $# -gt 0 ] && shift
dirs=()
for d in "$@"; do
    [ -d "$d" ] && dirs+=("$d")
done
mkdir -p "$work/artifacts" "$work/corpus"
flags+=("-artifact_prefix=$work/artifacts/")
case $mode in
replay)
    # Files named one by one run once each, whole (a directory's would be cut at -max_len).
    # After a finding the replay goes on with the next file, so that one run lists them all.
    [ ${#dirs[@]} -gt 0 ] || exit 0
    mapfile -d '' files < <(find "${dirs[@]}" -type f -print0 | sort -z)
    log=$work/replay.log
    failed=()
    i=0
    while [ "$i" -lt ${#files[@]} ]; do
        set +e
        "$bin" "${flags[@]}" "${files[@]:i}" >"$log" 2>&1
        rc=$?
        set -e
        grep -av '^Running: \|^Executed ' "$log" || true
        [ "$rc" -eq 0 ] && break
        last=$(grep -a '^Running: ' "$log" | tail -1 | cut -c10-)
        kind=$(grep -ao 'ERROR: libFuzzer: [a-z-]*\|ERROR: AddressSanitizer: [a-z-]*\|runtime error\|oracle failed' "$log" | head -1)
        failed+=("$last: ${kind:-exit status $rc}")
        while [ "$i" -lt ${#files[@]} ] && [ "${files[i]}" != "$last" ]; do
            i=$((i + 1))
        done
        i=$((i + 1))
    done
    echo "replayed ${#files[@]} inputs; ${#failed[@]} failed"
    for f in "${failed[@]}"; do
        echo "  FAILED $f"
    done
    [ ${#failed[@]} -eq 0 ]
    ;;
fuzz)
    # libFuzzer's progress lines (#N NEW/REDUCE/pulse...) go to the log only, so that a finding's
    # report is what ctest shows, whole, however long the run was; the log keeps everything.
    log=$work/fuzz.log
    set +e
    "$bin" "${flags[@]}" -print_final_stats=1 "$work/corpus" "${dirs[@]}" >"$log" 2>&1
    rc=$?
    set -e
    grep -av '^#[0-9]' "$log" | grep -av '^"' || true
    if [ "$rc" -ne 0 ]; then
        echo "fuzzing failed (exit status $rc); the whole log: $log"
        grep -a '^#[0-9]' "$log" | tail -3
        for a in "$work"/artifacts/*; do
            [ -f "$a" ] || continue
            echo "artifact $a ($(wc -c <"$a") bytes, base64):"
            head -c 4096 "$a" | base64 -w 100
        done
    fi
    exit "$rc"
    ;;
*)
    echo "usage: $0 replay|fuzz HARNESS WORKDIR [FLAGS...] -- DIR..." >&2
    exit 2
    ;;
esac
