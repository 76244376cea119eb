// The one event vocabulary (docs/traces.md): every analysis sees the same Event whether
// it came from a trace file, the model checker or an instrumented program.
#pragma once

#include "sfg/runtime/op.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sfg {

using ThreadId = std::uint32_t;
using ObjId = std::uint32_t;
inline constexpr ObjId no_object = ~ObjId{0};

// Interns names of one namespace to dense ids 0, 1, 2, ... Each name is stored once (the index
// refers to it): a trace may have a name per thread, and many threads.
class SymbolTable {
public:
    SymbolTable() = default;
    SymbolTable(const SymbolTable& o) : names_(o.names_) { reindex(); }
    SymbolTable& operator=(const SymbolTable& o) {
        if (this != &o) {
            names_ = o.names_;
            reindex();
        }
        return *this;
    }
    SymbolTable(SymbolTable&&) noexcept = default; // a deque's elements stay where they are
    SymbolTable& operator=(SymbolTable&&) noexcept = default;

    std::uint32_t intern(std::string_view name);
    // The id of a name, or no_object when it was never interned.
    std::uint32_t find(std::string_view name) const;
    const std::string& name(std::uint32_t id) const { return names_[id]; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(names_.size()); }

private:
    void reindex();
    std::uint32_t* slot(std::string_view name); // the index's slot of name, or the empty one
    std::deque<std::string> names_;             // stable: the index views them
    // Open addressing over ids (no_object: empty), at most half full: no allocation per name.
    std::vector<std::uint32_t> index_ = std::vector<std::uint32_t>(16, no_object);
};

// The operands of fork/join events: sets of threads, each stored as one run of a flat array (a
// program may fork a thread per task, so a set costs 8 bytes beside its members, not a vector).
class ThreadSets {
public:
    using Set = std::span<const ThreadId>;

    Set operator[](std::size_t i) const {
        return Set(members_.data() + starts_[i], starts_[i + 1] - starts_[i]);
    }
    std::size_t size() const { return starts_.size() - 1; }
    bool empty() const { return size() == 0; }
    void push_back(Set set) {
        members_.insert(members_.end(), set.begin(), set.end());
        starts_.push_back(static_cast<std::uint32_t>(members_.size()));
    }
    void push_back(const std::vector<ThreadId>& set) { push_back(Set(set)); }
    void push_back(std::initializer_list<ThreadId> set) { push_back(Set(set.begin(), set.size())); }
    bool operator==(const ThreadSets&) const = default;
    void clear() {
        members_.clear();
        starts_.assign(1, 0);
    }

    class iterator {
    public:
        iterator(const ThreadSets* s, std::size_t i) : s_(s), i_(i) {}
        Set operator*() const { return (*s_)[i_]; }
        iterator& operator++() {
            ++i_;
            return *this;
        }
        bool operator==(const iterator& o) const { return i_ == o.i_; }

    private:
        const ThreadSets* s_;
        std::size_t i_;
    };
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }

private:
    std::vector<ThreadId> members_;
    std::vector<std::uint32_t> starts_ =
        std::vector<std::uint32_t>(1, 0); // set i: members_[starts_[i], starts_[i + 1])
};

// The values vr/vw events carry (docs/traces.md "Values of volatiles"), interned to dense ids
// 0, 1, 2, ... in order of first appearance: Event keeps a 4-byte id and stays 32 bytes.
class ValueTable {
public:
    ValueTable() = default;
    ValueTable(const ValueTable& o) {
        for (std::uint32_t i = 0; i < o.size(); ++i)
            intern(o.value(i));
    }
    ValueTable& operator=(const ValueTable& o) {
        ValueTable copy(o);
        return *this = std::move(copy);
    }
    ValueTable(ValueTable&&) noexcept = default;
    ValueTable& operator=(ValueTable&&) noexcept = default;

    std::uint32_t intern(std::int64_t v) {
        const auto [it, fresh] = index_.try_emplace(v, size_);
        if (fresh) {
            const auto [k, at] = place(size_);
            if (!chunks_[k])
                chunks_[k] = std::make_unique<std::int64_t[]>(std::size_t{first} << k);
            chunks_[k][at] = v;
            ++size_;
        }
        return it->second;
    }
    // The id of a value, or no_object when it was never interned.
    std::uint32_t find(std::int64_t v) const {
        const auto it = index_.find(v);
        return it == index_.end() ? no_object : it->second;
    }
    // Values never move once interned: the live runtime's second group of analyses reads ids it
    // was handed while the checker thread interns new ones.
    std::int64_t value(std::uint32_t id) const {
        const auto [k, at] = place(id);
        return chunks_[k][at];
    }
    std::uint32_t size() const { return size_; }

private:
    // Chunk k holds first · 2^k values, from id first · (2^k − 1) on.
    static constexpr std::uint32_t first = 256;
    static std::pair<unsigned, std::uint32_t> place(std::uint32_t id) {
        const unsigned k = static_cast<unsigned>(std::bit_width(id / first + 1)) - 1;
        return {k, id - first * ((1u << k) - 1)};
    }
    std::array<std::unique_ptr<std::int64_t[]>, 24> chunks_;
    std::uint32_t size_ = 0;
    std::unordered_map<std::int64_t, std::uint32_t> index_;
};

// The operands of enq(q,o) / deq(q,o) (thesis §5.1, q(o)): each (queue, variable) pair once, to
// dense ids 0, 1, 2, ..., so that an event's target names both and analyses index by the pair.
class QueueItems {
public:
    std::uint32_t intern(ObjId queue, ObjId var) {
        const auto [it, fresh] = index_.try_emplace(std::uint64_t{queue} << 32 | var, size());
        if (fresh)
            items_.push_back({queue, var});
        return it->second;
    }
    // The id of a pair, or no_object when it was never interned.
    std::uint32_t find(ObjId queue, ObjId var) const {
        const auto it = index_.find(std::uint64_t{queue} << 32 | var);
        return it == index_.end() ? no_object : it->second;
    }
    ObjId queue(std::uint32_t id) const { return items_[id].first; } // Symbols::queues id
    ObjId var(std::uint32_t id) const { return items_[id].second; }  // Symbols::vars id
    std::uint32_t size() const { return static_cast<std::uint32_t>(items_.size()); }

private:
    std::vector<std::pair<ObjId, ObjId>> items_;
    std::unordered_map<std::uint64_t, std::uint32_t> index_;
};

// Names behind the ids in events. Each object kind has its own namespace.
struct Symbols {
    SymbolTable threads, vars, locks, volatiles, barriers, locations, queues;
    SymbolTable conds; // a program's condition variables (no trace names them)
    // fork/join operands: Event::target indexes this table; each set is sorted and distinct.
    ThreadSets thread_sets;
    // vr/vw values: Event::value_id indexes this table.
    ValueTable values;
    // enq/deq operands: Event::target indexes this table.
    QueueItems queue_items;

    // The table of a namespace.
    SymbolTable& names(Namespace n) {
        return const_cast<SymbolTable&>(static_cast<const Symbols*>(this)->names(n));
    }
    const SymbolTable& names(Namespace n) const {
        switch (n) {
        case Namespace::thread:
            return threads;
        case Namespace::variable:
            return vars;
        case Namespace::lock:
            return locks;
        case Namespace::volatile_:
            return volatiles;
        case Namespace::barrier:
            return barriers;
        case Namespace::queue:
            return queues;
        case Namespace::cond:
            return conds;
        case Namespace::location:
            break;
        }
        return locations;
    }
};

struct Event {
    std::uint64_t number = 0; // 1, 2, ... in file order over event lines (docs/traces.md)
    ThreadId thread = 0;
    Op op = Op::read;
    bool implicit = false;
    // read/write: var id; acq/rel: lock id; vr/vw: volatile id; benter/bexit: barrier id;
    // fork/join: index into Symbols::thread_sets; enq/deq: index into Symbols::queue_items;
    // thread_start/thread_end: the forker / the
    // joiner thread (no_object when u is a root thread that is never forked / the end is not
    // caused by a join); begin/end: no_object.
    ObjId target = no_object;
    ObjId location = no_object; // Symbols::locations id of the optional LOCATION field
    std::uint32_t line = 0;     // source line of the event in its file (0: none)
    // vr/vw: Symbols::values id of the value read / written, or no_object (docs/traces.md,
    // thesis §5.1: such an event is also the rcv / snd of the mechanism v==value).
    ObjId value_id = no_object;
    bool has_value() const { return value_id != no_object; }
};
// Fits the padding after line: a value costs no event bytes (bench_analyses' BM_Read).
static_assert(sizeof(Event) == 32);

// One analysis over an event stream; analyses run side by side in one pass.
class Analysis {
public:
    virtual ~Analysis() = default;
    virtual void on_event(const Event& e, const Symbols& syms) = 0;
    virtual void finish(const Symbols&) {}
};

} // namespace sfg
