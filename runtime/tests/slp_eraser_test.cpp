// Eraser on the grammar (slp_eraser.hpp): the paper's open acquires / releases and locksets on
// its examples, and the same warnings as EraserDetector on random traces and grammars.
#include "sfg/runtime/slp/slp_eraser.hpp"
#include "slp_test_util.hpp"
#include "volume.hpp"

#include <doctest/doctest.h>

using namespace sfg;
using namespace sfg::testing;

namespace {

using Strings = std::vector<std::string>;

std::vector<std::string> show(const std::vector<LocksetWarning>& ws, const Symbols& syms) {
    std::vector<std::string> out;
    for (const Finding& f : to_findings(ws, syms))
        out.push_back(f.var + "@" + std::to_string(f.access.event) + ":" +
                      std::to_string(f.access.location) + " with " +
                      (f.with ? std::to_string(f.with->event) + "/" +
                                    std::to_string(f.with->thread) + spelling(f.with->op).data() +
                                    ":" + std::to_string(f.with->location)
                              : "-") +
                      " " + f.message);
    return out;
}

std::vector<std::string> flat(const Slp& slp, const Symbols& syms) {
    EraserDetector d;
    REQUIRE(expand_slp(slp, "t.slp", syms, d).ok());
    return show(d.warnings(), syms);
}

} // namespace

TEST_CASE("TV2 (sigma2): open acquires and releases, locksets (RealLocks)") {
    const Rules& rules = tv2_rules();
    Symbols syms;
    Slp slp = hand_slp(rules, syms);
    auto d = [&](const char* n) { return slp_lockset_dump(slp, syms, hand_rule(rules, n)); };
    CHECK(d("W").open_acq == Strings{"1,l"});
    CHECK(d("X").open_acq == Strings{"2,l"});
    CHECK(d("U").open_acq == Strings{"2,l"});
    CHECK(d("X").open_rel == Strings{"1,l"});
    CHECK(d("Z").open_rel == Strings{"2,l"});
    CHECK(d("V").open_rel == Strings{"2,l"});
    CHECK(d("U").open_rel.empty());
    CHECK(d("S").open_acq.empty());
    CHECK(d("S").open_rel.empty());
    using LS = std::vector<std::pair<std::string, Strings>>;
    CHECK(d("X").locksets == LS{{"1,y", {"l"}}});
    CHECK(d("Y").locksets == LS{{"2,x", {}}, {"2,y", {}}});
    CHECK(d("V").locksets == LS{{"2,x", {}}, {"2,y", {"l"}}, {"1,z", {}}});
    CHECK(d("S").locksets ==
          LS{{"1,x", {}}, {"2,x", {}}, {"1,y", {"l"}}, {"2,y", {"l"}}, {"1,z", {}}});
    CHECK(slp_eraser_warnings(slp, syms).empty());
}

TEST_CASE("TV1 and TV4's tail: the same warnings as Eraser on the trace") {
    {
        const Rules& rules = tv1_rules();
        Symbols syms;
        Slp slp = hand_slp(rules, syms);
        CHECK(show(slp_eraser_warnings(slp, syms), syms) == flat(slp, syms));
        CHECK(slp_eraser_warnings(slp, syms).size() == 1);
    }
    Rules rules{{"S", {"A40", "2|w(x)"}},
                {"M1", {"1|acq(l)", "1|w(x)", "1|rel(l)"}},
                {"M2", {"2|acq(l)", "2|w(x)", "2|rel(l)"}},
                {"A0", {"M1", "M2"}}};
    for (int i = 1; i <= 40; ++i)
        rules.push_back(
            {"A" + std::to_string(i), {"A" + std::to_string(i - 1), "A" + std::to_string(i - 1)}});
    Symbols syms;
    Slp slp = hand_slp(rules, syms);
    const auto ws = slp_eraser_warnings(slp, syms);
    REQUIRE(ws.size() == 1);
    CHECK(ws[0].access.event == slp.events());
    CHECK(ws[0].with->event == slp.events() - 5); // thread 1's last write
}

TEST_CASE("random traces and grammars: eraser on the SLP = Eraser on the trace (4,000 traces)" *
          volume) {
    std::mt19937_64 rng(1997);
    int warned = 0;
    const RandomTraceOptions shapes[] = {
        {4, 2, 2, 2, 1, 30, 0},
        {6, 3, 2, 2, 2, 60, 50},
        {5, 3, 2, 1, 1, 80, 95},
        {10, 2, 1, 1, 1, 120, 50},
        {3, 2, 3, 1, 0, 200, 90},
        // More than 64 threads and objects: sets of U beyond one machine word.
        {50, 4, 30, 3, 2, 300, 60}};
    for (int round = 0; round < 4000; ++round) {
        const std::string text = random_trace(rng, shapes[round % 6]);
        Symbols syms;
        Terminals t = terminals_of(text, syms);
        for (int g = 0; g < 3; ++g) {
            const Slp slp = grammar_by(g, t.slp, t.sequence, rng);
            const auto want = flat(slp, syms);
            CHECK_MESSAGE(show(slp_eraser_warnings(slp, syms), syms) == want, text);
            if (g == 0 && !want.empty())
                ++warned;
        }
    }
    MESSAGE("traces with warnings: " << warned);
    CHECK(warned > 500);
}
