// sfg::explore with a thread stuck outside sfg (docs/explore.md, "What it refuses"): an
// "uncontrolled" finding naming it, and explore returns, whichever thread is stuck, in this
// process or in a worker process; a stuck thread that wakes later is thrown out of the run.
// The mutexes and condition variables the stuck threads block on are never destroyed: those
// threads are left blocked on them for good.
#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;

#if defined(__SANITIZE_THREAD__)
constexpr bool in_process = true; // ThreadSanitizer: jobs > 1 explores in this process
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool in_process = true;
#else
constexpr bool in_process = false;
#endif
#else
constexpr bool in_process = false;
#endif

sfg::explore_options quick(sfg::explore_mode m) {
    sfg::explore_options o;
    o.mode = m;
    o.uncontrolled_after_ms = 100;
    return o;
}

const sfg::explore_finding* find(const sfg::explore_report& r, const std::string& kind) {
    for (const sfg::explore_finding& f : r.findings)
        if (f.kind == kind)
            return &f;
    return nullptr;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Explores `body` in `jobs` processes, promptly: a stuck run is left within seconds.
sfg::explore_report promptly(const std::function<void()>& body, sfg::explore_mode m,
                             unsigned jobs) {
    sfg::explore_options o = quick(m);
    o.jobs = jobs;
    const auto start = std::chrono::steady_clock::now();
    sfg::explore_report r = sfg::explore(body, o);
    CHECK(seconds_since(start) < 5);
    return r;
}

} // namespace

TEST_CASE("explore stuck: a thread blocked for good on a std::mutex the body holds") {
    const auto start = std::chrono::steady_clock::now();
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> x("x", 0);
            auto* raw = new std::mutex; // one a run, kept: the run's t blocks on it for good
            raw->lock();                // never let go: no unwinding frees t
            sfg::thread t("t", [&] {
                raw->lock();
                x.store(1);
            });
            x.store(2);
            t.join();
        },
        quick(sfg::explore_mode::naive));
    const sfg::explore_finding* f = find(r, "uncontrolled");
    REQUIRE(f != nullptr);
    CHECK(f->var == "t");
    CHECK(f->message.find("thread t ran for 100 ms") != std::string::npos);
    CHECK(r.executions == 1);
    CHECK(!r.complete);
    CHECK(seconds_since(start) < 5); // a probe run and the task's first run, 100 ms each
}

TEST_CASE("explore stuck: the body's own thread waits for good on a std::condition_variable") {
    // Never destroyed: at exit, glibc's destructor of a condition variable waits for its waiters.
    static auto* m = new std::mutex;
    static auto* never = new std::condition_variable;
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> x("x", 0);
            x.store(1);
            std::unique_lock lk(*m);
            never->wait(lk, [] { return false; });
        },
        quick(sfg::explore_mode::dpor));
    const sfg::explore_finding* f = find(r, "uncontrolled");
    REQUIRE(f != nullptr);
    CHECK(f->var == "main");
    CHECK(f->message.find("its last one: vw(x)") != std::string::npos);
    CHECK(r.executions == 1);
}

TEST_CASE("explore stuck: a thread that sleeps past the limit is thrown out when it wakes") {
    static std::atomic<int> woke{0}, went_on{0};
    struct Unwound {
        ~Unwound() { woke.fetch_add(1); }
    };
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> x("x", 0);
            sfg::thread t("t", [&] {
                const Unwound u;
                x.store(1);
                std::this_thread::sleep_for(300ms);
                x.store(2); // the run was left: this throws t out
                went_on.fetch_add(1);
            });
            x.store(3);
            t.join();
        },
        quick(sfg::explore_mode::random));
    const sfg::explore_finding* f = find(r, "uncontrolled");
    REQUIRE(f != nullptr);
    CHECK(f->var == "t");
    CHECK(f->message.find("its last one: vw(x)") != std::string::npos);
    CHECK(woke.load() == 0); // explore returned while t slept
    for (int i = 0; i < 300 && woke.load() == 0; ++i)
        std::this_thread::sleep_for(10ms);
    CHECK(woke.load() == 1);
    CHECK(went_on.load() == 0);
    // Another exploration meanwhile and after: its own threads only.
    sfg::explore_options o = quick(sfg::explore_mode::naive);
    const sfg::explore_report again = sfg::explore(
        [] {
            sfg::volatile_var<int> y("y", 0);
            sfg::thread u("u", [&] { y.store(1); });
            y.store(2);
            u.join();
        },
        o);
    CHECK(again.executions == 2);
    CHECK(again.findings.empty());
}

TEST_CASE("explore stuck: in a worker process (jobs 2 and 3), the same report, promptly") {
    // Locked here: in a worker (a fork) it stays locked, and t blocks on it for good where it
    // sees main's store first. Under ThreadSanitizer the tasks are explored in this process,
    // where t never blocks.
    static std::mutex held;
    static const pid_t test_process = ::getpid();
    held.lock();
    const auto body = [] {
        sfg::volatile_var<int> x("x", 0), y("y", 0);
        sfg::thread t("t", [&] {
            if (x.load() == 2 && ::getpid() != test_process)
                held.lock();
            y.store(1);
        });
        x.store(2);
        y.store(2);
        t.join();
    };
    sfg::explore_report reports[2];
    for (unsigned jobs : {2u, 3u}) {
        reports[jobs - 2] = promptly(body, sfg::explore_mode::dpor, jobs);
        const sfg::explore_finding* f = find(reports[jobs - 2], "uncontrolled");
        if (in_process) {
            CHECK(f == nullptr);
            CHECK(reports[jobs - 2].complete);
            continue;
        }
        REQUIRE(f != nullptr);
        CHECK(f->var == "t");
        CHECK(!reports[jobs - 2].complete);
    }
    held.unlock();
    const auto headline = [](const sfg::explore_report& r) {
        const std::string s = r.to_string();
        return s.substr(0, s.find('\n'));
    };
    CHECK(headline(reports[0]) == headline(reports[1]));
    REQUIRE(reports[0].findings.size() == reports[1].findings.size());
    for (std::size_t i = 0; i < reports[0].findings.size(); ++i)
        CHECK(reports[0].findings[i].schedule == reports[1].findings[i].schedule);
}

TEST_CASE("explore stuck: a deadlock whose unwinding blocks on a std::mutex held for good") {
    // Held by this thread for good (and so in a worker process, a fork of this one): a destructor
    // of t that takes it while t unwinds from the deadlock blocks for good.
    static auto* outside = new std::mutex;
    outside->lock();
    const auto body = [] {
        sfg::mutex a("a"), b("b");
        sfg::thread t("t", [&] {
            struct Unwinding {
                ~Unwinding() {
                    if (std::uncaught_exceptions() > 0)
                        const std::lock_guard g(*outside);
                }
            } const u;
            std::lock_guard g(a);
            std::lock_guard h(b);
        });
        {
            std::lock_guard g(b);
            std::lock_guard h(a);
        }
        t.join();
    };
    sfg::explore_report reports[2];
    for (unsigned jobs : {1u, 2u}) {
        reports[jobs - 1] = promptly(body, sfg::explore_mode::naive, jobs);
        const sfg::explore_report& r = reports[jobs - 1];
        REQUIRE(find(r, "deadlock") != nullptr);
        const sfg::explore_finding* f = find(r, "uncontrolled");
        REQUIRE(f != nullptr);
        CHECK(f->var == "t"); // not main, which waits to join it
        CHECK(f->message.find("thread t did not end within 26 ms after the run was given up "
                              "(deadlock)") != std::string::npos);
        CHECK(!r.complete);
    }
    CHECK(reports[0].to_string() == reports[1].to_string());
}

// The threads an exploration leaves idle serve the next one in the process (docs/explore.md,
// "How it works"); a fork's child has none of them and starts its own, instead of waiting for
// threads that are not there.
TEST_CASE("explore: the next exploration reuses the threads; a fork's child starts its own") {
    const auto lost_update = [] {
        sfg::shared<int> x("x", 0);
        sfg::thread t("t", [&] { x = x + 1; });
        x = x + 1;
        t.join();
    };
    sfg::explore_options naive;
    naive.mode = sfg::explore_mode::naive;
    const sfg::explore_report first = sfg::explore(lost_update, naive);
    CHECK(first.executions >= 6);
    CHECK(sfg::explore(lost_update, naive).to_string() == first.to_string());
    sfg::explore_options other = naive; // another watchdog: other threads
    other.uncontrolled_after_ms = 2000;
    CHECK(sfg::explore(lost_update, other).to_string() == first.to_string());
    CHECK(sfg::explore(lost_update, naive).to_string() == first.to_string()); // kept for the child
    if (in_process) // ThreadSanitizer does not support threads after a fork
        return;
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::alarm(30); // a child waiting for its parent's threads is killed, not left hanging
        const sfg::explore_report r = sfg::explore(lost_update, naive);
        ::_exit(r.to_string() == first.to_string() ? 0 : 1);
    }
    REQUIRE(pid > 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
