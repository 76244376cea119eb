// The events of one pass replayed for the check (docs/infer.md, "How it decides"), in the form
// EventLog::append wrote them (check.hpp).
#include "sfg/infer/check.hpp"
#include "sfg/infer/infer.hpp"

#include "sfg/runtime/core/varint.hpp"

namespace sfg::infer {

void EventLog::replay(const Symbols& syms, Analysis& sink) const {
    VarintReader in{bytes_.data(), bytes_.size()};
    auto next = [&] { return in.next(); };
    Event e;
    while (in.more()) {
        const unsigned h = in.p[in.pos++];
        e.op = static_cast<Op>(h & (implicit_bit - 1));
        e.implicit = (h & implicit_bit) != 0;
        // Most events: a thread and a target below 128, a byte each.
        if (in.n - in.pos >= 2 && (in.p[in.pos] | in.p[in.pos + 1]) < 0x80) [[likely]] {
            e.thread = in.p[in.pos];
            e.target = minus_one(in.p[in.pos + 1]);
            in.pos += 2;
        } else {
            e.thread = static_cast<ThreadId>(next());
            e.target = minus_one(next());
        }
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
