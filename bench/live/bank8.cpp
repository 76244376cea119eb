// The live runtime's overhead (bench/live/run.sh): the bank account scaled up, 8 threads and
// 10^6 operations on annotated variables (arguments: operations, threads) (half on the shared
// balance under its lock, half on each thread's own counter). Built three ways from this one
// source: plain (SFG_DISABLE), with the sfg runtime, and plain under -fsanitize=thread. Prints the
// wall-clock seconds.
#include "bank8.sfg.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const long operations = argc > 1 ? std::atol(argv[1]) : 1000000;
    const int threads = argc > 2 ? std::atoi(argv[2]) : 8; // at most 8: the spec's t0..t7
    const long per_thread = operations / threads / 2;      // each round: one shared, one own update
    const auto start = std::chrono::steady_clock::now();
    long final_balance = 0;
    {
        sfg::session s(bank8::spec()); // analyses and policy: SFG_OPTIONS
        sfg::mutex m("m");
        sfg::shared<long> balance("balance", 0);
        std::vector<std::unique_ptr<sfg::shared<long>>> own;
        for (int t = 0; t < threads; ++t)
            own.push_back(std::make_unique<sfg::shared<long>>("own" + std::to_string(t), 0));
        balance.store(0);
        {
            std::vector<std::unique_ptr<sfg::thread>> workers;
            for (int t = 0; t < threads; ++t)
                workers.push_back(std::make_unique<sfg::thread>("t" + std::to_string(t), [&, t] {
                    sfg::shared<long>& mine = *own[static_cast<std::size_t>(t)];
                    for (long i = 0; i < per_thread; ++i) {
                        {
                            std::lock_guard g(m);
                            balance.store(balance.load() + 1);
                        }
                        mine.store(mine.load() + 1);
                    }
                }));
        }
        final_balance = balance.load();
        if (!s.findings().empty()) {
            std::fprintf(stderr, "bank8: unexpected findings\n");
            return 1;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (final_balance != per_thread * threads) {
        std::fprintf(stderr, "bank8: wrong balance %ld\n", final_balance);
        return 1;
    }
    std::printf("%.6f\n", seconds);
    return 0;
}
