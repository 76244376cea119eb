// Reader-local name lookup (private to the trace readers): views into the file being read map to
// Symbols ids without building a std::string per occurrence.
#pragma once

#include "sfg/runtime/event.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string_view>
#include <vector>

namespace sfg {

class NameCache {
public:
    explicit NameCache(SymbolTable& table) : table_(table), slots_(64) {}

    // The id of `name` in the table, interning it on first sight. `name` must stay valid for
    // the life of the cache (it points into the file being read).
    std::uint32_t id(std::string_view name) {
        // Names are short: the first 8 bytes as a word decide most comparisons without memcmp.
        const char* p = name.data();
        const std::size_t n = name.size();
        std::uint64_t w0 = 0;
        const std::size_t k = n < 8 ? n : 8;
        for (std::size_t i = 0; i < k; ++i)
            w0 |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
        std::uint64_t h = (w0 ^ n) * 0x9e3779b97f4a7c15ull;
        for (std::size_t i = 8; i < n; ++i)
            h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
        h ^= h >> 29;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.id == no_object) {
                const std::uint32_t id = table_.intern(name);
                s = {h, w0, p, static_cast<std::uint32_t>(n), id};
                if (++used_ * 2 > slots_.size())
                    grow();
                return id;
            }
            if (s.hash == h && s.w0 == w0 && s.len == n &&
                (n <= 8 || std::memcmp(s.data + 8, p + 8, n - 8) == 0))
                return s.id;
        }
    }

private:
    struct Slot {
        std::uint64_t hash = 0;
        std::uint64_t w0 = 0;
        const char* data = nullptr;
        std::uint32_t len = 0;
        std::uint32_t id = no_object;
    };
    void grow() {
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        std::size_t mask = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.id == no_object)
                continue;
            std::size_t i = s.hash & mask;
            while (slots_[i].id != no_object)
                i = (i + 1) & mask;
            slots_[i] = s;
        }
    }

    SymbolTable& table_;
    std::vector<Slot> slots_;
    std::size_t used_ = 0;
};

// Interns fork/join operand sets into Symbols::thread_sets (sorted, distinct).
class ThreadSetCache {
public:
    explicit ThreadSetCache(Symbols& syms) : syms_(syms) {}

    // `set` must hold distinct threads; it is sorted in place.
    std::uint32_t id(std::vector<ThreadId>& set) {
        for (; known_ < syms_.thread_sets.size(); ++known_) // sets interned by others
            ids_.emplace(syms_.thread_sets[known_], static_cast<std::uint32_t>(known_));
        std::sort(set.begin(), set.end());
        auto it = ids_.find(set);
        if (it != ids_.end())
            return it->second;
        auto id = static_cast<std::uint32_t>(syms_.thread_sets.size());
        syms_.thread_sets.push_back(set);
        ids_.emplace(set, id);
        ++known_;
        return id;
    }

private:
    Symbols& syms_;
    std::map<std::vector<ThreadId>, std::uint32_t> ids_;
    std::size_t known_ = 0;
};

} // namespace sfg
