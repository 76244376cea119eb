// `sfgc FILE.sfg [--dot] [--view sfg|net|both] [--svg OUT] [--png OUT] [--json] [--pnml OUT]
//  [--emit-cpp OUT [--namespace NS]] [--verify-net] [--max-...]` (docs/tutorial.md,
//  docs/limits.md), and `sfgc --demo` on the embedded barrier spec.
#include "commands.hpp"
#include "io.hpp"
#include "options.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"
#include "sfg/compiler/verify.hpp"
#include "sfg/spec.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string_view>
#include <unistd.h>

namespace sfgc {

extern const char* const default_spec_name;
extern const char* const default_spec_text;

namespace {

// Defaults of the bounds that are the driver's (docs/limits.md).
constexpr std::size_t default_max_layout = 10000;
constexpr std::uint64_t default_max_output = std::uint64_t{256} << 20;

// NAME or NAME::NAME...: C++ identifiers that are not keywords.
bool is_cpp_namespace(const std::string& ns) {
    static const std::set<std::string, std::less<>> keywords{
        "alignas",   "alignof",  "and",      "asm",      "auto",     "bool",     "break",
        "case",      "catch",    "char",     "class",    "concept",  "const",    "constexpr",
        "continue",  "default",  "delete",   "do",       "double",   "else",     "enum",
        "explicit",  "export",   "extern",   "false",    "float",    "for",      "friend",
        "goto",      "if",       "inline",   "int",      "long",     "mutable",  "namespace",
        "new",       "noexcept", "not",      "nullptr",  "operator", "or",       "private",
        "protected", "public",   "register", "requires", "return",   "short",    "signed",
        "sizeof",    "static",   "struct",   "switch",   "template", "this",     "throw",
        "true",      "try",      "typedef",  "typename", "union",    "unsigned", "using",
        "virtual",   "void",     "volatile", "while",    "std"};
    std::size_t pos = 0;
    while (true) {
        const std::size_t end = std::min(ns.find("::", pos), ns.size());
        const std::string_view part(ns.data() + pos, end - pos);
        if (part.empty() || (part[0] >= '0' && part[0] <= '9') || keywords.contains(part))
            return false;
        for (char c : part)
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_'))
                return false;
        if (end == ns.size())
            return true;
        pos = end + 2;
    }
}

std::string count(std::size_t n, const char* noun) {
    return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

void print_summary(const sfg::CompiledSpec& spec) {
    for (const sfg::CompiledVariable& v : spec.variables) {
        if (!v.net) {
            fmt::print("{}: no discipline\n", v.name);
            continue;
        }
        std::size_t edges = v.net->edges.size(); // a family's one by one (docs/language.md)
        for (const sfg::EdgeFamily& f : v.net->families)
            edges += f.from.size() * f.to.size();
        fmt::print("{}: {}, {}; net: {}, {}, {}\n", v.name, count(v.sfg->modes.size(), "mode"),
                   count(edges, "edge"), count(v.net->places.size(), "place"),
                   count(v.net->transitions.size(), "transition"),
                   count(v.net->initial_markings.size(), "initial marking"));
    }
}

// Writes one output through the --max-output bound: to standard output, or to `path` (a file
// cut at the limit is removed). False after an error.
template <class Write>
bool bounded_write(const std::string& path, std::uint64_t limit, Write write) {
    std::ofstream file;
    if (!path.empty()) {
        file.open(path, std::ios::binary);
        if (!file) {
            fmt::print(stderr, "sfgc: error: cannot write '{}'\n", path);
            return false;
        }
    }
    BoundedOutput out(path.empty() ? std::cout.rdbuf() : file.rdbuf(), limit);
    write(static_cast<std::ostream&>(out));
    out.flush();
    if (out.exceeded()) {
        print_output_limit_error(path.empty() ? "standard output" : "'" + path + "'", limit);
        if (!path.empty()) {
            file.close();
            std::remove(path.c_str());
        }
        return false;
    }
    if (!path.empty()) {
        file.close();
        if (!file) {
            fmt::print(stderr, "sfgc: error: cannot write '{}'\n", path);
            return false;
        }
    }
    return true;
}

// What `sfgc FILE.sfg` was asked.
struct CompileArgs {
    std::string file;
    bool dot = false, json = false, verify = false, demo = false;
    std::string view_name = "net", svg, png, pnml, emit_cpp, cpp_ns;
    sfg::CompileLimits limits;
    std::size_t max_markings = sfg::default_max_markings, max_layout = default_max_layout;
    std::uint64_t max_output = default_max_output;
    std::uint64_t max_memory = default_max_memory_mib;
};

// FILE and what to write.
void add_output_options(CLI::App& app, CompileArgs& a) {
    app.add_option("FILE", a.file, "the .sfg specification");
    app.add_flag("--dot", a.dot, "write Graphviz DOT to standard output");
    app.add_option("--view", a.view_name, "what to draw: sfg, net or both (default net)")
        ->check(CLI::IsMember({"sfg", "net", "both"}));
    app.add_option("--svg", a.svg, "render the view to an SVG file");
    app.add_option("--png", a.png, "render the view to a PNG file");
    app.add_flag("--json", a.json, "write the compiled spec as JSON to standard output");
    app.add_option("--pnml", a.pnml, "write the Petri nets as PNML to a file");
    app.add_option(
        "--emit-cpp", a.emit_cpp,
        "write the disciplines as a C++ header for the live runtime (docs/enforcers.md); "
        "'-': standard output");
    app.add_option("--namespace", a.cpp_ns,
                   "the C++ namespace of --emit-cpp's header (default: the file's stem, made an "
                   "identifier)");
    app.add_flag("--verify-net", a.verify,
                 "explore every reachable marking and check 1-safety and feasibility");
    app.add_flag("--demo", a.demo,
                 "use the embedded default spec (the thesis' barrier discipline)");
}

// The resource limits (docs/limits.md).
void add_limit_options(CLI::App& app, CompileArgs& a) {
    sfg::CompileLimits& limits = a.limits;
    app.add_option("--max-modes", limits.modes,
                   fmt::format("access modes of all SFGs together (default {})", limits.modes))
        ->check(non_negative());
    app.add_option(
           "--max-edges", limits.edges,
           fmt::format("candidate edges the operators consider, in all (default {})", limits.edges))
        ->check(non_negative());
    app.add_option(
           "--max-net-size", limits.net_size,
           fmt::format("places and transitions of all Petri nets (default {})", limits.net_size))
        ->check(non_negative());
    app.add_option("--max-markings", a.max_markings,
                   fmt::format("reachable markings --verify-net explores per net (default {})",
                               a.max_markings))
        ->check(non_negative());
    app.add_option(
           "--max-layout", a.max_layout,
           fmt::format("nodes --svg/--png give Graphviz to lay out (default {})", a.max_layout))
        ->check(non_negative());
    app.add_option("--max-output", a.max_output,
                   fmt::format("bytes of each output: DOT, JSON, PNML (default {})", a.max_output))
        ->check(non_negative());
    add_memory_option(app, a.max_memory);
}

// The combinations the options cannot express: throws CLI's error for app.exit().
void validate(const CompileArgs& a) {
    if (int(a.dot) + int(a.json) + int(a.emit_cpp == "-") > 1)
        throw CLI::ValidationError("--dot, --json and --emit-cpp -",
                                   "only one can write to standard output");
    if (a.demo == !a.file.empty())
        throw CLI::ValidationError("FILE", a.demo ? "--demo takes no FILE" : "FILE is required");
    if (!a.cpp_ns.empty() && a.emit_cpp.empty())
        throw CLI::ValidationError("--namespace", "only goes with --emit-cpp");
    if (!a.cpp_ns.empty() && !is_cpp_namespace(a.cpp_ns))
        throw CLI::ValidationError("--namespace", "'" + a.cpp_ns +
                                                      "' is not a C++ namespace name (NAME "
                                                      "or NAME::NAME..., no keyword)");
}

// --svg and --png. Exit 0, or 2 after an error.
int write_images(const CompileArgs& a, const sfg::CompiledSpec& spec, sfg::View view) {
    int status = 0;
    for (const auto& [format, path] :
         std::map<std::string, std::string>{{"svg", a.svg}, {"png", a.png}}) {
        if (path.empty())
            continue;
        // Graphviz's layout grows faster than linearly: refuse what it would take minutes on.
        if (std::size_t size = sfg::layout_size(spec, view); size > a.max_layout) {
            fmt::print(stderr,
                       "sfgc: error: the {} view has {} nodes, more than {} to lay out for --{}; "
                       "raise the limit with --max-layout (docs/limits.md says how long Graphviz "
                       "takes), or draw --view sfg\n",
                       a.view_name, size, a.max_layout, format);
            status = 2;
        } else if (std::string err = sfg::render_image(spec, view, format, path); !err.empty()) {
            fmt::print(stderr, "sfgc: error: {}\n", err);
            status = 2;
        } else if (a.demo) {
            fmt::print("wrote {}\n", path);
        }
    }
    return status;
}

// --verify-net: every net's reachable markings. Exit 0, or 2 after an error.
int verify_nets(const CompileArgs& a, const std::string& name, const sfg::CompiledSpec& spec) {
    int status = 0;
    for (const sfg::CompiledVariable& v : spec.variables) {
        if (!v.net)
            continue;
        sfg::NetVerification r = sfg::verify_net(*v.net, a.max_markings);
        if (!r.ok()) {
            fmt::print(stderr, "{}: error: net of '{}' breaks an invariant: {}\n", name, v.name,
                       r.failure);
            status = 2;
        } else if (!r.complete) {
            fmt::print(stderr,
                       "{}:{}:{}: error: the net of '{}' has more than {} reachable markings; "
                       "raise the limit with --max-markings\n",
                       name, v.loc.line, v.loc.col, v.name, a.max_markings);
            status = 2;
        } else {
            fmt::print("{}: {}; 1-safe; every marking is feasible\n", v.name,
                       count(r.reachable, "reachable marking"));
        }
    }
    return status;
}

// Every output asked for after the JSON, in order; without any, the summary. Exit 0, or 2.
int write_outputs(const CompileArgs& a, const std::string& name, std::uint64_t hash,
                  const sfg::CompiledSpec& spec, const sfg::CompiledSpec& listed) {
    sfg::View view = a.view_name == "sfg"    ? sfg::View::sfg
                     : a.view_name == "both" ? sfg::View::both
                                             : sfg::View::net;
    if (a.dot && !bounded_write({}, a.max_output,
                                [&](std::ostream& out) { sfg::write_dot(out, listed, view); }))
        return 2;
    int status = write_images(a, listed, view);
    if (!a.pnml.empty() && !bounded_write(a.pnml, a.max_output,
                                          [&](std::ostream& out) { sfg::write_pnml(out, listed); }))
        status = 2;
    if (!a.emit_cpp.empty()) {
        if (!bounded_write(
                a.emit_cpp == "-" ? "" : a.emit_cpp, a.max_output, [&](std::ostream& out) {
                    sfg::write_cpp(out, spec,
                                   a.cpp_ns.empty() ? sfg::cpp_namespace_for(name) : a.cpp_ns,
                                   hash);
                }))
            status = 2;
    }
    if (a.verify && verify_nets(a, name, listed) != 0)
        status = 2;
    if (!a.dot && !a.json && a.svg.empty() && a.png.empty() && a.pnml.empty() &&
        a.emit_cpp.empty() && !a.verify)
        print_summary(spec);
    return status;
}

} // namespace

int run_compile(int argc, char** argv) {
    CLI::App app{"sfgc: compile synchronization disciplines (.sfg) to SFGs and Petri nets.\n"
                 "Sub-commands: `sfgc trace FILE ...` analyses a trace, `sfgc check FILE ...` "
                 "explores programs, `sfgc infer TRACE...` proposes disciplines, `sfgc compress "
                 "TRACE -o OUT.slp` and `sfgc decompress "
                 "IN.slp -o TRACE` write a trace as a grammar and back (docs/compressed.md)."
                 "\nResource limits (docs/limits.md) stop a command with exit "
                 "status 2 and name the option that raises them.",
                 "sfgc"};
    CompileArgs a;
    add_output_options(app, a);
    add_limit_options(app, a);
    try {
        app.parse(argc, argv);
        validate(a);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    apply_memory_limit(a.max_memory);

    std::string name = a.demo ? default_spec_name : a.file;
    std::optional<std::string> text =
        a.demo ? std::optional<std::string>(default_spec_text) : read_input(a.file);
    if (!text)
        return 2;
    const std::uint64_t hash = sfg::spec_hash(*text);
    sfg::SourceFile source(name, std::move(*text));
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags, a.limits);
    // DOT, JSON, PNML and --verify-net list a family's edges one by one (docs/language.md); the
    // generated C++ keeps the rule.
    std::optional<sfg::CompiledSpec> listed;
    if (spec && sfg::has_families(*spec) &&
        (a.dot || a.json || !a.svg.empty() || !a.png.empty() || !a.pnml.empty() || a.verify)) {
        listed = *spec;
        if (!sfg::expand_families(*listed, diags, a.limits))
            spec.reset();
    }
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    const sfg::CompiledSpec* shown = listed ? &*listed : spec ? &*spec : nullptr;
    if (a.json && !bounded_write({}, a.max_output, [&](std::ostream& out) {
            sfg::write_json(out, name, shown, diags);
        }))
        return 2;
    if (!spec)
        return 2;
    return write_outputs(a, name, hash, *spec, *shown);
}

} // namespace sfgc
