// sfg::explore with what the tests compare beyond its report (docs/explore.md), private to
// runtime/src/explore and its tests.
#pragma once

#include "sfg/explore.hpp"

#include <cstdint>
#include <functional>

namespace sfg::explore_detail {

// explore(), also counting the distinct Mazurkiewicz classes of the runs (for every mode: naive
// reports its executions as classes).
explore_report explore_counting(const spec* s, std::function<void()> body, explore_options o,
                                std::uint64_t& distinct_classes);

} // namespace sfg::explore_detail
