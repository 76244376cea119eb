// The text trace writer: the inverse of the reader (docs/traces.md lines).
#include "sfg/runtime/trace.hpp"

#include <ostream>
#include <string>

namespace sfg {

namespace {

void append_event(std::string& out, const Event& e, const Symbols& syms) {
    out += syms.threads.name(e.thread);
    out += '|';
    out += to_string(e.op);
    const OpInfo& op = op_info(e.op);
    if (op.operand == Operand::name) {
        out += '(', out += syms.names(op.space).name(e.target);
        if (e.has_value()) // vw(v=K), vr(v=K) (docs/traces.md)
            out += '=', out += std::to_string(syms.values.value(e.value_id));
        out += ')';
    } else if (op.operand == Operand::thread_set) {
        out += '(';
        bool first = true;
        for (ThreadId u : syms.thread_sets[e.target]) {
            if (!first)
                out += ',';
            first = false;
            out += syms.threads.name(u);
        }
        out += ')';
    } else if (op.operand == Operand::queue_item) { // enq(q,o), deq(q,o)
        out += '(', out += syms.queues.name(syms.queue_items.queue(e.target));
        out += ',', out += syms.vars.name(syms.queue_items.var(e.target));
        out += ')';
    }
    if (e.location != no_object) {
        out += '|';
        out += syms.locations.name(e.location);
    }
}

} // namespace

std::string format_event(const Event& e, const Symbols& syms) {
    std::string s;
    append_event(s, e, syms);
    return s;
}

void TextTraceWriter::on_event(const Event& e, const Symbols& syms) {
    if (e.implicit)
        return; // implied by the format (event.hpp)
    append_event(buf_, e, syms);
    buf_ += '\n';
    if (buf_.size() >= (1u << 16)) {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }
}

void TextTraceWriter::finish(const Symbols&) {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    out_.flush();
}

} // namespace sfg
