// A synchronization discipline as its SFG G = (A, S, I, O) in plain data (thesis §4.2.1), and its
// refinement into the Petri net N(G) (thesis Figure 4.11).
//
// The compiler builds G with Boost.Graph (compiler/sfg) and hands it over in this form; the
// refinement lives here so that tests and generated enforcers build nets without the compiler.
#pragma once

#include "sfg/runtime/net.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sfg {

// G = (A, S, I, O): access modes and edges by index (edge i is "ei" in the net's ids), in-modes
// and out-modes as mode indices.
struct Discipline {
    std::vector<AccessMode> modes;
    std::vector<ModeEdge> edges;
    std::vector<std::uint32_t> in, out;
    std::vector<EdgeFamily> families{}; // edges kept as rules (net.hpp), ids after `edges`
};

// P(a) = { Acc[t:a] | t ∈ Tid(a) } for every mode a; for every edge e = a -z-> b the places
// PostSnd[s:e] (s ∈ Tid(a)) and PreRcv[t:e] (t ∈ Tid(b)), the transitions snd[s:e], sync[e],
// rcv[t:e], and the flow Acc[s:a] → snd → PostSnd → sync → PreRcv → rcv → Acc[t:b];
// M0 = { P(i) | i in-mode }. Ids are "Acc[t0:0]", "PostSnd[t0:e1]", "sync[e1]", ...
Net build_petri_net(const Discipline& g);

// A family (net.hpp) is built as N(G)'s edges would be, but for its places: one PostSnd[f<k>]
// and one PreRcv[f<k>] (no thread) per family k, snd[s:f<k>.<a>] from Acc[s:a] for each mode a
// of `from`, one sync[f<k>], rcv[t:f<k>.<b>] to Acc[t:b] for each mode b of `to`.

// G with each family's edges listed, after `edges` in the order of their (from, to) pairs: the
// SFG the writers draw, and the explicit net that a family's stands for (the tests compare them).
Discipline expand_families(const Discipline& g);

// Valid(o -z-> i) (thesis §4.2.3): Tid(o) ⊆ S and Tid(i) ⊆ T for some (S, T) ∈ Msg(z), where
// Msg(m) = Msg(v) = Msg(v==K) = Msg(q(o)) = {({s},{t})} (§5.1: one thread passes to one),
// Msg(b) pairs subsets of the barrier's threads, Msg(fork(t -> U)) = {({t}, U)} and
// Msg(join(S -> t)) = {(S, {t})}. The threads of modes and mechanisms are sorted (net.hpp). The
// compiler's SfgBuilder drops the edges it rejects (compiler/src/sfg.cpp, why_invalid).
bool valid(const AccessMode& o, const Mechanism& z, const AccessMode& i);

// |places| + |transitions| of build_petri_net(g), without building it: Σ_a |Tid(a)| plus, for
// each edge a -> b, 2 |Tid(a)| + 2 |Tid(b)| + 1, and for each family |from| + |to| + 3.
std::size_t petri_net_size(const Discipline& g);

} // namespace sfg
