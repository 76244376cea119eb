// Goldilocks against test vectors V1-V6 (built from the TR and the CACM article) and the article's
// Figure 3 step by step, each also checked against hb and fasttrack.
#include "trace_test_util.hpp"

#include <doctest/doctest.h>

using namespace sfg;
using namespace sfg::testing;
using Races = std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>>;

namespace {

// GLS_W(x) as names, e.g. {"La", "T1"}: threads and locks/volatiles by name, sorted.
std::vector<std::string> gls(AllAnalyses& a, const char* var) {
    auto v = a.gl.write_lockset(a.syms.vars.find(var));
    std::vector<std::string> out;
    for (auto t : v.threads)
        out.push_back(a.syms.threads.name(t));
    for (auto m : v.locks)
        out.push_back(a.syms.locks.name(m));
    for (auto m : v.volatiles)
        out.push_back(a.syms.volatiles.name(m));
    for (auto m : v.barriers)
        out.push_back(a.syms.barriers.name(m));
    std::sort(out.begin(), out.end());
    return out;
}

using Names = std::vector<std::string>;

} // namespace

TEST_CASE("V1: unsynchronized writes race") {
    AllAnalyses a("T1|w(x)\nT2|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 2, 1}});
}

TEST_CASE("V2: volatile handshake orders the accesses") {
    AllAnalyses a("T1|w(x)\nT1|vw(f)\nT2|vr(f)\nT2|r(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
}

TEST_CASE("V2 step by step: GLS {T1} -> {T1,f} -> {T1,f,T2}") {
    AllAnalyses a1("T1|w(x)\n");
    CHECK(gls(a1, "x") == Names{"T1"});
    AllAnalyses a2("T1|w(x)\nT1|vw(f)\n");
    CHECK(gls(a2, "x") == Names{"T1", "f"});
    AllAnalyses a3("T1|w(x)\nT1|vw(f)\nT2|vr(f)\n");
    CHECK(gls(a3, "x") == Names{"T1", "T2", "f"});
}

TEST_CASE("V3: a volatile read before the write does not order") {
    AllAnalyses a("T2|vr(f)\nT1|w(x)\nT1|vw(f)\nT2|r(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 4, 2}});
}

TEST_CASE("V4: fork and join order the parent's and child's accesses") {
    AllAnalyses a("T0|w(x)\nT0|fork(T1)\nT1|w(x)\nT0|join(T1)\nT0|r(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    // {T0} -> +T1 -> {T1} -> +T0 -> {T0}. (A read leaves GLS_W as it is, so the last step is
    // shown with a write.)
    AllAnalyses b("T0|w(x)\nT0|fork(T1)\n");
    CHECK(gls(b, "x") == Names{"T0", "T1"});
    AllAnalyses c("T0|w(x)\nT0|fork(T1)\nT1|w(x)\nT0|join(T1)\n");
    CHECK(gls(c, "x") == Names{"T0", "T1"});
    AllAnalyses d("T0|w(x)\nT0|fork(T1)\nT1|w(x)\nT0|join(T1)\nT0|w(x)\n");
    CHECK(d.agreed().empty());
    CHECK(gls(d, "x") == Names{"T0"});
}

TEST_CASE("V5: the stale-alock flaw of the printed pseudocode is fixed") {
    // T1's second write is owner-short-circuited while T1 holds no lock; keeping alock = l
    // would wrongly pass T2's write (the alock fix, docs/traces.md).
    AllAnalyses a("T1|acq(l)\nT1|w(x)\nT1|rel(l)\nT1|w(x)\nT2|acq(l)\nT2|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 6, 4}});
    CHECK(AllAnalyses::races(a.gl, a.syms) == Races{{"x", 6, 4}});
}

TEST_CASE("V6: a lock on one side only does not order") {
    AllAnalyses a("T1|acq(l)\nT1|w(x)\nT1|rel(l)\nT2|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 4, 2}});
}

TEST_CASE("SharedSpot: after one walk, every access takes the alock short-circuit") {
    std::string t;
    for (int i = 0; i < 50; ++i)
        for (int th = 0; th < 4; ++th)
            t += "T" + std::to_string(th) + "|acq(l)\nT" + std::to_string(th) + "|r(x)\nT" +
                 std::to_string(th) + "|w(x)\nT" + std::to_string(th) + "|rel(l)\n";
    AllAnalyses a(t);
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    CHECK(a.gl.stats().walks <= 2);
    CHECK(a.gl.stats().alock_hits >= 300);
    CHECK(a.gl.live_cells() <= 2); // garbage collection keeps the list short
}

TEST_CASE("Figure 3 (CACM'10): the lock protecting x changes without x being accessed") {
    // Step 1 (new Int) has no event, so event k is step k+1. a, b are other variables.
    const char* steps[] = {
        "T1|w(x)",    // 2  first access             {T1}
        "T1|acq(La)", // 3                          {T1}
        "T1|w(a)",    // 4  a = tmp1                 {T1}
        "T1|rel(La)", // 5                          {T1,La}
        "T2|acq(La)", // 6                          {T1,La,T2}
        "T2|r(a)",    // 7                           {T1,La,T2}
        "T2|rel(La)", // 8                          {T1,La,T2}
        "T2|acq(Lb)", // 9                          {T1,La,T2}
        "T2|w(b)",    // 10                          {T1,La,T2}
        "T2|rel(Lb)", // 11                         {T1,La,T2,Lb}
        "T3|acq(Lb)", // 12                         {T1,La,T2,Lb,T3}
        "T3|w(x)",    // 13 no race                  {T3}
        "T3|r(b)",    // 14                          {T3}
        "T3|rel(Lb)", // 15                         {T3,Lb}
        "T3|w(x)",    // 16 no race                  {T3}
    };
    const Names after[] = {
        {"T1"},
        {"T1"},
        {"T1"},
        {"La", "T1"},
        {"La", "T1", "T2"},
        {"La", "T1", "T2"},
        {"La", "T1", "T2"},
        {"La", "T1", "T2"},
        {"La", "T1", "T2"},
        {"La", "Lb", "T1", "T2"},
        {"La", "Lb", "T1", "T2", "T3"},
        {"T3"},
        {"T3"},
        {"Lb", "T3"},
        {"T3"},
    };
    std::string trace;
    for (int k = 0; k < 15; ++k) {
        trace += std::string(steps[k]) + "\n";
        AllAnalyses a(trace);
        REQUIRE(a.result.ok());
        INFO("step " << k + 2);
        CHECK(gls(a, "x") == after[k]);
        CHECK(a.agreed().empty()); // race-free at every step, by all three detectors
    }
    // Original Eraser reports a false race at step 16.
    AllAnalyses a(trace);
    CHECK(a.warnings() == std::vector<std::pair<std::string, std::uint64_t>>{{"x", 15}});
}

TEST_CASE("IntBox swap (TR §2.3): no race although no single lock protects o1.x") {
    AllAnalyses a("T1|acq(L1)\nT1|r(o1.x)\nT1|w(o1.x)\nT1|rel(L1)\n"
                  "T2|acq(L1)\nT2|acq(L2)\nT2|r(a)\nT2|w(a)\nT2|w(b)\nT2|rel(L1)\nT2|rel(L2)\n"
                  "T3|acq(L2)\nT3|r(o1.x)\nT3|w(o1.x)\nT3|rel(L2)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    // Basic-Eraser (no states) flags o1.x; Eraser's Exclusive state absorbs T1's accesses, so
    // C(o1.x) starts at T3's {L2} and stays non-empty.
    CHECK(a.warnings().empty());
}

TEST_CASE("Task queue (TR App. A): fork/join of subtasks") {
    AllAnalyses a("T1|w(out)\nT1|acq(Q)\nT1|rel(Q)\nT2|acq(Q)\nT2|rel(Q)\nT2|fork(S0,S1)\n"
                  "S0|acq(T)\nS0|r(out)\nS0|w(out)\nS0|rel(T)\nS1|acq(T)\nS1|r(out)\n"
                  "S1|w(out)\nS1|rel(T)\nT2|join(S0,S1)\nT2|r(out)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
}

TEST_CASE("barriers: a generation's arrivals before its departures order rounds") {
    AllAnalyses a("A|w(x)\nA|benter(b)\nB|benter(b)\nA|bexit(b)\nB|bexit(b)\nB|w(x)\n"
                  "B|benter(b)\nA|benter(b)\nA|bexit(b)\nB|bexit(b)\nA|r(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    // Exiting before the other thread entered: B's exit is not ordered after A's write.
    AllAnalyses b("B|benter(b)\nB|bexit(b)\nA|w(x)\nA|benter(b)\nB|w(x)\n");
    REQUIRE(b.result.ok());
    CHECK(b.agreed() == Races{{"x", 5, 3}});
    // A's arrival at round 2 (event 5) before B leaves round 1 orders nothing for B.
    AllAnalyses c("A|benter(b)\nB|benter(b)\nA|bexit(b)\nA|w(x)\nA|benter(b)\nB|bexit(b)\n"
                  "B|w(x)\nB|benter(b)\nA|bexit(b)\nB|bexit(b)\nB|r(x)\n");
    REQUIRE(c.result.ok());
    CHECK(c.agreed() == Races{{"x", 7, 4}});
}

TEST_CASE("read-read is never a race; a write after concurrent reads is") {
    AllAnalyses a("T0|w(x)\nT0|fork(T1,T2)\nT1|r(x)\nT2|r(x)\nT1|r(x)\nT2|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 6, 3}});
}

TEST_CASE("a forked thread with no events still orders fork before join") {
    AllAnalyses a("T0|w(x)\nT0|fork(T1)\nT2|join(T1)\nT2|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    AllAnalyses b("T0|fork(T1)\nT0|w(x)\nT2|join(T1)\nT2|w(x)\n");
    REQUIRE(b.result.ok());
    CHECK(b.agreed() == Races{{"x", 4, 2}});
}
