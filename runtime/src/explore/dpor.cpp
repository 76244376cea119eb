// Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, "Source Sets: A Foundation for
// Optimal Dynamic Partial Order Reduction", JACM 64(4), 2017, Algorithm 1), stateless: every run
// starts from the beginning and replays the choices up to the node where it branches, as
// sfg::explore must (a C++ body cannot be snapshotted). Its changes for blocking steps (lock
// acquisitions, joins, barrier departures, dequeues, wakes) are those of the model checker's search
// (docs/programs.md, "Modes"):
//
// 1. Only races that can be reversed are: e' must be able to run before e. An acq after a rel of
//    the same lock, a join after a step of a thread it joins, cannot; such an e is skipped, and
//    the search for races of e' goes on behind it. Whether e' could have run earlier is decided
//    on the model of the objects kept at every node (model.hpp), after the steps that do not
//    happen after e.
// 2. A blocked thread's next step never becomes an event of the run, yet another class may run
//    it: at every node, the next step of each blocked thread races with the run when the node's
//    last event is dependent with it.
//
// Sleep sets make every delivered run a different class; runs where every enabled thread sleeps
// are given up (Strategy::Choice::abandon) and are no execution. A thread that yielded is chosen
// last where there is a choice, never excluded, so every interleaving stays reachable.
#include "explore/strategy.hpp"

#include <algorithm>

namespace sfg::explore_detail {

namespace {

struct Ev {
    Event event;
    std::uint32_t pos = 0; // index among its thread's events
    // Happens-before (transitive closure of `dependent` on the run): clock[t] = how many of t's
    // events happen before or are this one (missing entries: 0).
    std::vector<std::uint32_t> clock;
};

// A node of the search: the state before the event at its depth.
struct Frame {
    Model model;
    std::vector<Event> next;            // by thread: its next step (op read, no action: none)
    std::vector<std::uint8_t> has_next; // by thread
    std::vector<std::uint8_t> enabled;  // by thread
    std::vector<std::uint8_t> backtrack, sleep;
    std::vector<std::uint32_t> count; // events per thread before this depth
    bool started = false;
};

std::uint32_t at(const std::vector<std::uint32_t>& v, std::size_t i) {
    return i < v.size() ? v[i] : 0;
}
std::uint8_t at(const std::vector<std::uint8_t>& v, std::size_t i) {
    return i < v.size() ? v[i] : 0;
}
template <class T>
void set(std::vector<T>& v, std::size_t i, T x) {
    if (i >= v.size())
        v.resize(i + 1, T{});
    v[i] = x;
}

void join_clock(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& c) {
    if (into.size() < c.size())
        into.resize(c.size(), 0);
    for (std::size_t t = 0; t < c.size(); ++t)
        into[t] = std::max(into[t], c[t]);
}

bool names(const Event& e, std::uint32_t u) {
    return std::find(e.names.begin(), e.names.end(), u) != e.names.end();
}

class Dpor final : public Strategy {
public:
    void begin_run() override {
        depth_ = 0;
        if (frames_.empty())
            frames_.emplace_back();
    }

    std::optional<Choice> choose(const Decision& d) override {
        const std::size_t depth = d.depth;
        if (depth + 1 < frames_.size()) { // the prefix an earlier run took
            const std::uint32_t t = events_[depth].event.thread;
            if (!std::binary_search(d.enabled->begin(), d.enabled->end(), t))
                return std::nullopt;
            return Choice{t, depth < keys_.size() ? &keys_[depth] : nullptr};
        }
        Frame& f = frames_.back();
        if (!f.started) {
            start(f, d);
            blocked_races(f);
            // The first choice: a thread awake, one that did not just yield if there is one.
            std::optional<std::uint32_t> first;
            for (std::uint32_t t : *d.enabled)
                if (!at(f.sleep, t) && (!first || (at(*d.yielded, *first) && !at(*d.yielded, t))))
                    first = t;
            if (!first) // sleep-set blocked: equivalent to a run explored already
                return Choice{0, nullptr, true};
            set<std::uint8_t>(f.backtrack, *first, 1);
        }
        std::uint32_t p = 0;
        while (p < f.backtrack.size() && (!f.backtrack[p] || at(f.sleep, p)))
            ++p;
        if (p == f.backtrack.size())
            return Choice{0, nullptr, true};
        take(p);
        return Choice{p, nullptr};
    }

    void at_leaf(const Decision& d) override {
        if (d.depth + 1 != frames_.size())
            return;
        Frame& f = frames_.back();
        if (!f.started) {
            start(f, d);
            blocked_races(f);
        }
    }

    void end_run(const std::vector<StepKey>& path) override {
        keys_ = path;
        // A run cut before the node it reached (a bound, nondeterminism, a sleep-set block) keeps
        // the frames it took; the node it stopped at has nothing more.
        while (frames_.size() > events_.size() + 1)
            frames_.pop_back();
    }

    bool next_run() override {
        // Back to the deepest node with a thread to explore that does not sleep there.
        while (!frames_.empty()) {
            const Frame& f = frames_.back();
            bool more = false;
            for (std::size_t p = 0; f.started && p < f.backtrack.size() && !more; ++p)
                more = f.backtrack[p] && !at(f.sleep, p);
            if (more)
                break;
            pop();
        }
        keys_.resize(std::min(keys_.size(), events_.size()));
        return !frames_.empty();
    }

    bool yield_blocks() const override { return false; }

private:
    void start(Frame& f, const Decision& d) {
        f.started = true;
        f.model = *d.model;
        const std::size_t n = d.next->size();
        f.next.assign(n, Event{});
        f.has_next.assign(n, 0);
        f.enabled.assign(n, 0);
        for (std::size_t t = 0; t < n; ++t)
            if (const Event* e = (*d.next)[t]) {
                f.next[t] = *e;
                f.has_next[t] = 1;
            }
        for (std::uint32_t t : *d.enabled)
            f.enabled[t] = 1;
        f.backtrack.assign(n, 0);
        f.sleep.resize(n, 0);
        f.count.resize(n, 0);
    }

    // Algorithm 1, lines 6-13 for p's step at the deepest node: reverse its races, then explore
    // it with the sleeping threads whose steps are independent of it.
    void take(std::uint32_t p) {
        Frame& f = frames_.back();
        const Event& step = f.next[p];
        std::vector<std::uint8_t> sleep(f.sleep.size(), 0);
        for (std::size_t q = 0; q < f.sleep.size(); ++q)
            sleep[q] = f.sleep[q] && q != p && at(f.has_next, q) && !dependent(f.next[q], step);
        f.sleep[p] = 1;
        Ev ev;
        ev.event = step;
        ev.pos = at(f.count, p);
        analyze(p, step, ev.clock);
        std::vector<std::uint32_t> count = f.count;
        set<std::uint32_t>(count, p, at(count, p) + 1);
        events_.push_back(std::move(ev));
        if (evidx_.size() <= p)
            evidx_.resize(p + 1);
        evidx_[p].push_back(events_.size() - 1);
        Frame next;
        next.sleep = std::move(sleep);
        next.count = std::move(count);
        frames_.push_back(std::move(next)); // f is invalid from here
    }

    void pop() {
        frames_.pop_back();
        if (!events_.empty() && frames_.size() == events_.size()) {
            evidx_[events_.back().event.thread].pop_back();
            events_.pop_back();
        }
    }

    // Change 2: the next steps of the threads blocked at f that the last event concerns.
    void blocked_races(const Frame& f) {
        if (events_.empty())
            return;
        const Event& last = events_.back().event;
        std::vector<std::uint32_t> clock;
        for (std::uint32_t q = 0; q < f.next.size(); ++q)
            if (f.has_next[q] && !f.enabled[q] && dependent(last, f.next[q]))
                analyze(q, f.next[q], clock);
    }

    // The races of `step` of thread p, taken after the whole run so far (Algorithm 1, line 6),
    // with change 1. Sets `clock` to the step's happens-before clock and reverses each race.
    void analyze(std::uint32_t p, const Event& step, std::vector<std::uint32_t>& clock) {
        const std::size_t j = events_.size();
        std::vector<std::uint32_t> seen;
        if (p < evidx_.size() && !evidx_[p].empty())
            seen = events_[evidx_[p].back()].clock;
        clock = seen;
        std::vector<std::size_t> races;
        for (std::size_t i = j; i-- > 0;) {
            const Ev& e = events_[i];
            if (e.event.thread == p || at(seen, e.event.thread) > e.pos)
                continue;
            if (!dependent(e.event, step))
                continue;
            if (at(clock, e.event.thread) <= e.pos)
                join_clock(clock, e.clock);
            if (e.event.op == Op::fork && names(e.event, p)) {
                join_clock(seen, e.clock); // the fork that started p: program order
                continue;
            }
            if (!reversible(i, p, step))
                continue;
            races.push_back(i);
            join_clock(seen, e.clock);
        }
        set<std::uint32_t>(
            clock, p, static_cast<std::uint32_t>(p < evidx_.size() ? evidx_[p].size() : 0) + 1);
        for (std::size_t i : races)
            reverse(i, p, clock);
    }

    bool after(std::size_t k, std::size_t i) const { // events_[k] happens after events_[i]
        const Ev& e = events_[i];
        return at(events_[k].clock, e.event.thread) > e.pos;
    }

    // Can p's step run before events_[i], that is after pre(E, e).notdep(e, E)?
    bool reversible(std::size_t i, std::uint32_t p, const Event& step) const {
        const Event& e = events_[i].event;
        if (names(e, p))
            return false; // a join of p, or a fork of it: p cannot step before either
        switch (step.op) {
        case Op::acquire: // after a rel of the lock it was held; after an acq it was free
            if (step.attempt)
                return true;
            if (e.op == Op::acquire && !e.attempt)
                return true;
            return e.op != Op::release && simulate(i, step);
        case Op::join: { // every thread it joins ends without what happens after e
            for (std::uint32_t u : step.names) {
                if (u == e.thread || names(e, u))
                    return false;
                if (u < evidx_.size())
                    for (std::size_t k : evidx_[u])
                        if (k > i && after(k, i))
                            return false;
            }
            return true;
        }
        case Op::barrier_exit:
        case Op::dequeue:
        case Op::cond_wake:
            return step.attempt || simulate(i, step);
        default: // accesses, rel, fork, arrivals, notify, wait are enabled whenever p is ready
            return true;
        }
    }

    // Runs notdep(e, E) on the model kept before e = events_[i], then asks whether `step` may go.
    bool simulate(std::size_t i, const Event& step) const {
        Model m = frames_[i].model;
        for (std::size_t k = i + 1; k < events_.size(); ++k) {
            if (after(k, i))
                continue;
            if (!m.enabled(events_[k].event))
                return false; // not expected: notdep(e) does not depend on e
            m.apply(events_[k].event);
        }
        return m.enabled(step);
    }

    // Algorithm 1, lines 7-10 for the race events_[i] with p's step (its clock): unless an
    // initial of v = notdep(e, E).p is in backtrack(E') or sleeps there, add one.
    void reverse(std::size_t i, std::uint32_t p, const std::vector<std::uint32_t>& clock) {
        const Ev& e = events_[i];
        const std::vector<std::uint32_t>& upto = frames_[i + 1].count; // events up to e
        const std::size_t nt = std::max(evidx_.size(), std::size_t{p} + 1);
        std::vector<std::uint32_t> initials;
        bool p_in_notdep = false;
        for (std::uint32_t t = 0; t < nt; ++t) {
            if (t == e.event.thread || t >= evidx_.size() || at(upto, t) >= evidx_[t].size())
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
                if (u != p && u != e.event.thread && at(clock, u) > at(upto, u))
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
            if (at(f.enabled, q)) {
                set<std::uint8_t>(f.backtrack, q, 1);
                return;
            }
        // Every initial is blocked before e: e enabled it (change 2 covers it).
    }

    std::vector<Frame> frames_; // frames_[d]: the node before events_[d]
    std::vector<Ev> events_;
    std::vector<std::vector<std::size_t>> evidx_; // [thread]: its events' indices in events_
    std::vector<StepKey> keys_;                   // the last run's steps
    std::size_t depth_ = 0;
};

} // namespace

std::unique_ptr<Strategy> make_dpor() {
    return std::make_unique<Dpor>();
}

} // namespace sfg::explore_detail
