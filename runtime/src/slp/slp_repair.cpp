// Re-Pair (Larsson and Moffat, "Off-line dictionary-based compression", Proc. IEEE 2000): while
// some pair of adjacent symbols occurs twice (without overlapping), replace every occurrence of a
// most frequent one, left to right, by a new rule. The sequence is a linked list over an array;
// pair counts live in a hash map and a max-heap whose stale entries are skipped when popped.
#include "sfg/runtime/slp/slp.hpp"

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace sfg {

namespace {
constexpr std::uint32_t nil = ~std::uint32_t{0};

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
    return (std::uint64_t{a} << 32) | b;
}
} // namespace

std::vector<std::vector<SlpSymbol>> repair(const std::vector<std::uint32_t>& input) {
    std::vector<std::vector<SlpSymbol>> out;
    if (input.empty())
        return out;
    const auto n = static_cast<std::uint32_t>(input.size());
    std::vector<std::uint32_t> sym(input), prev(n), next(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        prev[i] = i == 0 ? nil : i - 1;
        next[i] = i + 1 == n ? nil : i + 1;
    }
    std::unordered_map<std::uint64_t, std::uint32_t> count;
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> where;
    std::priority_queue<std::pair<std::uint32_t, std::uint64_t>> heap;
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
        const std::uint64_t k = pair_key(sym[i], sym[i + 1]);
        ++count[k];
        where[k].push_back(i);
    }
    for (const auto& [k, c] : count)
        if (c >= 2)
            heap.emplace(c, k);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rules; // by creation
    auto dec = [&](std::uint64_t k) {
        auto it = count.find(k);
        if (it != count.end() && it->second > 0)
            --it->second;
    };
    auto inc = [&](std::uint64_t k, std::uint32_t at) {
        const std::uint32_t c = ++count[k];
        where[k].push_back(at);
        if (c >= 2)
            heap.emplace(c, k);
    };
    std::vector<std::uint32_t> at;
    while (!heap.empty()) {
        const auto [c, k] = heap.top();
        heap.pop();
        const std::uint32_t now = count[k];
        if (now != c) {
            if (now >= 2 && now < c)
                heap.emplace(now, k);
            continue;
        }
        const auto a = static_cast<std::uint32_t>(k >> 32), b = static_cast<std::uint32_t>(k);
        // The occurrences still there, left to right, not overlapping.
        auto& w = where[k];
        std::sort(w.begin(), w.end());
        w.erase(std::unique(w.begin(), w.end()), w.end());
        at.clear();
        for (std::uint32_t p : w)
            if (sym[p] == a && next[p] != nil && sym[next[p]] == b &&
                (at.empty() || next[at.back()] != p))
                at.push_back(p);
        where.erase(k);
        if (at.size() < 2) {
            count[k] = 0;
            continue;
        }
        const std::uint32_t x = slp_rule_bit | static_cast<std::uint32_t>(rules.size());
        rules.emplace_back(a, b);
        for (std::uint32_t p : at) {
            const std::uint32_t q = next[p];
            if (prev[p] != nil)
                dec(pair_key(sym[prev[p]], a));
            if (next[q] != nil)
                dec(pair_key(b, sym[next[q]]));
            dec(k);
            sym[p] = x;
            next[p] = next[q];
            if (next[q] != nil)
                prev[next[q]] = p;
            sym[q] = nil;
            if (prev[p] != nil)
                inc(pair_key(sym[prev[p]], x), prev[p]);
            if (next[p] != nil)
                inc(pair_key(x, sym[next[p]]), p);
        }
        count[k] = 0;
    }
    // Rule 0 the remaining sequence; created rule i gets number 1 + (m - 1 - i), so that every
    // rule refers only to later ones (a rule refers only to rules created before it).
    const auto m = static_cast<std::uint32_t>(rules.size());
    auto renumber = [&](std::uint32_t s) {
        return slp_is_rule(s) ? slp_rule_bit | (1 + (m - 1 - slp_index(s))) : s;
    };
    out.resize(1 + m);
    for (std::uint32_t i = 0; i != nil; i = next[i])
        out[0].push_back(renumber(sym[i]));
    for (std::uint32_t i = 0; i < m; ++i)
        out[1 + (m - 1 - i)] = {renumber(rules[i].first), renumber(rules[i].second)};
    return out;
}

} // namespace sfg
