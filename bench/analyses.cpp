// Throughput and memory of the trace analyses (docs/traces.md).
//
// 1. A realistic 10-million-event trace (8 threads; mostly thread-local and lock-protected
//    accesses, volatile handshakes, barrier rounds), generated into a temporary file at start
//    and loaded into memory: the time to merely tokenize it (the floor), to read it (tokenize,
//    intern, validate), and to read it through each analysis; `x_floor` is each time over the
//    floor's, paired: every timed pass follows a floor pass of its own (see report()). The text is
//    read from memory so that the page cache is out of the measurement (machines that reclaim it,
//    as this project's do, would make the floor a disk benchmark); the BM_file_* rows read the file
//    itself (mmap), end to end, as sfgc does. Peak heap of each run is `peak_MB` (operator new is
//    counted below). `enforce` checks every variable against its discipline in bench/realistic.sfg,
//    which the generator conforms to: a run that reports a violation (or a race) fails.
// 2. Goldilocks vs hb per-access cost as threads grow 1..256 on the TR's SharedSpot (each
//    variable behind its own lock, all threads) and LocalSpot (thread-local) patterns (TR §4,
//    Figure 4): events are built in memory, only the analysis is timed; `ns_per_access`.
//
//    `singletrack` (determinism) runs beside them on the same trace.
// 3. Reading, fasttrack and enforce through the parallel reader with 2 threads (parsing on
//    both, well-formedness and the analysis on the caller's): wall-clock time over the floor's
//    (`wall_x_floor`), and both threads' CPU time (`cpu_x_floor`).
//
// Ratios and rates use the thread's CPU time, but for 3. Set SFG_BENCH_EVENTS to change the trace
// size (default 10000000); `bench_analyses --write-trace FILE [EVENTS]` writes the trace only.
#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/determinism/analysis_singletrack.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/tokenize.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <malloc.h>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <string_view>
#include <unistd.h>

// ---- Heap accounting: current and peak bytes allocated through operator new. ----
namespace {
std::atomic<std::size_t> heap_now{0}, heap_peak{0};
void* counted_alloc(std::size_t n) {
    void* p = std::malloc(n ? n : 1);
    if (!p)
        throw std::bad_alloc();
    std::size_t now = heap_now += malloc_usable_size(p);
    std::size_t peak = heap_peak.load();
    while (now > peak && !heap_peak.compare_exchange_weak(peak, now)) {
    }
    return p;
}
void counted_free(void* p) {
    if (p) {
        heap_now -= malloc_usable_size(p);
        std::free(p);
    }
}
} // namespace
void* operator new(std::size_t n) {
    return counted_alloc(n);
}
void* operator new[](std::size_t n) {
    return counted_alloc(n);
}
void operator delete(void* p) noexcept {
    counted_free(p);
}
void operator delete[](void* p) noexcept {
    counted_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    counted_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    counted_free(p);
}

namespace {

using namespace sfg;

// ---- The realistic trace. ----

// Rounds of: each thread writes its handshake variable and signals (vw), and writes its grid
// cell; a body of blocks (55% thread-local accesses, 40% critical sections on one of 16 locks,
// 5% the consumer side of a handshake: vr then read); a barrier; each thread reads its
// neighbour's grid cell; a second barrier. Race-free, and conforms to bench/realistic.sfg (the
// discipline of every variable): every analysis checks every access.
std::uint64_t write_trace(const std::string& path, std::uint64_t target) {
    std::ofstream out(path, std::ios::binary);
    if (!out)
        std::abort();
    std::string buf;
    std::uint64_t events = 0;
    std::mt19937_64 rng(42);
    const int n = 8;
    auto line = [&](int t, const char* op, const std::string& arg, int pc) {
        buf += 'T';
        buf += static_cast<char>('0' + t);
        buf += '|';
        buf += op;
        buf += '(';
        buf += arg;
        buf += ")|";
        buf += std::to_string(pc);
        buf += '\n';
        ++events;
        if (buf.size() > (1 << 20)) {
            out << buf;
            buf.clear();
        }
    };
    // "l3", "l3_42" (not "l" + std::to_string(3): GCC 12 warns falsely on it at -O3, PR 105329).
    auto nm = [](const char* prefix, std::uint64_t a) {
        std::string s(prefix);
        s += std::to_string(a);
        return s;
    };
    auto nm2 = [&](const char* prefix, std::uint64_t a, std::uint64_t b) {
        std::string s = nm(prefix, a);
        s += '_';
        s += std::to_string(b);
        return s;
    };
    line(0, "fork", "T1,T2,T3,T4,T5,T6,T7", 1);
    while (events < target) {
        bool consumed[n] = {};
        for (int t = 0; t < n; ++t) {
            line(t, "w", nm("h", t), 10);
            line(t, "vw", nm("f", t), 11);
            line(t, "w", nm("g", t), 12);
        }
        for (int k = 0; k < 4000; ++k) {
            int t = static_cast<int>(rng() % n);
            int kind = static_cast<int>(rng() % 100);
            int accesses = 1 + static_cast<int>(rng() % 4);
            if (kind < 55) {
                for (int a = 0; a < accesses; ++a)
                    line(t, rng() % 2 ? "r" : "w", nm2("l", t, rng() % 64), 100 + a);
            } else if (kind < 95) {
                const std::uint64_t m = rng() % 16;
                line(t, "acq", nm("m", m), 200);
                for (int a = 0; a < accesses; ++a)
                    line(t, rng() % 3 ? "r" : "w", nm2("s", m, rng() % 32), 201 + a);
                line(t, "rel", nm("m", m), 209);
            } else if (!consumed[t]) {
                int p = (t + n - 1) % n;
                line(t, "vr", nm("f", p), 300);
                line(t, "r", nm("h", p), 301);
                consumed[t] = true;
            }
        }
        for (int t = 0; t < n; ++t)
            if (!consumed[t]) {
                int p = (t + n - 1) % n;
                line(t, "vr", nm("f", p), 300);
                line(t, "r", nm("h", p), 301);
            }
        for (int round = 0; round < 2; ++round) {
            for (int t = 0; t < n; ++t)
                line(t, "benter", "b", 400);
            for (int t = 0; t < n; ++t)
                line(t, "bexit", "b", 401);
            if (round == 0)
                for (int t = 0; t < n; ++t)
                    line(t, "r", nm("g", (t + 1) % n), 402);
        }
    }
    line(0, "join", "T1,T2,T3,T4,T5,T6,T7", 2);
    out << buf;
    out.close();
    return events;
}

struct TraceFile {
    std::string path;
    std::string text; // the file's contents, in memory
    std::uint64_t events = 0;
    TraceFile() {
        const char* env = std::getenv("SFG_BENCH_EVENTS");
        std::uint64_t target = env ? std::strtoull(env, nullptr, 10) : 10'000'000;
        char name[] = "/tmp/sfg_bench_trace_XXXXXX";
        int fd = mkstemp(name);
        if (fd < 0)
            std::abort();
        close(fd);
        path = name;
        write_trace(path, target);
        MappedFile f;
        f.open(path);
        text.assign(f.data());
        events = tokenize_trace_text(text);
    }
    ~TraceFile() { std::remove(path.c_str()); }
};

TraceFile& trace() {
    static TraceFile t;
    return t;
}

// CPU time of this thread: the machine may be shared, and wall time then measures the others.
double cpu_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double process_cpu_seconds() { // every thread's: the parallel runs use two
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Where the text is read from: the in-memory copy (the main rows) or the file (BM_file_*).
enum class Source { memory, file };

struct Nothing : Analysis {
    void on_event(const Event&, const Symbols&) override {}
    std::string findings() const { return ""; }
};

// One floor pass: tokenize the source. Returns its CPU and wall seconds.
struct Times {
    double cpu = 0, wall = 0;
    Times& operator+=(const Times& o) {
        cpu += o.cpu, wall += o.wall;
        return *this;
    }
};
template <Source source>
Times floor_pass() {
    TraceFile& t = trace();
    const double start = cpu_seconds(), wall_start = wall_seconds();
    if (source == Source::file) {
        MappedFile f;
        f.open(t.path);
        benchmark::DoNotOptimize(tokenize_trace_text(f.data()));
    } else {
        benchmark::DoNotOptimize(tokenize_trace_text(t.text));
    }
    return {cpu_seconds() - start, wall_seconds() - wall_start};
}

// The ratios are paired: every timed pass follows a floor pass of its own, and x_floor is the
// sum of the passes over the sum of their floors, so that a machine whose speed drifts (shared
// hosts do, by 20 % and more over minutes) moves both alike. best_x_floor is the lowest ratio of
// one pass to its own floor: noise only ever adds time, so it is the nearest to a quiet machine.
void report(benchmark::State& state, double seconds, double floor, std::size_t peak) {
    state.counters["events"] = static_cast<double>(trace().events);
    state.counters["Mevents_per_s"] = static_cast<double>(trace().events) / seconds / 1e6;
    if (floor > 0)
        state.counters["x_floor"] = seconds / floor;
    state.counters["peak_MB"] = static_cast<double>(peak) / (1 << 20);
}

template <Source source>
void BM_Floor_Tokenize(benchmark::State& state) {
    Times total;
    for (auto _ : state)
        total += floor_pass<source>();
    const double n = static_cast<double>(state.iterations());
    report(state, total.cpu / n, total.cpu / n, 0);
}

// Each analysis wrapped for run_file: it owns the analysis and says what it found, which must be
// nothing when it is a race detector or enforce (the trace is race-free and conforms to
// bench/realistic.sfg).
template <class A>
struct Owning : Analysis {
    A a;
    void on_event(const Event& e, const Symbols& s) override { a.on_event(e, s); }
    void finish(const Symbols& s) override { a.finish(s); }
    std::string findings() const {
        // (Eraser warns about the volatile- and barrier-ordered h and g: not lockset-protected.)
        if constexpr (requires { a.races(); })
            return a.races().empty() ? "" : "a race was reported on a race-free trace";
        return "";
    }
};

// The compiled spec of bench/realistic.sfg (compiled once, outside the timings).
const CompiledSpec& realistic_spec() {
    static const CompiledSpec spec = [] {
        const std::string path = SFG_BENCH_DIR "/realistic.sfg";
        std::ifstream in(path, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        SourceFile source(path, std::move(text));
        Diagnostics diags;
        std::optional<CompiledSpec> s = compile_spec(source, diags);
        if (!s) {
            print_diagnostics(std::cerr, source, diags, false);
            std::abort();
        }
        return std::move(*s);
    }();
    return spec;
}

struct Enforce : Analysis {
    Enforcer a;
    Enforce() {
        for (const CompiledVariable& v : realistic_spec().variables)
            if (v.net)
                a.add_variable(v.name, *v.net);
    }
    void on_event(const Event& e, const Symbols& s) override { a.on_event(e, s); }
    std::string findings() const {
        return a.violations().empty() ? "" : "enforce: " + explain(a.violations()[0]);
    }
};

// Timed passes over the trace through `make()`'s analysis, read by `threads` threads (1: the
// sequential reader), each after a floor pass of its own. Building the analysis (for enforce:
// adding the spec's variables) is not timed; its memory counts towards the peak.
struct Passes {
    double cpu = 0, wall = 0, process_cpu = 0; // this thread's, the clock's, every thread's
    double best_cpu = 0, best_wall = 0;        // the lowest ratios of a pass to its own floor
    Times floor;
    std::size_t peak = 0;
};
template <Source source, class Make>
Passes run_passes(benchmark::State& state, Make make, unsigned threads) {
    TraceFile& t = trace();
    Passes out;
    make(); // first use: statics (the compiled spec) are not counted below
    auto lowest = [](double& best, double ratio) {
        best = best == 0 ? ratio : std::min(best, ratio);
    };
    for (auto _ : state) {
        state.PauseTiming();
        const Times f = floor_pass<source>();
        out.floor += f;
        state.ResumeTiming();
        std::size_t base = heap_now.load();
        heap_peak = base;
        {
            auto analysis = make();
            const double start = cpu_seconds(), wall_start = wall_seconds(),
                         process_start = process_cpu_seconds();
            Symbols syms;
            TraceResult r =
                source == Source::file
                    ? read_trace_file_parallel(t.path, syms, *analysis, {threads})
                    : read_trace_text_parallel(t.text, t.path, syms, *analysis, {threads});
            if (!r.ok())
                state.SkipWithError(r.error->to_string().c_str());
            analysis->finish(syms);
            const double cpu = cpu_seconds() - start, wall = wall_seconds() - wall_start;
            out.cpu += cpu;
            out.wall += wall;
            out.process_cpu += process_cpu_seconds() - process_start;
            lowest(out.best_cpu, cpu / f.cpu);
            lowest(out.best_wall, wall / f.wall);
            if (std::string found = analysis->findings(); !found.empty())
                state.SkipWithError(found.c_str());
        }
        out.peak = std::max(out.peak, heap_peak.load() - base);
    }
    return out;
}

// One thread: CPU time.
template <Source source, class Make>
void run_file(benchmark::State& state, Make make) {
    const Passes p = run_passes<source>(state, make, 1);
    const double n = static_cast<double>(state.iterations());
    report(state, p.cpu / n, p.floor.cpu / n, p.peak);
    state.counters["best_x_floor"] = p.best_cpu;
}

template <class A, Source source = Source::memory>
void BM_File(benchmark::State& state) {
    run_file<source>(state, [] { return std::make_unique<A>(); });
}

// The same through the parallel reader (two threads): the point is wall-clock throughput, so
// `wall_x_floor` is wall time over the floor's wall time, and `cpu_x_floor` both threads' CPU
// time over the floor's.
template <class A, Source source = Source::memory>
void BM_Parallel(benchmark::State& state) {
    const Passes p = run_passes<source>(
        state, [] { return std::make_unique<A>(); }, 2);
    const auto n = static_cast<double>(state.iterations());
    state.counters["events"] = static_cast<double>(trace().events);
    state.counters["Mevents_per_s"] = static_cast<double>(trace().events) / (p.wall / n) / 1e6;
    state.counters["wall_x_floor"] = p.wall / p.floor.wall;
    state.counters["cpu_x_floor"] = p.process_cpu / p.floor.cpu;
    state.counters["best_wall_x_floor"] = p.best_wall;
    state.counters["peak_MB"] = static_cast<double>(p.peak) / (1 << 20);
}

struct All : Analysis {
    HbDetector hb;
    FastTrackDetector ft;
    GoldilocksDetector gl;
    EraserDetector er;
    Enforce en;
    void on_event(const Event& e, const Symbols& s) override {
        hb.on_event(e, s), ft.on_event(e, s), gl.on_event(e, s), er.on_event(e, s),
            en.on_event(e, s);
    }
    std::string findings() const { return en.findings(); }
};

void BM_File_All(benchmark::State& state) {
    run_file<Source::memory>(state, [] { return std::make_unique<All>(); });
}

// The rows, in the order they run: name, function, passes per repetition; the parallel reader's
// rows are timed by the wall clock.
void add(const char* name, void (*run)(benchmark::State&), int passes, bool wall = false) {
    auto* b =
        benchmark::RegisterBenchmark(name, run)->Unit(benchmark::kMillisecond)->Iterations(passes);
    if (wall)
        b->UseRealTime();
}

[[maybe_unused]] const bool registered = [] {
    add("BM_Floor_Tokenize", BM_Floor_Tokenize<Source::memory>, 3);
    add("BM_Read", BM_File<Nothing>, 3);
    add("BM_hb", BM_File<Owning<HbDetector>>, 3);
    add("BM_fasttrack", BM_File<Owning<FastTrackDetector>>, 3);
    add("BM_goldilocks", BM_File<Owning<GoldilocksDetector>>, 3);
    add("BM_eraser", BM_File<Owning<EraserDetector>>, 3);
    add("BM_enforce", BM_File<Enforce>, 3);
    // Determinism beside fasttrack on the same trace: no blocks, so every event is a unary
    // transaction (made only when a live node precedes it); bench/singletrack_memory.sh has
    // blocks.
    add("BM_singletrack", BM_File<Owning<SingleTrackDetector>>, 3);
    add("BM_all_five", BM_File_All, 1);
    add("BM_parallel2_read", BM_Parallel<Nothing>, 3, true);
    add("BM_parallel2_fasttrack", BM_Parallel<Owning<FastTrackDetector>>, 3, true);
    add("BM_parallel2_enforce", BM_Parallel<Enforce>, 3, true);
    // The other analyses the same way (sfgc trace's default on two cores).
    add("BM_parallel2_hb", BM_Parallel<Owning<HbDetector>>, 3, true);
    add("BM_parallel2_goldilocks", BM_Parallel<Owning<GoldilocksDetector>>, 3, true);
    add("BM_parallel2_eraser", BM_Parallel<Owning<EraserDetector>>, 3, true);
    add("BM_parallel2_all_five", BM_Parallel<All>, 1, true);
    // End to end from the file (mmap; page faults, and reads when the page cache was reclaimed).
    add("BM_file_floor", BM_Floor_Tokenize<Source::file>, 3);
    add("BM_file_read", BM_File<Nothing, Source::file>, 3);
    add("BM_file_parallel2_fasttrack", BM_Parallel<Owning<FastTrackDetector>, Source::file>, 3,
        true);
    add("BM_file_parallel2_enforce", BM_Parallel<Enforce, Source::file>, 3, true);
    return true;
}();

// ---- SharedSpot / LocalSpot (TR §4): per-access cost against the number of threads. ----

struct Collector : Analysis {
    std::vector<Event> all;
    void on_event(const Event& e, const Symbols&) override { all.push_back(e); }
};

struct Spot {
    Symbols syms;
    std::vector<Event> events;
    std::uint64_t accesses = 0;
};

// SharedSpot: 64 variables x_i, each behind its own lock l_i, updated (read, write) by all
// threads in turn. LocalSpot: each thread updates its own 64 variables without locks. The main
// thread forks the others first, so vector clocks have one entry per thread.
Spot make_spot(int threads, bool shared, std::uint64_t total_accesses) {
    Spot s;
    for (int t = 0; t < threads; ++t)
        s.syms.threads.intern(std::string("T") += std::to_string(t));
    std::vector<ThreadId> children;
    for (int t = 1; t < threads; ++t)
        children.push_back(static_cast<ThreadId>(t));
    const int vars = 64;
    for (int i = 0; i < vars * (shared ? 1 : threads); ++i)
        s.syms.vars.intern(std::string("x") += std::to_string(i));
    for (int i = 0; i < vars; ++i)
        s.syms.locks.intern(std::string("l") += std::to_string(i));
    Collector col;
    WellFormedStream w(s.syms, col);
    if (!children.empty()) {
        s.syms.thread_sets.push_back(children);
        (void)w.push(0, Op::fork, 0);
    }
    std::mt19937_64 rng(1);
    while (s.accesses < total_accesses) {
        auto t = static_cast<ThreadId>(rng() % static_cast<unsigned>(threads));
        auto i = static_cast<ObjId>(rng() % vars);
        if (shared) {
            (void)w.push(t, Op::acquire, i);
            (void)w.push(t, Op::read, i);
            (void)w.push(t, Op::write, i);
            (void)w.push(t, Op::release, i);
        } else {
            ObjId x = t * vars + i;
            (void)w.push(t, Op::read, x);
            (void)w.push(t, Op::write, x);
        }
        s.accesses += 2;
    }
    w.finish();
    s.events = std::move(col.all);
    return s;
}

template <class A>
void BM_Spot(benchmark::State& state) {
    const int threads = static_cast<int>(state.range(0));
    const bool shared = state.range(1) != 0;
    Spot s = make_spot(threads, shared, 400'000);
    double total = 0;
    for (auto _ : state) {
        double start = cpu_seconds();
        A a;
        for (const Event& e : s.events)
            a.on_event(e, s.syms);
        benchmark::DoNotOptimize(a.races().size());
        total += cpu_seconds() - start;
    }
    // All events are fed, sync ones included: the cost per access of the whole pattern.
    state.counters["ns_per_access"] =
        total * 1e9 / static_cast<double>(s.accesses) / static_cast<double>(state.iterations());
}

void spot_args(benchmark::internal::Benchmark* b) {
    b->ArgNames({"threads", "shared"});
    for (int shared : {1, 0})
        for (int t = 1; t <= 256; t *= 2)
            b->Args({t, shared});
    b->Unit(benchmark::kMillisecond);
}

BENCHMARK_TEMPLATE(BM_Spot, GoldilocksDetector)->Name("BM_spot_goldilocks")->Apply(spot_args);
BENCHMARK_TEMPLATE(BM_Spot, HbDetector)->Name("BM_spot_hb")->Apply(spot_args);
BENCHMARK_TEMPLATE(BM_Spot, FastTrackDetector)->Name("BM_spot_fasttrack")->Apply(spot_args);

} // namespace

// `bench_analyses --write-trace FILE [EVENTS]` writes the generated trace (docs, sfgc timings)
// instead of benchmarking.
int main(int argc, char** argv) {
    if (argc >= 3 && std::string_view(argv[1]) == "--write-trace") {
        std::uint64_t events =
            write_trace(argv[2], argc >= 4 ? std::strtoull(argv[3], nullptr, 10) : 10'000'000);
        std::printf("%s: %llu events\n", argv[2], static_cast<unsigned long long>(events));
        return 0;
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
