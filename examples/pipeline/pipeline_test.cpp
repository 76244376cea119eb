// Fork, read-only sharing, join. The broken versions touch the configuration after handing it
// over: main changes it while the workers read it, or a worker writes it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "pipeline.sfg.hpp"

#include <sfg/doctest.hpp>

namespace {

enum class mistake { none, main_writes_after_fork, worker_writes };

int run_pipeline(mistake m) {
    sfg::shared<int> config("config", 0), result0("result0", 0), result1("result1", 0);
    config.store(7);
    sfg::thread_group workers; // one fork(left, right), one join(left, right)
    workers.add("left", [&] {
        int acc = 0;
        for (int i = 0; i < 100; ++i)
            acc += config.load();
        result0.store(acc);
    });
    workers.add("right", [&] {
        int acc = 0;
        for (int i = 0; i < 100; ++i)
            acc += 2 * config.load();
        if (m == mistake::worker_writes)
            config.store(0);
        result1.store(acc);
    });
    workers.start();
    if (m == mistake::main_writes_after_fork)
        config.store(8); // the object was handed over
    workers.join();
    config.store(9); // ours again
    return result0.load() + result1.load();
}

} // namespace

TEST_CASE("fork, read, join") {
    sfg::doctest_session s(pipeline::spec());
    CHECK(run_pipeline(mistake::none) == 2100);
}

TEST_CASE("main writes the configuration after handing it over") {
    for (int run = 0; run < 10; ++run) {
        sfg::doctest_session s(pipeline::spec());
        SFG_EXPECT_FINDING(
            "violation", "config",
            SFG_EXPECT_FINDING("race", "config", run_pipeline(mistake::main_writes_after_fork)));
    }
}

TEST_CASE("a worker writes the read-only configuration") {
    for (int run = 0; run < 10; ++run) {
        sfg::doctest_session s(pipeline::spec());
        SFG_EXPECT_FINDING(
            "violation", "config",
            SFG_EXPECT_FINDING("race", "config", run_pipeline(mistake::worker_writes)));
    }
}
