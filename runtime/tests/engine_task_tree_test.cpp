// The exploration engine's task tree (sfg/runtime/engine/task_tree.hpp): whoever explores which
// task when, the results are merged in canonical order — a task, then its children's subtrees in
// the order handed on — and a merge that stops stops at the same task. Checked against the
// pre-order walk of the same tree, with random workers taking and finishing tasks.
#include "sfg/runtime/engine/task_tree.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace engine_task_tree_test {

struct Task {
    std::vector<std::uint32_t> path;
};

// A task's own executions and children, a function of its path (as a search's are of its root).
std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 29);
}
std::uint64_t hash(const std::vector<std::uint32_t>& path, std::uint64_t seed) {
    std::uint64_t h = mix(seed + 1);
    for (std::uint32_t p : path)
        h = mix(h ^ (p + 0x51));
    return h;
}
std::uint32_t own(const std::vector<std::uint32_t>& path, std::uint64_t seed) {
    return static_cast<std::uint32_t>(hash(path, seed) % 4);
}
std::uint32_t children(const std::vector<std::uint32_t>& path, std::uint64_t seed) {
    return path.size() >= 5 ? 0 : static_cast<std::uint32_t>(hash(path, seed) / 7 % 4);
}

// The reference: the pre-order walk, cut once `bound` executions are merged.
void walk(const std::vector<std::uint32_t>& path, std::uint64_t seed, std::uint64_t bound,
          std::uint64_t& merged, std::vector<std::vector<std::uint32_t>>& out, bool& stop) {
    if (stop)
        return;
    out.push_back(path);
    merged += own(path, seed);
    if (merged >= bound) {
        stop = true;
        return;
    }
    for (std::uint32_t k = 0; k < children(path, seed); ++k) {
        std::vector<std::uint32_t> c = path;
        c.push_back(k);
        walk(c, seed, bound, merged, out, stop);
    }
}

TEST_CASE("engine task tree: random workers merge in canonical order, and stop at a bound") {
    int stopped = 0, large = 0;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        const std::uint32_t top = 1 + static_cast<std::uint32_t>(seed % 5);
        const std::uint64_t bound = seed % 3 == 0 ? 1 + seed % 17 : ~std::uint64_t{0};
        std::vector<std::vector<std::uint32_t>> want;
        std::uint64_t want_merged = 0;
        bool want_stop = false;
        for (std::uint32_t i = 0; i < top; ++i)
            walk({i}, seed, bound, want_merged, want, want_stop);

        using Tree = sfg::engine::TaskTree<Task, std::uint32_t>;
        std::vector<Task> tasks;
        for (std::uint32_t i = 0; i < top; ++i)
            tasks.push_back({{i}});
        Tree tree(std::move(tasks));
        std::vector<std::vector<std::uint32_t>> got;
        std::uint64_t merged = 0;
        const auto commit = [&](Tree::Node& n) {
            got.push_back(n.task.path);
            merged += *n.result;
            return merged < bound;
        };
        std::mt19937_64 rng(seed);
        const std::size_t workers = 1 + seed % 4;
        std::vector<Tree::Node*> running;
        while (!tree.finished()) {
            const bool take = running.size() < workers && tree.any_pending() &&
                              (running.empty() || rng() % 2 == 0);
            if (take) {
                Tree::Node* n = tree.take();
                REQUIRE(n != nullptr);
                running.push_back(n);
                continue;
            }
            REQUIRE(!running.empty());
            const std::size_t i = rng() % running.size();
            Tree::Node* n = running[i];
            running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
            const std::vector<std::uint32_t> path = n->task.path;
            for (std::uint32_t k = 0; k < children(path, seed); ++k) {
                std::vector<std::uint32_t> c = path;
                c.push_back(k);
                tree.hand_on(*n, Task{c});
            }
            tree.done(*n, own(path, seed), commit);
        }
        INFO("seed " << seed);
        CHECK(got == want);
        CHECK(tree.stopped() == want_stop);
        stopped += want_stop;
        large += got.size() > 20;
    }
    CHECK(stopped >= 50);
    CHECK(large >= 50);
}

TEST_CASE("engine task tree: take(before) gives nothing at or after the cut") {
    using Tree = sfg::engine::TaskTree<Task, int>;
    Tree tree({{{0}}, {{1}}, {{2}}});
    const std::vector<std::uint32_t> cut{1};
    Tree::Node* first = tree.take(&cut);
    REQUIRE(first != nullptr);
    CHECK(first->task.path == std::vector<std::uint32_t>{0});
    CHECK(tree.take(&cut) == nullptr);
    CHECK(tree.is_next(*first));
    tree.hand_on(*first, {{0, 0}});
    tree.done(*first, 1, [](Tree::Node&) { return true; });
    Tree::Node* child = tree.take(&cut);
    REQUIRE(child != nullptr);
    CHECK(child->task.path == std::vector<std::uint32_t>{0, 0});
    CHECK(tree.is_next(*child));
}

} // namespace engine_task_tree_test
