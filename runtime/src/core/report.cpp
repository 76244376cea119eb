// The one printer of findings for people (after tsan_report.cpp): a block per finding naming
// both events, their threads, ops and places, then a summary line.
#include "sfg/runtime/report.hpp"

#include <fmt/format.h>
#include <ostream>

namespace sfg {

const char* describe(Op op) {
    return op_info(op).prose.data(); // a literal: NUL-terminated
}

const char* to_string(FindingKind k) {
    switch (k) {
    case FindingKind::race:
        return "race";
    case FindingKind::violation:
        return "violation";
    case FindingKind::warning:
        return "warning";
    case FindingKind::conflict:
        return "conflict";
    case FindingKind::cycle:
        return "cycle";
    case FindingKind::misuse:
        return "misuse";
    case FindingKind::assert_:
        return "assert";
    case FindingKind::divzero:
        return "divzero";
    case FindingKind::deadlock:
        return "deadlock";
    case FindingKind::ill_formed:
        return "ill-formed";
    case FindingKind::bound:
        break;
    }
    return "bound";
}

std::vector<Finding> to_findings(const std::vector<Race>& races, const Symbols& syms) {
    std::vector<Finding> out;
    out.reserve(races.size());
    for (const Race& r : races) {
        Finding f;
        f.kind = FindingKind::race;
        f.var = syms.vars.name(r.var);
        f.access = r.access;
        f.with = r.with;
        out.push_back(std::move(f));
    }
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

std::string noun(FindingKind k, std::size_t n) {
    return std::string(to_string(k)) + (n == 1 ? "" : "s");
}

std::string event_list(const std::vector<std::uint64_t>& events) {
    std::string s;
    for (std::uint64_t e : events)
        s += fmt::format("{}{}", s.empty() ? "" : " -> ", e);
    return s;
}

} // namespace

std::string format_finding(const Finding& f, std::string_view analysis, const Symbols& syms,
                           std::string_view trace_file) {
    const std::string rule(18, '=');
    std::string block = rule + "\n";
    switch (f.kind) {
    case FindingKind::race:
        block += fmt::format("WARNING: data race on {} ({})\n", f.var, analysis);
        break;
    case FindingKind::violation:
        block += fmt::format("ERROR: discipline of {} violated ({})\n", f.var, analysis);
        break;
    case FindingKind::warning:
        block += fmt::format("WARNING: lockset discipline of {} violated ({})\n", f.var, analysis);
        break;
    case FindingKind::conflict:
        block += fmt::format("ERROR: conflict on {} in the deterministic block of event "
                             "{} ({})\n",
                             f.var, f.block.value_or(0), analysis);
        break;
    case FindingKind::cycle:
        block += fmt::format(
            "ERROR: cycle of transactions {}{} ({})\n", event_list(f.cycle),
            f.block ? fmt::format(" through the deterministic block of event {}", *f.block) : "",
            analysis);
        break;
    case FindingKind::misuse:
        block += fmt::format("ERROR: misuse of {} ({})\n", f.var, analysis);
        break;
    default: // the model checker's own kinds; it prints them itself (checker/report.hpp)
        block += fmt::format("ERROR: {} ({})\n", to_string(f.kind), analysis);
        break;
    }
    const AccessRef& a = f.access;
    const std::string of = f.var.empty() ? "" : " of " + f.var;
    if (a.event)
        block += fmt::format("  {}{} by thread {}, {}\n", capitalized(describe(a.op)), of,
                             syms.threads.name(a.thread), place(a, syms, trace_file));
    if (f.with) {
        const AccessRef& w = *f.with;
        block += fmt::format("  Previous {}{} by thread {}, {}\n", describe(w.op), of,
                             syms.threads.name(w.thread), place(w, syms, trace_file));
    }
    if (!f.message.empty())
        block += fmt::format("  {}\n", f.message);
    block += rule + "\n";
    return block;
}

void print_text_report(std::ostream& out, const std::vector<AnalysisReport>& reports,
                       const Symbols& syms, std::string_view trace_file, std::uint64_t events,
                       std::size_t max_reports) {
    std::string summary = fmt::format("SUMMARY: {} events", events);
    for (const AnalysisReport& rep : reports) {
        std::size_t shown = 0;
        for (const Finding& f : rep.findings) {
            if (max_reports && shown == max_reports)
                break;
            ++shown;
            out << format_finding(f, rep.name, syms, trace_file);
        }
        if (shown < rep.findings.size())
            out << fmt::format("{}: {} more not shown (--max-reports {})\n", rep.name,
                               rep.findings.size() - shown, max_reports);
        if (rep.kind == FindingKind::conflict) { // determinism: conflicts and cycles
            std::size_t conflicts = 0;
            for (const Finding& f : rep.findings)
                conflicts += f.kind == FindingKind::conflict;
            const std::size_t cycles = rep.findings.size() - conflicts;
            summary += fmt::format("; {}: {} {}, {} {}", rep.name, conflicts,
                                   noun(FindingKind::conflict, conflicts), cycles,
                                   noun(FindingKind::cycle, cycles));
        } else {
            summary += fmt::format("; {}: {} {}", rep.name, rep.findings.size(),
                                   noun(rep.kind, rep.findings.size()));
        }
    }
    out << summary << "\n";
}

} // namespace sfg
