// singletrack on the test vectors built from SingleTrack's examples (docs/determinism.md), on
// Figure 4 as printed (whose reset at `begin` misses a conflict), and against the definitions by
// brute force on random traces.
#include "singletrack_testlib.hpp"
#include "volume.hpp"

#include "sfg/runtime/analyses.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <random>

using namespace sfg;
using namespace sfg::testing;

namespace {

enum class Verdict { pass, conflict, cycle };

struct Vector {
    const char* id;
    const char* trace;
    Verdict verdict;
    int at = -1;    // conflict: the token of the first conflicting event
    int blocks = 1; // cycle: the blocks on it (one finding each)
};

// The 21 vectors (tokens numbered from 0, as in the notation).
const Vector vectors[] = {
    {"QS1",
     "0:begin 0:acq(A) PART 0:fork(1) 0:fork(2) 1:rd(a0) 2:rd(a3) 1:rd(a1) 2:rd(a4) 1:wr(a0) "
     "2:wr(a3) 1:wr(a1) 2:wr(a4) 1:stop 2:stop 0:join(1) 0:join(2) 0:rel(A) 0:end",
     Verdict::pass},
    {"QS2",
     "0:begin 0:acq(A) PART 0:fork(1) 0:fork(2) 1:rd(a0) 1:rd(a1) 2:rd(a1) 1:wr(a1) 2:wr(a3) "
     "1:stop 2:stop 0:join(1) 0:join(2) 0:rel(A) 0:end",
     Verdict::conflict, 17},
    {"QS3",
     "0:fork(1) 0:fork(2) 1:begin 1:acq(A) 1:wr(a0) 1:fork(3) 2:begin 3:wr(a0) 3:stop 1:join(3) "
     "1:rel(A) 1:end 2:acq(A) 2:wr(a0) 2:fork(4) 4:wr(a0) 4:stop 2:join(4) 2:rel(A) 2:end",
     Verdict::pass},
    {"QS4",
     "0:begin PART 0:fork(1) 0:fork(2) 9:wr(a3) 2:rd(a3) 1:rd(a0) 1:stop 2:stop 0:join(1) "
     "0:join(2) 0:end",
     Verdict::cycle},
    {"BAR1",
     "0:begin 0:fork(1) 0:fork(2) 0:rd(a0) 1:rd(a0) 2:rd(a0) 0:rd(a1) 1:rd(a1) 2:rd(a1) 0:rd(a2) "
     "1:rd(a2) 2:rd(a2) 0:bar(0,1,2) 1:wr(a1) 0:wr(a2) 2:wr(a0) 0:bar(0,1,2) 1:rd(a0) 2:rd(a1) "
     "0:rd(a2) 1:stop 2:stop 0:end",
     Verdict::pass},
    {"BAR2",
     "0:begin 0:fork(1) 0:fork(2) 0:rd(a0) 1:rd(a0) 2:rd(a0) 0:rd(a1) 1:rd(a1) 2:rd(a1) 1:wr(a1) "
     "0:rd(a2) 1:rd(a2) 2:rd(a2) 0:wr(a2) 2:wr(a0) 0:bar(0,1,2) 1:stop 2:stop 0:end",
     Verdict::conflict, 9},
    {"BAR3",
     "0:begin 0:fork(1) 1:acq(B) 1:wr(cnt) 1:rel(B) 0:acq(B) 0:wr(cnt) 0:rel(B) 1:stop "
     "0:join(1) 0:end",
     Verdict::conflict, 5},
    {"BARX", "0:fork(1) 0:begin 1:begin 0:wr(x) 1:wr(y) 0:bar(0,1) 0:rd(y) 1:rd(x) 0:end 1:end",
     Verdict::cycle, -1, 2},
    {"POOL1",
     "0:fork(1) 0:fork(2) 0:acq(Q) 0:wr(q) 0:rel(Q) 0:acq(Q) 0:wr(q) 0:rel(Q) 1:acq(Q) 1:rd(q) "
     "1:wr(q) 1:rel(Q) 2:acq(Q) 2:rd(q) 2:wr(q) 2:rel(Q) 1:begin 2:begin 1:wr(r1) 2:wr(r2) "
     "2:end 1:end",
     Verdict::pass},
    {"POOL2",
     "0:fork(1) 0:fork(2) 1:begin 2:begin 1:rd(sum) 2:rd(sum) 2:wr(sum) 1:wr(sum) 2:end 1:end",
     Verdict::cycle, -1, 2},
    {"POOL3",
     "0:fork(1) 0:fork(2) 1:begin 2:begin 1:acq(S) 1:rd(sum) 1:wr(sum) 1:rel(S) 2:acq(S) "
     "2:rd(sum) 2:wr(sum) 2:rel(S) 2:end 1:end",
     Verdict::pass},
    {"ATOM1", "0:begin 0:rd(x) 1:wr(x) 0:wr(x) 0:end", Verdict::cycle},
    {"ATOM2", "0:begin 0:rd(x) 1:wr(y) 0:wr(x) 0:end", Verdict::pass},
    {"ATOM3",
     "0:begin 1:begin 0:acq(m) 0:wr(x) 0:rel(m) 1:acq(m) 1:wr(x) 1:rel(m) 0:acq(m) 0:rd(x) "
     "0:rel(m) 1:end 0:end",
     Verdict::cycle, -1, 2},
    {"VOL1", "0:begin 0:fork(1) 0:wr(data) 0:wr(flag) 1:rd(flag) 1:rd(data) 1:stop 0:join(1) 0:end",
     Verdict::conflict, 4},
    {"SUM1",
     "0:begin 0:fork(1) 0:fork(2) 1:acq(L) 1:rd(sum) 1:wr(sum) 1:rel(L) 2:acq(L) 2:rd(sum) "
     "2:wr(sum) 2:rel(L) 1:stop 2:stop 0:join(1) 0:join(2) 0:end",
     Verdict::conflict, 7},
    {"SUM2",
     "0:begin 0:fork(1) 0:fork(2) 1:wr(p1) 2:wr(p2) 1:stop 2:stop 0:join(1) 0:join(2) 0:rd(p1) "
     "0:rd(p2) 0:wr(sum) 0:end",
     Verdict::pass},
    {"OUT1", "0:fork(1) 0:wr(x) 1:wr(x) 1:rd(x) 0:rd(x)", Verdict::pass},
    {"LIVE1", "0:begin 0:fork(1) 0:end 0:wr(x) 1:rd(x) 1:stop", Verdict::cycle},
    {"LIVE2", "0:begin 0:fork(1) 0:end 1:wr(x) 1:stop 0:join(1) 0:rd(x)", Verdict::pass},
    {"RESET",
     "0:begin 0:fork(1) 0:fork(2) 1:stop 2:stop 0:end 0:begin 0:fork(3) 3:join(2) 0:wr(x) "
     "3:rd(x) 3:stop 0:join(3) 0:end",
     Verdict::conflict, 10},
};

// Figure 4 exactly as printed (vector clocks, state by (object, transaction id), no epochs), over
// the notation; `reset` as printed (C(t) := inc_t(c0) at begin) or with the tick. The token of
// the first failing check, or -1.
int figure4(const std::string& notation, bool reset) {
    using VC = std::map<std::string, unsigned>;
    auto leq = [](const VC& a, const VC& b) {
        for (const auto& [t, c] : a) {
            auto it = b.find(t);
            if (c > (it == b.end() ? 0u : it->second))
                return false;
        }
        return true;
    };
    auto join = [](VC& a, const VC& b) {
        for (const auto& [t, c] : b)
            a[t] = std::max(a[t], c);
    };
    std::map<std::string, int> X; // 0: ⊥
    std::map<std::string, VC> C;
    std::map<std::pair<std::string, int>, VC> U, R, W;
    int fresh = 0;
    auto clock = [&](const std::string& t) -> VC& {
        if (!C.count(t))
            C[t][t] = 1;
        return C[t];
    };
    const Notation n = from_notation("");
    std::string text = notation;
    std::string part;
    for (int i = 0; i < 5; ++i)
        part += " 0:rd(a" + std::to_string(i) + ") 0:wr(a" + std::to_string(i) + ")";
    for (std::size_t p; (p = text.find("PART")) != std::string::npos;)
        text.replace(p, 4, part.substr(1));
    std::istringstream in(text);
    int index = 0;
    for (std::string tok; in >> tok; ++index) {
        const std::size_t colon = tok.find(':');
        const std::string t = tok.substr(0, colon);
        std::string op = tok.substr(colon + 1), arg;
        if (std::size_t p = op.find('('); p != std::string::npos) {
            arg = op.substr(p + 1, op.size() - p - 2);
            op = op.substr(0, p);
        }
        VC& c = clock(t);
        const int w = X[t];
        if (op == "begin") {
            X[t] = ++fresh;
            if (reset)
                c = VC{{t, 1}};
            else
                ++c[t];
        } else if (op == "end") {
            X[t] = 0;
        } else if (op == "fork") {
            X[arg] = w;
            VC child = c;
            ++child[arg];
            C[arg] = child;
            ++clock(t)[t];
        } else if (op == "join") {
            VC other = clock(arg);
            join(clock(t), other);
        } else if (w && op == "acq") {
            if (!leq(U[{arg, w}], c))
                return index;
        } else if (w && op == "rel") {
            U[{arg, w}] = c;
        } else if (w && op == "rd") {
            if (!leq(W[{arg, w}], c))
                return index;
            join(R[{arg, w}], c);
        } else if (w && op == "wr") {
            if (!leq(W[{arg, w}], c) || !leq(R[{arg, w}], c))
                return index;
            W[{arg, w}] = c;
        }
    }
    return -1;
}

// Traces from random_trace with well-formed blocks: its `begin`/`end` lines are dropped where a
// thread's own block would nest or be missing, and more are added (not before a `bexit`, which
// must follow its `benter`).
std::string with_blocks(std::mt19937_64& rng, const std::string& trace, int percent) {
    std::map<std::string, bool> open;
    std::string out;
    std::istringstream in(trace);
    for (std::string line; std::getline(in, line);) {
        const std::string t = line.substr(0, line.find('|'));
        const std::string op =
            line.substr(t.size() + 1, line.find_first_of("(|", t.size() + 1) - t.size() - 1);
        if (op == "begin" || op == "end") {
            if ((op == "begin") == open[t])
                continue;
            open[t] = op == "begin";
            out += line + "\n";
            continue;
        }
        if (op != "bexit" && static_cast<int>(rng() % 100) < percent) {
            out += t + (open[t] ? "|end\n" : "|begin\n");
            open[t] = !open[t];
        }
        out += line + "\n";
    }
    return out;
}

} // namespace

TEST_CASE("singletrack: the 21 test vectors") {
    for (const Vector& v : vectors) {
        INFO(std::string(v.id));
        const Notation n = from_notation(v.trace);
        SingleTrackRun run(n.trace);
        REQUIRE(run.result.ok());
        REQUIRE(!run.st.error());
        const auto conflicts = run.of(FindingKind::conflict);
        const auto cycles = run.of(FindingKind::cycle);
        switch (v.verdict) {
        case Verdict::pass:
            CHECK(run.st.findings().empty());
            break;
        case Verdict::conflict:
            REQUIRE(conflicts.size() == 1);
            CHECK(conflicts[0]->access.event == n.event_of[static_cast<std::size_t>(v.at)]);
            CHECK(cycles.empty());
            break;
        case Verdict::cycle:
            CHECK(conflicts.empty());
            REQUIRE(cycles.size() == static_cast<std::size_t>(v.blocks));
            for (const Finding* c : cycles) {
                CHECK(c->cycle.size() >= 2);
                CHECK(std::count(c->cycle.begin(), c->cycle.end(), *c->block) == 1);
            }
            break;
        }
    }
}

TEST_CASE("singletrack: reports name both events, the block and the cycle's edges") {
    // QS2: 1:wr(a1) conflicts with 2:rd(a1), unordered (two children of one block).
    SingleTrackRun qs2(from_notation("0:begin 0:acq(A) PART 0:fork(1) 0:fork(2) 1:rd(a0) 1:rd(a1) "
                                     "2:rd(a1) 1:wr(a1) 2:wr(a3) 1:stop 2:stop 0:join(1) "
                                     "0:join(2) 0:rel(A) 0:end")
                           .trace);
    REQUIRE(qs2.st.findings().size() == 1);
    const Finding& c = qs2.st.findings()[0];
    CHECK(c.var == "a1");
    CHECK(c.block == std::optional<std::uint64_t>(1));
    CHECK(c.access.event == 18);
    CHECK(qs2.syms.threads.name(c.access.thread) == "T1");
    CHECK(c.access.op == Op::write);
    REQUIRE(c.with);
    CHECK(c.with->event == 17);
    CHECK(qs2.syms.threads.name(c.with->thread) == "T2");
    CHECK(c.with->op == Op::read);
    CHECK(c.message.find("program order, fork, join or a barrier") != std::string::npos);

    // SUM1: the lock orders nothing inside the block, and the report says so.
    SingleTrackRun sum1(from_notation(vectors[15].trace).trace);
    REQUIRE(sum1.st.findings().size() == 1);
    CHECK(sum1.st.findings()[0].var == "L");
    CHECK(sum1.st.findings()[0].message.find("lock L orders nothing") != std::string::npos);

    // ATOM1: T0's block (event 1) and T1's write (event 3), closed by T0's write (event 4).
    SingleTrackRun atom1(from_notation("0:begin 0:rd(x) 1:wr(x) 0:wr(x) 0:end").trace);
    REQUIRE(atom1.st.findings().size() == 1);
    const Finding& y = atom1.st.findings()[0];
    CHECK(y.kind == FindingKind::cycle);
    CHECK(y.access.event == 4);
    CHECK(y.block == std::optional<std::uint64_t>(1));
    CHECK(y.cycle == std::vector<std::uint64_t>{1, 3});
    CHECK(y.message.find("1 -> 3 (event 2 before event 3), 3 -> 1 (event 3 before event 4)") !=
          std::string::npos);
    // POOL2: one finding for each of the two blocks of the lost update, at the same event.
    SingleTrackRun pool2(from_notation(vectors[9].trace).trace);
    const auto both = pool2.of(FindingKind::cycle);
    REQUIRE(both.size() == 2);
    CHECK(both[0]->access.event == both[1]->access.event);
    CHECK(*both[0]->block == 3);
    CHECK(*both[1]->block == 4);
}

TEST_CASE("singletrack: Figure 4 as printed resets clocks at begin and misses RESET's conflict") {
    const char* reset = vectors[20].trace;
    CHECK(figure4(reset, true) == -1); // the paper's rule: passes
    CHECK(figure4(reset, false) == 10);
    // Every other vector without a barrier (Figure 4 has no rule for them): Figure 4 with the
    // tick finds the same first conflict as singletrack (it assumes locks released inside their
    // block, which these are), and so does Figure 4 as printed.
    for (const Vector& v : vectors) {
        INFO(std::string(v.id));
        if (std::string(v.trace).find("bar(") != std::string::npos)
            continue;
        CHECK(figure4(v.trace, false) == (v.verdict == Verdict::conflict ? v.at : -1));
        if (std::string(v.id) != "RESET")
            CHECK(figure4(v.trace, true) == figure4(v.trace, false));
    }
}

TEST_CASE("singletrack: nested begin and stray end are ill-formed") {
    SingleTrackRun nested("T0|begin\nT0|w(x)\nT0|begin\n");
    REQUIRE(nested.st.error());
    CHECK(nested.st.error()->event == 3);
    CHECK(nested.st.error()->line == 3);
    CHECK(nested.st.error()->message.find("inside its own block of event 1") != std::string::npos);
    SingleTrackRun stray("T0|w(x)\nT0|end\n");
    REQUIRE(stray.st.error());
    CHECK(stray.st.error()->event == 2);
    // A thread forked inside a block may open its own: it is part of the enclosing one.
    SingleTrackRun child("T0|begin\nT0|fork(T1)\nT1|begin\nT1|w(x)\nT1|end\nT0|r(x)\nT0|end\n");
    CHECK(!child.st.error());
    REQUIRE(child.st.findings().size() == 1);
    CHECK(child.st.findings()[0].block == std::optional<std::uint64_t>(1));
    // The registry's analysis reports it as a stream error.
    std::unique_ptr<RunningAnalysis> a = make_analysis("singletrack");
    Symbols syms;
    REQUIRE(read_trace_text("T0|end\n", "t.std", syms, a->analysis()).ok());
    CHECK(a->stream_error());
    a->reset();
    CHECK(!a->stream_error());
}

TEST_CASE("singletrack = the definitions, by brute force, on random traces (4,000)" * volume) {
    std::mt19937_64 rng(20261124);
    int conflicts = 0, cycles = 0;
    // SFG_ST_TRACES=N runs N traces instead (a longer soak).
    const char* soak = std::getenv("SFG_ST_TRACES");
    const int traces = soak ? std::atoi(soak) : 4000;
    for (int k = 0; k < traces; ++k) {
        RandomTraceOptions o;
        o.threads = 2 + static_cast<int>(rng() % 4);
        o.vars = 1 + static_cast<int>(rng() % 3);
        o.events = 10 + static_cast<int>(rng() % 40);
        if (k % 4 == 3) { // more threads at two barriers, one lock, one volatile
            o.threads = 4 + static_cast<int>(rng() % 4);
            o.barriers = 2;
            o.locks = 1;
            o.volatiles = 1;
        }
        const std::string trace = with_blocks(rng, random_trace(rng, o), 15);
        SingleTrackRun run(trace);
        if (!run.result.ok())
            continue; // an event after a join, say: not every random trace is well-formed
        INFO(trace);
        REQUIRE(!run.st.error());
        const std::vector<Event>& ev = run.events.events;
        REQUIRE(ev.size() <= DeterminismOracle::max_events);
        DeterminismOracle oracle(ev, run.syms);

        // CF: the first conflicting event of each block, with a valid earlier event.
        const auto want = oracle.conflicts();
        const auto got = run.of(FindingKind::conflict);
        REQUIRE(got.size() == want.size());
        for (const Finding* f : got) {
            auto it = want.find(*f->block);
            REQUIRE(it != want.end());
            CHECK(f->access.event == it->second.first);
            REQUIRE(f->with);
            INFO(f->access.event << " with " << f->with->event);
            CHECK(it->second.second.count(f->with->event) == 1);
        }
        conflicts += static_cast<int>(got.size());

        // XS: a finding for each block at the event that first puts it on a cycle, naming a
        // closed walk of the prefix's graph through it.
        const auto want_cycles = oracle.cycles();
        std::vector<std::pair<std::uint64_t, std::uint64_t>> want_pairs, got_pairs; // event, block
        for (const auto& w : want_cycles)
            for (std::uint64_t b : w.new_blocks)
                want_pairs.emplace_back(w.event, b);
        const auto got_cycles = run.of(FindingKind::cycle);
        for (const Finding* f : got_cycles)
            got_pairs.emplace_back(f->access.event, *f->block);
        REQUIRE(got_pairs == want_pairs);
        for (const Finding* f : got_cycles) {
            const auto& w =
                *std::find_if(want_cycles.begin(), want_cycles.end(),
                              [f](const auto& x) { return x.event == f->access.event; });
            const std::vector<std::uint64_t>& c = f->cycle;
            REQUIRE(c.size() >= 2);
            CHECK(std::count(c.begin(), c.end(), *f->block) == 1);
            for (std::size_t n = 0; n < c.size(); ++n) {
                auto it = w.reach.find(c[n]);
                REQUIRE(it != w.reach.end());
                CHECK(it->second.count(c[(n + 1) % c.size()]) == 1);
            }
        }
        cycles += static_cast<int>(got_cycles.size());
    }
    MESSAGE("conflicts " << conflicts << ", cycles " << cycles);
    CHECK(conflicts > 100);
    CHECK(cycles > 100);
}

namespace {

// `count` random traces with blocks against DeterminismOracle: the same conflicts and cycles.
void agree_with_definitions(std::uint64_t seed, int count, const RandomTraceOptions& base,
                            int more_threads, int more_events, int blocks) {
    std::mt19937_64 rng(seed);
    for (int k = 0; k < count; ++k) {
        RandomTraceOptions o = base;
        o.threads += static_cast<int>(rng() % static_cast<std::uint64_t>(more_threads));
        o.vars = 2 + static_cast<int>(rng() % 4);
        o.events += static_cast<int>(rng() % static_cast<std::uint64_t>(more_events));
        const std::string trace = with_blocks(rng, random_trace(rng, o), blocks);
        SingleTrackRun run(trace);
        if (!run.result.ok())
            continue;
        INFO(trace);
        REQUIRE(!run.st.error());
        DeterminismOracle oracle(run.events.events, run.syms);
        const auto want = oracle.conflicts();
        std::map<std::uint64_t, std::uint64_t> got;
        for (const Finding* f : run.of(FindingKind::conflict))
            got[*f->block] = f->access.event;
        std::map<std::uint64_t, std::uint64_t> expected;
        for (const auto& kv : want)
            expected[kv.first] = kv.second.first;
        CHECK(got == expected);
        std::vector<std::pair<std::uint64_t, std::uint64_t>> got_cycles, want_cycles;
        for (const Finding* f : run.of(FindingKind::cycle))
            got_cycles.emplace_back(f->access.event, *f->block);
        for (const auto& c : oracle.cycles())
            for (std::uint64_t b : c.new_blocks)
                want_cycles.emplace_back(c.event, b);
        CHECK(got_cycles == want_cycles);
    }
}

} // namespace

TEST_CASE("singletrack = the definitions on longer random traces (100 with --full, of up to 200 "
          "events)" *
          volume) {
    RandomTraceOptions o;
    o.threads = 3;
    o.events = 100;
    agree_with_definitions(7, sfg::testlib::quarter(100), o, 5, 100, 5);
}

TEST_CASE("singletrack = the definitions with many short-lived threads, some joined twice" *
          volume) {
    // Ended threads give their records back; a join of one draws on its last node, kept while
    // alive (and swept once freed), however often the thread is joined.
    RandomTraceOptions o;
    o.threads = 8;
    o.events = 60;
    o.rejoin = 30;
    agree_with_definitions(11, sfg::testlib::quarter(500), o, 16, 80, 20);
}

TEST_CASE("singletrack: memory stays bounded on a long trace") {
    // A thread pool: workers P1, P2 take tasks from a locked queue and run each in a block that
    // writes its result; outside, a writer and a reader race on shared variables; every 1,000
    // rounds, a block of the main thread forks two children that pass a barrier, and ends before
    // joining them. 20,000 rounds, about 500,000 events.
    std::string trace = "M|fork(P1,P2,W,R)\n";
    const int rounds = 20000;
    for (int r = 0; r < rounds; ++r) {
        const std::string res = std::to_string(r % 13);
        for (const char* p : {"P1", "P2"})
            trace += std::string(p) + "|acq(q)\n" + p + "|r(queue)\n" + p + "|w(queue)\n" + p +
                     "|rel(q)\n" + p + "|begin\n" + p + "|r(in" + res + ")\n";
        trace += "P1|w(r" + res + ")\nP2|w(s" + res + ")\n";
        trace += "P2|end\nP1|end\nM|w(in" + res + ")\n";
        trace += "W|w(z)\nR|r(z)\nR|r(r" + res + ")\nW|acq(m)\nW|rel(m)\nR|acq(m)\nR|rel(m)\n";
        if (r % 1000 == 0) {
            const std::string a = "A" + std::to_string(r), b = "B" + std::to_string(r);
            trace += "M|begin\nM|fork(" + a + "," + b + ")\n" + a + "|w(x)\n" + a +
                     "|benter(bar)\n" + b + "|benter(bar)\n" + a + "|bexit(bar)\nM|end\n" + b +
                     "|bexit(bar)\n" + b + "|r(x)\nM|join(" + a + "," + b + ")\nM|w(x)\n";
        }
    }
    SingleTrackRun run(trace);
    REQUIRE(run.result.ok());
    CHECK(run.st.findings().empty());
    MESSAGE("events " << run.result.events << ", peak nodes " << run.st.peak_nodes()
                      << ", live nodes " << run.st.live_nodes() << ", live blocks "
                      << run.st.live_blocks());
    CHECK(run.st.peak_nodes() < 100);
    CHECK(run.st.live_blocks() == 0);
}

TEST_CASE("singletrack: a second join of an ended thread still orders its last event") {
    // A's block writes y, U reads it and ends; M joins U, then A's block joins U again: the block
    // is before U's read and after it, a cycle closed by the second join. U's record went back at
    // its end; its last node stays for the join.
    SingleTrackRun run("M|fork(U,A)\nA|begin\nA|w(y)\nU|r(y)\nM|join(U)\nA|join(U)\nA|end\n");
    REQUIRE(run.result.ok());
    const auto cycles = run.of(FindingKind::cycle);
    REQUIRE(cycles.size() == 1);
    CHECK(*cycles[0]->block == 2);
    CHECK(run.syms.threads.name(cycles[0]->access.thread) == "A");
    CHECK(cycles[0]->access.op == Op::join);
    CHECK(run.st.thread_records() <= 3);
}

TEST_CASE("singletrack: memory follows live threads, not every thread that existed") {
    // A pool forking and joining one short-lived worker per task (bench/short_threads.sh).
    std::string trace;
    const int tasks = 5000;
    for (int i = 0; i < tasks; ++i) {
        const std::string w = "T" + std::to_string(i), res = "res" + std::to_string(i % 64);
        trace += "main|fork(" + w + ")\n";
        for (int k = 0; k < 7; ++k)
            trace += w + "|acq(q)\n" + w + "|r(total)\n" + w + "|w(total)\n" + w + "|rel(q)\n";
        trace += w + "|w(" + res + ")\n" + w + "|r(" + res + ")\n";
        trace += "main|join(" + w + ")\nmain|r(" + res + ")\n";
    }
    SingleTrackRun run(trace);
    REQUIRE(run.result.ok());
    CHECK(run.st.findings().empty());
    // main and one worker alive at a time: two records, reused by each new worker.
    CHECK(run.st.thread_records() <= 2);
    CHECK(run.st.live_nodes() == 0);
}
