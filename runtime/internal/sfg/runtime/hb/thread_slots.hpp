// Thread slots (docs/traces.md, "Cost"): the component of a thread in every vector clock. A
// thread that was joined gives its slot back, and a thread forked later takes it over when its
// forker already knows everything the slot's last thread did (its final epoch); the new thread's
// epochs then start after that one's. So "knows epoch k of slot s" keeps one meaning across
// owners — knowing any epoch of the new owner implies knowing all of the old one's — and clocks
// are as wide as the threads alive at once, not as every thread that ever existed
// (ThreadSanitizer's older runtime reuses a joined thread's slot the same way).
#pragma once

#include "sfg/runtime/hb/vector_clock.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace sfg {

class ThreadSlots {
public:
    using Slot = std::uint32_t;
    static constexpr Slot none = ~Slot{0};

    // The slot of t, given on its first use (a root thread: a fresh slot) if it has none.
    Slot get(ThreadId t) {
        if (t < slot_.size() && slot_[t] != none)
            return slot_[t];
        return fresh(t);
    }
    // Whether t has a slot (it may have given it back at its join, but not yet to another thread).
    bool has(ThreadId t) const { return t < slot_.size() && slot_[t] != none; }

    struct Taken {
        Slot slot = none;
        ThreadId previous = no_object; // the slot's last thread, whose clock the caller retires
    };
    // The slot of `child`, forked by a thread whose clock is `forker`: the most recently freed
    // slot whose last thread's final epoch the forker knows, else a fresh one.
    Taken fork(ThreadId child, const VectorClock& forker);
    // t was joined: it does nothing more, so its slot may go to a later thread once its forker
    // knows `final_epoch` (t's last epoch). Joined again, t keeps its slot until then.
    void joined(ThreadId t, Clock final_epoch);

    // Slots ever used: the width of the clocks.
    std::size_t size() const { return owner_.size(); }

private:
    Slot fresh(ThreadId t);
    void assign(ThreadId t, Slot s);

    std::vector<Slot> slot_;      // by thread: its slot, or none (not seen yet, or retired)
    std::vector<ThreadId> owner_; // by slot: its thread
    struct Free {
        Slot slot;
        Clock last; // the final epoch of the slot's thread
    };
    std::vector<Free> free_;  // in the order freed
    std::vector<bool> freed_; // by slot: in free_
};

// The final clocks of threads whose slot went to another thread, kept for a second join of them:
// one flat arena of their components as LEB128 varints (docs/traces.md; mostly a byte or three a
// component), a 4-byte offset per thread, nothing allocated per thread.
class RetiredClocks {
public:
    void keep(ThreadId t, const VectorClock& c);
    // t's final clock, if t's slot went to another thread; valid until the next find.
    std::optional<std::span<const Clock>> find(ThreadId t) const;
    std::size_t size() const { return kept_; }

private:
    std::string arena_;                // per thread: its length, then its components
    std::vector<std::uint32_t> at_;    // by thread: 1 + its offset in arena_, 0: none
    mutable std::vector<Clock> found_; // the last clock found, decoded
    std::size_t kept_ = 0;
};

} // namespace sfg
