// The events of a session whose policy lets findings wait (log, collect; docs/enforcers.md,
// "How it works"), private to runtime/src/live: the program's threads append them to their
// rings (event_queue.cpp), checking merges the rings by ticket and runs the analyses on batches
// (checker_thread.cpp).
#pragma once

#include "event_ring.hpp"

#include "sfg/sfg.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sfg::detail {

struct SessionImpl;

// What EventQueue::append did.
enum class AppendResult {
    appended,
    refused,              // the session takes no more events; the access was not done
    refused_after_access, // the session took no more events once the access was done
};

// The events of a session whose policy lets findings wait (log, collect): each thread appends
// to a ring of its own, taking a ticket from one counter for the events that order threads;
// checking merges the rings by ticket, which is the linearization, and runs the analyses on
// batches, outside the program's critical sections: on the session's checker thread, or on a
// program thread whose ring fills (docs/enforcers.md, "How it works"). Its locks are hidden
// from ThreadSanitizer like EventLock; checking takes EventLock, so a thread holding
// EventLock must not wait for room (reserve() first).
class EventQueue {
public:
    // Starts the checker thread of session s.
    void open(SessionImpl* s);
    // Appends a shared<T> access of the calling thread (done already), without a ticket. False
    // when session `serial` takes no more events.
    bool push_access(std::uint64_t serial, const QueuedEvent& e);
    // Atomically (with respect to the other accesses of `object`): performs access(context)
    // and appends e with the next ticket; e null: a marker. Waits for room unless !may_wait
    // (then the caller reserved it). An access that throws takes no ticket.
    // `value`, when not null, is read after the access: the value the event carries. `then`: e
    // is a read-modify-write's vr, its vw appended right after it when it wrote.
    AppendResult append(std::uint64_t serial, const QueuedEvent* e, void (*access)(void*),
                        void* context, const void* object, bool may_wait = true,
                        const std::int64_t* value = nullptr, const rmw_write* then = nullptr);
    // Makes room for one entry in the calling thread's ring.
    void reserve(std::uint64_t serial);
    // Waits until every event appended so far (the caller's queued accesses too) is checked.
    void drain(std::uint64_t serial);
    // Takes no more events, checks the last ones and stops the checker thread.
    void close();

private:
    // A session's tag in the ticket counter: 24 bits of its serial, never 0 (closed).
    static constexpr unsigned tag_shift = 40;
    static constexpr std::uint64_t ticket_mask = (std::uint64_t{1} << tag_shift) - 1;
    static std::uint64_t tag(std::uint64_t serial) { return serial % 0xffffff + 1; }
    // With nothing to do, the checker sleeps this long, unless a ring fills or a drain waits.
    static constexpr std::chrono::milliseconds idle_wait{1};

    // The appending side (event_queue.cpp).
    EventRing* ring(std::uint64_t serial);
    EventRing* new_ring(std::uint64_t serial);
    // Until fewer than `limit` of r's entries are pending.
    bool wait_for_room(EventRing& r, std::uint64_t limit);
    // The first of `count` consecutive tickets; 0 when the session takes no more events.
    std::uint64_t take_ticket(std::uint64_t serial, std::uint64_t count = 1);
    void published(EventRing& r, std::uint64_t tail);

    // The checking side (checker_thread.cpp).
    void run(SessionImpl* s);
    // The checker's work, done by whichever thread holds check_lock_: the checker thread, or a
    // program thread that would otherwise wait for it (help).
    bool check_some(SessionImpl* s);
    bool help(std::uint64_t serial);
    // The batch just checked, split (SessionImpl::split): its second group is offered to
    // work(), the last batch's finished first.
    void offer_second_group(SessionImpl& s);
    // Under EventLock: the offered batch's second group run here or waited for, its findings
    // collected and its tickets marked checked. False when no batch was offered.
    bool finish_second_group();
    void run_second_group();
    // Every ticket up to this one is checked: drain() stops waiting for them.
    void mark_checked(std::uint64_t ticket);
    // Runs the second group of the offered batch, if no other thread has taken it.
    bool work();
    bool gather(std::vector<QueuedEvent>& batch);

    // (the session's tag << 40) | the next ticket; 0: closed. Relaxed: its modification order
    // agrees with happens-before, which is all the linearization needs.
    alignas(64) std::atomic<std::uint64_t> ticket_{0};
    alignas(64) std::atomic<std::uint64_t> serial_{0}; // the session appended to; 0: none
    // Written often (a thread waits for room, the checker sleeps): not on serial_'s line, which
    // every ticket reads.
    alignas(64) std::atomic<bool> idle_{false}; // the checker sleeps
    std::atomic<int> room_waiters_{0};
    std::mutex rings_lock_; // the rings of the session's threads
    std::vector<std::shared_ptr<EventRing>> rings_;
    std::atomic<std::uint64_t> rings_version_{0};
    std::mutex lock_;
    std::condition_variable work_; // for the checker: a ring filling, a drain, stopping
    std::condition_variable room_; // for the program: entries taken or checked
    // The checking side: held while events are gathered and checked.
    std::mutex check_lock_;
    SessionImpl* session_ = nullptr;                   // the session checked
    std::vector<std::shared_ptr<EventRing>> checking_; // rings_, as of checking_version_
    std::uint64_t checking_version_ = ~std::uint64_t{0};
    std::size_t last_ = 0; // the ring that had the last ticket
    std::vector<QueuedEvent> batch_;
    std::uint64_t next_ = 1; // the next ticket to check
    // The second group of a split batch: offered by the thread checking, taken by one thread,
    // finished by the thread checking the next batch (or by one that finds nothing new).
    enum : int { job_none, job_offered, job_taken, job_done };
    std::atomic<int> job_{job_none};
    SessionImpl* job_session_ = nullptr;
    std::size_t job_buffer_ = 0;    // its events: that buffer of job_session_->buffered
    std::uint64_t job_events_ = 0;  // the number of its last event
    std::uint64_t job_tickets_ = 0; // its last ticket
    std::exception_ptr job_error_;
    std::uint64_t checked_ = 0;             // every ticket up to this one is checked
    std::uint64_t final_ = 0;               // stopping: the tickets below it are the session's
    bool stopping_ = false, hurry_ = false; // hurry_: a drain or a full ring waits
    std::thread checker_;
};
EventQueue& queue();

// The lock of an object's accesses that must be atomic with their events (a volatile's, a
// shared<T> that is not trivially copyable), one of a few shared by all objects. Taken after
// EventLock when both are; nothing waits for EventLock while holding it. (Defined in
// event_queue.cpp, where EventQueue::append inlines it.)
std::mutex& object_lock(const void* object);
// Reports the calling thread's accesses queued in a session other than `serial` (closed before
// they were checked; its threads outlived it) on standard error, and forgets them.
void forget_stale_ring(std::uint64_t serial);
// Before a misuse is reported: waits until the events before it are checked (log, collect;
// record.cpp).
void drain_before_misuse();
// Makes room for an event of the calling thread appended under EventLock (a fork, a join).
void reserve_event();
// Places the calling thread's queued accesses (before it ends).
void flush_pending_of_this_thread();

} // namespace sfg::detail
