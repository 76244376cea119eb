// `sfgc infer TRACE... [--spec DECLS.sfg] [-o OUT.sfg] [--format sfg|json]` (docs/infer.md): each
// trace read once into the inference and an event log (an SLP keeps none: it is expanded again),
// then the spec checked on them (it compiles, every trace conforms to it; `hb` beside the check
// when a variable got no discipline, on an SLP's grammar where it compresses well) before it is
// written.
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"
#include "slp_io.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/parse.hpp"
#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"
#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/registry/slp_analyses.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace_file.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <unistd.h>
#include <variant>

namespace sfgc {

namespace {

struct InferArgs {
    std::vector<std::string> traces;
    std::string spec_file, out_file, format = "sfg", threads = "auto";
    std::uint64_t max_memory = default_max_memory_mib;
};

sfg::infer::DeclKind kind_of(sfg::ast::Decl::Kind k) {
    using K = sfg::ast::Decl::Kind;
    switch (k) {
    case K::lock:
        return sfg::infer::DeclKind::lock;
    case K::volatile_:
        return sfg::infer::DeclKind::volatile_;
    case K::barrier:
        return sfg::infer::DeclKind::barrier;
    case K::queue:
        return sfg::infer::DeclKind::queue;
    case K::var:
        return sfg::infer::DeclKind::variable;
    default:
        return sfg::infer::DeclKind::thread;
    }
}

// The declarations of --spec, kept with their lines; its errors are input errors.
bool keep_spec(const std::string& file, sfg::infer::Inferrer& inf) {
    std::optional<std::string> text = read_input(file);
    if (!text)
        return false;
    sfg::SourceFile source(file, std::move(*text));
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    if (!spec)
        return false;
    sfg::Diagnostics again;
    const sfg::ast::Spec ast = sfg::parse_spec(source, again);
    for (const sfg::ast::Decl& d : ast.decls) {
        // Groups are kept below; no trace names a discipline or a program's condition variable.
        if (d.kind == sfg::ast::Decl::Kind::discipline || d.kind == sfg::ast::Decl::Kind::group ||
            d.kind == sfg::ast::Decl::Kind::cond)
            continue;
        for (const sfg::ast::Ident& id : d.names) {
            std::vector<std::string> threads;
            for (const sfg::MechanismDecl& m : spec->mechanisms)
                if (m.name == id.name)
                    threads = m.threads;
            inf.keep_declaration(id.name, kind_of(d.kind), std::move(threads),
                                 fmt::format("{}:{}:{}", file, id.loc.line, id.loc.col));
        }
    }
    for (const sfg::GroupDecl& g : spec->groups)
        inf.keep_group(g.name, g.threads);
    return true;
}

// One trace as the pass left it: its names and its events, for the check. An SLP file keeps
// no events: its grammar is their compact copy, expanded again for the check (docs/infer.md).
struct ReadTrace {
    std::string file, shown;
    unsigned threads = 1;
    bool slp = false;
    sfg::Symbols syms;
    sfg::infer::EventLog events;
};

bool is_slp_file(const std::string& file) {
    sfg::MappedFile f;
    return file != "-" && f.open(file) && sfg::is_slp(f.data());
}

// One trace: the inference's pass, keeping the events for the check: the trace is read once. hb
// runs later, on the replay, and only if some variable has no discipline (Inferrer::add_races).
// False after an input error.
bool read_one(const std::string& file, unsigned threads, sfg::infer::Inferrer& inf,
              ReadTrace& out) {
    out.file = file;
    out.shown = file == "-" ? "<stdin>" : file;
    out.threads = threads;
    out.slp = is_slp_file(file);
    sfg::infer::TraceRecorder rec(out.slp ? nullptr : &out.events);
    const sfg::TraceResult read = sfg::read_trace_file_parallel(file, out.syms, rec, {threads});
    if (!read.ok()) {
        fmt::print(stderr, "{}\n", read.error->to_string());
        return false;
    }
    rec.finish(out.syms);
    if (auto err = inf.add_trace(out.shown, rec, out.syms, {})) {
        fmt::print(stderr, "{}\n", err->to_string());
        return false;
    }
    return true;
}

// hb's races on an SLP: on its grammar when it compresses well (as `sfgc trace --analysis hb`
// does, docs/compressed.md), else on its expansion.
std::variant<std::vector<sfg::Finding>, std::string> slp_races(const ReadTrace& t,
                                                               sfg::Symbols& syms) {
    LoadedSlp slp;
    if (!load_slp(t.file, SlpFormat{}, syms, slp, t.threads))
        return std::string("cannot read " + t.file + " again");
    std::vector<std::unique_ptr<sfg::RunningAnalysis>> hb;
    hb.push_back(sfg::make_analysis("hb"));
    const sfg::SlpSource source{
        slp.events(), slp.size(), [&]() -> const sfg::Slp& { return slp.grammar(); },
        [&](sfg::Analysis& sink) {
            return slp.expand(t.file, syms, sink, {expansion_threads("auto", slp.events())});
        }};
    auto result = sfg::analyse_slp(source, sfg::SlpMode::automatic, hb, t.file, syms);
    if (const auto* error = std::get_if<sfg::TraceError>(&result))
        return error->to_string();
    return std::move(std::get<std::vector<sfg::AnalysisReport>>(result).front().findings);
}

// Hands the check's sink the events of one trace (its log, or its SLP expanded again), with hb
// beside it when `races` (on the SLP's grammar where it compresses well), into *found.
std::optional<std::string> feed(const ReadTrace& t, bool races, sfg::Symbols& syms,
                                sfg::Analysis& sink, std::vector<sfg::Finding>& found) {
    syms = t.syms; // the pass's ids: an SLP read again interns no name anew
    std::unique_ptr<sfg::RunningAnalysis> hb;
    sfg::Fanout both;
    if (races && !t.slp) {
        hb = sfg::make_analysis("hb");
        both.add(sink), both.add(hb->analysis());
    }
    sfg::Analysis& to = hb ? both : sink;
    if (t.slp) {
        const sfg::TraceResult read = sfg::read_trace_file_parallel(t.file, syms, to, {t.threads});
        if (!read.ok())
            return read.error->to_string();
    } else {
        t.events.replay(syms, to);
    }
    if (hb) {
        hb->analysis().finish(syms);
        found = hb->findings(syms);
    } else if (races) {
        auto r = slp_races(t, syms);
        if (auto* error = std::get_if<std::string>(&r))
            return *error;
        found = std::move(std::get<std::vector<sfg::Finding>>(r));
    }
    return std::nullopt;
}

bool write_output(const InferArgs& a, const std::string& text) {
    if (a.out_file.empty()) {
        std::cout << text;
        std::cout.flush();
        return true;
    }
    std::ofstream out(a.out_file, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        fmt::print(stderr, "{}: error: cannot write the output\n", a.out_file);
        return false;
    }
    return true;
}

} // namespace

int run_infer(int argc, char** argv) {
    CLI::App app{"sfgc infer: propose a discipline for every variable of the traces (text, "
                 "binary or SLP), checked against them before it is written.\nExit status: 0 "
                 "written, 2 bad input or usage, 3 an inferred discipline failed its own check "
                 "(a bug of sfgc).",
                 "sfgc infer"};
    InferArgs a;
    app.add_option("TRACE", a.traces, "the traces ('-' for standard input)")->required();
    app.add_option("--spec", a.spec_file,
                   "a .sfg file whose declarations (names, barriers' threads, groups) to keep");
    app.add_option("-o,--output", a.out_file, "write the result here instead of standard output");
    app.add_option("--format", a.format, "sfg (default) or json")
        ->check(CLI::IsMember({"sfg", "json"}));
    app.add_option("--threads", a.threads,
                   "N (1-64): parse each trace on N threads while this one records it (the same "
                   "result); auto (default): as sfgc trace")
        ->check(thread_count());
    add_memory_option(app, a.max_memory);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(a.max_memory);
    sfg::infer::Inferrer inf;
    if (!a.spec_file.empty() && !keep_spec(a.spec_file, inf))
        return 2;
    std::vector<std::unique_ptr<ReadTrace>> read;
    for (const std::string& file : a.traces) {
        read.push_back(std::make_unique<ReadTrace>());
        if (!read_one(file, reading_threads(a.threads, file), inf, *read.back()))
            return 2;
    }
    inf.finish();
    std::string spec = sfg::infer::render_sfg(inf);
    // Every trace, standard input too, replayed from its event log (an SLP expanded again): no
    // text is parsed twice. hb beside the enforcer when a variable without a discipline may be
    // racy.
    const bool races = inf.races_matter();
    std::vector<std::vector<sfg::Finding>> found(read.size());
    std::vector<sfg::infer::Replay> replay;
    for (std::size_t i = 0; i < read.size(); ++i)
        replay.push_back({read[i]->shown, [&, i](sfg::Symbols& syms, sfg::Analysis& sink) {
                              return feed(*read[i], races, syms, sink, found[i]);
                          }});
    if (std::optional<std::string> failed = sfg::infer::check_inferred(spec, replay)) {
        fmt::print(stderr, "sfgc infer: internal error: {}\n{}", *failed, spec);
        return 3;
    }
    for (std::size_t i = 0; i < read.size(); ++i)
        inf.add_races(read[i]->shown, read[i]->syms, found[i]);
    if (races)
        spec = sfg::infer::render_sfg(inf);
    return write_output(a, a.format == "json" ? sfg::infer::render_json(inf) : spec) ? 0 : 2;
}

} // namespace sfgc
