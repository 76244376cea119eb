// Figure 4.15's candidate sets as unions of products (docs/enforcement.md, "Candidate sets as
// products"). By Lemma 4.3.10 a marking of N(G) is b-feasible for one mode b: one token per
// thread t of b, on t's own track PreRcv[t:· -> b] → Acc[t:b] → PostSnd[t:b -> ·]. A marking is
// then a point (b, position of each thread), and the rules of Figure 4.14 act on one position at
// a time: a memory op by t keeps the points whose t is on Acc[t:b], a sync op by t adds the
// points whose t made one move ([SKIP] keeps the others). Both map a product
// {b} × S_1 × ... × S_k of position sets to a product, so a candidate set is kept as a few
// products of bit masks instead of one entry per marking: a barrier of k threads, whose sets
// reach 3^k markings, costs k words.
//
// [SYNC] is the one rule that couples positions: the marking •sync[e] (every thread of b on
// PostSnd[·:e]) is replaced by sync[e]•, a point of the edge's target mode. A product keeps the
// point •sync[e] (it is "inert": it permits no access and enables no snd or rcv, so it changes
// no step and is never a candidate) and adds sync[e]• whenever a move completes it from a point
// that is a candidate, exactly when the reference does.
#pragma once

#include "candidate_set.hpp"
#include "indices.hpp"
#include "net_shape.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

// A NetShape's places as positions: per mode its coordinates (the threads of the mode), per
// coordinate its positions as bits.
struct FactoredShape {
    static constexpr std::uint32_t none = 0xffffffffu;

    // Whether the net has Figure 4.11's form that the products rely on (see factor()).
    bool factorable = false;
    IndexVec<ModeIx, std::uint32_t> first;      // mode a's coordinates: [first[a], first[a + 1])
    IndexVec<ModeIx, std::uint8_t> exclusive;   // EX(t), LOCK_m(T): permits writes
    IndexVec<ModeIx, MechIx> lock;              // LOCK_m(T): m, which t must hold; else none
    std::vector<std::uint64_t> acc_bit;         // per coordinate: the Acc[t:a] position
    std::vector<std::vector<PlaceIx>> position; // per coordinate: bit -> place
    IndexVec<PlaceIx, std::uint32_t> place_coord;
    IndexVec<PlaceIx, std::uint64_t> place_bit;
    std::vector<NetThread> coord_thread; // per coordinate: its thread
    // Coloured shapes (NetShape::coloured): per coordinate the position of a dead token (no
    // place; a point of dead tokens only is no candidate); 0 for the others.
    std::vector<std::uint64_t> dead_bit;
    // Coloured shapes: per W[t:e] place the position of its armed twin PreRcv[t:e] (on the same
    // track); 0 for the other places.
    IndexVec<PlaceIx, std::uint64_t> twin_bit;
    std::uint32_t thread_count = 0;   // the width of coord_of
    std::uint32_t max_width = 0;      // the most threads of a mode
    std::vector<std::uint32_t> coord; // [a * thread_count + t]: t's coordinate in a (none)

    // A snd or rcv transition: a move of one coordinate; the syncs its target may complete.
    struct Move {
        ModeIx mode;
        std::uint32_t coord = none; // within the mode
        std::uint64_t from = 0, to = 0;
        std::uint32_t syncs_begin = 0, syncs_end = 0; // into move_syncs
        // A barrier edge's rcv: the token it does not move dies (ColourOp::exit, folded into
        // the departure's step), to this coordinate's dead position; 0 for other moves.
        std::uint64_t dead = 0;
    };
    IndexVec<TransitionIx, Move> moves; // mode none: a sync transition
    std::vector<std::uint32_t> move_syncs;
    // A sync transition: •sync as one bit per coordinate of `from`, sync• likewise for `to`.
    struct Sync {
        ModeIx from, to;
        std::uint32_t pre = 0, post = 0; // into bits (a barrier edge's: its receivers wait)
    };
    std::vector<Sync> syncs;
    // The syncs out of a mode: one per SFG edge out of it, whose •sync is the edge's PostSnd
    // places (factor() checks it).
    IndexVec<ModeIx, std::vector<std::uint32_t>> mode_syncs;
    std::vector<std::uint64_t> bits;
    std::vector<std::vector<std::uint64_t>> initial; // M0: mode, then one bit per coordinate

    std::uint32_t width(ModeIx a) const { return first[ModeIx(a.v + 1)] - first[a]; }
    std::uint32_t coord_of(ModeIx a, NetThread t) const {
        return t.valid() && t.v < thread_count ? coord[a.ix() * thread_count + t.v] : none;
    }
    // t's coordinate in a when a permits t's access ([READ SHARED], [READ/WRITE EXCLUSIVE],
    // [READ/WRITE LOCKED]); none otherwise.
    std::uint32_t permitting_coord(ModeIx a, NetThread t, bool write, HeldLocks held) const {
        if ((write && !exclusive[a]) || (lock[a].valid() && !holds(held, lock[a])))
            return none;
        return coord_of(a, t);
    }
};

// A variable's positions on the edges of one barrier, per coordinate: the sent (PostSnd),
// armed (PreRcv) and waiting (W) ones, the armed twins of all the waiting ones, and the
// coordinate's dead position and thread (a close reads one record a coordinate).
struct ColourMasks {
    struct Coord {
        std::uint64_t sent = 0, armed = 0, waiting = 0, twins = 0, dead = 0;
        NetThread thread;
    };
    std::vector<Coord> at;
};

// Builds the positions of s; factorable stays false unless every place, transition and initial
// marking has the form of Figure 4.11 (docs/enforcement.md lists the conditions).
FactoredShape factor(const NetShape& s);

// One variable's candidate set: products, each stored as its mode and one mask per coordinate.
class FactoredCandidates {
public:
    void assign(const FactoredShape& f, std::span<const std::vector<std::uint64_t>> points);
    // The most products one mode has.
    std::size_t crowd() const { return crowd_; }

    // [READ/WRITE EXCLUSIVE], [READ SHARED], [READ/WRITE LOCKED]: false (and the set unchanged)
    // when no candidate permits the access.
    bool memory_step(const FactoredShape& f, NetThread t, bool write, HeldLocks held = {});
    // [SKIP], [SEND], [RECEIVE] and [SYNC] for the transitions trs of one op. Returns 1 when a
    // transition fired, 0 when none did, -1 (the set unchanged) when trs move two threads of
    // one mode: one op fires one transition per marking, which a product cannot say.
    int sync_step(const FactoredShape& f, std::span<const TransitionIx> trs);
    // Products arm late (docs/enforcement.md, "Barrier rounds"): a barrier edge's sync leaves
    // every receiver's token waiting (W), and no arrival moves it; the generation's close arms
    // the tokens of the threads inside it and kills the others'. Until then a waiting token of
    // a thread inside the open generation stands for its armed twin (arm() on a copy gives the
    // candidates of the other representations).
    // ColourOp::close (op.inside: the closing generation's threads) and ColourOp::exit (t's
    // armed tokens die) on the tokens of one barrier's edges, forced on every candidate.
    void colour_step(const FactoredShape& f, const ColourMasks& cm, const ColourOp& op);
    // The waiting tokens of the threads inside (by NetThread) moved to their armed twins.
    void arm(const FactoredShape& f, const ColourMasks& cm, std::span<const std::uint8_t> inside);
    // The re-synchronized state { P(a) | a permits the access } (docs/enforcement.md).
    void resync(const FactoredShape& f, NetThread t, bool write, HeldLocks held = {});

    // The number of candidates (inert points not counted; saturated at 2^64 - 1).
    std::uint64_t count(const FactoredShape& f) const {
        if (count_ == unknown) // (a sync op that fires without adding a candidate: cached)
            count_ = count_points(f);
        return count_;
    }
    // The candidates as sorted place lists, into out (every one: as many as the explicit sets
    // would hold).
    void materialize(const FactoredShape& f, CandidateSet& out) const;
    // A few candidates from which ViolationExplainer derives the same explanation of t's
    // access as from all of them: per product one candidate, and for each of its ways into
    // another mode (an edge, t's token waiting on PreRcv) the cheapest candidates.
    void representatives(const FactoredShape& f, NetThread t, CandidateSet& out) const;

private:
    // Each product: its mode, then its masks.
    template <class F>
    void for_each_product(const FactoredShape& f, F&& fn) const {
        for (std::size_t i = 0; i < data_.size();) {
            const ModeIx a(static_cast<std::uint32_t>(data_[i]));
            const std::uint32_t w = f.width(a);
            fn(a, std::span<const std::uint64_t>(data_.data() + i + 1, w));
            i += w + 1;
        }
    }
    std::uint64_t count_points(const FactoredShape& f) const;
    void kill_armed(const FactoredShape& f, const ColourMasks& cm, NetThread t);
    template <bool close>
    void settle(const FactoredShape& f, const ColourMasks& cm,
                std::span<const std::uint8_t> inside);
    bool contains(const FactoredShape& f, ModeIx a, std::span<const std::uint64_t> point) const;
    // Products of one mode that are subsets of another are dropped, and two that differ in one
    // coordinate merged, so that sets stay a few products.
    void normalize(const FactoredShape& f);
    template <class F>
    void for_each_point(const FactoredShape& f, F&& fn) const;
    // Each candidate (not inert) of the product `masks` of mode a, one bit per coordinate, to
    // fn until it returns false.
    template <class F>
    static void candidates_of(const FactoredShape& f, ModeIx a,
                              std::span<const std::uint64_t> masks, F&& fn);
    // The first candidate (not inert) of the product `masks` of mode a into point; false if
    // there is none.
    static bool first_candidate(const FactoredShape& f, ModeIx a,
                                std::span<const std::uint64_t> masks,
                                std::vector<std::uint64_t>& point);

    std::vector<std::uint64_t> data_;
    std::size_t crowd_ = 0;
    static constexpr std::uint64_t unknown = ~std::uint64_t{0};
    mutable std::uint64_t count_ = unknown; // count(), once asked
    // Scratch.
    std::vector<std::uint64_t> scratch_;
    std::vector<std::uint32_t> targets_, offsets_;
    mutable std::vector<std::uint32_t> count_offsets_;
    mutable std::vector<std::uint64_t> count_inter_;
};

} // namespace sfg::enforce
