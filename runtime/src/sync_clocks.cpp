#include "sfg/runtime/sync_clocks.hpp"

namespace sfg {

void SyncClocks::on_sync(const Event& e, const Symbols& syms) {
    if (e.implicit)
        return; // start/end are folded into fork/join below
    const ThreadId t = e.thread;
    switch (e.op) {
    case Op::acquire:
        thread(t).acquire(object(locks_, e.target));
        break;
    case Op::release:
        thread(t).release(object(locks_, e.target));
        thread(t).tick(t);
        break;
    case Op::vol_read:
        thread(t).acquire(object(volatiles_, e.target));
        break;
    case Op::vol_write:
        thread(t).release(object(volatiles_, e.target));
        thread(t).tick(t);
        break;
    case Op::barrier_enter:
        thread(t).release(object(barriers_, e.target));
        thread(t).tick(t);
        break;
    case Op::barrier_exit:
        thread(t).acquire(object(barriers_, e.target));
        break;
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
