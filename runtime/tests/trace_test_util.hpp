// Runs a text trace through every analysis in one pass, for the tests.
#pragma once

#include "random_trace.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"

#include <string>
#include <utility>
#include <vector>

namespace sfg::testing {

struct AllAnalyses {
    Symbols syms;
    Collector events;
    HbDetector hb;
    FastTrackDetector ft;
    GoldilocksDetector gl;
    EraserDetector eraser;
    TraceResult result;

    explicit AllAnalyses(std::string_view text) {
        Fanout all;
        all.add(events), all.add(hb), all.add(ft), all.add(gl), all.add(eraser);
        result = read_trace_text(text, "t.std", syms, all);
    }

    // (variable, first racy event, with_event) of one detector.
    static std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>>
    races(const RaceDetector& d, const Symbols& syms) {
        std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> out;
        for (const Race& r : d.races())
            out.emplace_back(syms.vars.name(r.var), r.access.event, r.with.event);
        return out;
    }
    // The races all three precise detectors agree on (checked), as (var, event, with).
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> agreed() const {
        auto a = races(hb, syms), b = races(ft, syms), c = races(gl, syms);
        auto key = [](auto v) {
            for (auto& x : v)
                std::get<2>(x) = 0;
            return v;
        };
        if (key(a) != key(b) || key(a) != key(c))
            return {{"DISAGREE", 0, 0}};
        return a;
    }
    std::vector<std::pair<std::string, std::uint64_t>> warnings() const {
        std::vector<std::pair<std::string, std::uint64_t>> out;
        for (const auto& w : eraser.warnings())
            out.emplace_back(syms.vars.name(w.var), w.access.event);
        return out;
    }
};

} // namespace sfg::testing
