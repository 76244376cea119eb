// Figure 4.11's refinement, checked on Figure 4.13 exactly, and its invariants (§4.3.4).
#include "support.hpp"

#include "sfg/compiler/render.hpp"
#include "sfg/compiler/verify.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/trace.hpp"

#include <filesystem>
#include <random>
#include <set>
#include <stdexcept>

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

namespace {
std::string pool_spec(int n) {
    std::string ws;
    for (int i = 0; i < n; ++i)
        ws += (i ? ", w" : "w") + std::to_string(i);
    return "threads main, " + ws + ";\nlock m;\ngroup W = " + ws + ";\nvar x : [EX(each W)]^m;\n";
}
} // namespace

TEST_CASE("a pool's [EX(each W)]^m: explicit edges up to 64 workers, one family past them, the "
          "same edges listed") {
    const Compiled c64 = compile_text(pool_spec(64));
    REQUIRE(c64.spec);
    CHECK(c64.var("x").sfg->edges.size() == 64 * 64);
    CHECK(c64.var("x").sfg->families.empty());

    const Compiled c65 = compile_text(pool_spec(65));
    REQUIRE(c65.spec);
    const Discipline& d = *c65.var("x").sfg;
    CHECK(d.edges.empty());
    REQUIRE(d.families.size() == 1);
    CHECK(d.families[0].from.size() == 65);
    CHECK(d.families[0].to.size() == 65);
    CHECK(c65.var("x").net->places.size() == 65 + 2);
    // With the family bound out of reach the compiler lists the edges, in expand_families' order.
    Diagnostics diags;
    CompileLimits listed;
    listed.family_from = std::size_t(-1);
    const auto c = compile_spec(SourceFile("test.sfg", pool_spec(65)), diags, listed);
    REQUIRE(c);
    const Discipline& e = *c->variables[0].sfg;
    const Discipline x = expand_families(d);
    REQUIRE(x.edges.size() == e.edges.size());
    for (std::size_t i = 0; i < e.edges.size(); ++i) {
        CHECK(x.edges[i].from == e.edges[i].from);
        CHECK(x.edges[i].to == e.edges[i].to);
        CHECK(x.edges[i].mech == e.edges[i].mech);
    }
    // The writers and verify_net take the listed spec: given the rule, they refuse it.
    CHECK_THROWS_AS(to_dot(*c65.spec, View::net), std::invalid_argument);
    CHECK_THROWS_AS(to_pnml(*c65.spec), std::invalid_argument);
    CHECK_THROWS_AS(to_json("test.sfg", &*c65.spec, diags), std::invalid_argument);
    CHECK_THROWS_AS(verify_net(*c65.var("x").net), std::invalid_argument);
    CompiledSpec spec = *c65.spec;
    REQUIRE(expand_families(spec, diags));
    CHECK_NOTHROW(to_dot(spec, View::net));
    CHECK(verify_net(*spec.variables[0].net).ok());
    CHECK(spec.variables[0].net->places.size() == c->variables[0].net->places.size());
    CHECK(spec.variables[0].net->transitions.size() == c->variables[0].net->transitions.size());
}

TEST_CASE("a pool of 1,024 workers compiles within the default limits and checks traces") {
    const Compiled c = compile_text(pool_spec(1024));
    REQUIRE(c.spec);
    const Net& net = *c.var("x").net;
    CHECK(net.places.size() == 1024 + 2);
    CHECK(net.transitions.size() == 2 * 1024 + 1);
    // Listed edge by edge, its net would be 5 x 1024^2 elements, more than --max-net-size.
    CompiledSpec listed = *c.spec;
    Diagnostics diags;
    CHECK_FALSE(expand_families(listed, diags));

    std::string good, bad;
    std::mt19937_64 rng(5);
    for (int k = 0; k < 3000; ++k) {
        const std::string t = "w" + std::to_string(rng() % 1024);
        good += t + "|acq(m)\n" + t + "|w(x)\n" + t + "|rel(m)\n";
    }
    bad = good + "w700|acq(m)\nw700|r(x)\nw700|rel(m)\nw3|w(x)\n";
    for (const std::string* text : {&good, &bad}) {
        Enforcer enf;
        enf.add_variable("x", net);
        Symbols syms;
        REQUIRE(read_trace_text(*text, "pool.std", syms, enf).ok());
        if (text == &good) {
            CHECK(enf.all_violations().empty());
            continue;
        }
        REQUIRE(enf.all_violations().size() == 1);
        const EnforceViolation& v = enf.all_violations()[0];
        CHECK(v.event == 9004);
        CHECK(v.thread_name == "w3");
        CHECK(v.op == Op::write);
        CHECK(explain(v).find("w(x) by w3 is not permitted") != std::string::npos);
        CHECK(explain(v).find("w3 must acq(m) before writing x") != std::string::npos);
    }
}
