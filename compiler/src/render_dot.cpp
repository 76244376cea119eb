// DOT and images through Graphviz: the graph is built with cgraph, written with agwrite, or laid
// out with gvLayout and rendered with gvRenderFilename, all in-process.
#include "sfg/compiler/render.hpp"

#include <fmt/format.h>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
// Graphviz 2.42's dot layout and the fontconfig/pango it loads leak on every layout; ours is
// freed (gvFreeLayout, gvFreeContext, agclose). LeakSanitizer reads this hook at exit.
extern "C" const char* __lsan_default_suppressions() {
    return "leak:libgvc.so\nleak:libgvplugin_dot_layout.so\nleak:libgvplugin_pango.so\n"
           "leak:libfontconfig.so\nleak:libpango\nleak:libcairo.so\n";
}
#endif

namespace sfg {

namespace {

// cgraph's API takes char* for names and values it only reads.
char* mut(const std::string& s) {
    return const_cast<char*>(s.c_str());
}
void set(void* obj, const std::string& key, const std::string& value) {
    static const std::string empty;
    agsafeset(obj, mut(key), mut(value), mut(empty));
}

Agraph_t* subgraph(Agraph_t* g, const std::string& name, const std::string& label) {
    Agraph_t* s = agsubg(g, mut(name), 1);
    set(s, "label", label);
    return s;
}

Agnode_t* node(Agraph_t* g, const std::string& name) {
    return agnode(g, mut(name), 1);
}

Agedge_t* edge(Agraph_t* g, Agnode_t* t, Agnode_t* h) {
    return agedge(g, t, h, nullptr, 1);
}

void add_sfg(Agraph_t* g, const std::string& prefix, const Sfg& sfg) {
    auto mode_node = [&](int a) { return node(g, fmt::format("{}m{}", prefix, a)); };
    for (int a = 0; a < sfg.mode_count(); ++a) {
        Agnode_t* n = mode_node(a);
        set(n, "label", sfg.mode(a).label());
        set(n, "shape", "ellipse");
    }
    // In- and out-modes are marked by dangling arrows, as in the thesis' figures.
    for (int i : sfg.in) {
        Agnode_t* p = node(g, fmt::format("{}in{}", prefix, i));
        set(p, "shape", "point");
        set(p, "style", "invis");
        edge(g, p, mode_node(i));
    }
    for (int o : sfg.out) {
        Agnode_t* p = node(g, fmt::format("{}out{}", prefix, o));
        set(p, "shape", "point");
        set(p, "style", "invis");
        Agedge_t* e = edge(g, mode_node(o), p);
        set(e, "style", "dashed");
    }
    for (const ModeEdge& e : sfg.edges()) {
        Agedge_t* de = edge(g, mode_node(e.from), mode_node(e.to));
        set(de, "label", e.mech.label());
    }
}

void add_net(Agraph_t* g, const std::string& prefix, const Net& net) {
    std::set<int> marked;
    for (const Marking& m : net.initial_markings)
        marked.insert(m.begin(), m.end());
    std::vector<Agraph_t*> mode_cluster, edge_cluster;
    for (std::size_t a = 0; a < net.modes.size(); ++a)
        mode_cluster.push_back(
            subgraph(g, fmt::format("cluster_{}mode{}", prefix, a), net.modes[a].label()));
    for (std::size_t e = 0; e < net.edges.size(); ++e) {
        const ModeEdge& me = net.edges[e];
        Agraph_t* c = subgraph(
            g, fmt::format("cluster_{}edge{}", prefix, e),
            fmt::format("e{}: {} -{}-> {}", e, net.modes[static_cast<std::size_t>(me.from)].label(),
                        me.mech.label(), net.modes[static_cast<std::size_t>(me.to)].label()));
        set(c, "style", "dashed");
        edge_cluster.push_back(c);
    }
    std::vector<Agnode_t*> places;
    for (std::size_t p = 0; p < net.places.size(); ++p) {
        const Place& pl = net.places[p];
        Agraph_t* home = pl.kind == PlaceKind::Acc
                             ? mode_cluster[static_cast<std::size_t>(pl.mode)]
                             : edge_cluster[static_cast<std::size_t>(pl.edge)];
        Agnode_t* n = node(home, prefix + pl.id);
        set(n, "shape", "circle");
        set(n, "fixedsize", "true");
        set(n, "width", "0.35");
        set(n, "label", marked.count(static_cast<int>(p)) ? "\xE2\x97\x8F" : ""); // ● token
        set(n, "xlabel", pl.id);
        places.push_back(n);
    }
    for (const Transition& r : net.transitions) {
        Agnode_t* n = node(edge_cluster[static_cast<std::size_t>(r.edge)], prefix + r.id);
        set(n, "shape", "box");
        set(n, "label", r.id);
        set(n, "height", "0.3");
        if (r.kind == TransitionKind::sync) {
            set(n, "style", "filled");
            set(n, "fillcolor", "gray85");
        }
        for (int p : r.pre)
            edge(g, places[static_cast<std::size_t>(p)], n);
        for (int p : r.post)
            edge(g, n, places[static_cast<std::size_t>(p)]);
    }
    if (net.initial_markings.size() > 1) {
        std::string text = "initial markings (one is chosen):";
        for (const Marking& m : net.initial_markings) {
            text += " {";
            for (std::size_t i = 0; i < m.size(); ++i)
                text += (i ? "," : "") + net.places[static_cast<std::size_t>(m[i])].id;
            text += "}";
        }
        Agnode_t* n = node(g, prefix + "markings");
        set(n, "shape", "note");
        set(n, "label", text);
    }
}

// cgraph orders subgraphs by object ID, and its default ID for a named object is the address of
// the interned name, so agwrite's order changed from run to run (and machine to machine). Named
// objects get even IDs in creation order instead; anonymous ones keep cgraph's odd counter.
struct CreationOrderIds {
    Agraph_t* root;
    std::unordered_map<std::string, IDTYPE> ids;
    std::vector<char*> names; // names[k] has ID 2(k+1); interned with agstrdup, as agwrite expects
    IDTYPE next_anonymous = 1;
};

void* ids_open(Agraph_t* g, Agdisc_t*) {
    return new CreationOrderIds{g, {}, {}, 1};
}
long ids_map(void* state, int, char* str, IDTYPE* id, int create) {
    auto* s = static_cast<CreationOrderIds*>(state);
    if (str == nullptr) {
        *id = s->next_anonymous;
        s->next_anonymous += 2;
        return 1;
    }
    if (auto it = s->ids.find(str); it != s->ids.end()) {
        *id = it->second;
        return 1;
    }
    if (create == 0)
        return 0;
    s->names.push_back(agstrdup(s->root, str));
    *id = static_cast<IDTYPE>(2 * s->names.size());
    s->ids.emplace(str, *id);
    return 1;
}
long ids_alloc(void*, int, IDTYPE) {
    return 0; // callers may not choose IDs
}
void ids_free(void*, int, IDTYPE) {} // names live until the graph's string pool closes
char* ids_print(void* state, int, IDTYPE id) {
    auto* s = static_cast<CreationOrderIds*>(state);
    if (id % 2 != 0 || id == 0 || id / 2 > s->names.size())
        return nullptr;
    return s->names[id / 2 - 1];
}
void ids_close(void* state) {
    delete static_cast<CreationOrderIds*>(state);
}
void ids_register(void*, int, void*) {}

Agiddisc_t creation_order_iddisc = {ids_open,  ids_map,   ids_alloc,   ids_free,
                                    ids_print, ids_close, ids_register};
Agdisc_t creation_order_disc = {&AgMemDisc, &creation_order_iddisc, &AgIoDisc};

struct GraphDeleter {
    void operator()(Agraph_t* g) const { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphDeleter>;

GraphPtr build_graph(const CompiledSpec& spec, View view) {
    Agdesc_t desc = Agdirected;
    GraphPtr g(agopen(mut(std::string("sfg")), desc, &creation_order_disc));
    set(g.get(), "rankdir", "LR");
    set(g.get(), "forcelabels", "true");
    set(g.get(), "fontname", "Helvetica");
    agattr(g.get(), AGNODE, mut(std::string("fontname")), mut(std::string("Helvetica")));
    agattr(g.get(), AGEDGE, mut(std::string("fontname")), mut(std::string("Helvetica")));
    set(g.get(), "label", spec.file);
    set(g.get(), "labelloc", "t");
    int index = 0;
    for (const CompiledVariable& v : spec.variables) {
        if (!v.sfg)
            continue;
        std::string prefix = fmt::format("v{}_", index++);
        Agraph_t* var = subgraph(g.get(), "cluster_" + prefix + "var", "var " + v.name);
        if (view == View::sfg) {
            add_sfg(var, prefix + "sfg_", *v.sfg);
        } else if (view == View::net) {
            add_net(var, prefix + "net_", *v.net);
        } else {
            add_sfg(subgraph(var, "cluster_" + prefix + "sfg", "SFG"), prefix + "sfg_", *v.sfg);
            add_net(subgraph(var, "cluster_" + prefix + "net", "Petri net N(G)"), prefix + "net_",
                    *v.net);
        }
    }
    return g;
}

} // namespace

std::string to_dot(const CompiledSpec& spec, View view) {
    GraphPtr g = build_graph(spec, view);
    char* buf = nullptr;
    std::size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    if (f == nullptr)
        return {};
    agwrite(g.get(), f);
    std::fclose(f);
    std::string out(buf, len);
    std::free(buf);
    return out;
}

std::string render_image(const CompiledSpec& spec, View view, const std::string& format,
                         const std::string& path) {
    if (std::FILE* probe = std::fopen(path.c_str(), "wb"); probe == nullptr)
        return fmt::format("cannot write '{}': {}", path, std::strerror(errno));
    else
        std::fclose(probe);
    agseterr(AGERR); // our own messages only; Graphviz's warnings are not the user's concern
    GraphPtr g = build_graph(spec, view);
    // One context for the process: Graphviz 2.42's pango plugin keeps a pointer to the last
    // font name, which gvFreeContext frees, so a second context read freed memory (ASan saw it
    // when rendering SVG then PNG). Never freed; the OS reclaims it.
    static GVC_t* const gvc = gvContext();
    if (gvc == nullptr)
        return "cannot start Graphviz";
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
