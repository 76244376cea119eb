// sfgc end to end: exit codes, the stderr format, golden DOT/JSON/PNML for every thesis spec,
// Graphviz accepting every DOT we emit, images, and bad input of every kind.
// Set SFG_UPDATE_GOLDEN=1 to rewrite tests/golden/ from the current output.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using namespace sfg_cli_test;

} // namespace

TEST_CASE("golden DOT, JSON and PNML for every thesis spec") {
    auto specs = spec_names("specs/thesis");
    REQUIRE(specs.size() >= 8);
    for (const std::string& s : specs) {
        CAPTURE(s);
        std::string file = "specs/thesis/" + s + ".sfg";
        Run dot = sfgc(file + " --dot --view both");
        CHECK(dot.status == 0);
        check_golden(s + ".dot", dot.out);
        Run json = sfgc(file + " --json");
        CHECK(json.status == 0);
        check_golden(s + ".json", json.out);
        fs::path pnml = scratch() / (s + ".pnml");
        Run p = sfgc(file + " --pnml '" + pnml.string() + "'");
        CHECK(p.status == 0);
        check_golden(s + ".pnml", slurp(pnml));
    }
}

TEST_CASE("--emit-cpp: a golden header for every thesis spec, the same bytes on every run") {
    for (const std::string& s : spec_names("specs/thesis")) {
        CAPTURE(s);
        Run r = sfgc("specs/thesis/" + s + ".sfg --emit-cpp -");
        CHECK(r.status == 0);
        check_golden(s + ".sfg.hpp", r.out);
        fs::path out = scratch() / (s + ".hpp");
        Run f = sfgc("specs/thesis/" + s + ".sfg --emit-cpp '" + out.string() + "'");
        CHECK(f.status == 0);
        CHECK(f.out.empty());
        CHECK(slurp(out) == r.out);
    }
    // The namespace: given, or the file's stem made an identifier.
    Run ns = sfgc("specs/thesis/bank.sfg --emit-cpp - --namespace tests::bank_v2");
    CHECK(ns.status == 0);
    CHECK(ns.out.find("namespace tests::bank_v2 {") != std::string::npos);
    fs::path odd = scratch() / "bank-account.v1.sfg";
    fs::copy_file(fs::path(SFG_SOURCE_DIR) / "specs/thesis/bank.sfg", odd,
                  fs::copy_options::overwrite_existing);
    Run stem = sfgc("'" + odd.string() + "' --emit-cpp -");
    CHECK(stem.status == 0);
    CHECK(stem.out.find("namespace bank_account_v1 {") != std::string::npos);
}

TEST_CASE("--emit-cpp: bad uses are usage errors") {
    for (const char* args :
         {"--emit-cpp - --namespace 'class'", "--emit-cpp - --namespace 2x",
          "--emit-cpp - --namespace 'a::'", "--namespace ns", "--emit-cpp - --dot"}) {
        CAPTURE(args);
        Run r = sfgc(std::string("specs/thesis/bank.sfg ") + args);
        CHECK(r.status == 2);
        CHECK(!r.err.empty());
    }
    Run bad = sfgc("specs/errors/" + std::string("undeclared_mechanism.sfg") + " --emit-cpp -");
    CHECK(bad.status == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("Graphviz accepts every DOT we emit, in every view") {
    for (const std::string& s : spec_names("specs/thesis"))
        for (const char* view : {"sfg", "net", "both"}) {
            CAPTURE(s);
            CAPTURE(view);
            Run r = sfgc("specs/thesis/" + s + ".sfg --dot --view " + view);
            REQUIRE(r.status == 0);
            fs::path dot = scratch() / "g.dot";
            std::ofstream(dot) << r.out;
            CHECK(shell("dot -Tsvg '" + dot.string() + "' -o /dev/null 2>/dev/null") == 0);
        }
}

TEST_CASE("JSON has the documented shape") {
    Run r = sfgc("specs/thesis/fig3_15.sfg --json");
    REQUIRE(r.status == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["file"] == "specs/thesis/fig3_15.sfg");
    CHECK(j["threads"] == nlohmann::json::array({"t0", "t1", "t2"}));
    CHECK(j["mechanisms"][0] == nlohmann::json({{"name", "m"}, {"kind", "lock"}}));
    CHECK(j["mechanisms"][2] == nlohmann::json({{"name", "v"}, {"kind", "volatile"}}));
    const auto& vars = j["variables"];
    REQUIRE(vars.size() == 7);
    const auto& forked = vars[6];
    CHECK(forked["name"] == "forked");
    CHECK(forked["sfg"]["edges"][0]["mech"] == "fork(t0->t1,t2)");
    CHECK(forked["sfg"]["in"] == nlohmann::json::array({0}));
    const auto& net = forked["net"];
    CHECK(net["places"][0] ==
          nlohmann::json({{"id", "Acc[t0:0]"}, {"kind", "Acc"}, {"thread", "t0"}, {"mode", 0}}));
    bool sync_has_null_thread = false;
    for (const auto& t : net["transitions"])
        if (t["kind"] == "sync")
            sync_has_null_thread = t["thread"].is_null();
    CHECK(sync_has_null_thread);
    for (const auto& arc : net["arcs"])
        CHECK(arc.size() == 2);
    CHECK(net["initial_markings"] == nlohmann::json::array({nlohmann::json::array({"Acc[t0:0]"})}));
    CHECK(j["diagnostics"].empty());

    Run undeclared = sfgc("specs/errors/undeclared_thread.sfg --json");
    CHECK(undeclared.status == 2);
    auto e = nlohmann::json::parse(undeclared.out);
    CHECK(e["diagnostics"][0] == nlohmann::json({{"severity", "error"},
                                                 {"line", 2},
                                                 {"col", 12},
                                                 {"message", "use of undeclared thread 't1'"}}));
    Run plain = sfgc("specs/thesis/bank.sfg --json");
    CHECK(nlohmann::json::parse(plain.out)["variables"][0]["net"].is_object());
    std::ofstream(scratch() / "nodisc.sfg") << "threads a; var x;\n";
    Run none = sfgc("'" + (scratch() / "nodisc.sfg").string() + "' --json");
    auto n = nlohmann::json::parse(none.out);
    CHECK(n["variables"][0]["sfg"].is_null());
    CHECK(n["variables"][0]["net"].is_null());
}

TEST_CASE("errors: FILE:LINE:COL, source line and caret on stderr, exit 2") {
    Run r = sfgc("specs/errors/many_errors.sfg");
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    std::istringstream in(r.err);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line))
        lines.push_back(line);
    REQUIRE(lines.size() >= 3);
    CHECK(lines[0] == "specs/errors/many_errors.sfg:1:13: error: redefinition of 't0'");
    CHECK(lines[1] == "threads t0, t0;");
    CHECK(lines[2] == "            ^");
    int errors = 0;
    for (const auto& l : lines)
        errors +=
            std::regex_search(l, std::regex(R"(^specs/errors/many_errors\.sfg:\d+:\d+: error: )"));
    CHECK(errors == 5); // every error in the file, not just the first
}

TEST_CASE("after 50 errors the rest are counted, not shown") {
    Run r = sfgc("specs/errors/too_many_errors.sfg");
    CHECK(r.status == 2);
    CHECK(r.err.find("specs/errors/too_many_errors.sfg: fatal error: too many errors: 60 found, "
                     "only the first 50 are shown\n") != std::string::npos);
}

TEST_CASE("warnings alone exit 0") {
    Run r = sfgc("specs/thesis/valid_filter.sfg");
    CHECK(r.status == 0);
    CHECK(r.err.find(": warning: edge RS(s0,s1) -b-> EX(t) is left out") != std::string::npos);
}

TEST_CASE("bad command lines exit 2 with a message") {
    for (const char* args :
         {"", "--bogus", "specs/thesis/barrier.sfg --view sideways",
          "specs/thesis/barrier.sfg --dot --json", "--demo specs/thesis/barrier.sfg",
          "no/such/file.sfg", "specs", "specs/thesis/barrier.sfg --svg",
          "specs/thesis/barrier.sfg --svg /no/such/dir/x.svg"}) {
        CAPTURE(args);
        Run r = sfgc(args);
        CHECK(r.status == 2);
        CHECK_FALSE(r.err.empty());
    }
    CHECK(sfgc("--help").status == 0);
}

TEST_CASE("SVG and PNG are rendered in-process; --demo says where") {
    fs::path svg = scratch() / "b.svg", png = scratch() / "b.png";
    Run r = sfgc("--demo --svg '" + svg.string() + "' --png '" + png.string() + "' --view both");
    CHECK(r.status == 0);
    CHECK(r.out.find("wrote " + svg.string()) != std::string::npos);
    std::string s = slurp(svg);
    CHECK(s.find("<svg") != std::string::npos);
    CHECK(s.find("sync[e0]") != std::string::npos);
    CHECK(slurp(png).substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST_CASE("--verify-net prints reachable markings per variable") {
    Run r = sfgc("specs/thesis/particles.sfg --verify-net");
    CHECK(r.status == 0);
    CHECK(r.out.find("p0: 30 reachable markings; 1-safe; every marking is feasible") !=
          std::string::npos);
}

// docs/limits.md's "within a second", for the release build; sanitizers slow sfgc ~10x.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr double one_second = 10.0;
#else
constexpr double one_second = 1.0;
#endif

std::string chain(int n, const std::string& op) {
    std::string out = "EX(t)";
    for (int i = 1; i < n; ++i)
        out += op + "EX(t)";
    return out;
}

TEST_CASE("garbage input: a diagnostic and exit 2 within a second, never a crash") {
    std::string random;
    unsigned x = 12345;
    for (int i = 0; i < 1000000; ++i) {
        x = x * 1103515245u + 12345u;
        random += static_cast<char>(x >> 16);
    }
    std::string megabyte_of_text;
    while (megabyte_of_text.size() < 1000000)
        megabyte_of_text += "var x : EX(t0) |> ^m EX(t1) &&& ;\n";
    const std::pair<const char*, std::string> cases[] = {
        {"binary", random},
        {"text", megabyte_of_text},
        {"brackets",
         "threads t; var x : " + std::string(10000, '[') + "EX(t)" + std::string(10000, ']') + ";"},
        {"parens", "threads t; var x : " + std::string(100000, '(') + ";"},
        {"comment", "threads t; /* never closed\n" + std::string(1000, 'x')},
        {"utf8", "threads t\xc0\xaf; var \xed\xa0\x80 : EX(t);"},
        {"nul", std::string("threads t;\0\0var x;", 18)},
        {"empty_rs", "threads t; var x : RS();"},
        {"one_long_line_of_errors", "threads t; var x : " + chain(30000, " |> ") + ";"},
        {"too_long_statement", "threads t; lock m; var x : " + chain(40000, " |>^m ") + ";"},
    };
    for (const auto& [name, text] : cases) {
        std::string input = name; // a std::string, so that doctest prints it, not its address
        CAPTURE(input);
        fs::path f = scratch() / (std::string(name) + ".sfg");
        std::ofstream(f, std::ios::binary) << text;
        Run r = sfgc("'" + f.string() + "'");
        CHECK(r.status == 2); // a hang would be cut by `timeout 20` and exit 124
        CHECK(r.err.find(": error: ") != std::string::npos);
        CHECK(r.cpu_seconds < one_second);
    }
}

TEST_CASE("the README's picture is what sfgc draws today") {
    fs::path svg = scratch() / "readme.svg";
    REQUIRE(sfgc("--demo --view both --svg '" + svg.string() + "'").status == 0);
    CHECK_MESSAGE(slurp(svg) == slurp(SFG_SOURCE_DIR "/docs/assets/barrier.svg"),
                  "regenerate with: sfgc --demo --view both --svg docs/assets/barrier.svg");
}
