// Reading and writing SLP files for the sub-commands (docs/compressed.md): the binary form, or
// ZipTrack's grammar with its map file.
#pragma once

#include "sfg/runtime/core/mapped_file.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/slp/slp_expand.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

// An SLP file as read: the binary form as an image (slp_expand.hpp), its bytes kept for the
// locations it leaves in them; ZipTrack's as an Slp.
class LoadedSlp {
public:
    std::uint64_t events() const { return image_ ? image_->events() : slp_.events(); }
    std::uint64_t size() const { return image_ ? image_->size() : slp_.size(); }
    // The Slp, for the analyses on the grammar, made from the image on first use; the image is
    // then dropped (expand() uses the Slp): the analyses on the grammar need all the memory.
    const sfg::Slp& grammar();
    // expand_slp on it.
    sfg::TraceResult expand(std::string_view file_name, const sfg::Symbols& syms,
                            sfg::Analysis& sink, const sfg::SlpExpandOptions& options) const;

private:
    friend bool load_slp(const std::string&, const SlpFormat&, sfg::Symbols&, LoadedSlp&, unsigned);
    sfg::MappedFile bytes_;
    std::optional<sfg::SlpImage> image_;
    sfg::Slp slp_;
    bool has_slp_ = false;
};

// Reads an SLP (on `threads` threads: read_slp_image); on failure prints the error (naming the
// file) and returns false.
bool load_slp(const std::string& file, const SlpFormat& f, sfg::Symbols& syms, LoadedSlp& out,
              unsigned threads = 1);

// Threads for expanding `events` events (SlpExpandOptions): `threads` as --threads gives it;
// auto: two when there are two cores and events enough to repay a thread.
unsigned expansion_threads(const std::string& threads, std::uint64_t events);
// Threads for reading an SLP (read_slp_image): as --threads gives it; auto: two when there are
// two cores (the reader uses the second only for a file of a megabyte or more).
unsigned slp_reading_threads(const std::string& threads);

} // namespace sfgc
