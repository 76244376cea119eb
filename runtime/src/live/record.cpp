// Recording an event (docs/enforcers.md, "How it works"): the hot path of every instrumented
// operation. Under log and collect, a thread of the session appends its event to its ring
// (event_queue.hpp) without the global lock; otherwise one global lock orders every operation,
// so that the events form one linearization of the real execution, and the event goes through
// the session (session_impl.hpp) before the operation returns.
#include "event_lock.hpp"
#include "event_queue.hpp"
#include "global_state.hpp"
#include "queue_item.hpp"
#include "session_impl.hpp"

#include "sfg/runtime/live/control.hpp"

#include <fmt/format.h>

#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sfg::detail {

// The global state and the calling thread's identity (global_state.hpp), defined here, with the
// recording that reads them on every event.
GlobalState& global() {
    static auto* g = new GlobalState; // never destroyed: threads may outlive static destructors
    return *g;
}

constinit thread_local ThreadRecord this_thread;
constinit thread_local unsigned mutexes_held = 0;
constinit thread_local unsigned checking_forbidden = 0;

namespace {

QueuedEvent make_event(Op op, ObjId target, const sfg::source_location* where) {
    return {where ? where->file_name() : nullptr,
            where ? where->line() : 0,
            where ? where->column() : 0,
            target,
            this_thread.id,
            op};
}

} // namespace

std::optional<finding> record_event(const object& o, Op op, const sfg::source_location* where,
                                    void (*access)(void*), void* context, const std::int64_t* value,
                                    const rmw_write* then) {
    // A session with a checker thread: a thread of it appends the event, resolving the object
    // first if it is new (docs/enforcers.md, "How it works").
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial) {
        std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
        if (cache >> 32 != serial) {
            // Resolving may report a misuse of the name: after the events before it.
            queue().drain(serial);
            EventLock lock;
            if (SessionImpl* s = global().current; s && s->serial == serial)
                cache = object_cache(serial, s->resolve(o, this_thread.id));
        }
        if (cache >> 32 == serial) {
            const QueuedEvent e = make_event(op, static_cast<ObjId>(cache), where);
            const AppendResult r =
                queue().append(serial, &e, access, context, &o, true, value, then);
            if (r == AppendResult::appended)
                return std::nullopt;
            if (r == AppendResult::refused_after_access)
                access = nullptr; // done once
        }
        // The session has closed meanwhile: reported below.
    }
    EventLock lock;
    if (access) { // under the object's lock too: a session's threads access it under that alone
        std::lock_guard object(object_lock(&o));
        access_atomically(op, &o, access, context, then ? then->wrote : nullptr);
    }
    SessionImpl* s = global().current;
    if (!s)
        return orphan(o, "used");
    const ThreadRecord& me = this_thread;
    if (me.serial != s->serial) {
        s->add_misuse(o.name, no_object,
                      fmt::format("{} '{}' used by a thread not started through sfg::thread or "
                                  "sfg::thread_group (nor the session's main thread)",
                                  to_string(o.kind), o.name),
                      op, true);
        return s->take_fresh();
    }
    forget_stale_ring(s->serial);
    const ObjId id = s->resolve(o, me.id);
    const ObjId location =
        where ? s->location(where->file_name(), where->line(), where->column()) : no_object;
    s->push(me.id, op, id, location, o.name, value ? s->syms.values.intern(*value) : no_object);
    if (then && *then->wrote) // under EventLock: nothing comes between the vr and the vw
        s->push(me.id, Op::vol_write, id, location, o.name,
                then->value ? s->syms.values.intern(*then->value) : no_object);
    return s->take_fresh();
}

namespace {

// The id of the pair (q, item) in session `serial` if `cache` has it, else no_object.
ObjId cached_item(QueueItemCache& cache, std::uint64_t serial, const object& item) {
    const std::uint64_t c = item.cache.load(std::memory_order_relaxed);
    if (c >> 32 != serial)
        return no_object;
    HiddenScope hidden;
    std::lock_guard l(cache.lock);
    const auto var = static_cast<ObjId>(c);
    return cache.serial == serial && var < cache.by_var.size() ? cache.by_var[var] : no_object;
}

// Under EventLock: the pair's id in session s, interned, and kept in `cache`.
ObjId resolve_item(SessionImpl& s, QueueItemCache& cache, const object& q, const object& item,
                   ThreadId t) {
    const ObjId id = s.resolve_item(q, item, t);
    const auto var = static_cast<ObjId>(item.cache.load(std::memory_order_relaxed));
    HiddenScope hidden;
    std::lock_guard l(cache.lock);
    if (cache.serial != s.serial) {
        cache.serial = s.serial;
        cache.by_var.clear();
    }
    if (var >= cache.by_var.size())
        cache.by_var.resize(var + 1, no_object);
    cache.by_var[var] = id;
    return id;
}

} // namespace

std::optional<finding> record_queue_event(const object& q, const object& item, Op op,
                                          QueueItemCache& cache) {
    // As record_event, with the pair (q, item) as the event's object.
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial) {
        ObjId id = cached_item(cache, serial, item);
        if (id == no_object) {
            queue().drain(serial); // resolving may report a misuse: after the events before it
            EventLock lock;
            if (SessionImpl* s = global().current; s && s->serial == serial)
                id = resolve_item(*s, cache, q, item, this_thread.id);
        }
        if (id != no_object) {
            const QueuedEvent e = make_event(op, id, nullptr);
            if (queue().append(serial, &e, nullptr, nullptr, nullptr) == AppendResult::appended)
                return std::nullopt;
        }
        // The session has closed meanwhile: reported below.
    }
    EventLock lock;
    SessionImpl* s = global().current;
    if (!s)
        return orphan(q, "used");
    const ThreadRecord& me = this_thread;
    if (me.serial != s->serial) {
        s->add_misuse(q.name, no_object,
                      fmt::format("queue '{}' used by a thread not started through sfg::thread or "
                                  "sfg::thread_group (nor the session's main thread)",
                                  q.name),
                      op, true);
        return s->take_fresh();
    }
    forget_stale_ring(s->serial);
    s->push(me.id, op, resolve_item(*s, cache, q, item, me.id), no_object, q.name);
    return s->take_fresh();
}

namespace {

// The operation's scheduling point under sfg::explore (sfg/runtime/live/control.hpp): false when
// the run was given up and the operation runs unrecorded.
bool scheduled(const object& o, Op op, const sfg::source_location* where, bool rmw) {
    Control* c = control();
    if (!c) [[likely]]
        return true;
    Point p;
    p.op = op;
    p.obj = &o;
    if (where) {
        p.file = where->file_name();
        p.line = where->line();
    }
    p.rmw = rmw;
    return c->point(p) == Scheduled::run;
}

void record_scheduled(const object& o, Op op, const sfg::source_location* where,
                      void (*access)(void*), void* context, const std::int64_t* value,
                      const rmw_write* then) {
    if (std::optional<finding> f = record_event(o, op, where, access, context, value, then))
        throw finding_error(std::move(*f));
}

} // namespace

void record_access(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
                   void* context) {
    if (!scheduled(o, op, where, false))
        return hidden_access(access, context);
    // The common case, without any lock: a thread of a session with a checker thread, an
    // object it has resolved. The access is done now; its event waits in the thread's ring.
    const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
    const std::uint64_t cache = o.cache.load(std::memory_order_relaxed);
    if (serial == 0 || this_thread.serial != serial || cache >> 32 != serial)
        return record_scheduled(o, op, where, access, context, nullptr, nullptr);
    hidden_access(access, context);
    if (!queue().push_access(serial, make_event(op, static_cast<ObjId>(cache), where)))
        record_scheduled(o, op, where, nullptr, nullptr, nullptr,
                         nullptr); // the session has closed meanwhile
}

void drain_before_misuse() {
    // A misuse is reported after the events that came before it (findings in event order).
    if (const std::uint64_t serial = global().deferring.load(std::memory_order_relaxed);
        serial != 0 && this_thread.serial == serial)
        queue().drain(serial);
}

void record(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
            void* context, const std::int64_t* value, const rmw_write* then) {
    if (!scheduled(o, op, where, then != nullptr)) {
        if (access)
            hidden_access(access, context);
        return;
    }
    record_scheduled(o, op, where, access, context, value, then);
}

void yield() {
    if (Control* c = control()) { // not scheduled again until another thread has taken a step
        Point p;
        p.yield = true;
        c->point(p);
        return;
    }
    std::this_thread::yield();
}

namespace {

// An await's condition running (sfg::await): bound to the calling thread for one evaluation, so
// that its loads are neither scheduling points nor, when peeking, recorded; anything else than a
// load of a volatile is refused.
class Evaluation final : public Control {
public:
    Evaluation(bool recorded, std::vector<const object*>* reads)
        : recorded_(recorded), reads_(reads), outer_(bind_control(this)) {}
    ~Evaluation() override { bind_control(outer_); }
    Evaluation(const Evaluation&) = delete;
    Evaluation& operator=(const Evaluation&) = delete;

    Scheduled point(const Point& p) override {
        if (p.op != Op::vol_read || p.rmw || p.yield || p.await || !p.obj)
            refuse();
        if (reads_)
            reads_->push_back(p.obj);
        return recorded_ ? Scheduled::run : Scheduled::silent;
    }
    bool attempt_succeeds() override { refuse(); }
    void forked(const GroupImpl&, const std::vector<std::string>&) override { refuse(); }
    void thread_begins(const GroupImpl&, std::size_t) override { refuse(); }
    void thread_ends(std::exception_ptr) override {}
    void launch(const GroupImpl&, std::size_t, std::function<void()>) override { refuse(); }
    void await(const GroupImpl&) override { refuse(); }
    bool swallows_thread_errors() const override { return false; }
    void await_turned_false() override { refuse(); }

private:
    [[noreturn]] static void refuse() {
        throw std::logic_error("sfg::await: the condition may only load sfg::volatile_vars");
    }
    bool recorded_;
    std::vector<const object*>* reads_;
    Control* outer_;
};

} // namespace

bool peek_await(const await_condition& c, std::vector<const object*>& reads) {
    Evaluation e(false, &reads);
    return c.holds(c.context);
}

void await_until(const await_condition& c) {
    if (Control* ctl = control()) { // sfg::explore: one step, taken when the condition holds
        Point p;
        p.op = Op::vol_read;
        p.await = &c;
        if (ctl->point(p) != Scheduled::run)
            return; // the run is given up and this thread unwinds
        bool holds = false;
        {
            Evaluation e(true, nullptr);
            holds = c.holds(c.context);
        }
        if (!holds)
            ctl->await_turned_false();
        return;
    }
    // Live: peek until the condition holds, then evaluate it once more, recording its loads (a
    // false one too, if a write came in between: then it spins on). The step's events are the
    // reads that let it go on, as programs' await's; of a volatile both load, every vw an earlier
    // load saw precedes the later load in the linearization, so hb of the later one subsumes the
    // earlier's (docs/enforcers.md, "Atomics and condition variables").
    std::vector<const object*> reads;
    for (;;) {
        reads.clear();
        if (peek_await(c, reads)) {
            Evaluation e(true, nullptr);
            if (c.holds(c.context))
                return;
        }
        std::this_thread::yield();
    }
}

std::optional<finding> misuse(const object& o, const std::string& what) {
    drain_before_misuse();
    EventLock lock;
    SessionImpl* s = global().current;
    if (!s)
        return orphan(o, "misused");
    const ThreadRecord& me = this_thread;
    s->add_misuse(o.name, me.serial == s->serial ? me.id : no_object, what);
    return s->take_fresh();
}

bool SessionImpl::event(ThreadId t, Op op, ObjId target, const std::string& object) {
    if (!queued())
        return push(t, op, target, no_object, object);
    const QueuedEvent e{nullptr, 0, 0, target, t, op};
    // The caller holds EventLock, which the checker needs to make room: reserve_event() made it.
    return queue().append(serial, &e, nullptr, nullptr, nullptr, false) == AppendResult::appended;
}

} // namespace sfg::detail
