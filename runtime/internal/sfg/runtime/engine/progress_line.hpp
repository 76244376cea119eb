// The progress line of a long search, shared by `sfgc check` and sfg::explore (docs/programs.md
// and docs/explore.md, "Progress"): "N executions, R/s" and, when the search's size is known or
// estimated, how much of it is done. Drawn on standard error only when that is a terminal (never
// into a pipe, a log or a JSON document), only once the search has run a second, at most twice a
// second, and erased when the line goes, so that the report after it is untouched.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace sfg::engine {

class ProgressLine {
public:
    // On `out` when `enabled` (by default: standard error, when it is a terminal), once the
    // search has run `after`.
    explicit ProgressLine(bool enabled = stderr_is_terminal(), std::FILE* out = stderr,
                          std::chrono::milliseconds after = std::chrono::seconds(1))
        : out_(out), enabled_(enabled), after_(after) {}
    ~ProgressLine() {
        if (shown_) {
            std::fputs("\r\033[K", out_);
            std::fflush(out_);
        }
    }
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    bool enabled() const { return enabled_; }

    // A new line when one is due. `total`: the search's executions, exact (a sampling search's
    // count) or, with `estimated`, Knuth's estimate; 0 when unknown.
    void show(std::uint64_t executions, std::uint64_t total = 0, bool estimated = false) {
        if (!enabled_)
            return;
        const auto now = std::chrono::steady_clock::now();
        const double secs = std::chrono::duration<double>(now - start_).count();
        if (now - start_ < after_ || (shown_ && now - last_ < std::chrono::milliseconds(400)))
            return; // a short search shows nothing; the line changes about twice a second
        last_ = now;
        std::string line = std::to_string(executions) + " executions, " +
                           std::to_string(static_cast<std::uint64_t>(
                               secs > 0 ? static_cast<double>(executions) / secs : 0)) +
                           "/s";
        if (total > 0) {
            const double done = 100.0 * static_cast<double>(executions) /
                                static_cast<double>(std::max(total, executions));
            char tail[96];
            std::snprintf(tail, sizeof tail, ", %s%llu in all%s, %.0f%% done", estimated ? "~" : "",
                          static_cast<unsigned long long>(total), estimated ? " (estimate)" : "",
                          done);
            line += tail;
        }
        std::fprintf(out_, "\r\033[K%s", line.c_str());
        std::fflush(out_);
        shown_ = true;
    }

    static bool stderr_is_terminal() {
#if defined(__unix__) || defined(__APPLE__)
        return isatty(STDERR_FILENO) != 0;
#else
        return false;
#endif
    }

private:
    std::FILE* out_;
    bool enabled_;
    std::chrono::milliseconds after_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last_{};
};

} // namespace sfg::engine
