#include "violation_explainer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <tuple>

namespace sfg {

namespace {

std::string join_list(const std::vector<std::string>& v, const char* last_sep) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i > 0)
            out += i + 1 == v.size() ? last_sep : ", ";
        out += v[i];
    }
    return out;
}

} // namespace

namespace enforce {

namespace {

// An SFG edge by its id as expand_families numbers them (a family's |from| x |to| edges after
// the net's, pair by pair): its modes, and the net's edge that carries its mechanism.
struct EdgeEnds {
    ModeIx from, to;
    EdgeIx net_edge;
    const EdgeFamily* family = nullptr;
};
EdgeEnds edge_ends(const Net& net, std::size_t id) {
    if (id < net.edges.size())
        return {ModeIx::at(net.edges[id].from), ModeIx::at(net.edges[id].to), EdgeIx::at(id)};
    id -= net.edges.size();
    for (std::size_t k = 0;; ++k) {
        const EdgeFamily& f = net.families.at(k);
        if (id < f.from.size() * f.to.size())
            return {ModeIx::at(f.from[id / f.to.size()]), ModeIx::at(f.to[id % f.to.size()]),
                    EdgeIx::at(net.edges.size() + k), &f};
        id -= f.from.size() * f.to.size();
    }
}

// fn(id, a, b) for every SFG edge a -> b (ids as edge_ends') whose source `out_of` and target
// `into` accept, in id order; a family's, the accepted of |from| x the accepted of |to|.
template <class OutOf, class Into, class Fn>
void for_each_edge(const Net& net, OutOf out_of, Into into, Fn fn) {
    for (std::size_t i = 0; i < net.edges.size(); ++i)
        if (out_of(ModeIx::at(net.edges[i].from)) && into(ModeIx::at(net.edges[i].to)))
            fn(i, ModeIx::at(net.edges[i].from), ModeIx::at(net.edges[i].to));
    std::size_t base = net.edges.size();
    std::vector<std::size_t> accepted;
    const std::vector<std::size_t> none;
    for (const EdgeFamily& f : net.families) {
        accepted.clear();
        for (std::size_t j = 0; j < f.to.size(); ++j)
            if (into(ModeIx::at(f.to[j])))
                accepted.push_back(j);
        for (std::size_t i = 0; i < f.from.size(); ++i)
            for (std::size_t j : out_of(ModeIx::at(f.from[i])) ? accepted : none)
                fn(base + i * f.to.size() + j, ModeIx::at(f.from[i]), ModeIx::at(f.to[j]));
        base += f.from.size() * f.to.size();
    }
}

} // namespace

EnforceViolation ViolationExplainer::describe(VarIx vi, CandidateView cands, NetThread g,
                                              HeldLocks held, const Event& e,
                                              const Symbols* syms) const {
    const Variable& v = vars_.list[vi];
    const NetShape& s = shapes_[v.shape];
    const Net& net = s.net;
    const bool write = writes(e.op);

    EnforceViolation out;
    out.var = v.name;
    out.event = e.number;
    out.thread = e.thread;
    out.thread_name = syms && e.thread < syms->threads.size() ? syms->threads.name(e.thread)
                                                              : std::to_string(e.thread);
    out.op = e.op;
    out.location = e.location;
    out.line = e.line;

    const std::vector<ModeIx> possible = possible_modes(s, cands);
    for (ModeIx a : possible)
        out.possible_modes.push_back(s.mode_labels[a]);

    // A possible LOCK mode that lacks only its lock is the whole story ([READ/WRITE LOCKED]):
    // the ways in are then those into modes that permit the access as it was made. Otherwise
    // they are those into any mode that permits it, holding the lock the mode needs.
    const auto unheld = [&](ModeIx a) {
        return s.mode_lock[a].valid() && !holds(held, s.mode_lock[a]);
    };
    for (ModeIx a : possible)
        if (g.valid() && s.permits_locked(a, g, write) && unheld(a))
            out.locks_needed.push_back({s.mode_labels[a], net.modes[a.ix()].lock});
    IndexVec<ModeIx, char> permitting(net.modes.size(), 0);
    for (ModeIx a : permitting.indices())
        if (g.valid() && s.permits_locked(a, g, write)) {
            permitting[a] = out.locks_needed.empty() || !unheld(a);
            out.permitting_modes.push_back(s.mode_labels[a]);
        }
    if (std::find(permitting.begin(), permitting.end(), 1) == permitting.end())
        return out;

    const std::vector<Way> ways = cheapest_ways(s, cands, g, permitting);
    for (const Way& w : ways) {
        if (w.cost != ways.front().cost || out.fixes.size() == 3)
            break;
        EnforceFix f = fix(v, w);
        f.receiver = out.thread_name;
        const ModeIx to = edge_ends(net, w.edge.ix()).to;
        if (unheld(to))
            f.hold_lock = net.modes[to.ix()].lock;
        out.fixes.push_back(std::move(f));
    }
    if (out.fixes.empty() && !possible.empty())
        out.route = route(v, possible, permitting);
    return out;
}

// The neighbourhoods Q(b) the candidates are in (every reachable marking is b-feasible for one
// b, Lemma 4.3.10), sorted.
std::vector<ModeIx> ViolationExplainer::possible_modes(const NetShape& s,
                                                       CandidateView cands) const {
    std::vector<ModeIx> possible;
    cands.for_each([&](std::span<const PlaceIx> m) {
        for (PlaceIx p : m)
            s.place_modes(p, possible);
    });
    std::sort(possible.begin(), possible.end());
    possible.erase(std::unique(possible.begin(), possible.end()), possible.end());
    return possible;
}

// Fixes: for every candidate M in mode c and edge e = c -z-> b with b permitting the access, the
// threads of c whose token is not yet at PostSnd[s:e] must still snd(s, z), then the accessing
// thread must rcv(t, z). A candidate whose token for t waits at PreRcv[t:e] with b permitting
// needs only the rcv. Sorted by cost, without repeats.
std::vector<ViolationExplainer::Way>
ViolationExplainer::cheapest_ways(const NetShape& s, CandidateView cands, NetThread g,
                                  const IndexVec<ModeIx, char>& permitting) const {
    const Net& net = s.net;
    // (A waiting token W[t:e] is explained as its PreRcv[t:e]: it needs the same rcv.)
    const auto place = [&](PlaceIx p) -> const Place& { return net.places[s.net_place(p).ix()]; };
    std::vector<Way> ways;
    // The edges out of each mode into a permitting one (a pool's n modes have n^2 edges: not
    // each of them for each candidate).
    IndexVec<ModeIx, std::vector<EdgeIx>> ways_out(net.modes.size());
    for_each_edge(
        net, [](ModeIx) { return true; }, [&](ModeIx b) { return permitting[b] != 0; },
        [&](std::size_t i, ModeIx a, ModeIx) { ways_out[a].push_back(EdgeIx::at(i)); });
    auto token_of = [&](std::span<const PlaceIx> m, NetThread t) {
        for (PlaceIx p : m)
            if (s.place_thread[p] == t)
                return p;
        return PlaceIx::none();
    };
    cands.for_each([&](std::span<const PlaceIx> m) {
        if (m.empty())
            return;
        const ModeIx c = s.place_mode[m[0]];
        const PlaceIx tok = token_of(m, g);
        if (tok.valid() && place(tok).kind == PlaceKind::PreRcv) {
            const auto ei = EdgeIx::at(place(tok).edge);
            if (permitting[edge_ends(net, ei.ix()).to])
                ways.push_back({1, ei, {}});
        }
        // A family's PreRcv place (no thread): the first edge of the family into each
        // permitting mode of g.
        for (PlaceIx p : m) {
            const Place& pl = place(p);
            if (pl.kind != PlaceKind::PreRcv || !pl.edge || *pl.edge < net.edges.size())
                continue;
            const std::size_t k = *pl.edge - net.edges.size();
            std::size_t base = net.edges.size();
            for (std::size_t j = 0; j < k; ++j)
                base += net.families[j].from.size() * net.families[j].to.size();
            const EdgeFamily& f = net.families[k];
            for (std::size_t j = 0; j < f.to.size(); ++j)
                if (permitting[ModeIx::at(f.to[j])])
                    ways.push_back({1, EdgeIx::at(base + j), {}, true});
        }
        if (!c.valid())
            return;
        for (const EdgeIx ei : ways_out[c]) {
            Way w{1, ei, {}};
            for (NetThread sender : s.mode_threads[c]) {
                const PlaceIx p = token_of(m, sender);
                const bool sent = p.valid() && place(p).kind == PlaceKind::PostSnd &&
                                  EdgeIx::at(place(p).edge) == edge_ends(net, ei.ix()).net_edge;
                if (!sent)
                    w.senders.push_back(sender);
            }
            w.cost += w.senders.size();
            ways.push_back(std::move(w));
        }
    });
    std::sort(ways.begin(), ways.end(),
              [](const Way& a, const Way& b) { return a.key() < b.key(); });
    ways.erase(std::unique(ways.begin(), ways.end(),
                           [](const Way& a, const Way& b) { return a.key() == b.key(); }),
               ways.end());
    return ways;
}

// A way as a fix: its edge's modes and mechanism, and the snd and rcv ops of the mechanism
// (thesis Figure 4.2) with their operands.
EnforceFix ViolationExplainer::fix(const Variable& v, const Way& w) const {
    const NetShape& s = shapes_[v.shape];
    const EdgeEnds edge = edge_ends(s.net, w.edge.ix());
    const MechanismInfo& mi = names_.mechanism(vars_.mechanism(v, edge.net_edge));
    EnforceFix f;
    f.edge = w.edge.v;
    f.from_mode = s.mode_labels[edge.from];
    if (w.any_sender) // "any of EX(w0) … EX(w1023)": the family's modes
        f.from_mode =
            fmt::format("any of {} … {}", s.mode_labels[ModeIx::at(edge.family->from.front())],
                        s.mode_labels[ModeIx::at(edge.family->from.back())]);
    f.to_mode = s.mode_labels[edge.to];
    f.mechanism = mi.label;
    for (NetThread t : w.senders)
        f.senders.push_back(names_.thread_name(t));
    f.snd_op = op_text(snd_op(mi.kind), mi, v.name);
    f.rcv_op = op_text(rcv_op(mi.kind), mi, v.name);
    return f;
}

// An op of a mechanism as a fix spells it: with the mechanism's name, or with its set of threads
// U or S; start with the forker the op's operand names (op.hpp), exit alone: a thread's end is
// the op table's implicit `exit` (`end` closes a block).
std::string ViolationExplainer::op_text(Op op, const MechanismInfo& mi,
                                        const std::string& var) const {
    const OpInfo& i = op_info(op);
    switch (i.operand) {
    case Operand::thread_set: {
        std::vector<std::string> us;
        for (NetThread u : mi.threads)
            us.push_back(names_.thread_name(u));
        return fmt::format("{}({})", i.spelling, join_list(us, ","));
    }
    case Operand::thread:
        return i.mech == MechKind::fork
                   ? fmt::format("{} (be forked by {})", i.spelling, names_.thread_name(mi.thread))
                   : std::string(i.spelling);
    case Operand::queue_item: // q(o): enq(q,o) / deq(q,o) of this variable (thesis §5.1)
        return fmt::format("{}({},{})", i.spelling, mi.name, var);
    case Operand::name:
    case Operand::none:
        break;
    }
    // v==K: the op carries K, vw(v=K) (docs/traces.md)
    return fmt::format("{}({}{})", i.spelling, mi.name,
                       mi.value ? fmt::format("={}", *mi.value) : "");
}

// No edge leads straight from a possible mode into a permitting one: a shortest route
// (breadth-first; prev_edge of a start mode is none), or "" when none is reachable.
std::string ViolationExplainer::route(const Variable& v, std::span<const ModeIx> possible,
                                      const IndexVec<ModeIx, char>& permitting) const {
    const NetShape& s = shapes_[v.shape];
    const Net& net = s.net;
    IndexVec<ModeIx, char> seen(net.modes.size(), 0);
    IndexVec<ModeIx, EdgeIx> prev_edge(net.modes.size());
    std::deque<ModeIx> queue;
    for (ModeIx a : possible) {
        seen[a] = 1;
        queue.push_back(a);
    }
    ModeIx goal;
    while (!queue.empty() && !goal.valid()) {
        const ModeIx a = queue.front();
        queue.pop_front();
        for_each_edge(
            net, [&](ModeIx from) { return from == a; }, [&](ModeIx b) { return !seen[b]; },
            [&](std::size_t i, ModeIx, ModeIx to) {
                if (seen[to] || goal.valid())
                    return;
                seen[to] = 1;
                prev_edge[to] = EdgeIx::at(i);
                if (permitting[to])
                    goal = to;
                else
                    queue.push_back(to);
            });
    }
    if (!goal.valid())
        return "";
    const auto from = [&](EdgeIx ei) { return edge_ends(net, ei.ix()).from; };
    std::vector<EdgeIx> path;
    for (ModeIx a = goal; prev_edge[a].valid(); a = from(prev_edge[a]))
        path.push_back(prev_edge[a]);
    std::reverse(path.begin(), path.end());
    std::string out = s.mode_labels[from(path.front())];
    for (EdgeIx ei : path)
        out += " -" + names_.mechanism(vars_.mechanism(v, edge_ends(net, ei.ix()).net_edge)).label +
               "-> " + s.mode_labels[edge_ends(net, ei.ix()).to];
    return out;
}

} // namespace enforce

std::string explain(const EnforceViolation& v) {
    const bool write = writes(v.op);
    const std::string verb = std::string(write ? "writing " : "reading ") + v.var;
    std::string out =
        std::string(to_string(v.op)) + "(" + v.var + ") by " + v.thread_name + " is not permitted";
    if (v.after_resync)
        out += " (after re-synchronizing from an earlier violation)";
    out += ": ";
    // [READ LOCKED], [WRITE LOCKED]: "LOCK_m(t0,t1) needs t1 to hold m".
    if (!v.locks_needed.empty()) {
        std::vector<std::string> others = v.possible_modes;
        for (std::size_t i = 0; i < v.locks_needed.size(); ++i) {
            const EnforceLockNeeded& l = v.locks_needed[i];
            out += (i == 0 ? "" : "; ") + l.mode + " needs " + v.thread_name + " to hold " + l.lock;
            others.erase(std::remove(others.begin(), others.end(), l.mode), others.end());
        }
        if (!others.empty())
            out += std::string("; the other possible mode") +
                   (others.size() > 1 ? "s were " : " was ") + join_list(others, ", ");
    } else if (v.possible_modes.empty()) {
        out += "no mode of the discipline was possible any more";
    } else {
        out += std::string("the possible mode") +
               (v.possible_modes.size() > 1 ? "s were " : " was ") +
               join_list(v.possible_modes, ", ");
    }
    if (v.permitting_modes.empty()) {
        out += "; no mode of the discipline permits " + v.thread_name + " " + verb;
        return out;
    }
    if (!v.fixes.empty()) {
        for (std::size_t i = 0; i < v.fixes.size(); ++i) {
            const EnforceFix& f = v.fixes[i];
            out += i == 0 && v.locks_needed.empty() ? "; to enter " : "; or, to enter ";
            out += f.to_mode + " (edge " + f.from_mode + " -" + f.mechanism + "-> " + f.to_mode +
                   "), ";
            if (f.senders.size() == 1)
                out += f.senders[0] + " must " + f.snd_op + " after its accesses in " +
                       f.from_mode + " and ";
            else if (f.senders.size() > 1)
                out += join_list(f.senders, " and ") + " must each " + f.snd_op +
                       " after their accesses in " + f.from_mode + " and ";
            out += f.receiver + " must " + f.rcv_op + " before " + verb;
            if (!f.hold_lock.empty())
                out += ", holding " + f.hold_lock;
        }
        return out;
    }
    if (!v.locks_needed.empty())
        return out;
    if (!v.route.empty())
        return out + "; the modes that permit it are reached only by " + v.route;
    return out + "; no mode that permits it (" + join_list(v.permitting_modes, ", ") +
           ") is reachable from the possible modes";
}

} // namespace sfg
