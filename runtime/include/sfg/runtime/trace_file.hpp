// Trace files of any form (docs/traces.md, docs/compressed.md): text, binary (trace.hpp) or an
// SLP, told apart by their first bytes. An SLP is expanded as it streams, so these readers are
// in the registry layer, above the SLPs (docs/architecture.md); trace.hpp has the readers of one
// form.
#pragma once

#include "sfg/runtime/trace.hpp"

#include <string>

namespace sfg {

// Reads a file ("-" for standard input), text, binary or an SLP according to its first bytes.
// As the readers of trace.hpp, it validates well-formedness, hands `sink` every event, stops at
// the first error and does not call `sink.finish`.
TraceResult read_trace_file(const std::string& path, Symbols& syms, Analysis& sink);
// As read_trace_file, with a text trace read by read_trace_text_parallel (trace.hpp) and an SLP
// expanded by `options.threads` threads. threads <= 1: read_trace_file.
TraceResult read_trace_file_parallel(const std::string& path, Symbols& syms, Analysis& sink,
                                     const ParallelReadOptions& options = {});

} // namespace sfg
