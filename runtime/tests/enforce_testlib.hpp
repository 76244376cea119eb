// Test helpers for the enforcer, kept inside runtime/tests (the runtime links no compiler):
// - a tiny SFG algebra: base graphs (thesis Figure 4.3), ⊔ / ▷^z / [.]^z with Valid (Figure 4.4,
//   §4.2.3), building the Discipline whose net build_petri_net gives (Figure 4.11);
// - a trace builder from "T|op(args)" lines that inserts the implicit thread start/end events
//   where docs/traces.md puts them;
// - a reference enforcer: Figure 4.15 literally (std::set of markings, Net::enabled/fire, lazy
//   [SYNC] closure, every variable visited on every sync op as in Figure 5.2);
// - a brute-force happens-before race oracle (docs/traces.md).
#pragma once

#include "random_trace.hpp"
#include "sfg/runtime/core/petri_net.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"
#include "volume.hpp"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sfg::testlib {

// ---------------------------------------------------------------------------------------------
// SFGs

// The event of the first violation `e` reports on variable x (0: none).
inline std::uint64_t first_violation_of(const Enforcer& e, const std::string& x) {
    for (const EnforceViolation& v : e.violations())
        if (v.var == x)
            return v.event;
    return 0;
}

// The threads that read or write variable `id` in `events`.
inline std::set<ThreadId> accessors_of(const std::vector<Event>& events, ObjId id) {
    std::set<ThreadId> out;
    for (const Event& e : events)
        if (is_memory(e.op) && e.target == id)
            out.insert(e.thread);
    return out;
}

inline Discipline EX(std::string t) {
    return {{{ModeKind::EX, {std::move(t)}}}, {}, {0}, {0}};
}
inline Discipline RS(std::vector<std::string> ts) {
    std::sort(ts.begin(), ts.end());
    return {{{ModeKind::RS, std::move(ts)}}, {}, {0}, {0}};
}

// LOCK_m(T) (thesis §5.2): composes like RS(T), permits reads and writes while m is held.
inline Discipline LOCK(std::string m, std::vector<std::string> ts) {
    std::sort(ts.begin(), ts.end());
    return {{{ModeKind::LOCK, std::move(ts), std::move(m)}}, {}, {0}, {0}};
}

inline Mechanism lock(std::string m) {
    return {MechKind::lock, std::move(m), "", {}};
}
inline Mechanism vol(std::string v) {
    return {MechKind::volatile_, std::move(v), "", {}};
}
// v==K (thesis §5.1): snd writes K to v, rcv reads K from it.
inline Mechanism vol(std::string v, std::int64_t k) {
    Mechanism z = vol(std::move(v));
    z.value = k;
    return z;
}
// q(o) (thesis §5.1): snd puts the variable into queue q, rcv takes it out.
inline Mechanism queue(std::string q) {
    return {MechKind::queue, std::move(q), "", {}};
}
inline Mechanism barrier(std::string b, std::vector<std::string> ts) {
    std::sort(ts.begin(), ts.end());
    return {MechKind::barrier, std::move(b), "", std::move(ts)};
}
inline Mechanism fork(std::string t, std::vector<std::string> us) {
    std::sort(us.begin(), us.end());
    return {MechKind::fork, "", std::move(t), std::move(us)};
}
inline Mechanism join(std::vector<std::string> ss, std::string t) {
    std::sort(ss.begin(), ss.end());
    return {MechKind::join, "", std::move(t), std::move(ss)};
}

inline bool subset(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    return std::all_of(a.begin(), a.end(), [&](const std::string& x) {
        return std::find(b.begin(), b.end(), x) != b.end();
    });
}

inline void add_edge(Discipline& g, std::uint32_t from, std::uint32_t to, const Mechanism& z) {
    for (const ModeEdge& e : g.edges)
        if (e.from == from && e.to == to && e.mech == z)
            return; // edges form a set
    // Valid(o -z-> i) (§4.2.3): sfg::valid (petri_net.hpp), the one the compiler's SfgBuilder uses.
    if (sfg::valid(g.modes[from], z, g.modes[to]))
        g.edges.push_back({from, to, z});
}

inline Discipline alt(Discipline a, const Discipline& b) {
    const auto off = static_cast<std::uint32_t>(a.modes.size());
    a.modes.insert(a.modes.end(), b.modes.begin(), b.modes.end());
    for (ModeEdge e : b.edges) {
        e.from += off;
        e.to += off;
        a.edges.push_back(e);
    }
    for (std::uint32_t i : b.in)
        a.in.push_back(i + off);
    for (std::uint32_t o : b.out)
        a.out.push_back(o + off);
    for (EdgeFamily f : b.families) {
        for (std::uint32_t& m : f.from)
            m += off;
        for (std::uint32_t& m : f.to)
            m += off;
        a.families.push_back(std::move(f));
    }
    return a;
}
inline Discipline alt(Discipline a, const Discipline& b, const Discipline& c) {
    return alt(alt(std::move(a), b), c);
}

inline Discipline seq(const Discipline& a, const Mechanism& z, const Discipline& b) {
    const auto off = static_cast<std::uint32_t>(a.modes.size());
    Discipline g = alt(a, b);
    for (std::uint32_t o : a.out)
        for (std::uint32_t i : b.in)
            add_edge(g, o, i + off, z);
    g.in = a.in;
    g.out.clear();
    for (std::uint32_t o : b.out)
        g.out.push_back(o + off);
    return g;
}

inline Discipline loop(Discipline g, const Mechanism& z) {
    for (std::uint32_t o : g.out)
        for (std::uint32_t i : g.in)
            add_edge(g, o, i, z);
    return g;
}

// The place index of a place id (tests address places by their Figure 4.11 names).
inline std::uint32_t place(const Net& n, const std::string& id) {
    for (std::size_t p = 0; p < n.places.size(); ++p)
        if (n.places[p].id == id)
            return static_cast<std::uint32_t>(p);
    throw std::runtime_error("no place " + id);
}

// ---------------------------------------------------------------------------------------------
// Traces

struct Trace {
    Symbols syms;
    std::vector<Event> events;
    std::uint64_t explicit_events = 0;

    void feed(Analysis& a) const {
        for (const Event& e : events)
            a.on_event(e, syms);
        a.finish(syms);
    }
};

class TraceBuilder {
public:
    // "T|op" or "T|op(args)"; ops as in docs/traces.md.
    TraceBuilder& operator()(const std::string& line) {
        const auto bar = line.find('|');
        const std::string thread = line.substr(0, bar);
        std::string op = line.substr(bar + 1), arg;
        if (auto lp = op.find('('); lp != std::string::npos) {
            arg = op.substr(lp + 1, op.size() - lp - 2);
            op = op.substr(0, lp);
        }
        Event e;
        e.number = ++t_.explicit_events;
        e.line = static_cast<std::uint32_t>(e.number);
        e.thread = t_.syms.threads.intern(thread);
        e.op = op_from_spelling(op).value();
        const OpInfo& info = op_info(e.op);
        switch (info.operand) {
        case Operand::name:
            e.target = t_.syms.names(info.space).intern(arg);
            break;
        case Operand::thread_set: {
            std::vector<ThreadId> set;
            for (std::size_t i = 0; i <= arg.size();) {
                auto c = arg.find(',', i);
                if (c == std::string::npos)
                    c = arg.size();
                set.push_back(t_.syms.threads.intern(arg.substr(i, c - i)));
                i = c + 1;
            }
            std::sort(set.begin(), set.end());
            e.target = static_cast<ObjId>(t_.syms.thread_sets.size());
            t_.syms.thread_sets.push_back(set);
            break;
        }
        default:
            break;
        }
        // Implicit events (docs/traces.md): u's start just before u's first event; for a join,
        // the start (if u never ran) and end of every joined thread just before the join.
        start_if_needed(e.thread, e.number);
        if (e.op == Op::join)
            for (ThreadId u : t_.syms.thread_sets[e.target]) {
                start_if_needed(u, e.number);
                if (!ended_.count(u)) {
                    ended_.insert(u);
                    implicit(u, Op::thread_end, e.thread, e.number);
                }
            }
        if (e.op == Op::fork)
            for (ThreadId u : t_.syms.thread_sets[e.target])
                forker_[u] = e.thread;
        t_.events.push_back(e);
        return *this;
    }
    Trace build() const { return t_; }

private:
    void implicit(ThreadId u, Op op, ObjId target, std::uint64_t number) {
        Event s;
        s.number = number;
        s.thread = u;
        s.op = op;
        s.implicit = true;
        s.target = target;
        t_.events.push_back(s);
    }
    void start_if_needed(ThreadId u, std::uint64_t number) {
        if (started_.count(u))
            return;
        started_.insert(u);
        auto f = forker_.find(u);
        implicit(u, Op::thread_start, f == forker_.end() ? no_object : f->second, number);
    }

    Trace t_;
    std::set<ThreadId> started_, ended_;
    std::map<ThreadId, ThreadId> forker_;
};

inline Trace trace(std::initializer_list<std::string> lines) {
    TraceBuilder b;
    for (const std::string& l : lines)
        b(l);
    return b.build();
}

// ---------------------------------------------------------------------------------------------
// Reference enforcer: Figure 4.15 over Figure 4.14 with Figure 5.2's [SLOW SYNC] (every variable
// on every sync op), by names, with std::set of markings; [SYNC] as a lazy closure that keeps the
// marking before the sync. Reports the first violation event per variable.
//
// A barrier edge's tokens carry their colour, the barrier generation (docs/enforcement.md,
// "Barrier rounds"), straight from the definition: snd[s:e] at an arrival of generation g marks
// PostSnd[s:e] g; sync[e] fires when all its PostSnd tokens carry one g and marks its PreRcv
// tokens g; rcv[t:e] fires at a departure of generation g from a PreRcv[t:e] token marked g.
// Generations by their definition (docs/traces.md), as barrier_generations() counts them. With
// `coloured = false`, the uncoloured net (every colour 0): the enforcer before barrier rounds.

class RefEnforcer : public Analysis {
public:
    explicit RefEnforcer(bool coloured = true) : coloured_(coloured) {}
    void add_variable(const std::string& name, const Net& net) {
        vars_.push_back({name, net, {}, 0});
        for (const Marking& m : net.initial_markings) {
            Coloured c;
            for (std::uint32_t p : m)
                c.emplace_back(p, 0);
            std::sort(c.begin(), c.end());
            vars_.back().cands.insert(c);
        }
        close(vars_.back());
    }
    void on_event(const Event& e, const Symbols& syms) override {
        const std::string t = syms.threads.name(e.thread);
        std::uint64_t gen = 0; // the op's generation, barrier_generations()'s way
        if (e.op == Op::barrier_enter) {
            if (!open_.count(e.target))
                open_[e.target] = ++next_gen_;
            gen = entered_[e.thread] = open_[e.target];
        } else if (e.op == Op::barrier_exit) {
            gen = entered_[e.thread];
            if (open_.count(e.target) && open_[e.target] == gen)
                open_.erase(e.target);
        }
        if (!coloured_)
            gen = 0;
        if (e.op == Op::acquire)
            held_.insert({t, std::string(syms.locks.name(e.target))});
        else if (e.op == Op::release)
            held_.erase({t, std::string(syms.locks.name(e.target))});
        if (is_memory(e.op)) {
            const std::string x = syms.vars.name(e.target);
            for (V& v : vars_) {
                if (v.name != x || v.first)
                    continue;
                std::set<Coloured> kept;
                for (const Coloured& m : v.cands)
                    if (permits(v.net, m, t, e.op == Op::write, held_))
                        kept.insert(m);
                if (kept.empty())
                    v.first = e.number;
                v.cands = std::move(kept);
            }
            return;
        }
        for (V& v : vars_) {
            if (v.first)
                continue;
            std::set<Coloured> next = v.cands; // [SKIP]
            for (std::size_t r = 0; r < v.net.transitions.size(); ++r)
                if (matches(v.net, r, e, syms, v.name))
                    for (const Coloured& m : v.cands)
                        if (auto fired = fire(v.net, m, r, gen))
                            next.insert(*fired);
            v.cands = std::move(next);
            close(v);
        }
    }
    // 0 when admitted.
    std::uint64_t first_violation(const std::string& var) const {
        for (const V& v : vars_)
            if (v.name == var)
                return v.first;
        return 0;
    }

private:
    // A marking with a colour per token (0: not a barrier edge's, or not coloured), by place.
    using Coloured = std::vector<std::pair<std::uint32_t, std::uint64_t>>;
    struct V {
        std::string name;
        Net net;
        std::set<Coloured> cands;
        std::uint64_t first;
    };
    static const std::uint64_t* colour_at(const Coloured& m, std::uint32_t p) {
        for (const auto& [q, c] : m)
            if (q == p)
                return &c;
        return nullptr;
    }
    // Fires r on m if it is enabled (1-safe: r• unmarked) and the colours allow it: a barrier
    // edge's snd colours its token `gen`, its sync needs one colour on •r and passes it on, its
    // rcv needs the token coloured `gen`.
    std::optional<Coloured> fire(const Net& n, const Coloured& m, std::size_t r,
                                 std::uint64_t gen) const {
        const Transition& tr = n.transitions[r];
        const bool barrier = coloured_ && n.edges[tr.edge].mech.kind == MechKind::barrier;
        std::optional<std::uint64_t> colour;
        for (std::uint32_t p : tr.pre) {
            const std::uint64_t* c = colour_at(m, p);
            if (!c || (colour && *colour != *c))
                return std::nullopt;
            colour = *c;
        }
        for (std::uint32_t p : tr.post)
            if (colour_at(m, p))
                return std::nullopt;
        std::uint64_t out = 0;
        if (barrier) {
            if (tr.kind == TransitionKind::snd)
                out = gen;
            else if (tr.kind == TransitionKind::sync)
                out = *colour;
            else if (*colour != gen || gen == 0)
                return std::nullopt;
        }
        Coloured next;
        for (const auto& pc : m)
            if (std::find(tr.pre.begin(), tr.pre.end(), pc.first) == tr.pre.end())
                next.push_back(pc);
        for (std::uint32_t p : tr.post)
            next.emplace_back(p, out);
        std::sort(next.begin(), next.end());
        return next;
    }
    // [READ/WRITE EXCLUSIVE], [READ SHARED], [READ/WRITE LOCKED] (LOCK_m(T): while t holds m).
    static bool permits(const Net& n, const Coloured& m, const std::string& t, bool write,
                        const std::set<std::pair<std::string, std::string>>& held) {
        for (const auto& [p, colour] : m) {
            const Place& pl = n.places[p];
            if (pl.kind != PlaceKind::Acc || pl.thread != t)
                continue;
            const AccessMode& a = n.modes[*pl.mode];
            if (a.kind == ModeKind::LOCK ? held.count({t, a.lock}) != 0
                                         : !write || a.kind == ModeKind::EX)
                return true;
        }
        return false;
    }
    void close(V& v) const {
        for (bool grew = true; grew;) {
            grew = false;
            std::set<Coloured> add;
            for (const Coloured& m : v.cands)
                for (std::size_t r = 0; r < v.net.transitions.size(); ++r)
                    if (v.net.transitions[r].kind == TransitionKind::sync)
                        if (auto fired = fire(v.net, m, r, 0))
                            add.insert(*fired);
            for (const Coloured& m : add)
                grew |= v.cands.insert(m).second;
        }
    }
    // docs/traces.md / Figure 4.2, by names, spelled out op by op: an oracle independent of the
    // op table the enforcer uses.
    static bool matches(const Net& n, std::size_t r, const Event& e, const Symbols& syms,
                        const std::string& var) {
        const Transition& tr = n.transitions[r];
        if (tr.kind == TransitionKind::sync)
            return false;
        const Mechanism& z = n.edges[tr.edge].mech;
        const std::string t = syms.threads.name(e.thread);
        if (tr.thread != t)
            return false;
        const bool snd = tr.kind == TransitionKind::snd;
        auto set_names = [&]() {
            std::vector<std::string> out;
            for (ThreadId u : syms.thread_sets[e.target])
                out.push_back(syms.threads.name(u));
            return out;
        };
        switch (e.op) {
        case Op::acquire:
        case Op::release:
            return z.kind == MechKind::lock && z.name == syms.locks.name(e.target) &&
                   snd == (e.op == Op::release);
        case Op::vol_read:
        case Op::vol_write:
            // vw(v=K) / vr(v=K) are the snd / rcv of v and of v==K; without K, of v only.
            return z.kind == MechKind::volatile_ && z.name == syms.volatiles.name(e.target) &&
                   (!z.value || (e.has_value() && *z.value == syms.values.value(e.value_id))) &&
                   snd == (e.op == Op::vol_write);
        case Op::barrier_enter:
        case Op::barrier_exit:
            return z.kind == MechKind::barrier && z.name == syms.barriers.name(e.target) &&
                   snd == (e.op == Op::barrier_enter);
        case Op::fork:
            return snd && z.kind == MechKind::fork && z.thread == t &&
                   subset(z.threads, set_names());
        case Op::join:
            return !snd && z.kind == MechKind::join && z.thread == t &&
                   subset(z.threads, set_names());
        case Op::thread_start:
            return !snd && z.kind == MechKind::fork && e.target != no_object &&
                   z.thread == syms.threads.name(e.target) && subset({t}, z.threads);
        case Op::thread_end:
            return snd && z.kind == MechKind::join && subset({t}, z.threads);
        case Op::enqueue:
        case Op::dequeue:
            // enq(q,o) / deq(q,o) are the snd / rcv of q in o's discipline only.
            return z.kind == MechKind::queue &&
                   z.name == syms.queues.name(syms.queue_items.queue(e.target)) &&
                   var == syms.vars.name(syms.queue_items.var(e.target)) &&
                   snd == (e.op == Op::enqueue);
        default:
            return false;
        }
    }
    bool coloured_;
    std::vector<V> vars_;
    std::set<std::pair<std::string, std::string>> held_; // (thread, lock)
    std::map<ObjId, std::uint64_t> open_;                // barrier -> its open generation
    std::map<ThreadId, std::uint64_t> entered_;          // thread -> the generation it entered
    std::uint64_t next_gen_ = 0;
};

// Random disciplines over T0..T(threads-1), locks m0.., volatiles v0.. and barrier b0, built with
// the algebra above (so Valid drops what it drops in the compiler).
struct RandomDisciplines {
    std::mt19937_64& rng;
    int threads = 4;
    int locks = 1;
    int volatiles = 1;

    int pick(int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }
    std::string thread() { return "T" + std::to_string(pick(threads)); }
    std::vector<std::string> thread_set(int max) {
        std::vector<std::string> s;
        const int k = 1 + pick(std::min(max, threads));
        while (static_cast<int>(s.size()) < k) {
            std::string t = thread();
            if (std::find(s.begin(), s.end(), t) == s.end())
                s.push_back(t);
        }
        std::sort(s.begin(), s.end());
        return s;
    }
    Mechanism mech() {
        switch (pick(6)) {
        case 0:
        case 1:
            return lock("m" + std::to_string(pick(std::max(1, locks))));
        case 2:
            return vol("v" + std::to_string(pick(std::max(1, volatiles))));
        case 3:
            return barrier("b0", thread_set(threads));
        case 4:
            return fork(thread(), thread_set(3));
        default:
            return join(thread_set(3), thread());
        }
    }
    Discipline disc(int depth) {
        return disc(depth, [this] { return mech(); });
    }
    // The same with the mechanisms of its edges drawn by `z` (a test's own mix).
    Discipline disc(int depth, const std::function<Mechanism()>& z) {
        const int k = depth == 0 ? pick(2) : pick(5);
        switch (k) {
        case 0:
            return EX(thread());
        case 1:
            return RS(thread_set(3));
        case 2:
            return alt(disc(depth - 1, z), disc(depth - 1, z));
        case 3:
            return seq(disc(depth - 1, z), z(), disc(depth - 1, z));
        default:
            return loop(disc(depth - 1, z), z());
        }
    }
    // [EX(T0) ⊔ ... ⊔ EX(Tn-1)]^m(i % locks): what the generator's `guarded` accesses follow.
    Discipline guarded(int var) {
        Discipline g = EX("T0");
        for (int t = 1; t < threads; ++t)
            g = alt(g, EX("T" + std::to_string(t)));
        return loop(g, lock("m" + std::to_string(var % std::max(1, locks))));
    }
};

// ---------------------------------------------------------------------------------------------
// Happens-before oracle (docs/traces.md), brute force over <= 256 events: is variable x racy?

inline bool racy(const Trace& tr, const std::string& x) {
    const auto& ev = tr.events;
    const std::size_t n = ev.size();
    if (n > 256)
        throw std::runtime_error("trace too long for the oracle");
    std::vector<std::bitset<256>> before(n); // before[j]: events that happen before j
    const std::vector<std::uint64_t> gen = sfg::testing::barrier_generations(ev);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < j; ++i) {
            const Event &a = ev[i], &b = ev[j];
            bool edge = a.thread == b.thread;
            if (!edge) {
                if (a.op == Op::release && b.op == Op::acquire)
                    edge = a.target == b.target;
                else if (a.op == Op::vol_write && b.op == Op::vol_read)
                    edge = a.target == b.target;
                else if (a.op == Op::enqueue && b.op == Op::dequeue)
                    edge = a.target == b.target; // the same (q, o)
                else if (a.op == Op::barrier_enter && b.op == Op::barrier_exit)
                    edge = gen[i] == gen[j];
                else if (a.op == Op::fork && b.op == Op::thread_start) {
                    const auto& s = tr.syms.thread_sets[a.target];
                    edge = std::find(s.begin(), s.end(), b.thread) != s.end();
                } else if (a.op == Op::thread_end && b.op == Op::join) {
                    const auto& s = tr.syms.thread_sets[b.target];
                    edge = std::find(s.begin(), s.end(), a.thread) != s.end();
                }
            }
            if (edge) {
                before[j] |= before[i];
                before[j].set(i);
            }
        }
    const ObjId xid = tr.syms.vars.find(x);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < j; ++i) {
            const Event &a = ev[i], &b = ev[j];
            if (is_memory(a.op) && is_memory(b.op) && a.target == xid && b.target == xid &&
                (a.op == Op::write || b.op == Op::write) && !before[j].test(i))
                return true;
        }
    return false;
}

} // namespace sfg::testlib
