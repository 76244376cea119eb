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
    const NetShapes& shapes_;
    const NetNames& names_;
    const Variables& vars_;
};

} // namespace sfg::enforce
