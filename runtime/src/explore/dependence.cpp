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

ClassId foata_class(std::span<const Event> run,
                    const std::function<std::uint64_t(std::uint32_t)>& object_key) {
    // (namespace, object, generation): each generation of a barrier an object of its own.
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, engine::FoataLevels> objects;
    const auto thread = [&](std::uint32_t u) -> engine::FoataLevels& {
        return objects[{static_cast<std::uint32_t>(Namespace::thread), u, 0}];
    };
    const auto accesses = [&](std::size_t i, auto&& visit) {
        const Event& e = run[i];
        visit(thread(e.thread), true, std::uint8_t{0});
        const OpInfo& named = op_info(e.op); // fork: exclusive, join: shared, on each name
        for (std::uint32_t u : e.names)
            visit(thread(u), named.access == Access::exclusive, std::uint8_t{0});
        for (const Action& a : e.actions) {
            const OpInfo& op = op_info(a.op);
            visit(objects[{static_cast<std::uint32_t>(op.space), a.object, e.generation}],
                  op.access == Access::exclusive, op.phase);
        }
    };
    const auto content = [&](std::size_t i, auto&& add) {
        const Event& e = run[i];
        add(static_cast<std::uint64_t>(e.op) << 8 | (e.yield ? 1u : 0u));
        for (const Action& a : e.actions) {
            add(static_cast<std::uint64_t>(a.op));
            add(object_key(a.object));
        }
    };
    return engine::foata_class(
        run.size(), [&](std::size_t i) { return run[i].thread; }, accesses, content);
}

} // namespace sfg::explore_detail
