// How sfg::explore chooses the next thread at each scheduling point (docs/explore.md, "Modes"),
// private to runtime/src/explore: every interleaving depth-first (naive, within a preemption
// bound), uniformly at random, PCT, or one given schedule (replay). A run is replayed from its
// start: a strategy that goes back to a node of its tree replays the choices before it.
#pragma once

#include "explore/dependence.hpp"
#include "explore/model.hpp"

#include "sfg/runtime/op.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sfg::explore_detail {

// What a step is, as replays compare it: its thread, its op and its object (by name). A replayed
// prefix that meets another step is the body's nondeterminism.
struct StepKey {
    std::uint32_t thread = 0;
    Op op = Op::read;
    bool yield = false;
    std::string object;
    friend bool operator==(const StepKey&, const StepKey&) = default;
};

// One scheduling decision: the threads that may take the next step (ascending), the thread
// that took the last one (none at the start), and the step's depth in the run; for DPOR, each
// thread's next step (null: none, it has ended or not begun), the threads that yielded, and the
// model of the objects.
struct Decision {
    const std::vector<std::uint32_t>* enabled = nullptr;
    std::optional<std::uint32_t> last;
    std::uint64_t depth = 0;
    const std::vector<const Event*>* next = nullptr;
    const std::vector<std::uint8_t>* yielded = nullptr;
    const Model* model = nullptr;
};

struct TaskRoot;

class Strategy {
public:
    virtual ~Strategy() = default;
    virtual void begin_run() = 0;
    // The thread to run, and, when the step repeats one of an earlier run, the step it must be
    // (StepKey; nullptr otherwise). None: the decision cannot be followed (the enabled threads
    // differ from the earlier run's): nondeterminism.
    struct Choice {
        std::uint32_t thread = 0;
        const StepKey* expected = nullptr;
        bool abandon = false; // the run is not worth going on with (dpor: sleep-set blocked)
    };
    virtual std::optional<Choice> choose(const Decision& d) = 0;
    // A node where no thread can take a step (the run's end, or a deadlock).
    virtual void at_leaf(const Decision&) {}
    // Whether a thread that yielded waits until another has taken a step (naive, random, pct:
    // spin loops end), or may still be chosen (dpor: every interleaving stays reachable, and the
    // strategy prefers the others).
    virtual bool yield_blocks() const { return true; }
    // The run's steps, when it has ended (normally or not).
    virtual void end_run(const std::vector<StepKey>& path) = 0;
    // Prepares the next run; false when there is none left (the exploration is complete for
    // naive and replay; random and pct never end by themselves).
    virtual bool next_run() = 0;
    // Whether the preemption bound left some schedule out.
    virtual bool pruned() const { return false; }
    // After a run has ended and before next_run(): the alternatives left at the shallowest node
    // of its stack that has any become the roots of child tasks (docs/explore.md, "More than one
    // process"; sfg/runtime/engine/task_tree.hpp), which this search explores no more. Their
    // paths are the caller's to set. Dpor and naive without a preemption bound; none otherwise.
    virtual void hand_off(std::vector<TaskRoot>&) {}
};

// A subtree of the search (docs/explore.md, "More than one process"): the threads of the steps
// that reach its root from the start, and dpor's sleep set there (by thread). The root of the
// whole search has neither.
struct TaskRoot {
    std::vector<std::uint32_t> path; // its place in the task tree (engine/task_tree.hpp)
    std::vector<std::uint32_t> prefix;
    std::vector<std::uint8_t> sleep;
    std::vector<StepKey> keys; // the prefix's steps as the run that handed the task on took them
    // Dealt to another part of a sharded search (docs/explore.md, "More than one machine"): not
    // explored here.
    bool other_part = false;
};

// The step a run must repeat at depth d, if any: the last run's, else the one the run that handed
// the task on took.
const StepKey* expected_step(const std::vector<StepKey>& last, const TaskRoot& root,
                             std::size_t depth);
// At a depth above the task's root: the thread of the root's path, or none when it cannot step
// there (the body's nondeterminism).
std::optional<std::uint32_t> root_step(const TaskRoot& root, const Decision& d);

std::unique_ptr<Strategy> make_naive(std::optional<unsigned> max_preemptions, TaskRoot root = {});
std::unique_ptr<Strategy> make_random(std::uint64_t seed);
std::unique_ptr<Strategy> make_pct(std::uint64_t seed, unsigned depth);
std::unique_ptr<Strategy> make_replay(std::vector<std::uint32_t> schedule);
// Source-DPOR with sleep sets (dpor.cpp): one run per Mazurkiewicz class.
std::unique_ptr<Strategy> make_dpor(TaskRoot root = {});
// Replay strings (docs/explore.md, "Replaying a schedule"): "sfg1:" and the threads of the
// steps, by number in creation order (main is 0), '.'-separated, a run of k equal ones as t*k.
std::string replay_string(const std::vector<std::uint32_t>& threads);
// Throws std::invalid_argument naming the column of what is wrong.
std::vector<std::uint32_t> parse_replay(const std::string& text);

} // namespace sfg::explore_detail
