// Every diagnostic, at its exact line:col: specs/errors/NAME.sfg against NAME.expected.
#include "support.hpp"

#include <filesystem>

using namespace sfg;
using namespace sfg::test;

TEST_CASE("every error spec gives exactly its expected diagnostics") {
    namespace fs = std::filesystem;
    int files = 0;
    for (const auto& entry : fs::directory_iterator(source_path("specs/errors"))) {
        if (entry.path().extension() != ".sfg")
            continue;
        ++files;
        std::string name = entry.path().stem().string();
        CAPTURE(name);
        auto c = compile_text(read_file(entry.path().string()));
        std::vector<std::string> expected;
        std::istringstream in(read_file(source_path("specs/errors/" + name + ".expected")));
        std::string line, exit_line;
        while (std::getline(in, line))
            (line.rfind("exit: ", 0) == 0 ? exit_line : expected.emplace_back()) = line;
        CHECK(c.lines() == expected);
        CHECK(exit_line == (c.diags.has_errors() ? "exit: 2" : "exit: 0"));
    }
    CHECK(files >= 30);
}

TEST_CASE("declarations may come in any order") {
    auto c = compile_text("var x : tl; discipline tl = [EX(a) | EX(b)]^m; lock m; threads a, b;");
    CHECK_FALSE(c.diags.has_errors());
    CHECK(c.var("x").sfg->modes.size() == 2);
}

TEST_CASE("a variable may be declared first and annotated later, once") {
    auto c = compile_text("threads a; var x; var x : EX(a);");
    CHECK_FALSE(c.diags.has_errors());
    CHECK(c.var("x").sfg.has_value());
    CHECK(c.spec->variables.size() == 1);
}

TEST_CASE("thread lists are sorted and mechanisms carry their kind") {
    auto c = compile_text("threads z, a; lock m; volatile v; barrier b(z, a); var x;");
    REQUIRE(c.spec);
    CHECK(c.spec->threads == std::vector<std::string>{"a", "z"});
    REQUIRE(c.spec->mechanisms.size() == 3);
    CHECK(c.spec->mechanisms[2].kind == MechKind::barrier);
    CHECK(c.spec->mechanisms[2].threads == std::vector<std::string>{"a", "z"});
    CHECK_FALSE(c.var("x").sfg.has_value());
}
