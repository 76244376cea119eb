// `sfgc trace FILE [--spec SPEC.sfg] [--analysis LIST] [--format text|json] [--max-reports N]
// [--threads auto|N]`
// (docs/traces.md): the trace is read once, every selected analysis consuming the events as they
// are parsed; findings are printed for people (like ThreadSanitizer) or as JSON.
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"
#include "sfg/runtime/trace_file.hpp"
#include "slp_io.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/registry/slp_analyses.hpp"
#include "sfg/runtime/report.hpp"
#include "sfg/runtime/trace.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>
#include <variant>

namespace sfgc {

namespace {

// Whether `file` is an SLP (docs/compressed.md), by its magic bytes; standard input is read as
// a trace (an SLP there is expanded as it streams).
bool is_slp_file(const std::string& file) {
    if (file == "-")
        return false;
    std::ifstream in(file, std::ios::binary);
    char head[8] = {};
    in.read(head, sizeof head);
    return sfg::is_slp(std::string_view(head, static_cast<std::size_t>(in.gcount())));
}

// What `sfgc trace` was asked.
struct TraceArgs {
    std::string file, spec_file, list, format = "text", threads = "auto", slp_mode = "auto";
    std::size_t max_reports = 0;
    SlpFormat slp_format;
    std::uint64_t max_memory = default_max_memory_mib;
};

void add_trace_options(CLI::App& app, TraceArgs& a) {
    app.add_option("FILE", a.file, "the trace ('-' for standard input)")->required();
    app.add_option("--spec", a.spec_file, "the .sfg specification: disciplines for `enforce`");
    app.add_option("--analysis", a.list,
                   fmt::format("comma-separated analyses from: {} (default: hb; with --spec: "
                               "enforce,hb)",
                               sfg::analysis_names()));
    app.add_option("--format", a.format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    app.add_option("--threads", a.threads,
                   "N (1-64): parse the trace on N threads while this one checks and analyses it "
                   "(the same results; 1: all on one thread); auto (default): every core, up to "
                   "8, for a file of 1 MB or more, else 1")
        ->check(thread_count());
    app.add_option("--max-reports", a.max_reports,
                   "show at most N findings per analysis (0, the default: all)")
        ->check(non_negative());
    add_slp_format_options(app, a.slp_format);
    app.add_option("--slp-mode", a.slp_mode,
                   "for an SLP: grammar (hb and eraser on the grammar, never expanded), expand "
                   "(every analysis on the expanded events), auto (default: grammar when the "
                   "compression ratio is at least 100, docs/compressed.md)")
        ->check(CLI::IsMember({"auto", "grammar", "expand"}));
    add_memory_option(app, a.max_memory);
}

// The analyses, in the order asked for, each once; nothing after the error.
std::optional<std::vector<std::string>> chosen_analyses(const TraceArgs& a) {
    const std::string list = !a.list.empty() ? a.list : a.spec_file.empty() ? "hb" : "enforce,hb";
    const sfg::AnalysisList parsed = sfg::parse_analysis_list(list);
    if (parsed.unknown) {
        fmt::print(stderr, "sfgc trace: error: unknown analysis '{}' (choose from {})\n",
                   *parsed.unknown, sfg::analysis_names());
        return std::nullopt;
    }
    std::vector<std::string> names;
    for (const sfg::AnalysisInfo* info : parsed.analyses) {
        if (info->needs_disciplines && a.spec_file.empty()) {
            fmt::print(stderr, "sfgc trace: error: enforce needs --spec SPEC.sfg: the "
                               "disciplines to enforce\n");
            return std::nullopt;
        }
        names.emplace_back(info->name);
    }
    return names;
}

// The specification, when given: its errors are input errors. False after them.
bool load_spec(const std::string& spec_file, std::optional<sfg::CompiledSpec>& spec) {
    if (spec_file.empty())
        return true;
    std::optional<std::string> text = read_input(spec_file);
    if (!text)
        return false;
    sfg::SourceFile source(spec_file, std::move(*text));
    sfg::Diagnostics diags;
    spec = sfg::compile_spec(source, diags);
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    // Value labels are enforced on vw(v=K) / vr(v=K), queue labels on enq(q,o) / deq(q,o)
    // (docs/traces.md, docs/enforcement.md).
    return spec.has_value();
}

// The running analyses, each fed by `fanout` too; false after the error.
bool make_analyses(const std::vector<std::string>& names, const sfg::AnalysisInputs& inputs,
                   std::vector<std::unique_ptr<sfg::RunningAnalysis>>& selected,
                   sfg::Fanout& fanout) {
    for (const std::string& name : names) {
        std::unique_ptr<sfg::RunningAnalysis> a = sfg::make_analysis(name, inputs);
        if (!a) {
            fmt::print(stderr, "sfgc trace: error: {}: not available in this build\n", name);
            return false;
        }
        fanout.add(a->analysis());
        selected.push_back(std::move(a));
    }
    return true;
}

// What one pass over the trace gave.
struct TraceRun {
    std::vector<sfg::AnalysisReport> reports;
    std::uint64_t events = 0;
};

// An SLP: `hb` and `eraser` may run on the grammar (analyse_slp), the others on its expansion.
std::optional<TraceRun>
analyse_slp_file(const TraceArgs& a, sfg::Symbols& syms,
                 std::vector<std::unique_ptr<sfg::RunningAnalysis>>& selected) {
    LoadedSlp slp;
    if (!load_slp(a.file, a.slp_format, syms, slp, slp_reading_threads(a.threads)))
        return std::nullopt;
    const sfg::SlpSource source{
        slp.events(), slp.size(), [&]() -> const sfg::Slp& { return slp.grammar(); },
        [&](sfg::Analysis& sink) {
            return slp.expand(a.file, syms, sink, {expansion_threads(a.threads, slp.events())});
        }};
    const sfg::SlpMode mode = a.slp_mode == "grammar"  ? sfg::SlpMode::grammar
                              : a.slp_mode == "expand" ? sfg::SlpMode::expand
                                                       : sfg::SlpMode::automatic;
    auto result = sfg::analyse_slp(source, mode, selected, a.file, syms);
    if (const auto* error = std::get_if<sfg::TraceError>(&result)) {
        fmt::print(stderr, "{}\n", error->to_string());
        return std::nullopt;
    }
    return TraceRun{std::move(std::get<std::vector<sfg::AnalysisReport>>(result)), slp.events()};
}

// A trace: the analyses see each event as it is read.
std::optional<TraceRun>
analyse_trace_file(const TraceArgs& a, sfg::Symbols& syms,
                   const std::vector<std::unique_ptr<sfg::RunningAnalysis>>& selected,
                   sfg::Fanout& fanout) {
    // One analysis takes the events directly: one virtual call an event fewer.
    sfg::Analysis& sink = selected.size() == 1 ? selected.front()->analysis() : fanout;
    sfg::TraceResult read =
        sfg::read_trace_file_parallel(a.file, syms, sink, {reading_threads(a.threads, a.file)});
    if (!read.ok()) {
        fmt::print(stderr, "{}\n", read.error->to_string());
        return std::nullopt;
    }
    sink.finish(syms);
    TraceRun run;
    run.events = read.events;
    for (const auto& analysis : selected)
        run.reports.push_back(analysis->report(syms));
    return run;
}

// The findings in text or JSON. Exit 1 when one counts as a finding, 2 when an analysis
// rejected the stream (singletrack: blocks that nest), else 0.
int report(const TraceArgs& a, const sfg::Symbols& syms,
           const std::vector<std::unique_ptr<sfg::RunningAnalysis>>& selected,
           const TraceRun& run) {
    const std::string shown = a.file == "-" ? "<stdin>" : a.file;
    for (const auto& analysis : selected)
        if (std::optional<sfg::StreamError> err = analysis->stream_error()) {
            sfg::TraceError e{shown, err->line, err->line ? 1u : 0u,
                              fmt::format("event {}: {}", err->event, err->message)};
            fmt::print(stderr, "{}\n", e.to_string());
            return 2;
        }
    bool found = false;
    for (std::size_t i = 0; i < selected.size(); ++i)
        if (selected[i]->info().counts_as_finding && !run.reports[i].findings.empty())
            found = true;
    if (a.format == "json")
        sfg::write_json_report(std::cout, run.reports, syms, run.events, a.max_reports);
    else
        sfg::print_text_report(std::cout, run.reports, syms, shown, run.events, a.max_reports);
    std::cout.flush();
    return found ? 1 : 0;
}

} // namespace

int run_trace(int argc, char** argv) {
    CLI::App app{"sfgc trace: analyse a trace (one event a line, `THREAD|OP` or "
                 "`THREAD|OP|LOCATION`, or the binary form) for data races and discipline "
                 "violations.\nExit status: 0 nothing found, 1 a race or a violation found "
                 "(eraser's warnings do not count), 2 bad input or usage.",
                 "sfgc trace"};
    TraceArgs a;
    add_trace_options(app, a);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(a.max_memory);
    const std::optional<std::vector<std::string>> names = chosen_analyses(a);
    if (!names)
        return 2;
    std::optional<sfg::CompiledSpec> spec;
    if (!load_spec(a.spec_file, spec))
        return 2;
    sfg::AnalysisInputs inputs;
    if (spec)
        for (const sfg::CompiledVariable& v : spec->variables)
            if (v.net)
                inputs.disciplines.emplace_back(v.name, &*v.net);
    std::vector<std::unique_ptr<sfg::RunningAnalysis>> selected;
    sfg::Fanout fanout;
    if (!make_analyses(*names, inputs, selected, fanout))
        return 2;
    // One pass over the trace or the SLP.
    sfg::Symbols syms;
    std::optional<TraceRun> run = a.slp_format.format == "ziptrack" || is_slp_file(a.file)
                                      ? analyse_slp_file(a, syms, selected)
                                      : analyse_trace_file(a, syms, selected, fanout);
    if (!run)
        return 2;
    return report(a, syms, selected, *run);
}

} // namespace sfgc
