#include "sfg/runtime/transactional_hb_graph.hpp"

#include <algorithm>

namespace sfg {

namespace {

std::uint64_t var_key(Namespace space, ObjId obj) {
    return (static_cast<std::uint64_t>(space) << 32) | obj;
}

} // namespace

TransactionalHbGraph::NodeState* TransactionalHbGraph::find(Node n) {
    if (!n)
        return nullptr;
    auto it = nodes_.find(n);
    return it == nodes_.end() ? nullptr : &it->second;
}

TransactionalHbGraph::Ref& TransactionalHbGraph::last(ThreadId t) {
    if (last_.size() <= t)
        last_.resize(t + 1);
    return last_[t];
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

TransactionalHbGraph::Node TransactionalHbGraph::current(ThreadId t, Node block, const Event& e,
                                                         bool preds) {
    if (block) { // ℒ(t) is the block already (XS BEGIN, XS FORK IN)
        last(t).event = e.number;
        return block;
    }
    // XS OUTSIDE: a unary transaction, after t's previous one in program order. Without a live
    // predecessor it would be freed at once (no incoming edge): it is never made, and what
    // refers to it refers to nothing, as to a freed node.
    const Node n = e.number;
    if (!preds && !live(last(t))) {
        set(last(t), {n, e.number});
        return n;
    }
    nodes_[n];
    peak_ = std::max(peak_, nodes_.size());
    edge(last(t), n, e.number);
    set(last(t), {n, e.number});
    return n;
}

void TransactionalHbGraph::finish_event(Node unary) {
    if (NodeState* s = find(unary)) {
        s->open = false; // a unary transaction is its one event
        candidates_.push_back(unary);
    }
    collect();
}

void TransactionalHbGraph::edge(const Ref& from, Node to, std::uint64_t to_event) {
    // ℋ ⊎ {(from, to)}: no self-edges, no ⊥ (nor a freed node, which is on no future cycle).
    if (!from.node || from.node == to)
        return;
    if (!add_edge(from.node, to, {from.event, to_event, false}))
        return;
    const NodeState& a = nodes_.at(from.node);
    const NodeState& b = nodes_.at(to);
    if (!a.in.empty() && !b.out.empty()) // else the edge cannot close a cycle
        cycle_search(from.node, to, {from.event, to_event, false});
}

bool TransactionalHbGraph::add_edge(Node from, Node to, Cycle::Cause cause) {
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

void TransactionalHbGraph::cycle_search(Node from, Node to, Cycle::Cause closing) {
    // The nodes on a cycle through the new edge from -> to: those reachable from `to` that reach
    // `from`.
    parent_.clear();
    parent_[to] = 0;
    stack_.assign(1, to);
    while (!stack_.empty()) {
        const Node n = stack_.back();
        stack_.pop_back();
        for (const Edge& x : nodes_.at(n).out)
            if (parent_.try_emplace(x.to, n).second)
                stack_.push_back(x.to);
    }
    if (!parent_.count(from))
        return;
    back_.clear(); // node -> its successor on a path to `from`
    back_[from] = 0;
    stack_.assign(1, from);
    while (!stack_.empty()) {
        const Node n = stack_.back();
        stack_.pop_back();
        for (Node p : nodes_.at(n).in)
            if (parent_.count(p) && back_.try_emplace(p, n).second)
                stack_.push_back(p);
    }
    // One report per block (SingleTrack §5): only a block on no cycle before makes a finding.
    Node fresh = 0;
    for (const auto& [n, next] : back_) {
        NodeState& s = nodes_.at(n);
        if (s.block && !s.cycled) {
            s.cycled = true;
            if (!fresh || n < fresh)
                fresh = n;
        }
    }
    if (!fresh || cycle_)
        return;
    // The walk to -> ... -> fresh (search tree) -> ... -> from (successors toward `from`).
    Cycle c;
    std::vector<Node> head;
    for (Node n = fresh; n; n = parent_.at(n))
        head.push_back(n);
    std::reverse(head.begin(), head.end());
    c.nodes = head;
    for (Node n = back_.at(fresh); n; n = back_.at(n))
        c.nodes.push_back(n);
    for (std::size_t i = 0; i + 1 < c.nodes.size(); ++i)
        for (const Edge& x : nodes_.at(c.nodes[i]).out)
            if (x.to == c.nodes[i + 1]) {
                c.causes.push_back(x.cause);
                break;
            }
    c.causes.push_back(closing);
    cycle_ = std::move(c);
}

void TransactionalHbGraph::collect() {
    while (!candidates_.empty()) {
        const Node n = candidates_.back();
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

void TransactionalHbGraph::erase(Node n) {
    NodeState s = std::move(nodes_.at(n));
    nodes_.erase(n);
    for (const Edge& x : s.out)
        if (NodeState* b = find(x.to)) {
            b->in.erase(std::find(b->in.begin(), b->in.end(), n));
            candidates_.push_back(x.to);
        }
    for (Node p : s.in)
        if (NodeState* a = find(p)) {
            a->out.erase(std::find_if(a->out.begin(), a->out.end(),
                                      [n](const Edge& x) { return x.to == n; }));
            candidates_.push_back(p);
        }
}

void TransactionalHbGraph::bypass(Node n) {
    // Paths between the other nodes stay; n itself can gain no edge (closed, unreferenced).
    const NodeState& s = nodes_.at(n);
    std::vector<std::pair<Node, Cycle::Cause>> preds;
    for (Node p : s.in)
        for (const Edge& x : nodes_.at(p).out)
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
    nodes_[block].block = true;
    peak_ = std::max(peak_, nodes_.size());
    edge(last(t), block, e.number); // chained after t's previous transaction
    set(last(t), {block, e.number});
    collect();
}

void TransactionalHbGraph::close(Node b) {
    if (NodeState* s = find(b)) {
        s->open = false;
        candidates_.push_back(b);
    }
    collect();
}

void TransactionalHbGraph::access(ThreadId t, Node block, Namespace space, ObjId obj, Op op,
                                  const Event& e) {
    start_event();
    bool preds = false; // a live source of an edge into this event's node
    if (!block) {
        if (op == Op::acquire) {
            auto it = releases_.find(obj);
            preds = it != releases_.end() && live(it->second);
        } else if (op != Op::release) {
            auto it = vars_.find(var_key(space, obj));
            if (it != vars_.end()) {
                preds = live(it->second.write);
                if (op == Op::write || op == Op::vol_write)
                    for (const auto& r : it->second.by_thread)
                        preds = preds || live(r.second);
            }
        }
    }
    const Node cur = current(t, block, e, preds);
    const Ref me{cur, e.number};
    switch (op) {
    case Op::acquire:
        if (auto it = releases_.find(obj); it != releases_.end())
            edge(it->second, cur, e.number);
        break;
    case Op::release:
        set(releases_[obj], me);
        break;
    case Op::read:
    case Op::vol_read: {
        Reads& v = vars_[var_key(space, obj)];
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
    default: { // write, vol_write
        Reads& v = vars_[var_key(space, obj)];
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
    finish_event(block ? 0 : cur);
}

void TransactionalHbGraph::fork(ThreadId t, Node block, std::span<const ThreadId> children,
                                const Event& e) {
    start_event();
    // XS FORK IN: the block; XS FORK OUT: a fresh node
    const Node cur = current(t, block, e, false);
    for (ThreadId u : children)
        set(last(u), {cur, e.number});
    finish_event(block ? 0 : cur);
}

void TransactionalHbGraph::join(ThreadId t, Node block, std::span<const ThreadId> joined,
                                const Event& e) {
    start_event();
    bool preds = false;
    for (ThreadId u : joined)
        preds = preds || live(last(u));
    const Node cur = current(t, block, e, preds);
    for (ThreadId u : joined) {
        const Ref from = last(u);
        edge(from, cur, e.number);
    }
    finish_event(block ? 0 : cur);
}

void TransactionalHbGraph::barrier_enter(ThreadId t, Node block, std::uint64_t generation,
                                         const Event& e) {
    start_event();
    const Node cur = current(t, block, e, false);
    std::vector<Ref>& arrivals = arrivals_[generation];
    arrivals.emplace_back();
    set(arrivals.back(), {cur, e.number});
    finish_event(block ? 0 : cur);
}

void TransactionalHbGraph::barrier_exit(ThreadId t, Node block, std::uint64_t generation,
                                        bool last_of_generation, const Event& e) {
    start_event();
    bool preds = false;
    if (auto it = arrivals_.find(generation); it != arrivals_.end())
        for (const Ref& r : it->second)
            preds = preds || live(r);
    const Node cur = current(t, block, e, preds);
    // Every arrival of the generation before every departure (docs/determinism.md, barriers).
    if (auto it = arrivals_.find(generation); it != arrivals_.end()) {
        for (const Ref& r : it->second)
            edge(r, cur, e.number);
        if (last_of_generation) {
            for (Ref& r : it->second)
                drop(r);
            arrivals_.erase(it);
        }
    }
    finish_event(block ? 0 : cur);
}

} // namespace sfg
