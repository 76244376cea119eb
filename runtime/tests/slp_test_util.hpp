// SLPs for the tests: from a trace (Sequitur, Re-Pair, or a random grammar that shares equal
// chunks), or written out by hand as in the SLP paper's examples.
#pragma once

#include "random_trace.hpp"
#include "sfg/runtime/slp/slp.hpp"

#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sfg::testing {

// A sink that ignores every event: expansion for its error alone.
class NoSink : public Analysis {
public:
    void on_event(const Event&, const Symbols&) override {}
};

// Swaps, drops or repeats `least` to `least` + 2 terminals of a sequence: most such sequences
// are ill-formed somewhere (the tests of well-formedness on the grammar).
inline void mutate_sequence(std::mt19937_64& rng, std::vector<std::uint32_t>& s, int least = 0) {
    for (int k = least + static_cast<int>(rng() % 3); k > 0 && s.size() > 1; --k) {
        const std::size_t i = rng() % s.size(), j = rng() % s.size();
        switch (rng() % 3) {
        case 0:
            std::swap(s[i], s[j]);
            break;
        case 1:
            s.erase(s.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        default:
            s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), s[j]);
            break;
        }
    }
}

// The terminals and the terminal sequence of a text trace (well-formed, or the test fails).
struct Terminals {
    Slp slp; // terminals and locations only
    std::vector<std::uint32_t> sequence;
};
inline Terminals terminals_of(std::string_view text, Symbols& syms) {
    Terminals out;
    Collector c;
    TraceResult r = read_trace_text(text, "t.std", syms, c);
    if (!r.ok())
        throw std::runtime_error(r.error->to_string());
    for (const Event& e : c.events) {
        if (e.implicit)
            continue;
        const SlpTerminal t{e.thread, e.op, e.target};
        std::uint32_t id = 0;
        while (id < out.slp.terminals.size() && !(out.slp.terminals[id] == t))
            ++id;
        if (id == out.slp.terminals.size())
            out.slp.terminals.push_back(t);
        out.sequence.push_back(id);
        if (e.location != no_object)
            out.slp.locations.emplace_back(e.number, e.location);
    }
    return out;
}

// A random grammar for the sequence: random splits into 1 to 4 parts, equal parts one rule.
inline std::vector<std::vector<SlpSymbol>> random_grammar(const std::vector<std::uint32_t>& seq,
                                                          std::mt19937_64& rng) {
    std::map<std::vector<std::uint32_t>, std::uint32_t> ids; // chunk -> creation index
    std::vector<std::vector<SlpSymbol>> made;                // by creation (children first)
    auto build = [&](auto& self, std::size_t lo, std::size_t hi) -> std::uint32_t {
        std::vector<std::uint32_t> chunk(seq.begin() + static_cast<std::ptrdiff_t>(lo),
                                         seq.begin() + static_cast<std::ptrdiff_t>(hi));
        if (auto it = ids.find(chunk); it != ids.end())
            return it->second;
        std::vector<SlpSymbol> rule;
        const std::size_t n = hi - lo;
        if (n <= 3 && rng() % 2 == 0) {
            rule.assign(chunk.begin(), chunk.end());
        } else {
            std::size_t parts = std::min<std::size_t>(n, 2 + rng() % 3);
            std::vector<std::size_t> cuts{lo, hi};
            while (cuts.size() < parts + 1) {
                std::size_t c = lo + 1 + rng() % (n - 1);
                if (std::find(cuts.begin(), cuts.end(), c) == cuts.end())
                    cuts.push_back(c);
            }
            std::sort(cuts.begin(), cuts.end());
            for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
                if (cuts[i + 1] - cuts[i] == 1 && rng() % 2 == 0)
                    rule.push_back(seq[cuts[i]]);
                else
                    rule.push_back(slp_rule_bit | self(self, cuts[i], cuts[i + 1]));
            }
        }
        made.push_back(std::move(rule));
        const auto id = static_cast<std::uint32_t>(made.size() - 1);
        ids.emplace(std::move(chunk), id);
        return id;
    };
    if (seq.empty())
        return {{}};
    const std::uint32_t top = build(build, 0, seq.size());
    // Number so that rules refer to later rules: creation index i -> top - i.
    std::vector<std::vector<SlpSymbol>> out(top + 1);
    for (std::uint32_t i = 0; i <= top; ++i) {
        for (SlpSymbol& s : made[i])
            if (slp_is_rule(s))
                s = slp_rule_bit | (top - slp_index(s));
        out[top - i] = made[i];
    }
    return out;
}

// The grammars the property tests compare: 0 Sequitur, 1 Re-Pair, 2 random_grammar; an SLP of
// `terminals` generating `seq`, its lengths computed (an empty sequence gets one empty rule).
inline Slp grammar_by(int kind, const Slp& terminals, const std::vector<std::uint32_t>& seq,
                      std::mt19937_64& rng) {
    Slp slp = terminals;
    if (kind == 0) {
        SequiturBuilder b;
        for (auto x : seq)
            b.add(x);
        slp.rules = b.finish();
    } else if (kind == 1) {
        slp.rules = repair(seq);
    } else {
        slp.rules = random_grammar(seq, rng);
    }
    if (slp.rules.empty())
        slp.rules.emplace_back();
    if (auto e = slp.compute_lengths())
        throw std::runtime_error(*e);
    return slp;
}

// The rules of a hand-written SLP in depth-first post-order from the start (hand_slp numbers
// them in the reverse of it).
inline std::vector<std::size_t>
hand_post_order(const std::vector<std::pair<std::string, std::vector<std::string>>>& rules,
                const std::map<std::string, std::size_t>& index) {
    std::vector<int> state(rules.size(), 0);
    std::vector<std::size_t> post;
    auto dfs = [&](auto& self, std::size_t r) -> void {
        state[r] = 1;
        for (const auto& s : rules[r].second)
            if (auto it = index.find(s); it != index.end() && state[it->second] == 0)
                self(self, it->second);
        post.push_back(r);
    };
    dfs(dfs, 0);
    return post;
}

// A hand-written SLP: rules by name, the first the start; a symbol is a rule's name or an
// event `THREAD|OP`.
using Rules = std::vector<std::pair<std::string, std::vector<std::string>>>;

// The SLP paper's sigma1 (test vector TV1): a race between e10 and e13 on y.
inline const Rules& tv1_rules() {
    static const Rules rules{
        {"S", {"A", "B"}},
        {"A", {"C", "D"}},
        {"C", {"E", "F"}},
        {"B", {"F", "G"}},
        {"E", {"1|w(x)", "1|fork(2)"}},
        {"F", {"2|r(x)", "2|acq(l)", "2|w(y)", "2|rel(l)"}},
        {"D", {"1|r(x)", "1|acq(l)", "1|rel(l)", "1|w(y)"}},
        {"G", {"1|join(2)", "1|w(y)"}},
    };
    return rules;
}

// The SLP paper's sigma2 (test vector TV2): no race; open acquires and releases.
inline const Rules& tv2_rules() {
    static const Rules rules{
        {"S", {"U", "V"}},
        {"U", {"W", "X"}},
        {"V", {"Y", "Z"}},
        {"W", {"1|r(x)", "1|acq(l)"}},
        {"X", {"1|w(y)", "1|rel(l)", "2|acq(l)"}},
        {"Y", {"2|r(x)", "2|w(y)"}},
        {"Z", {"2|rel(l)", "2|r(x)", "1|w(z)"}},
    };
    return rules;
}

// An SLP written by hand: rules by name, the first the start; a symbol is a rule's name or an
// event `THREAD|OP`.
inline Slp hand_slp(const std::vector<std::pair<std::string, std::vector<std::string>>>& rules,
                    Symbols& syms) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < rules.size(); ++i)
        index[rules[i].first] = i;
    std::string events;
    for (const auto& r : rules)
        for (const auto& s : r.second)
            if (!index.count(s))
                events += s + "\n";
    // Terminals by reading the events as a trace without checks: intern by hand.
    Slp slp;
    std::map<std::string, std::uint32_t> term;
    auto terminal = [&](const std::string& s) {
        if (auto it = term.find(s); it != term.end())
            return it->second;
        const auto bar = s.find('|');
        const auto paren = s.find('(', bar);
        SlpTerminal t;
        t.thread = syms.threads.intern(s.substr(0, bar));
        const std::string op =
            s.substr(bar + 1, paren == std::string::npos ? std::string::npos : paren - bar - 1);
        t.op = *op_from_spelling(op);
        const OpInfo& info = op_info(t.op);
        if (info.operand == Operand::name) {
            t.target = syms.names(info.space).intern(s.substr(paren + 1, s.size() - paren - 2));
        } else if (info.operand == Operand::thread_set) {
            std::vector<ThreadId> set;
            std::string arg = s.substr(paren + 1, s.size() - paren - 2) + ",";
            for (std::size_t p = 0, c; (c = arg.find(',', p)) != std::string::npos; p = c + 1)
                set.push_back(syms.threads.intern(arg.substr(p, c - p)));
            std::sort(set.begin(), set.end());
            t.target = static_cast<ObjId>(syms.thread_sets.size());
            syms.thread_sets.push_back(set);
        } else if (info.operand == Operand::queue_item) { // enq(q,o)
            const std::string arg = s.substr(paren + 1, s.size() - paren - 2);
            const auto comma = arg.find(',');
            t.target = syms.queue_items.intern(syms.queues.intern(arg.substr(0, comma)),
                                               syms.vars.intern(arg.substr(comma + 1)));
        }
        slp.terminals.push_back(t);
        return term[s] = static_cast<std::uint32_t>(slp.terminals.size() - 1);
    };
    // Order: depth-first post-order from the start, reversed.
    const std::vector<std::size_t> post = hand_post_order(rules, index);
    std::vector<std::uint32_t> number(rules.size());
    for (std::size_t i = 0; i < post.size(); ++i)
        number[post[i]] = static_cast<std::uint32_t>(post.size() - 1 - i);
    slp.rules.resize(post.size());
    for (std::size_t r : post)
        for (const auto& s : rules[r].second) {
            auto it = index.find(s);
            slp.rules[number[r]].push_back(it != index.end() ? slp_rule_bit | number[it->second]
                                                             : terminal(s));
        }
    if (auto e = slp.compute_lengths())
        throw std::runtime_error(*e);
    return slp;
}

// The rule number hand_slp gave the rule named `name`.
inline std::uint32_t
hand_rule(const std::vector<std::pair<std::string, std::vector<std::string>>>& rules,
          const std::string& name) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < rules.size(); ++i)
        index[rules[i].first] = i;
    const std::vector<std::size_t> post = hand_post_order(rules, index);
    for (std::size_t i = 0; i < post.size(); ++i)
        if (rules[post[i]].first == name)
            return static_cast<std::uint32_t>(post.size() - 1 - i);
    return ~0u;
}

// Well-formedness of three grammars of `s` (grammar_by, each its own draw of rng), decided on
// the grammar (check_slp_well_formed) and by expanding it: per grammar, both errors' texts
// (empty: well-formed).
struct WellFormedBothWays {
    std::optional<std::string> on_grammar, expanded;
};
inline std::vector<WellFormedBothWays> well_formed_both_ways(const Slp& terminals,
                                                             const std::vector<std::uint32_t>& s,
                                                             Symbols& syms, std::mt19937_64& rng) {
    std::vector<WellFormedBothWays> out;
    for (int g = 0; g < 3; ++g) {
        const Slp slp = grammar_by(g, terminals, s, rng);
        NoSink none;
        WellFormedBothWays r;
        if (const TraceResult want = expand_slp(slp, "t.slp", syms, none); want.error)
            r.expanded = want.error->to_string();
        if (const auto got = check_slp_well_formed(slp, "t.slp", syms))
            r.on_grammar = got->to_string();
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace sfg::testing
