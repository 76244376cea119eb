#include "sfg/runtime/analysis_hb.hpp"

namespace sfg {

void HbDetector::race(Var& v, const Event& e, ThreadId with_thread, Op with_op, const Slot& with) {
    v.raced = true; // one race per variable: its first racy event (docs/traces.md)
    races_.push_back({e.target, AccessRef::of(e), AccessRef::of(with.site, with_thread, with_op)});
}

void HbDetector::on_event(const Event& e, const Symbols& syms) {
    if (!is_memory(e.op)) {
        clocks_.on_sync(e, syms);
        return;
    }
    if (vars_.size() <= e.target)
        vars_.resize(e.target + 1);
    Var& v = vars_[e.target];
    if (v.raced)
        return;
    const ThreadId t = e.thread;
    const VectorClock& c = clocks_.clock(t);
    const Clock now = c.get(t);
    const bool write = e.op == Op::write;
    auto& mine = write ? v.writes : v.reads;
    // Same epoch: nothing this thread learned since its last such access, and anything another
    // thread did since would have raced with that access already.
    if (t < mine.size() && mine[t].clock == now)
        return;
    // A read conflicts with earlier writes, a write with earlier reads and writes. Each
    // thread's last access is the one least ordered before e (program order).
    for (std::size_t u = 0; u < v.writes.size(); ++u)
        if (u != t && v.writes[u].clock > c.get(static_cast<ThreadId>(u)))
            return race(v, e, static_cast<ThreadId>(u), Op::write, v.writes[u]);
    if (write)
        for (std::size_t u = 0; u < v.reads.size(); ++u)
            if (u != t && v.reads[u].clock > c.get(static_cast<ThreadId>(u)))
                return race(v, e, static_cast<ThreadId>(u), Op::read, v.reads[u]);
    if (mine.size() <= t)
        mine.resize(t + 1);
    mine[t] = {now, Site::of(e)};
}

} // namespace sfg
