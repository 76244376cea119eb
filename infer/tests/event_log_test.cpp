// The check replays each trace from the events its one pass kept (EventLog, docs/infer.md): the
// replay hands every sink exactly the events of the pass.
#include "random_trace.hpp"

#include "sfg/infer/check.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <random>
#include <tuple>

using namespace sfg;

namespace {

struct Collect : Analysis {
    std::vector<Event> events;
    void on_event(const Event& e, const Symbols&) override { events.push_back(e); }
};

auto fields(const Event& e) {
    return std::tuple(e.number, e.thread, e.op, e.implicit, e.target, e.location, e.line,
                      e.value_id);
}

void same_events(const std::string& text) {
    Symbols syms;
    Collect read;
    infer::EventLog log;
    Fanout both;
    both.add(read), both.add(log);
    REQUIRE(read_trace_text(text, "t.std", syms, both).ok());
    Collect replayed;
    log.replay(syms, replayed);
    REQUIRE(replayed.events.size() == read.events.size());
    for (std::size_t i = 0; i < read.events.size(); ++i)
        CHECK(fields(replayed.events[i]) == fields(read.events[i]));
}

} // namespace

TEST_CASE("EventLog: the replay is the pass, event for event") {
    // Locations, comments and blank lines between events (lines that do not follow), values,
    // forks and joins with their implicit starts and ends, queues, barriers.
    same_events("main|w(x)|a.cpp:3\n# a comment\n\nmain|fork(a,b)\na|vw(v=-7)\nb|vr(v=-7)|here\n"
                "a|enq(q,x)\nb|deq(q,x)\na|benter(c)\nb|benter(c)\na|bexit(c)\nb|bexit(c)\n"
                "b|acq(m)\nb|r(x)\nb|rel(m)\nmain|join(a,b)\nmain|r(x)\n");
    std::mt19937_64 rng(5);
    for (int i = 0; i < 50; ++i)
        same_events(testing::random_trace(rng, {.values = 50, .queues = 10}));
}

// The sync logs keep the low word of each event number (SyncLog::Events): numbers past 2^32,
// those of the longest traces, keep their high words, and the searches see whole numbers.
TEST_CASE("SyncLog events: numbers past 2^32 keep their high words") {
    const std::uint64_t big = std::uint64_t{1} << 32;
    const std::vector<std::uint64_t> numbers = {5, big - 1, big + 3, 3 * big + 2, 3 * big + 9};
    infer::SyncLog::Events ev;
    for (std::uint64_t n : numbers)
        ev.push_back(n);
    REQUIRE(ev.size() == numbers.size());
    for (std::size_t i = 0; i < numbers.size(); ++i)
        CHECK(ev[i] == numbers[i]);
    CHECK(ev.first_above(big - 1, false) == 2);
    CHECK(ev.first_above(big - 1, true) == 1);
    CHECK(ev.first_above(2 * big, false) == 3);
    CHECK(ev.first_above(3 * big + 9, false) == 5);
    CHECK(ev.first_above(0, false) == 0);
}
