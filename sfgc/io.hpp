// Reading input files for the sub-commands, with errors worded like the diagnostics.
#pragma once

#include <optional>
#include <string>

namespace sfgc {

// Largest input file accepted (specs, programs): larger ones are refused, not read.
inline constexpr std::size_t max_input_bytes = std::size_t{64} << 20;

// Reads `path` whole. On failure prints `PATH: error: ...` to stderr and returns nothing.
std::optional<std::string> read_input(const std::string& path);

} // namespace sfgc
