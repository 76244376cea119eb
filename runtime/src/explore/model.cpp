// The explorer's model of the sfg objects (model.hpp), with the step semantics of programs
// (docs/programs.md, "Step semantics" and "Condition variables").
#include "explore/model.hpp"

#include <algorithm>
#include <limits>

namespace sfg::explore_detail {

std::optional<std::uint32_t> Model::holder(std::uint32_t lock) const {
    const auto it = holder_.find(lock);
    if (it == holder_.end())
        return std::nullopt;
    return it->second;
}

// The earliest notification made after t began waiting (the sets of waiters a notification may
// wake are nested, so taking the earliest never strands one).
int Model::token_for(std::uint32_t t, std::uint32_t c) const {
    const auto it = conds_.find(c);
    const auto s = since_.find(t);
    if (it == conds_.end() || s == since_.end())
        return -1;
    const std::vector<std::uint32_t>& tokens = it->second.tokens;
    const auto k = std::upper_bound(tokens.begin(), tokens.end(), s->second);
    return k == tokens.end() ? -1 : static_cast<int>(k - tokens.begin());
}

std::uint32_t Model::generation(const Event& e) const {
    if ((e.op != Op::barrier_enter && e.op != Op::barrier_exit) || e.yield || e.actions.empty())
        return 0;
    const std::uint32_t o = e.actions.front().object;
    if (e.op == Op::barrier_enter) {
        const auto b = barriers_.find(o);
        return static_cast<std::uint32_t>(b == barriers_.end() ? 0 : b->second.generation) + 1;
    }
    const auto g = arrived_in_.find({e.thread, o});
    return g == arrived_in_.end() ? 0 : static_cast<std::uint32_t>(g->second) + 1;
}

bool Model::enabled(const Event& e) const {
    if (e.yield || e.attempt || e.actions.empty())
        return true;
    const std::uint32_t o = e.actions.front().object;
    switch (e.op) {
    case Op::acquire:
        return !holder_.contains(o);
    case Op::barrier_exit: {
        const auto b = barriers_.find(o);
        const auto g = arrived_in_.find({e.thread, o});
        return b != barriers_.end() && g != arrived_in_.end() && b->second.generation > g->second;
    }
    case Op::dequeue: {
        const auto q = queue_length_.find(o);
        return q != queue_length_.end() && q->second > 0;
    }
    case Op::cond_wake:
        return token_for(e.thread, o) >= 0 && !holder_.contains(e.lock);
    default:
        return true;
    }
}

bool Model::apply(const Event& e) {
    if (e.yield || e.actions.empty())
        return true;
    const std::uint32_t o = e.op == Op::cond_wait ? e.actions[1].object : e.actions.front().object;
    switch (e.op) {
    case Op::acquire: {
        const bool free = !holder_.contains(o);
        if (free)
            holder_[o] = e.thread;
        return free;
    }
    case Op::release:
        if (auto it = holder_.find(o); it != holder_.end() && it->second == e.thread)
            holder_.erase(it);
        return true;
    case Op::cond_wait: {
        if (auto it = holder_.find(e.lock); it != holder_.end() && it->second == e.thread)
            holder_.erase(it);
        Cond& c = conds_[o];
        since_[e.thread] = c.seq;
        ++c.waiting;
        return true;
    }
    case Op::cond_wake: {
        Cond& c = conds_[o];
        c.tokens.erase(c.tokens.begin() + token_for(e.thread, o));
        --c.waiting;
        since_.erase(e.thread);
        holder_[e.lock] = e.thread;
        return true;
    }
    case Op::cond_notify:
    case Op::cond_notifyall: { // one token (all: one a waiter), none beyond the waiters
        Cond& c = conds_[o];
        const std::size_t want =
            e.op == Op::cond_notify ? c.tokens.size() + 1 : std::numeric_limits<std::size_t>::max();
        const std::size_t most = std::min<std::size_t>(want, c.waiting);
        if (c.tokens.size() < most)
            ++c.seq;
        while (c.tokens.size() < most)
            c.tokens.push_back(c.seq);
        return true;
    }
    case Op::barrier_enter: {
        Barrier& b = barriers_[o];
        if (b.count == 0)
            b.count = std::max<std::uint32_t>(e.count, 1);
        arrived_in_[{e.thread, o}] = b.generation;
        if (++b.arrived >= b.count) {
            ++b.generation;
            b.arrived = 0;
        }
        return true;
    }
    case Op::enqueue:
        ++queue_length_[o];
        return true;
    case Op::dequeue: {
        std::uint64_t& n = queue_length_[o];
        if (n == 0)
            return false;
        --n;
        return true;
    }
    default:
        return true;
    }
}

} // namespace sfg::explore_detail
