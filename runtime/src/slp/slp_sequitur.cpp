// Sequitur (Nevill-Manning and Witten, "Identifying hierarchical structure in sequences", JAIR
// 1997), the compressor of the SLP paper (§2): symbols are appended to the start rule one at a
// time; two invariants are kept, digram uniqueness (no pair of adjacent symbols occurs twice) and
// rule utility (every rule but the start is used at least twice). Follows the authors' reference
// implementation, with nodes in a vector instead of pointers.
#include "sfg/runtime/slp/slp.hpp"

#include <unordered_map>

namespace sfg {

namespace {
constexpr std::uint32_t nil = ~std::uint32_t{0};
constexpr std::uint32_t rule_bit = 0x80000000u;  // a non-terminal: rule_bit | rule
constexpr std::uint32_t guard_bit = 0x40000000u; // the guard node of a rule: guard_bit | rule
} // namespace

struct SequiturBuilder::Impl {
    struct Node {
        std::uint32_t prev = nil, next = nil, value = 0;
    };
    struct Rule {
        std::uint32_t guard = nil, uses = 0;
    };
    std::vector<Node> nodes;
    std::vector<std::uint32_t> free_nodes;
    std::vector<Rule> rules;
    std::vector<std::uint32_t> free_rules;
    std::unordered_map<std::uint64_t, std::uint32_t> digrams;

    Impl() { new_rule(); } // rule 0: the start

    std::uint32_t new_node(std::uint32_t value) {
        std::uint32_t n;
        if (!free_nodes.empty()) {
            n = free_nodes.back();
            free_nodes.pop_back();
            nodes[n] = Node{nil, nil, value};
        } else {
            n = static_cast<std::uint32_t>(nodes.size());
            nodes.push_back(Node{nil, nil, value});
        }
        return n;
    }
    std::uint32_t new_rule() {
        std::uint32_t r;
        if (!free_rules.empty()) {
            r = free_rules.back();
            free_rules.pop_back();
        } else {
            r = static_cast<std::uint32_t>(rules.size());
            rules.emplace_back();
        }
        const std::uint32_t g = new_node(guard_bit | r);
        nodes[g].prev = nodes[g].next = g;
        rules[r] = {g, 0};
        return r;
    }
    bool is_guard(std::uint32_t n) const { return (nodes[n].value & guard_bit) != 0; }
    bool is_nt(std::uint32_t n) const { return (nodes[n].value & rule_bit) != 0; }
    std::uint32_t rule_of(std::uint32_t n) const {
        return nodes[n].value & ~(rule_bit | guard_bit);
    }
    std::uint32_t next(std::uint32_t n) const { return nodes[n].next; }
    std::uint32_t prev(std::uint32_t n) const { return nodes[n].prev; }
    std::uint32_t value(std::uint32_t n) const { return nodes[n].value; }
    std::uint32_t first(std::uint32_t r) const { return next(rules[r].guard); }
    std::uint32_t last(std::uint32_t r) const { return prev(rules[r].guard); }
    std::uint64_t key(std::uint32_t n) const {
        return (std::uint64_t{value(n)} << 32) | value(next(n));
    }

    void delete_digram(std::uint32_t n) {
        if (is_guard(n) || is_guard(next(n)))
            return;
        auto it = digrams.find(key(n));
        if (it != digrams.end() && it->second == n)
            digrams.erase(it);
    }
    void join(std::uint32_t left, std::uint32_t right) {
        if (nodes[left].next != nil) {
            delete_digram(left);
            // Overlapping digrams in runs of three equal symbols (the reference's fix).
            if (prev(right) != nil && next(right) != nil && value(right) == value(prev(right)) &&
                value(right) == value(next(right)))
                digrams[key(right)] = right;
            if (prev(left) != nil && next(left) != nil && value(left) == value(next(left)) &&
                value(left) == value(prev(left)))
                digrams[key(prev(left))] = prev(left);
        }
        nodes[left].next = right;
        nodes[right].prev = left;
    }
    void insert_after(std::uint32_t n, std::uint32_t s) {
        join(s, next(n));
        join(n, s);
    }
    void remove(std::uint32_t n) {
        join(prev(n), next(n));
        if (!is_guard(n)) {
            delete_digram(n);
            if (is_nt(n))
                --rules[rule_of(n)].uses;
        }
        free_nodes.push_back(n);
    }
    std::uint32_t symbol_node(std::uint32_t v) {
        std::uint32_t s = new_node(v);
        if (v & rule_bit)
            ++rules[v & ~rule_bit].uses;
        return s;
    }
    // Digram uniqueness for the digram starting at n: true when it was a repeat (handled).
    bool check(std::uint32_t n) {
        if (is_guard(n) || is_guard(next(n)))
            return false;
        auto [it, inserted] = digrams.try_emplace(key(n), n);
        if (inserted)
            return false;
        const std::uint32_t x = it->second;
        if (x != n && next(x) != n) // next(x) == n: overlapping (aaa), left alone
            match(n, x);
        return true;
    }
    void substitute(std::uint32_t n, std::uint32_t r) {
        const std::uint32_t q = prev(n);
        remove(next(q));
        remove(next(q));
        insert_after(q, symbol_node(rule_bit | r));
        if (!check(q))
            check(next(q));
    }
    void match(std::uint32_t ss, std::uint32_t m) {
        std::uint32_t r;
        if (is_guard(prev(m)) && is_guard(next(next(m)))) {
            r = rule_of(prev(m)); // m's digram is a whole rule: reuse it
            substitute(ss, r);
        } else {
            r = new_rule();
            insert_after(last(r), symbol_node(value(ss)));
            insert_after(last(r), symbol_node(value(next(ss))));
            substitute(m, r);
            substitute(ss, r);
            digrams[key(first(r))] = first(r);
        }
        // Rule utility: a rule now used once is inlined.
        if (is_nt(first(r)) && rules[rule_of(first(r))].uses == 1)
            expand(first(r));
    }
    void expand(std::uint32_t n) {
        const std::uint32_t left = prev(n), right = next(n);
        const std::uint32_t r = rule_of(n);
        const std::uint32_t f = first(r), l = last(r), g = rules[r].guard;
        auto it = digrams.find(key(n));
        if (it != digrams.end() && it->second == n)
            digrams.erase(it);
        join(left, f);
        join(l, right);
        digrams[key(l)] = l;
        free_nodes.push_back(n);
        free_nodes.push_back(g);
        rules[r] = {nil, 0};
        free_rules.push_back(r);
    }
};

SequiturBuilder::SequiturBuilder() : impl_(new Impl) {}
SequiturBuilder::~SequiturBuilder() {
    delete impl_;
}

void SequiturBuilder::add(std::uint32_t terminal) {
    Impl& s = *impl_;
    s.insert_after(s.last(0), s.symbol_node(terminal));
    const std::uint32_t l = s.last(0);
    if (s.prev(l) != s.rules[0].guard)
        s.check(s.prev(l));
}

std::vector<std::vector<SlpSymbol>> SequiturBuilder::finish() {
    Impl& s = *impl_;
    std::vector<std::vector<SlpSymbol>> out;
    if (s.first(0) == s.rules[0].guard)
        return out;
    // Number the rules reachable from the start so that a rule refers only to later ones:
    // reverse post-order of a depth-first search (iterative: grammars can be deep).
    std::vector<std::uint32_t> order, number(s.rules.size(), nil);
    std::vector<char> state(s.rules.size(), 0); // 0 new, 1 open, 2 done
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack{{0, s.first(0)}};
    state[0] = 1;
    while (!stack.empty()) {
        auto& [r, n] = stack.back();
        if (n == s.rules[r].guard) {
            state[r] = 2;
            order.push_back(r);
            stack.pop_back();
            continue;
        }
        const std::uint32_t cur = n;
        n = s.next(n);
        if (s.is_nt(cur)) {
            const std::uint32_t c = s.rule_of(cur);
            if (state[c] == 0) {
                state[c] = 1;
                stack.emplace_back(c, s.first(c));
            }
        }
    }
    for (std::size_t i = order.size(); i-- > 0;)
        number[order[i]] = static_cast<std::uint32_t>(order.size() - 1 - i);
    out.resize(order.size());
    for (std::uint32_t r : order) {
        auto& rule = out[number[r]];
        for (std::uint32_t n = s.first(r); n != s.rules[r].guard; n = s.next(n))
            rule.push_back(s.is_nt(n) ? slp_rule_bit | number[s.rule_of(n)] : s.value(n));
    }
    return out;
}

} // namespace sfg
