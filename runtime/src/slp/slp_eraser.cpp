// Eraser on the grammar (slp_eraser.hpp).
#include "sfg/runtime/slp/slp_eraser.hpp"
#include "sfg/runtime/race/eraser_rules.hpp"
#include "slp_tree.hpp"

#include <algorithm>

namespace sfg {

namespace {

using Locks = std::vector<ObjId>; // sorted
using TL = std::uint64_t;         // thread << 32 | lock
constexpr TL tl(ThreadId t, ObjId l) {
    return (TL{t} << 32) | l;
}

struct Last {
    ThreadId thread = no_object;
    Op op = Op::read;
    std::uint64_t pos = 0; // in the chunk
};
struct VarSum {
    ObjId var = 0;
    bool writes = false;
    Last last, last_other; // last_other.thread == no_object: none
    // Per accessing thread: the locks held at each of its accesses, intersected (RealLocks).
    std::vector<std::pair<ThreadId, Locks>> ls;
};
struct Sum {
    std::vector<TL> open_acq, open_rel; // sorted
    std::vector<VarSum> vars;           // by variable
};

Locks intersect(const Locks& a, const Locks& b) {
    Locks out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
Locks unite(const Locks& a, const Locks& b) {
    Locks out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
std::vector<TL> minus(const std::vector<TL>& a, const std::vector<TL>& b) {
    std::vector<TL> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
std::vector<TL> unite(const std::vector<TL>& a, const std::vector<TL>& b) {
    std::vector<TL> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
// The locks l with (t, l) in a set.
Locks of_thread(const std::vector<TL>& s, ThreadId t) {
    Locks out;
    for (auto it = std::lower_bound(s.begin(), s.end(), tl(t, 0));
         it != s.end() && (*it >> 32) == t; ++it)
        out.push_back(static_cast<ObjId>(*it));
    return out;
}

Sum leaf(const SlpTerminal& e) {
    Sum s;
    if (e.op == Op::acquire)
        s.open_acq.push_back(tl(e.thread, e.target));
    else if (e.op == Op::release)
        s.open_rel.push_back(tl(e.thread, e.target));
    else if (is_memory(e.op)) {
        VarSum v;
        v.var = e.target;
        v.writes = writes(e.op);
        v.last = {e.thread, e.op, 0};
        v.last_other.thread = no_object;
        v.ls.emplace_back(e.thread, Locks{});
        s.vars.push_back(std::move(v));
    }
    return s;
}

Sum compose(const Sum& b, const Sum& c, std::uint64_t off) {
    Sum a;
    // Eq. 13, 14 (locks are not re-entrant: counts are 0 or 1).
    a.open_acq = unite(c.open_acq, minus(b.open_acq, c.open_rel));
    a.open_rel = unite(b.open_rel, minus(c.open_rel, b.open_acq));
    // Eq. 12 (fixed): a lock released in C that B did not acquire was held all through B; one
    // acquired in B and not released in C is held all through C.
    auto add_b = [&](ThreadId t) { return of_thread(minus(c.open_rel, b.open_acq), t); };
    auto add_c = [&](ThreadId t) { return of_thread(minus(b.open_acq, c.open_rel), t); };
    auto i = b.vars.begin(), j = c.vars.begin();
    while (i != b.vars.end() || j != c.vars.end()) {
        const bool in_b = j == c.vars.end() || (i != b.vars.end() && i->var <= j->var);
        const bool in_c = i == b.vars.end() || (j != c.vars.end() && j->var <= i->var);
        VarSum v;
        v.var = in_b ? i->var : j->var;
        v.writes = (in_b && i->writes) || (in_c && j->writes);
        if (in_c) {
            v.last = j->last;
            v.last.pos += off;
            if (j->last_other.thread != no_object) {
                v.last_other = j->last_other;
                v.last_other.pos += off;
            } else if (in_b) {
                v.last_other = i->last.thread != j->last.thread ? i->last : i->last_other;
            }
        } else {
            v.last = i->last;
            v.last_other = i->last_other;
        }
        static const std::vector<std::pair<ThreadId, Locks>> none;
        const auto& lb = in_b ? i->ls : none;
        const auto& lc = in_c ? j->ls : none;
        auto p = lb.begin(), q = lc.begin();
        while (p != lb.end() || q != lc.end()) {
            if (q == lc.end() || (p != lb.end() && p->first < q->first)) {
                v.ls.emplace_back(p->first, unite(p->second, add_b(p->first)));
                ++p;
            } else if (p == lb.end() || q->first < p->first) {
                v.ls.emplace_back(q->first, unite(q->second, add_c(q->first)));
                ++q;
            } else {
                v.ls.emplace_back(p->first, intersect(unite(p->second, add_b(p->first)),
                                                      unite(q->second, add_c(q->first))));
                ++p, ++q;
            }
        }
        a.vars.push_back(std::move(v));
        if (in_b)
            ++i;
        if (in_c)
            ++j;
    }
    return a;
}

// The tree's compose needs the length of B: summaries carry it.
struct Node {
    std::uint64_t len = 0;
    Sum sum;
};

SlpTree<Node> make_tree(const Slp& slp) {
    return SlpTree<Node>(
        slp,
        [](const SlpTerminal& t) {
            return Node{1, leaf(t)};
        },
        [](const Node& b, const Node& c) {
            return Node{b.len + c.len, compose(b.sum, c.sum, b.len)};
        },
        [] { return Node{}; });
}

// EraserDetector's state (analysis_eraser.cpp), walked over the grammar.
class Walk {
public:
    explicit Walk(const Slp& slp) : slp_(slp) {}

    std::vector<LocksetWarning> run(const SlpTree<Node>& tree) {
        std::vector<std::pair<std::uint32_t, std::uint64_t>> stack{{tree.root(), 0}};
        while (!stack.empty()) {
            auto [n, base] = stack.back();
            stack.pop_back();
            const auto& node = tree.nodes[n];
            if (node.len == 0)
                continue;
            if (tree.is_leaf(n)) {
                event(slp_.terminals[n], base);
            } else if (whole(node.sum.sum)) {
                apply(node.sum.sum, base);
            } else {
                stack.emplace_back(node.right, base + tree.nodes[node.left].len);
                stack.emplace_back(node.left, base);
            }
        }
        return std::move(warnings_);
    }

private:
    using State = EraserVar::State;
    struct Var : EraserVar {
        ThreadId last_thread = no_object, other_thread = no_object;
        Op last_op = Op::read, other_op = Op::read;
        std::uint64_t last_event = 0, other_event = 0;
    };

    Var& var(ObjId x) {
        if (vars_.size() <= x)
            vars_.resize(x + 1);
        return vars_[x];
    }
    Locks& held(ThreadId t) {
        if (held_.size() <= t)
            held_.resize(t + 1);
        return held_[t];
    }
    // The locks t holds all through a chunk that releases `rel` first: held now, not released.
    Locks kept(ThreadId t, const Sum& s) { return minus_locks(held(t), of_thread(s.open_rel, t)); }
    static Locks minus_locks(const Locks& a, const Locks& b) {
        Locks out;
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
        return out;
    }

    // Whether the chunk changes no variable's state and warns about none.
    bool whole(const Sum& s) {
        for (const VarSum& v : s.vars) {
            const Var& st = var(v.var);
            if (st.warned)
                continue;
            switch (st.state) {
            case State::virgin:
                if (v.ls.size() > 1)
                    return false;
                break;
            case State::exclusive:
                if (v.ls.size() > 1 || v.ls[0].first != st.owner)
                    return false;
                break;
            case State::shared:
            case State::shared_modified: {
                if (st.state == State::shared && !v.writes)
                    break; // Shared: no warning, whatever the candidates
                Locks c = st.candidates;
                for (const auto& [t, ls] : v.ls)
                    c = intersect(c, unite(ls, kept(t, s)));
                if (c.empty())
                    return false;
                break;
            }
            }
        }
        return true;
    }

    void apply(const Sum& s, std::uint64_t base) {
        for (const VarSum& v : s.vars) {
            Var& st = var(v.var);
            if (!st.warned) {
                if (st.state == State::virgin) {
                    st.state = State::exclusive;
                    st.owner = v.ls[0].first;
                } else if (st.state == State::shared || st.state == State::shared_modified) {
                    for (const auto& [t, ls] : v.ls)
                        st.candidates = intersect(st.candidates, unite(ls, kept(t, s)));
                    if (v.writes)
                        st.state = State::shared_modified;
                }
            }
            // Last accesses (EraserDetector's last and last_other).
            if (v.last_other.thread != no_object) {
                st.other_thread = v.last_other.thread;
                st.other_op = v.last_other.op;
                st.other_event = base + v.last_other.pos + 1;
            } else if (st.last_thread != v.last.thread) {
                st.other_thread = st.last_thread;
                st.other_op = st.last_op;
                st.other_event = st.last_event;
            }
            st.last_thread = v.last.thread;
            st.last_op = v.last.op;
            st.last_event = base + v.last.pos + 1;
        }
        // The lock state after the chunk.
        for (TL r : s.open_rel) {
            Locks& h = held(static_cast<ThreadId>(r >> 32));
            h.erase(std::remove(h.begin(), h.end(), static_cast<ObjId>(r)), h.end());
        }
        for (TL a : s.open_acq) {
            Locks& h = held(static_cast<ThreadId>(a >> 32));
            h.insert(std::lower_bound(h.begin(), h.end(), static_cast<ObjId>(a)),
                     static_cast<ObjId>(a));
        }
    }

    // One event, as EraserDetector::on_event.
    void event(const SlpTerminal& e, std::uint64_t pos) {
        const ThreadId t = e.thread;
        if (e.op == Op::acquire) {
            Locks& h = held(t);
            h.insert(std::lower_bound(h.begin(), h.end(), e.target), e.target);
            return;
        }
        if (e.op == Op::release) {
            Locks& h = held(t);
            h.erase(std::remove(h.begin(), h.end(), e.target), h.end());
            return;
        }
        if (!is_memory(e.op))
            return;
        const Locks h = held(t);
        Var& v = var(e.target);
        EraserVar::Step step = v.access(t, writes(e.op), h);
        const std::uint64_t number = pos + 1;
        if (step.warn) {
            LocksetWarning w;
            w.var = e.target;
            w.access = {number, t, e.op, 0, slp_.location_of(number)};
            const bool last_is_other = v.last_thread != t;
            const ThreadId ot = last_is_other ? v.last_thread : v.other_thread;
            if (ot != no_object) {
                const std::uint64_t oe = last_is_other ? v.last_event : v.other_event;
                w.with = AccessRef{oe, ot, last_is_other ? v.last_op : v.other_op, 0,
                                   slp_.location_of(oe)};
            }
            w.candidates = std::move(step.before);
            w.held = h;
            w.first_shared = step.first_shared;
            warnings_.push_back(std::move(w));
        }
        if (v.last_thread != t) {
            v.other_thread = v.last_thread;
            v.other_op = v.last_op;
            v.other_event = v.last_event;
        }
        v.last_thread = t;
        v.last_op = e.op;
        v.last_event = number;
    }

    const Slp& slp_;
    std::vector<Var> vars_;
    std::vector<Locks> held_; // by thread, sorted
    std::vector<LocksetWarning> warnings_;
};

} // namespace

std::vector<LocksetWarning> slp_eraser_warnings(const Slp& slp, const Symbols&) {
    const SlpTree<Node> tree = make_tree(slp);
    return Walk(slp).run(tree);
}

SlpLocksetDump slp_lockset_dump(const Slp& slp, const Symbols& syms, std::uint32_t rule) {
    const SlpTree<Node> tree = make_tree(slp);
    const Sum& s = tree.nodes[tree.rule_node[rule]].sum.sum;
    SlpLocksetDump d;
    auto name = [&](TL k) {
        return syms.threads.name(static_cast<ThreadId>(k >> 32)) + "," +
               syms.locks.name(static_cast<ObjId>(k));
    };
    for (TL k : s.open_acq)
        d.open_acq.push_back(name(k));
    for (TL k : s.open_rel)
        d.open_rel.push_back(name(k));
    for (const VarSum& v : s.vars)
        for (const auto& [t, ls] : v.ls) {
            std::vector<std::string> names;
            for (ObjId l : ls)
                names.push_back(syms.locks.name(l));
            d.locksets.emplace_back(syms.threads.name(t) + "," + syms.vars.name(v.var), names);
        }
    return d;
}

} // namespace sfg
