#!/usr/bin/env bash
# Installs the Debian 12 packages sfg needs (listed in DEVELOPERS.md) when any is missing.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  antlr4 libantlr4-runtime-dev uuid-dev
  libboost-graph-dev
  libgraphviz-dev graphviz
  doctest-dev libfmt-dev libcli11-dev nlohmann-json3-dev libbenchmark-dev
  libgtest-dev
  spin
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "sfg: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "sfg: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
