// The one JSON rendering of findings (docs/json.md, "sfgc trace --format json").
#include "sfg/runtime/report.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace sfg {

namespace {

using Json = nlohmann::ordered_json;

// An analysis' list of findings is named after what it finds; the kinds of determinism and the
// runtime share one list, each finding saying its kind.
const char* list_key(FindingKind k) {
    switch (k) {
    case FindingKind::race:
        return "races";
    case FindingKind::violation:
        return "violations";
    case FindingKind::warning:
        return "warnings";
    default:
        return "findings";
    }
}

bool has_own_list(FindingKind k) {
    return k == FindingKind::race || k == FindingKind::violation || k == FindingKind::warning;
}

// Keys in the order of docs/json.md: "var", "event", "thread", "op", "with_event"; then "line" /
// "location" of the event, "with_thread", "with_op", "with_line", "with_location" of the earlier
// one, "message". Conflicts and cycles lead with "kind" and their blocks.
Json finding_json(const Finding& f, const Symbols& syms) {
    Json j;
    if (!has_own_list(f.kind))
        j["kind"] = to_string(f.kind);
    if (f.block)
        j["block"] = *f.block;
    if (!f.cycle.empty())
        j["blocks"] = f.cycle;
    const AccessRef& a = f.access;
    if (!f.var.empty() || has_own_list(f.kind))
        j["var"] = f.var;
    j["event"] = a.event;
    if (a.event) {
        j["thread"] = syms.threads.name(a.thread);
        j["op"] = to_string(a.op);
    }
    if (f.with)
        j["with_event"] = f.with->event;
    if (a.line)
        j["line"] = a.line;
    if (a.location != no_object)
        j["location"] = syms.locations.name(a.location);
    if (f.with) {
        j["with_thread"] = syms.threads.name(f.with->thread);
        j["with_op"] = to_string(f.with->op);
        if (f.with->line)
            j["with_line"] = f.with->line;
        if (f.with->location != no_object)
            j["with_location"] = syms.locations.name(f.with->location);
    }
    if (!f.message.empty())
        j["message"] = f.message;
    return j;
}

} // namespace

void write_json_report(std::ostream& out, const std::vector<AnalysisReport>& reports,
                       const Symbols& syms, std::uint64_t events, std::size_t max_reports) {
    Json analyses = Json::array();
    for (const AnalysisReport& r : reports) {
        Json list = Json::array();
        std::size_t shown = 0;
        for (const Finding& f : r.findings) {
            if (max_reports && shown == max_reports)
                break;
            ++shown;
            list.push_back(finding_json(f, syms));
        }
        Json a;
        a["name"] = r.name;
        a[list_key(r.kind)] = std::move(list);
        if (shown < r.findings.size())
            a["omitted"] = r.findings.size() - shown;
        analyses.push_back(std::move(a));
    }
    Json doc;
    doc["events"] = events;
    doc["analyses"] = std::move(analyses);
    out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

} // namespace sfg
