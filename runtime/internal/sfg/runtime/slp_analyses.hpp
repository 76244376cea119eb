// The analyses that run on an SLP's grammar without expanding it (docs/compressed.md): `hb`
// (slp_hb.hpp) and `eraser` (slp_eraser.hpp). Their findings are those the registry's analysis
// of the same name (analyses.hpp) finds on the expanded trace; every other analysis reads the
// SLP as a trace, expanded as it streams (read_trace_file).
#pragma once

#include "sfg/runtime/report.hpp"
#include "sfg/runtime/slp.hpp"

#include <cstdint>
#include <string_view>
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

} // namespace sfg
