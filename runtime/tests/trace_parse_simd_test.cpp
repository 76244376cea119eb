// The text parser's fast path (SFG_SIMD: word-at-a-time and SSE2 scans of common lines) against
// its reference, parse_line alone: on every input both must produce the same names, events and
// errors. Without SFG_SIMD only the reference is built, and this checks it on its own.
#include "random_trace.hpp"
#include "trace/trace_names.hpp"
#include "trace/trace_text_parser.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace sfg;

namespace {

// The parser's Out that records everything it is handed, in order.
struct RecordingOut {
    explicit RecordingOut(Symbols& s)
        : syms(s), threads(s.threads), vars(s.vars), locks(s.locks), volatiles(s.volatiles),
          barriers(s.barriers), locations(s.locations), sets(s) {}

    const std::string& thread_name(ThreadId t) const { return syms.threads.name(t); }
    ObjId set(std::vector<ThreadId>& listed) { return sets.id(listed); }
    bool push(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
              std::optional<std::int64_t> value = {}) {
        Event e;
        e.thread = t, e.op = op, e.target = target, e.location = location, e.line = line;
        e.value_id = value ? syms.values.intern(*value) : no_object;
        log.push_back(std::to_string(line) + ":" + format_event(e, syms));
        return true;
    }
    const std::string& error() const { return none; }

    Symbols& syms;
    NameCache threads, vars, locks, volatiles, barriers, locations;
    ThreadSetCache sets;
    std::vector<std::string> log;
    std::string none;
};

template <bool Fast>
std::vector<std::string> parse(const std::string& text) {
    Symbols syms;
    RecordingOut out(syms);
    text_trace::TextParser<RecordingOut, Fast> parser(text, "t", out);
    if (!parser.run())
        out.log.push_back("error " + parser.error()->to_string());
    // Ids in order of first sight must agree too.
    for (Namespace n : {Namespace::thread, Namespace::variable, Namespace::lock,
                        Namespace::volatile_, Namespace::barrier, Namespace::location})
        for (std::uint32_t i = 0; i < syms.names(n).size(); ++i)
            out.log.push_back(std::string(to_string(n)) + " " + syms.names(n).name(i));
    return out.log;
}

// Damage that lands on every branch of the fast path's scans: long names and locations (past 8
// bytes and past the 32-byte window), blanks, tabs, CR, comments, separators, control and high
// bytes, cut lines.
std::string mutate(std::mt19937_64& rng, std::string text) {
    static const std::string pieces[] = {" ",
                                         "\t",
                                         "\r",
                                         "#",
                                         "|",
                                         "(",
                                         ")",
                                         ",",
                                         "\x01",
                                         "\x7f",
                                         "\xff",
                                         "\n",
                                         "abcdefghijklmnopqrstuvwxyz0123456789",
                                         "|loc.c:12",
                                         "acq(",
                                         "benter(",
                                         "T1|w(x0)\n",
                                         "=",
                                         "-",
                                         "9223372036854775808",
                                         "T2|vw(v=-1)\n",
                                         "T1|vr(v=1)|f.c:3\n"};
    const int edits = static_cast<int>(rng() % 6);
    for (int i = 0; i < edits && !text.empty(); ++i) {
        const std::size_t at = rng() % text.size();
        switch (rng() % 3) {
        case 0:
            text.insert(at, pieces[rng() % std::size(pieces)]);
            break;
        case 1:
            text.erase(at, 1 + rng() % 3);
            break;
        default:
            text[at] = static_cast<char>(rng());
            break;
        }
    }
    return text;
}

} // namespace

TEST_CASE("text parser: the fast path reads every input as the reference parser does") {
    std::mt19937_64 rng(2026);
    for (int i = 0; i < 4000; ++i) {
        testing::RandomTraceOptions o{1 + static_cast<int>(rng() % 12), 3, 2, 2, 2, 60, 0, 30};
        std::string text = testing::random_trace(rng, o);
        if (i % 3 == 0) // long names: word scans go past 8 bytes, lines past the window
            for (std::size_t p = 0; (p = text.find("(x0", p)) != std::string::npos; p += 32)
                text.insert(p + 1, "a_rather_long_variable_name_");
        if (i % 5 == 1) // locations
            for (std::size_t p = 0; (p = text.find(")\n", p)) != std::string::npos; p += 3)
                text.insert(p + 1, "|file.c:" + std::to_string(p));
        if (i % 2 == 0)
            text = mutate(rng, text);
        const std::vector<std::string> reference = parse<false>(text);
#if SFG_SIMD
        const std::vector<std::string> fast = parse<true>(text);
        REQUIRE_MESSAGE(fast == reference, "input:\n" << text);
#endif
        CHECK(!reference.empty());
    }
}

TEST_CASE("text parser: the reference parser reads the documented line forms") {
    const std::vector<std::string> log = parse<false>(" T1 | w ( x ) | a.c:3 \r\nT1|fork(T2)\n");
    CHECK(log[0] == "1:T1|w(x)|a.c:3");
    CHECK(log[1] == "2:T1|fork(T2)");
}
