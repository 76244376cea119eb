#include "sfg/runtime/race/analysis_hb.hpp"

namespace sfg {

void HbDetector::race(Var& v, const Event& e, Op with_op, const Slot& with) {
    v.raced = true; // one race per variable: its first racy event (docs/traces.md)
    races_.push_back({e.target, AccessRef::of(e), AccessRef::of(with.site, with.thread, with_op)});
}

void HbDetector::on_event(const Event& e, const Symbols& syms) {
    Var* accessed = clocks_.variable(e, syms, vars_);
    if (!accessed)
        return;
    Var& v = *accessed;
    const ThreadId t = e.thread;
    const std::uint32_t me = clocks_.slot(t);
    const VectorClock& c = clocks_.clock(t);
    const Clock now = c.get(me);
    const bool write = writes(e.op);
    auto& mine = write ? v.writes : v.reads;
    // Same epoch: nothing this thread learned since its last such access, and anything another
    // thread did since would have raced with that access already. (A slot's next thread starts
    // above its last thread's epochs: an equal clock is this thread's.)
    if (me < mine.size() && mine[me].clock == now)
        return;
    // Whether the access recorded in slots[u] is ordered before e: its epoch is known to t.
    // Then so is everything its thread knew then (a clock reaches others only by snd ops, which
    // end an epoch).
    auto before_e = [&](std::uint32_t u, const std::vector<Slot>& slots) {
        return u == me || slots[u].clock <= c.get(u);
    };
    const bool writes_ordered = v.last_writer == no_object || before_e(v.last_writer, v.writes);
    const bool reads_ordered =
        v.last_reader == no_object || (v.reads_chained && before_e(v.last_reader, v.reads));
    // A read conflicts with earlier writes, a write with earlier reads and writes. Each slot's
    // last access is the one least ordered before e (program order, and a slot's next thread
    // knows its last thread's accesses). When the shortcut cannot rule races out, the scans name
    // the latest racing access, a write before a read (docs/traces.md): the latest of all, as a
    // slot's earlier threads' accesses come before its last thread's and race only if it does.
    auto latest = [&](const std::vector<Slot>& slots) -> const Slot* {
        const Slot* best = nullptr;
        for (std::size_t u = 0; u < slots.size(); ++u)
            if (u != me && slots[u].clock > c.get(static_cast<std::uint32_t>(u)) &&
                (!best || slots[u].site.event > best->site.event))
                best = &slots[u];
        return best;
    };
    if (!writes_ordered)
        if (const Slot* w = latest(v.writes))
            return race(v, e, Op::write, *w);
    if (write && !(writes_ordered && reads_ordered))
        if (const Slot* r = latest(v.reads))
            return race(v, e, Op::read, *r);
    if (write) {
        v.last_writer = me;
        v.last_reader = no_object;
        v.reads_chained = true;
    } else {
        v.reads_chained = reads_ordered; // the reads so far are ordered before this one
        v.last_reader = me;
    }
    if (mine.size() <= me)
        mine.resize(me + 1);
    mine[me] = {now, t, Site::of(e)};
}

} // namespace sfg
