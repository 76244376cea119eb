// Value labels v==K (thesis §5.1, the vflag handshake; docs/enforcement.md): vw(v=K) is the snd
// of both v and v==K, vr(v=K) the rcv of both; an op without a value is the snd / rcv of v only.
// The handshake admitted and violated, and soundness on random traces (admitted implies
// race-free, as for Theorem 4.2.2), with the enforcer equal to Figure 4.15 applied literally.
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

// The first violation of x (0: admitted) by the enforcer with each way of keeping candidate sets
// and by the reference, which must agree; the default enforcer's explanation in `why`.
std::uint64_t first_violation(const Net& net, std::initializer_list<std::string> lines,
                              std::string* why = nullptr) {
    Enforcer enf;
    Enforcer plain({.group_one_token = false, .factor_candidates = false});
    RefEnforcer ref;
    enf.add_variable("x", net);
    plain.add_variable("x", net);
    ref.add_variable("x", net);
    std::string text;
    for (const std::string& l : lines)
        text += l + "\n";
    Symbols syms;
    Fanout all;
    all.add(enf), all.add(plain), all.add(ref);
    const TraceResult r = read_trace_text(text, "t.std", syms, all);
    REQUIRE_MESSAGE(r.ok(), r.error->to_string());
    const std::uint64_t mine = enf.violations().empty() ? 0 : enf.violations()[0].event;
    CHECK(mine == ref.first_violation("x"));
    CHECK((plain.violations().empty() ? 0 : plain.violations()[0].event) == mine);
    if (why && !enf.violations().empty())
        *why = explain(enf.violations()[0]);
    return mine;
}

// specs/extensions/vflag.sfg: [EX(t0) ▷^(v == 1) EX(t1)]^(v == 0).
Net vflag() {
    return build_petri_net(loop(seq(EX("t0"), vol("v", 1), EX("t1")), vol("v", 0)));
}

} // namespace

TEST_CASE("vflag: t0 writes, vw(v=1); t1 vr(v=1), accesses; and back through v==0") {
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v=1)", "t1|vr(v=1)", "t1|w(x)", "t1|vw(v=0)",
                                    "t0|vr(v=0)", "t0|r(x)"}) == 0);
    // Other volatiles and values in between are [SKIP]ped.
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v=2)", "t0|vw(u=1)", "t0|vw(v=1)",
                                    "t1|vr(v=2)", "t1|vr(v=1)", "t1|r(x)"}) == 0);
}

TEST_CASE("vflag: t1 going on after vr(v=0) or a vr(v) without a value violates") {
    std::string why;
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v=1)", "t1|vr(v=0)", "t1|w(x)"}, &why) == 4);
    // t0's vw(v=1) was the snd of v==1: only t1's rcv is missing.
    CHECK_MESSAGE(why.find("t1 must vr(v=1) before writing x") != std::string::npos, why);
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v=1)", "t1|vr(v)", "t1|w(x)"}) == 4);
    // A write without its value is the snd of v only.
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v)", "t1|vr(v=1)", "t1|w(x)"}) == 4);
    // Back to t0 needs v==0.
    CHECK(first_violation(vflag(), {"t0|w(x)", "t0|vw(v=1)", "t1|vr(v=1)", "t1|w(x)", "t1|vw(v=1)",
                                    "t0|vr(v=1)", "t0|r(x)"}) == 7);
}

TEST_CASE("a valued op is still the snd / rcv of the plain volatile v") {
    const Net plain_v = build_petri_net(loop(alt(EX("t0"), EX("t1")), vol("v")));
    CHECK(first_violation(plain_v, {"t0|w(x)", "t0|vw(v=7)", "t1|vr(v=3)", "t1|w(x)"}) == 0);
    CHECK(first_violation(plain_v, {"t0|w(x)", "t0|vw(v=7)", "t1|vr(v)", "t1|w(x)"}) == 0);
    // Both v and v==1 out of one mode: one op fires one of them.
    const Net both = build_petri_net(
        alt(seq(EX("t0"), vol("v", 1), EX("t1")), seq(EX("t0"), vol("v"), EX("t2"))));
    CHECK(first_violation(both, {"t0|w(x)", "t0|vw(v=1)", "t1|vr(v=1)", "t1|w(x)"}) == 0);
    CHECK(first_violation(both, {"t0|w(x)", "t0|vw(v=1)", "t2|vr(v=5)", "t2|w(x)"}) == 0);
    CHECK(first_violation(both, {"t0|w(x)", "t0|vw(v=2)", "t1|vr(v=2)", "t1|w(x)"}) == 4);
}

// Soundness of value labels, modelled on the random test of Theorem 4.2.2
// (enforce_random_test.cpp) and the LOCK one (enforce_lock_test.cpp): random disciplines over
// locks, volatiles with and without values, fork and join (no barriers: their overlapping rounds
// are the known gap, docs/enforcement.md), on random traces whose volatile ops mostly carry
// values in -1..2. A variable the enforcer admits is race-free by the brute-force happens-before
// oracle, and every enforcer reports the first violation that Figure 4.15 does.
TEST_CASE("random traces (20,000 with --full) with value labels: admitted implies race-free" *
          volume) {
    std::mt19937_64 rng(57);
    SoundnessCounts counts;
    const auto valued = [](const Net& n) {
        return std::ranges::any_of(n.edges,
                                   [](const ModeEdge& e) { return e.mech.value.has_value(); });
    };
    const RandomTraceOptions opts[] = {{3, 2, 1, 1, 0, 40, 0, 80},
                                       {4, 3, 1, 2, 0, 60, 0, 70},
                                       {2, 2, 1, 1, 0, 30, 0, 90},
                                       {5, 2, 1, 2, 0, 60, 0, 60}};
    for (int i = 0; i < quarter(20000); ++i) {
        const RandomTraceOptions& o = opts[i % 4];
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        auto mech = [&]() -> Mechanism {
            const std::string v = "v" + std::to_string(gen.pick(o.volatiles));
            switch (gen.pick(6)) {
            case 0:
                return lock("m" + std::to_string(gen.pick(o.locks)));
            case 1:
                return vol(v);
            case 2:
            case 3:
                return vol(v, gen.pick(4) - 1);
            case 4:
                return fork(gen.thread(), gen.thread_set(3));
            default:
                return join(gen.thread_set(3), gen.thread());
            }
        };
        std::vector<std::pair<std::string, Net>> vars;
        for (int x = 0; x < o.vars; ++x)
            vars.emplace_back("x" + std::to_string(x),
                              build_petri_net(gen.disc(1 + gen.pick(2), mech)));
        check_admitted_race_free(vars, random_trace(rng, o), valued, counts);
    }
    MESSAGE("traces " << counts.traces << ", admitted variables accessed by 2+ threads "
                      << counts.admitted_shared << " (with value labels: "
                      << counts.admitted_flagged << "), violated " << counts.violated);
    CHECK(counts.traces == quarter(20000));
    // Coverage, not correctness: the random streams differ by compiler (argument order).
    WARN(counts.admitted_flagged >
         0); // random traces rarely follow a handshake: the tests above do
    CHECK(counts.violated > quarter(1000));
}
