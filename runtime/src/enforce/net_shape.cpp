#include "net_shape.hpp"

#include <algorithm>

namespace sfg::enforce {

namespace {

void append_key(std::string& key, std::int64_t v) {
    key += std::to_string(v);
    key += ',';
}

// The structure of a net without its mechanisms: nets with equal keys share a NetShape.
std::string structural_key(const Net& net) {
    std::string key;
    for (const AccessMode& a : net.modes) {
        key += a.kind == ModeKind::EX ? "E" : a.kind == ModeKind::RS ? "R" : "L" + a.lock + ":";
        for (const std::string& t : a.threads)
            key += t + ",";
        key += ';';
    }
    key += '|';
    for (const ModeEdge& e : net.edges) { // and whether its tokens are coloured
        append_key(key, e.from);
        append_key(key, e.to);
        key += e.mech.kind == MechKind::barrier ? "b," : ",";
    }
    key += '|';
    for (const EdgeFamily& f : net.families) {
        for (std::uint32_t a : f.from)
            append_key(key, a);
        key += '>';
        for (std::uint32_t b : f.to)
            append_key(key, b);
        key += ';';
    }
    key += '|';
    for (const Place& p : net.places) {
        append_key(key, static_cast<int>(p.kind));
        key += p.thread + ",";
        append_key(key, p.mode ? std::int64_t(*p.mode) : -1);
        append_key(key, p.edge ? std::int64_t(*p.edge) : -1);
    }
    key += '|';
    for (const Transition& r : net.transitions) {
        append_key(key, static_cast<int>(r.kind));
        key += r.thread + ",";
        append_key(key, r.edge);
        for (std::uint32_t p : r.pre)
            append_key(key, p);
        key += '>';
        for (std::uint32_t p : r.post)
            append_key(key, p);
        key += ';';
    }
    key += '|';
    for (const Marking& m : net.initial_markings) {
        for (std::uint32_t p : m)
            append_key(key, p);
        key += ';';
    }
    return key;
}

bool contains(std::span<const PlaceIx> m, PlaceIx p) {
    for (PlaceIx q : m) // markings hold one token per thread (Lemma 4.3.10): tiny
        if (q == p)
            return true;
    return false;
}

// out = (m \ •r) ∪ r•, sorted.
void fire_one(const NetShape& s, std::span<const PlaceIx> m, TransitionIx r,
              std::vector<PlaceIx>& out) {
    out.clear();
    const auto pre = s.pre(r);
    for (PlaceIx p : m)
        if (std::find(pre.begin(), pre.end(), p) == pre.end())
            out.push_back(p);
    const auto post = s.post(r);
    out.insert(out.end(), post.begin(), post.end());
    std::sort(out.begin(), out.end());
}

// Each mode's threads and lock (a LOCK mode's), by NetNames' numbering.
void index_modes(NetShape& s, NetNames& names) {
    const Net& net = s.net;
    const std::size_t np = net.places.size(), nm = net.modes.size();
    s.place_thread.resize(np);
    s.acc_thread.assign(np, NetThread::none());
    s.acc_ex.assign(np, 0);
    s.acc_lock.assign(np, MechIx::none());
    s.mode_lock.assign(nm, MechIx::none());
    s.place_mode.assign(np, ModeIx::none());
    s.place_syncs.resize(np);
    s.mode_acc.resize(nm);
    s.mode_threads.resize(nm);
    for (ModeIx a : s.mode_threads.indices()) {
        const AccessMode& mode = net.modes[a.ix()];
        for (const std::string& t : mode.threads)
            s.mode_threads[a].push_back(names.intern_thread(t));
        if (mode.kind == ModeKind::LOCK) {
            s.mode_lock[a] = names.intern_mode_lock(mode.lock);
            s.lock_modes = true;
        }
    }
}

// Each place's thread and mode: an Acc place's own, a PostSnd (PreRcv) place's edge's source
// (target), Q(a) in the proof of Lemma 4.3.8; and what an Acc place permits.
void index_places(NetShape& s, NetNames& names) {
    const Net& net = s.net;
    for (PlaceIx p : s.place_thread.indices()) {
        const Place& pl = net.places[p.ix()];
        s.place_thread[p] = names.intern_thread(pl.thread);
        const auto edge_mode = [&](std::uint32_t ModeEdge::*end) {
            return pl.edge && *pl.edge < net.edges.size() ? ModeIx::at(net.edges[*pl.edge].*end)
                                                          : ModeIx::none();
        };
        switch (pl.kind) {
        case PlaceKind::Acc:
            s.place_mode[p] = ModeIx::at(pl.mode);
            if (pl.mode && *pl.mode < net.modes.size()) {
                const auto a = ModeIx::at(*pl.mode);
                s.acc_thread[p] = s.place_thread[p];
                s.acc_ex[p] = net.modes[a.ix()].kind != ModeKind::RS;
                s.acc_lock[p] = s.mode_lock[a];
                s.mode_acc[a].push_back(p);
            }
            break;
        case PlaceKind::PostSnd: // Q(a) for a -z-> b
            s.place_mode[p] = edge_mode(&ModeEdge::from);
            break;
        case PlaceKind::PreRcv: // Q(b) for a -z-> b
            s.place_mode[p] = edge_mode(&ModeEdge::to);
            break;
        }
    }
}

// A net of one mode and no transitions (LOCK(m: T) as a discipline): its mode and threads as
// masks, when every thread's number is below 64.
void find_fixed_mode(NetShape& s) {
    const Net& net = s.net;
    if (!net.transitions.empty() || net.modes.size() != 1 || net.initial_markings.size() != 1)
        return;
    const auto a = ModeIx::at(std::size_t{0});
    bool narrow = true;
    for (NetThread t : s.mode_threads[a]) {
        narrow = narrow && t.valid() && t.v < 64;
        if (narrow)
            s.fixed_threads |= std::uint64_t{1} << t.v;
    }
    if (narrow) {
        s.fixed_mode = a;
        s.fixed_writes = net.modes[a.ix()].kind != ModeKind::RS;
    }
}

// The colour places (NetShape::coloured): per PreRcv place of a barrier edge its waiting twin,
// after the net's places, in the same thread and mode.
void index_colours(NetShape& s) {
    const Net& net = s.net;
    const std::size_t np = net.places.size();
    s.twin.assign(np, PlaceIx::none());
    s.colour_edge.assign(np, EdgeIx::none());
    s.colour_kind.assign(np, NetShape::uncoloured);
    for (PlaceIx p : s.twin.indices()) {
        const Place& pl = net.places[p.ix()];
        if (pl.kind == PlaceKind::Acc || !pl.edge || *pl.edge >= net.edges.size() ||
            net.edges[*pl.edge].mech.kind != MechKind::barrier)
            continue;
        s.coloured = true;
        s.colour_edge[p] = EdgeIx::at(pl.edge);
        s.colour_kind[p] = pl.kind == PlaceKind::PostSnd ? NetShape::sent : NetShape::armed;
    }
    for (std::size_t i = 0; i < np; ++i) {
        const auto p = PlaceIx::at(i);
        if (s.colour_kind[p] != NetShape::armed)
            continue;
        const PlaceIx w = s.twin.next_index();
        s.twin[p] = w;
        s.twin.push_back(p);
        s.colour_edge.push_back(s.colour_edge[p]);
        s.colour_kind.push_back(NetShape::waiting);
        s.place_thread.push_back(s.place_thread[p]);
        s.acc_thread.push_back(NetThread::none());
        s.acc_ex.push_back(0);
        s.acc_lock.push_back(MechIx::none());
        s.place_mode.push_back(s.place_mode[p]);
    }
    s.place_syncs.resize(s.place_thread.size());
    for (PlaceIx p : s.colour_kind.indices())
        if (s.colour_kind[p] != NetShape::uncoloured)
            s.coloured_places.push_back(p);
}

// Each transition's •r and r• in one array, the syncs each place feeds, and the one place a
// snd or rcv leads to with [SYNC] closed over, if it is one.
void index_transitions(NetShape& s) {
    const Net& net = s.net;
    const std::size_t nr = net.transitions.size();
    s.tr_off.push_back(0);
    for (std::size_t r = 0; r < nr; ++r) {
        const Transition& t = net.transitions[r];
        for (std::uint32_t p : t.pre)
            s.tr_places.push_back(PlaceIx(p));
        s.tr_mid.push_back(static_cast<std::uint32_t>(s.tr_places.size()));
        for (std::uint32_t p : t.post) // a barrier edge's sync: its tokens wait (index_colours)
            s.tr_places.push_back(t.kind == TransitionKind::sync && s.twin[PlaceIx(p)].valid()
                                      ? s.twin[PlaceIx(p)]
                                      : PlaceIx(p));
        s.tr_off.push_back(static_cast<std::uint32_t>(s.tr_places.size()));
        if (t.kind == TransitionKind::sync)
            for (std::uint32_t p : t.pre)
                s.place_syncs[PlaceIx::at(p)].push_back(TransitionIx::at(r));
    }
    s.single_next.assign(nr, PlaceIx::none());
    for (TransitionIx r : s.single_next.indices()) {
        const auto pre = s.pre(r);
        if (net.transitions[r.ix()].kind == TransitionKind::sync || pre.size() != 1 ||
            !enabled(s, pre, r))
            continue;
        std::vector<PlaceIx> out, tmp;
        fire_closed(s, pre, r, out, tmp);
        if (out.size() == 1)
            s.single_next[r] = out[0];
    }
}

// Mode labels, disambiguated by index when a discipline has two modes with the same label
// (e.g. the two copies of tl in [tl]^m ▷^n [tl]^n).
void label_modes(NetShape& s) {
    const Net& net = s.net;
    std::unordered_map<std::string, std::size_t> same; // counted first: a pool has 1,024 modes
    for (const AccessMode& a : net.modes)
        ++same[s.mode_labels.emplace_back(a.label())];
    for (std::size_t a = 0; a < net.modes.size(); ++a)
        if (same[s.mode_labels[ModeIx::at(a)]] > 1)
            s.mode_labels[ModeIx::at(a)] += "#" + std::to_string(a);
}

// M0 as sorted place sets, each once.
void index_initial(NetShape& s) {
    for (const Marking& m : s.net.initial_markings) {
        std::vector<PlaceIx> v;
        for (std::uint32_t p : m)
            v.push_back(PlaceIx(p));
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        if (std::find(s.initial.begin(), s.initial.end(), v) == s.initial.end())
            s.initial.push_back(std::move(v));
    }
}

// Decides whether a shape can be simulated by OneTokenGroups and lays out its rows and columns:
// every mode has one thread, every initial marking is one Acc place, and every snd (rcv)
// transition takes one Acc (PreRcv) place to one PreRcv (Acc) place, [SYNC] included, so one op
// never fires two transitions in a row.
void find_one_token(NetShape& s) {
    const Net& net = s.net;
    const std::size_t np = s.place_count(); // W places too (index_colours)
    const auto kind = [&](PlaceIx p) { return net.places[s.net_place(p).ix()].kind; };
    s.place_row.assign(np, NetShape::no_row);
    s.is_column.assign(np, 0);
    // LOCK modes: what their rows permit depends on the locks held, which the groups' tables
    // do not know.
    bool one = !net.modes.empty() && !s.lock_modes;
    for (const auto& threads : s.mode_threads)
        one = one && threads.size() == 1;
    for (PlaceIx p : s.place_row.indices()) {
        if (!one)
            break;
        if (kind(p) == PlaceKind::Acc && s.acc_thread[p].valid()) {
            s.place_row[p] = static_cast<std::uint32_t>(s.row_place.size());
            s.row_place.push_back(p);
        }
        if (kind(p) != PlaceKind::PostSnd) {
            s.is_column[p] = 1;
            s.col_place.push_back(p);
        }
    }
    for (const auto& m : s.initial)
        one = one && m.size() == 1 && s.place_row[m[0]] != NetShape::no_row;
    for (TransitionIx r : s.single_next.indices()) {
        if (!one)
            break;
        const Transition& t = net.transitions[r.ix()];
        if (t.kind == TransitionKind::sync)
            continue;
        const auto pre = s.pre(r);
        const PlaceIx q = s.single_next[r];
        if (pre.size() != 1 || !q.valid()) {
            one = false;
            break;
        }
        const PlaceKind from = kind(pre[0]), to = kind(q);
        one = t.kind == TransitionKind::snd ? from == PlaceKind::Acc && to == PlaceKind::PreRcv
                                            : from == PlaceKind::PreRcv && to == PlaceKind::Acc &&
                                                  s.place_row[q] != NetShape::no_row;
        one = one && s.is_column[pre[0]] && s.is_column[q];
    }
    if (!one) {
        s.row_place.clear();
        s.col_place.clear();
        return;
    }
    s.one_token = true;
    const std::size_t words = (s.row_place.size() + 63) / 64;
    s.row_words = static_cast<std::uint32_t>(words);
    const auto set = [](std::vector<std::uint64_t>& bits, std::size_t at, std::size_t row) {
        bits[at + row / 64] |= std::uint64_t{1} << (row % 64);
    };
    std::size_t threads = 0;
    for (PlaceIx p : s.row_place)
        threads = std::max(threads, s.acc_thread[p].ix() + 1);
    s.permit_read.assign(threads * words, 0);
    s.permit_write.assign(threads * words, 0);
    s.initial_rows.assign(words, 0);
    for (std::size_t row = 0; row < s.row_place.size(); ++row) {
        const PlaceIx p = s.row_place[row];
        const std::size_t t = s.acc_thread[p].ix();
        set(s.permit_read, t * words, row);
        if (s.acc_ex[p])
            set(s.permit_write, t * words, row);
    }
    for (const auto& m : s.initial)
        set(s.initial_rows, 0, s.place_row[m[0]]);
}

} // namespace

void NetShape::place_modes(PlaceIx p, std::vector<ModeIx>& out) const {
    if (place_mode[p].valid())
        return out.push_back(place_mode[p]);
    const Place& pl = net.places[net_place(p).ix()];
    if (pl.kind == PlaceKind::Acc || !pl.edge || *pl.edge < net.edges.size())
        return;
    const EdgeFamily& f = net.families[*pl.edge - net.edges.size()];
    for (std::uint32_t a : pl.kind == PlaceKind::PostSnd ? f.from : f.to)
        out.push_back(ModeIx::at(a));
}

bool NetShape::permits_locked(ModeIx a, NetThread t, bool write) const {
    if (write && net.modes[a.ix()].kind == ModeKind::RS)
        return false;
    const auto& threads = mode_threads[a];
    return std::find(threads.begin(), threads.end(), t) != threads.end();
}

bool NetShape::permits(ModeIx a, NetThread t, bool write, HeldLocks held) const {
    return permits_locked(a, t, write) && (!mode_lock[a].valid() || holds(held, mode_lock[a]));
}

ShapeIx NetShapes::intern(const Net& net, NetNames& names) {
    auto [it, inserted] = ids_.try_emplace(structural_key(net), shapes_.next_index());
    if (!inserted)
        return it->second;
    NetShape s;
    s.net = net;
    index_modes(s, names);
    index_places(s, names);
    index_colours(s);
    find_fixed_mode(s);
    index_transitions(s);
    label_modes(s);
    index_initial(s);
    find_one_token(s);
    shapes_.push_back(std::move(s));
    return it->second;
}

bool enabled(const NetShape& s, std::span<const PlaceIx> m, TransitionIx r) {
    for (PlaceIx p : s.pre(r))
        if (!contains(m, p))
            return false;
    for (PlaceIx p : s.post(r))
        if (contains(m, p))
            return false;
    return true;
}

void fire_closed(const NetShape& s, std::span<const PlaceIx> m, TransitionIx r,
                 std::vector<PlaceIx>& out, std::vector<PlaceIx>& tmp) {
    fire_one(s, m, r, out);
    // [SYNC]: a sync transition can only become enabled through a place just marked. In nets
    // of Figure 4.11 at most one fires (its post-set is PreRcv places, which enable no sync), but
    // iterate to a fixed point anyway.
    for (bool changed = true; changed;) {
        changed = false;
        for (PlaceIx p : out) {
            for (TransitionIx sy : s.place_syncs[p]) {
                if (enabled(s, out, sy)) {
                    fire_one(s, out, sy, tmp);
                    out.swap(tmp);
                    changed = true;
                    break;
                }
            }
            if (changed)
                break;
        }
    }
}

} // namespace sfg::enforce
