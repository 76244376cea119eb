#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (ctest).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"
cd "${SFG_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
