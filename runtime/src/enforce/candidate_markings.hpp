// The candidate-marking simulation of thesis Figure 4.15 over the rules of Figure 4.14, one
// variable at a time (the eager engine; docs/enforcement.md). Used for the variables that
// OneTokenGroups does not take, and for all of them without EnforceOptions::group_one_token.
#pragma once

#include "indices.hpp"
#include "net_shape.hpp"
#include "sync_index.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

// A set of distinct candidate markings, stored flat: per marking its size n, then its places
// p1..pn, sorted. The size is stored as a PlaceIx's value so that one array holds both.
class CandidateSet {
public:
    std::uint32_t count() const { return count_; }
    void clear() {
        data_.clear();
        count_ = 0;
    }
    void push(std::span<const PlaceIx> m) {
        const std::size_t at = data_.size();
        data_.resize(at + 1 + m.size());
        data_[at] = PlaceIx::at(m.size());
        std::copy(m.begin(), m.end(), data_.begin() + static_cast<std::ptrdiff_t>(at + 1));
        ++count_;
    }
    template <class F>
    void for_each(F&& f) const {
        for (std::size_t i = 0; i < data_.size(); i += std::size_t{data_[i].v} + 1)
            f(std::span<const PlaceIx>(data_.data() + i + 1, data_[i].v));
    }
    // Keeps the markings that satisfy keep (kept of them: a subset of a distinct set stays
    // distinct).
    template <class F>
    void filter(F&& keep, std::uint32_t kept) {
        std::size_t w = 0;
        for (std::size_t i = 0; i < data_.size();) {
            const std::size_t len = data_[i].v;
            if (keep(std::span<const PlaceIx>(data_.data() + i + 1, len))) {
                std::copy(data_.begin() + static_cast<std::ptrdiff_t>(i),
                          data_.begin() + static_cast<std::ptrdiff_t>(i + len + 1),
                          data_.begin() + static_cast<std::ptrdiff_t>(w));
                w += len + 1;
            }
            i += len + 1;
        }
        data_.resize(w);
        count_ = kept;
    }
    void swap(CandidateSet& o) {
        data_.swap(o.data_);
        std::swap(count_, o.count_);
    }

private:
    friend class CandidateBuilder;
    std::vector<PlaceIx> data_;
    std::uint32_t count_ = 0;
};

// Deduplicating builder of a candidate set: a linear scan while it is small, open addressing on
// marking hashes beyond that.
class CandidateBuilder {
public:
    void start(CandidateSet& out, std::size_t expected);
    bool add(std::span<const PlaceIx> m); // false when already present

private:
    static constexpr std::size_t linear_limit = 16;
    CandidateSet* out_ = nullptr;
    bool hashed_ = false;
    std::vector<std::uint32_t> offsets_; // data offset + 1 of each marking; 0 = empty slot
    std::size_t mask_ = 0;
};

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
