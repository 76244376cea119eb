// The grammar: every construct, both operator spellings, precedence and associativity.
#include "support.hpp"

using namespace sfg;
using sfg::test::compile_text;

namespace {
ast::Spec parse(const std::string& text, Diagnostics& d) {
    SourceFile f("t.sfg", text);
    return parse_spec(f, d);
}
const ast::Disc& var_disc(const ast::Spec& s, std::size_t i = 0) {
    std::size_t k = 0;
    for (const auto& d : s.decls)
        if (d.kind == ast::Decl::Kind::var && k++ == i)
            return *d.disc;
    FAIL("no var");
    throw 0;
}
// A compact rendering of a discipline term with full parenthesization.
std::string show(const ast::Disc& d) {
    auto names = [](const std::vector<ast::Ident>& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? "," : "") + v[i].name;
        return s;
    };
    auto label = [&](const ast::Label& l) -> std::string {
        switch (l.kind) {
        case ast::Label::Kind::named:
            return l.name.name;
        case ast::Label::Kind::bare_fork:
            return "fork";
        case ast::Label::Kind::bare_join:
            return "join";
        case ast::Label::Kind::fork:
            return "fork(" + l.thread.name + "->" + names(l.threads) + ")";
        case ast::Label::Kind::join:
            return "join(" + names(l.threads) + "->" + l.thread.name + ")";
        case ast::Label::Kind::value:
            return "(" + l.name.name + "==" + l.value.name + ")";
        }
        return "?";
    };
    switch (d.kind) {
    case ast::Disc::Kind::ex:
        return "EX(" + names(d.threads) + ")";
    case ast::Disc::Kind::rs:
        return "RS(" + names(d.threads) + ")";
    case ast::Disc::Kind::lock:
        return "LOCK(" + d.name.name + ":" + names(d.threads) + ")";
    case ast::Disc::Kind::each:
        return "EX(each " + d.name.name + ")";
    case ast::Disc::Kind::name:
        return d.name.name;
    case ast::Disc::Kind::disj:
        return "(" + show(*d.lhs) + " | " + show(*d.rhs) + ")";
    case ast::Disc::Kind::seq:
        return "(" + show(*d.lhs) + " >" + label(d.label) + " " + show(*d.rhs) + ")";
    case ast::Disc::Kind::loop:
        return "[" + show(*d.lhs) + "]" + label(d.label);
    }
    return "?";
}
std::string shape(const std::string& disc) {
    Diagnostics d;
    auto s = parse("threads a, b, c; lock m, n; var x : " + disc + ";", d);
    REQUIRE_FALSE(d.has_errors());
    return show(var_disc(s));
}
} // namespace

TEST_CASE("declarations of every kind") {
    Diagnostics d;
    auto s = parse("threads a, b;\nlock m, n;\nvolatile v;\nbarrier bb(a, b);\n"
                   "discipline tl = EX(a) | EX(b);\nvar x, y : tl;\nvar z;\n",
                   d);
    REQUIRE_FALSE(d.has_errors());
    REQUIRE(s.decls.size() == 7);
    CHECK(s.decls[0].kind == ast::Decl::Kind::threads);
    CHECK(s.decls[0].names.size() == 2);
    CHECK(s.decls[1].kind == ast::Decl::Kind::lock);
    CHECK(s.decls[2].kind == ast::Decl::Kind::volatile_);
    CHECK(s.decls[3].kind == ast::Decl::Kind::barrier);
    CHECK(s.decls[3].names[0].name == "bb");
    CHECK(s.decls[3].barrier_threads.size() == 2);
    CHECK(s.decls[4].kind == ast::Decl::Kind::discipline);
    CHECK(s.decls[5].names.size() == 2);
    CHECK(s.decls[5].disc != nullptr);
    CHECK(s.decls[6].disc == nullptr);
    CHECK(s.decls[5].names[1].loc == SourceLoc{6, 8});
}

TEST_CASE("ASCII and Unicode operators parse alike") {
    CHECK(shape("EX(a) | EX(b)") == shape("EX(a) ⊔ EX(b)"));
    CHECK(shape("EX(a) |> ^m EX(b)") == shape("EX(a) ▷^m EX(b)"));
    CHECK(shape("EX(a) ▷^m EX(b)") == "(EX(a) >m EX(b))");
}

TEST_CASE("disjunction is loosest; both operators are left-associative") {
    CHECK(shape("EX(a) | EX(b) |> ^m EX(c)") == "(EX(a) | (EX(b) >m EX(c)))");
    CHECK(shape("EX(a) |> ^m EX(b) | EX(c)") == "((EX(a) >m EX(b)) | EX(c))");
    CHECK(shape("EX(a) | EX(b) | EX(c)") == "((EX(a) | EX(b)) | EX(c))");
    CHECK(shape("EX(a) |>^m EX(b) |>^n EX(c)") == "((EX(a) >m EX(b)) >n EX(c))");
    CHECK(shape("EX(a) |>^m (EX(b) |>^n EX(c))") == "(EX(a) >m (EX(b) >n EX(c)))");
}

TEST_CASE("loops and every label form") {
    CHECK(shape("[EX(a) | EX(b)]^m") == "[(EX(a) | EX(b))]m");
    CHECK(shape("EX(a) ▷^fork RS(b, c)") == "(EX(a) >fork RS(b,c))");
    CHECK(shape("RS(b, c) ▷^join EX(a)") == "(RS(b,c) >join EX(a))");
    CHECK(shape("EX(a) ▷{fork(a -> b, c)} RS(b, c)") == "(EX(a) >fork(a->b,c) RS(b,c))");
    CHECK(shape("RS(b, c) ▷{join(b, c -> a)} EX(a)") == "(RS(b,c) >join(b,c->a) EX(a))");
    CHECK(shape("[EX(a)]{m}") == "[EX(a)]m");
    CHECK(shape("[[EX(a) | EX(b)]^m]^n") == "[[(EX(a) | EX(b))]m]n");
    CHECK(shape("tl") == "tl");
}

TEST_CASE("comments of both kinds are skipped") {
    Diagnostics d;
    auto s = parse("// line\nthreads /* inline */ a;\n/* multi\n line */ var x : EX(a); // end", d);
    CHECK_FALSE(d.has_errors());
    CHECK(s.decls.size() == 2);
}

TEST_CASE("programs are parsed as items") {
    Diagnostics d;
    auto s =
        parse("threads t; var x; program p { init x = -3; thread t { let r = x + 1; x = r * 2; "
              "if (r > 1 && !(x == 2)) { acq m; rel m; } else { skip; } while (x < 3) { x = x "
              "+ 1; } repeat 2 { write x; read x; } await x == 4; assert x != 0; "
              "deterministic { fork u, v; join u, v; barrier b; } } }",
              d);
    CHECK_FALSE(d.has_errors());
    REQUIRE(s.programs.size() == 1);
    CHECK(s.programs[0].name.name == "p");
}

TEST_CASE("keywords are reserved") {
    Diagnostics d;
    parse("threads lock;", d);
    CHECK(d.has_errors());
}

TEST_CASE("syntax errors: every one is reported at its line and column") {
    auto c = compile_text("threads a b;\nlock m\nvar x : EX(a;\n");
    auto lines = c.lines();
    REQUIRE(lines.size() >= 2);
    CHECK(lines[0] == "1:11: error: expected ',' or ';' before 'b'");
    CHECK_FALSE(c.spec.has_value());
}

TEST_CASE("nesting deeper than the limit is an error, not a crash") {
    std::string deep =
        "threads t; var x : " + std::string(5000, '(') + "EX(t)" + std::string(5000, ')') + ";";
    auto c = compile_text(deep);
    REQUIRE(c.diags.has_errors());
    CHECK(c.lines()[0].find("nesting is too deep") != std::string::npos);
    std::string ok =
        "threads t; var x : " + std::string(200, '(') + "EX(t)" + std::string(200, ')') + ";";
    CHECK_FALSE(compile_text(ok).diags.has_errors());
}

TEST_CASE("columns count code points") {
    auto c = compile_text("threads t; var x : EX(t) ▷^zz EX(t);");
    REQUIRE(c.lines().size() == 1);
    CHECK(c.lines()[0] == "1:28: error: use of undeclared mechanism 'zz'");
}

TEST_CASE("garbage input: every kind gets a diagnostic and no crash") {
    std::string bin;
    for (int i = 0; i < 5000; ++i)
        bin += static_cast<char>((i * 7919) % 256);
    for (const std::string& text :
         {bin, std::string("\0\0\0", 3), std::string("/*"), std::string("\xc3\x28"),
          std::string("threads \xe2\x82;"), std::string(100000, '['), std::string(100000, '!')}) {
        auto c = compile_text(text);
        CHECK(c.diags.has_errors());
    }
}
