// sfg::explore on C++ bodies that translate bench/check.cpp's programs statement for statement
// (docs/explore.md): executions per second, to set against bench_check's on the same families
// (bench/explore_vs_check.sh runs both); in dpor mode both must explore the same classes.
//
// Families (N = the benchmark argument; thread ti, all started together, as bench/check.cpp's):
//   locked    ti: x_i = 1; acq m; c = c + 1; rel m; read x_i; read s;      N! classes
//   lockfree  ti: x_i = 1; s = i; read x_i; read c;                        N! classes
//   racy      ti: let t = c; c = t + 1; x_i = 1;                           (N!)^2 classes
//   barrier   ti: x_i = 1; barrier b; read x_(i+1 mod N);                  1 class
//   mutex     ti: acq m; c = c + 1; rel m;  (Relacy's anchor: bench/README.md)   N! classes
//
// explore_jobs: the same search in 1 and 2 worker processes.
//
// In C++ the threads are one sfg::thread_group, started and joined by the body's thread: one
// step before and one after the others, which adds no class. Counters: executions, classes,
// exec_per_s (of wall time: explore's threads mostly wait for each other); the CPU column is the
// whole process's.
#include "sfg/explore.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <deque>
#include <string>

namespace {

// The same program in C++, statement for statement.
void body(const std::string& family, int n) {
    sfg::mutex m("m");
    sfg::barrier b("b", n);
    sfg::shared<long> c("c", 0), s("s", 0);
    std::deque<sfg::shared<long>> x;
    for (int i = 0; i < n; ++i)
        x.emplace_back("x" + std::to_string(i), 0);
    sfg::thread_group g;
    for (int i = 0; i < n; ++i)
        g.add("t" + std::to_string(i), [&, i] {
            sfg::shared<long>& mine = x[static_cast<std::size_t>(i)];
            if (family == "locked") {
                mine = 1;
                m.lock();
                c = c + 1;
                m.unlock();
                (void)mine.load();
                (void)s.load();
            } else if (family == "lockfree") {
                mine = 1;
                s = i;
                (void)mine.load();
                (void)c.load();
            } else if (family == "racy") {
                const long t = c;
                c = t + 1;
                mine = 1;
            } else if (family == "barrier") {
                mine = 1;
                b.arrive_and_wait();
                (void)x[static_cast<std::size_t>((i + 1) % n)].load();
            } else {
                m.lock();
                c = c + 1;
                m.unlock();
            }
        });
    g.start();
    g.join();
}

void run_explore(benchmark::State& state, const std::string& family) {
    const int n = static_cast<int>(state.range(0));
    sfg::explore_report r;
    for (auto _ : state) {
        r = sfg::explore([&] { body(family, n); });
        benchmark::DoNotOptimize(r.classes);
    }
    const double iters = static_cast<double>(state.iterations());
    state.counters["executions"] = static_cast<double>(r.executions);
    state.counters["classes"] = static_cast<double>(r.classes);
    state.counters["exec_per_s"] =
        benchmark::Counter(static_cast<double>(r.executions) * iters, benchmark::Counter::kIsRate);
    state.counters["complete"] = r.complete ? 1 : 0;
}

// `jobs` worker processes (docs/explore.md, "More than one process") on a search of about 10^5
// executions: naive over every interleaving of `racy` with 4 threads (369,600).
void run_jobs(benchmark::State& state) {
    sfg::explore_options o;
    o.mode = sfg::explore_mode::naive;
    o.jobs = static_cast<unsigned>(state.range(0));
    sfg::explore_report r;
    for (auto _ : state) {
        r = sfg::explore([&] { body("racy", 4); }, o);
        benchmark::DoNotOptimize(r.executions);
    }
    state.counters["executions"] = static_cast<double>(r.executions);
    state.counters["exec_per_s"] = benchmark::Counter(static_cast<double>(r.executions) *
                                                          static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}

void register_all() {
    benchmark::RegisterBenchmark("explore_jobs/naive/racy/4", run_jobs)
        ->Arg(1)
        ->Arg(2)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
    for (const char* family : {"locked", "lockfree", "racy", "barrier", "mutex"}) {
        const std::string f = family;
        const int most = f == "racy" ? 4 : 5;
        benchmark::RegisterBenchmark(fmt::format("explore/{}", f).c_str(),
                                     [f](benchmark::State& s) { run_explore(s, f); })
            ->DenseRange(2, most)
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.2)
            ->MeasureProcessCPUTime() // the CPU column: every thread's (bench/ab.sh compares it)
            ->UseRealTime();
    }
}

} // namespace

int main(int argc, char** argv) {
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
