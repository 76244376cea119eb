// The annotated variables: what the coordinator (Enforcer::Impl), the name resolver and the
// explainer share about each; the engines keep their own state by VarIx.
#pragma once

#include "indices.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg::enforce {

struct Variable {
    std::string name;
    ShapeIx shape;
    std::uint32_t edge_mech = 0; // the mechanism of edge e at Variables::edge_mechs[edge_mech + e]
    std::uint32_t violations = 0;
    GroupIx group; // a OneTokenGroups variable's group; none: a CandidateMarkings one
};

struct Variables {
    IndexVec<VarIx, Variable> list;
    std::unordered_map<std::string, VarIx> ids;
    std::vector<MechIx> edge_mechs;

    VarIx find(const std::string& name) const {
        auto it = ids.find(name);
        return it == ids.end() ? VarIx::none() : it->second;
    }
    // The mechanism on each SFG edge of v's net, by edge index.
    std::span<const MechIx> mechanisms(const Variable& v, std::size_t edges) const {
        return {edge_mechs.data() + v.edge_mech, edges};
    }
    MechIx mechanism(const Variable& v, EdgeIx e) const { return edge_mechs[v.edge_mech + e.v]; }
};

} // namespace sfg::enforce
