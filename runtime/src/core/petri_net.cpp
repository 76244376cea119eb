#include "sfg/runtime/core/petri_net.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace sfg {

bool valid(const AccessMode& o, const Mechanism& z, const AccessMode& i) {
    const auto subset = [](const std::vector<std::string>& a, const std::vector<std::string>& b) {
        return std::includes(b.begin(), b.end(), a.begin(), a.end());
    };
    switch (z.kind) {
    case MechKind::lock:
    case MechKind::volatile_:
    case MechKind::queue:
        return o.threads.size() == 1 && i.threads.size() == 1;
    case MechKind::barrier:
        return subset(o.threads, z.threads) && subset(i.threads, z.threads);
    case MechKind::fork:
        return subset(o.threads, {z.thread}) && subset(i.threads, z.threads);
    case MechKind::join:
        return subset(o.threads, z.threads) && subset(i.threads, {z.thread});
    }
    return false;
}

Net build_petri_net(const Discipline& g) {
    Net n;
    n.modes = g.modes;
    n.edges = g.edges;

    // P(a): one Acc place per thread of the mode.
    const auto index = [](std::size_t i) { return static_cast<std::uint32_t>(i); };
    std::vector<std::map<std::string, std::uint32_t>> acc(n.modes.size());
    for (std::size_t a = 0; a < n.modes.size(); ++a)
        for (const std::string& t : n.modes[a].threads) {
            acc[a][t] = index(n.places.size());
            n.places.push_back(
                {fmt::format("Acc[{}:{}]", t, a), PlaceKind::Acc, t, index(a), std::nullopt});
        }

    // P(e), R(e), F(e) for each edge e = a -z-> b.
    for (std::uint32_t e = 0; e < n.edges.size(); ++e) {
        const ModeEdge& edge = n.edges[e];
        const AccessMode& a = n.modes[edge.from];
        const AccessMode& b = n.modes[edge.to];
        Transition sync{fmt::format("sync[e{}]", e), TransitionKind::sync, "", e, {}, {}};
        for (const std::string& s : a.threads) {
            const std::uint32_t post_snd = index(n.places.size());
            n.places.push_back(
                {fmt::format("PostSnd[{}:e{}]", s, e), PlaceKind::PostSnd, s, std::nullopt, e});
            n.transitions.push_back({fmt::format("snd[{}:e{}]", s, e),
                                     TransitionKind::snd,
                                     s,
                                     e,
                                     {acc[edge.from].at(s)},
                                     {post_snd}});
            sync.pre.push_back(post_snd);
        }
        std::vector<Transition> rcvs;
        for (const std::string& t : b.threads) {
            const std::uint32_t pre_rcv = index(n.places.size());
            n.places.push_back(
                {fmt::format("PreRcv[{}:e{}]", t, e), PlaceKind::PreRcv, t, std::nullopt, e});
            rcvs.push_back({fmt::format("rcv[{}:e{}]", t, e),
                            TransitionKind::rcv,
                            t,
                            e,
                            {pre_rcv},
                            {acc[edge.to].at(t)}});
            sync.post.push_back(pre_rcv);
        }
        n.transitions.push_back(std::move(sync));
        for (Transition& r : rcvs)
            n.transitions.push_back(std::move(r));
    }

    // A family k: N(G) of its |from| x |to| edges with their PostSnd places one place and their
    // PreRcv places one (net.hpp), so |from| + |to| + 3 places and transitions, not 5 per edge.
    for (std::size_t k = 0; k < g.families.size(); ++k) {
        const EdgeFamily& f = g.families[k];
        const auto e = index(n.edges.size() + k);
        const auto post_snd = index(n.places.size());
        n.places.push_back(
            {fmt::format("PostSnd[f{}]", k), PlaceKind::PostSnd, "", std::nullopt, e});
        const auto pre_rcv = index(n.places.size());
        n.places.push_back({fmt::format("PreRcv[f{}]", k), PlaceKind::PreRcv, "", std::nullopt, e});
        for (std::uint32_t a : f.from) {
            const std::string& s = n.modes[a].threads.at(0);
            n.transitions.push_back({fmt::format("snd[{}:f{}.{}]", s, k, a),
                                     TransitionKind::snd,
                                     s,
                                     e,
                                     {acc[a].at(s)},
                                     {post_snd}});
        }
        n.transitions.push_back(
            {fmt::format("sync[f{}]", k), TransitionKind::sync, "", e, {post_snd}, {pre_rcv}});
        for (std::uint32_t b : f.to) {
            const std::string& t = n.modes[b].threads.at(0);
            n.transitions.push_back({fmt::format("rcv[{}:f{}.{}]", t, k, b),
                                     TransitionKind::rcv,
                                     t,
                                     e,
                                     {pre_rcv},
                                     {acc[b].at(t)}});
        }
    }
    n.families = g.families;

    // M0 = { P(i) | i ∈ I }; in-modes are distinct modes, so their P(i) are distinct.
    for (std::uint32_t i : g.in) {
        Marking m;
        for (const auto& [t, p] : acc[i])
            m.push_back(p);
        std::sort(m.begin(), m.end());
        n.initial_markings.push_back(std::move(m));
    }
    return n;
}

std::size_t petri_net_size(const Discipline& g) {
    std::size_t size = 0;
    for (const AccessMode& a : g.modes)
        size += a.threads.size();
    for (const ModeEdge& e : g.edges)
        size += 2 * (g.modes[e.from].threads.size() + g.modes[e.to].threads.size()) + 1;
    for (const EdgeFamily& f : g.families)
        size += f.from.size() + f.to.size() + 3;
    return size;
}

Discipline expand_families(const Discipline& g) {
    Discipline d{g.modes, g.edges, g.in, g.out, {}};
    for (const EdgeFamily& f : g.families)
        for (std::uint32_t a : f.from)
            for (std::uint32_t b : f.to)
                d.edges.push_back({a, b, f.mech});
    return d;
}

} // namespace sfg
