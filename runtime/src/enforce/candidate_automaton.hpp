// Figure 4.15's deterministic analysis built lazily, one automaton per NetShape
// (docs/enforcement.md, "Candidate sets as states"). Its states are the candidate sets L reached
// so far, interned: equal sets share one SetIx and are stored once, as the sorted ids of their
// markings, which are interned too. Its transitions are the steps L =o=> L' taken so far,
// memoized by (L, o). A step depends on nothing else: not on the variable (its mechanisms only
// decide which transitions an op may fire) nor on the history that led to L. A step not taken
// before is computed marking by marking, with each marking's successor by each transition
// memoized as well.
#pragma once

#include "candidate_set.hpp"
#include "indices.hpp"
#include "net_shape.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

namespace sfg::enforce {

class CandidateAutomaton {
public:
    // The steps' values. A sync op's: L' | changed_bit when a transition fired ([SEND],
    // [RECEIVE]; else L' = L); a memory op's: L', or none when no candidate permits the access.
    static constexpr std::uint32_t changed_bit = 0x80000000u;

    // Interns cands (distinct markings, in any order).
    SetIx intern(CandidateView cands, const NetShape& s);
    std::uint32_t count(SetIx x) const { return sets_[x].count; }
    // The markings of x, into out (in the order of their ids).
    void materialize(SetIx x, CandidateSet& out) const;
    // Whether every candidate of x permits the access (the memory op keeps x): answered for
    // threads below 64 from two masks; false otherwise.
    bool keeps_all(SetIx x, NetThread t, bool write) const {
        const SetInfo& i = sets_[x];
        return t.v < 64 && ((write ? i.write_all : i.read_all) >> t.v & 1);
    }

    // A sync op's transitions as a set (sorted, distinct). Lists are never forgotten: there are
    // at most as many as subscriptions and merges of them.
    TrListIx intern_list(std::span<const TransitionIx> trs);

    // A colour step (ColourOp, docs/enforcement.md "Barrier rounds") as the places whose
    // tokens it moves: (from, to), to none when the token dies; sorted, distinct. Interned and
    // never forgotten, as lists are.
    using ColourMove = std::pair<PlaceIx, PlaceIx>;
    std::uint32_t intern_moves(std::span<const ColourMove> moves);
    // L' = { M with the moves applied | M ∈ L }, markings left empty dropped; memoized by
    // (L, moves).
    SetIx colour_step(SetIx x, std::uint32_t moves, const NetShape& s);
    // Whether some marking of x may hold p (exact for p < 63).
    bool may_hold(SetIx x, PlaceIx p) const {
        return (sets_[x].places >> std::min<std::uint32_t>(p.v, 63)) & 1;
    }
    // Whether some marking of x may hold one of the places of `places` (bit p for p < 63, bit
    // 63 for the others).
    bool may_hold_any(SetIx x, std::uint64_t places) const {
        return (sets_[x].places & places) != 0;
    }
    // Those places of x (bit p for p < 63, bit 63 for the others).
    std::uint64_t places(SetIx x) const { return sets_[x].places; }

    // L =o=> L' for a sync op firing one of the transitions l, and for a memory op.
    std::uint32_t sync_step(SetIx x, TrListIx l, const NetShape& s);
    std::uint32_t memory_step(SetIx x, NetThread t, bool write, const NetShape& s);

    // The memory the markings, the sets, their indices and the memo take; the markings' part
    // (with their successors).
    std::size_t bytes() const;
    std::size_t marking_bytes() const;
    // The bytes() taken since the last call; read only when something was added since (most
    // steps are looked up and add nothing).
    std::size_t growth() {
        const std::size_t revision =
            memo_used_ + sets_.size() + markings_.size() + successor_bytes_;
        if (revision == accounted_revision_)
            return 0;
        accounted_revision_ = revision;
        const std::size_t now = bytes(), grew = now - accounted_bytes_;
        accounted_bytes_ = now;
        return grew;
    }
    // Keeps the sets the pointers in live name (renumbering them there) and forgets every other
    // set and every memoized step of a set; the markings and their successors too unless
    // keep_markings (else only those of the kept sets are kept).
    void collect(std::span<SetIx* const> live, const NetShape& s, bool keep_markings);

private:
    struct MarkingInfo {
        std::size_t begin; // in marking_data_
        std::uint32_t size;
        std::uint64_t hash;
        std::uint64_t read, write; // the threads (below 64) it permits to read, to write
        // Its places (p < 63), bit 63: others; a set's are their union, taken without reading
        // its markings' places (a set is interned at most steps that are not memoized).
        std::uint64_t places;
    };
    struct SetInfo {
        std::size_t begin; // in set_data_
        std::uint32_t count;
        std::uint64_t hash;
        std::uint64_t read_all, write_all; // keeps_all's masks
        std::uint64_t places;              // the places its markings hold (p < 63), bit 63: others
    };
    struct Entry {
        std::uint64_t key;
        std::uint32_t value;
    };
    static constexpr std::uint64_t empty_key = ~std::uint64_t{0}; // no SetIx is none
    static constexpr std::uint32_t unknown = 0xffffffffu, disabled = 0xfffffffeu; // successors_
    static constexpr std::uint32_t max_memo_thread = 1u << 30;

    std::span<const PlaceIx> marking(MarkingIx m) const {
        const MarkingInfo& i = markings_[m];
        return {marking_data_.data() + i.begin, i.size};
    }
    std::span<const MarkingIx> members(SetIx x) const {
        const SetInfo& i = sets_[x];
        return {set_data_.data() + i.begin, i.count};
    }
    std::span<const TransitionIx> list(TrListIx l) const {
        return {list_data_.data() + list_begin_[l.ix()],
                list_data_.data() + list_begin_[l.ix() + 1]};
    }
    MarkingIx intern_marking(std::span<const PlaceIx> m, const NetShape& s);
    // m's successor by r (none: r not enabled), closed under [SYNC]; fire() the first time.
    MarkingIx successor(MarkingIx m, TransitionIx r, const NetShape& s) {
        const std::vector<std::uint32_t>& by_r = successors_[r];
        const std::uint32_t next = m.ix() < by_r.size() ? by_r[m.ix()] : unknown;
        if (next == unknown)
            return fire(m, r, s);
        return next == disabled ? MarkingIx::none() : MarkingIx(next);
    }
    MarkingIx fire(MarkingIx m, TransitionIx r, const NetShape& s);
    SetIx intern_sorted(std::span<const MarkingIx> ids); // sorted, distinct
    const std::uint32_t* find(std::uint64_t key) const;
    void memoize(std::uint64_t key, std::uint32_t value);

    std::vector<PlaceIx> marking_data_;
    IndexVec<MarkingIx, MarkingInfo> markings_;
    std::vector<std::uint32_t> marking_slots_; // open addressing on hash: MarkingIx + 1; 0 empty
    // [r][m]: MarkingIx, or the above; by transition, so that a step reads one array in order.
    IndexVec<TransitionIx, std::vector<std::uint32_t>> successors_;
    std::size_t successor_bytes_ = 0; // their capacity

    std::vector<MarkingIx> set_data_;
    IndexVec<SetIx, SetInfo> sets_;
    std::vector<std::uint32_t> set_slots_; // open addressing on hash: SetIx + 1; 0 = empty

    std::vector<Entry> memo_; // open addressing on the key's hash
    std::size_t memo_used_ = 0;

    std::vector<TransitionIx> list_data_;
    std::vector<std::uint32_t> list_begin_{0};
    std::map<std::vector<TransitionIx>, TrListIx> list_ids_;
    std::vector<ColourMove> moves_data_; // intern_moves, likewise
    std::vector<std::uint32_t> moves_begin_{0};
    std::unordered_multimap<std::uint64_t, std::uint32_t> moves_ids_; // by hash
    static constexpr std::uint32_t colour_tag = 1u << 30;             // memo keys of colour steps

    std::size_t accounted_revision_ = 0, accounted_bytes_ = 0; // growth()

    // Scratch.
    std::vector<MarkingIx> ids_, merged_;
    std::vector<std::uint64_t> bits_;
    std::vector<PlaceIx> fired_, tmp_;
};

} // namespace sfg::enforce
