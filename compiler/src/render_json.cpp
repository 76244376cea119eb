#include "sfg/compiler/render.hpp"

namespace sfg {

using json = nlohmann::ordered_json;

namespace {

json sfg_json(const Sfg& g) {
    json modes = json::array();
    for (int a = 0; a < g.mode_count(); ++a)
        modes.push_back({{"id", a},
                         {"kind", g.mode(a).kind == ModeKind::EX ? "EX" : "RS"},
                         {"threads", g.mode(a).threads}});
    json edges = json::array();
    int id = 0;
    for (const ModeEdge& e : g.edges())
        edges.push_back({{"id", id++}, {"from", e.from}, {"to", e.to}, {"mech", e.mech.label()}});
    json out = json::object();
    out["modes"] = std::move(modes);
    out["edges"] = std::move(edges);
    out["in"] = g.in;
    out["out"] = g.out;
    return out;
}

json net_json(const Net& n) {
    json places = json::array();
    for (const Place& p : n.places) {
        json j = {{"id", p.id}, {"kind", to_string(p.kind)}, {"thread", p.thread}};
        if (p.kind == PlaceKind::Acc)
            j["mode"] = p.mode;
        else
            j["edge"] = p.edge;
        places.push_back(std::move(j));
    }
    json transitions = json::array();
    json arcs = json::array();
    for (const Transition& r : n.transitions) {
        transitions.push_back({{"id", r.id},
                               {"kind", to_string(r.kind)},
                               {"thread", r.thread.empty() ? json(nullptr) : json(r.thread)},
                               {"edge", r.edge}});
        for (int p : r.pre)
            arcs.push_back({n.places[static_cast<std::size_t>(p)].id, r.id});
        for (int p : r.post)
            arcs.push_back({r.id, n.places[static_cast<std::size_t>(p)].id});
    }
    json markings = json::array();
    for (const Marking& m : n.initial_markings) {
        json ids = json::array();
        for (int p : m)
            ids.push_back(n.places[static_cast<std::size_t>(p)].id);
        markings.push_back(std::move(ids));
    }
    json out = json::object();
    out["places"] = std::move(places);
    out["transitions"] = std::move(transitions);
    out["arcs"] = std::move(arcs);
    out["initial_markings"] = std::move(markings);
    return out;
}

} // namespace

json to_json(const std::string& file, const CompiledSpec* spec, const Diagnostics& diags) {
    json out;
    out["file"] = file;
    out["threads"] = spec ? spec->threads : std::vector<std::string>{};
    json mechs = json::array();
    json vars = json::array();
    if (spec) {
        for (const MechanismDecl& m : spec->mechanisms) {
            json j = {{"name", m.name}, {"kind", to_string(m.kind)}};
            if (m.kind == MechKind::barrier)
                j["threads"] = m.threads;
            mechs.push_back(std::move(j));
        }
        for (const CompiledVariable& v : spec->variables) {
            json j = json::object();
            j["name"] = v.name;
            j["sfg"] = v.sfg ? sfg_json(*v.sfg) : json(nullptr);
            j["net"] = v.net ? net_json(*v.net) : json(nullptr);
            vars.push_back(std::move(j));
        }
    }
    out["mechanisms"] = std::move(mechs);
    out["variables"] = std::move(vars);
    json ds = json::array();
    for (const Diagnostic& d : diags.sorted())
        ds.push_back({{"severity", to_string(d.severity)},
                      {"line", d.loc.line},
                      {"col", d.loc.col},
                      {"message", d.message}});
    out["diagnostics"] = ds;
    return out;
}

} // namespace sfg
