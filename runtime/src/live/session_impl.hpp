// The live runtime's state (docs/enforcers.md), private to runtime/src/live: the global lock that
// orders every instrumented operation, the open session, and each thread's identity in it.
#pragma once

#include "spec_impl.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/well_formed.hpp"
#include "sfg/sfg.hpp"

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
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
    // Read without the lock by every shared<T> access.
    std::atomic<std::uint64_t> deferring{0};
};
global_state& global();

// Holds global().lock, hidden from ThreadSanitizer (event_lock.cpp).
class event_lock {
public:
    event_lock();
    ~event_lock();
    event_lock(const event_lock&) = delete;
    event_lock& operator=(const event_lock&) = delete;
};
// A volatile's store (release) and load (acquire), told to ThreadSanitizer; no-ops without it.
void tsan_release(const void* addr);
void tsan_acquire(const void* addr);

// Who the calling thread is: its id in session `serial` (0: not an sfg thread of any session).
struct thread_record {
    std::uint64_t serial = 0;
    ThreadId id = 0;
};
extern thread_local thread_record this_thread;

// A shared<T> access queued by its thread (record_access): pushed, in program order, before the
// thread's next event that others can order against (docs/enforcers.md, "Ordering guarantees").
struct pending_access {
    const char* file; // the source location's (a string literal), or nullptr
    std::uint32_t line, column;
    ObjId target;
    Op op;
};
struct pending_queue {
    std::uint64_t serial = 0; // the session the accesses belong to
    std::vector<pending_access> items;
};
extern thread_local pending_queue pending;
// A queue this long is pushed at once: it bounds the memory and the delay of a report.
inline constexpr std::size_t pending_capacity = 1024;

// Pushes the calling thread's queued accesses to the open session (takes the lock).
void flush_pending_of_this_thread();
// Under the lock: the calling thread's queued accesses to `s` (the open session, or nullptr);
// those of a session closed since are dropped. collect_now: false when an event follows at once.
void push_pending(session_impl* s, bool collect_now = true);
// Forgets the calling thread's queued accesses, with a report on standard error.
void drop_pending();
// Performs an access hidden from ThreadSanitizer, as under the lock (event_lock.cpp).
void hidden_access(void (*access)(void*), void* context);

// The packed object::cache of `id` in session `serial`.
inline std::uint64_t object_cache(std::uint64_t serial, ObjId id) {
    return serial << 32 | id;
}

// Everything below is touched under global().lock only.
struct session_impl {
    session_impl(std::uint64_t serial, const spec* s, session_options o);

    // The object's id in this session, interned (and its name checked) on first use.
    ObjId resolve(const object& o, ThreadId t);
    // A misuse when `name` is the spec's name of another kind of object, or cannot be written
    // in a trace.
    void check_name(const std::string& name, Namespace kind, ThreadId t);
    ObjId location(const char* file, std::uint32_t line, std::uint32_t column);
    // Pushes the calling thread's queued accesses, if they are this session's.
    void flush_pending(bool collect_now = true);
    // One explicit event through the well-formedness checker to the analyses; an ill-formed one
    // is a misuse of `object`. Collects the analyses' new findings (unless the caller will).
    bool push(ThreadId t, Op op, ObjId target, ObjId loc, const std::string& object,
              bool collect_now = true);
    void collect();
    void add(finding f);
    // Once per (object, what). t: the thread (no_object: a thread sfg does not know).
    void add_misuse(const std::string& object, ThreadId t, const std::string& what,
                    Op op = Op::read, bool has_op = false);
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
    std::ofstream trace_file;
    std::unique_ptr<TextTraceWriter> writer;
    std::unique_ptr<WellFormedStream> stream;
    std::vector<finding> findings;
    std::vector<bool> expected; // by finding
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
