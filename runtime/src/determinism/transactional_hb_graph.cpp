#include "sfg/runtime/determinism/transactional_hb_graph.hpp"

#include <algorithm>

namespace sfg {

TransactionalHbGraph::Handle TransactionalHbGraph::make(Node label, bool block) {
    std::uint32_t slot;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<std::uint32_t>(slots_.size());
        slots_.emplace_back();
    }
    NodeState& s = slots_[slot];
    s.label = label;
    ++s.generation;
    s.block = block;
    s.open = true;
    s.cycled = false;
    s.refs = 0;
    peak_ = std::max(peak_, ++live_);
    return (static_cast<Handle>(s.generation) << 32) | (slot + 1);
}

TransactionalHbGraph::Reads& TransactionalHbGraph::reads(Namespace space, ObjId obj) {
    std::vector<Reads>& v = vars_[space == Namespace::volatile_ ? 1
                                  : space == Namespace::queue   ? 2
                                                                : 0];
    if (v.size() <= obj)
        v.resize(obj + 1);
    return v[obj];
}

void TransactionalHbGraph::retire(ThreadId t) {
    Ref* r = last_.find(t);
    if (!r)
        return;
    if (live(*r)) {
        ended_[t] = *r; // the reference moves with it
        if (ended_.size() >= sweep_at_) {
            std::erase_if(ended_, [this](const auto& kv) { return !live(kv.second); });
            sweep_at_ = std::max<std::size_t>(64, 2 * ended_.size());
        }
    }
    last_.retire(t); // a freed node needs no drop: its handle finds nothing
}

TransactionalHbGraph::Ref TransactionalHbGraph::ended_last(ThreadId t) {
    if (Ref* r = last_.find(t))
        return *r;
    auto it = ended_.find(t);
    return it == ended_.end() ? Ref{} : it->second;
}

void TransactionalHbGraph::set(Ref& slot, Ref r) {
    if (slot.node == r.node) {
        slot.event = r.event;
        return;
    }
    drop(slot);
    slot = r;
    if (NodeState* s = find(r.node))
        ++s->refs;
}

void TransactionalHbGraph::drop(Ref& slot) {
    if (NodeState* s = find(slot.node))
        if (--s->refs == 0)
            candidates_.push_back(slot.node);
    slot = {};
}

TransactionalHbGraph::Handle TransactionalHbGraph::current(ThreadId t, Node block, const Event& e,
                                                           bool preds) {
    if (block) { // ℒ(t) is the block already (XS BEGIN, XS FORK IN)
        last(t).event = e.number;
        return last(t).node;
    }
    // XS OUTSIDE: a unary transaction, after t's previous one in program order. Without a live
    // predecessor it would be freed at once (no incoming edge): it is never made, and what
    // refers to it refers to nothing, as to a freed node.
    if (!preds && !live(last(t))) {
        set(last(t), {0, e.number});
        return 0;
    }
    const Handle n = make(e.number, false);
    edge(last(t), n, e.number);
    set(last(t), {n, e.number});
    return n;
}

void TransactionalHbGraph::finish_event(Handle unary) {
    if (NodeState* s = find(unary)) {
        s->open = false; // a unary transaction is its one event
        candidates_.push_back(unary);
    }
    collect();
}

void TransactionalHbGraph::edge(const Ref& from, Handle to, std::uint64_t to_event) {
    // ℋ ⊎ {(from, to)}: no self-edges, no ⊥ (nor a freed node, which is on no future cycle).
    if (!from.node || from.node == to)
        return;
    if (!add_edge(from.node, to, {from.event, to_event, false}))
        return;
    const NodeState& a = at(from.node);
    const NodeState& b = at(to);
    if (!a.in.empty() && !b.out.empty()) // else the edge cannot close a cycle
        cycle_search(from.node, to, {from.event, to_event, false});
}

bool TransactionalHbGraph::add_edge(Handle from, Handle to, Cycle::Cause cause) {
    NodeState* a = find(from);
    NodeState* b = find(to);
    if (!a || !b)
        return false;
    for (const Edge& x : a->out)
        if (x.to == to)
            return false;
    a->out.push_back({to, cause});
    b->in.push_back(from);
    return true;
}

void TransactionalHbGraph::cycle_search(Handle from, Handle to, Cycle::Cause closing) {
    // The nodes on a cycle through the new edge from -> to: those reachable from `to` that reach
    // `from`.
    parent_.clear();
    parent_[to] = 0;
    stack_.assign(1, to);
    while (!stack_.empty()) {
        const Handle n = stack_.back();
        stack_.pop_back();
        for (const Edge& x : at(n).out)
            if (parent_.try_emplace(x.to, n).second)
                stack_.push_back(x.to);
    }
    if (!parent_.count(from))
        return;
    back_.clear(); // node -> its successor on a path to `from`
    back_[from] = 0;
    stack_.assign(1, from);
    while (!stack_.empty()) {
        const Handle n = stack_.back();
        stack_.pop_back();
        for (Handle p : at(n).in)
            if (parent_.count(p) && back_.try_emplace(p, n).second)
                stack_.push_back(p);
    }
    // One report per block (SingleTrack §5): each block on no cycle before gets one, with a walk
    // through it: to -> ... -> block (search tree) -> ... -> from (successors toward `from`).
    std::vector<Handle> fresh;
    for (const auto& [n, next] : back_) {
        NodeState& s = at(n);
        if (s.block && !s.cycled) {
            s.cycled = true;
            fresh.push_back(n);
        }
    }
    std::sort(fresh.begin(), fresh.end(),
              [this](Handle x, Handle y) { return at(x).label < at(y).label; });
    for (Handle f : fresh) {
        std::vector<Handle> walk;
        for (Handle n = f; n; n = parent_.at(n))
            walk.push_back(n);
        std::reverse(walk.begin(), walk.end());
        for (Handle n = back_.at(f); n; n = back_.at(n))
            walk.push_back(n);
        Cycle c;
        c.block = at(f).label;
        for (std::size_t i = 0; i < walk.size(); ++i) {
            c.nodes.push_back(at(walk[i]).label);
            if (i + 1 < walk.size())
                for (const Edge& x : at(walk[i]).out)
                    if (x.to == walk[i + 1]) {
                        c.causes.push_back(x.cause);
                        break;
                    }
        }
        c.causes.push_back(closing);
        cycles_.push_back(std::move(c));
    }
}

void TransactionalHbGraph::collect() {
    while (!candidates_.empty()) {
        const Handle n = candidates_.back();
        candidates_.pop_back();
        const NodeState* s = find(n);
        if (!s || s->open)
            continue;
        if (s->in.empty() || (s->out.empty() && s->refs == 0))
            erase(n); // on no future cycle
        else if (s->refs == 0 && (!s->block || s->cycled))
            bypass(n);
    }
}

void TransactionalHbGraph::erase(Handle n) {
    NodeState& slot = at(n);
    std::vector<Edge> out = std::move(slot.out);
    std::vector<Handle> in = std::move(slot.in);
    slot.out.clear();
    slot.in.clear();
    slot.label = 0;
    free_.push_back(static_cast<std::uint32_t>((n & 0xffffffffu) - 1));
    --live_;
    for (const Edge& x : out)
        if (NodeState* b = find(x.to)) {
            b->in.erase(std::find(b->in.begin(), b->in.end(), n));
            candidates_.push_back(x.to);
        }
    for (Handle p : in)
        if (NodeState* a = find(p)) {
            a->out.erase(std::find_if(a->out.begin(), a->out.end(),
                                      [n](const Edge& x) { return x.to == n; }));
            candidates_.push_back(p);
        }
}

void TransactionalHbGraph::bypass(Handle n) {
    // Paths between the other nodes stay; n itself can gain no edge (closed, unreferenced).
    const NodeState& s = at(n);
    std::vector<std::pair<Handle, Cycle::Cause>> preds;
    for (Handle p : s.in)
        for (const Edge& x : at(p).out)
            if (x.to == n)
                preds.emplace_back(p, x.cause);
    const std::vector<Edge> succs = s.out;
    for (const auto& [p, into] : preds)
        for (const Edge& x : succs)
            if (p != x.to)
                add_edge(p, x.to, {into.from_event, x.cause.to_event, true});
    erase(n);
}

void TransactionalHbGraph::begin(ThreadId t, Node block, const Event& e) {
    start_event();
    const Handle n = make(block, true);
    open_blocks_[block] = n;
    edge(last(t), n, e.number); // chained after t's previous transaction
    set(last(t), {n, e.number});
    collect();
}

void TransactionalHbGraph::close(Node b) {
    auto it = open_blocks_.find(b);
    if (it == open_blocks_.end())
        return;
    const Handle n = it->second;
    open_blocks_.erase(it);
    if (NodeState* s = find(n)) {
        s->open = false;
        candidates_.push_back(n);
    }
    collect();
}

void TransactionalHbGraph::access(ThreadId t, Node block, Namespace space, ObjId obj, Op op,
                                  const Event& e) {
    start_event();
    bool preds = false; // a live source of an edge into this event's node
    if (!block) {
        if (op == Op::acquire) {
            preds = obj < releases_.size() && live(releases_[obj]);
        } else if (op != Op::release) {
            Reads& v = reads(space, obj);
            preds = live(v.write);
            if (op_info(op).access == Access::exclusive) // w, vw, enq, deq: after every read
                for (const auto& r : v.by_thread)
                    preds = preds || live(r.second);
        }
    }
    const Handle cur = current(t, block, e, preds);
    const Ref me{cur, e.number};
    switch (op) {
    case Op::acquire:
        if (obj < releases_.size())
            edge(releases_[obj], cur, e.number);
        break;
    case Op::release:
        if (releases_.size() <= obj)
            releases_.resize(obj + 1);
        set(releases_[obj], me);
        break;
    case Op::read:
    case Op::vol_read: {
        Reads& v = reads(space, obj);
        edge(v.write, cur, e.number);
        auto it = std::find_if(v.by_thread.begin(), v.by_thread.end(),
                               [t](const auto& r) { return r.first == t; });
        if (it == v.by_thread.end()) {
            v.by_thread.emplace_back(t, Ref{});
            it = std::prev(v.by_thread.end());
        }
        set(it->second, me);
        break;
    }
    default: { // write, vol_write; enq, deq: a write of their queue
        Reads& v = reads(space, obj);
        edge(v.write, cur, e.number);
        // The reads since the last write; earlier ones reach this one through that write.
        for (auto& r : v.by_thread) {
            edge(r.second, cur, e.number);
            drop(r.second);
        }
        v.by_thread.clear();
        set(v.write, me);
        break;
    }
    }
    finish_event(block ? Handle{0} : cur);
}

void TransactionalHbGraph::fork(ThreadId t, Node block, std::span<const ThreadId> children,
                                const Event& e) {
    start_event();
    // XS FORK IN: the block; XS FORK OUT: a fresh node
    const Handle cur = current(t, block, e, false);
    for (ThreadId u : children)
        set(last(u), {cur, e.number});
    finish_event(block ? Handle{0} : cur);
}

void TransactionalHbGraph::join(ThreadId t, Node block, std::span<const ThreadId> joined,
                                const Event& e) {
    start_event();
    bool preds = false;
    for (ThreadId u : joined)
        preds = preds || live(ended_last(u));
    const Handle cur = current(t, block, e, preds);
    for (ThreadId u : joined)
        edge(ended_last(u), cur, e.number);
    finish_event(block ? Handle{0} : cur);
}

void TransactionalHbGraph::barrier_enter(ThreadId t, Node block, std::uint64_t generation,
                                         const Event& e) {
    start_event();
    const Handle cur = current(t, block, e, false);
    std::vector<Ref>& arrivals = arrivals_[generation];
    arrivals.emplace_back();
    set(arrivals.back(), {cur, e.number});
    finish_event(block ? Handle{0} : cur);
}

void TransactionalHbGraph::barrier_exit(ThreadId t, Node block, std::uint64_t generation,
                                        bool last_of_generation, const Event& e) {
    start_event();
    bool preds = false;
    if (auto it = arrivals_.find(generation); it != arrivals_.end())
        for (const Ref& r : it->second)
            preds = preds || live(r);
    const Handle cur = current(t, block, e, preds);
    // Every arrival of the generation before every departure (docs/determinism.md, barriers).
    if (auto it = arrivals_.find(generation); it != arrivals_.end()) {
        for (const Ref& r : it->second)
            edge(r, cur, e.number);
    }
    if (last_of_generation)
        barrier_forget(generation);
    finish_event(block ? Handle{0} : cur);
}

void TransactionalHbGraph::barrier_forget(std::uint64_t generation) {
    if (auto it = arrivals_.find(generation); it != arrivals_.end()) {
        for (Ref& r : it->second)
            drop(r);
        arrivals_.erase(it);
    }
}

} // namespace sfg
