#include "candidate_markings.hpp"

#include <algorithm>

namespace sfg::enforce {

void CandidateMarkings::add_variable(VarIx v, ShapeIx shape, const NetShape& s, bool eager,
                                     std::span<const MechIx> edge_mechs, NetNames& names,
                                     SyncIndex& index) {
    VarState& var = vars_.emplace_back();
    var.shape = shape;
    var.eager = eager;
    if (!eager)
        return;
    for (const auto& m : s.initial)
        var.cands.push(m);

    // Index: this variable's snd/rcv transitions by (mechanism, thread, role).
    const Net& net = s.net;
    std::vector<std::pair<std::uint64_t, TransitionIx>> keyed;
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync || t.edge < 0 || std::size_t(t.edge) >= net.edges.size())
            continue;
        const Role role = t.kind == TransitionKind::snd ? Role::snd : Role::rcv;
        keyed.emplace_back(
            sync_key(edge_mechs[std::size_t(t.edge)], names.intern_thread(t.thread), role),
            TransitionIx::at(r));
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size();) {
        std::size_t j = i;
        Subscription sub = Subscription::of(v, static_cast<std::uint32_t>(transitions_.size()));
        for (; j < keyed.size() && keyed[j].first == keyed[i].first; ++j)
            transitions_.push_back(keyed[j].second);
        sub.count = static_cast<std::uint32_t>(j - i);
        index.subscribe(keyed[i].first, sub);
        i = j;
    }
    index.invalidate();
}

void CandidateMarkings::reset(const NetShapes& shapes) {
    for (VarState& var : vars_) {
        var.cands.clear();
        if (var.eager)
            for (const auto& m : shapes[var.shape].initial)
                var.cands.push(m);
    }
}

// L' = L ∪ { close(M -r->) | M ∈ L, r ∈ trs enabled by M } ([SKIP] keeps every M;
// [SEND]/[RECEIVE] fire r; [SYNC] closes).
bool CandidateMarkings::sync_step(VarIx v, std::span<const TransitionIx> trs,
                                  const NetShapes& shapes) {
    VarState& var = vars_[v];
    const NetShape& s = shapes[var.shape];

    // The successors first; many visits have none (no candidate holds the token the op needs),
    // and then nothing changes.
    successors_.clear();
    var.cands.for_each([&](std::span<const PlaceIx> m) {
        for (TransitionIx r : trs) {
            if (m.size() == 1 && s.single_next[r].valid()) { // {•r} -r-> -sync-> {q}
                if (m[0] == s.pre(r)[0])
                    successors_.push(std::span<const PlaceIx>(&s.single_next[r], 1));
                continue;
            }
            if (enabled(s, m, r)) {
                fire_closed(s, m, r, fired_, tmp_);
                successors_.push(fired_);
            }
        }
    });
    if (successors_.count() == 0)
        return false;

    builder_.start(next_, var.cands.count() + successors_.count());
    var.cands.for_each([&](std::span<const PlaceIx> m) { builder_.add(m); });
    successors_.for_each([&](std::span<const PlaceIx> m) { builder_.add(m); });
    var.cands.swap(next_);
    return true;
}

// The re-synchronized state (docs/enforcement.md): { P(a) | a permits the offending access },
// as if the discipline had been (re-)entered at such a mode just before it. When no mode
// permits it at all, the access is ignored and the candidates are kept.
void CandidateMarkings::resync(VarIx v, NetThread t, bool write, const NetShapes& shapes) {
    VarState& var = vars_[v];
    const NetShape& s = shapes[var.shape];
    if (!t.valid())
        return;
    bool any = false;
    for (ModeIx a : s.mode_acc.indices())
        if (s.permits(a, t, write) && !s.mode_acc[a].empty()) {
            if (!any)
                builder_.start(var.cands, s.mode_acc.size());
            any = true;
            builder_.add(s.mode_acc[a]);
        }
}

} // namespace sfg::enforce
