// Synchronization flow graphs (thesis §4.2.1): access modes as vertices, mechanisms on edges,
// in- and out-modes; built from the base graphs and operators of Figures 4.3/4.4 with Valid
// (§4.2.3) on Boost.Graph, then handed on as the runtime's plain Discipline (to_discipline).
#pragma once

#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/limits.hpp"
#include "sfg/runtime/core/petri_net.hpp"
#include "sfg/runtime/net.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg {

struct SfgMode {
    AccessMode mode;
    SourceLoc loc; // the EX/RS term it came from
};

struct SfgEdge {
    std::uint32_t id = 0; // creation order: ids 0, 1, ... as in the JSON and the net (e0, e1, ...)
    Mechanism mech;
    SourceLoc loc; // the operator's label
};

using SfgGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, SfgMode, SfgEdge>;

// G = (A, S, I, O). Vertex index = mode id.
struct Sfg {
    SfgGraph graph;
    std::vector<std::uint32_t> in;
    std::vector<std::uint32_t> out;
    std::vector<EdgeFamily> families; // edges kept as rules (CompileLimits::family_from)

    const AccessMode& mode(std::uint32_t id) const { return graph[id].mode; }
    // Modes no path from an in-mode reaches (breadth-first search over the graph).
    std::vector<std::uint32_t> unreachable_modes() const;
};

// A label before Valid: a resolved mechanism, or a bare fork/join resolved per edge.
struct EdgeLabel {
    enum class Kind { mech, bare_fork, bare_join };
    Kind kind = Kind::mech;
    Mechanism mech; // kind == mech
};

// What one ▷ or [·] did with its candidate edges o -> i, for diagnostics.
struct ConnectReport {
    struct Dropped {
        std::uint32_t from, to;
        std::string reason; // why Valid failed
    };
    int candidates = 0;
    int valid = 0;
    std::vector<Dropped> dropped;   // the first max_dropped_kept
    std::size_t dropped_beyond = 0; // how many more were dropped
    static constexpr std::size_t max_dropped_kept = 10;
    struct SelfSync {
        std::uint32_t from, to;
        Mechanism mech;
    };
    std::vector<SelfSync> self_sync; // added edges whose fork/join includes its own thread
};

// Builds one SFG from the operators; fragments are (I, O) over the shared graph.
class SfgBuilder {
public:
    struct Fragment {
        std::vector<std::uint32_t> in, out;
    };

    // Named disciplines expand to copies, so a short text can denote a huge graph: the builder
    // stops adding modes or edges once `max_modes` modes or `max_candidates` candidate edges
    // would be exceeded, and reports over_budget() instead of spending the memory.
    explicit SfgBuilder(std::size_t max_modes = CompileLimits{}.modes,
                        std::size_t max_candidates = CompileLimits{}.edges,
                        std::size_t family_from = CompileLimits{}.family_from)
        : max_modes_(max_modes), max_candidates_(max_candidates), family_from_(family_from) {}

    // EX(t) and RS(T), Figure 4.3.
    Fragment base(AccessMode mode, SourceLoc loc);
    // G1 ⊔ G2, G1 ▷^z G2 and [G1]^z, Figure 4.4. The edge set is a set: an edge with the same
    // source, target and mechanism is added once.
    Fragment disjunction(const Fragment& g1, const Fragment& g2);
    Fragment sequence(const Fragment& g1, const EdgeLabel& z, const Fragment& g2, SourceLoc loc,
                      ConnectReport& report);
    Fragment loop(const Fragment& g1, const EdgeLabel& z, SourceLoc loc, ConnectReport& report);

    Sfg finish(const Fragment& g) &&;

    // The first bound that was hit: which one, and where (the term or the operator's label).
    struct Overrun {
        enum class What { modes, edges } what = What::modes;
        SourceLoc loc;
    };
    bool over_budget() const { return overrun_.has_value(); }
    const std::optional<Overrun>& overrun() const { return overrun_; }
    std::size_t candidates() const { return candidates_; }
    const SfgGraph& graph() const { return graph_; }

private:
    void connect(const std::vector<std::uint32_t>& outs, const EdgeLabel& z,
                 const std::vector<std::uint32_t>& ins, SourceLoc loc, ConnectReport& report);
    // Whether connect keeps outs x ins as one EdgeFamily (CompileLimits::family_from).
    bool family(const std::vector<std::uint32_t>& outs, const EdgeLabel& z,
                const std::vector<std::uint32_t>& ins) const;
    SfgGraph graph_;
    std::vector<EdgeFamily> families_;
    std::uint32_t next_edge_ = 0;
    std::size_t max_modes_, max_candidates_, family_from_;
    std::size_t candidates_ = 0;
    std::unordered_map<std::uint64_t, std::vector<Mechanism>> pair_mechs_; // (o, i) -> labels
    std::optional<Overrun> overrun_;
};

// G as plain data: modes by index, edges ordered by id (the net's e0, e1, ...); moves out of `g`.
Discipline to_discipline(Sfg&& g);

// Valid(o -z-> i) (§4.2.3): Tid(o) ⊆ S and Tid(i) ⊆ T for some (S, T) ∈ Msg(z), decided by
// sfg::valid (petri_net.hpp). Returns the reason it fails, or an empty string when valid.
std::string why_invalid(const AccessMode& o, const Mechanism& z, const AccessMode& i);

} // namespace sfg
