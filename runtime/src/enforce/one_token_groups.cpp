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
    live_.emplace_back();
    if (wide(grp)) {
        live_.back().count.assign(grp.rows, 0);
        live_.back().at.assign(grp.rows, 0);
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
    wide_permits_.clear();
    wide_permit_at_.assign(groups_.size(), 0);
    for (GroupIx g : groups_.indices()) {
        const NetShape& s = shapes[groups_[g].shape];
        if (wide(groups_[g])) { // both tables, whole, padded to every thread
            wide_permit_at_[g.ix()] = wide_permits_.size();
            for (const auto* bits : {&s.permit_read, &s.permit_write}) {
                wide_permits_.insert(wide_permits_.end(), bits->begin(), bits->end());
                wide_permits_.resize(wide_permits_.size() + threads * s.row_words - bits->size());
            }
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
    for (LiveRows& live : live_) {
        std::fill(live.count.begin(), live.count.end(), 0);
        live.list.clear();
    }
    for (VarIx v : lazy_.indices()) {
        const GroupIx g = var_group_[v];
        if (!g.valid())
            continue;
        const std::vector<std::uint64_t>& initial = shapes[groups_[g].shape].initial_rows;
        if (!wide(groups_[g]))
            lazy_[v] = {now, initial[0]};
        else {
            std::copy(initial.begin(), initial.end(),
                      wide_rows_.begin() + static_cast<std::ptrdiff_t>(lazy_[v].rows));
            live_rows(g, initial.data(), +1);
        }
        lazy_[v].since = now;
    }
    for (const Group& g : groups_)
        if (!wide(g)) // small: cleared, so that what a step changes is what it did on this trace
            std::fill_n(reach_of(g), std::size_t{g.stride} * g.cols, 0);
}

const std::uint64_t* OneTokenGroups::wide_permitting(GroupIx g, NetThread t, bool write) const {
    if (!t.valid() || t.ix() >= permit_stride_)
        return nullptr;
    return wide_permits_.data() + wide_permit_at_[g.ix()] +
           (write * permit_stride_ + t.ix()) * row_words(groups_[g]);
}

void OneTokenGroups::live_rows(GroupIx g, const std::uint64_t* rows, int delta) {
    LiveRows& live = live_[g.ix()];
    for (std::size_t w = 0; w < row_words(groups_[g]); ++w)
        for (std::uint64_t bits = rows[w]; bits; bits &= bits - 1) {
            const auto p = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
            if (delta > 0 && live.count[p]++ == 0) {
                live.at[p] = static_cast<std::uint32_t>(live.list.size());
                live.list.push_back(p);
            } else if (delta < 0 && --live.count[p] == 0) {
                live.at[live.list.back()] = live.at[p];
                live.list[live.at[p]] = live.list.back();
                live.list.pop_back();
            }
        }
}

bool OneTokenGroups::reaches(const Group& g, const std::uint64_t* rows, std::uint64_t since,
                             const std::uint64_t* col, std::uint32_t row) const {
    for (std::size_t w = 0; w < row_words(g); ++w)
        for (std::uint64_t bits = rows[w]; bits; bits &= bits - 1) {
            const auto p = static_cast<std::uint32_t>(w * 64 + std::countr_zero(bits));
            if (p == row || since < col[p])
                return true;
        }
    return false;
}

// memory_step in a wide group: the same, word by word, keeping the live rows.
bool OneTokenGroups::wide_memory_step(VarIx v, GroupIx g, NetThread t, bool write,
                                      std::uint64_t now) {
    const Group& grp = groups_[g];
    const std::size_t words = row_words(grp);
    LazyVariable& lz = lazy_[v];
    std::uint64_t* rows = wide_rows_.data() + lz.rows;
    const std::uint64_t* want = wide_permitting(g, t, write);
    if (!want)
        return false;
    wide_kept_.assign(words, 0);
    bool any = false;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t kept = want[w] & rows[w];
        for (std::uint64_t qs = want[w] & ~kept; qs; qs &= qs - 1) {
            const auto q = static_cast<std::uint32_t>(w * 64 + std::countr_zero(qs));
            const std::uint64_t* col =
                reach_of(grp) + std::size_t{row_column_of(grp)[q]} * grp.stride;
            if (reaches(grp, rows, lz.since, col, NetShape::no_row))
                kept |= std::uint64_t{1} << (q % 64);
        }
        wide_kept_[w] = kept;
        any = any || kept;
    }
    if (!any)
        return false;
    live_rows(g, rows, -1);
    std::copy(wide_kept_.begin(), wide_kept_.end(), rows);
    live_rows(g, rows, +1);
    lz.since = now;
    return true;
}

void OneTokenGroups::wide_resync(VarIx v, GroupIx g, NetThread t, bool write, std::uint64_t now) {
    const std::uint64_t* want = wide_permitting(g, t, write);
    const std::size_t words = row_words(groups_[g]);
    if (!want || std::all_of(want, want + words, [](std::uint64_t w) { return w == 0; }))
        return;
    std::uint64_t* rows = wide_rows_.data() + lazy_[v].rows;
    live_rows(g, rows, -1);
    std::copy(want, want + words, rows);
    live_rows(g, rows, +1);
    lazy_[v].since = now;
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
// One dispatch per op, not per rule.
// SFG_SIMD (docs/architecture.md): an AVX2 clone beside the default one, chosen at load time;
// both compile this same loop, the default clone is what builds without SFG_SIMD run.
SFG_AVX2_CLONE
bool apply_rules(std::uint64_t* const reach, std::size_t stride,
                 const std::uint32_t* const summary_begin, const std::uint32_t* const summaries,
                 std::span<const ReachRule> rules, std::uint64_t now) {
    bool changed = false;
    for (const ReachRule& r : rules) {
        std::uint64_t* dst = reach + std::size_t{r.dst} * stride;
        bool grew = merge_max(dst, reach + std::size_t{r.src} * stride, stride);
        if (r.own != ReachRule::no_row) { // p = p': any start before now reaches dst
            grew |= dst[r.own] != now;
            dst[r.own] = now;
        }
        if (grew) // keep the summaries dst is a member of current
            for (std::uint32_t k = summary_begin[r.dst]; k < summary_begin[r.dst + 1]; ++k)
                merge_max(reach + std::size_t{summaries[k]} * stride, dst, stride);
        changed |= grew;
    }
    return changed;
}
// apply_rules at the live rows alone (a wide group, OneTokenGroups).
bool apply_rules_live(std::uint64_t* const reach, std::size_t stride,
                      const std::uint32_t* const summary_begin,
                      const std::uint32_t* const summaries, std::span<const ReachRule> rules,
                      std::uint64_t now, std::span<const std::uint32_t> live) {
    bool changed = false;
    for (const ReachRule& r : rules) {
        std::uint64_t* dst = reach + std::size_t{r.dst} * stride;
        const std::uint64_t* src = reach + std::size_t{r.src} * stride;
        bool grew = false;
        for (std::uint32_t p : live)
            if (src[p] > dst[p]) {
                dst[p] = src[p];
                grew = true;
            }
        if (r.own != ReachRule::no_row) {
            grew |= dst[r.own] != now;
            dst[r.own] = now;
        }
        if (grew)
            for (std::uint32_t k = summary_begin[r.dst]; k < summary_begin[r.dst + 1]; ++k) {
                std::uint64_t* sum = reach + std::size_t{summaries[k]} * stride;
                for (std::uint32_t p : live)
                    sum[p] = std::max(sum[p], dst[p]);
                if (r.own != ReachRule::no_row)
                    sum[r.own] = std::max(sum[r.own], now);
            }
        changed |= grew;
    }
    return changed;
}
} // namespace

// For each rule and each row p, reach[p][dst] = max(reach[p][dst], reach[p][src]), and
// reach[own][dst] = now. No op chains two transitions (snd reads Acc places and writes PreRcv
// ones, rcv the reverse; NetShape's one-token test checks it, and merged columns keep the two
// apart), so the order of the rules does not matter.
bool OneTokenGroups::step(GroupIx g, std::span<const ReachRule> rules, std::uint64_t now) {
    const Group& grp = groups_[g];
    if (wide(grp) && live_[g.ix()].list.size() * 8 < grp.rows)
        return apply_rules_live(reach_of(grp), grp.stride, summary_begin_of(grp),
                                summary_begin_of(grp) + grp.cols + 1, rules, now,
                                live_[g.ix()].list);
    return apply_rules(reach_of(grp), grp.stride, summary_begin_of(grp),
                       summary_begin_of(grp) + grp.cols + 1, rules, now);
}

// The colour moves (ColourOp) as column operations: a token that dies empties its column (no
// start time reaches it now; a later move fills it again from its source, as any column), a
// waiting token that is armed moves its column into its PreRcv twin's.
void OneTokenGroups::colour_step(GroupIx g, MechIx m, const ColourOp& op) {
    const Group& grp = groups_[g];
    std::uint64_t* reach = reach_of(grp);
    auto column = [&](std::uint32_t c) { return reach + std::size_t{c} * grp.stride; };
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
            std::fill(column(cc.col), column(cc.col) + grp.stride, 0);
    }
    if (op.kind != ColourOp::enter)
        return;
    for (const ColourColumn& cc : cols)
        if (cc.mech == m && cc.armed != no_column && op.is_inside(cc.thread)) {
            std::uint64_t* w = column(cc.col);
            std::uint64_t* a = column(cc.armed);
            for (std::uint32_t p = 0; p < grp.stride; ++p)
                a[p] = std::max(a[p], w[p]);
            std::fill(w, w + grp.stride, 0);
        }
}

void OneTokenGroups::materialize(VarIx v, const NetShapes& shapes, CandidateSet& out) const {
    const LazyVariable& lz = lazy_[v];
    const Group& grp = groups_[var_group_[v]];
    const NetShape& s = shapes[grp.shape];
    const std::uint64_t* rows = wide(grp) ? wide_rows_.data() + lz.rows : &lz.rows;
    // Per storage column (a pool's n^2 PreRcv places are n columns), then per place.
    std::vector<std::uint8_t> reached(grp.cols);
    for (std::uint32_t c = 0; c < grp.cols; ++c)
        reached[c] = reaches(grp, rows, lz.since, reach_of(grp) + std::size_t{c} * grp.stride,
                             NetShape::no_row);
    out.clear();
    for (const PlaceIx q : s.col_place) {
        const std::uint32_t row = s.place_row[q];
        if (reached[grp.column[q]] ||
            (row != NetShape::no_row && (rows[row / 64] >> (row % 64)) & 1))
            out.push(std::span<const PlaceIx>(&q, 1));
    }
}

} // namespace sfg::enforce
