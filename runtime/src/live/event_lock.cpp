// The runtime's one lock (session_impl.hpp) as ThreadSanitizer must not see it (docs/enforcers.md,
// "ThreadSanitizer"): it orders sfg's events, not the program, so TSan ignores its
// synchronization and the bookkeeping done under it; the program's own synchronization (its
// sfg::mutex, barrier, threads: real std primitives) TSan sees as always, and a volatile_var's
// store and load, done under this lock, are told to TSan as a release and an acquire.
//
// The annotations are weak: they resolve to ThreadSanitizer's runtime in a process that has it
// (whether or not this library was built with -fsanitize=thread) and to nothing otherwise.
#include "session_impl.hpp"

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

hidden_scope::hidden_scope() {
    if (under_tsan()) {
        AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
        AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
        AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
    }
}

hidden_scope::~hidden_scope() {
    if (under_tsan()) {
        AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
        AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
        AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
    }
}

// hidden_ is built before the lock is taken and destroyed after it is let go.
event_lock::event_lock() {
    global().lock.lock();
}

event_lock::~event_lock() {
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

void tsan_release(const void* addr) {
    if (__tsan_release)
        __tsan_release(const_cast<void*>(addr));
}

void tsan_acquire(const void* addr) {
    if (__tsan_acquire)
        __tsan_acquire(const_cast<void*>(addr));
}

} // namespace sfg::detail
