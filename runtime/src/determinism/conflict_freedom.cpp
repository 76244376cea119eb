#include "sfg/runtime/determinism/conflict_freedom.hpp"

namespace sfg {

VectorClock& ConflictFreedom::clock(ThreadId t) {
    const ThreadSlots::Slot s = slots_.get(t);
    if (clocks_.size() <= s) {
        clocks_.resize(s + 1);
        clocks_[s].set(s, 1); // inc_t(c0)
    }
    return clocks_[s];
}

void ConflictFreedom::begin(ThreadId t, Block b) {
    // Ticking keeps clocks monotone; resetting to inc_t(c0) as printed in Figure 4 forgets that
    // t's earlier components were already passed to threads of earlier blocks.
    clock(t).tick(slots_.get(t));
    blocks_.try_emplace(b);
}

void ConflictFreedom::fork(ThreadId t, std::span<const ThreadId> children) {
    clock(t);
    const ThreadSlots::Slot p = slots_.get(t);
    for (ThreadId u : children) {
        const ThreadSlots::Taken k = slots_.fork(u, clocks_[p]);
        if (clocks_.size() <= k.slot)
            clocks_.resize(k.slot + 1);
        if (k.previous != no_object)
            retired_.keep(k.previous, clocks_[k.slot]);
        clocks_[k.slot] = clocks_[p];
        clocks_[k.slot].tick(k.slot); // C(u) := inc_u(C(t))
    }
    clocks_[p].tick(p); // C(t) := inc_t(C(t))
}

void ConflictFreedom::join(ThreadId t, std::span<const ThreadId> joined) {
    for (ThreadId u : joined) {
        if (!slots_.has(u))
            if (auto final_clock = retired_.find(u)) {
                clock(t).acquire(*final_clock); // a second join
                continue;
            }
        clock(u), clock(t); // both exist before references are taken
        const ThreadSlots::Slot s = slots_.get(u);
        clocks_[slots_.get(t)].acquire(clocks_[s]);
        slots_.joined(u, clocks_[s].get(s));
    }
}

void ConflictFreedom::barrier_enter(ThreadId t, std::uint64_t generation) {
    clock(t).release(barriers_[generation]);
    clock(t).tick(slots_.get(t)); // what t does next is not before the other departures
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
    const ThreadSlots::Slot me = slots_.get(t);
    const Epoch mine{now.get(me), me, AccessRef::of(e)};
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
