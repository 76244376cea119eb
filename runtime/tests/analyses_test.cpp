// The registry of analyses and the one rendering of findings (report.hpp, docs/json.md).
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <sstream>

using namespace sfg;

namespace {

// Reads `text` into `a`, then returns its report.
AnalysisReport run(RunningAnalysis& a, const std::string& text, Symbols& syms) {
    const TraceResult r = read_trace_text(text, "t.std", syms, a.analysis());
    REQUIRE(r.ok());
    a.analysis().finish(syms);
    return a.report(syms);
}

} // namespace

TEST_CASE("registry: every name makes its analysis, unknown names none") {
    CHECK(analysis_names() == "hb, fasttrack, goldilocks, eraser, enforce, singletrack");
    for (const AnalysisInfo& info : analysis_registry()) {
        std::unique_ptr<RunningAnalysis> a = make_analysis(info.name);
        REQUIRE(a);
        CHECK(a->info().name == info.name);
    }
    CHECK(!make_analysis("tsan"));
    CHECK(find_analysis("enforce")->needs_disciplines);
    CHECK(!find_analysis("eraser")->counts_as_finding);
}

TEST_CASE("registry: race detectors find the first race, and reset forgets the trace") {
    const std::string racy = "T0|fork(T1)\nT0|w(x)\nT1|w(x)\n";
    for (const char* name : {"hb", "fasttrack", "goldilocks"}) {
        std::unique_ptr<RunningAnalysis> a = make_analysis(name);
        Symbols syms;
        const AnalysisReport rep = run(*a, racy, syms);
        REQUIRE(rep.findings.size() == 1);
        CHECK(rep.kind == FindingKind::race);
        CHECK(rep.findings[0].var == "x");
        CHECK(rep.findings[0].access.event == 3);
        CHECK(rep.findings[0].with->event == 2);
        a->reset();
        Symbols fresh;
        CHECK(run(*a, "T0|w(x)\nT0|w(x)\n", fresh).findings.empty());
    }
}

TEST_CASE("registry: enforce keeps its disciplines across reset") {
    Net net; // EX(T0) alone: only T0 may touch the variable
    net.modes.push_back({ModeKind::EX, {"T0"}});
    net.places.push_back({"Acc[T0:0]", PlaceKind::Acc, "T0", 0, std::nullopt});
    net.initial_markings.push_back({0});
    AnalysisInputs in;
    in.disciplines.emplace_back("x", &net);
    std::unique_ptr<RunningAnalysis> a = make_analysis("enforce", in);
    for (int round = 0; round < 2; ++round) {
        Symbols syms;
        const AnalysisReport rep = run(*a, "T0|w(x)\nT1|r(x)\n", syms);
        REQUIRE(rep.findings.size() == 1);
        CHECK(rep.findings[0].kind == FindingKind::violation);
        CHECK(rep.findings[0].access.event == 2);
        CHECK(!rep.findings[0].message.empty());
        a->reset();
    }
}

TEST_CASE("findings: conflicts and cycles render in text and JSON") {
    Symbols syms;
    const ThreadId t = syms.threads.intern("T1"), u = syms.threads.intern("T2");
    Finding conflict;
    conflict.kind = FindingKind::conflict;
    conflict.var = "x";
    conflict.block = 3;
    conflict.access = {7, t, Op::write, 7, no_object};
    conflict.with = AccessRef{5, u, Op::read, 5, no_object};
    Finding cycle;
    cycle.kind = FindingKind::cycle;
    cycle.access = {9, u, Op::end, 9, no_object};
    cycle.cycle = {3, 6};
    const std::vector<AnalysisReport> reports{
        {"determinism", FindingKind::conflict, {conflict, cycle}}};

    std::ostringstream json;
    write_json_report(json, reports, syms, 9, 0);
    const std::string j = json.str();
    CHECK(j.find("\"findings\": [") != std::string::npos);
    CHECK(j.find("\"kind\": \"conflict\",\n          \"block\": 3") != std::string::npos);
    CHECK(j.find("\"with_event\": 5") != std::string::npos);
    CHECK(j.find("\"blocks\": [\n            3,\n            6\n          ]") != std::string::npos);

    std::ostringstream text;
    print_text_report(text, reports, syms, "t.std", 9, 0);
    const std::string s = text.str();
    CHECK(s.find("ERROR: conflict on x in the deterministic block of event 3") !=
          std::string::npos);
    CHECK(s.find("Write of x by thread T1, event 7") != std::string::npos);
    CHECK(s.find("ERROR: cycle of transactions 3 -> 6") != std::string::npos);
    CHECK(s.find("SUMMARY: 9 events; determinism: 1 conflict, 1 cycle") != std::string::npos);
}
