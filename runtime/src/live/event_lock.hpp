// The runtime's own locks as ThreadSanitizer must not see them (event_lock.cpp;
// docs/enforcers.md, "ThreadSanitizer"), private to runtime/src/live.
#pragma once

#include "sfg/runtime/op.hpp"

namespace sfg::detail {

// While it lives, ThreadSanitizer ignores the calling thread's synchronization and memory
// accesses: the runtime's bookkeeping.
class HiddenScope {
public:
    HiddenScope();
    ~HiddenScope();
    HiddenScope(const HiddenScope&) = delete;
    HiddenScope& operator=(const HiddenScope&) = delete;
};

// Holds global().lock (global_state.hpp), hidden from ThreadSanitizer.
class EventLock {
public:
    EventLock();
    ~EventLock();
    EventLock(const EventLock&) = delete;
    EventLock& operator=(const EventLock&) = delete;

private:
    HiddenScope hidden_;
};
// Performs an access that must be atomic with its event, under the object's lock and hidden
// from ThreadSanitizer; a volatile's store and load are told to it as a release and an acquire.
// `wrote`, when not null: the access is a read-modify-write (its op the vr), which also
// releases when *wrote.
void access_atomically(Op op, const void* object, void (*access)(void*), void* context,
                       const bool* wrote = nullptr);
// Performs an access hidden from ThreadSanitizer, as under the lock.
void hidden_access(void (*access)(void*), void* context);

// A spinning thread's pause between two looks.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

} // namespace sfg::detail
