#!/usr/bin/env bash
# The `layers_check_fails` test: scripts/check_layers.sh on the fixture (two layers, high above
# low; docs/architecture.md, "Layers") must fail and name each bad include by file and line, and
# a table that disagrees with LAYERS by its line; without them it must pass.
# Usage: run.sh SOURCE_DIR
set -u
src=$1
check=$src/scripts/check_layers.sh
fixture=$src/tests/layers/fixture
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
    echo "layers test: FAIL: $*" >&2
    failures=$((failures + 1))
}

# 1. The fixture as it is: three bad includes of src/low/a.cpp.
out=$(bash "$check" "$fixture")
rc=$?
expected='src/low/a.cpp:2: low may not include ../high/b.hpp (layer high)
src/low/a.cpp:3: low may not include gen_x.hpp (layer high)
src/low/a.cpp:4: sfg/unknown.hpp maps to no layer'
[ $rc -eq 1 ] || fail "bad includes: exit $rc, not 1"
[ "$out" = "$expected" ] || fail "bad includes: got
$out
expected
$expected"

# 2. Without the lines marked bad: nothing to report.
cp -R "$fixture" "$work/good"
sed -i '/\/\/ bad:/d' "$work/good/src/low/a.cpp"
out=$(bash "$check" "$work/good")
rc=$?
[ $rc -eq 0 ] && [ -z "$out" ] || fail "good fixture: exit $rc, output: $out"

# 3. A table row and an arrow that say more than LAYERS, and a layer without its row.
cp -R "$work/good" "$work/table"
sed -i -e 's/| the lower layer | nothing |/| the lower layer | high |/' -e '/src\/high\/` |/d' \
    -e 's|^ src/high/   ──► low/| src/high/   ──► low/ high/|' "$work/table/ARCH.md"
out=$(bash "$check" "$work/table")
rc=$?
expected='ARCH.md:4: high may use high, LAYERS says it may not
ARCH.md:9: low may use high, LAYERS says it may not
ARCH.md: no row for layer high (| `src/high/` | ... |)'
[ $rc -eq 1 ] || fail "bad table: exit $rc, not 1"
[ "$out" = "$expected" ] || fail "bad table: got
$out
expected
$expected"

if [ $failures -ne 0 ]; then
    echo "layers test: $failures failure(s)" >&2
    exit 1
fi
echo "layers test: the check names each bad include and table line, and passes without them"
