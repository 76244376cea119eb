// The checks run on every execution (docs/programs.md) and their grouping into findings:
// each execution's events stream through the well-formedness checker into the analyses
// `fasttrack` and `enforce` of the runtime's registry (analyses.hpp; every annotated variable;
// goldilocks cross-checks fasttrack in debug builds);
// failures, deadlocks and bounds come from the interpreter. One finding per (kind, variable)
// for races and violations and per (kind, line) otherwise, each keeping its shortest
// counterexample (fewest events).
#pragma once

#include "sfg/checker/explore.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/runtime/report.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sfg::check {

// The kinds of findings are the runtime's (report.hpp): race, violation, assert_, divzero,
// deadlock, ill_formed, bound.
using sfg::FindingKind;

struct CheckFinding {
    FindingKind kind = FindingKind::race;
    std::string var;                   // race, violation (empty otherwise)
    std::optional<std::uint32_t> line; // the failing statement / reported event; none for bound
    std::string message;
    // The shortest counterexample: the steps of an execution up to and including the step
    // where the finding happens (the whole execution for a deadlock or a step bound).
    std::vector<Step> steps;
    std::uint64_t events = 0;       // emitted events in `steps` (what "shortest" minimizes)
    std::uint64_t event = 0;        // race/violation: the number of the reported event
    std::optional<ThreadId> thread; // the failing / reporting thread
    std::uint64_t executions = 0;   // executions that showed it
};

struct CheckResult {
    std::string program;
    Mode mode = Mode::dpor;
    bool fell_back = false; // dpor asked with --preemption-bound: naive used
    ExploreStats stats;
    std::uint64_t classes = 0;          // Mazurkiewicz traces seen
    std::uint64_t final_states = 0;     // distinct final values of the shared variables
    std::vector<CheckFinding> findings; // in order of kind, then var / line
    bool found() const { return !findings.empty(); }
};

// Explores `model` with `options.mode` and runs every check on every execution.
CheckResult check_model(const Model& model, const CheckOptions& options);

// What identifies a finding (docs/programs.md): its kind and variable for races and violations,
// its kind and line otherwise.
struct FindingKey {
    FindingKind kind = FindingKind::race;
    std::string var;
    std::uint32_t line = 0;
    friend auto operator<=>(const FindingKey&, const FindingKey&) = default;
};

// The sink that does the checking, for explorers under test.
class Checker : public ExecutionSink {
public:
    // Stops the exploration (stop()) once the executions delivered hold `max_states` steps.
    explicit Checker(const Interpreter& in, std::uint64_t max_states = CheckOptions{}.max_states);
    ~Checker() override;
    void on_execution(const Execution& e) override;
    bool stop() const override;
    // The findings of the last execution delivered, sorted (for tests of the dependence: every
    // execution of a class shows the same ones).
    std::vector<FindingKey> last_findings() const;
    // Adds the bound findings implied by `stats` and returns the result.
    CheckResult finish(const ExploreStats& stats, const CheckOptions& options);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t max_states_, states_ = 0;
};

} // namespace sfg::check
