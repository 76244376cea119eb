// The step semantics of docs/programs.md (interpreter.hpp).
#include "sfg/checker/interpreter.hpp"

#include <fmt/format.h>

#include <limits>

namespace sfg::check {

const char* to_string(FailureKind k) {
    switch (k) {
    case FailureKind::assert_:
        return "assert";
    case FailureKind::divzero:
        return "divzero";
    case FailureKind::ill_formed:
        return "ill-formed";
    case FailureKind::bound:
        return "bound";
    }
    return "?";
}

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
    for (ThreadId t = 0; t < n; ++t) {
        s.threads[t].locals.assign(model_.threads[t].locals, 0);
        if (model_.threads[t].root) {
            s.threads[t].status = ThreadStatus::ready;
            run_local(s, t, failures);
        }
    }
    return s;
}

// Runs thread t's invisible instructions; stops at a visible one (status ready), at the end, or
// at a failure (status failed). Ill-formed lock ops are noticed here: whether t holds m depends
// on t alone.
void Interpreter::run_local(State& s, ThreadId t, std::vector<Failure>& failures) const {
    ThreadState& ts = s.threads[t];
    const std::vector<Instr>& code = model_.threads[t].code;
    auto fail = [&](FailureKind k, std::uint32_t line, std::string msg) {
        ts.status = ThreadStatus::failed;
        ts.stack.clear();
        failures.push_back(Failure{k, t, line, std::move(msg)});
    };
    const std::string& name = model_.threads[t].name;
    for (std::uint64_t n = 0;; ++n) {
        if (n == max_local_steps) {
            fail(FailureKind::bound, code[ts.pc].line,
                 fmt::format("{} ran {} local instructions without a visible event", name, n));
            return;
        }
        const Instr& in = code[ts.pc];
        switch (in.code) {
        case Code::push:
            ts.stack.push_back(in.value);
            break;
        case Code::load_l:
            ts.stack.push_back(ts.locals[in.arg]);
            break;
        case Code::store_l:
            ts.locals[in.arg] = ts.stack.back();
            ts.stack.pop_back();
            break;
        case Code::unary: {
            std::int64_t& v = ts.stack.back();
            v = in.op == 1 ? (v == 0)
                           : static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
            break;
        }
        case Code::binary: {
            std::int64_t b = ts.stack.back();
            ts.stack.pop_back();
            std::int64_t& a = ts.stack.back();
            std::int64_t r = 0;
            if (!apply(static_cast<BinOp>(in.op), a, b, r)) {
                fail(FailureKind::divzero, in.line,
                     fmt::format("{} divides by zero at line {}", name, in.line));
                return;
            }
            a = r;
            break;
        }
        case Code::and_:
            if (ts.stack.back() == 0) {
                ts.pc = in.arg;
                continue;
            }
            ts.stack.pop_back();
            break;
        case Code::or_:
            if (ts.stack.back() != 0) {
                ts.stack.back() = 1;
                ts.pc = in.arg;
                continue;
            }
            ts.stack.pop_back();
            break;
        case Code::norm:
            ts.stack.back() = ts.stack.back() != 0;
            break;
        case Code::jump:
            ts.pc = in.arg;
            continue;
        case Code::jump_if_zero: {
            std::int64_t v = ts.stack.back();
            ts.stack.pop_back();
            if (v == 0) {
                ts.pc = in.arg;
                continue;
            }
            break;
        }
        case Code::assert_: {
            std::int64_t v = ts.stack.back();
            ts.stack.pop_back();
            if (v == 0) {
                fail(FailureKind::assert_, in.line,
                     fmt::format("assertion at line {} fails in {}", in.line, name));
                return;
            }
            break;
        }
        case Code::halt:
            ts.status = ThreadStatus::ended;
            return;
        case Code::acq:
            if (s.locks.holder(in.arg) == t) {
                fail(FailureKind::ill_formed, in.line,
                     fmt::format("{} acquires lock {} that it holds (line {})", name,
                                 model_.locks[in.arg], in.line));
                return;
            }
            ts.status = ThreadStatus::ready;
            return;
        case Code::rel:
            if (s.locks.holder(in.arg) != t) {
                fail(FailureKind::ill_formed, in.line,
                     fmt::format("{} releases lock {} that it does not hold (line {})", name,
                                 model_.locks[in.arg], in.line));
                return;
            }
            ts.status = ThreadStatus::ready;
            return;
        default: // visible
            ts.status = ThreadStatus::ready;
            return;
        }
        ++ts.pc;
    }
}

Action Interpreter::access(ThreadId t, Code code, std::uint32_t shared, std::uint32_t line,
                           std::int64_t value) const {
    const SharedVar& v = model_.shared[shared];
    bool write = code == Code::store_s || code == Code::write_s;
    Op op = v.is_volatile ? (write ? Op::vol_write : Op::vol_read) : (write ? Op::write : Op::read);
    // A volatile's value is what a value label v==K waits for (thesis §5.1, docs/traces.md).
    return Action{t, op, v.sym, line, true, v.is_volatile, v.is_volatile ? value : 0};
}

std::int64_t Interpreter::eval_await(const State& s, ThreadId t, std::uint32_t idx,
                                     std::vector<Action>* reads, bool& failed) const {
    const std::vector<Instr>& code = model_.awaits[idx];
    const ThreadState& ts = s.threads[t];
    std::vector<std::int64_t> stack;
    failed = false;
    for (std::uint32_t pc = 0;;) {
        const Instr& in = code[pc];
        switch (in.code) {
        case Code::push:
            stack.push_back(in.value);
            break;
        case Code::load_l:
            stack.push_back(ts.locals[in.arg]);
            break;
        case Code::load_s:
            if (reads)
                reads->push_back(access(t, Code::load_s, in.arg, in.line, s.shared[in.arg]));
            stack.push_back(s.shared[in.arg]);
            break;
        case Code::unary: {
            std::int64_t& v = stack.back();
            v = in.op == 1 ? (v == 0)
                           : static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v));
            break;
        }
        case Code::binary: {
            std::int64_t b = stack.back();
            stack.pop_back();
            if (!apply(static_cast<BinOp>(in.op), stack.back(), b, stack.back())) {
                failed = true;
                return 0;
            }
            break;
        }
        case Code::and_:
            if (stack.back() == 0) {
                pc = in.arg;
                continue;
            }
            stack.pop_back();
            break;
        case Code::or_:
            if (stack.back() != 0) {
                stack.back() = 1;
                pc = in.arg;
                continue;
            }
            stack.pop_back();
            break;
        case Code::norm:
            stack.back() = stack.back() != 0;
            break;
        default: // halt
            return stack.empty() ? 0 : stack.back();
        }
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
    case Code::deq: { // FIFO: o must be at the front (docs/programs.md)
        const QueueItems& items = model_.syms.queue_items;
        const std::vector<ObjId>& q = s.queues[items.queue(in.arg)];
        return !q.empty() && q.front() == items.var(in.arg);
    }
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
    ThreadState& ts = s.threads[t];
    const Instr& in = next(s, t);
    const std::string& name = model_.threads[t].name;
    std::vector<ThreadId> started;
    switch (in.code) {
    case Code::load_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line, s.shared[in.arg]));
        ts.stack.push_back(s.shared[in.arg]);
        break;
    case Code::store_s:
        out.actions.push_back(access(t, in.code, in.arg, in.line, ts.stack.back()));
        s.shared[in.arg] = ts.stack.back();
        ts.stack.pop_back();
        break;
    case Code::read_s:
    case Code::write_s: // `write v;` leaves the value (docs/programs.md)
        out.actions.push_back(access(t, in.code, in.arg, in.line, s.shared[in.arg]));
        break;
    case Code::acq:
        out.actions.push_back(Action{t, Op::acquire, in.arg, in.line, true});
        s.locks.acquire(t, in.arg);
        break;
    case Code::rel:
        out.actions.push_back(Action{t, Op::release, in.arg, in.line, true});
        s.locks.release(in.arg);
        break;
    case Code::fork: {
        const std::vector<ThreadId>& set = model_.thread_sets[in.arg];
        for (ThreadId u : set)
            if (s.forked[u] || model_.threads[u].root) {
                // Forking a thread twice (docs/programs.md): no event; the fork still counts
                // for the dependence relation.
                out.actions.push_back(Action{t, Op::fork, in.arg, in.line, false});
                ts.status = ThreadStatus::failed;
                ts.stack.clear();
                out.failures.push_back(
                    Failure{FailureKind::ill_formed, t, in.line,
                            fmt::format("{} forks {}, which was forked before (line {})", name,
                                        model_.threads[u].name, in.line)});
                return;
            }
        out.actions.push_back(Action{t, Op::fork, in.arg, in.line, true});
        for (ThreadId u : set) {
            s.forked[u] = 1;
            s.threads[u].status = ThreadStatus::ready;
            started.push_back(u);
        }
        break;
    }
    case Code::join:
        out.actions.push_back(Action{t, Op::join, in.arg, in.line, true});
        break;
    case Code::benter:
        out.actions.push_back(Action{t, Op::barrier_enter, in.arg, in.line, true});
        ++s.enters[in.arg * model_.threads.size() + t];
        break;
    case Code::bexit:
        out.actions.push_back(Action{t, Op::barrier_exit, in.arg, in.line, true});
        break;
    case Code::await_: {
        bool failed = false;
        eval_await(s, t, in.arg, &out.actions, failed);
        if (failed) {
            ts.status = ThreadStatus::failed;
            out.failures.push_back(
                Failure{FailureKind::divzero, t, in.line,
                        fmt::format("{} divides by zero at line {}", name, in.line)});
            return;
        }
        break;
    }
    case Code::begin:
        out.actions.push_back(Action{t, Op::begin, no_object, in.line, true});
        break;
    case Code::end:
        out.actions.push_back(Action{t, Op::end, no_object, in.line, true});
        break;
    case Code::enq: {
        const QueueItems& items = model_.syms.queue_items;
        out.actions.push_back(Action{t, Op::enqueue, in.arg, in.line, true});
        s.queues[items.queue(in.arg)].push_back(items.var(in.arg));
        break;
    }
    case Code::deq: {
        std::vector<ObjId>& q = s.queues[model_.syms.queue_items.queue(in.arg)];
        out.actions.push_back(Action{t, Op::dequeue, in.arg, in.line, true});
        q.erase(q.begin());
        break;
    }
    default:
        return; // not a visible instruction: nothing to do
    }
    ++ts.pc;
    run_local(s, t, out.failures);
    for (ThreadId u : started)
        run_local(s, u, out.failures);
}

std::vector<Wait> Interpreter::waits(const State& s) const {
    std::vector<Wait> out;
    for (ThreadId t = 0; t < s.threads.size(); ++t) {
        if (s.threads[t].status != ThreadStatus::ready || is_enabled(s, t))
            continue;
        const Instr& in = next(s, t);
        Wait w{t, in.line, {}, false};
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
                    w.ill_formed = w.ill_formed || never;
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
            w.what = fmt::format("await at line {} (condition false)", in.line);
            break;
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

} // namespace sfg::check
