#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (ctest), then builds the fuzz
# harnesses and runs their tests (seed replay and a short fuzzing run each).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
status=0
(cd "${SFG_BUILD_DIR:-$root/build}" && ctest --output-on-failure -j "$(nproc)") || status=$?

# The fuzz build (fuzz/, Clang with libFuzzer, ASan and UBSan): every seed and regression input
# replayed, then a short run of each harness.
fuzz=${SFG_FUZZ_BUILD_DIR:-$root/build-fuzz}
CC=clang CXX=clang++ cmake -S "$root" -B "$fuzz" -DSFG_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >/dev/null
cmake --build "$fuzz" -j "$(nproc)"
(cd "$fuzz" && ctest --output-on-failure -j "$(nproc)" -L fuzz) || status=$?
exit "$status"
