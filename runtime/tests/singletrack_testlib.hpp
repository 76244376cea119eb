// For the singletrack tests: traces in the notation of SingleTrack's examples (docs/determinism.md,
// "Test vectors"), the analysis run over a trace, and the definitions of conflict freedom and
// external serializability evaluated by brute force (every pair, transitive closures, strongly
// connected components), to compare the analysis with.
#pragma once

#include "random_trace.hpp"
#include "sfg/runtime/determinism/analysis_singletrack.hpp"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace sfg::testing {

// `t:op(args)` tokens, ops rd wr acq rel begin end fork join stop and bar(p,q,...) (all the listed
// threads pass barrier B: each enters, then each exits); PART stands for
// 0:rd(a0) 0:wr(a0) ... 0:rd(a4) 0:wr(a4). Thread t is `Tt`; a `stop` is left out (a thread ends
// when joined). `event_of[i]` is the trace event of token i (0 when it makes none; a bar: its
// first exit).
struct Notation {
    std::string trace;
    std::vector<std::uint64_t> event_of;
};

inline Notation from_notation(std::string text) {
    std::string part;
    for (int i = 0; i < 5; ++i)
        part += " 0:rd(a" + std::to_string(i) + ") 0:wr(a" + std::to_string(i) + ")";
    for (std::size_t p; (p = text.find("PART")) != std::string::npos;)
        text.replace(p, 4, part.substr(1));
    Notation n;
    std::istringstream in(text);
    std::uint64_t events = 0;
    auto threads = [](const std::string& args) {
        std::string s;
        std::istringstream a(args);
        for (std::string t; std::getline(a, t, ',');)
            s += (s.empty() ? "T" : ",T") + t;
        return s;
    };
    for (std::string tok; in >> tok;) {
        const std::size_t colon = tok.find(':');
        const std::string t = "T" + tok.substr(0, colon);
        std::string op = tok.substr(colon + 1), args;
        if (std::size_t paren = op.find('('); paren != std::string::npos) {
            args = op.substr(paren + 1, op.size() - paren - 2);
            op = op.substr(0, paren);
        }
        if (op == "stop") {
            n.event_of.push_back(0);
        } else if (op == "bar") {
            std::vector<std::string> ps;
            std::istringstream a(args);
            for (std::string p; std::getline(a, p, ',');)
                ps.push_back("T" + p);
            for (const std::string& p : ps)
                n.trace += p + "|benter(B)\n", ++events;
            n.event_of.push_back(events + 1);
            for (const std::string& p : ps)
                n.trace += p + "|bexit(B)\n", ++events;
        } else {
            const std::string spelled = op == "rd" ? "r" : op == "wr" ? "w" : op;
            std::string line = t + "|" + spelled;
            if (op == "fork" || op == "join")
                line += "(" + threads(args) + ")";
            else if (!args.empty())
                line += "(" + args + ")";
            n.trace += line + "\n";
            n.event_of.push_back(++events);
        }
    }
    return n;
}

struct SingleTrackRun {
    Symbols syms;
    Collector events;
    SingleTrackDetector st;
    TraceResult result;
    explicit SingleTrackRun(std::string_view text) {
        Fanout all;
        all.add(events), all.add(st);
        result = read_trace_text(text, "t.std", syms, all);
    }
    std::vector<const Finding*> of(FindingKind k) const {
        std::vector<const Finding*> out;
        for (const Finding& f : st.findings())
            if (f.kind == k)
                out.push_back(&f);
        return out;
    }
};

// The definitions (docs/determinism.md) over the explicit events of a well-formed trace.
class DeterminismOracle {
public:
    static constexpr std::size_t max_events = 256;

    DeterminismOracle(const std::vector<Event>& ev, const Symbols& syms)
        : ev_(ev), syms_(syms), txn_(ev.size()), generation_(barrier_generations(ev)),
          fj_(ev.size()) {
        transactions();
        order();
    }

    // The transaction of event i: its block's `begin` event, or 0 (a unary transaction).
    std::uint64_t block(std::size_t i) const { return txn_[i]; }
    // The node of event i in the transactional graph: its block, or itself.
    std::uint64_t node(std::size_t i) const { return txn_[i] ? txn_[i] : ev_[i].number; }

    // Two events conflict by communication or lock (CF's pairs).
    bool data_conflict(std::size_t i, std::size_t j) const {
        const Event &a = ev_[i], &b = ev_[j];
        const OpInfo &x = op_info(a.op), &y = op_info(b.op);
        if (x.operand != Operand::name || y.operand != Operand::name || x.space != y.space ||
            a.target != b.target)
            return false;
        if (x.space == Namespace::variable || x.space == Namespace::volatile_)
            return x.writes || y.writes;
        return x.space == Namespace::lock;
    }
    // i before j by program order, fork, join and barriers.
    bool fj(std::size_t i, std::size_t j) const { return fj_[j].test(i); }

    // CF: block -> (first conflicting event, every valid earlier event).
    std::map<std::uint64_t, std::pair<std::uint64_t, std::set<std::uint64_t>>> conflicts() const {
        std::map<std::uint64_t, std::pair<std::uint64_t, std::set<std::uint64_t>>> out;
        for (std::size_t j = 0; j < ev_.size(); ++j) {
            const std::uint64_t b = txn_[j];
            if (!b || out.count(b))
                continue;
            std::set<std::uint64_t> with;
            for (std::size_t i = 0; i < j; ++i)
                if (txn_[i] == b && data_conflict(i, j) && !fj(i, j))
                    with.insert(ev_[i].number);
            if (!with.empty())
                out.emplace(b, std::make_pair(ev_[j].number, std::move(with)));
        }
        return out;
    }

    // Two events conflict (SingleTrack §2, with barriers and set forks/joins).
    bool conflict(std::size_t i, std::size_t j) const {
        const Event &a = ev_[i], &b = ev_[j];
        auto in = [&](const Event& e, ThreadId u) {
            const auto& s = syms_.thread_sets[e.target];
            return std::find(s.begin(), s.end(), u) != s.end();
        };
        if (a.thread == b.thread || data_conflict(i, j))
            return true;
        if (a.op == Op::fork && in(a, b.thread))
            return true;
        if (b.op == Op::join && in(b, a.thread))
            return true;
        if (a.op == Op::fork && b.op == Op::join)
            for (ThreadId u : syms_.thread_sets[a.target])
                if (in(b, u))
                    return true;
        return a.op == Op::barrier_enter && b.op == Op::barrier_exit &&
               generation_[i] == generation_[j];
    }

    // XS: the events at which some block is on a cycle of the transactional happens-before
    // graph for the first time, each with the reachability of that prefix's graph.
    struct CycleEvent {
        std::uint64_t event;
        std::set<std::uint64_t> new_blocks;
        std::map<std::uint64_t, std::set<std::uint64_t>> reach; // node -> nodes it reaches
    };
    std::vector<CycleEvent> cycles() const {
        std::vector<CycleEvent> out;
        std::map<std::uint64_t, std::set<std::uint64_t>> succ;
        std::set<std::uint64_t> cycled;
        for (std::size_t j = 0; j < ev_.size(); ++j) {
            for (std::size_t i = 0; i < j; ++i)
                if (node(i) != node(j) && conflict(i, j))
                    succ[node(i)].insert(node(j));
            // Reachability by search from every node (small graphs).
            std::map<std::uint64_t, std::set<std::uint64_t>> reach;
            for (const auto& kv : succ) {
                std::set<std::uint64_t>& r = reach[kv.first];
                std::vector<std::uint64_t> stack(kv.second.begin(), kv.second.end());
                while (!stack.empty()) {
                    const std::uint64_t n = stack.back();
                    stack.pop_back();
                    if (!r.insert(n).second)
                        continue;
                    if (auto it = succ.find(n); it != succ.end())
                        stack.insert(stack.end(), it->second.begin(), it->second.end());
                }
            }
            std::set<std::uint64_t> fresh;
            for (const auto& kv : reach)
                if (kv.second.count(kv.first) && is_block(kv.first) && !cycled.count(kv.first))
                    fresh.insert(kv.first);
            if (!fresh.empty()) {
                cycled.insert(fresh.begin(), fresh.end());
                out.push_back({ev_[j].number, fresh, reach});
            }
        }
        return out;
    }

    bool is_block(std::uint64_t node) const {
        return std::find(txn_.begin(), txn_.end(), node) != txn_.end();
    }

private:
    // Blocks: `begin`..`end` of a thread plus every event of the threads forked inside,
    // recursively; a block begun by a thread already in one is part of it (flattened).
    void transactions() {
        std::map<ThreadId, std::uint64_t> in;
        std::map<ThreadId, int> flattened; // 1: its own begin is open inside `in`
        for (std::size_t i = 0; i < ev_.size(); ++i) {
            const Event& e = ev_[i];
            const ThreadId t = e.thread;
            if (e.op == Op::begin && !in[t]) {
                in[t] = e.number;
                flattened[t] = 0;
            } else if (e.op == Op::begin) {
                flattened[t] = 1;
            }
            txn_[i] = in[t];
            if (e.op == Op::end) {
                if (flattened[t])
                    flattened[t] = 0;
                else
                    in[t] = 0;
            }
            if (e.op == Op::fork)
                for (ThreadId u : syms_.thread_sets[e.target])
                    in[u] = in[t];
        }
    }
    // ≺fj: program order, fork of u before u's events (and before joins of u), u's events
    // before a join of u, a generation's arrivals before its departures; transitively closed.
    void order() {
        auto in = [&](const Event& e, ThreadId u) {
            const auto& s = syms_.thread_sets[e.target];
            return std::find(s.begin(), s.end(), u) != s.end();
        };
        for (std::size_t j = 0; j < ev_.size(); ++j)
            for (std::size_t i = 0; i < j; ++i) {
                const Event &a = ev_[i], &b = ev_[j];
                bool edge = a.thread == b.thread || (a.op == Op::fork && in(a, b.thread)) ||
                            (b.op == Op::join && in(b, a.thread)) ||
                            (a.op == Op::barrier_enter && b.op == Op::barrier_exit &&
                             generation_[i] == generation_[j]);
                if (a.op == Op::fork && b.op == Op::join)
                    for (ThreadId u : syms_.thread_sets[a.target])
                        edge = edge || in(b, u);
                if (edge) {
                    fj_[j] |= fj_[i];
                    fj_[j].set(i);
                }
            }
    }

    const std::vector<Event>& ev_;
    const Symbols& syms_;
    std::vector<std::uint64_t> txn_;
    std::vector<std::uint64_t> generation_;
    std::vector<std::bitset<max_events>> fj_;
};

} // namespace sfg::testing
