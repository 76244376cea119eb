// sfg::mutex and sfg::barrier (docs/enforcers.md): the real primitive does the synchronizing; the
// event is recorded on the side of it that keeps the linearization true (acq after taking,
// rel before letting go; benter before arriving, bexit after leaving).
#include "event_lock.hpp"
#include "global_state.hpp"
#include "session_impl.hpp"

namespace sfg {

namespace {

constexpr int max_spins = 100;

} // namespace

void mutex::lock() {
    if (obj_.holder.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
        // std::mutex would deadlock (or worse): the operation cannot go on.
        const std::string what = "lock '" + obj_.name + "' locked again by the thread holding it";
        std::optional<finding> f = detail::misuse(obj_, what);
        throw finding_error(
            f ? std::move(*f)
              : detail::make_finding(FindingKind::misuse, "", obj_.name, "", Op::acquire, what));
    }
    // A short spin before sleeping (as glibc's adaptive mutexes): the acq and rel events lengthen
    // the critical section a little, and a waiter that sleeps costs two system calls and a
    // context switch, far more than the section.
    for (int spins = 0; !m_.try_lock(); ++spins) {
        if (spins == max_spins) {
            m_.lock();
            break;
        }
        detail::cpu_relax();
    }
    record_acquire();
}

bool mutex::try_lock() {
    if (obj_.holder.load(std::memory_order_relaxed) == std::this_thread::get_id() || !m_.try_lock())
        return false;
    record_acquire();
    return true;
}

void mutex::record_acquire() {
    obj_.holder.store(std::this_thread::get_id(), std::memory_order_relaxed);
    ++detail::mutexes_held;
    if (std::optional<finding> f =
            detail::record_event(obj_, Op::acquire, nullptr, nullptr, nullptr)) {
        // The caller's guard was never built: let the lock go before throwing.
        unlock();
        throw finding_error(std::move(*f));
    }
}

// Never throws (guards call it from destructors): its findings are collected and logged.
void mutex::unlock() {
    if (obj_.holder.load(std::memory_order_relaxed) != std::this_thread::get_id()) {
        detail::misuse(obj_, "lock '" + obj_.name + "' unlocked by a thread that does not hold it");
        return;
    }
    detail::record_event(obj_, Op::release, nullptr, nullptr, nullptr);
    obj_.holder.store(std::thread::id(), std::memory_order_relaxed);
    --detail::mutexes_held;
    m_.unlock();
}

void barrier::arrive_and_wait() {
    detail::record(obj_, Op::barrier_enter);
    b_.arrive_and_wait();
    detail::record(obj_, Op::barrier_exit);
}

} // namespace sfg
