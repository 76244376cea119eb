// The step semantics of docs/programs.md (interpreter.hpp).
#include "sfg/checker/interpreter.hpp"

#include "sfg/runtime/trace/ill_formed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace sfg::checker {

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}
std::uint64_t wrap(std::uint64_t v) {
    return v;
}
} // namespace

std::uint64_t hash_state(const State& s) {
    std::uint64_t h = 0x12345;
    for (const ThreadState& t : s.threads) {
        h = mix(h, static_cast<std::uint64_t>(t.status) << 32 | t.pc);
        for (std::int64_t v : t.locals)
            h = mix(h, static_cast<std::uint64_t>(v));
        h = mix(h, t.stack.size());
        for (std::int64_t v : t.stack)
            h = mix(h, static_cast<std::uint64_t>(v));
    }
    for (std::int64_t v : s.shared)
        h = mix(h, static_cast<std::uint64_t>(v));
    for (ThreadId l : s.locks.holders())
        h = mix(h, l);
    for (std::uint32_t e : s.enters)
        h = mix(h, e);
    for (std::uint8_t f : s.forked)
        h = mix(h, f);
    for (const std::vector<ObjId>& q : s.queues) {
        h = mix(h, q.size());
        for (ObjId o : q)
            h = mix(h, o);
    }
    for (const ThreadState& t : s.threads)
        h = mix(h, t.since);
    for (const CondState& c : s.conds) {
        h = mix(h, c.seq);
        for (std::uint32_t k : c.tokens)
            h = mix(h, k);
    }
    return h;
}

bool apply(BinOp op, std::int64_t a, std::int64_t b, std::int64_t& out) {
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
    case BinOp::add:
        out = static_cast<std::int64_t>(wrap(ua + ub));
        return true;
    case BinOp::sub:
        out = static_cast<std::int64_t>(wrap(ua - ub));
        return true;
    case BinOp::mul:
        out = static_cast<std::int64_t>(wrap(ua * ub));
        return true;
    case BinOp::div:
    case BinOp::mod:
        if (b == 0)
            return false;
        if (a == std::numeric_limits<std::int64_t>::min() && b == -1)
            out = op == BinOp::div ? a : 0; // wraps
        else
            out = op == BinOp::div ? a / b : a % b;
        return true;
    case BinOp::eq:
        out = a == b;
        return true;
    case BinOp::ne:
        out = a != b;
        return true;
    case BinOp::lt:
        out = a < b;
        return true;
    case BinOp::le:
        out = a <= b;
        return true;
    case BinOp::gt:
        out = a > b;
        return true;
    case BinOp::ge:
        out = a >= b;
        return true;
    }
    return false;
}

State Interpreter::initial(std::vector<Failure>& failures) const {
    State s;
    const std::size_t n = model_.threads.size();
    s.threads.resize(n);
    for (const SharedVar& v : model_.shared)
        s.shared.push_back(v.init);
    s.locks.resize_locks(model_.locks.size());
    s.enters.assign(model_.barriers.size() * n, 0);
    s.forked.assign(n, 0);
    s.queues.resize(model_.queues.size());
    s.conds.resize(model_.conds.size());
    for (ThreadId t = 0; t < n; ++t) {
        s.threads[t].locals.assign(model_.threads[t].locals, 0);
        if (model_.threads[t].root) {
            s.threads[t].status = ThreadStatus::ready;
            run_local(s, t, failures);
        }
    }
    return s;
}

Action action_of(const Model& m, ThreadId t, const Instr& in) {
    Action a{t, Op::read, in.arg, in.line, true};
    switch (in.code) {
    case Code::load_s:
    case Code::read_s:
    case Code::store_s:
    case Code::write_s:
    case Code::xchg: // a read-modify-write: its vr here; its vw is rmw_write()
    case Code::cas:
    case Code::fadd: {
        const SharedVar& v = m.shared[in.arg];
        const bool write = in.code == Code::store_s || in.code == Code::write_s;
        a.op =
            v.is_volatile ? (write ? Op::vol_write : Op::vol_read) : (write ? Op::write : Op::read);
        a.target = v.sym;
        return a;
    }
    case Code::acq:
        a.op = Op::acquire;
        return a;
    case Code::rel:
        a.op = Op::release;
        return a;
    case Code::fork:
        a.op = Op::fork;
        return a;
    case Code::join:
        a.op = Op::join;
        return a;
    case Code::benter:
        a.op = Op::barrier_enter;
        return a;
    case Code::bexit:
        a.op = Op::barrier_exit;
        return a;
    case Code::begin:
    case Code::end:
        a.op = in.code == Code::begin ? Op::begin : Op::end;
        a.target = no_object;
        return a;
    case Code::enq:
        a.op = Op::enqueue;
        return a;
    case Code::deq:
        a.op = Op::dequeue;
        return a;
    default:
        throw std::logic_error("action_of: not an instruction of one event");
    }
}

void cond_actions(ThreadId t, const Instr& in, std::vector<Action>& out) {
    Action cond{t, Op::cond_notify, in.arg, in.line, false};
    const Action lock{t, in.code == Code::cwait ? Op::release : Op::acquire,
                      static_cast<ObjId>(in.value), in.line, true};
    switch (in.code) {
    case Code::cwait:
        cond.op = Op::cond_wait;
        out.push_back(lock);
        out.push_back(cond);
        return;
    case Code::cwake:
        cond.op = Op::cond_wake;
        out.push_back(cond);
        out.push_back(lock);
        return;
    case Code::notifyall:
        cond.op = Op::cond_notifyall;
        out.push_back(cond);
        return;
    default: // notify
        out.push_back(cond);
        return;
    }
}

bool is_cond_step(Code c) {
    return c == Code::cwait || c == Code::cwake || c == Code::notify || c == Code::notifyall;
}

namespace {

// A volatile's access carries its value: what a value label v==K waits for (thesis §5.1,
// docs/traces.md).
Action with_value(Action a, std::int64_t value) {
    if (is_volatile_access(a.op)) {
        a.has_value = true;
        a.value = value;
    }
    return a;
}

enum class Eval : std::uint8_t { done, divzero, other };

// One instruction of expression code (push, load_l, unary, binary, and_, or_, norm) on `stack`,
// moving `pc` on; `other` for any other instruction (pc unchanged).
Eval eval(const Instr& in, std::vector<std::int64_t>& stack,
          const std::vector<std::int64_t>& locals, std::uint32_t& pc) {
    switch (in.code) {
    case Code::push:
        stack.push_back(in.value);
        break;
    case Code::load_l:
        stack.push_back(locals[in.arg]);
        break;
    case Code::unary: {
        std::int64_t& v = stack.back();
        v = in.op == 1 ? (v == 0) : static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
        break;
    }
    case Code::binary: {
        std::int64_t b = stack.back();
        stack.pop_back();
        if (!apply(static_cast<BinOp>(in.op), stack.back(), b, stack.back()))
            return Eval::divzero;
        break;
    }
    case Code::and_:
        if (stack.back() == 0) {
            pc = in.arg;
            return Eval::done;
        }
        stack.pop_back();
        break;
    case Code::or_:
        if (stack.back() != 0) {
            stack.back() = 1;
            pc = in.arg;
            return Eval::done;
        }
        stack.pop_back();
        break;
    case Code::norm:
        stack.back() = stack.back() != 0;
        break;
    default:
        return Eval::other;
    }
    ++pc;
    return Eval::done;
}

} // namespace

void Interpreter::fail(State& s, ThreadId t, FindingKind k, std::uint32_t line, std::string message,
                       std::vector<Failure>& failures) const {
    s.threads[t].status = ThreadStatus::failed;
    s.threads[t].stack.clear();
    failures.push_back(Failure{k, t, line, std::move(message)});
}

// Runs thread t's invisible instructions; stops at a visible one (status ready), at a local
// await that is false (ready, never enabled), at the end, or at a failure (status failed).
void Interpreter::run_local(State& s, ThreadId t, std::vector<Failure>& failures) const {
    ThreadState& ts = s.threads[t];
    const std::vector<Instr>& code = model_.threads[t].code;
    for (std::uint64_t n = 0;; ++n) {
        if (n == max_local_steps) {
            fail(s, t, FindingKind::bound, code[ts.pc].line,
                 fmt::format("{} ran {} local instructions without a visible event",
                             model_.threads[t].name, n),
                 failures);
            return;
        }
        const Instr& in = code[ts.pc];
        switch (eval(in, ts.stack, ts.locals, ts.pc)) {
        case Eval::done:
            continue;
        case Eval::divzero:
            fail(s, t, FindingKind::divzero, in.line,
                 fmt::format("{} divides by zero at line {}", model_.threads[t].name, in.line),
                 failures);
            return;
        case Eval::other:
            break;
        }
        if (!run_control(s, t, in, failures))
            return;
    }
}

bool Interpreter::run_control(State& s, ThreadId t, const Instr& in,
                              std::vector<Failure>& failures) const {
    ThreadState& ts = s.threads[t];
    const std::string& name = model_.threads[t].name;
    switch (in.code) {
    case Code::store_l:
        ts.locals[in.arg] = ts.stack.back();
        ts.stack.pop_back();
        break;
    case Code::jump:
        ts.pc = in.arg;
        return true;
    case Code::jump_if_zero: {
        const std::int64_t v = ts.stack.back();
        ts.stack.pop_back();
        if (v == 0) {
            ts.pc = in.arg;
            return true;
        }
        break;
    }
    case Code::assert_: {
        const std::int64_t v = ts.stack.back();
        ts.stack.pop_back();
        if (v == 0) {
            fail(s, t, FindingKind::assert_, in.line,
                 fmt::format("assertion at line {} fails in {}", in.line, name), failures);
            return false;
        }
        break;
    }
    case Code::await_local: { // true: go on; false: stuck for good (its locals cannot change)
        bool failed = false;
        const std::int64_t v = eval_await(s, t, in.arg, nullptr, failed);
        if (failed) {
            fail(s, t, FindingKind::divzero, in.line,
                 fmt::format("{} divides by zero at line {}", name, in.line), failures);
            return false;
        }
        if (v == 0) {
            ts.status = ThreadStatus::ready;
            return false;
        }
        break;
    }
    case Code::halt:
        ts.status = ThreadStatus::ended;
        return false;
    default: // visible: t waits there, unless the op is ill-formed
        if (std::optional<Failure> f = ill_formed_lock_op(s, t, in)) {
            fail(s, t, f->kind, f->line, std::move(f->message), failures);
            return false;
        }
        ts.status = ThreadStatus::ready;
        return false;
    }
    ++ts.pc;
    return true;
}

// Ill-formed lock ops are noticed in the local computation: whether t holds m depends on t
// alone. Worded as the trace's well-formedness checker words them (ill_formed.hpp).
std::optional<Failure> Interpreter::ill_formed_lock_op(const State& s, ThreadId t,
                                                       const Instr& in) const {
    const std::string& name = model_.threads[t].name;
    if (in.code == Code::acq && s.locks.holder(in.arg) == t)
        return Failure{FindingKind::ill_formed, t, in.line,
                       ill_formed::acquire_own(name, model_.locks[in.arg], 0)};
    // A wait begins with rel(m): ill-formed as that rel would be.
    const bool releases = in.code == Code::rel || in.code == Code::cwait;
    const auto m = static_cast<ObjId>(in.code == Code::cwait ? in.value : in.arg);
    if (releases && s.locks.holder(m) != t) {
        const ThreadId h = s.locks.holder(m);
        return Failure{FindingKind::ill_formed, t, in.line,
                       h == no_object ? ill_formed::release_free(name, model_.locks[m])
                                      : ill_formed::release_held(name, model_.locks[m],
                                                                 model_.threads[h].name, 0)};
    }
    return std::nullopt;
}

std::int64_t Interpreter::eval_await(const State& s, ThreadId t, std::uint32_t idx,
                                     std::vector<Action>* reads, bool& failed) const {
    const std::vector<Instr>& code = model_.awaits[idx];
    std::vector<std::int64_t> stack;
    failed = false;
    for (std::uint32_t pc = 0;;) {
        const Instr& in = code[pc];
        switch (eval(in, stack, s.threads[t].locals, pc)) {
        case Eval::done:
            continue;
        case Eval::divzero:
            failed = true;
            return 0;
        case Eval::other:
            break;
        }
        if (in.code != Code::load_s) // halt
            return stack.empty() ? 0 : stack.back();
        if (reads)
            reads->push_back(with_value(action_of(model_, t, in), s.shared[in.arg]));
        stack.push_back(s.shared[in.arg]);
        ++pc;
    }
}

bool Interpreter::is_enabled(const State& s, ThreadId t) const {
    const ThreadState& ts = s.threads[t];
    if (ts.status != ThreadStatus::ready)
        return false;
    const Instr& in = next(s, t);
    switch (in.code) {
    case Code::acq:
        return s.locks.holder(in.arg) == no_object;
    case Code::join:
        for (ThreadId u : model_.thread_sets[in.arg])
            if (!s.done(u))
                return false;
        return true;
    case Code::bexit: {
        const std::size_t n = model_.threads.size();
        std::uint32_t mine = s.enters[in.arg * n + t];
        for (ThreadId u : model_.barriers[in.arg].members)
            if (s.enters[in.arg * n + u] < mine)
                return false;
        return true;
    }
    case Code::await_: {
        bool failed = false;
        std::int64_t v = eval_await(s, t, in.arg, nullptr, failed);
        return failed || v != 0;
    }
    case Code::await_local: // a thread stops at one only when it is false, for good
        return false;
    case Code::deq: { // FIFO: o must be at the front (docs/programs.md)
        const QueueItems& items = model_.syms.queue_items;
        const std::vector<ObjId>& q = s.queues[items.queue(in.arg)];
        return !q.empty() && q.front() == items.var(in.arg);
    }
    case Code::cwake: // notified, and the lock free to take again
        return token_for(s, t, in.arg) >= 0 &&
               s.locks.holder(static_cast<ObjId>(in.value)) == no_object;
    default:
        return true;
    }
}

void Interpreter::enabled(const State& s, std::vector<ThreadId>& out) const {
    out.clear();
    for (ThreadId t = 0; t < s.threads.size(); ++t)
        if (is_enabled(s, t))
            out.push_back(t);
}

void Interpreter::step(State& s, ThreadId t, Step& out) const {
    out.thread = t;
    out.actions.clear();
    out.failures.clear();
    std::vector<ThreadId> started;
    if (!perform(s, t, next(s, t), out, started))
        return;
    ++s.threads[t].pc;
    run_local(s, t, out.failures);
    for (ThreadId u : started)
        run_local(s, u, out.failures);
}

bool Interpreter::perform(State& s, ThreadId t, const Instr& in, Step& out,
                          std::vector<ThreadId>& started) const {
    ThreadState& ts = s.threads[t];
    if (in.code == Code::fork)
        return fork_step(s, t, in, out, started);
    if (in.code == Code::await_) { // the reads of its condition, atomically
        bool failed = false;
        eval_await(s, t, in.arg, &out.actions, failed);
        if (failed)
            fail(s, t, FindingKind::divzero, in.line,
                 fmt::format("{} divides by zero at line {}", model_.threads[t].name, in.line),
                 out.failures);
        return !failed;
    }
    if (is_cond_step(in.code)) {
        cond_step(s, t, in, out);
        return true;
    }
    Action a = action_of(model_, t, in);
    switch (in.code) {
    case Code::load_s:
        a = with_value(a, s.shared[in.arg]);
        ts.stack.push_back(s.shared[in.arg]);
        break;
    case Code::store_s:
        a = with_value(a, ts.stack.back());
        s.shared[in.arg] = ts.stack.back();
        ts.stack.pop_back();
        break;
    case Code::read_s:
    case Code::write_s: // `write v;` leaves the value (docs/programs.md)
        a = with_value(a, s.shared[in.arg]);
        break;
    case Code::acq:
        s.locks.acquire(t, in.arg);
        break;
    case Code::rel:
        s.locks.release(in.arg);
        break;
    case Code::benter:
        a.generation = ++s.enters[in.arg * model_.threads.size() + t];
        break;
    case Code::bexit:
        a.generation = s.enters[in.arg * model_.threads.size() + t];
        break;
    case Code::enq:
        s.queues[model_.syms.queue_items.queue(in.arg)].push_back(
            model_.syms.queue_items.var(in.arg));
        break;
    case Code::deq: {
        std::vector<ObjId>& q = s.queues[model_.syms.queue_items.queue(in.arg)];
        q.erase(q.begin());
        break;
    }
    case Code::xchg:
    case Code::cas:
    case Code::fadd:
        return read_modify_write(s, ts, in, a, out);

    default: // join, bexit, begin, end: the event alone
        break;
    }
    out.actions.push_back(a);
    return true;
}

bool Interpreter::read_modify_write(State& s, ThreadState& ts, const Instr& in, Action read,
                                    Step& out) const {
    std::int64_t& v = s.shared[in.arg];
    const std::int64_t old = v;
    const std::int64_t operand = ts.stack.back();
    ts.stack.pop_back();
    bool writes = true;
    switch (in.code) {
    case Code::xchg:
        v = operand;
        ts.stack.push_back(old);
        break;
    case Code::fadd:
        apply(BinOp::add, old, operand, v); // wraps
        ts.stack.push_back(old);
        break;
    default: // cas: operand is the value to write, below it the expected one
        writes = old == ts.stack.back();
        if (writes)
            v = operand;
        ts.stack.back() = writes ? 1 : 0;
        break;
    }
    out.actions.push_back(with_value(read, old));
    if (writes)
        out.actions.push_back(with_value(rmw_write(read), v));
    return true;
}

Action rmw_write(Action read) {
    read.op = Op::vol_write;
    return read;
}

void Interpreter::cond_step(State& s, ThreadId t, const Instr& in, Step& out) const {
    CondState& c = s.conds[in.arg];
    switch (in.code) {
    case Code::cwait:
        s.locks.release(static_cast<ObjId>(in.value));
        s.threads[t].since = c.seq;
        break;
    case Code::cwake:
        c.tokens.erase(c.tokens.begin() + token_for(s, t, in.arg));
        s.locks.acquire(t, static_cast<ObjId>(in.value));
        break;
    default: { // notify: one token, notifyall: one for every waiter; none beyond the waiters
        const std::size_t want = in.code == Code::notify ? c.tokens.size() + 1 : SIZE_MAX;
        const std::size_t waiting = waiters(s, in.arg);
        if (c.tokens.size() < std::min(want, waiting))
            ++c.seq;
        while (c.tokens.size() < std::min(want, waiting))
            c.tokens.push_back(c.seq);
        break;
    }
    }
    cond_actions(t, in, out.actions);
}

std::size_t Interpreter::waiters(const State& s, std::uint32_t c) const {
    std::size_t n = 0;
    for (ThreadId u = 0; u < s.threads.size(); ++u)
        if (s.threads[u].status == ThreadStatus::ready) {
            const Instr& in = next(s, u);
            n += in.code == Code::cwake && in.arg == c;
        }
    return n;
}

// The earliest token made after t began waiting: the tokens' sets of possible waiters are
// nested, so taking the earliest never leaves a token without the waiter that needed it.
int Interpreter::token_for(const State& s, ThreadId t, std::uint32_t c) const {
    const std::vector<std::uint32_t>& tokens = s.conds[c].tokens;
    const auto it = std::upper_bound(tokens.begin(), tokens.end(), s.threads[t].since);
    return it == tokens.end() ? -1 : static_cast<int>(it - tokens.begin());
}

bool Interpreter::fork_step(State& s, ThreadId t, const Instr& in, Step& out,
                            std::vector<ThreadId>& started) const {
    const std::vector<ThreadId>& set = model_.thread_sets[in.arg];
    for (ThreadId u : set)
        if (s.forked[u] || model_.threads[u].root) {
            // Forking a thread twice (docs/programs.md): no event; the fork still counts for the
            // dependence relation.
            Action a = action_of(model_, t, in);
            a.emitted = false;
            out.actions.push_back(a);
            fail(s, t, FindingKind::ill_formed, in.line,
                 ill_formed::fork_forked(model_.threads[t].name, model_.threads[u].name, 0),
                 out.failures);
            return false;
        }
    out.actions.push_back(action_of(model_, t, in));
    for (ThreadId u : set) {
        s.forked[u] = 1;
        s.threads[u].status = ThreadStatus::ready;
        started.push_back(u);
    }
    return true;
}

std::vector<Wait> Interpreter::waits(const State& s) const {
    std::vector<Wait> out;
    for (ThreadId t = 0; t < s.threads.size(); ++t) {
        if (s.threads[t].status != ThreadStatus::ready || is_enabled(s, t))
            continue;
        const Instr& in = next(s, t);
        Wait w{t, in.line, {}, std::nullopt};
        switch (in.code) {
        case Code::acq: {
            ThreadId h = s.locks.holder(in.arg);
            w.what = fmt::format("{}({}), held by {}{}", spelling(Op::acquire),
                                 model_.locks[in.arg], model_.threads[h].name,
                                 s.threads[h].status == ThreadStatus::failed  ? " (failed)"
                                 : s.threads[h].status == ThreadStatus::ended ? " (ended)"
                                                                              : "");
            break;
        }
        case Code::join: {
            std::string names;
            for (ThreadId u : model_.thread_sets[in.arg])
                if (!s.done(u)) {
                    bool never = s.threads[u].status == ThreadStatus::unforked;
                    names += fmt::format("{}{}{}", names.empty() ? "" : ", ",
                                         model_.threads[u].name, never ? " (never forked)" : "");
                    if (never && !w.never_forked)
                        w.never_forked = u;
                }
            std::string set;
            for (ThreadId u : model_.thread_sets[in.arg])
                set += (set.empty() ? "" : ",") + model_.threads[u].name;
            w.what = fmt::format("{}({}) for {}", spelling(Op::join), set, names);
            break;
        }
        case Code::bexit: {
            const std::size_t n = model_.threads.size();
            std::string names;
            for (ThreadId u : model_.barriers[in.arg].members)
                if (s.enters[in.arg * n + u] < s.enters[in.arg * n + t])
                    names += fmt::format("{}{}", names.empty() ? "" : ", ", model_.threads[u].name);
            w.what = fmt::format("{}({}) for {}", spelling(Op::barrier_exit),
                                 model_.barriers[in.arg].name, names);
            break;
        }
        case Code::await_:
        case Code::await_local:
            w.what = fmt::format("await at line {} (condition false)", in.line);
            break;
        case Code::cwake: {
            const auto m = static_cast<ObjId>(in.value);
            const ThreadId h = s.locks.holder(m);
            w.what =
                token_for(s, t, in.arg) < 0
                    ? fmt::format("wait({}), not notified", model_.conds[in.arg])
                    : fmt::format("{}({}) after wait({}), held by {}", spelling(Op::acquire),
                                  model_.locks[m], model_.conds[in.arg], model_.threads[h].name);
            break;
        }
        case Code::deq: {
            const QueueItems& items = model_.syms.queue_items;
            const std::string& qname = model_.queues[items.queue(in.arg)];
            const std::vector<ObjId>& q = s.queues[items.queue(in.arg)];
            w.what = fmt::format(
                "{}({},{}), {}", spelling(Op::dequeue), qname,
                model_.syms.vars.name(items.var(in.arg)),
                q.empty() ? fmt::format("{} is empty", qname)
                          : fmt::format("{} first in {}", model_.syms.vars.name(q.front()), qname));
            break;
        }
        default:
            w.what = "?";
        }
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace sfg::checker
