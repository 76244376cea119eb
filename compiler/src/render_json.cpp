// The compiled spec as JSON (docs/tutorial.md, "JSON for tools"), streamed: each mode, edge, place,
// transition and arc is formatted on its own and written at once, so time and memory stay
// proportional to one item, not to the document (a large net is hundreds of megabytes of JSON).
// The text is exactly nlohmann::json's dump(2) of the whole document.
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"

#include "json_stream.hpp"

#include <sstream>

namespace sfg {

namespace {

using json = nlohmann::ordered_json;

const char* kind_name(ModeKind k) {
    switch (k) {
    case ModeKind::EX:
        return "EX";
    case ModeKind::RS:
        return "RS";
    case ModeKind::LOCK:
        return "LOCK";
    }
    return "?";
}

void write_sfg(JsonStream& js, const Discipline& g) {
    js.begin_object();
    js.key("modes");
    js.begin_array();
    int a = 0;
    for (const AccessMode& m : g.modes) {
        json j = {{"id", a++}, {"kind", kind_name(m.kind)}, {"threads", m.threads}};
        if (m.kind == ModeKind::LOCK)
            j["lock"] = m.lock;
        js.item(j);
    }
    js.end_array();
    js.key("edges");
    js.begin_array();
    int id = 0;
    for (const ModeEdge& e : g.edges)
        js.item(json{{"id", id++}, {"from", e.from}, {"to", e.to}, {"mech", e.mech.label()}});
    js.end_array();
    js.member("in", g.in);
    js.member("out", g.out);
    js.end_object();
}

void write_net(JsonStream& js, const Net& n) {
    js.begin_object();
    js.key("places");
    js.begin_array();
    for (const Place& p : n.places) {
        json j = {{"id", p.id}, {"kind", to_string(p.kind)}, {"thread", p.thread}};
        if (p.kind == PlaceKind::Acc)
            j["mode"] = *p.mode;
        else
            j["edge"] = *p.edge;
        js.item(j);
    }
    js.end_array();
    js.key("transitions");
    js.begin_array();
    for (const Transition& r : n.transitions)
        js.item(json{{"id", r.id},
                     {"kind", to_string(r.kind)},
                     {"thread", r.thread.empty() ? json(nullptr) : json(r.thread)},
                     {"edge", r.edge}});
    js.end_array();
    js.key("arcs");
    js.begin_array();
    for (const Transition& r : n.transitions) {
        for (std::uint32_t p : r.pre)
            js.item(json{n.places[p].id, r.id});
        for (std::uint32_t p : r.post)
            js.item(json{r.id, n.places[p].id});
    }
    js.end_array();
    js.key("initial_markings");
    js.begin_array();
    for (const Marking& m : n.initial_markings) {
        json ids = json::array();
        for (std::uint32_t p : m)
            ids.push_back(n.places[p].id);
        js.item(ids);
    }
    js.end_array();
    js.end_object();
}

} // namespace

void write_json(std::ostream& out, const std::string& file, const CompiledSpec* spec,
                const Diagnostics& diags) {
    if (spec)
        require_listed(*spec, "write_json");
    JsonStream js(out);
    js.begin_object();
    js.member("file", file);
    js.member("threads", spec ? spec->threads : std::vector<std::string>{});
    js.key("mechanisms");
    js.begin_array();
    if (spec)
        for (const MechanismDecl& m : spec->mechanisms) {
            json j = {{"name", m.name}, {"kind", to_string(m.kind)}};
            if (m.kind == MechKind::barrier)
                j["threads"] = m.threads;
            js.item(j);
        }
    js.end_array();
    // Groups are sugar, expanded everywhere else; listed only in specs that declare one.
    if (spec && !spec->groups.empty()) {
        js.key("groups");
        js.begin_array();
        for (const GroupDecl& g : spec->groups)
            js.item(json{{"name", g.name}, {"threads", g.threads}});
        js.end_array();
    }
    js.key("variables");
    js.begin_array();
    if (spec)
        for (const CompiledVariable& v : spec->variables) {
            if (!out)
                return; // the output failed or hit its limit: stop formatting
            js.begin_item();
            js.begin_object();
            js.member("name", v.name);
            js.key("sfg");
            if (v.sfg)
                write_sfg(js, *v.sfg);
            else
                js.value(nullptr);
            js.key("net");
            if (v.net)
                write_net(js, *v.net);
            else
                js.value(nullptr);
            js.end_object();
        }
    js.end_array();
    js.key("diagnostics");
    js.begin_array();
    for (const Diagnostic& d : diags.sorted())
        js.item(json{{"severity", to_string(d.severity)},
                     {"line", d.loc.line},
                     {"col", d.loc.col},
                     {"message", d.message}});
    js.end_array();
    js.end_object();
    out << '\n';
}

std::string to_json(const std::string& file, const CompiledSpec* spec, const Diagnostics& diags) {
    std::ostringstream out;
    write_json(out, file, spec, diags);
    return out.str();
}

} // namespace sfg
