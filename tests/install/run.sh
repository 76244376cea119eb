#!/usr/bin/env bash
# The `install_package` test (docs/install.md): installs the build into a fresh prefix, checks
# that exactly the public parts were installed and that the installed sfgc runs from the prefix
# alone, then configures, builds and runs tests/install/consumer against the prefix.
# Usage: run.sh BUILD_DIR SOURCE_DIR CMAKE CXX_COMPILER BUILD_TYPE [SANITIZE]
set -u
if [ $# -lt 5 ] || [ $# -gt 6 ]; then
    echo "usage: $0 BUILD_DIR SOURCE_DIR CMAKE CXX_COMPILER BUILD_TYPE [SANITIZE]" >&2
    exit 2
fi
build=$1 src=$2 cmake=$3 cxx=$4 type=$5 sanitize=${6:-}
ctest=$(dirname "$cmake")/ctest
[ -x "$ctest" ] || ctest=ctest

config=()
[ -n "$type" ] && config=(--config "$type")

work=$build/install-test
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"
failures=0
fail() {
    echo "install test: FAIL: $*" >&2
    failures=$((failures + 1))
}
die() {
    echo "install test: FAIL: $*" >&2
    exit 1
}

# 1. Install.
"$cmake" --install "$build" --prefix "$prefix" "${config[@]}" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; die "cmake --install failed"; }

# 2. Exactly the public files: sfgc, the runtime library, every public runtime header, the
#    package files; nothing of grammar/, compiler/, checker/, runtime/src/, tests or benchmarks.
[ -x "$prefix/bin/sfgc" ] || fail "bin/sfgc is not installed"
libs=("$prefix"/lib*/libsfg_runtime.a)
[ -f "${libs[0]}" ] || fail "the runtime library (lib*/libsfg_runtime.a) is not installed"
for f in sfgConfig.cmake sfgConfigVersion.cmake sfgTargets.cmake; do
    compgen -G "$prefix/lib*/cmake/sfg/$f" >/dev/null || fail "lib*/cmake/sfg/$f is not installed"
done
for h in "$src"/runtime/include/sfg/*.hpp "$src"/runtime/include/sfg/runtime/*.hpp \
    "$src"/runtime/include/sfg/runtime/*.h; do
    [ -e "$h" ] || continue
    rel=${h#"$src"/runtime/include/}
    cmp -s "$h" "$prefix/include/$rel" || fail "public header $rel is not installed (or differs)"
done
# The headers include nothing the package does not provide: other sfg headers, the internal
# ones of runtime/src/, or a dependency that sfgConfig.cmake.in does not find (only fmt and
# Threads are; any other would need its find_dependency and a PUBLIC link of the runtime).
while IFS=: read -r h line; do
    inc=$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*)[>"].*/\1/' <<<"$line")
    case $inc in
    doctest/doctest.h) [[ $h == */sfg/doctest.hpp ]] ||
        fail "${h#"$prefix"/} includes '$inc': only the doctest adapter may" ;;
    gtest/gtest.h) [[ $h == */sfg/gtest.hpp ]] ||
        fail "${h#"$prefix"/} includes '$inc': only the GoogleTest adapter may" ;;
    sfg/*.hpp) [ -f "$prefix/include/$inc" ] ||
        fail "${h#"$prefix"/} includes $inc, which is not installed" ;;
    sfg/* | *.hpp | nlohmann/* | boost/* | CLI/* | antlr4* | graphviz/* | gvc.h | cgraph.h | doctest/* | benchmark/*)
        fail "${h#"$prefix"/} includes '$inc', which the package does not provide" ;;
    esac
done < <(grep -H -E '^[[:space:]]*#[[:space:]]*include' "$prefix"/include/sfg/runtime/* \
    "$prefix"/include/sfg/*.hpp 2>/dev/null)
# The installed API, exactly (docs/install.md): the live runtime and its test adapters, and the
# analyses of traces by name with the events, nets, findings, traces and enforcer options they
# name. The detectors, the Enforcer class and the benchmarks' helpers are internal.
api="sfg/doctest.hpp sfg/explore.hpp sfg/gtest.hpp sfg/runtime/analyses.hpp sfg/runtime/enforce.hpp
sfg/runtime/event.hpp sfg/runtime/net.hpp sfg/runtime/op.hpp sfg/runtime/report.hpp
sfg/runtime/trace.hpp sfg/runtime/trace_file.hpp sfg/sfg.hpp sfg/spec.hpp sfg/test_session.hpp"
installed=$(cd "$prefix/include" 2>/dev/null && find sfg -type f | LC_ALL=C sort | tr '\n' ' ')
[ "$installed" = "$(tr '\n' ' ' <<<"$api")" ] ||
    fail "installed headers: $installed; expected exactly: $(tr '\n' ' ' <<<"$api")"
[ -e "$prefix/include/sfg/compiler" ] && fail "compiler headers (include/sfg/compiler) are installed"
[ -e "$prefix/include/sfg/checker" ] && fail "checker headers (include/sfg/checker) are installed"
for f in "$src"/runtime/src/*/* "$src"/runtime/internal/sfg/runtime/*/*; do
    found=$(find "$prefix" -name "$(basename "$f")" -print -quit)
    [ -z "$found" ] || fail "runtime internal file installed: ${found#"$prefix"/}"
done
while IFS= read -r f; do
    rel=${f#"$prefix"/}
    case $rel in
    bin/sfgc | lib*/libsfg_runtime.a | lib*/cmake/sfg/sfg*.cmake) ;;
    include/sfg/*.hpp)
        [ -e "$src/runtime/$rel" ] || fail "installed header $rel is not in runtime/include/" ;;
    include/sfg/runtime/*.hpp | include/sfg/runtime/*.h)
        [ -e "$src/runtime/include/sfg/runtime/${rel#include/sfg/runtime/}" ] ||
            fail "installed header $rel is not in runtime/include/sfg/runtime/" ;;
    *) fail "unexpected file installed: $rel" ;;
    esac
done < <(find "$prefix" -type f -o -type l)

# 3. The installed sfgc needs nothing from the build or source tree, and runs from elsewhere.
if command -v ldd >/dev/null; then
    ldd "$prefix/bin/sfgc" >"$work/ldd.txt" 2>&1 || { cat "$work/ldd.txt" >&2; fail "ldd bin/sfgc failed"; }
    grep -q 'not found' "$work/ldd.txt" && { cat "$work/ldd.txt" >&2; fail "bin/sfgc misses libraries"; }
    grep -qF -e "$build" -e "$src" "$work/ldd.txt" &&
        { cat "$work/ldd.txt" >&2; fail "bin/sfgc loads libraries from the build or source tree"; }
fi
if command -v readelf >/dev/null &&
    readelf -d "$prefix/bin/sfgc" | grep -E 'R(UN)?PATH' | grep -qF -e "$build" -e "$src"; then
    fail "bin/sfgc keeps an RPATH into the build or source tree"
fi
printf 'threads t0, t1;\nlock m;\nvar x : [EX(t0) ⊔ EX(t1)]^m;\n' >"$work/lock.sfg"
(cd "$work" && "$prefix/bin/sfgc" lock.sfg) >"$work/sfgc.out" 2>&1 &&
    grep -q '^x: ' "$work/sfgc.out" ||
    { cat "$work/sfgc.out" >&2; fail "the installed sfgc does not compile a spec"; }

# 4. The consumer: find_package(sfg) from the prefix, in a fresh build tree, same compiler. In a
#    sanitizer build, sfg::runtime itself must bring -fsanitize to the link (cmake/install.cmake):
#    the consumer's own code is deliberately not instrumented, so that this is tested.
[ -n "$sanitize" ] && echo "install test: sanitizer build ($sanitize)"
"$cmake" -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$type" \
    >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log" >&2; die "configuring the consumer failed"; }
"$cmake" --build "$work/consumer" "${config[@]}" >"$work/build.log" 2>&1 ||
    { cat "$work/build.log" >&2; die "building the consumer failed"; }
(cd "$work/consumer" && "$ctest" --output-on-failure "${config[@]/--config/-C}") ||
    fail "the consumer's tests failed"

# 5. The examples (examples/): real std::thread programs with doctest suites, each checked by
#    the live runtime through a header sfg_add_discipline generates with the installed sfgc.
"$cmake" -S "$src/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE="$type" \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror" >"$work/examples-configure.log" 2>&1 ||
    { cat "$work/examples-configure.log" >&2; die "configuring the examples failed"; }
"$cmake" --build "$work/examples" "${config[@]}" -j 2 >"$work/examples-build.log" 2>&1 ||
    { cat "$work/examples-build.log" >&2; die "building the examples failed"; }
(cd "$work/examples" && "$ctest" --output-on-failure "${config[@]/--config/-C}") ||
    fail "the examples' tests failed"

# 6. sfg_add_discipline regenerates the header when the spec changes, and a bad spec fails the
#    build with sfgc's diagnostics (file:line:col).
proj=$work/regen
mkdir -p "$proj"
cat >"$proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(regen LANGUAGES CXX)
find_package(sfg CONFIG REQUIRED)
add_executable(app main.cpp)
sfg_add_discipline(app SPEC spec.sfg NAMESPACE disc)
target_link_libraries(app PRIVATE sfg::runtime)
CMAKE
printf '#include "spec.sfg.hpp"\nint main() { return disc::spec().variables().size() == 0; }\n' \
    >"$proj/main.cpp"
printf 'threads t0, t1;\nlock m;\nvar x : [EX(t0) | EX(t1)]^m;\n' >"$proj/spec.sfg"
"$cmake" -S "$proj" -B "$proj/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    >"$proj/log" 2>&1 && "$cmake" --build "$proj/build" >>"$proj/log" 2>&1 ||
    { cat "$proj/log" >&2; die "sfg_add_discipline: the first build failed"; }
header=$(find "$proj/build" -name spec.sfg.hpp)
grep -q '"x"' "$header" || fail "sfg_add_discipline: no x in the generated header"
sleep 1 # a newer modification time
printf 'threads t0, t1;\nlock m;\nvar x, y : [EX(t0) | EX(t1)]^m;\n' >"$proj/spec.sfg"
"$cmake" --build "$proj/build" >>"$proj/log" 2>&1 || { cat "$proj/log" >&2; fail "rebuild failed"; }
grep -q '"y"' "$header" || fail "sfg_add_discipline: the header was not regenerated"
printf 'threads t0, t1;\nvar x : [EX(t0) | EX(t2)]^m;\n' >"$proj/spec.sfg"
if "$cmake" --build "$proj/build" >"$proj/bad.log" 2>&1; then
    fail "sfg_add_discipline: a bad spec did not fail the build"
fi
grep -q "spec.sfg:2:[0-9]*: error:" "$proj/bad.log" ||
    { cat "$proj/bad.log" >&2; fail "sfg_add_discipline: no sfgc diagnostic in the failed build"; }

if [ $failures -ne 0 ]; then
    echo "install test: $failures failure(s)" >&2
    exit 1
fi
echo "install test: installed into $prefix; the consumer and the examples build and run"
