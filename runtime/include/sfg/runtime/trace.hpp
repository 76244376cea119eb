// Trace files (docs/traces.md): the STD-compatible text form, a compact binary form, readers that
// stream events into analyses as they parse (nothing is materialized), and writers.
//
// Text: one event a line, `THREAD|OP` or `THREAD|OP|LOCATION`; blank lines and lines starting
// with `#` are ignored; spaces and tabs around fields are ignored; a trailing CR is ignored.
// Names (threads, operands) are any bytes except white space, control characters and `|(),`.
// `begin`/`end` also accept RAPID's `begin(..)`/`end(..)` form; the operand is ignored.
//
// Binary (docs: this header is the specification):
//   magic    8 bytes  "SFGTRC1\n"
//   records  until the end of the file, each starting with one tag byte:
//     tag 0x40 + k  (k = 0 threads, 1 vars, 2 locks, 3 volatiles, 4 barriers, 5 locations,
//                   6 queues; op.hpp's namespace_wire):
//                   a name definition: varint length, bytes. Names of each kind get the file ids
//                   0, 1, 2, ... in order of definition; a name is defined before its first use.
//                   Names obey the text form's rules (above; a thread's name does not start
//                   with `#`, which would make its lines comments; a location has no control
//                   character but tab, no blank at either end, and is not empty), so every
//                   binary trace can be written as text and no name can forge a line of a
//                   report.
//     tag op | h    an event, op = the op's wire code (op.hpp's op_table: r 0, w 1, acq 2, rel 3,
//                   vr 4, vw 5, benter 6, bexit 7, fork 8, join 9, begin 10, end 11, enq 14,
//                   deq 15 (12, 13 unassigned); fixed for good, so files of every version read
//                   alike), h = 0x80
//                   when it has a location: varint thread; then for r/w/acq/rel/vr/vw/benter/
//                   bexit a varint target, for fork/join a varint count >= 1 and that many
//                   varint threads, for enq/deq a varint queue and a varint variable; then,
//                   when h is set, a varint location.
//   varint = unsigned LEB128 (7 bits a byte, low first, at most 5 bytes for 32-bit values).
// Binary traces carry no line numbers: errors name the event number and the byte offset.
#pragma once

#include "sfg/runtime/event.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

// An error in a trace, printed as `FILE:LINE:COL: error: MESSAGE`.
struct TraceError {
    std::string file;
    std::uint32_t line = 0; // 1-based line (text) or 0
    std::uint32_t col = 0;  // 1-based column (text) or 0
    std::string message;
    std::string to_string() const;
};

struct TraceResult {
    std::uint64_t events = 0; // explicit events delivered
    std::optional<TraceError> error;
    bool ok() const { return !error.has_value(); }
};

// Analyses run side by side in one pass: the fan-out forwards every event to each of them.
class Fanout : public Analysis {
public:
    void add(Analysis& a) { sinks_.push_back(&a); }
    void on_event(const Event& e, const Symbols& syms) override {
        for (Analysis* a : sinks_)
            a->on_event(e, syms);
    }
    void finish(const Symbols& syms) override {
        for (Analysis* a : sinks_)
            a->finish(syms);
    }

private:
    std::vector<Analysis*> sinks_;
};

// Readers. Each validates well-formedness (well_formed.hpp) and hands `sink` every event,
// implicit ones included, as it goes; it stops at the first error. Names are interned into
// `syms` (which may already hold names, e.g. a spec's threads). `sink.finish` is not called.
TraceResult read_trace_text(std::string_view text, std::string_view file_name, Symbols& syms,
                            Analysis& sink);
TraceResult read_trace_binary(std::string_view bytes, std::string_view file_name, Symbols& syms,
                              Analysis& sink);
// A text trace parsed by `threads` threads (the caller's among them), in chunks of about
// `chunk_bytes` cut at line starts. Well-formedness checking and the sink run on the caller's
// thread, in file order, so the sink sees the same events with the same ids and lines, `syms`
// ends with the same names, and an error is the same error, as with read_trace_text (ill-formed
// or malformed input: only names interned by the failing line itself may be missing).
// threads <= 1: read_trace_text. An exception from the sink stops the other threads and is
// rethrown. Files of any form (text, binary, SLP): read_trace_file (trace_file.hpp).
struct ParallelReadOptions {
    unsigned threads = 2;
    std::size_t chunk_bytes = std::size_t{256} << 10;
};
TraceResult read_trace_text_parallel(std::string_view text, std::string_view file_name,
                                     Symbols& syms, Analysis& sink,
                                     const ParallelReadOptions& options = {});

bool is_binary_trace(std::string_view bytes);

// One explicit event as a text line without the newline, e.g. `T1|w(x)|Main.java:12`.
std::string format_event(const Event& e, const Symbols& syms);

// Writers: analyses that write every explicit event (implicit ones are implied by the format).
class TextTraceWriter : public Analysis {
public:
    explicit TextTraceWriter(std::ostream& out) : out_(out) {}
    void on_event(const Event& e, const Symbols& syms) override;
    void finish(const Symbols&) override;

private:
    std::ostream& out_;
    std::string buf_;
};

class BinaryTraceWriter : public Analysis {
public:
    explicit BinaryTraceWriter(std::ostream& out);
    void on_event(const Event& e, const Symbols& syms) override;
    void finish(const Symbols&) override;

private:
    std::uint32_t file_id(Namespace space, std::uint32_t id, const SymbolTable& table);
    void flush();

    std::ostream& out_;
    std::string buf_;
    // Per kind: our id -> file id + 1 (0: not yet defined).
    std::vector<std::uint32_t> ids_[namespace_count_with_queues];
    std::uint32_t next_[namespace_count_with_queues] = {};
};

} // namespace sfg
