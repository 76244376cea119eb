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

// The fork and join mechanisms' keys (thesis Figure 4.2) by one of their threads, so that a
// thread's op reads its row of one array instead of each mechanism's threads and then the
// SyncIndex: for a member u's start or exit, the mechanisms fork(t -> U), u in U, or join(S -> t),
// u in S, each with its t; for t's fork or join, the mechanisms of t's own side, each with its U
// or S. Only mechanisms whose key has subscriptions. A pool's worker in `sfgc check` starts once
// an execution, after the interpreter has visited every other thread, so that each table it
// reads is a cache miss (bench/README.md, "thread pools").
class ThreadRows {
public:
    // A mechanism's usual one subscription is in its entry: a start reads one line, not two.
    struct alignas(32) Entry {
        NetThread thread;                         // the mechanism's t (by member)
        std::uint32_t threads_begin, threads_end; // its U or S in threads_ (by t)
        std::uint32_t subs_begin, subs_count;     // in subs_ when more than one
        Subscription one;                         // when one
    };
    // Rows are added in thread order: start_row() for each thread, then its entries.
    void clear() {
        row_begin_.assign(1, 0);
        entries_.clear();
        threads_.clear();
        subs_.clear();
    }
    void start_row() { row_begin_.push_back(row_begin_.back()); }
    void add(NetThread t, std::span<const NetThread> set, std::span<const Subscription> subs) {
        if (subs.empty())
            return;
        const auto at = [](std::size_t n) { return static_cast<std::uint32_t>(n); };
        entries_.push_back({t, at(threads_.size()), at(threads_.size() + set.size()),
                            at(subs_.size()), at(subs.size()), subs.front()});
        threads_.insert(threads_.end(), set.begin(), set.end());
        if (subs.size() > 1)
            subs_.insert(subs_.end(), subs.begin(), subs.end());
        ++row_begin_.back();
    }

    std::span<const Entry> row(NetThread t) const {
        if (t.ix() + 1 >= row_begin_.size())
            return {};
        return {entries_.data() + row_begin_[t.ix()], entries_.data() + row_begin_[t.ix() + 1]};
    }
    std::span<const NetThread> threads(const Entry& e) const {
        return {threads_.data() + e.threads_begin, threads_.data() + e.threads_end};
    }
    std::span<const Subscription> subscriptions(const Entry& e) const {
        if (e.subs_count == 1)
            return {&e.one, 1};
        return {subs_.data() + e.subs_begin, e.subs_count};
    }

private:
    std::vector<std::uint32_t> row_begin_{0}; // thread -> its entries from row_begin_[t]
    std::vector<Entry> entries_;
    std::vector<NetThread> threads_;
    std::vector<Subscription> subs_;
};

} // namespace sfg::enforce
