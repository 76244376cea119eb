// Lock-held modes LOCK_m(T) (thesis §5.2, docs/enforcement.md): [READ LOCKED] and [WRITE LOCKED]
// permit an access by t only while t holds m. The thesis' Figure 5.1, a fork/join phase under a
// lock, the explanations, and soundness on random traces (admitted implies race-free, as for
// Theorem 4.2.2), with the enforcer equal to Figure 4.15 applied literally.
#include "enforce_testlib.hpp"
#include "random_trace.hpp"
#include "soundness_check.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <set>

using namespace sfg;
using namespace sfg::testlib;
using sfg::testing::Collector;
using sfg::testing::HbOracle;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;

namespace {

// The enforcer with each way of keeping candidate sets, and the reference: all agree on the
// first violation of every variable; returns the default enforcer's violations (report_all).
std::vector<EnforceViolation> check(const std::vector<std::pair<std::string, Net>>& vars,
                                    const Trace& tr) {
    Enforcer enf({.report_all = true});
    Enforcer plain({.group_one_token = false, .factor_candidates = false});
    RefEnforcer ref;
    for (const auto& [x, n] : vars) {
        enf.add_variable(x, n);
        plain.add_variable(x, n);
        ref.add_variable(x, n);
    }
    tr.feed(enf);
    tr.feed(plain);
    tr.feed(ref);
    for (const auto& var : vars) {
        const auto& x = var.first;
        auto first = [&](const Enforcer& e) { return first_violation_of(e, x); };
        CHECK_MESSAGE(first(enf) == ref.first_violation(x), "variable " << x);
        CHECK_MESSAGE(first(plain) == ref.first_violation(x), "variable " << x);
    }
    return enf.all_violations();
}

// specs/traces/fig5_1.std: the thesis' trace, whose memory projection walks
// EX(t0) -m-> EX(t1) -m-> EX(t2).
const std::initializer_list<std::string> fig5_1 = {
    "t0|w(x)",   "t0|acq(m)", "t0|rel(m)", "t1|acq(m)", "t1|rel(m)", "t1|r(x)",
    "t1|acq(m)", "t1|rel(m)", "t2|acq(m)", "t2|rel(m)", "t2|w(x)"};

} // namespace

TEST_CASE("Figure 5.1: conforms to [EX(t0) ⊔ EX(t1) ⊔ EX(t2)]^m, violates LOCK(m: t0, t1, t2)") {
    const Trace tr = trace(fig5_1);
    CHECK_FALSE(racy(tr, "x"));
    const Net ordered = build_petri_net(loop(alt(EX("t0"), EX("t1"), EX("t2")), lock("m")));
    CHECK(check({{"x", ordered}}, tr).empty());

    const Net locked = build_petri_net(LOCK("m", {"t0", "t1", "t2"}));
    const auto all = check({{"x", locked}}, tr);
    REQUIRE(all.size() == 3); // every access, none under m
    CHECK(all[0].event == 1);
    CHECK(explain(all[0]) == "w(x) by t0 is not permitted: LOCK_m(t0,t1,t2) needs t0 to hold m");
    CHECK(all[1].event == 6);
    CHECK(explain(all[1]) ==
          "r(x) by t1 is not permitted (after re-synchronizing from an earlier violation): "
          "LOCK_m(t0,t1,t2) needs t1 to hold m");
}

// Without t1's second critical section, t1's read is after its last release and races with
// t2's write: not even [...]^m admits it (at the write); LOCK(m: ...) stops at the first access.
TEST_CASE("Figure 5.1 without t1's second acq/rel: racy, and a violation of both") {
    const Trace tr = trace({"t0|w(x)", "t0|acq(m)", "t0|rel(m)", "t1|acq(m)", "t1|rel(m)",
                            "t1|r(x)", "t2|acq(m)", "t2|rel(m)", "t2|w(x)"});
    CHECK(racy(tr, "x"));
    const Net ordered = build_petri_net(loop(alt(EX("t0"), EX("t1"), EX("t2")), lock("m")));
    const auto by_order = check({{"x", ordered}}, tr);
    REQUIRE(by_order.size() == 1);
    CHECK(by_order[0].event == 9);
    const auto by_lock = check({{"x", build_petri_net(LOCK("m", {"t0", "t1", "t2"}))}}, tr);
    REQUIRE_FALSE(by_lock.empty());
    CHECK(by_lock[0].event == 1);
}

TEST_CASE("LOCK(m: t0, t1, t2): the same accesses made while holding m conform") {
    const Net locked = build_petri_net(LOCK("m", {"t0", "t1", "t2"}));
    const Trace tr = trace({"t0|acq(m)", "t0|w(x)", "t0|rel(m)", "t1|acq(m)", "t1|r(x)", "t1|w(x)",
                            "t1|rel(m)", "t2|acq(m)", "t2|w(x)", "t2|rel(m)"});
    CHECK_FALSE(racy(tr, "x"));
    CHECK(check({{"x", locked}}, tr).empty());
}

TEST_CASE("LOCK(m: ...): holding another lock does not count") {
    const Net locked = build_petri_net(LOCK("m", {"t0", "t1"}));
    const auto all =
        check({{"x", locked}},
              trace({"t0|acq(m)", "t0|w(x)", "t0|rel(m)", "t1|acq(n)", "t1|w(x)", "t1|rel(n)"}));
    REQUIRE(all.size() == 1);
    CHECK(all[0].event == 5);
    CHECK(explain(all[0]) == "w(x) by t1 is not permitted: LOCK_m(t0,t1) needs t1 to hold m");
}

TEST_CASE("LOCK(m: ...): an access after the release is not under m") {
    const Net locked = build_petri_net(LOCK("m", {"t0", "t1"}));
    const auto all =
        check({{"x", locked}}, trace({"t0|acq(m)", "t0|w(x)", "t0|rel(m)", "t0|r(x)"}));
    REQUIRE(all.size() == 1);
    CHECK(all[0].event == 4);
}

// "main initialises, the workers use it under m, main reads the result" (Clang's GUARDED_BY(m)
// inside a fork/join phase).
TEST_CASE("EX(main) ▷^fork LOCK(m: w1, w2) ▷^join EX(main)") {
    const Net net =
        build_petri_net(seq(seq(EX("main"), fork("main", {"w1", "w2"}), LOCK("m", {"w1", "w2"})),
                            join({"w1", "w2"}, "main"), EX("main")));
    REQUIRE(net.edges.size() == 2);
    SUBCASE("the workers under m conform") {
        const Trace tr = trace({"main|w(x)", "main|fork(w1,w2)", "w1|acq(m)", "w1|r(x)", "w1|w(x)",
                                "w1|rel(m)", "w2|acq(m)", "w2|w(x)", "w2|rel(m)",
                                "main|join(w1,w2)", "main|r(x)", "main|w(x)"});
        CHECK_FALSE(racy(tr, "x"));
        CHECK(check({{"x", net}}, tr).empty());
    }
    SUBCASE("a worker's write without m is a violation, even when it does not race") {
        const Trace tr =
            trace({"main|w(x)", "main|fork(w1,w2)", "w1|acq(m)", "w1|w(x)", "w1|rel(m)",
                   "w2|acq(m)", "w2|rel(m)", "w2|w(x)", "main|join(w1,w2)", "main|r(x)"});
        CHECK_FALSE(racy(tr, "x"));
        const auto all = check({{"x", net}}, tr);
        REQUIRE(all.size() == 1);
        CHECK(all[0].event == 8);
        CHECK(explain(all[0]) == "w(x) by w2 is not permitted: LOCK_m(w1,w2) needs w2 to hold m");
    }
    SUBCASE("main may not use x in the workers' phase, even holding m") {
        const Trace tr = trace({"main|w(x)", "main|fork(w1,w2)", "w1|acq(m)", "w1|w(x)",
                                "w1|rel(m)", "main|acq(m)", "main|r(x)"});
        const auto all = check({{"x", net}}, tr);
        REQUIRE(all.size() == 1);
        CHECK(all[0].event == 7);
    }
    SUBCASE("a worker that was not forked must start, and hold m") {
        const Trace tr = trace({"main|w(x)", "w1|w(x)"});
        const auto all = check({{"x", net}}, tr);
        REQUIRE(all.size() == 1);
        CHECK(explain(all[0]) ==
              "w(x) by w1 is not permitted: the possible mode was EX(main)#0; to enter "
              "LOCK_m(w1,w2) (edge EX(main)#0 -fork(main->w1,w2)-> LOCK_m(w1,w2)), main must "
              "fork(w1,w2) after its accesses in EX(main)#0 and w1 must start (be forked by "
              "main) before writing x, holding m");
    }
}

TEST_CASE("[LOCK(m: t0) ⊔ LOCK(m: t1)]^v: LOCK modes of one thread each, passed by a volatile") {
    const Net net = build_petri_net(loop(alt(LOCK("m", {"t0"}), LOCK("m", {"t1"})), vol("v")));
    const auto all =
        check({{"x", net}}, trace({"t0|acq(m)", "t0|w(x)", "t0|rel(m)", "t0|vw(v)", "t1|vr(v)",
                                   "t1|acq(m)", "t1|w(x)", "t1|rel(m)", "t1|r(x)"}));
    REQUIRE(all.size() == 1);
    CHECK(all[0].event == 9);
    CHECK(explain(all[0]) == "r(x) by t1 is not permitted: LOCK_m(t1) needs t1 to hold m");
}

TEST_CASE("LOCK modes of different locks in one discipline: each needs its own") {
    const Net net = build_petri_net(
        seq(LOCK("m", {"t0", "t1"}), barrier("b", {"t0", "t1"}), LOCK("n", {"t0", "t1"})));
    const Trace tr =
        trace({"t0|acq(m)", "t0|w(x)", "t0|rel(m)", "t0|benter(b)", "t1|benter(b)", "t0|bexit(b)",
               "t1|bexit(b)", "t1|acq(n)", "t1|w(x)", "t1|rel(n)", "t0|acq(m)", "t0|w(x)"});
    const auto all = check({{"x", net}}, tr);
    REQUIRE(all.size() == 1);
    CHECK(all[0].event == 12);
    CHECK(explain(all[0]) == "w(x) by t0 is not permitted: LOCK_n(t0,t1) needs t0 to hold n");
}

// Soundness of the lock-held modes, modelled on the random test of Theorem 4.2.2
// (enforce_random_test.cpp): random disciplines of EX, RS and LOCK modes over locks, volatiles,
// fork and join (no barriers: their overlapping rounds are the known gap, docs/enforcement.md),
// on random traces whose accesses mostly hold the variable's lock. A variable the enforcer admits
// is race-free by the brute-force happens-before oracle, and the enforcer reports the first
// violation that Figure 4.15 with [READ LOCKED] / [WRITE LOCKED] applied literally does.
TEST_CASE("random traces (20,000 with --full) with LOCK modes: admitted implies race-free" *
          volume) {
    std::mt19937_64 rng(51);
    SoundnessCounts counts;
    const auto locked = [](const Net& n) {
        return std::ranges::any_of(n.modes,
                                   [](const AccessMode& a) { return a.kind == ModeKind::LOCK; });
    };
    const RandomTraceOptions opts[] = {{3, 2, 1, 1, 0, 40, 90},
                                       {4, 3, 2, 2, 0, 60, 80},
                                       {2, 2, 1, 1, 0, 30, 100},
                                       {5, 2, 2, 1, 0, 60, 95}};
    for (int i = 0; i < quarter(20000); ++i) {
        const RandomTraceOptions& o = opts[i % 4];
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        auto mech = [&]() -> Mechanism {
            switch (gen.pick(4)) {
            case 0:
                return lock("m" + std::to_string(gen.pick(o.locks)));
            case 1:
                return vol("v" + std::to_string(gen.pick(o.volatiles)));
            case 2:
                return fork(gen.thread(), gen.thread_set(3));
            default:
                return join(gen.thread_set(3), gen.thread());
            }
        };
        // Mostly LOCK modes of the variable's own lock (what the accesses hold); at depth 0 a base
        // mode, which is what admits most shared accesses.
        std::function<Discipline(int, int)> disc = [&](int x, int depth) -> Discipline {
            switch (depth == 0 ? gen.pick(6) : 3 + gen.pick(6)) {
            case 0:
                return EX(gen.thread());
            case 1:
                return RS(gen.thread_set(3));
            case 2:
            case 3:
            case 4:
            case 5: {
                std::vector<std::string> all;
                for (int t = 0; t < o.threads; ++t)
                    all.push_back("T" + std::to_string(t));
                const int m = gen.pick(4) == 0 ? gen.pick(o.locks) : x % o.locks;
                return LOCK("m" + std::to_string(m), gen.pick(2) ? all : gen.thread_set(o.threads));
            }
            case 6:
                return alt(disc(x, depth - 1), disc(x, depth - 1));
            case 7:
                return seq(disc(x, depth - 1), mech(), disc(x, depth - 1));
            default:
                return loop(disc(x, depth - 1), mech());
            }
        };
        std::vector<std::pair<std::string, Net>> vars;
        for (int x = 0; x < o.vars; ++x)
            vars.emplace_back(
                "x" + std::to_string(x),
                build_petri_net(gen.pick(3) == 0 ? disc(x, 0) : disc(x, 1 + gen.pick(2))));
        check_admitted_race_free(vars, random_trace(rng, o), locked, counts);
    }
    MESSAGE("traces " << counts.traces << ", admitted variables accessed by 2+ threads "
                      << counts.admitted_shared << " (with LOCK modes: " << counts.admitted_flagged
                      << "), violated " << counts.violated);
    CHECK(counts.traces == quarter(20000));
    CHECK(counts.admitted_flagged > quarter(400));
    CHECK(counts.violated > quarter(1000));
}
