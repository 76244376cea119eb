// `sfgc FILE.sfg [--dot] [--view sfg|net|both] [--svg OUT] [--png OUT] [--json] [--pnml OUT]
//  [--verify-net]` (contract §2), and `sfgc --demo` on the embedded barrier spec.
#include "commands.hpp"
#include "io.hpp"

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/render.hpp"
#include "sfg/compiler/verify.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <unistd.h>

namespace sfgc {

extern const char* const default_spec_name;
extern const char* const default_spec_text;

namespace {

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        fmt::print(stderr, "sfgc: error: cannot write '{}'\n", path);
        return false;
    }
    return true;
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
        fmt::print("{}: {}, {}; net: {}, {}, {}\n", v.name, count(v.sfg->mode_count(), "mode"),
                   count(v.net->edges.size(), "edge"), count(v.net->places.size(), "place"),
                   count(v.net->transitions.size(), "transition"),
                   count(v.net->initial_markings.size(), "initial marking"));
    }
}

} // namespace

int run_compile(int argc, char** argv) {
    CLI::App app{"sfgc: compile synchronization disciplines (.sfg) to SFGs and Petri nets.\n"
                 "Sub-commands: `sfgc trace FILE ...` analyses a trace.",
                 "sfgc"};
    std::string file;
    bool dot = false, json = false, verify = false, demo = false;
    std::string view_name = "net", svg, png, pnml;
    app.add_option("FILE", file, "the .sfg specification");
    app.add_flag("--dot", dot, "write Graphviz DOT to standard output");
    app.add_option("--view", view_name, "what to draw: sfg, net or both (default net)")
        ->check(CLI::IsMember({"sfg", "net", "both"}));
    app.add_option("--svg", svg, "render the view to an SVG file");
    app.add_option("--png", png, "render the view to a PNG file");
    app.add_flag("--json", json, "write the compiled spec as JSON to standard output");
    app.add_option("--pnml", pnml, "write the Petri nets as PNML to a file");
    app.add_flag("--verify-net", verify,
                 "explore every reachable marking and check 1-safety and feasibility");
    app.add_flag("--demo", demo, "use the embedded default spec (the thesis' barrier discipline)");
    try {
        app.parse(argc, argv);
        if (dot && json)
            throw CLI::ValidationError("--dot and --json", "both write to standard output");
        if (demo == !file.empty())
            throw CLI::ValidationError("FILE", demo ? "--demo takes no FILE" : "FILE is required");
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }

    std::string name = demo ? default_spec_name : file;
    std::optional<std::string> text =
        demo ? std::optional<std::string>(default_spec_text) : read_input(file);
    if (!text)
        return 2;
    sfg::SourceFile source(name, std::move(*text));
    sfg::Diagnostics diags;
    std::optional<sfg::CompiledSpec> spec = sfg::compile_spec(source, diags);
    sfg::print_diagnostics(std::cerr, source, diags, isatty(STDERR_FILENO) != 0);
    if (json)
        std::cout << sfg::to_json(name, spec ? &*spec : nullptr, diags).dump(2) << '\n';
    if (!spec)
        return 2;

    sfg::View view = view_name == "sfg"    ? sfg::View::sfg
                     : view_name == "both" ? sfg::View::both
                                           : sfg::View::net;
    int status = 0;
    if (dot)
        std::cout << sfg::to_dot(*spec, view);
    for (const auto& [format, path] :
         std::map<std::string, std::string>{{"svg", svg}, {"png", png}}) {
        if (path.empty())
            continue;
        if (std::string err = sfg::render_image(*spec, view, format, path); !err.empty()) {
            fmt::print(stderr, "sfgc: error: {}\n", err);
            status = 2;
        } else if (demo) {
            fmt::print("wrote {}\n", path);
        }
    }
    if (!pnml.empty() && !write_file(pnml, sfg::to_pnml(*spec)))
        status = 2;
    if (verify) {
        for (const sfg::CompiledVariable& v : spec->variables) {
            if (!v.net)
                continue;
            sfg::NetVerification r = sfg::verify_net(*v.net);
            if (r.ok())
                fmt::print("{}: {}{}; 1-safe; every marking is feasible\n", v.name,
                           count(r.reachable, "reachable marking"),
                           r.complete ? "" : " (search bounded)");
            else {
                fmt::print(stderr, "{}: error: net of '{}' breaks an invariant: {}\n", name, v.name,
                           r.failure);
                status = 2;
            }
        }
    }
    if (!dot && !json && svg.empty() && png.empty() && pnml.empty() && !verify)
        print_summary(*spec);
    return status;
}

} // namespace sfgc
