// A trace recorded by a live session (session_options::trace_path) read back through named
// analyses, as `sfgc trace --analysis` would (docs/enforcers.md: the recording replays to the
// same findings). Used by the live tests of runtime/tests and tests/live.
#pragma once

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sfg::testing {

// Built in place (the analyses were fed `syms`): the trace must read without error.
struct Replay {
    Replay(const std::string& path, std::initializer_list<std::string_view> names,
           const AnalysisInputs& inputs = {}) {
        Fanout fan;
        for (std::string_view name : names) {
            analyses.push_back(make_analysis(name, inputs));
            fan.add(analyses.back()->analysis());
        }
        result = read_trace_file(path, syms, fan);
        REQUIRE_MESSAGE(result.ok(), result.error->to_string());
        fan.finish(syms);
    }
    Replay(const Replay&) = delete;
    Replay& operator=(const Replay&) = delete;

    Symbols syms;
    TraceResult result;
    std::vector<std::unique_ptr<RunningAnalysis>> analyses; // in the order named
};

} // namespace sfg::testing
