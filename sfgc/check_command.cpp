// `sfgc check FILE.sfg [--program NAME] [--mode naive|dpor|random] [--seed S]
//  [--max-executions N] [--max-steps N] [--max-states N] [--preemption-bound K] [--jobs N]
//  [--shard K/N] [--format text|json] [--trace-out DIR] [--emit-promela OUT]` and
//  `sfgc check --merge PART...` (docs/programs.md, docs/cli.md): explores every program of the
// file on N threads and reports races, discipline violations, failed assertions, divisions by
// zero, deadlocks, ill-formed ops and bounds, each with its shortest counterexample. Exit 0
// nothing found, 1 a finding, 2 bad input. `--shard K/N --format json` writes part K of N of the
// search instead, and `--merge` reports the whole search from its parts. `--emit-promela` writes
// one program as a Promela model instead (docs/promela.md).
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/checker/part.hpp"
#include "sfg/checker/promela.hpp"
#include "sfg/checker/report.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sched.h>
#include <thread>
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
// checker does not run. Exit 0, or 2 when OUT cannot be written or the program cannot be
// exported (a queue without a bound).
int emit_promela(const std::string& file, const sfg::CompiledSpec& spec,
                 const sfg::ast::Program& program, const std::string& out_path) {
    sfg::PromelaModel m = sfg::emit_promela(*program.body, spec);
    if (!m.error.empty()) { // docs/promela.md: what a Spin model cannot express
        fmt::print(stderr, "{}:{}:{}: error: {}\n", file, m.error_loc.line, m.error_loc.col,
                   m.error);
        return 2;
    }
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

namespace {

// The machine's cores (those this process may run on).
std::uint32_t machine_cores() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return static_cast<std::uint32_t>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
}

// --jobs: a count from 1 to 1024.
CLI::Validator job_count() {
    return CLI::Validator(
        [](std::string& v) {
            const bool digits = !v.empty() && v.size() <= 4 &&
                                v.find_first_not_of("0123456789") == std::string::npos;
            if (digits && std::stoi(v) >= 1 && std::stoi(v) <= 1024)
                return std::string();
            return "expected a number of threads from 1 to 1024, found '" + v + "'";
        },
        "N");
}

// --shard K/N with 1 <= K <= N <= 1000000.
CLI::Validator shard_spec() {
    return CLI::Validator(
        [](std::string& v) {
            const std::size_t slash = v.find('/');
            auto number = [](const std::string& s) {
                return !s.empty() && s.size() <= 7 &&
                       s.find_first_not_of("0123456789") == std::string::npos;
            };
            if (slash != std::string::npos && number(v.substr(0, slash)) &&
                number(v.substr(slash + 1))) {
                const long k = std::stol(v.substr(0, slash)), n = std::stol(v.substr(slash + 1));
                if (k >= 1 && k <= n && n <= 1000000)
                    return std::string();
            }
            return "expected K/N, part K of N with 1 <= K <= N <= 1000000, found '" + v + "'";
        },
        "K/N");
}

// Writes each finding's counterexample into `dir`; false (after the error) when one cannot be.
bool write_traces(const std::string& dir, const sfg::check::Model& model,
                  const sfg::check::CheckResult& r) {
    for (const sfg::check::CheckFinding& f : r.findings) {
        if (f.steps.empty() && f.kind == sfg::check::FindingKind::bound)
            continue;
        std::filesystem::path path =
            std::filesystem::path(dir) / sfg::check::trace_file_name(model, f);
        std::ofstream out(path, std::ios::binary);
        out << sfg::check::trace_text(model, f);
        if (!out) {
            fmt::print(stderr, "sfgc check: error: cannot write {}\n", path.string());
            return false;
        }
    }
    return true;
}

bool make_trace_dir(const std::string& dir) {
    if (dir.empty())
        return true;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        fmt::print(stderr, "sfgc check: error: cannot create {}: {}\n", dir, ec.message());
        return false;
    }
    return true;
}

// `sfgc check --merge PART...`: the report of the whole search from its parts.
int run_merge(const std::vector<std::string>& paths, const std::string& format,
              const std::string& trace_out) {
    std::vector<sfg::check::Part> parts;
    for (const std::string& path : paths) {
        std::optional<std::string> text = read_input(path);
        if (!text)
            return 2;
        try {
            parts.push_back(sfg::check::read_part(path, *text));
        } catch (const sfg::check::PartError& e) {
            fmt::print(stderr, "sfgc check: error: {}\n", e.what());
            return 2;
        }
    }
    if (std::string problem = sfg::check::check_parts(parts); !problem.empty()) {
        fmt::print(stderr, "sfgc check: error: cannot merge: {}\n", problem);
        return 2;
    }
    const sfg::check::Part& first = parts.front();
    sfg::SourceFile source(first.file, first.source);
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    if (!spec || diags.has_errors()) {
        fmt::print(stderr, "sfgc check: error: '{}': its source does not compile\n", first.path);
        return 2;
    }
    if (!make_trace_dir(trace_out))
        return 2;
    bool found = false;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < first.programs.size(); ++i) {
        const std::string name = first.programs[i]["program"].get<std::string>();
        const sfg::ast::Program* program = nullptr;
        for (const sfg::ast::Program& p : spec->programs)
            if (p.name.name == name)
                program = &p;
        if (!program) {
            fmt::print(stderr, "sfgc check: error: '{}': {} has no program '{}'\n", first.path,
                       first.file, name);
            return 2;
        }
        sfg::check::Model model = sfg::check::lower(*spec, *program);
        sfg::check::ProgramPart merged;
        try {
            merged = sfg::check::read_program(first, i, model);
            for (std::size_t k = 1; k < parts.size(); ++k)
                merged.partial.merge(sfg::check::read_program(parts[k], i, model).partial);
        } catch (const sfg::check::PartError& e) {
            fmt::print(stderr, "sfgc check: error: {}\n", e.what());
            return 2;
        }
        sfg::check::CheckOptions options;
        options.mode = merged.mode;
        sfg::check::CheckResult r =
            sfg::check::finish(model, std::move(merged.partial), options, merged.fell_back);
        found = found || r.found();
        if (format == "json")
            all.push_back(sfg::check::to_json(model, r));
        else
            sfg::check::print_text(std::cout, model, r);
        if (!trace_out.empty() && !write_traces(trace_out, model, r))
            return 2;
    }
    if (format == "json")
        std::cout << json_text(all.size() == 1 ? all[0] : all) << '\n';
    std::cout.flush();
    return found ? 1 : 0;
}

} // namespace

int run_check(int argc, char** argv) {
    CLI::App app{"sfgc check: explore every interleaving of the programs in a .sfg file and "
                 "report races, discipline violations, failed assertions, divisions by zero, "
                 "deadlocks and ill-formed operations, each with its shortest counterexample.\n"
                 "Exit status: 0 nothing found, 1 a finding, 2 bad input or usage.",
                 "sfgc check"};
    std::string file, program, mode = "dpor", format = "text", trace_out, shard;
    std::uint64_t seed = 0, max_executions = 1000000, max_steps = 10000;
    std::uint32_t preemption_bound = 0, jobs = machine_cores();
    std::vector<std::string> merge;
    app.add_option("FILE", file, "the .sfg file with declarations and programs");
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
    app.add_option("--jobs", jobs,
                   fmt::format("explore on N threads (default: the machine's cores, here {}); "
                               "the report is the same for every N",
                               jobs))
        ->check(job_count());
    app.add_option("--shard", shard,
                   "explore only part K of N of the search; merge the N parts' --format json "
                   "with --merge")
        ->check(shard_spec());
    app.add_option("--merge", merge,
                   "report the whole search from its parts (the --format json of --shard K/N "
                   "for K = 1..N), instead of exploring")
        ->expected(1, -1)
        ->option_text("PART...");
    std::uint64_t task_budget = sfg::check::CheckOptions{}.task_budget;
    std::uint64_t split_above = sfg::check::CheckOptions{}.split_above;
    app.add_option("--task-budget", task_budget,
                   fmt::format("every N executions, a task hands the alternatives left at the "
                               "shallowest node of its stack on as new tasks (default {}; 0: "
                               "never)",
                               task_budget))
        ->check(non_negative());
    app.add_option("--split-above", split_above,
                   fmt::format("divide the top of the search before it starts when its estimate "
                               "is at least N executions (default {}; 0: never)",
                               split_above))
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
    // The options of a search (--program first: --emit-promela takes it).
    const std::vector<const char*> search_options = {
        "--program",          "--mode",       "--seed",
        "--max-executions",   "--max-steps",  "--max-states",
        "--preemption-bound", "--jobs",       "--shard",
        "--task-budget",      "--split-above"};
    try {
        app.parse(argc, argv);
        // Emitting does not explore: options of the exploration would be silently ignored.
        if (promela_opt->count()) {
            std::vector<const char*> not_here(search_options.begin() + 1, search_options.end());
            not_here.insert(not_here.end(), {"--format", "--trace-out", "--merge"});
            for (const char* o : not_here)
                if (app.get_option(o)->count())
                    throw CLI::ValidationError(
                        o, "does not apply to --emit-promela, which only writes the model");
        }
        if (promela_opt->count() && promela.empty())
            throw CLI::ValidationError("--emit-promela", "OUT is empty (use '-' for stdout)");
        if (!merge.empty()) {
            // The parts hold the file and the search's options.
            if (!file.empty())
                throw CLI::ValidationError("--merge", "takes parts, not FILE '" + file +
                                                          "': the parts hold their source");
            for (const char* o : search_options)
                if (app.get_option(o)->count())
                    throw CLI::ValidationError(o, "does not apply to --merge: the parts hold "
                                                  "the search's options");
        } else if (file.empty()) {
            throw CLI::RequiredError("FILE");
        }
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(max_memory);
    if (!merge.empty())
        return run_merge(merge, format, trace_out);

    std::optional<std::string> text = read_input(file);
    if (!text)
        return 2;
    const std::string source_text = *text;
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
    options.jobs = jobs;
    options.task_budget = task_budget;
    options.split_above = split_above;
    if (!shard.empty()) {
        const std::size_t slash = shard.find('/');
        options.shard_index = static_cast<std::uint32_t>(std::stoul(shard.substr(0, slash)));
        options.shard_count = static_cast<std::uint32_t>(std::stoul(shard.substr(slash + 1)));
    }
    if (!make_trace_dir(trace_out))
        return 2;

    bool found = false;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    std::vector<sfg::check::Model> models;
    std::vector<sfg::check::ProgramPart> parts;
    models.reserve(chosen.size());
    for (const sfg::ast::Program* p : chosen) {
        models.push_back(sfg::check::lower(*spec, *p));
        const sfg::check::Model& model = models.back();
        bool fell_back = false;
        sfg::check::CheckPartial part = sfg::check::explore_model(model, options, &fell_back);
        if (fell_back)
            fmt::print(stderr, "sfgc check: note: --mode dpor does not take --preemption-bound; "
                               "exploring every interleaving within the bound (naive)\n");
        if (!shard.empty() && format == "json") {
            // A part for --merge: what merges, not a report.
            sfg::check::ProgramPart pp;
            pp.model = &model;
            pp.mode = options.mode;
            pp.fell_back = fell_back;
            pp.partial = std::move(part);
            found = found || !pp.partial.findings.empty() || !pp.partial.stats.complete;
            parts.push_back(std::move(pp));
            continue;
        }
        sfg::check::CheckResult r = sfg::check::finish(model, std::move(part), options, fell_back);
        found = found || r.found();
        if (format == "json")
            all.push_back(sfg::check::to_json(model, r));
        else
            sfg::check::print_text(std::cout, model, r, shard.empty() ? "" : "part " + shard);
        if (!trace_out.empty() && !write_traces(trace_out, model, r))
            return 2;
    }
    if (!parts.empty()) {
        nlohmann::ordered_json j =
            sfg::check::write_part(file, source_text, sfg::check::options_text(options, program),
                                   options.shard_index, options.shard_count, parts);
        std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                  << '\n';
    } else if (format == "json") {
        std::cout << json_text(all.size() == 1 ? all[0] : all) << '\n';
    }
    std::cout.flush();
    return found ? 1 : 0;
}

} // namespace sfgc
