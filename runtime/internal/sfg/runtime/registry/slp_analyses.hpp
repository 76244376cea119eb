// The analyses that run on an SLP's grammar without expanding it (docs/compressed.md): `hb`
// (slp_hb.hpp) and `eraser` (slp_eraser.hpp). Their findings are those the registry's analysis
// of the same name (analyses.hpp) finds on the expanded trace; every other analysis reads the
// SLP as a trace, expanded as it streams (read_trace_file).
#pragma once

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/report.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace sfg {

// The compression ratio (events / grammar size) from which `sfgc trace --slp-mode auto` runs
// them on the grammar: below it, expanding the SLP as it streams is faster (docs/compressed.md's
// benchmarks: a grammar symbol costs some 50 to 100 streamed events).
inline constexpr std::uint64_t slp_grammar_ratio = 100;
// Whether `analysis` runs on the grammar.
bool runs_on_grammar(std::string_view analysis);
// Its findings on a well-formed SLP (check_slp_well_formed), in event order.
std::vector<Finding> grammar_findings(std::string_view analysis, const Slp& slp,
                                      const Symbols& syms);

// Where the analyses that can run on the grammar do (`sfgc trace --slp-mode`).
enum class SlpMode : std::uint8_t { automatic, grammar, expand };
// automatic: on the grammar when the compression ratio is at least slp_grammar_ratio (its cost is
// per grammar symbol and many times a streamed event's; docs/compressed.md, "When compression
// pays").
bool analyse_on_grammar(SlpMode mode, std::uint64_t events, std::uint64_t grammar_size);

// An SLP as the analyses take it: its sizes, its grammar (built on first use), and its expansion
// streamed into a sink.
struct SlpSource {
    std::uint64_t events = 0;
    std::uint64_t size = 0; // grammar symbols
    std::function<const Slp&()> grammar;
    std::function<TraceResult(Analysis& sink)> expand;
};

// Runs `analyses` on one SLP: `hb` and `eraser` on the grammar when analyse_on_grammar says so
// (after checking it is well-formed), the others in one pass over the expansion. The reports in
// the order of `analyses`, or the first error in the input.
std::variant<std::vector<AnalysisReport>, TraceError>
analyse_slp(const SlpSource& slp, SlpMode mode,
            std::span<const std::unique_ptr<RunningAnalysis>> analyses, std::string_view file,
            Symbols& syms);

} // namespace sfg
