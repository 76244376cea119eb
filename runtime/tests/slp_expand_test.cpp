// The fast SLP paths (slp_expand.hpp): read_slp_image reads what read_slp read before it, with
// the same errors at the same byte offsets; the expansion of an image or an Slp, on one thread or
// two, in batches of any size, gives the events (implicit ones, numbers and locations included)
// and the error, at the same event, of a plain walk of the grammar through the checker.
#include "sfg/runtime/slp_expand.hpp"
#include "sfg/runtime/well_formed.hpp"
#include "slp_test_util.hpp"
#include "trace/trace_text_parser.hpp"

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

// The reader as it was before images (every rule a vector, every location a pair): the oracle
// of the errors an ill-formed file gets.
class ReferenceReader {
public:
    ReferenceReader(std::string_view in, std::string_view file, Symbols& syms, Slp& out)
        : in_(in), file_(file), syms_(syms), out_(out) {}

    std::optional<TraceError> run() {
        if (!is_slp(in_))
            return TraceError{std::string(file_), 0, 0, "not an SLP file (bad magic)"};
        pos_ = magic.size();
        out_ = Slp{};
        std::vector<std::uint32_t> ids[namespace_count];
        for (std::size_t k = 0; k < namespace_count; ++k) {
            std::uint64_t n = 0;
            if (!count(n, "name"))
                return error_;
            const auto space = static_cast<Namespace>(k);
            for (std::uint64_t i = 0; i < n; ++i) {
                std::uint64_t len = 0;
                start_ = pos_;
                if (!varint(len))
                    return error_;
                if (len > in_.size() - pos_)
                    return fail("name runs past the end of the file"), error_;
                const std::string_view name = in_.substr(pos_, len);
                if (!text_trace::is_valid_name(space, name))
                    return fail(fmt::format("invalid {} name", to_string(space))), error_;
                pos_ += len;
                ids[k].push_back(syms_.names(space).intern(name));
            }
        }
        const auto& threads = ids[static_cast<std::size_t>(Namespace::thread)];
        // Thread sets: sorted, distinct threads (as Symbols keeps them, mapped to its ids).
        std::uint64_t nsets = 0;
        if (!count(nsets, "thread set"))
            return error_;
        std::vector<ObjId> set_ids;
        for (std::uint64_t i = 0; i < nsets; ++i) {
            std::uint64_t n = 0;
            start_ = pos_;
            if (!count(n, "thread"))
                return error_;
            if (n == 0)
                return fail("empty fork/join thread set"), error_;
            std::vector<ThreadId> set;
            for (std::uint64_t j = 0; j < n; ++j) {
                std::uint64_t u = 0;
                if (!index(u, threads.size(), "thread"))
                    return error_;
                set.push_back(threads[u]);
            }
            std::sort(set.begin(), set.end());
            if (std::adjacent_find(set.begin(), set.end()) != set.end())
                return fail("a thread is listed twice in a fork/join set"), error_;
            set_ids.push_back(static_cast<ObjId>(syms_.thread_sets.size()));
            syms_.thread_sets.push_back(std::move(set));
        }
        std::uint64_t nterms = 0;
        if (!count(nterms, "terminal"))
            return error_;
        std::vector<std::uint32_t> queues; // the queue names' record (docs/compressed.md)
        if (nterms > 0 && pos_ < in_.size() &&
            static_cast<unsigned char>(in_[pos_]) == slp_queue_names) {
            ++pos_;
            std::uint64_t n = 0;
            if (!count(n, "queue name"))
                return error_;
            for (std::uint64_t i = 0; i < n; ++i) {
                std::uint64_t len = 0;
                start_ = pos_;
                if (!varint(len))
                    return error_;
                if (len > in_.size() - pos_)
                    return fail("name runs past the end of the file"), error_;
                const std::string_view name = in_.substr(pos_, len);
                if (!text_trace::is_valid_name(name))
                    return fail("invalid queue name"), error_;
                pos_ += len;
                queues.push_back(syms_.queues.intern(name));
            }
        }
        for (std::uint64_t i = 0; i < nterms; ++i) {
            start_ = pos_;
            if (pos_ >= in_.size())
                return fail("truncated terminal"), error_;
            const auto code = static_cast<unsigned char>(in_[pos_++]);
            const std::optional<Op> op = op_from_wire(code & ~slp_value_bit);
            if (!op || ((code & slp_value_bit) && op_info(*op).space != Namespace::volatile_))
                return fail(fmt::format("unknown op code 0x{:02x}", code)), error_;
            SlpTerminal t;
            t.op = *op;
            std::uint64_t v = 0;
            if (!index(v, threads.size(), "thread"))
                return error_;
            t.thread = threads[v];
            const OpInfo& info = op_info(*op);
            if (info.operand == Operand::name) {
                const auto& table = ids[static_cast<std::size_t>(info.space)];
                if (!index(v, table.size(), to_string(info.space)))
                    return error_;
                t.target = table[v];
                if (code & slp_value_bit) { // vr(v=K) / vw(v=K): zigzag K (docs/compressed.md)
                    if (!varint(v))
                        return error_;
                    t.value_id =
                        syms_.values.intern(static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1)));
                }
            } else if (info.operand == Operand::thread_set) {
                if (!index(v, set_ids.size(), "thread set"))
                    return error_;
                t.target = set_ids[v];
            } else if (info.operand == Operand::queue_item) {
                std::uint64_t x = 0;
                const auto& vars = ids[static_cast<std::size_t>(Namespace::variable)];
                if (!index(v, queues.size(), "queue") || !index(x, vars.size(), "variable"))
                    return error_;
                t.target = syms_.queue_items.intern(queues[v], vars[x]);
            }
            out_.terminals.push_back(t);
        }
        std::uint64_t nrules = 0;
        if (!count(nrules, "rule"))
            return error_;
        if (nrules == 0)
            return fail("no rule (an SLP has at least its start rule)"), error_;
        out_.rules.resize(nrules);
        for (std::uint64_t r = 0; r < nrules; ++r) {
            std::uint64_t len = 0;
            start_ = pos_;
            if (!count(len, "symbol"))
                return error_;
            if (len == 0 && !(r == 0 && nrules == 1)) // only the empty trace's start is empty
                return fail(fmt::format("rule {} is empty", r)), error_;
            auto& rule = out_.rules[r];
            rule.reserve(len);
            for (std::uint64_t i = 0; i < len; ++i) {
                std::uint64_t s = 0;
                start_ = pos_;
                if (!varint(s))
                    return error_;
                const std::uint64_t k = s >> 1;
                if (!(s & 1)) {
                    if (k >= nterms)
                        return fail(fmt::format("rule {} refers to terminal {}, out of range "
                                                "(the file has {} terminals)",
                                                r, k, nterms)),
                               error_;
                    rule.push_back(static_cast<SlpSymbol>(k));
                } else {
                    if (k >= nrules)
                        return fail(fmt::format("rule {} refers to rule {}, out of range (the "
                                                "file has {} rules)",
                                                r, k, nrules)),
                               error_;
                    if (k <= r)
                        return fail(fmt::format("rule {} refers to rule {}: a rule may refer "
                                                "only to later rules (no cycles)",
                                                r, k)),
                               error_;
                    rule.push_back(slp_rule_bit | static_cast<SlpSymbol>(k));
                }
            }
        }
        if (auto e = out_.compute_lengths())
            return fail(*e), error_;
        const auto& locs = ids[static_cast<std::size_t>(Namespace::location)];
        std::uint64_t nlocs = 0;
        if (!count(nlocs, "location"))
            return error_;
        std::uint64_t event = 0;
        for (std::uint64_t i = 0; i < nlocs; ++i) {
            std::uint64_t gap = 0, loc = 0;
            start_ = pos_;
            if (!varint(gap))
                return error_;
            if (gap == 0 || gap > out_.events() - event)
                return fail("location of an event out of range"), error_;
            event += gap;
            if (!index(loc, locs.size(), "location"))
                return error_;
            out_.locations.emplace_back(event, locs[loc]);
        }
        if (pos_ != in_.size())
            return fail("trailing bytes after the locations"), error_;
        return std::nullopt;
    }

private:
    bool fail(const std::string& msg) {
        if (!error_)
            error_ = TraceError{std::string(file_), 0, 0,
                                fmt::format("byte offset {}: {}", start_, msg)};
        return false;
    }
    bool varint(std::uint64_t& v) {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= in_.size())
                return fail("truncated file");
            const auto b = static_cast<unsigned char>(in_[pos_++]);
            if (shift == 63 && b > 1)
                return fail("varint out of range");
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return true;
        }
        return fail("varint out of range");
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

    std::string_view in_;
    std::string_view file_;
    Symbols& syms_;
    Slp& out_;
    std::size_t pos_ = 0, start_ = 0;
    std::optional<TraceError> error_;
};

std::optional<TraceError> reference_read(std::string_view bytes, Symbols& syms, Slp& out) {
    return ReferenceReader(bytes, "t.slp", syms, out).run();
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

TEST_CASE("read_slp_image and read_slp read what the reader before them read") {
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

TEST_CASE("ill-formed SLP files: the reader's errors, at the same byte offsets, as before") {
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

TEST_CASE("long rules and deep grammars expand as the definition") {
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
    // the error of one thread, and of the reader before images.
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
