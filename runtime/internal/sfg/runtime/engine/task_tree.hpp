// The task tree of an exploration, shared by sfg::explore and the model checker
// (docs/explore.md, "More than one process"; docs/programs.md, "More than one core"). A task is a
// subtree of the search: what reaches its root, and what the mode keeps there. Whoever explores
// a task hands on, every budget of executions, the alternatives left at the shallowest node of
// its depth-first stack as child tasks, and goes on below that node. The tree depends on the
// tasks alone, so its canonical order — a task's own executions, then its children's subtrees in
// the order they were handed on; its task paths in lexicographic order — is the same whoever
// explores which task when, and so is a report merged in that order. TaskTree keeps the tasks
// not yet taken (the first in canonical order first) and merges the results of the tasks done in
// canonical order, each as soon as every task before it is merged. It knows no system and no
// thread: its user locks it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

namespace sfg::engine {

// Task: has `std::vector<std::uint32_t> path`, its place in the tree (a top task {i}, the k-th
// child of task p p + {k}). Result: what exploring it gave.
template <class Task, class Result>
class TaskTree {
public:
    enum class Status : std::uint8_t { pending, running, done };
    struct Node {
        Task task;
        Status status = Status::pending;
        std::optional<Result> result;
        std::vector<std::unique_ptr<Node>> children; // in the order handed on
    };

    explicit TaskTree(std::vector<Task> top) {
        for (Task& t : top)
            push(root_, std::move(t));
        root_.status = Status::done;
        cursor_.push_back({&root_, 0});
        advance([](Node&) { return true; });
    }

    // The first task not yet taken in canonical order, now running; none when there is none (or
    // the first one is not before `before`).
    Node* take(const std::vector<std::uint32_t>* before = nullptr) {
        if (stopped_ || queue_.empty() || (before && !(queue_.top()->task.path < *before)))
            return nullptr;
        Node* n = queue_.top();
        queue_.pop();
        n->status = Status::running;
        return n;
    }

    // A child task that `parent`'s explorer handed on (its path: parent's and its number).
    Node& hand_on(Node& parent, Task child) { return push(parent, std::move(child)); }

    // Whether `n` is the next task to merge: every execution before it in canonical order is
    // merged (so a bound can cut it exactly).
    bool is_next(const Node& n) const { return next() == &n; }

    // n's result. Then merges the tasks done in canonical order up to the first one not done,
    // `commit(node)` each; once a commit returns false (a bound reached, the search stopped) the
    // merge ends for good and stopped() holds.
    template <class Commit>
    void done(Node& n, Result r, Commit&& commit) {
        n.result = std::move(r);
        n.status = Status::done;
        advance(commit);
    }

    bool stopped() const { return stopped_; }
    // Every task merged, or the merge stopped.
    bool finished() const { return stopped_ || cursor_.empty(); }
    bool any_pending() const { return !stopped_ && !queue_.empty(); }

private:
    struct Later { // the queue's order: canonical, the first on top
        bool operator()(const Node* a, const Node* b) const { return b->task.path < a->task.path; }
    };

    Node& push(Node& parent, Task t) {
        parent.children.push_back(std::make_unique<Node>());
        Node& c = *parent.children.back();
        c.task = std::move(t);
        if (!stopped_)
            queue_.push(&c);
        return c;
    }

    const Node* next() const {
        if (cursor_.empty())
            return nullptr;
        const auto& [n, i] = cursor_.back();
        return i < n->children.size() ? n->children[i].get() : nullptr;
    }

    // Pre-order: a task, then its children's subtrees. A merged task's result and task are
    // dropped (its children keep their own).
    template <class Commit>
    void advance(Commit&& commit) {
        while (!stopped_ && !cursor_.empty()) {
            auto& [n, i] = cursor_.back();
            if (i == n->children.size()) {
                n->children.clear();
                cursor_.pop_back();
                continue;
            }
            Node* c = n->children[i].get();
            if (c->status != Status::done)
                return;
            if (!commit(*c)) {
                stopped_ = true;
                queue_ = {};
                return;
            }
            c->result.reset();
            c->task = Task();
            ++i;
            cursor_.push_back({c, 0});
        }
    }

    Node root_;
    std::priority_queue<Node*, std::vector<Node*>, Later> queue_;
    std::vector<std::pair<Node*, std::size_t>> cursor_;
    bool stopped_ = false;
};

// The top tasks dealt to n parts of a search (for machines of their own: `sfgc check --shard`,
// explore's `shard`): each task's part, 1..n, by its estimated size `weights[i]`, the largest
// first to the part with the least so far (ties: the earlier task, the lower part; a task
// estimated 0 still counts 1).
inline std::vector<std::uint32_t> deal_to_parts(const std::vector<std::uint64_t>& weights,
                                                std::uint32_t n) {
    std::vector<std::uint32_t> part(weights.size(), 1);
    if (n <= 1)
        return part;
    std::vector<std::size_t> order(weights.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
    const auto add = [](std::uint64_t a, std::uint64_t b) {
        return a + b < a ? std::numeric_limits<std::uint64_t>::max() : a + b;
    };
    std::vector<std::uint64_t> load(n, 0);
    for (std::size_t i : order) {
        const auto s =
            static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[s] = add(load[s], add(weights[i], 1));
        part[i] = s + 1;
    }
    return part;
}

} // namespace sfg::engine
