#include "sfg/runtime/sync_clocks.hpp"

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
        thread(t).tick(t);
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
    // from it (thesis Figure 4.2).
    if (op.operand == Operand::name) {
        if (op.role == Role::snd) {
            thread(t).release(object(objects_[static_cast<std::size_t>(op.space)], e.target));
            thread(t).tick(t);
        } else if (op.role == Role::rcv) {
            thread(t).acquire(object(objects_[static_cast<std::size_t>(op.space)], e.target));
        }
        return;
    }
    switch (e.op) {
    case Op::fork:
        // The child has no events yet (well-formedness), so its clock may learn the fork now.
        for (ThreadId u : syms.thread_sets[e.target]) {
            thread(u), thread(t); // both exist before references are taken
            threads_[u].acquire(threads_[t]);
        }
        thread(t).tick(t);
        break;
    case Op::join:
        // u has no events after the join (well-formedness): its clock is final.
        for (ThreadId u : syms.thread_sets[e.target]) {
            thread(u), thread(t);
            threads_[t].acquire(threads_[u]);
        }
        break;
    default:
        break;
    }
}

} // namespace sfg
