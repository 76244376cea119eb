// SingleTrack's conflict-freedom (CF) analysis (Sadowski, Freund & Flanagan, SingleTrack,
// Figure 4; docs/determinism.md): inside one deterministic block, two accesses to a variable (one
// a write) or two operations on a lock must be ordered by program order, fork, join and barriers
// alone. Locks and volatiles order nothing here: a conflict they would resolve is a conflict.
//
// Differences from Figure 4, all documented in docs/determinism.md:
// - `begin` ticks the thread's clock instead of resetting it (the reset misses a conflict when a
//   thread forked in an earlier block is joined by a thread of the current one), so clocks only
//   grow and the last write, the reads since and the last lock operation of a block are kept as
//   epochs, as in FastTrack, each with the event it stands for;
// - every lock operation is checked against the block's last one on that lock (Figure 4 checks
//   an acquire against the last release only, which misses nothing when the locks taken in a block
//   are released in it, as the paper assumes);
// - barriers order a generation's arrivals before its departures;
// - a block's state is freed when no thread is in it any more, or at its first conflict;
// - clocks are indexed by thread slots (thread_slots.hpp), which joined threads give back.
#pragma once

#include "sfg/runtime/hb/thread_slots.hpp"
#include "sfg/runtime/hb/vector_clock.hpp"
#include "sfg/runtime/report.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace sfg {

class ConflictFreedom {
public:
    using Block = std::uint64_t; // the event number of the block's `begin`
    // What an access is to the block's state of its object: locks behave like writes.
    enum class Access : std::uint8_t { read, write };

    // CF BEGIN (with the tick instead of the reset).
    void begin(ThreadId t, Block b);
    // CF FORK, CF JOIN.
    void fork(ThreadId t, std::span<const ThreadId> children);
    void join(ThreadId t, std::span<const ThreadId> joined);
    // Arrival at and departure from one generation of a barrier (ids from the caller).
    void barrier_enter(ThreadId t, std::uint64_t generation);
    void barrier_exit(ThreadId t, std::uint64_t generation, bool last_of_generation);
    // A generation no departure can come from any more.
    void barrier_forget(std::uint64_t generation) { barriers_.erase(generation); }

    // CF READ / WRITE / ACQUIRE / RELEASE of object `key` (unique across namespaces) inside block
    // b: the earlier event of b that conflicts with `e` and is not ordered before it, if any. The
    // block's first conflict ends its checking (one report per block, docs/determinism.md).
    std::optional<AccessRef> access(Block b, Access a, std::uint64_t key, const Event& e);

    // No thread is in b any more: its state is no longer needed.
    void close(Block b) { blocks_.erase(b); }

    std::size_t live_blocks() const { return blocks_.size(); }
    std::size_t slots() const { return slots_.size(); }

private:
    struct Epoch {
        Clock clock = 0; // 0: none
        std::uint32_t slot = 0;
        AccessRef event;
    };
    struct Object {
        Epoch write;              // the last write (or lock operation) of the block
        std::vector<Epoch> reads; // the last read of each thread since that write
    };
    struct BlockState {
        bool failed = false;
        std::unordered_map<std::uint64_t, Object> objects;
    };

    VectorClock& clock(ThreadId t);
    bool ordered(const Epoch& p, const VectorClock& now) const {
        return p.clock <= now.get(p.slot);
    }

    ThreadSlots slots_;
    std::vector<VectorClock> clocks_; // C, by slot
    // The final clock of a joined thread whose slot went to another thread, for a second join.
    RetiredClocks retired_;
    std::unordered_map<Block, BlockState> blocks_;            // R, W, U by block
    std::unordered_map<std::uint64_t, VectorClock> barriers_; // arrivals of open generations
};

} // namespace sfg
