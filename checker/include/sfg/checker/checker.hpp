// The checks run on every execution (docs/programs.md) and their grouping into findings:
// each execution's events stream through the well-formedness checker into the analyses
// `fasttrack` and `enforce` of the runtime's registry (analyses.hpp; every annotated variable;
// goldilocks cross-checks fasttrack in debug builds);
// failures, deadlocks and bounds come from the interpreter. One finding per (kind, variable)
// for races and violations and per (kind, line) otherwise, each keeping its shortest
// counterexample (fewest events; among equals, fewest steps, then the execution first in the
// exploration's canonical order, so that the choice does not depend on who explored what when).
#pragma once

#include "sfg/checker/explore.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/runtime/report.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace sfg::checker {

// The kinds of findings are the runtime's (report.hpp): race, violation, assert_, divzero,
// deadlock, ill_formed, bound.
using sfg::FindingKind;

// Where an execution is in the exploration's canonical order (docs/programs.md, "More than one
// core"): the path of its task in the task tree, then its place among the task's executions. A
// task's executions come before its children's; children in order (pre-order).
struct ExecOrder {
    std::vector<std::uint32_t> task;
    std::uint64_t index = 0;
    friend bool operator==(const ExecOrder&, const ExecOrder&) = default;
};
bool operator<(const ExecOrder& a, const ExecOrder& b);

// A finding of `sfgc check`: the runtime's Finding (report.hpp) plus its counterexample. Of the
// Finding: `kind`, `message`; `var` for races and violations (empty otherwise); `access` the
// reported event of a race, violation, conflict or cycle (its number in the counterexample's
// events), or only the failing thread and line of an assert, a division by zero, a deadlock or an
// ill-formed operation; no thread (no_object) for a bound; `block` the `begin` of a conflict's
// block.
struct CheckFinding : Finding {
    CheckFinding() { access.thread = no_object; }
    bool has_thread() const { return access.thread != no_object; }

    // The line the report names: the failing statement's or the reported event's (access.line),
    // a conflict's block's (docs/determinism.md, "Model checking"); none for a bound or a cycle.
    std::optional<std::uint32_t> line() const;
    // The shortest counterexample: the steps of an execution up to and including the step
    // where the finding happens (the whole execution for a deadlock or a step bound).
    std::vector<Step> steps;
    std::uint64_t events = 0;     // emitted events in `steps` (what "shortest" minimizes)
    std::uint64_t executions = 0; // executions that showed it
    ExecOrder order;              // the execution `steps` comes from
};

// What identifies a finding (docs/programs.md): its kind and variable for races and violations,
// its kind and line otherwise.
struct FindingKey {
    FindingKind kind = FindingKind::race;
    std::string var;
    std::uint32_t line = 0;
    friend auto operator<=>(const FindingKey&, const FindingKey&) = default;
};
FindingKey key_of(const CheckFinding& f);

// The results of exploring some executions, in a form that merges: what each task of the search
// adds up to, and what a part of a sharded search (--shard) writes for --merge.
struct CheckPartial {
    ExploreStats stats; // executions, sleep_blocked, max_depth and the flags
    std::uint64_t states = 0;
    std::unordered_set<ClassId, ClassIdHash> classes;
    std::uint64_t counted_classes = 0; // classes known by their number only (disjoint parts)
    std::set<std::vector<std::int64_t>> finals;
    std::map<FindingKey, CheckFinding> findings;
    // Adds `f` (seen in f.executions executions), keeping the shorter counterexample.
    void add(CheckFinding&& f);
    void merge(CheckPartial&& other);
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

// Explores `model` with `options.mode` on options.jobs threads — only part
// options.shard_index of options.shard_count of the search — and runs every check on every
// execution. With options.progress, a progress line on stderr (docs/programs.md).
CheckPartial explore_model(const Model& model, const CheckOptions& options,
                           bool* fell_back = nullptr);
// The report of explored executions: counts, and the bound findings the flags imply.
CheckResult finish(const Model& model, CheckPartial&& part, const CheckOptions& options,
                   bool fell_back);
// Both.
CheckResult check_model(const Model& model, const CheckOptions& options);

// The sink that does the checking, for explorers under test and for the threads of the search.
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
    // From now on, results go into `into` (not the Checker's own), the executions ordered
    // within the task at `path`, from index 0.
    void begin_task(const std::vector<std::uint32_t>& path, CheckPartial* into);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint64_t max_states_, states_ = 0;
};

} // namespace sfg::checker
