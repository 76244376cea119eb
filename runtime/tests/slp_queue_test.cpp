// Queue events (thesis §5.1, q(o); docs/traces.md "Queues") in SLPs (docs/compressed.md): the
// queue names' record, compress / decompress, well-formedness on the grammar, hb on the grammar
// (every enq(q,o) before every later deq(q,o)), eraser, and analyse_slp on the grammar and on
// the expansion, all against the flat trace.
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/registry/compress_trace_file.hpp"
#include "sfg/runtime/registry/slp_analyses.hpp"
#include "sfg/runtime/slp/slp_eraser.hpp"
#include "sfg/runtime/slp/slp_hb.hpp"
#include "slp_test_util.hpp"
#include "volume.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace sfg;
using namespace sfg::testing;

namespace {

std::string bytes_of(const Slp& slp, const Symbols& syms) {
    std::ostringstream out;
    write_slp(out, slp, syms);
    return out.str();
}

std::vector<std::string> lines_of(const std::vector<Event>& events, const Symbols& syms) {
    std::vector<std::string> lines;
    for (const Event& e : events)
        if (!e.implicit)
            lines.push_back(format_event(e, syms));
    return lines;
}

std::vector<std::string> lines_of(const std::string& text) {
    Symbols syms;
    Collector c;
    REQUIRE(read_trace_text(text, "t.std", syms, c).ok());
    return lines_of(c.events, syms);
}

// A random trace with queue events, some lines with a location.
std::string queue_trace(std::mt19937_64& rng, int events, int queues) {
    RandomTraceOptions o;
    o.threads = 2 + static_cast<int>(rng() % 5);
    o.events = events;
    o.queues = queues;
    o.guarded = static_cast<int>(rng() % 2) * 60;
    o.values = static_cast<int>(rng() % 2) * 30;
    std::string text = random_trace(rng, o), out, line;
    std::istringstream in(text);
    for (int i = 1; std::getline(in, line); ++i)
        out += line + (i % 4 == 0 ? "|F.java:" + std::to_string(i % 7) : "") + "\n";
    return out;
}

// Compresses a text trace from a file, writes and reads the SLP back.
struct Compressed {
    std::string bytes;
    Slp slp;      // as read back
    Symbols syms; // of the SLP read back
};
Compressed compress_text(const std::string& text, SlpAlgorithm algorithm) {
    const std::string path = scratch_file("slp_queue_test", "std");
    std::ofstream(path, std::ios::binary) << text;
    Symbols syms;
    Slp slp;
    const TraceResult r = compress_trace_file(path, algorithm, syms, slp);
    std::remove(path.c_str());
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.error->to_string()));
    Compressed c;
    c.bytes = bytes_of(slp, syms);
    REQUIRE(!read_slp(c.bytes, "t.slp", c.syms, c.slp));
    return c;
}

std::vector<std::string> shown(const std::vector<Finding>& fs, const Symbols& syms) {
    std::vector<std::string> out;
    for (const Finding& f : fs)
        out.push_back(format_finding(f, "a", syms, "t"));
    return out;
}

// The flat analysis `name` on a text trace, without line numbers (an SLP has none).
std::vector<std::string> flat_findings(std::string_view name, const std::string& text) {
    Symbols syms;
    auto a = make_analysis(name);
    REQUIRE(read_trace_text(text, "t.std", syms, a->analysis()).ok());
    a->analysis().finish(syms);
    std::vector<Finding> fs = a->findings(syms);
    for (Finding& f : fs) {
        f.access.line = 0;
        if (f.with)
            f.with->line = 0;
    }
    return shown(fs, syms);
}

// analyse_slp's findings of `names` on an SLP, in `mode`.
std::vector<std::vector<std::string>> slp_findings(const std::vector<std::string_view>& names,
                                                   const Slp& slp, Symbols& syms, SlpMode mode) {
    std::vector<std::unique_ptr<RunningAnalysis>> analyses;
    for (std::string_view n : names)
        analyses.push_back(make_analysis(n));
    const SlpSource source{slp.events(), slp.size(), [&]() -> const Slp& { return slp; },
                           [&](Analysis& sink) { return expand_slp(slp, "t.slp", syms, sink); }};
    auto result = analyse_slp(source, mode, analyses, "t.slp", syms);
    REQUIRE(std::holds_alternative<std::vector<AnalysisReport>>(result));
    std::vector<std::vector<std::string>> out;
    for (const AnalysisReport& r : std::get<std::vector<AnalysisReport>>(result))
        out.push_back(shown(r.findings, syms));
    return out;
}

std::vector<std::string> hb_on_grammar(const Slp& slp, const Symbols& syms) {
    return shown(to_findings(SlpHb(slp, syms).races(), syms), syms);
}
std::vector<std::string> hb_on_expansion(const Slp& slp, const Symbols& syms) {
    HbDetector hb;
    REQUIRE(expand_slp(slp, "t.slp", syms, hb).ok());
    return shown(to_findings(hb.races(), syms), syms);
}

// The trace with every enq/deq made a `begin`, which orders nothing for hb: where hb's report
// changes, the queue's edges were what ordered (or failed to order) the accesses.
std::string without_queue_edges(const std::string& text) {
    std::string out, line;
    std::istringstream in(text);
    while (std::getline(in, line)) {
        for (const char* op : {"|enq(", "|deq("})
            if (const auto at = line.find(op); at != std::string::npos)
                line.replace(at + 1, line.find(')', at) - at, "begin");
        out += line + "\n";
    }
    return out;
}

} // namespace

TEST_CASE("SLP bytes: no queue record without queue events; the record before the terminals") {
    Symbols syms;
    Terminals t = terminals_of("T0|w(x)\n", syms);
    std::mt19937_64 rng(1);
    Slp slp = grammar_by(0, t.slp, t.sequence, rng);
    // As before queues: names, no sets, one terminal w (code 1) by thread 0 on x, one rule.
    CHECK(bytes_of(slp, syms) == std::string("SFGSLP1\n\x01\x02T0\x01\x01x\0\0\0\0\0\x01\x01\0\0"
                                             "\x01\x01\0\0",
                                             28));
    Symbols qs;
    t = terminals_of("T0|enq(q,x)\nT1|deq(q,x)\n", qs);
    slp = grammar_by(1, t.slp, t.sequence, rng);
    // Threads T0 T1, variable x; then after the terminal count 2 the record 0x46 with queue q;
    // enq (14) by 0 of queue 0, variable 0; deq (15) by 1 of queue 0, variable 0.
    const std::string want("SFGSLP1\n\x02\x02T0\x02T1\x01\x01x\0\0\0\0\0\x02\x46\x01\x01q"
                           "\x0e\0\0\0\x0f\x01\0\0\x01\x02\0\x02\0",
                           41);
    CHECK(bytes_of(slp, qs) == want);
    Symbols back;
    Slp read;
    REQUIRE(!read_slp(want, "t.slp", back, read));
    REQUIRE(read.terminals.size() == 2);
    CHECK(read.terminals[0].op == Op::enqueue);
    CHECK(read.terminals[1].op == Op::dequeue);
    CHECK(back.queues.name(back.queue_items.queue(read.terminals[1].target)) == "q");
    CHECK(back.vars.name(back.queue_items.var(read.terminals[1].target)) == "x");
    // Errors: an enq of a queue the file does not name; a bad queue name; the record is only
    // where a terminal's op code would be.
    std::string bad = want;
    bad[30] = '\x01'; // the enq's queue
    auto e = read_slp(bad, "t.slp", back, read);
    REQUIRE(e);
    CHECK(e->to_string().find("queue id 1 out of range") != std::string::npos);
    bad = want;
    bad[27] = '\n'; // the queue's name
    e = read_slp(bad, "t.slp", back, read);
    REQUIRE(e);
    CHECK(e->to_string().find("invalid queue name") != std::string::npos);
    bad = want;
    bad.erase(24, 4); // no record: queue 0 is out of range
    e = read_slp(bad, "t.slp", back, read);
    REQUIRE(e);
    CHECK(e->to_string().find("queue id 0 out of range") != std::string::npos);
}

TEST_CASE("compress / decompress with queue events: the same events, names and ids (Sequitur, "
          "Re-Pair)") {
    std::mt19937_64 rng(514);
    int with_queues = 0;
    for (int round = 0; round < 300; ++round) {
        const std::string text = queue_trace(rng, 1 + static_cast<int>(rng() % 150), 30);
        const auto want = lines_of(text);
        with_queues += text.find("deq(") != std::string::npos;
        for (SlpAlgorithm a : {SlpAlgorithm::sequitur, SlpAlgorithm::repair}) {
            Compressed c = compress_text(text, a);
            Collector col;
            REQUIRE(expand_slp(c.slp, "t.slp", c.syms, col).ok());
            CHECK(lines_of(col.events, c.syms) == want);
            // The names and queue items read back are those of the trace, ids included.
            Symbols flat;
            Collector fc;
            REQUIRE(read_trace_text(text, "t.std", flat, fc).ok());
            CHECK(same(c.syms.queues, flat.queues));
            CHECK(same(c.syms.queue_items, flat.queue_items));
            CHECK(same(c.syms.vars, flat.vars));
            // Written again: the same bytes.
            CHECK(bytes_of(c.slp, c.syms) == c.bytes);
        }
    }
    CHECK(with_queues > 200);
}

TEST_CASE("queue events: hb on the grammar = hb on the expansion = hb on the trace; eraser too "
          "(3,000 traces, 3 grammars each)" *
          volume) {
    std::mt19937_64 rng(5101);
    int racy = 0, queued = 0, edges_matter = 0;
    for (int round = 0; round < 3000; ++round) {
        const std::string text = queue_trace(rng, 20 + static_cast<int>(rng() % 120), 35);
        Symbols syms;
        Terminals t = terminals_of(text, syms);
        const auto want_hb = flat_findings("hb", text);
        const auto want_eraser = flat_findings("eraser", text);
        queued += text.find("deq(") != std::string::npos;
        racy += !want_hb.empty();
        edges_matter += flat_findings("hb", without_queue_edges(text)) != want_hb;
        for (int g = 0; g < 3; ++g) {
            const Slp slp = grammar_by(g, t.slp, t.sequence, rng);
            CHECK_MESSAGE(hb_on_grammar(slp, syms) == want_hb, text);
            CHECK_MESSAGE(hb_on_expansion(slp, syms) == want_hb, text);
            CHECK_MESSAGE(shown(to_findings(slp_eraser_warnings(slp, syms), syms), syms) ==
                              want_eraser,
                          text);
        }
    }
    MESSAGE("racy " << racy << ", with a deq " << queued
                    << ", the queue's edges change hb's report " << edges_matter);
    CHECK(racy > 500);
    CHECK(queued > 2000);
    CHECK(edges_matter > 300);
}

TEST_CASE("queue events: analyse_slp on the grammar and on the expansion = every analysis on the "
          "trace") {
    std::mt19937_64 rng(77);
    const std::vector<std::string_view> names{"hb", "fasttrack", "goldilocks", "eraser"};
    for (int round = 0; round < 300; ++round) {
        const std::string text = queue_trace(rng, 20 + static_cast<int>(rng() % 200), 30);
        std::vector<std::vector<std::string>> want;
        for (std::string_view n : names)
            want.push_back(flat_findings(n, text));
        for (SlpAlgorithm a : {SlpAlgorithm::sequitur, SlpAlgorithm::repair}) {
            Compressed c = compress_text(text, a);
            for (SlpMode mode : {SlpMode::grammar, SlpMode::expand, SlpMode::automatic})
                CHECK_MESSAGE(slp_findings(names, c.slp, c.syms, mode) == want, text);
        }
    }
}

TEST_CASE("queue events: well-formedness on the grammar = the checker on the trace (3,000 "
          "grammars)") {
    std::mt19937_64 rng(98);
    int bad = 0, dequeue_absent = 0;
    for (int round = 0; round < 1000; ++round) {
        Symbols syms;
        Terminals t = terminals_of(queue_trace(rng, 20 + static_cast<int>(rng() % 60), 40), syms);
        // Swap, drop or repeat a few events: a deq before its enq, an enq dropped, a deq twice.
        auto& s = t.sequence;
        mutate_sequence(rng, s);
        t.slp.locations.clear();
        const std::vector<WellFormedBothWays> both = well_formed_both_ways(t.slp, s, syms, rng);
        for (std::size_t g = 0; g < both.size(); ++g) {
            const WellFormedBothWays& r = both[g];
            REQUIRE(r.on_grammar.has_value() == r.expanded.has_value());
            if (r.on_grammar) {
                CHECK(*r.on_grammar == *r.expanded);
                bad += g == 0;
                dequeue_absent +=
                    g == 0 && r.on_grammar->find("which holds no") != std::string::npos;
            }
        }
    }
    MESSAGE("ill-formed: " << bad << ", of which a deq without its enq: " << dequeue_absent);
    CHECK(bad > 300);
    CHECK(dequeue_absent > 100);
}

TEST_CASE("queue events in repeated rules: a deq of an item put in by an earlier repetition") {
    // S -> A R R R: main fills x and puts it in q; each R hands x from w1 to w2 and back through
    // q, so w1's deq in the second R takes the item w2 put in during the first.
    const Rules rules{
        {"S", {"A", "R", "R", "R"}},
        {"A", {"main|w(x)", "main|enq(q,x)"}},
        {"R", {"P", "C"}},
        {"P", {"w1|deq(q,x)", "w1|w(x)", "w1|enq(q,x)"}},
        {"C", {"w2|deq(q,x)", "w2|r(x)", "w2|w(x)", "w2|enq(q,x)"}},
    };
    Symbols syms;
    const Slp slp = hand_slp(rules, syms);
    CHECK(slp.events() == 23);
    CHECK(!check_slp_well_formed(slp, "t.slp", syms));
    CHECK(hb_on_grammar(slp, syms).empty());
    CHECK(hb_on_expansion(slp, syms).empty());
    // P's summary: its deq is ordered after what put q(x) in; its enq puts q(x) after w1.
    const SlpHb::Dump d = SlpHb(slp, syms).dump(hand_rule(rules, "P"));
    const auto has = [](const auto& m, const std::string& u, const std::string& v) {
        for (const auto& e : m)
            if (e.first == u)
                return std::find(e.second.begin(), e.second.end(), v) != e.second.end();
        return false;
    };
    CHECK(has(d.af, "q(x)", "w1"));
    CHECK(has(d.bl, "q(x)", "w1"));
    // Two items of one queue: one R more than items put in is ill-formed, at its first deq,
    // with the flat checker's message.
    const Rules over{
        {"S", {"A", "R", "R"}},
        {"A", {"main|w(x)", "main|enq(q,x)"}},
        {"R", {"w1|deq(q,x)", "w1|w(x)", "w1|enq(q,y)", "w2|deq(q,x)"}},
    };
    Symbols s2;
    const Slp bad = hand_slp(over, s2);
    const auto e = check_slp_well_formed(bad, "t.slp", s2);
    REQUIRE(e);
    CHECK(
        e->to_string() ==
        "t.slp: error: event 6: thread w2 takes x out of queue q, which holds no x put in before");
    NoSink none;
    const TraceResult flat = expand_slp(bad, "t.slp", s2, none);
    REQUIRE(flat.error);
    CHECK(flat.error->to_string() == e->to_string());
}

TEST_CASE("queue events on the grammar: the enq -> deq edge hides a race, and only that edge") {
    // w2's write is ordered after w1's only through q(x): every earlier enq before every later
    // deq, not FIFO (w2 takes x, which main put in first, yet w1's enq is before it too).
    const Rules ordered{
        {"S", {"A", "B", "C"}},
        {"A", {"main|enq(q,x)", "w1|w(x)"}},
        {"B", {"w1|enq(q,x)", "w2|deq(q,x)"}},
        {"C", {"w2|w(x)"}},
    };
    Symbols syms;
    const Slp slp = hand_slp(ordered, syms);
    CHECK(!check_slp_well_formed(slp, "t.slp", syms));
    CHECK(hb_on_grammar(slp, syms).empty());
    CHECK(hb_on_expansion(slp, syms).empty());
    // The same with another queue, another object, or the deq before w1's enq: a race at w2's
    // write with w1's.
    for (const char* deq : {"w2|deq(p,x)", "w2|deq(q,y)"}) {
        const Rules other{
            {"S", {"A", "B", "C"}},
            {"A", {"main|enq(q,x)", "main|enq(p,x)", "main|enq(q,y)", "w1|w(x)"}},
            {"B", {"w1|enq(q,x)", deq}},
            {"C", {"w2|w(x)"}},
        };
        Symbols s;
        const Slp racy = hand_slp(other, s);
        CHECK(!check_slp_well_formed(racy, "t.slp", s));
        const auto got = hb_on_grammar(racy, s);
        REQUIRE(got.size() == 1);
        CHECK(got == hb_on_expansion(racy, s));
        const auto races = SlpHb(racy, s).races();
        CHECK(races[0].access.event == 7);
        CHECK(races[0].with.event == 4);
    }
    const Rules early{
        {"S", {"A", "B", "C"}},
        {"A", {"main|enq(q,x)", "w2|deq(q,x)", "w1|w(x)"}},
        {"B", {"w1|enq(q,x)"}},
        {"C", {"w2|w(x)"}},
    };
    Symbols s3;
    const Slp racy = hand_slp(early, s3);
    const auto races = SlpHb(racy, s3).races();
    REQUIRE(races.size() == 1);
    CHECK(races[0].access.event == 5);
    CHECK(races[0].with.event == 3);
    CHECK(hb_on_grammar(racy, s3) == hb_on_expansion(racy, s3));
    // Eraser ignores queue events: the lockset discipline warns, hand-off or not.
    CHECK(shown(to_findings(slp_eraser_warnings(slp, syms), syms), syms).size() == 1);
}

TEST_CASE("queue events on the grammar, U beyond one machine word (70 queue items)") {
    std::string text = "T0|w(x0)\n";
    for (int i = 0; i < 70; ++i)
        text += "T0|enq(q" + std::to_string(i) + ",x0)\n";
    for (int round = 0; round < 3; ++round)
        for (int i = 0; i < 70; ++i)
            text += "T" + std::to_string(1 + i % 2) + "|deq(q" + std::to_string(i) + ",x0)\nT" +
                    std::to_string(1 + i % 2) + "|enq(q" + std::to_string(i) + ",x0)\nT" +
                    std::to_string(1 + (i + round) % 3) + "|" + (i % 5 ? "r" : "w") + "(x0)\n";
    Symbols syms;
    Terminals t = terminals_of(text, syms);
    std::mt19937_64 rng(3);
    const auto want = flat_findings("hb", text);
    for (int g = 0; g < 3; ++g) {
        const Slp slp = grammar_by(g, t.slp, t.sequence, rng);
        CHECK(hb_on_grammar(slp, syms) == want);
    }
}
