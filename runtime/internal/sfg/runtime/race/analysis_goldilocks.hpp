// `goldilocks`: the lazy lockset algorithm of Elmas, Qadeer & Tasiran (MSR-TR-2006-163, §3,
// Figure 3). Sync events go to one global list; a variable keeps, per lockset, only an owner
// (the thread of the access), a position in the list and an `alock`; a check replays the list
// from that position with the Figure 1 rules until the accessing thread enters the set.
// Separate write and per-thread read locksets (CACM'10 §3.2) make read-read never a race.
// The alock short-circuit keeps the invariant "alock was held by the owner at its access",
// which the technical report's pseudocode (MSR-TR-2006-163) breaks when the owner check
// succeeds; docs/traces.md, "goldilocks".
#pragma once

#include "sfg/runtime/hb/barrier_generations.hpp"
#include "sfg/runtime/hb/lock_holders.hpp"
#include "sfg/runtime/race/race_detector.hpp"
#include "sfg/runtime/report.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace sfg {

class GoldilocksDetector : public RaceDetector {
public:
    // A catch-up runs once the list holds min_catch_up cells or more (tests make it tiny).
    explicit GoldilocksDetector(std::uint64_t min_catch_up = 1u << 15)
        : min_catch_up_(std::max<std::uint64_t>(min_catch_up, 2)), catch_up_at_(min_catch_up_) {}

    void on_event(const Event& e, const Symbols& syms) override;

    // Cells of the sync-event list still reachable (after garbage collection): for tests and
    // the memory benchmark.
    std::size_t live_cells() const { return static_cast<std::size_t>(tail() - head_); }
    // Explicit locksets held (catch-ups' results, shared by the locksets that reached them).
    std::size_t live_anchors() const { return anchors_.size() - free_anchors_.size(); }
    // How often each path decided an access (thread-local / alock short-circuits, list walks),
    // and the catch-ups that moved old locksets to the list's end.
    struct Stats {
        std::uint64_t owner_hits = 0, alock_hits = 0, walks = 0, cells_walked = 0;
        std::uint64_t catch_ups = 0, caught_up = 0, catch_up_cells = 0;
    };
    const Stats& stats() const { return stats_; }

    // GLS_W(var), the TR's LS(var), evaluated in full (not lazily) for tests; empty when the
    // variable was never written (or has raced).
    struct LocksetView {
        std::vector<ThreadId> threads;
        std::vector<ObjId> locks, volatiles, barriers;
    };
    LocksetView write_lockset(ObjId var);

private:
    struct Cell {
        ThreadId thread;
        Op op;
        // benter/bexit: the barrier generation, modulo 2^32. Two generations that far apart are
        // never walked together: the cells between them would not fit in memory.
        ObjId target;
    };
    // The generations of a walk's lockset: open addressing, an entry present iff its stamp is
    // the walk's (a lockset meets few generations, and their numbers are sparse).
    class GenerationSet {
    public:
        void clear(std::uint32_t stamp) {
            stamp_ = stamp;
            size_ = 0;
        }
        void forget() { slots_.assign(slots_.size(), Slot{}); } // stamps wrapped
        bool has(std::uint32_t g) const;
        void add(std::uint32_t g);
        template <class F>
        void each(F f) const {
            for (const Slot& s : slots_)
                if (s.stamp == stamp_)
                    f(s.generation);
        }

    private:
        struct Slot {
            std::uint32_t generation = 0, stamp = 0;
        };
        std::vector<Slot> slots_ = std::vector<Slot>(16);
        std::uint32_t stamp_ = 0;
        std::size_t size_ = 0;
    };
    static constexpr std::uint32_t no_anchor = ~std::uint32_t{0};
    // One lazily evaluated lockset: LS = {owner} (or the anchor's set, which holds the owner) at
    // position `pos`, plus the list since then.
    struct Lockset {
        std::uint64_t pos = 0;
        ThreadId owner = no_object;
        ObjId alock = no_object;          // a lock the owner held at its access, or none
        std::uint32_t anchor = no_anchor; // an explicit lockset at pos (a catch-up's result)
        Site site;                        // the owner's access
    };
    // A lockset evaluated in full at some position, shared by every lockset that reached it.
    struct Anchor {
        std::vector<ThreadId> threads;
        std::vector<ObjId> locks, volatiles;
        std::vector<ObjId> items; // queue items (q, o), Symbols::queue_items ids (thesis §5.1)
        std::vector<std::uint32_t> generations; // live ones only: a finished one orders nothing
        std::uint32_t refs = 0;
        std::size_t hash = 0;
    };
    struct Reader {
        ThreadId thread;
        Lockset ls;
    };
    struct Var {
        bool raced = false;
        bool written = false;
        Lockset write;               // GLS_W: since the last write
        std::vector<Reader> readers; // GLS_R(t): each thread's last read since the last write
    };

    std::uint64_t tail() const { return base_ + cells_.size(); }
    // TR Figure 3 lines 1-5: append the sync event; the sentinel cell becomes it.
    void append(ThreadId t, Op op, ObjId target) {
        cells_.push_back({t, op, target});
        refs_.push_back(0);
        if (tail() - head_ >= catch_up_at_)
            catch_up();
    }
    bool ordered(const Lockset& ls, ThreadId t);
    bool walk(std::uint64_t from, ThreadId owner, std::uint32_t anchor, ThreadId t);
    void place(Lockset& ls, ThreadId t, const Event& e);
    // Its position and anchor no longer pin anything.
    void release(const Lockset& ls) {
        --refs_[ls.pos - base_];
        if (ls.anchor != no_anchor)
            release_anchor(ls.anchor);
    }
    void release_anchor(std::uint32_t anchor);
    void collect();
    // The periodic eager catch-up: every lockset positioned in the older half of a long list is
    // evaluated to the list's end and re-anchored there, so that variables never accessed again
    // do not pin the list (docs/traces.md, "goldilocks").
    void catch_up();
    std::uint32_t intern(Anchor a);
    void race(Var& v, const Event& e, const Lockset& with, Op with_op);

    const Symbols* syms_ = nullptr;
    std::vector<Var> vars_;
    // The global list: cells_[i] has position base_ + i; tail() is the empty sentinel.
    std::vector<Cell> cells_;
    std::vector<std::uint32_t> refs_ = {0}; // locksets positioned at base_ + i (+ sentinel)
    std::uint64_t base_ = 0, head_ = 0;
    // Locks held, for alock (who holds each lock; each thread's locks, innermost last).
    LockHolders locks_;
    // The temporary lockset of a walk by Namespace (threads, locks, volatiles): an element is
    // present iff its stamp equals stamp_; barrier generations in their own set.
    std::vector<std::uint32_t> in_[namespace_count_with_queues]; // queues: by queue item
    GenerationSet in_generations_;
    std::uint32_t stamp_ = 0;
    // Barrier generations (docs/traces.md): the cells of benter and bexit name them.
    BarrierGenerations generations_;
    std::unordered_map<std::uint32_t, ObjId> generation_barrier_; // live generations' barriers
    // Who forked each thread, and the position of that fork's cell (walk's early stop).
    struct Fork {
        ThreadId forker;
        std::uint64_t pos;
    };
    std::vector<Fork> forks_;
    std::vector<Anchor> anchors_;
    std::vector<std::uint32_t> free_anchors_;
    std::unordered_multimap<std::size_t, std::uint32_t> anchor_index_; // by hash
    // The list's length that triggers a catch-up: at least min_catch_up_, and more after a
    // costly one, so that catching up costs a few steps per cell appended.
    std::uint64_t min_catch_up_;
    std::uint64_t catch_up_at_;
    Stats stats_;
};

} // namespace sfg
