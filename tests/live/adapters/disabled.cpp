// SFG_DISABLE (docs/enforcers.md, "Switching it off"): the sfg:: types are their std counterparts;
// the same code builds without the runtime library (this program does not link it), the
// objects are as small as what they wrap, and nothing is checked.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "bank_cases.hpp"

#include <sfg/doctest.hpp>

#include <atomic>
#include <barrier>
#include <mutex>
#include <string>
#include <type_traits>

static_assert(sizeof(sfg::shared<int>) == sizeof(int));
static_assert(sizeof(sfg::shared<double>) == sizeof(double));
static_assert(sizeof(sfg::volatile_var<int>) == sizeof(std::atomic<int>));
static_assert(sizeof(sfg::mutex) == sizeof(std::mutex));
static_assert(sizeof(sfg::barrier) == sizeof(std::barrier<>));
static_assert(std::is_empty_v<sfg::deterministic>);
static_assert(!std::is_copy_constructible_v<sfg::deterministic> &&
              !std::is_move_constructible_v<sfg::deterministic>);

TEST_CASE("the same code, unchecked: the missing lock is not reported") {
    sfg::session s(bank::spec());
    bank_cases::run(true);
    bank_cases::run(false); // racy, as the program is; nothing reports it
    CHECK(s.findings().empty());
    CHECK(s.events() == 0);
}

TEST_CASE("the adapters compile and check nothing: SFG_EXPECT_FINDING passes") {
    sfg::doctest_session s(bank::spec());
    int ran = 0;
    SFG_EXPECT_FINDING("violation", "balance", ++ran);
    CHECK(ran == 1);
}

TEST_CASE("sfg::explore runs the body once; sfg::check throws when false") {
    int runs = 0;
    const sfg::explore_report r = sfg::check_explore([&] {
        ++runs;
        sfg::check(true, "holds");
    });
    CHECK(runs == 1);
    CHECK(r.executions == 1);
    CHECK(!r.complete);
    CHECK_THROWS_AS(sfg::check(false, "fails"), sfg::check_failure);
}

TEST_CASE("thread_group, volatile_var, barrier work as the std ones") {
    sfg::volatile_var<int> v("v", 0);
    sfg::barrier b("b", 2);
    sfg::thread_group g;
    g.add("a", [&] {
        v.store(1);
        b.arrive_and_wait();
    });
    g.add("b", [&] { b.arrive_and_wait(); });
    g.start();
    g.join();
    CHECK(v.load() == 1);
}

TEST_CASE("volatile_var's read-modify-writes are std::atomic's, from several threads") {
    sfg::volatile_var<int> count("count", 0), lock("lock", 0);
    int guarded = 0;
    sfg::thread_group g;
    for (int t = 0; t < 4; ++t)
        g.add("w" + std::to_string(t), [&] {
            for (int i = 0; i < 1000; ++i) {
                count.fetch_add(2, std::memory_order_relaxed);
                count.fetch_sub(1);
                int expected = 0;
                while (!lock.compare_exchange_weak(expected, 1, std::memory_order_acquire,
                                                   std::memory_order_relaxed)) {
                    expected = 0;
                    sfg::yield();
                }
                ++guarded;
                lock.store(0, std::memory_order_release);
            }
        });
    g.start();
    g.join();
    CHECK(count.load(std::memory_order_acquire) == 4000);
    CHECK(guarded == 4000);
    CHECK(count.exchange(7) == 4000);
    int expected = 7;
    CHECK(count.compare_exchange_strong(expected, 8));
    CHECK_FALSE(count.compare_exchange_strong(expected, 9));
    CHECK(expected == 8);
}

TEST_CASE("condition_variable waits and notifies as the std one") {
    sfg::mutex m("m");
    sfg::condition_variable cv("cv");
    int ready = 0;
    sfg::thread t("t", [&] {
        std::unique_lock l(m);
        cv.wait(l, [&] { return ready == 1; });
        ready = 2;
    });
    {
        std::lock_guard l(m);
        ready = 1;
    }
    cv.notify_all();
    t.join();
    CHECK(ready == 2);
}

TEST_CASE("a deterministic block is an empty scope: its threads run and join as usual") {
    sfg::session_options o;
    o.analyses = "singletrack";
    sfg::session s(o);
    sfg::mutex m("m");
    sfg::shared<int> sum("sum", 0);
    {
        sfg::deterministic block;
        sfg::thread a("a", [&] {
            std::lock_guard g(m);
            sum = sum + 1;
        });
        sfg::thread b("b", [&] {
            std::lock_guard g(m);
            sum = sum + 2;
        });
    }
    CHECK(sum == 3);
    CHECK(s.findings().empty()); // the conflict on m is not checked
}

TEST_CASE("queue is a FIFO of the objects, on std::mutex and std::condition_variable") {
    sfg::queue<int> q("q");
    sfg::shared<int> a("a", 1), b("b", 2);
    CHECK_FALSE(q.try_pop());
    q.push(a);
    q.push(b);
    sfg::thread t("t", [&] { CHECK(&q.pop() == &a); });
    t.join();
    auto next = q.try_pop();
    REQUIRE(next);
    CHECK(&next->get() == &b);
}
