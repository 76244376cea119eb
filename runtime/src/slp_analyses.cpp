#include "sfg/runtime/slp_analyses.hpp"

#include "sfg/runtime/slp_hb.hpp"

namespace sfg {

bool runs_on_grammar(std::string_view analysis) {
    return analysis == "hb";
}

std::vector<Finding> grammar_findings(std::string_view analysis, const Slp& slp,
                                      const Symbols& syms) {
    if (analysis == "hb")
        return to_findings(SlpHb(slp, syms).races(), syms);
    return {};
}

} // namespace sfg
