// Explanations of violations (docs/enforcement.md): which modes were possible, which modes
// would have permitted the access, and which sync ops were missing to get there (derived from
// the SFG edges into those modes, thesis Figure 4.12). describe() builds plain data; explain()
// (enforce.hpp) only formats it.
#pragma once

#include "candidate_set.hpp"
#include "indices.hpp"
#include "net_names.hpp"
#include "net_shape.hpp"
#include "variables.hpp"

#include "sfg/runtime/enforce.hpp"

#include <span>
#include <string>
#include <tuple>
#include <vector>

namespace sfg::enforce {

class ViolationExplainer {
public:
    ViolationExplainer(const NetShapes& shapes, const NetNames& names, const Variables& vars)
        : shapes_(shapes), names_(names), vars_(vars) {}

    // The memory op e by thread t, holding `held`, on v, which none of the candidates `cands`
    // permits.
    EnforceViolation describe(VarIx v, CandidateView cands, NetThread t, HeldLocks held,
                              const Event& e, const Symbols* syms) const;

private:
    // A way into a permitting mode: the edge, the threads that must still snd, and the count of
    // missing ops (those snds and the accessing thread's rcv).
    // The edge is an SFG edge's id as expand_families numbers them (petri_net.hpp: a family's
    // edges after the net's). A family's PreRcv place does not tell its senders apart (net.hpp):
    // a token there is a way through any edge of the family into the permitting mode,
    // any_sender, whose edge is the first such.
    struct Way {
        std::size_t cost;
        EdgeIx edge;
        std::vector<NetThread> senders;
        bool any_sender = false;
        auto key() const { return std::tie(cost, edge, senders, any_sender); }
    };
    std::vector<ModeIx> possible_modes(const NetShape& s, CandidateView cands) const;
    std::vector<Way> cheapest_ways(const NetShape& s, CandidateView cands, NetThread t,
                                   const IndexVec<ModeIx, char>& permitting) const;
    EnforceFix fix(const Variable& v, const Way& w) const;
    std::string op_text(Op op, const MechanismInfo& mi, const std::string& var) const;
    std::string route(const Variable& v, std::span<const ModeIx> possible,
                      const IndexVec<ModeIx, char>& permitting) const;

    const NetShapes& shapes_;
    const NetNames& names_;
    const Variables& vars_;
};

} // namespace sfg::enforce
