// Bounds shared by the harnesses: far below sfgc's defaults so that one input costs milliseconds
// (the fuzzer wants many executions); what they exercise is that every bound is checked before
// the work is done, which does not depend on its value. SFG_FUZZ_DEFAULT_LIMITS=1 in the
// environment selects the library's defaults instead (what sfgc runs with).
#pragma once

#include "sfg/compiler/limits.hpp"
#include "sfg/compiler/verify.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace sfg::fuzz {

inline bool default_limits() {
    static const bool on = [] {
        const char* v = std::getenv("SFG_FUZZ_DEFAULT_LIMITS");
        return v && std::string_view(v) == "1";
    }();
    return on;
}

inline CompileLimits compile_limits() {
    return default_limits() ? CompileLimits{}
                            : CompileLimits{.modes = 2000, .edges = 20000, .net_size = 20000};
}

// verify_net
inline std::size_t max_markings() {
    return default_limits() ? default_max_markings : 2000;
}

// Distinct threads of a trace (trace_harness.hpp's ThreadBound).
inline constexpr std::size_t max_trace_threads = 2000;

// check_model, per mode
inline constexpr std::uint64_t max_executions = 200;
inline constexpr std::uint64_t max_steps = 200;

} // namespace sfg::fuzz
