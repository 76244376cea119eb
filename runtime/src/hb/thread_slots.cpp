#include "sfg/runtime/hb/thread_slots.hpp"
#include "sfg/runtime/core/varint.hpp"

#include <limits>
#include <stdexcept>

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
        at_.resize(t + 1, 0);
    // An offset past 4 GiB would take some 10^9 retired threads: the memory limit comes first.
    if (arena_.size() >= std::numeric_limits<std::uint32_t>::max())
        throw std::length_error("retired thread clocks exceed 4 GiB");
    at_[t] = static_cast<std::uint32_t>(arena_.size()) + 1;
    put_varint(arena_, v.size());
    for (Clock x : v)
        put_varint(arena_, x);
    ++kept_;
}

std::optional<std::span<const Clock>> RetiredClocks::find(ThreadId t) const {
    if (t >= at_.size() || !at_[t])
        return std::nullopt;
    std::size_t i = at_[t] - 1;
    auto next = [&] {
        std::uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            const auto b = static_cast<unsigned char>(arena_[i++]);
            v |= std::uint64_t{b & 0x7fu} << shift;
            if (!(b & 0x80))
                return v;
        }
    };
    found_.resize(next());
    for (Clock& x : found_)
        x = next();
    return std::span<const Clock>(found_);
}

} // namespace sfg
