// The dependence of explored steps and their Mazurkiewicz classes (event.hpp; docs/programs.md,
// "Dependence"). Threads are objects too: a step is an exclusive access to its own thread, a fork
// an exclusive one and a join a shared one to each thread it names.
#include "explore/dependence.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace sfg::explore_detail {

namespace {

bool names(const Event& e, std::uint32_t u) {
    return std::find(e.names.begin(), e.names.end(), u) != e.names.end();
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 29);
}

} // namespace

bool dependent(const Event& a, const Event& b) {
    if (a.thread == b.thread || names(a, b.thread) || names(b, a.thread))
        return true;
    if (!a.names.empty() && !b.names.empty() &&
        conflicting(op_info(a.op), op_info(b.op))) // two joins of one thread commute
        for (std::uint32_t u : a.names)
            if (names(b, u))
                return true;
    if (a.generation && b.generation && a.generation != b.generation)
        return false; // barrier steps (only they have one) of different rounds commute
    for (const Action& x : a.actions)
        for (const Action& y : b.actions) {
            const OpInfo &i = op_info(x.op), &j = op_info(y.op);
            if (i.space == j.space && x.object == y.object && conflicting(i, j))
                return true;
        }
    return false;
}

ClassId foata_class(const std::vector<Event>& run) {
    // The level of a step: one more than the highest level of a step it depends on; per object
    // (and thread) and per phase, the highest level of any access and of an exclusive one.
    struct Levels {
        std::uint32_t any[2] = {0, 0}, exclusive[2] = {0, 0};
        std::uint32_t before(Access a, std::uint8_t p) const {
            return std::max(any[1 - p], a == Access::exclusive ? any[p] : exclusive[p]);
        }
        void after(Access a, std::uint8_t p, std::uint32_t l) {
            any[p] = std::max(any[p], l);
            if (a == Access::exclusive)
                exclusive[p] = std::max(exclusive[p], l);
        }
    };
    // (namespace, object, generation): each generation of a barrier an object of its own.
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Levels> objects;
    const auto thread = [&](std::uint32_t u) -> Levels& {
        return objects[{static_cast<std::uint32_t>(Namespace::thread), u, 0}];
    };
    std::vector<std::uint32_t> level(run.size());
    for (std::size_t i = 0; i < run.size(); ++i) {
        const Event& e = run[i];
        const OpInfo& named = op_info(e.op); // fork: exclusive, join: shared, on each name
        std::uint32_t l = thread(e.thread).before(Access::exclusive, 0);
        for (std::uint32_t u : e.names)
            l = std::max(l, thread(u).before(named.access, 0));
        for (const Action& a : e.actions) {
            const OpInfo& op = op_info(a.op);
            l = std::max(
                l, objects[{static_cast<std::uint32_t>(op.space), a.object, e.generation}].before(
                       op.access, op.phase));
        }
        level[i] = ++l;
        thread(e.thread).after(Access::exclusive, 0, l);
        for (std::uint32_t u : e.names)
            thread(u).after(named.access, 0, l);
        for (const Action& a : e.actions) {
            const OpInfo& op = op_info(a.op);
            objects[{static_cast<std::uint32_t>(op.space), a.object, e.generation}].after(
                op.access, op.phase, l);
        }
    }
    std::vector<std::uint32_t> order(run.size());
    for (std::uint32_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return std::pair(level[x], run[x].thread) < std::pair(level[y], run[y].thread);
    });
    ClassId c{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
    const auto add = [&](std::uint64_t v) {
        c.a = mix(c.a, v);
        c.b = mix(c.b ^ 0xa4093822299f31d0ULL, v * 0x9e3779b97f4a7c15ULL + 1);
    };
    for (std::uint32_t i : order) {
        const Event& e = run[i];
        add(static_cast<std::uint64_t>(level[i]) << 32 | e.thread);
        add(static_cast<std::uint64_t>(e.op) << 8 | (e.yield ? 1u : 0u));
        for (const Action& a : e.actions)
            add(static_cast<std::uint64_t>(a.op) << 32 | a.object);
    }
    return c;
}

} // namespace sfg::explore_detail
