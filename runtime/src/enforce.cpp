// sfg::Enforcer: variables, the per-mechanism index, and dispatch of events (thesis Figure 4.2
// and docs/traces.md: which trace op is the snd / rcv of which mechanism).
#include "enforce_impl.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

namespace sfg {

using namespace enforce_detail;

namespace {

std::size_t idx(std::int64_t i) {
    return static_cast<std::size_t>(i);
}

const char* kind_key(MechKind k) {
    return to_string(k);
}

void append_key(std::string& key, std::int64_t v) {
    key += std::to_string(v);
    key += ',';
}

// Decides whether a shape can be simulated per Group (enforce_impl.hpp) and lays out its rows
// and columns: every mode has one thread, every initial marking is one Acc place, and every
// snd (rcv) transition takes one Acc (PreRcv) place to one PreRcv (Acc) place, [SYNC]
// included, so one op never fires two transitions in a row.
void find_one_token(Shape& s) {
    const Net& net = s.net;
    const std::size_t np = net.places.size();
    s.place_row.assign(np, -1);
    s.place_col.assign(np, -1);
    bool one = !net.modes.empty();
    for (const auto& gids : s.mode_gids)
        one = one && gids.size() == 1;
    for (std::size_t p = 0; p < np && one; ++p) {
        if (net.places[p].kind == PlaceKind::Acc && s.acc_gid[p] >= 0) {
            s.place_row[p] = static_cast<std::int32_t>(s.row_place.size());
            s.row_place.push_back(static_cast<std::int32_t>(p));
        }
        if (net.places[p].kind != PlaceKind::PostSnd) {
            s.place_col[p] = static_cast<std::int32_t>(s.col_place.size());
            s.col_place.push_back(static_cast<std::int32_t>(p));
        }
    }
    one = one && s.row_place.size() <= 64;
    for (const auto& m : s.initial)
        one = one && m.size() == 1 && s.place_row[idx(m[0])] >= 0;
    for (std::size_t r = 0; r < net.transitions.size() && one; ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync)
            continue;
        const auto pre = s.pre(static_cast<int>(r));
        const std::int32_t q = s.single_next[r];
        if (pre.size() != 1 || q < 0) {
            one = false;
            break;
        }
        const PlaceKind from = net.places[idx(pre[0])].kind, to = net.places[idx(q)].kind;
        one = t.kind == TransitionKind::snd
                  ? from == PlaceKind::Acc && to == PlaceKind::PreRcv
                  : from == PlaceKind::PreRcv && to == PlaceKind::Acc && s.place_row[idx(q)] >= 0;
        one = one && s.place_col[idx(pre[0])] >= 0 && s.place_col[idx(q)] >= 0;
    }
    if (!one) {
        s.row_place.clear();
        s.col_place.clear();
        return;
    }
    s.one_token = true;
    for (std::size_t row = 0; row < s.row_place.size(); ++row) {
        const auto p = idx(s.row_place[row]);
        const auto g = idx(s.acc_gid[p]);
        if (s.permit_read.size() <= g) {
            s.permit_read.resize(g + 1, 0);
            s.permit_write.resize(g + 1, 0);
        }
        s.permit_read[g] |= std::uint64_t{1} << row;
        if (s.acc_ex[p])
            s.permit_write[g] |= std::uint64_t{1} << row;
    }
    for (const auto& m : s.initial)
        s.initial_rows |= std::uint64_t{1} << s.place_row[idx(m[0])];
}

} // namespace

bool Shape::permits(int mode, Gid g, bool write) const {
    const AccessMode& a = net.modes[idx(mode)];
    if (write && a.kind != ModeKind::EX)
        return false;
    const auto& gids = mode_gids[idx(mode)];
    return std::find(gids.begin(), gids.end(), g) != gids.end();
}

// ---------------------------------------------------------------------------------------------
// Interning

Enforcer::Impl::Gid Enforcer::Impl::intern_thread(const std::string& name) {
    auto [it, inserted] = thread_ids.try_emplace(name, static_cast<Gid>(thread_names.size()));
    if (inserted) {
        thread_names.push_back(name);
        fork_by.emplace_back();
        join_by.emplace_back();
        join_member.emplace_back();
    }
    return it->second;
}

std::uint32_t Enforcer::Impl::intern_mech(const Mechanism& m) {
    std::string label = m.label();
    std::string key = std::string(kind_key(m.kind)) + ":" + label;
    auto [it, inserted] = mech_ids.try_emplace(key, static_cast<std::uint32_t>(mechs.size()));
    if (!inserted)
        return it->second;
    const std::uint32_t slot = it->second;
    MechInfo info;
    info.kind = m.kind;
    info.name = m.name;
    info.label = std::move(label);
    if (m.kind == MechKind::fork || m.kind == MechKind::join) {
        info.thread = intern_thread(m.thread);
        for (const std::string& t : m.threads)
            info.threads.push_back(intern_thread(t));
        std::sort(info.threads.begin(), info.threads.end());
        info.threads.erase(std::unique(info.threads.begin(), info.threads.end()),
                           info.threads.end());
        if (m.kind == MechKind::fork) {
            fork_by[idx(info.thread)].push_back(slot);
        } else {
            join_by[idx(info.thread)].push_back(slot);
            for (Gid u : info.threads)
                join_member[idx(u)].push_back(slot);
        }
    }
    mechs.push_back(std::move(info));
    return slot;
}

// Variables whose nets have the same places, transitions and modes share a Shape; the
// mechanisms on their edges may differ (e.g. a thousand variables each guarded by its own lock).
std::uint32_t Enforcer::Impl::intern_shape(const Net& net) {
    std::string key;
    for (const AccessMode& a : net.modes) {
        key += a.kind == ModeKind::EX ? "E" : "R";
        for (const std::string& t : a.threads)
            key += t + ",";
        key += ';';
    }
    key += '|';
    for (const ModeEdge& e : net.edges) {
        append_key(key, e.from);
        append_key(key, e.to);
    }
    key += '|';
    for (const Place& p : net.places) {
        append_key(key, static_cast<int>(p.kind));
        key += p.thread + ",";
        append_key(key, p.mode);
        append_key(key, p.edge);
    }
    key += '|';
    for (const Transition& r : net.transitions) {
        append_key(key, static_cast<int>(r.kind));
        key += r.thread + ",";
        append_key(key, r.edge);
        for (int p : r.pre)
            append_key(key, p);
        key += '>';
        for (int p : r.post)
            append_key(key, p);
        key += ';';
    }
    key += '|';
    for (const Marking& m : net.initial_markings) {
        for (int p : m)
            append_key(key, p);
        key += ';';
    }
    auto [it, inserted] = shape_ids.try_emplace(key, static_cast<std::uint32_t>(shapes.size()));
    if (!inserted)
        return it->second;

    Shape s;
    s.net = net;
    const std::size_t np = net.places.size();
    const auto nm = net.modes.size();
    s.place_gid.resize(np);
    s.acc_gid.assign(np, -1);
    s.acc_ex.assign(np, 0);
    s.place_mode.assign(np, -1);
    s.place_syncs.resize(np);
    s.mode_acc.resize(nm);
    s.mode_gids.resize(nm);
    for (std::size_t a = 0; a < nm; ++a)
        for (const std::string& t : net.modes[a].threads)
            s.mode_gids[a].push_back(intern_thread(t));
    for (std::size_t p = 0; p < np; ++p) {
        const Place& pl = net.places[p];
        s.place_gid[p] = intern_thread(pl.thread);
        switch (pl.kind) {
        case PlaceKind::Acc:
            s.place_mode[p] = pl.mode;
            if (pl.mode >= 0 && idx(pl.mode) < nm) {
                s.acc_gid[p] = s.place_gid[p];
                s.acc_ex[p] = net.modes[idx(pl.mode)].kind == ModeKind::EX;
                s.mode_acc[idx(pl.mode)].push_back(static_cast<std::int32_t>(p));
            }
            break;
        case PlaceKind::PostSnd: // Q(a) for a -z-> b
            if (pl.edge >= 0 && idx(pl.edge) < net.edges.size())
                s.place_mode[p] = net.edges[idx(pl.edge)].from;
            break;
        case PlaceKind::PreRcv: // Q(b) for a -z-> b
            if (pl.edge >= 0 && idx(pl.edge) < net.edges.size())
                s.place_mode[p] = net.edges[idx(pl.edge)].to;
            break;
        }
    }
    s.tr_off.push_back(0);
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        for (int p : t.pre)
            s.tr_places.push_back(p);
        s.tr_mid.push_back(static_cast<std::uint32_t>(s.tr_places.size()));
        for (int p : t.post)
            s.tr_places.push_back(p);
        s.tr_off.push_back(static_cast<std::uint32_t>(s.tr_places.size()));
        if (t.kind == TransitionKind::sync)
            for (int p : t.pre)
                s.place_syncs[idx(p)].push_back(static_cast<std::int32_t>(r));
    }
    s.single_next.assign(net.transitions.size(), -1);
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const auto pre = s.pre(static_cast<int>(r));
        if (net.transitions[r].kind == TransitionKind::sync || pre.size() != 1 ||
            !enabled(s, pre, static_cast<int>(r)))
            continue;
        std::vector<std::int32_t> out, tmp;
        fire_closed(s, pre, static_cast<int>(r), out, tmp);
        if (out.size() == 1)
            s.single_next[r] = out[0];
    }
    // Mode labels, disambiguated by index when a discipline has two modes with the same label
    // (e.g. the two copies of tl in [tl]^m ▷^n [tl]^n).
    for (std::size_t a = 0; a < nm; ++a) {
        std::string label = net.modes[a].label();
        std::size_t same = 0;
        for (const AccessMode& b : net.modes)
            same += b.label() == label;
        s.mode_labels.push_back(same > 1 ? label + "#" + std::to_string(a) : label);
    }
    for (const Marking& m : net.initial_markings) {
        std::vector<std::int32_t> v(m.begin(), m.end());
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        if (std::find(s.initial.begin(), s.initial.end(), v) == s.initial.end())
            s.initial.push_back(std::move(v));
    }
    find_one_token(s);
    shapes.push_back(std::move(s));
    return it->second;
}

bool Enforcer::Impl::add_variable(std::string name, const Net& net) {
    if (var_ids.count(name))
        return false;
    const auto vi = static_cast<std::uint32_t>(vars.size());
    Var v;
    v.name = name;
    v.shape = intern_shape(net);
    v.edge_mech = static_cast<std::uint32_t>(edge_mechs.size());
    for (const ModeEdge& e : net.edges)
        edge_mechs.push_back(intern_mech(e.mech));
    const Shape& s = shapes[v.shape];
    if (s.one_token && options.group_one_token) {
        std::vector<std::uint32_t> key{v.shape};
        key.insert(key.end(), edge_mechs.begin() + v.edge_mech, edge_mechs.end());
        auto [git, fresh] = group_ids.try_emplace(key, static_cast<std::uint32_t>(groups.size()));
        if (fresh)
            add_group(v);
        v.group = static_cast<std::int32_t>(git->second);
        lazy.push_back({stats.events, s.initial_rows});
        var_ids.emplace(std::move(name), vi);
        vars.push_back(std::move(v));
        return true;
    }
    for (const auto& m : s.initial)
        v.cands.push(m);
    lazy.emplace_back();

    // Index: group this variable's snd/rcv transitions by (mechanism, thread, role).
    std::vector<std::pair<std::uint64_t, std::int32_t>> keyed;
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync || t.edge < 0 || idx(t.edge) >= net.edges.size())
            continue;
        const Role role = t.kind == TransitionKind::snd ? Role::snd : Role::rcv;
        keyed.emplace_back(
            index_key(edge_mechs[v.edge_mech + idx(t.edge)], intern_thread(t.thread), role),
            static_cast<std::int32_t>(r));
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size();) {
        std::size_t j = i;
        Sub sub{vi, static_cast<std::uint32_t>(sub_trs.size()), 0};
        for (; j < keyed.size() && keyed[j].first == keyed[i].first; ++j)
            sub_trs.push_back(keyed[j].second);
        sub.tr_count = static_cast<std::uint32_t>(j - i);
        pending.push_back({keyed[i].first, sub});
        i = j;
    }
    var_ids.emplace(std::move(name), vi);
    vars.push_back(std::move(v));
    stats.max_candidates = std::max<std::uint64_t>(stats.max_candidates, vars.back().cands.count);
    index_dirty = true;
    syms = nullptr; // names resolved to "unknown" before may be known now
    return true;
}

// The group's storage columns by partition refinement (as in DFA minimization): two candidate
// places share a column when the same keys' rules write them from the same columns (and the
// same own row). Then each key's rules, deduplicated, become the group's index entries.
std::uint32_t Enforcer::Impl::add_group(const Var& v) {
    const Shape& s = shapes[v.shape];
    const Net& net = s.net;
    struct Raw {
        std::uint64_t key;
        std::int32_t from, to;
    };
    std::vector<Raw> raw;
    for (std::size_t r = 0; r < net.transitions.size(); ++r) {
        const Transition& t = net.transitions[r];
        if (t.kind == TransitionKind::sync || t.edge < 0 || idx(t.edge) >= net.edges.size())
            continue;
        const Role role = t.kind == TransitionKind::snd ? Role::snd : Role::rcv;
        raw.push_back(
            {index_key(edge_mechs[v.edge_mech + idx(t.edge)], intern_thread(t.thread), role),
             s.pre(static_cast<int>(r))[0], s.single_next[r]});
    }
    std::vector<std::int32_t> cls(net.places.size(), -1);
    for (std::int32_t q : s.col_place)
        cls[idx(q)] = 0;
    for (std::size_t classes = 1;;) {
        using Sig = std::vector<std::tuple<std::uint64_t, std::int32_t, std::int32_t>>;
        std::vector<Sig> sig(net.places.size());
        for (const Raw& r : raw)
            sig[idx(r.to)].emplace_back(r.key, cls[idx(r.from)], s.place_row[idx(r.from)]);
        std::map<std::pair<std::int32_t, Sig>, std::int32_t> ids;
        std::vector<std::int32_t> next(net.places.size(), -1);
        for (std::int32_t q : s.col_place) {
            Sig& g = sig[idx(q)];
            std::sort(g.begin(), g.end());
            g.erase(std::unique(g.begin(), g.end()), g.end());
            next[idx(q)] =
                ids.try_emplace({cls[idx(q)], std::move(g)}, static_cast<std::int32_t>(ids.size()))
                    .first->second;
        }
        cls.swap(next);
        if (ids.size() == classes)
            break;
        classes = ids.size();
    }

    const auto gi = static_cast<std::uint32_t>(groups.size());
    Group grp;
    grp.shape = v.shape;
    grp.column = cls;
    for (std::int32_t c : cls)
        grp.cols = std::max(grp.cols, static_cast<std::uint32_t>(c + 1));
    grp.rows = static_cast<std::uint32_t>(s.row_place.size());

    // Each key's rules, deduplicated. Rules that merge several columns into one (an acq: one
    // per possible releaser) read instead a summary column, the maximum of those sources, which
    // is kept current as they grow (Group::summaries): an acq then merges one column, not eight.
    // Only sources with own -1 (PreRcv columns, written by snd ops) are summarized, so no op
    // both reads a summary and writes one of its members.
    std::map<std::vector<std::uint32_t>, std::uint32_t> summary_of;
    std::vector<std::vector<std::uint32_t>> members_of(grp.cols); // column -> its summaries
    std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) { return a.key < b.key; });
    std::vector<Rule> rules;
    for (std::size_t i = 0; i < raw.size();) {
        rules.clear();
        std::size_t j = i;
        for (; j < raw.size() && raw[j].key == raw[i].key; ++j) {
            const Rule rule{static_cast<std::uint32_t>(cls[idx(raw[j].from)]),
                            static_cast<std::uint32_t>(cls[idx(raw[j].to)]),
                            s.place_row[idx(raw[j].from)]};
            if (std::find(rules.begin(), rules.end(), rule) == rules.end())
                rules.push_back(rule);
        }
        std::sort(rules.begin(), rules.end(), [](const Rule& x, const Rule& y) {
            return std::tuple(x.own, x.dst, x.src) < std::tuple(y.own, y.dst, y.src);
        });
        Sub sub{gi | group_bit, static_cast<std::uint32_t>(group_rules.size()), 0};
        for (std::size_t k = 0; k < rules.size();) {
            std::size_t l = k + 1;
            while (l < rules.size() && rules[l].own < 0 && rules[l].own == rules[k].own &&
                   rules[l].dst == rules[k].dst)
                ++l;
            if (rules[k].own >= 0 || l - k < 3) {
                group_rules.insert(group_rules.end(),
                                   rules.begin() + static_cast<std::ptrdiff_t>(k),
                                   rules.begin() + static_cast<std::ptrdiff_t>(l));
                k = l;
                continue;
            }
            std::vector<std::uint32_t> srcs;
            for (std::size_t r = k; r < l; ++r)
                srcs.push_back(rules[r].src);
            auto [it, fresh] = summary_of.try_emplace(srcs, grp.cols);
            if (fresh) {
                ++grp.cols;
                for (std::uint32_t c : srcs)
                    members_of[c].push_back(it->second);
            }
            group_rules.push_back({it->second, rules[k].dst, -1});
            k = l;
        }
        sub.tr_count = static_cast<std::uint32_t>(group_rules.size() - sub.tr_begin);
        pending.push_back({raw[i].key, sub});
        i = j;
    }
    grp.reach_at = reach_pool.size();
    reach_pool.resize(reach_pool.size() + std::size_t{grp.rows} * grp.cols, 0);
    grp.u32_at = group_u32.size();
    for (std::int32_t p : s.row_place)
        group_u32.push_back(static_cast<std::uint32_t>(cls[idx(p)]));
    // summary_begin (offsets from the first summary), then the summaries.
    std::vector<std::uint32_t> summaries;
    group_u32.push_back(0);
    for (std::uint32_t c = 0; c < grp.cols; ++c) {
        if (c < members_of.size())
            summaries.insert(summaries.end(), members_of[c].begin(), members_of[c].end());
        group_u32.push_back(static_cast<std::uint32_t>(summaries.size()));
    }
    group_u32.insert(group_u32.end(), summaries.begin(), summaries.end());
    groups.push_back(std::move(grp));
    index_dirty = true;
    return gi;
}

void Enforcer::Impl::freeze_index() {
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending& a, const Pending& b) { return a.key < b.key; });
    subs.clear();
    keys.clear();
    key_begin.assign(mechs.size() + 1, 0);
    for (std::size_t i = 0; i < pending.size();) {
        const auto begin = static_cast<std::uint32_t>(subs.size());
        std::size_t j = i;
        for (; j < pending.size() && pending[j].key == pending[i].key; ++j)
            subs.push_back(pending[j].sub);
        const auto slot = static_cast<std::size_t>(pending[i].key >> 32);
        ++key_begin[slot + 1];
        keys.push_back({static_cast<std::uint32_t>(pending[i].key), begin,
                        static_cast<std::uint32_t>(subs.size())});
        i = j;
    }
    for (std::size_t m = 0; m < mechs.size(); ++m)
        key_begin[m + 1] += key_begin[m];
    // A direct table (mechanism, thread, role) -> key when it is small: a sync op then costs one
    // load instead of a binary search.
    key_stride = 2 * thread_names.size();
    dense_keys.clear();
    if (mechs.size() * key_stride <= (std::size_t{1} << 22)) {
        dense_keys.assign(mechs.size() * key_stride, {});
        for (std::size_t m = 0; m < mechs.size(); ++m)
            for (std::uint32_t k = key_begin[m]; k < key_begin[m + 1]; ++k)
                dense_keys[m * key_stride + keys[k].thread_role] = {keys[k].sub_begin,
                                                                    keys[k].sub_end};
    }
    permit_stride = thread_names.size();
    permits.assign(groups.size() * 2 * permit_stride, 0);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const Shape& s = shapes[groups[gi].shape];
        std::copy(s.permit_read.begin(), s.permit_read.end(),
                  permits.begin() + static_cast<std::ptrdiff_t>(gi * 2 * permit_stride));
        std::copy(s.permit_write.begin(), s.permit_write.end(),
                  permits.begin() + static_cast<std::ptrdiff_t>((gi * 2 + 1) * permit_stride));
    }
    index_dirty = false;
}

// ---------------------------------------------------------------------------------------------
// Trace ids -> ours

void Enforcer::Impl::reset_maps(const Symbols& s) {
    syms = &s;
    thread_map.clear();
    var_map.clear();
    lock_map.clear();
    volatile_map.clear();
    barrier_map.clear();
}

namespace {
// Grows `map` to cover `id` (and the table), new entries unresolved.
std::int32_t& slot_for(std::vector<std::int32_t>& map, const SymbolTable& table, ObjId id) {
    if (id >= map.size())
        map.resize(std::max<std::size_t>(std::size_t{id} + 1, table.size()), unresolved);
    return map[id];
}
} // namespace

Enforcer::Impl::Gid Enforcer::Impl::thread_slow(ThreadId t) {
    if (t == no_object || t >= syms->threads.size())
        return -1;
    std::int32_t& g = slot_for(thread_map, syms->threads, t);
    if (g == unresolved) {
        auto it = thread_ids.find(syms->threads.name(t));
        g = it == thread_ids.end() ? -1 : it->second;
    }
    return g;
}

VarRef Enforcer::Impl::var_slow(ObjId x) {
    if (x == no_object || x >= syms->vars.size())
        return {-1, -1};
    if (x >= var_map.size())
        var_map.resize(std::max<std::size_t>(std::size_t{x} + 1, syms->vars.size()));
    VarRef& r = var_map[x];
    if (r.var == unresolved) {
        auto it = var_ids.find(syms->vars.name(x));
        r.var = it == var_ids.end() ? -1 : static_cast<std::int32_t>(it->second);
        r.group = r.var < 0 ? -1 : vars[idx(r.var)].group;
    }
    return r;
}

std::int32_t Enforcer::Impl::mech_slow(std::vector<std::int32_t>& map, const SymbolTable& table,
                                       ObjId id, MechKind kind) {
    if (id == no_object || id >= table.size())
        return -1;
    std::int32_t& m = slot_for(map, table, id);
    if (m == unresolved) {
        auto it = mech_ids.find(std::string(kind_key(kind)) + ":" + table.name(id));
        m = it == mech_ids.end() ? -1 : static_cast<std::int32_t>(it->second);
    }
    return m;
}

// ---------------------------------------------------------------------------------------------
// Events

std::span<const Sub> Enforcer::Impl::find_sparse(std::uint32_t mech, Gid g, Role role) const {
    const auto want = static_cast<std::uint32_t>(index_key(mech, g, role));
    const auto first = keys.begin() + key_begin[mech], last = keys.begin() + key_begin[mech + 1];
    auto it = std::lower_bound(first, last, want,
                               [](const Key& k, std::uint32_t w) { return k.thread_role < w; });
    if (it == last || it->thread_role != want)
        return {};
    return {subs.data() + it->sub_begin, subs.data() + it->sub_end};
}

// Collects the subs of one key into `gathered` (fork and join ops look up several keys).
void Enforcer::Impl::lookup(std::uint32_t mech, Gid g, Role role) {
    const std::span<const Sub> found = find(mech, g, role);
    gathered.insert(gathered.end(), found.begin(), found.end());
}

void Enforcer::Impl::step(const Sub& sub) {
    if (sub.var & group_bit)
        group_step(sub.var & ~group_bit, {group_rules.data() + sub.tr_begin, sub.tr_count});
    else
        sync_step(sub.var, {sub_trs.data() + sub.tr_begin, sub.tr_count});
}

// Applies one sync op to every variable gathered, each once with the union of its matching
// transitions (one op fires at most one transition per candidate: a thread has one token).
void Enforcer::Impl::apply_gathered() {
    if (gathered.empty()) {
        ++stats.sync_ops_irrelevant;
        return;
    }
    if (gathered.size() > 1)
        std::sort(gathered.begin(), gathered.end(),
                  [](const Sub& a, const Sub& b) { return a.var < b.var; });
    for (std::size_t i = 0; i < gathered.size();) {
        std::size_t j = i + 1;
        while (j < gathered.size() && gathered[j].var == gathered[i].var)
            ++j;
        if (j == i + 1) {
            step(gathered[i]);
        } else if (gathered[i].var & group_bit) {
            merged_rules.clear();
            for (std::size_t k = i; k < j; ++k)
                merged_rules.insert(merged_rules.end(), group_rules.begin() + gathered[k].tr_begin,
                                    group_rules.begin() + gathered[k].tr_begin +
                                        gathered[k].tr_count);
            group_step(gathered[i].var & ~group_bit, merged_rules);
        } else {
            merged_trs.clear();
            for (std::size_t k = i; k < j; ++k)
                merged_trs.insert(merged_trs.end(), sub_trs.begin() + gathered[k].tr_begin,
                                  sub_trs.begin() + gathered[k].tr_begin + gathered[k].tr_count);
            sync_step(gathered[i].var, merged_trs);
        }
        i = j;
    }
}

// A memory op (most events) in few instructions and registers; the rest out of line.
inline void Enforcer::Impl::on_event(const Event& e) {
    ++stats.events;
    const Gid g = thread_of(e.thread);
    if (!is_memory(e.op))
        return on_sync(e, g);
    const VarRef r = var_of(e.target);
    if (r.var < 0)
        return;
    const auto v = static_cast<std::uint32_t>(r.var);
    if (r.group < 0)
        return memory_step(v, g, e);
    const auto grp = static_cast<std::uint32_t>(r.group);
    const std::uint64_t want =
        g >= 0 ? permits[(grp * 2 + (e.op == Op::write)) * permit_stride + idx(g)] : 0;
    Lazy& lz = lazy[v];
    if (want && (want & ~lz.rows) == 0) { // every permitting row is a candidate: they stay
        lz.rows = want;
        lz.since = stats.events;
        return;
    }
    lazy_memory_step(v, grp, g, want, e);
}

void Enforcer::Impl::on_sync(const Event& e, Gid g) {
    const OpInfo& op = op_info(e.op);
    if (op.operand == Operand::name) { // acq .. bexit (r and w never come here): one key
        ++stats.sync_ops;
        std::vector<std::int32_t>& map = op.mech == MechKind::lock        ? lock_map
                                         : op.mech == MechKind::volatile_ ? volatile_map
                                                                          : barrier_map;
        const std::int32_t m = g < 0 ? -1 : mech_of(map, syms->names(op.space), e.target, op.mech);
        const std::span<const Sub> found =
            m >= 0 ? find(static_cast<std::uint32_t>(m), g, op.role) : std::span<const Sub>();
        stats.sync_ops_irrelevant += found.empty();
        for (const Sub& sub : found) // one key: distinct targets, nothing to merge
            step(sub);
        return;
    }
    gathered.clear();
    // fork/join operands as sorted gids (threads no net names are dropped: no U or S has them).
    auto operand_gids = [&]() {
        set_gids.clear();
        if (e.target != no_object && e.target < syms->thread_sets.size())
            for (ThreadId u : syms->thread_sets[e.target])
                if (Gid gu = thread_of(u); gu >= 0)
                    set_gids.push_back(gu);
        std::sort(set_gids.begin(), set_gids.end());
    };
    auto subset = [](const std::vector<Gid>& a, const std::vector<Gid>& b) {
        return std::includes(b.begin(), b.end(), a.begin(), a.end());
    };

    switch (e.op) {
    case Op::read: // above
    case Op::write:
    case Op::acquire:
    case Op::release:
    case Op::vol_read:
    case Op::vol_write:
    case Op::barrier_enter:
    case Op::barrier_exit:
        return;
    case Op::fork: // snd of every fork(t -> U) with U ⊆ the forked set
        ++stats.sync_ops;
        if (g >= 0) {
            operand_gids();
            for (std::uint32_t m : fork_by[idx(g)])
                if (subset(mechs[m].threads, set_gids))
                    lookup(m, g, Role::snd);
        }
        return apply_gathered();
    case Op::join: // rcv of every join(S -> t) with S ⊆ the joined set
        ++stats.sync_ops;
        if (g >= 0) {
            operand_gids();
            for (std::uint32_t m : join_by[idx(g)])
                if (subset(mechs[m].threads, set_gids))
                    lookup(m, g, Role::rcv);
        }
        return apply_gathered();
    case Op::thread_start: { // rcv (for u) of every fork(t -> U), u ∈ U, t the forker of u
        ++stats.sync_ops;
        const Gid forker = g >= 0 ? thread_of(e.target) : -1;
        if (forker >= 0)
            for (std::uint32_t m : fork_by[idx(forker)])
                if (std::binary_search(mechs[m].threads.begin(), mechs[m].threads.end(), g))
                    lookup(m, g, Role::rcv);
        return apply_gathered();
    }
    case Op::thread_end: // snd (for u) of every join(S -> t), u ∈ S, whatever t
        ++stats.sync_ops;
        if (g >= 0)
            for (std::uint32_t m : join_member[idx(g)])
                lookup(m, g, Role::snd);
        return apply_gathered();
    case Op::begin:
    case Op::end:
        return;
    }
}

// ---------------------------------------------------------------------------------------------
// Public API

Enforcer::Enforcer(EnforceOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = options;
}

Enforcer::~Enforcer() = default;

bool Enforcer::add_variable(std::string var_name, const Net& net) {
    return impl_->add_variable(std::move(var_name), net);
}

void Enforcer::on_event(const Event& e, const Symbols& syms) {
    Impl& im = *impl_;
    if (im.index_dirty) [[unlikely]]
        im.freeze_index();
    if (im.syms != &syms) [[unlikely]]
        im.reset_maps(syms);
    im.on_event(e);
}

void Enforcer::reset() {
    Impl& im = *impl_;
    for (std::size_t i = 0; i < im.vars.size(); ++i) {
        Var& v = im.vars[i];
        v.cands.clear();
        if (v.group >= 0) {
            im.lazy[i].rows = im.shapes[v.shape].initial_rows;
            im.lazy[i].since = 0;
        } else {
            for (const auto& m : im.shapes[v.shape].initial)
                v.cands.push(m);
        }
        v.violations = 0;
    }
    std::fill(im.reach_pool.begin(), im.reach_pool.end(), 0);
    im.first.clear();
    im.all.clear();
    im.stats = {};
    im.syms = nullptr;
}

const std::vector<EnforceViolation>& Enforcer::violations() const {
    return impl_->first;
}
const std::vector<EnforceViolation>& Enforcer::all_violations() const {
    return impl_->all;
}
std::size_t Enforcer::variable_count() const {
    return impl_->vars.size();
}
const Enforcer::Stats& Enforcer::stats() const {
    return impl_->stats;
}

std::vector<Marking> Enforcer::candidates(std::string_view var) const {
    std::vector<Marking> out;
    auto it = impl_->var_ids.find(std::string(var));
    if (it == impl_->var_ids.end())
        return out;
    const Var& v = impl_->vars[it->second];
    const bool is_lazy = v.group >= 0;
    Candidates lazy;
    if (is_lazy)
        impl_->materialize(it->second, lazy);
    (is_lazy ? lazy : v.cands).for_each([&](std::span<const std::int32_t> m) {
        out.emplace_back(m.begin(), m.end());
    });
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> Enforcer::possible_modes(std::string_view var) const {
    std::vector<std::string> out;
    auto it = impl_->var_ids.find(std::string(var));
    if (it == impl_->var_ids.end())
        return out;
    const Var& v = impl_->vars[it->second];
    const Shape& s = impl_->shapes[v.shape];
    std::vector<int> modes;
    const bool is_lazy = v.group >= 0;
    Candidates lazy;
    if (is_lazy)
        impl_->materialize(it->second, lazy);
    (is_lazy ? lazy : v.cands).for_each([&](std::span<const std::int32_t> m) {
        for (std::int32_t p : m)
            if (s.place_mode[idx(p)] >= 0)
                modes.push_back(s.place_mode[idx(p)]);
    });
    std::sort(modes.begin(), modes.end());
    modes.erase(std::unique(modes.begin(), modes.end()), modes.end());
    for (int a : modes)
        out.push_back(s.mode_labels[idx(a)]);
    return out;
}

} // namespace sfg
