// Appending the events of a session whose policy lets findings wait (log, collect;
// docs/enforcers.md, "How it works"): each of the program's threads appends its events to a
// ring of its own, the events that order threads numbered by one ticket counter, and a thread
// whose ring fills checks a batch itself (checker_thread.cpp) or waits for room. Also the
// waiting of a thread for the events so far to be checked.
#include "event_queue.hpp"

#include "event_lock.hpp"
#include "global_state.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace sfg::detail {

namespace {

// The calling thread's ring, read on every event: a trivial thread_local, so no TLS wrapper.
constinit thread_local EventRing* current_ring = nullptr;
// Its owner while the thread's thread_local objects live; it is marked abandoned when the
// thread ends, so that the checker lets it go once it has taken its entries, its accesses not
// placed yet placed first (a thread that is not an sfg::thread, such as the main thread, ends
// without flushing).
struct RingHolder {
    std::shared_ptr<EventRing> ring;
    ~RingHolder();
};
thread_local RingHolder this_ring;
// Set once this_ring is destroyed: a thread still using sfg then (a session closed by a static
// destructor, after the main thread's thread_local objects) gets rings kept until the process
// ends (reachable from here, so not leaks).
constinit thread_local bool ring_holder_gone = false;

EventRing* own(std::shared_ptr<EventRing> r) {
    current_ring = r.get();
    if (!ring_holder_gone) {
        this_ring.ring = std::move(r);
    } else {
        static auto* kept = new std::vector<std::shared_ptr<EventRing>>;
        static std::mutex kept_lock;
        HiddenScope hidden;
        std::lock_guard l(kept_lock);
        kept->push_back(std::move(r));
    }
    return current_ring;
}

// The accesses after a ring's last ticketed entry, which nothing will check any more (their
// session has closed), reported.
void report_dropped(const EventRing& r) {
    if (r.unticketed == 0)
        return;
    std::fputs(fmt::format("sfg: misuse: {} accesses to sfg::shared variables were queued in a "
                           "session that closed before they were checked\n",
                           r.unticketed)
                   .c_str(),
               stderr);
    std::fflush(stderr);
}

bool full(EventRing& r, std::uint64_t tail) {
    return tail - r.head_seen >= EventRing::capacity &&
           tail - (r.head_seen = r.head.load(std::memory_order_acquire)) >= EventRing::capacity;
}

} // namespace

EventQueue& queue() {
    static auto* q = new EventQueue; // never destroyed: threads may outlive static destructors
    return *q;
}

RingHolder::~RingHolder() {
    if (ring && ring->unticketed > 0)
        queue().append(ring->serial, nullptr, nullptr, nullptr, nullptr);
    if (ring)
        ring->abandoned.store(true, std::memory_order_release);
    ring_holder_gone = true;
    current_ring = nullptr;
}

EventRing* EventQueue::ring(std::uint64_t serial) {
    EventRing* r = current_ring;
    return r && r->serial == serial ? r : new_ring(serial);
}

EventRing* EventQueue::new_ring(std::uint64_t serial) {
    forget_stale_ring(serial);
    HiddenScope hidden;
    std::lock_guard l(rings_lock_);
    if (serial_.load(std::memory_order_acquire) != serial)
        return nullptr;
    auto r = std::make_shared<EventRing>(serial, this_thread.id);
    rings_.push_back(r);
    rings_version_.fetch_add(1, std::memory_order_release);
    return own(std::move(r));
}

void forget_stale_ring(std::uint64_t serial) {
    EventRing* r = current_ring;
    if (!r || r->serial == serial)
        return;
    report_dropped(*r);
    r->abandoned.store(true, std::memory_order_release);
    current_ring = nullptr;
    if (!ring_holder_gone)
        this_ring.ring.reset();
}

bool EventQueue::wait_for_room(EventRing& r, std::uint64_t limit) {
    const std::uint64_t tail = r.tail.load(std::memory_order_relaxed);
    for (int spins = 0;; ++spins) {
        r.head_seen = r.head.load(std::memory_order_acquire);
        if (tail - r.head_seen < limit)
            return true;
        // Rather than sleeping until the checker thread has made room: making it, or analysing
        // for the thread that does.
        if (help(r.serial) || work())
            continue;
        if (spins < 16) {
            std::this_thread::yield();
            continue;
        }
        HiddenScope hidden;
        std::unique_lock l(lock_);
        if (serial_.load(std::memory_order_relaxed) != r.serial)
            return false;
        hurry_ = true;
        work_.notify_one();
        // Announced, then the head read again: the checker frees room, then reads the count
        // (both sequentially consistent), so one of the two sees the other, and no wakeup is
        // lost (a lost one would hold this thread, and any critical section it is in, a whole
        // idle_wait).
        room_waiters_.fetch_add(1, std::memory_order_seq_cst);
        if (tail - r.head.load(std::memory_order_seq_cst) < limit) {
            room_waiters_.fetch_sub(1, std::memory_order_relaxed);
            continue;
        }
        room_.wait_for(l, idle_wait);
        room_waiters_.fetch_sub(1, std::memory_order_relaxed);
    }
}

std::uint64_t EventQueue::take_ticket(std::uint64_t serial, std::uint64_t count) {
    const std::uint64_t t = tag(serial);
    // The whole serial first: a thread of a session closed 2^24 sessions ago has its tag.
    if (serial_.load(std::memory_order_relaxed) != serial)
        return 0;
    std::uint64_t v = ticket_.load(std::memory_order_relaxed);
    do {
        if (v >> tag_shift != t)
            return 0;
        if ((v & ticket_mask) > ticket_mask - count) {
            std::fputs("sfg: more than 2^40 synchronization events in one session\n", stderr);
            std::abort();
        }
    } while (!ticket_.compare_exchange_weak(v, v + count, std::memory_order_relaxed));
    return v & ticket_mask;
}

void EventQueue::published(EventRing& r, std::uint64_t tail) {
    // Every 512 events, a filling ring is emptied by this thread checking a batch itself, which
    // costs no system call and no switch (on few cores, a woken checker thread would take this
    // one's core). Not inside the program's critical sections: the others would wait for it
    // (then the next event outside one does it). If another thread is checking, this one waits
    // for room here rather than filling its ring inside a critical section.
    if (tail < r.next_check)
        return;
    r.head_seen = r.head.load(std::memory_order_acquire);
    const std::uint64_t pending = tail - r.head_seen;
    if (pending < EventRing::capacity / 4) {
        r.next_check = tail + 512;
        return;
    }
    if (mutexes_held == 0 && checking_forbidden == 0) {
        r.next_check = tail + 512;
        // Reachable: the entries before the last ticketed one can all be taken.
        static_assert(pending_capacity < EventRing::capacity / 2);
        if (!help(r.serial) && pending >= EventRing::capacity / 2)
            wait_for_room(r, EventRing::capacity / 2);
        return;
    }
    r.next_check = tail + 1;
    if (pending >= EventRing::capacity / 2 && idle_.load(std::memory_order_relaxed)) {
        HiddenScope hidden;
        std::lock_guard l(lock_);
        work_.notify_one();
    }
}

bool EventQueue::push_access(std::uint64_t serial, const QueuedEvent& e) {
    EventRing* r = ring(serial);
    if (!r)
        return false;
    const std::uint64_t tail = r->tail.load(std::memory_order_relaxed);
    if (full(*r, tail) && !wait_for_room(*r, EventRing::capacity))
        return false;
    r->entries[tail % EventRing::capacity] = {e.file, e.line, e.column, e.target, e.op,
                                              false,  false,  0,        0};
    r->tail.store(tail + 1, std::memory_order_release);
    // A thread whose thread_local objects are gone has no later event to place its accesses.
    if (++r->unticketed >= pending_capacity || ring_holder_gone) {
        // If the session has closed meanwhile, the accesses are reported as dropped later.
        append(serial, nullptr, nullptr, nullptr, nullptr);
        return true;
    }
    published(*r, tail + 1);
    return true;
}

std::mutex& object_lock(const void* object) {
    static std::array<std::mutex, 64> locks;
    return locks[(reinterpret_cast<std::uintptr_t>(object) >> 4) % locks.size()];
}

AppendResult EventQueue::append(std::uint64_t serial, const QueuedEvent* e, void (*access)(void*),
                                void* context, const void* object, bool may_wait,
                                const std::int64_t* value, const rmw_write* then) {
    EventRing* r = ring(serial);
    if (!r)
        return AppendResult::refused;
    // The object's lock, taken and let go hidden from ThreadSanitizer, on every path.
    struct HiddenLock {
        std::mutex* m = nullptr;
        ~HiddenLock() {
            if (m) {
                HiddenScope hidden;
                --checking_forbidden;
                m->unlock();
            }
        }
    } locked;
    if (access) {
        // Accesses of one object take their tickets in the order they happen: a vw is ordered
        // before every vr that reads it.
        HiddenScope hidden;
        object_lock(object).lock();
        ++checking_forbidden;
        locked.m = &object_lock(object);
        access_atomically(e ? e->op : Op::read, object, access, context,
                          then ? then->wrote : nullptr);
    }
    const AppendResult refused =
        access ? AppendResult::refused_after_access : AppendResult::refused;
    // A read-modify-write that wrote is two entries with consecutive tickets, placed together
    // (docs/enforcers.md, "Atomics and condition variables").
    const std::uint64_t n = e && then && *then->wrote ? 2 : 1;
    // Read after the access: an access may append events of its own (a copy that touches
    // another sfg object), which come first.
    const std::uint64_t tail = r->tail.load(std::memory_order_relaxed);
    if (full(*r, tail + n - 1) && (!may_wait || !wait_for_room(*r, EventRing::capacity + 1 - n)))
        return refused; // closed, or (!may_wait) no room was reserved
    const std::uint64_t ticket = take_ticket(serial, n);
    if (ticket == 0)
        return refused;
    r->entries[tail % EventRing::capacity] =
        e ? RingEntry{e->file, e->line,          e->column, e->target,         e->op,
                      false,   value != nullptr, ticket,    value ? *value : 0}
          : RingEntry{nullptr, 0, 0, no_object, Op::read, true, false, ticket, 0};
    if (n == 2)
        r->entries[(tail + 1) % EventRing::capacity] = RingEntry{e->file,
                                                                 e->line,
                                                                 e->column,
                                                                 e->target,
                                                                 Op::vol_write,
                                                                 false,
                                                                 then->value != nullptr,
                                                                 ticket + 1,
                                                                 then->value ? *then->value : 0};
    r->tail.store(tail + n, std::memory_order_release);
    r->unticketed = 0;
    published(*r, tail + n);
    return AppendResult::appended;
}

void EventQueue::reserve(std::uint64_t serial) {
    if (EventRing* r = ring(serial); r && full(*r, r->tail.load(std::memory_order_relaxed)))
        wait_for_room(*r, EventRing::capacity);
}

void reserve_event() {
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial)
        queue().reserve(serial);
}

void flush_pending_of_this_thread() {
    EventRing* r = current_ring;
    if (!r || r->unticketed == 0)
        return;
    if (queue().append(r->serial, nullptr, nullptr, nullptr, nullptr) != AppendResult::appended)
        forget_stale_ring(0);
}

void EventQueue::drain(std::uint64_t serial) {
    if (this_thread.serial == serial) {
        if (EventRing* r = current_ring; r && r->serial == serial && r->unticketed > 0)
            append(serial, nullptr, nullptr, nullptr, nullptr); // places the caller's accesses
    }
    const std::uint64_t v = ticket_.load(std::memory_order_relaxed);
    if (v >> tag_shift != tag(serial))
        return;
    const std::uint64_t target = (v & ticket_mask) - 1; // every ticket taken so far
    HiddenScope hidden;
    const auto done = [&] {
        return serial_.load(std::memory_order_relaxed) != serial || checked_ >= target;
    };
    for (;;) {
        if (std::lock_guard l(lock_); done())
            return;
        if (help(serial) || work())
            continue; // this thread checked a batch, or analysed one
        std::unique_lock l(lock_);
        if (done())
            return;
        hurry_ = true;
        work_.notify_one();
        room_.wait(l);
    }
}

} // namespace sfg::detail
