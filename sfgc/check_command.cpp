// `sfgc check FILE.sfg [--program NAME] [--mode naive|dpor|random|pct] [--seed S] [--pct-depth D]
//  [--max-executions N] [--max-steps N] [--max-states N] [--preemption-bound K] [--jobs N]
//  [--shard K/N] [--format text|json] [--trace-out DIR] [--emit-promela OUT]` and
//  `sfgc check --merge PART...` (docs/programs.md, docs/cli.md): explores every program of the
// file on N threads and reports races, discipline violations, failed assertions, divisions by
// zero, deadlocks, ill-formed ops and bounds, each with its shortest counterexample. Exit 0
// nothing found, 1 a finding, 2 bad input. `--shard K/N --format json` writes part K of N of the
// search instead, and `--merge` reports the whole search from its parts. `--emit-promela` writes
// one program as a Promela model instead (docs/promela.md).
#include "check_infer.hpp"
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
#include "sfg/explore.hpp"

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
bool write_traces(const std::string& dir, const sfg::checker::Model& model,
                  const sfg::checker::CheckResult& r) {
    for (const sfg::checker::CheckFinding& f : r.findings) {
        if (f.steps.empty() && f.kind == sfg::checker::FindingKind::bound)
            continue;
        std::filesystem::path path =
            std::filesystem::path(dir) / sfg::checker::trace_file_name(model, f);
        std::ofstream out(path, std::ios::binary);
        out << sfg::checker::trace_text(model, f);
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

// Whether `text` is a part that sfg::explore wrote (part_file), not one of `sfgc check`'s.
bool is_explore_part(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    return j.is_object() && j.contains("sfg_explore_part");
}

// The parts of an sfg::explore search (docs/explore.md, "More than one machine"), merged by the
// runtime: its report as explore_report::to_string() prints it, or as JSON.
int run_explore_merge(const std::vector<std::string>& paths, const std::string& format,
                      const std::string& trace_out) {
    if (!trace_out.empty()) {
        fmt::print(stderr, "sfgc check: error: --trace-out: sfg::explore's parts hold no "
                           "traces (its findings' replay strings run them again)\n");
        return 2;
    }
    sfg::explore_report r;
    try {
        r = sfg::merge_explore_parts(paths);
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "sfgc check: error: {}\n", e.what());
        return 2;
    }
    if (format == "json") {
        nlohmann::ordered_json j;
        j["executions"] = r.executions;
        j["classes"] = r.classes;
        j["complete"] = r.complete;
        nlohmann::ordered_json findings = nlohmann::ordered_json::array();
        for (const sfg::explore_finding& f : r.findings)
            findings.push_back({{"kind", f.kind},
                                {"analysis", f.analysis},
                                {"var", f.var},
                                {"message", f.message},
                                {"schedule", f.schedule}});
        j["findings"] = std::move(findings);
        std::cout << json_text(j) << '\n';
    } else {
        std::cout << r.to_string();
    }
    std::cout.flush();
    return r.findings.empty() ? 0 : 1;
}

// `sfgc check --merge PART...`: the report of the whole search from its parts.
int run_merge(const std::vector<std::string>& paths, const std::string& format,
              const std::string& trace_out) {
    std::vector<sfg::checker::Part> parts;
    std::vector<std::string> explore_parts, check_parts;
    for (const std::string& path : paths) {
        std::optional<std::string> text = read_input(path);
        if (!text)
            return 2;
        (is_explore_part(*text) ? explore_parts : check_parts).push_back(path);
        if (!explore_parts.empty() && !check_parts.empty()) {
            fmt::print(stderr,
                       "sfgc check: error: cannot merge: '{}' is a part of an sfg::explore "
                       "search, '{}' one of sfgc check's\n",
                       explore_parts.front(), check_parts.front());
            return 2;
        }
        if (!explore_parts.empty())
            continue;
        try {
            parts.push_back(sfg::checker::read_part(path, *text));
        } catch (const sfg::checker::PartError& e) {
            fmt::print(stderr, "sfgc check: error: {}\n", e.what());
            return 2;
        }
    }
    if (!explore_parts.empty())
        return run_explore_merge(explore_parts, format, trace_out);
    if (std::string problem = sfg::checker::check_parts(parts); !problem.empty()) {
        fmt::print(stderr, "sfgc check: error: cannot merge: {}\n", problem);
        return 2;
    }
    const sfg::checker::Part& first = parts.front();
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
        sfg::checker::Model model = sfg::checker::lower(*spec, *program);
        sfg::checker::ProgramPart merged;
        try {
            merged = sfg::checker::read_program(first, i, model);
            for (std::size_t k = 1; k < parts.size(); ++k)
                merged.partial.merge(sfg::checker::read_program(parts[k], i, model).partial);
        } catch (const sfg::checker::PartError& e) {
            fmt::print(stderr, "sfgc check: error: {}\n", e.what());
            return 2;
        }
        sfg::checker::CheckOptions options;
        options.mode = merged.mode;
        sfg::checker::CheckResult r =
            sfg::checker::finish(model, std::move(merged.partial), options, merged.fell_back);
        found = found || r.found();
        if (format == "json")
            all.push_back(sfg::checker::to_json(model, r));
        else
            sfg::checker::print_text(std::cout, model, r);
        if (!trace_out.empty() && !write_traces(trace_out, model, r))
            return 2;
    }
    if (format == "json")
        std::cout << json_text(all.size() == 1 ? all[0] : all) << '\n';
    std::cout.flush();
    return found ? 1 : 0;
}

// What `sfgc check` was asked.
struct CheckArgs {
    std::string file, program, mode = "dpor", format = "text", trace_out, shard, promela;
    std::string infer_out; // --infer (docs/infer.md)
    std::uint64_t seed = 0, max_executions = 1000000, max_steps = 10000;
    std::uint64_t max_states = sfg::checker::CheckOptions{}.max_states;
    std::uint32_t preemption_bound = 0, jobs = machine_cores();
    unsigned pct_depth = sfg::checker::CheckOptions{}.pct_depth;
    std::vector<std::string> merge;
    std::uint64_t task_budget = sfg::checker::CheckOptions{}.task_budget;
    std::uint64_t split_above = sfg::checker::CheckOptions{}.split_above;
    std::uint64_t max_memory = default_max_memory_mib;
    // Given on the command line, not defaulted.
    bool emit_promela = false, max_executions_given = false, preemption_bound_given = false;
};

// The options of a search (--program first: --emit-promela takes it).
const std::vector<const char*> search_options = {
    "--program",        "--mode",      "--seed",        "--pct-depth",
    "--max-executions", "--max-steps", "--max-states",  "--preemption-bound",
    "--jobs",           "--shard",     "--task-budget", "--split-above"};

// FILE and the options of the search, in the order --help lists them.
void add_search_options(CLI::App& app, CheckArgs& a) {
    app.add_option("FILE", a.file, "the .sfg file with declarations and programs");
    app.add_option("--program", a.program, "check only this program (default: all)");
    app.add_option("--mode", a.mode,
                   "dpor (the default: one execution per equivalence class; naive with "
                   "--preemption-bound), naive (every interleaving), random, pct "
                   "(probabilistic concurrency testing)")
        ->check(CLI::IsMember({"naive", "dpor", "random", "pct"}));
    app.add_option("--seed", a.seed, "seed of --mode random and pct")->check(non_negative());
    app.add_option("--pct-depth", a.pct_depth,
                   fmt::format("the bug depth d that --mode pct aims at: d-1 priority changes "
                               "a run (default {})",
                               a.pct_depth))
        ->check(CLI::Range(1u, 64u));
    app.add_option("--max-executions", a.max_executions,
                   "stop after N executions (default 1000000; the number of runs in random and "
                   "pct modes, 1000 there by default)")
        ->check(non_negative());
    app.add_option("--max-steps", a.max_steps, "visible steps per execution (default 10000)")
        ->check(non_negative());
    app.add_option("--max-states", a.max_states,
                   fmt::format("steps of all executions together (default {})", a.max_states))
        ->check(non_negative());
    app.add_option("--preemption-bound", a.preemption_bound,
                   "explore only schedules with at most K preemptions")
        ->check(non_negative());
    app.add_option("--jobs", a.jobs,
                   fmt::format("explore on N threads (default: the machine's cores, here {}); "
                               "the report is the same for every N",
                               a.jobs))
        ->check(job_count());
    app.add_option("--shard", a.shard,
                   "explore only part K of N of the search; merge the N parts' --format json "
                   "with --merge")
        ->check(shard_spec());
    app.add_option("--merge", a.merge,
                   "report the whole search from its parts (the --format json of --shard K/N "
                   "for K = 1..N, or the part_file of sfg::explore), instead of exploring")
        ->expected(1, -1)
        ->option_text("PART...");
    app.add_option("--task-budget", a.task_budget,
                   fmt::format("every N executions, a task hands the alternatives left at the "
                               "shallowest node of its stack on as new tasks (default {}; 0: "
                               "never)",
                               a.task_budget))
        ->check(non_negative());
    app.add_option("--split-above", a.split_above,
                   fmt::format("divide the top of the search before it starts when its estimate "
                               "is at least N executions (default {}; 0: never)",
                               a.split_above))
        ->check(non_negative());
}

// The options of the report, of --emit-promela and of the memory.
void add_output_options(CLI::App& app, CheckArgs& a) {
    app.add_option("--format", a.format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    app.add_option("--trace-out", a.trace_out,
                   "write each counterexample as an STD trace into DIR (replay with sfgc trace)");
    app.add_option("--emit-promela", a.promela,
                   "write the program as a Promela model to OUT ('-': standard output) for "
                   "Spin, instead of checking it; a file with several programs needs --program "
                   "(docs/promela.md)")
        ->option_text("OUT");
    app.add_option("--infer", a.infer_out,
                   "also write the disciplines inferred from every explored execution to OUT "
                   "('-': standard output; docs/infer.md)")
        ->option_text("OUT");
    add_memory_option(app, a.max_memory);
}

// The combinations the options cannot express: throws CLI's error for app.exit().
void validate(const CLI::App& app, const CheckArgs& a) {
    // Emitting does not explore: options of the exploration would be silently ignored.
    if (a.emit_promela) {
        std::vector<const char*> not_here(search_options.begin() + 1, search_options.end());
        not_here.insert(not_here.end(), {"--format", "--trace-out", "--merge", "--infer"});
        for (const char* o : not_here)
            if (app.get_option(o)->count())
                throw CLI::ValidationError(
                    o, "does not apply to --emit-promela, which only writes the model");
    }
    if (app.get_option("--pct-depth")->count() && a.mode != "pct")
        throw CLI::ValidationError("--pct-depth", "applies to --mode pct only");
    if (a.emit_promela && a.promela.empty())
        throw CLI::ValidationError("--emit-promela", "OUT is empty (use '-' for stdout)");
    if (!a.infer_out.empty() && (!a.merge.empty() || !a.shard.empty()))
        throw CLI::ValidationError("--infer", "needs every execution: not with --shard or --merge");
    if (!a.merge.empty()) {
        // The parts hold the file and the search's options.
        if (!a.file.empty())
            throw CLI::ValidationError("--merge", "takes parts, not FILE '" + a.file +
                                                      "': the parts hold their source");
        for (const char* o : search_options)
            if (app.get_option(o)->count())
                throw CLI::ValidationError(o, "does not apply to --merge: the parts hold "
                                              "the search's options");
    } else if (a.file.empty()) {
        throw CLI::RequiredError("FILE");
    }
}

// The checker's options from the command line's.
sfg::checker::CheckOptions check_options(const CheckArgs& a) {
    sfg::checker::CheckOptions options;
    options.mode = a.mode == "random" ? sfg::checker::Mode::random
                   : a.mode == "pct"  ? sfg::checker::Mode::pct
                   : a.mode == "dpor" ? sfg::checker::Mode::dpor
                                      : sfg::checker::Mode::naive;
    options.seed = a.seed;
    options.pct_depth = a.pct_depth;
    options.max_executions =
        sfg::checker::sampled(options.mode) && !a.max_executions_given ? 1000 : a.max_executions;
    options.max_steps = a.max_steps;
    options.max_states = a.max_states;
    if (a.preemption_bound_given)
        options.preemption_bound = a.preemption_bound;
    options.progress = isatty(STDERR_FILENO) != 0;
    options.jobs = a.jobs;
    options.task_budget = a.task_budget;
    options.split_above = a.split_above;
    if (!a.shard.empty()) {
        const std::size_t slash = a.shard.find('/');
        options.shard_index = static_cast<std::uint32_t>(std::stoul(a.shard.substr(0, slash)));
        options.shard_count = static_cast<std::uint32_t>(std::stoul(a.shard.substr(slash + 1)));
    }
    return options;
}

// The programs --program names (every one without it); empty after the error.
std::vector<const sfg::ast::Program*> chosen_programs(const CheckArgs& a,
                                                      const sfg::CompiledSpec& spec) {
    std::vector<const sfg::ast::Program*> chosen;
    for (const sfg::ast::Program& p : spec.programs)
        if (a.program.empty() || p.name.name == a.program)
            chosen.push_back(&p);
    if (chosen.empty())
        fmt::print(stderr, "sfgc check: error: {}\n",
                   a.program.empty() ? fmt::format("{} has no program to check", a.file)
                                     : fmt::format("{} has no program '{}' (it has: {})", a.file,
                                                   a.program, program_names(spec)));
    return chosen;
}

// Explores each chosen program and prints its report, or with --shard and --format json the
// part for --merge. Exit 0 nothing found, 1 a finding, 2 a trace that cannot be written.
int explore(const CheckArgs& a, const std::string& source_text, const sfg::CompiledSpec& spec,
            const std::vector<const sfg::ast::Program*>& chosen,
            const sfg::checker::CheckOptions& options) {
    bool found = false;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    std::vector<sfg::checker::Model> models;
    std::vector<sfg::checker::ProgramPart> parts;
    models.reserve(chosen.size());
    for (const sfg::ast::Program* p : chosen) {
        models.push_back(sfg::checker::lower(spec, *p));
        const sfg::checker::Model& model = models.back();
        bool fell_back = false;
        sfg::checker::CheckPartial part = sfg::checker::explore_model(model, options, &fell_back);
        if (fell_back)
            fmt::print(stderr, "sfgc check: note: --mode dpor does not take --preemption-bound; "
                               "exploring every interleaving within the bound (naive)\n");
        if (!a.shard.empty() && a.format == "json") {
            // A part for --merge: what merges, not a report.
            sfg::checker::ProgramPart pp;
            pp.model = &model;
            pp.mode = options.mode;
            pp.fell_back = fell_back;
            pp.partial = std::move(part);
            found = found || !pp.partial.findings.empty() || !pp.partial.stats.complete;
            parts.push_back(std::move(pp));
            continue;
        }
        sfg::checker::CheckResult r =
            sfg::checker::finish(model, std::move(part), options, fell_back);
        found = found || r.found();
        if (a.format == "json")
            all.push_back(sfg::checker::to_json(model, r));
        else
            sfg::checker::print_text(std::cout, model, r, a.shard.empty() ? "" : "part " + a.shard);
        if (!a.trace_out.empty() && !write_traces(a.trace_out, model, r))
            return 2;
    }
    if (!parts.empty()) {
        nlohmann::ordered_json j = sfg::checker::write_part(
            a.file, source_text, sfg::checker::options_text(options, a.program),
            options.shard_index, options.shard_count, parts);
        std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                  << '\n';
    } else if (a.format == "json") {
        std::cout << json_text(all.size() == 1 ? all[0] : all) << '\n';
    }
    std::cout.flush();
    if (!a.infer_out.empty()) {
        std::vector<const sfg::checker::Model*> explored;
        for (const sfg::checker::Model& m : models)
            explored.push_back(&m);
        if (const int status = infer_executions(explored, options, a.infer_out))
            return status;
    }
    return found ? 1 : 0;
}

// `sfgc check FILE`: compiles FILE, then writes the chosen program's Promela model or explores
// the chosen programs.
int check_file(const CheckArgs& a) {
    std::optional<std::string> text = read_input(a.file);
    if (!text)
        return 2;
    const std::string source_text = *text;
    sfg::SourceFile source(a.file, std::move(*text));
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    if (!spec)
        return 2;
    std::vector<const sfg::ast::Program*> chosen = chosen_programs(a, *spec);
    if (chosen.empty())
        return 2;
    if (a.emit_promela) {
        if (chosen.size() > 1) {
            fmt::print(stderr,
                       "sfgc check: error: {} has {} programs; pick one for --emit-promela with "
                       "--program NAME (one of: {})\n",
                       a.file, chosen.size(), program_names(*spec));
            return 2;
        }
        return emit_promela(a.file, *spec, *chosen.front(), a.promela);
    }
    const sfg::checker::CheckOptions options = check_options(a);
    if (!make_trace_dir(a.trace_out))
        return 2;
    return explore(a, source_text, *spec, chosen, options);
}

} // namespace

int run_check(int argc, char** argv) {
    CLI::App app{"sfgc check: explore every interleaving of the programs in a .sfg file and "
                 "report races, discipline violations, failed assertions, divisions by zero, "
                 "deadlocks and ill-formed operations, each with its shortest counterexample.\n"
                 "Exit status: 0 nothing found, 1 a finding, 2 bad input or usage.",
                 "sfgc check"};
    CheckArgs a;
    add_search_options(app, a);
    add_output_options(app, a);
    try {
        app.parse(argc, argv);
        a.emit_promela = app.get_option("--emit-promela")->count() != 0;
        a.max_executions_given = app.get_option("--max-executions")->count() != 0;
        a.preemption_bound_given = app.get_option("--preemption-bound")->count() != 0;
        validate(app, a);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(a.max_memory);
    if (!a.merge.empty())
        return run_merge(a.merge, a.format, a.trace_out);
    return check_file(a);
}

} // namespace sfgc
