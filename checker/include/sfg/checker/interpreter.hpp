// The interpreter (docs/programs.md): the state of a lowered program and
// one step of one thread. A step performs one visible event (an `await`: the reads of its
// condition, atomically), then the thread's local computation up to its next visible
// instruction, its end or a failure ("local computation runs right after the thread's previous
// visible event"). Failures stop only the failing thread, which counts as ended for joins and
// keeps its locks. State is plain vectors: copying it is how exploration branches.
#pragma once

#include "sfg/checker/model.hpp"
#include "sfg/runtime/hb/lock_holders.hpp"
#include "sfg/runtime/report.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sfg::checker {

enum class ThreadStatus : std::uint8_t {
    unforked, // named in some fork, not forked (yet)
    ready,    // at a visible instruction (maybe blocked), or stuck at a false local await
    ended,    // ran off its code
    failed,   // stopped by a failure (counts as ended for joins)
};

struct ThreadState {
    ThreadStatus status = ThreadStatus::unforked;
    std::uint32_t pc = 0;
    // At a cwake: CondState::seq when the wait began; only a notify after it may wake it.
    std::uint32_t since = 0;
    std::vector<std::int64_t> locals;
    std::vector<std::int64_t> stack;
    friend bool operator==(const ThreadState&, const ThreadState&) = default;
};

// A condition variable (docs/programs.md, "Condition variables"). A notify does not pick its
// waiter: it leaves a token, numbered by `seq`, that any thread already waiting may take by
// waking (the earliest token it may take); so which waiter a notify wakes is the scheduler's
// choice of which waiter runs. A notify with no waiter left without a token is lost.
struct CondState {
    std::uint32_t seq = 0;
    std::vector<std::uint32_t> tokens; // increasing
    friend bool operator==(const CondState&, const CondState&) = default;
};

struct State {
    std::vector<ThreadState> threads;
    std::vector<std::int64_t> shared; // by Model::shared index
    LockHolders locks{LockHolders::Detail::holders};
    std::vector<std::uint32_t> enters; // barrier-major: enters[b * threads + t]
    std::vector<std::uint8_t> forked;  // by thread: forked once already
    // By queue: the variables (Symbols::vars ids) in it, front first (docs/programs.md; not part
    // of final states).
    std::vector<std::vector<ObjId>> queues;
    std::vector<CondState> conds; // by Model::conds (not part of final states)
    friend bool operator==(const State&, const State&) = default;
    bool done(ThreadId t) const {
        return threads[t].status == ThreadStatus::ended ||
               threads[t].status == ThreadStatus::failed;
    }
};

std::uint64_t hash_state(const State& s);

// One event of a step (an Event without numbering). Steps may also carry a non-emitted action:
// the fork that failed because a target was forked before (for the dependence relation only).
struct Action {
    ThreadId thread = 0;
    Op op = Op::read;
    ObjId target = no_object; // var/volatile sym id, lock, barrier, thread set, queue item;
                              // no_object: begin/end
    std::uint32_t line = 0;
    bool emitted = true;
    // benter/bexit: the barrier generation it belongs to, its thread's count of arrivals at the
    // barrier (docs/programs.md, "Dependence"); 0 where unknown (a step not taken yet).
    std::uint32_t generation = 0;
    // vr/vw: the value read or written (docs/traces.md, vr(v=K)); a volatile access always has one.
    bool has_value = false;
    std::int64_t value = 0;
    friend bool operator==(const Action&, const Action&) = default;
};

// The event of a visible instruction other than `await_` (whose events are the reads of its
// condition's `load_s` instructions, each this function's): its op and target, without a value.
// The one mapping from instructions to ops, for the interpreter and for dpor's summaries.
Action action_of(const Model& m, ThreadId t, const Instr& in);
// The vw(v) that follows a read-modify-write's vr(v) (action_of's) when it writes.
Action rmw_write(Action read);
// A condition variable's step (Code::cwait .. notifyall; docs/programs.md, "Condition
// variables"): rel(m) then wait(c), wake(c) then acq(m), notify(c), notifyall(c). Its cond ops
// are not emitted: no trace has them; the dependence relation and step tables do.
bool is_cond_step(Code c);
void cond_actions(ThreadId t, const Instr& in, std::vector<Action>& out);

// A failure noticed in a thread's local computation: FindingKind::assert_, divzero, ill_formed
// or bound, the finding it becomes (checker.hpp).
struct Failure {
    FindingKind kind = FindingKind::assert_;
    ThreadId thread = 0;
    std::uint32_t line = 0;
    std::string message;
};

struct Step {
    ThreadId thread = 0;
    std::vector<Action> actions;
    std::vector<Failure> failures; // noticed in this step's local computation
};

// Why a ready thread cannot move, for deadlock reports.
struct Wait {
    ThreadId thread = 0;
    std::uint32_t line = 0;
    std::string what; // e.g. "acq(m), held by deposit"
    // A join of a thread that was never forked (ill-formed): that thread.
    std::optional<ThreadId> never_forked;
};

class Interpreter {
public:
    // Local computation longer than this without a visible event stops the thread with a
    // `bound` failure (nothing hangs on `while (1) { skip; }`).
    static constexpr std::uint64_t max_local_steps = 1000000;

    explicit Interpreter(const Model& model) : model_(model) {}
    const Model& model() const { return model_; }

    // The initial state: root threads have run their local computation up to their first
    // visible instruction; failures noticed there go to `failures`.
    State initial(std::vector<Failure>& failures) const;

    // Threads that can take a step now, in increasing id order.
    void enabled(const State& s, std::vector<ThreadId>& out) const;
    bool is_enabled(const State& s, ThreadId t) const;

    // Performs the step of thread `t` (which must be enabled) on `s`.
    void step(State& s, ThreadId t, Step& out) const;

    // The ready threads, none enabled: who waits for what.
    std::vector<Wait> waits(const State& s) const;

    // The instruction thread t is at (it must be ready): a visible one, or a local await whose
    // condition is false for good.
    const Instr& next(const State& s, ThreadId t) const {
        return model_.threads[t].code[s.threads[t].pc];
    }

private:
    // Runs thread t's local computation up to a visible instruction, its end or a failure.
    void run_local(State& s, ThreadId t, std::vector<Failure>& failures) const;
    // One local instruction that is not expression code; false when the thread stops there.
    bool run_control(State& s, ThreadId t, const Instr& in, std::vector<Failure>& failures) const;
    // Whether a lock op is ill-formed (docs/programs.md, "Failures"): the failure if so.
    std::optional<Failure> ill_formed_lock_op(const State& s, ThreadId t, const Instr& in) const;
    // The effect of thread t's visible instruction `in` on `s`, its actions into `out`, the
    // threads it forks into `started`; false when t fails in it.
    bool perform(State& s, ThreadId t, const Instr& in, Step& out,
                 std::vector<ThreadId>& started) const;
    bool fork_step(State& s, ThreadId t, const Instr& in, Step& out,
                   std::vector<ThreadId>& started) const;
    // xchg, cas, fadd: vr(v=old) then, when it writes, vw(v=new), in one step.
    bool read_modify_write(State& s, ThreadState& ts, const Instr& in, Action read,
                           Step& out) const;
    // cwait, cwake, notify, notifyall (CondState).
    void cond_step(State& s, ThreadId t, const Instr& in, Step& out) const;
    // The threads waiting on c (at its cwake), and the index in c's tokens of the one t may
    // take (none: -1).
    std::size_t waiters(const State& s, std::uint32_t c) const;
    int token_for(const State& s, ThreadId t, std::uint32_t c) const;
    // Evaluates an await condition atomically; false on a division by zero (`failed` set).
    std::int64_t eval_await(const State& s, ThreadId t, std::uint32_t idx,
                            std::vector<Action>* reads, bool& failed) const;
    // Thread t's failure of kind k at `line`: it stops (docs/programs.md, "Failures").
    void fail(State& s, ThreadId t, FindingKind k, std::uint32_t line, std::string message,
              std::vector<Failure>& failures) const;

    const Model& model_;
};

// 64-bit wrapping arithmetic with C semantics; false on division by zero.
bool apply(BinOp op, std::int64_t a, std::int64_t b, std::int64_t& out);

} // namespace sfg::checker
