// Barrier generations (docs/traces.md, "Happens-before"): a generation of barrier b is the
// benter(b) events from the previous generation's first bexit(b) (or the stream's start) up to
// its own first bexit(b); each bexit(b) belongs to the generation its thread entered. A
// generation's arrivals happen before its departures, and nothing else: a thread that arrives at
// the next round before another has left this one orders nothing for it, as on a real reusable
// barrier. Every analysis that lets a barrier order events (hb, fasttrack, goldilocks,
// singletrack, the grammar's hb) labels barrier events with this one tracker.
#pragma once

#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <vector>

namespace sfg {

class BarrierGenerations {
public:
    // Unique over the stream, from 1; 0 means none.
    using Generation = std::uint64_t;

    struct Entry {
        Generation generation = 0; // the open generation of the barrier, which t joins
        // A generation t had entered and not left (it arrived again instead), now closed with no
        // thread left inside: its state may be freed. 0 when there is none.
        Generation finished = 0;
    };
    struct Exit {
        Generation generation = 0; // the generation t entered; 0 if t is not inside this barrier
        bool closes = false;       // the generation's first departure
        bool finished = false;     // closed with no thread left inside: its state may be freed
    };

    Entry enter(ThreadId t, ObjId barrier);
    Exit exit(ThreadId t, ObjId barrier);

    // Generations whose departures may still come (for tests).
    std::size_t live() const { return live_count_; }

private:
    struct Inside {
        ObjId barrier = no_object;
        Generation generation = 0;
    };
    struct State {
        Generation generation = 0;
        std::uint32_t inside = 0; // threads that entered and have not left or arrived again
        bool closed = false;
    };
    // Leaves generation g of barrier b without a departure; true when g is then finished.
    bool leave(ObjId b, Generation g);

    std::vector<Generation> open_; // by barrier: its open generation, 0 before an arrival
    std::vector<Inside> threads_;  // by thread: the generation it waits in
    // By barrier: its generations that threads are inside, a few (the open one and those that
    // closed before every thread left: one a thread at most, usually one or two).
    std::vector<std::vector<State>> live_;
    std::size_t live_count_ = 0;
    Generation next_ = 0;
};

} // namespace sfg
