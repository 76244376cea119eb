#!/usr/bin/env bash
# Relacy's full search on bench/explore.cpp's `mutex` family (bench/README.md, "explore"): N
# threads each add one to x under one mutex. Relacy is not a dependency of sfg: give a checkout
# of it (https://github.com/dvyukov/relacy, header-only) as RELACY; nothing here is built by the
# project's build or run by its tests.
#   RELACY=~/src/relacy bench/relacy/run.sh        # 3 and 4 threads
#   RELACY=~/src/relacy bench/relacy/run.sh 5      # and 5 (about a minute)
set -euo pipefail
[ -n "${RELACY:-}" ] && [ -f "$RELACY/relacy/relacy_std.hpp" ] ||
    { echo "run.sh: set RELACY to a checkout of Relacy (relacy/relacy_std.hpp)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++17 -O2 -w -I "$RELACY" "$here/mutex_inc.cpp" -o "$work/mutex_inc"
if [ "${1:-}" = 5 ]; then "$work/mutex_inc" five; else "$work/mutex_inc"; fi | grep '^relacy'
