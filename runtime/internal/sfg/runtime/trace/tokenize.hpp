// The cost floor of reading a text trace, for the benchmarks (bench/README.md); not installed.
#pragma once

#include <cstdint>
#include <string_view>

namespace sfg {

// Splits the text into fields and counts the event lines as the reader does, without interning
// or checking anything.
std::uint64_t tokenize_trace_text(std::string_view text);

} // namespace sfg
