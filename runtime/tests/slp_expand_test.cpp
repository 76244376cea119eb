// The fast SLP paths (slp_expand.hpp): read_slp_image and read_slp read what docs/compressed.md's
// grammar, decoded apart (spec_decode), reads, with the same errors at the same byte offsets; the
// expansion of an image or an Slp, on one thread or two, in batches of any size, gives the events
// (implicit ones, numbers and locations included) and the error, at the same event, of a plain walk
// of the grammar through the checker.
#include "sfg/runtime/slp/slp_expand.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "sfg/runtime/trace_file.hpp"
#include "slp_test_util.hpp"
#include "trace/name_rules.hpp"
#include "volume.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

using namespace sfg;
using namespace sfg::testing;

namespace {

constexpr std::string_view magic{"SFGSLP1\n", 8};

// The oracle of the reader's errors: docs/compressed.md's grammar decoded section by section,
// in its own style (a cursor that throws at the first error), apart from slp_format.cpp. An
// error names the byte where the item it is about starts: a count, a name, a thread set, a
// terminal, a symbol of a rule, a location entry (after the last one: trailing bytes).
struct Malformed {
    std::size_t at;
    std::string what;
};

class SpecCursor {
public:
    explicit SpecCursor(std::string_view in) : in_(in) {}

    // Starts the next item (its errors name this byte).
    void item() { item_ = pos_; }
    [[noreturn]] void bad(std::string what) const { throw Malformed{item_, std::move(what)}; }
    bool at_end() const { return pos_ == in_.size(); }
    std::size_t left() const { return in_.size() - pos_; }
    unsigned peek() const { return static_cast<unsigned char>(in_[pos_]); }
    unsigned byte() {
        if (at_end())
            bad("truncated terminal");
        return static_cast<unsigned char>(in_[pos_++]);
    }
    void skip(std::size_t n) { pos_ += n; }
    std::string_view bytes(std::size_t n) const { return in_.substr(pos_, n); }

    // LEB128, at most 64 bits: a tenth byte may hold only the top bit.
    std::uint64_t number() {
        std::uint64_t v = 0;
        for (unsigned i = 0;; ++i) {
            if (at_end())
                bad("truncated file");
            const auto b = static_cast<unsigned char>(in_[pos_++]);
            if (i == 9 && b > 1)
                bad("varint out of range");
            v += std::uint64_t{b & 0x7fu} << (7 * i);
            if (b < 0x80)
                return v;
        }
    }
    // COUNT of items of a byte or more each.
    std::uint64_t count(std::string_view what) {
        item();
        const std::uint64_t n = number();
        if (n > left())
            bad(fmt::format("{} count {} exceeds the file's size", what, n));
        return n;
    }
    // An id into a table of `size`.
    std::uint64_t id(std::size_t size, std::string_view what) {
        const std::uint64_t v = number();
        if (v >= size)
            bad(fmt::format("{} id {} out of range", what, v));
        return v;
    }

private:
    std::string_view in_;
    std::size_t pos_ = 0, item_ = 0;
};

// names := varint COUNT (varint LENGTH  LENGTH bytes)*COUNT, interned into `space`.
std::vector<std::uint32_t> spec_names(SpecCursor& c, std::uint64_t n, Namespace space,
                                      Symbols& syms) {
    std::vector<std::uint32_t> ids;
    while (n-- > 0) {
        c.item();
        const std::uint64_t len = c.number();
        if (len > c.left())
            c.bad("name runs past the end of the file");
        const std::string_view name = c.bytes(len);
        if (!text_trace::is_valid_name(space, name))
            c.bad(fmt::format("invalid {} name", to_string(space)));
        c.skip(len);
        ids.push_back(syms.names(space).intern(name));
    }
    return ids;
}

// sets := varint COUNT (varint N>=1 varint THREAD*N)*COUNT, as Symbols keeps them (sorted).
std::vector<ObjId> spec_sets(SpecCursor& c, const std::vector<std::uint32_t>& threads,
                             Symbols& syms) {
    std::vector<ObjId> ids;
    for (std::uint64_t k = c.count("thread set"); k > 0; --k) {
        const std::uint64_t n = c.count("thread");
        if (n == 0)
            c.bad("empty fork/join thread set");
        std::vector<ThreadId> set;
        while (set.size() < n)
            set.push_back(threads[c.id(threads.size(), "thread")]);
        std::sort(set.begin(), set.end());
        if (std::unique(set.begin(), set.end()) != set.end())
            c.bad("a thread is listed twice in a fork/join set");
        ids.push_back(static_cast<ObjId>(syms.thread_sets.size()));
        syms.thread_sets.push_back(set);
    }
    return ids;
}

// rules := varint COUNT>=1 (varint LENGTH>=1 varint SYMBOL*LENGTH)*COUNT; SYMBOL 2k terminal k,
// 2r+1 rule r, rule r refers only to rules > r; the empty trace is one empty rule.
void spec_rules(SpecCursor& c, Slp& out) {
    const std::uint64_t nrules = c.count("rule");
    if (nrules == 0)
        c.bad("no rule (an SLP has at least its start rule)");
    const std::uint64_t nterms = out.terminals.size();
    out.rules.resize(nrules);
    for (std::uint64_t r = 0; r < nrules; ++r) {
        const std::uint64_t len = c.count("symbol");
        if (len == 0 && nrules > 1)
            c.bad(fmt::format("rule {} is empty", r));
        for (std::uint64_t i = 0; i < len; ++i) {
            c.item();
            const std::uint64_t s = c.number(), k = s / 2;
            if (s % 2 == 0 && k >= nterms)
                c.bad(fmt::format("rule {} refers to terminal {}, out of range (the file has {} "
                                  "terminals)",
                                  r, k, nterms));
            if (s % 2 == 1 && k >= nrules)
                c.bad(fmt::format("rule {} refers to rule {}, out of range (the file has {} rules)",
                                  r, k, nrules));
            if (s % 2 == 1 && k <= r)
                c.bad(fmt::format("rule {} refers to rule {}: a rule may refer only to later "
                                  "rules (no cycles)",
                                  r, k));
            out.rules[r].push_back(s % 2 ? slp_rule_bit | static_cast<SlpSymbol>(k)
                                         : static_cast<SlpSymbol>(k));
        }
    }
    // Fewer than 2^62 events: the lengths from the last rule up, the first too long named.
    out.lengths.assign(nrules, 0);
    for (std::uint64_t r = nrules; r-- > 0;)
        for (SlpSymbol s : out.rules[r])
            if ((out.lengths[r] += slp_is_rule(s) ? out.lengths[slp_index(s)] : 1) >= 1ull << 62)
                c.bad(fmt::format("rule {} generates 2^62 events or more", r));
}

// file := magic names[6] sets terminals rules locations, nothing after.
Slp spec_decode(std::string_view in, Symbols& syms) {
    SpecCursor c(in);
    c.skip(magic.size());
    Slp out;
    std::vector<std::uint32_t> names[namespace_count];
    for (std::size_t k = 0; k < namespace_count; ++k)
        names[k] = spec_names(c, c.count("name"), static_cast<Namespace>(k), syms);
    auto table = [&](Namespace n) -> const std::vector<std::uint32_t>& {
        return names[static_cast<std::size_t>(n)];
    };
    const std::vector<ObjId> sets = spec_sets(c, table(Namespace::thread), syms);
    // terminals := varint COUNT [queues] (byte OP varint THREAD [OPERAND] [VALUE])*COUNT
    const std::uint64_t nterms = c.count("terminal");
    std::vector<std::uint32_t> queues;
    if (nterms > 0 && !c.at_end() && c.peek() == 0x46) {
        c.skip(1);
        queues = spec_names(c, c.count("queue name"), Namespace::queue, syms);
    }
    for (std::uint64_t i = 0; i < nterms; ++i) {
        c.item();
        const unsigned code = c.byte();
        const std::optional<Op> op = op_from_wire(code & ~0x20u);
        if (!op || ((code & 0x20) && op_info(*op).space != Namespace::volatile_))
            c.bad(fmt::format("unknown op code 0x{:02x}", code));
        const OpInfo& info = op_info(*op);
        SlpTerminal t;
        t.op = *op;
        t.thread = table(Namespace::thread)[c.id(table(Namespace::thread).size(), "thread")];
        if (info.operand == Operand::name)
            t.target = table(info.space)[c.id(table(info.space).size(), to_string(info.space))];
        if (info.operand == Operand::thread_set)
            t.target = sets[c.id(sets.size(), "thread set")];
        if (info.operand == Operand::queue_item) {
            const ObjId q = queues[c.id(queues.size(), "queue")];
            const auto& vars = table(Namespace::variable);
            t.target = syms.queue_items.intern(q, vars[c.id(vars.size(), "variable")]);
        }
        if (code & 0x20) { // zigzag: (K << 1) ^ (K >> 63)
            const std::uint64_t z = c.number();
            t.value_id = syms.values.intern(z % 2 ? -static_cast<std::int64_t>(z / 2) - 1
                                                  : static_cast<std::int64_t>(z / 2));
        }
        out.terminals.push_back(t);
    }
    spec_rules(c, out);
    // locations := varint COUNT (varint GAP>=1 varint LOCATION)*COUNT
    std::uint64_t event = 0;
    for (std::uint64_t n = c.count("location"); n > 0; --n) {
        c.item();
        const std::uint64_t gap = c.number();
        if (gap == 0 || gap > out.events() - event)
            c.bad("location of an event out of range");
        event += gap;
        const auto& locs = table(Namespace::location);
        out.locations.emplace_back(event, locs[c.id(locs.size(), "location")]);
    }
    if (!c.at_end())
        c.bad("trailing bytes after the locations");
    return out;
}

// The oracle's reading of `bytes` as read_slp answers it: the SLP or the error.
std::optional<TraceError> reference_read(std::string_view bytes, Symbols& syms, Slp& out) {
    if (bytes.substr(0, magic.size()) != magic)
        return TraceError{"t.slp", 0, 0, "not an SLP file (bad magic)"};
    try {
        out = spec_decode(bytes, syms);
        return std::nullopt;
    } catch (const Malformed& m) {
        return TraceError{"t.slp", 0, 0, fmt::format("byte offset {}: {}", m.at, m.what)};
    }
}

// The events of a grammar by the definition: its terminals in order, one at a time through the
// checker, with their locations.
struct Expansion {
    std::vector<Event> events; // implicit ones too
    TraceResult result;
};
Expansion reference_expand(const Slp& slp, const Symbols& syms) {
    std::vector<std::uint32_t> seq;
    auto walk = [&](auto& self, std::uint32_t r) -> void {
        for (SlpSymbol s : slp.rules[r])
            if (slp_is_rule(s))
                self(self, slp_index(s));
            else
                seq.push_back(s);
    };
    if (!slp.rules.empty())
        walk(walk, 0);
    Expansion x;
    Collector c;
    WellFormedStream stream(syms, c);
    std::uint64_t number = 0;
    bool failed = false;
    for (std::uint32_t id : seq) {
        const SlpTerminal& t = slp.terminals[id];
        ++number;
        if (!stream.push(t.thread, t.op, t.target, slp.location_of(number), 0, t.value_id)) {
            x.result.error =
                TraceError{"t.slp", 0, 0, fmt::format("event {}: {}", number, stream.error())};
            failed = true;
            break;
        }
    }
    if (!failed)
        stream.finish();
    x.result.events = stream.events();
    x.events = std::move(c.all);
    return x;
}

bool same_events(const std::vector<Event>& a, const std::vector<Event>& b) {
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].number != b[i].number || a[i].thread != b[i].thread || a[i].op != b[i].op ||
            a[i].implicit != b[i].implicit || a[i].target != b[i].target ||
            a[i].location != b[i].location || a[i].line != b[i].line ||
            a[i].value_id != b[i].value_id)
            return false;
    return true;
}

void check_same(const Expansion& want, const std::vector<Event>& events, const TraceResult& got) {
    CHECK(same_events(want.events, events));
    CHECK(got.events == want.result.events);
    REQUIRE(got.error.has_value() == want.result.error.has_value());
    if (got.error)
        CHECK(got.error->to_string() == want.result.error->to_string());
}

std::string bytes_of(const Slp& slp, const Symbols& syms) {
    std::ostringstream out;
    write_slp(out, slp, syms);
    return out.str();
}

// A random trace's terminals with locations on some events, often mutated into an ill-formed
// sequence (swapped, dropped or repeated events).
Terminals random_terminals(std::mt19937_64& rng, Symbols& syms, bool mutate) {
    const RandomTraceOptions shapes[] = {
        {4, 2, 2, 2, 1, 30, 0, 30}, {6, 3, 2, 2, 2, 200, 50, 30}, {10, 2, 1, 1, 1, 400, 50}};
    std::string text = random_trace(rng, shapes[rng() % 3]);
    std::string with_locs, line;
    std::istringstream in(text);
    const int every = 1 + static_cast<int>(rng() % 4);
    for (int i = 1; std::getline(in, line); ++i)
        with_locs += line + (i % every == 0 ? "|F.java:" + std::to_string(rng() % 300) : "") + "\n";
    Terminals t = terminals_of(with_locs, syms);
    if (mutate) {
        auto& s = t.sequence;
        mutate_sequence(rng, s, 1);
        // Locations only of events that still exist.
        std::erase_if(t.slp.locations, [&](const auto& l) { return l.first > s.size(); });
    }
    return t;
}

// Throws at the n-th event it sees.
class Thrower : public Analysis {
public:
    explicit Thrower(std::uint64_t n) : n_(n) {}
    void on_event(const Event&, const Symbols&) override {
        if (++seen_ == n_)
            throw std::runtime_error("sink failed");
    }

private:
    std::uint64_t n_, seen_ = 0;
};

} // namespace

TEST_CASE("expansion: one thread or two, image or Slp, any batch = the definition (random "
          "grammars, well- and ill-formed)") {
    std::mt19937_64 rng(2027);
    int ill = 0;
    for (int round = 0; round < 600; ++round) {
        Symbols syms;
        Terminals t = random_terminals(rng, syms, round % 2 == 1);
        const Slp slp = grammar_by(round % 3, t.slp, t.sequence, rng);
        const Expansion want = reference_expand(slp, syms);
        ill += want.result.error.has_value();
        const std::string bytes = bytes_of(slp, syms);
        Symbols syms2;
        SlpImage image;
        REQUIRE(!read_slp_image(bytes, "t.slp", syms2, image));
        CHECK(image.events() == slp.events());
        CHECK(image.size() == slp.size());
        for (unsigned threads : {1u, 2u, 3u})
            for (std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
                if (threads == 1 && batch != 64)
                    continue; // batches are the pipeline's
                const SlpExpandOptions options{threads, batch};
                Collector a, b;
                check_same(want, a.all, expand_slp(slp, "t.slp", syms, a, options));
                check_same(want, b.all, expand_slp(image, "t.slp", syms2, b, options));
            }
        Collector c;
        check_same(want, c.all, expand_slp(slp, "t.slp", syms, c));
    }
    MESSAGE("ill-formed: " << ill);
    CHECK(ill > 100);
}

TEST_CASE("read_slp reads what was written, as the format's grammar decoded apart reads it") {
    std::mt19937_64 rng(31);
    for (int round = 0; round < 200; ++round) {
        Symbols syms;
        Terminals t = random_terminals(rng, syms, false);
        const Slp slp = grammar_by(round % 3, t.slp, t.sequence, rng);
        const std::string bytes = bytes_of(slp, syms);
        Symbols s1, s2;
        Slp want, got;
        REQUIRE(!reference_read(bytes, s1, want));
        REQUIRE(!read_slp(bytes, "t.slp", s2, got));
        CHECK(got.terminals == slp.terminals);
        CHECK(got.rules == slp.rules);
        CHECK(got.locations == slp.locations);
        CHECK(got.terminals == want.terminals);
        CHECK(got.rules == want.rules);
        CHECK(got.lengths == want.lengths);
        CHECK(got.locations == want.locations);
        CHECK(s2.thread_sets == s1.thread_sets);
        CHECK(s2.values.size() == s1.values.size());
        for (std::size_t k = 0; k < namespace_count; ++k)
            CHECK(s2.names(static_cast<Namespace>(k)).size() ==
                  s1.names(static_cast<Namespace>(k)).size());
    }
}

TEST_CASE("ill-formed SLP files: the reader's errors at the byte offsets of the format's grammar "
          "decoded apart" *
          volume) {
    // Files with every section, locations of one and of several bytes (ids and gaps past 127).
    std::mt19937_64 rng(5);
    std::vector<std::string> goods;
    for (int round = 0; round < 6; ++round) {
        Symbols syms;
        Terminals t = random_terminals(rng, syms, false);
        Slp slp = grammar_by(round % 3, t.slp, t.sequence, rng);
        if (round >= 3) // a location far apart, and many location names
            for (int i = 0; i < 200; ++i)
                syms.locations.intern("L" + std::to_string(i));
        if (round >= 3 && !slp.locations.empty())
            slp.locations.back().second = syms.locations.intern("L199");
        goods.push_back(bytes_of(slp, syms));
    }
    auto same_error = [](const std::string& bytes) {
        Symbols s1, s2, s3;
        Slp a, b;
        SlpImage c;
        const auto want = reference_read(bytes, s1, a);
        const auto got = read_slp(bytes, "t.slp", s2, b);
        const auto image = read_slp_image(bytes, "t.slp", s3, c);
        REQUIRE(got.has_value() == want.has_value());
        REQUIRE(image.has_value() == want.has_value());
        if (want) {
            CHECK(got->to_string() == want->to_string());
            CHECK(image->to_string() == want->to_string());
        }
        return want.has_value();
    };
    int rejected = 0;
    for (const std::string& good : goods) {
        REQUIRE(!same_error(good));
        for (std::size_t n = 0; n < good.size(); ++n)
            rejected += same_error(good.substr(0, n));
        for (std::size_t i = 8; i < good.size(); ++i)
            for (int v : {0x00, 0x01, 0x02, 0x7f, 0x80, 0x81, 0xff}) {
                std::string bad = good;
                bad[i] = static_cast<char>(v);
                rejected += same_error(bad);
            }
        rejected += same_error(good + "x");
    }
    for (int round = 0; round < 50; ++round) {
        std::string bytes(magic);
        for (int i = 0; i < 200; ++i)
            bytes += static_cast<char>(rng() % 4 == 0 ? rng() : rng() % 8);
        rejected += same_error(bytes);
    }
    CHECK(rejected > 1000);
}

TEST_CASE("an image expanded after an ill-formed event, with locations: the same error") {
    // T0 releases m it does not hold at event 3; events 1 and 3 have locations.
    Symbols syms;
    Terminals t = terminals_of("T0|acq(m)|A:1\nT0|rel(m)\nT0|w(x)|A:2\n", syms);
    t.sequence.push_back(t.sequence[1]); // a second rel(m): event 4
    t.sequence.push_back(t.sequence[2]);
    std::mt19937_64 rng(1);
    const Slp slp = grammar_by(0, t.slp, t.sequence, rng);
    const Expansion want = reference_expand(slp, syms);
    REQUIRE(want.result.error);
    CHECK(want.result.error->message.find(
              "event 4: thread T0 releases lock m, which is not held") == 0);
    Symbols syms2;
    SlpImage image;
    const std::string bytes = bytes_of(slp, syms);
    REQUIRE(!read_slp_image(bytes, "t.slp", syms2, image));
    for (unsigned threads : {1u, 2u}) {
        Collector c;
        check_same(want, c.all, expand_slp(image, "t.slp", syms2, c, {threads, 1}));
    }
}

TEST_CASE("an exception from the sink stops the expansion and is rethrown, on two threads") {
    std::mt19937_64 rng(8);
    Symbols syms;
    std::string text;
    for (int i = 0; i < 2000; ++i) // 6,000 events: many batches
        text += "T0|acq(m)\nT0|w(x)\nT0|rel(m)\n";
    Terminals t = terminals_of(text, syms);
    const Slp slp = grammar_by(0, t.slp, t.sequence, rng);
    for (std::uint64_t at : {1u, 17u, 1000u, 4999u})
        for (std::size_t batch : {std::size_t{1}, std::size_t{16}, std::size_t{4096}}) {
            Thrower sink(at);
            CHECK_THROWS_AS(expand_slp(slp, "t.slp", syms, sink, {2, batch}), std::runtime_error);
        }
}

TEST_CASE("long rules and deep grammars expand as the definition" * volume) {
    // A start rule longer than a rule's packed symbol count (2^23 - 1), then rules that double
    // ten times, then a chain 200 rules deep: leaves, bodies and a deep stack.
    Symbols syms;
    Terminals t = terminals_of("T0|w(x)\nT0|r(x)\nT0|acq(m)\nT0|rel(m)\n", syms);
    Slp slp = t.slp;
    slp.locations.clear();
    slp.rules.resize(1);
    const std::uint32_t long_rule = (1u << 23) + 3;
    slp.rules[0].reserve(long_rule + 1);
    for (std::uint32_t i = 0; i < long_rule; ++i)
        slp.rules[0].push_back(i % 2); // w(x) r(x) ...
    slp.rules[0].push_back(slp_rule_bit | 1);
    for (std::uint32_t r = 1; r <= 10; ++r)
        slp.rules.push_back({slp_rule_bit | (r + 1), 2, 3, slp_rule_bit | (r + 1)});
    for (std::uint32_t r = 11; r < 211; ++r)
        slp.rules.push_back({slp_rule_bit | (r + 1), 2, 3});
    slp.rules.push_back({0, 1});
    REQUIRE(!slp.compute_lengths());
    REQUIRE(slp.events() < 10'000'000);
    slp.locations = {{1, syms.locations.intern("A:1")},
                     {long_rule + 1, syms.locations.intern("A:2")},
                     {slp.events(), syms.locations.intern("A:3")}};
    // Digests, not collections: the trace has some 9 million events.
    class Digest : public Analysis {
    public:
        void on_event(const Event& e, const Symbols&) override {
            h = (h ^ (e.number * 31 + e.thread * 7 + static_cast<unsigned>(e.op) + e.target * 131 +
                      e.location * 17 + e.implicit)) *
                1099511628211u;
            ++n;
        }
        std::uint64_t h = 14695981039346656037u, n = 0;
    };
    Digest want;
    {
        WellFormedStream stream(syms, want);
        std::uint64_t number = 0;
        auto walk = [&](auto& self, std::uint32_t r) -> void {
            for (SlpSymbol s : slp.rules[r])
                if (slp_is_rule(s)) {
                    self(self, slp_index(s));
                } else {
                    const SlpTerminal& term = slp.terminals[s];
                    ++number;
                    if (!stream.push(term.thread, term.op, term.target, slp.location_of(number)))
                        throw std::runtime_error(stream.error());
                }
        };
        walk(walk, 0);
        stream.finish();
    }
    CHECK(want.n == slp.events() + 2); // and T0's implicit start and end
    const std::string bytes = bytes_of(slp, syms);
    for (unsigned threads : {1u, 2u}) {
        // Read on two threads, the start rule is summed in two halves.
        Symbols syms2;
        SlpImage image;
        REQUIRE(!read_slp_image(bytes, "t.slp", syms2, image, threads));
        CHECK(image.lengths == slp.lengths);
        Digest a, b;
        CHECK(expand_slp(slp, "t.slp", syms, a, {threads, 4096}).ok());
        CHECK(expand_slp(image, "t.slp", syms2, b, {threads, 4096}).ok());
        CHECK(a.n == want.n);
        CHECK(a.h == want.h);
        CHECK(b.n == want.n);
        CHECK(b.h == want.h);
    }
}

TEST_CASE("read_trace_file_parallel on an SLP file: two threads, the same events") {
    std::mt19937_64 rng(77);
    Symbols syms;
    Terminals t = random_terminals(rng, syms, true);
    const Slp slp = grammar_by(1, t.slp, t.sequence, rng);
    const std::string path = scratch_file("slp_expand_test", "slp");
    {
        std::ofstream out(path, std::ios::binary);
        write_slp(out, slp, syms);
    }
    Symbols s1, s2;
    Collector a, b;
    const TraceResult one = read_trace_file(path, s1, a);
    const TraceResult two = read_trace_file_parallel(path, s2, b, {2});
    std::remove(path.c_str());
    CHECK(same_events(a.all, b.all));
    CHECK(one.events == two.events);
    CHECK(one.ok() == two.ok());
    if (!one.ok())
        CHECK(one.error->to_string() == two.error->to_string());
}

TEST_CASE("read_slp_image on two threads (locations checked ahead): the same image and errors") {
    // 800,000 events, each with one of 300 locations (two-byte ids): a locations section of
    // two megabytes, which a second thread checks while the rules are read.
    Symbols syms;
    Terminals t = terminals_of("T0|acq(m)\nT0|w(x)\nT0|r(y)\nT0|rel(m)\n", syms);
    std::vector<std::uint32_t> seq;
    std::mt19937_64 rng(4);
    for (int i = 0; i < 200000; ++i)
        seq.insert(seq.end(), {0, 1 + static_cast<std::uint32_t>(rng() % 2), 2, 3});
    // (r(y) and w(x) in random order inside the critical section: not too compressible.)
    for (std::size_t i = 0; i < seq.size(); i += 4)
        seq[i + 2] = seq[i + 1] == 1 ? 2 : 1;
    Slp slp = t.slp;
    slp.locations.clear();
    for (int i = 0; i < 300; ++i)
        syms.locations.intern("L" + std::to_string(i));
    for (std::uint64_t e = 1; e <= seq.size(); ++e)
        slp.locations.emplace_back(e, static_cast<ObjId>(rng() % 300));
    slp = grammar_by(0, slp, seq, rng);
    const std::string good = bytes_of(slp, syms);
    REQUIRE(good.size() > (std::size_t{3} << 19));
    auto read = [&](const std::string& bytes, unsigned threads, SlpImage& image) {
        Symbols s;
        return read_slp_image(bytes, "t.slp", s, image, threads);
    };
    {
        SlpImage one, two;
        REQUIRE(!read(good, 1, one));
        REQUIRE(!read(good, 2, two));
        CHECK(two.location_bytes == one.location_bytes);
        CHECK(two.location_count == one.location_count);
        CHECK(to_slp(two).locations == slp.locations);
    }
    // Bytes changed in the locations section (its last megabyte), in the rules and the names:
    // the error of one thread, and of the format's grammar decoded apart.
    int rejected = 0;
    for (int round = 0; round < 120; ++round) {
        std::string bad = good;
        const std::size_t at =
            round % 10 == 0 ? 8 + rng() % 200 : bad.size() - 1 - rng() % (std::size_t{1} << 20);
        bad[at] = static_cast<char>(round % 3 == 0 ? 0x00 : round % 3 == 1 ? 0xff : rng());
        if (round % 7 == 0)
            bad.resize(bad.size() - rng() % 1000); // truncated too
        SlpImage one, two;
        Symbols s;
        Slp ref;
        const auto want = reference_read(bad, s, ref);
        const auto e1 = read(bad, 1, one);
        const auto e2 = read(bad, 2, two);
        REQUIRE(e1.has_value() == want.has_value());
        REQUIRE(e2.has_value() == want.has_value());
        if (want) {
            ++rejected;
            CHECK(e1->to_string() == want->to_string());
            CHECK(e2->to_string() == want->to_string());
        } else {
            CHECK(two.location_bytes == one.location_bytes);
        }
    }
    CHECK(rejected > 60);
}

TEST_CASE("a start rule of a million symbols and 2^62 events: the same error on two threads") {
    Symbols syms;
    Terminals t = terminals_of("T0|w(x)\n", syms);
    for (std::uint32_t half : {0u, 1u}) { // the excess in the first half, or in the second
        Slp slp = t.slp;
        slp.locations.clear();
        // Rule k (1..42) is rule k+1 twice, rule 43 the terminal: rule 1 has 2^42 events; the
        // start rule refers to it 2^20 times (2^62 events), after 2^20 terminals or before them.
        slp.rules.assign(44, {});
        for (std::uint32_t k = 1; k <= 42; ++k)
            slp.rules[k] = {slp_rule_bit | (k + 1), slp_rule_bit | (k + 1)};
        slp.rules[43] = {0};
        std::vector<SlpSymbol> terminals(1u << 20, 0), big(1u << 20, slp_rule_bit | 1);
        slp.rules[0] = half ? terminals : big;
        slp.rules[0].insert(slp.rules[0].end(), (half ? big : terminals).begin(),
                            (half ? big : terminals).end());
        const std::string bytes = bytes_of(slp, syms);
        Symbols s0, s1, s2;
        Slp ref;
        SlpImage one, two;
        const auto want = reference_read(bytes, s0, ref);
        REQUIRE(want);
        CHECK(want->message.find("rule 0 generates 2^62 events or more") != std::string::npos);
        const auto e1 = read_slp_image(bytes, "t.slp", s1, one, 1);
        const auto e2 = read_slp_image(bytes, "t.slp", s2, two, 2);
        REQUIRE(e1);
        REQUIRE(e2);
        CHECK(e1->to_string() == want->to_string());
        CHECK(e2->to_string() == want->to_string());
    }
}
