// What the SLP reader (slp_format.cpp) prepares for expand_slp (slp_expand.cpp), and how
// expand_slp reads what the reader has checked: the expansion index and the locations of an
// image (slp_expand.hpp; the file's layout is docs/compressed.md's).
#pragma once

#include "sfg/runtime/slp/slp_expand.hpp"

#include <algorithm>
#include <cstdint>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace sfg::slp_stream {

// The expansion index. A walk of the grammar jumps from rule to rule: on a grammar of low ratio
// nearly every event is reached through a rule of its own, somewhere in megabytes of rules, and
// each jump costs cache misses, where the rule is and then its symbols, more for nested rules.
// So every rule of at most `leaf_events` events is a *leaf*, stored expanded in one run of
// terminals (one miss for the whole rule, nested rules included), and one word a rule says where
// it is, with its length:
//   a leaf:  leaf_bit | events << 56 | offset of its terminals in `leaves`
//   else:    symbols << 40 | offset of its symbols, symbols = max_count meaning "look it up"
// The realistic benchmark trace's Sequitur grammar (bench/README.md) has nearly all its rules
// of 2 to 4 events.
inline constexpr std::uint32_t leaf_events = 16;
inline constexpr std::uint64_t leaf_bit = std::uint64_t{1} << 63;
inline constexpr std::uint64_t max_count = (std::uint64_t{1} << 23) - 1;
inline constexpr std::uint64_t offset_mask = (std::uint64_t{1} << 40) - 1;
inline constexpr std::uint64_t leaf_offset_mask = (std::uint64_t{1} << 56) - 1;
// Traces of 2^62 events or more are refused: event numbers stay far from overflow.
inline constexpr std::uint64_t max_events = std::uint64_t{1} << 62;

// The rules' lengths and the index, rules (symbols[rule_start[r] .. rule_start[r + 1]), each
// referring only to later rules, in range) from the last to the first, in one pass: the rule
// whose length reaches 2^62 if any (the highest, as Slp::compute_lengths finds it).
// Asks for transparent huge pages (where the system makes them on request) over the 2 MB pages
// inside a large array's storage, before it is first written: a page fault a 2 MB page instead of
// one a 4 KB page, which on a virtual machine is much of the cost of filling it (the realistic
// benchmark trace's 13 MB of symbols: 7 ms of its 110).
template <class T>
void huge_pages([[maybe_unused]] const std::vector<T>& v) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
    const auto at = reinterpret_cast<std::uintptr_t>(v.data());
    const auto begin = (at + huge - 1) & ~(huge - 1);
    const auto end = (at + v.capacity() * sizeof(T)) & ~(huge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE); // a hint
#endif
}

// The events of symbols [begin, end), all of whose rules are indexed: at least max_events
// when they reach it.
inline std::uint64_t events_of(const SlpSymbol* begin, const SlpSymbol* end,
                               const std::uint64_t* lengths, const std::uint64_t* refs) {
    std::uint64_t total = 0;
    for (const SlpSymbol* s = begin; s < end; ++s) {
        if (!slp_is_rule(*s)) {
            ++total;
            continue;
        }
        const std::uint64_t child = refs[slp_index(*s)];
        total += child & leaf_bit ? (child >> 56) & 0x7f : lengths[slp_index(*s)];
        if (total >= max_events) // (a sum below 2^62 plus a length below it: no overflow)
            return max_events;
    }
    return total;
}

// With `threads` of 2 or more, a start rule of a million symbols or more (a grammar of low
// ratio) is summed half on another thread.
inline std::optional<std::size_t>
index_rules(const SlpSymbol* symbols, const std::uint64_t* rule_start, std::size_t rules,
            std::uint64_t* lengths, std::vector<std::uint64_t>& refs,
            std::vector<std::uint32_t>& leaves, unsigned threads = 1) {
    const std::uint64_t size = rules ? rule_start[rules] : 0;
    if (size > offset_mask)
        throw std::length_error("SLP too large to expand (2^40 symbols or more)");
    refs.assign(rules, 0);
    leaves.clear();
    // Leaves hold at most twice the grammar's symbols (a grammar of many rules of a few events
    // each must not multiply its memory); children come first, so a rule is a leaf when its
    // rules are.
    const std::uint64_t budget = std::max<std::uint64_t>(2 * size, std::uint64_t{1} << 16);
    const bool split = threads >= 2 && rules > 0 && rule_start[1] - rule_start[0] >= (1u << 20);
    for (std::size_t r = rules; r-- > (split ? 1 : 0);) {
        const SlpSymbol* const begin = symbols + rule_start[r];
        const SlpSymbol* const end = symbols + rule_start[r + 1];
        // Terminals and leaves add at most leaf_events each: the sum cannot overflow between
        // the checks after the others.
        std::uint64_t total = 0;
        bool leaf = true;
        for (const SlpSymbol* s = begin; s < end; ++s) {
            if (!slp_is_rule(*s)) {
                ++total;
                continue;
            }
            const std::uint64_t child = refs[slp_index(*s)];
            if (child & leaf_bit) {
                total += (child >> 56) & 0x7f;
            } else {
                total += lengths[slp_index(*s)];
                leaf = false;
                if (total >= max_events)
                    return r;
            }
        }
        if (total >= max_events)
            return r;
        lengths[r] = total;
        if (!leaf || total > leaf_events || leaves.size() + total > budget) {
            refs[r] = rule_start[r] | std::min<std::uint64_t>(end - begin, max_count) << 40;
            continue;
        }
        const std::size_t offset = leaves.size();
        if (leaves.capacity() < offset + total)
            leaves.reserve(std::max<std::size_t>(2 * leaves.capacity(), offset + total));
        for (const SlpSymbol* s = begin; s < end; ++s) {
            if (!slp_is_rule(*s)) {
                leaves.push_back(*s);
                continue;
            }
            const std::uint64_t child = refs[slp_index(*s)];
            const std::size_t from = child & leaf_offset_mask;
            for (std::size_t i = 0, n = (child >> 56) & 0x7f; i < n; ++i)
                leaves.push_back(leaves[from + i]); // no reallocation: reserved above
        }
        refs[r] = leaf_bit | total << 56 | offset;
    }
    if (split) { // the start rule: no leaf, and a sum of independent terms
        const SlpSymbol* const begin = symbols + rule_start[0];
        const SlpSymbol* const end = symbols + rule_start[1];
        const SlpSymbol* const mid = begin + (end - begin) / 2;
        std::uint64_t second = 0;
        std::thread helper;
        try {
            helper = std::thread([&] { second = events_of(mid, end, lengths, refs.data()); });
        } catch (const std::system_error&) {
            second = events_of(mid, end, lengths, refs.data()); // no thread to be had
        }
        const std::uint64_t first = events_of(begin, mid, lengths, refs.data());
        if (helper.joinable())
            helper.join();
        if (first >= max_events || second >= max_events - first)
            return 0;
        lengths[0] = first + second;
        refs[0] = rule_start[0] | std::min<std::uint64_t>(end - begin, max_count) << 40;
    }
    leaves.resize(leaves.size() + leaf_events); // a leaf is copied leaf_events at a time
    return std::nullopt;
}

// An unsigned LEB128 varint the reader has checked; advances p past it.
inline std::uint64_t decode(const unsigned char*& p) {
    std::uint64_t v = *p & 0x7f;
    if (!(*p++ & 0x80)) [[likely]]
        return v;
    for (int shift = 7;; shift += 7) {
        const unsigned char b = *p++;
        v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

// The locations of an image's events, in event order.
class Locations {
public:
    explicit Locations(const SlpImage& image)
        : p_(reinterpret_cast<const unsigned char*>(image.location_bytes.data())),
          left_(image.location_count), ids_(image.location_ids.data()) {
        advance();
    }
    // The number of the next event that has a location; 0 when none is left.
    std::uint64_t next_number() const { return next_; }
    // That event's location (a Symbols id); moves on to the next.
    ObjId take() {
        const ObjId id = ids_[decode(p_)];
        advance();
        return id;
    }
    // The location of event `number`, or no_object; asked in increasing order of events.
    ObjId at(std::uint64_t number) { return number == next_ ? take() : no_object; }

private:
    void advance() {
        if (left_ == 0) {
            next_ = 0;
            return;
        }
        --left_;
        last_ += decode(p_);
        next_ = last_;
    }

    const unsigned char* p_;
    std::uint64_t left_;
    const ObjId* ids_;
    std::uint64_t last_ = 0, next_ = 0;
};

} // namespace sfg::slp_stream
