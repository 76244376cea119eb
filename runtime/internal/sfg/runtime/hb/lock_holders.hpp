// Who holds each lock: the one lock state of well-formedness (docs/traces.md: locks are not
// re-entrant, only the holder releases), the lockset analyses (Goldilocks' alock, Eraser's held
// set) and the model checker's program state.
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

namespace sfg {

class LockHolders {
public:
    // What is kept besides the holder of each lock: nothing (a compact, comparable part of a
    // program state), the line of each acquisition (well-formedness' messages), or that and each
    // thread's held locks (the lockset analyses).
    enum class Detail : std::uint8_t { holders, since, held };
    explicit LockHolders(Detail detail = Detail::held) : detail_(detail) {}

    // Requires m free (well-formedness is checked by the caller). Inline: every trace reader
    // calls these once a lock op.
    void acquire(ThreadId t, ObjId m, std::uint32_t line = 0) {
        if (m >= holder_.size())
            holder_.resize(m + 1, no_object);
        holder_[m] = t;
        if (detail_ == Detail::holders)
            return;
        if (m >= since_.size())
            since_.resize(m + 1, 0);
        since_[m] = line;
        if (detail_ == Detail::since)
            return;
        if (t >= held_.size())
            held_.resize(t + 1, none);
        if (held_[t] == none) {
            if (free_.empty()) {
                free_.push_back(static_cast<std::uint32_t>(sets_.size()));
                sets_.emplace_back();
            }
            held_[t] = free_.back();
            free_.pop_back();
        }
        sets_[held_[t]].push_back(m);
    }
    // Frees m, whoever holds it.
    void release(ObjId m) {
        if (m >= holder_.size() || holder_[m] == no_object)
            return;
        const ThreadId t = holder_[m];
        holder_[m] = no_object;
        if (detail_ == Detail::holders)
            return;
        since_[m] = 0;
        if (detail_ == Detail::since)
            return;
        if (t >= held_.size() || held_[t] == none)
            return;
        auto& h = sets_[held_[t]];
        if (auto it = std::find(h.rbegin(), h.rend(), m); it != h.rend())
            h.erase(std::next(it).base());
        if (h.empty()) { // its storage serves the next thread that takes a lock
            free_.push_back(held_[t]);
            held_[t] = none;
        }
    }
    // Applies an acq or rel event; other events change nothing.
    void on_event(const Event& e) {
        if (e.op == Op::acquire)
            acquire(e.thread, e.target, e.line);
        else if (e.op == Op::release)
            release(e.target);
    }

    // no_object when m is free (or was never seen).
    ThreadId holder(ObjId m) const { return m < holder_.size() ? holder_[m] : no_object; }
    // The line of the acquisition of m by its holder (Detail::since or held; 0: none).
    std::uint32_t since(ObjId m) const { return m < since_.size() ? since_[m] : 0; }
    // The locks t holds, innermost (latest acquired) last (Detail::held).
    std::span<const ObjId> held(ThreadId t) const {
        return t < held_.size() && held_[t] != none ? std::span<const ObjId>(sets_[held_[t]])
                                                    : std::span<const ObjId>();
    }
    // The holder of every lock seen, by lock id.
    const std::vector<ThreadId>& holders() const { return holder_; }
    void resize_locks(std::size_t locks) { holder_.resize(locks, no_object); }

    // Equal holders (and, with Detail::held, equal held sets), wherever the sets are stored.
    friend bool operator==(const LockHolders& a, const LockHolders& b) {
        if (a.detail_ != b.detail_ || a.holder_ != b.holder_ || a.since_ != b.since_)
            return false;
        const std::size_t n = std::max(a.held_.size(), b.held_.size());
        for (ThreadId t = 0; t < n; ++t)
            if (!std::ranges::equal(a.held(t), b.held(t)))
                return false;
        return true;
    }

private:
    Detail detail_;
    std::vector<ThreadId> holder_;     // by lock
    std::vector<std::uint32_t> since_; // by lock (Detail::held)
    // Detail::held: by thread, its held locks' set in sets_ (none: it holds none). Only threads
    // holding a lock have a set: a program may run a short-lived thread per task.
    static constexpr std::uint32_t none = ~std::uint32_t{0};
    std::vector<std::uint32_t> held_;
    std::vector<std::vector<ObjId>> sets_;
    std::vector<std::uint32_t> free_; // sets_ not in use (empty)
};

} // namespace sfg
