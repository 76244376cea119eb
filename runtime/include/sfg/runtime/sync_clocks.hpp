// Vector clocks of threads and synchronization objects under the happens-before of docs/traces.md:
// program order; rel(m) before later acq(m); vw(v) before later vr(v); a barrier generation's
// benter(b) before its bexit(b) (barrier_generations.hpp); fork of u before u's events; u's events
// before a join of u. Shared by the vector-clock detectors (hb, fasttrack), which differ only in
// what they keep per variable.
#pragma once

#include "sfg/runtime/barrier_generations.hpp"
#include "sfg/runtime/vector_clock.hpp"

#include <unordered_map>

#include <vector>

namespace sfg {

class SyncClocks {
public:
    // Applies one explicit sync event; memory, begin/end and implicit events change nothing.
    void on_sync(const Event& e, const Symbols& syms);

    // C_t; a thread's own component starts at 1, so epoch 0 means "no access".
    const VectorClock& clock(ThreadId t) { return thread(t); }
    Clock epoch(ThreadId t) { return thread(t).get(t); }

    std::size_t threads() const { return threads_.size(); }

private:
    VectorClock& thread(ThreadId t) {
        while (threads_.size() <= t) {
            threads_.emplace_back();
            threads_.back().set(static_cast<ThreadId>(threads_.size() - 1), 1);
        }
        return threads_[t];
    }
    static VectorClock& object(std::vector<VectorClock>& v, ObjId id) {
        if (v.size() <= id)
            v.resize(id + 1);
        return v[id];
    }

    std::vector<VectorClock> threads_;
    // L_o of each lock and volatile o, by its op's Namespace.
    std::vector<VectorClock> objects_[namespace_count];
    // A barrier's clock is per generation, kept while departures from it may come.
    BarrierGenerations generations_;
    std::unordered_map<BarrierGenerations::Generation, VectorClock> generation_clocks_;
};

} // namespace sfg
