// A thread's ring of events in a session whose policy lets findings wait (log, collect;
// docs/enforcers.md, "How it works"), private to runtime/src/live: written by the thread,
// read by whichever thread checks (event_queue.hpp).
#pragma once

#include "sfg/runtime/event.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace sfg::detail {

// An event on its way to the session's checker thread (checker_thread.cpp).
struct QueuedEvent {
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
struct RingEntry {
    const char* file;
    std::uint32_t line, column;
    ObjId target;
    Op op;
    bool marker;          // no event: only places the accesses before it
    bool has_value;       // a vr/vw's value, read after its access
    std::uint64_t ticket; // 0: an access
    std::int64_t value;
};
struct EventRing {
    static constexpr std::uint64_t capacity = 4096; // 128 KB, touched as used
    EventRing(std::uint64_t serial, ThreadId thread)
        : serial(serial), thread(thread), entries(new RingEntry[capacity]) {}
    const std::uint64_t serial; // the session
    const ThreadId thread;      // the thread's id in it
    const std::unique_ptr<RingEntry[]> entries;
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

} // namespace sfg::detail
