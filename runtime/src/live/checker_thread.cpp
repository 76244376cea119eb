// Checking the events of a session whose policy lets findings wait (log, collect;
// docs/enforcers.md, "How it works"): each of the program's threads appends its events to a
// ring of its own, the events that order threads numbered by one ticket counter; checking
// merges the rings by ticket, which is the linearization, and runs the analyses on batches of
// events, so that their cost is not paid inside the program's critical sections. The session's
// checker thread does it, or a program thread whose ring fills, with a second group of
// analyses run at the same time by a thread waiting for room.
#include "session_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

#if defined(__linux__) && defined(__GLIBC__)
#include <pthread.h>
#endif

namespace sfg::detail {

namespace {

// The checker takes at most this many events at once: the analyses run on a batch under
// event_lock, which the program's slow paths (a new object, a fork) wait for.
constexpr std::size_t batch_size = 4096;
// With nothing to do, the checker sleeps this long, unless a ring fills or a drain waits.
constexpr std::chrono::milliseconds idle_wait{1};

// A session's tag in the ticket counter: 24 bits of its serial, never 0 (closed).
constexpr unsigned tag_shift = 40;
constexpr std::uint64_t ticket_mask = (std::uint64_t{1} << tag_shift) - 1;
std::uint64_t tag(std::uint64_t serial) {
    return serial % 0xffffff + 1;
}

// The calling thread's ring, read on every event: a trivial thread_local, so no TLS wrapper.
constinit thread_local event_ring* current_ring = nullptr;
// Its owner while the thread's thread_local objects live; it is marked abandoned when the
// thread ends, so that the checker lets it go once it has taken its entries, its accesses not
// placed yet placed first (a thread that is not an sfg::thread, such as the main thread, ends
// without flushing).
struct ring_holder {
    std::shared_ptr<event_ring> ring;
    ~ring_holder();
};
thread_local ring_holder this_ring;
// Set once this_ring is destroyed: a thread still using sfg then (a session closed by a static
// destructor, after the main thread's thread_local objects) gets rings kept until the process
// ends (reachable from here, so not leaks).
constinit thread_local bool ring_holder_gone = false;

event_ring* own(std::shared_ptr<event_ring> r) {
    current_ring = r.get();
    if (!ring_holder_gone) {
        this_ring.ring = std::move(r);
    } else {
        static auto* kept = new std::vector<std::shared_ptr<event_ring>>;
        static std::mutex kept_lock;
        hidden_scope hidden;
        std::lock_guard l(kept_lock);
        kept->push_back(std::move(r));
    }
    return current_ring;
}

// The accesses after a ring's last ticketed entry, which nothing will check any more (their
// session has closed), reported.
void report_dropped(const event_ring& r) {
    if (r.unticketed == 0)
        return;
    std::fputs(fmt::format("sfg: misuse: {} accesses to sfg::shared variables were queued in a "
                           "session that closed before they were checked\n",
                           r.unticketed)
                   .c_str(),
               stderr);
    std::fflush(stderr);
}

bool full(event_ring& r, std::uint64_t tail) {
    return tail - r.head_seen >= event_ring::capacity &&
           tail - (r.head_seen = r.head.load(std::memory_order_acquire)) >= event_ring::capacity;
}

} // namespace

event_queue& queue() {
    static auto* q = new event_queue; // never destroyed: threads may outlive static destructors
    return *q;
}

void event_queue::open(session_impl* s) {
    hidden_scope hidden;
    // Not under check_lock_, which is taken before event_lock (held here): no thread checks
    // until serial_ names this session (close() left the checking side as new).
    session_ = s;
    std::lock_guard l(lock_);
    checked_ = final_ = 0;
    stopping_ = hurry_ = false;
    ticket_.store(tag(s->serial) << tag_shift | 1, std::memory_order_relaxed);
    serial_.store(s->serial, std::memory_order_release);
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

ring_holder::~ring_holder() {
    if (ring && ring->unticketed > 0)
        queue().append(ring->serial, nullptr, nullptr, nullptr, nullptr);
    if (ring)
        ring->abandoned.store(true, std::memory_order_release);
    ring_holder_gone = true;
    current_ring = nullptr;
}

event_ring* event_queue::ring(std::uint64_t serial) {
    event_ring* r = current_ring;
    return r && r->serial == serial ? r : new_ring(serial);
}

event_ring* event_queue::new_ring(std::uint64_t serial) {
    forget_stale_ring(serial);
    hidden_scope hidden;
    std::lock_guard l(rings_lock_);
    if (serial_.load(std::memory_order_acquire) != serial)
        return nullptr;
    auto r = std::make_shared<event_ring>(serial, this_thread.id);
    rings_.push_back(r);
    rings_version_.fetch_add(1, std::memory_order_release);
    return own(std::move(r));
}

void forget_stale_ring(std::uint64_t serial) {
    event_ring* r = current_ring;
    if (!r || r->serial == serial)
        return;
    report_dropped(*r);
    r->abandoned.store(true, std::memory_order_release);
    current_ring = nullptr;
    if (!ring_holder_gone)
        this_ring.ring.reset();
}

bool event_queue::wait_for_room(event_ring& r, std::uint64_t limit) {
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
        hidden_scope hidden;
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

std::uint64_t event_queue::take_ticket(std::uint64_t serial) {
    const std::uint64_t t = tag(serial);
    // The whole serial first: a thread of a session closed 2^24 sessions ago has its tag.
    if (serial_.load(std::memory_order_relaxed) != serial)
        return 0;
    std::uint64_t v = ticket_.load(std::memory_order_relaxed);
    do {
        if (v >> tag_shift != t)
            return 0;
        if ((v & ticket_mask) == ticket_mask) {
            std::fputs("sfg: more than 2^40 synchronization events in one session\n", stderr);
            std::abort();
        }
    } while (!ticket_.compare_exchange_weak(v, v + 1, std::memory_order_relaxed));
    return v & ticket_mask;
}

void event_queue::published(event_ring& r, std::uint64_t tail) {
    // Every 512 events, a filling ring is emptied by this thread checking a batch itself, which
    // costs no system call and no switch (on few cores, a woken checker thread would take this
    // one's core). Not inside the program's critical sections: the others would wait for it
    // (then the next event outside one does it). If another thread is checking, this one waits
    // for room here rather than filling its ring inside a critical section.
    if (tail < r.next_check)
        return;
    r.head_seen = r.head.load(std::memory_order_acquire);
    const std::uint64_t pending = tail - r.head_seen;
    if (pending < event_ring::capacity / 4) {
        r.next_check = tail + 512;
        return;
    }
    if (mutexes_held == 0 && checking_forbidden == 0) {
        r.next_check = tail + 512;
        // Reachable: the entries before the last ticketed one can all be taken.
        static_assert(pending_capacity < event_ring::capacity / 2);
        if (!help(r.serial) && pending >= event_ring::capacity / 2)
            wait_for_room(r, event_ring::capacity / 2);
        return;
    }
    r.next_check = tail + 1;
    if (pending >= event_ring::capacity / 2 && idle_.load(std::memory_order_relaxed)) {
        hidden_scope hidden;
        std::lock_guard l(lock_);
        work_.notify_one();
    }
}

bool event_queue::push_access(std::uint64_t serial, const queued_event& e) {
    event_ring* r = ring(serial);
    if (!r)
        return false;
    const std::uint64_t tail = r->tail.load(std::memory_order_relaxed);
    if (full(*r, tail) && !wait_for_room(*r, event_ring::capacity))
        return false;
    r->entries[tail % event_ring::capacity] = {e.file, e.line, e.column, e.target, e.op,
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

append_result event_queue::append(std::uint64_t serial, const queued_event* e,
                                  void (*access)(void*), void* context, const void* object,
                                  bool may_wait, const std::int64_t* value) {
    event_ring* r = ring(serial);
    if (!r)
        return append_result::refused;
    // The object's lock, taken and let go hidden from ThreadSanitizer, on every path.
    struct hidden_lock {
        std::mutex* m = nullptr;
        ~hidden_lock() {
            if (m) {
                hidden_scope hidden;
                --checking_forbidden;
                m->unlock();
            }
        }
    } locked;
    if (access) {
        // Accesses of one object take their tickets in the order they happen: a vw is ordered
        // before every vr that reads it.
        hidden_scope hidden;
        object_lock(object).lock();
        ++checking_forbidden;
        locked.m = &object_lock(object);
        access_atomically(e ? e->op : Op::read, object, access, context);
    }
    const append_result refused =
        access ? append_result::refused_after_access : append_result::refused;
    // Read after the access: an access may append events of its own (a copy that touches
    // another sfg object), which come first.
    const std::uint64_t tail = r->tail.load(std::memory_order_relaxed);
    if (full(*r, tail) && (!may_wait || !wait_for_room(*r, event_ring::capacity)))
        return refused; // closed, or (!may_wait) no room was reserved
    const std::uint64_t ticket = take_ticket(serial);
    if (ticket == 0)
        return refused;
    r->entries[tail % event_ring::capacity] =
        e ? ring_entry{e->file, e->line,          e->column, e->target,         e->op,
                       false,   value != nullptr, ticket,    value ? *value : 0}
          : ring_entry{nullptr, 0, 0, no_object, Op::read, true, false, ticket, 0};
    r->tail.store(tail + 1, std::memory_order_release);
    r->unticketed = 0;
    published(*r, tail + 1);
    return append_result::appended;
}

void event_queue::reserve(std::uint64_t serial) {
    if (event_ring* r = ring(serial); r && full(*r, r->tail.load(std::memory_order_relaxed)))
        wait_for_room(*r, event_ring::capacity);
}

void reserve_event() {
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial)
        queue().reserve(serial);
}

void flush_pending_of_this_thread() {
    event_ring* r = current_ring;
    if (!r || r->unticketed == 0)
        return;
    if (queue().append(r->serial, nullptr, nullptr, nullptr, nullptr) != append_result::appended)
        forget_stale_ring(0);
}

void event_queue::drain(std::uint64_t serial) {
    if (this_thread.serial == serial) {
        if (event_ring* r = current_ring; r && r->serial == serial && r->unticketed > 0)
            append(serial, nullptr, nullptr, nullptr, nullptr); // places the caller's accesses
    }
    const std::uint64_t v = ticket_.load(std::memory_order_relaxed);
    if (v >> tag_shift != tag(serial))
        return;
    const std::uint64_t target = (v & ticket_mask) - 1; // every ticket taken so far
    hidden_scope hidden;
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

void event_queue::close() {
    {
        hidden_scope hidden;
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
    hidden_scope hidden;
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
bool event_queue::gather(std::vector<queued_event>& batch) {
    // Whether ring r's first ticketed entry is the next ticket's (scanning it once).
    auto has_next = [&](event_ring& r) {
        if (r.found_ticket == 0) {
            const std::uint64_t tail = r.tail.load(std::memory_order_acquire);
            for (; r.scanned < tail; ++r.scanned)
                if (const std::uint64_t t = r.entries[r.scanned % event_ring::capacity].ticket) {
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
        event_ring& r = *checking_[last_];
        for (std::uint64_t i = r.head.load(std::memory_order_relaxed); i <= r.scanned; ++i) {
            const ring_entry& x = r.entries[i % event_ring::capacity];
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

bool event_queue::check_some(session_impl* s) {
    if (const std::uint64_t v = rings_version_.load(std::memory_order_acquire);
        v != checking_version_) {
        std::lock_guard l(rings_lock_);
        checking_ = rings_;
        checking_version_ = rings_version_.load(std::memory_order_relaxed);
        last_ = 0;
    }
    if (batch_.capacity() == 0)
        batch_.reserve(batch_size + event_ring::capacity);
    if (!gather(batch_)) {
        // Nothing new: the last batch's second group is finished now.
        if (job_.load(std::memory_order_relaxed) == job_none)
            return false;
        event_lock lock;
        return finish_second_group();
    }
    std::atomic_thread_fence(std::memory_order_seq_cst); // the heads stored, then:
    if (room_waiters_.load(std::memory_order_relaxed) > 0) {
        std::lock_guard l(lock_);
        room_.notify_all();
    }
    {
        event_lock lock;
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

void event_queue::offer_second_group(session_impl& s) {
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
    event_buffer::publish();
    job_.store(job_offered, std::memory_order_release);
}

bool event_queue::finish_second_group() {
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
    session_impl& s = *job_session_;
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

void event_queue::mark_checked(std::uint64_t ticket) {
    std::lock_guard l(lock_);
    checked_ = ticket;
    room_.notify_all();
}

void event_queue::run_second_group() {
    // Without event_lock, unless the thread checking runs it: names are not added meanwhile.
    try {
        std::shared_lock names(job_session_->names_lock);
        job_session_->buffered.replay(job_buffer_, job_session_->second, job_session_->syms);
    } catch (...) {
        job_error_ = std::current_exception();
    }
    job_.store(job_done, std::memory_order_release);
}

bool event_queue::work() {
    int offered = job_offered;
    if (job_.load(std::memory_order_relaxed) != job_offered ||
        !job_.compare_exchange_strong(offered, job_taken, std::memory_order_acquire))
        return false;
    hidden_scope hidden;
    run_second_group();
    return true;
}

bool event_queue::help(std::uint64_t serial) {
    // Checking takes event_lock, and no object lock may be held then.
    if (checking_forbidden > 0)
        return false;
    hidden_scope hidden;
    std::unique_lock c(check_lock_, std::try_to_lock);
    // The session may have closed: then its checker thread checks the rest.
    if (!c.owns_lock() || serial_.load(std::memory_order_acquire) != serial)
        return false;
    return check_some(session_);
}

void event_queue::run(session_impl* s) {
    hidden_scope hidden;
    for (;;) {
        std::uint64_t next = 0;
        {
            std::lock_guard c(check_lock_);
            if (check_some(s))
                continue;
            // Nothing to check now. The rings of threads that have ended, once empty, go.
            const auto gone = [](const std::shared_ptr<event_ring>& r) {
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

void session_impl::check(const std::vector<queued_event>& events) {
    // The last call sites seen, so that a loop's accesses skip the session's table.
    struct site {
        const char* file = nullptr;
        std::uint32_t line = 0, column = 0;
        std::uint64_t serial = 0;
        ObjId id = no_object;
    };
    thread_local std::array<site, 64> sites;
    static const std::string no_name; // push names the event's object if it is ill-formed
    for (const queued_event& e : events) {
        ObjId loc = no_object;
        if (e.file) {
            site& c =
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

bool session_impl::event(ThreadId t, Op op, ObjId target, const std::string& object) {
    if (!queued())
        return push(t, op, target, no_object, object);
    const queued_event e{nullptr, 0, 0, target, t, op};
    // The caller holds event_lock, which the checker needs to make room: reserve_event() made it.
    return queue().append(serial, &e, nullptr, nullptr, nullptr, false) == append_result::appended;
}

std::string session_impl::object_name(Op op, ObjId target) const {
    const OpInfo& info = op_table[static_cast<std::size_t>(op)];
    if (info.role == Role::block)
        return "deterministic"; // sfg::deterministic
    if (info.operand == Operand::name)
        return syms.names(info.space).name(target);
    if (info.operand == Operand::thread_set) {
        std::vector<std::string> names;
        for (ThreadId t : syms.thread_sets[target])
            names.push_back(syms.threads.name(t));
        return fmt::format("{}", fmt::join(names, ","));
    }
    return {};
}

} // namespace sfg::detail
