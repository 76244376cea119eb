// Compressing a trace file into an SLP (docs/compressed.md). It reads the file as
// read_trace_file does, in any form, an SLP too, so it is in the registry layer, above slp/
// (docs/architecture.md).
#pragma once

#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace.hpp"

#include <string>

namespace sfg {

// Reads a trace file (any form read_trace_file reads) and compresses it: the terminals, the
// rules and the locations of `out`, names in `syms`. Checks well-formedness as it reads.
TraceResult compress_trace_file(const std::string& path, SlpAlgorithm algorithm, Symbols& syms,
                                Slp& out);

} // namespace sfg
