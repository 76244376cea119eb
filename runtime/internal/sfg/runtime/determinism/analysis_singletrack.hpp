// `singletrack`: determinism checking (Sadowski, Freund & Flanagan, SingleTrack;
// docs/determinism.md). A transaction is a deterministic block (`begin` ... `end` of a thread)
// together with every event of the threads forked inside it, recursively, also after the block's
// `end`; any other event is a unary transaction of its own. Two analyses share one pass:
// conflict freedom inside each block (conflict_freedom.hpp) and external serializability of the
// transactions (transactional_hb_graph.hpp).
//
// Nesting: a thread that is in a block through its forker may still `begin`/`end` a block of its
// own; that block is flattened into the enclosing one (docs/determinism.md). A `begin` while the
// thread's own block is open, or an `end` with none open, is an ill-formed stream: error() says
// where, and the analysis stops.
#pragma once

#include "sfg/runtime/determinism/conflict_freedom.hpp"
#include "sfg/runtime/determinism/thread_records.hpp"
#include "sfg/runtime/determinism/transactional_hb_graph.hpp"
#include "sfg/runtime/hb/barrier_generations.hpp"
#include "sfg/runtime/report.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sfg {

class SingleTrackDetector : public Analysis {
public:
    void on_event(const Event& e, const Symbols& syms) override;

    // Conflicts (one per block, at its first conflicting event) and cycles (one per block, at
    // the event that first puts it on a cycle), in event order.
    const std::vector<Finding>& findings() const { return findings_; }
    const std::optional<StreamError>& error() const { return error_; }

    // Memory (for tests and benchmarks): blocks with CF state, nodes of the graph.
    std::size_t live_blocks() const { return cf_.live_blocks(); }
    std::size_t live_nodes() const { return xs_.live_nodes(); }
    std::size_t peak_nodes() const { return xs_.peak_nodes(); }
    // Per-thread records held (of this detector and of the graph): the threads alive at once.
    std::size_t thread_records() const {
        return std::max(threads_.capacity(), xs_.thread_records());
    }

private:
    struct ThreadState {                  // 16 bytes: one per thread alive
        std::uint64_t block = 0;          // the transaction it is in: its block's `begin` (0: none)
        std::uint64_t own_begin : 62 = 0; // its own open `begin` is at this event
        std::uint64_t own_open : 1 = 0;   // its own `begin` is open
        std::uint64_t flattened : 1 = 0;  // ... inside a block it was forked in
    };
    // on_event's steps by op (the rest: check).
    void on_thread_end(ThreadId t);
    void on_begin(const Event& e, const Symbols& syms);
    void on_end(const Event& e, const Symbols& syms);
    void on_fork(const Event& e, const Symbols& syms);
    void on_barrier_enter(const Event& e, const Symbols& syms);
    void leave(std::uint64_t block);
    void fail(const Event& e, std::string message);
    void check(const Event& e, const Symbols& syms);
    // `obj`: the object of e in `space` (a queue item's queue).
    void conflict(const Event& e, const Symbols& syms, Namespace space, ObjId obj,
                  const AccessRef& with);
    void cycle(const Event& e, const Symbols& syms);

    ConflictFreedom cf_;
    TransactionalHbGraph xs_;
    ThreadRecords<ThreadState> threads_;                       // retired at the thread's end
    std::unordered_map<std::uint64_t, std::uint32_t> members_; // threads in each open block
    BarrierGenerations generations_;
    std::vector<Finding> findings_;
    std::optional<StreamError> error_;
};

} // namespace sfg
