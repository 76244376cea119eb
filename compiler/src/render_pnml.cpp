// PNML 2009 (ISO/IEC 15909-2) place/transition nets.
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"

#include <fmt/format.h>

#include <ostream>
#include <sstream>

namespace sfg {

namespace {
std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

// PNML ids are XML IDs: letters, digits, '_', '-', '.'; our ids map one-to-one by escaping.
std::string xml_id(const std::string& prefix, const std::string& id) {
    std::string out = prefix;
    for (char c : id) {
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
            out += c;
        else
            out += fmt::format("-{:02x}", static_cast<unsigned char>(c));
    }
    return out;
}
} // namespace

void write_pnml(std::ostream& os, const CompiledSpec& spec) {
    require_listed(spec, "write_pnml");
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<pnml xmlns=\"http://www.pnml.org/version-2009/grammar/pnml\">\n";
    int index = 0;
    for (const CompiledVariable& v : spec.variables) {
        if (!v.net)
            continue;
        if (!os)
            return; // the output failed or hit its limit: stop formatting
        // One net at a time in memory: the text of a variable is written before the next.
        std::string out;
        const Net& n = *v.net;
        std::string vp = fmt::format("v{}_", index++);
        out += fmt::format("  <net id=\"{}\" type=\"http://www.pnml.org/version-2009/grammar/"
                           "ptnet\">\n    <name><text>{}</text></name>\n    <page id=\"{}page\">\n",
                           xml_id(vp, v.name), xml_escape(v.name), vp);
        auto place = [&](const std::string& id, const std::string& name, int tokens) {
            out += fmt::format("      <place id=\"{}\"><name><text>{}</text></name>", id,
                               xml_escape(name));
            if (tokens)
                out += fmt::format("<initialMarking><text>{}</text></initialMarking>", tokens);
            out += "</place>\n";
        };
        auto transition = [&](const std::string& id, const std::string& name) {
            out += fmt::format("      <transition id=\"{}\"><name><text>{}</text></name>"
                               "</transition>\n",
                               id, xml_escape(name));
        };
        int arc = 0;
        auto arc_to = [&](const std::string& from, const std::string& to) {
            out += fmt::format("      <arc id=\"{}arc{}\" source=\"{}\" target=\"{}\"/>\n", vp,
                               arc++, from, to);
        };
        for (const Place& p : n.places)
            place(xml_id(vp + "p.", p.id), p.id, 0);
        // The one initial marking PNML allows: a start token, and a choice of in-mode.
        place(vp + "start", "start", 1);
        for (std::size_t i = 0; i < n.initial_markings.size(); ++i) {
            std::string t = fmt::format("{}init{}", vp, i);
            transition(t, fmt::format("init[{}]", i));
            arc_to(vp + "start", t);
            for (std::uint32_t p : n.initial_markings[i])
                arc_to(t, xml_id(vp + "p.", n.places[static_cast<std::size_t>(p)].id));
        }
        for (const Transition& r : n.transitions) {
            std::string t = xml_id(vp + "t.", r.id);
            transition(t, r.id);
            for (std::uint32_t p : r.pre)
                arc_to(xml_id(vp + "p.", n.places[static_cast<std::size_t>(p)].id), t);
            for (std::uint32_t p : r.post)
                arc_to(t, xml_id(vp + "p.", n.places[static_cast<std::size_t>(p)].id));
        }
        out += "    </page>\n  </net>\n";
        os << out;
    }
    os << "</pnml>\n";
}

std::string to_pnml(const CompiledSpec& spec) {
    std::ostringstream out;
    write_pnml(out, spec);
    return out.str();
}

} // namespace sfg
