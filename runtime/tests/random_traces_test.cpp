// hb = fasttrack = goldilocks = the brute-force oracle (docs/traces.md) on random well-formed
// traces: the same first racy event for every variable, and a with_event that really races.
#include "random_trace.hpp"
#include "sfg/runtime/analysis_fasttrack.hpp"
#include "sfg/runtime/analysis_goldilocks.hpp"
#include "sfg/runtime/analysis_hb.hpp"

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

void run(std::uint64_t seed, int count, const RandomTraceOptions& o, int* racy) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < count; ++i) {
        std::string trace = random_trace(rng, o);
        Symbols syms;
        Collector col;
        HbDetector hb;
        FastTrackDetector ft;
        GoldilocksDetector gl;
        Fanout all;
        all.add(col), all.add(hb), all.add(ft), all.add(gl);
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
    }
}

} // namespace

TEST_CASE("random traces: hb = fasttrack = goldilocks = oracle (10,000 traces)") {
    int racy = 0;
    // Small and dense: races are common, and so are near misses through sync.
    run(1, 3000, {4, 2, 2, 2, 1, 30, 0}, &racy);
    // More threads and objects, longer traces.
    run(2, 2000, {6, 3, 2, 2, 2, 60, 0}, &racy);
    // Mostly lock-disciplined accesses: long happens-before chains through locks.
    run(3, 3000, {5, 3, 2, 1, 1, 60, 95}, &racy);
    // Many threads, few variables: fork/join sets, threads with no events.
    run(4, 2000, {10, 2, 1, 1, 1, 120, 50}, &racy);
    MESSAGE("racy traces: " << racy);
    CHECK(racy > 1000);
    CHECK(racy < 9000);
}
