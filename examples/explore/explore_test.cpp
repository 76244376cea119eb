// Two bugs that a test run on real threads almost never shows, and sfg::explore shows on every
// run: a counter incremented with a load and a store (an update lost), and a consumer that waits
// on a condition variable without checking the condition first (a wake-up lost). Each broken
// version is expected to fail; each fix passes on every schedule.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <sfg/doctest.hpp>
#include <sfg/explore.hpp>

#include <mutex>

namespace {

void counter(bool atomic) {
    sfg::volatile_var<int> hits("hits", 0);
    const auto hit = [&] {
        if (atomic)
            hits.fetch_add(1);
        else
            hits.store(hits.load() + 1);
    };
    sfg::thread t("t", hit);
    hit();
    t.join();
    sfg::check(hits.load() == 2, "no update lost");
}

void mailbox(bool check_first) {
    sfg::mutex m("m");
    sfg::condition_variable ready("ready");
    sfg::shared<int> letter("letter", 0);
    sfg::volatile_var<bool> posted("posted", false);
    sfg::thread postman("postman", [&] {
        std::lock_guard g(m);
        letter.store(42);
        posted.store(true);
        ready.notify_one();
    });
    {
        std::unique_lock l(m);
        if (check_first)
            ready.wait(l, [&] { return posted.load(); });
        else
            ready.wait(l); // the notify may come before the wait: then it never comes
        sfg::check(letter.load() == 42, "the letter arrived");
    }
    postman.join();
}

} // namespace

TEST_CASE("a counter's load and store lose an update on some schedule") {
    sfg::expect_explore("assert", "no update lost", [] { counter(false); });
}

TEST_CASE("fetch_add loses none, on every schedule") {
    const sfg::explore_report r = sfg::check_explore([] { counter(true); });
    CHECK(r.complete);
}

TEST_CASE("a wait that does not check the condition first misses the notify") {
    sfg::expect_explore("deadlock", "", [] { mailbox(false); });
}

TEST_CASE("a wait on the condition gets the letter, on every schedule") {
    const sfg::explore_report r = sfg::check_explore([] { mailbox(true); });
    CHECK(r.complete);
}
