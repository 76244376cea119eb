// Property tests of volume: thousands of random traces through single-threaded analyses against
// their definitions. scripts/test.sh's ThreadSanitizer stage skips them
// (`--test-suite-exclude=volume`): they start no thread, so TSan has nothing to check there; the
// release stage runs them.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

inline const doctest::test_suite volume("volume");

namespace sfg::testlib {

// The random-trace tests' size: `full` traces under SFG_FULL=1 (scripts/test.sh --full), else a
// quarter of them, whose lower bounds are scaled alike by `quarter`.
inline bool full_size() {
    const char* env = std::getenv("SFG_FULL");
    return env && std::string(env) != "0";
}
inline int quarter(int full) {
    return full_size() ? full : full / 4;
}

} // namespace sfg::testlib
