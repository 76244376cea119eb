// The dependence of explored steps and their Mazurkiewicz classes (event.hpp; docs/programs.md,
// "Dependence"). Threads are objects too: a step is an exclusive access to its own thread, a fork
// an exclusive one and a join a shared one to each thread it names.
#include "explore/dependence.hpp"

#include <algorithm>
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

ClassId foata_class(std::span<const Event> run, std::span<const std::uint64_t> object_keys,
                    FoataScratch& scratch) {
    scratch.threads.clear();
    scratch.objects.clear();
    scratch.rounds.clear();
    const auto grown = [](std::vector<engine::FoataLevels>& v,
                          std::uint32_t i) -> engine::FoataLevels& {
        if (i >= v.size())
            v.resize(std::size_t{i} + 1);
        return v[i];
    };
    // (object, generation): each generation of a barrier an object of its own.
    const auto object = [&](std::uint32_t o, std::uint32_t generation) -> engine::FoataLevels& {
        if (generation == 0)
            return grown(scratch.objects, o);
        for (FoataScratch::Round& r : scratch.rounds)
            if (r.object == o && r.generation == generation)
                return r.levels;
        scratch.rounds.push_back({o, generation, {}});
        return scratch.rounds.back().levels;
    };
    const auto accesses = [&](std::size_t i, auto&& visit) {
        const Event& e = run[i];
        visit(grown(scratch.threads, e.thread), true, std::uint8_t{0});
        const OpInfo& named = op_info(e.op); // fork: exclusive, join: shared, on each name
        for (std::uint32_t u : e.names)
            visit(grown(scratch.threads, u), named.access == Access::exclusive, std::uint8_t{0});
        for (const Action& a : e.actions) {
            const OpInfo& op = op_info(a.op);
            visit(object(a.object, e.generation), op.access == Access::exclusive, op.phase);
        }
    };
    const auto content = [&](std::size_t i, auto&& add) {
        const Event& e = run[i];
        add(static_cast<std::uint64_t>(e.op) << 8 | (e.yield ? 1u : 0u));
        for (const Action& a : e.actions) {
            add(static_cast<std::uint64_t>(a.op));
            add(object_keys[a.object]);
        }
    };
    return engine::foata_class(
        run.size(), [&](std::size_t i) { return run[i].thread; }, accesses, content);
}

} // namespace sfg::explore_detail
