// Short-lived threads in the live runtime (bench/live/short_threads.sh, docs/enforcers.md):
// TASKS tasks, each a few updates of a shared total under a lock and a result of its own, run
// either by a thread of its own, forked and joined one at a time by main ("short"), or by 8
// long-lived workers that take the tasks in turn ("pool"). Analyses and policy: SFG_OPTIONS (no
// spec: race detection). Prints the wall-clock seconds.
//
// Usage: live_pool short|pool [TASKS]
#include "sfg/sfg.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int results = 64;

struct Shared {
    sfg::mutex q{"q"};
    sfg::shared<long> total{"total", 0};
    std::vector<std::unique_ptr<sfg::shared<long>>> res;
    Shared() {
        for (int i = 0; i < results; ++i)
            res.push_back(std::make_unique<sfg::shared<long>>("res" + std::to_string(i), 0));
    }
    void task(long i) {
        for (int k = 0; k < 7; ++k) {
            std::lock_guard g(q);
            total.store(total.load() + 1);
        }
        sfg::shared<long>& r = *res[static_cast<std::size_t>(i % results)];
        r.store(i);
        (void)r.load();
    }
};

} // namespace

int main(int argc, char** argv) {
    const bool short_lived = argc > 1 && std::strcmp(argv[1], "short") == 0;
    const long tasks = argc > 2 ? std::atol(argv[2]) : 60000;
    const auto start = std::chrono::steady_clock::now();
    long sum = 0;
    {
        sfg::session s;
        Shared sh;
        if (short_lived) {
            for (long i = 0; i < tasks; ++i) {
                sfg::thread t("T" + std::to_string(i), [&sh, i] { sh.task(i); });
                t.join();
                sum += sh.res[static_cast<std::size_t>(i % results)]->load();
            }
        } else {
            // Task i goes to worker i % 8: main hands it over through h, the worker hands the
            // result back through r (a mutex each, and the turn in a plain atomic counter).
            constexpr int workers = 8;
            sfg::mutex h("h"), r("r");
            std::atomic<long> next{0}, done{0};
            std::vector<std::unique_ptr<sfg::thread>> pool;
            for (int w = 0; w < workers; ++w)
                pool.push_back(std::make_unique<sfg::thread>("W" + std::to_string(w), [&, w] {
                    for (long i = w; i < tasks; i += workers) {
                        while (next.load(std::memory_order_acquire) != i)
                            std::this_thread::yield();
                        {
                            std::lock_guard g(h);
                        }
                        sh.task(i);
                        {
                            std::lock_guard g(r);
                        }
                        done.store(i + 1, std::memory_order_release);
                    }
                }));
            for (long i = 0; i < tasks; ++i) {
                {
                    std::lock_guard g(h);
                }
                next.store(i, std::memory_order_release);
                while (done.load(std::memory_order_acquire) != i + 1)
                    std::this_thread::yield();
                std::lock_guard g(r);
                sum += sh.res[static_cast<std::size_t>(i % results)]->load();
            }
            for (auto& w : pool)
                w->join();
        }
        // Race-free; eraser's warnings (the results are written with no lock held) are fine.
        for (const sfg::finding& f : s.findings())
            if (f.kind != "warning") {
                std::fprintf(stderr, "pool: unexpected %s: %s\n", f.kind.c_str(),
                             f.message.c_str());
                return 1;
            }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sum != tasks * (tasks - 1) / 2) {
        std::fprintf(stderr, "pool: wrong sum %ld\n", sum);
        return 1;
    }
    std::printf("%.6f\n", seconds);
    return 0;
}
