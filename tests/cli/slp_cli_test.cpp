// `sfgc compress`, `sfgc decompress` and `sfgc trace` on SLPs end to end (docs/compressed.md):
// round trips, the same reports as on the trace, bad SLP files answered with exit 2.
#include "support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <string>

namespace fs = std::filesystem;
using namespace sfg_cli_test;

namespace {

std::string q(const fs::path& p) {
    return "'" + p.string() + "'";
}

// A trace of `rounds` rounds of every thread taking lock m, writing buf and releasing m, then an
// unprotected write: repetitive, with one race per round structure.
std::string loop_trace(int threads, int rounds) {
    std::string s = "T0|fork(";
    for (int t = 1; t < threads; ++t)
        s += (t > 1 ? "," : "") + std::string("T") + std::to_string(t);
    s += ")\n";
    for (int r = 0; r < rounds; ++r)
        for (int t = 0; t < threads; ++t) {
            const std::string T = "T" + std::to_string(t);
            s += T + "|acq(m)|Buf.java:10\n" + T + "|w(buf)|Buf.java:11\n" + T + "|vr(flag)\n" + T +
                 "|rel(m)\n";
        }
    s += "T1|w(buf)|Buf.java:20\nT0|r(size)\nT2|w(size)\n";
    return s;
}

} // namespace

TEST_CASE("compress / decompress round-trip traces exactly, with either algorithm") {
    for (const std::string trace :
         {"specs/traces/fig3_6_right.std", "specs/traces/rapid.std", "specs/traces/fig4_6.std"}) {
        for (const char* algorithm : {"sequitur", "repair"}) {
            const fs::path slp = scratch() / "t.slp", back = scratch() / "back.std",
                           direct = scratch() / "direct.std";
            Run c = sfgc("compress " + trace + " -o " + q(slp) + " --algorithm " + algorithm);
            REQUIRE_MESSAGE(c.status == 0, c.err);
            Run d = sfgc("decompress " + q(slp) + " -o " + q(back));
            REQUIRE_MESSAGE(d.status == 0, d.err);
            // The same events as the trace written by a reader (comments are not events).
            Run t = sfgc("trace " + trace + " --analysis hb --format json");
            Run tb = sfgc("trace " + q(back) + " --analysis hb --format json");
            CHECK(slurp(slp).substr(0, 8) == "SFGSLP1\n");
            CHECK(tb.status == t.status);
        }
    }
}

TEST_CASE("sfgc trace on an SLP: the report of the trace (text, JSON, exit status, events)") {
    const fs::path std_file = write_scratch("loop.std", loop_trace(4, 300));
    const fs::path slp = scratch() / "loop.slp", bin = scratch() / "loop.bin";
    REQUIRE(sfgc("compress " + q(std_file) + " -o " + q(slp)).status == 0);
    // Binary traces, like SLPs, carry no line numbers: the reports must be equal byte for byte.
    REQUIRE(sfgc("decompress " + q(slp) + " -o " + q(bin) + " --format binary").status == 0);
    for (const char* mode : {"auto", "grammar", "expand"})
        for (const char* analyses : {"hb", "eraser", "hb,eraser", "fasttrack,goldilocks,hb,eraser"})
            for (const char* format : {"text", "json"}) {
                Run a = sfgc("trace " + q(slp) + " --analysis " + analyses + " --format " + format +
                             " --slp-mode " + mode);
                Run b = sfgc("trace " + q(bin) + " --analysis " + analyses + " --format " + format);
                CHECK(a.status == b.status);
                CHECK(a.status == (std::string(analyses) == "eraser" ? 0 : 1)); // warnings: 0
                CHECK(a.out == b.out);
                CHECK(a.err == b.err);
            }
}

TEST_CASE("TV4: an SLP of 6 * 2^40 + 1 events answered at once, on the grammar") {
    // Written byte by byte (docs/compressed.md): threads 1 and 2, variable x, lock l; terminals
    // 1:acq(l) 1:w(x) 1:rel(l) 2:acq(l) 2:w(x) 2:rel(l) 1:r(x); rule 0 = A40 1:r(x), rule k =
    // A(41-k) = rule k+1 twice (k = 1..40), rule 41 = A0 = M1 M2, rules 42, 43 = M1, M2.
    std::string b("SFGSLP1\n");
    b += std::string("\x02\x01"
                     "1"
                     "\x01"
                     "2",
                     5);                                        // threads
    b += std::string("\x01\x01x", 3);                           // variables
    b += std::string("\x01\x01l", 3);                           // locks
    b += std::string("\x00\x00\x00", 3);                        // volatiles, barriers, locations
    b += std::string("\x00", 1);                                // thread sets
    b += std::string("\x07\x02\x00\x00\x01\x00\x00\x03\x00\x00" // terminals
                     "\x02\x01\x00\x01\x01\x00\x03\x01\x00\x00\x00\x00",
                     22);
    b += static_cast<char>(44);          // rules
    b += std::string("\x02\x03\x0c", 3); // rule 0: rule 1, terminal 6
    for (int k = 1; k <= 40; ++k)
        b += std::string{'\x02', static_cast<char>(2 * (k + 1) + 1),
                         static_cast<char>(2 * (k + 1) + 1)};
    b += std::string{'\x02', static_cast<char>(2 * 42 + 1), static_cast<char>(2 * 43 + 1)};
    b += std::string("\x03\x00\x02\x04", 4); // M1
    b += std::string("\x03\x06\x08\x0a", 4); // M2
    b += '\x00';                             // no locations
    const fs::path slp = write_scratch("tv4.slp", b);
    Run r = sfgc("trace " + q(slp) + " --analysis hb,eraser --format json");
    CHECK_MESSAGE(r.status == 1, r.err);
    CHECK(r.out.find("\"events\": 6597069766657") != std::string::npos);
    CHECK(r.out.find("\"event\": 6597069766657") != std::string::npos);
    CHECK(r.out.find("\"with_event\": 6597069766655") != std::string::npos);
    CHECK(r.cpu_seconds < 5);
}

TEST_CASE("bad SLP files: exit 2 and an error naming the file") {
    const fs::path std_file = write_scratch("small.std", loop_trace(3, 5));
    const fs::path slp = scratch() / "small.slp";
    REQUIRE(sfgc("compress " + q(std_file) + " -o " + q(slp)).status == 0);
    const std::string good = slurp(slp);
    std::mt19937_64 rng(5);
    std::string random(1 << 20, '\0');
    for (char& c : random)
        c = static_cast<char>(rng());
    const std::string cases[] = {
        good.substr(0, good.size() / 2), // truncated
        good.substr(0, 9),               // truncated in the names
        "SFGSLP1\n" + random,            // 1 MB of random bytes after the magic
        good + "x",                      // trailing bytes
    };
    for (const std::string& bytes : cases) {
        const fs::path bad = write_scratch("bad.slp", bytes);
        for (const std::string cmd : {"trace ", "decompress "}) {
            Run r = sfgc(cmd + q(bad) + (cmd == "decompress " ? " -o -" : ""));
            CHECK(r.status == 2);
            CHECK(r.err.find("bad.slp") != std::string::npos);
            CHECK(r.err.find("error") != std::string::npos);
        }
    }
    // An ill-formed trace in an SLP: the checker's error, as for the trace.
    const fs::path ill = write_scratch("ill.std", "T0|rel(m)\n");
    Run c = sfgc("compress " + q(ill) + " -o " + q(scratch() / "ill.slp"));
    CHECK(c.status == 2);
    CHECK(c.err.find("releases lock m, which is not held") != std::string::npos);
    // Usage.
    CHECK(sfgc("compress " + q(std_file)).status == 2); // no -o
    CHECK(sfgc("compress " + q(std_file) + " -o x.slp --algorithm lzw").status == 2);
    CHECK(sfgc("decompress nonexistent.slp -o -").status == 2);
}

TEST_CASE("--slp-format ziptrack: ZipTrack's grammar and map in and out") {
    const fs::path std_file = write_scratch("zt.std", loop_trace(3, 50));
    const fs::path zt = scratch() / "zt.zt", slp = scratch() / "zt.slp";
    // ZipTrack's format has no fork of a thread set, nor volatiles: refused, nothing written.
    Run refused = sfgc("compress " + q(std_file) + " -o " + q(zt) + " --slp-format ziptrack");
    CHECK(refused.status == 2);
    CHECK(refused.err.find("ZipTrack's format has no") != std::string::npos);
    CHECK(!fs::exists(zt));
    CHECK(!fs::exists(scratch() / "zt.zt.map"));
    const fs::path plain = write_scratch("zt2.std", "T0|fork(T1)\nT0|acq(m)\nT0|w(x)\nT0|rel(m)\n"
                                                    "T1|acq(m)\nT1|w(x)\nT1|rel(m)\nT1|r(y)\n"
                                                    "T0|w(y)\nT0|join(T1)\n");
    REQUIRE(sfgc("compress " + q(plain) + " -o " + q(zt) + " --slp-format ziptrack").status == 0);
    CHECK(fs::exists(scratch() / "zt.zt.map"));
    REQUIRE(sfgc("compress " + q(plain) + " -o " + q(slp)).status == 0);
    Run a = sfgc("trace " + q(zt) + " --slp-format ziptrack --analysis hb,eraser --format json");
    Run b = sfgc("trace " + q(slp) + " --analysis hb,eraser --format json");
    CHECK(a.status == 1);
    CHECK(a.status == b.status);
    CHECK(a.out == b.out);
    Run d = sfgc("decompress " + q(zt) + " --slp-format ziptrack -o -");
    CHECK(d.status == 0);
    CHECK(d.out == slurp(plain));
    // A missing map file.
    Run m = sfgc("trace " + q(zt) + " --slp-format ziptrack --map " + q(scratch() / "nomap"));
    CHECK(m.status == 2);
    CHECK(m.err.find("nomap") != std::string::npos);
}

// docs/enforcement.md, "Barrier rounds": an arrival at round 2 before another thread leaves
// round 1 cannot stand in for a send in round 1, on the trace and on its SLP alike (enforce runs
// on the SLP's expansion).
TEST_CASE("barrier rounds: a handover whose rounds overlap is a violation, trace and SLP") {
    const std::string trace = "specs/traces/barrier_handover.std";
    const std::string spec = "specs/programs/barrier_handover/barrier_handover.sfg";
    const fs::path slp = scratch() / "barrier_handover.slp";
    REQUIRE(sfgc("compress " + trace + " -o " + q(slp)).status == 0);
    for (const std::string& file : {trace, q(slp)}) {
        CAPTURE(file);
        Run r = sfgc("trace " + file + " --spec " + spec + " --analysis enforce,hb --format json");
        CHECK(r.status == 1);
        const auto report = nlohmann::json::parse(r.out);
        REQUIRE(report["analyses"].size() == 2);
        const auto& violations = report["analyses"][0]["violations"];
        const auto& races = report["analyses"][1]["races"];
        REQUIRE(violations.size() == 1);
        REQUIRE(races.size() == 1);
        CHECK(violations[0]["var"] == "p1");
        CHECK(violations[0]["event"] == 7); // t1's write
        CHECK(races[0]["var"] == "p1");
        CHECK(races[0]["event"] == 7);
    }
}
