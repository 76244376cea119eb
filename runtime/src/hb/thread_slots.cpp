#include "sfg/runtime/thread_slots.hpp"

namespace sfg {

void ThreadSlots::assign(ThreadId t, Slot s) {
    if (slot_.size() <= t)
        slot_.resize(t + 1, none);
    slot_[t] = s;
    owner_[s] = t;
}

ThreadSlots::Slot ThreadSlots::fresh(ThreadId t) {
    const auto s = static_cast<Slot>(owner_.size());
    owner_.push_back(t);
    freed_.push_back(false);
    assign(t, s);
    return s;
}

ThreadSlots::Taken ThreadSlots::fork(ThreadId child, const VectorClock& forker) {
    // The most recent first: a pool's forker has just joined the last worker. A few candidates
    // only, so that a fork costs O(1) whatever the number of free slots.
    constexpr std::size_t tries = 8;
    for (std::size_t i = free_.size(), k = 0; i-- > 0 && k < tries; ++k) {
        const Free f = free_[i];
        if (forker.get(f.slot) < f.last)
            continue;
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        freed_[f.slot] = false;
        Taken out{f.slot, owner_[f.slot]};
        slot_[out.previous] = none; // retired: its clock is the caller's to keep
        assign(child, f.slot);
        return out;
    }
    return {fresh(child), no_object};
}

void ThreadSlots::joined(ThreadId t, Clock final_epoch) {
    const Slot s = get(t);
    if (freed_[s])
        return; // joined before
    freed_[s] = true;
    free_.push_back({s, final_epoch});
}

void RetiredClocks::keep(ThreadId t, const VectorClock& c) {
    std::span<const Clock> v = c.components();
    while (!v.empty() && v.back() == 0) // the padding and the slots it never learned of
        v = v.first(v.size() - 1);
    if (at_.size() <= t)
        at_.resize(t + 1);
    at_[t] = {static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(v.size())};
    arena_.insert(arena_.end(), v.begin(), v.end());
    ++kept_;
}

} // namespace sfg
