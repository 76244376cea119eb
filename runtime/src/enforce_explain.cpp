// Explanations of violations: which modes were possible, which modes would have permitted the
// access, and which sync ops were missing to get there (derived from the SFG edges into those
// modes, thesis Figure 4.12). describe() builds plain data; explain() only formats it.
#include "enforce_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <tuple>

namespace sfg {

using namespace enforce_detail;

namespace {

std::size_t idx(std::int64_t i) {
    return static_cast<std::size_t>(i);
}

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

std::string Enforcer::Impl::mech_label(const Var& v, int edge) const {
    return mechs[edge_mechs[v.edge_mech + idx(edge)]].label;
}

EnforceViolation Enforcer::Impl::describe(std::uint32_t vi, Gid g, const Event& e) const {
    const Var& v = vars[vi];
    const Shape& s = shapes[v.shape];
    const Net& net = s.net;
    const bool write = e.op == Op::write;

    EnforceViolation out;
    out.var = v.name;
    out.event = e.number;
    out.thread = e.thread;
    out.thread_name = syms && e.thread < syms->threads.size() ? syms->threads.name(e.thread)
                                                              : std::to_string(e.thread);
    out.op = e.op;
    out.location = e.location;
    out.line = e.line;

    // Possible modes: the neighbourhoods Q(b) the candidates are in (every reachable marking is
    // b-feasible for one b, Lemma 4.3.10).
    std::vector<int> possible;
    v.cands.for_each([&](std::span<const std::int32_t> m) {
        for (std::int32_t p : m)
            if (s.place_mode[idx(p)] >= 0)
                possible.push_back(s.place_mode[idx(p)]);
    });
    std::sort(possible.begin(), possible.end());
    possible.erase(std::unique(possible.begin(), possible.end()), possible.end());
    for (int a : possible)
        out.possible_modes.push_back(s.mode_labels[idx(a)]);

    std::vector<char> permitting(net.modes.size(), 0);
    for (std::size_t a = 0; a < net.modes.size(); ++a)
        if (g >= 0 && s.permits(static_cast<int>(a), g, write)) {
            permitting[a] = 1;
            out.permitting_modes.push_back(s.mode_labels[a]);
        }
    if (out.permitting_modes.empty())
        return out;

    // Fixes: for every candidate M in mode c and edge e = c -z-> b with b permitting the access,
    // the threads of c whose token is not yet at PostSnd[s:e] must still snd(s, z), then the
    // accessing thread must rcv(t, z). A candidate whose token for t waits at PreRcv[t:e] with b
    // permitting needs only the rcv.
    struct Raw {
        std::size_t cost;
        int edge;
        std::vector<Gid> senders;
        auto key() const { return std::tie(cost, edge, senders); }
    };
    std::vector<Raw> raws;
    auto token_of = [&](std::span<const std::int32_t> m, Gid t) -> std::int32_t {
        for (std::int32_t p : m)
            if (s.place_gid[idx(p)] == t)
                return p;
        return -1;
    };
    v.cands.for_each([&](std::span<const std::int32_t> m) {
        if (m.empty())
            return;
        const int c = s.place_mode[idx(m[0])];
        const std::int32_t tok = token_of(m, g);
        if (tok >= 0 && net.places[idx(tok)].kind == PlaceKind::PreRcv) {
            const int e = net.places[idx(tok)].edge;
            if (permitting[idx(net.edges[idx(e)].to)])
                raws.push_back({1, e, {}});
        }
        if (c < 0)
            return;
        for (std::size_t ei = 0; ei < net.edges.size(); ++ei) {
            const ModeEdge& edge = net.edges[ei];
            if (edge.from != c || !permitting[idx(edge.to)])
                continue;
            Raw r{1, static_cast<int>(ei), {}};
            for (Gid sender : s.mode_gids[idx(c)]) {
                const std::int32_t p = token_of(m, sender);
                const bool sent = p >= 0 && net.places[idx(p)].kind == PlaceKind::PostSnd &&
                                  net.places[idx(p)].edge == static_cast<int>(ei);
                if (!sent)
                    r.senders.push_back(sender);
            }
            r.cost += r.senders.size();
            raws.push_back(std::move(r));
        }
    });
    std::sort(raws.begin(), raws.end(),
              [](const Raw& a, const Raw& b) { return a.key() < b.key(); });
    raws.erase(std::unique(raws.begin(), raws.end(),
                           [](const Raw& a, const Raw& b) { return a.key() == b.key(); }),
               raws.end());

    auto name = [&](Gid t) { return thread_names[idx(t)]; };
    for (const Raw& r : raws) {
        if (r.cost != raws.front().cost || out.fixes.size() == 3)
            break;
        const ModeEdge& edge = net.edges[idx(r.edge)];
        const MechInfo& mi = mechs[edge_mechs[v.edge_mech + idx(r.edge)]];
        EnforceFix f;
        f.edge = r.edge;
        f.from_mode = s.mode_labels[idx(edge.from)];
        f.to_mode = s.mode_labels[idx(edge.to)];
        f.mechanism = mi.label;
        for (Gid t : r.senders)
            f.senders.push_back(name(t));
        f.receiver = out.thread_name;
        switch (mi.kind) { // the snd and rcv ops of the mechanism, thesis Figure 4.2
        case MechKind::lock:
        case MechKind::volatile_:
        case MechKind::barrier:
            f.snd_op = fmt::format("{}({})", spelling(snd_op(mi.kind)), mi.name);
            f.rcv_op = fmt::format("{}({})", spelling(rcv_op(mi.kind)), mi.name);
            break;
        case MechKind::fork: {
            std::vector<std::string> us;
            for (Gid u : mi.threads)
                us.push_back(name(u));
            f.snd_op = "fork(" + join_list(us, ",") + ")";
            f.rcv_op = "start (be forked by " + name(mi.thread) + ")";
            break;
        }
        case MechKind::join: {
            std::vector<std::string> ss;
            for (Gid u : mi.threads)
                ss.push_back(name(u));
            f.snd_op = "end";
            f.rcv_op = "join(" + join_list(ss, ",") + ")";
            break;
        }
        }
        out.fixes.push_back(std::move(f));
    }

    // No edge leads straight from a possible mode into a permitting one: show a shortest route.
    if (out.fixes.empty() && !possible.empty()) {
        std::vector<int> prev_edge(net.modes.size(), -2);
        std::deque<int> queue;
        for (int a : possible) {
            prev_edge[idx(a)] = -1;
            queue.push_back(a);
        }
        int goal = -1;
        while (!queue.empty() && goal < 0) {
            const int a = queue.front();
            queue.pop_front();
            for (std::size_t ei = 0; ei < net.edges.size(); ++ei) {
                const ModeEdge& edge = net.edges[ei];
                if (edge.from != a || prev_edge[idx(edge.to)] != -2)
                    continue;
                prev_edge[idx(edge.to)] = static_cast<int>(ei);
                if (permitting[idx(edge.to)]) {
                    goal = edge.to;
                    break;
                }
                queue.push_back(edge.to);
            }
        }
        if (goal >= 0) {
            std::vector<int> path;
            for (int a = goal; prev_edge[idx(a)] >= 0; a = net.edges[idx(prev_edge[idx(a)])].from)
                path.push_back(prev_edge[idx(a)]);
            std::reverse(path.begin(), path.end());
            out.route = s.mode_labels[idx(net.edges[idx(path.front())].from)];
            for (int ei : path)
                out.route +=
                    " -" + mech_label(v, ei) + "-> " + s.mode_labels[idx(net.edges[idx(ei)].to)];
        }
    }
    return out;
}

std::string explain(const EnforceViolation& v) {
    const bool write = v.op == Op::write;
    const std::string verb = std::string(write ? "writing " : "reading ") + v.var;
    std::string out =
        std::string(to_string(v.op)) + "(" + v.var + ") by " + v.thread_name + " is not permitted";
    if (v.after_resync)
        out += " (after re-synchronizing from an earlier violation)";
    out += ": ";
    if (v.possible_modes.empty())
        out += "no mode of the discipline was possible any more";
    else
        out += std::string("the possible mode") +
               (v.possible_modes.size() > 1 ? "s were " : " was ") +
               join_list(v.possible_modes, ", ");
    if (v.permitting_modes.empty()) {
        out += "; no mode of the discipline permits " + v.thread_name + " " + verb;
        return out;
    }
    if (!v.fixes.empty()) {
        for (std::size_t i = 0; i < v.fixes.size(); ++i) {
            const EnforceFix& f = v.fixes[i];
            out += i == 0 ? "; to enter " : "; or, to enter ";
            out += f.to_mode + " (edge " + f.from_mode + " -" + f.mechanism + "-> " + f.to_mode +
                   "), ";
            if (f.senders.size() == 1)
                out += f.senders[0] + " must " + f.snd_op + " after its accesses in " +
                       f.from_mode + " and ";
            else if (f.senders.size() > 1)
                out += join_list(f.senders, " and ") + " must each " + f.snd_op +
                       " after their accesses in " + f.from_mode + " and ";
            out += f.receiver + " must " + f.rcv_op + " before " + verb;
        }
        return out;
    }
    if (!v.route.empty())
        return out + "; the modes that permit it are reached only by " + v.route;
    return out + "; no mode that permits it (" + join_list(v.permitting_modes, ", ") +
           ") is reachable from the possible modes";
}

} // namespace sfg
