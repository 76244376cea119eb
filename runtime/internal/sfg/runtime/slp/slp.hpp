// Compressed traces: a straight-line program (SLP), a grammar that generates exactly one trace
// (docs/compressed.md; the SLP paper, Kini, Mathur and Viswanathan, ESEC/FSE 2018, §2). Terminals
// are the distinct events (thread, op, operand); the locations of events are kept beside the
// grammar, so that repeated code at different places still compresses.
//
// Binary form (docs/compressed.md has the byte layout): magic "SFGSLP1\n", the names, the fork/
// join thread sets, the terminals (after the queue names of enq/deq, when there are any), the
// rules (rule 0 generates the trace; a rule refers only to later rules, so the rules form a DAG
// by construction) and the locations.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/trace.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sfg {

// One distinct event: what the grammar's terminals stand for. Ids refer to a Symbols.
struct SlpTerminal {
    ThreadId thread = 0;
    Op op = Op::read;
    ObjId target = no_object;   // as Event::target
    ObjId value_id = no_object; // as Event::value_id (vr/vw)
    bool has_value() const { return value_id != no_object; }
    friend bool operator==(const SlpTerminal&, const SlpTerminal&) = default;
};

// In a terminal's OP byte of the SLP format: a vr/vw whose value follows its operand
// (docs/compressed.md).
inline constexpr unsigned char slp_value_bit = 0x20;
// The record of the queue names (enq/deq operands), before the first terminal when a terminal is
// an enq or deq: 0x40 + the binary trace's code of the queue namespace, no op code with or
// without slp_value_bit (docs/compressed.md).
inline constexpr unsigned char slp_queue_names =
    0x40 + namespace_wire[static_cast<std::size_t>(Namespace::queue)];
static_assert(!op_from_wire(slp_queue_names) && !op_from_wire(slp_queue_names & ~slp_value_bit));

// A symbol of a rule's right-hand side: terminal k is k, rule r is slp_rule_bit | r.
using SlpSymbol = std::uint32_t;
inline constexpr SlpSymbol slp_rule_bit = 0x80000000u;
inline constexpr bool slp_is_rule(SlpSymbol s) {
    return (s & slp_rule_bit) != 0;
}
inline constexpr std::uint32_t slp_index(SlpSymbol s) {
    return s & ~slp_rule_bit;
}

struct Slp {
    std::vector<SlpTerminal> terminals;
    // rules[0] generates the trace; every symbol of rules[r] is a terminal or a rule > r; no rule
    // is empty, but the start rule of the empty trace (then the only rule).
    std::vector<std::vector<SlpSymbol>> rules;
    // (event number, Symbols::locations id) of the events that have a location, increasing.
    std::vector<std::pair<std::uint64_t, ObjId>> locations;

    // The events each rule generates (compute_lengths()); lengths[0] is the trace's.
    std::vector<std::uint64_t> lengths;
    std::uint64_t events() const { return lengths.empty() ? 0 : lengths[0]; }
    // Fills `lengths`; an error when a rule is malformed (see above) or the trace has 2^62
    // events or more.
    std::optional<std::string> compute_lengths();
    // The location of event `number` (1-based), or no_object.
    ObjId location_of(std::uint64_t number) const;
    // |G| in the paper's sense for non-CNF grammars: the total length of the right-hand sides.
    std::uint64_t size() const;
};

// Whether the bytes start with the SLP magic.
bool is_slp(std::string_view bytes);

// Reads the binary form, interning its names into `syms` (which may already hold names). Checks
// the structure (see Slp), not well-formedness. Errors name the file and the byte offset.
std::optional<TraceError> read_slp(std::string_view bytes, std::string_view file_name,
                                   Symbols& syms, Slp& out);
// Writes the binary form.
void write_slp(std::ostream& out, const Slp& slp, const Symbols& syms);

// ZipTrack's pair (docs/compressed.md): a map file, `ID|THREAD,TYPE,OBJECT` a line with TYPE one
// of R W L U F J, and a Sequitur grammar, `N -> SYMBOLS` a line, `&k` terminal k, a bare number a
// rule, rule 0 the start. No locations. Only the ops ZipTrack knows (r, w, acq, rel, fork and join
// of one thread) can be written: write_ziptrack returns an error for others.
std::optional<TraceError> read_ziptrack(std::string_view map_text, std::string_view map_name,
                                        std::string_view grammar_text,
                                        std::string_view grammar_name, Symbols& syms, Slp& out);
std::optional<std::string> write_ziptrack(std::ostream& map, std::ostream& grammar, const Slp& slp,
                                          const Symbols& syms);

// Hands `sink` the events the SLP generates, through the well-formedness checker (as a trace
// reader does: implicit events included, numbered 1, 2, ..., stopping at the first error, which
// names the event). `sink.finish` is not called.
TraceResult expand_slp(const Slp& slp, std::string_view file_name, const Symbols& syms,
                       Analysis& sink);
// The well-formedness of the trace an SLP generates (docs/traces.md), checked on the grammar in
// time linear in its size: nothing when well-formed, else the error expand_slp would give (the
// first ill-formed event found by a descent, its message made from the prefix's summary).
std::optional<TraceError> check_slp_well_formed(const Slp& slp, std::string_view file_name,
                                                const Symbols& syms);
// read_slp and expand_slp: an SLP file as a trace (read_trace_file does this for SLP files).
TraceResult read_slp_trace(std::string_view bytes, std::string_view file_name, Symbols& syms,
                           Analysis& sink);

// Grammar construction over terminal ids 0, 1, ... (less than 2^30).
enum class SlpAlgorithm : std::uint8_t { sequitur, repair };
// Sequitur (Nevill-Manning and Witten 1997): online, linear; the SLP paper's choice.
class SequiturBuilder {
public:
    SequiturBuilder();
    ~SequiturBuilder();
    SequiturBuilder(const SequiturBuilder&) = delete;
    SequiturBuilder& operator=(const SequiturBuilder&) = delete;
    void add(std::uint32_t terminal);
    // The grammar in Slp's rule order (rule 0 the start; an empty input gives no rule).
    std::vector<std::vector<SlpSymbol>> finish();

private:
    struct Impl;
    Impl* impl_;
};
// Re-Pair (Larsson and Moffat 2000): offline, replaces a most frequent pair of adjacent symbols
// by a new rule until no pair occurs twice; often smaller than Sequitur.
std::vector<std::vector<SlpSymbol>> repair(const std::vector<std::uint32_t>& sequence);

} // namespace sfg
