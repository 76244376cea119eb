#include "sfg/runtime/conflict_freedom.hpp"

namespace sfg {

VectorClock& ConflictFreedom::clock(ThreadId t) {
    while (clocks_.size() <= t) {
        clocks_.emplace_back();
        clocks_.back().set(static_cast<ThreadId>(clocks_.size() - 1), 1); // inc_t(c0)
    }
    return clocks_[t];
}

void ConflictFreedom::begin(ThreadId t, Block b) {
    // Ticking keeps clocks monotone; resetting to inc_t(c0) as printed in Figure 4 forgets that
    // t's earlier components were already passed to threads of earlier blocks.
    clock(t).tick(t);
    blocks_.try_emplace(b);
}

void ConflictFreedom::fork(ThreadId t, std::span<const ThreadId> children) {
    for (ThreadId u : children) {
        clock(u), clock(t); // both exist before references are taken
        clocks_[u] = clocks_[t];
        clocks_[u].tick(u); // C(u) := inc_u(C(t))
    }
    clock(t).tick(t); // C(t) := inc_t(C(t))
}

void ConflictFreedom::join(ThreadId t, std::span<const ThreadId> joined) {
    for (ThreadId u : joined) {
        clock(u), clock(t);
        clocks_[t].acquire(clocks_[u]);
    }
}

void ConflictFreedom::barrier_enter(ThreadId t, std::uint64_t generation) {
    clock(t).release(barriers_[generation]);
    clock(t).tick(t); // what t does next is not before the other departures
}

void ConflictFreedom::barrier_exit(ThreadId t, std::uint64_t generation, bool last_of_generation) {
    auto it = barriers_.find(generation);
    if (it == barriers_.end())
        return;
    clock(t).acquire(it->second);
    if (last_of_generation)
        barriers_.erase(it);
}

std::optional<AccessRef> ConflictFreedom::access(Block b, Access a, std::uint64_t key,
                                                 const Event& e) {
    auto bit = blocks_.find(b);
    if (bit == blocks_.end() || bit->second.failed)
        return std::nullopt;
    BlockState& block = bit->second;
    const ThreadId t = e.thread;
    const VectorClock& now = clock(t);
    Object& o = block.objects[key];
    auto fail = [&](AccessRef with) { // a copy: clearing the block frees the original
        block.failed = true;          // one report per block: its state is no longer needed
        block.objects.clear();
        return std::optional<AccessRef>(with);
    };
    // Writes (and lock operations) of a block that passed are totally ordered, so the last one
    // stands for all (CF READ, CF WRITE, CF ACQUIRE).
    if (o.write.clock && !ordered(o.write, now))
        return fail(o.write.event);
    const Epoch mine{now.get(t), AccessRef::of(e)};
    if (a == Access::read) {
        for (Epoch& r : o.reads)
            if (r.event.thread == t) {
                r = mine; // program order: t's later read stands for its earlier ones
                return std::nullopt;
            }
        o.reads.push_back(mine);
        return std::nullopt;
    }
    // CF WRITE: every read since the last write; those before it are ordered before it.
    for (const Epoch& r : o.reads)
        if (!ordered(r, now))
            return fail(r.event);
    o.reads.clear();
    o.write = mine;
    return std::nullopt;
}

} // namespace sfg
