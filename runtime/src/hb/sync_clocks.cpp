#include "sfg/runtime/hb/sync_clocks.hpp"

namespace sfg {

void SyncClocks::on_sync(const Event& e, const Symbols& syms) {
    if (e.implicit)
        return; // start/end are folded into fork/join below
    const ThreadId t = e.thread;
    const OpInfo& op = op_info(e.op);
    if (e.op == Op::barrier_enter) {
        const BarrierGenerations::Entry in = generations_.enter(t, e.target);
        if (in.finished)
            generation_clocks_.erase(in.finished);
        thread(t).release(generation_clocks_[in.generation]);
        thread(t).tick(slot(t));
        return;
    }
    if (e.op == Op::barrier_exit) {
        const BarrierGenerations::Exit out = generations_.exit(t, e.target);
        if (auto it = generation_clocks_.find(out.generation); it != generation_clocks_.end()) {
            thread(t).acquire(it->second);
            if (out.finished)
                generation_clocks_.erase(it);
        }
        return;
    }
    // The snd of a lock or volatile releases into its object's clock, the rcv acquires
    // from it (thesis Figure 4.2); so do enq(q,o) / deq(q,o) with the clock of the pair
    // (q, o) (thesis §5.1: every enq(q,o) before every later deq(q,o)).
    if (op.operand == Operand::name || op.operand == Operand::queue_item) {
        if (op.role == Role::snd) {
            thread(t).release(object(objects_[static_cast<std::size_t>(op.space)], e.target));
            thread(t).tick(slot(t));
        } else if (op.role == Role::rcv) {
            thread(t).acquire(object(objects_[static_cast<std::size_t>(op.space)], e.target));
        }
        return;
    }
    switch (e.op) {
    case Op::fork: {
        // The child has no events yet (well-formedness), so its clock is the fork's, plus a first
        // epoch of its own: above its slot's last thread's when it takes a joined thread's slot
        // (the forker knows all that thread did).
        const Slot p = slot(t);
        thread(t);
        for (ThreadId u : syms.thread_sets[e.target]) {
            const ThreadSlots::Taken k = slots_.fork(u, threads_[p]);
            if (threads_.size() <= k.slot)
                threads_.resize(k.slot + 1);
            if (k.previous != no_object)
                retired_.keep(k.previous, threads_[k.slot]);
            threads_[k.slot] = threads_[p]; // (a reused slot's buffer is reused)
            threads_[k.slot].tick(k.slot);
        }
        threads_[p].tick(p);
        break;
    }
    case Op::join:
        // u has no events after the join (well-formedness): its clock is final.
        for (ThreadId u : syms.thread_sets[e.target]) {
            if (!slots_.has(u)) {
                if (auto final_clock = retired_.find(u)) {
                    thread(t).acquire(*final_clock); // a second join
                    continue;
                }
            }
            thread(u), thread(t); // both exist before references are taken
            const Slot s = slot(u);
            threads_[slot(t)].acquire(threads_[s]);
            slots_.joined(u, threads_[s].get(s));
        }
        break;
    default:
        break;
    }
}

} // namespace sfg
