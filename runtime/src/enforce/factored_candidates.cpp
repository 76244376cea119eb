#include "factored_candidates.hpp"

#include <algorithm>
#include <bit>
#include <new>

namespace sfg::enforce {

namespace {

// The positions in a mask: few (a track has one place per edge in or out, and Acc).
std::uint32_t positions(std::uint64_t x) {
    std::uint32_t n = 0;
    for (; x != 0; x &= x - 1)
        ++n;
    return n;
}

// Whether the product masks holds the point (one bit per coordinate).
bool holds(std::span<const std::uint64_t> masks, std::span<const std::uint64_t> point) {
    for (std::size_t c = 0; c < masks.size(); ++c)
        if ((masks[c] & point[c]) == 0)
            return false;
    return true;
}

// The point of places ps: their mode, then one bit per coordinate; false unless ps holds
// exactly one place of each thread of one mode.
bool point_of(const FactoredShape& f, const NetShape& s, std::span<const PlaceIx> ps,
              std::vector<std::uint64_t>& out) {
    out.clear();
    if (ps.empty() || !s.place_mode[ps[0]].valid())
        return false;
    const ModeIx a = s.place_mode[ps[0]];
    if (ps.size() != f.width(a))
        return false;
    out.assign(1 + ps.size(), 0);
    out[0] = a.v;
    for (PlaceIx p : ps) {
        const std::uint32_t g = f.place_coord[p];
        if (s.place_mode[p] != a || g == FactoredShape::none)
            return false;
        std::uint64_t& bit = out[1 + g - f.first[a]];
        if (bit != 0)
            return false;
        bit = f.place_bit[p];
    }
    return true;
}

// The places of a point of mode a (one bit per coordinate), sorted; a dead token has none.
void point_places(const FactoredShape& f, ModeIx a, std::span<const std::uint64_t> point,
                  std::vector<PlaceIx>& places) {
    places.clear();
    for (std::uint32_t c = 0; c < point.size(); ++c)
        if (const PlaceIx p =
                f.position[f.first[a] + c][static_cast<std::size_t>(std::countr_zero(point[c]))];
            p.valid())
            places.push_back(p);
    std::sort(places.begin(), places.end());
}

// Whether the point (one bit per coordinate of mode a) holds dead tokens only: the empty
// marking, no candidate.
bool all_dead(const FactoredShape& f, ModeIx a, std::span<const std::uint64_t> point) {
    for (std::uint32_t c = 0; c < point.size(); ++c)
        if (point[c] != f.dead_bit[f.first[a] + c])
            return false;
    return true;
}

// Modes and their coordinates: one per thread of each mode (no thread twice in one mode).
bool factor_coords(const NetShape& s, FactoredShape& f) {
    const std::size_t nm = s.net.modes.size();
    f.first.resize(nm + 1, 0);
    f.exclusive.resize(nm, 0);
    f.lock = s.mode_lock;
    for (ModeIx a : s.mode_threads.indices()) {
        if (s.mode_threads[a].empty())
            return false;
        f.first[ModeIx(a.v + 1)] =
            f.first[a] + static_cast<std::uint32_t>(s.mode_threads[a].size());
        f.exclusive[a] = s.net.modes[a.ix()].kind != ModeKind::RS;
        for (NetThread t : s.mode_threads[a])
            f.thread_count = std::max(f.thread_count, t.v + 1);
    }
    f.coord.assign(nm * f.thread_count, FactoredShape::none);
    for (ModeIx a : s.mode_threads.indices())
        for (std::uint32_t c = 0; c < s.mode_threads[a].size(); ++c) {
            f.coord_thread.push_back(s.mode_threads[a][c]);
            std::uint32_t& slot = f.coord[a.ix() * f.thread_count + s.mode_threads[a][c].v];
            if (slot != FactoredShape::none) // a thread twice in one mode
                return false;
            slot = c;
        }
    return true;
}

// Positions: every place on the track (coordinate) of one thread of one mode, at most 64 a
// track, one of them Acc.
bool factor_positions(const NetShape& s, FactoredShape& f) {
    const std::uint32_t coords = f.first[ModeIx::at(s.net.modes.size())];
    const std::size_t np = s.place_count();
    f.acc_bit.assign(coords, 0);
    f.position.resize(coords);
    f.place_coord.assign(np, FactoredShape::none);
    f.place_bit.assign(np, 0);
    for (PlaceIx p : f.place_coord.indices()) {
        const ModeIx a = s.place_mode[p];
        if (!a.valid() || a.ix() >= s.net.modes.size())
            return false;
        const std::uint32_t c = f.coord_of(a, s.place_thread[p]);
        if (c == FactoredShape::none)
            return false;
        const std::uint32_t g = f.first[a] + c;
        if (f.position[g].size() == 64)
            return false;
        const std::uint64_t bit = std::uint64_t{1} << f.position[g].size();
        f.position[g].push_back(p);
        f.place_coord[p] = g;
        f.place_bit[p] = bit;
        if (s.net.places[s.net_place(p).ix()].kind == PlaceKind::Acc) {
            if (f.acc_bit[g] != 0 || s.acc_thread[p] != s.place_thread[p])
                return false;
            f.acc_bit[g] = bit;
        }
    }
    f.dead_bit.assign(coords, 0);
    f.twin_bit.assign(s.coloured ? np : 0, 0);
    for (std::uint32_t g = 0; g < coords && s.coloured; ++g) { // no place: position none
        if (f.position[g].size() == 64)
            return false;
        for (PlaceIx p : f.position[g]) // arming moves a token along its track
            if (s.colour_kind[p] == NetShape::waiting) {
                if (f.place_coord[s.twin[p]] != g)
                    return false;
                f.twin_bit[p] = f.place_bit[s.twin[p]];
            }
        f.dead_bit[g] = std::uint64_t{1} << f.position[g].size();
        f.position[g].push_back(PlaceIx::none());
    }
    return std::find(f.acc_bit.begin(), f.acc_bit.end(), 0) == f.acc_bit.end();
}

// The syncs found by factor_syncs: which places some sync takes from, and each sync
// transition's index in FactoredShape::syncs.
struct SyncPlaces {
    std::vector<std::uint8_t> pre;
    std::vector<std::uint32_t> of;
};

// Every sync takes a whole point of one mode, from places that are not Acc and no other sync
// takes from, to a whole point of another, from which no sync is enabled at once.
bool factor_syncs(const NetShape& s, FactoredShape& f, SyncPlaces& sp) {
    const Net& net = s.net;
    sp.pre.assign(s.place_count(), 0);
    sp.of.assign(net.transitions.size(), FactoredShape::none);
    f.mode_syncs.resize(net.modes.size());
    std::vector<std::uint64_t> pre, post;
    for (TransitionIx r : s.single_next.indices()) {
        if (net.transitions[r.ix()].kind != TransitionKind::sync)
            continue;
        if (!point_of(f, s, s.pre(r), pre) || !point_of(f, s, s.post(r), post))
            return false;
        for (PlaceIx p : s.pre(r)) {
            if (net.places[p.ix()].kind == PlaceKind::Acc || sp.pre[p.ix()])
                return false; // (two syncs from one place: [SYNC] would fire one of them)
            sp.pre[p.ix()] = 1;
        }
        FactoredShape::Sync sy{ModeIx(static_cast<std::uint32_t>(pre[0])),
                               ModeIx(static_cast<std::uint32_t>(post[0])),
                               static_cast<std::uint32_t>(f.bits.size()), 0};
        f.bits.insert(f.bits.end(), pre.begin() + 1, pre.end());
        sy.post = static_cast<std::uint32_t>(f.bits.size());
        f.bits.insert(f.bits.end(), post.begin() + 1, post.end());
        sp.of[r.ix()] = static_cast<std::uint32_t>(f.syncs.size());
        f.mode_syncs[sy.from].push_back(sp.of[r.ix()]);
        f.syncs.push_back(sy);
    }
    for (TransitionIx r : s.single_next.indices())
        if (net.transitions[r.ix()].kind == TransitionKind::sync)
            for (PlaceIx p : s.post(r))
                if (sp.pre[p.ix()]) // sync• would enable a second sync at once
                    return false;
    return true;
}

// Every snd and rcv moves one token along its track, never from a place a sync takes from.
bool factor_moves(const NetShape& s, FactoredShape& f, const SyncPlaces& sp) {
    f.moves.resize(s.net.transitions.size());
    for (TransitionIx r : f.moves.indices()) {
        if (s.net.transitions[r.ix()].kind == TransitionKind::sync)
            continue;
        const auto pr = s.pre(r), po = s.post(r);
        if (pr.size() != 1 || po.size() != 1 || pr[0] == po[0] || sp.pre[pr[0].ix()])
            return false;
        const std::uint32_t g = f.place_coord[pr[0]];
        if (g != f.place_coord[po[0]])
            return false;
        FactoredShape::Move& mv = f.moves[r];
        mv.mode = s.place_mode[pr[0]];
        mv.coord = g - f.first[mv.mode];
        mv.from = f.place_bit[pr[0]];
        mv.to = f.place_bit[po[0]];
        mv.syncs_begin = static_cast<std::uint32_t>(f.move_syncs.size());
        for (TransitionIx sy : s.place_syncs[po[0]])
            f.move_syncs.push_back(sp.of[sy.ix()]);
        mv.syncs_end = static_cast<std::uint32_t>(f.move_syncs.size());
        if (s.net.transitions[r.ix()].kind == TransitionKind::rcv &&
            s.colour_kind[pr[0]] == NetShape::armed)
            mv.dead = f.dead_bit[g];
    }
    return true;
}

// M0 is points, with no place a sync takes from.
bool factor_initial(const NetShape& s, FactoredShape& f, const SyncPlaces& sp) {
    std::vector<std::uint64_t> point;
    for (const auto& m : s.initial) {
        for (PlaceIx p : m)
            if (sp.pre[p.ix()])
                return false;
        if (!point_of(f, s, m, point))
            return false;
        f.initial.push_back(point);
    }
    return true;
}

// One sync per SFG edge, from the edge's PostSnd places (representatives() takes a sync's •sync
// for the edge's PostSnd places), and every PostSnd place some sync's.
bool one_sync_per_edge(const NetShape& s, const SyncPlaces& sp) {
    const Net& net = s.net;
    std::vector<std::uint8_t> edge_synced(net.edges.size(), 0);
    for (TransitionIx r : s.single_next.indices()) {
        const Transition& t = net.transitions[r.ix()];
        if (t.kind != TransitionKind::sync)
            continue;
        const std::size_t e = t.edge;
        if (e >= net.edges.size() || edge_synced[e])
            return false;
        edge_synced[e] = 1;
        for (PlaceIx p : s.pre(r))
            if (net.places[p.ix()].kind != PlaceKind::PostSnd || net.places[p.ix()].edge != t.edge)
                return false;
    }
    for (std::size_t p = 0; p < net.places.size(); ++p)
        if (net.places[p].kind == PlaceKind::PostSnd && !sp.pre[p])
            return false;
    return std::find(edge_synced.begin(), edge_synced.end(), 0) == edge_synced.end();
}

} // namespace

// The conditions (Figure 4.11, Lemma 4.3.10): every place is on the track of one thread of one
// mode, with one Acc place per track; every snd and rcv moves one token along its track, never
// from a place a sync needs; every sync takes a whole point of one mode to a whole point of
// another, from places that are not Acc to places no sync needs, one sync per SFG edge, from
// the edge's PostSnd places; M0 is points. A net that fails one is left unfactorable (the steps
// so far filled in).
FactoredShape factor(const NetShape& s) {
    FactoredShape f;
    SyncPlaces sp;
    if (s.net.modes.empty() || !factor_coords(s, f) || !factor_positions(s, f) ||
        !factor_syncs(s, f, sp) || !factor_moves(s, f, sp) || !factor_initial(s, f, sp) ||
        !one_sync_per_edge(s, sp))
        return f;
    for (ModeIx a : s.mode_threads.indices())
        f.max_width = std::max(f.max_width, f.width(a));
    f.factorable = true;
    return f;
}

void FactoredCandidates::assign(const FactoredShape& f,
                                std::span<const std::vector<std::uint64_t>> points) {
    data_.clear();
    for (const auto& p : points)
        data_.insert(data_.end(), p.begin(), p.end());
    normalize(f);
}

bool FactoredCandidates::contains(const FactoredShape& f, ModeIx a,
                                  std::span<const std::uint64_t> point) const {
    bool found = false;
    for_each_product(f, [&](ModeIx b, std::span<const std::uint64_t> masks) {
        found = found || (b == a && holds(masks, point));
    });
    return found;
}

bool FactoredCandidates::memory_step(const FactoredShape& f, NetThread t, bool write,
                                     HeldLocks held) {
    // Whether any product, or all of them, permit the access as they are: a plain loop, as
    // every access of a variable in a LOCK or RS mode comes here.
    bool any = false, all = true;
    for (std::size_t i = 0; i < data_.size();) {
        const ModeIx a(static_cast<std::uint32_t>(data_[i]));
        const std::uint64_t* masks = data_.data() + i + 1;
        i += f.width(a) + 1;
        const std::uint32_t c = f.permitting_coord(a, t, write, held);
        if (c == FactoredShape::none) {
            all = false;
            continue;
        }
        const std::uint64_t acc = f.acc_bit[f.first[a] + c];
        any |= (masks[c] & acc) != 0;
        all &= masks[c] == acc;
    }
    if (all || !any)
        return any;
    scratch_.clear();
    for_each_product(f, [&](ModeIx a, std::span<const std::uint64_t> masks) {
        const std::uint32_t c = f.permitting_coord(a, t, write, held);
        if (c == FactoredShape::none)
            return;
        const std::uint64_t acc = f.acc_bit[f.first[a] + c];
        if ((masks[c] & acc) == 0)
            return;
        scratch_.push_back(a.v);
        scratch_.insert(scratch_.end(), masks.begin(), masks.end());
        scratch_[scratch_.size() - masks.size() + c] = acc;
    });
    data_.swap(scratch_);
    normalize(f);
    return true;
}

int FactoredCandidates::sync_step(const FactoredShape& f, std::span<const TransitionIx> trs) {
    for (std::size_t i = 0; i < trs.size(); ++i)
        for (std::size_t j = i + 1; j < trs.size(); ++j) {
            const FactoredShape::Move &x = f.moves[trs[i]], &y = f.moves[trs[j]];
            if (x.mode.valid() && x.mode == y.mode && x.coord != y.coord)
                return -1;
        }
    bool fired = false, grew = false;
    std::vector<std::uint32_t>& targets = targets_;
    targets.clear();
    for (std::size_t i = 0; i < data_.size();) {
        const ModeIx a(static_cast<std::uint32_t>(data_[i]));
        const std::span<std::uint64_t> masks(data_.data() + i + 1, f.width(a));
        std::uint64_t add = 0, kill = 0;
        std::uint32_t c = 0;
        for (TransitionIx r : trs) {
            const FactoredShape::Move& mv = f.moves[r];
            if (mv.mode != a || (masks[mv.coord] & mv.from) == 0)
                continue;
            fired = true;
            c = mv.coord;
            add |= mv.to | mv.dead;
            kill |= mv.dead != 0 ? mv.from : 0;
            // [SYNC]: the move completes •sync from a candidate when every other thread of the
            // mode can be on its place of •sync.
            for (std::uint32_t k = mv.syncs_begin; k < mv.syncs_end; ++k) {
                const FactoredShape::Sync& sy = f.syncs[f.move_syncs[k]];
                bool ready = true;
                for (std::uint32_t u = 0; u < masks.size() && ready; ++u)
                    ready = u == c || (masks[u] & f.bits[sy.pre + u]) != 0;
                if (ready)
                    targets.push_back(f.move_syncs[k]);
            }
        }
        grew = grew || (add & ~masks[c]) != 0 || kill != 0;
        masks[c] = (masks[c] & ~kill) | add;
        i += masks.size() + 1;
    }
    for (std::uint32_t k : targets) {
        const FactoredShape::Sync& sy = f.syncs[k];
        const std::span<const std::uint64_t> point(f.bits.data() + sy.post, f.width(sy.to));
        if (contains(f, sy.to, point))
            continue;
        data_.push_back(sy.to.v);
        data_.insert(data_.end(), point.begin(), point.end());
        grew = true;
    }
    if (grew)
        normalize(f);
    return fired ? 1 : 0;
}

void FactoredCandidates::colour_step(const FactoredShape& f, const ColourMasks& cm,
                                     const ColourOp& op) {
    if (op.kind == ColourOp::close)
        settle<true>(f, cm, op.inside);
    else if (op.kind == ColourOp::exit)
        kill_armed(f, cm, op.thread);
}

// t's armed tokens die.
void FactoredCandidates::kill_armed(const FactoredShape& f, const ColourMasks& cm, NetThread t) {
    bool changed = false;
    for (std::size_t i = 0; i < data_.size();) {
        const ModeIx a(static_cast<std::uint32_t>(data_[i]));
        if (const std::uint32_t c = f.coord_of(a, t); c != FactoredShape::none) {
            const std::uint32_t g = f.first[a] + c;
            std::uint64_t& m = data_[i + 1 + c];
            if (const std::uint64_t armed = cm.at[g].armed; (m & armed) != 0) {
                m = (m & ~armed) | f.dead_bit[g];
                changed = true;
            }
        }
        i += f.width(a) + 1;
    }
    if (changed)
        normalize(f);
}

void FactoredCandidates::arm(const FactoredShape& f, const ColourMasks& cm,
                             std::span<const std::uint8_t> inside) {
    settle<false>(f, cm, inside);
}

// Arms the waiting tokens of the threads inside; with `close`, the other waiting tokens and
// every sent one die (nothing can sync or arm them any more). A close passes over every
// coordinate of its barrier's variables (most of them move), so a coordinate is a few word
// operations; only a partly armed coordinate (a thread with two W places, some held) maps its
// bits one by one.
template <bool close>
void FactoredCandidates::settle(const FactoredShape& f, const ColourMasks& cm,
                                std::span<const std::uint8_t> inside) {
    const std::uint8_t* in = inside.data();
    const std::size_t n = inside.size();
    std::uint64_t* d = data_.data();
    for (std::size_t i = 0, size = data_.size(); i < size;) {
        const ModeIx a(static_cast<std::uint32_t>(d[i]));
        const std::uint32_t first = f.first[a], w = f.first[ModeIx(a.v + 1)] - first;
        const ColourMasks::Coord* at = cm.at.data() + first;
        std::uint64_t* masks = d + i + 1;
        for (std::uint32_t c = 0; c < w; ++c) {
            const ColourMasks::Coord& k = at[c];
            const std::uint64_t m = masks[c], wait = m & k.waiting;
            const std::size_t u = k.thread.ix();
            const std::uint64_t arm = u < n && in[u] ? wait : 0;
            const std::uint64_t kill = close ? (m & k.sent) | (wait ^ arm) : 0;
            std::uint64_t to = (m & ~(kill | arm)) | (kill != 0 ? k.dead : 0) |
                               (arm == k.waiting ? k.twins : 0); // W[u:e] -> PreRcv[u:e]
            if (arm != 0 && arm != k.waiting) [[unlikely]]
                for (std::uint64_t x = arm; x != 0; x &= x - 1)
                    to |= f.twin_bit[f.position[first + c]
                                               [static_cast<std::size_t>(std::countr_zero(x))]];
            masks[c] = to;
        }
        i += w + 1;
    }
    count_ = unknown;
}

void FactoredCandidates::resync(const FactoredShape& f, NetThread t, bool write, HeldLocks held) {
    scratch_.clear();
    for (ModeIx a : f.exclusive.indices()) {
        if (f.permitting_coord(a, t, write, held) == FactoredShape::none)
            continue;
        scratch_.push_back(a.v);
        for (std::uint32_t g = f.first[a]; g < f.first[ModeIx(a.v + 1)]; ++g)
            scratch_.push_back(f.acc_bit[g]);
    }
    if (scratch_.empty()) // no mode permits it: the access is ignored
        return;
    data_.swap(scratch_);
    crowd_ = 1; // one product per mode
    count_ = unknown;
}

void FactoredCandidates::normalize(const FactoredShape& f) {
    count_ = unknown;
    offsets_.clear();
    crowd_ = 0;
    bool shared = false; // some mode has two products
    for (std::size_t i = 0; i < data_.size();) {
        const ModeIx a(static_cast<std::uint32_t>(data_[i]));
        for (std::uint32_t o : offsets_)
            shared = shared || data_[o] == a.v;
        offsets_.push_back(static_cast<std::uint32_t>(i));
        i += f.width(a) + 1;
    }
    if (!shared) {
        crowd_ = offsets_.empty() ? 0 : 1;
        return;
    }
    constexpr std::uint32_t dropped = FactoredShape::none;
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t x = 0; x < offsets_.size(); ++x) {
            for (std::size_t y = 0; y < offsets_.size() && offsets_[x] != dropped; ++y) {
                if (x == y || offsets_[y] == dropped || data_[offsets_[x]] != data_[offsets_[y]])
                    continue;
                const std::uint64_t* p = data_.data() + offsets_[x] + 1; // dropped into q?
                std::uint64_t* q = data_.data() + offsets_[y] + 1;
                const std::uint32_t w =
                    f.width(ModeIx(static_cast<std::uint32_t>(data_[offsets_[x]])));
                std::uint32_t differ = 0, at = 0;
                bool subset = true;
                for (std::uint32_t c = 0; c < w; ++c) {
                    subset = subset && (p[c] & ~q[c]) == 0;
                    if (p[c] != q[c]) {
                        ++differ;
                        at = c;
                    }
                }
                if (!subset && differ != 1)
                    continue;
                if (!subset) // P ∪ Q is one product
                    q[at] |= p[at];
                offsets_[x] = dropped;
                changed = true;
            }
        }
    }
    scratch_.clear();
    for (std::size_t x = 0; x < offsets_.size(); ++x) {
        const std::uint32_t o = offsets_[x];
        if (o == dropped)
            continue;
        std::size_t same = 0;
        for (std::size_t y = 0; y < offsets_.size(); ++y)
            same += offsets_[y] != dropped && data_[offsets_[y]] == data_[o];
        crowd_ = std::max(crowd_, same);
        const std::uint32_t w = f.width(ModeIx(static_cast<std::uint32_t>(data_[o])));
        scratch_.insert(scratch_.end(), data_.begin() + o, data_.begin() + o + w + 1);
    }
    data_.swap(scratch_);
}

std::uint64_t FactoredCandidates::count_points(const FactoredShape& f) const {
    if (crowd_ <= 1) { // one product per mode: the products' sizes, less their inert points
        std::uint64_t n = 0;
        bool saturated = false;
        for_each_product(f, [&](ModeIx a, std::span<const std::uint64_t> masks) {
            std::uint64_t points = 1;
            for (std::uint64_t x : masks) // (most coordinates have one position)
                if ((x & (x - 1)) != 0 || x == 0)
                    saturated = saturated || __builtin_mul_overflow(points, positions(x), &points);
            for (std::uint32_t k : f.mode_syncs[a])
                points -= holds(masks, std::span(f.bits.data() + f.syncs[k].pre, masks.size()));
            points -= f.dead_bit[f.first[a]] != 0 &&
                      holds(masks, std::span(f.dead_bit.data() + f.first[a], masks.size()));
            saturated = saturated || __builtin_add_overflow(n, points, &n);
        });
        return saturated ? ~std::uint64_t{0} : n;
    }
    // Per mode, |P1 ∪ ... ∪ Pn| by inclusion and exclusion over the products (at most 16 of a
    // mode, and their intersections are products), less the inert points •sync they hold. The
    // intersections at depth d of the walk are kept in count_inter_[d * max_width ...].
    count_offsets_.clear();
    for (std::size_t i = 0; i < data_.size();
         i += f.width(ModeIx(static_cast<std::uint32_t>(data_[i]))) + 1)
        count_offsets_.push_back(static_cast<std::uint32_t>(i));
    count_inter_.resize((count_offsets_.size() + 1) * f.max_width);
    std::int64_t total = 0;
    bool saturated = false;
    auto add = [&](std::span<const std::uint64_t> m, std::int64_t sign) {
        std::int64_t n = sign;
        for (std::uint64_t x : m)
            saturated = saturated || __builtin_mul_overflow(n, std::int64_t{positions(x)}, &n);
        saturated = saturated || __builtin_add_overflow(total, n, &total);
    };
    // Adds the signed sizes of cur ∩ P_j ∩ ... for the products j >= from of mode a.
    auto walk = [&](auto& self, std::size_t from, std::size_t depth, ModeIx a,
                    std::int64_t sign) -> void {
        const std::uint32_t w = f.width(a);
        const std::uint64_t* cur = count_inter_.data() + depth * f.max_width;
        std::uint64_t* next = count_inter_.data() + (depth + 1) * f.max_width;
        for (std::size_t j = from; j < count_offsets_.size(); ++j) {
            const std::uint64_t* p = data_.data() + count_offsets_[j];
            if (p[0] != a.v)
                continue;
            bool empty = false;
            for (std::uint32_t c = 0; c < w; ++c) {
                next[c] = cur[c] & p[1 + c];
                empty = empty || next[c] == 0;
            }
            if (empty)
                continue;
            add(std::span<const std::uint64_t>(next, w), sign);
            self(self, j + 1, depth + 1, a, -sign);
        }
    };
    for (std::size_t i = 0; i < count_offsets_.size(); ++i) {
        const ModeIx a(static_cast<std::uint32_t>(data_[count_offsets_[i]]));
        const std::span<const std::uint64_t> masks(data_.data() + count_offsets_[i] + 1,
                                                   f.width(a));
        add(masks, 1);
        std::copy(masks.begin(), masks.end(), count_inter_.begin());
        walk(walk, i + 1, 0, a, -1);
    }
    for (ModeIx a : f.mode_syncs.indices()) {
        for (std::uint32_t k : f.mode_syncs[a]) {
            const std::span<const std::uint64_t> pre(f.bits.data() + f.syncs[k].pre, f.width(a));
            total -= contains(f, a, pre);
        }
        if (f.dead_bit[f.first[a]] != 0) // the point of dead tokens only
            total -= contains(f, a, std::span(f.dead_bit.data() + f.first[a], f.width(a)));
    }
    // (Beyond 2^63 points the sum is not exact: far beyond what explicit sets could hold.)
    return saturated ? ~std::uint64_t{0} : static_cast<std::uint64_t>(total);
}

template <class F>
void FactoredCandidates::candidates_of(const FactoredShape& f, ModeIx a,
                                       std::span<const std::uint64_t> masks, F&& fn) {
    const std::uint32_t w = f.width(a);
    std::vector<std::uint64_t> left(masks.begin(), masks.end()), point(w);
    for (;;) {
        for (std::uint32_t c = 0; c < w; ++c)
            point[c] = left[c] & -left[c];
        bool inert = all_dead(f, a, point);
        for (std::uint32_t k : f.mode_syncs[a])
            inert =
                inert || std::equal(point.begin(), point.end(), f.bits.begin() + f.syncs[k].pre);
        if (!inert && !fn(std::span<const std::uint64_t>(point)))
            return;
        // The next point: an odometer over the lowest set bits of left.
        std::uint32_t c = 0;
        for (; c < w; ++c) {
            left[c] &= left[c] - 1;
            if (left[c] != 0)
                break;
            left[c] = masks[c];
        }
        if (c == w)
            return;
    }
}

template <class F>
void FactoredCandidates::for_each_point(const FactoredShape& f, F&& fn) const {
    std::vector<PlaceIx> places;
    for_each_product(f, [&](ModeIx a, std::span<const std::uint64_t> masks) {
        candidates_of(f, a, masks, [&](std::span<const std::uint64_t> point) {
            places.clear();
            point_places(f, a, point, places);
            fn(std::span<const PlaceIx>(places));
            return true;
        });
    });
}

void FactoredCandidates::materialize(const FactoredShape& f, CandidateSet& out) const {
    // The builder's table holds at least `expected` markings: the exact count. A CandidateSet
    // addresses its data with 32 bits: past that the markings cannot be listed.
    const std::uint64_t n = count(f);
    if (n > (std::uint64_t{1} << 31) / (f.max_width + 1))
        throw std::bad_alloc();
    CandidateBuilder builder;
    builder.start(out, static_cast<std::size_t>(n));
    for_each_point(f, [&](std::span<const PlaceIx> m) { builder.add(m); });
}

bool FactoredCandidates::first_candidate(const FactoredShape& f, ModeIx a,
                                         std::span<const std::uint64_t> masks,
                                         std::vector<std::uint64_t>& point) {
    bool found = false;
    candidates_of(f, a, masks, [&](std::span<const std::uint64_t> p) {
        point.assign(p.begin(), p.end());
        found = true;
        return false;
    });
    return found;
}

// ViolationExplainer reads, per candidate M in mode c: the mode c; t's token on PreRcv[t:e]
// (a way of cost 1); and per edge e out of c, the threads of c not on PostSnd[·:e] (a way of
// cost 1 + their number). It reports the ways of the least cost. Of a product, the ways of
// least cost through e are those of its candidates with as many threads on PostSnd[·:e] as can
// be: the threads whose positions lack it (if any: one way), or else each single thread that
// can be elsewhere (•sync[e] itself is inert). Those candidates, one per product, and those
// with t on each PreRcv it can be on, give every way of least cost, and no way that is not one.
void FactoredCandidates::representatives(const FactoredShape& f, NetThread t,
                                         CandidateSet& out) const {
    // At most: per product one, one per position of t, and per edge out of its mode one or one
    // per thread (the builder's table must hold them all).
    std::size_t most = 0;
    for_each_product(f, [&](ModeIx a, std::span<const std::uint64_t> masks) {
        const std::uint32_t ct = f.coord_of(a, t);
        most += 1 + (ct == FactoredShape::none ? 0 : positions(masks[ct]));
        most += f.mode_syncs[a].size() * masks.size();
    });
    CandidateBuilder builder;
    builder.start(out, most);
    std::vector<std::uint64_t> sub, point;
    std::vector<PlaceIx> places;
    auto emit = [&](ModeIx a) {
        if (!first_candidate(f, a, sub, point))
            return;
        point_places(f, a, point, places);
        builder.add(places);
    };
    for_each_product(f, [&](ModeIx a, std::span<const std::uint64_t> masks) {
        const std::uint32_t w = f.width(a);
        sub.assign(masks.begin(), masks.end());
        emit(a);
        if (const std::uint32_t ct = f.coord_of(a, t); ct != FactoredShape::none)
            for (std::uint64_t b = masks[ct]; b != 0; b &= b - 1) { // PreRcv among them
                sub.assign(masks.begin(), masks.end());
                sub[ct] = b & -b;
                emit(a);
            }
        for (std::uint32_t k : f.mode_syncs[a]) { // the edges out of a
            const std::uint64_t* post = f.bits.data() + f.syncs[k].pre;
            bool must = false;
            for (std::uint32_t c = 0; c < w; ++c)
                must = must || (masks[c] & post[c]) == 0;
            if (must) {
                for (std::uint32_t c = 0; c < w; ++c)
                    sub[c] = (masks[c] & post[c]) != 0 ? post[c] : masks[c];
                emit(a);
                continue;
            }
            for (std::uint32_t u = 0; u < w; ++u) {
                for (std::uint32_t c = 0; c < w; ++c)
                    sub[c] = c == u ? masks[c] & ~post[c] : post[c];
                if (sub[u] != 0)
                    emit(a);
            }
        }
    });
}

} // namespace sfg::enforce
