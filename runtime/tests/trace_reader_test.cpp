// The text reader: syntax, numbering, implicit events, well-formedness errors naming the line.
#include "random_trace.hpp"
#include "sfg/runtime/trace/tokenize.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace sfg;
using namespace sfg::testing;

namespace {

struct Read {
    Symbols syms;
    Collector col;
    TraceResult res;
    explicit Read(std::string_view text) { res = read_trace_text(text, "t.std", syms, col); }
    std::string error() const { return res.error ? res.error->to_string() : std::string(); }
    // "thread:op[:target-name]" of every event, implicit ones as "T:start<-F"/"T:exit->J".
    std::vector<std::string> stream() const {
        std::vector<std::string> out;
        for (const Event& e : col.all) {
            std::string s = syms.threads.name(e.thread) + ":" + to_string(e.op);
            if (e.implicit)
                s += "@" + std::to_string(e.number) +
                     (e.target == no_object ? std::string() : "/" + syms.threads.name(e.target));
            out.push_back(s);
        }
        return out;
    }
};

using Strings = std::vector<std::string>;

// `fast` read the trace as written, `general` the same lines behind a blank (the general
// parser): the same result, errors one column apart, events, ids and names. Returns whether
// both failed.
bool check_same_reading(const Read& fast, const Read& general) {
    const Read &a = fast, &b = general;
    REQUIRE(a.res.ok() == b.res.ok());
    if (!a.res.ok()) {
        CHECK(a.res.error->line == b.res.error->line);
        CHECK(a.res.error->col + 1 == b.res.error->col);
        CHECK(a.res.error->message == b.res.error->message);
    }
    CHECK(a.stream() == b.stream());
    REQUIRE(a.col.all.size() == b.col.all.size());
    for (std::size_t k = 0; k < a.col.all.size(); ++k) {
        const Event &x = a.col.all[k], &y = b.col.all[k];
        CHECK(x.number == y.number);
        CHECK(x.target == y.target);
        CHECK(x.location == y.location);
        CHECK(x.line == y.line);
    }
    for (ObjId l = 0; l < a.syms.locations.size(); ++l)
        CHECK(a.syms.locations.name(l) == b.syms.locations.name(l));
    CHECK(a.syms.vars.size() == b.syms.vars.size());
    for (ObjId v = 0; v < a.syms.vars.size() && v < b.syms.vars.size(); ++v)
        CHECK(a.syms.vars.name(v) == b.syms.vars.name(v));
    CHECK(a.syms.threads.size() == b.syms.threads.size());
    return !a.res.ok();
}

} // namespace

TEST_CASE("events are numbered over event lines; comments, blanks, CRLF and spaces ignored") {
    Read r("# a comment\n\nT1|w(x)\r\n  T2 | r( x ) | Foo.java:12 \n\t# indented "
           "comment\nT1|acq(m)\n");
    REQUIRE(r.res.ok());
    CHECK(r.res.events == 3);
    REQUIRE(r.col.events.size() == 3);
    CHECK(r.col.events[0].number == 1);
    CHECK(r.col.events[0].line == 3);
    CHECK(r.col.events[1].number == 2);
    CHECK(r.col.events[1].line == 4);
    CHECK(r.col.events[1].op == Op::read);
    CHECK(r.syms.vars.name(r.col.events[1].target) == "x");
    CHECK(r.syms.locations.name(r.col.events[1].location) == "Foo.java:12");
    CHECK(r.col.events[0].location == no_object);
    CHECK(r.col.events[2].number == 3);
    CHECK(r.col.events[2].line == 6);
    CHECK(r.syms.locks.name(r.col.events[2].target) == "m");
}

TEST_CASE("a line starting with # is a comment however long and event-like it is") {
    // The one-pass parser once read "#t|w(x)" as an event of thread "#t" when 8 bytes followed.
    for (const char* text : {"#t|w(x)\nA|w(x)\n", "#T1|w(x)\nA|w(x)",
                             "#t|w(xxxxxxxxxxxx)|loc\nA|w(x)\n", "#|w(x)\nA|w(x)\n"}) {
        Read r(text);
        INFO(text);
        REQUIRE(r.res.ok());
        CHECK(r.res.events == 1);
        CHECK(r.stream() == Strings{"A:start@1", "A:w", "A:exit@2"});
    }
}

TEST_CASE("every op of docs/traces.md; each kind of object has its own namespace") {
    Read r("t|r(a)\nt|w(a)\nt|acq(a)\nt|rel(a)\nt|vr(a)\nt|vw(a)\nt|benter(a)\nt|bexit(a)\n"
           "t|fork(u,v)\nt|join(v,u)\nt|begin\nt|end\n");
    REQUIRE_MESSAGE(r.res.ok(), r.error());
    Op want[] = {Op::read,     Op::write,     Op::acquire,       Op::release,
                 Op::vol_read, Op::vol_write, Op::barrier_enter, Op::barrier_exit,
                 Op::fork,     Op::join,      Op::begin,         Op::end};
    REQUIRE(r.col.events.size() == 12);
    for (int i = 0; i < 12; ++i)
        CHECK(r.col.events[i].op == want[i]);
    CHECK(r.syms.vars.size() == 1);
    CHECK(r.syms.locks.size() == 1);
    CHECK(r.syms.volatiles.size() == 1);
    CHECK(r.syms.barriers.size() == 1);
    // fork(u,v) and join(v,u) are the same sorted set.
    CHECK(r.col.events[8].target == r.col.events[9].target);
    CHECK(r.syms.thread_sets[r.col.events[8].target].size() == 2);
}

TEST_CASE("RAPID's plain STD files just work") {
    Read r("T0|fork(T1)|12\nT1|acq(L0)|31\nT1|w(V0.f)|32\nT1|r(V0.f)|33\nT1|rel(L0)|34\n"
           "T1|begin(0)|40\nT1|end(0)|41\nT0|join(T1)|13\nT0|r(V0.f)|14\n");
    REQUIRE_MESSAGE(r.res.ok(), r.error());
    CHECK(r.res.events == 9);
    CHECK(r.syms.locations.name(r.col.events[0].location) == "12");
    CHECK(r.col.events[5].op == Op::begin);
}

TEST_CASE("implicit thread start and end are placed as event.hpp documents") {
    SUBCASE("root and forked threads, join") {
        Read r("A|fork(B)\nB|w(x)\nA|join(B)\nA|r(x)\n");
        REQUIRE(r.res.ok());
        CHECK(r.stream() == Strings{"A:start@1", "A:fork", "B:start@2/A", "B:w", "B:exit@3/A",
                                    "A:join", "A:r", "A:exit@5"});
    }
    SUBCASE("a forked thread with no events starts and ends just before its join") {
        Read r("A|fork(B,C)\nC|r(x)\nD|join(B,C)\n");
        REQUIRE(r.res.ok());
        CHECK(r.stream() == Strings{"A:start@1", "A:fork", "C:start@2/A", "C:r", "D:start@3",
                                    "B:start@3/A", "B:exit@3/D", "C:exit@3/D", "D:join", "A:exit@4",
                                    "D:exit@4"});
    }
    SUBCASE("a forked thread that never runs nor is joined: start and end at the end") {
        Read r("A|fork(B)\n");
        REQUIRE(r.res.ok());
        CHECK(r.stream() == Strings{"A:start@1", "A:fork", "A:exit@2", "B:start@2/A", "B:exit@2"});
    }
    SUBCASE("joining again does not end twice") {
        Read r("A|join(B)\nA|join(B)\n");
        REQUIRE(r.res.ok());
        CHECK(r.stream() ==
              Strings{"A:start@1", "B:start@1", "B:exit@1/A", "A:join", "A:join", "A:exit@3"});
    }
}

TEST_CASE("malformed lines: FILE:LINE:COL: error naming the line") {
    struct Case {
        const char* text;
        const char* error;
    };
    Case cases[] = {
        {"T1|w(x)\nT1 w(x)\n", "t.std:2:4: error: expected '|' after the thread name, found 'w'"},
        {"T1|w(x)\n\n|w(x)\n", "t.std:3:1: error: expected a thread name, found '|'"},
        {"T1|x(y)\n", "t.std:1:4: error: unknown operation 'x'"},
        // A program's condition variable steps are no trace ops (docs/programs.md).
        {"T1|notify(c)\n", "t.std:1:4: error: unknown operation 'notify'"},
        {"T1|wait(c)\n", "t.std:1:4: error: unknown operation 'wait'"},
        {"T1|start(T0)\n", "t.std:1:4: error: unknown operation 'start'"},
        {"T1|\n", "t.std:1:4: error: expected an operation (r, w, acq, rel, vr, vw, benter, "
                  "bexit, fork, join, begin, end)"},
        {"T1|w\n", "t.std:1:5: error: expected '(' after 'w'"},
        {"T1|w(x\n", "t.std:1:7: error: expected ')'"},
        {"T1|w()\n", "t.std:1:6: error: expected an operand, found ')'"},
        {"T1|w(x,y)\n", "t.std:1:7: error: 'w' takes one operand"},
        {"T1|fork()\n", "t.std:1:9: error: expected a thread name, found ')'"},
        {"T1|fork(a,)\n", "t.std:1:11: error: expected a thread name, found ')'"},
        {"T1|fork(a,a)\n", "t.std:1:11: error: thread a is listed twice"},
        {"T1|join(a, #0)\n", "t.std:1:12: error: a thread name cannot start with '#' (a comment)"},
        {"T1|w(x) y\n", "t.std:1:9: error: expected '|' or the end of the line, found 'y'"},
        {"T1|w(x)|loc\x01x\n", "t.std:1:12: error: unexpected byte 0x01 in the location"},
        {"T\x00|w(x)\n", "t.std:1:2: error: expected '|' after the thread name, found byte 0x00"},
        // vr(v=K) / vw(v=K): K is -?[0-9]+ within 64 bits, no blanks inside (docs/traces.md).
        {"T1|vw(v=)\n", "t.std:1:9: error: expected the value as an integer (-?[0-9]+) after '='"},
        {"T1|vw(v=1=2)\n",
         "t.std:1:10: error: expected the value as an integer (-?[0-9]+) after '=', found '='"},
        {"T1|vr(v=-)\n", "t.std:1:9: error: expected the value as an integer (-?[0-9]+) after '='"},
        {"T1|vr(v=1x)\n",
         "t.std:1:10: error: expected the value as an integer (-?[0-9]+) after '=', found 'x'"},
        {"T1|vw(=1)\n", "t.std:1:7: error: expected a volatile name before '='"},
        {"T1|vw(v=9223372036854775808)\n",
         "t.std:1:9: error: value 9223372036854775808 is out of range (signed 64 bits)"},
        {"T1|vw(v=-9223372036854775809)\n",
         "t.std:1:9: error: value -9223372036854775809 is out of range (signed 64 bits)"},
        {"T1|vw(v= 1)\n",
         "t.std:1:9: error: expected the value as an integer (-?[0-9]+) after '='"},
        {"T1|vw(v =1)\n", "t.std:1:9: error: expected ')', found '='"},
    };
    for (const Case& c : cases) {
        Read r(std::string_view(c.text, std::strlen(c.text) + (c.text[1] == 0 ? 8 : 0)));
        INFO(c.text);
        CHECK(r.error() == c.error);
    }
}

TEST_CASE("ill-formed traces: the errors of docs/traces.md, at the offending line") {
    struct Case {
        const char* text;
        const char* error;
    };
    Case cases[] = {
        {"A|acq(m)\nA|rel(m)\nA|rel(m)\n",
         "t.std:3:1: error: thread A releases lock m, which is not held"},
        {"A|acq(m)\nB|rel(m)\n",
         "t.std:2:1: error: thread B releases lock m, which is held by thread A at line 1"},
        {"A|acq(m)\nB|acq(m)\n",
         "t.std:2:1: error: thread B acquires lock m, which is held by thread A at line 1"},
        {"A|acq(m)\nA|acq(m)\n", "t.std:2:1: error: thread A acquires lock m, which it already "
                                 "holds (since line 1; locks are not re-entrant)"},
        {"B|w(x)\nA|fork(B)\n",
         "t.std:2:1: error: thread A forks thread B, which already has events (first at line 1)"},
        {"A|fork(B)\nC|fork(B)\n",
         "t.std:2:1: error: thread C forks thread B, which was already forked at line 1"},
        {"A|fork(A)\n", "t.std:1:1: error: thread A forks itself"},
        {"A|fork(B,A)\n", "t.std:1:1: error: thread A forks itself"},
        {"A|join(A)\n", "t.std:1:1: error: thread A joins itself"},
        {"A|fork(B)\nB|r(x)\nA|join(B)\nB|w(x)\n",
         "t.std:4:1: error: event of thread B after it was joined at line 3"},
        {"A|join(B)\nC|fork(B)\n",
         "t.std:2:1: error: thread C forks thread B, which has already ended at line 1"},
        {"A|bexit(b)\n", "t.std:1:1: error: thread A exits barrier b without entering it just "
                         "before"},
        {"A|benter(b)\nA|r(x)\nA|bexit(b)\n", "t.std:3:1: error: thread A exits barrier b "
                                              "without entering it just before"},
        {"A|benter(c)\nA|bexit(b)\n", "t.std:2:1: error: thread A exits barrier b without "
                                      "entering it just before"},
    };
    for (const Case& c : cases) {
        Read r(c.text);
        INFO(c.text);
        CHECK(r.error() == c.error);
        // Nothing of the offending event reaches the analyses.
        CHECK(r.col.events.size() == r.res.events);
    }
}

TEST_CASE("reading a file: mmap, missing file, directory, empty file") {
    char path[] = "/tmp/sfg_trace_XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    {
        std::ofstream out(path);
        out << "T1|w(x)\nT2|w(x)\n";
    }
    Symbols syms;
    Collector col;
    TraceResult r = read_trace_file(path, syms, col);
    CHECK(r.ok());
    CHECK(r.events == 2);
    { std::ofstream out(path, std::ios::trunc); }
    Collector col2;
    Symbols syms2;
    CHECK(read_trace_file(path, syms2, col2).events == 0);
    std::remove(path);
    Symbols s3;
    TraceResult missing = read_trace_file("/nonexistent/x.std", s3, col);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error->to_string() ==
          "/nonexistent/x.std: error: cannot read the trace: No such file or directory");
    TraceResult dir = read_trace_file("/tmp", s3, col);
    REQUIRE_FALSE(dir.ok());
    CHECK(dir.error->to_string() == "/tmp: error: cannot read the trace: is a directory");
}

TEST_CASE("bad input never crashes: random bytes and mutated traces") {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 3000; ++i) {
        std::string t = random_trace(rng, {});
        int flips = 1 + static_cast<int>(rng() % 4);
        for (int k = 0; k < flips && !t.empty(); ++k) {
            std::size_t at = rng() % t.size();
            const char alphabet[] = "|(),# \r\n\tTxmrwa0\x00\xff";
            t[at] = alphabet[rng() % (sizeof alphabet - 1)];
        }
        Symbols syms;
        Collector col;
        TraceResult r = read_trace_text(t, "m.std", syms, col);
        if (!r.ok()) {
            CHECK(r.error->line >= 1);
            CHECK(r.error->col >= 1);
        }
        std::string bin(8, '\0');
        for (auto& c : bin)
            c = static_cast<char>(rng());
        Symbols s2;
        read_trace_binary("SFGTRC1\n" + bin + t, "m.bin", s2, col);
    }
}

TEST_CASE("tokenize_trace_text counts event lines like the reader") {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) {
        std::string t = "# header\n\n" + random_trace(rng, {});
        Symbols syms;
        Collector col;
        TraceResult r = read_trace_text(t, "t.std", syms, col);
        REQUIRE(r.ok());
        CHECK(tokenize_trace_text(t) == r.events);
    }
}

// The reader parses the common line (`T|op(x)` or `T|op(x)|LOC`, nothing to trim) in one pass
// and hands every other line to the general parser. A leading blank sends every line to the
// general parser: both must give the same events, names, ids and errors.
TEST_CASE("the one-pass parser's 32-byte window and the general parser agree on odd lines") {
    // Fields of every length around the window's limits, and bytes that end or break a field.
    std::mt19937_64 rng(9);
    const std::string odd[] = {"",     " ",    "\t", "\r", std::string(1, '\0'),
                               "\x7f", "\xff", "|",  "(",  ")",
                               ",",    "#",    "x",  "_9"};
    const char* ops[] = {"r", "w", "acq", "rel", "vr", "vw", "benter", "bexit", "", "rw", "wr("};
    auto name = [&](std::size_t n) {
        std::string s;
        for (std::size_t i = 0; i < n; ++i)
            s += rng() % 12 ? static_cast<char>('a' + rng() % 26) : '7';
        if (rng() % 6 == 0)
            s.insert(rng() % (s.size() + 1), odd[rng() % std::size(odd)]);
        return s;
    };
    { // no op, NUL where it would start: not r(x)
        const std::string l = std::string("T0|\0x)\n", 8) + std::string(40, '#');
        Read a(l), b(" " + l);
        REQUIRE(!a.res.ok());
        CHECK(a.res.error->message == b.res.error->message);
    }
    int events = 0;
    for (int i = 0; i < 4000; ++i) {
        std::string fast, general;
        // Every other case has short fields: several lines to a window, which the parser reuses
        // for the lines after the first.
        const std::size_t scale = i % 2 ? 1 : 8;
        for (int k = 0; k < 6; ++k) {
            // (Sometimes no thread name: a line whose first byte is its '|'.)
            std::string l = (rng() % 8 ? "T" : "") + name(rng() % (3 * scale)) + "|" +
                            ops[rng() % std::size(ops)] + "(" + name(rng() % (4 * scale)) + ")";
            if (rng() % 2)
                l += "|" + name(rng() % (3 * scale));
            if (rng() % 8 == 0)
                l = l.substr(0, rng() % (l.size() + 1));
            fast += l + "\n";
            general += " " + l + "\n";
        }
        fast += std::string(40, '#'); // a window's worth after the last line
        general += std::string(40, '#');
        Read a(fast), b(general);
        INFO(fast);
        check_same_reading(a, b);
        events += static_cast<int>(a.col.events.size());
    }
    CHECK(events > 2000);
}

TEST_CASE("the one-pass common-line parser and the general parser agree") {
    std::mt19937_64 rng(5);
    const char* locations[] = {"12", "Foo.java:12", "a b", "x|y(z)", "\x7f\xff"};
    int errors = 0;
    for (int i = 0; i < 2000; ++i) {
        std::vector<std::string> lines;
        std::string t = random_trace(rng, {4, 3, 2, 2, 1, 30, 50});
        for (std::size_t at = 0, nl; (nl = t.find('\n', at)) != std::string::npos; at = nl + 1)
            lines.push_back(t.substr(at, nl - at));
        for (std::string& l : lines) {
            if (rng() % 2)
                l += std::string("|") + locations[rng() % std::size(locations)];
            if (rng() % 16 == 0) // commented out: an event line behind '#'
                l.insert(0, "#");
        }
        if (i % 2 && lines.size() > 2) // often ill-formed: an error at some line
            std::swap(lines[rng() % lines.size()], lines[rng() % lines.size()]);
        std::string fast, general;
        for (const std::string& l : lines) {
            fast += l + "\n";
            general += " " + l + "\n";
        }
        if (rng() % 2 && !fast.empty()) { // no newline at the end
            fast.pop_back();
            general.pop_back();
        }
        Read a(fast), b(general);
        INFO(fast);
        errors += check_same_reading(a, b);
    }
    CHECK(errors > 200);
}
