#!/usr/bin/env bash
# compile_headers.sh DIR INCLUDE COMPILER... : every DIR/*.sfg.hpp, included alone (twice, for
# its include guard) by a translation unit, compiles with -Wall -Wextra -Wpedantic -Werror.
set -euo pipefail
dir=$1 include=$2
shift 2
compilers=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for header in "$dir"/*.sfg.hpp; do
    for cxx in "${compilers[@]}"; do
        printf '#include "%s"\n#include "%s"\nint main() { return 0; }\n' "$header" "$header" \
            >"$tmp/t.cpp"
        "$cxx" -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$include" "$tmp/t.cpp"
        n=$((n + 1))
    done
done
[ "$n" -gt 0 ] || { echo "no headers in $dir" >&2; exit 1; }
# A header generated for another runtime ABI does not compile, and says why.
sed 's/SFG_ABI_VERSION != 1/SFG_ABI_VERSION != 999/' "$header" >"$tmp/other_abi.sfg.hpp"
printf '#include "%s"\nint main() { return 0; }\n' "$tmp/other_abi.sfg.hpp" >"$tmp/t.cpp"
if "${compilers[0]}" -std=c++20 -fsyntax-only -I"$include" "$tmp/t.cpp" 2>"$tmp/err"; then
    echo "a header for ABI 999 compiled against this runtime" >&2
    exit 1
fi
grep -q "regenerate it" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "$n header compilations, warning-free"
