// The one pass over a trace (docs/infer.md): runs of accesses per variable, and what each
// thread sent and received, so that a phase boundary's mechanism is looked up, never searched.
#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"

#include "sfg/runtime/core/varint.hpp"

#include <algorithm>

namespace sfg::infer {

namespace {

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
    return std::uint64_t{a} << 32 | b;
}

std::vector<ObjId> set_union(const std::vector<ObjId>& a, const std::vector<ObjId>& b) {
    std::vector<ObjId> out;
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
std::vector<ObjId> set_minus(const std::vector<ObjId>& a, const std::vector<ObjId>& b) {
    std::vector<ObjId> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}
std::vector<ObjId> set_meet(const std::vector<ObjId>& a, const std::vector<ObjId>& b) {
    std::vector<ObjId> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

} // namespace

LockSets::LockSets() {
    intern({});
}

std::uint32_t LockSets::intern(std::vector<ObjId> set) {
    const auto [it, fresh] = index_.try_emplace(set, static_cast<std::uint32_t>(sets_.size()));
    if (fresh)
        sets_.push_back(std::move(set));
    return it->second;
}

std::uint32_t LockSets::memo(std::unordered_map<std::uint64_t, std::uint32_t>& m, std::uint32_t a,
                             std::uint32_t b, const std::vector<ObjId>& operand,
                             std::vector<ObjId> (*op)(const std::vector<ObjId>&,
                                                      const std::vector<ObjId>&)) {
    const auto it = m.find(pair_key(a, b));
    if (it != m.end())
        return it->second;
    const std::uint32_t r = intern(op(sets_[a], operand));
    m.emplace(pair_key(a, b), r);
    return r;
}

std::uint32_t
LockSets::recall(std::array<Recent, recent_size>& recent,
                 std::unordered_map<std::uint64_t, std::uint32_t>& m, std::uint32_t set, ObjId lock,
                 std::vector<ObjId> (*op)(const std::vector<ObjId>&, const std::vector<ObjId>&)) {
    const std::uint64_t k = pair_key(set, lock);
    Recent& r = recent[(k * 0x9e3779b97f4a7c15ull) >> 56];
    if (r.key != k) {
        const auto it = m.find(k); // most calls: no vector made
        r.set = it != m.end() ? it->second : memo(m, set, lock, {lock}, op);
        r.key = k;
    }
    return r.set;
}

std::uint32_t LockSets::with(std::uint32_t set, ObjId lock) {
    return recall(recent_with_, with_, set, lock, set_union);
}
std::uint32_t LockSets::without(std::uint32_t set, ObjId lock) {
    return recall(recent_without_, without_, set, lock, set_minus);
}
std::uint32_t LockSets::meet(std::uint32_t a, std::uint32_t b) {
    return a == b ? a : memo(meet_, a, b, sets_[b], set_meet);
}

// Closes the open run, if any (thread, first from the previous run's last, last − first,
// accesses << 1 | writes, locks, rounds), and opens one at this access.
void RunLog::start(ThreadId t, std::uint64_t number, bool write, std::uint32_t held,
                   std::uint64_t rounds) {
    if (open_.accesses != 0) {
        const Run& r = open_;
        unsigned char* buf = coded_.room(6 * 10);
        std::size_t n = 0;
        put_varint(buf, n, r.thread);
        put_varint(buf, n, r.first - closed_last_);
        put_varint(buf, n, r.last - r.first);
        put_varint(buf, n, r.accesses << 1 | (r.writes ? 1 : 0));
        put_varint(buf, n, r.locks);
        put_varint(buf, n, r.rounds);
        coded_.advance(n);
        closed_last_ = r.last;
        written_ |= r.writes;
    }
    open_ = Run{t, number, number, 1, write, held, rounds};
}

std::pair<std::uint32_t, bool> FlatIndex::try_emplace(std::uint64_t key, std::uint32_t fresh) {
    const std::size_t mask = keys_.size() - 1;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
        if (keys_[i] == key)
            return {values_[i], false};
        if (keys_[i] != empty)
            continue;
        if (2 * (size_ + 1) > keys_.size()) { // grow, then place it in the new table
            std::vector<std::uint64_t> keys(2 * keys_.size(), empty);
            std::vector<std::uint32_t> values(keys.size());
            keys.swap(keys_), values.swap(values_);
            --shift_;
            const std::size_t m = keys_.size() - 1;
            for (std::size_t j = 0; j < keys.size(); ++j)
                if (keys[j] != empty) {
                    std::size_t h = home(keys[j]);
                    while (keys_[h] != empty)
                        h = (h + 1) & m;
                    keys_[h] = keys[j], values_[h] = values[j];
                }
            return try_emplace(key, fresh);
        }
        keys_[i] = key, values_[i] = fresh;
        ++size_;
        return {fresh, true};
    }
}

std::optional<std::uint32_t> FlatIndex::find(std::uint64_t key) const {
    const std::size_t mask = keys_.size() - 1;
    for (std::size_t i = home(key);; i = (i + 1) & mask) {
        if (keys_[i] == key)
            return values_[i];
        if (keys_[i] == empty)
            return std::nullopt;
    }
}

const SyncLog* TraceRecorder::log(ThreadId t, SyncKind k, ObjId obj) const {
    const std::optional<std::uint32_t> i =
        log_index_[static_cast<std::size_t>(k)].find(key(t, obj));
    return i ? &logs_[*i] : nullptr;
}

const std::vector<ObjId>& TraceRecorder::objects(ThreadId t, SyncKind k) const {
    static const std::vector<ObjId> none;
    return t < objects_.size() ? objects_[t][static_cast<std::size_t>(k)] : none;
}

void TraceRecorder::finish(const Symbols&) {
    for (auto& kinds : objects_)
        for (std::vector<ObjId>& objs : kinds)
            std::sort(objs.begin(), objs.end());
}

void TraceRecorder::record(const Event& e, SyncKind k, ObjId obj, std::uint32_t tag) {
    const auto [i, fresh] = log_index_[static_cast<std::size_t>(k)].try_emplace(
        key(e.thread, obj), static_cast<std::uint32_t>(logs_.size()));
    if (fresh) {
        logs_.emplace_back();
        at(objects_, e.thread)[static_cast<std::size_t>(k)].push_back(obj);
    }
    SyncLog& l = logs_[i];
    l.events.push_back(e.number);
    if (tagged(k))
        l.tags.push_back(tag);
}

// Generations as docs/traces.md defines them: an arrival joins the barrier's open generation; the
// first departure of that generation opens the next; each departure leaves the one it entered.
void TraceRecorder::on_barrier(const Event& e) {
    std::uint32_t& open = at(open_generation_, e.target);
    std::uint32_t& entered = entered_[key(e.thread, e.target)];
    std::vector<ThreadId>& users = at(barrier_threads, e.target);
    if (!std::binary_search(users.begin(), users.end(), e.thread))
        users.insert(std::upper_bound(users.begin(), users.end(), e.thread), e.thread);
    std::uint32_t gen = open;
    if (e.op == Op::barrier_enter) {
        entered = open;
    } else {
        gen = entered;
        ++at(threads_, e.thread).rounds;
        if (gen == open)
            ++open;
    }
    record(e, e.op == Op::barrier_enter ? SyncKind::benter : SyncKind::bexit, e.target, gen);
}

void TraceRecorder::on_event(const Event& e, const Symbols& syms) {
    if (keep_)
        keep_->append(e);
    switch (e.op) {
    case Op::read:
    case Op::write: {
        // A barrier between two accesses of one thread starts a new run (Run::rounds): a round
        // of the thesis' particles (Figure 3.4) begins there, whoever accessed last.
        const ThreadState& t = at(threads_, e.thread);
        at(runs, e.target)
            .access(e.thread, e.number, e.op == Op::write, t.held, t.rounds, lock_sets);
        break;
    }
    case Op::acquire: {
        std::uint32_t& held = at(threads_, e.thread).held;
        held = lock_sets.with(held, e.target);
        record(e, SyncKind::acq, e.target, 0);
        break;
    }
    case Op::release: {
        std::uint32_t& held = at(threads_, e.thread).held;
        held = lock_sets.without(held, e.target);
        record(e, SyncKind::rel, e.target, 0);
        break;
    }
    case Op::vol_write:
    case Op::vol_read:
        record(e, e.op == Op::vol_write ? SyncKind::vw : SyncKind::vr, e.target, e.value_id);
        break;
    case Op::barrier_enter:
    case Op::barrier_exit:
        on_barrier(e);
        break;
    case Op::fork:
        for (ThreadId u : syms.thread_sets[e.target])
            at(forked_by, u) = ThreadLink{e.thread, e.number, e.target};
        break;
    case Op::join:
        for (ThreadId u : syms.thread_sets[e.target])
            if (!at(joined_by, u))
                joined_by[u] = ThreadLink{e.thread, e.number, e.target};
        break;
    case Op::enqueue:
    case Op::dequeue:
        record(e, e.op == Op::enqueue ? SyncKind::enq : SyncKind::deq, e.target, 0);
        break;
    default: // begin/end and the implicit start/end: the fork and join carry what they order
        break;
    }
}

} // namespace sfg::infer
