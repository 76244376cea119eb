// A pool of three workers and a task that goes through the queue q: main fills it in and puts it
// into q; a worker takes it out, does one step of it alone and puts it back, until all steps are
// done; a worker that takes the finished task puts it back and stops. The queue's own locking is
// not instrumented: sfg sees only the task put in and taken out (thesis §5.1).
// The broken version: each worker first peeks at the task to see whether there is work left,
// touching a task it has not taken out of q.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "pool.sfg.hpp"

#include <sfg/doctest.hpp>

#include <iostream>

namespace {

struct Task {
    int done = 0; // steps done
    long sum = 0; // of the steps' numbers
};

constexpr int steps = 100;

long run(bool peek) {
    sfg::queue<Task> q("q");
    sfg::shared<Task> task("task");
    sfg::shared<long> result("result", 0); // not in pool.sfg: checked for races only
    task.store({0, 0});                    // main, in EX(main)
    q.push(task);                          // main -q-> some worker
    sfg::thread_group workers;
    for (const char* name : {"w1", "w2", "w3"})
        workers.add(name, [&] {
            for (;;) {
                if (peek && task.load().done == steps) // not taken out of q
                    return;
                sfg::shared<Task>& t = q.pop(); // this worker's until it puts it back
                Task v = t.load();
                if (v.done < steps) {
                    ++v.done;
                    v.sum += v.done;
                    t.store(v);
                    if (v.done == steps)
                        result.store(v.sum);
                }
                q.push(t);
                if (v.done == steps)
                    return;
            }
        });
    workers.start();
    workers.join();
    return result; // ordered after the workers by the join
}

} // namespace

TEST_CASE("workers take the task out of q before touching it") {
    sfg::doctest_session s(pool::spec());
    CHECK(run(false) == steps * (steps + 1) / 2);
}

TEST_CASE("a worker peeking at a task it has not taken: a violation, every run") {
    for (int i = 0; i < 10; ++i) {
        sfg::doctest_session s(pool::spec());
        const std::size_t before = s.mark();
        run(true);
        CHECK(s.expect(before, "violation", "task"));
        s.expect(before, "race", "task"); // when another worker wrote it meanwhile
        // The report says what the worker should have done: take the task out of q first.
        const std::vector<sfg::finding> fs = s.findings();
        REQUIRE(!fs.empty());
        CHECK(fs[0].message.find("must deq(q,task) before reading task") != std::string::npos);
        if (i == 0)
            std::cout << fs[0].message;
    }
}
