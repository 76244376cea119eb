// N(G) (thesis Figure 4.11) from the plain Discipline: small nets written out by hand from the
// figure, and petri_net_size against the built net on random disciplines.
#include "enforce_testlib.hpp"

#include "sfg/runtime/core/petri_net.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>

using namespace sfg;
using namespace sfg::testlib;

namespace {

struct ExpectedTransition {
    std::string id;
    TransitionKind kind;
    std::string thread;
    std::uint32_t edge;
    std::vector<std::uint32_t> pre, post;
};

void check_places(const Net& n, const std::vector<Place>& want) {
    REQUIRE(n.places.size() == want.size());
    for (std::size_t p = 0; p < want.size(); ++p) {
        INFO("place " << p);
        CHECK(n.places[p].id == want[p].id);
        CHECK(n.places[p].kind == want[p].kind);
        CHECK(n.places[p].thread == want[p].thread);
        CHECK(n.places[p].mode == want[p].mode);
        CHECK(n.places[p].edge == want[p].edge);
    }
}

void check_transitions(const Net& n, const std::vector<ExpectedTransition>& want) {
    REQUIRE(n.transitions.size() == want.size());
    for (std::size_t r = 0; r < want.size(); ++r) {
        INFO("transition " << r);
        CHECK(n.transitions[r].id == want[r].id);
        CHECK(n.transitions[r].kind == want[r].kind);
        CHECK(n.transitions[r].thread == want[r].thread);
        CHECK(n.transitions[r].edge == want[r].edge);
        CHECK(n.transitions[r].pre == want[r].pre);
        CHECK(n.transitions[r].post == want[r].post);
    }
}

} // namespace

TEST_CASE("N(EX(t0) ▷^m EX(t1)): P(a), P(e), R(e), F(e) and M0 of Figure 4.11") {
    const Discipline g = seq(EX("t0"), lock("m"), EX("t1"));
    REQUIRE(g.edges.size() == 1);
    const Net n = build_petri_net(g);
    CHECK(n.modes.size() == 2);
    CHECK(n.modes[0].label() == "EX(t0)");
    CHECK(n.modes[1].label() == "EX(t1)");
    REQUIRE(n.edges.size() == 1);
    CHECK(n.edges[0].from == 0);
    CHECK(n.edges[0].to == 1);
    CHECK(n.edges[0].mech == lock("m"));
    // P(EX(t0)), P(EX(t1)), then P(e0) = {PostSnd[t0:e0], PreRcv[t1:e0]}.
    check_places(n, {{"Acc[t0:0]", PlaceKind::Acc, "t0", 0, std::nullopt},
                     {"Acc[t1:1]", PlaceKind::Acc, "t1", 1, std::nullopt},
                     {"PostSnd[t0:e0]", PlaceKind::PostSnd, "t0", std::nullopt, 0},
                     {"PreRcv[t1:e0]", PlaceKind::PreRcv, "t1", std::nullopt, 0}});
    // R(e0) with F(e0): Acc[t0:0] → snd → PostSnd → sync → PreRcv → rcv → Acc[t1:1].
    check_transitions(n, {{"snd[t0:e0]", TransitionKind::snd, "t0", 0, {0}, {2}},
                          {"sync[e0]", TransitionKind::sync, "", 0, {2}, {3}},
                          {"rcv[t1:e0]", TransitionKind::rcv, "t1", 0, {3}, {1}}});
    // M0 = {P(EX(t0))}.
    CHECK(n.initial_markings == std::vector<Marking>{{0}});
    // The token travels t0's track, the sync, then t1's track.
    Marking m = n.initial_markings[0];
    for (int r = 0; r < 3; ++r) {
        REQUIRE(n.enabled(m, r));
        m = n.fire(m, r);
    }
    CHECK(m == Marking{1});
}

TEST_CASE("N(RS(t0, t1) ▷^b EX(t0)): one track per thread, joined at sync[e]") {
    const Discipline g = seq(RS({"t1", "t0"}), barrier("b", {"t0", "t1"}), EX("t0"));
    const Net n = build_petri_net(g);
    check_places(n, {{"Acc[t0:0]", PlaceKind::Acc, "t0", 0, std::nullopt},
                     {"Acc[t1:0]", PlaceKind::Acc, "t1", 0, std::nullopt},
                     {"Acc[t0:1]", PlaceKind::Acc, "t0", 1, std::nullopt},
                     {"PostSnd[t0:e0]", PlaceKind::PostSnd, "t0", std::nullopt, 0},
                     {"PostSnd[t1:e0]", PlaceKind::PostSnd, "t1", std::nullopt, 0},
                     {"PreRcv[t0:e0]", PlaceKind::PreRcv, "t0", std::nullopt, 0}});
    check_transitions(n, {{"snd[t0:e0]", TransitionKind::snd, "t0", 0, {0}, {3}},
                          {"snd[t1:e0]", TransitionKind::snd, "t1", 0, {1}, {4}},
                          {"sync[e0]", TransitionKind::sync, "", 0, {3, 4}, {5}},
                          {"rcv[t0:e0]", TransitionKind::rcv, "t0", 0, {5}, {2}}});
    CHECK(n.initial_markings == std::vector<Marking>{{0, 1}});
}

TEST_CASE("M0 has one marking P(i) per in-mode i") {
    // [EX(t0) ⊔ RS(t0, t1)]^v: two in-modes, and Valid keeps only EX(t0) -v-> EX(t0).
    const Net n = build_petri_net(loop(alt(EX("t0"), RS({"t0", "t1"})), vol("v")));
    CHECK(n.edges.size() == 1);
    CHECK(n.initial_markings == std::vector<Marking>{{0}, {1, 2}});
    CHECK(n.places[1].id == "Acc[t0:1]");
    CHECK(n.places[2].id == "Acc[t1:1]");
}

TEST_CASE("petri_net_size = |places| + |transitions| on random disciplines") {
    std::mt19937_64 rng(7);
    RandomDisciplines gen{rng, 4, 2, 1};
    auto pick = [&](int n) { return gen.pick(n); };
    auto mech = [&] { return gen.mech(); };
    auto disc = [&](int depth) { return gen.disc(depth); };
    std::size_t largest = 0;
    for (int i = 0; i < 2000; ++i) {
        Discipline g = disc(4);
        // Also edges Valid would drop, and parallel ones: the size depends only on the shape.
        for (int k = pick(3); k > 0; --k) {
            const auto mode = [&] {
                return static_cast<std::uint32_t>(pick(static_cast<int>(g.modes.size())));
            };
            const std::uint32_t from = mode();
            g.edges.push_back({from, mode(), mech()});
        }
        const Net n = build_petri_net(g);
        INFO("discipline " << i);
        CHECK(petri_net_size(g) == n.places.size() + n.transitions.size());
        std::size_t tracks = 0;
        for (const ModeEdge& e : g.edges)
            tracks += g.modes[e.from].threads.size() + g.modes[e.to].threads.size();
        CHECK(n.transitions.size() == tracks + g.edges.size());
        CHECK(n.initial_markings.size() == g.in.size());
        largest = std::max(largest, n.places.size() + n.transitions.size());
    }
    CHECK(largest > 50); // the generator makes nets of some size
}

TEST_CASE("N(G) of LOCK_m(T) is that of RS(T); its Acc places reach m through their mode") {
    Discipline rs{{{ModeKind::EX, {"t0"}}, {ModeKind::RS, {"t1", "t2"}}},
                  {{0, 1, {MechKind::fork, "", "t0", {"t1", "t2"}}}},
                  {0},
                  {1}};
    Discipline lock = rs;
    lock.modes[1] = {ModeKind::LOCK, {"t1", "t2"}, "m"};
    const Net a = build_petri_net(lock), b = build_petri_net(rs);
    check_places(a, b.places);
    REQUIRE(a.transitions.size() == b.transitions.size());
    for (std::size_t r = 0; r < a.transitions.size(); ++r) {
        CHECK(a.transitions[r].id == b.transitions[r].id);
        CHECK(a.transitions[r].pre == b.transitions[r].pre);
        CHECK(a.transitions[r].post == b.transitions[r].post);
    }
    CHECK(a.initial_markings == b.initial_markings);
    CHECK(petri_net_size(lock) == petri_net_size(rs));
    int locked = 0;
    for (const Place& p : a.places)
        if (p.kind == PlaceKind::Acc && a.modes[*p.mode].lock == "m")
            ++locked;
    CHECK(locked == 2);
}
