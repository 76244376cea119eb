// Source-DPOR with sleep sets: Abdulla, Aronis, Jonsson, Sagonas, "Source Sets: A Foundation for
// Optimal Dynamic Partial Order Reduction", JACM 64(4), 2017, Algorithm 1 (POPL'14), over
// the Interpreter's steps and the dependence of docs/programs.md (explore.hpp, dependent()). Three
// changes for this language's blocking steps (acq, join, bexit, await, deq, wake), which the
// paper's model lacks:
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

#include <algorithm>

namespace sfg::checker {

namespace {

struct Event {
    ThreadId thread = 0;
    std::uint32_t pos = 0; // index among its thread's events
    const Summary* sum = nullptr;
    std::uint32_t generation = 0; // of a barrier step (DporModel::generation)
    bool failed_fork = false;
    // Happens-before (transitive closure of `dependent` on the path): clock[t] = how many of
    // t's events happen before or are this one.
    std::vector<std::uint32_t> clock;
};

// A node of the depth-first search: the state before the event at this depth.
struct Frame {
    State state;
    std::vector<std::uint8_t> backtrack; // threads to explore from here (Algorithm 1's backtrack)
    std::vector<std::uint8_t> sleep;     // explored here, or covered by an explored branch
    std::vector<std::uint32_t> count;    // events per thread before this depth
    bool started = false;
};

void join_clock(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& c) {
    for (std::size_t t = 0; t < into.size(); ++t)
        into[t] = std::max(into[t], c[t]);
}

class Dpor {
public:
    Dpor(const Exploration& x, const TaskLimits& lim, ExecutionSink& sink)
        : x_(x), in_(x.in), m_(x.m), o_(x.options), dm_(*x.dpor), lim_(lim), sink_(sink),
          nt_(x.m.threads.size()), evidx_(nt_), zero_(nt_, 0) {}

    TaskOutcome run(const Task& t) {
        base_ = std::make_shared<const std::vector<Step>>(t.steps());
        path_ = *base_;
        push(State(t.state),
             t.sleep.empty() ? std::vector<std::uint8_t>(nt_, 0)
                             : std::vector<std::uint8_t>(t.sleep),
             std::vector<std::uint32_t>(nt_, 0));
        std::vector<ThreadId> enabled;
        while (!frames_.empty()) {
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
            Frame& f = frames_.back();
            if (!f.started) {
                f.started = true;
                blocked_races(f.state);
                in_.enabled(f.state, enabled);
                if (enabled.empty() || path_.size() >= o_.max_steps) {
                    deliver(enabled);
                    pop();
                    continue;
                }
                auto it = std::find_if(enabled.begin(), enabled.end(),
                                       [&](ThreadId q) { return !f.sleep[q]; });
                if (it == enabled.end()) { // sleep-set blocked: equivalent to an explored path
                    ++out_.stats.sleep_blocked;
                    pop();
                    continue;
                }
                f.backtrack[*it] = 1;
            }
            ThreadId p = 0;
            while (p < nt_ && (!f.backtrack[p] || f.sleep[p]))
                ++p;
            if (p == nt_) {
                pop();
                continue;
            }
            // Algorithm 1, lines 6-13: reverse the races of p's step, then explore it with the
            // sleeping threads whose steps are independent of it.
            const Summary& sum = summary(f.state, p);
            std::vector<std::uint8_t> sleep = dm_.sleep_after(f.state, f.sleep, p);
            f.sleep[p] = 1;
            Event ev;
            ev.thread = p;
            ev.pos = f.count[p];
            ev.sum = &sum;
            ev.generation = dm_.generation(f.state, p);
            analyze(p, sum, ev.generation, ev.clock);
            State s = f.state;
            Step step;
            in_.step(s, p, step);
            ev.failed_fork =
                sum.code == Code::fork && !step.actions.empty() && !step.actions.front().emitted;
            std::vector<std::uint32_t> count = f.count;
            ++count[p];
            events_.push_back(std::move(ev));
            evidx_[p].push_back(events_.size() - 1);
            path_.push_back(std::move(step));
            push(std::move(s), std::move(sleep), std::move(count)); // f is invalid from here
        }
        if (out_.stats.hit_max_steps)
            out_.stats.complete = false;
        return std::move(out_);
    }

private:
    // Another budget is spent: the alternatives left at the shallowest node that has any become
    // tasks, in thread order, each with the sleep set it would have had had they been explored
    // in that order after the ones explored (f.sleep holds those); they join f.sleep, so this
    // task explores them no more, and a race reversed at this node or above later is covered
    // (every enabled thread there is explored or asleep). The nodes below stay this task's.
    void hand_off(const std::vector<std::uint32_t>& path) {
        const std::size_t base = base_->size();
        std::vector<ThreadId> enabled;
        for (std::size_t d = 0; d < frames_.size(); ++d) {
            Frame& f = frames_[d];
            if (!f.started)
                return;
            in_.enabled(f.state, enabled);
            bool any = false;
            for (ThreadId q : enabled) {
                if (f.sleep[q])
                    continue;
                any = true;
                std::vector<std::uint8_t> after = dm_.sleep_after(f.state, f.sleep, q);
                f.sleep[q] = 1;
                Task c;
                c.path = path;
                c.path.push_back(children_++);
                c.base = base_;
                c.extra.assign(path_.begin() + static_cast<std::ptrdiff_t>(base),
                               path_.begin() + static_cast<std::ptrdiff_t>(base + d));
                c.extra.emplace_back();
                c.state = f.state;
                in_.step(c.state, q, c.extra.back());
                c.sleep = std::move(after);
                if (lim_.on_child)
                    lim_.on_child(std::move(c));
                else
                    out_.children.push_back(std::move(c));
            }
            if (any)
                return;
        }
    }

    const Summary& summary(const State& s, ThreadId t) const { return dm_.summary(s, t); }

    bool in_set(std::uint32_t set, ThreadId u) const {
        const auto& ts = m_.thread_sets[set];
        return std::binary_search(ts.begin(), ts.end(), u);
    }

    void push(State&& s, std::vector<std::uint8_t>&& sleep, std::vector<std::uint32_t>&& count) {
        Frame f;
        f.state = std::move(s);
        f.backtrack.assign(nt_, 0);
        f.sleep = std::move(sleep);
        f.count = std::move(count);
        frames_.push_back(std::move(f));
    }

    void pop() {
        frames_.pop_back();
        if (!events_.empty() && frames_.size() == events_.size()) {
            evidx_[events_.back().thread].pop_back();
            events_.pop_back();
            path_.pop_back();
        }
    }

    // A maximal path (or one cut by --max-steps) goes to the sink.
    void deliver(const std::vector<ThreadId>& enabled) {
        const State& s = frames_.back().state;
        Execution e{&x_.init_failures, &path_, &s, end_of(s, !enabled.empty())};
        if (e.end == EndKind::steps)
            out_.stats.hit_max_steps = true;
        out_.stats.max_depth = std::max<std::uint64_t>(out_.stats.max_depth, path_.size());
        ++out_.stats.executions;
        out_.states += path_.size();
        sink_.on_execution(e);
        std::vector<std::uint32_t> clock;
        for (ThreadId q : enabled) // cut by --max-steps: these next steps were never taken
            analyze(q, summary(s, q), dm_.generation(s, q), clock);
    }

    // Change 2: the next steps of the threads blocked in `s` that the last event concerns.
    void blocked_races(const State& s) {
        if (events_.empty())
            return;
        const Event& last = events_.back();
        std::vector<std::uint32_t> clock;
        for (ThreadId q = 0; q < nt_; ++q) {
            if (s.threads[q].status != ThreadStatus::ready || in_.is_enabled(s, q))
                continue;
            const std::uint32_t g = dm_.generation(s, q);
            if (dependent_at(m_, last.sum->step, last.generation, summary(s, q).step, g))
                analyze(q, summary(s, q), g, clock);
        }
    }

    // The races of the step `sum` of thread p, taken after the whole path (Algorithm 1, line
    // 6), with change 1: a dependent event whose race cannot be reversed does not hide the
    // events before it. Sets `clock` to the step's happens-before clock and reverses each race.
    void analyze(ThreadId p, const Summary& sum, std::uint32_t generation,
                 std::vector<std::uint32_t>& clock) {
        const std::size_t j = events_.size();
        // `seen`: what happens before the step through program order and reversible races.
        std::vector<std::uint32_t> seen =
            evidx_[p].empty() ? zero_ : events_[evidx_[p].back()].clock;
        clock = seen;
        std::vector<std::size_t> races;
        for (std::size_t i = j; i-- > 0;) {
            const Event& e = events_[i];
            if (e.thread == p || seen[e.thread] > e.pos)
                continue;
            if (!dependent_at(m_, e.sum->step, e.generation, sum.step, generation))
                continue;
            if (clock[e.thread] <= e.pos)
                join_clock(clock, e.clock);
            if (e.sum->code == Code::fork && !e.failed_fork && in_set(e.sum->arg, p)) {
                join_clock(seen, e.clock); // the fork that started p: program order
                continue;
            }
            if (!reversible(i, p, sum))
                continue;
            races.push_back(i);
            join_clock(seen, e.clock);
        }
        clock[p] = static_cast<std::uint32_t>(evidx_[p].size() + 1);
        for (std::size_t i : races)
            reverse(i, p, clock);
    }

    // Can p's step run before events_[i], that is after pre(E, e).notdep(e, E)? Exact for the
    // usual cases, else decided by running notdep(e, E) from the state before e.
    bool reversible(std::size_t i, ThreadId p, const Summary& sum) const {
        const Event& e = events_[i];
        const Summary& es = *e.sum;
        if ((es.code == Code::fork || es.code == Code::join) && in_set(es.arg, p))
            return simulate(i, p); // a fork that failed (p started before), or a join of p
        switch (sum.code) {
        case Code::acq: // after rel m the lock is held; after acq m it was free before it
            return es.code == Code::acq || (es.code != Code::rel && simulate(i, p));
        case Code::bexit:
            if (es.code == Code::benter && es.arg == sum.arg)
                return exit_ok(i, sum.arg, p);
            return simulate(i, p);
        case Code::join:
            if (in_set(sum.arg, e.thread) || (es.code == Code::fork && !e.failed_fork))
                return false; // a thread joined is not done before its own step or its fork
            return simulate(i, p);
        case Code::deq:   // o at the front of q before e: decided by running notdep(e, E)
        case Code::cwake: // notified and m free before e: likewise
            return simulate(i, p);
        default: // a write may be co-enabled with an await; accesses, rel, fork, benter,
                 // begin/end are enabled whenever p is ready
            return true;
        }
    }

    // bexit(b) by p after notdep(e, E), e = events_[i] an arrival at b: every member entered b
    // as often as p (Interpreter::is_enabled). Arrivals commute (docs/programs.md,
    // "Dependence"), so an arrival after e need not happen after it: the counts are those
    // before e plus the arrivals at b in notdep(e).
    bool exit_ok(std::size_t i, std::uint32_t b, ThreadId p) const {
        const Event& e = events_[i];
        const std::size_t n = nt_;
        std::vector<std::uint32_t> enters(frames_[i].state.enters.begin() + b * n,
                                          frames_[i].state.enters.begin() + (b + 1) * n);
        for (std::size_t k = i + 1; k < events_.size(); ++k) {
            const Summary& s = *events_[k].sum;
            if (s.code == Code::benter && s.arg == b && events_[k].clock[e.thread] <= e.pos)
                ++enters[events_[k].thread];
        }
        for (ThreadId u : m_.barriers[b].members)
            if (enters[u] < enters[p])
                return false;
        return true;
    }

    bool simulate(std::size_t i, ThreadId p) const {
        const Event& e = events_[i];
        State s = frames_[i].state;
        Step scratch;
        for (std::size_t k = i + 1; k < events_.size(); ++k) {
            if (events_[k].clock[e.thread] > e.pos)
                continue; // happens after e: not in notdep(e)
            ThreadId t = events_[k].thread;
            if (!in_.is_enabled(s, t))
                return false; // not expected: notdep(e) does not depend on e
            in_.step(s, t, scratch);
        }
        return in_.is_enabled(s, p);
    }

    // Algorithm 1, lines 7-10 for the race events_[i] ⋖ (p's step with `clock`): unless some
    // initial of v = notdep(e, E).p is already in backtrack(E') or sleeps there (then it is
    // covered), add one, E' = pre(E, e). The initials are computed from the clocks: the first
    // event of a thread in v is an initial when nothing of v happens before it.
    void reverse(std::size_t i, ThreadId p, const std::vector<std::uint32_t>& clock) {
        const Event& e = events_[i];
        const std::vector<std::uint32_t>& upto = frames_[i + 1].count; // events up to e
        auto after_e = [&](std::size_t k) { return events_[k].clock[e.thread] > e.pos; };
        std::vector<ThreadId> initials;
        bool p_in_notdep = false;
        for (ThreadId t = 0; t < nt_; ++t) {
            if (t == e.thread || upto[t] >= evidx_[t].size())
                continue;
            std::size_t z = evidx_[t][upto[t]]; // t's first event after e
            if (after_e(z))
                continue; // then all of t's later events are: t is not in v
            p_in_notdep = p_in_notdep || t == p;
            bool initial = true;
            for (ThreadId u = 0; u < nt_ && initial; ++u)
                initial = u == t || events_[z].clock[u] <= upto[u];
            if (initial)
                initials.push_back(t);
        }
        if (!p_in_notdep) { // p's step is p's first event in v
            bool initial = true;
            for (ThreadId u = 0; u < nt_ && initial; ++u)
                if (u != p && u != e.thread && clock[u] > upto[u])
                    initial = after_e(evidx_[u][upto[u]]);
            if (initial)
                initials.push_back(p);
        }
        Frame& f = frames_[i];
        for (ThreadId t : initials)
            if (f.backtrack[t] || f.sleep[t])
                return;
        // Prefer p (the reversed step itself), then the lowest enabled initial.
        std::stable_partition(initials.begin(), initials.end(), [&](ThreadId t) { return t == p; });
        for (ThreadId q : initials)
            if (in_.is_enabled(f.state, q)) {
                f.backtrack[q] = 1;
                return;
            }
        // Every initial is blocked before e: e enabled an await (change 2).
    }

    const Exploration& x_;
    const Interpreter& in_;
    const Model& m_;
    const CheckOptions& o_;
    const DporModel& dm_;
    const TaskLimits& lim_;
    ExecutionSink& sink_;
    const std::size_t nt_;
    TaskOutcome out_;
    std::uint64_t next_split_ = lim_.budget;        // executions at which to hand on next
    std::uint32_t children_ = 0;                    // handed on so far
    std::shared_ptr<const std::vector<Step>> base_; // the steps to the task's root
    std::vector<Frame> frames_;                     // frames_[d]: the state before events_[d]
    std::vector<Event> events_; // the task's: races with steps above its root are not reversed
    std::vector<Step> path_;    // the steps from the initial state: base_, then those of events_
    std::vector<std::vector<std::size_t>> evidx_; // [thread]: its events' indices in events_
    std::vector<std::uint32_t> zero_;
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
