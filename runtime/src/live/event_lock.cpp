// The runtime's one lock (global_state.hpp) as ThreadSanitizer must not see it (docs/enforcers.md,
// "ThreadSanitizer"): it orders sfg's events, not the program, so TSan ignores its
// synchronization and the bookkeeping done under it; the program's own synchronization (its
// sfg::mutex, barrier, threads: real std primitives) TSan sees as always, and a volatile_var's
// store and load, done under a lock of the runtime, are told to TSan as a release and an
// acquire.
//
// The annotations are weak: they resolve to ThreadSanitizer's runtime in a process that has it
// (whether or not this library was built with -fsanitize=thread) and to nothing otherwise.
#include "event_lock.hpp"
#include "global_state.hpp"

extern "C" {
__attribute__((weak)) void AnnotateIgnoreSyncBegin(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreSyncEnd(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreReadsBegin(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreReadsEnd(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreWritesBegin(const char* file, int line);
__attribute__((weak)) void AnnotateIgnoreWritesEnd(const char* file, int line);
__attribute__((weak)) void __tsan_acquire(void* addr);
__attribute__((weak)) void __tsan_release(void* addr);
}

namespace sfg::detail {

namespace {

bool under_tsan() {
    static const bool tsan = AnnotateIgnoreSyncBegin && AnnotateIgnoreSyncEnd &&
                             AnnotateIgnoreReadsBegin && AnnotateIgnoreReadsEnd &&
                             AnnotateIgnoreWritesBegin && AnnotateIgnoreWritesEnd;
    return tsan;
}

} // namespace

HiddenScope::HiddenScope() {
    if (under_tsan()) {
        AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
        AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
        AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
    }
}

HiddenScope::~HiddenScope() {
    if (under_tsan()) {
        AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
        AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
        AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
    }
}

// hidden_ is built before the lock is taken and destroyed after it is let go.
EventLock::EventLock() {
    global().lock.lock();
    ++checking_forbidden;
}

EventLock::~EventLock() {
    --checking_forbidden;
    global().lock.unlock();
}

void hidden_access(void (*access)(void*), void* context) {
    if (!under_tsan())
        return access(context);
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
    access(context);
    AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
}

void access_atomically(Op op, const void* object, void (*access)(void*), void* context,
                       const bool* wrote) {
    // The caller's synchronization is hidden: the annotations are made visible for themselves.
    // A release just before the store and an acquire just after the load, both under the
    // object's lock: a vr acquires exactly the vw it read (and those before it).
    const bool annotate = under_tsan() && __tsan_release && __tsan_acquire;
    if (annotate && op == Op::vol_write) {
        AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
        __tsan_release(const_cast<void*>(object));
        AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    }
    access(context);
    if (annotate && op == Op::vol_read) {
        AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
        __tsan_acquire(const_cast<void*>(object));
        // A read-modify-write that wrote releases too: still under the object's lock, so before
        // any access that can read its value.
        if (wrote && *wrote)
            __tsan_release(const_cast<void*>(object));
        AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
    }
}

} // namespace sfg::detail
