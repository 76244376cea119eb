// SLPs (docs/compressed.md): Sequitur and Re-Pair generate exactly their input, the binary form
// round-trips, and bad files are rejected with an error, never a crash.
#include "random_trace.hpp"
#include "sfg/runtime/registry/compress_trace_file.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

using namespace sfg;
using namespace sfg::testing;

namespace {

// The terminal sequence a grammar generates.
std::vector<std::uint32_t> generate(const std::vector<std::vector<SlpSymbol>>& rules) {
    std::vector<std::uint32_t> out;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{0, 0}};
    while (!stack.empty()) {
        auto& top = stack.back();
        if (top.second == rules[top.first].size()) {
            stack.pop_back();
            continue;
        }
        const SlpSymbol s = rules[top.first][top.second++];
        if (slp_is_rule(s))
            stack.emplace_back(slp_index(s), 0);
        else
            out.push_back(s);
    }
    return out;
}

bool well_ordered(const std::vector<std::vector<SlpSymbol>>& rules) {
    for (std::size_t r = 0; r < rules.size(); ++r)
        for (SlpSymbol s : rules[r])
            if (slp_is_rule(s) && (slp_index(s) <= r || slp_index(s) >= rules.size()))
                return false;
    return true;
}

std::vector<std::vector<SlpSymbol>> sequitur(const std::vector<std::uint32_t>& in) {
    SequiturBuilder b;
    for (std::uint32_t x : in)
        b.add(x);
    return b.finish();
}

std::string file_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Compresses a text trace with `algorithm`, writes and reads the SLP, expands it.
std::vector<std::string> round_trip(const std::string& text, SlpAlgorithm algorithm,
                                    std::string* slp_bytes = nullptr) {
    const std::string path = scratch_file("slp_format_test", "std");
    std::ofstream(path, std::ios::binary) << text;
    Symbols syms;
    Slp slp;
    TraceResult r = compress_trace_file(path, algorithm, syms, slp);
    std::remove(path.c_str());
    REQUIRE(r.ok());
    std::ostringstream bytes;
    write_slp(bytes, slp, syms);
    if (slp_bytes)
        *slp_bytes = bytes.str();
    Symbols syms2;
    Collector c;
    TraceResult back = read_slp_trace(bytes.str(), "t.slp", syms2, c);
    REQUIRE(back.ok());
    CHECK(back.events == r.events);
    std::vector<std::string> lines;
    for (const Event& e : c.events)
        if (!e.implicit)
            lines.push_back(format_event(e, syms2));
    return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
    Symbols syms;
    Collector c;
    REQUIRE(read_trace_text(text, "t.std", syms, c).ok());
    std::vector<std::string> lines;
    for (const Event& e : c.events)
        if (!e.implicit)
            lines.push_back(format_event(e, syms));
    return lines;
}

} // namespace

TEST_CASE("Sequitur and Re-Pair generate their input; rules refer only to later rules") {
    std::mt19937_64 rng(7);
    for (int round = 0; round < 400; ++round) {
        const int alphabet = 1 + static_cast<int>(rng() % 6);
        const int n = static_cast<int>(rng() % 300);
        std::vector<std::uint32_t> in;
        // Runs and repeats as well as noise.
        while (static_cast<int>(in.size()) < n) {
            if (rng() % 3 == 0 && in.size() > 4) {
                const std::size_t from = rng() % in.size();
                const std::size_t len = 1 + rng() % std::min<std::size_t>(20, in.size() - from);
                for (std::size_t i = 0; i < len; ++i)
                    in.push_back(in[from + i]);
            } else {
                in.push_back(static_cast<std::uint32_t>(rng() % alphabet));
            }
        }
        for (int algorithm = 0; algorithm < 2; ++algorithm) {
            auto rules = algorithm == 0 ? sequitur(in) : repair(in);
            CHECK(in.empty() == rules.empty());
            if (in.empty())
                continue;
            CHECK(well_ordered(rules));
            CHECK(generate(rules) == in);
        }
    }
}

TEST_CASE("Sequitur compresses a^(2^k) logarithmically; Re-Pair too") {
    std::vector<std::uint32_t> in(1 << 12, 5);
    auto s = sequitur(in), r = repair(in);
    CHECK(generate(s) == in);
    CHECK(generate(r) == in);
    std::size_t ss = 0, rs = 0;
    for (auto& x : s)
        ss += x.size();
    for (auto& x : r)
        rs += x.size();
    CHECK(ss <= 30);
    CHECK(rs <= 30);
}

TEST_CASE("compress / decompress: the same events, order, names and locations") {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 300; ++round) {
        RandomTraceOptions o{1 + static_cast<int>(rng() % 6), 3,  2, 2, 1,
                             static_cast<int>(rng() % 150),   40, 30};
        std::string text = random_trace(rng, o);
        // Locations on some lines; a comment and a blank line (dropped: not events).
        std::string with_locs, line;
        std::istringstream in(text);
        int i = 0;
        while (std::getline(in, line))
            with_locs += line + (++i % 3 == 0 ? "|F.java:" + std::to_string(i % 5) : "") + "\n";
        with_locs = "# header\n\n" + with_locs;
        const auto want = lines_of(with_locs);
        CHECK(round_trip(with_locs, SlpAlgorithm::sequitur) == want);
        CHECK(round_trip(with_locs, SlpAlgorithm::repair) == want);
    }
}

TEST_CASE("the empty trace compresses to an empty start rule") {
    CHECK(round_trip("# nothing\n", SlpAlgorithm::sequitur).empty());
    CHECK(round_trip("", SlpAlgorithm::repair).empty());
}

TEST_CASE("bad SLP files are rejected with an error naming the file") {
    std::string good;
    round_trip("T0|acq(m)\nT0|w(x)|A.java:1\nT0|rel(m)\nT0|fork(T1,T2)\nT1|acq(m)\nT1|w(x)\n"
               "T1|rel(m)\nT0|acq(m)\nT0|w(x)\nT0|rel(m)\nT0|join(T1,T2)\n",
               SlpAlgorithm::sequitur, &good);
    auto rejects = [](const std::string& bytes) {
        Symbols syms;
        Slp slp;
        auto e = read_slp(bytes, "bad.slp", syms, slp);
        return e && e->file == "bad.slp" && !e->message.empty();
    };
    Symbols syms;
    Slp slp;
    REQUIRE(!read_slp(good, "good.slp", syms, slp));
    SUBCASE("every truncation") {
        for (std::size_t n = 0; n < good.size(); ++n)
            CHECK(rejects(good.substr(0, n)));
    }
    SUBCASE("every single byte changed: an error or a valid SLP, never a crash") {
        for (std::size_t i = 8; i < good.size(); ++i)
            for (int b : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
                std::string bad = good;
                bad[i] = static_cast<char>(b);
                Symbols s;
                Slp p;
                Collector c;
                if (!read_slp(bad, "bad.slp", s, p))
                    (void)expand_slp(p, "bad.slp", s, c);
            }
    }
    SUBCASE("cyclic and out-of-range rule references") {
        // Hand-made: no names, sets or terminals but one; rules as given.
        auto make = [](std::vector<std::vector<std::uint8_t>> rules) {
            std::string b("SFGSLP1\n", 8);
            b += std::string("\x01\x02T0\x00\x00\x00\x00\x00", 9); // one thread, no other names
            b += '\x00';                                           // no thread sets
            b += std::string("\x01\x01\x00\x00", 4);               // one terminal: T0 w(variable 0)
            b += static_cast<char>(rules.size());
            for (auto& r : rules) {
                b += static_cast<char>(r.size());
                for (auto s : r)
                    b += static_cast<char>(s);
            }
            b += '\x00'; // no locations
            return b;
        };
        // (The terminal names variable 0, which does not exist: fix with a variable.)
        auto with_var = [](std::string b) {
            b.replace(8, 9, std::string("\x01\x02T0\x01\x01x\x00\x00\x00\x00", 11));
            return b;
        };
        Symbols s;
        Slp p;
        auto ok = read_slp(with_var(make({{0, 3}, {0}})), "ok.slp", s, p);
        CHECK_MESSAGE(!ok, (ok ? ok->to_string() : ""));
        CHECK(p.events() == 2);
        CHECK(rejects(with_var(make({{1}}))));         // rule 0 refers to itself
        CHECK(rejects(with_var(make({{3}, {1}}))));    // rule 1 refers to itself
        CHECK(rejects(with_var(make({{3}, {1, 0}})))); // a cycle 0 -> 1 -> 0
        CHECK(rejects(with_var(make({{5}, {0}}))));    // rule 2 of 2
        CHECK(rejects(with_var(make({{2}}))));         // terminal 1 of 1
        CHECK(rejects(with_var(make({{0}, {}}))));     // an empty rule
        CHECK(rejects(make({{0}})));                   // variable 0 of 0
    }
    SUBCASE("1 MB of random bytes, with and without the magic") {
        std::mt19937_64 rng(3);
        for (int round = 0; round < 4; ++round) {
            std::string bytes(1 << 20, '\0');
            for (char& c : bytes)
                c = static_cast<char>(rng());
            CHECK(rejects(bytes));
            bytes.replace(0, 8, "SFGSLP1\n");
            CHECK(rejects(bytes));
        }
    }
    SUBCASE("a grammar of 2^62 events or more") {
        Slp big;
        big.terminals.push_back({0, Op::begin, no_object});
        big.rules.resize(64);
        for (std::uint32_t r = 0; r < 63; ++r)
            big.rules[r] = {slp_rule_bit | (r + 1), slp_rule_bit | (r + 1)};
        big.rules[63] = {0};
        CHECK(big.compute_lengths().has_value());
    }
}

TEST_CASE("read_trace_file recognizes an SLP by its magic bytes") {
    std::string bytes;
    round_trip("T0|w(x)\nT0|w(x)\nT0|w(x)\nT0|w(x)\n", SlpAlgorithm::sequitur, &bytes);
    const std::string path = scratch_file("slp_format_test", "slp");
    std::ofstream(path, std::ios::binary) << bytes;
    Symbols syms;
    Collector c;
    TraceResult r = read_trace_file(path, syms, c);
    std::remove(path.c_str());
    CHECK(r.ok());
    CHECK(r.events == 4);
    CHECK(file_text(path).empty());
}

TEST_CASE("ZipTrack's map and grammar: written and read back to the same events") {
    std::mt19937_64 rng(23);
    int written = 0;
    for (int round = 0; round < 300; ++round) {
        RandomTraceOptions o{1 + static_cast<int>(rng() % 4), 3, 2, 0, 0,
                             static_cast<int>(rng() % 100),   40};
        const std::string text = random_trace(rng, o);
        const std::string path = scratch_file("slp_format_test_zt", "std");
        std::ofstream(path, std::ios::binary) << text;
        Symbols syms;
        Slp slp;
        REQUIRE(compress_trace_file(path, SlpAlgorithm::sequitur, syms, slp).ok());
        std::remove(path.c_str());
        std::ostringstream map, grammar;
        if (write_ziptrack(map, grammar, slp, syms))
            continue; // a fork or join of several threads
        ++written;
        Symbols syms2;
        Slp back;
        auto e = read_ziptrack(map.str(), "t.map", grammar.str(), "t.zt", syms2, back);
        if (slp.events() == 0) {
            CHECK(e.has_value()); // no rule 0
            continue;
        }
        REQUIRE_MESSAGE(!e, e->to_string());
        Collector c;
        REQUIRE(expand_slp(back, "t.zt", syms2, c).ok());
        std::vector<std::string> lines;
        for (const Event& ev : c.events)
            if (!ev.implicit)
                lines.push_back(format_event(ev, syms2));
        // ZipTrack's format has no locations.
        Symbols syms3;
        Collector want;
        REQUIRE(read_trace_text(text, "t.std", syms3, want).ok());
        std::vector<std::string> expected;
        for (Event ev : want.events)
            if (!ev.implicit) {
                ev.location = no_object;
                expected.push_back(format_event(ev, syms3));
            }
        CHECK(lines == expected);
    }
    CHECK(written > 50);
    // Errors name the file and the line.
    Symbols syms;
    Slp slp;
    auto e = read_ziptrack("0|T0,W,x\n", "m", "0 -> 1 \n1 -> &0 0 \n", "g", syms, slp);
    REQUIRE(e);
    CHECK(e->to_string().find("g:2:") == 0);
    CHECK(read_ziptrack("0|T0,X,x\n", "m", "0 -> &0 \n", "g", syms, slp));
    CHECK(read_ziptrack("0|T0,W,x\n", "m", "0 -> &1 \n", "g", syms, slp));
    CHECK(read_ziptrack("0|T0,W,x\n", "m", "0 -> 7 \n", "g", syms, slp));
    CHECK(!read_ziptrack("5|T0,W,x\n", "m", "% stats\n0 -> &5 1 \n1 -> &5 \n", "g", syms, slp));
    CHECK(slp.events() == 2);
}
