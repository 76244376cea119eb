// Pieces shared by the task runners (explore.cpp, dpor.cpp): how an execution ended.
#pragma once

#include "sfg/checker/explore.hpp"

namespace sfg::checker {

// A path with no step left is a deadlock when some thread is still ready (blocked).
inline EndKind end_of(const State& s, bool any_enabled) {
    if (any_enabled)
        return EndKind::steps;
    for (const ThreadState& t : s.threads)
        if (t.status == ThreadStatus::ready)
            return EndKind::deadlock;
    return EndKind::normal;
}

} // namespace sfg::checker
