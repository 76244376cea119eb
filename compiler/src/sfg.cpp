#include "sfg/compiler/sfg.hpp"

#include <boost/graph/breadth_first_search.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace sfg {

namespace {
std::string set_text(const std::vector<std::string>& v) {
    return fmt::format("{{{}}}", fmt::join(v, ","));
}
} // namespace

std::string why_invalid(const AccessMode& o, const Mechanism& z, const AccessMode& i) {
    if (valid(o, z, i)) // Valid and Msg(z) are the runtime's (petri_net.hpp)
        return {};
    switch (z.kind) {
    case MechKind::lock:
    case MechKind::volatile_:
    case MechKind::queue:
        // One releasing / writing / enqueueing thread, one acquiring / reading / dequeueing one.
        return fmt::format(
            "{} '{}' passes from one thread to one thread, but {} has {} and {} has {}",
            to_string(z.kind), z.label(), o.label(), o.threads.size(), i.label(), i.threads.size());
    case MechKind::barrier:
        return fmt::format("barrier '{}' synchronizes only its threads {}", z.name,
                           set_text(z.threads));
    case MechKind::fork:
        return fmt::format("{} sends from {{{}}} to {}", z.label(), z.thread, set_text(z.threads));
    case MechKind::join:
        return fmt::format("{} sends from {} to {{{}}}", z.label(), set_text(z.threads), z.thread);
    }
    return "unknown mechanism";
}

Discipline to_discipline(Sfg&& g) {
    Discipline d;
    d.modes.reserve(boost::num_vertices(g.graph));
    for (std::size_t v = 0; v < boost::num_vertices(g.graph); ++v)
        d.modes.push_back(std::move(g.graph[v].mode));
    d.edges.resize(boost::num_edges(g.graph));
    for (auto [it, end] = boost::edges(g.graph); it != end; ++it) {
        SfgEdge& e = g.graph[*it];
        d.edges[e.id] = {static_cast<std::uint32_t>(boost::source(*it, g.graph)),
                         static_cast<std::uint32_t>(boost::target(*it, g.graph)),
                         std::move(e.mech)};
    }
    d.in = std::move(g.in);
    d.out = std::move(g.out);
    d.families = std::move(g.families);
    return d;
}

std::vector<std::uint32_t> Sfg::unreachable_modes() const {
    const std::size_t n = boost::num_vertices(graph);
    std::vector<boost::default_color_type> color(n, boost::white_color);
    auto colors =
        boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, graph));
    // One search from every in-mode, sharing the colour map, so each mode is visited once.
    const auto visit = [&](std::uint32_t s) {
        if (color[s] == boost::white_color)
            boost::breadth_first_visit(
                graph, s, boost::visitor(boost::default_bfs_visitor()).color_map(colors));
    };
    for (std::uint32_t s : in)
        visit(s);
    // A family's edges are not in the graph: one whose source is reached reaches all its targets.
    std::vector<std::uint8_t> done(families.size(), 0);
    for (bool more = true; more;) {
        more = false;
        for (std::size_t k = 0; k < families.size(); ++k) {
            const EdgeFamily& f = families[k];
            if (done[k] || std::none_of(f.from.begin(), f.from.end(), [&](std::uint32_t a) {
                    return color[a] != boost::white_color;
                }))
                continue;
            done[k] = 1;
            more = true;
            for (std::uint32_t b : f.to)
                visit(b);
        }
    }
    std::vector<std::uint32_t> out;
    for (std::uint32_t v = 0; v < n; ++v)
        if (color[v] == boost::white_color)
            out.push_back(v);
    return out;
}

SfgBuilder::Fragment SfgBuilder::base(AccessMode mode, SourceLoc loc) {
    if (boost::num_vertices(graph_) >= max_modes_ && !overrun_)
        overrun_ = Overrun{Overrun::What::modes, loc};
    if (overrun_)
        return {}; // the caller reports the overrun; the fragment is never used
    const auto v =
        static_cast<std::uint32_t>(boost::add_vertex(SfgMode{std::move(mode), loc}, graph_));
    return {{v}, {v}};
}

SfgBuilder::Fragment SfgBuilder::disjunction(const Fragment& g1, const Fragment& g2) {
    Fragment f = g1;
    f.in.insert(f.in.end(), g2.in.begin(), g2.in.end());
    f.out.insert(f.out.end(), g2.out.begin(), g2.out.end());
    return f;
}

bool SfgBuilder::family(const std::vector<std::uint32_t>& outs, const EdgeLabel& z,
                        const std::vector<std::uint32_t>& ins) const {
    if (outs.size() * ins.size() <= family_from_ || z.kind != EdgeLabel::Kind::mech ||
        (z.mech.kind != MechKind::lock && z.mech.kind != MechKind::volatile_))
        return false;
    const auto one_thread = [&](std::uint32_t a) { return graph_[a].mode.threads.size() == 1; };
    return std::all_of(outs.begin(), outs.end(), one_thread) &&
           std::all_of(ins.begin(), ins.end(), one_thread);
}

void SfgBuilder::connect(const std::vector<std::uint32_t>& outs, const EdgeLabel& z,
                         const std::vector<std::uint32_t>& ins, SourceLoc loc,
                         ConnectReport& report) {
    // Every pair valid (a lock or volatile between modes of one thread, Valid's Msg(z)): one rule
    // of |O| + |I| candidates. Its edges are not checked against the set of edges: an edge that
    // it repeats is a second path between the same Acc places through the same mechanism, which
    // admits the same traces (only expand_families' listing shows it twice).
    if (!overrun_ && family(outs, z, ins)) {
        const std::size_t size = outs.size() + ins.size();
        if (size > max_candidates_ - candidates_)
            overrun_ = Overrun{Overrun::What::edges, loc};
        else {
            candidates_ += size;
            report.candidates += static_cast<int>(outs.size() * ins.size());
            report.valid += static_cast<int>(outs.size() * ins.size());
            families_.push_back({outs, ins, z.mech});
        }
        return;
    }
    // Counted before any work: |O| x |I| candidates, each a Valid check and maybe a warning.
    const std::size_t pairs = outs.size() * ins.size();
    if (overrun_ || pairs > max_candidates_ - candidates_) {
        if (!overrun_)
            overrun_ = Overrun{Overrun::What::edges, loc};
        return;
    }
    candidates_ += pairs;
    for (std::uint32_t o : outs) {
        for (std::uint32_t i : ins) {
            ++report.candidates;
            const AccessMode& mo = graph_[o].mode;
            const AccessMode& mi = graph_[i].mode;
            Mechanism mech = z.mech;
            std::string reason;
            if (z.kind == EdgeLabel::Kind::bare_fork) {
                // Bare fork on o -> i means fork(t -> Tid(i)) where Tid(o) = {t}.
                if (mo.threads.size() != 1)
                    reason = fmt::format("a bare 'fork' needs one forking thread, but {} has {}",
                                         mo.label(), mo.threads.size());
                else
                    mech = {MechKind::fork, "", mo.threads[0], mi.threads};
            } else if (z.kind == EdgeLabel::Kind::bare_join) {
                // Bare join on o -> i means join(Tid(o) -> t) where Tid(i) = {t}.
                if (mi.threads.size() != 1)
                    reason = fmt::format("a bare 'join' needs one joining thread, but {} has {}",
                                         mi.label(), mi.threads.size());
                else
                    mech = {MechKind::join, "", mi.threads[0], mo.threads};
            }
            if (reason.empty())
                reason = why_invalid(mo, mech, mi);
            if (!reason.empty()) {
                if (report.dropped.size() < ConnectReport::max_dropped_kept)
                    report.dropped.push_back({o, i, std::move(reason)});
                else
                    ++report.dropped_beyond;
                continue;
            }
            ++report.valid;
            auto& parallel = pair_mechs_[std::uint64_t{o} << 32 | i];
            if (std::find(parallel.begin(), parallel.end(), mech) != parallel.end())
                continue; // edges form a set
            parallel.push_back(mech);
            bool self = (mech.kind == MechKind::fork || mech.kind == MechKind::join) &&
                        std::binary_search(mech.threads.begin(), mech.threads.end(), mech.thread);
            if (self)
                report.self_sync.push_back({o, i, mech});
            boost::add_edge(o, i, SfgEdge{next_edge_++, std::move(mech), loc}, graph_);
        }
    }
}

SfgBuilder::Fragment SfgBuilder::sequence(const Fragment& g1, const EdgeLabel& z,
                                          const Fragment& g2, SourceLoc loc,
                                          ConnectReport& report) {
    connect(g1.out, z, g2.in, loc, report);
    return {g1.in, g2.out};
}

SfgBuilder::Fragment SfgBuilder::loop(const Fragment& g1, const EdgeLabel& z, SourceLoc loc,
                                      ConnectReport& report) {
    connect(g1.out, z, g1.in, loc, report);
    return g1;
}

Sfg SfgBuilder::finish(const Fragment& g) && {
    Sfg s;
    s.graph = std::move(graph_);
    s.in = g.in;
    s.out = g.out;
    s.families = std::move(families_);
    return s;
}

} // namespace sfg
