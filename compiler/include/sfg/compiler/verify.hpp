// Mechanical check of the thesis' invariants on N(G) (§4.3.4): every reachable marking is
// 1-safe and b-feasible for some access mode b (Definition 4.3.7, Lemma 4.3.10).
#pragma once

#include "sfg/runtime/net.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace sfg {

// Reachability graph: one vertex per reachable marking, one edge per firing (transition index).
using ReachabilityGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Marking, std::uint32_t>;

struct NetVerification {
    std::size_t reachable = 0; // distinct reachable markings found
    bool complete = true;      // false when the search stopped at max_markings
    std::string failure;       // empty when every invariant holds
    ReachabilityGraph graph;
    bool ok() const { return failure.empty(); }
};

// Breadth-first exploration from every initial marking (P/T firing, to catch a second token).
// A net can have exponentially many markings (a barrier over n threads: 2^n), so the search
// stops, incomplete, before it would store more than `max_markings` (sfgc --max-markings).
inline constexpr std::size_t default_max_markings = 100000;
NetVerification verify_net(const Net& net, std::size_t max_markings = default_max_markings);

// The access mode b for which `m` is b-feasible, if there is one.
std::optional<std::uint32_t> feasible_mode(const Net& net, const Marking& m);

} // namespace sfg
