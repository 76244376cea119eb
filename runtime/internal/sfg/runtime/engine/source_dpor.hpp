// Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, "Source Sets: A Foundation for
// Optimal Dynamic Partial Order Reduction", JACM 64(4), 2017, Algorithm 1): the one DPOR of
// `sfg::explore` and `sfgc check` (docs/programs.md, "Modes"; docs/explore.md, "How it works"),
// generic over the system explored. It keeps the search's stack — the nodes, the events between
// them with their happens-before clocks, the backtrack and sleep sets — and reverses races; a
// driver walks it: the model checker's by stepping copies of the interpreter's state, explore's
// by replaying each run of a C++ body from its start.
//
// Two changes for blocking steps (lock acquisitions, joins, barrier departures, dequeues,
// wake-ups), which the paper's model lacks, are the engine's: a race whose later step could not
// have run first (System::reversible, the first change) is skipped, and the search for that
// step's races goes on behind it; and at every node the next step of each blocked thread races
// with the path when the node's last event is dependent with it (blocked_races(), the second).
//
// What the engine asks of System (read-only, shared by the searches):
//   using Step; using Node;                  a step before it is taken; what a node keeps
//   std::uint32_t thread(const Step&)
//   bool dependent(const Step&, const Step&)
//   bool started_by(const Step& e, std::uint32_t p)     e is the fork that started p
//   std::size_t threads(const Node&)                    thread numbers at the node: 0 .. n-1
//   bool next(const Node&, std::uint32_t t, Step& out)  t's next step, if t has one
//   bool enabled(const Node&, std::uint32_t t)          whether it can be taken there
//   bool runs_after(const Node&, const std::vector<const Step*>& steps, const Step& s)
//                       whether `steps`, then s, can be taken in turn from the node
//   bool reversible(const SourceDpor<System>&, std::size_t i, std::uint32_t p, const Step& s)
//                       whether p's step s can run before events()[i] (it may call simulate())
//   bool never_reversed(const Step& s)  (optional) reversible() is false, or started_by() true,
//                       for every event s depends on: a blocked s's race analysis is skipped
//   bool reads_vary(const Step& s)  (optional) s's dependence is what it met (an await that reads
//                       what its evaluation needs): when s was enabled by the event it races with,
//                       another thread may enable it instead, reading other objects
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace sfg::engine {

template <class System>
class SourceDpor {
public:
    using Step = typename System::Step;
    using Node = typename System::Node;

    struct Event {
        Step step;
        std::uint32_t thread = 0;
        std::uint32_t pos = 0; // index among its thread's events
        // Happens-before (the transitive closure of `dependent` on the path): clock[t] = how many
        // of t's events happen before or are this one (missing entries: 0).
        std::vector<std::uint32_t> clock;
    };

    // A node of the search: the state before the event at its depth.
    struct Frame {
        Node node;
        std::vector<std::uint8_t> backtrack; // threads to explore from here (Algorithm 1)
        std::vector<std::uint8_t> sleep;     // explored here, or covered by an explored branch
        std::vector<std::uint32_t> count;    // events per thread before this depth
        bool started = false;
    };

    // Room for the stack of a run of a few dozen steps from the start: a frame moved when the
    // stack grows is a frame's vectors moved.
    explicit SourceDpor(const System& sys) : sys_(sys) {
        frames_.reserve(64);
        events_.reserve(64);
    }

    // Starts a search at `root` with a sleep set (a task's; empty: none).
    void reset(Node root, std::vector<std::uint8_t> sleep) {
        while (!frames_.empty())
            pop();
        events_.clear();
        evidx_.clear();
        Frame f;
        f.node = std::move(root);
        f.sleep = std::move(sleep);
        frames_.push_back(std::move(f));
    }

    std::vector<Frame>& frames() { return frames_; }
    const std::vector<Frame>& frames() const { return frames_; }
    const std::vector<Event>& events() const { return events_; }
    Event& last_event() { return events_.back(); }
    // Thread t's events, by index in events().
    const std::vector<std::size_t>& events_of(std::uint32_t t) const {
        return t < evidx_.size() ? evidx_[t] : none_;
    }
    // Whether events()[k] happens after events()[i].
    bool after(std::size_t k, std::size_t i) const {
        return at(events_[k].clock, events_[i].thread) > events_[i].pos;
    }

    // The deepest node is reached: its blocked threads' races (the second change), then its first
    // branch, the lowest enabled thread awake there, one that `later` does not put off if there is
    // one. None: every enabled thread sleeps (the node is sleep-set blocked, its executions
    // equivalent to explored ones). `enabled` ascending.
    template <class Later>
    std::optional<std::uint32_t> start(const std::vector<std::uint32_t>& enabled, Later later) {
        Frame& f = frames_.back();
        f.started = true;
        const std::size_t n = sys_.threads(f.node);
        if (f.backtrack.size() < n)
            f.backtrack.resize(n, 0);
        blocked_races();
        std::optional<std::uint32_t> first;
        for (std::uint32_t t : enabled)
            if (!at(f.sleep, t) && (!first || (later(*first) && !later(t))))
                first = t;
        if (first)
            set(f.backtrack, *first, std::uint8_t{1});
        return first;
    }

    // The next thread to explore at the deepest node: in its backtrack set and awake. None: the
    // node is done.
    std::optional<std::uint32_t> next_choice() const {
        const Frame& f = frames_.back();
        for (std::uint32_t p = 0; p < f.backtrack.size(); ++p)
            if (f.backtrack[p] && !at(f.sleep, p))
                return p;
        return std::nullopt;
    }

    // The sleep set after p's step `step` from frame f: the sleeping threads whose next steps are
    // independent of it (Algorithm 1, line 12).
    std::vector<std::uint8_t> sleep_after(const Frame& f, std::uint32_t p, const Step& step) const {
        std::vector<std::uint8_t> out;
        sleep_after(f, p, step, out);
        return out;
    }

    // A budget of executions is spent (task_tree.hpp): the alternatives left at the shallowest
    // started node that has any — every enabled thread awake there (`enabled(node, out)` lists
    // them, ascending) — are handed on as tasks, `visit(depth, thread, sleep)` in thread order,
    // each with the sleep set it would have had had they been explored in that order after the
    // ones explored. They then sleep there, so this search explores them no more, and a race
    // reversed at this node or above later is covered (every enabled thread there is explored or
    // asleep). The nodes below stay this search's. More branches than Algorithm 1 would take, so
    // some may end sleep-set blocked; never a class explored twice or missed.
    template <class Enabled, class Visit>
    void hand_off(Enabled&& enabled, Visit&& visit) {
        std::vector<std::uint32_t> ready;
        Step step;
        for (std::size_t d = 0; d < frames_.size(); ++d) {
            Frame& f = frames_[d];
            if (!f.started)
                return;
            enabled(f.node, ready);
            bool any = false;
            for (std::uint32_t q : ready) {
                if (at(f.sleep, q) || !sys_.next(f.node, q, step))
                    continue;
                any = true;
                std::vector<std::uint8_t> sleep = sleep_after(f, q, step);
                set(f.sleep, q, std::uint8_t{1});
                visit(d, q, std::move(sleep));
            }
            if (any)
                return;
        }
    }

    // Algorithm 1, lines 6-13: p's step `step` is taken at the deepest node: its races are
    // reversed, p sleeps there from now on, and a node below is pushed with the sleeping threads
    // whose steps are independent of it. The driver fills the new node (frames().back().node).
    // A step is taken at every node of every run: the new frame's and event's vectors are those
    // of popped ones (spare()), so that a step allocates nothing once the search is as deep as
    // it gets.
    void take(std::uint32_t p, const Step& step) {
        Frame& f = frames_.back();
        Frame next;
        next.sleep = spare(spare8_);
        sleep_after(f, p, step, next.sleep);
        set(f.sleep, p, std::uint8_t{1});
        Event ev;
        ev.step = step;
        ev.thread = p;
        ev.pos = at(f.count, p);
        ev.clock = spare(spare32_);
        analyze(p, step, ev.clock);
        next.backtrack = spare(spare8_);
        next.count = spare(spare32_);
        next.count.assign(f.count.begin(), f.count.end()); // f is invalid from the push on
        set(next.count, p, at(next.count, p) + 1);
        events_.push_back(std::move(ev));
        if (evidx_.size() <= p)
            evidx_.resize(p + 1);
        evidx_[p].push_back(events_.size() - 1);
        frames_.push_back(std::move(next));
    }

    // Back from the deepest node (and from the event that led to it).
    // Its vectors are kept for the next take().
    void pop() {
        Frame& f = frames_.back();
        keep(spare8_, f.backtrack);
        keep(spare8_, f.sleep);
        keep(spare32_, f.count);
        frames_.pop_back();
        if (!events_.empty() && frames_.size() == events_.size()) {
            evidx_[events_.back().thread].pop_back();
            keep(spare32_, events_.back().clock);
            events_.pop_back();
        }
    }

    // The races of p's step `step`, taken after the whole path (Algorithm 1, line 6), with the
    // first change: a dependent event whose race cannot be reversed does not hide the events
    // before it. Sets `clock` to the step's happens-before clock and reverses each race.
    void analyze(std::uint32_t p, const Step& step, std::vector<std::uint32_t>& clock) {
        // `seen`: what happens before the step through program order and reversible races.
        // Members, kept across calls (analyze is not reentered: reverse() and System's
        // functions do not call it).
        std::vector<std::uint32_t>& seen = seen_;
        std::vector<std::size_t>& races = races_;
        seen.clear();
        races.clear();
        if (p < evidx_.size() && !evidx_[p].empty())
            seen = events_[evidx_[p].back()].clock;
        clock = seen;
        for (std::size_t i = events_.size(); i-- > 0;) {
            const Event& e = events_[i];
            if (e.thread == p || at(seen, e.thread) > e.pos)
                continue;
            if (!sys_.dependent(e.step, step))
                continue;
            if (at(clock, e.thread) <= e.pos)
                join(clock, e.clock);
            if (sys_.started_by(e.step, p)) {
                join(seen, e.clock); // the fork that started p: program order
                continue;
            }
            if (!sys_.reversible(*this, i, p, step))
                continue;
            races.push_back(i);
            join(seen, e.clock);
        }
        set(clock, p, static_cast<std::uint32_t>(events_of(p).size() + 1));
        for (std::size_t i : races)
            reverse(i, p, step, clock);
    }

    // Whether `step` can be taken after pre(E, e).notdep(e, E), e = events()[i]: the events after
    // e that do not happen after it, run from the node before e.
    bool simulate(std::size_t i, const Step& step) const {
        std::vector<const Step*>& notdep = notdep_;
        notdep.clear();
        for (std::size_t k = i + 1; k < events_.size(); ++k)
            if (!after(k, i))
                notdep.push_back(&events_[k].step);
        return sys_.runs_after(frames_[i].node, notdep, step);
    }

private:
    template <class T>
    static T at(const std::vector<T>& v, std::size_t i) {
        return i < v.size() ? v[i] : T{};
    }
    template <class T>
    static void set(std::vector<T>& v, std::size_t i, T x) {
        if (i >= v.size())
            v.resize(i + 1, T{});
        v[i] = x;
    }
    // Whether System says that step's races are never reversed (analyze() would reverse none).
    bool never_reversed(const Step& step) const {
        if constexpr (requires { sys_.never_reversed(step); })
            return sys_.never_reversed(step);
        else
            return false;
    }
    bool reads_vary(const Step& step) const {
        if constexpr (requires { sys_.reads_vary(step); })
            return sys_.reads_vary(step);
        else
            return false;
    }
    // A popped frame's or event's vector, emptied, with its storage (or a new one).
    template <class T>
    static std::vector<T> spare(std::vector<std::vector<T>>& pool) {
        if (pool.empty())
            return {};
        std::vector<T> v = std::move(pool.back());
        pool.pop_back();
        v.clear();
        return v;
    }
    template <class T>
    static void keep(std::vector<std::vector<T>>& pool, std::vector<T>& v) {
        if (v.capacity() > 0)
            pool.push_back(std::move(v));
    }
    void sleep_after(const Frame& f, std::uint32_t p, const Step& step,
                     std::vector<std::uint8_t>& out) const {
        out.assign(f.sleep.size(), 0);
        Step& q_step = q_step_;
        for (std::uint32_t q = 0; q < f.sleep.size(); ++q)
            out[q] = f.sleep[q] && q != p && sys_.next(f.node, q, q_step) &&
                     !sys_.dependent(q_step, step);
    }
    static void join(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& c) {
        if (into.size() < c.size())
            into.resize(c.size(), 0);
        for (std::size_t t = 0; t < c.size(); ++t)
            into[t] = std::max(into[t], c[t]);
    }

    // The second change: the next steps of the threads blocked at the deepest node that its last
    // event concerns.
    void blocked_races() {
        if (events_.empty())
            return;
        const Frame& f = frames_.back();
        const Step& last = events_.back().step;
        std::vector<std::uint32_t>& clock = blocked_clock_;
        Step q_step;
        const std::size_t n = sys_.threads(f.node);
        for (std::uint32_t q = 0; q < n; ++q)
            if (!sys_.enabled(f.node, q) && sys_.next(f.node, q, q_step) &&
                sys_.dependent(last, q_step) && !never_reversed(q_step))
                analyze(q, q_step, clock); // its clock is not kept: only its races count
    }

    // Algorithm 1, lines 7-10 for the race events()[i] ⋖ (p's step with `clock`): unless some
    // initial of v = notdep(e, E).p is already in backtrack(E') or sleeps there (then it is
    // covered), add one, E' = pre(E, e). The initials are computed from the clocks: the first
    // event of a thread in v is an initial when nothing of v happens before it.
    void reverse(std::size_t i, std::uint32_t p, const Step& step,
                 const std::vector<std::uint32_t>& clock) {
        const Event& e = events_[i];
        const std::vector<std::uint32_t>& upto = frames_[i + 1].count; // events up to e
        const std::size_t nt = std::max(evidx_.size(), std::size_t{p} + 1);
        std::vector<std::uint32_t>& initials = initials_;
        initials.clear();
        bool p_in_notdep = false;
        for (std::uint32_t t = 0; t < nt; ++t) {
            if (t == e.thread || t >= evidx_.size() || at(upto, t) >= evidx_[t].size())
                continue;
            const std::size_t z = evidx_[t][at(upto, t)]; // t's first event after e
            if (after(z, i))
                continue; // then all of t's later events are: t is not in v
            p_in_notdep = p_in_notdep || t == p;
            bool initial = true;
            for (std::uint32_t u = 0; u < nt && initial; ++u)
                initial = u == t || at(events_[z].clock, u) <= at(upto, u);
            if (initial)
                initials.push_back(t);
        }
        if (!p_in_notdep) { // p's step is p's first event in v
            bool initial = true;
            for (std::uint32_t u = 0; u < nt && initial; ++u)
                if (u != p && u != e.thread && at(clock, u) > at(upto, u))
                    initial = after(evidx_[u][at(upto, u)], i);
            if (initial)
                initials.push_back(p);
        }
        Frame& f = frames_[i];
        for (std::uint32_t t : initials)
            if (at(f.backtrack, t) || at(f.sleep, t))
                return;
        // Prefer p (the reversed step itself), then the lowest enabled initial.
        std::stable_partition(initials.begin(), initials.end(),
                              [&](std::uint32_t t) { return t == p; });
        for (std::uint32_t q : initials)
            if (sys_.enabled(f.node, q)) {
                set(f.backtrack, q, std::uint8_t{1});
                return;
            }
        // Every initial is blocked before e: e enabled it (the second change covers it), unless
        // the step's dependence is what it met: another thread may enable it instead, with other
        // objects read, in an order no race of this path shows. Every thread awake there is
        // explored.
        if (reads_vary(step))
            for (std::uint32_t q = 0; q < sys_.threads(f.node); ++q)
                if (sys_.enabled(f.node, q) && !at(f.sleep, q))
                    set(f.backtrack, q, std::uint8_t{1});
    }

    const System& sys_;
    std::vector<Frame> frames_; // frames_[d]: the node before events_[d]
    std::vector<Event> events_;
    std::vector<std::vector<std::size_t>> evidx_; // [thread]: its events' indices in events_
    std::vector<std::size_t> none_;
    // Storage kept across steps: popped frames' and events' vectors (pop, take), and scratch.
    std::vector<std::vector<std::uint8_t>> spare8_;
    std::vector<std::vector<std::uint32_t>> spare32_;
    std::vector<std::uint32_t> seen_, blocked_clock_, initials_;
    std::vector<std::size_t> races_;
    mutable std::vector<const Step*> notdep_;
    mutable Step q_step_;
};

} // namespace sfg::engine
