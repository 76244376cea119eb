// Findings as plain data (after ThreadSanitizer's tsan_report: finding what is wrong is separate
// from printing it). Analyses produce these; one reporter prints them for people (report.cpp)
// and the sfgc driver writes them as JSON.
#pragma once

#include "sfg/runtime/event.hpp"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

// Where an event is, compactly, as analyses keep it per variable.
struct Site {
    std::uint64_t event = 0; // 0: none
    std::uint32_t line = 0;
    ObjId location = no_object;
    static Site of(const Event& e) { return {e.number, e.line, e.location}; }
};

// One event as a finding names it.
struct AccessRef {
    std::uint64_t event = 0;
    ThreadId thread = 0;
    Op op = Op::read;
    std::uint32_t line = 0;
    ObjId location = no_object;
    static AccessRef of(const Event& e) { return {e.number, e.thread, e.op, e.line, e.location}; }
    static AccessRef of(const Site& s, ThreadId t, Op op) {
        return {s.event, t, op, s.line, s.location};
    }
};

// The first racy event of a variable (docs/traces.md): `access` is the smallest event j that
// conflicts with an earlier event not happening before it; `with` is one such earlier event.
struct Race {
    ObjId var = no_object;
    AccessRef access;
    AccessRef with;
};

// What a finding is (docs/json.md): a race (hb, fasttrack, goldilocks), a violation of a
// discipline (enforce), a lockset warning (eraser), a conflict inside a deterministic block or a
// cycle of transactions (determinism, SingleTrack), a misuse of the runtime; and what only the
// model checker finds in a program (docs/programs.md): a failed assert, a division by zero, a
// deadlock, an ill-formed operation, a search bound reached.
enum class FindingKind : std::uint8_t {
    race,
    violation,
    warning,
    conflict,
    cycle,
    misuse,
    assert_,
    divzero,
    deadlock,
    ill_formed,
    bound,
};
// "race", "violation", "warning", "conflict", "cycle", "misuse", "assert", "divzero", "deadlock",
// "ill-formed", "bound"
const char* to_string(FindingKind k);

// One finding of any analysis: plain data, rendered by print_text_report and write_json_report.
struct Finding {
    FindingKind kind = FindingKind::race;
    std::string var;               // the variable (or lock) it is about; may be empty
    AccessRef access;              // the reported event
    std::optional<AccessRef> with; // the earlier event of the pair, if any
    // conflict: the `begin` event of the block; cycle: the block it is reported for, and the
    // transactions of the cycle, each by its `begin` event (a unary transaction by its event), in
    // order.
    std::optional<std::uint64_t> block;
    std::vector<std::uint64_t> cycle;
    std::string message; // may be empty
};

// One analysis' findings, in event order.
struct AnalysisReport {
    std::string name;                     // "hb", "fasttrack", "goldilocks", "eraser", ...
    FindingKind kind = FindingKind::race; // what it finds (for the summary when it found none)
    std::vector<Finding> findings;
};

std::vector<Finding> to_findings(const std::vector<Race>& races, const Symbols& syms);

// One finding as the text report shows it: a block between rules of '=', ending in a newline.
std::string format_finding(const Finding& f, std::string_view analysis, const Symbols& syms,
                           std::string_view trace_file);
// A stream that is well-formed (well_formed.hpp) but that an analysis cannot accept, e.g. a
// `begin` inside a deterministic block (docs/determinism.md): an error in the input.
struct StreamError {
    std::uint64_t event = 0;
    std::uint32_t line = 0; // 0: none
    std::string message;
};

// The human-readable report: one block per finding (at most `max_reports` per analysis; 0 means
// all), like a ThreadSanitizer report, then a summary line.
void print_text_report(std::ostream& out, const std::vector<AnalysisReport>& reports,
                       const Symbols& syms, std::string_view trace_file, std::uint64_t events,
                       std::size_t max_reports);

// The JSON report of `sfgc trace --format json` (docs/json.md), indented by 2, with a final
// newline; names that are not UTF-8 get U+FFFD.
void write_json_report(std::ostream& out, const std::vector<AnalysisReport>& reports,
                       const Symbols& syms, std::uint64_t events, std::size_t max_reports);

// OpInfo::prose: "r" -> "read", "w" -> "write", others their trace spelling.
const char* describe(Op op);

} // namespace sfg
