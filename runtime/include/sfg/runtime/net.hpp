// The Petri net N(G) of an SFG, thesis Figure 4.11, as plain data.
//
// This is the one type shared by the compiler (which builds it with petri_net.hpp), the writers
// (DOT, JSON, PNML, generated C++) and the enforcer (which simulates it, Figures 4.14/4.15).
// It lives in runtime/ so that generated enforcers and user tests link nothing heavier.
#pragma once

#include "sfg/runtime/op.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sfg {

// A synchronization mechanism z in SyncMech (thesis §4.1.1), fully resolved: a bare `fork` or
// `join` label has already been turned into fork(t -> U) / join(S -> t) for its edge.
struct Mechanism {
    MechKind kind = MechKind::lock;
    std::string name;                 // lock, volatile, barrier or queue name; empty for fork/join
    std::string thread;               // fork: the forking thread t; join: the joining thread t
    std::vector<std::string> threads; // fork: U; join: S; barrier: its thread set (sorted)
    // volatile only: the mechanism v==K of thesis §5.1 (vflag), whose snd writes K to v and whose
    // rcv reads K from it; empty for the plain volatile v.
    std::optional<std::int64_t> value{};

    // The canonical label (docs/tutorial.md): "m", "v==1", "fork(t0->t1,t2)", "join(t1,t2->t0)".
    std::string label() const;
    friend bool operator==(const Mechanism&, const Mechanism&) = default;
};

const char* to_string(MechKind k); // "lock", "volatile", "barrier", "fork", "join", "queue"

// An access mode EX(t), RS(T) (thesis §4.2.1) or LOCK_m(T) (thesis §5.2); threads sorted by name.
// LOCK_m(T) composes and refines like RS(T); only what its Acc places permit differs: any access
// by t, but only while t holds m (docs/language.md, "Lock-held modes").
enum class ModeKind : std::uint8_t { EX, RS, LOCK };

struct AccessMode {
    ModeKind kind = ModeKind::EX;
    std::vector<std::string> threads;
    std::string lock{};        // LOCK: the lock m; empty for EX and RS
    std::string label() const; // "EX(t0)", "RS(t0,t1)", "LOCK_m(t0,t1)"
};

// An SFG edge a -z-> b between mode indices (into Net::modes, as Place::mode).
struct ModeEdge {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    Mechanism mech;
};

// A family of SFG edges kept as one rule: an edge a -mech-> b for every mode a of `from` and every
// b of `to`, |from| x |to| edges (a pool's [EX(each W)]^m over n workers: n^2 edges between its n
// modes; docs/language.md, "Thread groups"). Only for mechanisms that pass from one thread to one
// (Msg(z) = {({s},{t})}, thesis §4.2.3: a lock or a volatile) between modes of one thread each.
// Its net is N(G)'s with every PostSnd place of the family one place, and every PreRcv place one
// (build_petri_net): those of N(G) are told apart by nothing that follows them, since a sender's
// mode has one thread and a receiver's rcv leads to its own Acc place whoever sent.
struct EdgeFamily {
    std::vector<std::uint32_t> from, to;
    Mechanism mech;
};

enum class PlaceKind : std::uint8_t { Acc, PostSnd, PreRcv };
enum class TransitionKind : std::uint8_t { snd, sync, rcv };
const char* to_string(PlaceKind k);
const char* to_string(TransitionKind k);

// Acc[t:a] (mode a, no edge), PostSnd[s:e] / PreRcv[t:e] (edge e, no mode): indices into
// Net::modes and Net::edges. The lock that Acc[t:a] of a LOCK mode requires is modes[a].lock.
struct Place {
    std::string id;
    PlaceKind kind = PlaceKind::Acc;
    std::string thread;
    std::optional<std::uint32_t> mode{};
    std::optional<std::uint32_t> edge{};
};

// snd[s:e], sync[e] (thread empty), rcv[t:e]: every transition belongs to its edge e; pre/post
// are place indices (the flow relation F).
struct Transition {
    std::string id;
    TransitionKind kind = TransitionKind::snd;
    std::string thread;
    std::uint32_t edge = 0;
    std::vector<std::uint32_t> pre;
    std::vector<std::uint32_t> post;
};

// A marking: the sorted indices of the marked places (nets are 1-safe, Lemma 4.3.10).
using Marking = std::vector<std::uint32_t>;

struct Net {
    std::vector<AccessMode> modes; // the SFG being refined: modes and edges by index
    std::vector<ModeEdge> edges;
    // Edge ids (Place::edge, Transition::edge) are the edges', then one for each family:
    // edges.size() + f.
    std::vector<EdgeFamily> families;
    std::vector<Place> places;
    std::vector<Transition> transitions;
    std::vector<Marking> initial_markings; // M0 = { P(i) | i in-mode }

    std::size_t edge_count() const { return edges.size() + families.size(); }
    const Mechanism& mechanism(std::uint32_t e) const {
        return e < edges.size() ? edges[e].mech : families[e - edges.size()].mech;
    }

    // Elementary firing rule (thesis §4.3.1): pre ⊆ M and post ∩ M = ∅.
    bool enabled(const Marking& m, std::size_t transition) const;
    Marking fire(const Marking& m, std::size_t transition) const; // requires enabled()
};

} // namespace sfg
