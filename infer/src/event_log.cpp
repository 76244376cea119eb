// The events of one pass kept for the check (docs/infer.md, "How it decides"): an event is a
// byte of op and flags, its thread and target, the value of vr/vw, and only when the event does
// not follow its predecessor (next number, next line, no location) its number, line and
// location. A text trace's event is three bytes.
#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"

#include "sfg/runtime/core/varint.hpp"

namespace sfg::infer {

namespace {

constexpr unsigned implicit_bit = 0x20, irregular_bit = 0x40;

bool carries_value(Op op) {
    return op == Op::vol_read || op == Op::vol_write;
}

// ObjId with no_object as 0, the rest one up.
std::uint64_t plus_one(ObjId id) {
    return id == no_object ? 0 : std::uint64_t{id} + 1;
}
ObjId minus_one(std::uint64_t v) {
    return v == 0 ? no_object : static_cast<ObjId>(v - 1);
}

// The line an event that follows one on `line` has: the next, or none after none (binary traces).
std::uint32_t next_line(std::uint32_t line) {
    return line == 0 ? 0 : line + 1;
}

constexpr std::size_t max_event_bytes = 1 + 7 * 10; // the op byte and six varints

} // namespace

void EventLog::on_event(const Event& e, const Symbols&) {
    static_assert(op_count <= implicit_bit);
    const bool regular =
        e.number == number_ + 1 && e.location == no_object && e.line == next_line(line_);
    unsigned char* buf = bytes_.room(max_event_bytes);
    std::size_t n = 0;
    buf[n++] =
        static_cast<unsigned char>(static_cast<unsigned>(e.op) | (e.implicit ? implicit_bit : 0) |
                                   (regular ? 0 : irregular_bit));
    put_varint(buf, n, e.thread);
    put_varint(buf, n, plus_one(e.target));
    if (carries_value(e.op))
        put_varint(buf, n, plus_one(e.value_id));
    if (!regular) {
        put_varint(buf, n, zigzag(static_cast<std::int64_t>(e.number - number_)));
        put_varint(buf, n, e.line);
        put_varint(buf, n, plus_one(e.location));
    }
    bytes_.advance(n);
    number_ = e.number;
    line_ = e.line;
}

void EventLog::replay(const Symbols& syms, Analysis& sink) const {
    VarintReader in{bytes_.data(), bytes_.size()};
    auto next = [&] { return in.next(); };
    Event e;
    while (in.more()) {
        const unsigned h = in.p[in.pos++];
        e.op = static_cast<Op>(h & (implicit_bit - 1));
        e.implicit = (h & implicit_bit) != 0;
        e.thread = static_cast<ThreadId>(next());
        e.target = minus_one(next());
        e.value_id = carries_value(e.op) ? minus_one(next()) : no_object;
        if (h & irregular_bit) {
            e.number += static_cast<std::uint64_t>(unzigzag(next()));
            e.line = static_cast<std::uint32_t>(next());
            e.location = minus_one(next());
        } else {
            ++e.number;
            e.line = next_line(e.line);
            e.location = no_object;
        }
        sink.on_event(e, syms);
    }
}

} // namespace sfg::infer
