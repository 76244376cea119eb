// The binary tree of an SLP (private to the grammar analyses): a node per terminal, then each
// rule cut into a balanced binary tree of its symbols, every node with the summary of its chunk.
// Summaries compose associatively (the SLP paper, §2), so a rule of any length costs its length
// times the log of it, and a descent to an event follows one path.
#pragma once

#include "sfg/runtime/slp/slp.hpp"

#include <cstdint>
#include <vector>

namespace sfg {

// The root of a balanced binary tree over a non-empty right-hand side, pairing neighbours level by
// level (summaries compose associatively): a terminal symbol is its own leaf node, a rule symbol
// the node of[rule]; make(l, r) adds the node of l then r and returns it. `level`: scratch.
template <class Make>
std::uint32_t balanced_tree(const std::vector<SlpSymbol>& symbols,
                            const std::vector<std::uint32_t>& of, std::vector<std::uint32_t>& level,
                            Make make) {
    level.clear();
    for (SlpSymbol s : symbols)
        level.push_back(slp_is_rule(s) ? of[slp_index(s)] : s);
    while (level.size() > 1) {
        std::size_t k = 0;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2)
            level[k++] = make(level[i], level[i + 1]);
        if (level.size() % 2)
            level[k++] = level.back();
        level.resize(k);
    }
    return level[0];
}

template <class Summary>
struct SlpTree {
    static constexpr std::uint32_t no_child = ~0u;
    struct Node {
        std::uint32_t left = no_child, right = no_child;
        std::uint64_t len = 0;
        Summary sum;
    };
    std::vector<Node> nodes;
    std::vector<std::uint32_t> rule_node;

    // leaf(const SlpTerminal&) -> Summary; compose(const Summary& b, const Summary& c) -> Summary;
    // empty() -> Summary (the empty trace).
    template <class Leaf, class Compose, class Empty>
    SlpTree(const Slp& slp, Leaf leaf, Compose compose, Empty empty) {
        nodes.reserve(slp.terminals.size() + slp.size());
        for (const SlpTerminal& t : slp.terminals)
            nodes.push_back({no_child, no_child, 1, leaf(t)});
        rule_node.assign(slp.rules.size(), 0);
        std::vector<std::uint32_t> level;
        for (std::size_t r = slp.rules.size(); r-- > 0;) {
            if (slp.rules[r].empty()) {
                rule_node[r] = static_cast<std::uint32_t>(nodes.size());
                nodes.push_back({no_child, no_child, 0, empty()});
                continue;
            }
            rule_node[r] = balanced_tree(
                slp.rules[r], rule_node, level, [&](std::uint32_t l, std::uint32_t rr) {
                    Summary s = compose(nodes[l].sum, nodes[rr].sum);
                    nodes.push_back({l, rr, nodes[l].len + nodes[rr].len, std::move(s)});
                    return static_cast<std::uint32_t>(nodes.size() - 1);
                });
        }
    }

    std::uint32_t root() const { return rule_node.empty() ? 0 : rule_node[0]; }
    bool is_leaf(std::uint32_t n) const { return nodes[n].left == no_child; }
};

} // namespace sfg
