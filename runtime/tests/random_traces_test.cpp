// hb = fasttrack = goldilocks = the brute-force oracle (docs/traces.md) on random well-formed
// traces: the same first racy event for every variable, and a with_event that really races.
#include "random_trace.hpp"
#include "sfg/runtime/hb/sync_clocks.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "volume.hpp"

#include <doctest/doctest.h>

using namespace sfg;
using namespace sfg::testing;

namespace {

void check_detector(const char* name, const RaceDetector& d,
                    const std::map<ObjId, HbOracle::FirstRace>& want,
                    const std::vector<Event>& events, const std::string& trace) {
    INFO(name);
    INFO(trace);
    REQUIRE(d.races().size() == want.size());
    for (const Race& r : d.races()) {
        auto it = want.find(r.var);
        REQUIRE(it != want.end());
        CHECK(r.access.event == it->second.event);
        const auto& w = it->second.with;
        CHECK(std::find(w.begin(), w.end(), r.with.event) != w.end());
        // The reported events are what the trace says they are.
        const Event& a = events[r.access.event - 1];
        const Event& b = events[r.with.event - 1];
        CHECK((a.thread == r.access.thread && a.op == r.access.op && a.target == r.var));
        CHECK((b.thread == r.with.thread && b.op == r.with.op && b.target == r.var));
        CHECK(b.line == r.with.line);
    }
    for (std::size_t i = 1; i < d.races().size(); ++i)
        CHECK(d.races()[i - 1].access.event < d.races()[i].access.event);
}

void run(std::uint64_t seed, int count, const RandomTraceOptions& o, int* racy, int* caught_up) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        std::string trace = random_trace(rng, o);
        Symbols syms;
        Collector col;
        HbDetector hb;
        FastTrackDetector ft;
        GoldilocksDetector gl;
        GoldilocksDetector eager(2 + static_cast<std::uint64_t>(i % 5)); // catch-ups all along
        Fanout all;
        all.add(col), all.add(hb), all.add(ft), all.add(gl), all.add(eager);
        TraceResult res = read_trace_text(trace, "random.std", syms, all);
        INFO(trace);
        REQUIRE_MESSAGE(res.ok(), res.error->to_string());
        REQUIRE(col.events.size() <= HbOracle::max_events);
        HbOracle oracle(col.events, syms);
        auto want = oracle.first_races();
        *racy += !want.empty();
        check_detector("hb", hb, want, col.events, trace);
        check_detector("fasttrack", ft, want, col.events, trace);
        check_detector("goldilocks", gl, want, col.events, trace);
        check_detector("goldilocks with catch-ups", eager, want, col.events, trace);
        if (eager.stats().catch_ups > 0)
            ++*caught_up;
    }
}

// DJIT+ with nothing skipped: every access scans every thread's last read and write, each kept
// per thread (not per slot) with the slot its clock was taken in. hb shortcuts those scans when it
// can show they find nothing, and keeps one access per slot; its reports must be these exactly
// (the same racing access, the latest, a write before a read; docs/traces.md).
class PlainDjit : public RaceDetector {
public:
    void on_event(const Event& e, const Symbols& syms) override {
        if (!is_memory(e.op))
            return clocks_.on_sync(e, syms);
        Var& v = vars_[e.target];
        if (v.raced)
            return;
        const VectorClock& c = clocks_.clock(e.thread);
        auto scan = [&](std::map<ThreadId, Access>& last, Op op) {
            const std::pair<const ThreadId, Access>* best = nullptr;
            for (const auto& entry : last)
                if (entry.first != e.thread && entry.second.clock > c.get(entry.second.slot) &&
                    (!best || entry.second.event.number > best->second.event.number))
                    best = &entry;
            if (!best)
                return false;
            const Event& a = best->second.event;
            v.raced = true;
            races_.push_back(
                {e.target, AccessRef::of(e), {a.number, best->first, op, a.line, a.location}});
            return true;
        };
        if (scan(v.writes, Op::write) || (e.op == Op::write && scan(v.reads, Op::read)))
            return;
        auto& mine = e.op == Op::write ? v.writes : v.reads;
        // The same epoch keeps the first access of it (as hb does).
        const Clock now = clocks_.epoch(e.thread);
        if (auto it = mine.find(e.thread); it == mine.end() || it->second.clock != now)
            mine[e.thread] = {now, clocks_.slot(e.thread), e};
    }

private:
    struct Access {
        Clock clock;
        std::uint32_t slot;
        Event event;
    };
    struct Var {
        bool raced = false;
        std::map<ThreadId, Access> reads, writes;
    };
    SyncClocks clocks_;
    std::map<ObjId, Var> vars_;
};

} // namespace

TEST_CASE("random traces: hb reports exactly what DJIT+ without shortcuts reports") {
    std::mt19937_64 rng(7);
    int racy = 0;
    for (int i = 0; i < 4000; ++i) {
        const RandomTraceOptions o = i % 2 ? RandomTraceOptions{6, 3, 2, 2, 2, 80, 0, 30}
                                           : RandomTraceOptions{5, 3, 2, 1, 1, 80, 95};
        const std::string trace = random_trace(rng, o);
        Symbols syms;
        HbDetector hb;
        PlainDjit plain;
        Fanout both;
        both.add(hb), both.add(plain);
        const TraceResult res = read_trace_text(trace, "random.std", syms, both);
        INFO(trace);
        REQUIRE_MESSAGE(res.ok(), res.error->to_string());
        racy += !hb.races().empty();
        REQUIRE(hb.races().size() == plain.races().size());
        for (std::size_t k = 0; k < hb.races().size(); ++k) {
            const Race &a = hb.races()[k], &b = plain.races()[k];
            CHECK(a.var == b.var);
            CHECK(a.access.event == b.access.event);
            CHECK(a.with.event == b.with.event);
            CHECK(a.with.thread == b.with.thread);
            CHECK(a.with.op == b.with.op);
        }
    }
    MESSAGE("racy traces: " << racy);
    CHECK(racy > 400);
    CHECK(racy < 3600);
}

TEST_CASE("random traces: hb = fasttrack = goldilocks = oracle (10,000 traces)" * volume) {
    // Goldilocks twice: as configured, and catching up every few cells (docs/traces.md).
    int racy = 0, caught_up = 0;
    // Small and dense: races are common, and so are near misses through sync.
    run(1, 3000, {4, 2, 2, 2, 1, 30, 0}, &racy, &caught_up);
    // More threads and objects, longer traces.
    run(2, 2000, {6, 3, 2, 2, 2, 60, 0}, &racy, &caught_up);
    // Mostly lock-disciplined accesses: long happens-before chains through locks.
    run(3, 3000, {5, 3, 2, 1, 1, 60, 95}, &racy, &caught_up);
    // Many threads, few variables: fork/join sets, threads with no events.
    run(4, 2000, {10, 2, 1, 1, 1, 120, 50}, &racy, &caught_up);
    MESSAGE("racy traces: " << racy << ", with catch-ups: " << caught_up);
    CHECK(racy > 1000);
    CHECK(racy < 9000);
    CHECK(caught_up > 9000);
}
