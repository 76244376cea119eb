// `sfgc compress`, `sfgc decompress` and `sfgc trace` on SLPs end to end (docs/compressed.md):
// round trips, the same reports as on the trace, bad SLP files answered with exit 2.
#include "support.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <string>

namespace fs = std::filesystem;
using namespace sfg_cli_test;

namespace {

fs::path write_scratch(const std::string& name, const std::string& text) {
    fs::path p = scratch() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

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
    for (const char* analyses : {"hb", "eraser", "hb,eraser", "fasttrack,goldilocks,hb,eraser"})
        for (const char* format : {"text", "json"}) {
            Run a = sfgc("trace " + q(slp) + " --analysis " + analyses + " --format " + format);
            Run b = sfgc("trace " + q(bin) + " --analysis " + analyses + " --format " + format);
            CHECK(a.status == b.status);
            CHECK(a.status == (std::string(analyses) == "eraser" ? 0 : 1)); // warnings: 0
            CHECK(a.out == b.out);
            CHECK(a.err == b.err);
        }
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
