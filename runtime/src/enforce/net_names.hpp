// The threads and mechanisms that the enforcer's nets name, interned: the enforcer's own thread
// numbering (NetThread) and one slot per mechanism z of an SFG edge (thesis Figure 4.2).
#pragma once

#include "indices.hpp"

#include "sfg/runtime/net.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace sfg::enforce {

// A mechanism some net mentions, interned by kind and canonical label.
struct MechanismInfo {
    MechKind kind = MechKind::lock;
    std::string name;                  // lock, volatile or barrier name
    NetThread thread;                  // fork: the forker t; join: the joiner t
    std::vector<NetThread> threads;    // fork: U; join: S (sorted, distinct)
    std::string label;                 // Mechanism::label()
    std::optional<std::int64_t> value; // volatile v==K (thesis §5.1): K
    bool mode_lock = false;            // a lock a LOCK mode names: who holds it matters (§5.2)
};

// The key mechanisms are interned by, from a kind and a label (or a trace's name).
std::string mechanism_key(MechKind kind, const std::string& label);
// The key of q(o), queue q on variable o (thesis §5.1): one mechanism per queue and variable, as
// enq(q,o) / deq(q,o) send and receive only for o.
std::string queue_item_key(const std::string& queue, const std::string& var);

class NetNames {
public:
    NetThread intern_thread(const std::string& name);
    // `var`: the variable whose net has the edge (a queue's q(o) is o's alone).
    MechIx intern_mechanism(const Mechanism& m, const std::string& var = {});
    // The lock m of a LOCK_m(T) mode (thesis §5.2), marked so that the enforcer follows who
    // holds it.
    MechIx intern_mode_lock(const std::string& lock);

    std::size_t thread_count() const { return thread_names_.size(); }
    const std::string& thread_name(NetThread t) const { return thread_names_[t]; }
    NetThread find_thread(const std::string& name) const {
        auto it = thread_ids_.find(name);
        return it == thread_ids_.end() ? NetThread::none() : it->second;
    }

    std::size_t mechanism_count() const { return mechs_.size(); }
    // Whether some net has an edge labelled v==K (thesis §5.1).
    bool has_value_mechanisms() const { return has_values_; }
    const MechanismInfo& mechanism(MechIx m) const { return mechs_[m]; }
    MechIx find_mechanism(const std::string& key) const {
        auto it = mech_ids_.find(key);
        return it == mech_ids_.end() ? MechIx::none() : it->second;
    }

    // The fork/join mechanisms a fork, join or thread end of thread t may be the snd or rcv of
    // (docs/traces.md).
    const std::vector<MechIx>& forks_by(NetThread t) const { return fork_by_[t]; }
    const std::vector<MechIx>& joins_by(NetThread t) const { return join_by_[t]; }
    const std::vector<MechIx>& joins_with_member(NetThread u) const { return join_member_[u]; }
    // fork(t -> U) with u in U, whoever t is (a pool's start: not every fork of its forker).
    const std::vector<MechIx>& forks_with_member(NetThread u) const { return fork_member_[u]; }

private:
    IndexVec<NetThread, std::string> thread_names_;
    std::unordered_map<std::string, NetThread> thread_ids_;
    IndexVec<MechIx, MechanismInfo> mechs_;
    std::unordered_map<std::string, MechIx> mech_ids_; // mechanism_key -> slot
    bool has_values_ = false;
    IndexVec<NetThread, std::vector<MechIx>> fork_by_;     // forker -> fork(t -> U) slots
    IndexVec<NetThread, std::vector<MechIx>> join_by_;     // joiner -> join(S -> t) slots
    IndexVec<NetThread, std::vector<MechIx>> join_member_; // u -> join(S -> t) slots, u in S
    IndexVec<NetThread, std::vector<MechIx>> fork_member_; // u -> fork(t -> U) slots, u in U
};

} // namespace sfg::enforce
