// `sfgc trace FILE [--spec SPEC.sfg] [--analysis LIST] [--format text|json] [--max-reports N]
// [--threads auto|N]`
// (docs/traces.md): the trace is read once, every selected analysis consuming the events as they
// are parsed; findings are printed for people (like ThreadSanitizer) or as JSON.
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/runtime/analysis_eraser.hpp"
#include "sfg/runtime/analysis_fasttrack.hpp"
#include "sfg/runtime/analysis_goldilocks.hpp"
#include "sfg/runtime/analysis_hb.hpp"
#include "sfg/runtime/enforce.hpp"
#include "sfg/runtime/report.hpp"
#include "sfg/runtime/trace.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>

namespace sfgc {

namespace {

// How many threads parse the trace (read_trace_file_parallel): `auto` uses every core, up to 8
// (beyond that the caller's thread, which checks and analyses, is the bottleneck), for a file of
// 1 MB or more; a smaller one is read before a thread would have started.
unsigned reading_threads(const std::string& threads, const std::string& file) {
    if (threads != "auto")
        return static_cast<unsigned>(std::stoul(threads));
    std::error_code ec;
    const auto size = file == "-" ? 0 : std::filesystem::file_size(file, ec);
    if (ec || size < (1u << 20))
        return 1;
    return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

// One selected analysis: the Analysis that consumes the stream, and how to get its findings.
struct Selected {
    std::string name;
    sfg::FindingKind kind;
    std::unique_ptr<sfg::Analysis> analysis;
    std::function<std::vector<sfg::Finding>(const sfg::Symbols&)> findings;
};

template <class Detector>
Selected race_detector(std::string name) {
    auto d = std::make_unique<Detector>();
    auto* p = d.get();
    return {std::move(name), sfg::FindingKind::race, std::move(d),
            [p](const sfg::Symbols& syms) { return sfg::to_findings(p->races(), syms); }};
}

// The analyses by name (docs/traces.md). Adding one is one entry here.
const char* const analysis_names = "hb, fasttrack, goldilocks, eraser, enforce";

std::optional<Selected> make_analysis(const std::string& name, const sfg::CompiledSpec* spec) {
    if (name == "hb")
        return race_detector<sfg::HbDetector>(name);
    if (name == "fasttrack")
        return race_detector<sfg::FastTrackDetector>(name);
    if (name == "goldilocks")
        return race_detector<sfg::GoldilocksDetector>(name);
    if (name == "eraser") {
        auto d = std::make_unique<sfg::EraserDetector>();
        auto* p = d.get();
        return Selected{
            name, sfg::FindingKind::warning, std::move(d),
            [p](const sfg::Symbols& syms) { return sfg::to_findings(p->warnings(), syms); }};
    }
    if (name == "enforce" && spec) {
        auto d = std::make_unique<sfg::Enforcer>();
        for (const sfg::CompiledVariable& v : spec->variables)
            if (v.net)
                d->add_variable(v.name, *v.net);
        auto* p = d.get();
        return Selected{name, sfg::FindingKind::violation, std::move(d), [p](const sfg::Symbols&) {
                            std::vector<sfg::Finding> out;
                            for (const sfg::EnforceViolation& v : p->violations())
                                out.push_back({sfg::FindingKind::violation,
                                               v.var,
                                               {v.event, v.thread, v.op, v.line, v.location},
                                               std::nullopt,
                                               sfg::explain(v)});
                            return out;
                        }};
    }
    return std::nullopt;
}

const char* json_key(sfg::FindingKind k) {
    switch (k) {
    case sfg::FindingKind::race:
        return "races";
    case sfg::FindingKind::violation:
        return "violations";
    case sfg::FindingKind::warning:
        break;
    }
    return "warnings";
}

// Keys in the order of docs/traces.md: "var", "event", "thread", "op", "with_event"; beyond it,
// after those: "line"/"location" of the event, "with_thread", "with_op", "with_line",
// "with_location" of the earlier one, "message"; "omitted" when --max-reports cut the list.
using Json = nlohmann::ordered_json;

Json to_json(const std::vector<sfg::AnalysisReport>& reports, const std::vector<Selected>& selected,
             const sfg::Symbols& syms, std::uint64_t events, std::size_t max_reports) {
    Json analyses = Json::array();
    for (std::size_t i = 0; i < reports.size(); ++i) {
        Json list = Json::array();
        std::size_t shown = 0;
        for (const sfg::Finding& f : reports[i].findings) {
            if (max_reports && shown == max_reports)
                break;
            ++shown;
            const sfg::AccessRef& a = f.access;
            Json j;
            j["var"] = f.var;
            j["event"] = a.event;
            j["thread"] = syms.threads.name(a.thread);
            j["op"] = sfg::to_string(a.op);
            if (f.with)
                j["with_event"] = f.with->event;
            if (a.line)
                j["line"] = a.line;
            if (a.location != sfg::no_object)
                j["location"] = syms.locations.name(a.location);
            if (f.with) {
                j["with_thread"] = syms.threads.name(f.with->thread);
                j["with_op"] = sfg::to_string(f.with->op);
                if (f.with->line)
                    j["with_line"] = f.with->line;
                if (f.with->location != sfg::no_object)
                    j["with_location"] = syms.locations.name(f.with->location);
            }
            if (!f.message.empty())
                j["message"] = f.message;
            list.push_back(std::move(j));
        }
        Json a;
        a["name"] = reports[i].name;
        a[json_key(selected[i].kind)] = std::move(list);
        if (shown < reports[i].findings.size())
            a["omitted"] = reports[i].findings.size() - shown;
        analyses.push_back(std::move(a));
    }
    Json out;
    out["events"] = events;
    out["analyses"] = std::move(analyses);
    return out;
}

} // namespace

int run_trace(int argc, char** argv) {
    CLI::App app{"sfgc trace: analyse a trace (one event a line, `THREAD|OP` or "
                 "`THREAD|OP|LOCATION`, or the binary form) for data races and discipline "
                 "violations.\nExit status: 0 nothing found, 1 a race or a violation found "
                 "(eraser's warnings do not count), 2 bad input or usage.",
                 "sfgc trace"};
    std::string file, spec_file, list, format = "text";
    std::size_t max_reports = 0;
    app.add_option("FILE", file, "the trace ('-' for standard input)")->required();
    app.add_option("--spec", spec_file, "the .sfg specification: disciplines for `enforce`");
    app.add_option("--analysis", list,
                   fmt::format("comma-separated analyses from: {} (default: hb; with --spec: "
                               "enforce,hb)",
                               analysis_names));
    app.add_option("--format", format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    std::string threads = "auto";
    app.add_option("--threads", threads,
                   "N (1-64): parse the trace on N threads while this one checks and analyses it "
                   "(the same results; 1: all on one thread); auto (default): every core, up to "
                   "8, for a file of 1 MB or more, else 1")
        ->check(thread_count());
    app.add_option("--max-reports", max_reports,
                   "show at most N findings per analysis (0, the default: all)")
        ->check(non_negative());
    std::uint64_t max_memory = default_max_memory_mib;
    add_memory_option(app, max_memory);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(max_memory);

    // The analyses, in the order asked for, each once.
    if (list.empty())
        list = spec_file.empty() ? "hb" : "enforce,hb";
    std::vector<std::string> names;
    for (std::size_t pos = 0; pos <= list.size();) {
        std::size_t comma = std::min(list.find(',', pos), list.size());
        std::string name = list.substr(pos, comma - pos);
        name.erase(0, name.find_first_not_of(" \t"));
        name.erase(name.find_last_not_of(" \t") + 1);
        pos = comma + 1;
        if (std::find(names.begin(), names.end(), name) != names.end())
            continue;
        if (name != "hb" && name != "fasttrack" && name != "goldilocks" && name != "eraser" &&
            name != "enforce") {
            fmt::print(stderr, "sfgc trace: error: unknown analysis '{}' (choose from {})\n", name,
                       analysis_names);
            return 2;
        }
        if (name == "enforce" && spec_file.empty()) {
            fmt::print(stderr, "sfgc trace: error: enforce needs --spec SPEC.sfg: the "
                               "disciplines to enforce\n");
            return 2;
        }
        names.push_back(name);
    }

    // The specification, when given: its errors are input errors (exit 2).
    std::optional<sfg::CompiledSpec> spec;
    if (!spec_file.empty()) {
        std::optional<std::string> text = read_input(spec_file);
        if (!text)
            return 2;
        sfg::SourceFile source(spec_file, std::move(*text));
        sfg::Diagnostics diags;
        spec = sfg::compile_spec(source, diags);
        sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
        if (!spec)
            return 2;
    }

    std::vector<Selected> selected;
    sfg::Fanout fanout;
    for (const std::string& name : names) {
        std::optional<Selected> s = make_analysis(name, spec ? &*spec : nullptr);
        if (!s) {
            fmt::print(stderr, "sfgc trace: error: {}: not available in this build\n", name);
            return 2;
        }
        selected.push_back(std::move(*s));
        fanout.add(*selected.back().analysis);
    }

    // One pass: the analyses see each event as it is read.
    sfg::Symbols syms;
    // One analysis takes the events directly: one virtual call an event fewer.
    sfg::Analysis& sink = selected.size() == 1 ? *selected.front().analysis : fanout;
    sfg::TraceResult read =
        sfg::read_trace_file_parallel(file, syms, sink, {reading_threads(threads, file)});
    if (!read.ok()) {
        fmt::print(stderr, "{}\n", read.error->to_string());
        return 2;
    }
    sink.finish(syms);

    std::vector<sfg::AnalysisReport> reports;
    bool found = false;
    for (const Selected& s : selected) {
        reports.push_back({s.name, s.findings(syms)});
        if (s.kind != sfg::FindingKind::warning && !reports.back().findings.empty())
            found = true;
    }
    if (format == "json")
        std::cout << json_text(to_json(reports, selected, syms, read.events, max_reports)) << '\n';
    else
        sfg::print_text_report(std::cout, reports, syms, file == "-" ? "<stdin>" : file,
                               read.events, max_reports);
    std::cout.flush();
    return found ? 1 : 0;
}

} // namespace sfgc
