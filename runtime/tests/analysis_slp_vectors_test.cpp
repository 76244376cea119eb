// The test traces TV1 and TV2 of the paper on race detection over grammar-compressed traces,
// through every analysis.
#include "trace_test_util.hpp"

#include <doctest/doctest.h>

using namespace sfg;
using namespace sfg::testing;
using Races = std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>>;
using Warnings = std::vector<std::pair<std::string, std::uint64_t>>;

TEST_CASE("TV1 (sigma1): fork/join and a lock; the only race is e10/e13 on y") {
    AllAnalyses a("1|w(x)\n1|fork(2)\n"
                  "2|r(x)\n2|acq(l)\n2|w(y)\n2|rel(l)\n"
                  "1|r(x)\n1|acq(l)\n1|rel(l)\n1|w(y)\n"
                  "2|r(x)\n2|acq(l)\n2|w(y)\n2|rel(l)\n"
                  "1|join(2)\n1|w(y)\n");
    REQUIRE(a.result.ok());
    CHECK(a.result.events == 16);
    CHECK(a.agreed() == Races{{"y", 13, 10}});
    // Eraser: y is written by thread 1 holding no lock (e10). x is only read once shared, which
    // Eraser's Shared state accepts (the SLP paper's state-less lockset flags x too).
    CHECK(a.warnings() == Warnings{{"y", 10}});
}

TEST_CASE("TV2 (sigma2): no race and no lockset violation") {
    AllAnalyses a("1|r(x)\n1|acq(l)\n1|w(y)\n1|rel(l)\n2|acq(l)\n2|r(x)\n2|w(y)\n2|rel(l)\n"
                  "2|r(x)\n1|w(z)\n");
    REQUIRE(a.result.ok());
    CHECK(a.result.events == 10);
    CHECK(a.agreed().empty());
    CHECK(a.warnings().empty());
}

TEST_CASE("TV5: fork/join orders, Eraser still warns; TV5b races") {
    AllAnalyses a("1|w(x)\n1|fork(2)\n2|w(x)\n1|join(2)\n1|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    CHECK(a.warnings() == Warnings{{"x", 3}});
    AllAnalyses b("1|w(x)\n3|w(y)\n2|w(x)\n1|w(x)\n");
    REQUIRE(b.result.ok());
    CHECK(b.agreed() == Races{{"x", 3, 1}});
}
