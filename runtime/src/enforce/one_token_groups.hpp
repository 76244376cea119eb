// The lazy engine for one-token variables (docs/enforcement.md, "Many variables without Figure
// 5.2's linear cost"): variables of one one-token NetShape whose edges carry the same
// mechanisms see the same sync ops, so one reachability table per group serves them all.
//
// A sync op maps each candidate place to itself ([SKIP]) plus at most one successor
// ([SEND]/[RECEIVE], closed by [SYNC]), so the candidates of a variable whose memory op at time
// i left it on the places R are, now,
//     { q | q reachable from some p in R through the sync ops after i },
// and starting earlier reaches at least as much (skip the ops in between). Hence q is a
// candidate iff i < reach[p][q] for some p in R (or q = p), where reach[p][q] is the latest
// time from which p still reaches q: a sync op at time k with transitions p' -> q' sets
//     reach[p][q'] = max(reach[p][q'], p = p' ? k : reach[p][p']),
// which costs rows x transitions once per op, however many variables share the group (thesis
// §5.3's linear cost is gone even for the variables of one lock), and a memory op reads
// |R| x |permitting places| entries. Times are the enforcer's event count.
//
// Only the rows some variable stands on are read: a variable that comes to row p at time i
// reads only entries above i, and every entry written before i is at most i. So a wide group's
// table holds the *live* rows alone, each in a slot of its own while some variable stands on it
// (a pool of n workers under [EX(each W)]^m: a few slots, not n rows, and an op merges columns
// of a few words), and a slot that a row takes over needs no clearing: whatever it holds was
// written before.
//
// Columns that the same rules always write from the same sources hold the same values (all start
// at 0), so they share storage: in [tl]^m, the PreRcv places that one thread's rel(m) fills
// (one per possible next owner) are one column, and rel(m) updates one column, not eight.
#pragma once

#include "candidate_set.hpp"
#include "indices.hpp"
#include "net_shape.hpp"
#include "sync_index.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <span>
#include <utility>
#include <vector>

namespace sfg::enforce {

// A group's table is stored by column, each padded to a multiple of this many words (the padding
// stays 0), so that a column is merged a vector at a time.
inline constexpr std::uint32_t column_lanes = 4;

// The reach pool's storage starts on a cache line, and each group's table on a line of its own:
// a table of two lines (a lock discipline of two threads) then costs two misses where its first
// op finds it out of the caches, not three (bench_enforce's Indexed_Shuffled at 10^5 variables:
// std::vector's 16-byte alignment made the difference of 1.1-1.2x, bench/README.md).
inline constexpr std::size_t cache_line = 64;
template <class T>
struct LineAllocator {
    using value_type = T;
    LineAllocator() = default;
    template <class U>
    LineAllocator(const LineAllocator<U>&) {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{cache_line}));
    }
    void deallocate(T* p, std::size_t) { ::operator delete (p, std::align_val_t{cache_line}); }
    friend bool operator==(const LineAllocator&, const LineAllocator&) { return true; }
};

// One update of a group's table: reach[p][dst] = max(reach[p][dst], reach[p][src]) for every
// row p, and reach[own][dst] = now when the source is the Acc place of row `own`.
struct ReachRule {
    static constexpr std::uint32_t no_row = NetShape::no_row;
    std::uint32_t src = 0, dst = 0; // storage columns
    std::uint32_t own = no_row;
    friend bool operator==(const ReachRule&, const ReachRule&) = default;
};

// A lazy variable's state, in an array of its own (a memory op reads nothing else of the
// variable; 16 bytes, so a thousand fit in L1): its candidates as of its last memory op, at time
// `since`: the places of the rows in `rows`. A wide group (more than 16 rows, such as a pool's
// `[EX(each W)]^m`) keeps its variables' rows apart, `rows` being their index in a list of lists.
struct alignas(16) LazyVariable {
    std::uint64_t since = 0;
    std::uint64_t rows = 0;
};

class OneTokenGroups {
public:
    // The group of a one-token variable with this shape and these edge mechanisms; a new one
    // gets its storage and subscribes its rules to the index.
    GroupIx group_for(ShapeIx shape, const NetShape& s, std::span<const MechIx> edge_mechs,
                      NetNames& names, SyncIndex& index);
    // The variable at v, the next index: in group g (none: a CandidateMarkings variable).
    void add_variable(GroupIx g, const NetShape& s, std::uint64_t now) {
        var_group_.push_back(g);
        if (!g.valid())
            return lazy_.push_back(LazyVariable{});
        if (!wide(groups_[g]))
            return lazy_.push_back(LazyVariable{now, s.initial_rows[0]});
        lazy_.push_back(LazyVariable{now, wide_rows_.size()});
        wide_rows_.push_back(wide_[g.ix()].initial);
        live_rows(g, wide_rows_.back(), +1);
    }
    // Every group's rows permitting each access, by thread (after threads or groups changed).
    void freeze(const NetShapes& shapes, std::size_t threads);
    // Every variable back at its initial rows at time `now`, later than every time before. A
    // wide group's slots are not cleared: their entries are all earlier than now, which is as
    // good as 0 (a candidate needs an entry later than its variable's time).
    void reset(const NetShapes& shapes, std::uint64_t now);

    std::span<const ReachRule> rules(const Subscription& sub) const {
        return {rules_.data() + sub.begin, sub.count};
    }
    // The rows of group g that permit `write ? w : r` by thread t (none in a wide group: its
    // memory ops take memory_step's wide path).
    std::uint64_t permitting_rows(GroupIx g, NetThread t, bool write) const {
        return t.valid() ? permits_[(g.ix() * 2 + write) * permit_stride_ + t.ix()] : 0;
    }
    // A memory op's fast path: every permitting row is a candidate, so they stay.
    bool keep_if_all_permit(VarIx v, std::uint64_t want, std::uint64_t now) {
        LazyVariable& lz = lazy_[v];
        if (want && (want & ~lz.rows) == 0) {
            lz.rows = want;
            lz.since = now;
            return true;
        }
        return false;
    }
    // A memory op `write ? w : r` by t (want: its permitting rows): keeps the permitting rows
    // reachable from the last memory op's; false: none (a violation), the state left as it was
    // (for the explanation), then resync().
    // Inline: the coordinator's memory op is one function, as memory ops are most events.
    bool memory_step(VarIx v, GroupIx g, NetThread t, bool write, std::uint64_t want,
                     std::uint64_t now);
    // The re-synchronized state: the permitting rows (docs/enforcement.md); none: unchanged.
    void resync(VarIx v, GroupIx g, NetThread t, bool write, std::uint64_t want,
                std::uint64_t now) {
        if (wide(groups_[g]))
            return wide_resync(v, g, t, write, now);
        if (want)
            lazy_[v] = {now, want};
    }
    // A sync op's rules on group g at time now; returns whether the table changed (in a wide
    // group: some slot's entry, live or not).
    bool step(GroupIx g, std::span<const ReachRule> rules, std::uint64_t now);
    // The groups with edges on barrier m (NetShape::coloured), and the colour moves of an op on
    // m on one of them.
    std::span<const GroupIx> coloured(MechIx m) const {
        return m.ix() < coloured_.size() ? std::span<const GroupIx>(coloured_[m.ix()])
                                         : std::span<const GroupIx>();
    }
    void colour_step(GroupIx g, MechIx m, const ColourOp& op);
    // The candidates of a lazy variable now, as one-place markings.
    void materialize(VarIx v, const NetShapes& shapes, CandidateSet& out) const;

private:
    struct Group {
        ShapeIx shape;
        std::uint32_t cols = 0;
        std::uint32_t rows = 0;
        std::uint32_t stride = 0; // words per column: rows rounded up to column_lanes
        // The tables every op on the group reads, in two pools in group order (reach_pool_,
        // u32_pool_), so that a group's state is a few adjacent cache lines and variables
        // visited in order stream through memory (bench_enforce's round robin):
        //   reach_pool_[reach_at ..]: reach[p][q] at [column[q] * stride + row(p)], stride x cols
        //   words (a wide group's is a WideTable of its own);
        //   u32_pool_[u32_at ..]: the column of each row's own place (rows entries), then
        //   summary_begin (cols + 1 entries), then the summaries.
        std::size_t reach_at = 0;
        std::size_t u32_at = 0;
        IndexVec<PlaceIx, std::uint32_t> column; // place -> storage column (no_column: none)
        // Summary columns (after the places' columns; group_for): the maximum of a set of
        // columns that some op's rules all merge into one destination. Column c is a member of
        // summaries[summary_begin[c] .. summary_begin[c + 1]), which are merged from c when it
        // grows.
    };
    static constexpr std::uint32_t no_column = 0xffffffffu;
    // A group of more than 16 rows is *wide*: its sets of rows are sorted lists of rows apart
    // from LazyVariable (a pool's variable stands on a row or two of 1,025, whose bit sets would
    // be 17 words to scan), and its table holds its live rows alone (WideTable). Past 16 rows
    // merging whole columns costs more than following the live rows (bench_enforce's BM_Pool, a
    // pool of 8 to 256 workers).
    static bool wide(const Group& g) { return g.rows > wide_from; }
    static constexpr std::uint32_t wide_from = 16;
    using RowList = std::vector<std::uint32_t>;
    // The rows of wide group g that permit the access (none: t is unknown).
    std::span<const std::uint32_t> wide_permitting(GroupIx g, NetThread t, bool write) const;
    [[gnu::noinline]] bool wide_memory_step(VarIx v, GroupIx g, NetThread t, bool write,
                                            std::uint64_t now);
    void wide_resync(VarIx v, GroupIx g, NetThread t, bool write, std::uint64_t now);
    // Counts the rows of a wide group's variable in (+1) or out (-1) of its live rows, giving a
    // row that comes alive a slot and taking it from one that dies.
    void live_rows(GroupIx g, std::span<const std::uint32_t> rows, int delta);
    // A wide group's variable's rows become `to`.
    void set_wide_rows(GroupIx g, RowList& rows, std::span<const std::uint32_t> to);
    // Room in a wide group's table for `coming` more live rows; fewer slots when the live rows
    // fill under an eighth of them.
    void fit(GroupIx g, std::uint32_t coming);
    // Whether a row of a wide group's `rows` reaches column col (indexed by slot) since `since`.
    bool reaches(std::span<const std::uint32_t> rows, std::uint64_t since, const std::uint64_t* col,
                 const std::uint32_t* slot_of) const;

    std::uint64_t* reach_of(const Group& g) { return reach_pool_.data() + g.reach_at; }
    const std::uint64_t* reach_of(const Group& g) const { return reach_pool_.data() + g.reach_at; }
    // Group g's table and its words per column, wide or not.
    std::pair<std::uint64_t*, std::size_t> table_of(GroupIx g) {
        if (wide(groups_[g]))
            return {wide_[g.ix()].reach.data(), wide_[g.ix()].cap};
        return {reach_of(groups_[g]), groups_[g].stride};
    }
    const std::uint32_t* row_column_of(const Group& g) const { return u32_pool_.data() + g.u32_at; }
    const std::uint32_t* summary_begin_of(const Group& g) const {
        return u32_pool_.data() + g.u32_at + g.rows;
    }

    // The column of a barrier edge's armed (PreRcv) or waiting (W) place of one thread; a
    // waiting one's armed twin (no_column: it is armed).
    struct ColourColumn {
        MechIx mech;
        NetThread thread;
        std::uint32_t col = 0, armed = no_column;
    };
    std::vector<ColourColumn> colour_cols_;

public:
    // A snd or rcv transition as the move of the one token it makes (group_for).
    struct TokenMove {
        std::uint64_t key;
        PlaceIx from, to;
    };

private:
    // group_for's summary columns as they are made: by their sources, and each column's
    // summaries; the columns a colour step empties (never summarized).
    struct Summaries {
        std::map<std::vector<std::uint32_t>, std::uint32_t> summary_of;
        std::vector<std::vector<std::uint32_t>> members_of;
        std::vector<std::uint8_t> colour_col;
    };
    void subscribe_key(GroupIx gi, Group& grp, const NetShape& s, std::span<const TokenMove> moves,
                       const IndexVec<PlaceIx, std::uint32_t>& block, Summaries& sums,
                       SyncIndex& index);
    void store_tables(Group& grp, const NetShape& s, const IndexVec<PlaceIx, std::uint32_t>& block,
                      const std::vector<std::vector<std::uint32_t>>& members_of);
    // Group gi's ColourColumns (group_for), its places' storage columns given.
    void add_colour_columns(GroupIx gi, const NetShape& s, std::span<const MechIx> edge_mechs,
                            const IndexVec<PlaceIx, std::uint32_t>& column);
    // By group, its ColourColumns' range in colour_cols_ (apart from Group, which every op on
    // the group reads: these only colour steps do).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> colour_range_;
    std::vector<std::vector<GroupIx>> coloured_; // by barrier MechIx

    IndexVec<GroupIx, Group> groups_;
    std::map<std::vector<std::uint32_t>, GroupIx> group_ids_; // shape, edge mechs -> group
    std::vector<std::uint64_t, LineAllocator<std::uint64_t>> reach_pool_; // Group::reach_at
    std::vector<std::uint32_t> u32_pool_;                                 // Group::u32_at
    std::vector<ReachRule> rules_;                                        // Subscription ranges
    IndexVec<VarIx, LazyVariable> lazy_;
    IndexVec<VarIx, GroupIx> var_group_;
    // NetShape::permit_read / permit_write of every group, flat: rows permitting an access of
    // thread t at [(group * 2 + write) * permit_stride_ + t] (every thread is below the stride).
    std::vector<std::uint64_t> permits_;
    std::size_t permit_stride_ = 0;
    // Wide groups: their permitting rows, those of entry k = wide_permit_at_[group] + write *
    // permit_stride_ + t at wide_permit_rows_[wide_permit_begin_[k] .. wide_permit_begin_[k +
    // 1]); their variables' rows (LazyVariable::rows); a memory op's kept rows.
    std::vector<std::uint32_t> wide_permit_rows_, wide_permit_begin_;
    std::vector<std::size_t> wide_permit_at_;
    std::vector<RowList> wide_rows_;
    RowList wide_kept_;
    // By group (empty but for wide ones): the table of the live rows, reach[p][q] at
    // [column[q] * cap + slot[p]] (cap slots, a multiple of column_lanes), and the storage of
    // the next layout; how many variables stand on each row, each live row's slot (no_slot:
    // the row is not live) and the free slots; the initial rows.
    struct WideTable {
        static constexpr std::uint32_t no_slot = NetShape::no_row;
        std::vector<std::uint64_t, LineAllocator<std::uint64_t>> reach, spare;
        std::uint32_t cap = 0, live = 0;
        std::vector<std::uint32_t> count, slot, free;
        RowList initial;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> moved; // relayout's
    };
    // A wide table of `cap` slots, the live rows' entries moved to slots 0, 1, ... in row order.
    void relayout(GroupIx g, std::uint32_t cap);
    std::vector<WideTable> wide_;
};

inline bool OneTokenGroups::memory_step(VarIx v, GroupIx g, NetThread t, bool write,
                                        std::uint64_t want, std::uint64_t now) {
    LazyVariable& lz = lazy_[v];
    const Group& grp = groups_[g];
    if (wide(grp))
        return wide_memory_step(v, g, t, write, now);
    std::uint64_t kept = want & lz.rows; // q = p: the candidate stayed where it was
    for (std::uint64_t qs = want & ~kept; qs; qs &= qs - 1) {
        const int q = std::countr_zero(qs);
        const std::uint64_t* col = reach_of(grp) + std::size_t{row_column_of(grp)[q]} * grp.stride;
        for (std::uint64_t rows = lz.rows; rows; rows &= rows - 1)
            if (lz.since < col[std::countr_zero(rows)]) {
                kept |= std::uint64_t{1} << q;
                break;
            }
    }
    if (!kept)
        return false;
    lz.rows = kept;
    lz.since = now;
    return true;
}

} // namespace sfg::enforce
