// The text trace parser (docs/traces.md), shared by the sequential reader (trace_reader.cpp) and
// the parallel one (trace_parallel.cpp). Hand-written tokenizer over the mapped file: no allocation
// per line; names are looked up in reader-local hash tables keyed by views into the file.
//
// Out is where names and events go:
//   Out::threads, vars, locks, volatiles, barriers, locations, queues  BasicNameCache<...>s
//   thread_name(ThreadId) -> string_view-able                   for messages
//   set(std::vector<ThreadId>& listed) -> ObjId                 a fork/join operand (distinct)
//   item(ObjId queue, ObjId var) -> ObjId, and Out::queues      an enq/deq operand (optional:
//                                                               without, enq/deq are unknown)
//   push(ThreadId, Op, ObjId target, ObjId location, line, optional<int64> value) -> bool, and
//   error() when false (value: what a vr(v=K) / vw(v=K) carries)
// The parser interns each line's names in the order thread, operand(s), location.
#pragma once

#include "name_rules.hpp"
#include "sfg/runtime/trace.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <type_traits>
#include <utility>

// SFG_SIMD (CMake option, docs/architecture.md): the fast path below, which reads a common line
// in one pass, eight bytes at a time or from a 32-byte SSE2 window. Without it, every line goes
// through parse_line, the reference the fast path is tested against (trace_parse_simd_test.cpp).
#ifndef SFG_SIMD
#error "SFG_SIMD must be defined (0 or 1) by the build"
#endif
#if SFG_SIMD && defined(__SSE2__)
#define SFG_SIMD_SSE2 1
#include <emmintrin.h>
#else
#define SFG_SIMD_SSE2 0
#endif

namespace sfg::text_trace {

// "r, w, acq, ..., end": the ops a text trace may spell.
// The hint of a missing op: the ops of thesis chapter 4 (enq/deq, thesis §5.1, left out).
inline std::string op_spellings() {
    std::string s;
    for (const OpInfo& i : op_table)
        if (!i.implicit && i.operand != Operand::queue_item)
            s += (s.empty() ? "" : ", ") + std::string(i.spelling);
    return s;
}

// Fast: use the fast path for common lines (only with SFG_SIMD); false gives the reference parser.
template <class Out, bool Fast = SFG_SIMD != 0>
class TextParser {
    static_assert(!Fast || SFG_SIMD, "the fast path is built only with SFG_SIMD");

public:
    TextParser(std::string_view text, std::string_view file, Out& out)
        : text_(text), file_(file), out_(out) {}

    // Parses every line, handing out_ the events; false at the first error (error()).
    bool run() {
        const char* p = text_.data();
        const char* const end = p + text_.size();
        while (p < end) {
            ++line_;
            line_begin_ = p;
            const char* next = nullptr;
            if constexpr (Fast) {
                if (const FastLine f = fast_line(p, end, next); f != FastLine::other) {
                    if (f == FastLine::error)
                        return false;
                    p = next;
                    continue;
                }
            }
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
            const char* le = nl ? nl : end;
            line_begin_ = p;
            if (!parse_line(p, le))
                return false;
            p = nl ? nl + 1 : end;
        }
        return true;
    }

    std::optional<TraceError>& error() { return error_; }
    std::uint32_t lines() const { return line_; } // lines begun (the last one, if unterminated)

private:
    bool fail(const char* at, std::string msg) {
        error_ = TraceError{std::string(file_), line_,
                            static_cast<std::uint32_t>(at - line_begin_) + 1, std::move(msg)};
        return false;
    }

    static std::string show(char c) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f)
            return fmt::format("byte 0x{:02x}", u);
        return fmt::format("'{}'", c);
    }

    // A name at p: returns its end, or nullptr (and an error) if there is none.
    const char* name(const char* p, const char* e, const char* what) {
        const char* q = p;
        while (q < e && is_name_char(*q))
            ++q;
        if (q == p) {
            if (p == e)
                return fail(p, fmt::format("expected {}", what)), nullptr;
            return fail(p, fmt::format("expected {}, found {}", what, show(*p))), nullptr;
        }
        return q;
    }

    // The operand of vr/vw, `v` or `v=K` (docs/traces.md): the volatile's name (its end in
    // name_end) and K if written; false (and an error) when K is not an integer of 64 bits.
    bool volatile_operand(const char* a, const char* q, const char*& name_end,
                          std::optional<std::int64_t>& value) {
        const char* eq =
            static_cast<const char*>(std::memchr(a, '=', static_cast<std::size_t>(q - a)));
        name_end = eq ? eq : q;
        if (!eq)
            return true;
        if (eq == a)
            return fail(a, "expected a volatile name before '='");
        const char* k = eq + 1;
        const char* digits = k < q && *k == '-' ? k + 1 : k;
        const char* c = digits;
        while (c < q && *c >= '0' && *c <= '9')
            ++c;
        if (c == digits || c != q)
            return fail(c == digits ? k : c,
                        fmt::format("expected the value as an integer (-?[0-9]+) after '='{}",
                                    c == q ? std::string() : ", found " + show(*c)));
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(k, q, v);
        if (ec != std::errc() || end != q)
            return fail(k, fmt::format("value {} is out of range (signed 64 bits)",
                                       std::string_view(k, static_cast<std::size_t>(q - k))));
        value = v;
        return true;
    }

    static const char* skip_space(const char* p, const char* e) {
        while (p < e && is_space(*p))
            ++p;
        return p;
    }

    // Eight bytes at a time (the fast path's names and locations are short, and a byte loop
    // mispredicts its exit once per field): the high bit of each byte of x that is < n.
    // Exact for the lowest such byte, which is all that is used (borrows only run upwards).
    static std::uint64_t bytes_below(std::uint64_t x, unsigned char n) {
        constexpr std::uint64_t ones = 0x0101010101010101ull, high = ones << 7;
        return (x - ones * n) & ~x & high;
    }
    static std::uint64_t bytes_equal(std::uint64_t x, unsigned char c) {
        return bytes_below(x ^ (0x0101010101010101ull * c), 1);
    }
    static constexpr bool little = std::endian::native == std::endian::little;

    // The end of the name at p: the first byte that is not a name character.
    static const char* skip_name(const char* p, const char* end) {
        for (; little && end - p >= 8; p += 8) {
            std::uint64_t x;
            std::memcpy(&x, p, 8);
            const std::uint64_t stop = bytes_below(x, 0x21) | bytes_equal(x, 0x7f) |
                                       bytes_equal(x, '|') | bytes_equal(x, '(') |
                                       bytes_equal(x, ')') | bytes_equal(x, ',');
            if (stop)
                return p + std::countr_zero(stop) / 8;
        }
        while (p < end && is_name_char(*p))
            ++p;
        return p;
    }

    // The first control character (< 0x20) at or after p, or end.
    static const char* skip_printable(const char* p, const char* end) {
        for (; little && end - p >= 8; p += 8) {
            std::uint64_t x;
            std::memcpy(&x, p, 8);
            if (const std::uint64_t stop = bytes_below(x, 0x20))
                return p + std::countr_zero(stop) / 8;
        }
        while (p < end && static_cast<unsigned char>(*p) >= 0x20)
            ++p;
        return p;
    }

    // The op of the fast path, written with its '(' right after the name, e.g. "acq(": sets op
    // and returns the length, or 0. `room` bytes from o may be read. Table-driven: which op
    // comes next is data, and a switch on it would mispredict on every other line.
    static std::size_t fast_op(const char* o, std::size_t room, Op& op) {
        if (!little || room < 8)
            return 0; // the general parser reads the last few bytes of a file
        std::uint64_t x;
        std::memcpy(&x, o, 8);
        const std::uint64_t paren = bytes_equal(x, '(');
        if (paren == 0)
            return 0;
        const std::size_t len = static_cast<std::size_t>(std::countr_zero(paren)) / 8 + 1;
        if (len == 8)
            return 0;
        return op_word(x & ((std::uint64_t{1} << (8 * len)) - 1), len, op) ? len : 0;
    }

    // Whether `word`, the first len bytes of a little-endian word, is an op and its '('.
    static bool op_word(std::uint64_t word, std::size_t len, Op& op) {
        struct Entry {
            std::uint64_t word; // the op and its '(' as a little-endian word
            Op op;
        };
        // Indexed by length * 2 + the low bit of byte 1 (length 3) or byte 0 (otherwise).
        static constexpr auto table = [] {
            std::array<Entry, 16> t{};
            auto put = [&](std::string_view w, Op op) {
                std::uint64_t x = 0;
                for (std::size_t i = 0; i < w.size(); ++i)
                    x |= std::uint64_t{static_cast<unsigned char>(w[i])} << (8 * i);
                const unsigned char c = static_cast<unsigned char>(w[w.size() == 3 ? 1 : 0]);
                t[w.size() * 2 + (c & 1)] = {x, op};
            };
            for (const OpInfo& i : op_table) // the ops with one name: `op(`
                if (i.operand == Operand::name && !i.implicit) {
                    char w[8] = {};
                    i.spelling.copy(w, i.spelling.size());
                    w[i.spelling.size()] = '(';
                    put(std::string_view(w, i.spelling.size() + 1), i.op);
                }
            return t;
        }();
        const Entry& e = table[len * 2 + ((word >> (len == 3 ? 8 : 0)) & 1)];
        if (e.word != word)
            return false;
        op = e.op;
        return true;
    }

    // The fields of a common line (fast_line).
    struct Fields {
        const char *thread_end, *arg, *arg_end, *loc, *loc_end, *next;
        Op op;
    };

    // fast_line's scan, eight bytes at a time.
    static bool scan_words(const char* const p, const char* end, Fields& f) {
        const char* q = skip_name(p, end);
        if (q == p || q == end || *q != '|')
            return false;
        f.thread_end = q;
        const std::size_t len =
            q + 1 < end ? fast_op(q + 1, static_cast<std::size_t>(end - q - 1), f.op) : 0;
        if (len == 0)
            return false;
        f.arg = q + 1 + len;
        q = skip_name(f.arg, end);
        if (q == f.arg || q == end || *q != ')')
            return false;
        f.arg_end = q;
        f.loc = f.loc_end = nullptr;
        if (++q == end || *q == '\n') {
            f.next = q == end ? end : q + 1;
            return true;
        }
        if (*q != '|')
            return false;
        f.loc = q + 1;
        f.loc_end = skip_printable(f.loc, end);
        if (f.loc_end == f.loc || (f.loc_end < end && *f.loc_end != '\n') || *f.loc == ' ' ||
            f.loc_end[-1] == ' ')
            return false; // empty, a control character or CR, or blanks to trim
        f.next = f.loc_end == end ? end : f.loc_end + 1;
        return true;
    }

#if SFG_SIMD_SSE2
    // The same scan over a 32-byte window (end - p >= 40): bit masks of the separators give every
    // field's position at once, in about a third of the instructions, and no field's position
    // waits for the previous one's. A line longer than the window is left to parse_line.
    // The separator masks of the 32 bytes at base: bit i of `stops` is set when base[i] ends a
    // name, of `control` when it is a control character.
    struct Window {
        const char* base = nullptr;
        std::uint32_t control = 0, stops = 0;
    };
    static Window load_window(const char* const p) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16));
        // Per half: x == c, x < n (unsigned), as byte masks; one movemask per mask and half.
        auto eq = [](__m128i x, char c) { return _mm_cmpeq_epi8(x, _mm_set1_epi8(c)); };
        auto below = [](__m128i x, int n) {
            return _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(static_cast<char>(n - 1))), x);
        };
        // Bytes that end a name (is_name_char): blanks and control characters, DEL, |(),
        auto stop = [&](__m128i x) {
            return _mm_or_si128(_mm_or_si128(_mm_or_si128(below(x, 0x21), eq(x, 0x7f)),
                                             _mm_or_si128(eq(x, '|'), eq(x, ','))),
                                _mm_or_si128(eq(x, '('), eq(x, ')')));
        };
        auto bits = [](__m128i lo, __m128i hi) {
            return static_cast<std::uint32_t>(_mm_movemask_epi8(lo)) |
                   static_cast<std::uint32_t>(_mm_movemask_epi8(hi)) << 16;
        };
        return {p, bits(below(a, 0x20), below(b, 0x20)), bits(stop(a), stop(b))};
    }

    // The line at w.base + o, if it lies whole in the window (end - w.base >= 40, so that a word
    // from any field in it may be read). Lines are about 16 bytes: the line after one often lies
    // in the same window, and then costs no second set of masks.
    static bool scan_window(const Window& w, const unsigned o, Fields& f) {
        const char* const p = w.base;
        const std::uint32_t control = w.control, stops = w.stops;
        auto first = [](std::uint32_t m, unsigned from) { // 32 when none
            return from >= 32 ? 32u : static_cast<unsigned>(std::countr_zero(m >> from << from));
        };
        const unsigned te = first(stops, o);
        if (te == o || te == 32 || p[te] != '|')
            return false;
        const unsigned oe = first(stops, te + 1); // the op's '(' (checked by the table)
        const std::size_t len = oe - te;          // with the '('
        if (oe == 32 || len < 2 || len > 7 || te + 9 > 32)
            return false;
        std::uint64_t word;
        std::memcpy(&word, p + te + 1, 8);
        word &= (std::uint64_t{1} << (8 * len)) - 1;
        if (!op_word(word, len, f.op))
            return false;
        const unsigned ae = first(stops, oe + 1);
        if (ae == oe + 1 || ae >= 31 || p[ae] != ')')
            return false;
        f.thread_end = p + te;
        f.arg = p + oe + 1;
        f.arg_end = p + ae;
        f.loc = f.loc_end = nullptr;
        if (p[ae + 1] == '\n') {
            f.next = p + ae + 2;
            return true;
        }
        if (p[ae + 1] != '|')
            return false;
        const unsigned lb = ae + 2, le = first(control, lb);
        if (le == 32 || le == lb || p[le] != '\n' || p[lb] == ' ' || p[le - 1] == ' ')
            return false; // long, empty, a control character or CR, or blanks to trim
        f.loc = p + lb;
        f.loc_end = p + le;
        f.next = p + le + 1;
        return true;
    }
#endif

    enum class FastLine { other, ok, error };

    // The common line, `THREAD|OP(NAME)` or `THREAD|OP(NAME)|LOCATION`, with no blanks, CR or
    // tabs, and an op with one operand: parsed in one pass, without looking for the line end
    // first; on ok, line_end is the start of the next line. `other`: anything else, for parse_line
    // to read (nothing was interned yet; it interns the same names in the same order). `error`: an
    // ill-formed event (error_ is set).
    FastLine fast_line(const char* const p, const char* end, const char*& line_end) {
        if (*p == '#') // a comment, however much it looks like an event (docs/traces.md)
            return FastLine::other;
        Fields f;
#if SFG_SIMD_SSE2
        // The window of the line before, if this line starts in it; else one at this line.
        // (Only when the window holds this line's end: a control character after its start.)
        bool wide = false;
        if (window_.base && p > window_.base && p < window_.base + 32 && end - window_.base >= 40) {
            const auto o = static_cast<unsigned>(p - window_.base);
            wide = (window_.control >> o) != 0 && scan_window(window_, o, f);
        }
        if (!wide) {
            wide = end - p >= 40; // the window, and a word from any field in it
            if (wide)
                window_ = load_window(p);
            if (wide ? !scan_window(window_, 0, f) : !scan_words(p, end, f))
                return FastLine::other;
        }
#else
        const bool wide = false;
        if (!scan_words(p, end, f))
            return FastLine::other;
#endif
        // vr(v=K) / vw(v=K): parse_line splits the value off (nothing is interned yet). A plain
        // loop: operands are short, and a call to memchr a line costs BM_Read several percent.
        if (is_volatile_access(f.op)) [[unlikely]]
            for (const char* c = f.arg; c < f.arg_end; ++c)
                if (*c == '=')
                    return FastLine::other;
        auto view = [](const char* a, const char* b) {
            return std::string_view(a, static_cast<std::size_t>(b - a));
        };
        auto id = [&](auto& names, const char* a, const char* b) {
            const auto n = static_cast<std::size_t>(b - a);
            if (little && wide && n <= 8) {
                std::uint64_t w;
                std::memcpy(&w, a, 8);
                return names.id_short(w & (~std::uint64_t{0} >> (64 - 8 * n)), view(a, b));
            }
            return names.id(view(a, b), end - a >= 8);
        };
        const ThreadId t = id(out_.threads, p, f.thread_end);
        const ObjId target = id(*by_op_[static_cast<std::size_t>(f.op)], f.arg, f.arg_end);
        const ObjId location = f.loc ? id(out_.locations, f.loc, f.loc_end) : no_object;
        if (!out_.push(t, f.op, target, location, line_))
            return fail(line_begin_, out_.error()), FastLine::error;
        line_end = f.next;
        return FastLine::ok;
    }

    static std::string_view view(const char* a, const char* b) {
        return std::string_view(a, static_cast<std::size_t>(b - a));
    }

    // The reference parser of one line [p, e): THREAD|OP(OPERANDS)|LOCATION (docs/traces.md).
    bool parse_line(const char* p, const char* e) {
        // Trim: trailing CR / blanks, leading blanks; skip blank and comment lines.
        while (e > p && (is_space(e[-1]) || e[-1] == '\r'))
            --e;
        p = skip_space(p, e);
        if (p == e || *p == '#')
            return true;

        // THREAD
        const char* q = name(p, e, "a thread name");
        if (!q)
            return false;
        // Ids in order of first appearance, the thread before its operands (as the binary writer
        // defines them, so a round trip keeps ids).
        const ThreadId t = out_.threads.id(view(p, q));
        p = skip_space(q, e);
        if (p == e || *p != '|')
            return fail(
                p, p == e ? "expected '|' after the thread name"
                          : fmt::format("expected '|' after the thread name, found {}", show(*p)));
        p = skip_space(p + 1, e);

        // OP(OPERANDS)
        const char* const op_at = p;
        std::optional<Op> op;
        if (!(p = operation(p, e, op)))
            return false;
        const OpInfo& info = op_info(*op);
        ObjId target = no_object;
        std::optional<std::int64_t> value;
        if (!(p = operands(info, op_at, p, e, target, value)))
            return false;

        // |LOCATION (the rest of the line)
        ObjId location = no_object;
        if (!this->location(p, e, location))
            return false;

        if (!out_.push(t, info.op, target, location, line_, value))
            return fail(line_begin_ + (skip_space(line_begin_, e) - line_begin_), out_.error());
        return true;
    }

    // The op's name at p into `op`: the blanks after it, or nullptr (and an error).
    const char* operation(const char* p, const char* e, std::optional<Op>& op) {
        const char* q = p;
        while (q < e && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
            ++q;
        const std::string_view op_name = view(p, q);
        if (op_name.empty())
            return fail(p, fmt::format("expected an operation ({})", op_spellings())), nullptr;
        op = op_from_spelling(op_name);
        if (!op)
            return fail(p, fmt::format("unknown operation '{}'", op_name)), nullptr;
        return skip_space(q, e);
    }

    // The operands of `info`'s op (written at op_at) at p, into target and value: past the
    // closing ')' and the blanks after it, or nullptr (and an error).
    const char* operands(const OpInfo& info, const char* op_at, const char* p, const char* e,
                         ObjId& target, std::optional<std::int64_t>& value) {
        if (info.operand == Operand::none) {
            // begin / end; RAPID writes an operand, which carries nothing for us.
            if (p < e && *p == '(') {
                const char* c = static_cast<const char*>(std::memchr(p, ')', e - p));
                if (!c)
                    return fail(e, "expected ')'"), nullptr;
                p = skip_space(c + 1, e);
            }
            return p;
        }
        if (p == e || *p != '(')
            return fail(p, fmt::format("expected '(' after '{}'", info.spelling)), nullptr;
        p = skip_space(p + 1, e);
        if (info.operand == Operand::name)
            p = name_operand(info, p, e, target, value);
        else if (info.operand == Operand::queue_item)
            p = queue_operands(info, op_at, p, e, target);
        else
            p = thread_set(p, e, target);
        if (!p)
            return nullptr;
        if (p == e || *p != ')')
            return fail(p, p == e ? std::string("expected ')'")
                                  : fmt::format("expected ')', found {}", show(*p))),
                   nullptr;
        return skip_space(p + 1, e);
    }

    // r(x) .. bexit(b): one name of the op's namespace; vr/vw may carry a value (v=K).
    const char* name_operand(const OpInfo& info, const char* p, const char* e, ObjId& target,
                             std::optional<std::int64_t>& value) {
        const char* const a = p;
        const char* q = name(p, e, "an operand");
        if (!q)
            return nullptr;
        const char* name_end = q;
        if (info.space == Namespace::volatile_ && !volatile_operand(a, q, name_end, value))
            return nullptr;
        p = skip_space(q, e);
        if (p < e && *p == ',')
            return fail(p, fmt::format("'{}' takes one operand", info.spelling)), nullptr;
        target = by_op_[static_cast<std::size_t>(info.op)]->id(view(a, name_end));
        return p;
    }

    // enq(q,o) / deq(q,o): a queue, then a variable (thesis §5.1, q(o)).
    const char* queue_operands(const OpInfo& info, const char* op_at, const char* p, const char* e,
                               ObjId& target) {
        if constexpr (requires(Out & o) { o.item(ObjId{}, ObjId{}); }) {
            const char* a = p;
            const char* q = name(p, e, "a queue name");
            if (!q)
                return nullptr;
            const ObjId queue = out_.queues.id(view(a, q));
            p = skip_space(q, e);
            if (p == e || *p != ',')
                return fail(p, fmt::format("'{}' takes a queue and a variable: expected ','",
                                           info.spelling)),
                       nullptr;
            p = skip_space(p + 1, e);
            a = p;
            q = name(p, e, "a variable name");
            if (!q)
                return nullptr;
            const ObjId var = out_.vars.id(view(a, q));
            p = skip_space(q, e);
            if (p < e && *p == ',')
                return fail(p, fmt::format("'{}' takes two operands", info.spelling)), nullptr;
            target = out_.item(queue, var);
            return p;
        } else { // an Out without queues reads no enq/deq
            (void)p, (void)e, (void)target;
            return fail(op_at, fmt::format("unknown operation '{}'", info.spelling)), nullptr;
        }
    }

    // fork(u1,u2) / join(u1,u2): distinct thread names.
    const char* thread_set(const char* p, const char* e, ObjId& target) {
        set_.clear();
        for (;;) {
            const char* a = p;
            const char* q = name(p, e, "a thread name");
            if (!q)
                return nullptr;
            if (*a == '#') // it could not start its own lines (docs/traces.md)
                return fail(a, "a thread name cannot start with '#' (a comment)"), nullptr;
            ThreadId u = out_.threads.id(view(a, q));
            if (std::find(set_.begin(), set_.end(), u) != set_.end())
                return fail(a, fmt::format("thread {} is listed twice", out_.thread_name(u))),
                       nullptr;
            set_.push_back(u);
            p = skip_space(q, e);
            if (p < e && *p == ',') {
                p = skip_space(p + 1, e);
                continue;
            }
            target = out_.set(set_);
            return p;
        }
    }

    // `|LOCATION`, the rest of the line, if any; false (and an error) when it is not one.
    bool location(const char* p, const char* e, ObjId& location) {
        if (p == e)
            return true;
        if (*p != '|')
            return fail(p, fmt::format("expected '|' or the end of the line, found {}", show(*p)));
        p = skip_space(p + 1, e);
        if (p == e)
            return true;
        for (const char* c = p; c < e; ++c)
            if (static_cast<unsigned char>(*c) < 0x20 && *c != '\t')
                return fail(c, fmt::format("unexpected {} in the location", show(*c)));
        location = out_.locations.id(view(p, e));
        return true;
    }

    std::string_view text_;
    std::string_view file_;
    Out& out_;
    // The names of each op's one name operand, by op (ops with other operands: null).
    using Cache = std::remove_reference_t<decltype(out_.vars)>;
    const std::array<Cache*, op_count> by_op_ = [this] {
        std::array<Cache*, op_count> a{};
        Cache* const by_space[] = {&out_.threads,   &out_.vars,     &out_.locks,
                                   &out_.volatiles, &out_.barriers, &out_.locations};
        static_assert(std::size(by_space) == namespace_count);
        for (const OpInfo& i : op_table)
            if (i.operand == Operand::name && !i.implicit)
                a[static_cast<std::size_t>(i.op)] = by_space[static_cast<std::size_t>(i.space)];
        return a;
    }();
    std::vector<ThreadId> set_;
#if SFG_SIMD_SSE2
    Window window_; // fast_line's masks of the last window loaded
#endif
    std::uint32_t line_ = 0;
    const char* line_begin_ = nullptr;
    std::optional<TraceError> error_;
};

} // namespace sfg::text_trace
