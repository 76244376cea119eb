// The live runtime under load (docs/enforcers.md), without a spec so that it runs in the runtime's
// own build (and its ThreadSanitizer build): many threads, every primitive, exact event counts, and
// the same verdicts on every run.
#include "random_trace.hpp"
#include "replay_trace.hpp"
#include "sfg/runtime/trace_file.hpp"
#include "sfg/sfg.hpp"

#include <doctest/doctest.h>

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

// SFG_STRESS_EVENTS: events per thread of the stress test (default 10^4; scripts/test.sh's
// sanitizer stages run 2x10^4, 10^5 with --full).
std::uint64_t stress_events() {
    const char* env = std::getenv("SFG_STRESS_EVENTS");
    return env ? std::strtoull(env, nullptr, 10) : 10000;
}

sfg::session_options collect_all() {
    sfg::session_options o;
    o.policy = sfg::on_finding::collect;
    o.analyses = "hb,fasttrack,goldilocks,eraser";
    return o;
}

} // namespace

TEST_CASE("live: 16 threads, locks, a volatile and a barrier; no finding, every event counted") {
    constexpr int threads = 16, rounds = 500;
    sfg::session s(collect_all());
    sfg::mutex m("m");
    sfg::shared<long> total("total", 0);
    sfg::volatile_var<int> ticks("ticks", 0);
    sfg::barrier b("b", threads);
    std::vector<std::unique_ptr<sfg::shared<int>>> own;
    for (int i = 0; i < threads; ++i)
        own.push_back(std::make_unique<sfg::shared<int>>("own" + std::to_string(i), 0));
    sfg::thread_group g;
    for (int i = 0; i < threads; ++i)
        g.add("w" + std::to_string(i), [&, i] {
            for (int r = 0; r < rounds; ++r) {
                {
                    std::lock_guard l(m);
                    total = total + 1; // acq r w rel
                }
                own[static_cast<std::size_t>(i)]->store(r); // thread-local: w
                ticks.store(r);                             // vw
            }
            b.arrive_and_wait(); // benter bexit
        });
    g.start();
    g.join();
    {
        std::lock_guard l(m); // Eraser knows no join: the lock keeps it quiet
        CHECK(total == threads * rounds);
    }
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
    // fork, per thread rounds x 6 + 2, join, main's final acq r rel
    CHECK(s.events() == 1 + static_cast<std::uint64_t>(threads) * (rounds * 6 + 2) + 1 + 3);
}

TEST_CASE("live: an unprotected counter races on every run, one report per analysis") {
    for (int run = 0; run < 10; ++run) {
        sfg::session s(collect_all());
        sfg::mutex m("m");
        sfg::shared<int> counter("counter", 0);
        {
            sfg::thread a("a", [&] {
                for (int i = 0; i < 100; ++i) {
                    std::lock_guard l(m);
                    counter = counter + 1;
                }
            });
            sfg::thread b("b", [&] {
                for (int i = 0; i < 100; ++i)
                    counter = counter + 1;
            });
        }
        // hb, fasttrack and goldilocks, precise, whatever the schedule; Eraser's lockset only
        // when an unlocked access comes after a locked one.
        std::size_t races = 0;
        for (const sfg::finding& f : s.findings()) {
            CHECK(f.var == "counter");
            CHECK((f.kind == "race" || (f.kind == "warning" && f.analysis == "eraser")));
            races += f.kind == "race";
        }
        CHECK(races == 3);
    }
}

TEST_CASE("live: the policies") {
    sfg::session_options o = collect_all();
    o.analyses = "hb";
    o.policy = sfg::on_finding::throw_error;
    sfg::session s(o);
    sfg::shared<int> x("x", 0);
    std::atomic<bool> written{false};
    sfg::thread a("a", [&] {
        x = 1;
        written = true;
    });
    while (!written)
        std::this_thread::yield();
    CHECK_THROWS_AS(x.store(2), sfg::finding_error); // main's write races with a's
    a.join();
    CHECK(x.load() == 2); // the store happened before the throw
    REQUIRE(s.findings().size() == 1);
    CHECK(s.findings()[0].thread == "main");
}

TEST_CASE("live: a plain payload handed over through a volatile_var (clean under TSan)") {
    // The payload is not instrumented: under ThreadSanitizer, the vw/vr pair must order it as
    // the std::atomic underneath does, although sfg performs both under its own lock.
    sfg::session s(collect_all());
    int payload = 0;
    sfg::volatile_var<bool> ready("ready", false);
    sfg::thread a("a", [&] {
        payload = 42;
        ready.store(true);
    });
    sfg::thread b("b", [&] {
        while (!ready.load())
            std::this_thread::yield();
        CHECK(payload == 42);
    });
    a.join();
    b.join();
    CHECK(s.findings().empty());
}

namespace {

// The recorded trace's events at `path` without their locations ("t|vr(v=5)").
std::vector<std::string> recorded_ops(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#')
            continue;
        const std::size_t bar = line.find('|', line.find('|') + 1);
        out.push_back(bar == std::string::npos ? line : line.substr(0, bar));
    }
    return out;
}

} // namespace

TEST_CASE("live: read-modify-writes of a volatile_var are vr then vw, a failed cas a vr alone") {
    // docs/enforcers.md, "Atomics and condition variables": each is one operation; integral values
    // are carried.
    sfg::session_options o = collect_all();
    const std::string path =
        (std::filesystem::temp_directory_path() / sfg::testing::scratch_file("sfg_live_rmw", "std"))
            .string();
    o.trace_path = path;
    {
        sfg::session s(o);
        sfg::volatile_var<int> v("v", 5);
        CHECK(v.exchange(7) == 5);
        CHECK(v.fetch_add(3, std::memory_order_acq_rel) == 7);
        int expected = 4;
        CHECK_FALSE(v.compare_exchange_strong(expected, 1));
        CHECK(expected == 10);
        CHECK(v.compare_exchange_weak(expected, -2, std::memory_order_release,
                                      std::memory_order_relaxed));
        CHECK(v.fetch_sub(1) == -2);
        CHECK(v.load(std::memory_order_acquire) == -3);
        v.store(std::numeric_limits<int>::max(), std::memory_order_release);
        CHECK(v.fetch_add(1) == std::numeric_limits<int>::max()); // wraps, as std::atomic does
        CHECK(v.load() == std::numeric_limits<int>::min());
        CHECK(s.events() == 14);
        CHECK(s.findings().empty());
    }
    const std::vector<std::string> ops = recorded_ops(path);
    std::remove(path.c_str());
    const std::vector<std::string> want = {
        "main|vr(v=5)",           "main|vw(v=7)",          "main|vr(v=7)",
        "main|vw(v=10)",          "main|vr(v=10)",         "main|vr(v=10)",
        "main|vw(v=-2)",          "main|vr(v=-2)",         "main|vw(v=-3)",
        "main|vr(v=-3)",          "main|vw(v=2147483647)", "main|vr(v=2147483647)",
        "main|vw(v=-2147483648)", "main|vr(v=-2147483648)"};
    CHECK(ops == want);
}

namespace {
void spin_lock_and_counter(sfg::on_finding policy);
} // namespace

TEST_CASE("live: a spin lock of compare_exchange and a counter of fetch_add under contention") {
    // Every increment of x happens under the spin lock lk, whose cas reads the 0 that the last
    // owner wrote: the runtime must order x's accesses by it (no race), and each fetch_add's vr
    // and vw stay together (the count is exact). The plain payload checks, under
    // ThreadSanitizer, that a fetch_add that wrote releases what came before it: under
    // throw_error every event goes through the runtime's hidden lock, so nothing else orders it.
    for (sfg::on_finding policy : {sfg::on_finding::collect, sfg::on_finding::throw_error}) {
        CAPTURE(static_cast<int>(policy));
        spin_lock_and_counter(policy);
    }
}

TEST_CASE("live: a read-modify-write that wrote is where its thread's queued accesses enter") {
    // Under collect, x's store is queued in t0 and must enter the order before t0's fetch_add,
    // an event of another kind (docs/enforcers.md, "Ordering guarantees"): t1's load of x,
    // after it saw the count, is then ordered after the store.
    sfg::session_options o = collect_all();
    o.analyses = "hb,fasttrack,goldilocks";
    sfg::session s(o);
    sfg::volatile_var<int> count("count", 0);
    sfg::shared<int> x("x", 0);
    sfg::thread t0("t0", [&] {
        x.store(1);
        count.fetch_add(1);
    });
    sfg::thread t1("t1", [&] {
        while (count.load() == 0)
            sfg::yield();
        CHECK(x.load() == 1);
    });
    t0.join();
    t1.join();
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
}

namespace {

void spin_lock_and_counter(sfg::on_finding policy) {
    sfg::session_options o = collect_all();
    o.policy = policy;
    o.analyses = "hb,fasttrack,goldilocks";
    sfg::session s(o);
    constexpr int threads = 4, rounds = 400;
    sfg::volatile_var<int> lk("lk", 0), count("count", 0), published("published", 0);
    sfg::shared<int> x("x", 0);
    int payload = 0;
    sfg::thread_group g;
    for (int t = 0; t < threads; ++t)
        g.add("w" + std::to_string(t), [&, t] {
            if (t == 0) {
                payload = 42;
                published.fetch_add(1);
            } else {
                while (published.load() == 0)
                    sfg::yield();
                CHECK(payload == 42);
            }
            for (int i = 0; i < rounds; ++i) {
                int expected = 0;
                while (!lk.compare_exchange_strong(expected, 1)) {
                    expected = 0;
                    sfg::yield();
                }
                x.store(x.load() + 1);
                lk.store(0);
                count.fetch_add(1);
            }
        });
    g.start();
    g.join();
    CHECK(x.load() == threads * rounds);
    CHECK(count.load() == threads * rounds);
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
}

} // namespace

TEST_CASE("live stress: 64 threads, every event counted, no finding, the same on every run") {
    constexpr int threads = 64;
    const std::uint64_t per_thread = std::max<std::uint64_t>(stress_events(), 8);
    const std::uint64_t rounds = per_thread / 8; // 8 events a round
    sfg::session_options o = collect_all();
    o.analyses = "hb,fasttrack,goldilocks"; // precise: no finding in a race-free program
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_stress", "std"))
                                 .string();
    o.trace_path = path;
    std::optional<sfg::session> s(std::in_place, o);
    std::vector<std::unique_ptr<sfg::mutex>> locks;
    std::vector<std::unique_ptr<sfg::shared<std::uint64_t>>> counters;
    for (int i = 0; i < 8; ++i) {
        locks.push_back(std::make_unique<sfg::mutex>("m" + std::to_string(i)));
        counters.push_back(
            std::make_unique<sfg::shared<std::uint64_t>>("c" + std::to_string(i), 0));
    }
    sfg::volatile_var<std::uint64_t> clock("clock", 0);
    sfg::thread_group g;
    for (int t = 0; t < threads; ++t)
        g.add("w" + std::to_string(t), [&, t] {
            for (std::uint64_t r = 0; r < rounds; ++r) {
                const std::size_t k = (static_cast<std::size_t>(t) + r) % locks.size();
                {
                    std::lock_guard l(*locks[k]);
                    counters[k]->store(counters[k]->load() + 1); // acq r w rel
                }
                (void)clock.load(); // vr
                clock.store(r);     // vw
                (void)clock.load(); // vr
                (void)clock.load(); // vr
            }
        });
    g.start();
    g.join();
    std::uint64_t total = 0;
    for (auto& c : counters)
        total += c->load(); // after the join
    CHECK(total == threads * rounds);
    const std::uint64_t events = 2 + threads * rounds * 8 + counters.size();
    CHECK(s->events() == events);
    for (const sfg::finding& f : s->findings())
        FAIL_CHECK(f.message);
    s.reset(); // closes the trace

    // No event lost, duplicated or reordered: the recorded trace is well-formed (each lock's
    // acquisitions and releases alternate, each thread's events lie between its fork and join),
    // has every event, and replays to the same (no) findings.
    const sfg::testing::Replay replay(path, {"hb", "fasttrack", "goldilocks"});
    CHECK(replay.result.events == events);
    for (const auto& a : replay.analyses)
        CHECK(a->findings(replay.syms).empty());
    std::filesystem::remove(path);
}

TEST_CASE("live: races under load replay to the same findings in the same order") {
    // Two analyses or more and a recording: every batch's analyses run in two groups, often on
    // two threads at once; the findings must be those of the recorded trace, in event order.
    constexpr int threads = 8, variables = 16;
    const std::uint64_t rounds = std::clamp<std::uint64_t>(stress_events() / 4, 100, 5000);
    sfg::session_options o = collect_all();
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_split", "std"))
                                 .string();
    o.trace_path = path;
    std::vector<sfg::finding> live;
    {
        sfg::session s(o);
        sfg::mutex m("m");
        std::vector<std::unique_ptr<sfg::shared<int>>> vars;
        for (int i = 0; i < variables; ++i)
            vars.push_back(std::make_unique<sfg::shared<int>>("v" + std::to_string(i), 0));
        sfg::thread_group g;
        for (int t = 0; t < threads; ++t)
            g.add("w" + std::to_string(t), [&, t] {
                for (std::uint64_t r = 0; r < rounds; ++r) {
                    // Even variables under m, odd ones by whoever comes: races.
                    const std::size_t k = (static_cast<std::size_t>(t) * 5 + r) % vars.size();
                    if (k % 2 == 0) {
                        std::lock_guard l(m);
                        vars[k]->store(vars[k]->load() + 1);
                    } else {
                        vars[k]->store(vars[k]->load() + 1);
                    }
                }
            });
        g.start();
        g.join();
        live = s.findings();
    }
    CHECK(!live.empty());
    const sfg::testing::Replay replay(path, {"hb", "fasttrack", "goldilocks", "eraser"});
    // The replayed findings in event order, as the session collects them.
    const std::vector<std::string> want =
        replay.in_event_order([&](std::string_view a, const sfg::Finding& f) {
            return std::string(a) + " " + sfg::to_string(f.kind) + " " + f.var + " " +
                   replay.syms.threads.name(f.access.thread) + " " + sfg::to_string(f.access.op);
        });
    std::vector<std::string> got;
    for (const sfg::finding& f : live)
        got.push_back(f.analysis + " " + f.kind + " " + f.var + " " + f.thread + " " + f.op);
    CHECK(got == want);
    std::filesystem::remove(path);
}

TEST_CASE("live: deterministic blocks under load replay to the same findings in the same order") {
    // Workers each run blocks that fork two children (docs/determinism.md): some children touch
    // a variable of the block's both, a conflict; the blocks' reads and writes of `shared` meet
    // other workers' blocks, cycles or not as the schedule has it. Whatever was found live, in
    // event order, is what singletrack (and hb) find on the recorded trace.
    constexpr int workers = 6;
    const int rounds = static_cast<int>(std::clamp<std::uint64_t>(stress_events() / 500, 10, 60));
    sfg::session_options o = collect_all();
    o.analyses = "singletrack,hb";
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_blocks", "std"))
                                 .string();
    o.trace_path = path;
    std::vector<sfg::finding> live;
    {
        sfg::session s(o);
        sfg::mutex m("m");
        sfg::shared<int> total("total", 0), common("shared", 0);
        std::vector<std::unique_ptr<sfg::shared<int>>> own;
        for (int i = 0; i < workers * 2; ++i)
            own.push_back(std::make_unique<sfg::shared<int>>("own" + std::to_string(i), 0));
        sfg::thread_group g;
        for (int t = 0; t < workers; ++t)
            g.add("w" + std::to_string(t), [&, t] {
                for (int r = 0; r < rounds; ++r) {
                    const std::string name = "w" + std::to_string(t) + "r" + std::to_string(r);
                    sfg::deterministic block;
                    const int seen = common;
                    {
                        auto& mine = *own[static_cast<std::size_t>(2 * t)];
                        auto& other = *own[static_cast<std::size_t>(2 * t + (r % 5 == 2 ? 0 : 1))];
                        sfg::thread a(name + "a", [&] { mine = mine + 1; });
                        sfg::thread b(name + "b", [&] { other = other + 1; }); // r % 5 == 2: mine
                    }
                    {
                        std::lock_guard l(m);
                        total = total + 1;
                    }
                    if (r % 3 == 0)
                        common = seen + 1;
                }
            });
        g.start();
        g.join();
        live = s.findings();
        CHECK(total == workers * rounds);
    }
    // Every block whose children shared their variable has its conflict.
    std::size_t conflicts = 0;
    for (const sfg::finding& f : live) {
        CHECK((f.analysis == "singletrack" || f.analysis == "hb"));
        conflicts += f.kind == "conflict";
    }
    CHECK(conflicts == static_cast<std::size_t>(workers) * ((rounds + 2) / 5));
    const sfg::testing::Replay replay(path, {"singletrack", "hb"});
    CHECK(!replay.analyses[0]->stream_error());
    const std::vector<std::string> want =
        replay.in_event_order([&](std::string_view a, const sfg::Finding& f) {
            return std::string(a) + " " + sfg::to_string(f.kind) + " " +
                   (f.kind == sfg::FindingKind::cycle ? std::string() : f.var) + " " +
                   replay.syms.threads.name(f.access.thread) + " " + sfg::to_string(f.access.op);
        });
    std::vector<std::string> got;
    for (const sfg::finding& f : live)
        got.push_back(f.analysis + " " + f.kind + " " + f.var + " " + f.thread + " " + f.op);
    CHECK(got == want);
    std::filesystem::remove(path);
}

TEST_CASE("live: a bounded buffer on sfg::condition_variable, two producers, two consumers") {
    // docs/enforcers.md, "Atomics and condition variables": each wait is the mutex's rel and
    // acq, so the buffer's count, accessed only under m, has no race.
    sfg::session_options o = collect_all();
    o.analyses = "hb,fasttrack,goldilocks";
    sfg::session s(o);
    sfg::mutex m("m");
    sfg::condition_variable not_full("not_full"), not_empty("not_empty");
    sfg::shared<int> count("count", 0), consumed("consumed", 0);
    constexpr int per_producer = 300, capacity = 4;
    sfg::thread_group g;
    for (int p = 0; p < 2; ++p)
        g.add("producer" + std::to_string(p), [&] {
            for (int i = 0; i < per_producer; ++i) {
                std::unique_lock l(m);
                not_full.wait(l, [&] { return count.load() < capacity; });
                count.store(count.load() + 1);
                not_empty.notify_one();
            }
        });
    for (int c = 0; c < 2; ++c)
        g.add("consumer" + std::to_string(c), [&] {
            for (int i = 0; i < per_producer; ++i) {
                std::unique_lock l(m);
                not_empty.wait(l, [&] { return count.load() > 0; });
                count.store(count.load() - 1);
                consumed.store(consumed.load() + 1);
                not_full.notify_all();
            }
        });
    g.start();
    g.join();
    std::lock_guard l(m);
    CHECK(count.load() == 0);
    CHECK(consumed.load() == 2 * per_producer);
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
}

TEST_CASE("live: std::condition_variable_any on an sfg::mutex; its unlock and relock are events") {
    sfg::session s(collect_all());
    sfg::mutex m("m");
    sfg::shared<int> items("items", 0);
    std::condition_variable_any cv;
    constexpr int n = 200;
    sfg::thread consumer("consumer", [&] {
        for (int taken = 0; taken < n;) {
            std::unique_lock l(m);
            cv.wait(l, [&] { return items.load() > 0; });
            items.store(items.load() - 1);
            ++taken;
        }
    });
    sfg::thread producer("producer", [&] {
        for (int i = 0; i < n; ++i) {
            {
                std::lock_guard l(m);
                items.store(items.load() + 1);
            }
            cv.notify_one();
        }
    });
    producer.join();
    consumer.join();
    std::lock_guard l(m);
    CHECK(items.load() == 0);
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
}

TEST_CASE("live: a thread's queued accesses are counted by every query of the session") {
    // Under collect (and log) an access is queued in its thread until its next synchronization;
    // the session's queries push the calling thread's queue first.
    sfg::session s(collect_all());
    sfg::shared<int> y("y", 0);
    y.store(1);
    y.store(y.load() + 1);
    CHECK(s.events() == 3);
    CHECK(s.findings().empty());
    CHECK(y.load() == 2);
    CHECK(s.mark() == 0);
    CHECK(s.events() == 4);
}

TEST_CASE("live: a vw enters the order before every vr that read it, under contention") {
    // Each round hands x over through a volatile and back: x's accesses are ordered only if
    // every vr is placed after the vw whose value it read. Four pairs at once, so that the
    // tickets of several threads interleave. (Eraser is left out: locksets do not see
    // volatiles.)
    sfg::session_options o = collect_all();
    o.analyses = "hb,fasttrack,goldilocks";
    sfg::session s(o);
    constexpr int pairs = 4, rounds = 500;
    std::vector<std::unique_ptr<sfg::shared<int>>> xs;
    std::vector<std::unique_ptr<sfg::volatile_var<int>>> sent, acked;
    for (int p = 0; p < pairs; ++p) {
        xs.push_back(std::make_unique<sfg::shared<int>>("x" + std::to_string(p), 0));
        sent.push_back(std::make_unique<sfg::volatile_var<int>>("sent" + std::to_string(p), 0));
        acked.push_back(std::make_unique<sfg::volatile_var<int>>("acked" + std::to_string(p), 0));
    }
    sfg::thread_group g;
    std::atomic<int> wrong{0};
    for (int p = 0; p < pairs; ++p) {
        g.add("w" + std::to_string(p), [&, p] {
            for (int i = 1; i <= rounds; ++i) {
                xs[p]->store(i);
                sent[p]->store(i);
                while (acked[p]->load() != i)
                    std::this_thread::yield();
            }
        });
        g.add("r" + std::to_string(p), [&, p] {
            for (int i = 1; i <= rounds; ++i) {
                while (sent[p]->load() != i)
                    std::this_thread::yield();
                if (xs[p]->load() != i)
                    ++wrong;
                xs[p]->store(-i);
                acked[p]->store(i);
            }
        });
    }
    g.start();
    g.join();
    CHECK(wrong == 0);
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
}

TEST_CASE("live: threads that never synchronize wrap their rings many times") {
    // 100,000 accesses each, far more than a thread's ring holds: each thread waits for the
    // checker now and then, and every access is checked, in order.
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_ring_wrap", "std"))
                                 .string();
    sfg::session_options o = collect_all();
    o.trace_path = path;
    constexpr int threads = 4, accesses = 100000;
    std::uint64_t events = 0;
    {
        sfg::session s(o);
        std::vector<std::unique_ptr<sfg::shared<int>>> own;
        for (int t = 0; t < threads; ++t)
            own.push_back(std::make_unique<sfg::shared<int>>("own" + std::to_string(t), 0));
        sfg::thread_group g;
        for (int t = 0; t < threads; ++t)
            g.add("t" + std::to_string(t), [&, t] {
                for (int i = 0; i < accesses; ++i)
                    own[t]->store(own[t]->load() + 1);
            });
        g.start();
        g.join();
        for (int t = 0; t < threads; ++t)
            CHECK(own[t]->load() == accesses);
        CHECK(s.findings().empty());
        events = s.events();
    }
    // fork, join, 2 accesses a round per thread, main's final loads.
    CHECK(events == 2 + std::uint64_t{2} * threads * accesses + threads);
    // The recorded trace: well-formed, every event in it.
    sfg::Symbols syms;
    sfg::Fanout none;
    const sfg::TraceResult r = sfg::read_trace_file(path, syms, none);
    CHECK(r.ok());
    CHECK(r.events == events);
    std::filesystem::remove(path);
}

TEST_CASE("live: a long run of accesses with no synchronization is pushed as it goes") {
    // The queue is bounded: a thread that never synchronizes still has its accesses checked
    // (and its memory does not grow) while it runs.
    sfg::session s(collect_all());
    sfg::shared<int> z("z", 0);
    std::atomic<bool> go_on{false}; // not instrumented: the thread's only wait
    constexpr int accesses = 2500;
    sfg::thread a("a", [&] {
        for (int i = 0; i < accesses; ++i)
            z.store(i);
        while (!go_on.load())
            std::this_thread::yield();
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (s.events() < 1 + 2048 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    CHECK(s.events() >= 1 + 2048); // fork, then two full queues of a's
    go_on = true;
    a.join();
    CHECK(s.events() == 1 + accesses + 1);
    CHECK(s.findings().empty());
}

#if defined(__SANITIZE_THREAD__)
#define SFG_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SFG_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef SFG_TEST_UNDER_TSAN
#define SFG_TEST_UNDER_TSAN 0
#endif

namespace {

// Two strings too long for the small-string buffer, and a session with hb alone.
struct string_race_setup {
    std::string first, second;
    sfg::session_options options;
};
string_race_setup string_race() {
    sfg::session_options o = collect_all();
    o.analyses = "hb";
    return {std::string(200, 'a'), std::string(300, 'b'), o};
}

} // namespace

TEST_CASE("live: racing stores to a shared<std::string> are reported, the value stays whole" *
          doctest::skip(SFG_TEST_UNDER_TSAN == 1)) {
    // A value that is not trivially copyable is accessed under its object's lock: the race is
    // reported and the string is never torn (ASan would see it). Not under ThreadSanitizer: the
    // race is real, and TSan rightly reports the string's buffers changing hands.
    const string_race_setup setup = string_race(); // (no structured bindings: lambdas use them)
    const std::string &first = setup.first, &second = setup.second;
    sfg::session s(setup.options);
    sfg::shared<std::string> text("text", "");
    {
        sfg::thread a("a", [&] {
            for (int i = 0; i < 2000; ++i)
                text.store(first);
        });
        sfg::thread b("b", [&] {
            for (int i = 0; i < 2000; ++i)
                text.store(second);
        });
    }
    const std::string last = text.load();
    CHECK((last == first || last == second));
    REQUIRE(s.findings().size() == 1);
    CHECK(s.findings()[0].kind == "race");
    CHECK(s.findings()[0].var == "text");
}

TEST_CASE("live: a std::thread and an sfg::thread on one shared<std::string>: a misuse, no tear" *
          doctest::skip(SFG_TEST_UNDER_TSAN == 1)) {
    // The std::thread's loads take the slow path (a misuse), the sfg::thread's stores the
    // queued one: both under the object's lock, so the string is never torn (ASan would see it).
    const string_race_setup setup = string_race(); // (no structured bindings: lambdas use them)
    const std::string &first = setup.first, &second = setup.second;
    sfg::session s(setup.options);
    sfg::shared<std::string> text("text", first);
    std::atomic<int> torn{0};
    {
        sfg::thread a("a", [&] {
            for (int i = 0; i < 2000; ++i)
                text.store(i % 2 ? first : second);
        });
        std::thread b([&] {
            for (int i = 0; i < 2000; ++i)
                if (const std::string v = text.load(); v != first && v != second)
                    ++torn;
        });
        b.join();
    }
    CHECK(torn == 0);
    bool misuse = false;
    for (const sfg::finding& f : s.findings())
        misuse = misuse || (f.kind == "misuse" && f.var == "text");
    CHECK(misuse);
}

namespace {

// A value whose copy reads another sfg variable: its accesses append an event of their own while
// its object's lock is held, under which no thread may check events for the checker thread.
sfg::shared<int>* copied_config = nullptr;
std::atomic<long> config_reads{0};
struct reads_config {
    int v = 0;
    reads_config() = default;
    reads_config(const reads_config& o) : v(o.v + copied_config->load() * 0) { ++config_reads; }
    reads_config& operator=(const reads_config& o) {
        v = o.v + copied_config->load() * 0;
        ++config_reads;
        return *this;
    }
};

} // namespace

TEST_CASE("live: threads that check events while others copy values that read sfg variables") {
    // Filling rings make threads check events themselves; a copy made under its object's lock
    // appends events of its own, and its thread must not check then. Every event is counted.
    // (The test above deadlocks if a thread checks under an object's lock.)
    constexpr int threads = 4, rounds = 20000;
    sfg::session s(collect_all());
    sfg::shared<int> config("config", 1);
    copied_config = &config;
    std::vector<std::unique_ptr<sfg::shared<reads_config>>> values;
    std::vector<std::unique_ptr<sfg::shared<int>>> counters;
    for (int i = 0; i < threads; ++i) {
        values.push_back(std::make_unique<sfg::shared<reads_config>>("value" + std::to_string(i)));
        counters.push_back(std::make_unique<sfg::shared<int>>("counter" + std::to_string(i), 0));
    }
    config.store(2);
    const std::uint64_t before = s.events();
    config_reads = 0;
    sfg::thread_group g;
    for (int i = 0; i < threads; ++i)
        g.add("c" + std::to_string(i), [&, i] {
            sfg::shared<reads_config>& value = *values[static_cast<std::size_t>(i)];
            sfg::shared<int>& counter = *counters[static_cast<std::size_t>(i)];
            for (int r = 0; r < rounds; ++r) {
                counter.store(r);
                if (r % 8 == 0)
                    value.store(value.load());
            }
        });
    g.start();
    g.join();
    for (const sfg::finding& f : s.findings())
        FAIL_CHECK(f.message);
    // fork, the counters' stores, the values' loads and stores, config's loads by the copies,
    // join
    CHECK(s.events() == before + 1 + threads * (rounds + rounds / 8 * 2) +
                            static_cast<std::uint64_t>(config_reads.load()) + 1);
    copied_config = nullptr;
}

TEST_CASE("live: a thread's accesses after its thread_local objects are gone are still events") {
    // A session's main thread may end before the session closes, and a destructor of one of its
    // thread_local objects may still use sfg (as a static destructor may, after the main
    // thread's thread_locals are gone): its ring is then one that is never freed.
    std::unique_ptr<sfg::session> s;
    sfg::shared<int> x("x", 0);
    struct late_store {
        sfg::shared<int>* x = nullptr;
        ~late_store() {
            if (x)
                x->store(7);
        }
    };
    std::thread opener([&] {
        thread_local late_store late; // built before the thread's ring: destroyed after it
        s = std::make_unique<sfg::session>(collect_all());
        late.x = &x;
        x.store(1); // x's first use: ticketed at once
        x.store(2); // queued in the thread's ring, placed when the ring goes
    });
    opener.join();
    CHECK(x.load() == 7);
    CHECK(s->events() == 3); // w(x) three times; this thread's load is a misuse, not an event
    s.reset();
}

TEST_CASE("live: threads start and join while others fill the checker's queue") {
    // Starting and joining threads appends while holding the runtime's lock, which the checker
    // needs: that append must never wait for room (a full queue would deadlock).
    sfg::session s(collect_all());
    sfg::mutex m("m");
    std::atomic<bool> done{false};
    std::atomic<long> pairs{0};
    sfg::thread_group busy;
    for (int i = 0; i < 4; ++i)
        busy.add("busy" + std::to_string(i), [&] {
            while (!done.load()) {
                m.lock();
                m.unlock();
                ++pairs;
            }
        });
    busy.start();
    for (int round = 0; round < 10; ++round) {
        // More events than the queue holds since the last round.
        const long until = pairs.load() + 40000;
        while (pairs.load() < until)
            std::this_thread::yield();
        sfg::thread t("short" + std::to_string(round), [] {});
        t.join();
    }
    done = true;
    busy.join();
    CHECK(s.findings().empty());
    CHECK(s.events() > 2 + 10 * 2 + 10 * 80000);
}

namespace {

sfg::session_options collect_hb() {
    sfg::session_options o = collect_all();
    o.analyses = "hb";
    return o;
}

sfg::shared<int>* guarded = nullptr;
struct store_when_destroyed {
    ~store_when_destroyed() { guarded->store(7); }
};

} // namespace

TEST_CASE("live: what a thread's body captured dies in that thread, its events counted") {
    sfg::session s(collect_hb());
    sfg::shared<int> x("x", 0);
    guarded = &x;
    x.store(1);
    {
        auto g = std::make_shared<store_when_destroyed>();
        sfg::thread t("a", [g = std::move(g)] {});
    }
    CHECK(s.findings().empty()); // no misuse: a's store is a's, before its join
    CHECK(s.events() == 4);      // w, fork, a's w, join
}

TEST_CASE("live: sessions opened and closed by two threads at once") {
    // One is open at a time; the other thread's attempts are misuses (thrown), never a crash.
    std::atomic<int> opened{0};
    auto body = [&] {
        for (int i = 0; i < 500; ++i) {
            try {
                sfg::session s(collect_hb());
                ++opened;
            } catch (const sfg::finding_error& e) {
                CHECK(e.details().var == "session");
            }
        }
    };
    std::thread a(body), b(body);
    a.join();
    b.join();
    CHECK(opened.load() > 0);
}

TEST_CASE("live: a misuse comes after the findings of the events before it") {
    sfg::session s(collect_hb());
    sfg::shared<int> x("x", 0);
    sfg::mutex m("m");
    std::atomic<bool> written{false};
    sfg::thread a("a", [&] {
        x.store(1);
        written = true;
    });
    while (!written)
        std::this_thread::yield();
    x.store(2); // races with a's store
    m.unlock(); // not held: a misuse, after the race
    a.join();
    const auto f = s.findings();
    REQUIRE(f.size() == 2);
    CHECK(f[0].kind == "race");
    CHECK(f[1].kind == "misuse");
}

TEST_CASE("live: an ill-formed queued event's misuse comes after the findings before it") {
    // Two mutexes named alike: the second's acquire, while the first is held, is refused by
    // the well-formedness check on the checking side. Its misuse must come after the race
    // reported just before it, whether the two events are in one batch or in two, and with
    // the analyses in two groups (the race found by the second group, which runs later).
    for (const int gap : {10, 1500, 3000})
        for (const char* analyses : {"hb", "fasttrack,hb", "hb,fasttrack"}) {
            CAPTURE(gap);
            CAPTURE(analyses);
            sfg::session_options o;
            o.policy = sfg::on_finding::collect;
            o.analyses = analyses;
            sfg::session s(o);
            sfg::mutex m1("m"), m2("m");
            sfg::shared<int> x("x", 0), y("y", 0);
            sfg::volatile_var<int> v("v", 0);
            // Every object used once first: a new object's first use waits for the events
            // before it to be checked.
            m2.lock();
            m2.unlock();
            y.store(0);
            v.store(0);
            std::atomic<bool> held{false}, go{false};
            sfg::thread a("a", [&] {
                m1.lock();
                x.store(1);
                v.store(1); // places the store before what follows
                held = true;
                while (!go)
                    std::this_thread::yield();
                m1.unlock();
            });
            while (!held)
                std::this_thread::yield();
            for (int i = 0; i < 2000; ++i) // more than a batch of accesses
                y.store(i);
            x.store(2); // races with a's store
            for (int i = 0; i < gap; ++i)
                y.store(i);
            m2.lock(); // "m" is held by a: ill-formed
            go = true;
            a.join();
            const auto f = s.findings();
            m2.unlock();
            REQUIRE(f.size() >= 2);
            CHECK(f.front().kind == "race");
            CHECK(f.back().kind == "misuse");
        }
}

TEST_CASE("live: a second session's misuse is what it throws, every time") {
    sfg::session s(collect_hb());
    sfg::shared<int> x("x", 0);
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            sfg::session second(collect_hb());
            FAIL("a second session opened");
        } catch (const sfg::finding_error& e) {
            CHECK(e.details().var == "session");
        }
        std::atomic<bool> written{false};
        sfg::thread a("a" + std::to_string(attempt), [&] {
            x.store(1);
            written = true;
        });
        while (!written)
            std::this_thread::yield();
        x.store(2); // a race found meanwhile must not be thrown as the session's misuse
        a.join();
        (void)s.events();
    }
}

namespace {

struct throws_on_move {
    int v = 0;
    throws_on_move() = default;
    throws_on_move(const throws_on_move&) = default;
    throws_on_move& operator=(const throws_on_move&) = default;
    throws_on_move& operator=(throws_on_move&&) { throw std::runtime_error("no"); }
    ~throws_on_move() {}
};

} // namespace

TEST_CASE("live: an access that throws leaves the queued events counted") {
    sfg::session s(collect_hb());
    sfg::shared<int> x("x", 0);
    sfg::shared<throws_on_move> y("y");
    x.store(0);
    (void)y.load();
    CHECK(s.events() == 2);
    for (int i = 0; i < 5; ++i)
        x.store(i);
    CHECK_THROWS(y.store(throws_on_move{}));
    CHECK(s.events() == 7); // the five stores, checked before events() returns
}

#if defined(__linux__) && defined(__GLIBC__)
TEST_CASE("live: the checker thread is named sfg-checker while its session is open") {
    auto checker_threads = [] {
        int n = 0;
        for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
            std::ifstream comm(task.path() / "comm");
            std::string name;
            std::getline(comm, name);
            n += name == "sfg-checker";
        }
        return n;
    };
    {
        sfg::session s(collect_all());
        // Named as the session opens.
        sfg::shared<int> x("x", 0);
        x = 1;
        CHECK(s.findings().empty());
        CHECK(checker_threads() == 1);
    }
    CHECK(checker_threads() == 0);
}
#endif

TEST_CASE("live: objects handed around through sfg::queue under contention, each deq after its "
          "enq") {
    // Producers fill objects of their own and push them into `work`; consumers pop them, write
    // them and push them into `done`; main takes them all out at the end. Only enq → deq orders
    // the objects' accesses, so a deq placed before its enq would be a race (and an ill-formed
    // trace). A plain payload beside each object is ordered by the queue's own lock alone, which
    // ThreadSanitizer sees.
    constexpr int producers = 4, consumers = 3, per = 150, objects = producers * per;
    sfg::session_options o = collect_all();
    o.analyses = "hb,fasttrack,goldilocks";
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_queue", "std"))
                                 .string();
    o.trace_path = path;
    std::uint64_t events = 0;
    {
        sfg::session s(o);
        sfg::queue<int> work("work"), done("done");
        std::vector<std::unique_ptr<sfg::shared<int>>> objs;
        std::vector<int> payload(objects, 0);
        for (int i = 0; i < objects; ++i)
            objs.push_back(std::make_unique<sfg::shared<int>>("o" + std::to_string(i), 0));
        std::atomic<int> taken{0}, wrong{0};
        sfg::thread_group g;
        for (int p = 0; p < producers; ++p)
            g.add("p" + std::to_string(p), [&, p] {
                for (int i = p * per; i < (p + 1) * per; ++i) {
                    payload[static_cast<std::size_t>(i)] = i;
                    objs[static_cast<std::size_t>(i)]->store(i);
                    work.push(*objs[static_cast<std::size_t>(i)]);
                }
            });
        for (int c = 0; c < consumers; ++c)
            g.add("c" + std::to_string(c), [&] {
                while (taken.fetch_add(1) < objects) {
                    sfg::shared<int>& x = work.pop();
                    const int v = x.load();
                    if (payload[static_cast<std::size_t>(v)] != v)
                        ++wrong;
                    x.store(-v);
                    done.push(x);
                }
            });
        g.start();
        g.join();
        int n = 0;
        long sum = 0;
        while (auto x = done.try_pop()) {
            sum += x->get().load();
            ++n;
        }
        CHECK_FALSE(work.try_pop());
        CHECK(n == objects);
        CHECK(sum == -static_cast<long>(objects) * (objects - 1) / 2);
        CHECK(wrong == 0);
        for (const sfg::finding& f : s.findings())
            FAIL_CHECK(f.message);
        // fork; per object w enq (producer), deq r w enq (consumer), deq r (main); join
        CHECK(s.events() == 2 + static_cast<std::uint64_t>(objects) * 8);
        events = s.events();
    }
    // Well-formed: no deq before its enq.
    const sfg::testing::Replay replay(path, {"hb", "fasttrack", "goldilocks"});
    CHECK(replay.result.events == events);
    for (const auto& a : replay.analyses)
        CHECK(a->findings(replay.syms).empty());
    std::filesystem::remove(path);
}
