// Net preprocessing: a variable's Petri net N(G) (thesis Figure 4.11) as the tables the
// simulation reads, with the identity of its mechanisms abstracted away, and the marking
// operations of the firing rule (§4.3.1).
#pragma once

#include "indices.hpp"
#include "net_names.hpp"

#include "sfg/runtime/net.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg::enforce {

// The locks an accessing thread holds, of those that LOCK modes name (their mechanisms): what
// [READ LOCKED] and [WRITE LOCKED] ask about (thesis §5.2, docs/enforcement.md).
using HeldLocks = std::span<const MechIx>;
inline bool holds(HeldLocks held, MechIx m) {
    return std::find(held.begin(), held.end(), m) != held.end();
}

// Variables whose nets differ only in which lock (volatile, ...) they use share one NetShape.
// Places, transitions and modes are indexed as in the net.
struct NetShape {
    Net net;                                      // a representative (labels, edges' from/to)
    IndexVec<PlaceIx, NetThread> place_thread;    // Pid(p)
    IndexVec<PlaceIx, NetThread> acc_thread;      // Acc[t:a]: t; other places: none
    IndexVec<PlaceIx, std::uint8_t> acc_ex;       // Acc[t:a] permits writes: EX(t), LOCK_m(T)
    IndexVec<PlaceIx, MechIx> acc_lock;           // Acc[t:a], a = LOCK_m(T): m; others: none
    IndexVec<ModeIx, MechIx> mode_lock;           // LOCK_m(T): m; EX and RS: none
    bool lock_modes = false;                      // some mode is a LOCK mode
    IndexVec<PlaceIx, ModeIx> place_mode;         // the mode b with p in Q(b) (Definition 4.3.6)
    IndexVec<TransitionIx, std::uint32_t> tr_off; // transition r: pre [tr_off[r], tr_mid[r]),
    IndexVec<TransitionIx, std::uint32_t> tr_mid; //               post [tr_mid[r], tr_off[r + 1])
    std::vector<PlaceIx> tr_places;
    IndexVec<PlaceIx, std::vector<TransitionIx>> place_syncs; // sync transitions with p in •r
    // Fast path for one-token markings (every mode of a lock or volatile discipline has one
    // thread): single_next[r] = q when firing r on {•r} and closing under [SYNC] gives {q};
    // none when r's pre-set or the result is not a single place.
    IndexVec<TransitionIx, PlaceIx> single_next;
    IndexVec<ModeIx, std::vector<PlaceIx>> mode_acc;       // P(a), sorted
    IndexVec<ModeIx, std::vector<NetThread>> mode_threads; // Tid(a)
    IndexVec<ModeIx, std::string> mode_labels;             // "EX(t0)", "EX(t0)#3" when ambiguous
    std::vector<std::vector<PlaceIx>> initial;             // M0, sorted, distinct
    // Coloured barrier tokens (docs/enforcement.md, "Barrier rounds"): a barrier edge's tokens
    // belong to one generation of the barrier. Its sync marks a receiver's token *waiting*
    // (W[t:e], a place of our own after the net's, twin of PreRcv[t:e]) until t is inside that
    // generation, then *armed* (PreRcv[t:e], which rcv[t:e] takes from). A token that can no
    // longer fire is dead: it leaves the marking (CandidateMarkings::colour_step).
    bool coloured = false;                       // some edge is on a barrier
    IndexVec<PlaceIx, PlaceIx> twin;             // PreRcv[t:e] <-> W[t:e] of a barrier edge
    IndexVec<PlaceIx, EdgeIx> colour_edge;       // PostSnd, PreRcv and W of a barrier edge: e
    IndexVec<PlaceIx, std::uint8_t> colour_kind; // ColourKind
    std::vector<PlaceIx> coloured_places;        // those of a barrier edge, sorted
    enum ColourKind : std::uint8_t { uncoloured, sent, armed, waiting };
    std::size_t place_count() const { return place_thread.size(); } // the net's, then W places
    // The net's place that p is or is the twin of (W[t:e] -> PreRcv[t:e]).
    PlaceIx net_place(PlaceIx p) const { return colour_kind[p] == waiting ? twin[p] : p; }
    // The one mode a of a net without transitions (`var x : LOCK(m: T);`, Clang's GUARDED_BY),
    // when its threads' ids are below 64: its variables' candidates are M0 = P(a) for good, as
    // nothing fires and a violation re-synchronizes to P(a) or keeps them, so an access is
    // checked against a alone (fixed_permits). None for every other net.
    ModeIx fixed_mode;
    std::uint64_t fixed_threads = 0; // Tid(a) as bits by NetThread
    bool fixed_writes = false;       // a permits writes (EX, LOCK)

    // One-token shapes: every mode has one thread and every initial marking one place, so every
    // reachable marking is one place (Lemma 4.3.10) and a candidate set is a set of places. Their
    // variables are simulated lazily, by OneTokenGroups. Rows: the Acc places, where a
    // variable's candidates stand after a memory op; columns: every place a candidate can be
    // (PostSnd places are left at once by [SYNC], so they are not columns).
    bool one_token = false;
    IndexVec<PlaceIx, std::uint32_t> place_row; // Acc place -> row (no_row: not a row)
    std::vector<PlaceIx> row_place;
    IndexVec<PlaceIx, std::uint8_t> is_column; // a place a candidate can be
    std::vector<PlaceIx> col_place;
    // Sets of rows are bit sets of row_words words (one up to 64 rows, a thread pool's wider
    // disciplines more): the rows that permit a read, a write of thread t at [t * row_words ..];
    // M0 as rows.
    std::uint32_t row_words = 0;
    std::vector<std::uint64_t> permit_read, permit_write;
    std::vector<std::uint64_t> initial_rows;
    static constexpr std::uint32_t no_row = 0xffffffffu;

    std::span<const PlaceIx> pre(TransitionIx r) const {
        return {tr_places.data() + tr_off[r], tr_places.data() + tr_mid[r]};
    }
    std::span<const PlaceIx> post(TransitionIx r) const {
        return {tr_places.data() + tr_mid[r], tr_places.data() + tr_off[TransitionIx(r.v + 1)]};
    }
    // Whether mode a permits `write ? w : r` by thread t holding `held` ([WRITE/READ
    // EXCLUSIVE], [READ SHARED], [WRITE/READ LOCKED]).
    bool permits(ModeIx a, NetThread t, bool write, HeldLocks held) const;
    // The same, but for a LOCK mode whether it would if t held its lock.
    bool permits_locked(ModeIx a, NetThread t, bool write) const;
    // permits(fixed_mode, t, write, held), in a few instructions (fixed_mode valid).
    bool fixed_permits(NetThread t, bool write, HeldLocks held) const {
        return t.valid() && t.v < 64 && ((fixed_threads >> t.v) & 1) && (!write || fixed_writes) &&
               (!mode_lock[fixed_mode].valid() || holds(held, mode_lock[fixed_mode]));
    }
    // The modes b with p in Q(b): place_mode[p], or for the PostSnd (PreRcv) place of a family,
    // which is every one of its edges', the family's `from` (`to`) modes (net.hpp); appended.
    void place_modes(PlaceIx p, std::vector<ModeIx>& out) const;
    // Whether a candidate holding Acc place p permits the access.
    bool acc_permits(PlaceIx p, NetThread t, bool write, HeldLocks held) const {
        return acc_thread[p] == t && (!write || acc_ex[p]) &&
               (!acc_lock[p].valid() || holds(held, acc_lock[p]));
    }
};

// What a barrier op does to the colours of one variable's tokens on the edges of its barrier
// (docs/enforcement.md, "Barrier rounds"): after an arrival, the waiting tokens of the threads
// inside the open generation are armed; at a departure of t, t's armed tokens that did not fire
// die (and so they do before an arrival of t that follows an arrival without a departure); at
// the first departure of a generation, its sent and waiting tokens die. Explicit sets keep the
// sent ones until the next generation's first arrival (`open`): none can sync before, and their
// sets then repeat from round to round (CandidateMarkings::colour_steps).
struct ColourOp {
    enum Kind : std::uint8_t { enter, exit, close, open };
    Kind kind = enter;
    NetThread thread;                     // enter, exit
    std::span<const std::uint8_t> inside; // enter, close: by NetThread, inside the generation
    // exit: the tokens the departure's rcv step did not fire, which products killed in that
    // step (Move::dead) and the explicit sets at the barrier's next close; false:
    // before an arrival that follows an arrival without a departure (every representation).
    bool after_rcv = true;
    bool is_inside(NetThread u) const { return u.ix() < inside.size() && inside[u.ix()]; }
};

// Interns nets by structure.
class NetShapes {
public:
    ShapeIx intern(const Net& net, NetNames& names);
    const NetShape& operator[](ShapeIx s) const { return shapes_[s]; }

private:
    IndexVec<ShapeIx, NetShape> shapes_;
    std::unordered_map<std::string, ShapeIx> ids_; // structural key -> shape
};

// Marking operations on sorted place lists (elementary firing rule, thesis §4.3.1).
bool enabled(const NetShape& s, std::span<const PlaceIx> m, TransitionIx r);
// Fires r (enabled) on m into out, then fires every sync transition that becomes enabled
// ([SYNC] as an eager ε-move: the marking before it is •sync, which permits nothing else,
// Lemma 4.3.10).
void fire_closed(const NetShape& s, std::span<const PlaceIx> m, TransitionIx r,
                 std::vector<PlaceIx>& out, std::vector<PlaceIx>& tmp);

} // namespace sfg::enforce
