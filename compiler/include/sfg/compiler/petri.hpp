// The refinement of an SFG into its Petri net N(G), thesis Figure 4.11.
#pragma once

#include "sfg/compiler/sfg.hpp"
#include "sfg/runtime/net.hpp"

#include <cstddef>

namespace sfg {

// P(a) = { Acc[t:a] | t ∈ Tid(a) } for every mode a; for every edge e = a -z-> b the places
// PostSnd[s:e] (s ∈ Tid(a)) and PreRcv[t:e] (t ∈ Tid(b)), the transitions snd[s:e], sync[e],
// rcv[t:e], and the flow Acc[s:a] → snd → PostSnd → sync → PreRcv → rcv → Acc[t:b];
// M0 = { P(i) | i in-mode }. Ids are "Acc[t0:0]", "PostSnd[t0:e1]", "sync[e1]", ...
Net build_petri_net(const Sfg& g);

// |places| + |transitions| of build_petri_net(g), without building it: Σ_a |Tid(a)| plus, for
// each edge a -> b, 2 |Tid(a)| + 2 |Tid(b)| + 1.
std::size_t petri_net_size(const Sfg& g);

} // namespace sfg
