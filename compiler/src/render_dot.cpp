// DOT written as text, straight from the nets: one pass, cost proportional to the graph (cgraph's
// own writer does roughly quadratic work on many clusters). Graphviz is used only to lay the
// same text out for SVG and PNG.
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"

#include "utf8.hpp"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
// Graphviz 2.42's dot layout and the fontconfig/pango it loads leak on every layout; ours is
// freed (gvFreeLayout, agclose). LeakSanitizer reads this hook at exit.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libgvc.so\nleak:libgvplugin_dot_layout.so\nleak:libgvplugin_pango.so\n"
           "leak:libfontconfig.so\nleak:libpango\nleak:libcairo.so\nleak:libcgraph.so\n";
}
#endif

namespace sfg {

namespace {

// A DOT double-quoted string: `"` and `\` escaped (a backslash would start an escString
// sequence such as \N), line breaks as \n, invalid UTF-8 replaced.
std::string quote(std::string_view s) {
    std::string out = "\"";
    for (char c : to_valid_utf8(s)) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c == '\n')
            out += "\\n";
        else if (c != '\r')
            out += c;
    }
    return out + '"';
}

class DotWriter {
public:
    explicit DotWriter(std::ostream& out) : out_(out) {}

    void spec(const CompiledSpec& spec, View view) {
        out_ << "digraph sfg {\n"
             << "\tgraph [rankdir=LR, forcelabels=true, fontname=Helvetica, labelloc=t, label="
             << quote(spec.file) << "];\n"
             << "\tnode [fontname=Helvetica];\n\tedge [fontname=Helvetica];\n";
        int index = 0;
        for (const CompiledVariable& v : spec.variables) {
            if (!v.sfg)
                continue;
            if (!out_)
                return; // the output failed or hit its limit: stop formatting
            const std::string prefix = fmt::format("v{}_", index++);
            open("cluster_" + prefix + "var", "var " + v.name);
            if (view == View::sfg) {
                sfg(prefix + "sfg_", *v.sfg);
            } else if (view == View::net) {
                net(prefix + "net_", *v.net);
            } else {
                open("cluster_" + prefix + "sfg", "SFG");
                sfg(prefix + "sfg_", *v.sfg);
                close();
                open("cluster_" + prefix + "net", "Petri net N(G)");
                net(prefix + "net_", *v.net);
                close();
            }
            close();
        }
        out_ << "}\n";
    }

private:
    void indent() {
        for (int i = 0; i < depth_; ++i)
            out_ << '\t';
    }
    void open(const std::string& name, const std::string& label, const char* style = nullptr) {
        indent();
        out_ << "subgraph " << quote(name) << " {\n";
        ++depth_;
        indent();
        out_ << "graph [label=" << quote(label) << (style ? ", style=" : "") << (style ? style : "")
             << "];\n";
    }
    void close() {
        --depth_;
        indent();
        out_ << "}\n";
    }
    void node(const std::string& id, const std::string& attrs) {
        indent();
        out_ << quote(id) << " [" << attrs << "];\n";
    }
    void arc(const std::string& from, const std::string& to, const std::string& attrs = {}) {
        indent();
        out_ << quote(from) << " -> " << quote(to);
        if (!attrs.empty())
            out_ << " [" << attrs << ']';
        out_ << ";\n";
    }

    // Modes as labelled ellipses; in- and out-modes marked by dangling arrows, as in the
    // thesis' figures (plain in, dashed out); edges labelled by their mechanism.
    void sfg(const std::string& prefix, const Discipline& g) {
        auto mode = [&](std::size_t a) { return fmt::format("{}m{}", prefix, a); };
        for (std::size_t a = 0; a < g.modes.size(); ++a)
            node(mode(a), "shape=ellipse, label=" + quote(g.modes[a].label()));
        for (std::uint32_t i : g.in) {
            node(fmt::format("{}in{}", prefix, i), "shape=point, style=invis");
            arc(fmt::format("{}in{}", prefix, i), mode(i));
        }
        for (std::uint32_t o : g.out) {
            node(fmt::format("{}out{}", prefix, o), "shape=point, style=invis");
            arc(mode(o), fmt::format("{}out{}", prefix, o), "style=dashed");
        }
        for (const ModeEdge& e : g.edges)
            arc(mode(e.from), mode(e.to), "label=" + quote(e.mech.label()));
    }

    // Figure 4.13's grouping: a cluster per access mode holding its Acc places, a dashed
    // cluster per edge holding its PostSnd/PreRcv places and snd/sync/rcv transitions; the
    // initial marking as tokens (several in-modes: a note lists the choices).
    void net(const std::string& prefix, const Net& n) {
        std::vector<char> marked(n.places.size(), 0);
        for (const Marking& m : n.initial_markings)
            for (std::uint32_t p : m)
                marked[p] = 1;
        // Places and transitions grouped by their cluster in one pass each.
        std::vector<std::vector<std::uint32_t>> mode_places(n.modes.size()),
            edge_places(n.edges.size()), edge_transitions(n.edges.size());
        for (std::size_t p = 0; p < n.places.size(); ++p) {
            const Place& pl = n.places[p];
            (pl.kind == PlaceKind::Acc ? mode_places[*pl.mode] : edge_places[*pl.edge])
                .push_back(static_cast<std::uint32_t>(p));
        }
        for (std::size_t t = 0; t < n.transitions.size(); ++t)
            edge_transitions[n.transitions[t].edge].push_back(static_cast<std::uint32_t>(t));
        auto place = [&](std::uint32_t p) {
            const Place& pl = n.places[p];
            node(prefix + pl.id,
                 fmt::format("shape=circle, fixedsize=true, width=0.35, label=\"{}\", xlabel={}",
                             marked[p] ? "\xE2\x97\x8F" : "", // ● token
                             quote(pl.id)));
        };
        for (std::size_t a = 0; a < n.modes.size(); ++a) {
            open(fmt::format("cluster_{}mode{}", prefix, a), n.modes[a].label());
            for (std::uint32_t p : mode_places[a])
                place(p);
            close();
        }
        for (std::size_t e = 0; e < n.edges.size(); ++e) {
            const ModeEdge& me = n.edges[e];
            open(fmt::format("cluster_{}edge{}", prefix, e),
                 fmt::format("e{}: {} -{}-> {}", e, n.modes[me.from].label(), me.mech.label(),
                             n.modes[me.to].label()),
                 "dashed");
            for (std::uint32_t p : edge_places[e])
                place(p);
            for (std::uint32_t t : edge_transitions[e]) {
                const Transition& r = n.transitions[t];
                node(
                    prefix + r.id,
                    "shape=box, height=0.3, label=" + quote(r.id) +
                        (r.kind == TransitionKind::sync ? ", style=filled, fillcolor=gray85" : ""));
            }
            close();
        }
        // Arcs outside the clusters: an arc inside one would pull its ends into it.
        for (const Transition& r : n.transitions) {
            for (std::uint32_t p : r.pre)
                arc(prefix + n.places[p].id, prefix + r.id);
            for (std::uint32_t p : r.post)
                arc(prefix + r.id, prefix + n.places[p].id);
        }
        if (n.initial_markings.size() > 1) {
            std::string text = "initial markings (one is chosen):";
            for (const Marking& m : n.initial_markings) {
                text += " {";
                for (std::size_t i = 0; i < m.size(); ++i)
                    text += (i ? "," : "") + n.places[m[i]].id;
                text += "}";
            }
            node(prefix + "markings", "shape=note, label=" + quote(text));
        }
    }

    std::ostream& out_;
    int depth_ = 1;
};

struct GraphDeleter {
    void operator()(Agraph_t* g) const { agclose(g); }
};

} // namespace

void write_dot(std::ostream& out, const CompiledSpec& spec, View view) {
    require_listed(spec, "write_dot");
    DotWriter(out).spec(spec, view);
}

std::string to_dot(const CompiledSpec& spec, View view) {
    std::ostringstream out;
    write_dot(out, spec, view);
    return out.str();
}

std::size_t layout_size(const CompiledSpec& spec, View view) {
    std::size_t size = 0;
    for (const CompiledVariable& v : spec.variables) {
        if (!v.sfg)
            continue;
        // Modes, in/out markers and their arrows, edges. A labelled edge counts 8: dot lays its
        // label out as a node of its own, and many labelled edges between few modes dominate
        // its crossing minimization (measured in docs/limits.md).
        if (view != View::net)
            size += v.sfg->modes.size() + 2 * (v.sfg->in.size() + v.sfg->out.size()) +
                    8 * v.sfg->edges.size();
        if (view != View::sfg) { // places, transitions, arcs
            size += v.net->places.size() + v.net->transitions.size();
            for (const Transition& t : v.net->transitions)
                size += t.pre.size() + t.post.size();
        }
    }
    return size;
}

std::string render_image(const CompiledSpec& spec, View view, const std::string& format,
                         const std::string& path) {
    if (std::FILE* probe = std::fopen(path.c_str(), "wb"); probe == nullptr)
        return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    else
        std::fclose(probe);
    agseterr(AGERR); // our own messages only; Graphviz's warnings are not the user's concern
    const std::string dot = to_dot(spec, view);
    std::unique_ptr<Agraph_t, GraphDeleter> g(agmemread(dot.c_str()));
    if (!g)
        return "Graphviz could not read the graph";
    // One context for the process: Graphviz 2.42's pango plugin keeps a pointer to the last
    // font name, which gvFreeContext frees, so a second context read freed memory (ASan saw it
    // when rendering SVG then PNG). Never freed; the OS reclaims it.
    static GVC_t* const gvc = gvContext();
    if (gvc == nullptr)
        return "cannot start Graphviz";
    // dot's crossing minimization and network simplex dominate on large graphs (a lock over 30
    // threads: 38 s as drawn by default, 4 s with these); small ones keep the default drawing.
    if (layout_size(spec, view) > quick_layout_above) {
        static const std::string mclimit = "mclimit", nslimit = "nslimit", nslimit1 = "nslimit1",
                                 low = "0.05", empty;
        auto set = [&](const std::string& k, const std::string& v) {
            agsafeset(g.get(), const_cast<char*>(k.c_str()), const_cast<char*>(v.c_str()),
                      const_cast<char*>(empty.c_str()));
        };
        set(mclimit, low);
        set(nslimit, low);
        set(nslimit1, low);
    }
    std::string error;
    if (gvLayout(gvc, g.get(), "dot") != 0) {
        error = "Graphviz could not lay the graph out";
    } else {
        if (gvRenderFilename(gvc, g.get(), format.c_str(), path.c_str()) != 0)
            error = fmt::format("Graphviz could not write {} to '{}'", format, path);
        gvFreeLayout(gvc, g.get());
    }
    return error;
}

} // namespace sfg
