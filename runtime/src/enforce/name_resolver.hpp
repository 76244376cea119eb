// Trace ids -> the enforcer's ids, by name (enforce.hpp: the nets' threads and mechanisms are
// matched to the trace's by name, lazily): each id is resolved on first sight, then costs one
// load.
#pragma once

#include "indices.hpp"
#include "net_names.hpp"
#include "variables.hpp"

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/op.hpp"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sfg::enforce {

// A trace variable resolved: our variable and its group, read in one load.
struct VarRef {
    VarIx var;
    GroupIx group;
};

class NameResolver {
public:
    NameResolver(const NetNames& names, const Variables& vars) : names_(names), vars_(vars) {}

    // The trace's symbols; a new one forgets every resolution (but those next_trace kept).
    const Symbols* symbols() const { return syms_; }
    void reset(const Symbols* s);
    // Another trace: forgets every resolution but the threads', which the next reset(s) keeps
    // for each id whose name in s is still its thread's. A model checker's executions share one
    // Symbols, and a pool of 1,024 threads would otherwise look its names up again in each
    // (bench/README.md, "thread pools").
    void next_trace();

    NetThread thread_of(ThreadId t) {
        if (t < threads_.size()) [[likely]]
            if (const NetThread g = threads_[t]; g != unresolved<NetThread>) [[likely]]
                return g;
        return thread_slow(t);
    }
    VarRef var_of(ObjId x) {
        if (x < vars_map_.size()) [[likely]]
            if (const VarRef r = vars_map_[x]; r.var != unresolved<VarIx>) [[likely]]
                return r;
        return var_slow(x);
    }
    // The mechanism a name op's operand names (acq .. bexit: lock, volatile, barrier).
    MechIx mechanism_of(const OpInfo& op, ObjId id) {
        std::vector<MechIx>& map = op.mech == MechKind::lock        ? locks_
                                   : op.mech == MechKind::volatile_ ? volatiles_
                                                                    : barriers_;
        return id < map.size() && map[id] != unresolved<MechIx> ? map[id]
                                                                : mechanism_slow(map, op, id);
    }

    // The mechanism v==K that a vr(v=K) / vw(v=K) is also the rcv / snd of (thesis §5.1,
    // docs/enforcement.md), or none when no net names it. K is the Symbols::values id value_id.
    MechIx value_mechanism_of(ObjId volatile_id, ObjId value_id) {
        if (!names_.has_value_mechanisms())
            return MechIx::none();
        const std::uint64_t key = std::uint64_t{volatile_id} << 32 | value_id;
        const auto [it, fresh] = values_.try_emplace(key, MechIx::none());
        if (fresh)
            it->second = value_mechanism_slow(volatile_id, value_id);
        return it->second;
    }

    // The mechanism q(o) an enq(q,o) / deq(q,o) sends / receives (thesis §5.1), or none; `item`
    // is its Symbols::queue_items id.
    MechIx queue_item_mechanism_of(ObjId item) {
        if (item < items_.size() && items_[item] != unresolved<MechIx>)
            return items_[item];
        return queue_item_slow(item);
    }

private:
    // Not yet looked up (distinct from none: looked up, and no net names it).
    template <class Ix>
    static constexpr Ix unresolved = Ix(Ix::none_value - 1);

    NetThread thread_slow(ThreadId t);
    VarRef var_slow(ObjId x);
    MechIx mechanism_slow(std::vector<MechIx>& map, const OpInfo& op, ObjId id);
    MechIx value_mechanism_slow(ObjId volatile_id, ObjId value_id) const;
    MechIx queue_item_slow(ObjId item);

    const NetNames& names_;
    const Variables& vars_;
    const Symbols* syms_ = nullptr;
    std::vector<NetThread> threads_;
    std::vector<NetThread> kept_threads_; // next_trace's threads_, until reset(s) checks them
    std::vector<MechIx> locks_, volatiles_, barriers_, items_;
    std::vector<VarRef> vars_map_;
    std::unordered_map<std::uint64_t, MechIx> values_; // (volatile, value id) -> v==K
};

} // namespace sfg::enforce
