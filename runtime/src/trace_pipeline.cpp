// read_trace_file_pipelined (trace.hpp): the reader on a second thread, handing batches of
// events to the caller's thread, which runs the analyses. Nothing is shared but the queue: the
// reader interns into its own copy of the Symbols, and each batch carries the names interned since
// the previous one, which the caller's thread appends to the caller's Symbols (the same names in
// the same order, hence the same ids) before delivering the batch.
#include "sfg/runtime/trace.hpp"

#include <array>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace sfg {

namespace {

constexpr std::size_t batch_events = 4096; // 160 KB of events: fits L2 on both sides
constexpr std::size_t max_ready = 8;       // the reader runs at most this far ahead

SymbolTable Symbols::*const tables[] = {&Symbols::threads,  &Symbols::vars,
                                        &Symbols::locks,    &Symbols::volatiles,
                                        &Symbols::barriers, &Symbols::locations};
constexpr std::size_t table_count = std::size(tables);

struct Batch {
    std::vector<Event> events;
    std::array<std::vector<std::string>, table_count> names; // new since the previous batch
    std::vector<std::vector<ThreadId>> sets;                 // new Symbols::thread_sets
    void clear() {
        events.clear();
        for (auto& n : names)
            n.clear();
        sets.clear();
    }
};

// Ready batches in order, and spent ones for reuse (no allocation per batch once warm).
class Channel {
public:
    // Reader side: a batch to fill, or null when the consumer has stopped.
    std::unique_ptr<Batch> take_free() {
        std::unique_lock lock(m_);
        if (stopped_)
            return nullptr;
        if (free_.empty())
            return std::make_unique<Batch>();
        auto b = std::move(free_.back());
        free_.pop_back();
        return b;
    }
    // Reader side: blocks while max_ready batches wait; false when the consumer has stopped.
    bool push(std::unique_ptr<Batch> b) {
        std::unique_lock lock(m_);
        not_full_.wait(lock, [&] { return ready_.size() < max_ready || stopped_; });
        if (stopped_)
            return false;
        ready_.push_back(std::move(b));
        not_empty_.notify_one();
        return true;
    }
    void close() {
        std::lock_guard lock(m_);
        closed_ = true;
        not_empty_.notify_one();
    }
    // Consumer side: the next batch, or null once the reader has closed and all were taken.
    std::unique_ptr<Batch> pop() {
        std::unique_lock lock(m_);
        not_empty_.wait(lock, [&] { return !ready_.empty() || closed_; });
        if (ready_.empty())
            return nullptr;
        auto b = std::move(ready_.front());
        ready_.pop_front();
        not_full_.notify_one();
        return b;
    }
    void recycle(std::unique_ptr<Batch> b) {
        b->clear();
        std::lock_guard lock(m_);
        free_.push_back(std::move(b));
    }
    // Consumer side, on an exception: the reader stops at its next batch.
    void stop() {
        std::lock_guard lock(m_);
        stopped_ = true;
        not_full_.notify_one();
    }

private:
    std::mutex m_;
    std::condition_variable not_full_, not_empty_;
    std::deque<std::unique_ptr<Batch>> ready_;
    std::vector<std::unique_ptr<Batch>> free_;
    bool closed_ = false, stopped_ = false;
};

// The reader's sink: events into batches, with the names interned since the last batch.
class Batcher : public Analysis {
public:
    Batcher(const Symbols& syms, Channel& ch) : syms_(syms), ch_(ch), cur_(ch.take_free()) {
        for (std::size_t k = 0; k < table_count; ++k)
            published_[k] = (syms.*tables[k]).size();
        published_sets_ = syms.thread_sets.size();
    }
    void on_event(const Event& e, const Symbols&) override {
        if (!cur_)
            return; // the consumer stopped: read on, deliver nothing
        cur_->events.push_back(e);
        if (cur_->events.size() == batch_events)
            flush();
    }
    void flush() {
        if (!cur_)
            return;
        for (std::size_t k = 0; k < table_count; ++k) {
            const SymbolTable& t = syms_.*tables[k];
            for (; published_[k] < t.size(); ++published_[k])
                cur_->names[k].push_back(t.name(published_[k]));
        }
        for (; published_sets_ < syms_.thread_sets.size(); ++published_sets_)
            cur_->sets.push_back(syms_.thread_sets[published_sets_]);
        cur_ = ch_.push(std::move(cur_)) ? ch_.take_free() : nullptr;
    }

private:
    const Symbols& syms_; // the reader's copy
    Channel& ch_;
    std::unique_ptr<Batch> cur_;
    std::array<std::uint32_t, table_count> published_{};
    std::size_t published_sets_ = 0;
};

} // namespace

TraceResult read_trace_file_pipelined(const std::string& path, Symbols& syms, Analysis& sink) {
    Channel ch;
    TraceResult result;
    std::exception_ptr failed;
    std::thread reader([&ch, &result, &failed, path, own = syms]() mutable {
        try {
            Batcher batcher(own, ch);
            result = read_trace_file(path, own, batcher);
            batcher.flush();
        } catch (...) {
            failed = std::current_exception();
        }
        ch.close();
    });
    try {
        while (std::unique_ptr<Batch> b = ch.pop()) {
            for (std::size_t k = 0; k < table_count; ++k)
                for (const std::string& name : b->names[k])
                    (syms.*tables[k]).intern(name);
            for (auto& set : b->sets)
                syms.thread_sets.push_back(std::move(set));
            for (const Event& e : b->events)
                sink.on_event(e, syms);
            ch.recycle(std::move(b));
        }
    } catch (...) {
        ch.stop();
        reader.join();
        throw;
    }
    reader.join(); // happens-before: `result` and `failed` are the reader's
    if (failed)
        std::rethrow_exception(failed);
    return result;
}

} // namespace sfg
