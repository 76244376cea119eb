// A vector clock (DJIT+, FastTrack) whose operations are named after the synchronization they
// model, after ThreadSanitizer's tsan_vector_clock.h. Components only grow.
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg {

using Clock = std::uint32_t;

class VectorClock {
public:
    // A clock's size is a multiple of this (padded with 0), so that acquire merges whole vectors.
    static constexpr std::size_t lanes = 8;

    Clock get(ThreadId t) const { return t < c_.size() ? c_[t] : 0; }
    std::size_t size() const { return c_.size(); }

    void set(ThreadId t, Clock v) {
        grow(t + 1);
        assert(v >= c_[t] && "vector clocks only grow");
        c_[t] = v;
    }
    // A new epoch of thread t, after it sent a message (rel, vw, benter, fork).
    void tick(ThreadId t) {
        grow(t + 1);
        ++c_[t];
    }
    // rcv (acq, vr, bexit, join, a child's start): learn everything `sync` has seen.
    void acquire(const VectorClock& sync);
    void acquire(std::span<const Clock> sync); // a clock kept as its components
    // snd (rel, vw, benter, fork): `sync` learns everything this clock has seen. Joining, not
    // storing: every earlier snd is ordered before every later rcv (docs/traces.md).
    void release(VectorClock& sync) const { sync.acquire(*this); }

    std::span<const Clock> components() const { return c_; }

    // this ⊑ other
    bool happens_before(const VectorClock& other) const {
        for (std::size_t i = 0; i < c_.size(); ++i)
            if (c_[i] > other.get(static_cast<ThreadId>(i)))
                return false;
        return true;
    }

private:
    void grow(std::size_t n) {
        if (c_.size() < n)
            c_.resize((n + lanes - 1) / lanes * lanes, 0);
    }
    std::vector<Clock> c_;
};

} // namespace sfg
