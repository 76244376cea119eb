// read_trace_text_parallel (trace.hpp): the text parsed in chunks by several threads, the caller's
// among them; the events checked and delivered on the caller's thread, in file order.
//
// Chunks are cut at line starts, so every line is parsed whole by one thread. A thread interns
// names into its own tables of views into the file (ids local to it) and writes raw events; the
// caller's thread maps local ids to Symbols ids while it walks the events in file order, interning
// a name when it first meets it there: the order of first appearance in the file, the order the
// sequential reader interns in, hence the same ids. Well-formedness is a property of the whole
// stream, so the caller's thread checks it (WellFormedStream), as the sequential reader does.
// Line numbers are local to a chunk until the caller adds the lines of the chunks before it; a
// parse error in a chunk is reported once every event before it was delivered, as in one pass.
//
// Scheduling: a ring of `window` slots; chunk k goes to slot k % window, claimed in order. Worker
// threads claim and parse chunks; the caller's thread delivers chunk k when it is ready and, while
// it is not, parses the next unclaimed chunk itself, so no core idles while the caller waits.
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "trace_names.hpp"
#include "trace_text_parser.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace sfg {

namespace {

// Name tables are kept by Namespace (op.hpp).
constexpr std::size_t kinds = namespace_count_with_queues;
constexpr std::size_t k_threads = static_cast<std::size_t>(Namespace::thread);
constexpr std::size_t k_locations = static_cast<std::size_t>(Namespace::location);
constexpr std::size_t k_vars = static_cast<std::size_t>(Namespace::variable);
constexpr std::size_t k_queues = static_cast<std::size_t>(Namespace::queue);
constexpr std::uint32_t unmapped = ~std::uint32_t{0};
// The namespace of each op's one name operand, or `kinds` when it has none.
constexpr std::array<std::size_t, op_count> target_kind = [] {
    std::array<std::size_t, op_count> a{};
    for (const OpInfo& i : op_table)
        a[static_cast<std::size_t>(i.op)] =
            i.operand == Operand::name && !i.implicit ? static_cast<std::size_t>(i.space) : kinds;
    return a;
}();

// One event line in its parser's local ids.
struct RawEvent {
    std::uint32_t line; // in the chunk, 1-based
    std::uint32_t thread;
    std::uint32_t target; // fork/join: an index into Chunk::sets; enq/deq: into Chunk::items
    std::uint32_t location;
    Op op;
    bool has_value; // the next of Chunk::values is its value (vr/vw, docs/traces.md)
};

// A growable array of raw events, appended to through a bare pointer: the parser's one store an
// event (a std::vector's push_back costs three times the instructions, a tenth of a line's).
class RawEvents {
public:
    void clear() { next_ = data_.get(); }
    void push(const RawEvent& e) {
        if (next_ == end_) [[unlikely]]
            grow();
        *next_++ = e;
    }
    const RawEvent* begin() const { return data_.get(); }
    const RawEvent* end() const { return next_; }

private:
    void grow() {
        const std::size_t size = static_cast<std::size_t>(next_ - data_.get());
        const std::size_t cap = std::max<std::size_t>(2 * size, 4096);
        auto bigger = std::make_unique_for_overwrite<RawEvent[]>(cap);
        std::copy(data_.get(), next_, bigger.get());
        data_ = std::move(bigger);
        next_ = data_.get() + size;
        end_ = data_.get() + cap;
    }
    std::unique_ptr<RawEvent[]> data_;
    RawEvent* next_ = nullptr;
    RawEvent* end_ = nullptr;
};

// What parsing one chunk produced.
struct Chunk {
    unsigned parser = 0;         // whose local ids
    const char* begin = nullptr; // the chunk's first byte (for error columns)
    RawEvents events;
    std::vector<std::int64_t> values;           // of the events with has_value, in order
    std::vector<std::vector<ThreadId>> sets;    // fork/join operands, local ids, as listed
    std::vector<std::pair<ObjId, ObjId>> items; // enq/deq operands: (queue, variable), local
    std::array<std::vector<std::string_view>, kinds> new_names; // local ids first given here
    std::uint32_t lines = 0;
    std::optional<TraceError> error; // its line is the chunk's
    std::exception_ptr failed;       // e.g. bad_alloc while parsing
};

// The parser's Out (trace_text_parser.hpp) for one thread: its own name tables, kept across the
// chunks it parses (a name costs one insertion per thread, not per chunk); events into a Chunk.
class ChunkOut {
    static constexpr std::size_t at(Namespace n) { return static_cast<std::size_t>(n); }

public:
    std::array<ViewTable, kinds> views;
    BasicNameCache<ViewTable> threads{views[at(Namespace::thread)]},
        vars{views[at(Namespace::variable)]}, locks{views[at(Namespace::lock)]},
        volatiles{views[at(Namespace::volatile_)]}, barriers{views[at(Namespace::barrier)]},
        locations{views[at(Namespace::location)]}, queues{views[at(Namespace::queue)]};
    Chunk* chunk = nullptr;

    std::string_view thread_name(ThreadId t) const { return views[k_threads].name(t); }
    ObjId set(std::vector<ThreadId>& listed) {
        chunk->sets.push_back(listed);
        return static_cast<ObjId>(chunk->sets.size() - 1);
    }
    ObjId item(ObjId queue, ObjId var) {
        chunk->items.emplace_back(queue, var);
        return static_cast<ObjId>(chunk->items.size() - 1);
    }
    bool push(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
              std::optional<std::int64_t> value = {}) {
        chunk->events.push({line, t, target, location, op, value.has_value()});
        if (value) [[unlikely]]
            chunk->values.push_back(*value);
        return true; // well-formedness is checked in order, by the caller's thread
    }
    const std::string& error() const { return none_; }

private:
    std::string none_;
};

class ParallelReader {
public:
    ParallelReader(std::string_view text, std::string_view file, unsigned threads,
                   std::size_t chunk_bytes)
        : text_(text), file_(file), chunk_bytes_(std::max<std::size_t>(chunk_bytes, 1)),
          chunks_((text.size() + chunk_bytes_ - 1) / chunk_bytes_), window_(2 * threads + 2),
          slots_(window_), ready_(window_, false) {
        for (unsigned p = 0; p < threads; ++p)
            outs_.push_back(std::make_unique<ChunkOut>());
    }

    TraceResult run(Symbols& syms, Analysis& sink) {
        const auto workers = static_cast<unsigned>(outs_.size() - 1);
        std::vector<std::jthread> pool;
        struct Stop { // on every way out: workers stop at their next claim, then are joined
            ParallelReader& r;
            std::vector<std::jthread>& pool;
            ~Stop() {
                {
                    std::lock_guard lock(r.m_);
                    r.stop_ = true;
                }
                r.cv_.notify_all();
                pool.clear();
            }
        } stop{*this, pool};
        try {
            for (unsigned p = 0; p < workers; ++p)
                pool.emplace_back([this, p] { work(p); });
        } catch (const std::system_error&) {
            // No more threads to be had: those started and this one parse everything.
        }
        return deliver(syms, sink, workers); // the caller's thread parses as parser `workers`
    }

private:
    // The first line start at or after pos (pos itself when the byte before it ends a line):
    // chunk k is [line_start(k * chunk_bytes), line_start((k + 1) * chunk_bytes)).
    const char* line_start(std::size_t pos) const {
        const char* const end = text_.data() + text_.size();
        if (pos == 0)
            return text_.data();
        if (pos >= text_.size())
            return end;
        const char* at = text_.data() + pos - 1;
        const auto* nl = static_cast<const char*>(std::memchr(at, '\n', end - at));
        return nl ? nl + 1 : end;
    }

    void parse(std::size_t k, unsigned parser) {
        Chunk& c = slots_[k % window_];
        ChunkOut& out = *outs_[parser];
        c.parser = parser;
        c.events.clear();
        c.values.clear();
        c.sets.clear();
        c.items.clear();
        c.error.reset();
        c.failed = nullptr;
        c.lines = 0;
        std::array<std::uint32_t, kinds> before{};
        for (std::size_t i = 0; i < kinds; ++i)
            before[i] = out.views[i].size();
        try {
            c.begin = line_start(k * chunk_bytes_);
            const char* end = line_start((k + 1) * chunk_bytes_);
            out.chunk = &c;
            text_trace::TextParser<ChunkOut> parser_of_chunk(
                std::string_view(c.begin, static_cast<std::size_t>(end - c.begin)), file_, out);
            if (!parser_of_chunk.run())
                c.error = std::move(parser_of_chunk.error());
            c.lines = parser_of_chunk.lines();
        } catch (...) {
            c.failed = std::current_exception();
        }
        for (std::size_t i = 0; i < kinds; ++i) {
            const auto& names = out.views[i].names();
            c.new_names[i].assign(names.begin() + before[i], names.end());
        }
    }

    // Whether the next chunk may be claimed: one is left, and its slot is free.
    bool claimable() const { return next_claim_ < chunks_ && next_claim_ < delivered_ + window_; }

    void work(unsigned parser) {
        for (;;) {
            std::size_t k;
            {
                std::unique_lock lock(m_);
                cv_.wait(lock, [&] { return stop_ || next_claim_ >= chunks_ || claimable(); });
                if (stop_ || next_claim_ >= chunks_)
                    return;
                k = next_claim_++;
            }
            parse(k, parser);
            {
                std::lock_guard lock(m_);
                ready_[k % window_] = true;
            }
            cv_.notify_all();
        }
    }

    // Chunk k, parsed: waits for it, parsing later chunks meanwhile.
    Chunk& take(std::size_t k, unsigned me) {
        std::unique_lock lock(m_);
        while (!ready_[k % window_]) {
            if (claimable()) {
                const std::size_t j = next_claim_++;
                lock.unlock();
                parse(j, me);
                lock.lock();
                ready_[j % window_] = true;
                cv_.notify_all();
                continue;
            }
            cv_.wait(lock);
        }
        return slots_[k % window_];
    }

    void release(std::size_t k) {
        {
            std::lock_guard lock(m_);
            ready_[k % window_] = false;
            delivered_ = k + 1;
        }
        cv_.notify_all();
    }

    // 1-based column of the first non-blank byte of the chunk's local line `line` (an event's:
    // the column the sequential reader gives a well-formedness error).
    std::uint32_t first_column(const Chunk& c, std::uint32_t line) const {
        const char* const end = text_.data() + text_.size();
        const char* p = c.begin;
        for (std::uint32_t l = 1; l < line && p < end; ++l) {
            const auto* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
            p = nl ? nl + 1 : end;
        }
        std::uint32_t col = 1;
        while (p < end && text_trace::is_space(*p))
            ++p, ++col;
        return col;
    }

    TraceResult deliver(Symbols& syms, Analysis& sink, unsigned me) {
        WellFormedStream stream(syms, sink);
        ThreadSetCache sets(syms);
        std::vector<ThreadId> set;
        // Per parser: its local names so far, and their Symbols ids (unmapped until met).
        struct Mirror {
            std::array<std::vector<std::string_view>, kinds> names;
            std::array<std::vector<std::uint32_t>, kinds> ids;
        };
        std::vector<Mirror> mirrors(outs_.size());
        TraceResult result;
        std::uint32_t base = 0; // lines before the chunk
        for (std::size_t k = 0; k < chunks_; ++k) {
            Chunk& c = take(k, me);
            if (c.failed)
                std::rethrow_exception(c.failed);
            Mirror& m = mirrors[c.parser];
            for (std::size_t i = 0; i < kinds; ++i) {
                m.names[i].insert(m.names[i].end(), c.new_names[i].begin(), c.new_names[i].end());
                m.ids[i].resize(m.names[i].size(), unmapped);
            }
            std::array<std::uint32_t*, kinds> ids; // (intern below resizes none of them)
            for (std::size_t i = 0; i < kinds; ++i)
                ids[i] = m.ids[i].data();
            auto global = [&](std::size_t kind, std::uint32_t local) {
                std::uint32_t& id = ids[kind][local];
                if (id == unmapped) [[unlikely]]
                    id = syms.names(static_cast<Namespace>(kind)).intern(m.names[kind][local]);
                return id;
            };
            const std::int64_t* value = c.values.data();
            for (const RawEvent& e : c.events) {
                const ThreadId t = global(k_threads, e.thread);
                ObjId target = no_object;
                if (const std::size_t k = target_kind[static_cast<std::size_t>(e.op)]; k < kinds)
                    [[likely]] { // one name: no switch on op
                    target = global(k, e.target);
                } else if (op_info(e.op).operand == Operand::thread_set) {
                    set.clear();
                    for (ThreadId u : c.sets[e.target])
                        set.push_back(global(k_threads, u));
                    target = sets.id(set);
                } else if (op_info(e.op).operand == Operand::queue_item) {
                    const auto [q, o] = c.items[e.target];
                    target = syms.queue_items.intern(global(k_queues, q), global(k_vars, o));
                }
                const ObjId location =
                    e.location == no_object ? no_object : global(k_locations, e.location);
                ObjId v = no_object;
                if (e.has_value) [[unlikely]]
                    v = syms.values.intern(*value++);
                if (!stream.push(t, e.op, target, location, base + e.line, v)) {
                    result.error = TraceError{std::string(file_), base + e.line,
                                              first_column(c, e.line), stream.error()};
                    result.events = stream.events();
                    return result;
                }
            }
            if (c.error) {
                result.error = std::move(c.error);
                result.error->line += base;
                result.events = stream.events();
                return result;
            }
            base += c.lines;
            release(k);
        }
        stream.finish();
        result.events = stream.events();
        return result;
    }

    std::string_view text_, file_;
    std::size_t chunk_bytes_, chunks_, window_;
    std::vector<std::unique_ptr<ChunkOut>> outs_; // one per parsing thread, the caller's last
    std::vector<Chunk> slots_;

    std::mutex m_;
    std::condition_variable cv_;
    std::vector<bool> ready_;    // by slot
    std::size_t next_claim_ = 0; // chunks claimed so far
    std::size_t delivered_ = 0;  // chunks delivered so far
    bool stop_ = false;
};

} // namespace

TraceResult read_trace_text_parallel(std::string_view text, std::string_view file_name,
                                     Symbols& syms, Analysis& sink,
                                     const ParallelReadOptions& options) {
    if (options.threads <= 1)
        return read_trace_text(text, file_name, syms, sink);
    return ParallelReader(text, file_name, options.threads, options.chunk_bytes).run(syms, sink);
}

} // namespace sfg
