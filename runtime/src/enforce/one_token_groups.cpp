#include "one_token_groups.hpp"
#include "core/avx2_clone.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <tuple>

namespace sfg::enforce {

namespace {

// Each snd/rcv transition as the move of the one token it makes: from •r to close(r•).
std::vector<OneTokenGroups::TokenMove>
token_moves(const NetShape& s, std::span<const MechIx> edge_mechs, NetNames& names) {
    const Net& net = s.net;
    std::vector<OneTokenGroups::TokenMove> moves;
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync || t.edge >= net.edge_count())
            continue;
        const Role role = t.kind == TransitionKind::snd ? Role::snd : Role::rcv;
        const auto tr = TransitionIx::at(r);
        moves.push_back({sync_key(edge_mechs[t.edge], names.intern_thread(t.thread), role),
                         s.pre(tr)[0], s.single_next[tr]});
    }
    std::sort(moves.begin(), moves.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
    return moves;
}

// Storage columns by partition refinement (as in DFA minimization): two candidate places share
// a column when the same keys' moves write them from the same columns (and the same own row).
// block[p]: p's column (OneTokenGroups::no_column: p is not a candidate place). A barrier
// edge's PreRcv and W places are moved and emptied by colour steps of their own: each keeps a
// column of its own, from the first partition on.
IndexVec<PlaceIx, std::uint32_t>
partition_columns(const NetShape& s, const std::vector<OneTokenGroups::TokenMove>& moves,
                  std::uint32_t no_column) {
    const std::size_t np = s.place_count();
    IndexVec<PlaceIx, std::uint32_t> block(np, no_column);
    std::size_t blocks = 1;
    for (PlaceIx q : s.col_place)
        block[q] =
            s.colour_kind[q] == NetShape::uncoloured ? 0 : static_cast<std::uint32_t>(blocks++);
    for (;;) {
        using Sig = std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>>;
        IndexVec<PlaceIx, Sig> sig(np);
        for (const OneTokenGroups::TokenMove& m : moves)
            sig[m.to].emplace_back(m.key, block[m.from], s.place_row[m.from]);
        std::map<std::pair<std::uint32_t, Sig>, std::uint32_t> ids;
        IndexVec<PlaceIx, std::uint32_t> next(np, no_column);
        for (PlaceIx q : s.col_place) {
            Sig& g = sig[q];
            std::sort(g.begin(), g.end());
            g.erase(std::unique(g.begin(), g.end()), g.end());
            next[q] =
                ids.try_emplace({block[q], std::move(g)}, static_cast<std::uint32_t>(ids.size()))
                    .first->second;
        }
        std::swap(block, next);
        if (ids.size() == blocks)
            return block;
        blocks = ids.size();
    }
}

} // namespace

// Columns by partition refinement, then each key's rules, deduplicated, become the group's
// subscriptions.
GroupIx OneTokenGroups::group_for(ShapeIx shape, const NetShape& s,
                                  std::span<const MechIx> edge_mechs, NetNames& names,
                                  SyncIndex& index) {
    std::vector<std::uint32_t> group_key{shape.v};
    for (MechIx m : edge_mechs)
        group_key.push_back(m.v);
    auto [git, fresh] = group_ids_.try_emplace(group_key, groups_.next_index());
    if (!fresh)
        return git->second;
    const GroupIx gi = git->second;

    const std::vector<TokenMove> moves = token_moves(s, edge_mechs, names);
    const IndexVec<PlaceIx, std::uint32_t> block = partition_columns(s, moves, no_column);
    Group grp;
    grp.shape = shape;
    grp.column = block;
    for (std::uint32_t c : block)
        if (c != no_column)
            grp.cols = std::max(grp.cols, c + 1);
    grp.rows = static_cast<std::uint32_t>(s.row_place.size());
    grp.stride = (grp.rows + column_lanes - 1) / column_lanes * column_lanes;

    Summaries sums;
    sums.members_of.resize(grp.cols);
    sums.colour_col.assign(grp.cols, 0);
    for (PlaceIx q : s.col_place)
        if (s.colour_kind[q] != NetShape::uncoloured)
            sums.colour_col[block[q]] = 1;
    for (std::size_t i = 0; i < moves.size();) {
        std::size_t j = i;
        while (j < moves.size() && moves[j].key == moves[i].key)
            ++j;
        subscribe_key(gi, grp, s, std::span(moves).subspan(i, j - i), block, sums, index);
        i = j;
    }
    store_tables(grp, s, block, sums.members_of);
    add_colour_columns(gi, s, edge_mechs, block);
    wide_.emplace_back();
    if (wide(grp)) {
        WideTable& wt = wide_.back();
        wt.count.assign(grp.rows, 0);
        wt.slot.assign(grp.rows, WideTable::no_slot);
        for (std::uint32_t p = 0; p < grp.rows; ++p)
            if ((s.initial_rows[p / 64] >> (p % 64)) & 1)
                wt.initial.push_back(p);
    }
    groups_.push_back(std::move(grp));
    index.invalidate();
    return gi;
}

// One key's rules, deduplicated. Rules that merge several columns into one (an acq: one per
// possible releaser) read instead a summary column, the maximum of those sources, which is kept
// current as they grow (Group, summaries): an acq then merges one column, not eight. Only
// sources without an own row (PreRcv columns, written by snd ops) are summarized, so no op both
// reads a summary and writes one of its members; nor those a colour step empties.
void OneTokenGroups::subscribe_key(GroupIx gi, Group& grp, const NetShape& s,
                                   std::span<const TokenMove> moves,
                                   const IndexVec<PlaceIx, std::uint32_t>& block, Summaries& sums,
                                   SyncIndex& index) {
    std::vector<ReachRule> rules;
    for (const TokenMove& m : moves)
        rules.push_back({block[m.from], block[m.to], s.place_row[m.from]});
    // Rules without an own row first, by destination: the summaries take runs of them.
    auto order = [](const ReachRule& r) {
        return std::tuple(r.own != ReachRule::no_row, r.own, r.dst, r.src);
    };
    std::sort(rules.begin(), rules.end(),
              [&](const ReachRule& x, const ReachRule& y) { return order(x) < order(y); });
    rules.erase(std::unique(rules.begin(), rules.end()), rules.end());
    Subscription sub = Subscription::of(gi, static_cast<std::uint32_t>(rules_.size()));
    for (std::size_t k = 0; k < rules.size();) {
        std::size_t l = k + 1;
        while (l < rules.size() && rules[l].own == ReachRule::no_row &&
               rules[l].own == rules[k].own && rules[l].dst == rules[k].dst)
            ++l;
        bool coloured_src = false;
        for (std::size_t r = k; r < l; ++r)
            coloured_src = coloured_src || sums.colour_col[rules[r].src];
        if (rules[k].own != ReachRule::no_row || l - k < 3 || coloured_src) {
            rules_.insert(rules_.end(), rules.begin() + static_cast<std::ptrdiff_t>(k),
                          rules.begin() + static_cast<std::ptrdiff_t>(l));
            k = l;
            continue;
        }
        std::vector<std::uint32_t> srcs;
        for (std::size_t r = k; r < l; ++r)
            srcs.push_back(rules[r].src);
        auto [it, fresh_summary] = sums.summary_of.try_emplace(srcs, grp.cols);
        if (fresh_summary) {
            ++grp.cols;
            for (std::uint32_t c : srcs)
                sums.members_of[c].push_back(it->second);
        }
        rules_.push_back({it->second, rules[k].dst, ReachRule::no_row});
        k = l;
    }
    sub.count = static_cast<std::uint32_t>(rules_.size() - sub.begin);
    index.subscribe(moves.front().key, sub);
}

// The group's storage in the pools (Group): its reach table, each row's own column, then
// summary_begin (offsets from the first summary) and the summaries.
void OneTokenGroups::store_tables(Group& grp, const NetShape& s,
                                  const IndexVec<PlaceIx, std::uint32_t>& block,
                                  const std::vector<std::vector<std::uint32_t>>& members_of) {
    constexpr std::size_t line_words = cache_line / sizeof(std::uint64_t);
    grp.reach_at = (reach_pool_.size() + line_words - 1) / line_words * line_words;
    if (!wide(grp)) // a wide group's table is its WideTable
        reach_pool_.resize(grp.reach_at + std::size_t{grp.stride} * grp.cols, 0);
    grp.u32_at = u32_pool_.size();
    for (PlaceIx p : s.row_place)
        u32_pool_.push_back(block[p]);
    std::vector<std::uint32_t> summaries;
    u32_pool_.push_back(0);
    for (std::uint32_t c = 0; c < grp.cols; ++c) {
        if (c < members_of.size())
            summaries.insert(summaries.end(), members_of[c].begin(), members_of[c].end());
        u32_pool_.push_back(static_cast<std::uint32_t>(summaries.size()));
    }
    u32_pool_.insert(u32_pool_.end(), summaries.begin(), summaries.end());
}

void OneTokenGroups::add_colour_columns(GroupIx gi, const NetShape& s,
                                        std::span<const MechIx> edge_mechs,
                                        const IndexVec<PlaceIx, std::uint32_t>& column) {
    const auto colour_begin = static_cast<std::uint32_t>(colour_cols_.size());
    for (PlaceIx q : s.col_place) {
        const auto kind = s.colour_kind[q];
        if (kind == NetShape::uncoloured)
            continue;
        const MechIx m = edge_mechs[s.colour_edge[q].ix()];
        colour_cols_.push_back({m, s.place_thread[q], column[q],
                                kind == NetShape::waiting ? column[s.twin[q]] : no_column});
        if (coloured_.size() <= m.ix())
            coloured_.resize(m.ix() + 1);
        if (coloured_[m.ix()].empty() || coloured_[m.ix()].back() != gi)
            coloured_[m.ix()].push_back(gi);
    }
    colour_range_.emplace_back(colour_begin, static_cast<std::uint32_t>(colour_cols_.size()));
}

void OneTokenGroups::freeze(const NetShapes& shapes, std::size_t threads) {
    permit_stride_ = threads;
    permits_.assign(groups_.size() * 2 * permit_stride_, 0);
    wide_permit_rows_.clear();
    wide_permit_begin_.clear();
    wide_permit_at_.assign(groups_.size(), 0);
    for (GroupIx g : groups_.indices()) {
        const NetShape& s = shapes[groups_[g].shape];
        if (wide(groups_[g])) { // both tables as lists, every thread's (empty past the shape's)
            wide_permit_at_[g.ix()] = wide_permit_begin_.size();
            for (const auto* bits : {&s.permit_read, &s.permit_write})
                for (std::size_t t = 0; t < threads; ++t) {
                    wide_permit_begin_.push_back(
                        static_cast<std::uint32_t>(wide_permit_rows_.size()));
                    for (std::size_t w = t * s.row_words;
                         w < (t + 1) * s.row_words && w < bits->size(); ++w)
                        for (std::uint64_t b = (*bits)[w]; b; b &= b - 1)
                            wide_permit_rows_.push_back(static_cast<std::uint32_t>(
                                (w - t * s.row_words) * 64 + std::countr_zero(b)));
                }
            wide_permit_begin_.push_back(static_cast<std::uint32_t>(wide_permit_rows_.size()));
            continue;
        }
        std::copy(s.permit_read.begin(), s.permit_read.end(),
                  permits_.begin() + static_cast<std::ptrdiff_t>(g.ix() * 2 * permit_stride_));
        std::copy(s.permit_write.begin(), s.permit_write.end(),
                  permits_.begin() +
                      static_cast<std::ptrdiff_t>((g.ix() * 2 + 1) * permit_stride_));
    }
}

void OneTokenGroups::reset(const NetShapes& shapes, std::uint64_t now) {
    for (WideTable& wt : wide_) {
        std::fill(wt.count.begin(), wt.count.end(), 0);
        std::fill(wt.slot.begin(), wt.slot.end(), WideTable::no_slot);
        wt.live = 0;
        wt.free.clear();
        for (std::uint32_t k = wt.cap; k-- > 0;)
            wt.free.push_back(k);
    }
    for (VarIx v : lazy_.indices()) {
        const GroupIx g = var_group_[v];
        if (!g.valid())
            continue;
        if (!wide(groups_[g]))
            lazy_[v] = {now, shapes[groups_[g].shape].initial_rows[0]};
        else {
            wide_rows_[lazy_[v].rows] = wide_[g.ix()].initial;
            live_rows(g, wide_rows_[lazy_[v].rows], +1);
        }
        lazy_[v].since = now;
    }
    // Small tables cleared, so that what a step changes is what it did on this trace.
    for (GroupIx g : groups_.indices()) {
        const Group& grp = groups_[g];
        if (wide(grp))
            fit(g, 0);
        else
            std::fill_n(reach_of(grp), std::size_t{grp.stride} * grp.cols, 0);
    }
}

std::span<const std::uint32_t> OneTokenGroups::wide_permitting(GroupIx g, NetThread t,
                                                               bool write) const {
    if (!t.valid() || t.ix() >= permit_stride_)
        return {};
    const std::size_t k = wide_permit_at_[g.ix()] + write * permit_stride_ + t.ix();
    return {wide_permit_rows_.data() + wide_permit_begin_[k],
            wide_permit_rows_.data() + wide_permit_begin_[k + 1]};
}

// A row that comes alive takes a free slot, keeping whatever it holds (written before now, so as
// good as 0 to the variables that come to the row now).
void OneTokenGroups::live_rows(GroupIx g, std::span<const std::uint32_t> rows, int delta) {
    WideTable& wt = wide_[g.ix()];
    if (delta < 0) {
        for (std::uint32_t p : rows)
            if (--wt.count[p] == 0) {
                wt.free.push_back(wt.slot[p]);
                wt.slot[p] = WideTable::no_slot;
                --wt.live;
            }
        return;
    }
    std::uint32_t coming = 0; // one relayout for them all (a pool's initial rows: every row)
    for (std::uint32_t p : rows)
        coming += wt.count[p] == 0;
    fit(g, coming);
    for (std::uint32_t p : rows)
        if (wt.count[p]++ == 0) {
            wt.slot[p] = wt.free.back();
            wt.free.pop_back();
            ++wt.live;
        }
}

// A relayout costs the live rows' entries, cols x live words, and at most once a table's
// size, to allocate its spare (entries are never cleared). Slots double when the live rows
// need more, and shrink to twice the live rows when these fill under an eighth of them (many
// variables spread over the rows, then gathered on a few; a pool's variable at its initial
// rows, every row, then at its first accessor's).
void OneTokenGroups::fit(GroupIx g, std::uint32_t coming) {
    const WideTable& wt = wide_[g.ix()];
    const std::uint32_t need = wt.live + coming;
    auto round = [](std::uint32_t k) {
        return std::max(column_lanes, (k + column_lanes - 1) / column_lanes * column_lanes);
    };
    if (need > wt.cap)
        relayout(g, round(std::max(need, 2 * wt.cap)));
    else if (wt.cap > column_lanes && std::size_t{need} * 8 < wt.cap)
        relayout(g, round(2 * need));
}

void OneTokenGroups::relayout(GroupIx g, std::uint32_t cap) {
    WideTable& wt = wide_[g.ix()];
    const std::uint32_t cols = groups_[g].cols;
    if (wt.spare.size() < std::size_t{cols} * cap)
        wt.spare.resize(std::size_t{cols} * cap, 0);
    wt.moved.clear(); // old slot, new slot
    for (std::uint32_t& slot : wt.slot)
        if (slot != WideTable::no_slot) {
            wt.moved.emplace_back(slot, static_cast<std::uint32_t>(wt.moved.size()));
            slot = wt.moved.back().second;
        }
    for (std::uint32_t c = 0; c < cols; ++c)
        for (const auto& [from, to] : wt.moved)
            wt.spare[std::size_t{c} * cap + to] = wt.reach[std::size_t{c} * wt.cap + from];
    std::swap(wt.reach, wt.spare);
    wt.cap = cap;
    wt.free.clear();
    for (std::uint32_t k = cap; k-- > wt.live;)
        wt.free.push_back(k);
}

bool OneTokenGroups::reaches(std::span<const std::uint32_t> rows, std::uint64_t since,
                             const std::uint64_t* col, const std::uint32_t* slot_of) const {
    for (std::uint32_t p : rows)
        if (since < col[slot_of[p]])
            return true;
    return false;
}

// memory_step in a wide group: the same, row by row, keeping the live rows.
bool OneTokenGroups::wide_memory_step(VarIx v, GroupIx g, NetThread t, bool write,
                                      std::uint64_t now) {
    const Group& grp = groups_[g];
    LazyVariable& lz = lazy_[v];
    RowList& rows = wide_rows_[lz.rows];
    const WideTable& wt = wide_[g.ix()];
    wide_kept_.clear();
    for (std::uint32_t q : wide_permitting(g, t, write)) {
        const std::uint64_t* col = wt.reach.data() + std::size_t{row_column_of(grp)[q]} * wt.cap;
        if (std::binary_search(rows.begin(), rows.end(), q) ||
            reaches(rows, lz.since, col, wt.slot.data()))
            wide_kept_.push_back(q);
    }
    if (wide_kept_.empty())
        return false;
    set_wide_rows(g, rows, wide_kept_);
    lz.since = now;
    return true;
}

void OneTokenGroups::wide_resync(VarIx v, GroupIx g, NetThread t, bool write, std::uint64_t now) {
    const std::span<const std::uint32_t> want = wide_permitting(g, t, write);
    if (want.empty())
        return;
    set_wide_rows(g, wide_rows_[lazy_[v].rows], want);
    lazy_[v].since = now;
}

// The new rows counted in before the old ones out, so that a row in both keeps its slot.
void OneTokenGroups::set_wide_rows(GroupIx g, RowList& rows, std::span<const std::uint32_t> to) {
    live_rows(g, to, +1);
    live_rows(g, rows, -1);
    rows.assign(to.begin(), to.end());
    fit(g, 0);
}

namespace {
// dst = max(dst, src) over a column, branch-free (which one wins is data, and a branch would
// mispredict); returns whether dst grew. Times are below 2^63, so the signed compare that AVX2
// has is exact. A column is `stride` words, a multiple of column_lanes (its padding stays 0),
// taken as one vector of column_lanes words at a time (GCC's vector extension: one AVX2 register,
// or pairs of SSE2 ones in the default clone); whether any lane grew is reduced once, at the end.
using lane_vector [[gnu::vector_size(column_lanes * sizeof(std::int64_t))]] = std::int64_t;
[[gnu::always_inline]] inline bool
merge_max(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t stride) {
    lane_vector grew{};
    for (std::size_t p = 0; p < stride; p += column_lanes) {
        lane_vector d, v;
        std::memcpy(&d, dst + p, sizeof d);
        std::memcpy(&v, src + p, sizeof v);
        const lane_vector take = v > d; // all ones where src is later
        grew |= take;
        d = (v & take) | (d & ~take);
        std::memcpy(dst + p, &d, sizeof d);
    }
    std::int64_t any = 0;
    for (std::size_t k = 0; k < column_lanes; ++k)
        any |= grew[k];
    return any != 0;
}

// The rules of one op on one group's table (OneTokenGroups::step); returns whether it changed.
// own(row): the row's index in a column, or no_row where no variable stands on it (a wide
// group's row without a slot: nothing reads its entries). One dispatch per op, not per rule.
template <class Own>
[[gnu::always_inline]] inline bool
apply_rules_with(std::uint64_t* const reach, std::size_t stride,
                 const std::uint32_t* const summary_begin, const std::uint32_t* const summaries,
                 std::span<const ReachRule> rules, std::uint64_t now, Own own) {
    bool changed = false;
    for (const ReachRule& r : rules) {
        std::uint64_t* dst = reach + std::size_t{r.dst} * stride;
        bool grew = merge_max(dst, reach + std::size_t{r.src} * stride, stride);
        if (r.own != ReachRule::no_row) { // p = p': any start before now reaches dst
            if (const std::uint32_t at = own(r.own); at != ReachRule::no_row) {
                grew |= dst[at] != now;
                dst[at] = now;
            }
        }
        if (grew) // keep the summaries dst is a member of current
            for (std::uint32_t k = summary_begin[r.dst]; k < summary_begin[r.dst + 1]; ++k)
                merge_max(reach + std::size_t{summaries[k]} * stride, dst, stride);
        changed |= grew;
    }
    return changed;
}
// SFG_SIMD (docs/architecture.md): an AVX2 clone beside the default one, chosen at load time;
// both compile this same loop, the default clone is what builds without SFG_SIMD run.
SFG_AVX2_CLONE
bool apply_rules(std::uint64_t* const reach, std::size_t stride,
                 const std::uint32_t* const summary_begin, const std::uint32_t* const summaries,
                 std::span<const ReachRule> rules, std::uint64_t now) {
    return apply_rules_with(reach, stride, summary_begin, summaries, rules, now,
                            [](std::uint32_t row) { return row; });
}
// A wide group's: rows by their slots.
SFG_AVX2_CLONE
bool apply_rules_slots(std::uint64_t* const reach, std::size_t cap,
                       const std::uint32_t* const summary_begin,
                       const std::uint32_t* const summaries, std::span<const ReachRule> rules,
                       std::uint64_t now, const std::uint32_t* const slot_of) {
    return apply_rules_with(reach, cap, summary_begin, summaries, rules, now,
                            [slot_of](std::uint32_t row) { return slot_of[row]; });
}
} // namespace

// For each rule and each row p, reach[p][dst] = max(reach[p][dst], reach[p][src]), and
// reach[own][dst] = now. No op chains two transitions (snd reads Acc places and writes PreRcv
// ones, rcv the reverse; NetShape's one-token test checks it, and merged columns keep the two
// apart), so the order of the rules does not matter.
bool OneTokenGroups::step(GroupIx g, std::span<const ReachRule> rules, std::uint64_t now) {
    const Group& grp = groups_[g];
    const std::uint32_t* summary_begin = summary_begin_of(grp);
    if (wide(grp)) {
        WideTable& wt = wide_[g.ix()];
        return apply_rules_slots(wt.reach.data(), wt.cap, summary_begin,
                                 summary_begin + grp.cols + 1, rules, now, wt.slot.data());
    }
    return apply_rules(reach_of(grp), grp.stride, summary_begin, summary_begin + grp.cols + 1,
                       rules, now);
}

// The colour moves (ColourOp) as column operations: a token that dies empties its column (no
// start time reaches it now; a later move fills it again from its source, as any column), a
// waiting token that is armed moves its column into its PreRcv twin's.
void OneTokenGroups::colour_step(GroupIx g, MechIx m, const ColourOp& op) {
    const std::pair<std::uint64_t*, std::size_t> table = table_of(g);
    std::uint64_t* const reach = table.first;
    const std::size_t stride = table.second;
    auto column = [&](std::uint32_t c) { return reach + std::size_t{c} * stride; };
    const auto [begin, end] = colour_range_[g.ix()];
    const std::span<const ColourColumn> cols(colour_cols_.data() + begin,
                                             colour_cols_.data() + end);
    for (const ColourColumn& cc : cols) {
        if (cc.mech != m)
            continue;
        const bool waiting = cc.armed != no_column;
        const bool dies = op.kind == ColourOp::close  ? waiting
                          : op.kind == ColourOp::exit ? !waiting && cc.thread == op.thread
                                                      : false;
        if (dies)
            std::fill(column(cc.col), column(cc.col) + stride, 0);
    }
    if (op.kind != ColourOp::enter)
        return;
    for (const ColourColumn& cc : cols)
        if (cc.mech == m && cc.armed != no_column && op.is_inside(cc.thread)) {
            std::uint64_t* w = column(cc.col);
            std::uint64_t* a = column(cc.armed);
            for (std::size_t p = 0; p < stride; ++p)
                a[p] = std::max(a[p], w[p]);
            std::fill(w, w + stride, 0);
        }
}

void OneTokenGroups::materialize(VarIx v, const NetShapes& shapes, CandidateSet& out) const {
    const LazyVariable& lz = lazy_[v];
    const GroupIx g = var_group_[v];
    const Group& grp = groups_[g];
    const NetShape& s = shapes[grp.shape];
    // The variable's rows, as a list (a small group's: its bits), and their slots.
    RowList small_rows;
    for (std::uint64_t bits = wide(grp) ? 0 : lz.rows; bits; bits &= bits - 1)
        small_rows.push_back(static_cast<std::uint32_t>(std::countr_zero(bits)));
    const RowList& rows = wide(grp) ? wide_rows_[lz.rows] : small_rows;
    RowList identity(wide(grp) ? 0 : grp.rows);
    for (std::uint32_t p = 0; p < identity.size(); ++p)
        identity[p] = p;
    const std::uint32_t* slot_of = wide(grp) ? wide_[g.ix()].slot.data() : identity.data();
    const std::uint64_t* reach = wide(grp) ? wide_[g.ix()].reach.data() : reach_of(grp);
    const std::size_t stride = wide(grp) ? wide_[g.ix()].cap : grp.stride;
    // Per storage column (a pool's n^2 PreRcv places are n columns), then per place.
    std::vector<std::uint8_t> reached(grp.cols);
    for (std::uint32_t c = 0; c < grp.cols; ++c)
        reached[c] = reaches(rows, lz.since, reach + std::size_t{c} * stride, slot_of);
    out.clear();
    for (const PlaceIx q : s.col_place) {
        const std::uint32_t row = s.place_row[q];
        if (reached[grp.column[q]] ||
            (row != NetShape::no_row && std::binary_search(rows.begin(), rows.end(), row)))
            out.push(std::span<const PlaceIx>(&q, 1));
    }
}

} // namespace sfg::enforce
