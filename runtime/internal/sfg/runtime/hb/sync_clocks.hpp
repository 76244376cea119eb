// Vector clocks of threads and synchronization objects under the happens-before of docs/traces.md:
// program order; rel(m) before later acq(m); vw(v) before later vr(v); enq(q,o) before later
// deq(q,o); a barrier generation's
// benter(b) before its bexit(b) (barrier_generations.hpp); fork of u before u's events; u's events
// before a join of u. Shared by the vector-clock detectors (hb, fasttrack), which differ only in
// what they keep per variable. Clocks are indexed by thread *slots* (thread_slots.hpp): a joined
// thread's slot goes to a later thread, so their width follows the threads alive at once.
#pragma once

#include "sfg/runtime/hb/barrier_generations.hpp"
#include "sfg/runtime/hb/thread_slots.hpp"
#include "sfg/runtime/hb/vector_clock.hpp"

#include <unordered_map>

#include <vector>

namespace sfg {

class SyncClocks {
public:
    using Slot = ThreadSlots::Slot;

    // Applies one explicit sync event; memory, begin/end and implicit events change nothing.
    void on_sync(const Event& e, const Symbols& syms);

    // The slot of thread t: its component in every clock, and the index detectors keep t's
    // per-variable state under (with t itself, for reports: a slot changes hands).
    Slot slot(ThreadId t) { return slots_.get(t); }
    // C_t, indexed by slot; a thread's own component starts above its slot's last thread's, so
    // epoch 0 means "no access".
    const VectorClock& clock(ThreadId t) { return thread(t); }
    Clock epoch(ThreadId t) { return thread(t).get(slot(t)); }

    // The common start of the vector-clock detectors' events: a sync event updates the clocks
    // and yields nullptr; an access yields its variable's state in `vars` (grown as needed), or
    // nullptr once the variable has raced (one race per variable, docs/traces.md).
    template <class Var>
    Var* variable(const Event& e, const Symbols& syms, std::vector<Var>& vars) {
        if (!is_memory(e.op)) {
            on_sync(e, syms);
            return nullptr;
        }
        if (vars.size() <= e.target)
            vars.resize(e.target + 1);
        Var& v = vars[e.target];
        return v.raced ? nullptr : &v;
    }

    // Slots ever used (the clocks' width), and threads whose slot went to another thread.
    std::size_t slots() const { return slots_.size(); }
    std::size_t retired() const { return retired_.size(); }

private:
    VectorClock& thread(ThreadId t) {
        const Slot s = slots_.get(t);
        if (threads_.size() <= s) {
            threads_.resize(s + 1);
            threads_[s].set(s, 1);
        }
        return threads_[s];
    }
    static VectorClock& object(std::vector<VectorClock>& v, ObjId id) {
        if (v.size() <= id)
            v.resize(id + 1);
        return v[id];
    }

    ThreadSlots slots_;
    std::vector<VectorClock> threads_; // by slot
    // The final clock of a joined thread whose slot went to another thread, for a second join.
    RetiredClocks retired_;
    // L_o of each lock and volatile o, by its op's Namespace; of each queue item (q, o) under
    // Namespace::queue, by its Symbols::queue_items id.
    std::vector<VectorClock> objects_[namespace_count_with_queues];
    // A barrier's clock is per generation, kept while departures from it may come.
    BarrierGenerations generations_;
    std::unordered_map<BarrierGenerations::Generation, VectorClock> generation_clocks_;
};

} // namespace sfg
