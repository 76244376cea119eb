// Exploring a program with one explorer and comparing two explorations (docs/programs.md,
// "Modes"): shared by the DPOR tests, the dependence tests and the parallel tests.
#pragma once

#include "support.hpp"

#include "sfg/checker/interpreter.hpp"

#include <cstdlib>
#include <optional>
#include <set>
#include <string>

namespace sfg::checker::test {

// Passes executions on to the Checker and keeps their final states and classes as sets.
class Recorder : public ExecutionSink {
public:
    Recorder(ExecutionSink& next, const Model& m) : next_(next), m_(m) {}
    void on_execution(const Execution& e) override {
        finals.insert(e.final_state->shared);
        ClassId c = foata_class(m_, *e.steps);
        classes.insert({c.a, c.b});
        next_.on_execution(e);
    }
    std::set<std::vector<std::int64_t>> finals;
    std::set<std::pair<std::uint64_t, std::uint64_t>> classes;

private:
    ExecutionSink& next_;
    const Model& m_;
};

struct Outcome {
    CheckResult result;
    std::set<std::vector<std::int64_t>> finals;
    std::set<std::pair<std::uint64_t, std::uint64_t>> classes;
    std::set<std::pair<int, std::string>> findings; // docs/programs.md's grouping
};

inline Outcome explore(const Model& m, CheckOptions o) {
    Interpreter in(m);
    Checker checker(in);
    Recorder rec(checker, m);
    bool fell_back = false;
    std::unique_ptr<Explorer> ex = make_explorer(o, &fell_back);
    ExploreStats stats = ex->explore(in, o, rec);
    Outcome out{checker.finish(stats, o), std::move(rec.finals), std::move(rec.classes), {}};
    out.result.fell_back = fell_back;
    for (const CheckFinding& f : out.result.findings)
        out.findings.insert({static_cast<int>(f.kind),
                             f.var.empty() ? std::to_string(f.line().value_or(0)) : f.var});
    return out;
}

inline Outcome explore(const Model& m, Mode mode, std::uint64_t max_exec = 1000000) {
    CheckOptions o;
    o.mode = mode;
    o.max_executions = max_exec;
    return explore(m, o);
}

// What a batch of comparisons saw, for the messages (the ratios quoted in docs/programs.md).
struct Totals {
    int compared = 0;
    std::uint64_t naive = 0, dpor = 0, classes = 0, sleep_blocked = 0;
    std::string text() const {
        return std::to_string(compared) + " programs: naive " + std::to_string(naive) +
               " executions, dpor " + std::to_string(dpor) + " (+" + std::to_string(sleep_blocked) +
               " sleep-set blocked), " + std::to_string(classes) + " classes";
    }
};

// Compares dpor with naive when naive completes within max_exec; returns dpor's result then.
inline std::optional<CheckResult> compare(const Model& m, std::uint64_t max_exec, bool exact_ratio,
                                          Totals& totals) {
    Outcome naive = explore(m, Mode::naive, max_exec);
    if (!naive.result.stats.complete)
        return std::nullopt;
    Outcome dpor = explore(m, Mode::dpor);
    ++totals.compared;
    totals.naive += naive.result.stats.executions;
    totals.dpor += dpor.result.stats.executions;
    totals.classes += naive.result.classes;
    totals.sleep_blocked += dpor.result.stats.sleep_blocked;
    CHECK(dpor.result.stats.complete);
    CHECK(dpor.findings == naive.findings);
    CHECK(dpor.finals == naive.finals);
    CHECK(dpor.classes == naive.classes);
    CHECK(dpor.result.classes == naive.result.classes);
    CHECK(dpor.result.stats.executions >= dpor.result.classes);
    if (exact_ratio)
        CHECK(dpor.result.stats.executions == dpor.result.classes);
    return std::move(dpor.result);
}

} // namespace sfg::checker::test
