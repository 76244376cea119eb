// The per-mechanism index (docs/enforcement.md; thesis §5.3 without [SLOW SYNC]'s linear cost):
// (mechanism, thread, role) -> the variables and groups whose nets have a transition that an op
// with that key may fire, so that a sync op visits only those.
#pragma once

#include "indices.hpp"

#include "sfg/runtime/event.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sfg::enforce {

// A key's low bit: snd 0, rcv 1.
inline std::uint32_t role_bit(Role role) {
    return role == Role::rcv ? 1 : 0;
}

inline std::uint64_t sync_key(MechIx mech, NetThread thread, Role role) {
    return (std::uint64_t{mech.v} << 32) | (std::uint64_t{thread.v} << 1) | role_bit(role);
}

// What one key means to one variable or group: the range [begin, begin + count) of the
// variable's transitions (CandidateMarkings::transitions) or the group's rules
// (OneTokenGroups::rules).
struct Subscription {
    static constexpr std::uint32_t group_bit = 0x80000000u;
    std::uint32_t target = 0; // a VarIx, or a GroupIx | group_bit
    std::uint32_t begin = 0;
    std::uint32_t count = 0;

    static Subscription of(VarIx v, std::uint32_t begin) { return {v.v, begin, 0}; }
    static Subscription of(GroupIx g, std::uint32_t begin) { return {g.v | group_bit, begin, 0}; }
    bool is_group() const { return target & group_bit; }
    VarIx var() const { return VarIx(target); }
    GroupIx group() const { return GroupIx(target & ~group_bit); }
};

class SyncIndex {
public:
    // Adds an entry; the index is rebuilt (freeze) before the next lookup.
    void subscribe(std::uint64_t key, Subscription sub) {
        pending_.push_back({key, sub});
        dirty_ = true;
    }
    // Something the frozen form depends on changed (a variable, a thread, a group).
    void invalidate() { dirty_ = true; }
    bool dirty() const { return dirty_; }
    void freeze(std::size_t mechanisms, std::size_t threads);

    // The subscriptions of one key: distinct variables and groups (each merges its transitions
    // or rules of one key into one subscription).
    std::span<const Subscription> find(MechIx mech, NetThread t, Role role) const {
        std::size_t row = mech.ix();
        if (!rows_.empty() && (row = rows_[mech.ix()]) == no_row)
            return find_sparse(mech, t, role);
        if (dense_.empty())
            return find_sparse(mech, t, role);
        const Range r = dense_[row * stride_ + (t.ix() << 1 | role_bit(role))];
        return {subs_.data() + r.begin, subs_.data() + r.end};
    }

private:
    std::span<const Subscription> find_sparse(MechIx mech, NetThread t, Role role) const;

    struct Pending {
        std::uint64_t key;
        Subscription sub;
    };
    std::vector<Pending> pending_;
    bool dirty_ = false;
    // Frozen form, laid out by mechanism so that lookups touch a few adjacent entries (no
    // hashing): the (thread, role) keys of mechanism m are keys_[key_begin_[m] ..
    // key_begin_[m+1]), sorted; each names its range of subscriptions.
    struct Key {
        std::uint32_t thread_role; // thread << 1 | role
        std::uint32_t sub_begin, sub_end;
    };
    std::vector<std::uint32_t> key_begin_;
    std::vector<Key> keys_;
    std::vector<Subscription> subs_;
    struct Range {
        std::uint32_t begin = 0, end = 0;
    };
    std::vector<Range> dense_; // [row * stride_ + thread_role] -> its subscriptions
    std::size_t stride_ = 0;
    // Empty: dense_ has a row per mechanism (row = mech). Else the row of each mechanism that has
    // one (no_row: its keys are searched), when the whole table would be too large and sparse.
    static constexpr std::uint32_t no_row = 0xffffffffu;
    std::vector<std::uint32_t> rows_;
};

} // namespace sfg::enforce
