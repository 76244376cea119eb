// The runtime has no threads of its own, and none of its objects (Symbols, WellFormedStream, the
// analyses, Enforcer) is thread-safe. A multithreaded program that checks itself records every
// event under one mutex, in the order the operations happened (docs/traces.md, "Checking a
// running program"): an acq(m) after taking m, a rel(m) before letting it go. This test does
// that with real threads; built with -fsanitize=thread (DEVELOPERS.md) it also shows that the
// pattern itself is race-free.
#include "enforce_testlib.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/well_formed.hpp"

#include <doctest/doctest.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace sfg;
using namespace sfg::testlib;

namespace {

// Events from several threads, in one total order, into analyses that run side by side.
class Recorder {
public:
    explicit Recorder(Analysis& sink) : stream_(syms_, sink) {}

    // One event; fork/join name their threads in `target`, comma-separated.
    void record(const std::string& thread, Op op, const std::string& target = "") {
        std::lock_guard<std::mutex> hold(mutex_);
        ObjId id = no_object;
        switch (op) {
        case Op::read:
        case Op::write:
            id = syms_.vars.intern(target);
            break;
        case Op::acquire:
        case Op::release:
            id = syms_.locks.intern(target);
            break;
        case Op::fork:
        case Op::join: {
            std::vector<ThreadId> set;
            for (std::size_t at = 0; at <= target.size();) {
                const std::size_t comma = std::min(target.find(',', at), target.size());
                set.push_back(syms_.threads.intern(target.substr(at, comma - at)));
                at = comma + 1;
            }
            std::sort(set.begin(), set.end());
            id = static_cast<ObjId>(syms_.thread_sets.size());
            syms_.thread_sets.push_back(set);
            break;
        }
        default:
            break;
        }
        const ThreadId t = syms_.threads.intern(thread);
        ok_ = stream_.push(t, op, id) && ok_;
    }
    void finish() {
        std::lock_guard<std::mutex> hold(mutex_);
        stream_.finish();
    }
    bool ok() const { return ok_; }
    const Symbols& symbols() const { return syms_; }

private:
    std::mutex mutex_;
    Symbols syms_;
    WellFormedStream stream_;
    bool ok_ = true;
};

} // namespace

TEST_CASE("several threads record into one enforcer and two race detectors under one mutex") {
    constexpr int workers = 4, locks = 3, rounds = 300;
    std::vector<std::string> names;
    for (int t = 0; t <= workers; ++t)
        names.push_back("T" + std::to_string(t));
    // x_i is guarded by m_i and taken by every worker: [EX(T1) ⊔ ... ⊔ EX(T4)]^m_i; T0 forks
    // and joins the workers.
    Enforcer enforcer;
    for (int i = 0; i < locks; ++i) {
        Discipline owners = EX(names[1]);
        for (int t = 2; t <= workers; ++t)
            owners = alt(owners, EX(names[static_cast<std::size_t>(t)]));
        enforcer.add_variable("x" + std::to_string(i),
                              build_petri_net(loop(owners, lock("m" + std::to_string(i)))));
    }
    HbDetector hb;
    FastTrackDetector ft;
    Fanout all;
    all.add(enforcer), all.add(hb), all.add(ft);
    Recorder rec(all);

    std::mutex m[locks];
    rec.record("T0", Op::fork, "T1,T2,T3,T4"); // before the threads exist
    std::vector<std::thread> threads;
    for (int t = 1; t <= workers; ++t)
        threads.emplace_back([&, t] {
            const std::string& me = names[static_cast<std::size_t>(t)];
            for (int r = 0; r < rounds; ++r) {
                const int i = (r * 7 + t) % locks;
                const std::string x = "x" + std::to_string(i), mi = "m" + std::to_string(i);
                std::lock_guard<std::mutex> hold(m[i]);
                rec.record(me, Op::acquire, mi); // after taking the lock
                rec.record(me, Op::read, x);
                rec.record(me, Op::write, x);
                rec.record(me, Op::release, mi); // before letting it go
            }
        });
    for (std::thread& th : threads)
        th.join();
    rec.record("T0", Op::join, "T1,T2,T3,T4"); // after every thread has ended
    rec.finish();

    REQUIRE(rec.ok());
    CHECK(enforcer.stats().events > workers * rounds * 4);
    CHECK(enforcer.violations().empty());
    CHECK(hb.races().empty());
    CHECK(ft.races().empty());
}
