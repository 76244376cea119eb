// A trace recorded by a live session (session_options::trace_path) read back through named
// analyses, as `sfgc trace --analysis` would (docs/enforcers.md: the recording replays to the
// same findings). Used by the live tests of runtime/tests and tests/live.
#pragma once

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
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

    // Every analysis' findings as line(analysis name, finding), in event order (ties in the
    // order named), as a live session collects them.
    template <class Line>
    std::vector<std::string> in_event_order(Line line) const {
        std::vector<std::pair<std::uint64_t, std::string>> found;
        for (const auto& a : analyses)
            for (const Finding& f : a->findings(syms))
                found.emplace_back(f.access.event, line(a->info().name, f));
        std::stable_sort(found.begin(), found.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        std::vector<std::string> out;
        for (auto& f : found)
            out.push_back(std::move(f.second));
        return out;
    }

    Symbols syms;
    TraceResult result;
    std::vector<std::unique_ptr<RunningAnalysis>> analyses; // in the order named
};

} // namespace sfg::testing
