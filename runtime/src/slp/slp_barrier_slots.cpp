#include "slp_barrier_slots.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace sfg::slp_detail {

namespace {

// benter or bexit: an op of the barrier mechanism (op.hpp's table).
bool is_barrier(Op op) {
    return op_info(op).mech == MechKind::barrier;
}

// The barriers between two events: each one's open generation and the threads that wait in it.
struct State {
    struct Pending {
        ObjId barrier = no_object;
        std::uint32_t slot = 0;
    };
    using Waiting = std::vector<std::pair<ThreadId, std::uint32_t>>; // (thread, slot) by thread

    std::vector<std::uint32_t> open; // by barrier: slot + 1 of its open generation, 0 for none
    std::vector<Waiting> waiting;    // by barrier
    std::vector<Pending> pending;    // by thread

    void leave(ThreadId t) {
        Pending& p = pending[t];
        if (p.barrier == no_object)
            return;
        Waiting& w = waiting[p.barrier];
        if (auto it = std::lower_bound(w.begin(), w.end(), std::pair{t, std::uint32_t{0}});
            it != w.end() && it->first == t)
            w.erase(it);
        p = {};
    }
    void wait(ThreadId t, ObjId b, std::uint32_t slot) {
        leave(t);
        Waiting& w = waiting[b];
        w.insert(std::lower_bound(w.begin(), w.end(), std::pair{t, std::uint32_t{0}}), {t, slot});
        pending[t] = {b, slot};
    }
    // The lowest slot of b that no generation holds (b has no open generation).
    std::uint32_t free_slot(ObjId b) const {
        std::vector<std::uint32_t> used;
        for (const auto& [t, s] : waiting[b])
            used.push_back(s);
        std::sort(used.begin(), used.end());
        std::uint32_t s = 0;
        for (std::uint32_t u : used)
            if (u == s)
                ++s;
            else if (u > s)
                break;
        return s;
    }
};

// The barriers a rule's chunk touches, and the threads that arrive at one there.
struct RuleFacts {
    std::vector<ObjId> barriers;
    std::vector<ThreadId> arrivals;
};

template <class T>
void unite(std::vector<T>& into, const std::vector<T>& from) {
    if (from.empty())
        return;
    std::vector<T> out;
    out.reserve(into.size() + from.size());
    std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
    into.swap(out);
}

using Key = std::vector<std::uint32_t>;
struct KeyHash {
    std::size_t operator()(const Key& k) const {
        std::uint64_t h = 0x9E3779B97F4A7C15ull;
        for (std::uint32_t x : k)
            h = (h ^ x) * 0x100000001B3ull;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }
};

class Labeller {
public:
    Labeller(const Slp& slp, const Symbols& syms) : slp_(slp) {
        out_.slots.assign(syms.barriers.size(), 0);
        state_.open.assign(syms.barriers.size(), 0);
        state_.waiting.resize(syms.barriers.size());
        state_.pending.resize(syms.threads.size());
        facts();
    }

    BarrierSlots run() {
        out_.rule_chunk.assign(slp_.rules.size(), BarrierSlots::none_chunk);
        if (slp_.rules.empty())
            return std::move(out_);
        stack_.push_back({0, 0, key(0), {}});
        while (!stack_.empty()) {
            Frame& f = stack_.back();
            const std::vector<SlpSymbol>& rule = slp_.rules[f.rule];
            if (f.pos == rule.size()) {
                finish();
                continue;
            }
            const SlpSymbol s = rule[f.pos++];
            if (!slp_is_rule(s)) {
                f.symbols.push_back(terminal(s));
                continue;
            }
            const std::uint32_t r = slp_index(s);
            Key k = key(r);
            if (auto it = memo_.find(k); it != memo_.end()) {
                apply(r, it->second.delta);
                f.symbols.push_back(slp_rule_bit | it->second.chunk);
            } else {
                stack_.push_back({r, 0, std::move(k), {}}); // f is invalid from here
            }
        }
        return std::move(out_);
    }

private:
    struct Frame {
        std::uint32_t rule;
        std::size_t pos;
        Key key;
        std::vector<SlpSymbol> symbols;
    };
    struct Memo {
        std::uint32_t chunk;
        Key delta; // the touched barriers' state after the chunk, laid out as a key
    };

    void facts() {
        facts_.resize(slp_.rules.size());
        for (std::size_t r = slp_.rules.size(); r-- > 0;) { // rules refer to later rules
            RuleFacts& f = facts_[r];
            for (SlpSymbol s : slp_.rules[r]) {
                if (slp_is_rule(s)) {
                    unite(f.barriers, facts_[slp_index(s)].barriers);
                    unite(f.arrivals, facts_[slp_index(s)].arrivals);
                    continue;
                }
                const SlpTerminal& e = slp_.terminals[s];
                if (!is_barrier(e.op))
                    continue;
                unite(f.barriers, {e.target});
                if (e.op == Op::barrier_enter)
                    unite(f.arrivals, {e.thread});
            }
        }
    }

    // The rule and the state of the barriers it touches: what its labels depend on.
    Key key(std::uint32_t r) const {
        Key k{r};
        append_state(r, k);
        return k;
    }
    void append_state(std::uint32_t r, Key& k) const {
        for (ObjId b : facts_[r].barriers) {
            k.push_back(state_.open[b]);
            k.push_back(static_cast<std::uint32_t>(state_.waiting[b].size()));
            for (const auto& [t, s] : state_.waiting[b]) {
                k.push_back(t);
                k.push_back(s);
            }
        }
    }

    // The state after a chunk of r met before, from the state before it: r's arrivals leave the
    // barriers r does not touch, the barriers r touches take their state after the chunk.
    void apply(std::uint32_t r, const Key& delta) {
        const RuleFacts& f = facts_[r];
        for (ThreadId t : f.arrivals) {
            const ObjId b = state_.pending[t].barrier;
            if (b != no_object && !std::binary_search(f.barriers.begin(), f.barriers.end(), b))
                state_.leave(t);
        }
        for (ObjId b : f.barriers) {
            for (const auto& w : state_.waiting[b])
                state_.pending[w.first] = {};
            state_.waiting[b].clear();
        }
        std::size_t i = 0;
        for (ObjId b : f.barriers) {
            state_.open[b] = delta[i++];
            const std::uint32_t n = delta[i++];
            for (std::uint32_t k = 0; k < n; ++k, i += 2)
                state_.wait(delta[i], b, delta[i + 1]);
        }
    }

    void finish() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        const auto chunk = static_cast<std::uint32_t>(out_.chunks.size());
        out_.chunks.push_back({f.rule, std::move(f.symbols)});
        if (out_.rule_chunk[f.rule] == BarrierSlots::none_chunk)
            out_.rule_chunk[f.rule] = chunk;
        Key delta;
        append_state(f.rule, delta);
        memo_.emplace(std::move(f.key), Memo{chunk, std::move(delta)});
        if (!stack_.empty())
            stack_.back().symbols.push_back(slp_rule_bit | chunk);
    }

    // A terminal's symbol in its chunk: a barrier event labelled with its generation's slot.
    SlpSymbol terminal(SlpSymbol s) {
        const SlpTerminal& e = slp_.terminals[s];
        if (!is_barrier(e.op))
            return s;
        const ThreadId t = e.thread;
        const ObjId b = e.target;
        BarrierSlots::Leaf leaf{s, 0, false};
        if (e.op == Op::barrier_enter) {
            state_.leave(t); // arriving again gives up an earlier arrival's wait
            if (state_.open[b] == 0) {
                state_.open[b] = state_.free_slot(b) + 1;
                leaf.kill = true;
                out_.slots[b] = std::max(out_.slots[b], state_.open[b]);
            }
            leaf.slot = state_.open[b] - 1;
            state_.wait(t, b, leaf.slot);
        } else {
            // A well-formed bexit follows its thread's benter of b (check_slp_well_formed).
            leaf.slot = state_.pending[t].barrier == b ? state_.pending[t].slot : 0;
            state_.leave(t);
            if (state_.open[b] == leaf.slot + 1) // the first departure closes the generation
                state_.open[b] = 0;
        }
        const std::uint64_t id = (std::uint64_t{s} << 33) | (std::uint64_t{leaf.slot} << 1) |
                                 static_cast<std::uint64_t>(leaf.kill);
        auto [it, fresh] = leaves_.try_emplace(id, static_cast<std::uint32_t>(out_.leaves.size()));
        if (fresh)
            out_.leaves.push_back(leaf);
        return static_cast<SlpSymbol>(slp_.terminals.size() + it->second);
    }

    const Slp& slp_;
    BarrierSlots out_;
    State state_;
    std::vector<RuleFacts> facts_;
    std::vector<Frame> stack_;
    std::unordered_map<Key, Memo, KeyHash> memo_;
    std::unordered_map<std::uint64_t, std::uint32_t> leaves_;
};

} // namespace

bool has_barriers(const Slp& slp) {
    return std::any_of(slp.terminals.begin(), slp.terminals.end(),
                       [](const SlpTerminal& e) { return is_barrier(e.op); });
}

BarrierSlots label_barrier_slots(const Slp& slp, const Symbols& syms) {
    BarrierSlots out = Labeller(slp, syms).run();
    for (std::uint32_t& n : out.slots) // every barrier event has a slot, even in a grammar that
        n = std::max(n, 1u);           // is not well-formed
    return out;
}

} // namespace sfg::slp_detail
