// The chapter 5 extensions: LOCK_m(T) (thesis §5.2), value labels v==K and queues q(o) (§5.1),
// thread groups (the thesis' ⊔_{t∈T}), from the text to the AST, the SFG, the net and the writers.
#include "support.hpp"

#include "sfg/compiler/render.hpp"
#include "sfg/compiler/verify.hpp"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

using namespace sfg;
using namespace sfg::test;

namespace {
const std::string decls = "threads t0, t1, t2; lock m, n; volatile v; queue q;"
                          "group W = t2, t1;";

const Discipline& sfg_of(const Compiled& c, const std::string& var = "x") {
    REQUIRE_MESSAGE(c.spec, (c.lines().empty() ? std::string() : c.lines()[0]));
    return *c.var(var).sfg;
}
Compiled compile_var(const std::string& disc) {
    return compile_text(decls + " var x : " + disc + ";");
}
std::set<std::string> edges(const Discipline& g) {
    std::set<std::string> out;
    for (const ModeEdge& e : g.edges)
        out.insert(g.modes[e.from].label() + " -" + e.mech.label() + "-> " + g.modes[e.to].label());
    return out;
}
// The JSON of a spec without the members that name its file or list its groups.
nlohmann::json json_of(const std::string& text) {
    auto c = compile_text(text);
    REQUIRE(c.spec);
    auto j = nlohmann::json::parse(to_json("f.sfg", &*c.spec, c.diags));
    j.erase("groups");
    return j;
}
} // namespace

TEST_CASE("the new declarations, modes and labels parse into the AST") {
    Diagnostics d;
    SourceFile f("t.sfg", "threads a, b; lock m; volatile v; queue q, r; group W = a, b;\n"
                          "var x : LOCK(m: a, W) ▷^(v == -3) EX(each W) ▷{v == 7} EX(a) ▷^q "
                          "EX(b);\n");
    ast::Spec s = parse_spec(f, d);
    REQUIRE_FALSE(d.has_errors());
    REQUIRE(s.decls.size() == 6);
    CHECK(s.decls[3].kind == ast::Decl::Kind::queue);
    CHECK(s.decls[3].names.size() == 2);
    CHECK(s.decls[4].kind == ast::Decl::Kind::group);
    CHECK(s.decls[4].names[0].name == "W");
    CHECK(s.decls[4].members.size() == 2);
    // ((((LOCK ▷ each) ▷ EX(a)) ▷ EX(b)): walk down the left spine.
    const ast::Disc* seq = s.decls[5].disc.get();
    CHECK(seq->label.kind == ast::Label::Kind::named);
    CHECK(seq->label.name.name == "q");
    seq = seq->lhs.get();
    CHECK(seq->label.kind == ast::Label::Kind::value);
    CHECK(seq->label.value.name == "7");
    CHECK(seq->label.loc == SourceLoc{2, 48}); // {v == 7} is located at v
    seq = seq->lhs.get();
    CHECK(seq->label.kind == ast::Label::Kind::value);
    CHECK(seq->label.name.name == "v");
    CHECK(seq->label.value.name == "-3");
    CHECK(seq->label.value.loc == SourceLoc{2, 31}); // at the '-'
    CHECK(seq->rhs->kind == ast::Disc::Kind::each);
    CHECK(seq->rhs->name.name == "W");
    const ast::Disc& lock = *seq->lhs;
    CHECK(lock.kind == ast::Disc::Kind::lock);
    CHECK(lock.name.name == "m");
    CHECK(lock.threads.size() == 2);
    CHECK(lock.loc == SourceLoc{2, 9});
}

TEST_CASE("LOCK, queue, group and each are keywords") {
    for (const char* text : {"threads LOCK;", "threads queue;", "lock group;", "var each;"}) {
        CAPTURE(text);
        CHECK(compile_text(text).diags.has_errors());
    }
}

TEST_CASE("LOCK_m(T) is a mode with Tid = T and composes like RS(T)") {
    auto lock = compile_var("EX(t0) ▷^fork LOCK(m: t2, t1) ▷^join EX(t0)");
    auto rs = compile_var("EX(t0) ▷^fork RS(t2, t1) ▷^join EX(t0)");
    const Discipline& g = sfg_of(lock);
    REQUIRE(g.modes.size() == 3);
    CHECK(g.modes[1].kind == ModeKind::LOCK);
    CHECK(g.modes[1].lock == "m");
    CHECK(g.modes[1].threads == std::vector<std::string>{"t1", "t2"});
    CHECK(g.modes[1].label() == "LOCK_m(t1,t2)");
    CHECK(edges(g) == std::set<std::string>{"EX(t0) -fork(t0->t1,t2)-> LOCK_m(t1,t2)",
                                            "LOCK_m(t1,t2) -join(t1,t2->t0)-> EX(t0)"});
    // Everything but the mode's kind and label is that of RS(T).
    const Discipline& h = sfg_of(rs);
    CHECK(g.in == h.in);
    CHECK(g.out == h.out);
    REQUIRE(g.edges.size() == h.edges.size());
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        CHECK(g.edges[e].from == h.edges[e].from);
        CHECK(g.edges[e].to == h.edges[e].to);
        CHECK(g.edges[e].mech == h.edges[e].mech);
    }
    CHECK(lock.lines() == rs.lines());
}

TEST_CASE("LOCK_m(T) fails Valid where RS(T) does, with the same warning") {
    auto c = compile_var("LOCK(m: t0, t1) ▷^n EX(t2)");
    REQUIRE(c.spec);
    CHECK(c.var("x").sfg->edges.empty());
    REQUIRE_FALSE(c.lines().empty());
    CHECK(c.lines()[0].find("edge LOCK_m(t0,t1) -n-> EX(t2) is left out: lock 'n' passes from one "
                            "thread to one thread, but LOCK_m(t0,t1) has 2") != std::string::npos);
    // A one-thread LOCK mode takes lock edges like EX: the loop is its self-edge.
    CHECK(edges(sfg_of(compile_var("[LOCK(m: t0)]^m"))) ==
          std::set<std::string>{"LOCK_m(t0) -m-> LOCK_m(t0)"});
}

TEST_CASE("N(G) of a LOCK mode: the places and transitions of RS(T), each Acc place knowing m") {
    auto lock = compile_var("EX(t0) ▷^fork LOCK(m: t1, t2) ▷^join EX(t0)");
    auto rs = compile_var("EX(t0) ▷^fork RS(t1, t2) ▷^join EX(t0)");
    const Net& a = *lock.var("x").net;
    const Net& b = *rs.var("x").net;
    REQUIRE(a.places.size() == b.places.size());
    REQUIRE(a.transitions.size() == b.transitions.size());
    int lock_places = 0;
    for (std::size_t p = 0; p < a.places.size(); ++p) {
        CHECK(a.places[p].id == b.places[p].id);
        if (a.places[p].kind == PlaceKind::Acc && a.places[p].mode == 1) {
            CHECK(a.modes[*a.places[p].mode].lock == "m");
            ++lock_places;
        } else if (a.places[p].kind == PlaceKind::Acc) {
            CHECK(a.modes[*a.places[p].mode].lock.empty());
        }
    }
    CHECK(lock_places == 2);
    for (std::size_t r = 0; r < a.transitions.size(); ++r) {
        CHECK(a.transitions[r].id == b.transitions[r].id);
        CHECK(a.transitions[r].pre == b.transitions[r].pre);
        CHECK(a.transitions[r].post == b.transitions[r].post);
    }
    CHECK(a.initial_markings == b.initial_markings);
    CHECK(verify_net(a).ok());
}

TEST_CASE("v==K is a volatile mechanism of its own: one sender, one receiver") {
    auto c = compile_var("[EX(t0) ▷^(v == 1) EX(t1)]^(v == 0)");
    const Discipline& g = sfg_of(c);
    CHECK(edges(g) == std::set<std::string>{"EX(t0) -v==1-> EX(t1)", "EX(t1) -v==0-> EX(t0)"});
    CHECK(g.edges[0].mech.kind == MechKind::volatile_);
    CHECK(g.edges[0].mech.name == "v");
    CHECK(g.edges[0].mech.value == 1);
    CHECK(c.lines().empty());
    // Values are canonical (no sign on 0, no leading zeros) and differ from the plain v.
    CHECK(edges(sfg_of(compile_var("[[EX(t0)]{v == -007}]^v"))) ==
          std::set<std::string>{"EX(t0) -v==-7-> EX(t0)", "EX(t0) -v-> EX(t0)"});
    CHECK(edges(sfg_of(compile_var("[[EX(t0)]^(v == -0)]^(v == 0)"))) ==
          std::set<std::string>{"EX(t0) -v==0-> EX(t0)"});
    auto wide = compile_var("EX(t0) ▷^(v == 2) RS(t1, t2)");
    REQUIRE(wide.spec);
    CHECK(wide.var("x").sfg->edges.empty());
    CHECK(wide.lines()[0] == "1:86: warning: edge EX(t0) -v==2-> RS(t1,t2) is left out: volatile "
                             "'v==2' passes from one thread to one thread, but EX(t0) has 1 and "
                             "RS(t1,t2) has 2");
}

TEST_CASE("the 64-bit bounds of a value are accepted, one past them is an error") {
    CHECK(compile_var("[EX(t0)]^(v == 9223372036854775807) ▷^(v == -9223372036854775808) EX(t1)")
              .lines()
              .empty());
    auto c = compile_var("[EX(t0)]^(v == 9223372036854775808)");
    REQUIRE(c.lines().size() == 1);
    CHECK(c.lines()[0].find("error: value 9223372036854775808 does not fit in a signed 64-bit "
                            "integer") != std::string::npos);
}

TEST_CASE("a queue q(o) sends from any one thread to any one thread, itself included") {
    auto c = compile_var("EX(t0) ▷^q [EX(t1) ⊔ EX(t2)]^q");
    CHECK(c.lines().empty());
    const Discipline& g = sfg_of(c);
    CHECK(g.edges.size() == 6);
    CHECK(edges(g).count("EX(t1) -q-> EX(t1)") == 1);
    CHECK(g.edges[0].mech == Mechanism{MechKind::queue, "q", "", {}});
    REQUIRE(c.spec->mechanisms.size() == 4);
    CHECK(c.spec->mechanisms[3].kind == MechKind::queue);
    auto wide = compile_var("RS(t0, t1) ▷^q EX(t2)");
    REQUIRE(wide.spec);
    CHECK(wide.var("x").sfg->edges.empty());
    CHECK(wide.lines()[0].find("queue 'q' passes from one thread to one thread") !=
          std::string::npos);
}

TEST_CASE("a group stands for its threads in every thread list") {
    const std::string g = "threads a, b, c, d; lock m; group W = c, b; barrier bar(a, W);";
    auto with = compile_text(g + "var x : EX(a) ▷{fork(a -> W)} RS(W) ▷^bar RS(a, W) "
                                 "▷{join(W, a -> d)} EX(d) ▷^fork LOCK(m: W);");
    auto without = compile_text(g + "var x : EX(a) ▷{fork(a -> b, c)} RS(b, c) ▷^bar RS(a, b, c) "
                                    "▷{join(b, c, a -> d)} EX(d) ▷^fork LOCK(m: b, c);");
    CHECK(with.lines().empty());
    CHECK(edges(sfg_of(with)) == edges(sfg_of(without)));
    REQUIRE(with.spec->groups.size() == 1);
    CHECK(with.spec->groups[0].name == "W");
    CHECK(with.spec->groups[0].threads == std::vector<std::string>{"b", "c"});
    CHECK(with.spec->mechanisms[1].threads == std::vector<std::string>{"a", "b", "c"});
}

TEST_CASE("EX(each W) is EX(t1) ⊔ EX(t2) ⊔ ..., in the group's order: the same JSON") {
    const std::string g = "threads main, w1, w2, w3; queue q; lock m; group W = w2, w3, w1;";
    CHECK(json_of(g + "var x : EX(main) ▷^q [EX(each W)]^m;") ==
          json_of(g + "var x : EX(main) ▷^q [EX(w2) ⊔ EX(w3) ⊔ EX(w1)]^m;"));
    CHECK(json_of(g + "discipline pool = [EX(each W)]^m; var x : pool ▷^m pool;") ==
          json_of(g + "discipline pool = [EX(w2) ⊔ EX(w3) ⊔ EX(w1)]^m; var x : pool ▷^m pool;"));
}

TEST_CASE("JSON: a LOCK mode names its lock, queues and groups are listed, v==K has no spaces") {
    auto c = compile_text(read_file(source_path("specs/extensions/work_queue.sfg")));
    REQUIRE(c.spec);
    auto j = nlohmann::json::parse(to_json("w.sfg", &*c.spec, c.diags));
    CHECK(j["mechanisms"] == nlohmann::json::parse(R"([{"name": "q", "kind": "queue"}])"));
    CHECK(j["groups"] ==
          nlohmann::json::parse(R"([{"name": "workers", "threads": ["w1", "w2"]}])"));
    auto l = compile_var("LOCK(m: t1, t0) ▷^(v == -1) EX(t2)");
    REQUIRE(l.spec);
    auto k = nlohmann::json::parse(to_json("l.sfg", &*l.spec, l.diags));
    CHECK(k["variables"][0]["sfg"]["modes"][0] ==
          nlohmann::json::parse(R"({"id": 0, "kind": "LOCK", "threads": ["t0", "t1"],
                                    "lock": "m"})"));
    CHECK(k["variables"][0]["sfg"]["modes"][1].count("lock") == 0);
    // Without groups the document has no "groups" member (and old specs keep their bytes).
    auto plain = compile_text("threads a; var x : EX(a);");
    CHECK(nlohmann::json::parse(to_json("p.sfg", &*plain.spec, plain.diags)).count("groups") == 0);
}

TEST_CASE("DOT labels: LOCK_m(T) and v==K") {
    auto c = compile_var("[LOCK(m: t0) ▷^(v == 1) EX(t1)]^(v == 0)");
    REQUIRE(c.spec);
    std::string dot = to_dot(*c.spec, View::both);
    CHECK(dot.find("\"LOCK_m(t0)\"") != std::string::npos);
    CHECK(dot.find("v==1") != std::string::npos);
    CHECK(dot.find("v==0") != std::string::npos);
}

TEST_CASE("--emit-cpp: LOCK modes, values and queues are emitted; groups are only sugar") {
    const auto header = [](const CompiledSpec& spec) {
        std::ostringstream out;
        write_cpp(out, spec, "ns", 0);
        return out.str();
    };
    auto lock = compile_text("threads t0, t1; lock m; var x : LOCK(m: t0, t1);");
    REQUIRE(lock.spec);
    CHECK(header(*lock.spec).find("{::sfg::ModeKind::LOCK, ") != std::string::npos);
    auto value_only = compile_text("threads a; volatile v; var x : [EX(a)]^(v == 1);");
    REQUIRE(value_only.spec);
    CHECK(header(*value_only.spec).find("#if !defined(SFG_SPEC_VALUES)") != std::string::npos);
    CHECK(header(*value_only.spec).find("SFG_SPEC_QUEUES") == std::string::npos);
    // A queue (thesis §5.1): its name in the queues list, its label an edge of kind queue.
    auto queue_label = compile_text("threads a; queue q; var x : [EX(a)]^q;");
    REQUIRE(queue_label.spec);
    const std::string q = header(*queue_label.spec);
    CHECK(q.find("#if !defined(SFG_SPEC_QUEUES)") != std::string::npos);
    CHECK(q.find("SFG_SPEC_VALUES") == std::string::npos);
    CHECK(q.find("{0, 0, ::sfg::MechKind::queue, 2, 0, {3, 0}}, // x: EX(a) -q-> EX(a)") !=
          std::string::npos);
    CHECK(q.find("    {1, 1}, // queues\n") != std::string::npos);
    // Declared but on no edge: listed all the same.
    auto unused = compile_text("threads a; lock m; queue q; var x : [EX(a)]^m;");
    REQUIRE(unused.spec);
    CHECK(header(*unused.spec).find("// queues") != std::string::npos);
    auto group = compile_text("threads a, b; lock m; group W = a, b; var x : [EX(each W)]^m;");
    auto plain = compile_text("threads a, b; lock m; var x : [EX(a) ⊔ EX(b)]^m;");
    REQUIRE(group.spec);
    REQUIRE(plain.spec);
    CHECK(header(*group.spec) == header(*plain.spec));
}

TEST_CASE("the chapter 5 specs: nets are 1-safe and every reachable marking feasible") {
    for (const char* name : {"fig5_1_locked", "guarded_phase", "vflag", "work_queue"}) {
        CAPTURE(name);
        auto c =
            compile_text(read_file(source_path(std::string("specs/extensions/") + name + ".sfg")));
        REQUIRE(c.spec);
        CHECK(c.lines().empty());
        for (const CompiledVariable& v : c.spec->variables) {
            NetVerification r = verify_net(*v.net);
            CHECK_MESSAGE(r.ok(), r.failure);
        }
    }
}
