// `sfgc check FILE.sfg [--program NAME] [--mode naive|dpor|random] [--seed S]
//  [--max-executions N] [--max-steps N] [--max-states N] [--preemption-bound K]
//  [--format text|json] [--trace-out DIR] [--emit-promela OUT]` (docs/programs.md): explores
// every program of the file and reports races, discipline violations, failed assertions,
// divisions by zero, deadlocks, ill-formed ops and bounds, each with its shortest
// counterexample. Exit 0 nothing found, 1 a finding, 2 bad input. `--emit-promela` writes one
// program as a Promela model instead (docs/promela.md).
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/checker/promela.hpp"
#include "sfg/checker/report.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace sfgc {

namespace {

std::string program_names(const sfg::CompiledSpec& spec) {
    std::string names;
    for (const sfg::ast::Program& p : spec.programs)
        names += (names.empty() ? "" : ", ") + p.name.name;
    return names.empty() ? "none" : names;
}

// `--emit-promela OUT`: the one chosen program as Promela, to OUT or to stdout for `-`; the
// checker does not run. Exit 0, or 2 when OUT cannot be written.
int emit_promela(const std::string& file, const sfg::CompiledSpec& spec,
                 const sfg::ast::Program& program, const std::string& out_path) {
    sfg::PromelaModel m = sfg::emit_promela(*program.body, spec);
    // Warnings read "line N: ..."; printed like the diagnostics, FILE:N: warning: ...
    for (const std::string& w : m.warnings) {
        std::size_t colon = w.find(": ");
        if (w.rfind("line ", 0) == 0 && colon != std::string::npos)
            fmt::print(stderr, "{}:{}: warning: {}\n", file, w.substr(5, colon - 5),
                       w.substr(colon + 2));
        else
            fmt::print(stderr, "{}: warning: {}\n", file, w);
    }
    if (out_path == "-") {
        std::cout << m.text;
        std::cout.flush();
        return 0;
    }
    std::ofstream out(out_path, std::ios::binary);
    out << m.text;
    out.close();
    if (!out) {
        fmt::print(stderr, "sfgc check: error: cannot write '{}'\n", out_path);
        return 2;
    }
    fmt::print("wrote {}\n", out_path);
    return 0;
}

} // namespace

int run_check(int argc, char** argv) {
    CLI::App app{"sfgc check: explore every interleaving of the programs in a .sfg file and "
                 "report races, discipline violations, failed assertions, divisions by zero, "
                 "deadlocks and ill-formed operations, each with its shortest counterexample.\n"
                 "Exit status: 0 nothing found, 1 a finding, 2 bad input or usage.",
                 "sfgc check"};
    std::string file, program, mode = "dpor", format = "text", trace_out;
    std::uint64_t seed = 0, max_executions = 1000000, max_steps = 10000;
    std::uint32_t preemption_bound = 0;
    app.add_option("FILE", file, "the .sfg file with declarations and programs")->required();
    app.add_option("--program", program, "check only this program (default: all)");
    app.add_option("--mode", mode,
                   "dpor (the default: one execution per equivalence class; naive with "
                   "--preemption-bound), naive (every interleaving), random")
        ->check(CLI::IsMember({"naive", "dpor", "random"}));
    app.add_option("--seed", seed, "seed of --mode random")->check(non_negative());
    auto* max_exec_opt = app.add_option(
        "--max-executions", max_executions,
        "stop after N executions (default 1000000; the number of runs in random mode, 1000 "
        "there by default)");
    max_exec_opt->check(non_negative());
    app.add_option("--max-steps", max_steps, "visible steps per execution (default 10000)")
        ->check(non_negative());
    std::uint64_t max_states = sfg::check::CheckOptions{}.max_states;
    app.add_option("--max-states", max_states,
                   fmt::format("steps of all executions together (default {})", max_states))
        ->check(non_negative());
    auto* pb = app.add_option("--preemption-bound", preemption_bound,
                              "explore only schedules with at most K preemptions")
                   ->check(non_negative());
    app.add_option("--format", format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    app.add_option("--trace-out", trace_out,
                   "write each counterexample as an STD trace into DIR (replay with sfgc trace)");
    std::string promela;
    auto* promela_opt = app.add_option(
        "--emit-promela", promela,
        "write the program as a Promela model to OUT ('-': standard output) for Spin, instead "
        "of checking it; a file with several programs needs --program (docs/promela.md)");
    promela_opt->option_text("OUT");
    std::uint64_t max_memory = default_max_memory_mib;
    add_memory_option(app, max_memory);
    try {
        app.parse(argc, argv);
        // Emitting does not explore: options of the exploration would be silently ignored.
        if (promela_opt->count())
            for (const char* o : {"--mode", "--seed", "--max-executions", "--max-steps",
                                  "--max-states", "--preemption-bound", "--format", "--trace-out"})
                if (app.get_option(o)->count())
                    throw CLI::ValidationError(
                        o, "does not apply to --emit-promela, which only writes the model");
        if (promela_opt->count() && promela.empty())
            throw CLI::ValidationError("--emit-promela", "OUT is empty (use '-' for stdout)");
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(max_memory);

    std::optional<std::string> text = read_input(file);
    if (!text)
        return 2;
    sfg::SourceFile source(file, std::move(*text));
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    if (!spec)
        return 2;
    std::vector<const sfg::ast::Program*> chosen;
    for (const sfg::ast::Program& p : spec->programs)
        if (program.empty() || p.name.name == program)
            chosen.push_back(&p);
    if (chosen.empty()) {
        fmt::print(stderr, "sfgc check: error: {}\n",
                   program.empty() ? fmt::format("{} has no program to check", file)
                                   : fmt::format("{} has no program '{}' (it has: {})", file,
                                                 program, program_names(*spec)));
        return 2;
    }
    if (promela_opt->count()) {
        if (chosen.size() > 1) {
            fmt::print(stderr,
                       "sfgc check: error: {} has {} programs; pick one for --emit-promela with "
                       "--program NAME (one of: {})\n",
                       file, chosen.size(), program_names(*spec));
            return 2;
        }
        return emit_promela(file, *spec, *chosen.front(), promela);
    }
    // A value label or queue edge would never fire: refuse rather than report false violations.
    if (auto no = sfg::unenforced_construct(*spec)) {
        fmt::print(stderr, "{}:{}:{}: error: sfgc check cannot enforce the {} yet\n", file,
                   no->loc.line, no->loc.col, no->what);
        return 2;
    }

    sfg::check::CheckOptions options;
    options.mode = mode == "random" ? sfg::check::Mode::random
                   : mode == "dpor" ? sfg::check::Mode::dpor
                                    : sfg::check::Mode::naive;
    options.seed = seed;
    options.max_executions = options.mode == sfg::check::Mode::random && max_exec_opt->count() == 0
                                 ? 1000
                                 : max_executions;
    options.max_steps = max_steps;
    options.max_states = max_states;
    if (pb->count())
        options.preemption_bound = preemption_bound;
    options.progress = isatty(STDERR_FILENO) != 0;
    if (!trace_out.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(trace_out, ec);
        if (ec) {
            fmt::print(stderr, "sfgc check: error: cannot create {}: {}\n", trace_out,
                       ec.message());
            return 2;
        }
    }

    bool found = false;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const sfg::ast::Program* p : chosen) {
        sfg::check::Model model = sfg::check::lower(*spec, *p);
        sfg::check::CheckResult r = sfg::check::check_model(model, options);
        if (r.fell_back)
            fmt::print(stderr, "sfgc check: note: --mode dpor does not take --preemption-bound; "
                               "exploring every interleaving within the bound (naive)\n");
        found = found || r.found();
        if (format == "json")
            all.push_back(sfg::check::to_json(model, r));
        else
            sfg::check::print_text(std::cout, model, r);
        if (!trace_out.empty())
            for (const sfg::check::CheckFinding& f : r.findings) {
                if (f.steps.empty() && f.kind == sfg::check::FindingKind::bound)
                    continue;
                std::filesystem::path path =
                    std::filesystem::path(trace_out) / sfg::check::trace_file_name(model, f);
                std::ofstream out(path, std::ios::binary);
                out << sfg::check::trace_text(model, f);
                if (!out) {
                    fmt::print(stderr, "sfgc check: error: cannot write {}\n", path.string());
                    return 2;
                }
            }
    }
    if (format == "json")
        std::cout << json_text(all.size() == 1 ? all[0] : all) << '\n';
    std::cout.flush();
    return found ? 1 : 0;
}

} // namespace sfgc
