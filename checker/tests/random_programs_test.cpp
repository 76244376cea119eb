// Random small programs (random_program.hpp): naive exploration is complete and deterministic,
// the classes never exceed the executions, every execution is replayable from its schedule, and
// random mode finds a subset of naive's findings and final states.
#include "random_program.hpp"
#include "support.hpp"

#include <set>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {
// The grouping of docs/programs.md: (kind, var) for races and violations, (kind, line) otherwise.
std::pair<int, std::string> key(const CheckFinding& f) {
    return {static_cast<int>(f.kind), f.var.empty() ? std::to_string(f.line().value_or(0)) : f.var};
}
} // namespace

TEST_CASE("random programs: naive and random modes agree") {
    int checked = 0;
    const std::uint64_t n = seeds(150, 75);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = random_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        CheckResult naive = run(l->model, Mode::naive, 20000);
        if (!naive.stats.complete)
            continue;
        ++checked;
        CHECK(naive.classes <= naive.stats.executions);
        CHECK(naive.classes >= 1);
        CheckResult again = run(l->model, Mode::naive, 20000);
        CHECK(again.classes == naive.classes);
        CHECK(again.final_states == naive.final_states);
        CHECK(again.findings.size() == naive.findings.size());
        CheckResult rnd = run(l->model, Mode::random, 200, seed);
        std::set<std::pair<int, std::string>> a, b;
        for (const CheckFinding& f : naive.findings)
            a.insert(key(f));
        for (const CheckFinding& f : rnd.findings)
            b.insert(key(f));
        for (const auto& f : b)
            CHECK(a.count(f) == 1);
        CHECK(rnd.final_states <= naive.final_states);
        if (naive.stats.executions <= 20)
            CHECK(a == b); // 200 random runs cover 20 interleavings with high probability
    }
    CHECK(checked >= at_least(100, n, 150));
}
