// Property tests of volume: thousands of random traces through single-threaded analyses against
// their definitions. scripts/test.sh's ThreadSanitizer stage skips them
// (`--test-suite-exclude=volume`): they start no thread, so TSan has nothing to check there; the
// release stage runs them.
#pragma once

#include <doctest/doctest.h>

inline const doctest::test_suite volume("volume");
