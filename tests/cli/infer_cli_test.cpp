// `sfgc infer` end to end (docs/infer.md): the thesis' examples recorded as traces
// (specs/infer/*.std) against golden specs, each output compiled and enforced on its trace by
// sfgc itself; JSON; binary traces and SLPs; bad input worded as `sfgc trace` words it.
// Set SFG_UPDATE_GOLDEN=1 to rewrite tests/golden/infer/ from the current output.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace {

using namespace sfg_cli_test;

// The lines of `text` that declare or annotate (no comments): what binary and SLP must match.
std::string declarations(const std::string& text) {
    std::string out, line;
    std::istringstream in(text);
    while (std::getline(in, line))
        if (!line.empty() && line.rfind("//", 0) != 0)
            out += line.substr(0, line.find(" //")) + "\n";
    return out;
}

} // namespace

TEST_CASE("sfgc infer: the thesis' examples as recorded traces, golden, compiled and enforced") {
    for (const char* name : {"bank", "particles", "handshake", "pool"}) {
        CAPTURE(name);
        const std::string trace = std::string("specs/infer/") + name + ".std";
        const fs::path out = scratch() / (std::string(name) + ".sfg");
        Run r = sfgc("infer " + trace + " -o " + quote(out));
        CHECK(r.status == 0);
        CHECK(r.err.empty());
        CHECK(r.out.empty());
        check_golden(std::string("infer/") + name + ".sfg", slurp(out));
        Run c = sfgc(quote(out));
        CHECK(c.status == 0);
        Run e = sfgc("trace " + trace + " --spec " + quote(out) + " --analysis enforce");
        CHECK(e.status == 0);
        CHECK(e.err.empty());
    }
}

TEST_CASE("sfgc infer --format json: disciplines and races") {
    Run r = sfgc("infer specs/infer/pool.std specs/infer/bank.std --format json");
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["variables"][0] == nlohmann::json::parse(R"({"var": "task", "accesses": 5,
        "traces": 1, "threads": ["main", "w1", "w2"],
        "discipline": "EX(main) ▷^q [EX(w1) ⊔ EX(w2)]^q"})"));
    CHECK(j["variables"].size() == 3);
    CHECK(j["racy"] == nlohmann::json::parse(R"([{"var": "counter",
        "trace": "specs/infer/pool.std", "event": 14, "with_event": 13}])"));
    check_golden("infer/pool_bank.json", r.out);
}

TEST_CASE("sfgc infer reads binary traces and SLPs as it reads text") {
    const fs::path slp = scratch() / "particles.slp", bin = scratch() / "particles.bin";
    REQUIRE(sfgc("compress specs/infer/particles.std -o " + quote(slp)).status == 0);
    REQUIRE(sfgc("decompress " + quote(slp) + " -o " + quote(bin) + " --format binary").status ==
            0);
    Run text = sfgc("infer specs/infer/particles.std");
    REQUIRE(text.status == 0);
    for (const fs::path& p : {slp, bin}) {
        CAPTURE(p);
        Run r = sfgc("infer " + quote(p));
        CHECK(r.status == 0);
        CHECK(declarations(r.out) == declarations(text.out));
    }
}

// An SLP keeps no event log: the check expands it again, and hb runs on its grammar when it
// compresses well (as sfgc trace does); the result is the text's, the race included.
TEST_CASE("sfgc infer on an SLP that compresses well: the text's result, its race from the "
          "grammar") {
    const fs::path text = scratch() / "rounds.std", slp = scratch() / "rounds.slp";
    {
        std::ofstream out(text);
        out << "main|w(config)\nmain|fork(W0,W1,W2,W3)\n";
        for (int round = 0; round < 2000; ++round)
            for (int w = 0; w < 4; ++w)
                out << "W" << w << "|acq(m)\nW" << w << "|r(x)\nW" << w << "|w(x)\nW" << w
                    << "|rel(m)\nW" << w << "|r(config)\nW" << w << "|w(y)\n";
        out << "main|join(W0,W1,W2,W3)\nmain|r(x)\n";
    }
    REQUIRE(sfgc("compress " + quote(text) + " -o " + quote(slp)).status == 0);
    CHECK(fs::file_size(slp) * 100 < fs::file_size(text));
    Run t = sfgc("infer " + quote(text) + " --format json");
    Run s = sfgc("infer " + quote(slp) + " --format json");
    REQUIRE(t.status == 0);
    REQUIRE(s.status == 0);
    auto jt = nlohmann::json::parse(t.out), js = nlohmann::json::parse(s.out);
    CHECK(js["variables"] == jt["variables"]);
    REQUIRE(js["racy"].size() == 1);
    CHECK(js["racy"][0]["trace"] == slp.string());
    js["racy"][0]["trace"] = jt["racy"][0]["trace"];
    CHECK(js["racy"] == jt["racy"]);
    CHECK(js["racy"][0]["var"] == "y");
}

TEST_CASE("sfgc infer: bad input") {
    SUBCASE("an ill-formed trace, as sfgc trace reports it") {
        const fs::path bad = write_scratch("bad.std", "t0|w(x)\nt0|rel(m)\n");
        Run t = sfgc("trace " + quote(bad));
        Run r = sfgc("infer " + quote(bad));
        CHECK(r.status == 2);
        CHECK(r.err == t.err);
        CHECK(r.err.find("bad.std:2:1: error: thread t0 releases lock m") != std::string::npos);
        CHECK(r.out.empty());
    }
    SUBCASE("traces that disagree on a name") {
        const fs::path a = write_scratch("a.std", "t0|acq(m)\nt0|rel(m)\n");
        const fs::path b = write_scratch("b.std", "t0|vw(m)\n");
        Run r = sfgc("infer " + quote(a) + " " + quote(b));
        CHECK(r.status == 2);
        CHECK(r.err == "sfgc infer: error: 'm' is a lock in " + a.string() + " but a volatile in " +
                           b.string() + "\n");
    }
    SUBCASE("a --spec that contradicts the traces names its line") {
        const fs::path spec = write_scratch("decl.sfg", "threads t0, t1;\nvolatile m;\n");
        const fs::path a = write_scratch("a.std", "t0|acq(m)\nt0|rel(m)\n");
        Run r = sfgc("infer --spec " + quote(spec) + " " + quote(a));
        CHECK(r.status == 2);
        CHECK(r.err == spec.string() + ":2:10: error: 'm' is declared a volatile here, but " +
                           a.string() + " uses it as a lock\n");
        const fs::path bar = write_scratch("bar.sfg", "threads t0, t1, t2;\nbarrier b(t0, t1);\n");
        const fs::path c = write_scratch("c.std", "t0|benter(b)\nt2|benter(b)\nt0|bexit(b)\n");
        Run s = sfgc("infer --spec " + quote(bar) + " " + quote(c));
        CHECK(s.status == 2);
        CHECK(s.err == bar.string() +
                           ":2:9: error: barrier b is declared without thread t2, "
                           "which passes it in " +
                           c.string() + "\n");
    }
    SUBCASE("a name the language cannot declare") {
        const fs::path a = write_scratch("kw.std", "t0|w(lock)\n");
        Run r = sfgc("infer " + quote(a));
        CHECK(r.status == 2);
        CHECK(r.err.find("the variable 'lock' of") != std::string::npos);
        const fs::path c = write_scratch("kw_cond.std", "cond|w(x)\n"); // a word since `cond c;`
        Run rc = sfgc("infer " + quote(c));
        CHECK(rc.status == 2);
        CHECK(rc.err.find("'cond'") != std::string::npos);
    }
    SUBCASE("usage") {
        CHECK(sfgc("infer").status == 2);
        CHECK(sfgc("infer specs/infer/bank.std --format xml").status == 2);
    }
}

TEST_CASE("sfgc infer --spec keeps the spec's declarations") {
    const fs::path spec = write_scratch("keep.sfg", "threads main, deposit, withdraw, audit;\n"
                                                    "lock m, n;\n");
    Run r = sfgc("infer --spec " + quote(spec) + " specs/infer/bank.std");
    REQUIRE(r.status == 0);
    CHECK(r.out.find("threads main, deposit, withdraw, audit;\nlock m, n;\n") != std::string::npos);
    // A program's condition variable is no name of a trace: left out, not taken for a thread.
    const fs::path cv = write_scratch("keep_cond.sfg", "threads main, deposit, withdraw, audit;\n"
                                                       "lock m;\ncond c;\n");
    Run rc = sfgc("infer --spec " + quote(cv) + " specs/infer/bank.std");
    REQUIRE(rc.status == 0);
    CHECK(rc.out.find("threads main, deposit, withdraw, audit;\n") != std::string::npos);
    CHECK(rc.out.find(" c") == std::string::npos);
}

TEST_CASE("sfgc check --infer: from every explored execution") {
    const fs::path out = scratch() / "bank_check.sfg";
    Run r = sfgc("check specs/programs/fig2_3_bank/fig2_3_bank.sfg --infer " + quote(out));
    CHECK(r.status == 0);
    const std::string spec = slurp(out);
    CHECK(spec.find("var balance : EX(main) ▷^fork LOCK(m: deposit, withdraw) ▷^join "
                    "EX(main);\n// balance: 12 accesses by 3 threads (main, deposit, withdraw) in "
                    "2 of 2 traces\n//   bank execution 1, bank execution 2:\n") !=
          std::string::npos);
    CHECK(sfgc(quote(out)).status == 0);
    Run h = sfgc("check specs/programs/fig2_7_hidden_race/fig2_7_hidden_race.sfg --infer -");
    CHECK(h.status == 1); // the race is a finding of the check
    CHECK(h.out.find("var y; // no discipline: data race (hb) in hidden execution 2: T2 w at "
                     "event 8 races with event 1\n") != std::string::npos);
    Run s = sfgc("check specs/programs/fig2_3_bank/fig2_3_bank.sfg --shard 1/2 --infer -");
    CHECK(s.status == 2);
    CHECK(s.err.find("--infer") != std::string::npos);
}

TEST_CASE("sfgc infer -: standard input is read once and checked like a file") {
    const fs::path out = scratch() / "stdin.sfg";
    REQUIRE(shell("cd '" SFG_SOURCE_DIR "' && '" SFGC_PATH "' infer - <specs/infer/pool.std >'" +
                  out.string() + "'") == 0);
    std::string expected = sfgc("infer specs/infer/pool.std").out;
    for (std::size_t at; (at = expected.find("specs/infer/pool.std")) != std::string::npos;)
        expected.replace(at, std::string("specs/infer/pool.std").size(), "<stdin>");
    CHECK(slurp(out) == expected);
    CHECK(expected.find("var counter; // no discipline: data race (hb) in <stdin>") !=
          std::string::npos);
}
