// Compile time and peak memory of the front end on generated specs of growing
// size. One iteration is what `sfgc FILE --json` does in memory: sfg::compile_spec (parse, sema,
// SFG, Petri net) + sfg::to_json (the streaming writer) to text, with limits wide enough for the
// largest family (the default limits of sfgc would refuse the largest sizes).
//
// Families (N = the benchmark argument):
//   threads      N threads; barrier b(t0..tN-1); [RS(t0..) ▷^b EX(t0)]^b, EX(t0) ▷{fork(t0 ->
//   t1..)}
//                RS(t1..), RS(t1..) ▷{join(t1.. -> t0)} EX(t0), EX(t0) ▷^fork RS(t1..) ▷^join
//                EX(t0). Output grows linearly in N (places per thread): expect O(N).
//   nested       [[[EX(t0) ⊔ .. ⊔ EX(t3)]^m0]^m1 ...]^mN-1: N nested loops with N distinct locks,
//                4 modes, 16·N edges: expect O(N).
//   nested_same  the same with one lock m at every level: 16 edges (edges form a set): expect
//                O(N) with a tiny constant.
//   chain        EX(t0) ▷^m EX(t1) ▷^m ... : N sequences, N+1 modes, N edges: expect O(N).
//   many_vars    N access modes as N/4 variables of 4 modes each, cycling through three
//                realistic shapes (a lock over 4 threads, fork-then-join-then-lock, a barrier
//                phase plus a lock): expect O(N).
//   one_disc     one variable [EX(t0) ⊔ EX(t1) ⊔ ... N modes]^m: N² candidate edges, all valid,
//                so N² edges, 2·N² places, 3·N² transitions: expect O(N²) (the output is N²).
//
// Counters: modes, edges, places, transitions, json_MB (size of the dumped text), phase times
// compile_ms / to_json_ms, peak_MB (VmHWM) and peak_delta_MB (VmHWM minus VmRSS before
// the run). The peak is reset before each run by writing 5 to /proc/self/clear_refs (Linux >= 4.0);
// where that is refused, run each size in a fresh process: `bench_compile --size FAMILY N`
// prints one JSON line (scripts/bench_compile.sh does that for every size).
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/render.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

// ---- generated spec texts ----

std::string thread_list(int from, int to) { // "t{from}, ..., t{to-1}"
    std::string s;
    for (int t = from; t < to; ++t)
        s += fmt::format("{}t{}", t == from ? "" : ", ", t);
    return s;
}

std::string gen_threads(int n) {
    const std::string all = thread_list(0, n);
    const std::string rest = thread_list(1, n);
    std::string s = fmt::format("threads {};\nbarrier b({});\n", all, all);
    s += fmt::format("var p : [RS({}) ▷^b EX(t0)]^b;\n", all);
    s += fmt::format("var d : EX(t0) ▷{{fork(t0 -> {})}} RS({});\n", rest, rest);
    s += fmt::format("var j : RS({}) |> {{join({} -> t0)}} EX(t0);\n", rest, rest);
    s += fmt::format("var f : EX(t0) |> ^fork RS({}) |> ^join EX(t0);\n", rest);
    return s;
}

std::string gen_nested(int depth, bool distinct_locks) {
    std::string s = "threads t0, t1, t2, t3;\nlock ";
    if (distinct_locks) {
        for (int i = 0; i < depth; ++i)
            s += fmt::format("{}m{}", i ? ", " : "", i);
    } else {
        s += "m";
    }
    s += ";\nvar x : ";
    s += std::string(static_cast<std::size_t>(depth), '[');
    s += "EX(t0) | EX(t1) | EX(t2) | EX(t3)";
    for (int i = 0; i < depth; ++i)
        s += distinct_locks ? fmt::format("]^m{}", i) : std::string("]^m");
    s += ";\n";
    return s;
}

std::string gen_chain(int n) {
    std::string s = "threads t0, t1, t2, t3;\nlock m;\nvar x :\n    EX(t0)";
    for (int i = 1; i <= n; ++i)
        s += fmt::format("{}▷^m EX(t{})", i % 8 == 0 ? "\n    " : " ", i % 4);
    s += ";\n";
    return s;
}

std::string gen_many_vars(int modes) {
    const int vars = modes / 4;
    std::string s = "threads t0, t1, t2, t3;\nbarrier b(t0, t1, t2, t3);\nlock ";
    for (int i = 0; i < vars; ++i)
        s += fmt::format("{}m{}", i ? ", " : "", i);
    s += ";\ndiscipline tl = EX(t0) | EX(t1) | EX(t2) | EX(t3);\n";
    for (int i = 0; i < vars; ++i) {
        switch (i % 3) {
        case 0: // a lock over four threads
            s += fmt::format("var x{} : [tl]^m{};\n", i, i);
            break;
        case 1: // fork the workers, join them, then hand over under a lock
            s += fmt::format("var x{} : EX(t0) ▷^fork RS(t1, t2, t3) ▷^join EX(t0) ▷^m{} EX(t1);\n",
                             i, i);
            break;
        default: // a barrier phase, next to a lock between two threads
            s += fmt::format(
                "var x{} : [RS(t0, t1, t2, t3) ▷^b EX(t0)]^b ⊔ [EX(t1) | EX(t2)]^m{};\n", i, i);
            break;
        }
    }
    return s;
}

std::string gen_one_disc(int modes) {
    std::string s = "threads t0, t1, t2, t3;\nlock m;\nvar x : [";
    for (int i = 0; i < modes; ++i)
        s += fmt::format("{}EX(t{})", i == 0 ? "" : (i % 10 == 0 ? "\n    | " : " | "), i % 4);
    s += "]^m;\n";
    return s;
}

const std::map<std::string, std::function<std::string(int)>>& families() {
    static const std::map<std::string, std::function<std::string(int)>> f = {
        {"threads", gen_threads},
        {"nested", [](int n) { return gen_nested(n, true); }},
        {"nested_same", [](int n) { return gen_nested(n, false); }},
        {"chain", gen_chain},
        {"many_vars", gen_many_vars},
        {"one_disc", gen_one_disc},
    };
    return f;
}

// ---- memory ----

// A field of /proc/self/status in MB ("VmHWM", "VmRSS"), or -1.
double status_mb(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t len = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
            return std::strtod(line.c_str() + len + 1, nullptr) / 1024.0; // kB
    return -1;
}

// Resets VmHWM to the current RSS; false where the kernel refuses.
bool reset_peak() {
    malloc_trim(0); // give freed memory back first, so the baseline is what is really in use
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (f == nullptr)
        return false;
    bool ok = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

// ---- one compile ----

struct Result {
    bool ok = false;
    std::size_t modes = 0, edges = 0, places = 0, transitions = 0, json_bytes = 0;
    std::size_t errors = 0, warnings = 0;
    double compile_s = 0, to_json_s = 0;
};

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

Result compile_to_json(const std::string& text) {
    Result r;
    auto t0 = Clock::now();
    sfg::SourceFile file("bench.sfg", text);
    sfg::Diagnostics diags;
    sfg::CompileLimits limits;
    limits.modes = limits.edges = limits.net_size = std::size_t{1} << 40;
    auto spec = sfg::compile_spec(file, diags, limits);
    auto t1 = Clock::now();
    std::string out = sfg::to_json(file.name(), spec ? &*spec : nullptr, diags);
    r.compile_s = std::chrono::duration<double>(t1 - t0).count();
    r.to_json_s = since(t1);
    r.json_bytes = out.size();
    r.ok = spec.has_value();
    for (const sfg::Diagnostic& d : diags.all()) {
        r.errors += d.severity == sfg::Severity::error;
        r.warnings += d.severity == sfg::Severity::warning;
    }
    if (spec)
        for (const sfg::CompiledVariable& v : spec->variables)
            if (v.net) {
                r.modes += v.net->modes.size();
                r.edges += v.net->edges.size();
                r.places += v.net->places.size();
                r.transitions += v.net->transitions.size();
            }
    benchmark::DoNotOptimize(out.data());
    return r;
}

// ---- Google Benchmark ----

void BM_compile(benchmark::State& state, const std::string& family) {
    const int n = static_cast<int>(state.range(0));
    const std::string text = families().at(family)(n);
    const bool peak_reset = reset_peak();
    const double base_mb = status_mb("VmRSS");
    Result r;
    double compile_s = 0, to_json_s = 0;
    for (auto _ : state) {
        r = compile_to_json(text);
        compile_s += r.compile_s;
        to_json_s += r.to_json_s;
    }
    if (!r.ok || r.errors != 0 || r.warnings != 0) {
        const std::string msg =
            fmt::format("{}({}): {} errors, {} warnings", family, n, r.errors, r.warnings);
        state.SkipWithError(msg.c_str()); // copied by the library
        return;
    }
    const double peak_mb = status_mb("VmHWM");
    state.SetComplexityN(n);
    auto avg = [](double v) { return benchmark::Counter(v, benchmark::Counter::kAvgIterations); };
    state.counters["modes"] = static_cast<double>(r.modes);
    state.counters["edges"] = static_cast<double>(r.edges);
    state.counters["places"] = static_cast<double>(r.places);
    state.counters["transitions"] = static_cast<double>(r.transitions);
    state.counters["json_MB"] = static_cast<double>(r.json_bytes) / 1e6;
    state.counters["compile_ms"] = avg(compile_s * 1e3);
    state.counters["to_json_ms"] = avg(to_json_s * 1e3);
    if (peak_reset) { // otherwise VmHWM is the whole process's so far: use --size
        state.counters["peak_MB"] = peak_mb;
        state.counters["peak_delta_MB"] = peak_mb - base_mb;
    }
}

void register_all() {
    auto reg = [](const char* name, const std::string& family) {
        return benchmark::RegisterBenchmark(
                   name, [family](benchmark::State& s) { BM_compile(s, family); })
            ->Unit(benchmark::kMillisecond)
            ->MeasureProcessCPUTime() // the parser runs on a thread of its own (a big stack)
            ->UseRealTime();
    };
    // (a) thread sets of 2..256 threads.
    reg("threads", "threads")->RangeMultiplier(2)->Range(2, 256)->Complexity();
    // (b) nested loops of depth 1..200.
    for (const char* f : {"nested", "nested_same"}) {
        auto* b = reg(f, f);
        for (int d : {1, 2, 4, 8, 16, 32, 64, 128, 200})
            b->Arg(d);
        b->Complexity();
    }
    // (c) chains of 1..1000 sequences, and further to see the trend.
    auto* chain = reg("chain", "chain");
    for (int n : {1, 2, 4, 8, 16, 32, 64, 125, 250, 500, 1000, 2000, 4000, 8000, 16000})
        chain->Arg(n);
    chain->Complexity();
    // (d) 1,000 access modes: many small variables (realistic), and one discipline of N modes.
    auto* many = reg("many_vars", "many_vars");
    for (int n : {64, 125, 250, 500, 1000, 2000, 4000, 8000})
        many->Arg(n);
    many->Complexity();
    // N = 1000 (10^6 edges, ~2 min, ~11.5 GB) only in a fresh process: --size one_disc 1000.
    auto* one = reg("one_disc", "one_disc");
    for (int n : {16, 32, 64, 125, 250, 500})
        one->Arg(n);
    one->Complexity()->Iterations(1);
}

// `--size FAMILY N [--print]`: one compile in this (fresh) process; one JSON line on stdout, or
// the generated spec text with --print.
int run_size(const std::string& family, int n, bool print) {
    auto it = families().find(family);
    if (it == families().end() || n < 1) {
        std::cerr << "bench_compile: unknown family '" << family << "' or bad size\n";
        return 2;
    }
    const std::string text = it->second(n);
    if (print) {
        std::cout << text;
        return 0;
    }
    const double base_mb = status_mb("VmRSS");
    const auto t = Clock::now();
    const Result r = compile_to_json(text);
    const double seconds = since(t);
    std::cout << fmt::format(
                     "{{\"family\": \"{}\", \"n\": {}, \"ok\": {}, \"errors\": {}, \"warnings\": "
                     "{}, \"text_bytes\": {}, \"modes\": {}, \"edges\": {}, \"places\": {}, "
                     "\"transitions\": {}, \"json_bytes\": {}, \"seconds\": {:.6f}, "
                     "\"compile_s\": {:.6f}, \"to_json_s\": {:.6f}, "
                     "\"base_rss_mb\": {:.1f}, \"vmhwm_mb\": {:.1f}}}",
                     family, n, r.ok, r.errors, r.warnings, text.size(), r.modes, r.edges, r.places,
                     r.transitions, r.json_bytes, seconds, r.compile_s, r.to_json_s, base_mb,
                     status_mb("VmHWM"))
              << std::endl;
    return r.ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--size") == 0) {
            if (i + 2 >= argc) {
                std::cerr << "usage: bench_compile --size FAMILY N [--print]\n";
                return 2;
            }
            const bool print = i + 3 < argc && std::strcmp(argv[i + 3], "--print") == 0;
            return run_size(argv[i + 1], std::atoi(argv[i + 2]), print);
        }
    register_all();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
