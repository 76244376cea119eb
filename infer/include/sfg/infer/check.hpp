// The inferred spec checked before anyone reads it (docs/infer.md): it compiles, and every trace
// it came from conforms to it (the enforcer, thesis Figures 4.14 and 4.15, admits it).
#pragma once

#include "sfg/infer/infer.hpp"
#include "sfg/runtime/core/varint.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/op.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sfg::infer {

// A trace's events kept in memory during the inference's one pass (a few bytes an event,
// LEB128), so that the check replays them instead of reading and parsing the trace again (and
// a trace read from standard input is checked too).
// An event is a byte of op and flags, its thread and target, the value of vr/vw, and only when
// the event does not follow its predecessor (next number, next line, no location) its number,
// line and location: a text trace's event is three bytes.
class EventLog final : public Analysis {
public:
    void on_event(const Event& e, const Symbols&) override { append(e); }
    // The same inline, for the recorder that keeps the events (TraceRecorder(&log)).
    void append(const Event& e) {
        static_assert(op_count <= implicit_bit);
        const bool regular =
            e.number == number_ + 1 && e.location == no_object && e.line == next_line(line_);
        unsigned char* buf = bytes_.room(max_event_bytes);
        std::size_t n = 0;
        buf[n++] = static_cast<unsigned char>(static_cast<unsigned>(e.op) |
                                              (e.implicit ? implicit_bit : 0) |
                                              (regular ? 0 : irregular_bit));
        put_varint(buf, n, e.thread);
        put_varint(buf, n, plus_one(e.target));
        if (carries_value(e.op))
            put_varint(buf, n, plus_one(e.value_id));
        if (!regular) [[unlikely]] {
            put_varint(buf, n, zigzag(static_cast<std::int64_t>(e.number - number_)));
            put_varint(buf, n, e.line);
            put_varint(buf, n, plus_one(e.location));
        }
        bytes_.advance(n);
        number_ = e.number;
        line_ = e.line;
    }
    // Hands `sink` every event in order, as the pass saw them with `syms`.
    void replay(const Symbols& syms, Analysis& sink) const;

private:
    static constexpr unsigned implicit_bit = 0x20, irregular_bit = 0x40;
    static constexpr std::size_t max_event_bytes = 1 + 7 * 10; // the op byte and six varints
    static bool carries_value(Op op) { return op == Op::vol_read || op == Op::vol_write; }
    // ObjId with no_object as 0, the rest one up.
    static std::uint64_t plus_one(ObjId id) { return id == no_object ? 0 : std::uint64_t{id} + 1; }
    static ObjId minus_one(std::uint64_t v) {
        return v == 0 ? no_object : static_cast<ObjId>(v - 1);
    }
    // The line of an event that follows one on `line`: the next, or none after none (binary).
    static std::uint32_t next_line(std::uint32_t line) { return line == 0 ? 0 : line + 1; }
    ByteLog bytes_;
    std::uint64_t number_ = 0; // the previous event's
    std::uint32_t line_ = 0;
};

// One input to replay: its name and how to hand its events to a sink, interning names into the
// given Symbols (an error message when the input cannot be read).
struct Replay {
    std::string name;
    std::function<std::optional<std::string>(Symbols&, Analysis&)> feed;
};

// nullopt when `spec_text` compiles without errors and `enforce` reports nothing on any input;
// else what went wrong, naming the variable, the input and the event.
std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<Replay>& inputs);
// The same on trace files, read as `sfgc trace` reads them (text, binary or SLP).
std::optional<std::string> check_inferred(const std::string& spec_text,
                                          const std::vector<std::string>& trace_files);

} // namespace sfg::infer
