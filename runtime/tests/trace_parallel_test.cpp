// read_trace_file_parallel = read_trace_file: the same events, ids, lines, names and result, for
// 2-4 threads and chunks from a few bytes (many chunk boundaries, empty chunks, lines longer than
// a chunk) to the default; over comments, blanks, CRLF, errors and a throwing sink (run under
// -fsanitize=thread too).
#include "random_trace.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

using sfg::testing::Collector;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;
using sfg::testing::same;
using namespace sfg;

namespace {

struct TempFile {
    std::string path;
    explicit TempFile(const std::string& text) {
        char name[] = "/tmp/sfg_parallel_test_XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        close(fd);
        path = name;
        std::ofstream(path, std::ios::binary) << text;
    }
    ~TempFile() { std::remove(path.c_str()); }
};

// Reads `text` sequentially and in parallel with each option into Symbols that start as `start`;
// checks they agree. Names must agree exactly when the trace is correct; after an error, the
// sequential reader may also have interned names of the failing line.
void check_same(const std::string& text, const std::vector<ParallelReadOptions>& options,
                const Symbols& start = {}) {
    TempFile f(text);
    Symbols s1 = start;
    Collector c1;
    const TraceResult r1 = read_trace_file(f.path, s1, c1);
    INFO(text.substr(0, 2000));
    for (const ParallelReadOptions& o : options)
        for (const bool in_memory : {false, true}) {
            if (in_memory && is_binary_trace(text))
                continue;
            INFO("threads ", o.threads, ", chunk ", o.chunk_bytes, in_memory ? ", in memory" : "");
            Symbols s2 = start;
            Collector c2;
            const TraceResult r2 = in_memory ? read_trace_text_parallel(text, f.path, s2, c2, o)
                                             : read_trace_file_parallel(f.path, s2, c2, o);
            CHECK(r1.events == r2.events);
            REQUIRE(r1.ok() == r2.ok());
            if (!r1.ok())
                CHECK(r1.error->to_string() == r2.error->to_string());
            REQUIRE(c1.all.size() == c2.all.size());
            for (std::size_t i = 0; i < c1.all.size(); ++i)
                REQUIRE(same(c1.all[i], c2.all[i]));
            if (r1.ok()) {
                CHECK(same(s1.threads, s2.threads));
                CHECK(same(s1.vars, s2.vars));
                CHECK(same(s1.locks, s2.locks));
                CHECK(same(s1.volatiles, s2.volatiles));
                CHECK(same(s1.barriers, s2.barriers));
                CHECK(same(s1.locations, s2.locations));
                CHECK(s1.thread_sets == s2.thread_sets);
            }
        }
}

const std::vector<ParallelReadOptions> small_chunks = {{2, 1},   {2, 7},    {3, 16},  {2, 64},
                                                       {4, 100}, {2, 1000}, {3, 4096}};

// Formatting the generator never writes, inserted at random: comments (some looking like events),
// blank lines, leading and trailing blanks, CRLF, locations.
std::string decorate(const std::string& text, std::mt19937_64& rng) {
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t nl = text.find('\n', at);
        if (nl == std::string::npos)
            nl = text.size();
        std::string line = text.substr(at, nl - at);
        at = nl + 1;
        switch (rng() % 12) {
        case 0:
            out += "# T0|w(commented_out)|99\n";
            break;
        case 1:
            out += "   \t \n";
            break;
        case 2:
            line = "  \t" + line + " ";
            break;
        case 3:
            line += "\r";
            break;
        case 4:
            line += "|File.java:" + std::to_string(rng() % 50);
            break;
        default:
            break;
        }
        out += line + "\n";
    }
    return out;
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

TEST_CASE("parallel reading = reading: random traces, with and without an error") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 300; ++i) {
        const RandomTraceOptions o{2 + static_cast<int>(rng() % 5), 4, 2, 2, 1, 60, 50, 30};
        std::string text = random_trace(rng, o);
        if (i % 2 == 1)
            text = decorate(text, rng);
        // An error in the middle, so that chunks after it are parsed (or being parsed) too.
        const std::size_t cut = text.find('\n', rng() % text.size());
        const std::string tail = cut == std::string::npos ? "" : text.substr(cut + 1);
        const std::string head = cut == std::string::npos ? text : text.substr(0, cut + 1);
        if (i % 4 == 1) // ill-formed, with blanks before it: the error names their column
            text = head + "  T0|rel(never_held)\nT0|w(after_error)\n" + tail;
        if (i % 4 == 2) // malformed
            text = head + "T0|acq(m0|x\n" + tail;
        if (i % 4 == 3) // an operand set with a repeated thread, its name seen first here
            text = head + "T0|fork(Tnew,Tnew)\n" + tail;
        check_same(text, small_chunks);
    }
}

TEST_CASE("parallel reading = reading: no final newline, empty, comments only, long lines") {
    const std::vector<ParallelReadOptions> options = {{2, 1}, {2, 3}, {3, 10}, {2, 256 << 10}};
    check_same("", options);
    check_same("\n\n", options);
    check_same("# only a comment", options);
    check_same("T0|w(x)", options);
    check_same("T0|w(x)\nT1|r(x)|no_newline", options);
    check_same("T0|fork(T1,T2)\nT1|w(" + std::string(5000, 'y') + ")|" + std::string(300, 'L') +
                   "\nT2|w(" + std::string(5000, 'y') + ")\nT0|join(T2,T1)\n",
               options);
    check_same("T0|w(x)\r\nT0|r(x)\r\n", options);
    check_same("T0|w(x)\nT0|join(T0)\n", options); // ill-formed on the last line
}

TEST_CASE("parallel reading = reading: many chunks, names first seen late, locations") {
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
    const std::vector<ParallelReadOptions> options = {
        {2, 4096}, {3, 10000}, {4, 65536}, {2, 256 << 10}};
    check_same(text, options);

    // Names already in the Symbols keep their ids; new ones follow.
    Symbols start;
    start.threads.intern("T2");
    start.vars.intern("x5");
    start.thread_sets.push_back({0});
    check_same(text, options, start);

    TempFile f(text);
    Symbols s;
    NamesPresent present;
    CHECK(read_trace_file_parallel(f.path, s, present, {2, 4096}).ok());
    CHECK(present.ok);
}

TEST_CASE("parallel reading: a throwing sink stops the readers, and the exception arrives") {
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
    CHECK_THROWS_AS(read_trace_file_parallel(f.path, s, thrower, {3, 1000}), std::runtime_error);
    CHECK(thrower.seen == 10000);
}

TEST_CASE("parallel reading: a missing file is the same error; a binary trace is read too") {
    Symbols s;
    Collector c;
    const TraceResult r = read_trace_file_parallel("/nonexistent/sfg.std", s, c);
    REQUIRE(!r.ok());
    CHECK(r.error->to_string() == read_trace_file("/nonexistent/sfg.std", s, c).error->to_string());
    CHECK(c.all.empty());

    // A binary trace (read_trace_file decides by the first bytes) reads as read_trace_file does.
    std::ostringstream bin;
    {
        Symbols ws;
        BinaryTraceWriter w(bin);
        REQUIRE(
            read_trace_text("T0|fork(T1)\nT1|w(x)|L1\nT0|join(T1)\nT0|r(x)\n", "t", ws, w).ok());
        w.finish(ws);
    }
    check_same(bin.str(), {{2, 1}, {3, 4096}});
}
