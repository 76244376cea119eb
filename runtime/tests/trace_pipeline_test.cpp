// read_trace_file_pipelined = read_trace_file: the same events, ids, names and result, over
// batch boundaries, errors and a throwing sink (run under -fsanitize=thread too).
#include "random_trace.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

using sfg::testing::Collector;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;
using namespace sfg;

namespace {

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& text) {
        char name[] = "/tmp/sfg_pipeline_test_XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        close(fd);
        path = name;
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

bool same(const Event& a, const Event& b) {
    return a.number == b.number && a.thread == b.thread && a.op == b.op &&
           a.implicit == b.implicit && a.target == b.target && a.location == b.location &&
           a.line == b.line;
}

bool same(const SymbolTable& a, const SymbolTable& b) {
    if (a.size() != b.size())
        return false;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        if (a.name(i) != b.name(i))
            return false;
    return true;
}

// Reads `text` both ways into Symbols that start as `start`; checks they agree.
void check_same(const std::string& text, const Symbols& start = {}) {
    TempFile f(text);
    Symbols s1 = start, s2 = start;
    Collector c1, c2;
    const TraceResult r1 = read_trace_file(f.path, s1, c1);
    const TraceResult r2 = read_trace_file_pipelined(f.path, s2, c2);
    INFO(text.substr(0, 2000));
    CHECK(r1.events == r2.events);
    REQUIRE(r1.ok() == r2.ok());
    if (!r1.ok())
        CHECK(r1.error->to_string() == r2.error->to_string());
    REQUIRE(c1.all.size() == c2.all.size());
    for (std::size_t i = 0; i < c1.all.size(); ++i)
        REQUIRE(same(c1.all[i], c2.all[i]));
    CHECK(same(s1.threads, s2.threads));
    CHECK(same(s1.vars, s2.vars));
    CHECK(same(s1.locks, s2.locks));
    CHECK(same(s1.volatiles, s2.volatiles));
    CHECK(same(s1.barriers, s2.barriers));
    CHECK(same(s1.locations, s2.locations));
    CHECK(s1.thread_sets == s2.thread_sets);
}

// At the time of each event, its names are in the Symbols the sink is given.
struct NamesPresent : Analysis {
    bool ok = true;
    void on_event(const Event& e, const Symbols& s) override {
        ok = ok && e.thread < s.threads.size() &&
             (e.location == no_object || e.location < s.locations.size());
        if (is_memory(e.op))
            ok = ok && e.target < s.vars.size();
        if ((e.op == Op::fork || e.op == Op::join) && e.target >= s.thread_sets.size())
            ok = false;
    }
};

} // namespace

TEST_CASE("pipelined reading = reading: random traces, with and without an error") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 300; ++i) {
        const RandomTraceOptions o{2 + static_cast<int>(rng() % 5), 4, 2, 2, 1, 60, 50};
        std::string text = random_trace(rng, o);
        if (i % 3 == 1)
            text += "T0|rel(never_held)\nT0|w(after_error)\n"; // ill-formed: stops there
        if (i % 3 == 2)
            text += "T0|bogus(x)\n"; // malformed
        check_same(text);
    }
}

TEST_CASE("pipelined reading = reading: many batches, names first seen late, locations") {
    std::string text = "T0|fork(T1,T2)|1\n";
    for (int i = 0; i < 30000; ++i) {
        const std::string t = "T" + std::to_string(i % 3);
        text += t + "|w(x" + std::to_string(i % 97 + i / 3000 * 1000) + ")|pc" +
                std::to_string(i % 13) + "\n";
        if (i % 1000 == 999)
            text += t + "|acq(m" + std::to_string(i / 1000) + ")\n" + t + "|rel(m" +
                    std::to_string(i / 1000) + ")\n";
    }
    text += "T0|join(T1,T2)\nT9|r(last_name)|end";
    check_same(text);

    // Names already in the Symbols keep their ids; new ones follow.
    Symbols start;
    start.threads.intern("T2");
    start.vars.intern("x5");
    start.thread_sets.push_back({0});
    check_same(text, start);

    TempFile f(text);
    Symbols s;
    NamesPresent present;
    CHECK(read_trace_file_pipelined(f.path, s, present).ok());
    CHECK(present.ok);
}

TEST_CASE("pipelined reading: a throwing sink stops the reader, and the exception arrives") {
    std::string text;
    for (int i = 0; i < 50000; ++i)
        text += "T0|w(x" + std::to_string(i % 10) + ")\n";
    TempFile f(text);
    struct Thrower : Analysis {
        int seen = 0;
        void on_event(const Event&, const Symbols&) override {
            if (++seen == 10000)
                throw std::runtime_error("stop");
        }
    } thrower;
    Symbols s;
    CHECK_THROWS_AS(read_trace_file_pipelined(f.path, s, thrower), std::runtime_error);
    CHECK(thrower.seen == 10000);
}

TEST_CASE("pipelined reading: a missing file is the same error") {
    Symbols s;
    Collector c;
    const TraceResult r = read_trace_file_pipelined("/nonexistent/sfg.std", s, c);
    REQUIRE(!r.ok());
    CHECK(r.error->to_string() == read_trace_file("/nonexistent/sfg.std", s, c).error->to_string());
    CHECK(c.all.empty());
}
