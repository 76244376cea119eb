// SFG construction (Figures 4.3, 4.4 with Valid): every Figure 3.15 row, Figures 4.7/4.9.
#include "support.hpp"

#include "sfg/compiler/sfg.hpp"

#include <set>

using namespace sfg;
using namespace sfg::test;

namespace {
struct Shape {
    std::vector<std::string> modes;
    std::set<std::string> edges; // "from -mech-> to" by mode label and id
    std::vector<std::uint32_t> in, out;
};
Shape shape(const Discipline& g) {
    Shape s;
    for (const AccessMode& a : g.modes)
        s.modes.push_back(a.label());
    for (const ModeEdge& e : g.edges)
        s.edges.insert(std::to_string(e.from) + " -" + e.mech.label() + "-> " +
                       std::to_string(e.to));
    s.in = g.in;
    s.out = g.out;
    return s;
}
Shape compile_shape(const std::string& decls, const std::string& disc) {
    auto c = compile_text(decls + " var x : " + disc + ";");
    REQUIRE_MESSAGE(c.spec, disc);
    return shape(*c.var("x").sfg);
}
const std::string decls = "threads t0, t1, t2; lock m, n; volatile v; barrier b(t0, t1, t2);"
                          "discipline tl = EX(t0) ⊔ EX(t1) ⊔ EX(t2);";
} // namespace

TEST_CASE("Figure 3.15: exclusive") {
    auto s = compile_shape(decls, "EX(t0)");
    CHECK(s.modes == std::vector<std::string>{"EX(t0)"});
    CHECK(s.edges.empty());
    CHECK(s.in == std::vector<std::uint32_t>{0});
    CHECK(s.out == std::vector<std::uint32_t>{0});
}

TEST_CASE("Figure 3.15: thread-local") {
    auto s = compile_shape(decls, "tl");
    CHECK(s.modes == std::vector<std::string>{"EX(t0)", "EX(t1)", "EX(t2)"});
    CHECK(s.edges.empty());
    CHECK(s.in == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(s.out == std::vector<std::uint32_t>{0, 1, 2});
}

TEST_CASE("Figure 3.15: initialize then read (bare fork inferred per edge)") {
    auto s = compile_shape(decls, "EX(t0) ▷^fork RS(t1, t2)");
    CHECK(s.edges == std::set<std::string>{"0 -fork(t0->t1,t2)-> 1"});
    CHECK(s.in == std::vector<std::uint32_t>{0});
    CHECK(s.out == std::vector<std::uint32_t>{1});
}

TEST_CASE("Figure 3.15: lock(m) is the complete graph on the three modes") {
    auto s = compile_shape(decls, "[tl]^m");
    CHECK(s.edges.size() == 9); // self-loops included: t may re-acquire after releasing
    CHECK(s.edges.count("1 -m-> 1") == 1);
    CHECK(s.in == std::vector<std::uint32_t>{0, 1, 2});
}

TEST_CASE("Figure 3.15: volatile(v)") {
    auto s = compile_shape(decls, "[EX(t0) ⊔ EX(t1)]^v");
    CHECK(s.edges.size() == 4);
}

TEST_CASE("Figure 3.15 / 4.5: barrier(b)") {
    auto s = compile_shape(decls, "[RS(t0, t1, t2) ▷^b EX(t0)]^b");
    CHECK(s.modes == std::vector<std::string>{"RS(t0,t1,t2)", "EX(t0)"});
    CHECK(s.edges == std::set<std::string>{"0 -b-> 1", "1 -b-> 0"});
    CHECK(s.in == std::vector<std::uint32_t>{0});
    CHECK(s.out == std::vector<std::uint32_t>{1});
}

TEST_CASE("Figure 3.15: lock(m) then lock(n)") {
    auto s = compile_shape(decls, "[tl]^m ▷^n [tl]^n");
    CHECK(s.modes.size() == 6);
    CHECK(s.edges.size() == 9 + 9 + 9);
    CHECK(s.in == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(s.out == std::vector<std::uint32_t>{3, 4, 5});
    CHECK(s.edges.count("0 -n-> 3") == 1);
}

TEST_CASE("edges form a set: [[tl]^m]^m has the 9 edges of [tl]^m") {
    CHECK(compile_shape(decls, "[[tl]^m]^m").edges.size() == 9);
    CHECK(compile_shape(decls, "[[tl]^m]^n").edges.size() == 18); // other mechanism: new edges
}

TEST_CASE("a named discipline used twice gives two disjoint copies") {
    auto s = compile_shape(decls, "tl ▷^m tl");
    CHECK(s.modes.size() == 6);
    CHECK(s.edges.size() == 9);
    CHECK(s.in == std::vector<std::uint32_t>{0, 1, 2});
    CHECK(s.out == std::vector<std::uint32_t>{3, 4, 5});
}

TEST_CASE("Figures 4.7/4.9: Valid leaves out edges a mechanism cannot carry") {
    std::string d = "threads s0, s1, t, u; lock m; barrier b(u);";
    auto c = compile_text(d + " var x : RS(s0, s1) ▷^b EX(t); var y : RS(s0, s1) ▷^m EX(t);");
    REQUIRE(c.spec);
    CHECK(c.var("x").sfg->edges.empty());
    CHECK(c.var("y").sfg->edges.empty());
    // With a barrier shared by exactly these threads, the edge stays (Msg(b) = {(T, T)}).
    auto s = compile_shape("threads s0, s1, t; barrier b(s0, s1, t);", "RS(s0, s1) ▷^b EX(t)");
    CHECK(s.edges.size() == 1);
}

TEST_CASE("explicit fork and join mechanisms follow Msg") {
    auto s = compile_shape(decls, "EX(t0) ▷{fork(t0 -> t1, t2)} (EX(t1) ⊔ RS(t1, t2))");
    CHECK(s.edges == std::set<std::string>{"0 -fork(t0->t1,t2)-> 1", "0 -fork(t0->t1,t2)-> 2"});
    auto j = compile_shape(decls, "(EX(t1) ⊔ EX(t2)) ▷^join EX(t0)");
    CHECK(j.edges == std::set<std::string>{"0 -join(t1->t0)-> 2", "1 -join(t2->t0)-> 2"});
    auto k = compile_shape(decls, "RS(t1, t2) ▷{join(t2, t1 -> t0)} EX(t0)");
    CHECK(k.edges == std::set<std::string>{"0 -join(t1,t2->t0)-> 1"});
}

TEST_CASE("modes unreachable from in-modes are found") {
    const EdgeLabel m{EdgeLabel::Kind::mech, {MechKind::lock, "m", "", {}}};
    ConnectReport report;
    // EX(t0) ▷^m RS(t1, t2): Valid drops the only edge (a lock passes to one thread).
    SfgBuilder b;
    const auto ex = b.base({ModeKind::EX, {"t0"}}, {});
    const auto rs = b.base({ModeKind::RS, {"t1", "t2"}}, {});
    const auto seq = b.sequence(ex, m, rs, {}, report);
    CHECK(std::move(b).finish(seq).unreachable_modes() == std::vector<std::uint32_t>{1});
    // [EX(t0) ⊔ EX(t1) ⊔ EX(t2)]^m
    SfgBuilder l;
    auto tl = l.base({ModeKind::EX, {"t0"}}, {});
    tl = l.disjunction(tl, l.base({ModeKind::EX, {"t1"}}, {}));
    tl = l.disjunction(tl, l.base({ModeKind::EX, {"t2"}}, {}));
    tl = l.loop(tl, m, {}, report);
    CHECK(std::move(l).finish(tl).unreachable_modes().empty());
}
