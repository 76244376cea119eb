// The binary SLP form (slp.hpp; byte layout in docs/compressed.md) and the Slp helpers. Every
// count is checked against the bytes left, so a hostile file cannot make the reader allocate more
// than a small multiple of its size.
#include "sfg/runtime/core/varint.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/slp/slp_expand.hpp"
#include "slp_stream.hpp"
#include "trace/name_rules.hpp"

#include <algorithm>
#include <system_error>
#include <thread>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <fmt/format.h>
#include <ostream>

namespace sfg {

namespace {

constexpr std::string_view magic{"SFGSLP1\n", 8};
using slp_stream::max_events;

// A varint for the scans below, without the reader's messages: false at the end of the bytes or
// past 64 bits.
bool scan_varint(const unsigned char* p, std::size_t n, std::size_t& pos, std::uint64_t& v) {
    return get_varint(p, n, pos, v) == VarintStatus::ok;
}

// The rules section skipped, from its count at `at` (a varint is its bytes up to the first below
// 0x80): how many symbols it holds, and where the locations section starts. Not `ok` when it is
// malformed (the reader then finds out how).
struct RulesScan {
    bool ok = false;
    std::uint64_t symbols = 0;
    std::size_t end = 0;
};

RulesScan scan_rules(std::string_view in, std::size_t at) {
    RulesScan r;
    const auto* const p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t n = in.size();
    std::size_t pos = at;
    std::uint64_t rules = 0;
    if (!scan_varint(p, n, pos, rules) || rules > n - pos)
        return r;
    for (std::uint64_t i = 0; i < rules; ++i) {
        std::uint64_t len = 0;
        if (!scan_varint(p, n, pos, len) || len > n - pos)
            return r;
        r.symbols += len;
#if defined(__SSE2__)
        // A long rule (the start rule) sixteen bytes at a time: their varints' last bytes.
        while (len >= 16 && n - pos >= 16) {
            const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
            unsigned ends = ~static_cast<unsigned>(_mm_movemask_epi8(bytes)) & 0xffff;
            ends -= (ends >> 1) & 0x5555; // a popcount without POPCNT (not in x86-64's baseline)
            ends = (ends & 0x3333) + ((ends >> 2) & 0x3333);
            ends = (ends + (ends >> 4)) & 0x0f0f;
            len -= (ends + (ends >> 8)) & 0x1f;
            pos += 16;
        }
#endif
        while (len > 0) {
            if (pos >= n)
                return r;
            len -= p[pos++] < 0x80;
        }
    }
    r.end = pos;
    r.ok = true;
    return r;
}

// The locations section at `at` checked ahead (on a second thread while the reader reads the
// rules): every check of SlpReader::locations but the events' range, which needs the rules'
// lengths: the sum of the gaps instead. Not `ok` when anything is amiss: the reader then checks
// in order, for its error.
struct EarlyLocations {
    bool ok = false;
    std::size_t begin = 0;   // its first entry
    std::uint64_t count = 0; // entries
    std::uint64_t last = 0;  // the number of the last event with a location
};

EarlyLocations early_locations(std::string_view in, std::size_t at, std::size_t table) {
    EarlyLocations r;
    const auto* const p = reinterpret_cast<const unsigned char*>(in.data());
    const std::size_t n = in.size();
    std::size_t pos = at;
    std::uint64_t count = 0;
    if (!scan_varint(p, n, pos, count) || count > n - pos)
        return r;
    r.begin = pos;
    r.count = count;
    std::uint64_t last = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        std::uint64_t gap = 0, loc = 0;
        if (!scan_varint(p, n, pos, gap) || !scan_varint(p, n, pos, loc))
            return r;
        if (gap == 0 || gap >= max_events || loc >= table)
            return r;
        last += gap;
        if (last >= max_events)
            return r;
    }
    r.last = last;
    r.ok = pos == n;
    return r;
}

// Reads the binary form into an image (slp_expand.hpp): one pass, the rules' symbols into one
// array, the locations checked but left in the bytes. read_slp makes its Slp from the image, so
// both read alike, errors included.
class SlpReader {
public:
    SlpReader(std::string_view in, std::string_view file, Symbols& syms, SlpImage& out,
              unsigned threads)
        : in_(in), file_(file), syms_(syms), out_(out), threads_(threads) {}

    std::optional<TraceError> run() {
        if (!is_slp(in_))
            return TraceError{std::string(file_), 0, 0, "not an SLP file (bad magic)"};
        pos_ = magic.size();
        out_ = SlpImage{};
        std::uint64_t nterms = 0;
        if (!name_tables() || !thread_sets() || !count(nterms, "terminal") || !terminals(nterms))
            return error_;
        out_.location_ids = std::move(ids_[static_cast<std::size_t>(Namespace::location)]);
        if (!rules_and_locations(nterms))
            return error_;
        return std::nullopt;
    }

private:
    const std::vector<std::uint32_t>& ids(Namespace space) const {
        return ids_[static_cast<std::size_t>(space)];
    }

    // The six name tables, in Namespace order.
    bool name_tables() {
        for (std::size_t k = 0; k < namespace_count; ++k) {
            std::uint64_t n = 0;
            if (!count(n, "name") || !names(static_cast<Namespace>(k), n, ids_[k]))
                return false;
        }
        return true;
    }

    // Thread sets: sorted, distinct threads (as Symbols keeps them, mapped to its ids).
    bool thread_sets() {
        const auto& threads = ids(Namespace::thread);
        std::uint64_t nsets = 0;
        if (!count(nsets, "thread set"))
            return false;
        for (std::uint64_t i = 0; i < nsets; ++i) {
            std::uint64_t n = 0;
            start_ = pos_;
            if (!count(n, "thread"))
                return false;
            if (n == 0)
                return fail("empty fork/join thread set");
            std::vector<ThreadId> set;
            for (std::uint64_t j = 0; j < n; ++j) {
                std::uint64_t u = 0;
                if (!index(u, threads.size(), "thread"))
                    return false;
                set.push_back(threads[u]);
            }
            std::sort(set.begin(), set.end());
            if (std::adjacent_find(set.begin(), set.end()) != set.end())
                return fail("a thread is listed twice in a fork/join set");
            set_ids_.push_back(static_cast<ObjId>(syms_.thread_sets.size()));
            syms_.thread_sets.push_back(std::move(set));
        }
        return true;
    }

    // The terminals, after the queues of enq/deq terminals when there are any: a record before
    // the first terminal, where no op code can be (docs/compressed.md).
    bool terminals(std::uint64_t nterms) {
        out_.terminals.reserve(nterms);
        if (nterms > 0 && pos_ < in_.size() &&
            static_cast<unsigned char>(in_[pos_]) == slp_queue_names) {
            ++pos_;
            std::uint64_t n = 0;
            if (!count(n, "queue name") || !names(Namespace::queue, n, queues_))
                return false;
        }
        for (std::uint64_t i = 0; i < nterms; ++i)
            if (!terminal())
                return false;
        return true;
    }

    bool terminal() {
        start_ = pos_;
        if (pos_ >= in_.size())
            return fail("truncated terminal");
        const auto code = static_cast<unsigned char>(in_[pos_++]);
        const std::optional<Op> op = op_from_wire(code & ~slp_value_bit);
        if (!op || ((code & slp_value_bit) && op_info(*op).space != Namespace::volatile_))
            return fail(fmt::format("unknown op code 0x{:02x}", code));
        SlpTerminal t;
        t.op = *op;
        std::uint64_t v = 0;
        if (!index(v, ids(Namespace::thread).size(), "thread"))
            return false;
        t.thread = ids(Namespace::thread)[v];
        const OpInfo& info = op_info(*op);
        if (info.operand == Operand::name) {
            const auto& table = ids(info.space);
            if (!index(v, table.size(), to_string(info.space)))
                return false;
            t.target = table[v];
            if (code & slp_value_bit) {
                if (!varint(v))
                    return false;
                t.value_id = syms_.values.intern(unzigzag(v));
            }
        } else if (info.operand == Operand::thread_set) {
            if (!index(v, set_ids_.size(), "thread set"))
                return false;
            t.target = set_ids_[v];
        } else if (info.operand == Operand::queue_item) { // enq(q,o): q, then o
            const auto& vars = ids(Namespace::variable);
            std::uint64_t x = 0;
            if (!index(v, queues_.size(), "queue") || !index(x, vars.size(), "variable"))
                return false;
            t.target = syms_.queue_items.intern(queues_[v], vars[x]);
        }
        out_.terminals.push_back(t);
        return true;
    }

    // The rules' symbols counted ahead: their array is allocated once. And with a second
    // thread, the locations (a location a line makes theirs the file's largest section, as
    // in the benchmarks' realistic trace) are checked meanwhile.
    bool rules_and_locations(std::uint64_t nterms) {
        const RulesScan scan = scan_rules(in_, pos_);
        if (scan.ok) {
            out_.symbols.reserve(scan.symbols);
            slp_stream::huge_pages(out_.symbols);
        }
        EarlyLocations early;
        std::thread helper;
        struct Join {
            std::thread& t;
            ~Join() {
                if (t.joinable())
                    t.join();
            }
        } join{helper};
        if (scan.ok && threads_ >= 2 && in_.size() - scan.end >= (std::size_t{1} << 20)) {
            try {
                helper = std::thread([this, &early, at = scan.end] {
                    early = early_locations(in_, at, out_.location_ids.size());
                });
            } catch (const std::system_error&) {
                // No thread: this one checks them below.
            }
        }
        if (!rules(nterms) || !check_lengths())
            return false;
        if (helper.joinable())
            helper.join();
        if (early.ok && scan.end == pos_ && early.last <= out_.events()) {
            out_.location_bytes = in_.substr(early.begin);
            out_.location_count = early.count;
            return true;
        }
        if (!locations())
            return false;
        if (pos_ != in_.size())
            return fail("trailing bytes after the locations");
        return true;
    }

    bool fail(const std::string& msg) {
        if (!error_)
            error_ = TraceError{std::string(file_), 0, 0,
                                fmt::format("byte offset {}: {}", start_, msg)};
        return false;
    }
    bool varint(std::uint64_t& v) {
        const VarintStatus status = get_varint(bytes(), in_.size(), pos_, v);
        return status == VarintStatus::ok || varint_error(status);
    }
    bool varint_error(VarintStatus status) {
        return fail(status == VarintStatus::truncated ? "truncated file" : "varint out of range");
    }
    const unsigned char* bytes() const {
        return reinterpret_cast<const unsigned char*>(in_.data());
    }
    // n names of `space`, each a varint length and its bytes, interned: their ids onto `ids`.
    bool names(Namespace space, std::uint64_t n, std::vector<std::uint32_t>& ids) {
        for (std::uint64_t i = 0; i < n; ++i) {
            std::uint64_t len = 0;
            start_ = pos_;
            if (!varint(len))
                return false;
            if (len > in_.size() - pos_)
                return fail("name runs past the end of the file");
            const std::string_view name = in_.substr(pos_, len);
            if (!text_trace::is_valid_name(space, name))
                return fail(fmt::format("invalid {} name", to_string(space)));
            pos_ += len;
            ids.push_back(syms_.names(space).intern(name));
        }
        return true;
    }
    // A count of items that take at least one byte each: no more than the bytes left.
    bool count(std::uint64_t& n, const char* what) {
        start_ = pos_;
        if (!varint(n))
            return false;
        if (n > in_.size() - pos_)
            return fail(fmt::format("{} count {} exceeds the file's size", what, n));
        return true;
    }
    bool index(std::uint64_t& v, std::size_t size, const char* what) {
        if (!varint(v))
            return false;
        if (v >= size)
            return fail(fmt::format("{} id {} out of range", what, v));
        return true;
    }

    // The rules, into one array: every count is bounded by the bytes left, so the array grows
    // by doubling without ever holding more than a symbol per byte read.
    bool rules(std::uint64_t nterms) {
        std::uint64_t nrules = 0;
        if (!count(nrules, "rule"))
            return false;
        if (nrules == 0)
            return fail("no rule (an SLP has at least its start rule)");
        out_.rule_start.reserve(nrules + 1);
        std::vector<SlpSymbol>& symbols = out_.symbols;
        for (std::uint64_t r = 0; r < nrules; ++r) {
            std::uint64_t len = 0;
            start_ = pos_;
            if (!count(len, "symbol"))
                return false;
            if (len == 0 && !(r == 0 && nrules == 1)) // only the empty trace's start is empty
                return fail(fmt::format("rule {} is empty", r));
            out_.rule_start.push_back(symbols.size());
            const std::size_t at = symbols.size();
            if (symbols.capacity() < at + len)
                symbols.reserve(std::max<std::size_t>(at + len, 2 * symbols.capacity()));
            symbols.resize(at + len);
            SlpSymbol* const out = symbols.data() + at;
            // The position in locals (varint() and fail() see pos_ and start_ set on the way
            // out): a member stored and loaded back every symbol cost a third of the loop.
            const auto* const base = reinterpret_cast<const unsigned char*>(in_.data());
            const std::size_t size = in_.size();
            std::size_t pos = pos_, symbol = pos_;
            for (std::uint64_t i = 0; i < len; ++i) {
                std::uint64_t s = 0;
                symbol = pos;
                if (const VarintStatus status = get_varint(base, size, pos, s);
                    status != VarintStatus::ok) [[unlikely]] {
                    pos_ = start_ = symbol;
                    return varint_error(status);
                }
                // Terminals and rules mix at random in a rule: no branch on which it is.
                const std::uint64_t k = s >> 1;
                const bool rule = (s & 1) != 0;
                if (k >= (rule ? nrules : nterms) || (rule & (k <= r))) [[unlikely]] {
                    pos_ = start_ = symbol;
                    if (!rule)
                        return fail(fmt::format("rule {} refers to terminal {}, out of range "
                                                "(the file has {} terminals)",
                                                r, k, nterms));
                    if (k >= nrules)
                        return fail(fmt::format("rule {} refers to rule {}, out of range (the "
                                                "file has {} rules)",
                                                r, k, nrules));
                    return fail(fmt::format("rule {} refers to rule {}: a rule may refer "
                                            "only to later rules (no cycles)",
                                            r, k));
                }
                out[i] = static_cast<SlpSymbol>(k) | (rule ? slp_rule_bit : 0);
            }
            pos_ = pos;
            if (len > 0)
                start_ = symbol; // the last symbol's (an error of the lengths names it)
        }
        out_.rule_start.push_back(symbols.size());
        return true;
    }

    // The lengths, as Slp::compute_lengths computes them (the rules are known to be ordered and
    // in range here: only a trace of 2^62 events or more is left to refuse), and with them
    // expand_slp's index.
    bool check_lengths() {
        const std::size_t n = out_.rule_start.size() - 1;
        out_.lengths.assign(n, 0);
        if (auto r = slp_stream::index_rules(out_.symbols.data(), out_.rule_start.data(), n,
                                             out_.lengths.data(), out_.refs, out_.leaves, threads_))
            return fail(fmt::format("rule {} generates 2^62 events or more", *r));
        return true;
    }

    // Checks the locations and leaves them where they are.
    bool locations() {
        std::uint64_t nlocs = 0;
        if (!count(nlocs, "location"))
            return false;
        const std::size_t begin = pos_;
        const std::uint64_t events = out_.events();
        const std::size_t table = out_.location_ids.size();
        std::uint64_t event = 0;
        for (std::uint64_t i = 0; i < nlocs; ++i) {
            std::uint64_t gap = 0, loc = 0;
            start_ = pos_;
            if (!varint(gap))
                return false;
            if (gap == 0 || gap > events - event)
                return fail("location of an event out of range");
            event += gap;
            if (!index(loc, table, "location"))
                return false;
        }
        out_.location_bytes = in_.substr(begin, pos_ - begin);
        out_.location_count = nlocs;
        return true;
    }

    std::string_view in_;
    std::string_view file_;
    Symbols& syms_;
    SlpImage& out_;
    unsigned threads_;
    std::vector<std::uint32_t> ids_[namespace_count]; // file id -> Symbols id, by namespace
    std::vector<ObjId> set_ids_;                      // file id -> Symbols::thread_sets id
    std::vector<std::uint32_t> queues_;               // file id -> Symbols::queues id
    std::size_t pos_ = 0, start_ = 0;
    std::optional<TraceError> error_;
};

} // namespace

std::optional<std::string> Slp::compute_lengths() {
    lengths.assign(rules.size(), 0);
    // Rules refer only to later rules: from the last to the first, every reference is known.
    for (std::size_t r = rules.size(); r-- > 0;) {
        if (rules[r].empty() && !(r == 0 && rules.size() == 1))
            return fmt::format("rule {} is empty", r);
        std::uint64_t n = 0;
        for (SlpSymbol s : rules[r]) {
            std::uint64_t k = 1;
            if (slp_is_rule(s)) {
                if (slp_index(s) <= r || slp_index(s) >= rules.size())
                    return fmt::format("rule {} refers to rule {}: a rule may refer only to "
                                       "later rules",
                                       r, slp_index(s));
                k = lengths[slp_index(s)];
            } else if (s >= terminals.size()) {
                return fmt::format("rule {} refers to terminal {}, out of range", r, s);
            }
            n += k;
            if (n >= max_events)
                return fmt::format("rule {} generates 2^62 events or more", r);
        }
        lengths[r] = n;
    }
    return std::nullopt;
}

ObjId Slp::location_of(std::uint64_t number) const {
    auto it = std::lower_bound(locations.begin(), locations.end(),
                               std::pair<std::uint64_t, ObjId>{number, 0});
    return it != locations.end() && it->first == number ? it->second : no_object;
}

std::uint64_t Slp::size() const {
    std::uint64_t n = 0;
    for (const auto& r : rules)
        n += r.size();
    return n;
}

bool is_slp(std::string_view bytes) {
    return bytes.substr(0, magic.size()) == magic;
}

std::optional<TraceError> read_slp_image(std::string_view bytes, std::string_view file_name,
                                         Symbols& syms, SlpImage& out, unsigned threads) {
    return SlpReader(bytes, file_name, syms, out, threads).run();
}

Slp to_slp(const SlpImage& image) {
    Slp slp;
    slp.terminals = image.terminals;
    slp.rules.resize(image.rules());
    for (std::size_t r = 0; r < image.rules(); ++r)
        slp.rules[r].assign(
            image.symbols.begin() + static_cast<std::ptrdiff_t>(image.rule_start[r]),
            image.symbols.begin() + static_cast<std::ptrdiff_t>(image.rule_start[r + 1]));
    slp.lengths = image.lengths;
    slp.locations.reserve(image.location_count);
    slp_stream::Locations locs(image);
    for (std::uint64_t i = 0; i < image.location_count; ++i) {
        const std::uint64_t number = locs.next_number();
        slp.locations.emplace_back(number, locs.take());
    }
    return slp;
}

std::optional<TraceError> read_slp(std::string_view bytes, std::string_view file_name,
                                   Symbols& syms, Slp& out) {
    SlpImage image;
    out = Slp{};
    if (auto e = read_slp_image(bytes, file_name, syms, image))
        return e;
    out = to_slp(image);
    return std::nullopt;
}

void write_slp(std::ostream& out, const Slp& slp, const Symbols& syms) {
    std::string buf(magic);
    for (std::size_t k = 0; k < namespace_count; ++k) {
        const SymbolTable& t = syms.names(static_cast<Namespace>(k));
        put_varint(buf, t.size());
        for (std::uint32_t i = 0; i < t.size(); ++i) {
            put_varint(buf, t.name(i).size());
            buf += t.name(i);
        }
    }
    put_varint(buf, syms.thread_sets.size());
    for (const auto& set : syms.thread_sets) {
        put_varint(buf, set.size());
        for (ThreadId u : set)
            put_varint(buf, u);
    }
    put_varint(buf, slp.terminals.size());
    // The queue names only when a terminal is an enq/deq: other files stay as they were.
    if (std::any_of(slp.terminals.begin(), slp.terminals.end(), [](const SlpTerminal& t) {
            return op_info(t.op).operand == Operand::queue_item;
        })) {
        buf += static_cast<char>(slp_queue_names);
        put_varint(buf, syms.queues.size());
        for (std::uint32_t i = 0; i < syms.queues.size(); ++i) {
            put_varint(buf, syms.queues.name(i).size());
            buf += syms.queues.name(i);
        }
    }
    for (const SlpTerminal& t : slp.terminals) {
        buf += static_cast<char>(op_info(t.op).wire | (t.has_value() ? slp_value_bit : 0));
        put_varint(buf, t.thread);
        if (op_info(t.op).operand == Operand::name || op_info(t.op).operand == Operand::thread_set)
            put_varint(buf, t.target);
        if (op_info(t.op).operand == Operand::queue_item) {
            put_varint(buf, syms.queue_items.queue(t.target));
            put_varint(buf, syms.queue_items.var(t.target));
        }
        if (t.has_value())
            put_varint(buf, zigzag(syms.values.value(t.value_id)));
    }
    put_varint(buf, slp.rules.size());
    for (const auto& rule : slp.rules) {
        put_varint(buf, rule.size());
        for (SlpSymbol s : rule)
            put_varint(buf,
                       slp_is_rule(s) ? std::uint64_t{slp_index(s)} * 2 + 1 : std::uint64_t{s} * 2);
        if (buf.size() >= (1u << 16)) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    put_varint(buf, slp.locations.size());
    std::uint64_t event = 0;
    for (const auto& [number, loc] : slp.locations) {
        put_varint(buf, number - event);
        put_varint(buf, loc);
        event = number;
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    out.flush();
}

} // namespace sfg
