// What fuzz_trace_text and fuzz_trace_binary share: every analysis and the enforcer over the
// events a reader delivers, every rendering of their findings, and the oracles that need no
// expected output (abort() on a mismatch, so the fuzzer saves the input):
// - hb, fasttrack and goldilocks report the same first racy event of the same variables, and on
//   traces of up to 512 events those of happens-before by its definition (runtime/tests'
//   brute-force oracle: barrier generations, fork and join, locks, volatiles);
// - the enforcer as sfgc runs it (one-token variables grouped, the others' candidate sets as
//   products) gives the verdicts and explanations of the per-variable reference with explicit
//   candidate sets (enforce.hpp), for the first violations and with report_all;
// - the events read, written back in the other format and read again, are the same events.
#pragma once

#include "fuzz_limits.hpp"
#include "random_trace.hpp" // the brute-force happens-before oracle (runtime/tests)
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/determinism/analysis_singletrack.hpp"
#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/race/analysis_eraser.hpp"
#include "sfg/runtime/race/analysis_fasttrack.hpp"
#include "sfg/runtime/race/analysis_goldilocks.hpp"
#include "sfg/runtime/race/analysis_hb.hpp"
#include "sfg/runtime/report.hpp"
#include "sfg/runtime/trace.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace sfg::fuzz {

// The disciplines enforced on every trace: each kind of mechanism once, over short names that
// mutations and the dictionary hit (docs/traces.md, docs/enforcement.md).
inline constexpr const char* trace_spec = R"(threads t0, t1, t2;
lock m;
volatile v;
barrier b(t0, t1, t2);
discipline tl = EX(t0) | EX(t1) | EX(t2);
var x, x2 : [tl]^m;
var y : [EX(t0) |> ^v EX(t1) |> ^v EX(t2)]^v;
var z : [RS(t0, t1, t2) |> ^b EX(t0)]^b;
var f : EX(t0) |> ^fork RS(t1, t2) |> ^join EX(t0);
var g : EX(t0) |> {fork(t0 -> t1)} EX(t1) |> {join(t1 -> t0)} EX(t0) |> ^m [tl]^m;
var h : EX(t2) |> ^b RS(t0, t1, t2) |> ^b [EX(t0) | EX(t1)]^m;
)";

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "oracle failed: %s\n", what.c_str());
    std::abort();
}

inline const CompiledSpec& enforced_spec() {
    static const CompiledSpec spec = [] {
        const SourceFile file("fuzz_trace.sfg", trace_spec);
        Diagnostics diags;
        std::optional<CompiledSpec> s = compile_spec(file, diags);
        if (!s || !diags.all().empty()) {
            print_diagnostics(std::cerr, file, diags);
            fail("the embedded spec does not compile cleanly");
        }
        return std::move(*s);
    }();
    return spec;
}

// Explicit events as text lines (names, not ids: ids differ between readers of two formats).
struct Recorder : Analysis {
    std::vector<Event> all;
    std::vector<std::string> lines;
    void on_event(const Event& e, const Symbols& syms) override {
        all.push_back(e);
        if (!e.implicit)
            lines.push_back(format_event(e, syms));
    }
};

inline std::string race_key(const std::vector<Race>& races, const Symbols& syms) {
    std::string s;
    for (const Race& r : races)
        s += syms.vars.name(r.var) + "@" + std::to_string(r.access.event) + " ";
    return s;
}

inline std::string violation_key(const std::vector<EnforceViolation>& vs) {
    std::string s;
    for (const EnforceViolation& v : vs)
        s += v.var + "@" + std::to_string(v.event) + ": " + explain(v) + "\n";
    return s;
}

struct Analysed {
    TraceResult result;
    Symbols syms;
    Recorder recorded;
    bool over_budget = false; // stopped by max_trace_threads: nothing else to compare
};

// Vector clocks have a component per thread alive at once (a root thread never gives its slot
// back), so the analyses' state can grow with the square of the threads (30,000 root threads:
// 3.5 GB). sfgc stops that with --max-memory (RLIMIT_DATA), which
// AddressSanitizer's shadow memory rules out here; this sink, first in the fan-out, stops the
// read at the same kind of point instead.
struct ThreadBound : Analysis {
    struct Exceeded {};
    void on_event(const Event&, const Symbols& syms) override {
        if (syms.threads.size() > max_trace_threads)
            throw Exceeded{};
    }
    void finish(const Symbols&) override {}
};

// Runs `read(syms, sink)` into every analysis, checks the analyses' oracles and renders every
// report. The events delivered before an error are a well-formed prefix: they are analysed too.
template <class Read>
Analysed analyse(std::string_view file_name, Read&& read) {
    HbDetector hb;
    FastTrackDetector fasttrack;
    GoldilocksDetector goldilocks;
    EraserDetector eraser;
    SingleTrackDetector singletrack;
    Enforcer enforce; // as sfgc trace runs it
    Enforcer all_grouped({.report_all = true, .group_one_token = true});
    Enforcer all_reference(
        {.report_all = true, .group_one_token = false, .factor_candidates = false});
    for (const CompiledVariable& v : enforced_spec().variables)
        if (v.net)
            for (Enforcer* e : {&enforce, &all_grouped, &all_reference})
                e->add_variable(v.name, *v.net);
    Analysed out;
    Fanout fanout;
    ThreadBound bound;
    for (Analysis* a : std::initializer_list<Analysis*>{
             &bound, &hb, &fasttrack, &goldilocks, &eraser, &singletrack, &enforce, &all_grouped,
             &all_reference, &out.recorded})
        fanout.add(*a);
    Symbols& syms = out.syms;
    try {
        out.result = read(syms, fanout);
    } catch (const ThreadBound::Exceeded&) {
        out.over_budget = true;
        return out;
    }
    fanout.finish(syms);

    const std::string hb_key = race_key(hb.races(), syms);
    if (hb_key != race_key(fasttrack.races(), syms) || hb_key != race_key(goldilocks.races(), syms))
        fail("hb, fasttrack and goldilocks disagree: hb " + hb_key + "| fasttrack " +
             race_key(fasttrack.races(), syms) + "| goldilocks " +
             race_key(goldilocks.races(), syms));
    std::vector<Event> events;
    for (const Event& e : out.recorded.all)
        if (!e.implicit)
            events.push_back(e);
    if (events.size() <= testing::HbOracle::max_events) {
        std::vector<std::pair<std::uint64_t, ObjId>> first; // (event, variable) in event order
        for (const auto& [var, race] : testing::HbOracle(events, syms).first_races())
            first.emplace_back(race.event, var);
        std::sort(first.begin(), first.end());
        std::string want;
        for (const auto& [event, var] : first)
            want += syms.vars.name(var) + "@" + std::to_string(event) + " ";
        if (want != hb_key)
            fail("hb and happens-before by its definition disagree: hb " + hb_key +
                 "| the definition " + want);
    }
    if (violation_key(enforce.violations()) != violation_key(all_reference.violations()))
        fail("enforce (grouped) and the reference disagree on first violations:\n" +
             violation_key(enforce.violations()) + "--- reference:\n" +
             violation_key(all_reference.violations()));
    if (violation_key(all_grouped.all_violations()) !=
        violation_key(all_reference.all_violations()))
        fail("enforce (grouped) and the reference disagree with report_all:\n" +
             violation_key(all_grouped.all_violations()) + "--- reference:\n" +
             violation_key(all_reference.all_violations()));

    const std::vector<AnalysisReport> reports = {
        {"hb", FindingKind::race, to_findings(hb.races(), syms)},
        {"fasttrack", FindingKind::race, to_findings(fasttrack.races(), syms)},
        {"goldilocks", FindingKind::race, to_findings(goldilocks.races(), syms)},
        {"eraser", FindingKind::warning, to_findings(eraser.warnings(), syms)},
        {"enforce", FindingKind::violation, to_findings(enforce.violations())},
        {"enforce-all", FindingKind::violation, to_findings(all_grouped.all_violations())},
        {"singletrack", FindingKind::conflict, singletrack.findings()},
    };
    std::ostringstream text;
    print_text_report(text, reports, syms, file_name, out.result.events, 0);
    print_text_report(text, reports, syms, file_name, out.result.events, 1);
    write_json_report(text, reports, syms, out.result.events, 0);
    write_json_report(text, reports, syms, out.result.events, 1);
    if (out.result.error)
        text << out.result.error->to_string();
    return out;
}

// Writes the explicit events of `recorded` with `Writer` and reads them back with `read`: a
// prefix of a well-formed trace is well-formed, so this must succeed with the same events.
template <class Writer, class Read>
void round_trip(const Recorder& recorded, const Symbols& syms, const char* format, Read&& read) {
    std::ostringstream bytes;
    Writer writer(bytes);
    for (const Event& e : recorded.all)
        writer.on_event(e, syms);
    writer.finish(syms);
    Symbols again;
    Recorder reread;
    const TraceResult r = read(bytes.str(), again, reread);
    if (!r.ok())
        fail(std::string("the events written as ") + format +
             " do not read back: " + r.error->to_string());
    if (reread.lines != recorded.lines) {
        std::string diff;
        for (std::size_t i = 0; i < std::max(reread.lines.size(), recorded.lines.size()); ++i)
            if (i >= reread.lines.size() || i >= recorded.lines.size() ||
                reread.lines[i] != recorded.lines[i]) {
                diff = "event " + std::to_string(i + 1) + ": read '" +
                       (i < recorded.lines.size() ? recorded.lines[i] : "<none>") +
                       "', read back '" + (i < reread.lines.size() ? reread.lines[i] : "<none>") +
                       "'";
                break;
            }
        fail(std::string("the events written as ") + format + " read back differently: " + diff);
    }
}

} // namespace sfg::fuzz
