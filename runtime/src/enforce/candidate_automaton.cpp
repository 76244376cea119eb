#include "candidate_automaton.hpp"

#include <algorithm>
#include <bit>
#include <iterator>

namespace sfg::enforce {

namespace {

std::uint64_t mix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

// Open addressing over ids + 1 (0: empty), at most half full: the slot holding an id that is
// `same`, or the empty slot where it would go.
template <class Same>
std::size_t slot_of(const std::vector<std::uint32_t>& slots, std::uint64_t hash, Same same) {
    const std::size_t mask = slots.size() - 1;
    std::size_t h = hash & mask;
    while (slots[h] != 0 && !same(slots[h] - 1))
        h = (h + 1) & mask;
    return h;
}

// Makes room for n ids; true when the slots were rebuilt (ids 0 .. n-1 placed).
template <class HashOf>
bool grow_slots(std::vector<std::uint32_t>& slots, std::size_t n, HashOf hash_of) {
    if (n * 2 <= slots.size())
        return false;
    slots.assign(std::max<std::size_t>(16, slots.size() * 2), 0);
    for (std::uint32_t id = 0; id < n; ++id)
        slots[slot_of(slots, hash_of(id), [](std::uint32_t) { return false; })] = id + 1;
    return true;
}

} // namespace

MarkingIx CandidateAutomaton::intern_marking(std::span<const PlaceIx> m, const NetShape& s) {
    const std::uint64_t hash = hash_marking(m);
    if (marking_slots_.empty())
        marking_slots_.assign(16, 0);
    const std::size_t slot = slot_of(marking_slots_, hash, [&](std::uint32_t id) {
        const auto other = marking(MarkingIx(id));
        return markings_[MarkingIx(id)].hash == hash &&
               std::equal(m.begin(), m.end(), other.begin(), other.end());
    });
    if (marking_slots_[slot] != 0)
        return MarkingIx(marking_slots_[slot] - 1);

    const MarkingIx id = markings_.next_index();
    MarkingInfo info{marking_data_.size(), static_cast<std::uint32_t>(m.size()), hash, 0, 0, 0};
    for (PlaceIx p : m) {
        info.places |= std::uint64_t{1} << std::min<std::uint32_t>(p.v, 63);
        if (const NetThread t = s.acc_thread[p]; t.valid() && t.v < 64) {
            info.read |= std::uint64_t{1} << t.v;
            info.write |= s.acc_ex[p] ? std::uint64_t{1} << t.v : 0;
        }
    }
    markings_.push_back(info);
    marking_data_.insert(marking_data_.end(), m.begin(), m.end());
    successors_.resize(s.net.transitions.size());
    if (!grow_slots(marking_slots_, markings_.size(),
                    [&](std::uint32_t i) { return markings_[MarkingIx(i)].hash; }))
        marking_slots_[slot] = id.v + 1;
    return id;
}

MarkingIx CandidateAutomaton::fire(MarkingIx m, TransitionIx r, const NetShape& s) {
    std::uint32_t next = disabled;
    if (enabled(s, marking(m), r)) {
        fire_closed(s, marking(m), r, fired_, tmp_);
        next = intern_marking(fired_, s).v;
    }
    std::vector<std::uint32_t>& by_r = successors_[r];
    successor_bytes_ -= by_r.capacity() * sizeof(std::uint32_t);
    by_r.resize(markings_.size(), unknown);
    successor_bytes_ += by_r.capacity() * sizeof(std::uint32_t);
    by_r[m.ix()] = next;
    return next == disabled ? MarkingIx::none() : MarkingIx(next);
}

SetIx CandidateAutomaton::intern(CandidateView cands, const NetShape& s) {
    ids_.clear();
    cands.for_each([&](std::span<const PlaceIx> m) { ids_.push_back(intern_marking(m, s)); });
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    return intern_sorted(ids_);
}

SetIx CandidateAutomaton::intern_sorted(std::span<const MarkingIx> ids) {
    std::uint64_t sum = 0; // of independent terms: no chain of multiplications
    for (MarkingIx m : ids) {
        const std::uint64_t k = (m.v + 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
        sum += k ^ k >> 29;
    }
    const std::uint64_t hash = mix(sum ^ ids.size());
    if (set_slots_.empty())
        set_slots_.assign(16, 0);
    const std::size_t slot = slot_of(set_slots_, hash, [&](std::uint32_t id) {
        const auto other = members(SetIx(id));
        return sets_[SetIx(id)].hash == hash &&
               std::equal(ids.begin(), ids.end(), other.begin(), other.end());
    });
    if (set_slots_[slot] != 0)
        return SetIx(set_slots_[slot] - 1);

    const SetIx id = sets_.next_index();
    SetInfo info{set_data_.size(), static_cast<std::uint32_t>(ids.size()), hash, 0, 0, 0};
    if (!ids.empty()) {
        info.read_all = info.write_all = ~std::uint64_t{0};
        for (MarkingIx m : ids) {
            info.read_all &= markings_[m].read;
            info.write_all &= markings_[m].write;
            info.places |= markings_[m].places;
        }
    }
    sets_.push_back(info);
    set_data_.insert(set_data_.end(), ids.begin(), ids.end());
    if (!grow_slots(set_slots_, sets_.size(),
                    [&](std::uint32_t i) { return sets_[SetIx(i)].hash; }))
        set_slots_[slot] = id.v + 1;
    return id;
}

void CandidateAutomaton::materialize(SetIx x, CandidateSet& out) const {
    out.clear();
    for (MarkingIx m : members(x))
        out.push(marking(m));
}

TrListIx CandidateAutomaton::intern_list(std::span<const TransitionIx> trs) {
    std::vector<TransitionIx> key(trs.begin(), trs.end());
    std::sort(key.begin(), key.end());
    key.erase(std::unique(key.begin(), key.end()), key.end());
    auto [it, inserted] = list_ids_.try_emplace(std::move(key), TrListIx::at(list_ids_.size()));
    if (inserted) {
        list_data_.insert(list_data_.end(), it->first.begin(), it->first.end());
        list_begin_.push_back(static_cast<std::uint32_t>(list_data_.size()));
    }
    return it->second;
}

std::uint32_t CandidateAutomaton::intern_moves(std::span<const ColourMove> moves) {
    std::uint64_t hash = moves.size();
    for (const auto& [from, to] : moves)
        hash = mix(hash ^ (std::uint64_t{from.v} << 32 | to.v));
    for (auto [it, end] = moves_ids_.equal_range(hash); it != end; ++it) {
        const std::uint32_t id = it->second;
        if (std::equal(moves.begin(), moves.end(), moves_data_.begin() + moves_begin_[id],
                       moves_data_.begin() + moves_begin_[id + 1]))
            return id;
    }
    const auto id = static_cast<std::uint32_t>(moves_begin_.size() - 1);
    moves_data_.insert(moves_data_.end(), moves.begin(), moves.end());
    moves_begin_.push_back(static_cast<std::uint32_t>(moves_data_.size()));
    moves_ids_.emplace(hash, id);
    return id;
}

SetIx CandidateAutomaton::colour_step(SetIx x, std::uint32_t moves, const NetShape& s) {
    const std::uint64_t key = std::uint64_t{x.v} << 32 | colour_tag | moves;
    if (const std::uint32_t* to = find(key))
        return SetIx(*to);
    const std::span<const ColourMove> mv(moves_data_.data() + moves_begin_[moves],
                                         moves_data_.data() + moves_begin_[moves + 1]);
    ids_.clear();
    for (MarkingIx m : members(x)) {
        fired_.clear();
        for (PlaceIx p : marking(m)) {
            const auto it = std::lower_bound(mv.begin(), mv.end(), ColourMove{p, PlaceIx(0)});
            if (it == mv.end() || it->first != p)
                fired_.push_back(p);
            else if (it->second.valid())
                fired_.push_back(it->second);
        }
        if (fired_.empty())
            continue;
        std::sort(fired_.begin(), fired_.end());
        ids_.push_back(intern_marking(fired_, s));
    }
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
    const SetIx to = intern_sorted(ids_);
    memoize(key, to.v);
    return to;
}

// L' = L ∪ { close(M -r->) | M ∈ L, r ∈ l enabled by M }, as CandidateMarkings computes it.
std::uint32_t CandidateAutomaton::sync_step(SetIx x, TrListIx l, const NetShape& s) {
    const std::uint64_t key = std::uint64_t{x.v} << 32 | l.v;
    if (const std::uint32_t* to = find(key))
        return *to;
    ids_.clear();
    for (MarkingIx m : members(x)) // (successor() touches no set)
        for (TransitionIx r : list(l))
            if (const MarkingIx next = successor(m, r, s); next.valid())
                ids_.push_back(next);
    std::uint32_t to = x.v;
    if (!ids_.empty()) {
        merged_.clear();
        const auto from = members(x);
        if (ids_.size() + from.size() >= markings_.size() / 64) { // the union as a bitmap
            bits_.assign(markings_.size() / 64 + 1, 0);
            for (MarkingIx m : from)
                bits_[m.v / 64] |= std::uint64_t{1} << m.v % 64;
            for (MarkingIx m : ids_)
                bits_[m.v / 64] |= std::uint64_t{1} << m.v % 64;
            for (std::size_t w = 0; w < bits_.size(); ++w)
                for (std::uint64_t b = bits_[w]; b != 0; b &= b - 1)
                    merged_.push_back(MarkingIx::at(w * 64 + std::countr_zero(b)));
        } else {
            std::sort(ids_.begin(), ids_.end());
            ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
            std::set_union(from.begin(), from.end(), ids_.begin(), ids_.end(),
                           std::back_inserter(merged_));
        }
        to = intern_sorted(merged_).v | changed_bit;
    }
    memoize(key, to);
    return to;
}

// L' = { M ∈ L | Acc[t:a] ∈ M, a permits it }; t is valid.
std::uint32_t CandidateAutomaton::memory_step(SetIx x, NetThread t, bool write, const NetShape& s) {
    const bool memo = t.v < max_memo_thread;
    const std::uint64_t key = std::uint64_t{x.v} << 32 | changed_bit | t.v << 1 | (write ? 1u : 0u);
    if (const std::uint32_t* to = memo ? find(key) : nullptr)
        return *to;
    auto permits = [&](MarkingIx m) {
        if (t.v < 64)
            return ((write ? markings_[m].write : markings_[m].read) >> t.v & 1) != 0;
        for (PlaceIx p : marking(m))
            if (s.acc_thread[p] == t && (!write || s.acc_ex[p]))
                return true;
        return false;
    };
    ids_.clear();
    for (MarkingIx m : members(x))
        if (permits(m))
            ids_.push_back(m);
    const std::uint32_t to = ids_.empty()              ? SetIx::none_value
                             : ids_.size() == count(x) ? x.v
                                                       : intern_sorted(ids_).v;
    if (memo)
        memoize(key, to);
    return to;
}

const std::uint32_t* CandidateAutomaton::find(std::uint64_t key) const {
    if (memo_.empty())
        return nullptr;
    const std::size_t mask = memo_.size() - 1;
    for (std::size_t h = mix(key) & mask;; h = (h + 1) & mask) {
        if (memo_[h].key == key)
            return &memo_[h].value;
        if (memo_[h].key == empty_key)
            return nullptr;
    }
}

void CandidateAutomaton::memoize(std::uint64_t key, std::uint32_t value) {
    if ((memo_used_ + 1) * 2 > memo_.size()) {
        std::vector<Entry> old(std::max<std::size_t>(64, memo_.size() * 2), {empty_key, 0});
        old.swap(memo_);
        memo_used_ = 0;
        for (const Entry& e : old)
            if (e.key != empty_key)
                memoize(e.key, e.value);
    }
    const std::size_t mask = memo_.size() - 1;
    std::size_t h = mix(key) & mask;
    while (memo_[h].key != empty_key && memo_[h].key != key)
        h = (h + 1) & mask;
    memo_used_ += memo_[h].key == empty_key;
    memo_[h] = {key, value};
}

std::size_t CandidateAutomaton::bytes() const {
    return marking_data_.capacity() * sizeof(PlaceIx) + markings_.capacity() * sizeof(MarkingInfo) +
           (marking_slots_.capacity() + set_slots_.capacity()) * sizeof(std::uint32_t) +
           successor_bytes_ + set_data_.capacity() * sizeof(MarkingIx) +
           sets_.capacity() * sizeof(SetInfo) + memo_.capacity() * sizeof(Entry);
}

std::size_t CandidateAutomaton::marking_bytes() const {
    return marking_data_.capacity() * sizeof(PlaceIx) + markings_.capacity() * sizeof(MarkingInfo) +
           marking_slots_.capacity() * sizeof(std::uint32_t) + successor_bytes_;
}

void CandidateAutomaton::collect(std::span<SetIx* const> live, const NetShape& s,
                                 bool keep_markings) {
    CandidateAutomaton kept;
    if (keep_markings) {
        kept.marking_data_ = std::move(marking_data_);
        kept.markings_ = std::move(markings_);
        kept.marking_slots_ = std::move(marking_slots_);
        kept.successors_ = std::move(successors_);
        kept.successor_bytes_ = successor_bytes_;
    }
    kept.list_data_ = std::move(list_data_);
    kept.list_begin_ = std::move(list_begin_);
    kept.list_ids_ = std::move(list_ids_);
    kept.moves_data_ = std::move(moves_data_);
    kept.moves_begin_ = std::move(moves_begin_);
    kept.moves_ids_ = std::move(moves_ids_);
    IndexVec<SetIx, SetIx> renamed(sets_.size(), SetIx::none());
    CandidateSet cands;
    for (SetIx* x : live) {
        SetIx& to = renamed[*x];
        if (!to.valid() && keep_markings) {
            to = kept.intern_sorted(members(*x)); // (the marking ids stay)
        } else if (!to.valid()) {
            materialize(*x, cands);
            to = kept.intern(cands.view(), s);
        }
        *x = to;
    }
    *this = std::move(kept);
}

} // namespace sfg::enforce
