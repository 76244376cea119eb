// Checking the events of a session whose policy lets findings wait (log, collect;
// docs/enforcers.md, "How it works"): checking merges the threads' rings (event_queue.cpp) by
// ticket, which is the linearization, and runs the analyses on batches of events, so that their
// cost is not paid inside the program's critical sections. The session's checker thread does
// it, or a program thread whose ring fills, with a second group of analyses run at the same
// time by a thread waiting for room.
#include "event_queue.hpp"

#include "event_lock.hpp"
#include "global_state.hpp"
#include "session_impl.hpp"

#include "sfg/runtime/live/control.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#endif

namespace sfg::detail {

namespace {

// The checker takes at most this many events at once: the analyses run on a batch under
// EventLock, which the program's slow paths (a new object, a fork) wait for.
constexpr std::size_t batch_size = 4096;

} // namespace

void EventQueue::open(SessionImpl* s) {
    HiddenScope hidden;
    // Not under check_lock_, which is taken before EventLock (held here): no thread checks
    // until serial_ names this session (close() left the checking side as new).
    session_ = s;
    std::lock_guard l(lock_);
    checked_ = final_ = 0;
    stopping_ = hurry_ = false;
    ticket_.store(tag(s->serial) << tag_shift | 1, std::memory_order_relaxed);
    serial_.store(s->serial, std::memory_order_release);
    // Under sfg::explore one thread of the program runs at a time and the runs are short: its
    // threads check their rings themselves, and close() the rest, with no thread created per run
    // (docs/explore.md, "How it works").
    if (control())
        return;
    try {
        checker_ = std::thread([this, s] { run(s); });
#if defined(__linux__) && defined(__GLIBC__)
        // As top -H, gdb and perf show it; named here, so before the session is used.
        pthread_setname_np(checker_.native_handle(), "sfg-checker");
#endif
    } catch (...) {
        ticket_.store(0, std::memory_order_relaxed);
        serial_.store(0, std::memory_order_relaxed);
        throw;
    }
}

void EventQueue::close() {
    {
        HiddenScope hidden;
        std::lock_guard l(lock_);
        // The tickets below final_ have been taken: their entries are being written.
        final_ = ticket_.exchange(0, std::memory_order_relaxed) & ticket_mask;
        serial_.store(0, std::memory_order_relaxed);
        stopping_ = hurry_ = true;
        work_.notify_one();
        room_.notify_all();
    }
    if (checker_.joinable())
        checker_.join(); // it checks what is left first
    HiddenScope hidden;
    {
        std::lock_guard c(check_lock_); // a thread helping has finished
        checking_.clear();
        checking_version_ = ~std::uint64_t{0};
        last_ = 0;
        next_ = 1;
        session_ = nullptr;
    }
    std::lock_guard l(rings_lock_);
    rings_.clear();
}

// Takes the entries up to the next ticket's, ticket after ticket, into the batch. False when
// the next ticket is not in a ring yet.
bool EventQueue::gather(std::vector<QueuedEvent>& batch) {
    // Whether ring r's first ticketed entry is the next ticket's (scanning it once).
    auto has_next = [&](EventRing& r) {
        if (r.found_ticket == 0) {
            const std::uint64_t tail = r.tail.load(std::memory_order_acquire);
            for (; r.scanned < tail; ++r.scanned)
                if (const std::uint64_t t = r.entries[r.scanned % EventRing::capacity].ticket) {
                    r.found_ticket = t;
                    break;
                }
        }
        return r.found_ticket == next_;
    };
    while (batch.size() < batch_size) {
        // A thread often takes several tickets in a row: its ring first.
        if (last_ >= checking_.size() || !has_next(*checking_[last_])) {
            last_ = checking_.size();
            for (std::size_t i = 0; i < checking_.size(); ++i)
                if (has_next(*checking_[i])) {
                    last_ = i;
                    break;
                }
            if (last_ == checking_.size())
                return !batch.empty();
        }
        EventRing& r = *checking_[last_];
        for (std::uint64_t i = r.head.load(std::memory_order_relaxed); i <= r.scanned; ++i) {
            const RingEntry& x = r.entries[i % EventRing::capacity];
            if (!x.marker)
                batch.push_back(
                    {x.file, x.line, x.column, x.target, r.thread, x.op, x.has_value, x.value});
        }
        ++r.scanned;
        r.found_ticket = 0;
        r.head.store(r.scanned, std::memory_order_release);
        ++next_;
    }
    return true;
}

bool EventQueue::check_some(SessionImpl* s) {
    if (const std::uint64_t v = rings_version_.load(std::memory_order_acquire);
        v != checking_version_) {
        std::lock_guard l(rings_lock_);
        checking_ = rings_;
        checking_version_ = rings_version_.load(std::memory_order_relaxed);
        last_ = 0;
    }
    if (batch_.capacity() == 0)
        batch_.reserve(batch_size + EventRing::capacity);
    if (!gather(batch_)) {
        // Nothing new: the last batch's second group is finished now.
        if (job_.load(std::memory_order_relaxed) == job_none)
            return false;
        EventLock lock;
        return finish_second_group();
    }
    std::atomic_thread_fence(std::memory_order_seq_cst); // the heads stored, then:
    if (room_waiters_.load(std::memory_order_relaxed) > 0) {
        std::lock_guard l(lock_);
        room_.notify_all();
    }
    {
        EventLock lock;
        s->check(batch_);
        if (s->split) {
            offer_second_group(*s);
        } else {
            s->collect();
            s->fresh.clear(); // nothing is thrown under log and collect
        }
    }
    batch_.clear();
    if (!s->split)
        mark_checked(next_ - 1);
    return true;
}

void EventQueue::offer_second_group(SessionImpl& s) {
    // The first group runs here; meanwhile the last batch's second group may be running on a
    // thread waiting for room, over the other buffer. That one is finished next, and this
    // batch's second group is offered to work() until the next batch (or a look that finds
    // none) finishes it. (The first group runs over the buffer rather than as the stream
    // delivers: measured, the two loops apart cost less than one loop doing both.)
    std::exception_ptr error;
    try {
        s.buffered.replay(s.buffered.fill, s.first, s.syms);
    } catch (...) {
        error = std::current_exception();
    }
    try {
        finish_second_group();
    } catch (...) {
        if (!error)
            error = std::current_exception();
    }
    if (error) { // (only std::bad_alloc): the batch counts as checked, no one waits for it
        s.buffered.clear(s.buffered.fill);
        mark_checked(next_ - 1);
        std::rethrow_exception(error);
    }
    job_session_ = &s;
    job_buffer_ = s.buffered.fill;
    job_events_ = s.stream->events();
    job_tickets_ = next_ - 1;
    s.buffered.fill ^= 1;
    EventBuffer::publish();
    job_.store(job_offered, std::memory_order_release);
}

bool EventQueue::finish_second_group() {
    int offered = job_offered;
    if (job_.load(std::memory_order_relaxed) == job_none)
        return false;
    if (job_.compare_exchange_strong(offered, job_taken, std::memory_order_acquire))
        run_second_group();
    for (int spins = 0; job_.load(std::memory_order_acquire) != job_done; ++spins)
        if (spins < 64)
            cpu_relax();
        else
            std::this_thread::yield();
    SessionImpl& s = *job_session_;
    s.buffered.clear(job_buffer_);
    job_.store(job_none, std::memory_order_relaxed);
    if (std::exception_ptr e = std::exchange(job_error_, nullptr)) {
        mark_checked(job_tickets_);
        std::rethrow_exception(e);
    }
    // Only the findings about its events: the first group has seen the next batch already.
    s.collect(job_events_);
    s.fresh.clear(); // nothing is thrown under log and collect
    mark_checked(job_tickets_);
    return true;
}

void EventQueue::mark_checked(std::uint64_t ticket) {
    std::lock_guard l(lock_);
    checked_ = ticket;
    room_.notify_all();
}

void EventQueue::run_second_group() {
    // Without EventLock, unless the thread checking runs it: names are not added meanwhile.
    try {
        std::shared_lock names(job_session_->names_lock);
        job_session_->buffered.replay(job_buffer_, job_session_->second, job_session_->syms);
    } catch (...) {
        job_error_ = std::current_exception();
    }
    job_.store(job_done, std::memory_order_release);
}

bool EventQueue::work() {
    int offered = job_offered;
    if (job_.load(std::memory_order_relaxed) != job_offered ||
        !job_.compare_exchange_strong(offered, job_taken, std::memory_order_acquire))
        return false;
    HiddenScope hidden;
    run_second_group();
    return true;
}

bool EventQueue::help(std::uint64_t serial) {
    // Checking takes EventLock, and no object lock may be held then.
    if (checking_forbidden > 0)
        return false;
    HiddenScope hidden;
    std::unique_lock c(check_lock_, std::try_to_lock);
    // The session may have closed: then its checker thread checks the rest.
    if (!c.owns_lock() || serial_.load(std::memory_order_acquire) != serial)
        return false;
    return check_some(session_);
}

void EventQueue::run(SessionImpl* s) {
    HiddenScope hidden;
    for (;;) {
        std::uint64_t next = 0;
        {
            std::lock_guard c(check_lock_);
            if (check_some(s))
                continue;
            // Nothing to check now. The rings of threads that have ended, once empty, go.
            const auto gone = [](const std::shared_ptr<EventRing>& r) {
                return r->abandoned.load(std::memory_order_acquire) &&
                       r->head.load(std::memory_order_relaxed) ==
                           r->tail.load(std::memory_order_acquire);
            };
            if (std::any_of(checking_.begin(), checking_.end(), gone)) {
                std::lock_guard l(rings_lock_);
                rings_.erase(std::remove_if(rings_.begin(), rings_.end(), gone), rings_.end());
                checking_ = rings_;
                checking_version_ = rings_version_.load(std::memory_order_relaxed);
                last_ = 0;
            }
            next = next_;
        }
        std::unique_lock l(lock_);
        if (room_waiters_.load(std::memory_order_relaxed) > 0)
            room_.notify_all(); // gather may have taken markers only
        if (stopping_ && next >= final_)
            return; // every event of the session is checked
        const std::uint64_t v = ticket_.load(std::memory_order_relaxed);
        if ((stopping_ || v >> tag_shift == tag(s->serial)) &&
            next < (stopping_ ? final_ : v & ticket_mask)) {
            // The next ticket is taken, its entry being written: soon there.
            l.unlock();
            std::this_thread::yield();
            continue;
        }
        if (!hurry_) {
            idle_.store(true, std::memory_order_relaxed);
            work_.wait_for(l, idle_wait, [&] { return hurry_ || stopping_; });
            idle_.store(false, std::memory_order_relaxed);
        }
        hurry_ = false;
    }
}

void SessionImpl::check(const std::vector<QueuedEvent>& events) {
    // The last call sites seen, so that a loop's accesses skip the session's table.
    struct Site {
        const char* file = nullptr;
        std::uint32_t line = 0, column = 0;
        std::uint64_t serial = 0;
        ObjId id = no_object;
    };
    thread_local std::array<Site, 64> sites;
    static const std::string no_name; // push names the event's object if it is ill-formed
    for (const QueuedEvent& e : events) {
        ObjId loc = no_object;
        if (e.file) {
            Site& c =
                sites[(reinterpret_cast<std::uintptr_t>(e.file) >> 3 ^ e.line * 31u ^ e.column) %
                      sites.size()];
            if (c.file != e.file || c.line != e.line || c.column != e.column || c.serial != serial)
                c = {e.file, e.line, e.column, serial, location(e.file, e.line, e.column)};
            loc = c.id;
        }
        if (!deliver(e.thread, e.op, e.target, loc,
                     e.has_value ? syms.values.intern(e.value) : no_object)) [[unlikely]]
            push_failed(e.thread, e.op, e.target, no_name);
    }
}

} // namespace sfg::detail
