// Candidate sets as products (runtime/src/enforce/factored_candidates.hpp, docs/enforcement.md):
// which nets factor, the particle discipline's sets as one product where the explicit set has
// 3^k markings, and an op the products cannot express. The differential tests against the
// explicit sets are in enforce_random_test.cpp.
#include "enforce/factored_candidates.hpp"
#include "enforce_testlib.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace sfg;
using namespace sfg::enforce;
using namespace sfg::testlib;

namespace {

// p : [RS(t0..tk-1) ▷^b EX(t0)]^b (thesis Figure 4.5).
Net particle_net(int k) {
    std::vector<std::string> ts;
    for (int t = 0; t < k; ++t)
        ts.push_back("t" + std::to_string(t));
    const Mechanism b = barrier("b", ts);
    return build_petri_net(loop(seq(RS(ts), b, EX("t0")), b));
}

TransitionIx transition(const Net& n, const std::string& id) {
    for (std::size_t r = 0; r < n.transitions.size(); ++r)
        if (n.transitions[r].id == id)
            return TransitionIx::at(r);
    FAIL("no transition " << id);
    return TransitionIx::none();
}

std::set<std::vector<PlaceIx>> markings(const FactoredCandidates& c, const FactoredShape& f) {
    CandidateSet set;
    c.materialize(f, set);
    std::set<std::vector<PlaceIx>> out;
    set.for_each([&](std::span<const PlaceIx> m) { out.emplace(m.begin(), m.end()); });
    CHECK(out.size() == set.count()); // distinct
    CHECK(out.size() == c.count(f));
    return out;
}

// The positions of N(p : [RS(t0..tk-1) ▷^b EX(t0)]^b).
struct Particles {
    explicit Particles(int k) : n(particle_net(k)), f(factor(shapes[shapes.intern(n, names)])) {}
    NetNames names;
    NetShapes shapes;
    Net n;
    FactoredShape f;
};

} // namespace

TEST_CASE("factored candidates: the nets of Figure 4.11 factor; nets of another form do not") {
    Particles p(3);
    auto& [names, shapes, n, f] = p;
    REQUIRE(f.factorable);
    CHECK(f.width(ModeIx(0)) == 3); // RS(t0,t1,t2): one coordinate per thread
    CHECK(f.width(ModeIx(1)) == 1); // EX(t0)
    CHECK(f.initial.size() == 1);
    CHECK(f.syncs.size() == 2);

    SUBCASE("a snd that takes two tokens") {
        Net bad = n;
        Transition& snd = bad.transitions[transition(n, "snd[t1:e0]").ix()];
        snd.pre.push_back(place(n, "Acc[t2:0]"));
        CHECK_FALSE(factor(shapes[shapes.intern(bad, names)]).factorable);
    }
    SUBCASE("a sync that waits for some threads of its mode only") {
        Net bad = n;
        for (Transition& r : bad.transitions)
            if (r.kind == TransitionKind::sync && r.pre.size() == 3)
                r.pre.pop_back();
        CHECK_FALSE(factor(shapes[shapes.intern(bad, names)]).factorable);
    }
    SUBCASE("an edge without its sync") {
        Net bad = n;
        bad.transitions.erase(bad.transitions.begin() + transition(n, "sync[e0]").ix());
        CHECK_FALSE(factor(shapes[shapes.intern(bad, names)]).factorable);
    }
    SUBCASE("two syncs from the same places") {
        Net bad = n;
        Transition twin = n.transitions[transition(n, "sync[e0]").ix()];
        twin.id = "sync[e0]'";
        bad.transitions.push_back(twin);
        CHECK_FALSE(factor(shapes[shapes.intern(bad, names)]).factorable);
    }
    SUBCASE("an initial marking that is not a whole point") {
        Net bad = n;
        bad.initial_markings = {{place(n, "Acc[t0:0]")}};
        CHECK_FALSE(factor(shapes[shapes.intern(bad, names)]).factorable);
    }
}

TEST_CASE("factored candidates: a barrier round of k threads is one product of 2^k markings") {
    const int k = 6;
    Particles p(k);
    auto& [names, shapes, n, f] = p;
    REQUIRE(f.factorable);
    FactoredCandidates c;
    c.assign(f, f.initial);
    CHECK(markings(c, f).size() == 1);
    // Every thread passes benter(b): each may have sent or not ([SKIP]); the last one completes
    // •sync, which becomes EX(t0)'s PreRcv point.
    for (int t = 0; t < k; ++t) {
        const TransitionIx snd = transition(n, "snd[t" + std::to_string(t) + ":e0]");
        CHECK(c.sync_step(f, std::span<const TransitionIx>(&snd, 1)) == 1);
    }
    CHECK(c.crowd() == 1);
    const auto all = markings(c, f);
    CHECK(all.size() == (1u << k) - 1 + 1); // •sync is not a candidate; sync• is
    // (A barrier edge's sync leaves its tokens waiting for their generation: NetShape::twin.)
    const NetShape& s = shapes[shapes.intern(n, names)];
    CHECK(all.count({s.twin[PlaceIx::at(place(n, "PreRcv[t0:e0]"))]}) == 1);
    // t0's write keeps EX(t0) only (RS(...) does not permit writes): nothing there yet.
    const NetThread t0 = names.intern_thread("t0"), t3 = names.intern_thread("t3");
    FactoredCandidates before = c;
    CHECK_FALSE(c.memory_step(f, t0, true));
    CHECK(markings(c, f) == markings(before, f)); // unchanged on a violation
    // A read by t3 keeps the markings where t3 has not sent yet.
    CHECK(c.memory_step(f, t3, false));
    CHECK(markings(c, f).size() == 1u << (k - 1));
}

TEST_CASE("factored candidates: one op moving two threads of one mode is refused, unchanged") {
    Particles p(3);
    const auto& [names, shapes, n, f] = p;
    REQUIRE(f.factorable);
    FactoredCandidates c;
    c.assign(f, f.initial);
    const TransitionIx both[] = {transition(n, "snd[t1:e0]"), transition(n, "snd[t2:e0]")};
    const auto before = markings(c, f);
    CHECK(c.sync_step(f, both) == -1);
    CHECK(markings(c, f) == before);
}

TEST_CASE("factored candidates: a barrier of 12 threads enforces and explains as explicit sets") {
    // 3^12 joint positions: explicit sets reach thousands of markings per round, products stay
    // one per mode. Rounds in a shuffled order; in round 2, t11 skips benter before t0 writes,
    // in round 4, t5 reads during the write phase.
    const int k = 12;
    const Net n = particle_net(k);
    std::mt19937_64 rng(7);
    TraceBuilder b;
    std::vector<int> order(k);
    std::iota(order.begin(), order.end(), 0);
    auto t = [](int i) { return "t" + std::to_string(i); };
    for (int round = 0; round < 6; ++round) {
        std::shuffle(order.begin(), order.end(), rng);
        for (int i : order)
            b(t(i) + "|r(p)");
        for (int i : order)
            if (!(round == 2 && i == 11))
                b(t(i) + "|benter(b)");
        std::shuffle(order.begin(), order.end(), rng);
        for (int i : order)
            b(t(i) + "|bexit(b)");
        b("t0|w(p)");
        if (round == 4)
            b("t5|r(p)");
        for (int i : order)
            b(t(i) + "|benter(b)");
        std::shuffle(order.begin(), order.end(), rng);
        for (int i : order)
            b(t(i) + "|bexit(b)");
    }
    const Trace tr = b.build();
    EnforceOptions explicit_opts{.report_all = true,
                                 .factor_candidates = false,
                                 .memoize_candidates = false,
                                 .count_candidates = true};
    EnforceOptions factored_opts = explicit_opts;
    factored_opts.factor_candidates = true;
    Enforcer plain(explicit_opts), factored(factored_opts);
    plain.add_variable("p", n);
    factored.add_variable("p", n);
    tr.feed(plain);
    tr.feed(factored);
    REQUIRE(plain.all_violations().size() >= 2);
    REQUIRE(factored.all_violations().size() == plain.all_violations().size());
    for (std::size_t i = 0; i < plain.all_violations().size(); ++i) {
        CHECK(factored.all_violations()[i].event == plain.all_violations()[i].event);
        CHECK(explain(factored.all_violations()[i]) == explain(plain.all_violations()[i]));
    }
    MESSAGE(explain(factored.all_violations()[0]));
    // Round 2 closed without t11's arrival: its sends are dead, every thread must arrive again.
    CHECK(explain(plain.all_violations()[0]).find("t11, t2") != std::string::npos);
    CHECK(explain(plain.all_violations()[0]).find("t9 must each benter(b)") != std::string::npos);
    CHECK(factored.candidates("p") == plain.candidates("p"));
    CHECK(factored.stats().max_candidates == plain.stats().max_candidates);
    CHECK(plain.stats().max_candidates >= 1u << (k - 1));
    CHECK(factored.stats().unfactored == 0);
}

TEST_CASE(
    "factored candidates: a barrier of 64 threads, 2^63 candidates, is checked and explained") {
    const int k = 64;
    const Net n = particle_net(k);
    TraceBuilder b;
    auto t = [](int i) { return "t" + std::to_string(i); };
    for (int i = 0; i < k; ++i)
        b(t(i) + "|r(p)");
    for (int i = k - 2; i >= 0; --i) // t63 never enters
        b(t(i) + "|benter(b)");
    b("t0|w(p)");
    Enforcer enf({.count_candidates = true});
    enf.add_variable("p", n);
    b.build().feed(enf);
    REQUIRE(enf.violations().size() == 1);
    const std::string why = explain(enf.violations()[0]);
    CHECK(why.find("t63 must benter(b) after its accesses in RS(") != std::string::npos);
    CHECK(why.find("t0 must bexit(b) before writing p") != std::string::npos);
    CHECK(enf.stats().max_candidates == std::uint64_t{1} << 63);
    CHECK(enf.stats().unfactored == 0);
}

// A net without transitions (`var x : LOCK(m: T);`) never changes its candidates: the enforcer
// checks an access against its one mode (NetShape::fixed_mode) and equals the candidates' rule,
// the re-synchronization after a violation included.
TEST_CASE("a net without transitions is checked against its one mode") {
    NetNames names;
    NetShapes shapes;
    const NetShape& locked = shapes[shapes.intern(build_petri_net(LOCK("m", {"t0", "t1"})), names)];
    REQUIRE(locked.fixed_mode.valid());
    const NetThread t0 = names.intern_thread("t0"), t2 = names.intern_thread("t2");
    const MechIx m = names.intern_mode_lock("m");
    const std::vector<MechIx> held{m};
    for (bool write : {false, true}) {
        CHECK(locked.fixed_permits(t0, write, held));
        CHECK_FALSE(locked.fixed_permits(t0, write, {}));
        CHECK_FALSE(locked.fixed_permits(t2, write, held));
        for (NetThread t : {t0, t2})
            for (HeldLocks h : {HeldLocks(held), HeldLocks()})
                CHECK(locked.fixed_permits(t, write, h) ==
                      locked.permits(locked.fixed_mode, t, write, h));
    }
    const NetShape& shared = shapes[shapes.intern(build_petri_net(RS({"t0", "t1"})), names)];
    REQUIRE(shared.fixed_mode.valid());
    CHECK(shared.fixed_permits(t0, false, {}));
    CHECK_FALSE(shared.fixed_permits(t0, true, {}));
    // Two modes, or a transition: the candidates move, so no fixed mode.
    CHECK_FALSE(
        shapes[shapes.intern(build_petri_net(alt(EX("t0"), EX("t1"))), names)].fixed_mode.valid());
    CHECK_FALSE(shapes[shapes.intern(build_petri_net(loop(EX("t0"), lock("m"))), names)]
                    .fixed_mode.valid());
    // Figure 5.1 against LOCK(m: t0, t1, t2): the first access holds no lock; later accesses
    // made under m are admitted, the others are violations again (report_all), as the literal
    // Figure 4.15 says.
    const Net fig = build_petri_net(LOCK("m", {"t0", "t1", "t2"}));
    const std::string text = "t0|w(x)\nt0|acq(m)\nt0|w(x)\nt0|rel(m)\nt1|r(x)\nt1|acq(m)\n"
                             "t1|r(x)\nt1|rel(m)\nt2|acq(m)\nt2|w(x)\nt2|rel(m)\nt3|w(x)\n";
    Enforcer enf({.report_all = true});
    RefEnforcer ref;
    enf.add_variable("x", fig);
    ref.add_variable("x", fig);
    Symbols syms;
    Fanout both;
    both.add(enf), both.add(ref);
    REQUIRE(read_trace_text(text, "fig.std", syms, both).ok());
    std::vector<std::uint64_t> at;
    for (const EnforceViolation& v : enf.all_violations())
        at.push_back(v.event);
    CHECK(at == std::vector<std::uint64_t>{1, 5, 12});
    CHECK(first_violation_of(enf, "x") == ref.first_violation("x"));
}
