#include "sfg/runtime/race/analysis_fasttrack.hpp"

namespace sfg {

void FastTrackDetector::race(Var& v, const Event& e, ThreadId with_thread, Op with_op,
                             const Site& with) {
    v.raced = true; // one race per variable (docs/traces.md); its state is no longer needed
    if (v.shared != none) {
        shared_[v.shared].clear();
        free_.push_back(v.shared);
        v.shared = none;
    }
    races_.push_back({e.target, AccessRef::of(e), AccessRef::of(with, with_thread, with_op)});
}

const FastTrackDetector::Slot* FastTrackDetector::latest_racing_read(const std::vector<Slot>& reads,
                                                                     const VectorClock& now,
                                                                     std::uint32_t me) const {
    const Slot* best = nullptr;
    for (std::size_t u = 0; u < reads.size(); ++u)
        if (u != me && reads[u].clock > now.get(static_cast<std::uint32_t>(u)) &&
            (!best || reads[u].site.event > best->site.event))
            best = &reads[u];
    return best;
}

void FastTrackDetector::on_event(const Event& e, const Symbols& syms) {
    Var* accessed = clocks_.variable(e, syms, vars_);
    if (!accessed)
        return;
    Var& v = *accessed;
    const ThreadId t = e.thread;
    const std::uint32_t me = clocks_.slot(t);
    const VectorClock& c = clocks_.clock(t);
    const Clock now = c.get(me);
    // Write epochs of an un-raced variable are totally ordered, so the last write stands for
    // all earlier ones (FastTrack §3). A slot's next thread starts above its last thread's
    // epochs, so an epoch compares by its slot alone.
    const bool write_ordered = v.write.clock <= c.get(v.write.slot);

    if (!writes(e.op)) { // a read
        if (v.shared == none
                ? (v.read.clock == now && v.read.slot == me)
                : (me < shared_[v.shared].size() && shared_[v.shared][me].clock == now))
            return; // [read same epoch]
        if (!write_ordered)
            return race(v, e, v.write.thread, Op::write, v.write.site); // write-read race
        if (v.shared != none) {                                         // [read shared]
            auto& rv = shared_[v.shared];
            if (rv.size() <= me)
                rv.resize(me + 1);
            rv[me] = {now, t, Site::of(e)};
        } else if (v.read.clock <= c.get(v.read.slot)) { // [read exclusive]
            v.read = {now, me, t, Site::of(e)};
        } else { // [read share]: two concurrent reads
            std::uint32_t i;
            if (!free_.empty()) {
                i = free_.back();
                free_.pop_back();
            } else {
                i = static_cast<std::uint32_t>(shared_.size());
                shared_.emplace_back();
            }
            auto& rv = shared_[i];
            rv.resize(std::max(me, v.read.slot) + 1);
            rv[v.read.slot] = {v.read.clock, v.read.thread, v.read.site};
            rv[me] = {now, t, Site::of(e)};
            v.shared = i;
        }
        return;
    }

    // Write.
    if (v.write.clock == now && v.write.slot == me)
        return; // [write same epoch]
    if (!write_ordered)
        return race(v, e, v.write.thread, Op::write, v.write.site); // write-write race
    if (v.shared == none) {
        if (v.read.clock > c.get(v.read.slot)) // [write exclusive]
            return race(v, e, v.read.thread, Op::read, v.read.site);
    } else { // [write shared]: every read since the last write must be ordered before this
        auto& rv = shared_[v.shared];
        if (const Slot* r = latest_racing_read(rv, c, me))
            return race(v, e, r->thread, Op::read, r->site);
        rv.clear();
        free_.push_back(v.shared);
        v.shared = none;
        v.read = {};
    }
    v.write = {now, me, t, Site::of(e)};
}

} // namespace sfg
