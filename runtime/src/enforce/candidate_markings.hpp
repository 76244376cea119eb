// The candidate-marking simulation of thesis Figure 4.15 over the rules of Figure 4.14, one
// variable at a time (the eager engine; docs/enforcement.md). Used for the variables that
// OneTokenGroups does not take, and for all of them without EnforceOptions::group_one_token.
// With EnforceOptions::factor_candidates a variable whose net factors keeps its set as products
// (FactoredCandidates). Otherwise, with EnforceOptions::memoize_candidates, its state is a set
// interned by its shape's CandidateAutomaton, and a step taken before is one lookup; without,
// each variable keeps its own CandidateSet and computes every step.
#pragma once

#include "candidate_automaton.hpp"
#include "candidate_set.hpp"
#include "factored_candidates.hpp"
#include "indices.hpp"
#include "net_shape.hpp"
#include "sync_index.hpp"

#include "sfg/runtime/hb/barrier_generations.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

// A barrier's open generation and the named threads inside it (docs/enforcement.md, "Barrier
// rounds"); `open` is 0 from a close to the next arrival.
struct BarrierRound {
    BarrierGenerations::Generation open = 0;
    std::vector<NetThread> inside;
    // By NetThread: left the barrier since its last close. The armed tokens its departure's
    // rcv step did not fire are dead; explicit sets kill them at the next close (or at a
    // second departure without an arrival; CandidateMarkings::colour_steps), and show them
    // dead until then.
    std::vector<std::uint8_t> left;
    bool has_left(NetThread u) const { return u.ix() < left.size() && left[u.ix()]; }
};

class CandidateMarkings {
public:
    // Before the first variable: whether to memoize, and the memory the automata may take
    // beyond the sets the variables are in before they are collected.
    void configure(bool factor, std::size_t max_products, bool memoize, std::size_t memo_bytes) {
        factor_ = factor;
        max_products_ = std::min<std::size_t>(max_products, 16); // count() costs 2^products
        memoize_ = memoize;
        limit_ = memo_bytes;
    }
    // A variable of this engine (at v, the next index) starts at M0 and subscribes its snd/rcv
    // transitions to the index; one of OneTokenGroups (eager = false) gets an empty slot.
    void add_variable(VarIx v, ShapeIx shape, const NetShape& s, bool eager,
                      std::span<const MechIx> edge_mechs, NetNames& names, SyncIndex& index);
    void reset(const NetShapes& shapes);

    // The candidates of v (materialized into scratch when memoized); valid until the next step.
    // Waiting tokens of threads inside their barrier's open generation are shown armed, and
    // armed tokens of threads that left the barrier and sent tokens of a closed round dead, as
    // the reference holds them (colour_steps).
    CandidateView candidates(VarIx v, CandidateSet& scratch) const {
        const VarState& var = vars_[v];
        if (var.factored) {
            armed(var).materialize(factored_[var.shape], scratch);
            return scratch.view();
        }
        if (!var.set.valid())
            return armed(var, var.cands.view(), scratch);
        automata_[var.shape].materialize(var.set, armed_set_);
        return armed(var, armed_set_.view(), scratch);
    }
    // Candidates of v from which the explanation of t's access is the same as from all of them
    // (FactoredCandidates::representatives), into scratch; valid until the next step.
    CandidateView explained(VarIx v, NetThread t, CandidateSet& scratch) const {
        const VarState& var = vars_[v];
        if (!var.factored)
            return candidates(v, scratch);
        armed(var).representatives(factored_[var.shape], t, scratch);
        return scratch.view();
    }
    std::uint64_t count(VarIx v) const {
        const VarState& var = vars_[v];
        if (var.factored)
            return var.products.count(factored_[var.shape]);
        if (var.colour != none && shown_moved(var)) // (as shown: two may show as one)
            return candidates(v, armed_set_).count();
        return var.set.valid() ? automata_[var.shape].count(var.set) : var.cands.count();
    }
    // Whether count(v) is cheap enough to take at every sync op: not for products of a mode of
    // more than 64 threads (an RS(W) of a pool), whose count walks every coordinate (and which
    // no explicit set could hold).
    bool countable(VarIx v) const {
        const VarState& var = vars_[v];
        return !var.factored || factored_[var.shape].max_width <= 64;
    }
    std::span<const TransitionIx> transitions(const Subscription& sub) const {
        return {transitions_.data() + sub.begin, sub.count};
    }
    // How often the automata reached the limit and were collected, since reset().
    std::uint64_t collections() const { return collections_; }
    // How often a variable left its products (unfactor), since reset().
    std::uint64_t unfactored() const { return unfactored_; }

    // A sync op on one variable ([SKIP], [SEND], [RECEIVE], [SYNC]): the transitions of one
    // subscription, or several merged; returns whether some candidate enabled one of them (a
    // candidate update in the stats).
    bool sync_step(const Subscription& sub, const NetShapes& shapes);
    bool sync_step(VarIx v, std::span<const TransitionIx> trs, const NetShapes& shapes);
    // The variables with edges on barrier m (NetShape::coloured), which colour_step visits.
    std::span<const VarIx> coloured(MechIx m) const {
        return m.ix() < coloured_.size() ? std::span<const VarIx>(coloured_[m.ix()])
                                         : std::span<const VarIx>();
    }
    // The barriers' rounds (by MechIx), as the coordinator keeps them: products arm their
    // waiting tokens late (FactoredCandidates::colour_step), and show them armed by these.
    void watch_rounds(const std::vector<BarrierRound>* rounds) { rounds_ = rounds; }
    // The colour moves of an op on barrier m (ColourOp) on the candidates of every variable
    // with edges on m, armed late (docs/enforcement.md, "Barrier rounds"): a barrier edge's
    // sync leaves every receiver's token waiting (W) and no arrival moves it; the generation's
    // close arms the tokens of the threads inside it and kills the others'. Until then a
    // waiting token of a thread inside the open generation stands for its armed twin (the
    // candidates show it so). A close comes before the closing departure's rcv steps (the
    // moves commute; the close arms what that rcv may fire). Explicit sets keep the sent
    // tokens a close kills until the next generation's first arrival (ColourOp::open), and a
    // departure's unfired armed tokens until the next close, and show them dead meanwhile.
    void colour_steps(MechIx m, const ColourOp& op, const NetShapes& shapes);
    // A memory op ([WRITE EXCLUSIVE], [READ EXCLUSIVE], [READ SHARED], [WRITE LOCKED],
    // [READ LOCKED] with the locks t holds); false: a violation, the candidates left as they
    // were (for the explanation), then resync().
    // Inline: the coordinator's memory op is one function, as memory ops are most events.
    bool memory_step(VarIx v, NetThread t, bool write, HeldLocks held, const NetShapes& shapes);
    void resync(VarIx v, NetThread t, bool write, HeldLocks held, const NetShapes& shapes);

private:
    struct VarState {
        ShapeIx shape;
        bool eager = false;
        bool factored = false;       // the state is `products`
        FactoredCandidates products; // factored
        SetIx set;                   // memoized: the state in automata_[shape]
        CandidateSet cands;          // neither
        std::uint32_t colour = none; // coloured shapes: its Colours in colours_
    };
    static constexpr std::uint32_t none = 0xffffffffu;
    // A coloured variable's barrier on each edge (none: not a barrier), and per barrier of its
    // edges its positions (factored). Apart from VarState, which every variable has.
    struct Colours {
        std::vector<MechIx> edge_barrier;
        // Its W, PreRcv and PostSnd places of barrier edges: each with its barrier, thread and
        // twin.
        struct Token {
            PlaceIx place;
            MechIx barrier;
            NetThread thread;
            PlaceIx twin;
        };
        std::vector<Token> waiting, armed, sent;
        std::vector<std::pair<MechIx, ColourMasks>> colour_masks;
        // Per barrier, by NetThread: its armed places as CandidateAutomaton::may_hold_any
        // takes them, so that a departure's or an arrival's colour step on a set that holds
        // none of them is one test (most are).
        std::vector<std::pair<MechIx, std::vector<std::uint64_t>>> armed_places;
        // Likewise per barrier its sent places, and all its places.
        struct BarrierPlaces {
            MechIx barrier;
            std::uint64_t sent = 0, all = 0;
        };
        std::vector<BarrierPlaces> barrier_places;
        BarrierPlaces places_of(MechIx b) const {
            for (const BarrierPlaces& bp : barrier_places)
                if (bp.barrier == b)
                    return bp;
            return {};
        }
        // The moves of its last memoized colour steps (a few) and their ids: its closes move
        // the same places round after round, and then need no interning.
        std::vector<std::pair<std::vector<CandidateAutomaton::ColourMove>, std::uint32_t>>
            recent_moves;
        std::size_t next_recent = 0;
        std::uint64_t armed_of(MechIx b, NetThread t) const {
            for (const auto& [m, by_thread] : armed_places)
                if (m == b)
                    return t.ix() < by_thread.size() ? by_thread[t.ix()] : 0;
            return 0;
        }
    };
    // An explicit (or memoized) set's colour step.
    void colour_step(VarIx v, MechIx m, const ColourOp& op, const NetShapes& shapes);
    // A factored variable's products with the waiting tokens of the threads inside their
    // barrier's open generation armed (a copy in armed_ when some are).
    const FactoredCandidates& armed(const VarState& var) const;
    // The same for explicit candidates `from`, and their armed tokens of threads that left
    // the barrier and sent tokens of a closed round dropped (into scratch when some are; from
    // may be a view of armed_set_).
    CandidateView armed(const VarState& var, CandidateView from, CandidateSet& scratch) const;
    // The places armed(var, ...) moves (W to its twin, PreRcv to none) into shown_moved_,
    // sorted; false when there are none.
    bool shown_moved(const VarState& var) const;
    // Flags (by NetThread) of the threads inside barrier b's open generation into
    // armed_inside_; false when none is.
    bool inside_flags(MechIx b) const;
    // colour_step on explicit candidates `from`, into next_; false when nothing moves, or
    // when the moves only rename places and were made in `in_place` (the set `from` views).
    bool colour_explicit(const VarState& var, CandidateView from, const NetShape& s, MechIx m,
                         const ColourOp& op, CandidateSet* in_place);
    static PlaceIx colour_moved(std::span<const MechIx> edge_barrier, const NetShape& s, MechIx m,
                                const ColourOp& op, const BarrierRound* round, PlaceIx p);
    // Barrier m's round, if the coordinator keeps one.
    const BarrierRound* round(MechIx m) const {
        return rounds_ && m.ix() < rounds_->size() ? &(*rounds_)[m.ix()] : nullptr;
    }
    void index_colours(VarIx v, VarState& var, const NetShape& s,
                       std::span<const MechIx> edge_mechs);
    static bool permits(const NetShape& s, std::span<const PlaceIx> m, NetThread t, bool write,
                        HeldLocks held) {
        if (!t.valid())
            return false;
        for (PlaceIx p : m)
            if (s.acc_permits(p, t, write, held))
                return true;
        return false;
    }
    // Whether the sets of shape s are interned and their steps memoized: not with LOCK modes,
    // whose memory steps depend on the locks held as well.
    bool memoized(const NetShape& s) const { return memoize_ && !s.lock_modes; }
    // next_ = L ∪ successors when a transition fires; false (next_ unspecified) otherwise.
    bool successors(CandidateView cands, std::span<const TransitionIx> trs, const NetShape& s);
    bool memo_sync_step(VarState& var, TrListIx l, const NetShapes& shapes);
    // A factored variable's sync step; false with `fired` unset when the variable had to leave
    // its products first (unfactor).
    bool factored_sync_step(VarState& var, std::span<const TransitionIx> trs, bool& fired,
                            const NetShapes& shapes);
    // The variable's state from M0, factored when its net factors.
    void start(VarState& var, const NetShape& s);
    // From products to an explicit set (memoized or not), the same candidates.
    void unfactor(VarState& var, const NetShapes& shapes);
    bool memo_memory_step(VarState& var, NetThread t, bool write, const NetShapes& shapes);
    // After a step of the automaton of shape sh: the bytes it took.
    void grown(ShapeIx sh) { automata_bytes_ += automata_[sh].growth(); }
    // Over the limit: every automaton keeps only the sets variables are in.
    void collect_if_full(const NetShapes& shapes) {
        if (automata_bytes_ > live_bytes_ + limit_)
            collect(shapes);
    }
    void collect(const NetShapes& shapes);

    IndexVec<VarIx, VarState> vars_;
    std::vector<TransitionIx> transitions_; // Subscription ranges
    bool factor_ = true, memoize_ = true;
    std::size_t max_products_ = 8;
    std::size_t limit_ = 0;
    IndexVec<ShapeIx, FactoredShape> factored_; // per shape, built with its first variable
    IndexVec<ShapeIx, CandidateAutomaton> automata_;
    std::vector<TrListIx> sub_lists_; // [sub.begin]: the subscription's transitions, interned
    std::size_t automata_bytes_ = 0, live_bytes_ = 0; // now; after the last collection
    std::uint64_t collections_ = 0, unfactored_ = 0;
    std::vector<std::vector<VarIx>> coloured_; // by barrier MechIx
    // The coloured variables with explicit sets, whose departures have colour steps (products
    // kill at the rcv step); counted again after a variable starts or leaves its products.
    static constexpr std::size_t unknown_count = ~std::size_t{0};
    std::size_t explicit_coloured_ = unknown_count;
    // Per barrier (by MechIx) what its close moves: the products with their positions on its
    // edges, and the explicit sets; found again with explicit_coloured_.
    struct Close {
        struct Products {
            FactoredCandidates* products;
            const FactoredShape* shape;
            const ColourMasks* masks;
        };
        std::vector<Products> products;
        std::vector<VarIx> explicit_vars;
    };
    std::vector<Close> closes_;
    void index_closes();
    std::vector<Colours> colours_;                      // VarState::colour
    const std::vector<BarrierRound>* rounds_ = nullptr; // watch_rounds

    // Scratch.
    mutable FactoredCandidates armed_;
    mutable std::vector<std::uint8_t> armed_inside_;
    mutable CandidateSet armed_set_;
    mutable std::vector<std::pair<PlaceIx, PlaceIx>> shown_moved_;
    CandidateSet next_, successors_;
    CandidateBuilder builder_;
    std::vector<PlaceIx> fired_, tmp_;
    std::vector<CandidateAutomaton::ColourMove> colour_moves_;
};

// L' = { M ∈ L | Acc[t:a] ∈ M, a permits it }; an empty L' is a violation.
inline bool CandidateMarkings::memory_step(VarIx v, NetThread t, bool write, HeldLocks held,
                                           const NetShapes& shapes) {
    VarState& var = vars_[v];
    if (var.factored)
        return var.products.memory_step(factored_[var.shape], t, write, held);
    const NetShape& s = shapes[var.shape];
    if (var.set.valid()) {
        if (automata_[var.shape].keeps_all(var.set, t, write))
            return true;
        return memo_memory_step(var, t, write, shapes);
    }
    auto keep = [&](std::span<const PlaceIx> m) { return permits(s, m, t, write, held); };
    std::uint32_t kept = 0;
    var.cands.for_each([&](std::span<const PlaceIx> m) { kept += keep(m); });
    if (kept == var.cands.count() && kept > 0)
        return true;
    if (kept == 0)
        return false;
    var.cands.filter(keep, kept);
    return true;
}

} // namespace sfg::enforce
