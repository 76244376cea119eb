// Well-formedness of the trace an SLP generates, on the grammar (docs/traces.md's rules, as
// WellFormedStream checks them): each chunk's summary keeps, per lock, its first and last
// acquire or release, and per thread whether it acts, is forked or is joined in the chunk and
// its first and last op; two chunks compose badly when the second's first use of a lock or
// thread contradicts the first's last one; per queue item (q, o), enq minus deq and its least
// prefix sum. A prefix is well-formed iff its summary is "closed": no lock is first released, no
// thread first exits a barrier and no item is taken out more often than put in before.
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace/ill_formed.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "slp_tree.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace sfg {

namespace {

struct LockEnds {
    ObjId lock = 0;
    bool first_acq = false, last_acq = false;
    ThreadId first_t = 0, last_t = 0;
};
struct ThreadInfo {
    ThreadId t = 0;
    bool acts = false, forked = false, joined = false;
    Op first_op = Op::begin, last_op = Op::begin;
    ObjId first_target = no_object, last_target = no_object;
};
// A queue item (q, o) in a chunk (thesis §5.1): enq minus deq over the chunk, and the least of
// that over the chunk's prefixes (0 or below): a deq without a pending enq is where a prefix of
// the trace goes below 0.
struct ItemCount {
    ObjId item = 0; // Symbols::queue_items id
    std::int64_t net = 0, low = 0;
};
struct Wf {
    bool bad = false;
    std::vector<LockEnds> locks;     // by lock
    std::vector<ThreadInfo> threads; // by thread
    std::vector<ItemCount> items;    // by queue item
};

ThreadInfo& thread_in(std::vector<ThreadInfo>& v, ThreadId t) {
    auto it = std::lower_bound(v.begin(), v.end(), t,
                               [](const ThreadInfo& i, ThreadId u) { return i.t < u; });
    if (it == v.end() || it->t != t)
        it = v.insert(it, ThreadInfo{t});
    return *it;
}

Wf leaf(const SlpTerminal& e, const Symbols& syms) {
    Wf w;
    ThreadInfo& me = thread_in(w.threads, e.thread);
    me.acts = true;
    me.first_op = me.last_op = e.op;
    me.first_target = me.last_target = e.target;
    if (e.op == Op::acquire || e.op == Op::release) {
        const bool acq = e.op == Op::acquire;
        w.locks.push_back({e.target, acq, acq, e.thread, e.thread});
    } else if (op_info(e.op).operand == Operand::queue_item) {
        const bool enq = op_info(e.op).role == Role::snd;
        w.items.push_back({e.target, enq ? 1 : -1, enq ? 0 : -1});
    } else if (e.op == Op::fork || e.op == Op::join) {
        for (ThreadId u : syms.thread_sets[e.target]) {
            if (u == e.thread)
                w.bad = true; // forks or joins itself
            ThreadInfo& c = thread_in(w.threads, u);
            (e.op == Op::fork ? c.forked : c.joined) = true;
        }
    }
    return w;
}

Wf compose(const Wf& b, const Wf& c) {
    Wf a;
    a.bad = b.bad || c.bad;
    // Locks: B's last use and C's first must alternate acquire / release by the holder.
    auto i = b.locks.begin(), j = c.locks.begin();
    while (i != b.locks.end() || j != c.locks.end()) {
        if (j == c.locks.end() || (i != b.locks.end() && i->lock < j->lock)) {
            a.locks.push_back(*i++);
        } else if (i == b.locks.end() || j->lock < i->lock) {
            a.locks.push_back(*j++);
        } else {
            if (i->last_acq ? (j->first_acq || j->first_t != i->last_t) : !j->first_acq)
                a.bad = true;
            a.locks.push_back({i->lock, i->first_acq, j->last_acq, i->first_t, j->last_t});
            ++i, ++j;
        }
    }
    auto k = b.items.begin(), l = c.items.begin();
    while (k != b.items.end() || l != c.items.end()) {
        if (l == c.items.end() || (k != b.items.end() && k->item < l->item)) {
            a.items.push_back(*k++);
        } else if (k == b.items.end() || l->item < k->item) {
            a.items.push_back(*l++);
        } else {
            a.items.push_back({k->item, k->net + l->net, std::min(k->low, k->net + l->low)});
            ++k, ++l;
        }
    }
    auto p = b.threads.begin(), q = c.threads.begin();
    while (p != b.threads.end() || q != c.threads.end()) {
        if (q == c.threads.end() || (p != b.threads.end() && p->t < q->t)) {
            a.threads.push_back(*p++);
        } else if (p == b.threads.end() || q->t < p->t) {
            a.threads.push_back(*q++);
        } else {
            // A fork of a thread seen before; an event of a thread joined before; a barrier
            // exit not right after entering that barrier.
            if (q->forked && (p->acts || p->forked || p->joined))
                a.bad = true;
            if (q->acts && p->joined)
                a.bad = true;
            if (q->acts && p->acts &&
                !exit_follows_enter(q->first_op, q->first_target, true, p->last_op, p->last_target))
                a.bad = true;
            ThreadInfo t = *p;
            t.forked = p->forked || q->forked;
            t.joined = p->joined || q->joined;
            if (q->acts) {
                if (!p->acts) {
                    t.first_op = q->first_op;
                    t.first_target = q->first_target;
                }
                t.acts = true;
                t.last_op = q->last_op;
                t.last_target = q->last_target;
            }
            a.threads.push_back(t);
            ++p, ++q;
        }
    }
    return a;
}

// The chunk is a well-formed trace by itself.
bool closed(const Wf& w) {
    if (w.bad)
        return false;
    for (const LockEnds& l : w.locks)
        if (!l.first_acq)
            return false;
    for (const ThreadInfo& t : w.threads)
        if (t.acts && !exit_follows_enter(t.first_op, t.first_target, false, Op::begin, no_object))
            return false;
    for (const ItemCount& i : w.items)
        if (i.low < 0)
            return false;
    return true;
}

// The message WellFormedStream gives for event e after a well-formed prefix whose summary is
// `ctx` (well_formed.cpp, in its order of checks; an SLP has no lines, so no "at line N").
std::string message(const Wf& ctx, const SlpTerminal& e, const Symbols& syms) {
    auto name = [&](ThreadId u) -> const std::string& { return syms.threads.name(u); };
    auto info = [&](ThreadId u) -> const ThreadInfo* {
        auto it = std::lower_bound(ctx.threads.begin(), ctx.threads.end(), u,
                                   [](const ThreadInfo& i, ThreadId v) { return i.t < v; });
        return it != ctx.threads.end() && it->t == u ? &*it : nullptr;
    };
    const ThreadId t = e.thread;
    if (const ThreadInfo* me = info(t); me && me->joined)
        return ill_formed::after_join(name(t), 0);
    auto holder = [&](ObjId l) -> ThreadId {
        auto it = std::lower_bound(ctx.locks.begin(), ctx.locks.end(), l,
                                   [](const LockEnds& i, ObjId v) { return i.lock < v; });
        return it != ctx.locks.end() && it->lock == l && it->last_acq ? it->last_t : no_object;
    };
    switch (e.op) {
    case Op::acquire: {
        const ThreadId h = holder(e.target);
        if (h == t)
            return ill_formed::acquire_own(name(t), syms.locks.name(e.target), 0);
        if (h != no_object)
            return ill_formed::acquire_held(name(t), syms.locks.name(e.target), name(h), 0);
        break;
    }
    case Op::release: {
        const ThreadId h = holder(e.target);
        if (h == no_object)
            return ill_formed::release_free(name(t), syms.locks.name(e.target));
        if (h != t)
            return ill_formed::release_held(name(t), syms.locks.name(e.target), name(h), 0);
        break;
    }
    case Op::barrier_exit:
        return ill_formed::exit_not_entered(name(t), syms.barriers.name(e.target));
    case Op::fork:
        for (ThreadId u : syms.thread_sets[e.target]) {
            if (u == t)
                return ill_formed::fork_self(name(t));
            const ThreadInfo* c = info(u);
            if (!c)
                continue;
            if (c->forked && !c->acts && !c->joined)
                return ill_formed::fork_forked(name(t), name(u), 0);
            if (c->acts)
                return ill_formed::fork_started(name(t), name(u), 0);
            if (c->joined)
                return ill_formed::fork_ended(name(t), name(u), 0);
        }
        break;
    case Op::join:
        for (ThreadId u : syms.thread_sets[e.target])
            if (u == t)
                return ill_formed::join_self(name(t));
        break;
    case Op::dequeue: // the prefix holds no such item: this deq is the one that goes below 0
        return ill_formed::dequeue_absent(name(t),
                                          syms.queues.name(syms.queue_items.queue(e.target)),
                                          syms.vars.name(syms.queue_items.var(e.target)));
    default:
        break;
    }
    return fmt::format("thread {}'s {} breaks the rules of docs/traces.md", name(t),
                       spelling(e.op)); // unreachable: the summaries found a violation here
}

} // namespace

std::optional<TraceError> check_slp_well_formed(const Slp& slp, std::string_view file_name,
                                                const Symbols& syms) {
    SlpTree<Wf> tree(
        slp, [&](const SlpTerminal& t) { return leaf(t, syms); }, compose, [] { return Wf{}; });
    if (closed(tree.nodes[tree.root()].sum))
        return std::nullopt;
    // The first ill-formed event: the leftmost leaf whose prefix is not closed.
    Wf ctx;
    std::uint32_t n = tree.root();
    std::uint64_t base = 0;
    while (!tree.is_leaf(n)) {
        Wf left = compose(ctx, tree.nodes[tree.nodes[n].left].sum);
        if (!closed(left)) {
            n = tree.nodes[n].left;
        } else {
            ctx = std::move(left);
            base += tree.nodes[tree.nodes[n].left].len;
            n = tree.nodes[n].right;
        }
    }
    return TraceError{std::string(file_name), 0, 0,
                      fmt::format("event {}: {}", base + 1, message(ctx, slp.terminals[n], syms))};
}

} // namespace sfg
