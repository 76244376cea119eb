// `sfgc trace` and `sfgc decompress` on SLPs large enough to be expanded on two threads
// (slp_expand.hpp; docs/compressed.md): the same report, errors and output as on one thread and as
// on the trace's binary form.
#include "support.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <string>

namespace fs = std::filesystem;
using namespace sfg_cli_test;

namespace {

std::string q(const fs::path& p) {
    return "'" + p.string() + "'";
}

// About 120,000 events (auto expands on two threads from 65,536): rounds of every thread taking
// a lock, writing, reading a volatile; random threads, locations on some lines; a race at the end.
std::string big_trace(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::string s = "T0|fork(T1,T2,T3)|Main.java:1\n";
    for (int i = 0; i < 24000; ++i) {
        const std::string T = "T" + std::to_string(rng() % 4);
        const std::string x = std::to_string(rng() % 50);
        s += T + "|acq(m)|Buf.java:10\n" + T + "|w(buf" + x + ")\n" + T +
             "|vr(flag)|Buf.java:" + x + "\n" + T + "|rel(m)\n" + T + "|r(local" + x + ")\n";
    }
    s += "T1|w(buf7)|Buf.java:20\nT0|r(size)\nT2|w(size)\n";
    return s;
}

} // namespace

TEST_CASE("SLPs expanded on two threads: the report of one thread and of the binary trace") {
    const fs::path text = scratch() / "big.std", slp = scratch() / "big.slp",
                   bin = scratch() / "big.bin";
    std::ofstream(text, std::ios::binary) << big_trace(1);
    REQUIRE(sfgc("compress " + q(text) + " -o " + q(slp)).status == 0);
    REQUIRE(sfgc("decompress " + q(slp) + " -o " + q(bin) + " --format binary").status == 0);
    for (const char* analyses : {"hb", "fasttrack,goldilocks,hb,eraser"})
        for (const char* format : {"text", "json"}) {
            const std::string rest = std::string(" --analysis ") + analyses + " --format " + format;
            Run want = sfgc("trace " + q(bin) + rest);
            CHECK(want.status == 1);
            for (const char* threads : {"1", "2", "auto"}) {
                Run got =
                    sfgc("trace " + q(slp) + rest + " --slp-mode expand --threads " + threads);
                CHECK(got.status == want.status);
                CHECK(got.out == want.out);
                CHECK(got.err == want.err);
            }
        }
    // decompress expands on two threads too: the trace exactly.
    Run d = sfgc("decompress " + q(slp) + " -o -");
    CHECK(d.status == 0);
    CHECK(d.out == slurp(text));
}

TEST_CASE("an ill-formed SLP expanded on two threads: the error, at the event, of one thread") {
    // `sfgc compress` refuses ill-formed traces: compress one with a write of its own at event
    // 90,002, then make that terminal a release of lock m by T3 in the SLP's bytes
    // (docs/compressed.md's layout).
    std::string s = big_trace(2);
    std::size_t at = 0;
    for (int line = 0; line < 90001; ++line)
        at = s.find('\n', at) + 1;
    s.insert(at, "T3|w(patchme)\n");
    const fs::path text = scratch() / "ill.std", slp = scratch() / "ill.slp";
    std::ofstream(text, std::ios::binary) << s;
    REQUIRE(sfgc("compress " + q(text) + " -o " + q(slp)).status == 0);
    std::string b = slurp(slp);
    std::size_t pos = 8;
    auto varint = [&] {
        std::uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            const auto c = static_cast<unsigned char>(b.at(pos++));
            v |= std::uint64_t{c & 0x7fu} << shift;
            if (c < 0x80)
                return v;
        }
    };
    std::uint64_t patchme = ~0ull, lock_m = ~0ull;
    for (int table = 0; table < 6; ++table) {
        const std::uint64_t n = varint();
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t len = varint();
            const std::string name = b.substr(pos, len);
            pos += len;
            if (table == 1 && name == "patchme")
                patchme = i;
            if (table == 2 && name == "m")
                lock_m = i;
        }
    }
    REQUIRE(patchme < 128);
    REQUIRE(lock_m < 128);
    for (std::uint64_t sets = varint(); sets > 0; --sets)
        for (std::uint64_t n = varint(); n > 0; --n)
            varint();
    bool patched = false;
    for (std::uint64_t terms = varint(); terms > 0; --terms) {
        const std::size_t op = pos++;
        varint(); // thread
        const std::size_t operand = pos;
        const unsigned code = static_cast<unsigned char>(b[op]);
        if (code == 8 || code == 9) // fork, join: a set
            varint();
        else if (code < 8)
            varint();
        if (code == 1 && b[operand] == static_cast<char>(patchme)) {
            b[op] = 3; // rel
            b[operand] = static_cast<char>(lock_m);
            patched = true;
        }
    }
    REQUIRE(patched);
    const fs::path ill = scratch() / "ill_patched.slp";
    std::ofstream(ill, std::ios::binary) << b;
    Run one = sfgc("trace " + q(ill) + " --slp-mode expand --threads 1");
    CHECK(one.status == 2);
    CHECK(one.err.find("event 90002: thread T3 releases lock m") != std::string::npos);
    for (const char* threads : {"2", "auto"})
        for (const char* analyses : {"hb", "fasttrack,eraser"}) {
            Run got = sfgc("trace " + q(ill) + " --analysis " + analyses +
                           " --slp-mode expand --threads " + threads);
            CHECK(got.status == 2);
            CHECK(got.out == "");
            CHECK(got.err == one.err);
        }
    Run d1 = sfgc("decompress " + q(ill) + " -o -");
    CHECK(d1.status == 2);
    CHECK(d1.err == one.err);
}
