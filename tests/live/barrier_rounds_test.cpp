// A reusable sfg::barrier passed twice per round (docs/traces.md, barrier generations): a write
// in another thread's exclusive phase races with that thread's write, whatever the schedule, and
// hb, fasttrack and goldilocks say so live and on the recorded trace.
#include "replay_trace.hpp"
#include "support.hpp"

#include "barrier.sfg.hpp"
#include "barrier_handover.sfg.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <thread>

using namespace sfg::testing;

namespace {

// p0 under [RS(t0, t1, t2) ▷^b EX(t0)]^b: every round, all read p0, pass b, t0 writes p0, pass
// b. In round `bad`, t1 writes p0 too, in t0's exclusive phase. t0 arrives last at the first
// pass of that round, so it usually leaves at once, writes and arrives at the second pass before
// t1 has left the first: the order in which "every arrival before every later departure" would
// have ordered the two writes.
void run_particles(int rounds, int bad) {
    sfg::barrier b("b", 3);
    sfg::shared<int> p0("p0", 0);
    auto body = [&](int me) {
        for (int round = 0; round < rounds; ++round) {
            (void)p0.load();
            if (me == 0 && round == bad)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            b.arrive_and_wait(); // the read phase ends
            if (me == 0)
                p0.store(round);
            if (me == 1 && round == bad)
                p0.store(-1);    // in t0's exclusive phase
            b.arrive_and_wait(); // the write phase ends
        }
    };
    sfg::thread t0("t0", body, 0);
    sfg::thread t1("t1", body, 1);
    sfg::thread t2("t2", body, 2);
    t0.join();
    t1.join();
    t2.join();
}

// p1 under [RS(t0, t1) ▷^b EX(t1)]^b (specs/programs/barrier_handover): t0 reads p1 after
// leaving the first round, t1 writes it after leaving the first round. t1 arrives first (t0
// sleeps), so t0, the last to arrive, usually leaves at once, reads and arrives at the second
// round before t1 has left the first: that arrival is of round 2 and cannot stand in for t0's
// send in round 1 (docs/enforcement.md, "Barrier rounds").
void run_handover() {
    sfg::barrier b("b", 2);
    sfg::shared<int> p1("p1", 0);
    sfg::thread t0("t0", [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        b.arrive_and_wait();
        (void)p1.load();
        b.arrive_and_wait();
    });
    sfg::thread t1("t1", [&] {
        b.arrive_and_wait();
        p1.store(1);
        b.arrive_and_wait();
    });
    t0.join();
    t1.join();
}

} // namespace

TEST_CASE("barrier rounds: a handover whose rounds overlap is a violation and a race, every run") {
    for (int run = 0; run < 10; ++run) {
        CAPTURE(run);
        sfg::session s(barrier_handover::spec(), collecting("enforce,hb"));
        run_handover();
        Seen got = seen(s.findings());
        std::sort(got.begin(), got.end());
        CHECK(got == Seen{{"race", "hb", "p1"}, {"violation", "enforce", "p1"}});
    }
}

TEST_CASE("barrier rounds: a write in t0's exclusive phase is a violation and a race, every run") {
    for (int run = 0; run < 10; ++run) {
        CAPTURE(run);
        sfg::session s(barrier::spec(), collecting("enforce,hb,fasttrack,goldilocks"));
        run_particles(10, 7);
        const Seen got = seen(s.findings());
        for (const char* analysis : {"hb", "fasttrack", "goldilocks"}) {
            CAPTURE(analysis);
            CHECK(std::count(got.begin(), got.end(), Seen::value_type{"race", analysis, "p0"}) ==
                  1);
        }
        CHECK(std::count(got.begin(), got.end(), Seen::value_type{"violation", "enforce", "p0"}) ==
              1);
        CHECK(got.size() == 4);
    }
}

TEST_CASE("barrier rounds: without the stray write, no finding") {
    for (int run = 0; run < 10; ++run) {
        sfg::session s(barrier::spec(), collecting("enforce,hb,fasttrack,goldilocks"));
        run_particles(10, -1);
        CHECK(seen(s.findings()).empty());
    }
}

TEST_CASE("barrier rounds: the recorded trace replays to the same races") {
    const std::string path = (scratch() / "barrier_rounds.std").string();
    Seen live;
    {
        sfg::session_options o = collecting("hb,fasttrack,goldilocks");
        o.trace_path = path;
        sfg::session s(barrier::spec(), o);
        run_particles(10, 7);
        live = seen(s.findings());
    }
    CHECK(live ==
          Seen{{"race", "hb", "p0"}, {"race", "fasttrack", "p0"}, {"race", "goldilocks", "p0"}});
    // Replayed as `sfgc trace FILE --analysis hb,fasttrack,goldilocks` does.
    const Replay replay(path, {"hb", "fasttrack", "goldilocks"});
    Seen replayed;
    for (const auto& a : replay.analyses)
        for (const sfg::Finding& f : a->findings(replay.syms))
            replayed.emplace_back(sfg::to_string(f.kind), std::string(a->info().name), f.var);
    CHECK(replayed == live);
}
