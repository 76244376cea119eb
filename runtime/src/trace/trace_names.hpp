// Reader-local name lookup (private to the trace readers): views into the file being read map to
// Symbols ids without building a std::string per occurrence.
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

namespace sfg {

// Table: where names live and get their ids, in order of first sight: intern(view) -> id (called
// once per distinct name) and name(id), viewable as a string_view. SymbolTable for Symbols;
// ViewTable for a parser that keeps views into the file (read_trace_text_parallel).
template <class Table>
class BasicNameCache {
public:
    explicit BasicNameCache(Table& table) : table_(table), slots_(64), short_(64) {}

    // The id of `name` in the table, interning it on first sight. `readable`: at least 8 bytes
    // from name.data() may be read (the name may end earlier).
    std::uint32_t id(std::string_view name, bool readable = false) {
        // Names are short: the first 8 bytes as a word, with the length, decide most
        // comparisons without memcmp.
        const char* p = name.data();
        const std::size_t n = name.size();
        std::uint64_t w0 = 0;
        const std::size_t k = n < 8 ? n : 8;
        if (std::endian::native == std::endian::little && (readable || n >= 8)) { // one load
            std::memcpy(&w0, p, 8);
            if (k < 8)
                w0 &= (std::uint64_t{1} << (8 * k)) - 1;
        } else {
            for (std::size_t i = 0; i < k; ++i)
                w0 |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
        }
        if (n <= 8)
            return id_short(w0, name);
        for (std::size_t i = hash(w0, name) >> shift_;; i = (i + 1) & (slots_.size() - 1)) {
            const Slot& s = slots_[i];
            if (s.id == no_object)
                return insert(i, w0, name);
            if (s.w0 == w0 && s.len == n &&
                std::memcmp(std::string_view(table_.name(s.id)).data() + 8, p + 8, n - 8) == 0)
                return s.id;
        }
    }

    // The same for a name of up to 8 bytes whose bytes, zero-padded, are the little-endian word
    // w0 (the reader's 32-byte window has them at hand): no word to assemble, no tail to compare.
    // Names never contain NUL (a control character), so the word alone is the name: the short
    // names have a table of their own, of bare words and ids (12 bytes a slot, 3/4 full at most),
    // a third of the general one's size: a thousand names take 24 KB.
    std::uint32_t id_short(std::uint64_t w0, std::string_view name) {
        for (std::size_t i = (w0 * golden) >> short_shift_;; i = (i + 1) & (short_.size() - 1)) {
            const ShortSlot& slot = short_[i];
            if (slot.word == w0)
                return slot.id;
            if (slot.word == 0) // an empty slot (no name is empty)
                return insert_short(i, w0, name);
        }
    }

private:
    static constexpr std::uint64_t golden = 0x9e3779b97f4a7c15ull;
    struct [[gnu::packed]] ShortSlot {
        std::uint64_t word = 0; // the name, zero-padded; 0: an empty slot
        std::uint32_t id = 0;
    };
    static_assert(sizeof(ShortSlot) == 12);
    // Names of more than 8 bytes: their first word and length here, the rest compared with the
    // table's copy.
    struct Slot {
        std::uint64_t w0 = 0;
        std::uint32_t len = 0;
        std::uint32_t id = no_object;
    };
    // Fibonacci hashing: the table index is the top bits of the product. The bytes after the
    // first word are taken a word at a time: long names (a trace's source locations, 30 bytes
    // and more) are on most lines, and a multiply per byte made hashing them most of the time
    // spent reading such a trace.
    static std::uint64_t hash(std::uint64_t w0, std::string_view name) { // name: over 8 bytes
        auto word = [&](std::size_t at) {
            std::uint64_t w;
            std::memcpy(&w, name.data() + at, 8);
            return w;
        };
        std::uint64_t h = w0 ^ name.size();
        for (std::size_t i = 8; i + 8 < name.size(); i += 8)
            h = mix(h, word(i));
        return mix(h, word(name.size() - 8)); // the last word (overlapping the one before)
    }
    // Fibonacci's product, whose top bits index the table, then its high bits folded down for
    // the next word.
    static std::uint64_t mix(std::uint64_t h, std::uint64_t w) {
        h = (h ^ w) * golden;
        return h ^ h >> 29;
    }
    [[gnu::noinline]] std::uint32_t insert(std::size_t i, std::uint64_t w0, std::string_view name) {
        const std::uint32_t id = table_.intern(name);
        slots_[i] = {w0, static_cast<std::uint32_t>(name.size()), id};
        if (++used_ * 2 > slots_.size()) { // grow: rehash every name
            std::vector<Slot> old(slots_.size() * 2);
            old.swap(slots_);
            --shift_;
            for (const Slot& s : old) {
                if (s.id == no_object)
                    continue;
                std::size_t j = hash(s.w0, table_.name(s.id)) >> shift_;
                while (slots_[j].id != no_object)
                    j = (j + 1) & (slots_.size() - 1);
                slots_[j] = s;
            }
        }
        return id;
    }

    [[gnu::noinline]] std::uint32_t insert_short(std::size_t i, std::uint64_t w0,
                                                 std::string_view name) {
        const std::uint32_t id = table_.intern(name);
        short_[i] = {w0, id};
        if (++short_used_ * 4 > short_.size() * 3) { // over 3/4 full: rehash every name
            std::vector<ShortSlot> old(short_.size() * 2);
            old.swap(short_);
            --short_shift_;
            for (const ShortSlot& slot : old) {
                if (slot.word == 0)
                    continue;
                std::size_t j = (slot.word * golden) >> short_shift_;
                while (short_[j].word != 0)
                    j = (j + 1) & (short_.size() - 1);
                short_[j] = slot;
            }
        }
        return id;
    }

    Table& table_;
    std::vector<Slot> slots_; // names of more than 8 bytes
    int shift_ = 58;          // slots_.size() == 1 << (64 - shift_)
    std::size_t used_ = 0;
    std::vector<ShortSlot> short_; // names of up to 8 bytes
    int short_shift_ = 58;         // short_.size() == 1 << (64 - short_shift_)
    std::size_t short_used_ = 0;
};

using NameCache = BasicNameCache<SymbolTable>;

// Names as views into the file being read (which outlives them): no copy, no second hash table
// (BasicNameCache already asks only about names it has not seen).
class ViewTable {
public:
    std::uint32_t intern(std::string_view name) {
        names_.push_back(name);
        return static_cast<std::uint32_t>(names_.size() - 1);
    }
    std::string_view name(std::uint32_t id) const { return names_[id]; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(names_.size()); }
    const std::vector<std::string_view>& names() const { return names_; }

private:
    std::vector<std::string_view> names_;
};

// Interns fork/join operand sets into Symbols::thread_sets (sorted, distinct).
class ThreadSetCache {
public:
    explicit ThreadSetCache(Symbols& syms) : syms_(syms) {}

    // `set` must hold distinct threads; it is sorted in place.
    std::uint32_t id(std::vector<ThreadId>& set) {
        for (; known_ < syms_.thread_sets.size(); ++known_) // sets interned by others
            remember(syms_.thread_sets[known_], static_cast<std::uint32_t>(known_));
        if (set.size() == 1) { // fork(u) and join(u): most sets, one per short-lived thread
            const ThreadId u = set[0];
            if (u < single_.size() && single_[u] != no_object)
                return single_[u];
            const auto id = static_cast<std::uint32_t>(syms_.thread_sets.size());
            syms_.thread_sets.push_back(set);
            remember(ThreadSets::Set(set), id);
            ++known_;
            return id;
        }
        std::sort(set.begin(), set.end());
        auto it = ids_.find(set);
        if (it != ids_.end())
            return it->second;
        auto id = static_cast<std::uint32_t>(syms_.thread_sets.size());
        syms_.thread_sets.push_back(set);
        remember(ThreadSets::Set(set), id);
        ++known_;
        return id;
    }

private:
    void remember(ThreadSets::Set set, std::uint32_t id) {
        if (set.size() != 1) {
            ids_.emplace(std::vector<ThreadId>(set.begin(), set.end()), id);
            return;
        }
        if (single_.size() <= set[0])
            single_.resize(set[0] + 1, no_object);
        if (single_[set[0]] == no_object) // the first of equal sets, as the map keeps it
            single_[set[0]] = id;
    }

    Symbols& syms_;
    std::map<std::vector<ThreadId>, std::uint32_t> ids_; // sets of two threads or more
    std::vector<std::uint32_t> single_;                  // by thread: the set of it alone
    std::size_t known_ = 0;
};

} // namespace sfg
