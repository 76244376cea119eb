#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (ctest), then the runtime's
# tests in a portable Clang + ThreadSanitizer build, then builds the fuzz harnesses and runs their
# tests (seed replay and a short fuzzing run each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Each stage's wall time, for keeping the whole under 15 minutes on 2 cores.
stage() { echo "== test.sh: $1 at ${SECONDS}s"; }
"$root/scripts/deps.sh"
stage "release build"
"$root/scripts/build.sh"
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
# The live runtime's stress test at full size here: 64 threads x 10^5 events. Every test case,
# in two halves side by side (one a core; a fixed random order spreads the long ones).
tsan_tests() {
  SFG_STRESS_EVENTS=100000 "$portable/runtime/runtime_tests" --minimal --order-by=rand \
    --rand-seed=7 "$@"
}
cases=$("$portable/runtime/runtime_tests" --count | grep -o '[0-9]*$')
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
# replayed, then a short run of each harness.
stage "fuzz build"
fuzz=${SFG_FUZZ_BUILD_DIR:-$root/build-fuzz}
CC=clang CXX=clang++ cmake -S "$root" -B "$fuzz" -DSFG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >/dev/null
cmake --build "$fuzz" -j "$(nproc)"
stage "fuzz tests"
(cd "$fuzz" && ctest --output-on-failure -j "$(nproc)" -L fuzz) || status=$?
stage "ASan live runtime"
# The live runtime under AddressSanitizer and UBSan, its stress test at full size.
cmake --build "$fuzz" -j "$(nproc)" --target live_runtime_tests
SFG_STRESS_EVENTS=100000 "$fuzz/runtime/live_runtime_tests" --minimal || status=$?
stage "done (status $status)"
exit "$status"
