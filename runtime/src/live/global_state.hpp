// The live runtime's global state (docs/enforcers.md), private to runtime/src/live: the global
// lock that orders every instrumented operation, the open session, and each thread's identity
// in it.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/sfg.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>

namespace sfg::detail {

struct SessionImpl;

struct GlobalState {
    std::mutex lock;                // orders every event: one linearization
    SessionImpl* current = nullptr; // the open session
    session* current_session = nullptr;
    std::uint64_t next_serial = 1; // sessions are numbered; 0 is "none"
    std::set<std::string> orphans; // objects reported as used with no session
    // The open session's serial when its policy lets accesses be queued (log, collect), else 0.
    // Read without the lock by every shared<T> access: on a line of its own, apart from the lock.
    alignas(64) std::atomic<std::uint64_t> deferring{0};
    // Held by a session's opening and its whole closing (its checker thread stopped), taken
    // before the lock above.
    std::mutex lifecycle;
    // The last closed session of a run of sfg::explore, owned here until the next run's opening
    // takes it or another replaces it (session.cpp; SessionImpl::serves).
    SessionImpl* spare = nullptr;
};
// Defined in record.cpp, with the recording that reads it on every event.
GlobalState& global();

// Who the calling thread is: its id in session `serial` (0: not an sfg thread of any session).
// These thread_locals are defined in record.cpp too.
struct ThreadRecord {
    std::uint64_t serial = 0;
    ThreadId id = 0;
};
extern constinit thread_local ThreadRecord this_thread;
// How many sfg::mutex the calling thread holds: it checks events for the checker thread only
// outside critical sections, unless it must wait anyway (event_queue.cpp).
extern constinit thread_local unsigned mutexes_held;
// How many locks the calling thread holds that checking must not be done under (EventLock,
// which checking takes; an object lock, taken after it): while any, it never checks.
extern constinit thread_local unsigned checking_forbidden;

// The packed object::cache of `id` in session `serial`.
inline std::uint64_t object_cache(std::uint64_t serial, ObjId id) {
    return serial << 32 | id;
}

} // namespace sfg::detail
