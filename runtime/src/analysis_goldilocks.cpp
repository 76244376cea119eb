#include "sfg/runtime/analysis_goldilocks.hpp"

#include <algorithm>

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
        if (e.op == Op::write) {
            for (const Reader& r : v.readers)
                if (r.thread != t && !ordered(r.ls, t))
                    return race(v, e, r.ls, Op::read);
            for (const Reader& r : v.readers)
                unref(r.ls.pos);
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
        cells_.push_back({t, e.op, g});
        refs_.push_back(0);
        return;
    }
    case Op::barrier_exit: {
        const BarrierGenerations::Exit out = generations_.exit(t, e.target);
        const auto g = static_cast<std::uint32_t>(out.generation);
        if (out.finished)
            generation_barrier_.erase(g);
        cells_.push_back({t, e.op, g});
        refs_.push_back(0);
        return;
    }
    case Op::vol_read:
    case Op::vol_write:
    case Op::fork:
    case Op::join:
        break;
    default:
        return; // begin/end
    }
    // TR Figure 3 lines 1-5: append the sync event; the sentinel cell becomes it.
    cells_.push_back({t, e.op, e.target});
    refs_.push_back(0);
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
    return walk(ls.pos, ls.owner, t);
}

// Apply-Lockset-Rules (TR §3.3): LS starts as {owner}; replay the list from pos
// with the Figure 1 rules and stop as soon as t is in LS.
bool GoldilocksDetector::walk(std::uint64_t from, ThreadId owner, ThreadId t) {
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
    add(in_threads, owner);
    in_generations_.clear(stamp_);
    const std::uint64_t end = tail();
    for (std::uint64_t p = from; p < end; ++p) {
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
        } else if (op.operand == Operand::name) {
            // Rules 2-5: a snd by a thread in LS brings its object in, a rcv of an object in LS
            // its thread.
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
                    if (u == t)
                        return true;
                    add(in_threads, u);
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
        if (gained) {
            if (c.thread == t)
                return true;
            add(in_threads, c.thread);
        }
    }
    return false;
}

GoldilocksDetector::LocksetView GoldilocksDetector::write_lockset(ObjId var) {
    LocksetView out;
    if (var >= vars_.size() || !vars_[var].written || vars_[var].raced)
        return out;
    walk(vars_[var].write.pos, vars_[var].write.owner, no_object); // t = none: no early exit
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
        unref(ls.pos);
    ls.pos = tail();
    ++refs_[ls.pos - base_];
    ls.owner = t;
    ls.site = Site::of(e);
}

void GoldilocksDetector::unref(std::uint64_t pos) {
    --refs_[pos - base_];
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
        unref(v.write.pos);
    for (const Reader& r : v.readers)
        unref(r.ls.pos);
    v.readers.clear();
    v.readers.shrink_to_fit();
    collect();
}

} // namespace sfg
