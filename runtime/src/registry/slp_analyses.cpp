#include "sfg/runtime/registry/slp_analyses.hpp"

#include "sfg/runtime/slp/slp_eraser.hpp"
#include "sfg/runtime/slp/slp_hb.hpp"

#include <algorithm>

namespace sfg {

bool runs_on_grammar(std::string_view analysis) {
    return analysis == "hb" || analysis == "eraser";
}

std::vector<Finding> grammar_findings(std::string_view analysis, const Slp& slp,
                                      const Symbols& syms) {
    if (analysis == "hb")
        return to_findings(SlpHb(slp, syms).races(), syms);
    if (analysis == "eraser")
        return to_findings(slp_eraser_warnings(slp, syms), syms);
    return {};
}

bool analyse_on_grammar(SlpMode mode, std::uint64_t events, std::uint64_t grammar_size) {
    return mode == SlpMode::grammar ||
           (mode == SlpMode::automatic &&
            events / std::max<std::uint64_t>(grammar_size, 1) >= slp_grammar_ratio);
}

std::variant<std::vector<AnalysisReport>, TraceError>
analyse_slp(const SlpSource& slp, SlpMode mode,
            std::span<const std::unique_ptr<RunningAnalysis>> analyses, std::string_view file,
            Symbols& syms) {
    const bool on_grammar = analyse_on_grammar(mode, slp.events, slp.size);
    if (on_grammar)
        if (std::optional<TraceError> error = check_slp_well_formed(slp.grammar(), file, syms))
            return std::move(*error);
    auto grammar = [&](std::string_view name) { return on_grammar && runs_on_grammar(name); };
    Fanout streamed;
    std::vector<Analysis*> on_events;
    for (const auto& a : analyses)
        if (!grammar(a->info().name)) {
            streamed.add(a->analysis());
            on_events.push_back(&a->analysis());
        }
    if (!on_events.empty()) {
        // One analysis takes the events directly, as from a trace: one virtual call an event
        // fewer.
        Analysis& sink = on_events.size() == 1 ? *on_events.front() : streamed;
        TraceResult read = slp.expand(sink);
        if (!read.ok())
            return std::move(*read.error);
        streamed.finish(syms);
    }
    std::vector<AnalysisReport> reports;
    for (const auto& a : analyses) {
        const std::string_view name = a->info().name;
        reports.push_back(grammar(name)
                              ? AnalysisReport{std::string(name), a->info().kind,
                                               grammar_findings(name, slp.grammar(), syms)}
                              : a->report(syms));
    }
    return reports;
}

} // namespace sfg
