// Well-formedness of an event stream (docs/traces.md, thesis §4.1.1) and the placement of the
// implicit thread_start / thread_end events (event.hpp). Every event source (text and binary
// trace readers, the model checker, instrumented programs) goes through this one checker, so all
// analyses see the same stream.
#pragma once

#include "sfg/runtime/event.hpp"
#include "sfg/runtime/hb/lock_holders.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sfg {

// Thesis §4.1.1: a thread exits barrier b only right after entering b, with no operation of its
// own in between. Whether `op` on `target` keeps that rule after the thread's previous op
// (`prev`, on `prev_target`; none when `has_prev` is false). Every checker of well-formedness
// asks this: the stream's below, the grammar's (slp_well_formed.cpp).
constexpr bool exit_follows_enter(Op op, ObjId target, bool has_prev, Op prev, ObjId prev_target) {
    return op != Op::barrier_exit ||
           (has_prev && prev == Op::barrier_enter && prev_target == target);
}

class WellFormedStream {
public:
    // `syms` must outlive the stream; ids in pushed events refer to it. Events go to `sink`.
    WellFormedStream(const Symbols& syms, Analysis& sink) : syms_(syms), sink_(sink) {}

    // Checks one explicit event. When it is well-formed, hands the sink the implicit events it
    // implies, then the event itself (numbered 1, 2, ...), and returns true. Otherwise delivers
    // nothing, returns false, and error() says why. fork/join targets index syms.thread_sets;
    // `value` is the Symbols::values id of what a vr/vw carries, if any (Event::value_id).
    [[nodiscard]] bool push(ThreadId t, Op op, ObjId target, ObjId location = no_object,
                            std::uint32_t line = 0, ObjId value = no_object) {
        // The common events, those of a running thread on one object, imply nothing and need at
        // most a check of the lock or of the thread's last op (push_checked does the rest).
        if (t < threads_.size() && threads_[t].state == State::started && quick(op, t, target)) {
            Thread& th = threads_[t];
            if (op == Op::acquire)
                locks_.acquire(t, target, line);
            else if (op == Op::release)
                locks_.release(target);
            th.last_op = op;
            th.last_target = target;
            deliver(t, op, target, location, line, ++events_, value);
            return true;
        }
        return push_checked(t, op, target, location, line, value);
    }

    // End of the stream: the implicit thread_end of every thread not joined (target no_object),
    // preceded by the thread_start of a forked thread that never ran. They are numbered
    // events() + 1 ("after the last event") and carry line 0.
    void finish();

    const std::string& error() const { return error_; }
    std::uint64_t events() const { return events_; }
    // The lock state after the last event delivered.
    const LockHolders& locks() const { return locks_; }

private:
    enum class State : std::uint8_t { fresh, forked, started, ended };
    struct Thread { // 16 bytes: one per thread that ever existed
        State state = State::fresh;
        bool has_events = false;
        bool has_last = false;
        Op last_op = Op::begin;
        ThreadId forker = no_object;
        std::uint32_t line = 0; // line of the fork / first event / join, for messages
        ObjId last_target = no_object;
    };

    bool push_checked(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
                      ObjId value);
    // Whether op by t is well-formed after the events so far (error() says why not).
    bool check(ThreadId t, Op op, ObjId target);
    // The state after a well-formed event, and its delivery.
    void accept(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line, ObjId value);
    // Whether op by running thread t is well-formed without more ado (push_checked's cases).
    bool quick(Op op, ThreadId t, ObjId target) const {
        switch (op) {
        case Op::read:
        case Op::write:
        case Op::vol_read:
        case Op::vol_write:
        case Op::barrier_enter:
            return true;
        case Op::acquire:
            return locks_.holder(target) == no_object;
        case Op::release:
            return locks_.holder(target) == t;
        case Op::barrier_exit: // a running thread has a last op
            return exit_follows_enter(op, target, true, threads_[t].last_op,
                                      threads_[t].last_target);
        default:
            return false;
        }
    }
    void deliver(ThreadId t, Op op, ObjId target, ObjId location, std::uint32_t line,
                 std::uint64_t number, ObjId value = no_object, bool implicit = false) {
        Event e;
        e.value_id = value;
        e.number = number;
        e.thread = t;
        e.op = op;
        e.implicit = implicit;
        e.target = target;
        e.location = location;
        e.line = line;
        sink_.on_event(e, syms_);
    }
    Thread& thread(ThreadId t);
    bool fail(std::string msg);
    // An implicit start or end of a thread (docs/traces.md).
    void emit(ThreadId t, Op op, ObjId target, std::uint64_t number, std::uint32_t line) {
        deliver(t, op, target, no_object, line, number, no_object, true);
    }

    const Symbols& syms_;
    Analysis& sink_;
    std::vector<Thread> threads_;
    LockHolders locks_{LockHolders::Detail::since};
    std::uint64_t events_ = 0;
    std::vector<std::uint64_t> queued_; // by Symbols::queue_items id: enq minus deq so far
    std::string error_;
};

} // namespace sfg
