// The one printer of findings for people (after tsan_report.cpp): a block per finding naming
// both events, their threads, ops and places, then a summary line.
#include "sfg/runtime/report.hpp"

#include <fmt/format.h>
#include <ostream>

namespace sfg {

const char* describe(Op op) {
    switch (op) {
    case Op::read:
        return "read";
    case Op::write:
        return "write";
    default:
        return to_string(op);
    }
}

std::vector<Finding> to_findings(const std::vector<Race>& races, const Symbols& syms) {
    std::vector<Finding> out;
    out.reserve(races.size());
    for (const Race& r : races)
        out.push_back({FindingKind::race, syms.vars.name(r.var), r.access, r.with, {}});
    return out;
}

namespace {

std::string capitalized(const char* s) {
    std::string r(s);
    if (!r.empty() && r[0] >= 'a' && r[0] <= 'z')
        r[0] = static_cast<char>(r[0] - 'a' + 'A');
    return r;
}

std::string place(const AccessRef& a, const Symbols& syms, std::string_view file) {
    std::string s = fmt::format("event {}", a.event);
    if (a.line)
        s += fmt::format(" ({}:{})", file, a.line);
    if (a.location != no_object)
        s += fmt::format(" at {}", syms.locations.name(a.location));
    return s;
}

const char* noun(FindingKind k, std::size_t n) {
    switch (k) {
    case FindingKind::race:
        return n == 1 ? "race" : "races";
    case FindingKind::violation:
        return n == 1 ? "violation" : "violations";
    case FindingKind::warning:
        break;
    }
    return n == 1 ? "warning" : "warnings";
}

} // namespace

void print_text_report(std::ostream& out, const std::vector<AnalysisReport>& reports,
                       const Symbols& syms, std::string_view trace_file, std::uint64_t events,
                       std::size_t max_reports) {
    const std::string rule(18, '=');
    std::string summary = fmt::format("SUMMARY: {} events", events);
    for (const AnalysisReport& rep : reports) {
        std::size_t shown = 0;
        FindingKind kind = rep.name == "eraser"    ? FindingKind::warning
                           : rep.name == "enforce" ? FindingKind::violation
                                                   : FindingKind::race;
        for (const Finding& f : rep.findings) {
            kind = f.kind;
            if (max_reports && shown == max_reports)
                break;
            ++shown;
            std::string block = rule + "\n";
            switch (f.kind) {
            case FindingKind::race:
                block += fmt::format("WARNING: data race on {} ({})\n", f.var, rep.name);
                break;
            case FindingKind::violation:
                block += fmt::format("ERROR: discipline of {} violated ({})\n", f.var, rep.name);
                break;
            case FindingKind::warning:
                block += fmt::format("WARNING: lockset discipline of {} violated ({})\n", f.var,
                                     rep.name);
                break;
            }
            const AccessRef& a = f.access;
            block += fmt::format("  {} of {} by thread {}, {}\n", capitalized(describe(a.op)),
                                 f.var, syms.threads.name(a.thread), place(a, syms, trace_file));
            if (f.with) {
                const AccessRef& w = *f.with;
                block +=
                    fmt::format("  Previous {} of {} by thread {}, {}\n", describe(w.op), f.var,
                                syms.threads.name(w.thread), place(w, syms, trace_file));
            }
            if (!f.message.empty())
                block += fmt::format("  {}\n", f.message);
            block += rule + "\n";
            out << block;
        }
        if (shown < rep.findings.size())
            out << fmt::format("{}: {} more not shown (--max-reports {})\n", rep.name,
                               rep.findings.size() - shown, max_reports);
        summary += fmt::format("; {}: {} {}", rep.name, rep.findings.size(),
                               noun(kind, rep.findings.size()));
    }
    out << summary << "\n";
}

} // namespace sfg
