// The task tree every exploration walks (docs/programs.md, "More than one core"), internal to the
// checker. A task is a subtree of the search: its root (a state and the steps that reach it) and
// what the mode keeps there (dpor's sleep set, naive's preemptions, random's runs). A runner
// explores a task depth-first, as the sequential search would; every `TaskLimits::budget`
// executions it hands the alternatives left at the shallowest node of its stack that has any
// on as child tasks (the largest part of what is left), and goes on below that node. Before the
// search, the top of the tree may be divided too (top_tasks(): when Knuth's estimate of its size is
// large). Each task's exploration depends on the task alone, so the tree, its executions and their
// order — the canonical order: a task's own executions, then its children's subtrees in the order
// they were handed on — are the same whoever explores which task when: one thread, several
// (explore_tasks()), or several machines
// (--shard, each its share of the top tasks).
#pragma once

#include "sfg/checker/checker.hpp"
#include "sfg/checker/explore.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace sfg::checker {

class DporModel;

struct Task {
    std::vector<std::uint32_t> path; // its place in the task tree (ExecOrder::task)
    // The steps from the initial state to the root: `base`, shared with the other tasks split
    // off the same task, then `extra`.
    std::shared_ptr<const std::vector<Step>> base;
    std::vector<Step> extra;
    State state;                       // at the root
    std::vector<std::uint8_t> sleep;   // dpor: the sleep set at the root
    std::uint32_t preemptions = 0;     // naive with --preemption-bound: so far
    std::uint64_t first = 0, last = 0; // random: runs [first, last)
    std::uint64_t estimate = 0;        // Knuth's estimate of its executions (top tasks)
    std::vector<Step> steps() const;   // base then extra
};

struct TaskLimits {
    static constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t executions = none; // deliver at most this many
    std::uint64_t states = none;     // stop once the delivered executions' steps reach this
    // Every `budget` executions (0: never), hand on the alternatives left at the shallowest node
    // of the depth-first stack that has any, as child tasks; go on below it.
    std::uint64_t budget = 0;
    const std::atomic<bool>* abort = nullptr;
    // Takes each child task as it is handed on (else TaskOutcome::children collects them).
    std::function<void(Task&&)> on_child;
};

struct TaskOutcome {
    ExploreStats stats;         // executions, sleep_blocked, max_depth, hit_max_steps, pruned
    std::uint64_t states = 0;   // steps of the executions delivered
    bool stopped = false;       // by a limit, the sink or abort: the subtree is not done
    std::vector<Task> children; // handed on, in canonical order (without on_child)
};

// What every runner shares, read-only during the search.
struct Exploration {
    Exploration(const Interpreter& in, const CheckOptions& options);
    ~Exploration();
    const Interpreter& in;
    const Model& m;
    CheckOptions options; // mode: the one explored (naive when dpor takes a preemption bound)
    bool fell_back = false;
    std::vector<Failure> init_failures;
    State initial;
    std::unique_ptr<DporModel> dpor; // mode dpor
    // Mode pct: PCT's k, the steps a run is expected to take (pct_steps()).
    std::uint64_t pct_steps = 1;
};

class TaskRunner {
public:
    virtual ~TaskRunner() = default;
    // Explores `t` depth-first, delivering executions to `sink` (polling sink.stop() between
    // them) until it is done, a limit is reached or the budget is spent.
    virtual TaskOutcome run(const Task& t, const TaskLimits& limits, ExecutionSink& sink) = 0;
};
std::unique_ptr<TaskRunner> make_runner(const Exploration& x);
std::unique_ptr<TaskRunner> make_naive_runner(const Exploration& x);
std::unique_ptr<TaskRunner> make_random_runner(const Exploration& x); // random and pct
// PCT's k: the longest of 16 uniform random runs from the initial state (their own streams of
// the seed), made once before the search, so that every run, and the report, is the same for
// every number of jobs and shards.
std::uint64_t pct_steps(const Exploration& x);
std::unique_ptr<TaskRunner> make_dpor_runner(const Exploration& x);

// Knuth's estimator ("Estimating the efficiency of backtrack programs", Math. Comp. 29, 1975):
// the mean, over `probes` random paths from t's root, of the product of the branching factors
// met. On dpor's tree with sleep sets explored child by child in thread order, where the leaves
// that are not sleep-set blocked are one execution per class, it estimates the executions
// dpor delivers (a blocked path counts 0); on naive's tree, the interleavings. Deterministic for
// a seed (integer arithmetic, saturating).
std::uint64_t estimate(const Exploration& x, const Task& t, std::uint64_t seed, int probes);
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a + b < a ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

// The tasks the search starts from, in canonical order: the root, or, when its estimate is at
// least options.split_above, the top of the tree divided until no task is estimated above a
// 64th of the whole (random: the runs in blocks).
std::vector<Task> top_tasks(const Exploration& x);
// Shard k of n (1-based): a share of the top tasks, balanced by their estimates (longest
// first to the least loaded), in canonical order.
std::vector<Task> shard_tasks(std::vector<Task> top, std::uint32_t k, std::uint32_t n);

// A sink per thread that sorts each task's executions into a CheckPartial.
class TaskSink : public ExecutionSink {
public:
    virtual void begin_task(const std::vector<std::uint32_t>& path, CheckPartial* into) = 0;
};

// Explores `tasks` and their subtrees on options.jobs threads, merging each task's results into
// `out` in canonical order, so that the bounds (max_executions, max_states) cut the same
// executions whatever the schedule; sets out.stats' flags. Every execution delivered bumps
// `delivered`; `progress` is called about twice a second on the calling thread meanwhile.
void explore_tasks(const Exploration& x, std::vector<Task> tasks,
                   const std::function<std::unique_ptr<TaskSink>()>& make_sink, CheckPartial& out,
                   std::atomic<std::uint64_t>& delivered, const std::function<void()>& progress);

} // namespace sfg::checker
