// Barrier rounds in `sfgc check` (docs/enforcement.md, "Barrier rounds"): the Checker's enforce
// analysis colours a barrier edge's tokens by the generation, so on a program whose rounds
// overlap every execution in which the handed-over variable races is a violation too.
#include "support.hpp"

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {

const CheckFinding* finding(const CheckResult& r, FindingKind k, const std::string& var) {
    for (const CheckFinding& f : r.findings)
        if (f.kind == k && f.var == var)
            return &f;
    return nullptr;
}

} // namespace

TEST_CASE("barrier rounds: every execution of barrier_handover races on p1 and violates it") {
    const auto l = load(read_file(std::string(SFG_SOURCE_DIR) +
                                  "/specs/programs/barrier_handover/barrier_handover.sfg"),
                        "barrier_handover.sfg");
    REQUIRE(l);
    const CheckResult r = run(l->model, Mode::naive);
    REQUIRE(r.stats.complete);
    const CheckFinding* race = finding(r, FindingKind::race, "p1");
    const CheckFinding* violation = finding(r, FindingKind::violation, "p1");
    REQUIRE(race);
    REQUIRE(violation);
    CHECK(race->executions == r.stats.executions);
    // (Without colours, the executions where t0 arrives at round 2 before t1 leaves round 1
    // were admitted.)
    CHECK(violation->executions == r.stats.executions);
}
