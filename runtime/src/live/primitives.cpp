// sfg::mutex, sfg::barrier and sfg::condition_variable (docs/enforcers.md): the real primitive does
// the synchronizing; the event is recorded on the side of it that keeps the linearization true
// (acq after taking, rel before letting go; benter before arriving, bexit after leaving). Under
// sfg::explore the controller schedules each operation only when its model of the object lets it
// go on (docs/explore.md), so the real primitive never waits.
#include "event_lock.hpp"
#include "global_state.hpp"
#include "schedule.hpp"
#include "session_impl.hpp"

namespace sfg {

using detail::Control;
using detail::control;
using detail::Point;
using detail::Scheduled;

namespace {

constexpr int max_spins = 100;

// Whether the calling thread holds the lock; not when it was held by the same OS thread in an
// earlier run of an exploration: the controller refuses the object at its point.
bool held_here(const detail::lock_object& o) {
    if (o.holder.load(std::memory_order_relaxed) != std::this_thread::get_id())
        return false;
    const Control* c = control();
    return !c || !c->outlived(o);
}

} // namespace

void mutex::lock() {
    if (held_here(obj_)) {
        // std::mutex would deadlock (or worse): the operation cannot go on.
        const std::string what = "lock '" + obj_.name + "' locked again by the thread holding it";
        std::optional<finding> f = detail::misuse(obj_, what);
        throw finding_error(
            f ? std::move(*f)
              : detail::make_finding(FindingKind::misuse, "", obj_.name, "", Op::acquire, what));
    }
    if (Control* c = control()) {
        Point p;
        p.op = Op::acquire;
        p.obj = &obj_;
        // The controller's model is the lock (m_ is never taken: ThreadSanitizer would see lock
        // orders of schedules that never run together).
        if (c->point(p) == Scheduled::run)
            record_acquire();
        else
            take_silently();
        return;
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
    if (held_here(obj_))
        return false;
    if (Control* c = control()) {
        Point p;
        p.op = Op::acquire;
        p.obj = &obj_;
        p.attempt = true;
        if (c->point(p) == Scheduled::silent || !c->attempt_succeeds())
            return false;
        record_acquire();
        return true;
    }
    if (!m_.try_lock())
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
void mutex::take_silently() {
    obj_.holder.store(std::this_thread::get_id(), std::memory_order_relaxed);
    ++detail::mutexes_held;
}

void mutex::let_go_silently() {
    obj_.holder.store(std::thread::id(), std::memory_order_relaxed);
    --detail::mutexes_held;
}

void mutex::unlock() {
    const bool mine = obj_.holder.load(std::memory_order_relaxed) == std::this_thread::get_id();
    Control* c = control();
    if (c) {
        Point p;
        p.op = Op::release;
        p.obj = &obj_;
        p.quiet = true;
        if (c->point(p) == Scheduled::silent) {
            if (mine)
                let_go_silently();
            return;
        }
    }
    if (!mine) {
        detail::misuse(obj_, "lock '" + obj_.name + "' unlocked by a thread that does not hold it");
        return;
    }
    detail::record_event(obj_, Op::release, nullptr, nullptr, nullptr);
    let_go_silently();
    if (!c)
        m_.unlock();
}

void barrier::arrive_and_wait() {
    if (Control* c = control()) { // the controller's model of the barrier waits, not b_
        Point p;
        p.op = Op::barrier_enter;
        p.obj = &obj_;
        p.count = count_.value;
        if (c->point(p) == Scheduled::silent)
            return;
        record_or_throw(Op::barrier_enter);
        p.op = Op::barrier_exit;
        if (c->point(p) == Scheduled::silent)
            return;
        record_or_throw(Op::barrier_exit);
        return;
    }
    record_or_throw(Op::barrier_enter);
    b_.arrive_and_wait();
    record_or_throw(Op::barrier_exit);
}

void barrier::record_or_throw(Op op) {
    if (std::optional<finding> f = detail::record_event(obj_, op, nullptr, nullptr, nullptr))
        throw finding_error(std::move(*f));
}

// Under sfg::explore: rel(m) and waiting on c are one step, as `wait c m;` is in programs; being
// woken and acq(m) another (docs/programs.md, "Condition variables"). A lost notify leaves the
// waiter waiting: a deadlock, found.
bool condition_variable::explored_wait(std::unique_lock<mutex>& lock) {
    Control* c = control();
    if (!c)
        return false;
    mutex& m = *lock.mutex();
    Point p;
    p.op = Op::cond_wait;
    p.obj = &obj_;
    p.lock = &m.obj_;
    if (c->point(p) == Scheduled::silent)
        return true;
    detail::record_event(m.obj_, Op::release, nullptr, nullptr, nullptr);
    m.let_go_silently();
    p.op = Op::cond_wake;
    if (c->point(p) == Scheduled::silent) {
        m.take_silently(); // the unique_lock still owns m, as after any wait
        return true;
    }
    m.record_acquire();
    return true;
}

bool condition_variable::explored_notify(Op op) noexcept {
    Control* c = control();
    if (!c)
        return false;
    Point p;
    p.op = op;
    p.obj = &obj_;
    p.quiet = true;
    c->point(p);
    return true;
}

} // namespace sfg
