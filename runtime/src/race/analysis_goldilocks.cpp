#include "sfg/runtime/race/analysis_goldilocks.hpp"

#include <algorithm>
#include <unordered_map>

namespace sfg {

namespace {
template <class V>
void ensure(V& v, std::size_t i, typename V::value_type fill = {}) {
    if (v.size() <= i)
        v.resize(i + 1, fill);
}
} // namespace

void GoldilocksDetector::on_event(const Event& e, const Symbols& syms) {
    syms_ = &syms;
    if (e.implicit)
        return; // fork/join carry start/end: TR Figure 1 rules 6 and 7
    const ThreadId t = e.thread;
    switch (e.op) {
    case Op::read:
    case Op::write: {
        ensure(vars_, e.target);
        Var& v = vars_[e.target];
        if (v.raced)
            return;
        // Rule 1 (TR Figure 1) on the write lockset and, for a write, on every read lockset.
        if (v.written && !ordered(v.write, t))
            return race(v, e, v.write, Op::write);
        if (writes(e.op)) {
            for (const Reader& r : v.readers)
                if (r.thread != t && !ordered(r.ls, t))
                    return race(v, e, r.ls, Op::read);
            for (const Reader& r : v.readers)
                release(r.ls);
            v.readers.clear();
            place(v.write, t, e);
            v.written = true;
        } else {
            auto it = std::find_if(v.readers.begin(), v.readers.end(),
                                   [&](const Reader& r) { return r.thread == t; });
            if (it == v.readers.end()) {
                v.readers.push_back({t, Lockset{}});
                it = v.readers.end() - 1;
            }
            place(it->ls, t, e);
        }
        collect(); // TR Figure 3 line 21
        return;
    }
    case Op::acquire:
        locks_.acquire(t, e.target);
        break;
    case Op::release:
        locks_.release(e.target);
        break;
    case Op::barrier_enter: {
        const BarrierGenerations::Entry in = generations_.enter(t, e.target);
        if (in.finished)
            generation_barrier_.erase(static_cast<std::uint32_t>(in.finished));
        const auto g = static_cast<std::uint32_t>(in.generation);
        generation_barrier_[g] = e.target;
        append(t, e.op, g);
        return;
    }
    case Op::barrier_exit: {
        const BarrierGenerations::Exit out = generations_.exit(t, e.target);
        const auto g = static_cast<std::uint32_t>(out.generation);
        if (out.finished)
            generation_barrier_.erase(g);
        append(t, e.op, g);
        return;
    }
    case Op::fork:
        for (ThreadId u : syms.thread_sets[e.target]) {
            ensure(forks_, u, Fork{no_object, 0});
            forks_[u] = {t, tail()};
        }
        break;
    case Op::vol_read:
    case Op::vol_write:
    case Op::enqueue: // q(o) transfers like a volatile (thesis §5.1)
    case Op::dequeue:
    case Op::join:
        break;
    default:
        return; // begin/end
    }
    append(t, e.op, e.target);
}

bool GoldilocksDetector::GenerationSet::has(std::uint32_t g) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = (g * std::size_t{0x9E3779B1}) & mask;; i = (i + 1) & mask) {
        const Slot& s = slots_[i];
        if (s.stamp != stamp_)
            return false;
        if (s.generation == g)
            return true;
    }
}

void GoldilocksDetector::GenerationSet::add(std::uint32_t g) {
    if (2 * (size_ + 1) > slots_.size()) { // at most half full: probes stay short
        std::vector<std::uint32_t> members;
        each([&](std::uint32_t m) { members.push_back(m); });
        slots_.assign(slots_.size() * 2, Slot{});
        size_ = 0;
        for (std::uint32_t m : members)
            add(m);
    }
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = (g * std::size_t{0x9E3779B1}) & mask;; i = (i + 1) & mask) {
        Slot& s = slots_[i];
        if (s.stamp == stamp_ && s.generation == g)
            return;
        if (s.stamp != stamp_) {
            s = {g, stamp_};
            ++size_;
            return;
        }
    }
}

bool GoldilocksDetector::ordered(const Lockset& ls, ThreadId t) {
    // The two constant-time short-circuits (TR §3), in this order.
    if (ls.owner == t) {
        ++stats_.owner_hits;
        return true;
    }
    if (ls.alock != no_object && locks_.holder(ls.alock) == t) {
        // Sound by the invariant kept in place(): the owner held alock at its access, so it
        // released it after the access, and t acquired it after that.
        ++stats_.alock_hits;
        return true;
    }
    ++stats_.walks;
    return walk(ls.pos, ls.owner, ls.anchor, t);
}

// Apply-Lockset-Rules (TR §3.3): LS starts as {owner}; replay the list from pos
// with the Figure 1 rules and stop as soon as t is in LS.
bool GoldilocksDetector::walk(std::uint64_t from, ThreadId owner, std::uint32_t anchor,
                              ThreadId t) {
    if (++stamp_ == 0) { // wrapped: forget every old stamp
        for (auto& v : in_)
            std::fill(v.begin(), v.end(), 0);
        in_generations_.forget();
        stamp_ = 1;
    }
    auto in = [&](std::vector<std::uint32_t>& s, ObjId id) {
        return id < s.size() && s[id] == stamp_;
    };
    auto add = [&](std::vector<std::uint32_t>& s, ObjId id) {
        ensure(s, id);
        s[id] = stamp_;
    };
    std::vector<std::uint32_t>& in_threads = in_[static_cast<std::size_t>(Namespace::thread)];
    // LS only grows along a walk, so once t's forker is in LS before t's fork cell, rule 6 puts
    // t in at that cell: the walk may stop there (a pool's worker needs only to see its forker
    // join the last owner, not every task since).
    const Fork fork = t < forks_.size() && forks_[t].pos >= from ? forks_[t] : Fork{no_object, 0};
    std::uint64_t p = from;
    auto add_thread = [&](ThreadId u) {
        add(in_threads, u);
        return u == fork.forker && p <= fork.pos;
    };
    if (add_thread(owner))
        return true;
    in_generations_.clear(stamp_);
    if (anchor != no_anchor) {
        const Anchor& a = anchors_[anchor];
        for (ThreadId u : a.threads)
            if (add_thread(u))
                return true;
        for (ObjId m : a.locks)
            add(in_[static_cast<std::size_t>(Namespace::lock)], m);
        for (ObjId v : a.volatiles)
            add(in_[static_cast<std::size_t>(Namespace::volatile_)], v);
        for (ObjId q : a.items)
            add(in_[static_cast<std::size_t>(Namespace::queue)], q);
        for (std::uint32_t g : a.generations)
            in_generations_.add(g);
        if (t != no_object && in(in_threads, t))
            return true;
    }
    const std::uint64_t end = tail();
    for (; p < end; ++p) {
        const Cell& c = cells_[p - base_];
        ++stats_.cells_walked;
        bool gained = false; // c.thread entered LS
        const OpInfo& op = op_info(c.op);
        if (op.space == Namespace::barrier) {
            // Barriers (benter a sync-source, bexit a sync-sink, CACM'10 §3.2), by generation.
            if (c.op == Op::barrier_enter) {
                if (in(in_threads, c.thread))
                    in_generations_.add(c.target);
            } else {
                gained = in_generations_.has(c.target);
            }
        } else if (op.operand == Operand::name || op.operand == Operand::queue_item) {
            // Rules 2-5: a snd by a thread in LS brings its object in, a rcv of an object in LS
            // its thread; a queue item (q, o) is such an object (thesis §5.1).
            std::vector<std::uint32_t>& objects = in_[static_cast<std::size_t>(op.space)];
            if (op.role == Role::snd) {
                if (in(in_threads, c.thread))
                    add(objects, c.target);
            } else {
                gained = in(objects, c.target);
            }
        }
        switch (c.op) {
        case Op::fork: // rule 6, for every forked thread
            if (in(in_threads, c.thread))
                for (ThreadId u : syms_->thread_sets[c.target]) {
                    if (u == t || add_thread(u))
                        return true;
                }
            break;
        case Op::join: // rule 7: any joined thread in LS brings in the joiner
            for (ThreadId u : syms_->thread_sets[c.target])
                if (in(in_threads, u)) {
                    gained = true;
                    break;
                }
            break;
        default:
            break;
        }
        if (gained && (c.thread == t || add_thread(c.thread)))
            return true;
    }
    return false;
}

GoldilocksDetector::LocksetView GoldilocksDetector::write_lockset(ObjId var) {
    LocksetView out;
    if (var >= vars_.size() || !vars_[var].written || vars_[var].raced)
        return out;
    const Lockset& ls = vars_[var].write;
    walk(ls.pos, ls.owner, ls.anchor, no_object); // t = none: no early exit
    auto members = [&](const std::vector<std::uint32_t>& s, std::vector<ObjId>& into) {
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s[i] == stamp_)
                into.push_back(static_cast<ObjId>(i));
    };
    members(in_[static_cast<std::size_t>(Namespace::thread)], out.threads);
    members(in_[static_cast<std::size_t>(Namespace::lock)], out.locks);
    members(in_[static_cast<std::size_t>(Namespace::volatile_)], out.volatiles);
    // A finished generation orders nothing more: only the barriers of live ones.
    in_generations_.each([&](std::uint32_t g) {
        if (auto it = generation_barrier_.find(g); it != generation_barrier_.end())
            out.barriers.push_back(it->second);
    });
    std::sort(out.barriers.begin(), out.barriers.end());
    out.barriers.erase(std::unique(out.barriers.begin(), out.barriers.end()), out.barriers.end());
    return out;
}

void GoldilocksDetector::place(Lockset& ls, ThreadId t, const Event& e) {
    // The alock fix (docs/traces.md, "goldilocks"): after every access, alock is a lock the
    // accessing thread holds, or none; the deterministic choice is the innermost held lock.
    if (ls.alock == no_object || locks_.holder(ls.alock) != t) {
        const std::span<const ObjId> held = locks_.held(t);
        ls.alock = held.empty() ? no_object : held.back();
    }
    if (ls.owner != no_object)
        release(ls);
    ls.anchor = no_anchor;
    ls.pos = tail();
    ++refs_[ls.pos - base_];
    ls.owner = t;
    ls.site = Site::of(e);
}

void GoldilocksDetector::release_anchor(std::uint32_t anchor) {
    Anchor& a = anchors_[anchor];
    if (--a.refs != 0)
        return;
    for (auto [it, end] = anchor_index_.equal_range(a.hash); it != end; ++it)
        if (it->second == anchor) {
            anchor_index_.erase(it);
            break;
        }
    a = Anchor{};
    free_anchors_.push_back(anchor);
}

// Hash-consed: the locksets of variables left alone converge (every thread and lock that
// synchronizes with them), so a catch-up evaluates and keeps each distinct set once.
std::uint32_t GoldilocksDetector::intern(Anchor a) {
    std::size_t h = 0x9E3779B97F4A7C15ull;
    auto mix = [&](std::uint64_t x) { h = (h ^ x) * 0x100000001B3ull; };
    for (ThreadId u : a.threads)
        mix(u);
    mix(~0ull);
    for (ObjId m : a.locks)
        mix(m);
    mix(~0ull);
    for (ObjId v : a.volatiles)
        mix(v);
    mix(~0ull);
    for (ObjId q : a.items)
        mix(q);
    mix(~0ull);
    for (std::uint32_t g : a.generations)
        mix(g);
    a.hash = h;
    for (auto [it, end] = anchor_index_.equal_range(h); it != end; ++it) {
        Anchor& b = anchors_[it->second];
        if (b.threads == a.threads && b.locks == a.locks && b.volatiles == a.volatiles &&
            b.items == a.items && b.generations == a.generations) {
            ++b.refs;
            return it->second;
        }
    }
    a.refs = 1;
    std::uint32_t id;
    if (!free_anchors_.empty()) {
        id = free_anchors_.back();
        free_anchors_.pop_back();
        anchors_[id] = std::move(a);
    } else {
        id = static_cast<std::uint32_t>(anchors_.size());
        anchors_.push_back(std::move(a));
    }
    anchor_index_.emplace(h, id);
    return id;
}

void GoldilocksDetector::catch_up() {
    ++stats_.catch_ups;
    const std::uint64_t end = tail();
    const std::uint64_t cutoff = end - (end - head_) / 2;
    const std::uint64_t walked_before = stats_.cells_walked;
    // Locksets with one position and one starting set evaluate alike (an anchor holds its
    // owner): one walk each.
    struct Key {
        std::uint64_t pos;
        std::uint32_t anchor;
        ThreadId owner; // only without an anchor
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return static_cast<std::size_t>((k.pos * 0x9E3779B97F4A7C15ull) ^
                                            (std::uint64_t{k.anchor} << 32) ^ k.owner);
        }
    };
    std::unordered_map<Key, std::uint32_t, KeyHash> done;
    std::uint64_t visited = 0;
    auto move = [&](Lockset& ls) {
        ++visited;
        if (ls.owner == no_object || ls.pos >= cutoff)
            return;
        const Key k{ls.pos, ls.anchor, ls.anchor == no_anchor ? ls.owner : no_object};
        auto [it, fresh] = done.try_emplace(k, no_anchor);
        if (fresh) {
            walk(ls.pos, ls.owner, ls.anchor, no_object);
            Anchor a;
            auto members = [&](const std::vector<std::uint32_t>& s, std::vector<ObjId>& into) {
                for (std::size_t i = 0; i < s.size(); ++i)
                    if (s[i] == stamp_)
                        into.push_back(static_cast<ObjId>(i));
            };
            members(in_[static_cast<std::size_t>(Namespace::thread)], a.threads);
            members(in_[static_cast<std::size_t>(Namespace::lock)], a.locks);
            members(in_[static_cast<std::size_t>(Namespace::volatile_)], a.volatiles);
            members(in_[static_cast<std::size_t>(Namespace::queue)], a.items);
            in_generations_.each([&](std::uint32_t g) {
                if (generation_barrier_.count(g))
                    a.generations.push_back(g);
            });
            std::sort(a.generations.begin(), a.generations.end());
            it->second = intern(std::move(a));
        } else {
            ++anchors_[it->second].refs;
        }
        const std::uint32_t anchor = it->second;
        release(ls);
        ls.anchor = anchor;
        ls.pos = end;
        ++refs_[end - base_];
        ++stats_.caught_up;
    };
    for (Var& v : vars_) {
        if (v.raced)
            continue;
        if (v.written)
            move(v.write);
        for (Reader& r : v.readers)
            move(r.ls);
    }
    collect();
    // The next catch-up once the list has grown by a quarter of this one's work.
    const std::uint64_t work = stats_.cells_walked - walked_before + visited;
    stats_.catch_up_cells += stats_.cells_walked - walked_before;
    catch_up_at_ = std::max(min_catch_up_, (tail() - head_) + work / 4);
}

// Garbage-Collect-Cells (TR Figure 3 line 21): every lockset's pos is at or after
// head, so cells before the first referenced one can never be walked again.
void GoldilocksDetector::collect() {
    const std::uint64_t end = tail();
    while (head_ < end && refs_[head_ - base_] == 0)
        ++head_;
    const std::size_t dead = static_cast<std::size_t>(head_ - base_);
    if (dead >= 4096 && dead * 2 >= cells_.size()) {
        cells_.erase(cells_.begin(), cells_.begin() + static_cast<std::ptrdiff_t>(dead));
        refs_.erase(refs_.begin(), refs_.begin() + static_cast<std::ptrdiff_t>(dead));
        base_ = head_;
    }
}

void GoldilocksDetector::race(Var& v, const Event& e, const Lockset& with, Op with_op) {
    races_.push_back({e.target, AccessRef::of(e), AccessRef::of(with.site, with.owner, with_op)});
    // One race per variable (docs/traces.md): release its positions so they no longer pin the list.
    v.raced = true;
    if (v.written)
        release(v.write);
    for (const Reader& r : v.readers)
        release(r.ls);
    v.readers.clear();
    v.readers.shrink_to_fit();
    collect();
}

} // namespace sfg
