// The live runtime's overhead on a program that computes (bench/live/run.sh): the particle
// simulator (thesis Figure 3.4) scaled up, 8 threads and about 10^6 operations on annotated
// variables (argument: operations). Each step, every thread reads the 8 particles 16 times
// while it updates 4,096 cells of its own (plain memory: what sfg does not instrument and TSan
// does), then writes its particle; barrier b separates the phases. Built like bank8.cpp: plain
// (SFG_DISABLE), with the sfg runtime, and plain under -fsanitize=thread. Prints the wall-clock
// seconds.
#include "particles8.sfg.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    constexpr int threads = 8, reads = 16, cells = 4096;
    const long operations = argc > 1 ? std::atol(argv[1]) : 1000000;
    const long steps = operations / (threads * (threads * reads + 2));
    const auto start = std::chrono::steady_clock::now();
    double checksum = 0;
    {
        sfg::session s(particles8::spec()); // analyses and policy: SFG_OPTIONS
        sfg::barrier b("b", threads);
        std::vector<std::unique_ptr<sfg::shared<double>>> p;
        for (int i = 0; i < threads; ++i)
            p.push_back(std::make_unique<sfg::shared<double>>("p" + std::to_string(i), i));
        std::vector<double> sums(threads);
        sfg::thread_group group;
        for (int t = 0; t < threads; ++t)
            group.add("t" + std::to_string(t), [&, t] {
                std::vector<double> mine(cells, 1.0);
                for (long step = 0; step < steps; ++step) {
                    double force = 0;
                    for (int r = 0; r < reads; ++r) // read phase: RS(t0, ..., t7)
                        for (const auto& q : p) {
                            const double x = q->load();
                            force += x;
                            for (int c = r * cells / reads; c < (r + 1) * cells / reads; ++c)
                                mine[static_cast<std::size_t>(c)] =
                                    mine[static_cast<std::size_t>(c)] * 0.999 + x * 1e-6;
                        }
                    b.arrive_and_wait();
                    auto& own = *p[static_cast<std::size_t>(t)]; // write phase: EX(ti)
                    own.store(own.load() * 0.5 + force * 1e-3 + mine[0] * 1e-9);
                    b.arrive_and_wait();
                }
                sums[static_cast<std::size_t>(t)] = mine[cells - 1];
            });
        group.start();
        group.join();
        for (double v : sums)
            checksum += v;
        if (!s.findings().empty()) {
            std::fprintf(stderr, "particles8: unexpected findings\n");
            return 1;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!(checksum > 0)) {
        std::fprintf(stderr, "particles8: no result\n");
        return 1;
    }
    std::printf("%.6f\n", seconds);
    return 0;
}
