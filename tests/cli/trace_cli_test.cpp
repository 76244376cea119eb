// `sfgc trace` end to end (docs/traces.md): the thesis' traces in
// specs/traces/ (Figures 3.6, 4.6, 5.1), a RAPID STD file, exit codes, the text and JSON reports,
// --max-reports, standard input, and malformed or ill-formed traces answered with exit 2 and an
// error naming the line. The analyses themselves are tested in runtime/tests.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using json = nlohmann::ordered_json; // keeps the keys in the order printed
using namespace sfg_cli_test;

namespace {

const std::string all_detectors = " --analysis enforce,hb,fasttrack,goldilocks,eraser";

// The JSON report of a run; FAILs (and returns null) when it does not parse.
json report(const Run& r) {
    json j = json::parse(r.out, nullptr, false);
    CHECK_MESSAGE(!j.is_discarded(), "not JSON: " << r.out << r.err);
    return j;
}

// The findings list of one analysis in a JSON report.
const json& findings(const json& j, const std::string& analysis) {
    static const json none = json::array();
    for (const json& a : j["analyses"])
        if (a["name"] == analysis)
            for (const char* key : {"races", "violations", "warnings"})
                if (a.contains(key))
                    return a[key];
    FAIL("no analysis " << analysis << " in " << j.dump());
    return none;
}

} // namespace

TEST_CASE("Figure 3.6 left: race-free, but the lock discipline is violated at event 7") {
    Run r = sfgc("trace specs/traces/fig3_6_left.std --spec specs/traces/fig3_6.sfg" +
                 all_detectors + " --format json");
    CHECK(r.status == 1);
    CHECK(r.err.empty());
    json j = report(r);
    CHECK(j["events"] == 7);
    for (const char* hb : {"hb", "fasttrack", "goldilocks"})
        CHECK(findings(j, hb).empty());
    const json& v = findings(j, "enforce");
    REQUIRE(v.size() == 1);
    CHECK(v[0].dump() ==
          R"({"var":"x","event":7,"thread":"T0","op":"r","line":10,"location":"Fig3_6.java:7",)"
          R"("message":"r(x) by T0 is not permitted: the possible modes were EX(T0), EX(T1); to )"
          R"(enter EX(T0) (edge EX(T1) -m-> EX(T0)), T0 must acq(m) before reading x"})");
}

TEST_CASE("Figure 3.6 right: hb, fasttrack and goldilocks agree on the race; enforce too") {
    Run r = sfgc("trace specs/traces/fig3_6_right.std --spec specs/traces/fig3_6.sfg" +
                 all_detectors + " --format json");
    CHECK(r.status == 1);
    json j = report(r);
    for (const char* hb : {"hb", "fasttrack", "goldilocks"}) {
        const json& races = findings(j, hb);
        REQUIRE(races.size() == 1);
        CHECK(races[0].dump() ==
              R"({"var":"x","event":3,"thread":"T1","op":"w","with_event":2,"line":5,)"
              R"("location":"Fig3_6.java:12","with_thread":"T0","with_op":"w","with_line":4,)"
              R"("with_location":"Fig3_6.java:5"})");
    }
    REQUIRE(findings(j, "enforce").size() == 1);
    CHECK(findings(j, "enforce")[0]["event"] == 3);
    CHECK(findings(j, "eraser").size() == 1);
}

TEST_CASE("Figure 4.6 conforms to the barrier discipline: exit 0") {
    Run r = sfgc("trace specs/traces/fig4_6.std --spec specs/thesis/barrier.sfg" + all_detectors +
                 " --format json");
    CHECK(r.status == 0); // Eraser's warning (no lock protects p0) does not count
    json j = report(r);
    CHECK(j["events"] == 21);
    for (const char* a : {"enforce", "hb", "fasttrack", "goldilocks"})
        CHECK(findings(j, a).empty());
    CHECK(findings(j, "eraser").size() == 1);
}

// docs/traces.md, barrier generations: T0's arrival at round 2 comes before T1 leaves round 1,
// so it orders nothing for T1, and the writes of events 4 and 7 race.
TEST_CASE("overlapping passes of a reusable barrier: the race between the rounds is found") {
    Run r = sfgc("trace specs/traces/barrier_rounds.std --analysis hb,fasttrack,goldilocks,"
                 "singletrack --format json");
    CHECK(r.status == 1);
    json j = report(r);
    CHECK(j["events"] == 10);
    for (const char* a : {"hb", "fasttrack", "goldilocks"}) {
        CAPTURE(a);
        const json& races = findings(j, a);
        REQUIRE(races.size() == 1);
        CHECK(races[0]["event"] == 7);
        CHECK(races[0]["with_event"] == 4);
    }
    // As an SLP, on the grammar and on its expansion: the same report.
    const fs::path slp = scratch() / "barrier_rounds.slp";
    REQUIRE(sfgc("compress specs/traces/barrier_rounds.std -o '" + slp.string() + "'").status == 0);
    for (const char* mode : {"grammar", "expand"}) {
        Run g = sfgc("trace '" + slp.string() + "' --analysis hb --slp-mode " + mode);
        CHECK(g.status == 1);
        CHECK(g.out.find("event 7") != std::string::npos);
    }
}

TEST_CASE("Figure 5.1 conforms although no lock is held; Eraser warns (thesis §5.2)") {
    Run r = sfgc("trace specs/traces/fig5_1.std --spec specs/traces/fig5_1.sfg" + all_detectors +
                 " --format json");
    CHECK(r.status == 0);
    json j = report(r);
    for (const char* a : {"enforce", "hb", "fasttrack", "goldilocks"})
        CHECK(findings(j, a).empty());
    const json& w = findings(j, "eraser");
    REQUIRE(w.size() == 1);
    CHECK(w[0]["event"] == 11);
    CHECK(w[0]["with_event"] == 6);
}

TEST_CASE("RAPID's plain STD files just work: r, w, acq, rel, fork, join, begin(n), end(n)") {
    Run r = sfgc("trace specs/traces/rapid.std --analysis hb,fasttrack,goldilocks --format json");
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    json j = report(r);
    CHECK(j["events"] == 18);
    for (const char* a : {"hb", "fasttrack", "goldilocks"})
        CHECK(findings(j, a).empty());
    // The same file with a race: T0 reads V1.count before joining T2.
    std::ifstream in(SFG_SOURCE_DIR "/specs/traces/rapid.std");
    std::string text, line;
    while (std::getline(in, line))
        if (line != "T0|r(V1.count)|17")
            text += (line == "T0|join(T1)|14" ? "T0|r(V1.count)|17\n" : "") + line + "\n";
    Run racy = sfgc("trace '" + write_scratch("rapid_racy.std", text).string() +
                    "' --analysis hb,fasttrack,goldilocks --format json");
    CHECK(racy.status == 1);
    json k = report(racy);
    for (const char* a : {"hb", "fasttrack", "goldilocks"}) {
        REQUIRE(findings(k, a).size() == 1);
        CHECK(findings(k, a)[0]["var"] == "V1.count");
        CHECK(findings(k, a)[0]["event"] == 15);
        CHECK(findings(k, a)[0]["with_event"] == 14);
    }
}

TEST_CASE("the text report: one block per finding, then a summary line") {
    Run r = sfgc("trace specs/traces/fig3_6_right.std --spec specs/traces/fig3_6.sfg "
                 "--analysis enforce,hb");
    CHECK(r.status == 1);
    CHECK(r.out == R"(==================
ERROR: discipline of x violated (enforce)
  Write of x by thread T1, event 3 (specs/traces/fig3_6_right.std:5) at Fig3_6.java:12
  w(x) by T1 is not permitted: the possible mode was EX(T0); to enter EX(T1) (edge EX(T0) -m-> EX(T1)), T0 must rel(m) after its accesses in EX(T0) and T1 must acq(m) before writing x
==================
==================
WARNING: data race on x (hb)
  Write of x by thread T1, event 3 (specs/traces/fig3_6_right.std:5) at Fig3_6.java:12
  Previous write of x by thread T0, event 2 (specs/traces/fig3_6_right.std:4) at Fig3_6.java:5
==================
SUMMARY: 3 events; enforce: 1 violation; hb: 1 race
)");
    Run clean = sfgc("trace specs/traces/fig4_6.std");
    CHECK(clean.status == 0);
    CHECK(clean.out == "SUMMARY: 21 events; hb: 0 races\n");
}

TEST_CASE("default analyses: hb, and enforce,hb with --spec") {
    Run hb = sfgc("trace specs/traces/fig3_6_left.std --format json");
    CHECK(hb.status == 0);
    CHECK(report(hb)["analyses"].dump() == R"([{"name":"hb","races":[]}])");
    Run both = sfgc("trace specs/traces/fig3_6_left.std --spec specs/traces/fig3_6.sfg");
    CHECK(both.status == 1);
    CHECK(both.out.find("SUMMARY: 7 events; enforce: 1 violation; hb: 0 races") !=
          std::string::npos);
}

TEST_CASE("--max-reports N shows N findings per analysis and says how many were left out") {
    std::string text = "A|fork(B)\n";
    for (const char* x : {"x", "y", "z"})
        text += std::string("A|w(") + x + ")\nB|w(" + x + ")\n";
    const std::string file = "'" + write_scratch("three_races.std", text).string() + "'";
    Run t = sfgc("trace " + file + " --max-reports 1");
    CHECK(t.status == 1);
    CHECK(t.out.find("data race on x (hb)") != std::string::npos);
    CHECK(t.out.find("data race on y") == std::string::npos);
    CHECK(t.out.find("hb: 2 more not shown (--max-reports 1)") != std::string::npos);
    CHECK(t.out.find("SUMMARY: 7 events; hb: 3 races") != std::string::npos);
    Run j = sfgc("trace " + file + " --max-reports 1 --analysis hb,goldilocks --format json");
    CHECK(j.status == 1);
    json k = report(j);
    for (const json& a : k["analyses"]) {
        CHECK(a["races"].size() == 1);
        CHECK(a["omitted"] == 2);
    }
    Run all = sfgc("trace " + file + " --max-reports 0 --format json");
    CHECK(report(all)["analyses"][0]["races"].size() == 3);
}

TEST_CASE("the trace on standard input: '-'") {
    const fs::path out = scratch() / "stdin.out";
    int status = shell("cd '" SFG_SOURCE_DIR "' && '" SFGC_PATH
                       "' trace - --analysis fasttrack < specs/traces/fig3_6_right.std > '" +
                       out.string() + "'");
    CHECK(status == 1);
    CHECK(slurp(out).find("event 3 (<stdin>:5)") != std::string::npos);
}

TEST_CASE("malformed and ill-formed traces: exit 2, FILE:LINE:COL: error naming the line") {
    struct Case {
        const char* text;
        const char* error; // after "FILE:"
    };
    const Case cases[] = {
        // Malformed lines.
        {"T1|w(x)\nT1 w(x)\n", "2:4: error: expected '|' after the thread name, found 'w'"},
        {"T1|foo(x)\n", "1:4: error: unknown operation 'foo'"},
        {"# header\n\nT1|w(x\n", "3:7: error: expected ')'"},
        {"T1|r(x,y)\n", "1:7: error: 'r' takes one operand"},
        {"\n# c\nT1|w(x)|a.c:1\n\x01T2\n", "4:1: error: expected a thread name, found byte 0x01"},
        // Ill-formed traces (docs/traces.md).
        {"T1|rel(m)\n", "1:1: error: thread T1 releases lock m, which is not held"},
        {"T1|acq(m)\nT2|rel(m)\n",
         "2:1: error: thread T2 releases lock m, which is held by thread T1 at line 1"},
        {"T1|acq(m)\nT1|acq(m)\n", "2:1: error: thread T1 acquires lock m, which it already "
                                   "holds (since line 1; locks are not re-entrant)"},
        {"T1|acq(m)\nT2|acq(m)\n",
         "2:1: error: thread T2 acquires lock m, which is held by thread T1 at line 1"},
        {"T1|fork(T1)\n", "1:1: error: thread T1 forks itself"},
        {"T2|w(x)\nT1|fork(T2)\n",
         "2:1: error: thread T1 forks thread T2, which already has events (first at line 1)"},
        {"T1|fork(T2)\nT3|fork(T2)\n",
         "2:1: error: thread T3 forks thread T2, which was already forked at line 1"},
        {"T1|join(T1)\n", "1:1: error: thread T1 joins itself"},
        {"T1|join(T2)\nT2|w(x)\n", "2:1: error: event of thread T2 after it was joined at line 1"},
        {"T1|bexit(b)\n", "1:1: error: thread T1 exits barrier b without entering it just before"},
    };
    for (const Case& c : cases) {
        const fs::path file = write_scratch("bad.std", c.text);
        Run r = sfgc("trace '" + file.string() + "' --analysis hb,goldilocks --format json");
        INFO(c.text);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(r.err == file.string() + ":" + c.error + "\n");
    }
}

TEST_CASE("usage errors exit 2") {
    Run unknown = sfgc("trace specs/traces/fig5_1.std --analysis hb,bogus");
    CHECK(unknown.status == 2);
    CHECK(unknown.err == "sfgc trace: error: unknown analysis 'bogus' (choose from hb, "
                         "fasttrack, goldilocks, eraser, enforce, singletrack)\n");
    Run no_spec = sfgc("trace specs/traces/fig5_1.std --analysis enforce");
    CHECK(no_spec.status == 2);
    CHECK(no_spec.err ==
          "sfgc trace: error: enforce needs --spec SPEC.sfg: the disciplines to enforce\n");
    Run missing = sfgc("trace nosuch.std");
    CHECK(missing.status == 2);
    CHECK(missing.err == "nosuch.std: error: cannot read the trace: No such file or directory\n");
    Run bad_spec = sfgc("trace specs/traces/fig5_1.std --spec specs/errors/lock_as_thread.sfg");
    CHECK(bad_spec.status == 2);
    CHECK(bad_spec.err.find("lock_as_thread.sfg:3:12: error: 'm' is a lock, not a thread") !=
          std::string::npos);
    CHECK(sfgc("trace specs/traces/fig5_1.std --format xml").status == 2);
    CHECK(sfgc("trace").status == 2);
    for (const char* n : {"-1", "abc"}) {
        Run r = sfgc(std::string("trace specs/traces/fig5_1.std --max-reports ") + n);
        CHECK(r.status == 2);
        CHECK(r.err.find("--max-reports") != std::string::npos);
    }
}

TEST_CASE("--threads 1, 2, 3 and auto give the same reports and the same errors on large traces") {
    // A 1.5 MB trace (auto parses it on every core): critical sections, thread-local data,
    // unprotected writes racing across threads, and a Figure 3.6-style late read.
    std::string text = "T0|fork(T1,T2,T3)|1\n";
    std::uint64_t x = 12345;
    auto next = [&x] { return x = x * 6364136223846793005u + 1442695040888963407u; };
    while (text.size() < (3u << 19)) {
        const std::string t = "T" + std::to_string(next() >> 62);
        const std::string n = std::to_string((next() >> 40) % 200);
        switch ((next() >> 33) % 4) {
        case 0:
            text += t + "|acq(m)|10\n" + t + "|w(s" + n + ")|11\n" + t + "|rel(m)|12\n";
            break;
        case 1:
            text += t + "|r(" + t + "_" + n + ")|20\n";
            break;
        case 2:
            text += t + "|w(u" + n + ")|30\n";
            break;
        default:
            text += t + "|vw(f)|40\n" + t + "|vr(f)|41\n";
        }
    }
    const std::string good = write_scratch("big.std", text).string();
    const std::string bad = write_scratch("big_bad.std", text + "T1|rel(m)|99\n").string();
    const std::string spec =
        write_scratch("big.sfg", "threads T0, T1, T2, T3; lock m;\n"
                                 "var s0, s1, s2, s3 : [EX(T0) ⊔ EX(T1) ⊔ EX(T2) ⊔ EX(T3)]^m;\n")
            .string();
    const std::string args = " --spec '" + spec + "'" + all_detectors + " --format json";
    Run one = sfgc("trace '" + good + "'" + args + " --threads 1");
    REQUIRE(one.status == 1);
    CHECK(report(one)["events"] > 100000);
    for (const char* threads : {" --threads 2", " --threads 3", " --threads auto", ""}) {
        Run r = sfgc("trace '" + good + "'" + args + threads);
        CHECK(r.status == one.status);
        CHECK(r.out == one.out);
        CHECK(r.err == one.err);
    }
    Run seq = sfgc("trace '" + bad + "'" + args + " --threads 1");
    CHECK(seq.status == 2);
    CHECK(seq.err.find(
              "big_bad.std:" + std::to_string(std::count(text.begin(), text.end(), '\n') + 1) +
              ":") != std::string::npos);
    for (const char* threads : {" --threads 2", " --threads 3"}) {
        Run par = sfgc("trace '" + bad + "'" + args + threads);
        CHECK(par.status == 2);
        CHECK(par.err == seq.err);
    }
    for (const char* threads : {"0", "65", "-1", "two", ""}) {
        Run r = sfgc("trace '" + good + "' --threads " + threads);
        CHECK(r.status == 2);
        CHECK(r.err.find("--threads") != std::string::npos);
    }
}

TEST_CASE("singletrack: conflicts and cycles in text and JSON, exit 1; nested blocks exit 2") {
    // A conflict inside a block (two children) and a cycle (the block of T3 is interrupted).
    const fs::path t = write_scratch("singletrack.std", "T0|begin\n"
                                                        "T0|fork(T1,T2)\n"
                                                        "T1|r(a)|qs.c:4\n"
                                                        "T2|w(a)|qs.c:9\n"
                                                        "T0|join(T1,T2)\n"
                                                        "T0|end\n"
                                                        "T3|begin\n"
                                                        "T3|r(x)\n"
                                                        "T4|w(x)\n"
                                                        "T3|w(x)\n"
                                                        "T3|end\n");
    Run text = sfgc("trace '" + t.string() + "' --analysis singletrack");
    CHECK(text.status == 1);
    CHECK(text.out.find("ERROR: conflict on a in the deterministic block of event 1 "
                        "(singletrack)\n  Write of a by thread T2, event 4") != std::string::npos);
    CHECK(text.out.find("Previous read of a by thread T1, event 3") != std::string::npos);
    CHECK(text.out.find("ERROR: cycle of transactions 7 -> 9 through the deterministic block of "
                        "event 7 (singletrack)") != std::string::npos);
    CHECK(text.out.find("SUMMARY: 11 events; singletrack: 1 conflict, 1 cycle") !=
          std::string::npos);

    Run js = sfgc("trace '" + t.string() + "' --analysis singletrack --format json");
    CHECK(js.status == 1);
    json j = report(js);
    const json& a = j["analyses"][0];
    CHECK(a["name"] == "singletrack");
    REQUIRE(a["findings"].size() == 2);
    const json& c = a["findings"][0];
    CHECK(c["kind"] == "conflict");
    CHECK(c["block"] == 1);
    CHECK(c["event"] == 4);
    CHECK(c["with_event"] == 3);
    CHECK(c["var"] == "a");
    CHECK(c["location"] == "qs.c:9");
    const json& y = a["findings"][1];
    CHECK(y["kind"] == "cycle");
    CHECK(y["event"] == 10);
    CHECK(y["blocks"] == json::array({7, 9}));
    CHECK(y["block"] == 7);

    // Without blocks nothing is found (races outside blocks are not singletrack's business).
    Run clean = sfgc("trace specs/traces/fig5_1.std --analysis singletrack");
    CHECK(clean.status == 0);

    const fs::path n = write_scratch("nested.std", "T0|begin\nT0|w(x)\nT0|begin\n");
    Run nested = sfgc("trace '" + n.string() + "' --analysis singletrack,hb");
    CHECK(nested.status == 2);
    CHECK(nested.err == n.string() +
                            ":3:1: error: event 3: thread T0 begins a deterministic block inside "
                            "its own block of event 1 (blocks do not nest)\n");
    CHECK(nested.out.empty());
    const fs::path s = write_scratch("stray.std", "T0|w(x)\nT0|end\n");
    Run stray = sfgc("trace '" + s.string() + "' --analysis singletrack");
    CHECK(stray.status == 2);
    CHECK(stray.err.find("ends a deterministic block outside one") != std::string::npos);
    // The other analyses accept such traces (begin and end mean nothing to them).
    CHECK(sfgc("trace '" + s.string() + "' --analysis hb").status == 0);
}
