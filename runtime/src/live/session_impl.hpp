// The live runtime's state (docs/enforcers.md), private to runtime/src/live: the global lock that
// orders every instrumented operation, the open session, and each thread's identity in it.
#pragma once

#include "event_buffer.hpp"
#include "spec_impl.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/well_formed.hpp"
#include "sfg/sfg.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace sfg::detail {

struct session_impl;

struct global_state {
    std::mutex lock;                 // orders every event: one linearization
    session_impl* current = nullptr; // the open session
    session* current_session = nullptr;
    std::uint64_t next_serial = 1; // sessions are numbered; 0 is "none"
    std::set<std::string> orphans; // objects reported as used with no session
    // The open session's serial when its policy lets accesses be queued (log, collect), else 0.
    // Read without the lock by every shared<T> access: on a line of its own, apart from the lock.
    alignas(64) std::atomic<std::uint64_t> deferring{0};
    // Held by a session's opening and its whole closing (its checker thread stopped), taken
    // before the lock above.
    std::mutex lifecycle;
};
global_state& global();

// While it lives, ThreadSanitizer ignores the calling thread's synchronization and memory
// accesses: the runtime's bookkeeping (event_lock.cpp).
class hidden_scope {
public:
    hidden_scope();
    ~hidden_scope();
    hidden_scope(const hidden_scope&) = delete;
    hidden_scope& operator=(const hidden_scope&) = delete;
};

// Holds global().lock, hidden from ThreadSanitizer.
class event_lock {
public:
    event_lock();
    ~event_lock();
    event_lock(const event_lock&) = delete;
    event_lock& operator=(const event_lock&) = delete;

private:
    hidden_scope hidden_;
};
// Performs an access that must be atomic with its event, under the object's lock and hidden
// from ThreadSanitizer; a volatile's store and load are told to it as a release and an acquire
// (event_lock.cpp).
void access_atomically(Op op, const void* object, void (*access)(void*), void* context);

// A spinning thread's pause between two looks.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

// Who the calling thread is: its id in session `serial` (0: not an sfg thread of any session).
struct thread_record {
    std::uint64_t serial = 0;
    ThreadId id = 0;
};
extern constinit thread_local thread_record this_thread;
// How many sfg::mutex the calling thread holds: it checks events for the checker thread only
// outside critical sections, unless it must wait anyway (checker_thread.cpp).
extern constinit thread_local unsigned mutexes_held;
// How many locks the calling thread holds that checking must not be done under (event_lock,
// which checking takes; an object lock, taken after it): while any, it never checks.
extern constinit thread_local unsigned checking_forbidden;

// An event on its way to the session's checker thread (checker_thread.cpp).
struct queued_event {
    const char* file; // the source location's (a string literal), or nullptr
    std::uint32_t line, column;
    ObjId target;
    ThreadId thread;
    Op op;
    bool has_value = false; // a vr/vw's value (docs/traces.md, "Values of volatiles")
    std::int64_t value = 0;
};

// A thread's events in one session, in program order: written by the thread, read by the
// checker thread (single producer, single consumer; docs/enforcers.md, "How it works"). An
// event that other threads can order against (a synchronization, a volatile access) carries a
// ticket, its place in the linearization; a shared<T> access carries none and is placed just
// before the thread's next ticketed entry.
struct ring_entry {
    const char* file;
    std::uint32_t line, column;
    ObjId target;
    Op op;
    bool marker;          // no event: only places the accesses before it
    bool has_value;       // a vr/vw's value, read after its access
    std::uint64_t ticket; // 0: an access
    std::int64_t value;
};
struct event_ring {
    static constexpr std::uint64_t capacity = 4096; // 128 KB, touched as used
    event_ring(std::uint64_t serial, ThreadId thread)
        : serial(serial), thread(thread), entries(new ring_entry[capacity]) {}
    const std::uint64_t serial; // the session
    const ThreadId thread;      // the thread's id in it
    const std::unique_ptr<ring_entry[]> entries;
    // The thread's side: entries [head, tail) are written.
    alignas(64) std::atomic<std::uint64_t> tail{0};
    std::uint64_t head_seen = 0;        // a value head had
    std::uint32_t unticketed = 0;       // accesses since the last ticketed entry
    std::uint64_t next_check = 512;     // when published() looks at head next
    std::atomic<bool> abandoned{false}; // the thread has ended
    // The checker's side.
    alignas(64) std::atomic<std::uint64_t> head{0};
    std::uint64_t scanned = 0;      // [head, scanned) holds no ticketed entry
    std::uint64_t found_ticket = 0; // the entry at `scanned` has this ticket (0: not seen yet)
};

// Accesses queued without a ticket at most: then a marker places them (it bounds the delay of
// their report and keeps room in the ring for the checker to take).
inline constexpr std::uint32_t pending_capacity = 1024;
// Reports the calling thread's accesses queued in a session other than `serial` (closed before
// they were checked; its threads outlived it) on standard error, and forgets them.
void forget_stale_ring(std::uint64_t serial);
// Before a misuse is reported: waits until the events before it are checked (log, collect).
void drain_before_misuse();
// Makes room for an event of the calling thread appended under event_lock (a fork, a join).
void reserve_event();
// Places the calling thread's queued accesses (before it ends).
void flush_pending_of_this_thread();
// Performs an access hidden from ThreadSanitizer, as under the lock (event_lock.cpp).
void hidden_access(void (*access)(void*), void* context);

// What event_queue::append did.
enum class append_result {
    appended,
    refused,              // the session takes no more events; the access was not done
    refused_after_access, // the session took no more events once the access was done
};
// The lock of an object's accesses that must be atomic with their events (a volatile's, a
// shared<T> that is not trivially copyable), one of a few shared by all objects. Taken after
// event_lock when both are; nothing waits for event_lock while holding it.
std::mutex& object_lock(const void* object);

// The events of a session whose policy lets findings wait (log, collect): each thread appends
// to a ring of its own, taking a ticket from one counter for the events that order threads;
// checking merges the rings by ticket, which is the linearization, and runs the analyses on
// batches, outside the program's critical sections: on the session's checker thread, or on a
// program thread whose ring fills (docs/enforcers.md, "How it works"). Its locks are hidden
// from ThreadSanitizer like event_lock; checking takes event_lock, so a thread holding
// event_lock must not wait for room (reserve() first).
class event_queue {
public:
    // Starts the checker thread of session s.
    void open(session_impl* s);
    // Appends a shared<T> access of the calling thread (done already), without a ticket. False
    // when session `serial` takes no more events.
    bool push_access(std::uint64_t serial, const queued_event& e);
    // Atomically (with respect to the other accesses of `object`): performs access(context)
    // and appends e with the next ticket; e null: a marker. Waits for room unless !may_wait
    // (then the caller reserved it). An access that throws takes no ticket.
    // `value`, when not null, is read after the access: the value the event carries.
    append_result append(std::uint64_t serial, const queued_event* e, void (*access)(void*),
                         void* context, const void* object, bool may_wait = true,
                         const std::int64_t* value = nullptr);
    // Makes room for one entry in the calling thread's ring.
    void reserve(std::uint64_t serial);
    // Waits until every event appended so far (the caller's queued accesses too) is checked.
    void drain(std::uint64_t serial);
    // Takes no more events, checks the last ones and stops the checker thread.
    void close();

private:
    event_ring* ring(std::uint64_t serial);
    event_ring* new_ring(std::uint64_t serial);
    // Until fewer than `limit` of r's entries are pending.
    bool wait_for_room(event_ring& r, std::uint64_t limit);
    std::uint64_t take_ticket(std::uint64_t serial);
    void published(event_ring& r, std::uint64_t tail);
    void run(session_impl* s);
    // The checker's work, done by whichever thread holds check_lock_: the checker thread, or a
    // program thread that would otherwise wait for it (help).
    bool check_some(session_impl* s);
    bool help(std::uint64_t serial);
    // The batch just checked, split (session_impl::split): its second group is offered to
    // work(), the last batch's finished first.
    void offer_second_group(session_impl& s);
    // Under event_lock: the offered batch's second group run here or waited for, its findings
    // collected and its tickets marked checked. False when no batch was offered.
    bool finish_second_group();
    void run_second_group();
    // Every ticket up to this one is checked: drain() stops waiting for them.
    void mark_checked(std::uint64_t ticket);
    // Runs the second group of the offered batch, if no other thread has taken it.
    bool work();
    bool gather(std::vector<queued_event>& batch);

    // (the session's tag << 40) | the next ticket; 0: closed. Relaxed: its modification order
    // agrees with happens-before, which is all the linearization needs.
    alignas(64) std::atomic<std::uint64_t> ticket_{0};
    alignas(64) std::atomic<std::uint64_t> serial_{0}; // the session appended to; 0: none
    // Written often (a thread waits for room, the checker sleeps): not on serial_'s line, which
    // every ticket reads.
    alignas(64) std::atomic<bool> idle_{false}; // the checker sleeps
    std::atomic<int> room_waiters_{0};
    std::mutex rings_lock_; // the rings of the session's threads
    std::vector<std::shared_ptr<event_ring>> rings_;
    std::atomic<std::uint64_t> rings_version_{0};
    std::mutex lock_;
    std::condition_variable work_; // for the checker: a ring filling, a drain, stopping
    std::condition_variable room_; // for the program: entries taken or checked
    // The checking side: held while events are gathered and checked.
    std::mutex check_lock_;
    session_impl* session_ = nullptr;                   // the session checked
    std::vector<std::shared_ptr<event_ring>> checking_; // rings_, as of checking_version_
    std::uint64_t checking_version_ = ~std::uint64_t{0};
    std::size_t last_ = 0; // the ring that had the last ticket
    std::vector<queued_event> batch_;
    std::uint64_t next_ = 1; // the next ticket to check
    // The second group of a split batch: offered by the thread checking, taken by one thread,
    // finished by the thread checking the next batch (or by one that finds nothing new).
    enum : int { job_none, job_offered, job_taken, job_done };
    std::atomic<int> job_{job_none};
    session_impl* job_session_ = nullptr;
    std::size_t job_buffer_ = 0;    // its events: that buffer of job_session_->buffered
    std::uint64_t job_events_ = 0;  // the number of its last event
    std::uint64_t job_tickets_ = 0; // its last ticket
    std::exception_ptr job_error_;
    std::uint64_t checked_ = 0;             // every ticket up to this one is checked
    std::uint64_t final_ = 0;               // stopping: the tickets below it are the session's
    bool stopping_ = false, hurry_ = false; // hurry_: a drain or a full ring waits
    std::thread checker_;
};
event_queue& queue();

// The packed object::cache of `id` in session `serial`.
inline std::uint64_t object_cache(std::uint64_t serial, ObjId id) {
    return serial << 32 | id;
}

// Everything below is touched under global().lock only, but for what a split batch's second
// group reads holding names_lock shared: `second` and its analyses, `buffered`'s events of that
// batch, `syms`.
struct session_impl {
    session_impl(std::uint64_t serial, const spec* s, session_options o);

    // The object's id in this session, interned (and its name checked) on first use.
    ObjId resolve(const object& o, ThreadId t);
    // A misuse when `name` is the spec's name of another kind of object, or cannot be written
    // in a trace.
    void check_name(const std::string& name, Namespace kind, ThreadId t);
    ObjId location(const char* file, std::uint32_t line, std::uint32_t column);
    // Whether events go through the checker thread (event_queue).
    bool queued() const {
        return options.policy == on_finding::log || options.policy == on_finding::collect;
    }
    // The checker thread's work: the events, then the findings they caused.
    void check(const std::vector<queued_event>& events);
    // An event with no location (fork, join) by thread t of this session: appended for the
    // checker thread, or pushed.
    bool event(ThreadId t, Op op, ObjId target, const std::string& object);
    // The name of the object of an event, for a misuse report.
    std::string object_name(Op op, ObjId target) const;
    // One explicit event through the well-formedness checker to the analyses; an ill-formed one
    // is a misuse of `object` (empty: the event's object). Collects the new findings.
    // `value`: the Symbols::values id a vr/vw carries, or no_object.
    bool push(ThreadId t, Op op, ObjId target, ObjId loc, const std::string& object,
              ObjId value = no_object);
    // One event into the well-formedness checker (false: ill-formed, refused). A `begin` or
    // `end` is checked against the thread's open block first (deliver_block).
    bool deliver(ThreadId t, Op op, ObjId target, ObjId loc, ObjId value = no_object) {
        if (op_info(op).role == Role::block) [[unlikely]]
            return deliver_block(t, op, loc);
        return stream->push(t, op, target, loc, 0, value);
    }
    // SingleTrack's blocks do not nest (docs/determinism.md): a `begin` inside the thread's open
    // block, or an `end` outside one, is refused as ill-formed, as `sfgc trace --analysis
    // singletrack` refuses it, so that the trace stays replayable and no analysis stops on it.
    bool deliver_block(ThreadId t, Op op, ObjId loc);
    // The misuse of an ill-formed event that push refused, held until collect() reaches the
    // findings about the events before it (a queued event's batch is collected later).
    void push_failed(ThreadId t, Op op, ObjId target, const std::string& object);
    // Takes the analyses' new findings about the events up to number `up_to`, and the held
    // misuses after them, in event order.
    void collect(std::uint64_t up_to = ~std::uint64_t{0});
    void add(finding f);
    // Once per (object, what). t: the thread (no_object: a thread sfg does not know).
    void add_misuse(const std::string& object, ThreadId t, const std::string& what,
                    Op op = Op::read, bool has_op = false);
    std::optional<finding> make_misuse(const std::string& object, ThreadId t,
                                       const std::string& what, Op op, bool has_op);
    // What the operation that caused the fresh findings must throw (throw_error), after
    // aborting (abort); forgets them.
    std::optional<finding> take_fresh();
    void finish();

    std::uint64_t serial;
    session_options options;
    std::optional<spec> spec_;
    Symbols syms;
    ThreadId main_thread = 0;
    std::vector<std::unique_ptr<RunningAnalysis>> analyses;
    std::vector<std::size_t> seen; // findings of each analysis already collected
    Fanout fanout;
    // With a checker thread and two sinks or more, the checker's batches are split
    // (docs/enforcers.md, "How it works"): the well-formed events of a batch are buffered,
    // `first` (the first sink) runs over them, and `second` (the others) runs over them later,
    // on any thread, while the next batch is checked into the other buffer (the sinks share
    // nothing but the names, guarded by names_lock).
    event_buffer buffered;
    Fanout first, second;
    bool split = false;
    // Runs both groups over the events being buffered, then forgets them (with no batch pending
    // in the event_queue: the session has no checker thread running).
    void analyse_buffered();
    // Names are added under event_lock and this lock, held exclusively; the second group of a
    // split batch reads them holding it shared, without event_lock.
    std::shared_mutex names_lock;
    std::unique_lock<std::shared_mutex> adding_names() { return std::unique_lock(names_lock); }
    std::ofstream trace_file;
    std::unique_ptr<TextTraceWriter> writer;
    std::unique_ptr<WellFormedStream> stream;
    // Each thread's open deterministic block: the number of its `begin` (0: none).
    std::vector<std::uint64_t> open_blocks;
    // Why deliver_block refused the last event it refused, until push_failed reports it.
    std::string block_error;
    std::vector<finding> findings;
    std::vector<bool> expected; // by finding
    // Misuses of refused events, each with the number of the last event delivered before it,
    // until collect() reaches it.
    std::vector<std::pair<std::uint64_t, finding>> held_misuses;
    bool closed = false;
    std::vector<finding> fresh; // collected since the last take_fresh()
    std::set<std::string> misuses;
    // Source locations by call site: (file name pointer, line, column), hashed. A call site's
    // file name is one string literal, so equal pointers mean equal files (different pointers
    // with one text only cost a second entry with the same interned id).
    struct SiteHash {
        std::size_t
        operator()(const std::tuple<const void*, std::uint32_t, std::uint32_t>& k) const {
            const auto p = reinterpret_cast<std::uintptr_t>(std::get<0>(k));
            return static_cast<std::size_t>(
                (p ^ (std::uint64_t{std::get<1>(k)} << 32 | std::get<2>(k))) *
                0x9e3779b97f4a7c15ull);
        }
    };
    std::unordered_map<std::tuple<const void*, std::uint32_t, std::uint32_t>, ObjId, SiteHash>
        locations;
};

// An object used with no session: reported on standard error once.
std::optional<finding> orphan(const object& o, const char* what);

} // namespace sfg::detail
