// The model checker's exploration (docs/programs.md): executions per second, naive against dpor,
// on generated programs of N = 2..6 threads, and dpor's executions per Mazurkiewicz class
// (1.0 is the target without blocking; the sleep sets make it 1.0 with locks too).
//
// Families (N = the benchmark argument, thread ti):
//   locked    ti: x_i = 1; acq m; c = c + 1; rel m; read x_i; read s;
//             one critical section each plus private and read-only accesses: N! classes
//             (the order of the critical sections); blocking (acq).
//   lockfree  ti: x_i = 1; s = i; read x_i; read c;
//             no blocking: N! classes (the order of the writes of s).
//   racy      ti: let t = c; c = t + 1; x_i = 1;   (no lock)
//             the reads and the writes of c interleave: (N!)^2 classes.
//   barrier   ti: x_i = 1; barrier b; read x_(i+1 mod N);   (b of all threads)
//             arrivals commute, and so do departures (docs/programs.md, "Dependence"): 1 class
//             (it was (N!)^2 while any two ops on one barrier were dependent); blocking (bexit).
//   rounds    ti: repeat 2 { x_i = 1; barrier b; read x_(i+1 mod N); }
//             a thread's next arrival against the others' departures: the classes of
//             overlapping rounds.
//
// dpor_jobs2 is dpor on two threads (--jobs 2): wall time (the report is the same).
//
// Each run is check_model() as `sfgc check` runs it: the explorer plus FastTrack and the
// Enforcer on every execution, on threads of the search's own (so CPU time is the process'). Naive
// is capped at 20,000 executions (its rate is what counts; `complete` says whether it finished);
// dpor runs to completion. Counters: executions, classes, exec_per_s, ratio (executions / classes),
// complete, sleep_blocked (dpor's abandoned paths).
#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <optional>
#include <string>

namespace {

std::string gen(const std::string& family, int n) {
    std::string threads, vars;
    for (int i = 0; i < n; ++i) {
        threads += fmt::format("{}t{}", i ? ", " : "", i);
        vars += fmt::format(", x{}", i);
    }
    std::string s = fmt::format(
        "threads {0};\nlock m;\nbarrier b({0});\nvar c, s{1};\nprogram p {{\n", threads, vars);
    for (int i = 0; i < n; ++i) {
        if (family == "locked")
            s += fmt::format("  thread t{0} {{ x{0} = 1; acq m; c = c + 1; rel m; read x{0}; "
                             "read s; }}\n",
                             i);
        else if (family == "lockfree")
            s += fmt::format("  thread t{0} {{ x{0} = 1; s = {0}; read x{0}; read c; }}\n", i);
        else if (family == "racy")
            s += fmt::format("  thread t{0} {{ let t = c; c = t + 1; x{0} = 1; }}\n", i);
        else if (family == "barrier")
            s += fmt::format("  thread t{0} {{ x{0} = 1; barrier b; read x{1}; }}\n", i,
                             (i + 1) % n);
        else
            s += fmt::format("  thread t{0} {{ repeat 2 {{ x{0} = 1; barrier b; read x{1}; }} }}\n",
                             i, (i + 1) % n);
    }
    return s + "}\n";
}

struct Loaded {
    sfg::CompiledSpec spec;
    sfg::checker::Model model;
};

std::optional<Loaded> load(const std::string& text) {
    sfg::Diagnostics diags;
    sfg::SourceFile file("bench.sfg", text);
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(file, diags);
    if (!spec || spec->programs.empty())
        return std::nullopt;
    Loaded l{std::move(*spec), {}};
    l.model = sfg::checker::lower(l.spec, l.spec.programs.front());
    return l;
}

void run(benchmark::State& state, const std::string& family, sfg::checker::Mode mode,
         std::uint32_t jobs) {
    const int n = static_cast<int>(state.range(0));
    std::optional<Loaded> l = load(gen(family, n));
    if (!l) {
        state.SkipWithError("generated program does not compile");
        return;
    }
    sfg::checker::CheckOptions o;
    o.mode = mode;
    o.jobs = jobs;
    if (mode == sfg::checker::Mode::naive)
        o.max_executions = 20000;
    sfg::checker::CheckResult r;
    for (auto _ : state) {
        r = sfg::checker::check_model(l->model, o);
        benchmark::DoNotOptimize(r.classes);
    }
    const double iters = static_cast<double>(state.iterations());
    state.counters["executions"] = static_cast<double>(r.stats.executions);
    state.counters["classes"] = static_cast<double>(r.classes);
    // Per second of CPU time (the machine may be shared).
    state.counters["exec_per_s"] = benchmark::Counter(
        static_cast<double>(r.stats.executions) * iters, benchmark::Counter::kIsRate);
    state.counters["ratio"] = static_cast<double>(r.stats.executions) /
                              static_cast<double>(std::max<std::uint64_t>(1, r.classes));
    state.counters["complete"] = r.stats.complete ? 1 : 0;
    state.counters["sleep_blocked"] = static_cast<double>(r.stats.sleep_blocked);
}

void register_all() {
    struct Variant {
        const char* name;
        sfg::checker::Mode mode;
        std::uint32_t jobs;
    };
    for (const char* family : {"locked", "lockfree", "racy", "barrier", "rounds"})
        for (Variant v : {Variant{"naive", sfg::checker::Mode::naive, 1},
                          Variant{"dpor", sfg::checker::Mode::dpor, 1},
                          Variant{"dpor_jobs2", sfg::checker::Mode::dpor, 2}}) {
            auto* b = benchmark::RegisterBenchmark(
                fmt::format("check/{}/{}", family, v.name).c_str(),
                [family = std::string(family), v](benchmark::State& s) {
                    run(s, family, v.mode, v.jobs);
                });
            b->DenseRange(2, family == std::string("rounds") ? 4 : 6)
                ->Unit(benchmark::kMillisecond)
                ->MinTime(0.2)
                ->MeasureProcessCPUTime(); // the search runs on threads of its own
            if (v.jobs > 1)
                b->UseRealTime();
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
