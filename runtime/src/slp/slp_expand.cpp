// From SLPs back to traces: expansion walks the grammar and hands the events to the
// well-formedness checker, as a trace reader does. (Compression reads a trace of any form, so it
// is in the registry layer: registry/compress_trace_file.cpp.)
//
// The walk follows the expansion index (slp_stream.hpp: a word a rule, rules of up to 16 events
// stored expanded). With two threads the walk and the well-formedness checks run a few batches
// of events ahead of the analyses (docs/compressed.md, "How an SLP is expanded").
#include "sfg/runtime/slp/slp_expand.hpp"
#include "sfg/runtime/slp/slp.hpp"
#include "sfg/runtime/trace/well_formed.hpp"
#include "slp_stream.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <tuple>

namespace sfg {

namespace {

using slp_stream::leaf_events;

// The grammar with its index (slp_stream.hpp), for the walk.
class Program {
public:
    Program(const SlpTerminal* terminals, const SlpSymbol* symbols, const std::uint64_t* rule_start,
            std::size_t rules, const std::uint64_t* refs, const std::uint32_t* leaves)
        : terminals_(terminals), symbols_(symbols), rule_start_(rule_start), rules_(rules),
          refs_(refs), leaves_(leaves) {}

    const SlpTerminal* terminals() const { return terminals_; }
    const std::uint64_t* refs() const { return refs_; }
    const std::uint32_t* leaves() const { return leaves_; }
    std::size_t rules() const { return rules_; }
    // The symbols of a rule that is not a leaf.
    std::pair<const SlpSymbol*, const SlpSymbol*> body(std::uint32_t rule,
                                                       std::uint64_t ref) const {
        const SlpSymbol* begin = symbols_ + (ref & slp_stream::offset_mask);
        const std::uint64_t count = ref >> 40;
        return {begin, begin + (count < slp_stream::max_count
                                    ? count
                                    : rule_start_[rule + 1] - rule_start_[rule])};
    }

private:
    const SlpTerminal* terminals_;
    const SlpSymbol* symbols_;
    const std::uint64_t* rule_start_;
    std::size_t rules_;
    const std::uint64_t* refs_;
    const std::uint32_t* leaves_;
};

// The walk: the trace's terminal ids in order, a buffer at a time.
class Walker {
public:
    explicit Walker(const Program& program) : program_(program) {
        if (program.rules() > 0)
            top_ = {&start_symbol, &start_symbol + 1};
    }
    // Writes the next terminal ids to `out`: at least `want` unless the trace ends first, fewer
    // than want + leaf_events (`out` must have room for that many); none at the end.
    std::size_t fill(std::uint32_t* const out, std::size_t want) {
        const std::uint64_t* const refs = program_.refs();
        const std::uint32_t* const leaves = program_.leaves();
        const SlpSymbol* at = top_.at;
        const SlpSymbol* end = top_.end;
        std::uint32_t* o = out;
        std::uint32_t* const stop = out + want;
        while (o < stop) {
            if (at == end) {
                if (stack_.empty())
                    break;
                at = stack_.back().at;
                end = stack_.back().end;
                stack_.pop_back();
                continue;
            }
            const SlpSymbol s = *at++;
            if (!slp_is_rule(s)) {
                *o++ = s;
                continue;
            }
            const std::uint64_t ref = refs[slp_index(s)];
            if (ref & slp_stream::leaf_bit) {
                std::memcpy(o, leaves + (ref & slp_stream::leaf_offset_mask),
                            leaf_events * sizeof(std::uint32_t));
                o += (ref >> 56) & 0x7f;
                continue;
            }
            if (at != end) // a rule's last symbol needs no frame to come back to
                stack_.push_back({at, end});
            std::tie(at, end) = program_.body(slp_index(s), ref);
        }
        top_ = {at, end};
        return static_cast<std::size_t>(o - out);
    }

private:
    struct Frame {
        const SlpSymbol* at = nullptr;
        const SlpSymbol* end = nullptr;
    };
    static constexpr SlpSymbol start_symbol = slp_rule_bit | 0; // rule 0, the whole trace
    const Program& program_;
    Frame top_;
    std::vector<Frame> stack_; // at most one frame a rule: rules refer only to later rules
};

// The locations of an Slp's events, in event order.
class SlpLocations {
public:
    explicit SlpLocations(const Slp& slp)
        : at_(slp.locations.data()), end_(slp.locations.data() + slp.locations.size()) {}
    ObjId at(std::uint64_t number) {
        return at_ != end_ && at_->first == number ? (at_++)->second : no_object;
    }

private:
    const std::pair<std::uint64_t, ObjId>* at_;
    const std::pair<std::uint64_t, ObjId>* end_;
};

// The walk's terminals as events, through the well-formedness checker, into a sink.
template <class Locations>
class Producer {
public:
    enum class State { more, done, failed };

    Producer(const Program& program, Locations locations, const Symbols& syms, Analysis& sink)
        : program_(program), walker_(program), locations_(locations), stream_(syms, sink) {}

    // Hands the sink the next `events` explicit events (and the implicit ones they imply):
    // `more`; or fewer, the trace ending (then the implicit events of its end): `done`; or up to
    // an ill-formed event: `failed`, error() says why.
    State run(std::uint64_t events) {
        const SlpTerminal* const terminals = program_.terminals();
        while (events > 0) {
            if (pos_ == count_) {
                pos_ = 0;
                count_ = walker_.fill(ids_, walk_ids);
                if (count_ == 0) {
                    stream_.finish();
                    return State::done;
                }
            }
            const std::size_t n =
                static_cast<std::size_t>(std::min<std::uint64_t>(count_ - pos_, events));
            const std::uint32_t* const ids = ids_ + pos_;
            for (std::size_t i = 0; i < n; ++i) {
                const SlpTerminal& t = terminals[ids[i]];
                const ObjId location = locations_.at(++number_);
                if (!stream_.push(t.thread, t.op, t.target, location, 0, t.value_id)) [[unlikely]] {
                    error_ = fmt::format("event {}: {}", number_, stream_.error());
                    return State::failed;
                }
            }
            pos_ += n;
            events -= n;
        }
        return State::more;
    }
    const std::string& error() const { return error_; }
    std::uint64_t events() const { return stream_.events(); }

private:
    static constexpr std::size_t walk_ids = 1024; // a buffer in L1
    const Program& program_;
    Walker walker_;
    Locations locations_;
    WellFormedStream stream_;
    std::uint32_t ids_[walk_ids + leaf_events];
    std::size_t pos_ = 0, count_ = 0;
    std::uint64_t number_ = 0;
    std::string error_;
};

template <class Locations>
TraceResult expand_serial(const Program& program, Locations locations, std::string_view file,
                          const Symbols& syms, Analysis& sink) {
    auto producer = std::make_unique<Producer<Locations>>(program, locations, syms, sink);
    TraceResult r;
    if (producer->run(~std::uint64_t{0}) == Producer<Locations>::State::failed)
        r.error = TraceError{std::string(file), 0, 0, producer->error()};
    r.events = producer->events();
    return r;
}

// An event in a batch: half an Event's bytes (the batch crosses from one core to the other).
// Its number is implied: an explicit event's is one more than the one before it, an implicit
// event's that of the explicit event it precedes (or of the end, event.hpp); SLPs have no lines.
struct PackedEvent {
    ThreadId thread;
    ObjId target;
    ObjId location;
    Op op;
    bool implicit;
    bool has_value; // its value id is the batch's next (EventBuffer::values)
};
static_assert(sizeof(PackedEvent) == 16 && offsetof(PackedEvent, op) == 12 &&
              offsetof(PackedEvent, implicit) == 13 && offsetof(PackedEvent, has_value) == 14 &&
              std::endian::native == std::endian::little);

// A growable array of packed events appended through a bare pointer: a vector's push_back is a
// call here, and a tenth of an event's cost.
class EventBuffer {
public:
    void clear() {
        next_ = data_.get();
        values_.clear();
    }
    void push(const Event& e) {
        if (next_ == end_) [[unlikely]]
            grow();
        // The slot was last read by the other thread: ask for its lines well before writing.
        __builtin_prefetch(next_ + 16, 1);
        // Field by field into two words: `e` was just stored field by field (WellFormedStream),
        // and a wider load across those stores would wait for them to reach the cache.
        const std::uint64_t lo = e.thread | std::uint64_t{e.target} << 32;
        const std::uint64_t hi = e.location | std::uint64_t{static_cast<std::uint8_t>(e.op)} << 32 |
                                 std::uint64_t{e.implicit} << 40 |
                                 std::uint64_t{e.has_value()} << 48;
        if (e.has_value()) [[unlikely]]
            values_.push_back(e.value_id);
        std::memcpy(reinterpret_cast<char*>(next_), &lo, sizeof lo);
        std::memcpy(reinterpret_cast<char*>(next_) + sizeof lo, &hi, sizeof hi);
        ++next_;
    }
    const PackedEvent* begin() const { return data_.get(); }
    const PackedEvent* end() const { return next_; }
    // The value ids of the events with has_value, in order (vr/vw, docs/traces.md).
    const ObjId* values() const { return values_.data(); }

private:
    void grow() {
        const std::size_t size = static_cast<std::size_t>(next_ - data_.get());
        const std::size_t cap = std::max<std::size_t>(2 * size, 1024);
        auto bigger = std::make_unique_for_overwrite<PackedEvent[]>(cap);
        std::copy(data_.get(), next_, bigger.get());
        data_ = std::move(bigger);
        next_ = data_.get() + size;
        end_ = data_.get() + cap;
    }
    std::unique_ptr<PackedEvent[]> data_;
    PackedEvent* next_ = nullptr;
    PackedEvent* end_ = nullptr;
    std::vector<ObjId> values_;
};

// Waits awake for `ready` a while (about a batch's time), yielding now and then: a thread put to
// sleep takes tens of microseconds and more to wake (much more on a virtual machine whose idle
// core is halted), and the batches pass every few tens of microseconds. Whether ready.
template <class Ready>
bool spin_until(Ready ready) {
    for (int i = 0; i < 4096; ++i) {
        if (ready())
            return true;
        if (i % 64 == 63)
            std::this_thread::yield(); // the other thread may be waiting for this core
        else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
    return ready();
}

// Two threads: batches of checked events, produced in order by whichever thread is free (the
// worker, or the caller's while it waits for the next batch), delivered to the sink in order by
// the caller's. Scheduling as read_trace_text_parallel's (trace_parallel.cpp), with one producer
// at a time: the walk is sequential.
template <class Locations>
class Pipeline {
public:
    Pipeline(const Program& program, Locations locations, const Symbols& syms,
             std::size_t batch_events)
        : producer_(program, locations, syms, batches_),
          batch_events_(std::max<std::size_t>(batch_events, 1)), slots_(window),
          ready_(window, false) {}

    TraceResult run(std::string_view file, const Symbols& syms, Analysis& sink) {
        std::jthread worker;
        struct Stop { // on every way out: the worker stops at its next claim, then is joined
            Pipeline& p;
            std::jthread& worker;
            ~Stop() {
                {
                    std::lock_guard lock(p.m_);
                    p.stop_ = true;
                }
                p.cv_.notify_all();
                if (worker.joinable())
                    worker.join();
            }
        } stop{*this, worker};
        try {
            worker = std::jthread([this] { work(); });
        } catch (const std::system_error&) {
            // No thread to be had: this one produces every batch.
        }
        TraceResult result;
        std::uint64_t number = 0; // explicit events delivered
        Event e;
        for (std::size_t k = 0;; ++k) {
            Batch& b = take(k);
            const ObjId* value = b.events.values();
            for (const PackedEvent& p : b.events) {
                e.number = p.implicit ? number + 1 : ++number;
                e.value_id = p.has_value ? *value++ : no_object;
                e.thread = p.thread;
                e.op = p.op;
                e.implicit = p.implicit;
                e.target = p.target;
                e.location = p.location;
                sink.on_event(e, syms);
            }
            if (b.failed)
                std::rethrow_exception(b.failed);
            if (b.last) {
                result.events = b.total;
                if (b.error)
                    result.error = TraceError{std::string(file), 0, 0, std::move(*b.error)};
                return result;
            }
            release(k);
        }
    }

private:
    static constexpr std::size_t window = 4;
    struct Batch {
        EventBuffer events;
        bool last = false;       // the trace's end, an error or an exception
        std::uint64_t total = 0; // explicit events delivered up to the batch's end
        std::optional<std::string> error;
        std::exception_ptr failed;
    };
    // The checker's sink: the batch being produced.
    class Batches : public Analysis {
    public:
        void on_event(const Event& e, const Symbols&) override { out->push(e); }
        EventBuffer* out = nullptr;
    };

    // Whether the next batch may be produced: none is being produced, the trace has not ended,
    // and its slot is free.
    bool claimable() const { return !producing_ && !ended_ && next_ < delivered_ + window; }

    void produce(std::size_t k) {
        Batch& b = slots_[k % window];
        b.events.clear();
        b.last = false;
        b.error.reset();
        b.failed = nullptr;
        batches_.out = &b.events;
        try {
            switch (producer_.run(batch_events_)) {
            case Producer<Locations>::State::more:
                break;
            case Producer<Locations>::State::done:
                b.last = true;
                break;
            case Producer<Locations>::State::failed:
                b.last = true;
                b.error = producer_.error();
                break;
            }
        } catch (...) {
            b.failed = std::current_exception();
            b.last = true;
        }
        b.total = producer_.events();
    }

    // With the lock held.
    void set_producing(bool on) {
        producing_ = on;
        producing_flag_.store(on, std::memory_order_release);
    }

    // Called with the lock held, after produce(k).
    void produced(std::size_t k) {
        ready_[k % window] = true;
        produced_count_.store(k + 1, std::memory_order_release);
        set_producing(false);
        if (slots_[k % window].last)
            ended_ = true;
    }

    void work() {
        for (;;) {
            std::size_t k;
            {
                std::unique_lock lock(m_);
                while (!(stop_ || ended_ || claimable())) {
                    // The window is full, or the caller's thread is making a batch: either is
                    // over within a batch's time. Awake, this thread claims the next batch as
                    // soon as it may (asleep, it would wake too late, and the caller's thread
                    // would make every batch itself).
                    const std::size_t next = next_;
                    lock.unlock();
                    spin_until([&] {
                        return delivered_count_.load(std::memory_order_acquire) + window > next &&
                               !producing_flag_.load(std::memory_order_acquire);
                    });
                    lock.lock();
                    if (!(stop_ || ended_ || claimable()))
                        cv_.wait(lock);
                }
                if (stop_ || ended_)
                    return;
                k = next_++;
                set_producing(true);
            }
            produce(k);
            {
                std::lock_guard lock(m_);
                produced(k);
            }
            cv_.notify_all();
        }
    }

    // Batch k, produced: waits for it, producing it meanwhile when the worker is not.
    Batch& take(std::size_t k) {
        std::unique_lock lock(m_);
        while (!ready_[k % window]) {
            if (claimable()) {
                const std::size_t j = next_++;
                set_producing(true);
                lock.unlock();
                produce(j);
                lock.lock();
                produced(j);
                cv_.notify_all();
                continue;
            }
            // The worker is producing it: it comes within a batch's time.
            lock.unlock();
            spin_until([&] { return produced_count_.load(std::memory_order_acquire) > k; });
            lock.lock();
            if (!ready_[k % window])
                cv_.wait(lock);
        }
        return slots_[k % window];
    }

    void release(std::size_t k) {
        {
            std::lock_guard lock(m_);
            ready_[k % window] = false;
            delivered_ = k + 1;
            delivered_count_.store(k + 1, std::memory_order_release);
        }
        cv_.notify_all();
    }

    Batches batches_;
    Producer<Locations> producer_; // used by one thread at a time: the one that set producing_
    std::size_t batch_events_;
    std::vector<Batch> slots_;

    std::mutex m_;
    std::condition_variable cv_;
    std::vector<bool> ready_;   // by slot
    std::size_t next_ = 0;      // batches claimed so far
    std::size_t delivered_ = 0; // batches delivered so far
    bool producing_ = false;
    bool ended_ = false; // the last batch is produced
    bool stop_ = false;
    // next_ once produced, delivered_, producing_: for waiting awake, without the lock.
    std::atomic<std::size_t> produced_count_{0}, delivered_count_{0};
    std::atomic<bool> producing_flag_{false};
};

template <class Locations>
TraceResult expand_with(const Program& program, Locations locations, std::string_view file,
                        const Symbols& syms, Analysis& sink, const SlpExpandOptions& options) {
    if (options.threads <= 1)
        return expand_serial(program, locations, file, syms, sink);
    auto pipeline =
        std::make_unique<Pipeline<Locations>>(program, locations, syms, options.batch_events);
    return pipeline->run(file, syms, sink);
}

} // namespace

TraceResult expand_slp(const SlpImage& image, std::string_view file_name, const Symbols& syms,
                       Analysis& sink, const SlpExpandOptions& options) {
    const Program program(image.terminals.data(), image.symbols.data(), image.rule_start.data(),
                          image.rules(), image.refs.data(), image.leaves.data());
    return expand_with(program, slp_stream::Locations(image), file_name, syms, sink, options);
}

TraceResult expand_slp(const Slp& slp, std::string_view file_name, const Symbols& syms,
                       Analysis& sink, const SlpExpandOptions& options) {
    // The rules in one array and their index, as an image has them.
    std::vector<SlpSymbol> symbols;
    symbols.reserve(slp.size());
    std::vector<std::uint64_t> start;
    start.reserve(slp.rules.size() + 1);
    for (const auto& rule : slp.rules) {
        start.push_back(symbols.size());
        symbols.insert(symbols.end(), rule.begin(), rule.end());
    }
    start.push_back(symbols.size());
    std::vector<std::uint64_t> lengths(slp.rules.size()), refs;
    std::vector<std::uint32_t> leaves;
    if (auto r = slp_stream::index_rules(symbols.data(), start.data(), slp.rules.size(),
                                         lengths.data(), refs, leaves))
        throw std::invalid_argument(
            fmt::format("expand_slp: rule {} generates 2^62 events or more", *r));
    const Program program(slp.terminals.data(), symbols.data(), start.data(), slp.rules.size(),
                          refs.data(), leaves.data());
    return expand_with(program, SlpLocations(slp), file_name, syms, sink, options);
}

TraceResult expand_slp(const Slp& slp, std::string_view file_name, const Symbols& syms,
                       Analysis& sink) {
    return expand_slp(slp, file_name, syms, sink, SlpExpandOptions{});
}

TraceResult read_slp_trace(std::string_view bytes, std::string_view file_name, Symbols& syms,
                           Analysis& sink, const SlpExpandOptions& options) {
    SlpImage image;
    if (auto e = read_slp_image(bytes, file_name, syms, image, options.threads)) {
        TraceResult r;
        r.error = std::move(e);
        return r;
    }
    return expand_slp(image, file_name, syms, sink, options);
}

TraceResult read_slp_trace(std::string_view bytes, std::string_view file_name, Symbols& syms,
                           Analysis& sink) {
    return read_slp_trace(bytes, file_name, syms, sink, SlpExpandOptions{});
}

} // namespace sfg
