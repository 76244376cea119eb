#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (ctest), then the runtime's
# tests in a portable Clang + ThreadSanitizer build, then builds the fuzz harnesses and runs their
# tests (seed replay and a short fuzzing run each).
#   scripts/test.sh          what CI runs: the long property tests at a quarter of their size
#   scripts/test.sh --full   every test at full size (SFG_FULL=1), the sanitizer stages' stress
#                            test at 10^5 events a thread, 20 s of fuzzing per harness
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
full=0
case "${1:-}" in
--full) full=1 ;;
"") ;;
*) echo "usage: $0 [--full]" >&2; exit 2 ;;
esac
# The tests read SFG_FULL (checker/tests/support.hpp, runtime/tests/enforce_testlib.hpp).
if [ "$full" -eq 1 ]; then
  export SFG_FULL=1
  stress_events=100000 fuzz_seconds=20
else
  # Under the sanitizers the stress test checks interleavings, not volume: 2x10^4 events a thread
  # still wrap every thread's ring (4096 events) several times. Fuzzing: 6 s a harness after the
  # seeds' replay (the suite's time budget; --full and scripts/fuzz.sh fuzz longer).
  stress_events=20000 fuzz_seconds=6
fi
# The release build with line tables only (-g1): backtraces still name file and line, and it
# builds a third faster than with full debug information (-g). The sanitizer and fuzz builds
# already use Clang's line tables only (CMakeLists.txt).
line_tables=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
# Each stage's wall time, for keeping the whole under 15 minutes on 2 cores.
stage() { echo "== test.sh: $1 at ${SECONDS}s"; }
"$root/scripts/deps.sh"
stage "release build"
"$root/scripts/build.sh" "${line_tables[@]}"
stage "release tests"
status=0
(cd "${SFG_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$(nproc)") || status=$?

# The runtime as users may link it (docs/architecture.md, build options): without the SIMD fast
# paths, built by Clang, under ThreadSanitizer; its tests must pass there too.
stage "TSan build"
portable=${SFG_PORTABLE_BUILD_DIR:-$root/build-portable}
CC=clang CXX=clang++ cmake -S "$root" -B "$portable" -DSFG_SIMD=OFF -DSFG_SANITIZE=thread \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$portable" -j "$(nproc)" --target runtime_tests live_tsan_probe
stage "TSan tests"
# The live runtime's stress test: 64 threads x $stress_events events. The test cases, in two
# halves side by side (one a core; a fixed random order spreads the long ones).
# The single-threaded property tests of volume (runtime/tests/volume.hpp) start no thread: the
# release stage runs them, this one skips them.
tsan_tests() {
  SFG_STRESS_EVENTS=$stress_events "$portable/runtime/runtime_tests" --minimal --order-by=rand \
    --rand-seed=7 --test-suite-exclude=volume "$@"
}
cases=$("$portable/runtime/runtime_tests" --count --test-suite-exclude=volume | grep -o '[0-9]*$')
half=$(((cases + 1) / 2))
tsan_tests --first=1 --last="$half" & first_half=$!
tsan_tests --first=$((half + 1)) --last="$cases" & second_half=$!
wait "$first_half" || status=$?
wait "$second_half" || status=$?
# The live runtime's lock is hidden from TSan: a race only it "orders" is TSan's to report.
probe=$("$portable/runtime/live_tsan_probe" 2>&1) && probe_status=0 || probe_status=$?
if [ "$probe_status" -eq 0 ] || ! grep -q "Location is global 'plain'" <<<"$probe"; then
  echo "live_tsan_probe: ThreadSanitizer did not report the race on 'plain' (exit $probe_status)"
  echo "$probe"
  status=1
fi

# The fuzz build (fuzz/, Clang with libFuzzer, ASan and UBSan): every seed and regression input
# replayed, then a short run of each harness. Its `all` is the libraries and the harnesses
# (CMakeLists.txt), and the live runtime's tests are built with them: nothing else.
stage "fuzz build"
fuzz=${SFG_FUZZ_BUILD_DIR:-$root/build-fuzz}
CC=clang CXX=clang++ cmake -S "$root" -B "$fuzz" -DSFG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSFG_FUZZ_TEST_SECONDS="$fuzz_seconds" >/dev/null
cmake --build "$fuzz" -j "$(nproc)" --target all live_runtime_tests
stage "fuzz tests"
(cd "$fuzz" && ctest --output-on-failure -j "$(nproc)" -L fuzz) || status=$?
stage "ASan live runtime"
# The live runtime under AddressSanitizer and UBSan, its stress test as under TSan.
SFG_STRESS_EVENTS=$stress_events "$fuzz/runtime/live_runtime_tests" --minimal || status=$?
stage "done (status $status)"
exit "$status"
