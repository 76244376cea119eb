#!/usr/bin/env bash
# The main job: install what is missing, build, and draw the thesis' barrier discipline
# (specs/thesis/barrier.sfg, embedded in sfgc) as its SFG and its Petri net.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
SFG_TARGET=sfgc "$root/scripts/build.sh" >/dev/null
mkdir -p "$root/out"
"$root/build/sfgc/sfgc" --demo --view both --svg "$root/out/barrier.svg"
