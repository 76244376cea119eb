// Exploration (docs/programs.md; after Relacy): the policies — naive DFS over every
// interleaving, random, and DPOR — are interchangeable Explorers over one Interpreter. An
// Explorer hands every complete execution (a path of Steps and the final State) to an
// ExecutionSink (checker.hpp: the analyses); it owns nothing else. CheckOptions holds every
// parameter, and every Execution can be replayed from its thread sequence (replay()).
#pragma once

#include "sfg/checker/interpreter.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sfg::checker {

enum class Mode : std::uint8_t { naive, dpor, random, pct };
const char* to_string(Mode m);
// Modes that sample runs (max_executions of them) instead of covering the tree.
inline bool sampled(Mode m) {
    return m == Mode::random || m == Mode::pct;
}

struct CheckOptions {
    Mode mode = Mode::dpor;
    std::uint64_t seed = 0; // random, pct
    unsigned pct_depth = 3; // pct: the bug depth d (docs/programs.md, "Modes")
    std::uint64_t max_executions = 1000000;
    std::uint64_t max_steps = 10000; // visible steps per execution
    // Steps of all executions explored, together: a bound on the exploration's work, which
    // executions x steps alone leave at 10^10 (docs/limits.md; sfgc check --max-states).
    std::uint64_t max_states = 100000000;
    std::optional<std::uint32_t> preemption_bound;
    bool progress = false; // a progress line on stderr

    // How the work is divided (docs/programs.md, "More than one core"). None of these changes a
    // count or a finding; the task tree, and so which execution of a class is explored and the
    // counterexamples, depend on task_budget and split_above only, never on jobs or shards.
    std::uint32_t jobs = 1; // threads exploring
    // The part of the exploration to explore: part shard_index (1-based) of shard_count.
    std::uint32_t shard_index = 1, shard_count = 1;
    // Every this many executions, a task hands the alternatives left at the shallowest node of
    // its stack on as new tasks (0: never).
    std::uint64_t task_budget = 4096;
    // Above this many executions (Knuth's estimate), the top of the tree is divided before the
    // exploration starts, into subtrees of at most a 64th of the estimate each (0: never).
    std::uint64_t split_above = 50000;
};

enum class EndKind : std::uint8_t {
    normal,   // every started thread ended or failed
    deadlock, // threads left, none enabled
    steps,    // --max-steps reached with threads still enabled
};

// One complete execution, as an Explorer delivers it. `steps` is the path from the initial
// state; `initial_failures` were noticed before the first step (root threads' local code).
struct Execution {
    const std::vector<Failure>* initial_failures = nullptr;
    const std::vector<Step>* steps = nullptr;
    const State* final_state = nullptr;
    EndKind end = EndKind::normal;
};

class ExecutionSink {
public:
    virtual ~ExecutionSink() = default;
    virtual void on_execution(const Execution& e) = 0;
    // Polled between executions: true stops the exploration early (e.g. a test that has seen
    // enough).
    virtual bool stop() const { return false; }
};

struct ExploreStats {
    std::uint64_t executions = 0;
    bool complete = true; // every execution (or class, for dpor) was explored
    bool hit_max_executions = false;
    bool hit_max_steps = false;  // some execution was cut by max_steps
    bool hit_max_states = false; // the steps of all executions reached max_states
    bool pruned = false;         // the preemption bound cut some branch
    std::uint64_t max_depth = 0; // longest execution, in steps
    // dpor: paths abandoned because every enabled thread slept (equivalent to an explored
    // execution; not delivered, not counted in `executions`).
    std::uint64_t sleep_blocked = 0;
};

// An exploration policy. Implementations: NaiveExplorer (every interleaving, DFS),
// RandomExplorer (max_executions random or PCT runs), the DPOR explorer (src/dpor.cpp: one
// execution per Mazurkiewicz class of maximal executions).
class Explorer {
public:
    virtual ~Explorer() = default;
    virtual ExploreStats explore(const Interpreter& in, const CheckOptions& options,
                                 ExecutionSink& sink) = 0;
};

// The explorer for `options`. Mode::dpor with a preemption bound falls back to naive (the bound
// would make DPOR's race reversals unsound); `fell_back` says so.
std::unique_ptr<Explorer> make_explorer(const CheckOptions& options, bool* fell_back = nullptr);

// ---- the dependence relation (docs/programs.md, "Modes") ----

// Two actions are dependent (docs/programs.md, "Dependence"): of one thread; on one variable or
// volatile, one of them a write; on one lock; on one queue (enq, deq: thesis §5.1); on one
// barrier, one an arrival (benter) and the other a departure (bexit); a fork or join naming u and
// any action of u; a fork naming u and a join naming u; two forks naming u.
bool dependent(const Model& m, const Action& a, const Action& b);
// Two steps are dependent when they are of one thread or some of their actions are.
bool dependent(const Model& m, const Step& a, const Step& b);

// The Mazurkiewicz trace of a step sequence under `dependent`, as a 128-bit hash of its Foata
// normal form (steps sorted by (level, thread), each with its actions). Equal for two
// executions iff (up to hash collisions) they are equivalent.
struct ClassId {
    std::uint64_t a = 0, b = 0;
    friend bool operator==(const ClassId&, const ClassId&) = default;
};
struct ClassIdHash {
    std::size_t operator()(const ClassId& c) const { return static_cast<std::size_t>(c.a ^ c.b); }
};
ClassId foata_class(const Model& m, const std::vector<Step>& steps);

// Replays a thread sequence from the initial state (counterexamples, tests). Stops early when
// a thread is not enabled; returns the steps taken.
std::vector<Step> replay(const Interpreter& in, const std::vector<ThreadId>& schedule,
                         State* final_state = nullptr);

} // namespace sfg::checker
