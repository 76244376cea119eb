#include "sfg/compiler/verify.hpp"

#include <boost/container_hash/hash.hpp>
#include <fmt/format.h>
#include <stdexcept>

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

namespace sfg {

namespace {
// Q(b) partitions the places (proof of Lemma 4.3.8): Acc[t:b], PreRcv[t:a->b], PostSnd[t:b->c].
std::uint32_t neighborhood(const Net& net, const Place& p) {
    switch (p.kind) {
    case PlaceKind::Acc:
        return *p.mode;
    case PlaceKind::PreRcv:
        return net.edges[*p.edge].to;
    case PlaceKind::PostSnd:
        return net.edges[*p.edge].from;
    }
    return 0; // not reached: every place kind is above
}

std::string marking_text(const Net& net, const Marking& m) {
    std::string s = "{";
    for (std::size_t i = 0; i < m.size(); ++i)
        s += (i ? ", " : "") + net.places[m[i]].id;
    return s + "}";
}
} // namespace

std::optional<std::uint32_t> feasible_mode(const Net& net, const Marking& m) {
    if (m.empty())
        return std::nullopt;
    const std::uint32_t b = neighborhood(net, net.places[m[0]]);
    std::vector<std::string> threads;
    for (std::uint32_t p : m) {
        const Place& pl = net.places[p];
        if (neighborhood(net, pl) != b)
            return std::nullopt;
        threads.push_back(pl.thread);
    }
    std::sort(threads.begin(), threads.end());
    // Exactly one token for each thread of b and none for any other thread.
    if (threads != net.modes[b].threads)
        return std::nullopt;
    return b;
}

NetVerification verify_net(const Net& net, std::size_t max_markings) {
    if (!net.families.empty())
        throw std::invalid_argument("verify_net: the net has edge families; list them first "
                                    "(expand_families, docs/language.md)");
    NetVerification r;
    std::unordered_map<Marking, std::size_t, boost::hash<Marking>> index;
    std::deque<std::size_t> queue;
    auto visit = [&](const Marking& m) -> std::pair<std::size_t, bool> {
        auto [it, fresh] = index.emplace(m, 0);
        if (fresh) {
            it->second = boost::add_vertex(m, r.graph);
            queue.push_back(it->second);
        }
        return {it->second, fresh};
    };
    for (const Marking& m0 : net.initial_markings)
        visit(m0);
    while (!queue.empty() && r.failure.empty()) {
        std::size_t v = queue.front();
        queue.pop_front();
        const Marking m = r.graph[v];
        if (!feasible_mode(net, m)) {
            r.failure = fmt::format("reachable marking {} is not feasible for any access mode",
                                    marking_text(net, m));
            break;
        }
        for (std::size_t t = 0; t < net.transitions.size(); ++t) {
            const Transition& tr = net.transitions[t];
            auto marked = [&](std::uint32_t p) {
                return std::binary_search(m.begin(), m.end(), p);
            };
            if (!std::all_of(tr.pre.begin(), tr.pre.end(), marked))
                continue;
            // Under the P/T rule this firing would put a second token on a marked place.
            if (auto p = std::find_if(tr.post.begin(), tr.post.end(), marked); p != tr.post.end()) {
                r.failure = fmt::format("not 1-safe: firing {} from {} puts a second token on {}",
                                        tr.id, marking_text(net, m), net.places[*p].id);
                break;
            }
            Marking next = net.fire(m, t);
            if (index.size() >= max_markings && !index.count(next)) {
                // Stop at once: the caller reports the bound, and a partial count says nothing.
                r.complete = false;
                queue.clear();
                break;
            }
            auto [w, fresh] = visit(next);
            (void)fresh;
            boost::add_edge(v, w, static_cast<std::uint32_t>(t), r.graph);
        }
    }
    r.reachable = index.size();
    return r;
}

} // namespace sfg
