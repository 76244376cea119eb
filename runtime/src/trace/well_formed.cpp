#include "sfg/runtime/trace/well_formed.hpp"
#include "sfg/runtime/trace/ill_formed.hpp"

#include <fmt/format.h>

namespace sfg {

WellFormedStream::Thread& WellFormedStream::thread(ThreadId t) {
    if (t >= threads_.size())
        threads_.resize(t + 1);
    return threads_[t];
}

bool WellFormedStream::fail(std::string msg) {
    error_ = std::move(msg);
    return false;
}

bool WellFormedStream::push_checked(ThreadId t, Op op, ObjId target, ObjId location,
                                    std::uint32_t line, ObjId value) {
    if (!check(t, op, target))
        return false;
    accept(t, op, target, location, line, value);
    return true;
}

bool WellFormedStream::check(ThreadId t, Op op, ObjId target) {
    auto tname = [&](ThreadId u) -> const std::string& { return syms_.threads.name(u); };
    thread(t);
    // No event of a thread after it was joined (docs/traces.md; thesis §4.1.1: end(t) is t's
    // last operation).
    if (threads_[t].state == State::ended)
        return fail(ill_formed::after_join(tname(t), threads_[t].line));

    switch (op) {
    case Op::acquire: {
        // Locks are not re-entrant (docs/traces.md), so the holder may not acquire again either.
        const ThreadId holder = locks_.holder(target);
        const std::uint32_t since = locks_.since(target);
        if (holder == t)
            return fail(ill_formed::acquire_own(tname(t), syms_.locks.name(target), since));
        if (holder != no_object)
            return fail(
                ill_formed::acquire_held(tname(t), syms_.locks.name(target), tname(holder), since));
        break;
    }
    case Op::release: {
        const ThreadId holder = locks_.holder(target);
        if (holder == no_object)
            return fail(ill_formed::release_free(tname(t), syms_.locks.name(target)));
        if (holder != t)
            return fail(ill_formed::release_held(tname(t), syms_.locks.name(target), tname(holder),
                                                 locks_.since(target)));
        break;
    }
    case Op::barrier_exit: {
        const Thread& th = threads_[t];
        if (!exit_follows_enter(op, target, th.has_last, th.last_op, th.last_target))
            return fail(ill_formed::exit_not_entered(tname(t), syms_.barriers.name(target)));
        break;
    }
    case Op::fork:
        for (ThreadId u : syms_.thread_sets[target]) {
            if (u == t)
                return fail(ill_formed::fork_self(tname(t)));
            const Thread& c = thread(u);
            if (c.state == State::forked)
                return fail(ill_formed::fork_forked(tname(t), tname(u), c.line));
            if (c.has_events)
                return fail(ill_formed::fork_started(tname(t), tname(u), c.line));
            if (c.state != State::fresh)
                return fail(ill_formed::fork_ended(tname(t), tname(u), c.line));
        }
        break;
    case Op::join:
        for (ThreadId u : syms_.thread_sets[target]) {
            if (u == t)
                return fail(ill_formed::join_self(tname(t)));
            thread(u);
        }
        break;
    case Op::dequeue: // only what was put in and not yet taken out (thesis §5.1, q(o))
        if (target >= queued_.size() || queued_[target] == 0)
            return fail(ill_formed::dequeue_absent(
                tname(t), syms_.queues.name(syms_.queue_items.queue(target)),
                syms_.vars.name(syms_.queue_items.var(target))));
        break;
    default:
        break;
    }
    return true;
}

// Well-formed: update the state and deliver, implicit events first (event.hpp).
void WellFormedStream::accept(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
                              ObjId value) {
    const std::uint64_t number = ++events_;
    Thread& th = threads_[t];
    if (th.state != State::started) {
        emit(t, Op::thread_start, th.forker, number, line);
        th.state = State::started;
    }
    if (!th.has_events) {
        th.has_events = true;
        th.line = line;
    }
    th.has_last = true;
    th.last_op = op;
    th.last_target = target;

    switch (op) {
    case Op::acquire:
        locks_.acquire(t, target, line);
        break;
    case Op::enqueue:
        if (target >= queued_.size())
            queued_.resize(std::size_t{target} + 1, 0);
        ++queued_[target];
        break;
    case Op::dequeue:
        --queued_[target];
        break;
    case Op::release:
        locks_.release(target);
        break;
    case Op::fork:
        for (ThreadId u : syms_.thread_sets[target]) {
            threads_[u].state = State::forked;
            threads_[u].forker = t;
            threads_[u].line = line;
        }
        break;
    case Op::join:
        // Thread u's end comes just before the first event that joins it; a forked thread with
        // no events starts there too (docs/traces.md).
        for (ThreadId u : syms_.thread_sets[target]) {
            Thread& c = threads_[u];
            if (c.state == State::ended)
                continue;
            if (c.state != State::started)
                emit(u, Op::thread_start, c.forker, number, line);
            emit(u, Op::thread_end, t, number, line);
            c.state = State::ended;
            c.line = line;
        }
        break;
    default:
        break;
    }

    deliver(t, op, target, location, line, number, value);
}

void WellFormedStream::finish() {
    const std::uint64_t number = events_ + 1;
    for (ThreadId u = 0; u < threads_.size(); ++u) {
        Thread& c = threads_[u];
        if (c.state == State::ended || c.state == State::fresh)
            continue;
        if (c.state == State::forked)
            emit(u, Op::thread_start, c.forker, number, 0);
        emit(u, Op::thread_end, no_object, number, 0);
        c.state = State::ended;
    }
}

} // namespace sfg
