#include "sfg/compiler/petri.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace sfg {

Net build_petri_net(const Sfg& g) {
    Net n;
    const int modes = g.mode_count();
    for (int a = 0; a < modes; ++a)
        n.modes.push_back(g.mode(a));
    n.edges = g.edges();

    // P(a): one Acc place per thread of the mode.
    std::vector<std::map<std::string, int>> acc(static_cast<std::size_t>(modes));
    for (int a = 0; a < modes; ++a)
        for (const std::string& t : n.modes[static_cast<std::size_t>(a)].threads) {
            acc[static_cast<std::size_t>(a)][t] = static_cast<int>(n.places.size());
            n.places.push_back({fmt::format("Acc[{}:{}]", t, a), PlaceKind::Acc, t, a, -1});
        }

    // P(e), R(e), F(e) for each edge e = a -z-> b.
    for (int e = 0; e < static_cast<int>(n.edges.size()); ++e) {
        const ModeEdge& edge = n.edges[static_cast<std::size_t>(e)];
        const AccessMode& a = n.modes[static_cast<std::size_t>(edge.from)];
        const AccessMode& b = n.modes[static_cast<std::size_t>(edge.to)];
        Transition sync{fmt::format("sync[e{}]", e), TransitionKind::sync, "", e, {}, {}};
        for (const std::string& s : a.threads) {
            int post_snd = static_cast<int>(n.places.size());
            n.places.push_back(
                {fmt::format("PostSnd[{}:e{}]", s, e), PlaceKind::PostSnd, s, -1, e});
            n.transitions.push_back({fmt::format("snd[{}:e{}]", s, e),
                                     TransitionKind::snd,
                                     s,
                                     e,
                                     {acc[static_cast<std::size_t>(edge.from)].at(s)},
                                     {post_snd}});
            sync.pre.push_back(post_snd);
        }
        std::vector<Transition> rcvs;
        for (const std::string& t : b.threads) {
            int pre_rcv = static_cast<int>(n.places.size());
            n.places.push_back({fmt::format("PreRcv[{}:e{}]", t, e), PlaceKind::PreRcv, t, -1, e});
            rcvs.push_back({fmt::format("rcv[{}:e{}]", t, e),
                            TransitionKind::rcv,
                            t,
                            e,
                            {pre_rcv},
                            {acc[static_cast<std::size_t>(edge.to)].at(t)}});
            sync.post.push_back(pre_rcv);
        }
        n.transitions.push_back(std::move(sync));
        for (Transition& r : rcvs)
            n.transitions.push_back(std::move(r));
    }

    // M0 = { P(i) | i ∈ I }; in-modes are distinct modes, so their P(i) are distinct.
    for (int i : g.in) {
        Marking m;
        for (const auto& [t, p] : acc[static_cast<std::size_t>(i)])
            m.push_back(p);
        std::sort(m.begin(), m.end());
        n.initial_markings.push_back(std::move(m));
    }
    return n;
}

std::size_t petri_net_size(const Sfg& g) {
    std::size_t size = 0;
    for (int a = 0; a < g.mode_count(); ++a)
        size += g.mode(a).threads.size();
    for (auto [it, end] = boost::edges(g.graph); it != end; ++it)
        size += 2 * (g.graph[boost::source(*it, g.graph)].mode.threads.size() +
                     g.graph[boost::target(*it, g.graph)].mode.threads.size()) +
                1;
    return size;
}

} // namespace sfg
