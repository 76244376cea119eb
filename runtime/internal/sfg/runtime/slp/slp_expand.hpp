// Streaming an SLP's events fast (docs/compressed.md, "When compression pays"): the file read
// into flat arrays, not a vector per rule nor a pair per location, and the expansion on a second
// thread, well-formedness included, while the analyses run on the caller's.
//
// The events, their numbers, their locations and the first error are those of expand_slp on
// read_slp's Slp (slp.hpp), whatever the number of threads.
#pragma once

#include "sfg/runtime/slp/slp.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace sfg {

// An SLP as read_slp_image reads it: what Slp holds, with the rules one after the other in one
// array and the locations left encoded in the bytes read, after the reader has checked them. The
// bytes must outlive the image.
struct SlpImage {
    std::vector<SlpTerminal> terminals;
    // The rules' right-hand sides (symbols as in Slp): rule r is symbols[rule_start[r] ..
    // rule_start[r + 1]); rule 0 generates the trace, and rules refer only to later rules.
    std::vector<SlpSymbol> symbols;
    std::vector<std::uint64_t> rule_start;
    std::vector<std::uint64_t> lengths; // the events each rule generates
    // The locations section's entries (varint GAP, varint LOCATION, docs/compressed.md), checked:
    // gaps at least 1, numbers at most events(), ids in range; `location_ids` maps the file's
    // location ids to Symbols ids.
    std::string_view location_bytes;
    std::uint64_t location_count = 0;
    std::vector<ObjId> location_ids;
    // expand_slp's index of the rules, made with the lengths (slp_stream.hpp): a word a rule,
    // and the events of every rule of at most 16 events, stored expanded.
    std::vector<std::uint64_t> refs;
    std::vector<std::uint32_t> leaves;

    std::size_t rules() const { return lengths.size(); }
    std::uint64_t events() const { return lengths.empty() ? 0 : lengths[0]; }
    std::uint64_t size() const { return symbols.size(); } // Slp::size()
};

// read_slp into an image: the same checks, the same errors (byte offsets included), the same
// names interned into `syms`. With two threads or more, a second thread checks the locations
// while this one reads the rules.
std::optional<TraceError> read_slp_image(std::string_view bytes, std::string_view file_name,
                                         Symbols& syms, SlpImage& out, unsigned threads = 1);
// The Slp read_slp gives for the same bytes (for the analyses on the grammar).
Slp to_slp(const SlpImage& image);

struct SlpExpandOptions {
    // 1: everything on the caller's thread. 2 or more: the expansion and its well-formedness
    // checks on a thread of its own, a few batches of events ahead of the sink on the caller's
    // (which expands itself whenever the next batch is not ready). Expansion is sequential: a
    // third thread would have nothing to do.
    unsigned threads = 1;
    // Events a batch (a little more: implicit events follow their event into its batch).
    std::size_t batch_events = 4096;
};

// expand_slp (slp.hpp) on an image, and on an Slp, with these options. An exception from the
// sink stops the other thread and is rethrown.
TraceResult expand_slp(const SlpImage& image, std::string_view file_name, const Symbols& syms,
                       Analysis& sink, const SlpExpandOptions& options);
TraceResult expand_slp(const Slp& slp, std::string_view file_name, const Symbols& syms,
                       Analysis& sink, const SlpExpandOptions& options);
// read_slp_trace (slp.hpp) with these options: read_slp_image, then expand_slp.
TraceResult read_slp_trace(std::string_view bytes, std::string_view file_name, Symbols& syms,
                           Analysis& sink, const SlpExpandOptions& options);

} // namespace sfg
