// Pieces shared by the explorers (explore.cpp, dpor.cpp): the progress line and how an
// execution ended.
#pragma once

#include "sfg/checker/explore.hpp"

#include <chrono>
#include <cstdio>

namespace sfg::check {

// "executions, rate, depth" on stderr at most twice a second (docs/programs.md).
class Progress {
public:
    explicit Progress(bool on) : on_(on), start_(clock::now()), last_(start_) {}
    ~Progress() {
        if (shown_)
            std::fputs("\r\033[K", stderr);
    }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void tick(std::uint64_t executions, std::uint64_t depth) {
        if (!on_ || (executions & 255) != 0)
            return;
        auto now = clock::now();
        if (now - last_ < std::chrono::milliseconds(500))
            return;
        last_ = now;
        double secs = std::chrono::duration<double>(now - start_).count();
        std::fprintf(stderr, "\r\033[K%llu executions, %.0f/s, depth %llu",
                     static_cast<unsigned long long>(executions), executions / secs,
                     static_cast<unsigned long long>(depth));
        shown_ = true;
    }

private:
    using clock = std::chrono::steady_clock;
    bool on_, shown_ = false;
    clock::time_point start_, last_;
};

// A path with no step left is a deadlock when some thread is still ready (blocked).
inline EndKind end_of(const State& s, bool any_enabled) {
    if (any_enabled)
        return EndKind::steps;
    for (const ThreadState& t : s.threads)
        if (t.status == ThreadStatus::ready)
            return EndKind::deadlock;
    return EndKind::normal;
}

} // namespace sfg::check
