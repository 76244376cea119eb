// Writers and the binary form: text -> events -> text/binary -> events round trips.
#include "random_trace.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <sstream>

using namespace sfg;
using namespace sfg::testing;

namespace {

// Names instead of ids, so that streams read into different Symbols compare.
std::vector<std::string> render(const std::vector<Event>& events, const Symbols& syms) {
    std::vector<std::string> out;
    for (const Event& e : events) {
        std::string s = std::to_string(e.number) + (e.implicit ? "*" : " ");
        if (e.implicit)
            s += syms.threads.name(e.thread) + "|" + to_string(e.op) + "|" +
                 (e.target == no_object ? "-" : syms.threads.name(e.target));
        else
            s += format_event(e, syms);
        out.push_back(s);
    }
    return out;
}

} // namespace

TEST_CASE("format_event writes docs/traces.md lines") {
    Symbols syms;
    Collector col;
    REQUIRE(read_trace_text("T1|fork(b,a)|x.c:3\nT1|w(v)\nT1|begin\n", "t", syms, col).ok());
    CHECK(format_event(col.events[0], syms) == "T1|fork(b,a)|x.c:3"); // sets in id order
    CHECK(format_event(col.events[1], syms) == "T1|w(v)");
    CHECK(format_event(col.events[2], syms) == "T1|begin");
}

TEST_CASE("round trips: text -> text and text -> binary give the same event stream") {
    std::mt19937_64 rng(11);
    std::size_t text_bytes = 0, binary_bytes = 0;
    for (int i = 0; i < 500; ++i) {
        std::string trace = random_trace(rng, {6, 3, 2, 2, 2, 80, 30, 30});
        Symbols s0;
        Collector c0;
        std::ostringstream text, bin;
        TextTraceWriter tw(text);
        BinaryTraceWriter bw(bin);
        Fanout f;
        f.add(c0), f.add(tw), f.add(bw);
        REQUIRE(read_trace_text(trace, "r.std", s0, f).ok());
        tw.finish(s0);
        bw.finish(s0);

        Symbols s1, s2;
        Collector c1, c2;
        REQUIRE(read_trace_text(text.str(), "w.std", s1, c1).ok());
        TraceResult rb = read_trace_binary(bin.str(), "w.bin", s2, c2);
        REQUIRE_MESSAGE(rb.ok(), rb.error->to_string());
        CHECK(is_binary_trace(bin.str()));
        auto want = render(c0.all, s0);
        CHECK(render(c1.all, s1) == want);
        CHECK(render(c2.all, s2) == want);
        text_bytes += trace.size();
        binary_bytes += bin.str().size();
    }
    MESSAGE("binary/text size: " << double(binary_bytes) / double(text_bytes));
    CHECK(binary_bytes * 10 < text_bytes * 6); // short names and unique locations here
}

TEST_CASE("binary traces are validated like text ones, errors name the event") {
    Symbols s0;
    Collector c0;
    std::ostringstream bin;
    BinaryTraceWriter bw(bin);
    REQUIRE(read_trace_text("A|acq(m)\nA|rel(m)\n", "t", s0, bw).ok());
    bw.finish(s0);
    std::string b = bin.str();
    // Duplicate the last record (rel(m)): releasing a lock not held.
    std::string twice = b + b.substr(b.size() - 3);
    Symbols s1;
    Collector c1;
    TraceResult r = read_trace_binary(twice, "x.bin", s1, c1);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error->to_string() ==
          "x.bin: error: event 3 (byte offset 20): thread A releases lock m, which is not held");
    // Truncated and undefined ids.
    Symbols s2;
    CHECK(read_trace_binary(b.substr(0, b.size() - 1), "x.bin", s2, c1).error->message ==
          "event 2 (byte offset 17): truncated record");
    Symbols s3;
    CHECK(read_trace_binary(std::string("SFGTRC1\n\x00\x05", 10), "x.bin", s3, c1).error->message ==
          "event 1 (byte offset 8): undefined thread id 5");
    Symbols s4;
    CHECK(read_trace_binary("nope", "x.bin", s4, c1).error->message ==
          "not a binary sfg trace (bad magic)");
}

TEST_CASE("the binary wire codes are fixed: a file written byte by byte reads as documented") {
    // docs/traces.md: name records 0x40 + namespace code, events `code | 0x80 (location)`. These
    // bytes stand for files of every version; a changed code would misread them.
    std::string bytes("SFGTRC1\n", 8);
    auto name = [&](int space, std::string_view n) {
        bytes += static_cast<char>(0x40 + space);
        bytes += static_cast<char>(n.size());
        bytes += n;
    };
    auto event = [&](int code, std::initializer_list<int> fields) {
        bytes += static_cast<char>(code);
        for (int f : fields)
            bytes += static_cast<char>(f);
    };
    // Each name defined right before its first use, as the writer does.
    name(0, "T0"), name(0, "T1");
    event(8, {0, 1, 1}); // fork(T1)
    name(2, "m");
    event(2, {0, 0}); // acq(m)
    name(1, "x"), name(5, "a.c:1");
    event(1 | 0x80, {0, 0, 0}); // w(x)|a.c:1
    event(3, {0, 0});           // rel(m)
    name(3, "v");
    event(5, {0, 0}); // vw(v)
    event(4, {1, 0}); // vr(v)
    event(0, {1, 0}); // r(x)
    event(10, {1});   // begin
    event(11, {1});   // end
    name(4, "b");
    event(6, {1, 0});    // benter(b)
    event(7, {1, 0});    // bexit(b)
    event(9, {0, 1, 1}); // join(T1)
    Symbols syms;
    Collector col;
    const TraceResult r = read_trace_binary(bytes, "old.bin", syms, col);
    REQUIRE(r.ok());
    std::vector<std::string> lines;
    for (const Event& e : col.events)
        if (!e.implicit)
            lines.push_back(format_event(e, syms));
    CHECK(lines == std::vector<std::string>{"T0|fork(T1)", "T0|acq(m)", "T0|w(x)|a.c:1",
                                            "T0|rel(m)", "T0|vw(v)", "T1|vr(v)", "T1|r(x)",
                                            "T1|begin", "T1|end", "T1|benter(b)", "T1|bexit(b)",
                                            "T0|join(T1)"});
    // And the writer writes those codes.
    std::ostringstream out;
    BinaryTraceWriter w(out);
    for (const Event& e : col.events)
        w.on_event(e, syms);
    w.finish(syms);
    CHECK(out.str() == bytes);
}

TEST_CASE("the op table: spellings and wire codes of docs/traces.md") {
    const std::pair<Op, std::pair<std::string_view, int>> expected[] = {
        {Op::read, {"r", 0}},
        {Op::write, {"w", 1}},
        {Op::acquire, {"acq", 2}},
        {Op::release, {"rel", 3}},
        {Op::vol_read, {"vr", 4}},
        {Op::vol_write, {"vw", 5}},
        {Op::barrier_enter, {"benter", 6}},
        {Op::barrier_exit, {"bexit", 7}},
        {Op::fork, {"fork", 8}},
        {Op::join, {"join", 9}},
        {Op::begin, {"begin", 10}},
        {Op::end, {"end", 11}}};
    for (const auto& entry : expected) {
        const Op op = entry.first;
        const auto& sw = entry.second;
        CHECK(spelling(op) == sw.first);
        CHECK(op_info(op).wire == sw.second);
        CHECK(op_from_spelling(sw.first) == op);
        CHECK(op_from_wire(static_cast<unsigned>(sw.second)) == op);
    }
    CHECK(!op_from_wire(12));
    CHECK(op_info(Op::thread_start).implicit);
    CHECK(!op_from_spelling("exit"));
}

TEST_CASE("values of vr/vw: text and binary carry them; old codes and names read the same") {
    // docs/traces.md: `vw(v=K)` / `vr(v=K)`; in the binary form the record's code gains 0x20 and
    // K follows the volatile as a zigzag varint.
    const std::string text = "T0|vw(v=1)|a.c:1\nT0|vw(v)\nT1|vr(v=-9223372036854775808)\n"
                             "T1|vr(v=9223372036854775807)\nT1|vr(v=0)\nT1|w(a=b)\n";
    Symbols s0;
    Collector c0;
    std::ostringstream tout, bout;
    TextTraceWriter tw(tout);
    BinaryTraceWriter bw(bout);
    Fanout f;
    f.add(c0), f.add(tw), f.add(bw);
    const TraceResult r0 = read_trace_text(text, "t", s0, f);
    REQUIRE_MESSAGE(r0.ok(), r0.error->to_string());
    tw.finish(s0), bw.finish(s0);
    CHECK(tout.str() == text);
    REQUIRE(c0.events.size() == 6);
    const auto value = [&](const Event& e) { return s0.values.value(e.value_id); };
    CHECK((c0.events[0].has_value() && value(c0.events[0]) == 1));
    CHECK(!c0.events[1].has_value());
    CHECK(c0.events[0].target == c0.events[1].target); // one volatile v
    CHECK(value(c0.events[2]) == std::numeric_limits<std::int64_t>::min());
    CHECK(value(c0.events[3]) == std::numeric_limits<std::int64_t>::max());
    CHECK(s0.values.size() == 4); // 1, min, max, 0: interned once each (event.hpp)
    CHECK(s0.vars.name(c0.events[5].target) == "a=b"); // '=' is a name character elsewhere
    // vw(v=1)|a.c:1 as bytes: code 5 | 0x20 | 0x80, thread, volatile, zigzag(1) = 2, location.
    const std::string b = bout.str();
    CHECK(b.find(std::string("\xa5\x00\x00\x02\x00", 5)) != std::string::npos);
    Symbols s1;
    Collector c1;
    const TraceResult r1 = read_trace_binary(b, "t.bin", s1, c1);
    REQUIRE_MESSAGE(r1.ok(), r1.error->to_string());
    CHECK(render(c1.all, s1) == render(c0.all, s0));
    // The value bit on an op without a value is no record.
    Symbols s2;
    CHECK(read_trace_binary(std::string("SFGTRC1\n\x40\x01T\x41\x01x\x21\x00\x00\x02", 16), "x.bin",
                            s2, c1)
              .error->message == "event 1 (byte offset 14): unknown record tag 0x21");
    // A volatile named with '=' could not be written as text.
    Symbols s3;
    CHECK(read_trace_binary(std::string("SFGTRC1\n\x43\x03v=1", 13), "x.bin", s3, c1)
              .error->message == "event 1 (byte offset 8): invalid volatile name 'v=1'");
}
