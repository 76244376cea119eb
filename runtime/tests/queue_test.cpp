// Hand-offs through a queue (thesis §5.1, q(o); docs/traces.md "Queues"): enq(q,o) / deq(q,o) in
// text, binary and parallel reading, well-formedness (no deq without a pending enq of the same
// q and o), happens-before from every enq(q,o) to every later deq(q,o) in hb, fasttrack and
// goldilocks against the brute-force oracle, singletrack (two ops on one queue conflict),
// eraser (neither lock nor access) and enforcement (enq the snd, deq the rcv of q on o).
#include "enforce_testlib.hpp"
#include "random_trace.hpp"
#include "soundness_check.hpp"

#include "sfg/runtime/determinism/analysis_singletrack.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <set>
#include <sstream>

using namespace sfg;
using namespace sfg::testlib;
using sfg::testing::Collector;
using sfg::testing::HbOracle;
using sfg::testing::random_trace;
using sfg::testing::RandomTraceOptions;

namespace {

std::string text_of(const std::vector<Event>& events, const Symbols& syms) {
    std::string out;
    for (const Event& e : events)
        out += format_event(e, syms) + "\n";
    return out;
}

// A pool (specs/extensions/work_queue.sfg): main fills the task and puts it in q, w1 takes it.
const char* pool =
    "main|w(task)\nmain|enq(q,task)\nw1|deq(q,task)\nw1|w(task)|Pool.java:7\nw1|enq(q,task)\n"
    "w2|deq(q,task)\nw2|r(task)\n";

} // namespace

TEST_CASE("enq(q,o) / deq(q,o): read, written and read again alike, text and binary") {
    Symbols syms;
    Collector col;
    const TraceResult r = read_trace_text(pool, "pool.std", syms, col);
    REQUIRE_MESSAGE(r.ok(), r.error->to_string());
    REQUIRE(col.events.size() == 7);
    CHECK(col.events[1].op == Op::enqueue);
    CHECK(col.events[2].op == Op::dequeue);
    CHECK(col.events[1].target == col.events[2].target); // one (q, task) item
    CHECK(syms.queues.name(syms.queue_items.queue(col.events[1].target)) == "q");
    CHECK(syms.vars.name(syms.queue_items.var(col.events[1].target)) == "task");
    CHECK(syms.vars.find("task") == col.events[0].target); // o is the variable
    CHECK(text_of(col.events, syms) == pool);

    std::ostringstream bin;
    BinaryTraceWriter w(bin);
    Symbols s0;
    REQUIRE(read_trace_text(pool, "pool.std", s0, w).ok());
    w.finish(s0);
    Symbols s1;
    Collector back;
    const TraceResult rb = read_trace_binary(bin.str(), "pool.sfgt", s1, back);
    REQUIRE_MESSAGE(rb.ok(), rb.error->to_string());
    CHECK(text_of(back.events, s1) == pool);
    CHECK(sfg::testing::same(s1, syms));
}

TEST_CASE("enq/deq operands: both names, nothing else, at line:col") {
    auto error = [](const std::string& line) {
        Symbols syms;
        Collector col;
        const TraceResult r = read_trace_text("T0|w(x)\n" + line + "\n", "t.std", syms, col);
        return r.ok() ? std::string() : r.error->to_string();
    };
    CHECK(error("T0|enq(q)") ==
          "t.std:2:9: error: 'enq' takes a queue and a variable: expected ','");
    CHECK(error("T0|enq(q,x,y)") == "t.std:2:11: error: 'enq' takes two operands");
    CHECK(error("T0|deq(q,)").find("t.std:2:10: error: expected a variable name") == 0);
    CHECK(error("T0|enq(q,x)").empty());
}

TEST_CASE("deq without a pending enq of the same queue and object is ill-formed") {
    auto error = [](const std::string& text) {
        Symbols syms;
        Collector col;
        const TraceResult r = read_trace_text(text, "t.std", syms, col);
        return r.ok() ? std::string() : r.error->to_string();
    };
    CHECK(error("T0|deq(q,x)\n") ==
          "t.std:1:1: error: thread T0 takes x out of queue q, which holds no x put in before");
    // Counted per (q, o): two enq allow two deq, not three; another queue or object is apart.
    CHECK(error("T0|enq(q,x)\nT0|enq(q,x)\nT1|deq(q,x)\nT1|deq(q,x)\n").empty());
    CHECK(error("T0|enq(q,x)\nT1|deq(q,x)\nT1|deq(q,x)\n").find("t.std:3:1: error:") == 0);
    CHECK(error("T0|enq(q,x)\nT1|deq(r,x)\n").find("t.std:2:1: error:") == 0);
    CHECK(error("T0|enq(q,x)\nT1|deq(q,y)\n").find("t.std:2:1: error:") == 0);
}

TEST_CASE("random traces with queues: read in parallel and from binary, the same events") {
    std::mt19937_64 rng(91);
    for (int i = 0; i < 300; ++i) {
        RandomTraceOptions o;
        o.queues = 30;
        o.events = 60;
        const std::string trace = random_trace(rng, o);
        INFO(trace);
        Symbols s0, s1, s2;
        Collector c0, c1, c2;
        REQUIRE(read_trace_text(trace, "r.std", s0, c0).ok());
        REQUIRE(read_trace_text_parallel(trace, "r.std", s1, c1, {2, 64}).ok());
        CHECK(sfg::testing::same(s0, s1));
        REQUIRE(c0.events.size() == c1.events.size());
        for (std::size_t k = 0; k < c0.events.size(); ++k)
            CHECK(sfg::testing::same(c0.events[k], c1.events[k]));
        std::ostringstream bin;
        BinaryTraceWriter w(bin);
        Symbols sw;
        REQUIRE(read_trace_text(trace, "r.std", sw, w).ok());
        w.finish(sw);
        REQUIRE(read_trace_binary(bin.str(), "r.sfgt", s2, c2).ok());
        CHECK(text_of(c2.events, s2) == text_of(c0.events, s0));
    }
}

TEST_CASE("hb = fasttrack = goldilocks = the oracle on random traces with queues") {
    std::mt19937_64 rng(17);
    int racy = 0, ordered_by_queue = 0;
    for (int i = 0; i < 3000; ++i) {
        RandomTraceOptions o;
        o.queues = 25;
        o.locks = i % 3 == 0 ? 0 : 1;
        o.volatiles = i % 2;
        o.events = 50;
        const std::string trace = random_trace(rng, o);
        Symbols syms;
        Collector col;
        HbDetector hb;
        FastTrackDetector ft;
        GoldilocksDetector gl;
        GoldilocksDetector eager(2 + static_cast<std::uint64_t>(i % 5));
        Fanout all;
        all.add(col), all.add(hb), all.add(ft), all.add(gl), all.add(eager);
        INFO(trace);
        const TraceResult r = read_trace_text(trace, "random.std", syms, all);
        REQUIRE_MESSAGE(r.ok(), r.error->to_string());
        HbOracle oracle(col.events, syms);
        const auto want = oracle.first_races();
        racy += !want.empty();
        for (const RaceDetector* d :
             {static_cast<const RaceDetector*>(&hb), static_cast<const RaceDetector*>(&ft),
              static_cast<const RaceDetector*>(&gl), static_cast<const RaceDetector*>(&eager)}) {
            REQUIRE(d->races().size() == want.size());
            for (const Race& race : d->races()) {
                const auto it = want.find(race.var);
                REQUIRE(it != want.end());
                CHECK(race.access.event == it->second.event);
                const auto& w = it->second.with;
                CHECK(std::find(w.begin(), w.end(), race.with.event) != w.end());
            }
        }
        // Accesses of one variable by two threads that only a queue orders.
        for (std::size_t j = 0; j < col.events.size(); ++j)
            for (std::size_t k = 0; k < j; ++k)
                if (col.events[k].op == Op::enqueue && col.events[j].op == Op::dequeue &&
                    col.events[k].thread != col.events[j].thread &&
                    col.events[k].target == col.events[j].target)
                    ++ordered_by_queue;
    }
    MESSAGE("racy traces " << racy << ", cross-thread enq -> deq pairs " << ordered_by_queue);
    CHECK(racy > 300);
    CHECK(ordered_by_queue > 1000);
}

TEST_CASE("a queue orders its hand-off: no race through it, a race around it") {
    auto races = [](const std::string& text) {
        Symbols syms;
        HbDetector hb;
        REQUIRE(read_trace_text(text, "t.std", syms, hb).ok());
        return hb.races().size();
    };
    CHECK(races(pool) == 0);
    // Another object through the queue orders what came before its enq, and only that.
    CHECK(races("T0|w(x)\nT0|enq(q,y)\nT1|deq(q,y)\nT1|w(x)\n") == 0);
    CHECK(races("T0|enq(q,y)\nT0|w(x)\nT1|deq(q,y)\nT1|w(x)\n") == 1);
    // Nor does a deq before the enq (the enq of an earlier round).
    CHECK(races("T0|enq(q,x)\nT1|deq(q,x)\nT1|w(x)\nT0|w(x)\nT0|enq(q,x)\n") == 1);
}

TEST_CASE("singletrack: two ops on one queue in a block conflict, named after the queue") {
    Symbols syms;
    SingleTrackDetector st;
    const TraceResult r = read_trace_text("T0|begin\nT0|fork(T1,T2)\nT1|enq(q,x)\nT2|enq(q,y)\n"
                                          "T0|join(T1,T2)\nT0|end\n",
                                          "t.std", syms, st);
    REQUIRE_MESSAGE(r.ok(), r.error->to_string());
    REQUIRE(st.findings().size() == 1);
    CHECK(st.findings()[0].kind == FindingKind::conflict);
    CHECK(st.findings()[0].var == "q");
    CHECK(st.findings()[0].message.find("inside a block queue q orders nothing") !=
          std::string::npos);
    // Two queues: no conflict.
    Symbols s2;
    SingleTrackDetector st2;
    REQUIRE(read_trace_text("T0|begin\nT0|fork(T1,T2)\nT1|enq(q,x)\nT2|enq(r,x)\n"
                            "T0|join(T1,T2)\nT0|end\n",
                            "t.std", s2, st2)
                .ok());
    CHECK(st2.findings().empty());
}

TEST_CASE("eraser: enq/deq are neither locks nor accesses") {
    Symbols syms;
    EraserDetector eraser;
    REQUIRE(read_trace_text(pool, "pool.std", syms, eraser).ok());
    // task is shared and written without a lock: the lockset discipline warns, queue or not.
    REQUIRE(eraser.warnings().size() == 1);
    CHECK(syms.vars.name(eraser.warnings()[0].var) == "task");
    CHECK(eraser.warnings()[0].held.empty());
}

namespace {

// The first violation of `var` (0: admitted) by the enforcers, which must agree with Figure 4.15
// applied literally; the default enforcer's explanation in `why`.
std::uint64_t first_violation(const std::vector<std::pair<std::string, Net>>& nets,
                              const std::string& text, const std::string& var,
                              std::string* why = nullptr) {
    Enforcer enf;
    Enforcer plain({.group_one_token = false, .factor_candidates = false});
    RefEnforcer ref;
    for (const auto& [x, n] : nets) {
        enf.add_variable(x, n);
        plain.add_variable(x, n);
        ref.add_variable(x, n);
    }
    Symbols syms;
    Fanout all;
    all.add(enf), all.add(plain), all.add(ref);
    const TraceResult r = read_trace_text(text, "t.std", syms, all);
    REQUIRE_MESSAGE(r.ok(), r.error->to_string());
    auto first = [&](const Enforcer& e) {
        for (const EnforceViolation& v : e.violations())
            if (v.var == var) {
                if (why && &e == &enf)
                    *why = explain(v);
                return v.event;
            }
        return std::uint64_t{0};
    };
    const std::uint64_t mine = first(enf);
    CHECK(mine == ref.first_violation(var));
    CHECK(first(plain) == mine);
    return mine;
}

// specs/extensions/work_queue.sfg: EX(main) ▷^q [EX(w1) ⊔ EX(w2)]^q.
Net work_queue() {
    return build_petri_net(seq(EX("main"), queue("q"), loop(alt(EX("w1"), EX("w2")), queue("q"))));
}

} // namespace

TEST_CASE("work queue: the pool admitted; a worker touching a task it has not taken violates") {
    CHECK(first_violation({{"task", work_queue()}}, pool, "task") == 0);
    std::string why;
    // w2 writes the task while w1 holds it (w1 took it out, has not put it back).
    CHECK(
        first_violation({{"task", work_queue()}},
                        "main|w(task)\nmain|enq(q,task)\nw1|deq(q,task)\nw1|w(task)\nw2|w(task)\n",
                        "task", &why) == 5);
    CHECK(why.find("enq(q,task)") != std::string::npos);
    CHECK(why.find("deq(q,task)") != std::string::npos);
    // Taking another object out of q does not hand over the task.
    CHECK(first_violation({{"task", work_queue()}, {"other", work_queue()}},
                          "main|w(task)\nmain|enq(q,other)\nw1|deq(q,other)\nw1|w(task)\n",
                          "task") == 4);
}

// Soundness with queue labels (as Theorem 4.2.2): on random traces with enq/deq, a variable the
// enforcer admits is race-free by the brute-force oracle, and every enforcer reports the first
// violation Figure 4.15 does.
TEST_CASE("random traces (5,000) with queue labels: admitted implies race-free" * volume) {
    std::mt19937_64 rng(23);
    SoundnessCounts counts;
    const auto queued = [](const Net& n) {
        return std::ranges::any_of(
            n.edges, [](const ModeEdge& e) { return e.mech.kind == MechKind::queue; });
    };
    for (int i = 0; i < 5000; ++i) {
        RandomTraceOptions o;
        o.threads = 2 + i % 3;
        o.vars = 2;
        o.locks = 1;
        o.volatiles = 1;
        o.barriers = 0;
        o.events = 40;
        o.queues = 30;
        RandomDisciplines gen{rng, o.threads, o.locks, o.volatiles};
        auto mech = [&]() -> Mechanism {
            switch (gen.pick(4)) {
            case 0:
                return lock("m0");
            case 1:
                return vol("v0");
            default:
                return queue("q" + std::to_string(gen.pick(2)));
            }
        };
        std::vector<std::pair<std::string, Net>> vars;
        for (int x = 0; x < o.vars; ++x)
            vars.emplace_back("x" + std::to_string(x),
                              build_petri_net(gen.disc(1 + gen.pick(2), mech)));
        check_admitted_race_free(vars, random_trace(rng, o), queued, counts);
    }
    MESSAGE("admitted variables accessed by 2+ threads "
            << counts.admitted_shared << " (with queue labels: " << counts.admitted_flagged
            << "), violated " << counts.violated);
    WARN(counts.admitted_flagged > 0);
    CHECK(counts.violated > 500);
}

// Random pools: tasks x0.. start with T0, pass from thread to thread only through q, each
// touched by its owner (and, now and then, by a thread that does not own it). Checked against
// EX(T0) ▷^q [EX(T0) ⊔ ... ⊔ EX(Tn)]^q: the enforcers agree with Figure 4.15, admit every trace
// whose tasks are touched by their owners only, and what they admit is race-free.
TEST_CASE("random pools through a queue (2,000): owners admitted, thieves caught, sound" * volume) {
    std::mt19937_64 rng(5);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    int admitted = 0, stolen = 0;
    for (int i = 0; i < 2000; ++i) {
        const int threads = 2 + i % 3, tasks = 1 + i % 3;
        const bool thieves = i % 2 == 1;
        std::vector<std::string> all;
        for (int t = 0; t < threads; ++t)
            all.push_back("T" + std::to_string(t));
        Discipline workers = EX("T0");
        for (int t = 1; t < threads; ++t)
            workers = alt(workers, EX(all[static_cast<std::size_t>(t)]));
        const Net net = build_petri_net(seq(EX("T0"), queue("q"), loop(workers, queue("q"))));
        std::vector<std::pair<std::string, Net>> nets;
        for (int x = 0; x < tasks; ++x)
            nets.emplace_back("x" + std::to_string(x), net);
        // owner[x]: the thread that holds task x; -1 while it is in q.
        std::vector<int> owner(static_cast<std::size_t>(tasks), 0);
        std::string text;
        bool stole = false;
        for (int t = 1; t < threads; ++t)
            text += "T0|fork(T" + std::to_string(t) + ")\n";
        for (int step = 0; step < 30; ++step) {
            const int x = pick(tasks);
            const std::string X = "x" + std::to_string(x);
            int& o = owner[static_cast<std::size_t>(x)];
            const int t = pick(threads);
            const std::string T = all[static_cast<std::size_t>(t)];
            if (o < 0) {
                text += T + "|deq(q," + X + ")\n";
                o = t;
            } else if (o == t) {
                text += T + (pick(3) == 0 ? "|enq(q," + X + ")\n" : "|w(" + X + ")\n");
                if (text.ends_with("enq(q," + X + ")\n"))
                    o = -1;
            } else if (thieves && pick(4) == 0) {
                text += T + "|w(" + X + ")\n"; // a thread touching a task it has not taken
                stole = true;
            } else {
                text += all[static_cast<std::size_t>(o)] + "|r(" + X + ")\n";
            }
        }
        INFO(text);
        Symbols syms;
        Collector col;
        REQUIRE(read_trace_text(text, "pool.std", syms, col).ok());
        const auto races = HbOracle(col.events, syms).first_races();
        bool any = false;
        for (int x = 0; x < tasks; ++x) {
            const std::string X = "x" + std::to_string(x);
            const std::uint64_t v = first_violation(nets, text, X);
            any = any || v != 0;
            const ObjId id = syms.vars.find(X);
            if (v == 0 && id != no_object)
                CHECK(races.count(id) == 0);
        }
        if (!stole)
            CHECK_FALSE(any); // owners only: admitted
        admitted += !any;
        stolen += stole && any;
    }
    MESSAGE("admitted " << admitted << ", thefts caught " << stolen);
    CHECK(admitted > 900);
    CHECK(stolen > 300);
}
