// The search divided (docs/programs.md, "More than one core", "More than one machine"): the
// report — counts, findings, their shortest counterexamples, completeness — is the same for
// every number of threads, with and without bounds; dividing the tree into tasks changes no
// count and no finding; and the parts of a sharded search, written as JSON and read back,
// merge to the single run's report, for 1 to 5 parts. On the random-program corpus
// (random_program.hpp), with small task budgets so that every program is divided.
#include "compare.hpp"
#include "random_program.hpp"

#include "sfg/checker/part.hpp"
#include "sfg/checker/report.hpp"

#include <sstream>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {

// The whole report as a user sees it, and what the text leaves out.
std::string report(const Model& m, const CheckResult& r) {
    std::ostringstream out;
    print_text(out, m, r);
    out << to_json(m, r).dump() << '\n';
    out << "complete " << r.stats.complete << " max_depth " << r.stats.max_depth << '\n';
    for (const CheckFinding& f : r.findings)
        out << "event " << f.access.event << " executions " << f.executions << '\n';
    return out.str();
}

struct Corpus {
    std::string name, text;
};

// Programs of the three generators whose naive search is small enough to compare often.
std::vector<Corpus> corpus(std::uint64_t each) {
    std::vector<Corpus> out;
    for (std::uint64_t seed = 1; out.size() < 3 * each; ++seed) {
        bool multi = false;
        out.push_back({"random " + std::to_string(seed), random_program(seed)});
        out.push_back({"blocking " + std::to_string(seed), blocking_program(seed, &multi)});
        out.push_back({"barrier " + std::to_string(seed), barrier_program(seed)});
    }
    return out;
}

CheckOptions divided(Mode mode, std::uint64_t budget, std::uint64_t split) {
    CheckOptions o;
    o.mode = mode;
    o.max_executions = mode == Mode::random ? 150 : 3000;
    o.task_budget = budget;
    o.split_above = split;
    return o;
}

} // namespace

TEST_CASE("jobs: the same report for every number of threads") {
    int divided_programs = 0, with_findings = 0;
    const std::uint64_t n = seeds(30, 15);
    for (const Corpus& c : corpus(n)) {
        CAPTURE(c.name);
        CAPTURE(c.text);
        auto l = load(c.text);
        REQUIRE(l);
        for (Mode mode : {Mode::dpor, Mode::naive, Mode::random}) {
            CAPTURE(std::string(to_string(mode)));
            CheckOptions o = divided(mode, 5, 20);
            o.jobs = 1;
            const CheckResult one = check_model(l->model, o);
            if (one.stats.executions > 5)
                ++divided_programs;
            with_findings += one.found();
            const std::string expected = report(l->model, one);
            for (std::uint32_t jobs : {2u, 3u, 4u}) {
                o.jobs = jobs;
                CHECK(report(l->model, check_model(l->model, o)) == expected);
            }
        }
    }
    MESSAGE(divided_programs, " searches divided into tasks, ", with_findings, " with findings");
    CHECK(divided_programs >= at_least(150, n, 30));
    CHECK(with_findings >= at_least(100, n, 30));
}

TEST_CASE("jobs: the same report for every number of threads on queue programs") {
    // States carry the queues' contents (docs/programs.md): tasks copy them with the state.
    int divided_programs = 0, with_findings = 0;
    for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        const std::string text = queue_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        for (Mode mode : {Mode::dpor, Mode::naive}) {
            CAPTURE(std::string(to_string(mode)));
            CheckOptions o = divided(mode, 5, 20);
            o.jobs = 1;
            const CheckResult one = check_model(l->model, o);
            divided_programs += one.stats.executions > 5;
            with_findings += one.found();
            const std::string expected = report(l->model, one);
            for (std::uint32_t jobs : {2u, 4u}) {
                o.jobs = jobs;
                CHECK(report(l->model, check_model(l->model, o)) == expected);
            }
        }
    }
    MESSAGE(divided_programs, " searches divided into tasks, ", with_findings, " with findings");
    CHECK(divided_programs >= 10);
    CHECK(with_findings >= 20);
}

TEST_CASE("jobs: bounds cut the same executions for every number of threads") {
    int cut = 0;
    for (const Corpus& c : corpus(15)) {
        CAPTURE(c.name);
        CAPTURE(c.text);
        auto l = load(c.text);
        REQUIRE(l);
        for (Mode mode : {Mode::dpor, Mode::naive, Mode::random}) {
            for (int bound = 0; bound < 3; ++bound) {
                CheckOptions o = divided(mode, 3, 10);
                if (bound == 0)
                    o.max_executions = 7;
                else if (bound == 1)
                    o.max_states = 60;
                else
                    o.max_steps = 6;
                o.jobs = 1;
                const CheckResult one = check_model(l->model, o);
                cut += !one.stats.complete;
                const std::string expected = report(l->model, one);
                for (std::uint32_t jobs : {2u, 4u}) {
                    o.jobs = jobs;
                    CHECK(report(l->model, check_model(l->model, o)) == expected);
                }
            }
        }
    }
    CHECK(cut >= 100);
}

TEST_CASE("jobs: check_model and the one-thread explorer see the same executions") {
    for (const Corpus& c : corpus(10)) {
        CAPTURE(c.text);
        auto l = load(c.text);
        REQUIRE(l);
        CheckOptions o = divided(Mode::dpor, 4, 10);
        o.max_executions = 1000000;
        Outcome seq = explore(l->model, o);
        o.jobs = 3;
        CheckResult par = check_model(l->model, o);
        CHECK(seq.result.stats.executions == par.stats.executions);
        CHECK(seq.result.classes == par.classes);
        CHECK(seq.result.final_states == par.final_states);
        CHECK(report(l->model, seq.result) == report(l->model, check_model(l->model, o)));
    }
}

TEST_CASE("tasks: dividing the search changes no count and no finding") {
    Totals totals;
    int compared = 0;
    for (const Corpus& c : corpus(25)) {
        CAPTURE(c.name);
        CAPTURE(c.text);
        auto l = load(c.text);
        REQUIRE(l);
        for (Mode mode : {Mode::dpor, Mode::naive}) {
            const CheckResult whole = check_model(l->model, divided(mode, 0, 0));
            if (!whole.stats.complete)
                continue;
            ++compared;
            for (const auto& budget_split :
                 {std::pair<std::uint64_t, std::uint64_t>{1, 0}, {3, 1}, {0, 1}, {17, 30}}) {
                // Named copies: Clang 14 cannot capture structured bindings (CAPTURE does).
                const std::uint64_t budget = budget_split.first, split = budget_split.second;
                CAPTURE(budget);
                CAPTURE(split);
                CheckOptions o = divided(mode, budget, split);
                o.jobs = 2;
                const CheckResult r = check_model(l->model, o);
                CHECK(r.stats.executions == whole.stats.executions);
                CHECK(r.classes == whole.classes);
                CHECK(r.final_states == whole.final_states);
                CHECK(r.stats.complete);
                std::vector<std::pair<FindingKey, std::uint64_t>> a, b;
                for (const CheckFinding& f : whole.findings)
                    a.push_back({key_of(f), f.executions});
                for (const CheckFinding& f : r.findings)
                    b.push_back({key_of(f), f.executions});
                CHECK(a == b);
            }
        }
    }
    CHECK(compared >= 100);
}

TEST_CASE("shards: the merge of N parts is the single run, for N = 1..5") {
    int parts_with_work = 0;
    for (const Corpus& c : corpus(20)) {
        CAPTURE(c.name);
        CAPTURE(c.text);
        auto l = load(c.text);
        REQUIRE(l);
        for (Mode mode : {Mode::dpor, Mode::naive}) {
            CAPTURE(std::string(to_string(mode)));
            CheckOptions o = divided(mode, 6, 8);
            const CheckResult single = check_model(l->model, o);
            if (!single.stats.complete)
                continue; // a bound cuts each part, not the whole (docs/programs.md)
            const std::string expected = report(l->model, single);
            for (std::uint32_t n = 1; n <= 5; ++n) {
                CAPTURE(n);
                CheckPartial merged;
                for (std::uint32_t k = 1; k <= n; ++k) {
                    CheckOptions s = o;
                    s.shard_index = k;
                    s.shard_count = n;
                    s.jobs = 2;
                    bool fell_back = false;
                    ProgramPart p{&l->model, mode, false, explore_model(l->model, s, &fell_back)};
                    parts_with_work += n > 1 && p.partial.stats.executions > 0;
                    // Through the part's JSON, as sfgc check --merge reads it.
                    const std::string text =
                        write_part("test.sfg", c.text, options_text(s, ""), k, n, {p}).dump();
                    Part back = read_part("part.json", text);
                    CHECK(back.index == k);
                    CHECK(back.count == n);
                    merged.merge(std::move(read_program(back, 0, l->model).partial));
                }
                CHECK(report(l->model, finish(l->model, std::move(merged), o, false)) == expected);
                merged = CheckPartial();
            }
        }
    }
    MESSAGE(parts_with_work, " parts with executions");
    CHECK(parts_with_work >= 400);
}

TEST_CASE("shards: parts that do not fit are refused, naming the problem") {
    auto l = load(random_program(3));
    REQUIRE(l);
    CheckOptions o = divided(Mode::dpor, 2, 1);
    auto part = [&](std::uint32_t k, std::uint32_t n, const std::string& source,
                    const CheckOptions& with) {
        CheckOptions s = with;
        s.shard_index = k;
        s.shard_count = n;
        ProgramPart p{&l->model, Mode::dpor, false, explore_model(l->model, s)};
        Part back = read_part("p" + std::to_string(k) + ".json",
                              write_part("t.sfg", source, options_text(s, ""), k, n, {p}).dump());
        return back;
    };
    const std::string text = random_program(3);
    std::vector<Part> good = {part(1, 3, text, o), part(2, 3, text, o), part(3, 3, text, o)};
    CHECK(check_parts(good).empty());
    std::vector<Part> missing = {good[0], good[2]};
    CHECK(check_parts(missing) == "part 2 of 3 is missing");
    std::vector<Part> twice = {good[0], good[1], good[1], good[2]};
    CHECK(check_parts(twice).find("part 2 of 3 is given twice") != std::string::npos);
    std::vector<Part> other_n = {good[0], good[1], part(3, 4, text, o)};
    CHECK(check_parts(other_n).find("divided differently") != std::string::npos);
    CheckOptions steps = o;
    steps.max_steps = 50;
    std::vector<Part> other_options = {good[0], good[1], part(3, 3, text, steps)};
    CHECK(check_parts(other_options).find("max-steps=10000") != std::string::npos);
    std::vector<Part> other_source = {good[0], good[1], part(3, 3, text + "\n", o)};
    CHECK(check_parts(other_source).find("t.sfg differs") != std::string::npos);
    CHECK_THROWS_AS(read_part("x.json", "{\"sfgc_check_part\": 1}"), PartError);
    CHECK_THROWS_AS(read_part("x.json", "not json"), PartError);
    CHECK_THROWS_AS(read_part("x.json", "{\"program\": \"p\"}"), PartError);
}
