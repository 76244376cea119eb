// The model checker's DPOR: the runtime's source-DPOR with sleep sets (Abdulla, Aronis, Jonsson,
// Sagonas, JACM 64(4), 2017, Algorithm 1; sfg/runtime/engine/source_dpor.hpp, the engine that
// sfg::explore runs too) over the Interpreter's steps and the dependence of docs/programs.md
// (explore.hpp, dependent()). Three changes for this language's blocking steps (acq, join,
// bexit, await, deq, wake), which the paper's model lacks (the first two are the engine's, with
// the reversibility of each kind of step said here):
//
// 1. Only races that can be reversed are: e' must be able to run before e when the two may
//    be co-enabled (Flanagan and Godefroid, POPL'05). rel m then acq m, u's steps then
//    join u, or a benter that a bexit waits for, cannot; such an e is
//    skipped, and the search for races of e' goes on behind it, so that e' races with the
//    event that disabled it instead (acq m with the previous acq m).
// 2. A blocked thread's next step never becomes an event of the path, yet a later class may
//    run it. So at every node, the next step of each blocked thread races with the path when
//    the node's last event is dependent with it (it may have blocked it; otherwise the
//    parent's analysis covers this node). A reversal whose only initials are blocked before e
//    (e enabled an await) is dropped: the event that disabled the await was reversed when it
//    blocked it.
// 3. An await depends on writes to every shared variable of its condition, not only on those
//    this evaluation read (short-circuit), so that a step's dependence does not depend on the
//    values it meets. This can only split classes: dpor may then run more executions than
//    there are classes (never fewer).
//
// Sleep sets make every delivered (maximal) execution a different class; paths where every
// enabled thread sleeps are abandoned and counted in ExploreStats::sleep_blocked.
//
// The search runs as tasks (engine.hpp): a task starts at a node of the tree with the sleep set
// it has there and explores the subtree below it. The races it reverses are those between its
// own events; a race with a step above its root would add a thread to the backtrack set of a
// node above the root, and every such node explores every enabled thread that does not sleep
// there (each was handed on, or is in top_tasks()), which covers any reversal. Every budget of
// executions, a task hands the alternatives left at the shallowest node of its stack that has
// any on as child tasks — every enabled thread not asleep there, each with the sleep set it
// would have had had they been explored in thread order — and goes on below that node. That may
// be more branches than Algorithm 1 would take, so some may end sleep-set blocked; never a class
// explored twice (sleep sets) or missed.
#include "dpor.hpp"

#include "explore_detail.hpp"

#include "sfg/runtime/engine/source_dpor.hpp"

#include <algorithm>

namespace sfg::checker {

namespace {

// The interpreter as the engine's System (sfg/runtime/engine/source_dpor.hpp): a node is the
// interpreter's state, a step the summary of a thread's next visible instruction with its
// barrier generation, and whether a fork failed (known once taken).
struct DporStep {
    const Summary* sum = nullptr;
    std::uint32_t generation = 0;
    bool failed_fork = false;
};

class DporSystem {
public:
    using Step = DporStep;
    using Node = State;
    using Engine = engine::SourceDpor<DporSystem>;

    explicit DporSystem(const Exploration& x) : in_(x.in), m_(x.m), dm_(*x.dpor) {}

    static std::uint32_t thread(const Step& s) { return s.sum->step.thread; }
    bool dependent(const Step& a, const Step& b) const {
        return dependent_at(m_, a.sum->step, a.generation, b.sum->step, b.generation);
    }
    bool started_by(const Step& e, ThreadId p) const {
        return e.sum->code == Code::fork && !e.failed_fork && in_set(e.sum->arg, p);
    }
    std::size_t threads(const State& s) const { return s.threads.size(); }
    bool next(const State& s, ThreadId t, Step& out) const {
        if (s.threads[t].status != ThreadStatus::ready)
            return false;
        out = step_of(s, t);
        return true;
    }
    Step step_of(const State& s, ThreadId t) const {
        return Step{&dm_.summary(s, t), dm_.generation(s, t), false};
    }
    bool enabled(const State& s, ThreadId t) const { return in_.is_enabled(s, t); }
    bool runs_after(const State& node, const std::vector<const Step*>& steps,
                    const Step& step) const {
        State s = node;
        checker::Step scratch;
        for (const Step* k : steps) {
            if (!in_.is_enabled(s, thread(*k)))
                return false; // not expected: notdep(e) does not depend on e
            in_.step(s, thread(*k), scratch);
        }
        return in_.is_enabled(s, thread(step));
    }

    // Change 1 (docs/programs.md, "Modes"): can p's step run before events()[i], that is after
    // pre(E, e).notdep(e, E)? Exact for the usual cases, else decided by running notdep(e, E)
    // from the state before e.
    bool reversible(const Engine& d, std::size_t i, ThreadId p, const Step& step) const {
        const auto& ev = d.events()[i];
        const Summary& es = *ev.step.sum;
        const Summary& sum = *step.sum;
        if ((es.code == Code::fork || es.code == Code::join) && in_set(es.arg, p))
            return d.simulate(i, step); // a fork that failed (p started before), or a join of p
        switch (sum.code) {
        case Code::acq: // after rel m the lock is held; after acq m it was free before it
            return es.code == Code::acq || (es.code != Code::rel && d.simulate(i, step));
        case Code::bexit:
            if (es.code == Code::benter && es.arg == sum.arg)
                return exit_ok(d, i, sum.arg, p);
            return d.simulate(i, step);
        case Code::join:
            if (in_set(sum.arg, ev.thread) || (es.code == Code::fork && !ev.step.failed_fork))
                return false; // a thread joined is not done before its own step or its fork
            return d.simulate(i, step);
        case Code::deq:   // o at the front of q before e: decided by running notdep(e, E)
        case Code::cwake: // notified and m free before e: likewise
            return d.simulate(i, step);
        default: // a write may be co-enabled with an await; accesses, rel, fork, benter,
                 // begin/end are enabled whenever p is ready
            return true;
        }
    }

    bool in_set(std::uint32_t set, ThreadId u) const {
        const auto& ts = m_.thread_sets[set];
        return std::binary_search(ts.begin(), ts.end(), u);
    }

private:
    // bexit(b) by p after notdep(e, E), e = events()[i] an arrival at b: every member entered b
    // as often as p (Interpreter::is_enabled). Arrivals commute (docs/programs.md,
    // "Dependence"), so an arrival after e need not happen after it: the counts are those
    // before e plus the arrivals at b in notdep(e).
    bool exit_ok(const Engine& d, std::size_t i, std::uint32_t b, ThreadId p) const {
        const std::size_t n = m_.threads.size();
        const State& before = d.frames()[i].node;
        std::vector<std::uint32_t> enters(before.enters.begin() + b * n,
                                          before.enters.begin() + (b + 1) * n);
        for (std::size_t k = i + 1; k < d.events().size(); ++k) {
            const Summary& s = *d.events()[k].step.sum;
            if (s.code == Code::benter && s.arg == b && !d.after(k, i))
                ++enters[d.events()[k].thread];
        }
        for (ThreadId u : m_.barriers[b].members)
            if (enters[u] < enters[p])
                return false;
        return true;
    }

    const Interpreter& in_;
    const Model& m_;
    const DporModel& dm_;
};

// A task of the search (engine.hpp): the engine's stack driven by stepping copies of the
// interpreter's state, the path of steps beside it.
class Dpor {
public:
    Dpor(const Exploration& x, const TaskLimits& lim, ExecutionSink& sink)
        : x_(x), in_(x.in), o_(x.options), lim_(lim), sink_(sink), sys_(x), dpor_(sys_),
          nt_(x.m.threads.size()) {}

    TaskOutcome run(const Task& t) {
        base_ = std::make_shared<const std::vector<Step>>(t.steps());
        path_ = *base_;
        dpor_.reset(State(t.state), t.sleep.empty() ? std::vector<std::uint8_t>(nt_, 0)
                                                    : std::vector<std::uint8_t>(t.sleep));
        std::vector<ThreadId> enabled;
        auto& frames = dpor_.frames();
        while (!frames.empty()) {
            if (out_.stats.executions >= lim_.executions || out_.states >= lim_.states ||
                sink_.stop() || (lim_.abort && lim_.abort->load(std::memory_order_relaxed))) {
                out_.stats.complete = false;
                out_.stopped = true;
                break;
            }
            if (lim_.budget && out_.stats.executions >= next_split_) {
                hand_off(t.path);
                next_split_ = out_.stats.executions + lim_.budget;
            }
            if (!frames.back().started) {
                in_.enabled(frames.back().node, enabled);
                const std::optional<ThreadId> first =
                    dpor_.start(enabled, [](ThreadId) { return false; });
                if (enabled.empty() || path_.size() >= o_.max_steps) {
                    deliver(enabled);
                    pop();
                    continue;
                }
                if (!first) { // sleep-set blocked: equivalent to an explored path
                    ++out_.stats.sleep_blocked;
                    pop();
                    continue;
                }
            }
            const std::optional<ThreadId> p = dpor_.next_choice();
            if (!p) {
                pop();
                continue;
            }
            const State& from = frames.back().node;
            DporStep dstep = sys_.step_of(from, *p);
            State s = from;
            Step step;
            in_.step(s, *p, step);
            dpor_.take(*p, dstep); // `from` is invalid from here
            dpor_.last_event().step.failed_fork = dstep.sum->code == Code::fork &&
                                                  !step.actions.empty() &&
                                                  !step.actions.front().emitted;
            frames.back().node = std::move(s);
            path_.push_back(std::move(step));
        }
        if (out_.stats.hit_max_steps)
            out_.stats.complete = false;
        return std::move(out_);
    }

private:
    // Another budget is spent: the engine hands on the alternatives left at the shallowest node
    // that has any (SourceDpor::hand_off), each a task whose root is that node's state after the
    // thread's step. The nodes below stay this task's.
    void hand_off(const std::vector<std::uint32_t>& path) {
        const std::size_t base = base_->size();
        dpor_.hand_off([&](const State& s, std::vector<ThreadId>& out) { in_.enabled(s, out); },
                       [&](std::size_t d, ThreadId q, std::vector<std::uint8_t> after) {
                           Task c;
                           c.path = path;
                           c.path.push_back(children_++);
                           c.base = base_;
                           c.extra.assign(path_.begin() + static_cast<std::ptrdiff_t>(base),
                                          path_.begin() + static_cast<std::ptrdiff_t>(base + d));
                           c.extra.emplace_back();
                           c.state = dpor_.frames()[d].node;
                           in_.step(c.state, q, c.extra.back());
                           c.sleep = std::move(after);
                           if (lim_.on_child)
                               lim_.on_child(std::move(c));
                           else
                               out_.children.push_back(std::move(c));
                       });
    }

    void pop() {
        dpor_.pop();
        if (path_.size() > base_->size() + dpor_.events().size())
            path_.pop_back();
    }

    // A maximal path (or one cut by --max-steps) goes to the sink.
    void deliver(const std::vector<ThreadId>& enabled) {
        const State& s = dpor_.frames().back().node;
        Execution e{&x_.init_failures, &path_, &s, end_of(s, !enabled.empty())};
        if (e.end == EndKind::steps)
            out_.stats.hit_max_steps = true;
        out_.stats.max_depth = std::max<std::uint64_t>(out_.stats.max_depth, path_.size());
        ++out_.stats.executions;
        out_.states += path_.size();
        sink_.on_execution(e);
        std::vector<std::uint32_t> clock;
        for (ThreadId q : enabled) // cut by --max-steps: these next steps were never taken
            dpor_.analyze(q, sys_.step_of(s, q), clock);
    }

    const Exploration& x_;
    const Interpreter& in_;
    const CheckOptions& o_;
    const TaskLimits& lim_;
    ExecutionSink& sink_;
    DporSystem sys_;
    DporSystem::Engine dpor_;
    const std::size_t nt_;
    TaskOutcome out_;
    std::uint64_t next_split_ = lim_.budget;        // executions at which to hand on next
    std::uint32_t children_ = 0;                    // handed on so far
    std::shared_ptr<const std::vector<Step>> base_; // the steps to the task's root
    std::vector<Step> path_; // the steps from the initial state: base_, then the engine's events
};

class DporRunner : public TaskRunner {
public:
    explicit DporRunner(const Exploration& x) : x_(x) {}
    TaskOutcome run(const Task& t, const TaskLimits& limits, ExecutionSink& sink) override {
        return Dpor(x_, limits, sink).run(t);
    }

private:
    const Exploration& x_;
};

} // namespace

DporModel::DporModel(const Model& m) : m_(m) {
    const std::size_t nt = m_.threads.size();
    sums_.resize(nt);
    for (ThreadId t = 0; t < nt; ++t) {
        const std::vector<Instr>& code = m_.threads[t].code;
        sums_[t].resize(code.size());
        for (std::uint32_t pc = 0; pc < code.size(); ++pc) {
            const Instr& in = code[pc];
            Summary& s = sums_[t][pc];
            s.step.thread = t;
            if (!is_visible(in.code))
                continue; // a local await that stopped t: no step, no action
            s.code = in.code;
            s.arg = in.arg;
            if (is_cond_step(in.code)) {
                cond_actions(t, in, s.step.actions);
                continue;
            }
            if (in.code != Code::await_) {
                s.step.actions.push_back(action_of(m_, t, in));
                // A read-modify-write may write (a cas that fails does not: dependence
                // over-approximated, as for awaits).
                if (in.code == Code::xchg || in.code == Code::cas || in.code == Code::fadd)
                    s.step.actions.push_back(rmw_write(s.step.actions.back()));
                continue;
            }
            std::vector<std::uint32_t> seen; // change 3: every variable of the condition
            for (const Instr& c : m_.awaits[in.arg])
                if (c.code == Code::load_s &&
                    std::find(seen.begin(), seen.end(), c.arg) == seen.end()) {
                    seen.push_back(c.arg);
                    s.step.actions.push_back(action_of(m_, t, c));
                }
        }
    }
}

std::vector<std::uint8_t>
DporModel::sleep_after(const State& s, const std::vector<std::uint8_t>& sleep, ThreadId p) const {
    std::vector<std::uint8_t> out(sleep.size(), 0);
    for (ThreadId q = 0; q < sleep.size(); ++q)
        out[q] = sleep[q] && q != p && !dependent_in(s, q, p);
    return out;
}

std::uint32_t DporModel::generation(const State& s, ThreadId t) const {
    const Summary& sum = summary(s, t);
    if (sum.code != Code::benter && sum.code != Code::bexit)
        return 0;
    const std::uint32_t entered = s.enters[sum.arg * m_.threads.size() + t];
    return sum.code == Code::benter ? entered + 1 : entered;
}

bool DporModel::dependent_in(const State& s, ThreadId t, ThreadId u) const {
    return dependent_at(m_, summary(s, t).step, generation(s, t), summary(s, u).step,
                        generation(s, u));
}

bool dependent_at(const Model& m, const Step& a, std::uint32_t ga, const Step& b,
                  std::uint32_t gb) {
    if (ga && gb && ga != gb && a.thread != b.thread && a.actions.size() == 1 &&
        b.actions.size() == 1 && a.actions[0].target == b.actions[0].target)
        return false; // both barrier steps (only they have a generation), of one barrier
    return dependent(m, a, b);
}

std::unique_ptr<TaskRunner> make_dpor_runner(const Exploration& x) {
    return std::make_unique<DporRunner>(x);
}

} // namespace sfg::checker
