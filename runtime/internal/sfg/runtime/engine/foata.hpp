// The Mazurkiewicz class of a sequence of steps as a 128-bit hash of its Foata normal form
// (Diekert, Rozenberg, "The Book of Traces", 1995, §1.4): the one class computation of
// `sfg::explore` and `sfgc check` (docs/programs.md, "Dependence"), generic over what a step
// touches. A step's level is one more than the highest level of a step it depends on; steps are
// sorted by (level, thread) and hashed with their contents. Two steps depend on each other when
// they touch one object, one of them exclusively, in one phase, or in two different phases (the
// shared accesses of one phase commute: reads, a barrier's arrivals).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sfg::engine {

struct ClassId {
    std::uint64_t a = 0, b = 0;
    friend bool operator==(const ClassId&, const ClassId&) = default;
    friend auto operator<=>(const ClassId&, const ClassId&) = default;
};

inline std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

// The levels of the accesses to one object so far: per phase, the highest level of any access
// and of an exclusive one.
struct FoataLevels {
    std::uint32_t any[2] = {0, 0}, exclusive[2] = {0, 0};
    // The highest level of the accesses an access depends on.
    std::uint32_t before(bool excl, std::uint8_t phase) const {
        return std::max(any[1 - phase], excl ? any[phase] : exclusive[phase]);
    }
    void after(bool excl, std::uint8_t phase, std::uint32_t level) {
        any[phase] = std::max(any[phase], level);
        if (excl)
            exclusive[phase] = std::max(exclusive[phase], level);
    }
};

// The class of steps 0 .. n-1: thread_of(i) is step i's thread; accesses(i, visit) calls
// visit(FoataLevels&, exclusive, phase) for every object step i touches (its thread first, an
// exclusive access in phase 0), the same objects both times it is called for i; content(i, add)
// adds what else identifies step i (its ops and objects) to the hash.
template <class ThreadOf, class Accesses, class Content>
ClassId foata_class(std::size_t n, ThreadOf thread_of, Accesses accesses, Content content) {
    std::vector<std::uint32_t> level(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t l = 0;
        accesses(i, [&](const FoataLevels& o, bool excl, std::uint8_t phase) {
            l = std::max(l, o.before(excl, phase));
        });
        level[i] = ++l;
        accesses(i,
                 [&](FoataLevels& o, bool excl, std::uint8_t phase) { o.after(excl, phase, l); });
    }
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t i = 0; i < n; ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return std::pair(level[x], thread_of(x)) < std::pair(level[y], thread_of(y));
    });
    ClassId c{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
    const auto add = [&](std::uint64_t v) {
        c.a = hash_mix(c.a, v);
        c.b = hash_mix(c.b ^ 0xa4093822299f31d0ULL, v * 0x9e3779b97f4a7c15ULL + 1);
    };
    for (std::uint32_t i : order) {
        add(static_cast<std::uint64_t>(level[i]) << 32 | thread_of(i));
        content(i, add);
    }
    return c;
}

} // namespace sfg::engine
