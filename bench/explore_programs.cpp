// sfg::explore against `sfgc check` on the programs themselves, per execution (bench/README.md,
// "explore"): for each program, `check/NAME` runs the model checker in process (dpor, the options
// `sfgc check` uses by default, on one thread, as bench/check.cpp does) and `explore/NAME` runs
// sfg::explore (dpor) on the program's C++ translation (checker/tests/explore_translation.hpp)
// under the program's disciplines with the same analyses. Both run one search, so the two rows'
// executions and classes must be equal (classes may differ only with a cas, which the runs'
// classes see as a read when it fails): a difference is printed on stderr.
//
// Programs: every program of specs/programs/ that translates (read at run time from
// $SFG_SOURCE_DIR, else the source tree this was built from; the others are named on stderr)
// and the generated rows of bench/spin_vs_check.sh. bench/explore_programs.sh runs rounds of it
// and prints explore / check per execution.
//
// Counters: executions, classes, cpu_per_exec (process CPU time an execution); check's rows also
// sleep_blocked (dpor's abandoned paths, as in bench/check.cpp).
#include "explore_translation.hpp"

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/explore.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace checker = sfg::checker;

// The generators of bench/spin_vs_check.sh (gen_counter, gen_philosophers, gen_particles), which
// these mirror line for line: the same text.

// main forks N workers that each add 1 to x under lock m, K times, joins them, asserts the sum.
std::string gen_counter(int n, int k) {
    std::string ts;
    for (int i = 0; i < n; ++i)
        ts += fmt::format("{}w{}", i ? ", " : "", i);
    std::string s =
        fmt::format("threads main, {};\nlock m;\nvar x;\nprogram counter_{}x{} {{\n", ts, n, k);
    s += fmt::format("  thread main {{ fork {0}; join {0}; assert x == {1}; }}\n", ts, n * k);
    for (int i = 0; i < n; ++i)
        s += fmt::format("  thread w{} {{ repeat {} {{ acq m; let t = x; x = t + 1; rel m; }} }}\n",
                         i, k);
    return s + "}\n";
}

// N dining philosophers with one lock per fork taken left then right: deadlocks.
std::string gen_philosophers(int n) {
    std::string ts, ls, vs;
    for (int i = 0; i < n; ++i) {
        const char* sep = i ? ", " : "";
        ts += fmt::format("{}p{}", sep, i);
        ls += fmt::format("{}f{}", sep, i);
        vs += fmt::format("{}eat{}", sep, i);
    }
    std::string s =
        fmt::format("threads {};\nlock {};\nvar {};\nprogram philosophers_{} {{\n", ts, ls, vs, n);
    for (int i = 0; i < n; ++i)
        s +=
            fmt::format("  thread p{0} {{ acq f{0}; acq f{1}; eat{0} = 1; rel f{1}; rel f{0}; }}\n",
                        i, (i + 1) % n);
    return s + "}\n";
}

// N particles, R rounds: write own cell, barrier, read the next one's, barrier (clean).
std::string gen_particles(int n, int r) {
    std::string ts, vs;
    for (int i = 0; i < n; ++i) {
        const char* sep = i ? ", " : "";
        ts += fmt::format("{}q{}", sep, i);
        vs += fmt::format("{}c{}", sep, i);
    }
    std::string s = fmt::format(
        "threads {0};\nbarrier b({0});\nvar {1};\nprogram particles_{2}x{3} {{\n", ts, vs, n, r);
    for (int i = 0; i < n; ++i)
        s += fmt::format("  thread q{0} {{ let i = 0; repeat {1} {{ i = i + 1; c{0} = i; barrier "
                         "b; let o = c{2}; assert o == i; barrier b; }} }}\n",
                         i, r, (i + 1) % n);
    return s + "}\n";
}

struct Program {
    std::string name;
    sfg::CompiledSpec spec;
    checker::Model model;
};

// The program's first `program` lowered; null if the text does not compile.
std::unique_ptr<Program> load(const std::string& name, const std::string& text) {
    sfg::Diagnostics diags;
    sfg::SourceFile file(name + ".sfg", text);
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(file, diags);
    if (!spec || spec->programs.empty())
        return nullptr;
    auto p = std::make_unique<Program>(Program{name, std::move(*spec), {}});
    p->model = checker::lower(p->spec, p->spec.programs.front());
    return p;
}

// Why the translation cannot run `p` as `sfgc check` does ("" if it can): what
// explore_translation.hpp leaves out, ill-formed operations and searches past the bounds.
std::string left_out(const Program& p) {
    if (!checker::test::translatable(p.model))
        return "not translatable";
    const checker::CheckResult r = checker::check_model(p.model, checker::CheckOptions{});
    if (!r.stats.complete)
        return "check incomplete";
    if (std::any_of(r.findings.begin(), r.findings.end(), [](const checker::CheckFinding& f) {
            return f.kind == checker::FindingKind::ill_formed;
        }))
        return "ill-formed";
    return "";
}

bool uses_cas(const checker::Model& m) {
    return std::any_of(m.threads.begin(), m.threads.end(), [](const checker::ThreadCode& t) {
        return std::any_of(t.code.begin(), t.code.end(),
                           [](const checker::Instr& i) { return i.code == checker::Code::cas; });
    });
}

void count(benchmark::State& state, std::uint64_t executions, std::uint64_t classes) {
    state.counters["executions"] = static_cast<double>(executions);
    state.counters["classes"] = static_cast<double>(classes);
    state.counters["cpu_per_exec"] = benchmark::Counter(
        static_cast<double>(executions),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

struct Counts {
    std::uint64_t executions = 0, classes = 0;
};

void run_check(benchmark::State& state, const Program& p, Counts& seen) {
    checker::CheckOptions o; // sfgc check's defaults; dpor, one thread (its --jobs 1)
    checker::CheckResult r;
    for (auto _ : state) {
        r = checker::check_model(p.model, o);
        benchmark::DoNotOptimize(r.classes);
    }
    seen = {r.stats.executions, r.classes};
    count(state, r.stats.executions, r.classes);
    state.counters["sleep_blocked"] = static_cast<double>(r.stats.sleep_blocked);
}

void run_explore(benchmark::State& state, const Program& p, const Counts& check) {
    const checker::test::SpecData data(p.spec);
    // Built once, as check's model is: a test explores with the spec it holds.
    const sfg::spec spec = data.spec();
    sfg::explore_options o;
    o.mode = sfg::explore_mode::dpor;
    o.analyses = checker::test::translation_analyses(p.model);
    sfg::explore_report r;
    for (auto _ : state) {
        r = sfg::explore(spec, checker::test::translation(p.model), o);
        benchmark::DoNotOptimize(r.classes);
    }
    count(state, r.executions, r.classes);
    if (!r.complete)
        std::fprintf(stderr, "explore_programs: %s: explore incomplete\n", p.name.c_str());
    // Equal by construction (docs/explore.md, "The same answer as sfgc check"); check's counts
    // are those of its row, when it ran.
    if (check.executions != 0 &&
        (r.executions != check.executions || (r.classes != check.classes && !uses_cas(p.model))))
        std::fprintf(stderr,
                     "explore_programs: %s: explore %llu executions, %llu classes; check %llu, "
                     "%llu\n",
                     p.name.c_str(), static_cast<unsigned long long>(r.executions),
                     static_cast<unsigned long long>(r.classes),
                     static_cast<unsigned long long>(check.executions),
                     static_cast<unsigned long long>(check.classes));
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::unique_ptr<Program>> programs() {
    std::vector<std::pair<std::string, std::string>> texts; // name, text
    const char* env = std::getenv("SFG_SOURCE_DIR");
    const std::filesystem::path dir =
        std::filesystem::path(env ? env : SFG_SOURCE_DIR) / "specs" / "programs";
    std::vector<std::filesystem::path> files;
    for (const auto& d : std::filesystem::directory_iterator(dir)) {
        const std::filesystem::path f = d.path() / (d.path().filename().string() + ".sfg");
        if (std::filesystem::exists(f))
            files.push_back(f);
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& f : files)
        texts.emplace_back(f.stem().string(), read_file(f));
    // spin_vs_check.sh's generated programs, and counter_3x2.
    for (auto [n, k] : {std::pair{4, 2}, std::pair{3, 2}})
        texts.emplace_back(fmt::format("counter_{}x{}", n, k), gen_counter(n, k));
    for (int n : {4, 5})
        texts.emplace_back(fmt::format("philosophers_{}", n), gen_philosophers(n));
    for (auto [n, r] : {std::pair{3, 1}, std::pair{4, 1}, std::pair{3, 2}, std::pair{5, 1}})
        texts.emplace_back(fmt::format("particles_{}x{}", n, r), gen_particles(n, r));

    std::vector<std::unique_ptr<Program>> out;
    for (const auto& [name, text] : texts) {
        std::unique_ptr<Program> p = load(name, text);
        const std::string why = p ? left_out(*p) : "does not compile";
        if (why.empty())
            out.push_back(std::move(p));
        else
            std::fprintf(stderr, "explore_programs: %s left out: %s\n", name.c_str(), why.c_str());
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    const std::vector<std::unique_ptr<Program>> all = programs();
    std::vector<Counts> counts(all.size());
    // A program's check row, then its explore row: a slow stretch of a shared machine falls on
    // both alike.
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Program& p = *all[i];
        Counts& c = counts[i];
        benchmark::RegisterBenchmark(("check/" + p.name).c_str(),
                                     [&p, &c](benchmark::State& s) { run_check(s, p, c); })
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.2)
            ->MeasureProcessCPUTime(); // the search runs on threads of its own
        benchmark::RegisterBenchmark(("explore/" + p.name).c_str(),
                                     [&p, &c](benchmark::State& s) { run_explore(s, p, c); })
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.2)
            ->MeasureProcessCPUTime(); // every thread's: the body's threads and the controller's
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
