// Thread slots (thread_slots.hpp, docs/traces.md "Cost"): a joined thread's slot goes to a later
// thread only when its forker knows all the joined thread did; clocks then stay as wide as the
// threads alive at once, and every analysis reports what it reported with a slot per thread.
#include "trace_test_util.hpp"

#include "sfg/runtime/determinism/analysis_singletrack.hpp"
#include "sfg/runtime/hb/sync_clocks.hpp"
#include "sfg/runtime/hb/thread_slots.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using namespace sfg;
using namespace sfg::testing;
using Races = std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>>;

namespace {

// Feeds the events of `text` to the clocks, with the thread names interned in order.
struct Clocks {
    Symbols syms;
    SyncClocks clocks;
    explicit Clocks(std::string_view text) {
        struct Sink : Analysis {
            SyncClocks* c;
            void on_event(const Event& e, const Symbols& s) override {
                if (!is_memory(e.op))
                    c->on_sync(e, s);
            }
        } sink;
        sink.c = &clocks;
        REQUIRE(read_trace_text(text, "t.std", syms, sink).ok());
    }
};

std::string pool(int tasks, bool join_before_fork) {
    std::string s;
    for (int i = 0; i < tasks; ++i) {
        const std::string w = "T" + std::to_string(i);
        s += "main|fork(" + w + ")\n" + w + "|acq(m)\n" + w + "|w(x)\n" + w + "|rel(m)\n";
        if (join_before_fork)
            s += "main|join(" + w + ")\n";
    }
    if (!join_before_fork)
        for (int i = 0; i < tasks; ++i)
            s += "main|join(T" + std::to_string(i) + ")\n";
    return s;
}

} // namespace

TEST_CASE("thread slots: a pool's workers, forked and joined in turn, share one slot") {
    Clocks c(pool(1000, true));
    CHECK(c.clocks.slots() == 2); // main and the worker of the moment
    CHECK(c.clocks.retired() == 999);
    // Every worker alive at once: a slot each.
    Clocks all(pool(100, false));
    CHECK(all.clocks.slots() == 101);
}

TEST_CASE("thread slots: a slot goes only to a thread whose forker knows its last thread's end") {
    // B joins A; C forks D without knowing A: D must not take A's slot, or A's write would look
    // ordered before D's (knowing D's epoch would mean knowing all of A).
    AllAnalyses a("A|w(x)\nB|join(A)\nC|fork(D)\nD|w(x)\n");
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"x", 4, 1}});
    Clocks c("A|w(x)\nB|join(A)\nC|fork(D)\nD|w(x)\n");
    CHECK(c.clocks.slots() == 4);
    // B forks D after joining A: D takes A's slot, and A's write is ordered before D's.
    AllAnalyses b("A|w(x)\nB|join(A)\nB|fork(D)\nD|w(x)\n");
    REQUIRE(b.result.ok());
    CHECK(b.agreed().empty());
    Clocks d("A|w(x)\nB|join(A)\nB|fork(D)\nD|w(x)\n");
    CHECK(d.clocks.slots() == 2);
}

TEST_CASE("thread slots: a second join of a thread whose slot was taken learns its final clock") {
    // A is joined by main, its slot goes to B; E joins A too, later: it learns A's write, not B's.
    const std::string text = "main|fork(A)\nA|w(x)\nA|w(y)\nmain|join(A)\nmain|fork(B)\n"
                             "B|w(y)\nE|join(A)\nE|r(x)\nE|r(y)\n";
    AllAnalyses a(text);
    REQUIRE(a.result.ok());
    CHECK(a.agreed() == Races{{"y", 9, 6}});
    Clocks c(text);
    CHECK(c.clocks.slots() == 3); // main, A then B, E
    CHECK(c.clocks.retired() == 1);
}

TEST_CASE("thread slots: 10^5 short-lived threads, every analysis, a slot or two") {
    std::string text;
    for (int i = 0; i < 100000; ++i) {
        const std::string w = "T" + std::to_string(i);
        text += "main|fork(" + w + ")\n" + w + "|acq(m)\n" + w + "|r(x)\n" + w + "|w(x)\n" + w +
                "|rel(m)\n" + w + "|w(r" + std::to_string(i % 64) + ")\nmain|join(" + w +
                ")\nmain|r(r" + std::to_string(i % 64) + ")\n";
    }
    text += "main|w(x)\n";
    AllAnalyses a(text);
    REQUIRE(a.result.ok());
    CHECK(a.agreed().empty());
    Symbols syms;
    SingleTrackDetector st;
    REQUIRE(read_trace_text(text, "t.std", syms, st).ok());
    CHECK(st.findings().empty());
    Clocks c(text);
    CHECK(c.clocks.slots() == 2);
}

TEST_CASE("retired clocks: a kept final clock is found as it was, zeros at the end dropped") {
    RetiredClocks r;
    std::mt19937 rng(5);
    std::vector<std::vector<Clock>> want(300);
    for (ThreadId t = 0; t < want.size(); t += 1 + rng() % 3) {
        VectorClock c;
        const std::uint32_t width = rng() % 12;
        for (std::uint32_t s = 0; s < width; ++s) {
            const Clock v = rng() % 4 == 0 ? 0 : rng() >> (rng() % 32);
            c.set(s, v);
        }
        std::vector<Clock> parts(c.components().begin(), c.components().end());
        while (!parts.empty() && parts.back() == 0)
            parts.pop_back();
        want[t] = parts;
        r.keep(t, c);
    }
    for (ThreadId t = 0; t < want.size(); ++t) {
        const auto found = r.find(t);
        if (want[t].empty() && !found)
            continue; // never kept
        REQUIRE(found);
        CHECK(std::vector<Clock>(found->begin(), found->end()) == want[t]);
    }
    CHECK_FALSE(r.find(1000));
}
