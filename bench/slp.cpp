// Compressed traces (docs/compressed.md): compression ratio and speed of Sequitur and Re-Pair,
// and `hb` / `eraser` on the grammar against `fasttrack` / `eraser` on the uncompressed trace,
// on generated traces from barely to extremely repetitive (the SLP paper's Table 1 families):
//
//   noise        random events of 8 threads over 64 variables, 4 locks, a volatile: ~incompressible
//   blocks       one random block of 5,000 such events, repeated
//   loop_random  a bufwriter-like loop, `acq(m) r(pos) w(buf) w(pos) rel(m)`, by a random thread
//   bufwriter    the same loop, the threads in turn (the paper's bufwriter: ratio > 40,000)
//
// The uncompressed trace is the binary form in memory (no parsing cost beyond the format's); the
// SLP is read from memory too, and checked for well-formedness, as `sfgc trace` does; `expand2`
// expands on two threads. Counters:
// `events`, `ratio` (events / grammar size), `Mevents_per_s`. SFG_BENCH_EVENTS sets the size
// (default 1,000,000).
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/registry/compress_trace_file.hpp"
#include "sfg/runtime/slp/slp_eraser.hpp"
#include "sfg/runtime/slp/slp_expand.hpp"
#include "sfg/runtime/slp/slp_hb.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

using namespace sfg;

std::uint64_t target_events() {
    const char* e = std::getenv("SFG_BENCH_EVENTS");
    return e ? std::strtoull(e, nullptr, 10) : 1000000;
}

// Random events of threads T0..T7 (T0 forks the others first); every lock released at the end.
void random_events(std::string& out, std::mt19937_64& rng, std::uint64_t n, int holder[4]) {
    for (std::uint64_t i = 0; i < n; ++i) {
        const int t = static_cast<int>(rng() % 8);
        const std::string T = "T" + std::to_string(t) + "|";
        const int k = static_cast<int>(rng() % 100);
        if (k < 60) {
            out += T + (rng() % 2 ? "w(x" : "r(x") + std::to_string(rng() % 64) + ")\n";
        } else if (k < 90) {
            const int m = static_cast<int>(rng() % 4);
            if (holder[m] == t) {
                out += T + "rel(m" + std::to_string(m) + ")\n";
                holder[m] = -1;
            } else if (holder[m] < 0) {
                out += T + "acq(m" + std::to_string(m) + ")\n";
                holder[m] = t;
            } else {
                out += T + "r(y" + std::to_string(t) + ")\n";
            }
        } else {
            out += T + (rng() % 2 ? "vw(v)\n" : "vr(v)\n");
        }
    }
    for (int m = 0; m < 4; ++m)
        if (holder[m] >= 0) {
            out += "T" + std::to_string(holder[m]) + "|rel(m" + std::to_string(m) + ")\n";
            holder[m] = -1;
        }
}

std::string generate(const std::string& family, std::uint64_t n) {
    std::string s = "T0|fork(T1,T2,T3,T4,T5,T6,T7)\n";
    std::mt19937_64 rng(7);
    int holder[4] = {-1, -1, -1, -1};
    if (family == "noise") {
        random_events(s, rng, n, holder);
    } else if (family == "blocks") {
        std::string block;
        random_events(block, rng, 5000, holder);
        while (s.size() / 10 < n) // about 10 bytes an event
            s += block;
    } else {
        for (std::uint64_t i = 0; i * 5 < n; ++i) {
            const int t =
                family == "bufwriter" ? static_cast<int>(i % 6) : static_cast<int>(rng() % 6);
            const std::string T = "T" + std::to_string(t) + "|";
            s += T + "acq(m)\n" + T + "r(pos)\n" + T + "w(buf)\n" + T + "w(pos)\n" + T + "rel(m)\n";
        }
    }
    return s;
}

struct Family {
    std::uint64_t events = 0;
    std::string path;                       // the text trace
    std::string binary;                     // the binary trace
    std::map<std::string, std::string> slp; // by algorithm
    std::map<std::string, std::uint64_t> size;
};

const Family& family(const std::string& name) {
    static std::map<std::string, Family> cache;
    auto it = cache.find(name);
    if (it != cache.end())
        return it->second;
    Family f;
    f.path = "/tmp/sfg-bench-slp-" + std::to_string(::getpid()) + "-" + name + ".std";
    std::ofstream(f.path, std::ios::binary) << generate(name, target_events());
    {
        Symbols syms;
        std::ostringstream bin;
        BinaryTraceWriter w(bin);
        TraceResult r = read_trace_file(f.path, syms, w);
        if (!r.ok())
            std::abort();
        w.finish(syms);
        f.binary = bin.str();
        f.events = r.events;
    }
    for (const char* algo : {"sequitur", "repair"}) {
        Symbols syms;
        Slp slp;
        if (!compress_trace_file(f.path,
                                 algo == std::string("repair") ? SlpAlgorithm::repair
                                                               : SlpAlgorithm::sequitur,
                                 syms, slp)
                 .ok())
            std::abort();
        std::ostringstream out;
        write_slp(out, slp, syms);
        f.slp[algo] = out.str();
        f.size[algo] = slp.size();
    }
    return cache.emplace(name, std::move(f)).first->second;
}

void counters(benchmark::State& state, const Family& f, const std::string& algo) {
    state.counters["events"] = static_cast<double>(f.events);
    state.counters["ratio"] = static_cast<double>(f.events) / static_cast<double>(f.size.at(algo));
    state.counters["Mevents_per_s"] = benchmark::Counter(
        static_cast<double>(f.events) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_compress(benchmark::State& state, std::string name, std::string algo) {
    const Family& f = family(name);
    for (auto _ : state) {
        Symbols syms;
        Slp slp;
        benchmark::DoNotOptimize(compress_trace_file(
            f.path, algo == "repair" ? SlpAlgorithm::repair : SlpAlgorithm::sequitur, syms, slp));
    }
    counters(state, f, algo);
}

class NoSink : public Analysis {
public:
    void on_event(const Event&, const Symbols&) override {}
};

template <class Detector>
void BM_flat(benchmark::State& state, std::string name) {
    const Family& f = family(name);
    for (auto _ : state) {
        Symbols syms;
        Detector d;
        benchmark::DoNotOptimize(read_trace_binary(f.binary, "t.bin", syms, d));
    }
    counters(state, f, "sequitur");
}

// The expansion alone (reading included), on one thread or, as `sfgc trace` on two cores, two
// (docs/compressed.md, "How an SLP is expanded"; wall time for two).
void BM_expand(benchmark::State& state, std::string name, unsigned threads) {
    const Family& f = family(name);
    for (auto _ : state) {
        Symbols syms;
        NoSink none;
        benchmark::DoNotOptimize(
            read_slp_trace(f.slp.at("sequitur"), "t.slp", syms, none, SlpExpandOptions{threads}));
    }
    counters(state, f, "sequitur");
}

void BM_grammar(benchmark::State& state, std::string name, std::string analysis, std::string algo) {
    const Family& f = family(name);
    for (auto _ : state) {
        Symbols syms;
        Slp slp;
        if (read_slp(f.slp.at(algo), "t.slp", syms, slp) ||
            check_slp_well_formed(slp, "t.slp", syms))
            std::abort();
        if (analysis == "hb")
            benchmark::DoNotOptimize(SlpHb(slp, syms).races());
        else
            benchmark::DoNotOptimize(slp_eraser_warnings(slp, syms));
    }
    counters(state, f, algo);
}

void register_all() {
    for (const char* fam : {"noise", "blocks", "loop_random", "bufwriter"}) {
        const std::string n = fam;
        for (const char* algo : {"sequitur", "repair"})
            benchmark::RegisterBenchmark(("compress/" + n + "/" + algo).c_str(), BM_compress, n,
                                         std::string(algo))
                ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("fasttrack/" + n).c_str(), BM_flat<FastTrackDetector>, n)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("eraser/" + n).c_str(), BM_flat<EraserDetector>, n)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("expand/" + n).c_str(), BM_expand, n, 1u)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("expand2/" + n).c_str(), BM_expand, n, 2u)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
        for (const char* algo : {"sequitur", "repair"}) {
            benchmark::RegisterBenchmark(("hb_slp/" + n + "/" + algo).c_str(), BM_grammar, n,
                                         std::string("hb"), std::string(algo))
                ->Unit(benchmark::kMillisecond);
            benchmark::RegisterBenchmark(("eraser_slp/" + n + "/" + algo).c_str(), BM_grammar, n,
                                         std::string("eraser"), std::string(algo))
                ->Unit(benchmark::kMillisecond);
        }
    }
}

} // namespace

// `bench_slp --write-trace FAMILY FILE [EVENTS]` writes a family's text trace (the repetitive
// one of bench/slp_replay.sh: bufwriter at 64 million events), streamed for bufwriter.
int write_trace(const std::string& family, const std::string& path, std::uint64_t n) {
    std::ofstream out(path, std::ios::binary);
    if (family != "bufwriter") {
        out << generate(family, n);
    } else { // generate()'s bufwriter, a round at a time
        std::string buf = "T0|fork(T1,T2,T3,T4,T5,T6,T7)\n";
        for (std::uint64_t i = 0; i * 5 < n; ++i) {
            const char t = static_cast<char>('0' + i % 6);
            for (const char* op : {"acq(m)", "r(pos)", "w(buf)", "w(pos)", "rel(m)"}) {
                buf += 'T';
                buf += t;
                buf += '|';
                buf += op;
                buf += '\n';
            }
            if (buf.size() >= (1u << 20)) {
                out << buf;
                buf.clear();
            }
        }
        out << buf;
    }
    out.close();
    return out ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc >= 4 && std::string(argv[1]) == "--write-trace")
        return write_trace(argv[2], argv[3],
                           argc >= 5 ? std::strtoull(argv[4], nullptr, 10) : target_events());
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    for (const char* fam : {"noise", "blocks", "loop_random", "bufwriter"})
        std::remove(
            ("/tmp/sfg-bench-slp-" + std::to_string(::getpid()) + "-" + fam + ".std").c_str());
}
