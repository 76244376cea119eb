// Reading and writing SLP files for the sub-commands (docs/compressed.md): the binary form, or
// ZipTrack's grammar with its map file.
#pragma once

#include "sfg/runtime/slp.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace sfgc {

struct SlpFormat {
    std::string format = "binary"; // or "ziptrack"
    std::string map;               // ziptrack: the map file (default: the grammar's name + .map)
    std::string map_path(const std::string& grammar) const {
        return map.empty() ? grammar + ".map" : map;
    }
};
// --slp-format and --map.
void add_slp_format_options(CLI::App& app, SlpFormat& f);

// Reads an SLP; on failure prints the error (naming the file) and returns false.
bool load_slp(const std::string& file, const SlpFormat& f, sfg::Symbols& syms, sfg::Slp& slp);

} // namespace sfgc
