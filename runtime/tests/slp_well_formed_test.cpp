// Well-formedness on the grammar (check_slp_well_formed): the same verdict and error as the
// checker on the expanded trace, for random (mostly ill-formed) event sequences and grammars.
#include "slp_test_util.hpp"

#include <doctest/doctest.h>

using namespace sfg;
using namespace sfg::testing;

TEST_CASE("well-formedness on the grammar = the checker on the trace (6,000 grammars)") {
    std::mt19937_64 rng(99);
    int bad = 0;
    const RandomTraceOptions shapes[] = {
        {4, 2, 2, 2, 1, 30, 0}, {6, 3, 2, 2, 2, 60, 50}, {10, 2, 1, 1, 1, 80, 50}};
    for (int round = 0; round < 2000; ++round) {
        Symbols syms;
        Terminals t = terminals_of(random_trace(rng, shapes[round % 3]), syms);
        // Swap, drop or repeat a few events: most such sequences are ill-formed somewhere.
        auto& s = t.sequence;
        mutate_sequence(rng, s);
        t.slp.locations.clear();
        const std::vector<WellFormedBothWays> both = well_formed_both_ways(t.slp, s, syms, rng);
        for (std::size_t g = 0; g < both.size(); ++g) {
            const WellFormedBothWays& r = both[g];
            REQUIRE(r.on_grammar.has_value() == r.expanded.has_value());
            if (r.on_grammar) {
                CHECK(*r.on_grammar == *r.expanded);
                bad += g == 0;
            }
        }
    }
    MESSAGE("ill-formed: " << bad);
    CHECK(bad > 500);
}
