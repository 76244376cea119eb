// sfg::explore (docs/explore.md): every schedule of a C++ body, each finding kind provoked, replay
// strings that reproduce, and the limits it refuses; sfg::await, under explore and live. No spec:
// it runs in the runtime's own build and its ThreadSanitizer build.
#include "random_trace.hpp"
#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

sfg::explore_options mode(sfg::explore_mode m) {
    sfg::explore_options o;
    o.mode = m;
    return o;
}

const sfg::explore_finding* find(const sfg::explore_report& r, const std::string& kind,
                                 const std::string& var = "") {
    for (const sfg::explore_finding& f : r.findings)
        if (f.kind == kind && (var.empty() || f.var == var))
            return &f;
    return nullptr;
}

// Two threads increment a volatile with a load and a store: an update is lost on 4 of the 6
// interleavings of the two loads and stores.
void lost_update() {
    sfg::volatile_var<int> x("x", 0);
    sfg::thread t("t", [&] { x.store(x.load() + 1); });
    x.store(x.load() + 1);
    t.join();
    sfg::check(x.load() == 2, "no lost update");
}

// A payload handed over through a volatile flag: t writes data then raises the flag; main awaits
// the flag and reads data. The flag's vw -> vr orders the accesses to data: no race.
void handshake() {
    sfg::shared<int> data("data", 0);
    sfg::volatile_var<int> flag("flag", 0);
    sfg::thread t("t", [&] {
        data = 42;
        flag.store(1);
    });
    sfg::await([&] { return flag.load() == 1; }, flag);
    sfg::check(data.load() == 42, "data handed over");
    t.join();
}

} // namespace

TEST_CASE("explore: naive runs every interleaving and finds the lost update") {
    const sfg::explore_report r = sfg::explore(lost_update, mode(sfg::explore_mode::naive));
    CHECK(r.executions == 6);
    CHECK(r.complete);
    REQUIRE(r.findings.size() == 1);
    const sfg::explore_finding& f = r.findings[0];
    CHECK(f.kind == "assert");
    CHECK(f.var == "no lost update");
    CHECK(f.message.find("check failed: no lost update") != std::string::npos);
    CHECK(f.message.find("explore_test.cpp") != std::string::npos); // the step table's call sites
    CHECK(r.to_string().find("6 executions") != std::string::npos);
}

TEST_CASE("explore: a finding's replay string runs exactly its schedule again") {
    const sfg::explore_report r = sfg::explore(lost_update, mode(sfg::explore_mode::naive));
    REQUIRE(r.findings.size() == 1);
    sfg::explore_options o;
    o.replay = r.findings[0].schedule;
    const sfg::explore_report again = sfg::explore(lost_update, o);
    CHECK(again.executions == 1);
    REQUIRE(again.findings.size() == 1);
    CHECK(again.findings[0].kind == "assert");
    CHECK(again.findings[0].schedule == r.findings[0].schedule);
    // A schedule that does not fit the body is nondeterminism, never a wrong verdict.
    o.replay = "sfg1:1*3";
    const sfg::explore_report wrong = sfg::explore(lost_update, o);
    CHECK(find(wrong, "nondeterminism") != nullptr);
    for (const char* bad : {"", "sfg2:0", "sfg1:0.", "sfg1:0*x", "sfg1:a", "sfg1:0;1"}) {
        o.replay = bad;
        if (o.replay.empty())
            continue;
        CHECK_THROWS_AS(sfg::explore(lost_update, o), std::invalid_argument);
    }
}

TEST_CASE("explore: a race on a shared variable is hb's finding on the runs that have it") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::shared<int> x("x", 0);
            sfg::mutex m("m");
            sfg::thread t("t", [&] {
                std::lock_guard g(m);
                x = x + 1;
            });
            x = 5; // not under m
            t.join();
        },
        mode(sfg::explore_mode::naive));
    CHECK(r.complete);
    const sfg::explore_finding* f = find(r, "race", "x");
    REQUIRE(f != nullptr);
    CHECK(f->analysis == "hb");
}

TEST_CASE("explore: locks taken in opposite orders deadlock on some schedule") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::mutex a("a"), b("b");
            sfg::thread t("t", [&] {
                std::lock_guard g(a);
                std::lock_guard h(b);
            });
            {
                std::lock_guard g(b);
                std::lock_guard h(a);
            }
            t.join();
        },
        mode(sfg::explore_mode::naive));
    const sfg::explore_finding* f = find(r, "deadlock");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("waits to acq(a), held by t") != std::string::npos);
    CHECK(f->message.find("waits to acq(b), held by main") != std::string::npos);
    CHECK(r.complete); // the other schedules ran too
}

TEST_CASE("explore: try_lock fails on the schedules where the lock is held") {
    std::atomic<int> taken{0}, refused{0};
    const sfg::explore_report r = sfg::explore(
        [&] {
            sfg::mutex m("m");
            sfg::thread t("t", [&] { std::lock_guard g(m); });
            if (m.try_lock()) {
                ++taken;
                m.unlock();
            } else {
                ++refused;
            }
            t.join();
        },
        mode(sfg::explore_mode::naive));
    CHECK(r.findings.empty());
    CHECK(taken > 0);
    CHECK(refused > 0);
}

TEST_CASE("explore: a notify before the wait is lost, a deadlock; a predicate wait is not") {
    const auto handoff = [](bool with_predicate) {
        return [with_predicate] {
            sfg::mutex m("m");
            sfg::condition_variable c("c");
            sfg::volatile_var<int> ready("ready", 0);
            sfg::thread t("t", [&] {
                std::unique_lock l(m);
                ready.store(1);
                c.notify_one();
            });
            {
                std::unique_lock l(m);
                if (with_predicate)
                    c.wait(l, [&] { return ready.load() == 1; });
                else
                    c.wait(l);
            }
            t.join();
        };
    };
    const sfg::explore_report lost = sfg::explore(handoff(false), mode(sfg::explore_mode::naive));
    const sfg::explore_finding* f = find(lost, "deadlock");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("no notify since it began waiting") != std::string::npos);
    const sfg::explore_report fixed = sfg::explore(handoff(true), mode(sfg::explore_mode::naive));
    CHECK(fixed.findings.empty());
    CHECK(fixed.complete);
}

TEST_CASE("explore: notify_one wakes one waiter, notify_all every one") {
    const auto waiters = [](bool all) {
        return [all] {
            sfg::mutex m("m");
            sfg::condition_variable c("c");
            sfg::volatile_var<int> go("go", 0);
            const auto wait = [&] {
                std::unique_lock l(m);
                c.wait(l, [&] { return go.load() == 1; });
            };
            sfg::thread a("a", wait), b("b", wait);
            {
                std::unique_lock l(m);
                go.store(1);
            }
            if (all)
                c.notify_all();
            else
                c.notify_one();
            a.join();
            b.join();
        };
    };
    // notify_one: when both wait already, one of them is never woken.
    CHECK(find(sfg::explore(waiters(false), mode(sfg::explore_mode::naive)), "deadlock"));
    const sfg::explore_report all = sfg::explore(waiters(true), mode(sfg::explore_mode::naive));
    CHECK(all.findings.empty());
}

TEST_CASE("explore: a spin loop with sfg::yield is a wait; without it, the bound") {
    const auto spin = [](bool yield) {
        return [yield] {
            sfg::volatile_var<int> flag("flag", 0);
            sfg::thread t("t", [&] { flag.store(1); });
            while (flag.load() == 0)
                if (yield)
                    sfg::yield();
            t.join();
        };
    };
    sfg::explore_options o = mode(sfg::explore_mode::naive);
    o.max_steps = 50;
    const sfg::explore_report waits = sfg::explore(spin(true), o);
    CHECK_MESSAGE(waits.findings.empty(), waits.to_string());
    CHECK(waits.complete);
    const sfg::explore_report loops = sfg::explore(spin(false), o);
    const sfg::explore_finding* f = find(loops, "bound");
    REQUIRE(f != nullptr);
    CHECK(!loops.complete);
}

TEST_CASE("explore: a thread that ends with an exception is an assert; the others go on") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> x("x", 0);
            sfg::thread t("worker", [&] {
                x.store(1);
                throw std::runtime_error("disk full");
            });
            x.store(2);
            t.join(); // returns normally: the failure is reported where it happened
        },
        mode(sfg::explore_mode::naive));
    const sfg::explore_finding* f = find(r, "assert", "worker");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("disk full") != std::string::npos);
    CHECK(r.complete);
}

TEST_CASE("explore: a failed check unwinds its thread; a lock_guard lets its lock go") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::mutex m("m");
            sfg::volatile_var<int> x("x", 0);
            sfg::thread t("t", [&] {
                std::lock_guard g(m);
                sfg::check(x.load() == 1, "x set first");
            });
            {
                std::lock_guard g(m);
                x.store(1);
            }
            t.join();
        },
        mode(sfg::explore_mode::naive));
    CHECK(find(r, "assert", "x set first") != nullptr);
    CHECK(find(r, "deadlock") == nullptr);
}

TEST_CASE("explore: a body that does something else on a replayed prefix is nondeterminism") {
    int runs = 0; // state outside sfg: the second run takes another path
    const sfg::explore_report r = sfg::explore(
        [&] {
            sfg::volatile_var<int> x("x", 0), y("y", 0);
            if (runs++ == 0) // the first step, which every later run replays
                x.store(2);
            else
                y.store(2);
            sfg::thread t("t", [&] { x.store(1); });
            x.store(3);
            t.join();
        },
        mode(sfg::explore_mode::naive));
    const sfg::explore_finding* f = find(r, "nondeterminism");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("vw(y)") != std::string::npos);
}

// A fresh thread waits at the first step its thread took in an earlier run, without running to it
// (docs/explore.md, "How it works"): a first step that is another one, or none, once it runs, is
// nondeterminism too.
TEST_CASE("explore: a thread whose first step differs from an earlier run's is nondeterminism") {
    for (const bool ends : {false, true}) {
        CAPTURE(ends);
        int runs = 0; // state outside sfg: the thread's first step changes after the first run
        const sfg::explore_report r = sfg::explore(
            [&] {
                sfg::volatile_var<int> x("x", 0), y("y", 0);
                sfg::thread t("t", [&] {
                    if (runs++ == 0)
                        x.store(1);
                    else if (!ends)
                        y.store(1);
                });
                x.store(2);
                t.join();
            },
            mode(sfg::explore_mode::naive));
        const sfg::explore_finding* f = find(r, "nondeterminism");
        REQUIRE(f != nullptr);
        INFO(f->message);
        CHECK(f->message.find(ends ? "ended before its first sfg operation, vw(x)"
                                   : "did vw(y) where the same thread's first step was vw(x)") !=
              std::string::npos);
    }
}

// A thread's first step known from an earlier run is used only when its creator had received
// nothing from another thread before the fork: here b's first step follows the value main read,
// which differs between runs of a deterministic body.
TEST_CASE("explore: a thread whose first step follows what its creator read is not predicted") {
    const auto body = [] {
        sfg::volatile_var<int> x("x", 0), y("y", 0), z("z", 0);
        sfg::thread a("a", [&] { x.store(1); });
        const int v = x.load();
        sfg::thread b("b", [&, v] {
            if (v)
                y.store(1);
            else
                z.store(1);
        });
        a.join();
        b.join();
    };
    for (const sfg::explore_mode m : {sfg::explore_mode::naive, sfg::explore_mode::dpor}) {
        const sfg::explore_report r = sfg::explore(body, mode(m));
        INFO(r.to_string());
        CHECK(r.findings.empty());
        CHECK(r.complete);
        if (m == sfg::explore_mode::dpor)
            CHECK(r.classes == 2); // main's load before a's store, or after it
    }
}

TEST_CASE("explore: a thread blocked on a std::mutex is uncontrolled; the exploration stops") {
    std::mutex raw; // not an sfg primitive: the explorer cannot see who holds it
    sfg::explore_options o = mode(sfg::explore_mode::naive);
    o.uncontrolled_after_ms = 100;
    const sfg::explore_report r = sfg::explore(
        [&] {
            sfg::volatile_var<int> x("x", 0);
            sfg::thread t("t", [&] {
                std::lock_guard g(raw);
                x.store(1);
            });
            std::lock_guard g(raw);
            x.store(2); // parks holding raw: t, when it runs, blocks on it
            t.join();
        },
        o);
    const sfg::explore_finding* f = find(r, "uncontrolled", "t");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("without reaching an sfg operation") != std::string::npos);
    CHECK(r.executions == 1);
    CHECK(!r.complete);
}

// The threads of a run run on OS threads the exploration keeps (docs/explore.md, "What the body
// may do"): one that served an ended thread serves the next as a thread of its own, whose events
// are its own.
TEST_CASE("explore: threads started after others have ended are told apart from them") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::shared<int> x("x", 0);
            {
                sfg::thread a("a", [&] { x = 1; });
                a.join();
            }
            sfg::thread_group g;
            g.add("b", [&] { x = 2; });
            g.add("c", [&] { (void)x.load(); });
            g.start();
            g.join();
        },
        mode(sfg::explore_mode::naive));
    CHECK(r.complete);
    REQUIRE(r.findings.size() == 1);
    const sfg::explore_finding& f = r.findings.front();
    CHECK(f.kind == "race");
    CHECK(f.var == "x");
    CHECK(f.message.find("thread a") == std::string::npos);
}

TEST_CASE("explore: barriers, queues, thread groups and blocks run with no finding") {
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::barrier b("b", 2);
            sfg::queue<int> q("q");
            sfg::shared<int> item("item", 0);
            sfg::shared<int> x("x", 0);
            sfg::thread_group g;
            g.add("producer", [&] {
                item = 7;
                q.push(item);
                x = 1;
                b.arrive_and_wait();
            });
            g.add("consumer", [&] {
                sfg::shared<int>& got = q.pop();
                got = got + 1;
                b.arrive_and_wait();
                x = 2; // after the barrier: ordered after the producer's write
            });
            g.start();
            g.join();
            sfg::check(item.load() == 8, "the consumer updated the item");
        },
        mode(sfg::explore_mode::naive));
    CHECK(r.findings.empty());
    CHECK(r.complete);
    CHECK(r.executions > 1);
}

TEST_CASE("explore: the preemption bound prunes schedules and says so") {
    sfg::explore_options o = mode(sfg::explore_mode::naive);
    const sfg::explore_report all = sfg::explore(lost_update, o);
    o.max_preemptions = 0;
    const sfg::explore_report none = sfg::explore(lost_update, o);
    CHECK(none.executions < all.executions);
    CHECK(!none.complete);
}

TEST_CASE("explore: random and pct find the lost update from a seed, the same way each time") {
    for (sfg::explore_mode m : {sfg::explore_mode::random, sfg::explore_mode::pct}) {
        sfg::explore_options o = mode(m);
        o.max_executions = 200;
        o.seed = 7;
        const sfg::explore_report a = sfg::explore(lost_update, o);
        const sfg::explore_report b = sfg::explore(lost_update, o);
        CHECK(a.executions == 200);
        CHECK(!a.complete);
        REQUIRE(find(a, "assert") != nullptr);
        REQUIRE(find(b, "assert") != nullptr);
        CHECK(find(a, "assert")->schedule == find(b, "assert")->schedule);
    }
}

// SCTBench's reorder pattern: a checker must read between one setter's two writes, behind many
// setters. PCT (depth 3) finds it within a few hundred runs; uniform random choice and the first
// runs of DPOR's depth-first search do not.
TEST_CASE("explore: pct finds a depth-2 bug behind nine threads that random and dpor miss") {
    const auto reorder = [] {
        sfg::volatile_var<int> a("a", 0), b("b", 0);
        std::deque<sfg::thread> threads;
        for (int i = 0; i < 9; ++i)
            threads.emplace_back("set" + std::to_string(i), [&] {
                a.store(1);
                b.store(-1);
            });
        threads.emplace_back("check", [&] {
            const int x = a.load(), y = b.load();
            sfg::check((x == 0 && y == 0) || (x == 1 && y == -1), "a and b set together");
        });
        for (sfg::thread& t : threads)
            t.join();
    };
    sfg::explore_options o;
    o.max_executions = 300;
    o.analyses = "";
    o.mode = sfg::explore_mode::pct;
    CHECK(find(sfg::explore(reorder, o), "assert") != nullptr);
    o.mode = sfg::explore_mode::random;
    CHECK(find(sfg::explore(reorder, o), "assert") == nullptr);
    o.mode = sfg::explore_mode::dpor;
    CHECK(find(sfg::explore(reorder, o), "assert") == nullptr);
}

TEST_CASE("explore: no cap on threads (64 of them, each a few steps)") {
    sfg::explore_options o;
    o.mode = sfg::explore_mode::random;
    o.max_executions = 5;
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> hits("hits", 0);
            sfg::mutex m("m");
            sfg::shared<int> total("total", 0);
            std::deque<sfg::thread> threads;
            for (int i = 0; i < 64; ++i)
                threads.emplace_back("w" + std::to_string(i), [&] {
                    hits.fetch_add(1);
                    std::lock_guard g(m);
                    total = total + 1;
                });
            for (sfg::thread& t : threads)
                t.join();
            sfg::check(hits.load() == 64 && total.load() == 64, "every worker counted");
        },
        o);
    CHECK(r.executions == 5);
    CHECK(r.findings.empty());
}

TEST_CASE("explore: refused where it cannot work") {
    CHECK_THROWS_AS(sfg::explore(std::function<void()>{}), std::invalid_argument);
    {
        sfg::session s;
        CHECK_THROWS_AS(sfg::explore(lost_update), std::invalid_argument);
    }
    bool nested_refused = false;
    sfg::explore(
        [&] {
            try {
                sfg::explore([] {});
            } catch (const std::invalid_argument&) {
                nested_refused = true;
            }
        },
        mode(sfg::explore_mode::naive));
    CHECK(nested_refused);
    CHECK_THROWS_AS(sfg::check(false, "outside"), sfg::check_failure);
}

TEST_CASE("explore: SFG_EXPLORE overrides the options; bad values are refused") {
    ::setenv("SFG_EXPLORE", "mode=naive:max_preemptions=0", 1);
    const sfg::explore_report bounded = sfg::explore(lost_update);
    ::unsetenv("SFG_EXPLORE");
    CHECK(!bounded.complete);
    for (const char* bad : {"mode=fast", "max_steps=ten", "colour=red", "seed", "shard=2",
                            "shard=0/2", "shard=3/2", "shard=1/0", "shard=a/b"}) {
        ::setenv("SFG_EXPLORE", bad, 1);
        CHECK_THROWS_AS(sfg::explore(lost_update), std::invalid_argument);
    }
    ::unsetenv("SFG_EXPLORE");
}

// An sfg object that outlives a run (the test's own, a static of the body, one shared by two
// explorations) carries its state (a value, a lock's holder) from run to run: a misuse finding
// naming it, and the exploration stops, instead of findings the body does not have.
TEST_CASE("explore: an sfg object used by two runs is a misuse; the exploration stops") {
    const auto refused = [](const sfg::explore_report& r, const std::string& name) {
        INFO(r.to_string());
        REQUIRE(r.findings.size() == 1);
        CHECK(r.findings[0].kind == "misuse");
        CHECK(r.findings[0].var == name);
        CHECK(r.findings[0].message.find("'" + name + "' was used by an earlier run") !=
              std::string::npos);
        CHECK_FALSE(r.complete);
        CHECK(r.executions <= 2); // the run that used it first, and the next
    };
    sfg::volatile_var<int> outside("outside", 0);
    sfg::mutex m("m");
    const auto body = [&] {
        sfg::thread t("t", [&] { outside.store(outside.load() + 1); });
        m.lock(); // and never unlocked: a holder that would carry over
        outside.store(1);
        t.join();
    };
    refused(sfg::explore(body), "m");
    for (const sfg::explore_mode md : {sfg::explore_mode::naive, sfg::explore_mode::random})
        refused(sfg::explore(body, mode(md)), "m");
    refused(sfg::explore(
                [] {
                    static sfg::shared<int> counter("counter", 0);
                    counter = counter.load() + 1;
                },
                mode(sfg::explore_mode::random)),
            "counter");
    // One run each, but the same object in both explorations.
    sfg::explore_options once = mode(sfg::explore_mode::random);
    once.max_executions = 1;
    sfg::volatile_var<int> between("between", 0);
    const auto store = [&] { between.store(1); };
    CHECK(sfg::explore(store, once).findings.empty());
    refused(sfg::explore(store, once), "between");
    // Objects of the body itself, at the same address every run: no finding.
    CHECK(sfg::explore(lost_update).findings.size() == 1);
}

// The parts of a search on machines of their own (docs/explore.md, "More than one machine"):
// each writes its part_file, and the parts merge into the whole search's report; files that are
// not the parts of one search are refused, naming the file and the problem.
TEST_CASE(
    "explore: parts written to files merge into the whole; parts that do not fit are refused") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "sfg_explore_parts";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const auto part = [&](const std::string& name, void (*body)(), unsigned k, unsigned n,
                          sfg::explore_options o = {}) {
        o.shard = k;
        o.shards = n;
        o.part_file = (dir / name).string();
        sfg::explore(body, o);
        return o.part_file;
    };
    const sfg::explore_report whole = sfg::explore(lost_update);
    REQUIRE(whole.findings.size() == 1);
    const std::string p1 = part("p1.json", lost_update, 1, 2);
    const std::string p2 = part("p2.json", lost_update, 2, 2);
    const sfg::explore_report merged = sfg::merge_explore_parts({p2, p1});
    CHECK(merged.to_string() == whole.to_string());
    CHECK(merged.classes == whole.classes);
    // One part of one: the whole search itself.
    CHECK(sfg::merge_explore_parts({part("all.json", lost_update, 1, 1)}).to_string() ==
          whole.to_string());
    // task_budget 0: the search is one task, all in part 1; the other parts explore nothing.
    sfg::explore_options one_task;
    one_task.task_budget = 0;
    sfg::explore_options second = one_task;
    second.shard = 2;
    second.shards = 2;
    CHECK(sfg::explore(lost_update, second).executions == 0);
    CHECK(sfg::merge_explore_parts({part("q1.json", lost_update, 1, 2, one_task),
                                    part("q2.json", lost_update, 2, 2, one_task)})
              .to_string() == sfg::explore(lost_update, one_task).to_string());
    const auto refused = [](const std::vector<std::string>& files, const std::string& why) {
        CAPTURE(why);
        try {
            sfg::merge_explore_parts(files);
            FAIL("merged");
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(what.find(why) != std::string::npos);
        }
    };
    refused({p1}, "part 2 of 2 is missing");
    refused({p1, p2, p1}, "part 1 of 2 is given twice");
    refused({}, "no parts");
    sfg::explore_options other;
    other.max_steps = 500;
    refused({p1, part("o2.json", lost_update, 2, 2, other)},
            "different options (mode=dpor analyses=enforce,hb max_executions=1000000 "
            "max_steps=100000");
    refused({p1, part("h2.json", handshake, 2, 2)}, "divided the search differently");
    refused({p1, part("t3.json", lost_update, 3, 3)}, "is part 3 of 3, but");
    const auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream((dir / name).string()) << text;
        return (dir / name).string();
    };
    refused({p1, (dir / "none.json").string()}, "cannot open file");
    refused({p1, write("text.json", "a part?")}, "not JSON");
    refused({p1, write("report.json", R"({"executions": 6})")}, "no \"sfg_explore_part\"");
    refused({p1, write("v9.json", R"({"sfg_explore_part": 9})")}, "format 9");
    std::ifstream in(p2);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    text.replace(text.find("\"executions\""), 12, "\"execution\"");
    refused({p1, write("broken.json", text)}, "no \"executions\"");
    // "%n": each exploration of the process its own file.
    fs::remove_all(dir);
    fs::create_directories(dir);
    sfg::explore_options numbered;
    numbered.part_file = (dir / "n_%n.json").string();
    sfg::explore(lost_update, numbered);
    sfg::explore(handshake, numbered);
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    REQUIRE(names.size() == 2);
    CHECK(names[0] != names[1]);
    CHECK(names[0].rfind("n_", 0) == 0);
    CHECK(names[0].find('%') == std::string::npos);
    // An unwritable part file is an error, not a silent loss.
    sfg::explore_options nowhere;
    nowhere.part_file = (dir / "no_such_dir" / "p.json").string();
    CHECK_THROWS_AS(sfg::explore(lost_update, nowhere), std::runtime_error);
    fs::remove_all(dir);
}

TEST_CASE("explore: await hands a payload over through a flag, one step, no race") {
    // One class: t's write of data, its vw(flag), then main's await (enabled only after the vw),
    // its read of data. A spin loop would have one class more per failed load.
    const sfg::explore_report dpor = sfg::explore(handshake);
    CHECK_MESSAGE(dpor.findings.empty(), dpor.to_string());
    CHECK(dpor.complete);
    CHECK(dpor.classes == 1);
    CHECK(dpor.executions == 1);
    const sfg::explore_report naive = sfg::explore(handshake, mode(sfg::explore_mode::naive));
    CHECK_MESSAGE(naive.findings.empty(), naive.to_string());
    CHECK(naive.executions == 1);
}

TEST_CASE("explore: an await races with each write it may see; naming its volatiles fixes which") {
    // main awaits a condition on x and y, which two threads write; the await is enabled after
    // either write. With x + y >= 1 every evaluation reads both: the classes are the orders of the
    // await among the writes that can precede it, named or not. With x == 1 || y == 1 an
    // evaluation after x's write reads x alone: unnamed, the step then commutes with y's write (one
    // class fewer); named, it depends on both, as programs' await (docs/programs.md, "Modes").
    const auto body = [](bool named, bool short_circuit) {
        return [named, short_circuit] {
            sfg::volatile_var<int> x("x", 0), y("y", 0);
            sfg::thread a("a", [&] { x.store(1); });
            sfg::thread b("b", [&] { y.store(1); });
            const auto cond = [&] {
                return short_circuit ? x.load() == 1 || y.load() == 1 : x.load() + y.load() >= 1;
            };
            if (named)
                sfg::await(cond, x, y);
            else
                sfg::await(cond);
            a.join();
            b.join();
        };
    };
    for (const bool short_circuit : {false, true})
        for (const bool named : {false, true}) {
            INFO("named " << named << ", short-circuit " << short_circuit);
            const sfg::explore_report dpor = sfg::explore(body(named, short_circuit));
            const sfg::explore_report naive =
                sfg::explore(body(named, short_circuit), mode(sfg::explore_mode::naive));
            CHECK_MESSAGE(dpor.findings.empty(), dpor.to_string());
            CHECK_MESSAGE(naive.findings.empty(), naive.to_string());
            CHECK(dpor.complete);
            // naive: main forks a, forks b, awaits (A), joins a, joins b; x's write comes after
            // the first fork and before the first join, y's after the second fork and before the
            // second join, one of them before A: 8 interleavings
            CHECK(naive.executions == 8);
            // A after both writes, after x's alone, after y's alone; the first two one class when
            // A reads x alone
            CHECK(dpor.classes == (short_circuit && !named ? 2 : 3));
            CHECK(dpor.executions == dpor.classes);
        }
}

TEST_CASE("explore: an await that never holds is a deadlock") {
    const sfg::explore_report r = sfg::explore([] {
        sfg::volatile_var<int> flag("flag", 0);
        sfg::thread t("t", [&] { flag.store(2); });
        sfg::await([&] { return flag.load() == 1; }, flag);
        t.join();
    });
    const sfg::explore_finding* f = find(r, "deadlock");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("main waits until its await on flag holds") != std::string::npos);
}

TEST_CASE("explore: a condition that changes its mind when its thread runs is nondeterminism") {
    // The condition holds when the explorer peeks at it, and not when the thread evaluates it
    // (it counts its evaluations, state sfg does not control).
    const sfg::explore_report r = sfg::explore([] {
        sfg::volatile_var<int> flag("flag", 1);
        int evaluations = 0;
        sfg::await([&] { return flag.load() == 1 && ++evaluations % 2 == 1; }, flag);
    });
    const sfg::explore_finding* f = find(r, "nondeterminism");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("await on flag false") != std::string::npos);
}

TEST_CASE("live: await spins until its condition holds and records its last evaluation alone") {
    sfg::session_options o;
    o.policy = sfg::on_finding::collect;
    o.analyses = "hb,goldilocks";
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_await", "std"))
                                 .string();
    o.trace_path = path;
    std::atomic<int> evaluations{0};
    {
        sfg::session s(o);
        sfg::shared<int> data("data", 0);
        sfg::volatile_var<int> flag("flag", 0);
        sfg::thread t("t", [&] {
            while (evaluations.load() < 2) // main's await has found its condition false
                std::this_thread::yield();
            data = 42;
            flag.store(2);
        });
        sfg::await(
            [&] {
                ++evaluations;
                return flag.load() == 2;
            },
            flag);
        CHECK(data.load() == 42);
        t.join();
        CHECK(s.findings().empty());
    }
    CHECK(evaluations >= 3); // one false at least, the true one, its recorded repetition
    std::ifstream in(path);
    std::vector<std::string> main_reads;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("main|vr(flag", 0) == 0)
            main_reads.push_back(line.substr(0, line.find('|', 5)));
    }
    in.close();
    std::remove(path.c_str());
    CHECK(main_reads == std::vector<std::string>{"main|vr(flag=2)"});
}
