// read_trace_file (trace_file.hpp): a file mapped once and read by the reader of its form.
#include "sfg/runtime/trace_file.hpp"
#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/slp/slp_expand.hpp"

#include <fmt/format.h>

namespace sfg {

TraceResult read_trace_file(const std::string& path, Symbols& syms, Analysis& sink) {
    return read_trace_file_parallel(path, syms, sink, {1});
}

TraceResult read_trace_file_parallel(const std::string& path, Symbols& syms, Analysis& sink,
                                     const ParallelReadOptions& options) {
    MappedFile f;
    if (!f.open(path)) {
        TraceResult r;
        r.error = TraceError{path, 0, 0, fmt::format("cannot read the trace: {}", f.error())};
        return r;
    }
    std::string_view name = path == "-" ? std::string_view("<stdin>") : std::string_view(path);
    if (is_binary_trace(f.data()))
        return read_trace_binary(f.data(), name, syms, sink);
    if (is_slp(f.data())) // a compressed trace (docs/compressed.md): expanded as it streams
        return read_slp_trace(f.data(), name, syms, sink, SlpExpandOptions{options.threads});
    return read_trace_text_parallel(f.data(), name, syms, sink, options);
}

} // namespace sfg
