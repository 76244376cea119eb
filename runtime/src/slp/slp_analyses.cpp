#include "sfg/runtime/slp_analyses.hpp"

#include "sfg/runtime/slp_eraser.hpp"
#include "sfg/runtime/slp_hb.hpp"

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

} // namespace sfg
