// Mode pct (docs/programs.md, "Modes"): probabilistic concurrency testing finds a depth-2 bug
// behind many threads that uniform random runs and dpor's first executions miss; its runs, and
// so the report, are the same for every number of threads and parts.
#include "compare.hpp"
#include "random_program.hpp"

#include "sfg/checker/part.hpp"
#include "sfg/checker/report.hpp"

#include <sstream>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {

// SCTBench's reorder pattern (Thomson, Donaldson, Betts, "Concurrency testing using controlled
// schedulers", TOPC 2016): main starts `setters` threads, each writing a then b, then a checker
// that fails when it reads between one setter's two writes, which every setter started before it
// must leave until then.
std::string reorder(int setters) {
    std::string threads, forks, bodies;
    for (int i = 0; i < setters; ++i) {
        const std::string t = "set" + std::to_string(i);
        threads += t + ", ";
        forks += "fork " + t + "; ";
        bodies += "  thread " + t + " { a = 1; b = -1; }\n";
    }
    return "threads main, " + threads + "check;\nvolatile a, b;\nprogram reorder {\n" +
           "  thread main { " + forks + "fork check; }\n" + bodies +
           "  thread check { let x = a; let y = b;\n"
           "    assert (x == 0 && y == 0) || (x == 1 && y == -1); }\n}\n";
}

std::string report(const Model& m, const CheckResult& r) {
    std::ostringstream out;
    print_text(out, m, r);
    out << to_json(m, r).dump() << '\n';
    for (const CheckFinding& f : r.findings)
        out << "event " << f.access.event << " executions " << f.executions << '\n';
    return out.str();
}

} // namespace

TEST_CASE("pct: finds the reorder bug behind nine threads that random and dpor miss") {
    auto l = load(reorder(9));
    REQUIRE(l);
    CheckOptions o;
    o.max_executions = 3000; // pct shows it in about one run of 600 (5 here)
    o.seed = 1;
    o.mode = Mode::pct;
    const CheckResult pct = check_model(l->model, o);
    CHECK(pct.stats.executions == 3000);
    CHECK_FALSE(pct.stats.complete);
    CHECK(has(pct, FindingKind::assert_));
    o.mode = Mode::random;
    CHECK_FALSE(has(check_model(l->model, o), FindingKind::assert_));
    o.mode = Mode::dpor;
    CHECK_FALSE(has(check_model(l->model, o), FindingKind::assert_));
    // Depth 1 never preempts a thread of higher priority: each thread runs to its end.
    o.mode = Mode::pct;
    o.pct_depth = 1;
    CHECK_FALSE(has(check_model(l->model, o), FindingKind::assert_));
}

TEST_CASE("pct: the same report for every number of threads and parts") {
    int with_findings = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        bool multi = false;
        const std::string text = seed % 2 ? random_program(seed) : blocking_program(seed, &multi);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        CheckOptions o;
        o.mode = Mode::pct;
        o.seed = seed;
        o.max_executions = 150;
        o.pct_depth = 2 + static_cast<unsigned>(seed % 3);
        o.jobs = 1;
        const CheckResult one = check_model(l->model, o);
        with_findings += one.found();
        const std::string expected = report(l->model, one);
        for (std::uint32_t jobs : {2u, 3u}) {
            o.jobs = jobs;
            CHECK(report(l->model, check_model(l->model, o)) == expected);
        }
        // Three parts, through their JSON as sfgc check --merge reads them.
        CheckPartial merged;
        for (std::uint32_t k = 1; k <= 3; ++k) {
            CheckOptions s = o;
            s.shard_index = k;
            s.shard_count = 3;
            bool fell_back = false;
            ProgramPart p{&l->model, Mode::pct, false, explore_model(l->model, s, &fell_back)};
            const std::string json =
                write_part("test.sfg", text, options_text(s, ""), k, 3, {p}).dump();
            Part back = read_part("part.json", json);
            merged.merge(std::move(read_program(back, 0, l->model).partial));
        }
        CHECK(report(l->model, finish(l->model, std::move(merged), o, false)) == expected);
    }
    CHECK(with_findings >= 4);
}
