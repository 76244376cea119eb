// Figure 4.11's refinement, checked on Figure 4.13 exactly, and its invariants (§4.3.4).
#include "support.hpp"

#include "sfg/compiler/verify.hpp"

#include <filesystem>
#include <set>

using namespace sfg;
using namespace sfg::test;

namespace {
std::set<std::string> ids(const Net& n, PlaceKind k) {
    std::set<std::string> out;
    for (const Place& p : n.places)
        if (p.kind == k)
            out.insert(p.id);
    return out;
}
std::set<std::pair<std::string, std::string>> arcs(const Net& n) {
    std::set<std::pair<std::string, std::string>> out;
    for (const Transition& r : n.transitions) {
        for (int p : r.pre)
            out.emplace(n.places[static_cast<std::size_t>(p)].id, r.id);
        for (int p : r.post)
            out.emplace(r.id, n.places[static_cast<std::size_t>(p)].id);
    }
    return out;
}
} // namespace

TEST_CASE("Figure 4.13: the net of [RS(t0,t1,t2) ▷^b EX(t0)]^b") {
    auto c = compile_text(read_file(source_path("specs/thesis/barrier.sfg")));
    REQUIRE(c.spec);
    const Net& n = *c.var("p0").net;
    CHECK(n.places.size() == 12);
    CHECK(n.transitions.size() == 10);
    // Mode 0 is RS(t0,t1,t2), mode 1 is EX(t0); edge e0 = RS -b-> EX, e1 = EX -b-> RS.
    CHECK(ids(n, PlaceKind::Acc) ==
          std::set<std::string>{"Acc[t0:0]", "Acc[t1:0]", "Acc[t2:0]", "Acc[t0:1]"});
    CHECK(ids(n, PlaceKind::PostSnd) == std::set<std::string>{"PostSnd[t0:e0]", "PostSnd[t1:e0]",
                                                              "PostSnd[t2:e0]", "PostSnd[t0:e1]"});
    CHECK(ids(n, PlaceKind::PreRcv) == std::set<std::string>{"PreRcv[t0:e0]", "PreRcv[t0:e1]",
                                                             "PreRcv[t1:e1]", "PreRcv[t2:e1]"});
    auto a = arcs(n);
    // e0: 3 snd tracks (6 arcs), sync 3 in + 1 out, 1 rcv track (2); e1 mirrors it.
    CHECK(a.size() == 24);
    CHECK(a.count({"Acc[t1:0]", "snd[t1:e0]"}) == 1);
    CHECK(a.count({"snd[t1:e0]", "PostSnd[t1:e0]"}) == 1);
    CHECK(a.count({"PostSnd[t2:e0]", "sync[e0]"}) == 1);
    CHECK(a.count({"sync[e0]", "PreRcv[t0:e0]"}) == 1);
    CHECK(a.count({"rcv[t0:e0]", "Acc[t0:1]"}) == 1);
    CHECK(a.count({"sync[e1]", "PreRcv[t2:e1]"}) == 1);
    CHECK(a.count({"rcv[t2:e1]", "Acc[t2:0]"}) == 1);
    // One initial marking: the three tokens of P(RS(t0,t1,t2)).
    REQUIRE(n.initial_markings.size() == 1);
    std::set<std::string> m0;
    for (int p : n.initial_markings[0])
        m0.insert(n.places[static_cast<std::size_t>(p)].id);
    CHECK(m0 == std::set<std::string>{"Acc[t0:0]", "Acc[t1:0]", "Acc[t2:0]"});
}

TEST_CASE("initial markings: one per in-mode") {
    auto c = compile_text("threads a, b, c; lock m; var x : [EX(a) | EX(b) | EX(c)]^m;");
    CHECK(c.var("x").net->initial_markings.size() == 3);
}

TEST_CASE("--verify-net invariants hold on every spec in specs/") {
    int nets = 0;
    for_each_spec([&](const std::string&, const Compiled& c) {
        for (const auto& v : c.spec->variables) {
            if (!v.net)
                continue;
            NetVerification r = verify_net(*v.net);
            CHECK_MESSAGE(r.ok(), r.failure);
            CHECK(r.complete);
            CHECK(r.reachable == boost::num_vertices(r.graph));
            ++nets;
        }
    });
    CHECK(nets >= 15);
}

TEST_CASE("reachable markings of Figure 4.13: 30, all feasible") {
    auto c = compile_text(read_file(source_path("specs/thesis/barrier.sfg")));
    auto r = verify_net(*c.var("p0").net);
    CHECK(r.reachable == 30);
    CHECK(r.ok());
}

TEST_CASE("verification catches a broken net") {
    auto c = compile_text("threads a, b; lock m; var x : [EX(a) | EX(b)]^m;");
    Net n = *c.var("x").net;
    SUBCASE("two tokens for one thread are not feasible") {
        Marking m = n.initial_markings[0];
        m.push_back(n.transitions[0].post[0]); // also a PostSnd token for the same thread
        std::sort(m.begin(), m.end());
        n.initial_markings = {m};
        auto r = verify_net(n);
        CHECK_FALSE(r.ok());
        CHECK(r.failure.find("not feasible") != std::string::npos);
    }
    SUBCASE("a transition that would put a second token on a place breaks 1-safety") {
        // Make snd[a:e0] also produce into Acc of b's mode; from a marking where b's token is
        // there as well, P/T firing would double it.
        Marking both;
        for (const Marking& m : n.initial_markings)
            both.insert(both.end(), m.begin(), m.end());
        std::sort(both.begin(), both.end());
        n.transitions[0].post.push_back(both.back() == n.transitions[0].pre[0] ? both.front()
                                                                               : both.back());
        n.initial_markings = {both};
        auto r = verify_net(n);
        CHECK_FALSE(r.ok());
    }
}
