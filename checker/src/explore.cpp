// Naive DFS and random runs as task runners (engine.hpp), the dependence relation and Foata
// classes (explore.hpp).
#include "sfg/checker/explore.hpp"

#include "engine.hpp"
#include "explore_detail.hpp"

#include "sfg/runtime/engine/foata.hpp"
#include "sfg/runtime/engine/pct.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>

namespace sfg::checker {

const char* to_string(Mode m) {
    switch (m) {
    case Mode::naive:
        return "naive";
    case Mode::dpor:
        return "dpor";
    case Mode::random:
        return "random";
    case Mode::pct:
        return "pct";
    }
    return "?";
}

namespace {

// splitmix64: the seed of random run i (docs/programs.md: the same seed, the same schedules,
// whichever thread or shard runs which runs).
std::uint64_t run_seed(std::uint64_t seed, std::uint64_t run) {
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (run + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

bool aborted(const TaskLimits& lim) {
    return lim.abort && lim.abort->load(std::memory_order_relaxed);
}

// Depth-first over every interleaving below a task's root, in thread order: one task.
class Naive {
public:
    Naive(const Exploration& x, const TaskLimits& lim, ExecutionSink& sink)
        : x_(x), in_(x.in), o_(x.options), lim_(lim), sink_(sink), next_split_(lim.budget) {}

    TaskOutcome run(const Task& t) {
        base_ = std::make_shared<const std::vector<Step>>(t.steps());
        path_ = *base_;
        visit(State(t.state), t.preemptions);
        while (!stack_.empty()) {
            if (st().executions >= lim_.executions || out_.states >= lim_.states || sink_.stop() ||
                aborted(lim_)) {
                st().complete = false;
                out_.stopped = true;
                break;
            }
            if (lim_.budget && st().executions >= next_split_) {
                next_split_ = st().executions + lim_.budget;
                hand_off(t.path);
            }
            Frame& f = stack_.back();
            if (f.next == f.enabled.size()) {
                stack_.pop_back();
                if (path_.size() > base_->size())
                    path_.pop_back();
                continue;
            }
            ThreadId q = f.enabled[f.next++];
            std::uint32_t pre = preempts(f, path_.size(), q);
            State s = f.next == f.enabled.size() ? std::move(f.state) : f.state;
            Step step;
            in_.step(s, q, step);
            path_.push_back(std::move(step));
            if (!visit(std::move(s), pre))
                path_.pop_back();
        }
        if (st().pruned || st().hit_max_steps)
            st().complete = false;
        return std::move(out_);
    }

private:
    struct Frame {
        State state;
        std::vector<ThreadId> enabled;
        std::size_t next = 0;
        std::uint32_t preemptions = 0;
    };

    ExploreStats& st() { return out_.stats; }

    // Pushes the node for `s` or, at a leaf, delivers the execution (false).
    bool visit(State&& s, std::uint32_t preemptions) {
        Frame f;
        in_.enabled(s, f.enabled);
        if (f.enabled.empty() || path_.size() >= o_.max_steps) {
            Execution e{&x_.init_failures, &path_, &s, end_of(s, !f.enabled.empty())};
            if (e.end == EndKind::steps)
                st().hit_max_steps = true;
            st().max_depth = std::max<std::uint64_t>(st().max_depth, path_.size());
            ++st().executions;
            out_.states += path_.size();
            sink_.on_execution(e);
            return false;
        }
        if (o_.preemption_bound && !path_.empty() && preemptions >= *o_.preemption_bound) {
            ThreadId last = path_.back().thread;
            if (std::find(f.enabled.begin(), f.enabled.end(), last) != f.enabled.end() &&
                f.enabled.size() > 1) {
                f.enabled = {last};
                st().pruned = true;
            }
        }
        f.state = std::move(s);
        f.preemptions = preemptions;
        stack_.push_back(std::move(f));
        return true;
    }

    // Preemptions after q's step from the node of `f` at path length `depth`.
    std::uint32_t preempts(const Frame& f, std::size_t depth, ThreadId q) const {
        std::uint32_t pre = f.preemptions;
        if (depth > 0 && path_[depth - 1].thread != q &&
            std::find(f.enabled.begin(), f.enabled.end(), path_[depth - 1].thread) !=
                f.enabled.end())
            ++pre;
        return pre;
    }

    // The alternatives left at the shallowest node that has any become tasks, in thread order;
    // the nodes below stay this task's.
    void hand_off(const std::vector<std::uint32_t>& path) {
        for (std::size_t d = 0; d < stack_.size(); ++d) {
            Frame& f = stack_[d];
            if (f.next == f.enabled.size())
                continue;
            const std::size_t depth = base_->size() + d;
            for (; f.next < f.enabled.size(); ++f.next) {
                const ThreadId q = f.enabled[f.next];
                Task c;
                c.path = path;
                c.path.push_back(children_++);
                c.base = base_;
                c.extra.assign(path_.begin() + static_cast<std::ptrdiff_t>(base_->size()),
                               path_.begin() + static_cast<std::ptrdiff_t>(depth));
                c.preemptions = preempts(f, depth, q);
                c.state = f.state;
                c.extra.emplace_back();
                in_.step(c.state, q, c.extra.back());
                if (lim_.on_child)
                    lim_.on_child(std::move(c));
                else
                    out_.children.push_back(std::move(c));
            }
            return;
        }
    }

    const Exploration& x_;
    const Interpreter& in_;
    const CheckOptions& o_;
    const TaskLimits& lim_;
    ExecutionSink& sink_;
    TaskOutcome out_;
    std::uint64_t next_split_;
    std::uint32_t children_ = 0;
    std::shared_ptr<const std::vector<Step>> base_; // the steps to the task's root
    std::vector<Step> path_;                        // base_, then the steps of stack_
    std::vector<Frame> stack_;
};

class NaiveRunner : public TaskRunner {
public:
    explicit NaiveRunner(const Exploration& x) : x_(x) {}
    TaskOutcome run(const Task& t, const TaskLimits& lim, ExecutionSink& sink) override {
        return Naive(x_, lim, sink).run(t);
    }

private:
    const Exploration& x_;
};

// One sampled run from the initial state into `path` and `s`: each step's thread drawn
// uniformly from `rng`, or PCT's choice when `pct` is given; within the preemption bound.
// `enabled` is left with the threads enabled at the end.
void sample_run(const Exploration& x, std::mt19937_64& rng, engine::PctScheduler* pct,
                std::vector<Step>& path, State& s, std::vector<ThreadId>& enabled) {
    const Interpreter& in = x.in;
    const CheckOptions& o = x.options;
    path.clear();
    s = x.initial;
    std::uint32_t preemptions = 0;
    for (;;) {
        in.enabled(s, enabled);
        if (enabled.empty() || path.size() >= o.max_steps)
            break;
        ThreadId q = pct ? pct->choose(enabled, path.size()) : enabled[rng() % enabled.size()];
        if (!path.empty()) {
            ThreadId last = path.back().thread;
            bool last_enabled = std::find(enabled.begin(), enabled.end(), last) != enabled.end();
            if (last_enabled && q != last) {
                if (o.preemption_bound && preemptions >= *o.preemption_bound)
                    q = last;
                else
                    ++preemptions;
            }
        }
        path.emplace_back();
        in.step(s, q, path.back());
    }
}

// Runs [t.first, t.last): run i follows its own random stream (run_seed), so the runs are the
// same whoever runs them. Mode pct: PCT with k = x.pct_steps and the stream's priorities.
class RandomRunner : public TaskRunner {
public:
    explicit RandomRunner(const Exploration& x) : x_(x) {}

    TaskOutcome run(const Task& t, const TaskLimits& lim, ExecutionSink& sink) override {
        const CheckOptions& o = x_.options;
        TaskOutcome out;
        ExploreStats& st = out.stats;
        st.complete = false; // a sample, never a proof
        std::vector<Step> path;
        std::vector<ThreadId> enabled;
        State s;
        engine::PctScheduler pct;
        for (std::uint64_t i = t.first; i < t.last; ++i) {
            if (st.executions >= lim.executions || out.states >= lim.states || sink.stop() ||
                aborted(lim)) {
                out.stopped = true;
                break;
            }
            std::mt19937_64 rng(run_seed(o.seed, i));
            if (o.mode == Mode::pct)
                pct.begin(rng(), x_.pct_steps, o.pct_depth);
            sample_run(x_, rng, o.mode == Mode::pct ? &pct : nullptr, path, s, enabled);
            Execution e{&x_.init_failures, &path, &s, end_of(s, !enabled.empty())};
            if (e.end == EndKind::steps)
                st.hit_max_steps = true;
            st.max_depth = std::max<std::uint64_t>(st.max_depth, path.size());
            ++st.executions;
            out.states += path.size();
            sink.on_execution(e);
        }
        return out;
    }

private:
    const Exploration& x_;
};

bool names(const Model& m, const Action& a, ThreadId u) {
    if (op_info(a.op).operand != Operand::thread_set)
        return false;
    const auto& set = m.thread_sets[a.target];
    return std::binary_search(set.begin(), set.end(), u);
}

bool intersect(const Model& m, const Action& a, const Action& b) {
    const auto& x = m.thread_sets[a.target];
    const auto& y = m.thread_sets[b.target];
    for (ThreadId u : x)
        if (std::binary_search(y.begin(), y.end(), u))
            return true;
    return false;
}

} // namespace

std::unique_ptr<TaskRunner> make_naive_runner(const Exploration& x) {
    return std::make_unique<NaiveRunner>(x);
}

std::unique_ptr<TaskRunner> make_random_runner(const Exploration& x) {
    return std::make_unique<RandomRunner>(x);
}

std::uint64_t pct_steps(const Exploration& x) {
    std::uint64_t k = 1;
    std::vector<Step> path;
    std::vector<ThreadId> enabled;
    State s;
    for (std::uint64_t i = 0; i < 16; ++i) {
        std::mt19937_64 rng(run_seed(x.options.seed ^ 0x7063740000000000ULL, i));
        sample_run(x, rng, nullptr, path, s, enabled);
        k = std::max<std::uint64_t>(k, path.size());
    }
    return k;
}

bool dependent(const Model& m, const Action& a, const Action& b) {
    if (a.thread == b.thread)
        return true;
    // Two ops on one object (of one namespace) conflict unless both share it in one phase
    // (docs/programs.md, "Dependence": reads of a variable or volatile, arrivals at a barrier,
    // departures from it, joins of a thread commute); a fork or join naming a thread conflicts
    // with every action of that thread.
    const OpInfo &x = op_info(a.op), &y = op_info(b.op);
    if (x.operand == Operand::name && y.operand == Operand::name && x.space == y.space) {
        // An arrival and a departure of different generations commute (docs/programs.md).
        if (x.space == Namespace::barrier && a.generation && b.generation &&
            a.generation != b.generation)
            return false;
        return a.target == b.target && conflicting(x, y);
    }
    if (x.operand == Operand::queue_item && y.operand == Operand::queue_item) // on one queue
        return m.syms.queue_items.queue(a.target) == m.syms.queue_items.queue(b.target) &&
               conflicting(x, y);
    if (names(m, a, b.thread) || names(m, b, a.thread))
        return true;
    if (x.operand == Operand::thread_set && y.operand == Operand::thread_set && conflicting(x, y))
        return intersect(m, a, b);
    return false;
}

bool dependent(const Model& m, const Step& a, const Step& b) {
    if (a.thread == b.thread)
        return true;
    for (const Action& x : a.actions)
        if (names(m, x, b.thread))
            return true;
    for (const Action& y : b.actions)
        if (names(m, y, a.thread))
            return true;
    for (const Action& x : a.actions)
        for (const Action& y : b.actions)
            if (dependent(m, x, y))
                return true;
    return false;
}

ClassId foata_class(const Model& m, const std::vector<Step>& steps) {
    // Objects of every namespace (its threads too: a step is an exclusive access to its own
    // thread, a fork or join one to each thread it names), with Access and phase from the op
    // table (docs/programs.md "Dependence"); each generation of a barrier an object of its own.
    std::array<std::size_t, namespace_count_all + 1> first{};
    for (std::size_t n = 0; n < namespace_count_all; ++n)
        first[n + 1] = first[n] + (static_cast<Namespace>(n) == Namespace::thread
                                       ? m.threads.size()
                                       : m.syms.names(static_cast<Namespace>(n)).size());
    std::vector<engine::FoataLevels> objects(first.back());
    const auto object = [&](Namespace n, ObjId o) -> engine::FoataLevels& {
        return objects[first[static_cast<std::size_t>(n)] + o];
    };
    std::map<std::pair<ObjId, std::uint32_t>, engine::FoataLevels> rounds; // (barrier, generation)
    const auto accesses = [&](std::size_t i, auto&& visit) {
        const Step& s = steps[i];
        visit(object(Namespace::thread, s.thread), true, std::uint8_t{0});
        for (const Action& a : s.actions) {
            const OpInfo& op = op_info(a.op);
            const bool excl = op.access == Access::exclusive;
            if (op.access == Access::none)
                continue;
            if (op.operand == Operand::thread_set)
                for (ThreadId u : m.thread_sets[a.target])
                    visit(object(Namespace::thread, u), excl, op.phase);
            else if (op.operand == Operand::queue_item) // enq/deq: the queue (thesis §5.1)
                visit(object(op.space, m.syms.queue_items.queue(a.target)), excl, op.phase);
            else if (op.space == Namespace::barrier && a.generation)
                visit(rounds[{a.target, a.generation}], excl, op.phase);
            else
                visit(object(op.space, a.target), excl, op.phase);
        }
    };
    const auto content = [&](std::size_t i, auto&& add) {
        const Step& s = steps[i];
        add(s.actions.size());
        for (const Action& a : s.actions)
            add(static_cast<std::uint64_t>(a.op) << 40 |
                static_cast<std::uint64_t>(a.emitted) << 32 | a.target);
        for (const Failure& f : s.failures)
            add(0xfa11ULL << 32 | static_cast<std::uint64_t>(f.kind) << 16 | f.line);
    };
    const engine::ClassId c = engine::foata_class(
        steps.size(), [&](std::size_t i) { return steps[i].thread; }, accesses, content);
    return ClassId{c.a, c.b};
}

std::vector<Step> replay(const Interpreter& in, const std::vector<ThreadId>& schedule,
                         State* final_state) {
    std::vector<Failure> init_failures;
    State s = in.initial(init_failures);
    std::vector<Step> out;
    for (ThreadId t : schedule) {
        if (t >= s.threads.size() || !in.is_enabled(s, t))
            break;
        out.emplace_back();
        in.step(s, t, out.back());
    }
    if (final_state)
        *final_state = std::move(s);
    return out;
}

} // namespace sfg::checker
