// The sequential text trace reader (docs/traces.md): the parser (trace_text_parser.hpp) interning
// into Symbols on first sight and feeding the well-formedness checker directly.
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/tokenize.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "trace_names.hpp"
#include "trace_text_parser.hpp"

#include <cstring>
#include <fmt/format.h>

namespace sfg {

std::string TraceError::to_string() const {
    if (line == 0)
        return fmt::format("{}: error: {}", file, message);
    return fmt::format("{}:{}:{}: error: {}", file, line, col, message);
}

namespace {

// The parser's Out for reading in one pass: Symbols and the well-formedness checker.
struct DirectOut {
    DirectOut(Symbols& s, Analysis& sink)
        : syms(s), stream(s, sink), threads(s.threads), vars(s.vars), locks(s.locks),
          volatiles(s.volatiles), barriers(s.barriers), locations(s.locations), queues(s.queues),
          sets(s) {}

    const std::string& thread_name(ThreadId t) const { return syms.threads.name(t); }
    ObjId set(std::vector<ThreadId>& listed) { return sets.id(listed); }
    ObjId item(ObjId queue, ObjId var) { return syms.queue_items.intern(queue, var); }
    bool push(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
              std::optional<std::int64_t> value = {}) {
        return stream.push(t, op, target, location, line,
                           value ? syms.values.intern(*value) : no_object);
    }
    const std::string& error() const { return stream.error(); }

    Symbols& syms;
    WellFormedStream stream;
    NameCache threads, vars, locks, volatiles, barriers, locations, queues;
    ThreadSetCache sets;
};

} // namespace
TraceResult read_trace_text(std::string_view text, std::string_view file_name, Symbols& syms,
                            Analysis& sink) {
    DirectOut out(syms, sink);
    text_trace::TextParser<DirectOut> parser(text, file_name, out);
    TraceResult r;
    if (parser.run())
        out.stream.finish();
    else
        r.error = std::move(parser.error());
    r.events = out.stream.events();
    return r;
}

std::uint64_t tokenize_trace_text(std::string_view text) {
    // The same line and field splitting as the reader, minus interning and checking.
    std::uint64_t events = 0, fields = 0;
    const char* p = text.data();
    const char* const end = p + text.size();
    while (p < end) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
        const char* e = nl ? nl : end;
        while (p < e && text_trace::is_space(*p))
            ++p;
        if (p < e && *p != '#' && *p != '\r') {
            ++events;
            for (; p < e; ++p)
                fields += (*p == '|') | (*p == '(') | (*p == ',');
        }
        p = nl ? nl + 1 : end;
    }
    return events + (fields == ~std::uint64_t{0}); // uses fields: the scan is not optimized away
}

} // namespace sfg
