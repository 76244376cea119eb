// sfg::explore's DPOR: the engine's source-DPOR with sleep sets (sfg/runtime/engine/
// source_dpor.hpp, the one the model checker runs too) driven statelessly: every run starts from
// the beginning and replays the choices up to the node where it branches, as sfg::explore must (a
// C++ body cannot be snapshotted). Its changes for blocking steps (lock acquisitions, joins,
// barrier departures, dequeues, wakes) are the engine's; this file says which steps can be
// reversed (the first change), deciding the rest on the model of the objects kept at every node
// (model.hpp), after the steps that do not happen after the event.
//
// Sleep sets make every delivered run a different class; runs where every enabled thread sleeps
// are given up (Strategy::Choice::abandon) and are no execution. A thread that yielded is chosen
// last where there is a choice, never excluded, so every interleaving stays reachable.
#include "explore/strategy.hpp"

#include "sfg/runtime/engine/source_dpor.hpp"

#include <algorithm>

namespace sfg::explore_detail {

namespace {

bool names(const Event& e, std::uint32_t u) {
    return std::find(e.names.begin(), e.names.end(), u) != e.names.end();
}

// What a node of the search keeps: the model of the objects and each thread's next step there
// (one vector: a node is made at every step).
struct NodeThread {
    Event next;            // its next step (has_next)
    bool has_next = false; // it has begun and not ended
    bool enabled = false;
};
struct Node {
    Model model;
    std::vector<NodeThread> threads; // by thread
};

// A C++ body's threads as the engine's System (sfg/runtime/engine/source_dpor.hpp).
class LiveSystem {
public:
    using Step = Event;
    using Node = explore_detail::Node;
    using Engine = engine::SourceDpor<LiveSystem>;

    static std::uint32_t thread(const Event& e) { return e.thread; }
    static bool dependent(const Event& a, const Event& b) {
        return explore_detail::dependent(a, b);
    }
    static bool started_by(const Event& e, std::uint32_t p) {
        return e.op == Op::fork && names(e, p);
    }
    static std::size_t threads(const Node& n) { return n.threads.size(); }
    static bool next(const Node& n, std::uint32_t t, Event& out) {
        if (t >= n.threads.size() || !n.threads[t].has_next)
            return false;
        out = n.threads[t].next;
        return true;
    }
    static bool enabled(const Node& n, std::uint32_t t) {
        return t < n.threads.size() && n.threads[t].enabled;
    }
    // The steps run on a copy of the model kept at the node.
    static bool runs_after(const Node& n, const std::vector<const Event*>& steps,
                           const Event& step) {
        Model m = n.model;
        for (const Event* e : steps) {
            if (!m.enabled(*e))
                return false; // not expected: notdep(e) does not depend on e
            m.apply(*e);
        }
        return m.enabled(step);
    }

    // A join depends on the events of the threads it joins, on forks and joins that name them or
    // its own thread (dependence.cpp; it has no action), and reversible() refuses each of those
    // but the fork that started its thread, program order: a blocked join reverses no race.
    static bool never_reversed(const Event& step) { return step.op == Op::join; }
    static bool reads_vary(const Event& step) { return step.reads_vary; }

    // The first change: can p's step run before events()[i]?
    static bool reversible(const Engine& d, std::size_t i, std::uint32_t p, const Event& step) {
        const Event& e = d.events()[i].step;
        if (names(e, p))
            return false; // a join of p, or a fork of it: p cannot step before either
        switch (step.op) {
        case Op::acquire: // after a rel of the lock it was held; after an acq it was free
            if (step.attempt)
                return true;
            if (e.op == Op::acquire && !e.attempt)
                return true;
            return e.op != Op::release && d.simulate(i, step);
        case Op::join: // every thread it joins ends without what happens after e
            for (std::uint32_t u : step.names) {
                if (u == e.thread || names(e, u))
                    return false;
                for (std::size_t k : d.events_of(u))
                    if (k > i && d.after(k, i))
                        return false;
            }
            return true;
        case Op::barrier_exit:
        case Op::dequeue:
        case Op::cond_wake:
            return step.attempt || d.simulate(i, step);
        default: // accesses, rel, fork, arrivals, notify, wait are enabled whenever p is ready
            return true;
        }
    }
};

// The engine driven by replays: each run starts from the beginning, takes the steps to the
// task's root, follows the events of the engine's stack up to its deepest node, then chooses
// there. The engine's search starts at the task's root: the races it reverses are those of its
// own events (a node above the root branches to every thread awake there, docs/explore.md "More
// than one process").
class Dpor final : public Strategy {
public:
    explicit Dpor(TaskRoot root) : root_(std::move(root)) {}

    void begin_run() override {
        if (!begun_) {
            dpor_.reset(Node{}, root_.sleep);
            begun_ = true;
        }
    }

    std::optional<Choice> choose(const Decision& d) override {
        auto& frames = dpor_.frames();
        const StepKey* expected = expected_step(keys_, root_, d.depth);
        if (d.depth < root_.prefix.size()) { // the steps to the task's root
            const std::optional<std::uint32_t> t = root_step(root_, d);
            return t ? std::optional<Choice>(Choice{*t, expected}) : std::nullopt;
        }
        const std::size_t depth = d.depth - root_.prefix.size();
        if (depth + 1 < frames.size()) { // the prefix an earlier run took
            const std::uint32_t t = dpor_.events()[depth].thread;
            if (!std::binary_search(d.enabled->begin(), d.enabled->end(), t))
                return std::nullopt;
            return Choice{t, expected};
        }
        if (!frames.back().started) {
            fill(frames.back().node, d);
            // The first choice: a thread awake, one that did not just yield if there is one.
            const auto yielded = [&](std::uint32_t t) {
                return t < d.yielded->size() && (*d.yielded)[t];
            };
            if (!dpor_.start(*d.enabled, yielded)) // sleep-set blocked: equivalent to a run
                return Choice{0, nullptr, true};   // explored already
        }
        const std::optional<std::uint32_t> p = dpor_.next_choice();
        if (!p)
            return Choice{0, nullptr, true};
        dpor_.take(*p, frames.back().node.threads[*p].next);
        return Choice{*p, nullptr};
    }

    void at_leaf(const Decision& d) override {
        auto& frames = dpor_.frames();
        if (d.depth < root_.prefix.size() || d.depth - root_.prefix.size() + 1 != frames.size() ||
            frames.back().started)
            return;
        fill(frames.back().node, d);
        dpor_.start(*d.enabled, [](std::uint32_t) { return false; });
    }

    void end_run(const std::vector<StepKey>& path) override {
        keys_ = path;
        // A run cut before the node it reached (a bound, nondeterminism, a sleep-set block) keeps
        // the frames it took; the node it stopped at has nothing more.
        auto& frames = dpor_.frames();
        while (frames.size() > dpor_.events().size() + 1) {
            keep(frames.back().node);
            dpor_.pop(); // a frame without its event: the frame alone
        }
    }

    bool next_run() override {
        // Back to the deepest node with a thread to explore that does not sleep there.
        auto& frames = dpor_.frames();
        while (!frames.empty() && !(frames.back().started && dpor_.next_choice())) {
            keep(frames.back().node);
            dpor_.pop();
        }
        keys_.resize(std::min(keys_.size(), root_.prefix.size() + dpor_.events().size()));
        return !frames.empty();
    }

    bool yield_blocks() const override { return false; }

    // The engine's hand-off (SourceDpor::hand_off): a child's root is reached by this task's
    // prefix, the events down to the node, and the thread handed on.
    void hand_off(std::vector<TaskRoot>& out) override {
        dpor_.hand_off(
            [](const Node& n, std::vector<std::uint32_t>& ready) {
                ready.clear();
                for (std::uint32_t t = 0; t < n.threads.size(); ++t)
                    if (n.threads[t].enabled)
                        ready.push_back(t);
            },
            [&](std::size_t depth, std::uint32_t q, std::vector<std::uint8_t> sleep) {
                TaskRoot c;
                c.prefix = root_.prefix;
                for (std::size_t i = 0; i < depth; ++i)
                    c.prefix.push_back(dpor_.events()[i].thread);
                const std::size_t known = std::min(keys_.size(), c.prefix.size());
                c.keys.assign(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(known));
                c.prefix.push_back(q);
                c.sleep = std::move(sleep);
                out.push_back(std::move(c));
            });
    }

private:
    void fill(Node& n, const Decision& d) {
        n.model = *d.model;
        const std::size_t threads = d.next->size();
        if (n.threads.capacity() == 0 && !spare_.empty()) {
            n.threads = std::move(spare_.back());
            spare_.pop_back();
        }
        n.threads.assign(threads, NodeThread{});
        for (std::size_t t = 0; t < threads; ++t)
            if (const Event* e = (*d.next)[t]) {
                n.threads[t].next = *e;
                n.threads[t].has_next = true;
            }
        for (std::uint32_t t : *d.enabled)
            n.threads[t].enabled = true;
    }

    // A node's threads, kept when it is popped for the next node filled: their vectors' storage
    // serves again (a node is made at every step).
    void keep(Node& n) {
        if (n.threads.capacity() > 0)
            spare_.push_back(std::move(n.threads));
    }

    TaskRoot root_;
    std::vector<std::vector<NodeThread>> spare_;
    LiveSystem sys_;
    LiveSystem::Engine dpor_{sys_};
    std::vector<StepKey> keys_; // the last run's steps
    bool begun_ = false;
};

} // namespace

std::unique_ptr<Strategy> make_dpor(TaskRoot root) {
    return std::make_unique<Dpor>(std::move(root));
}

} // namespace sfg::explore_detail
