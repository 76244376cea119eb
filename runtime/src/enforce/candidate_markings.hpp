// The candidate-marking simulation of thesis Figure 4.15 over the rules of Figure 4.14, one
// variable at a time (the eager engine; docs/enforcement.md). Used for the variables that
// OneTokenGroups does not take, and for all of them without EnforceOptions::group_one_token.
#pragma once

#include "candidate_set.hpp"
#include "indices.hpp"
#include "net_shape.hpp"
#include "sync_index.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

class CandidateMarkings {
public:
    // A variable of this engine (at v, the next index) starts at M0 and subscribes its snd/rcv
    // transitions to the index; one of OneTokenGroups (eager = false) gets an empty slot.
    void add_variable(VarIx v, ShapeIx shape, const NetShape& s, bool eager,
                      std::span<const MechIx> edge_mechs, NetNames& names, SyncIndex& index);
    void reset(const NetShapes& shapes);

    const CandidateSet& candidates(VarIx v) const { return vars_[v].cands; }
    std::span<const TransitionIx> transitions(const Subscription& sub) const {
        return {transitions_.data() + sub.begin, sub.count};
    }

    // A sync op on one variable ([SKIP], [SEND], [RECEIVE], [SYNC]); returns whether its
    // candidates changed.
    bool sync_step(VarIx v, std::span<const TransitionIx> trs, const NetShapes& shapes);
    // A memory op ([WRITE EXCLUSIVE], [READ EXCLUSIVE], [READ SHARED]); false: a violation, the
    // candidates left as they were (for the explanation), then resync().
    // Inline: the coordinator's memory op is one function, as memory ops are most events.
    bool memory_step(VarIx v, NetThread t, bool write, const NetShapes& shapes);
    void resync(VarIx v, NetThread t, bool write, const NetShapes& shapes);

private:
    struct VarState {
        ShapeIx shape;
        bool eager = false;
        CandidateSet cands;
    };
    IndexVec<VarIx, VarState> vars_;
    std::vector<TransitionIx> transitions_; // Subscription ranges

    // Scratch.
    CandidateSet next_, successors_;
    CandidateBuilder builder_;
    std::vector<PlaceIx> fired_, tmp_;
};

// L' = { M ∈ L | Acc[t:a] ∈ M, a permits it }; an empty L' is a violation.
inline bool CandidateMarkings::memory_step(VarIx v, NetThread t, bool write,
                                           const NetShapes& shapes) {
    VarState& var = vars_[v];
    const NetShape& s = shapes[var.shape];
    auto permits = [&](std::span<const PlaceIx> m) {
        if (!t.valid())
            return false;
        for (PlaceIx p : m)
            if (s.acc_thread[p] == t && (!write || s.acc_ex[p]))
                return true;
        return false;
    };
    std::uint32_t kept = 0;
    var.cands.for_each([&](std::span<const PlaceIx> m) { kept += permits(m); });
    if (kept == var.cands.count() && kept > 0)
        return true;
    if (kept == 0)
        return false;
    var.cands.filter(permits, kept);
    return true;
}

} // namespace sfg::enforce
