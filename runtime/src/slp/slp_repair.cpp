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

class RePair {
public:
    explicit RePair(const std::vector<std::uint32_t>& input)
        : n_(static_cast<std::uint32_t>(input.size())), sym_(input), prev_(n_), next_(n_) {
        for (std::uint32_t i = 0; i < n_; ++i) {
            prev_[i] = i == 0 ? nil : i - 1;
            next_[i] = i + 1 == n_ ? nil : i + 1;
        }
        for (std::uint32_t i = 0; i + 1 < n_; ++i) {
            const std::uint64_t k = pair_key(sym_[i], sym_[i + 1]);
            ++count_[k];
            where_[k].push_back(i);
        }
        for (const auto& [k, c] : count_)
            if (c >= 2)
                heap_.emplace(c, k);
    }

    // Replaces most frequent pairs while one occurs twice.
    void run() {
        while (!heap_.empty()) {
            const auto [c, k] = heap_.top();
            heap_.pop();
            const std::uint32_t now = count_[k];
            if (now != c) {
                if (now >= 2 && now < c)
                    heap_.emplace(now, k);
                continue;
            }
            occurrences(k);
            if (at_.size() >= 2)
                replace(k);
            count_[k] = 0;
        }
    }

    // Rule 0 the remaining sequence; created rule i gets number 1 + (m - 1 - i), so that every
    // rule refers only to later ones (a rule refers only to rules created before it).
    std::vector<std::vector<SlpSymbol>> grammar() const {
        const auto m = static_cast<std::uint32_t>(rules_.size());
        auto renumber = [&](std::uint32_t s) {
            return slp_is_rule(s) ? slp_rule_bit | (1 + (m - 1 - slp_index(s))) : s;
        };
        std::vector<std::vector<SlpSymbol>> out(1 + m);
        for (std::uint32_t i = 0; i != nil; i = next_[i])
            out[0].push_back(renumber(sym_[i]));
        for (std::uint32_t i = 0; i < m; ++i)
            out[1 + (m - 1 - i)] = {renumber(rules_[i].first), renumber(rules_[i].second)};
        return out;
    }

private:
    // The occurrences of pair k still there, left to right, not overlapping, into at_.
    void occurrences(std::uint64_t k) {
        const auto a = static_cast<std::uint32_t>(k >> 32), b = static_cast<std::uint32_t>(k);
        auto& w = where_[k];
        std::sort(w.begin(), w.end());
        w.erase(std::unique(w.begin(), w.end()), w.end());
        at_.clear();
        for (std::uint32_t p : w)
            if (sym_[p] == a && next_[p] != nil && sym_[next_[p]] == b &&
                (at_.empty() || next_[at_.back()] != p))
                at_.push_back(p);
        where_.erase(k);
    }

    // A new rule for pair k, in place of its occurrences at_, and the counts of the pairs
    // around them.
    void replace(std::uint64_t k) {
        const auto a = static_cast<std::uint32_t>(k >> 32), b = static_cast<std::uint32_t>(k);
        const std::uint32_t x = slp_rule_bit | static_cast<std::uint32_t>(rules_.size());
        rules_.emplace_back(a, b);
        for (std::uint32_t p : at_) {
            const std::uint32_t q = next_[p];
            if (prev_[p] != nil)
                dec(pair_key(sym_[prev_[p]], a));
            if (next_[q] != nil)
                dec(pair_key(b, sym_[next_[q]]));
            dec(k);
            sym_[p] = x;
            next_[p] = next_[q];
            if (next_[q] != nil)
                prev_[next_[q]] = p;
            sym_[q] = nil;
            if (prev_[p] != nil)
                inc(pair_key(sym_[prev_[p]], x), prev_[p]);
            if (next_[p] != nil)
                inc(pair_key(x, sym_[next_[p]]), p);
        }
    }

    void dec(std::uint64_t k) {
        auto it = count_.find(k);
        if (it != count_.end() && it->second > 0)
            --it->second;
    }
    void inc(std::uint64_t k, std::uint32_t at) {
        const std::uint32_t c = ++count_[k];
        where_[k].push_back(at);
        if (c >= 2)
            heap_.emplace(c, k);
    }

    std::uint32_t n_;
    std::vector<std::uint32_t> sym_, prev_, next_;
    std::unordered_map<std::uint64_t, std::uint32_t> count_;
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> where_;
    std::priority_queue<std::pair<std::uint32_t, std::uint64_t>> heap_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> rules_; // by creation
    std::vector<std::uint32_t> at_;
};

} // namespace

std::vector<std::vector<SlpSymbol>> repair(const std::vector<std::uint32_t>& input) {
    if (input.empty())
        return {};
    RePair r(input);
    r.run();
    return r.grammar();
}

} // namespace sfg
