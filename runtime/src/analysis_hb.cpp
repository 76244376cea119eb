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
    // Whether the access of thread u recorded in slots[u] is ordered before e: its epoch is known
    // to t. Then so is everything u knew then (a clock reaches others only by snd ops, which
    // end u's epoch).
    auto before_e = [&](ThreadId u, const std::vector<Slot>& slots) {
        return u == t || slots[u].clock <= c.get(u);
    };
    const bool writes_ordered = v.last_writer == no_object || before_e(v.last_writer, v.writes);
    const bool reads_ordered =
        v.last_reader == no_object || (v.reads_chained && before_e(v.last_reader, v.reads));
    // A read conflicts with earlier writes, a write with earlier reads and writes. Each
    // thread's last access is the one least ordered before e (program order). The scans find
    // the first thread (in id order) that races, when the shortcut cannot rule races out.
    if (!writes_ordered)
        for (std::size_t u = 0; u < v.writes.size(); ++u)
            if (u != t && v.writes[u].clock > c.get(static_cast<ThreadId>(u)))
                return race(v, e, static_cast<ThreadId>(u), Op::write, v.writes[u]);
    if (write && !(writes_ordered && reads_ordered))
        for (std::size_t u = 0; u < v.reads.size(); ++u)
            if (u != t && v.reads[u].clock > c.get(static_cast<ThreadId>(u)))
                return race(v, e, static_cast<ThreadId>(u), Op::read, v.reads[u]);
    if (write) {
        v.last_writer = t;
        v.last_reader = no_object;
        v.reads_chained = true;
    } else {
        v.reads_chained = reads_ordered; // the reads so far are ordered before this one
        v.last_reader = t;
    }
    if (mine.size() <= t)
        mine.resize(t + 1);
    mine[t] = {now, Site::of(e)};
}

} // namespace sfg
