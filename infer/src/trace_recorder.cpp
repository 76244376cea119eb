// The one pass over a trace (docs/infer.md): runs of accesses per variable, and what each
// thread sent and received, so that a phase boundary's mechanism is looked up, never searched.
#include "sfg/infer/infer.hpp"

#include <algorithm>

namespace sfg::infer {

namespace {

std::uint64_t key(SyncKind k, ObjId obj) {
    return std::uint64_t{static_cast<std::uint8_t>(k)} << 32 | obj;
}

std::vector<ObjId> intersection(const std::vector<ObjId>& a, const std::vector<ObjId>& b) {
    std::vector<ObjId> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

} // namespace

const SyncLog* TraceRecorder::log(ThreadId t, SyncKind k, ObjId obj) const {
    if (t >= logs.size())
        return nullptr;
    const auto it = logs[t].find(key(k, obj));
    return it == logs[t].end() ? nullptr : &it->second;
}

void TraceRecorder::on_access(const Event& e) {
    std::vector<Run>& rs = at(runs, e.target);
    const std::vector<ObjId>& held = at(held_, e.thread);
    const std::uint64_t rounds = at(rounds_, e.thread);
    // A barrier between two accesses of one thread starts a new run: a round of the thesis'
    // particles (Figure 3.4) begins there, whoever accessed last.
    if (rs.empty() || rs.back().thread != e.thread || rs.back().rounds != rounds) {
        rs.push_back({e.thread, e.number, e.number, 0, false, held, rounds});
    } else if (rs.back().locks != held) {
        rs.back().locks = intersection(rs.back().locks, held);
    }
    Run& r = rs.back();
    r.last = e.number;
    ++r.accesses;
    r.writes |= e.op == Op::write;
}

// Generations as docs/traces.md defines them: an arrival joins the barrier's open generation; the
// first departure of that generation opens the next; each departure leaves the one it entered.
void TraceRecorder::on_barrier(const Event& e) {
    std::uint32_t& open = at(open_generation_, e.target);
    std::unordered_map<ObjId, std::uint32_t>& entered = at(entered_, e.thread);
    std::vector<ThreadId>& users = at(barrier_threads, e.target);
    if (!std::binary_search(users.begin(), users.end(), e.thread))
        users.insert(std::upper_bound(users.begin(), users.end(), e.thread), e.thread);
    std::uint32_t gen = open;
    if (e.op == Op::barrier_enter) {
        entered[e.target] = open;
    } else {
        gen = entered[e.target];
        ++at(rounds_, e.thread);
        if (gen == open)
            ++open;
    }
    SyncLog& l =
        at(logs,
           e.thread)[key(e.op == Op::barrier_enter ? SyncKind::benter : SyncKind::bexit, e.target)];
    l.events.push_back(e.number);
    l.tags.push_back(gen);
}

void TraceRecorder::on_event(const Event& e, const Symbols& syms) {
    auto record = [&](SyncKind k, ObjId obj, std::uint32_t tag) {
        SyncLog& l = at(logs, e.thread)[key(k, obj)];
        l.events.push_back(e.number);
        l.tags.push_back(tag);
    };
    switch (e.op) {
    case Op::read:
    case Op::write:
        on_access(e);
        break;
    case Op::acquire: {
        std::vector<ObjId>& h = at(held_, e.thread);
        h.insert(std::upper_bound(h.begin(), h.end(), e.target), e.target);
        record(SyncKind::acq, e.target, 0);
        break;
    }
    case Op::release: {
        std::vector<ObjId>& h = at(held_, e.thread);
        h.erase(std::remove(h.begin(), h.end(), e.target), h.end());
        record(SyncKind::rel, e.target, 0);
        break;
    }
    case Op::vol_write:
    case Op::vol_read:
        record(e.op == Op::vol_write ? SyncKind::vw : SyncKind::vr, e.target, e.value_id);
        break;
    case Op::barrier_enter:
    case Op::barrier_exit:
        on_barrier(e);
        break;
    case Op::fork:
        for (ThreadId u : syms.thread_sets[e.target])
            at(forked_by, u) = ThreadLink{e.thread, e.number, e.target};
        break;
    case Op::join:
        for (ThreadId u : syms.thread_sets[e.target])
            if (!at(joined_by, u))
                joined_by[u] = ThreadLink{e.thread, e.number, e.target};
        break;
    case Op::enqueue:
    case Op::dequeue:
        record(e.op == Op::enqueue ? SyncKind::enq : SyncKind::deq, e.target, 0);
        break;
    default: // begin/end and the implicit start/end: the fork and join carry what they order
        break;
    }
}

} // namespace sfg::infer
