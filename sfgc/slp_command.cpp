// `sfgc compress TRACE -o OUT.slp [--algorithm sequitur|repair] [--stats]` and
// `sfgc decompress IN.slp -o TRACE [--format text|binary]` (docs/compressed.md): a trace as a
// straight-line program and back.
#include "commands.hpp"
#include "options.hpp"
#include "sfg/runtime/registry/compress_trace_file.hpp"
#include "slp_io.hpp"

#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

namespace sfgc {

namespace {

int parse(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    return -1;
}

// Opens `path` for writing ("-": standard output); prints the error and returns nullptr.
std::ostream* open_output(const std::string& path, std::ofstream& file) {
    if (path == "-")
        return &std::cout;
    file.open(path, std::ios::binary);
    if (!file) {
        fmt::print(stderr, "{}: error: cannot write the file\n", path);
        return nullptr;
    }
    return &file;
}

} // namespace

void add_slp_format_options(CLI::App& app, SlpFormat& f) {
    app.add_option("--slp-format", f.format,
                   "binary (default: sfg's SLP form) or ziptrack (ZipTrack's Sequitur grammar, "
                   "with a map file)")
        ->check(CLI::IsMember({"binary", "ziptrack"}));
    app.add_option("--map", f.map, "ziptrack: the map file (default: the grammar's name + .map)");
}

bool load_slp(const std::string& file, const SlpFormat& f, sfg::Symbols& syms, LoadedSlp& out,
              unsigned threads) {
    sfg::MappedFile& in = out.bytes_;
    if (!in.open(file)) {
        fmt::print(stderr, "{}: error: cannot read the file: {}\n", file, in.error());
        return false;
    }
    const std::string name = file == "-" ? "<stdin>" : file;
    std::optional<sfg::TraceError> e;
    if (f.format == "ziptrack") {
        const std::string map_file = f.map_path(file);
        sfg::MappedFile map;
        if (!map.open(map_file)) {
            fmt::print(stderr, "{}: error: cannot read the map file: {}\n", map_file, map.error());
            return false;
        }
        e = sfg::read_ziptrack(map.data(), map_file, in.data(), name, syms, out.slp_);
        out.has_slp_ = true;
    } else {
        out.image_.emplace();
        e = sfg::read_slp_image(in.data(), name, syms, *out.image_, threads);
    }
    if (e) {
        fmt::print(stderr, "{}\n", e->to_string());
        return false;
    }
    return true;
}

const sfg::Slp& LoadedSlp::grammar() {
    if (!has_slp_) {
        slp_ = sfg::to_slp(*image_);
        has_slp_ = true;
        image_.reset();
    }
    return slp_;
}

sfg::TraceResult LoadedSlp::expand(std::string_view file_name, const sfg::Symbols& syms,
                                   sfg::Analysis& sink,
                                   const sfg::SlpExpandOptions& options) const {
    return image_ ? sfg::expand_slp(*image_, file_name, syms, sink, options)
                  : sfg::expand_slp(slp_, file_name, syms, sink, options);
}

unsigned slp_reading_threads(const std::string& threads) {
    if (threads != "auto")
        return static_cast<unsigned>(std::stoul(threads));
    return std::thread::hardware_concurrency() >= 2 ? 2 : 1;
}

unsigned expansion_threads(const std::string& threads, std::uint64_t events) {
    if (threads != "auto")
        return static_cast<unsigned>(std::stoul(threads));
    // A thread costs some tens of microseconds to start; 64K events take a millisecond or more.
    return events >= (1u << 16) && std::thread::hardware_concurrency() >= 2 ? 2 : 1;
}

int run_compress(int argc, char** argv) {
    CLI::App app{"sfgc compress: write a trace (text, binary or SLP) as a straight-line program, "
                 "a grammar that generates exactly the trace (docs/compressed.md); `sfgc trace` "
                 "analyses it as it is.\nExit status: 0 done, 2 bad input or usage.",
                 "sfgc compress"};
    std::string file, out_path, algorithm = "sequitur";
    bool stats = false;
    app.add_option("TRACE", file, "the trace ('-' for standard input)")->required();
    app.add_option("-o,--output", out_path, "the SLP file to write ('-': standard output)")
        ->required();
    app.add_option("--algorithm", algorithm,
                   "sequitur (default: online, linear; the SLP paper's) or repair (offline, "
                   "often smaller)")
        ->check(CLI::IsMember({"sequitur", "repair"}));
    SlpFormat slp_format;
    add_slp_format_options(app, slp_format);
    app.add_flag("--stats", stats,
                 "print events, grammar size, compression ratio and speed on standard error");
    std::uint64_t max_memory = default_max_memory_mib;
    add_memory_option(app, max_memory);
    if (int code = parse(app, argc, argv); code >= 0)
        return code;
    apply_memory_limit(max_memory);

    const auto start = std::chrono::steady_clock::now();
    sfg::Symbols syms;
    sfg::Slp slp;
    sfg::TraceResult r = sfg::compress_trace_file(
        file, algorithm == "repair" ? sfg::SlpAlgorithm::repair : sfg::SlpAlgorithm::sequitur, syms,
        slp);
    if (!r.ok()) {
        fmt::print(stderr, "{}\n", r.error->to_string());
        return 2;
    }
    // ZipTrack's format may not hold the trace: find out before any file is written.
    std::ostringstream zt_map, zt_grammar;
    if (slp_format.format == "ziptrack")
        if (auto e = sfg::write_ziptrack(zt_map, zt_grammar, slp, syms)) {
            fmt::print(stderr, "{}: error: {}\n", file, *e);
            return 2;
        }
    std::ofstream f;
    std::ostream* out = open_output(out_path, f);
    if (!out)
        return 2;
    if (slp_format.format == "ziptrack") {
        const std::string map_path = slp_format.map_path(out_path);
        std::ofstream map(map_path, std::ios::binary);
        map << zt_map.str();
        if (!map) {
            fmt::print(stderr, "{}: error: cannot write the file\n", map_path);
            return 2;
        }
        *out << zt_grammar.str();
    } else {
        sfg::write_slp(*out, slp, syms);
    }
    out->flush();
    if (!*out) {
        fmt::print(stderr, "{}: error: cannot write the file\n", out_path);
        return 2;
    }
    if (stats) {
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::uint64_t size = std::max<std::uint64_t>(slp.size(), 1);
        fmt::print(stderr,
                   "{} events, {} terminals, {} rules, grammar size {}, ratio {:.2f}, "
                   "{:.3f} s ({:.0f} events/s)\n",
                   slp.events(), slp.terminals.size(), slp.rules.size(), slp.size(),
                   static_cast<double>(slp.events()) / static_cast<double>(size), s,
                   s > 0 ? static_cast<double>(slp.events()) / s : 0.0);
    }
    return 0;
}

int run_decompress(int argc, char** argv) {
    CLI::App app{"sfgc decompress: the trace a straight-line program generates "
                 "(docs/compressed.md): the same events, order, names and locations.\nExit "
                 "status: 0 done, 2 bad input or usage.",
                 "sfgc decompress"};
    std::string file, out_path, format = "text";
    app.add_option("SLP", file, "the SLP file ('-' for standard input)")->required();
    app.add_option("-o,--output", out_path, "the trace to write ('-': standard output)")
        ->required();
    app.add_option("--format", format, "text (default) or binary (docs/traces.md)")
        ->check(CLI::IsMember({"text", "binary"}));
    SlpFormat slp_format;
    add_slp_format_options(app, slp_format);
    std::uint64_t max_memory = default_max_memory_mib;
    add_memory_option(app, max_memory);
    if (int code = parse(app, argc, argv); code >= 0)
        return code;
    apply_memory_limit(max_memory);

    const std::string name = file == "-" ? "<stdin>" : file;
    sfg::Symbols syms;
    LoadedSlp slp;
    if (!load_slp(file, slp_format, syms, slp, slp_reading_threads("auto")))
        return 2;
    std::ofstream f;
    std::ostream* out = open_output(out_path, f);
    if (!out)
        return 2;
    std::unique_ptr<sfg::Analysis> writer;
    if (format == "binary")
        writer = std::make_unique<sfg::BinaryTraceWriter>(*out);
    else
        writer = std::make_unique<sfg::TextTraceWriter>(*out);
    sfg::TraceResult r = slp.expand(name, syms, *writer, {expansion_threads("auto", slp.events())});
    writer->finish(syms);
    if (!r.ok()) {
        fmt::print(stderr, "{}\n", r.error->to_string());
        return 2;
    }
    if (!*out) {
        fmt::print(stderr, "{}: error: cannot write the file\n", out_path);
        return 2;
    }
    return 0;
}

} // namespace sfgc
