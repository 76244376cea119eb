// The live runtime's scheduling points (docs/explore.md, "How it works"): every operation of the
// sfg types asks the active Control, if any, before it runs. With none (a live session, or no
// session) nothing changes; under sfg::explore the controller parks the calling thread until it
// schedules the operation, so that exactly one of the body's threads runs at a time.
#pragma once

#include "sfg/runtime/op.hpp"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sfg::detail {

struct object;
struct await_condition;
struct GroupImpl;
struct QueueImpl;

// What the calling thread is about to do: its op (the event it records, or a condition
// variable's scheduling step) and what the op needs to be enabled.
struct Point {
    Op op = Op::read;
    const object* obj = nullptr; // its object (none: fork, join, begin, end, yield)
    const char* file = nullptr;  // the call site, when the operation has one
    std::uint32_t line = 0;
    const GroupImpl* group = nullptr; // join: the threads it waits for; fork: the new ones
    const std::vector<std::string>* names = nullptr; // fork, join: the threads' names
    const object* lock = nullptr; // cond_wait, cond_wake: the mutex let go / taken again
    std::ptrdiff_t count = 0;     // barrier_enter: the barrier's count
    bool attempt = false;         // try_lock, try_pop: never waits
    bool rmw = false;             // a vr that is a read-modify-write
    bool yield = false;           // sfg::yield(): op is unused
    bool quiet = false; // from a destructor or a noexcept function: never throws abandoned_run
    // sfg::await: one step, enabled when the condition holds (op: vol_read, obj: none).
    const await_condition* await = nullptr;
};

// How the operation goes on after its point.
enum class Scheduled : std::uint8_t {
    run,    // scheduled: do it and record it, as without a controller
    silent, // the exploration has given the run up (a deadlock, a bound): do the raw operation,
            // record nothing (called while unwinding)
};

// Thrown at a scheduling point of a run the exploration has given up, to unwind the thread. Not
// a std::exception: a test's `catch (const std::exception&)` does not swallow it.
struct abandoned_run {};

class Control {
public:
    virtual ~Control() = default;
    // Parks the calling thread until the explorer schedules `p`. Throws abandoned_run when the run
    // is given up (silent when the thread is unwinding already, or p.quiet).
    virtual Scheduled point(const Point& p) = 0;
    // For a try_lock / try_pop scheduled by point(): whether it succeeds (the controller's model
    // of the object says so; the real object agrees, since nothing else ran since).
    virtual bool attempt_succeeds() = 0;
    // The calling thread started the threads of `g` (after its fork point): they are the
    // controller's, in order. Called before they run.
    virtual void forked(const GroupImpl& g, const std::vector<std::string>& names) = 0;
    // The first and last things a thread started through sfg::thread does (index: its place in
    // its group). Its end is not a scheduling point. `error`: what it ended with, if anything.
    virtual void thread_begins(const GroupImpl& g, std::size_t index) = 0;
    virtual void thread_ends(std::exception_ptr error) = 0;
    // Runs `fn` (which begins with thread_begins and ends with thread_ends) as thread `index` of
    // `g` on an OS thread the controller keeps for its runs, rather than on a new one each run
    // (docs/explore.md, "How it works"). Called after forked().
    virtual void launch(const GroupImpl& g, std::size_t index, std::function<void()> fn) = 0;
    // The join of `g`'s launched threads: returns once each has called thread_ends.
    virtual void await(const GroupImpl& g) = 0;
    // Whether a thread's exception was reported here already: join() does not rethrow it.
    virtual bool swallows_thread_errors() const = 0;
    // The calling thread's sfg::await, scheduled because its condition held, found it false: the
    // body did something sfg does not control. Gives the run up and throws abandoned_run (unless
    // the thread is unwinding already).
    virtual void await_turned_false() = 0;
    // Whether `o` was used by an earlier run than the calling thread's: what it holds (a lock's
    // holder) is not this run's, and its next point refuses it (docs/explore.md, "What it
    // refuses").
    virtual bool outlived(const object&) const { return false; }
};

// Evaluates an await's condition once, its loads neither scheduling points nor recorded, and
// appends the volatiles it loaded to `reads` (sfg::explore's peek at whether the awaiting thread
// is enabled: only one thread runs at a time, so the loads see the objects' current values).
// Exceptions of the condition propagate.
bool peek_await(const await_condition& c, std::vector<const object*>& reads);

// The calling thread's controller, or nullptr (the common case): the one bound to the thread,
// else the active one.
Control* control();
void set_control(Control* c);
// Binds the calling thread to `c` (nullptr: unbinds it): a thread of a run of sfg::explore asks
// its run's controller even after the exploration has left the run to a stuck thread and gone on
// (docs/explore.md, "What it refuses"), never a later exploration's.
// Returns the control bound before.
Control* bind_control(Control* c);

} // namespace sfg::detail
