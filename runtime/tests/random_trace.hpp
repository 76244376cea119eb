// Random well-formed traces (docs/traces.md) and a brute-force happens-before oracle, for tests
// that compare analyses against the definition. Header-only so other test files can reuse it.
//
// The generator simulates threads: root threads run from the start, the others only once forked
// (by a set fork); a thread in a barrier exits it next; locks are acquired only when free; joins
// take sets of any other live threads, so threads forked and joined without events occur.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/trace.hpp"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace sfg::testing {

// `stem.PID.ext` in the working directory: a scratch file of this process's own, as the test
// binaries may run side by side (in halves, under ThreadSanitizer).
inline std::string scratch_file(const std::string& stem, const std::string& ext) {
    return stem + "." + std::to_string(::getpid()) + "." + ext;
}

struct RandomTraceOptions {
    int threads = 5;   // T0..T(n-1); T0 and maybe others are roots
    int vars = 3;      // x0..
    int locks = 2;     // m0..
    int volatiles = 2; // v0..
    int barriers = 1;  // b0..
    int events = 40;   // about this many lines
    int guarded = 0;   // percent of accesses to x(i) made only while holding m(i % locks)
    int values = 0;    // percent of vr/vw that carry a value, vw(v0=K) with K in -1..2
    int queues = 0;    // percent of lines that are enq(q,x) / deq(q,x), q in q0, q1 (thesis §5.1)
    int rejoin = 0;    // percent chance that a join may name each thread joined before
};

inline std::string random_trace(std::mt19937_64& rng, const RandomTraceOptions& o) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    auto chance = [&](int percent) { return pick(100) < percent; };
    enum class S { unborn, runnable, joined };
    const int n = std::max(1, o.threads);
    std::vector<S> state(n, S::unborn);
    std::vector<int> in_barrier(n, -1);
    std::vector<int> holder(std::max(0, o.locks), -1);
    std::vector<std::string> queued; // "q,x" put in and not yet taken out, one entry per enq
    state[0] = S::runnable;
    for (int t = 1; t < n; ++t)
        if (chance(20))
            state[t] = S::runnable; // another root thread
    std::string out;
    auto T = [](int t) { return "T" + std::to_string(t); };
    for (int step = 0; step < o.events; ++step) {
        std::vector<int> run;
        for (int t = 0; t < n; ++t)
            if (state[t] == S::runnable)
                run.push_back(t);
        if (run.empty())
            break;
        int t = run[pick(static_cast<int>(run.size()))];
        std::string line = T(t) + "|";
        if (in_barrier[t] >= 0) {
            line += "bexit(b" + std::to_string(in_barrier[t]) + ")";
            in_barrier[t] = -1;
        } else if (o.queues > 0 && chance(o.queues)) {
            // Take out one of the items put in (any, not FIFO: traces match only q and o), or
            // put one in.
            if (!queued.empty() && chance(50)) {
                const std::size_t i =
                    static_cast<std::size_t>(pick(static_cast<int>(queued.size())));
                line += "deq(" + queued[i] + ")";
                queued.erase(queued.begin() + static_cast<std::ptrdiff_t>(i));
            } else {
                queued.push_back("q" + std::to_string(pick(2)) + ",x" +
                                 std::to_string(pick(std::max(1, o.vars))));
                line += "enq(" + queued.back() + ")";
            }
        } else {
            int k = pick(100);
            if (k < 40 && o.vars > 0) {
                int x = pick(o.vars);
                int m = o.locks > 0 ? x % o.locks : -1;
                if (m >= 0 && holder[m] != t && chance(o.guarded)) {
                    // Follow the lock discipline: take the lock first (or wait for it).
                    if (holder[m] < 0) {
                        line += "acq(m" + std::to_string(m) + ")";
                        holder[m] = t;
                    } else {
                        line += "vr(v0)";
                    }
                } else {
                    line += (chance(50) ? "w(x" : "r(x") + std::to_string(x) + ")";
                }
            } else if (k < 52 && o.locks > 0) {
                int m = pick(o.locks);
                if (holder[m] == t) {
                    line += "rel(m" + std::to_string(m) + ")";
                    holder[m] = -1;
                } else if (holder[m] < 0) {
                    line += "acq(m" + std::to_string(m) + ")";
                    holder[m] = t;
                } else {
                    line += "r(x0)";
                }
            } else if (k < 64 && o.volatiles > 0) {
                line += (chance(50) ? "vw(v" : "vr(v") + std::to_string(pick(o.volatiles));
                if (o.values > 0 && chance(o.values))
                    line += "=" + std::to_string(pick(4) - 1);
                line += ")";
            } else if (k < 70 && o.barriers > 0) {
                int b = pick(o.barriers);
                line += "benter(b" + std::to_string(b) + ")";
                in_barrier[t] = b;
            } else if (k < 82) {
                std::vector<int> unborn;
                for (int u = 0; u < n; ++u)
                    if (state[u] == S::unborn)
                        unborn.push_back(u);
                if (unborn.empty()) {
                    line += "w(x0)";
                } else {
                    std::shuffle(unborn.begin(), unborn.end(), rng);
                    unborn.resize(1 + pick(std::min<int>(3, static_cast<int>(unborn.size()))));
                    line += "fork(";
                    for (std::size_t i = 0; i < unborn.size(); ++i) {
                        line += (i ? "," : "") + T(unborn[i]);
                        state[unborn[i]] = S::runnable;
                    }
                    line += ")";
                }
            } else if (k < 90) {
                std::vector<int> live;
                for (int u = 0; u < n; ++u) {
                    if (u == t)
                        continue;
                    if (state[u] == S::joined) { // no draw when rejoin is 0: the same traces
                        if (o.rejoin > 0 && chance(o.rejoin))
                            live.push_back(u);
                    } else if (state[u] == S::runnable || chance(10)) {
                        live.push_back(u);
                    }
                }
                if (live.empty()) {
                    line += "r(x0)";
                } else {
                    std::shuffle(live.begin(), live.end(), rng);
                    live.resize(1 + pick(std::min<int>(2, static_cast<int>(live.size()))));
                    line += "join(";
                    for (std::size_t i = 0; i < live.size(); ++i) {
                        line += (i ? "," : "") + T(live[i]);
                        state[live[i]] = S::joined;
                    }
                    line += ")";
                }
            } else if (k < 92) {
                line += chance(50) ? "begin" : "end";
            } else {
                line +=
                    (chance(50) ? "w(x" : "r(x") + std::to_string(pick(std::max(1, o.vars))) + ")";
            }
        }
        if (chance(30))
            line += "|L" + std::to_string(step);
        out += line + "\n";
    }
    return out;
}

// Collects the explicit events of a stream.
struct Collector : Analysis {
    std::vector<Event> events;
    std::vector<Event> all; // implicit ones too
    void on_event(const Event& e, const Symbols&) override {
        all.push_back(e);
        if (!e.implicit)
            events.push_back(e);
    }
};

// Equality of what two readers delivered: events field by field, names in id order.
inline bool same(const Event& a, const Event& b) {
    return a.number == b.number && a.thread == b.thread && a.op == b.op &&
           a.implicit == b.implicit && a.target == b.target && a.location == b.location &&
           a.line == b.line && a.value_id == b.value_id;
}
inline bool same(const SymbolTable& a, const SymbolTable& b) {
    if (a.size() != b.size())
        return false;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        if (a.name(i) != b.name(i))
            return false;
    return true;
}
inline bool same(const ValueTable& a, const ValueTable& b) {
    if (a.size() != b.size())
        return false;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        if (a.value(i) != b.value(i))
            return false;
    return true;
}
inline bool same(const QueueItems& a, const QueueItems& b) {
    if (a.size() != b.size())
        return false;
    for (std::uint32_t i = 0; i < a.size(); ++i)
        if (a.queue(i) != b.queue(i) || a.var(i) != b.var(i))
            return false;
    return true;
}
inline bool same(const Symbols& a, const Symbols& b) {
    return same(a.threads, b.threads) && same(a.vars, b.vars) && same(a.locks, b.locks) &&
           same(a.volatiles, b.volatiles) && same(a.barriers, b.barriers) &&
           same(a.locations, b.locations) && a.thread_sets == b.thread_sets &&
           same(a.values, b.values) && same(a.queues, b.queues) &&
           same(a.queue_items, b.queue_items);
}

// The barrier generation of each benter/bexit (0 for other events), by its definition
// (docs/traces.md): a generation of b is the arrivals at b from the previous generation's first
// departure up to its own first departure; a departure is of the generation its thread entered.
inline std::vector<std::uint64_t> barrier_generations(const std::vector<Event>& ev) {
    std::vector<std::uint64_t> gen(ev.size(), 0);
    std::map<ObjId, std::uint64_t> open;
    std::map<ThreadId, std::uint64_t> entered;
    std::uint64_t next = 0;
    for (std::size_t i = 0; i < ev.size(); ++i) {
        const Event& e = ev[i];
        if (e.op == Op::barrier_enter) {
            if (!open.count(e.target))
                open[e.target] = ++next;
            gen[i] = entered[e.thread] = open[e.target];
        } else if (e.op == Op::barrier_exit) {
            gen[i] = entered[e.thread];
            if (open.count(e.target) && open[e.target] == gen[i])
                open.erase(e.target);
        }
    }
    return gen;
}

// Happens-before by its definition (docs/traces.md) over explicit events: direct edges, then the
// transitive closure. Edges only go forward, so one pass in order closes them.
class HbOracle {
public:
    static constexpr std::size_t max_events = 512;

    HbOracle(const std::vector<Event>& ev, const Symbols& syms) : ev_(ev), pred_(ev.size()) {
        auto in = [&](ObjId set, ThreadId u) {
            const auto& s = syms.thread_sets[set];
            return std::find(s.begin(), s.end(), u) != s.end();
        };
        const std::vector<std::uint64_t> gen = barrier_generations(ev);
        for (std::size_t j = 0; j < ev.size(); ++j) {
            const Event& b = ev[j];
            for (std::size_t i = 0; i < j; ++i) {
                const Event& a = ev[i];
                bool edge =
                    a.thread == b.thread ||
                    (a.op == Op::release && b.op == Op::acquire && a.target == b.target) ||
                    (a.op == Op::vol_write && b.op == Op::vol_read && a.target == b.target) ||
                    (a.op == Op::enqueue && b.op == Op::dequeue && a.target == b.target) ||
                    (a.op == Op::barrier_enter && b.op == Op::barrier_exit && gen[i] == gen[j]) ||
                    (a.op == Op::fork && in(a.target, b.thread)) ||
                    (b.op == Op::join && in(b.target, a.thread)) ||
                    (a.op == Op::fork && b.op == Op::join &&
                     std::any_of(syms.thread_sets[a.target].begin(),
                                 syms.thread_sets[a.target].end(),
                                 [&](ThreadId u) { return in(b.target, u); }));
                if (edge) {
                    pred_[j] |= pred_[i];
                    pred_[j].set(i);
                }
            }
        }
    }

    // Event indexes (0-based, explicit events) i, j: does i happen before j?
    bool hb(std::size_t i, std::size_t j) const { return pred_[j].test(i); }

    // The first racy event (docs/traces.md) per variable: var -> (j, every valid with_event),
    // numbers as in the trace.
    struct FirstRace {
        std::uint64_t event;
        std::vector<std::uint64_t> with;
    };
    std::map<ObjId, FirstRace> first_races() const {
        std::map<ObjId, FirstRace> out;
        for (std::size_t j = 0; j < ev_.size(); ++j) {
            const Event& b = ev_[j];
            if (!is_memory(b.op) || out.count(b.target))
                continue;
            FirstRace r{b.number, {}};
            for (std::size_t i = 0; i < j; ++i) {
                const Event& a = ev_[i];
                if (is_memory(a.op) && a.target == b.target &&
                    (a.op == Op::write || b.op == Op::write) && !hb(i, j))
                    r.with.push_back(a.number);
            }
            if (!r.with.empty())
                out.emplace(b.target, std::move(r));
        }
        return out;
    }

private:
    const std::vector<Event>& ev_;
    std::vector<std::bitset<max_events>> pred_;
};

} // namespace sfg::testing
