// The live runtime (docs/enforcers.md): a program's threads, locks, volatiles, barriers, queues and
// shared variables as sfg:: types that report every operation, in one linearization of the real
// execution, to the analyses of a session (enforce, hb, fasttrack, goldilocks, eraser,
// singletrack), which check it against a specification (`sfgc SPEC --emit-cpp`), for races, and
// the deterministic blocks it marks with sfg::deterministic for determinism.
//
//     sfg::session s(bank::spec());
//     sfg::mutex m("m");
//     sfg::shared<int> balance("balance", 0);
//     sfg::thread t("deposit", [&] { std::lock_guard g(m); balance = balance + 10; });
//     t.join();
//     CHECK(s.findings().empty());
#pragma once

#include "sfg/runtime/op.hpp"
#include "sfg/spec.hpp"

#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <source_location>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <version>

namespace sfg {

#if defined(__cpp_lib_source_location)
using source_location = std::source_location;
#else
// Clang before 15 with libstdc++ has no std::source_location: the same from the builtins.
class source_location {
public:
    static constexpr source_location
    current(const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
            std::uint_least32_t line = __builtin_LINE(),
            std::uint_least32_t column = __builtin_COLUMN()) noexcept {
        source_location l;
        l.file_ = file;
        l.function_ = function;
        l.line_ = line;
        l.column_ = column;
        return l;
    }
    constexpr const char* file_name() const noexcept { return file_; }
    constexpr const char* function_name() const noexcept { return function_; }
    constexpr std::uint_least32_t line() const noexcept { return line_; }
    constexpr std::uint_least32_t column() const noexcept { return column_; }

private:
    const char* file_ = "";
    const char* function_ = "";
    std::uint_least32_t line_ = 0, column_ = 0;
};
#endif

// What a session does with a finding: `log` prints a report on standard error and collects it;
// `throw_error` collects it and throws finding_error from the offending operation, in the
// offending thread; `abort` prints it and aborts; `collect` only collects it.
enum class on_finding { log, throw_error, abort, collect };

struct session_options {
    on_finding policy = on_finding::log;
    // Any of enforce, hb, fasttrack, goldilocks, eraser, singletrack, comma-separated. enforce
    // needs a spec (without one it is left out); singletrack checks the sfg::deterministic blocks
    // (docs/determinism.md).
    std::string analyses = "enforce,hb,goldilocks";
    std::string main_thread = "main"; // the name of the thread that opens the session
    std::string trace_path;           // non-empty (or env SFG_TRACE): record the events
};

// One finding: one per (analysis, variable), as `sfgc trace` reports them; or a misuse of the
// runtime.
struct finding {
    // "violation" | "race" | "warning" (eraser) | "conflict" | "cycle" (singletrack) | "misuse"
    std::string kind;
    // "enforce" | "hb" | "fasttrack" | "goldilocks" | "eraser" | "singletrack" | "" (misuse)
    std::string analysis;
    // The variable (a conflict's: the variable, volatile or lock), or the misused object; empty
    // for a cycle
    std::string var;
    std::string thread;  // the thread of the offending operation
    std::string op;      // as in traces: "r", "w", "acq", ...; "" when there is no event
    std::string message; // the full report, as `sfgc trace` prints it
};

// Thrown by the offending operation under on_finding::throw_error.
class finding_error : public std::runtime_error {
public:
    explicit finding_error(sfg::finding f)
        : std::runtime_error(f.message), finding_(std::move(f)) {}
    const sfg::finding& details() const noexcept { return finding_; }

private:
    sfg::finding finding_;
};

namespace detail {
struct SessionImpl;
struct GroupImpl;
struct QueueImpl;

// A thread's body, type-erased and move-only (std::function needs copyable callables).
struct task {
    virtual ~task() = default;
    virtual void run() = 0;
};
template <class F>
struct task_of final : task {
    explicit task_of(F f) : f(std::move(f)) {}
    void run() override { f(); }
    F f;
};
template <class F>
std::unique_ptr<task> make_task(F&& f) {
    return std::make_unique<task_of<std::decay_t<F>>>(std::forward<F>(f));
}

// A read-modify-write's second event (docs/enforcers.md, "Atomics and condition variables"): after
// its vr(v), a vw(v) of the same thread when `*wrote` (set by the access), carrying `*value` when
// not null.
struct rmw_write {
    const bool* wrote = nullptr;
    const std::int64_t* value = nullptr;
};

// sfg::await's condition, type-erased: holds(context) evaluates it; vars[0..count) are the
// volatiles it may load, when the caller names them (count 0: those it loads).
struct await_condition {
    bool (*holds)(void*) = nullptr;
    void* context = nullptr;
    const struct object* const* vars = nullptr;
    std::size_t count = 0;
};
struct volatile_access; // a volatile_var's object, for sfg::await

#if defined(SFG_DISABLE)
// The switch for release builds of the same code (docs/enforcers.md, "Switching it off"): every
// type below is its std counterpart with the same interface; names are ignored, objects take no
// room beside what they wrap, nothing is recorded and nothing is checked. What differs from the
// checked build is all here and in the inline definitions at the end of this file.
using name_arg = std::string_view;

struct object {
    constexpr object(std::string_view, Namespace) noexcept {}
};
struct lock_object : object {
    using object::object;
};
struct block_handle {}; // a deterministic block: nothing to end
struct barrier_count {  // nothing to explore
    constexpr barrier_count(std::ptrdiff_t) noexcept {}
};

// The access runs, as the operation does without sfg.
inline std::optional<finding> record_event(const object&, Op, const sfg::source_location*,
                                           void (*access)(void*), void* context,
                                           const std::int64_t* = nullptr,
                                           const rmw_write* = nullptr) {
    if (access)
        access(context);
    return std::nullopt;
}
inline void record(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
                   void* context, const std::int64_t* value = nullptr,
                   const rmw_write* then = nullptr) {
    record_event(o, op, where, access, context, value, then);
}
inline void yield() {
    std::this_thread::yield();
}
inline void await_until(const await_condition& c) {
    while (!c.holds(c.context))
        std::this_thread::yield();
}
inline void record_access(const object& o, Op op, const sfg::source_location* where,
                          void (*access)(void*), void* context) {
    record_event(o, op, where, access, context);
}

// A FIFO of the objects under a std::mutex.
struct QueueImpl {
    std::mutex m;
    std::condition_variable ready;
    std::deque<void*> items;
};
// Held in place, as the checked build holds its pointer.
struct queue_handle {
    QueueImpl q;
    QueueImpl& operator*() { return q; }
};
inline queue_handle make_queue(std::string_view) {
    return {};
}
inline std::optional<finding> queue_push(QueueImpl& q, void* item, const object&) {
    {
        std::lock_guard l(q.m);
        q.items.push_back(item);
    }
    q.ready.notify_one();
    return std::nullopt;
}
inline std::optional<finding> queue_pop(QueueImpl& q, bool wait, void*& item) {
    std::unique_lock l(q.m);
    if (wait)
        q.ready.wait(l, [&] { return !q.items.empty(); });
    item = nullptr;
    if (!q.items.empty()) {
        item = q.items.front();
        q.items.pop_front();
    }
    return std::nullopt;
}

using thread_handle = std::jthread;
template <class F, class... A>
thread_handle start_thread(std::string_view, F&& f, A&&... args) {
    return std::jthread(std::forward<F>(f), std::forward<A>(args)...);
}
using group_tasks = std::vector<std::function<void()>>;
using group_handle = std::vector<std::jthread>;
inline group_handle no_group() {
    return {};
}

struct SessionImpl {}; // no session: nothing is kept
#else
using name_arg = std::string;

// An instrumented object: its name and kind, and its id in the session that last saw it.
struct object {
    object(std::string name, Namespace kind) : name(std::move(name)), kind(kind) {}
    std::string name;
    Namespace kind;
    // (the session's serial << 32) | the id in it; 0: none yet. One word, so that an access
    // queued without the runtime's lock reads both at once.
    mutable std::atomic<std::uint64_t> cache{0};
    // Under sfg::explore, the run that last used it (0: none): an object used by two runs lives
    // outside the body, and its state would carry over from run to run.
    mutable std::atomic<std::uint64_t> explored_run{0};
};
// A mutex's object: also the thread holding it (locking it twice is a misuse).
struct lock_object : object {
    using object::object;
    std::atomic<std::thread::id> holder{};
};

// Records op on `o` by the calling thread, performing `access(context)` atomically with it.
// Returns what the operation must throw under on_finding::throw_error (after it has finished
// its work); aborts under on_finding::abort. `value`, when not null, is where the access leaves
// the value a vr/vw carries (read after the access; docs/traces.md, "Values of volatiles").
// `then`: the op is a read-modify-write's vr, followed atomically by its vw when it wrote.
std::optional<finding> record_event(const object& o, Op op, const sfg::source_location* where,
                                    void (*access)(void*), void* context,
                                    const std::int64_t* value = nullptr,
                                    const rmw_write* then = nullptr);
// record_event, then throws what it returned.
void record(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
            void* context, const std::int64_t* value = nullptr, const rmw_write* then = nullptr);
// sfg::yield's live behaviour.
void yield();
// sfg::await: under sfg::explore one step, scheduled when the condition holds; live, a spin.
void await_until(const await_condition& c);
// A shared<T> access: record() when the session reports each finding as it happens
// (throw_error, abort); under log and collect the event is queued in the calling thread and
// pushed before its next synchronization event (docs/enforcers.md, "Ordering guarantees").
void record_access(const object& o, Op op, const sfg::source_location* where, void (*access)(void*),
                   void* context);
// A misuse of `o` (e.g. unlocking a mutex not held): reported like a finding; returns what to
// throw, as record_event.
std::optional<finding> misuse(const object& o, const std::string& what);

// sfg::deterministic: begin_block records `begin` in the calling thread and returns what its
// end needs (0: nothing to end), or throws what record_event returned; end_block records the
// `end`.
struct block_handle {
    std::uint64_t begin = 0;
};
// A barrier's count, which sfg::explore's model of it needs (std::barrier does not tell it).
struct barrier_count {
    std::ptrdiff_t value;
};
std::uint64_t begin_block(const sfg::source_location& where);
void end_block(std::uint64_t block) noexcept;

// sfg::queue's FIFO of objects (queue.cpp): each object as its address and its sfg object. push
// records enq(q, o) and then makes it visible; pop takes one (waiting for it, or nullptr when
// !wait and there is none) and then records deq(q, o). Each returns what record_event returned.
using queue_handle = std::unique_ptr<QueueImpl, void (*)(QueueImpl*)>;
queue_handle make_queue(std::string name);
std::optional<finding> queue_push(QueueImpl& q, void* item, const object& o);
std::optional<finding> queue_pop(QueueImpl& q, bool wait, void*& item);

// Threads forked as one fork(u1, ..., uk) event and joined as one join(u1, ..., uk).
using group_tasks = std::vector<std::pair<std::string, std::unique_ptr<task>>>;
using group_handle = std::unique_ptr<GroupImpl, void (*)(GroupImpl*)>;
inline group_handle no_group() {
    return {nullptr, nullptr};
}
group_handle start_group(group_tasks tasks);
// Waits for every thread, records the join, then rethrows the first exception a thread ended
// with (finding_error under throw_error included).
void join_group(GroupImpl& g, bool quiet = false); // quiet: from a destructor
bool group_joinable(const GroupImpl& g);

// One thread: a group of one, its body f(args...).
using thread_handle = group_handle;
thread_handle start_one(std::string name, std::unique_ptr<task> t);
template <class F, class... A>
thread_handle start_thread(std::string name, F&& f, A&&... args) {
    return start_one(std::move(name),
                     make_task([fn = std::forward<F>(f),
                                as = std::make_tuple(std::forward<A>(args)...)]() mutable {
                         std::apply(std::move(fn), std::move(as));
                     }));
}
#endif
inline void record(const object& o, Op op, const sfg::source_location* where = nullptr) {
    record(o, op, where, nullptr, nullptr);
}
} // namespace detail

// A hint for spin loops, `while (!flag.load()) sfg::yield();`: std::this_thread::yield() in a
// live session (docs/enforcers.md, "Atomics and condition variables").
inline void yield() {
    detail::yield();
}

// The checking of one program run. One is open at a time; opening a second is a misuse (it
// throws finding_error). Environment: SFG_OPTIONS ("policy=collect:analyses=hb,enforce:
// trace=FILE:main_thread=NAME", ':' or blank separated) overrides the options given here;
// SFG_TRACE=FILE sets trace_path when it is empty. Bad options throw std::invalid_argument.
class session {
public:
    explicit session(const spec& s, session_options o = {});
    explicit session(session_options o = {}); // no spec: race detection only
    ~session();
    session(const session&) = delete;
    session& operator=(const session&) = delete;

    // So far, in event order.
    std::vector<finding> findings() const;
    // Events recorded so far.
    std::uint64_t events() const;

    // Ends the checking before the destructor does: the threads still running are taken as
    // ended (as at the end of a trace), the analyses finish, the trace is flushed, and objects
    // used afterwards are used with no session. Idempotent.
    void close();

    // Expectations, for negative tests (sfg/doctest.hpp, sfg/gtest.hpp: SFG_EXPECT_FINDING):
    // mark() is the number of findings so far; expect(mark, kind, var) marks the findings since
    // then of that kind on that variable (or object) as expected, and says whether there was one.
    std::size_t mark() const;
    bool expect(std::size_t mark, std::string_view kind, std::string_view var);
    // The findings not marked as expected, in event order.
    std::vector<finding> unexpected_findings() const;

    // The open session, or nullptr.
    static session* current();

private:
    std::unique_ptr<detail::SessionImpl> impl_;
};

// A thread named after a spec thread (any name if the spec does not mention it). Like
// std::jthread: it starts at once, and the destructor joins it. fork(name) is recorded before
// it runs; join() waits for it, then records join(name). An exception the body ends with is
// rethrown by join().
class thread {
public:
    template <class F, class... A>
    thread(detail::name_arg name, F&& f, A&&... args)
        : handle_(detail::start_thread(std::move(name), std::forward<F>(f),
                                       std::forward<A>(args)...)) {}
    thread(thread&&) noexcept = default;
    thread& operator=(thread&&) = delete;
    ~thread();
    void join();
    bool joinable() const;

private:
    detail::thread_handle handle_;
};

// Threads forked together: start() is one fork(u1, ..., uk) event, join() one join(u1, ..., uk).
class thread_group {
public:
    thread_group() = default;
    thread_group(const thread_group&) = delete;
    thread_group& operator=(const thread_group&) = delete;
    ~thread_group();
    void add(detail::name_arg name, std::function<void()> f); // not started yet
    void start();
    void join();

private:
    detail::group_tasks pending_;
    detail::group_handle group_ = detail::no_group();
};

// A lock (std::lock_guard, std::unique_lock and std::scoped_lock work with it). acq is recorded
// once it is taken, rel before it is let go. Locking it twice in one thread, or unlocking it
// when not holding it, is a misuse.
class mutex {
public:
    explicit mutex(detail::name_arg name) : obj_(std::move(name), Namespace::lock) {}
    mutex(const mutex&) = delete;
    mutex& operator=(const mutex&) = delete;
    void lock();
    bool try_lock();
    void unlock();

private:
    friend class condition_variable;
    void record_acquire(); // the acq event once m_ is held; on a finding, unlocks and throws
    // The holder alone, no event (under sfg::explore, whose controller is the lock: m_ is not
    // used then).
    void take_silently();
    void let_go_silently();
    std::mutex m_;
    [[no_unique_address]] detail::lock_object obj_;
};

// A condition variable for std::unique_lock<sfg::mutex> (docs/enforcers.md, "Atomics and
// condition variables"): a wait is its mutex's unlock and lock, rel(m) then acq(m); a notify
// records nothing. The name is the one programs give it.
class condition_variable {
public:
    explicit condition_variable(detail::name_arg name) : obj_(std::move(name), Namespace::cond) {}
    condition_variable(const condition_variable&) = delete;
    condition_variable& operator=(const condition_variable&) = delete;
    // Unlike std::condition_variable_any's, a finding thrown when the mutex is taken again
    // propagates (with `lock` not owning it) instead of terminating.
    void wait(std::unique_lock<mutex>& lock) {
        if (explored_wait(lock))
            return;
        std::unique_lock<std::mutex> inner(m_); // held until waiting: no notify is missed
        lock.unlock();
        cv_.wait(inner);
        inner.unlock();
        lock.lock();
    }
    template <class Predicate>
    void wait(std::unique_lock<mutex>& lock, Predicate pred) {
        while (!pred())
            wait(lock);
    }
    void notify_one() noexcept {
        if (explored_notify(Op::cond_notify))
            return;
        std::lock_guard<std::mutex> g(m_);
        cv_.notify_one();
    }
    void notify_all() noexcept {
        if (explored_notify(Op::cond_notifyall))
            return;
        std::lock_guard<std::mutex> g(m_);
        cv_.notify_all();
    }

private:
    // Under sfg::explore (docs/explore.md): the wait or notify as the explorer schedules it; false
    // when no exploration is running.
    bool explored_wait(std::unique_lock<mutex>& lock);
    bool explored_notify(Op op) noexcept;
    [[no_unique_address]] detail::object obj_;
    std::mutex m_;
    std::condition_variable cv_;
};

template <class T>
class queue;

// A data variable: a spec variable (its discipline is enforced), or any name (checked for races
// only). Each load and store is one event; constructing it is not an access.
template <class T>
class shared {
    friend class queue<T>; // records enq and deq of this variable

public:
    explicit shared(detail::name_arg name, T init = T{})
        : obj_(std::move(name), Namespace::variable), value_(std::move(init)) {}
    shared(const shared&) = delete;
    shared& operator=(const shared&) = delete;

    T load(sfg::source_location where = sfg::source_location::current()) const {
        return do_load(&where);
    }
    void store(T v, sfg::source_location where = sfg::source_location::current()) {
        do_store(std::move(v), &where);
    }
    // No source location: these are written where the caller cannot pass one.
    operator T() const { return do_load(nullptr); }
    shared& operator=(T v) {
        do_store(std::move(v), nullptr);
        return *this;
    }

private:
    T do_load(const sfg::source_location* where) const {
        struct context {
            const shared* self;
            std::optional<T> out;
        } c{this, std::nullopt};
        record(
            obj_, Op::read, where,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->out.emplace(cx->self->value_);
            },
            &c);
        return std::move(*c.out);
    }
    void do_store(T v, const sfg::source_location* where) {
        struct context {
            shared* self;
            T* in;
        } c{this, &v};
        record(
            obj_, Op::write, where,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->self->value_ = std::move(*cx->in);
            },
            &c);
    }

    // A value that is not trivially copyable (a std::string) is always accessed under the
    // runtime's lock, so that a racy program is reported rather than corrupted.
    static void record(const detail::object& o, Op op, const sfg::source_location* where,
                       void (*access)(void*), void* context) {
        if constexpr (std::is_trivially_copyable_v<T>)
            detail::record_access(o, op, where, access, context);
        else
            detail::record(o, op, where, access, context);
    }

    [[no_unique_address]] detail::object obj_;
    T value_;
};

// A volatile (vr / vw events), on std::atomic<T>: each load and store is one event, recorded
// atomically with it. For an integral T the event carries the value read or written,
// vr(v=K) / vw(v=K), as a signed 64-bit integer: what a value label ^(v == K) waits for
// (thesis §5.1, docs/enforcers.md).
template <class T>
class volatile_var {
    static constexpr bool carries_value = std::is_integral_v<T> && sizeof(T) <= 8;
    friend struct detail::volatile_access;

public:
    explicit volatile_var(detail::name_arg name, T init = T{})
        : obj_(std::move(name), Namespace::volatile_), value_(init) {}
    volatile_var(const volatile_var&) = delete;
    volatile_var& operator=(const volatile_var&) = delete;

    T load(sfg::source_location where = sfg::source_location::current()) const {
        struct context {
            const volatile_var* self;
            T out;
            std::int64_t value;
        } c{this, T{}, 0};
        detail::record(
            obj_, Op::vol_read, &where,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->out = cx->self->value_.load();
                if constexpr (carries_value)
                    cx->value = static_cast<std::int64_t>(cx->out);
            },
            &c, carries_value ? &c.value : nullptr);
        return c.out;
    }
    void store(T v, sfg::source_location where = sfg::source_location::current()) {
        struct context {
            volatile_var* self;
            T in;
            std::int64_t value;
        } c{this, v, 0};
        if constexpr (carries_value)
            c.value = static_cast<std::int64_t>(v);
        detail::record(
            obj_, Op::vol_write, &where,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->self->value_.store(cx->in);
            },
            &c, carries_value ? &c.value : nullptr);
    }
    // std::atomic's memory orders are accepted and taken as seq_cst: sfg checks sequentially
    // consistent executions (docs/enforcers.md, "Atomics and condition variables").
    T load(std::memory_order, sfg::source_location where = sfg::source_location::current()) const {
        return load(where);
    }
    void store(T v, std::memory_order,
               sfg::source_location where = sfg::source_location::current()) {
        store(v, where);
    }

    // Atomic read-modify-writes (docs/enforcers.md, "Atomics and condition variables"): each one
    // operation, recorded as vr(v) then, when it writes, vw(v) of the same thread, with nothing of
    // v in between.
    T exchange(T desired, sfg::source_location where = sfg::source_location::current()) {
        struct context : rmw_context {
            T in, out;
        } c{{this}, desired, T{}};
        modify(
            c,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->out = cx->self->value_.exchange(cx->in);
                cx->carry(cx->out, cx->in);
            },
            where);
        return c.out;
    }
    T exchange(T desired, std::memory_order,
               sfg::source_location where = sfg::source_location::current()) {
        return exchange(desired, where);
    }
    // True and v = desired when v held `expected`; else false, expected = v and nothing written
    // (the event is vr(v) alone).
    bool compare_exchange_strong(T& expected, T desired,
                                 sfg::source_location where = sfg::source_location::current()) {
        struct context : rmw_context {
            T* expected;
            T desired;
        } c{{this}, &expected, desired};
        modify(
            c,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                T seen = *cx->expected;
                cx->wrote = cx->self->value_.compare_exchange_strong(seen, cx->desired);
                cx->carry(seen, cx->desired);
                *cx->expected = seen;
            },
            where);
        return c.wrote;
    }
    bool compare_exchange_strong(T& expected, T desired, std::memory_order,
                                 sfg::source_location where = sfg::source_location::current()) {
        return compare_exchange_strong(expected, desired, where);
    }
    bool compare_exchange_strong(T& expected, T desired, std::memory_order, std::memory_order,
                                 sfg::source_location where = sfg::source_location::current()) {
        return compare_exchange_strong(expected, desired, where);
    }
    // Never fails spuriously: the strong one.
    bool compare_exchange_weak(T& expected, T desired,
                               sfg::source_location where = sfg::source_location::current()) {
        return compare_exchange_strong(expected, desired, where);
    }
    bool compare_exchange_weak(T& expected, T desired, std::memory_order,
                               sfg::source_location where = sfg::source_location::current()) {
        return compare_exchange_strong(expected, desired, where);
    }
    bool compare_exchange_weak(T& expected, T desired, std::memory_order, std::memory_order,
                               sfg::source_location where = sfg::source_location::current()) {
        return compare_exchange_strong(expected, desired, where);
    }
    // The old value; v += arg (-= arg), wrapping as std::atomic does.
    T fetch_add(T arg, sfg::source_location where =
                           sfg::source_location::current()) requires std::is_integral_v<T> {
        return fetch(arg, false, where);
    }
    T fetch_add(T arg, std::memory_order,
                sfg::source_location where =
                    sfg::source_location::current()) requires std::is_integral_v<T> {
        return fetch(arg, false, where);
    }
    T fetch_sub(T arg, sfg::source_location where =
                           sfg::source_location::current()) requires std::is_integral_v<T> {
        return fetch(arg, true, where);
    }
    T fetch_sub(T arg, std::memory_order,
                sfg::source_location where =
                    sfg::source_location::current()) requires std::is_integral_v<T> {
        return fetch(arg, true, where);
    }

private:
    // A read-modify-write's context: whether it wrote, and the values its events carry.
    struct rmw_context {
        volatile_var* self;
        bool wrote = true;
        std::int64_t read = 0, written = 0;
        void carry(const T& old, const T& now) {
            if constexpr (carries_value) {
                read = static_cast<std::int64_t>(old);
                written = static_cast<std::int64_t>(now);
            }
        }
    };
    void modify(rmw_context& c, void (*access)(void*), const sfg::source_location& where) {
        const detail::rmw_write then{&c.wrote, carries_value ? &c.written : nullptr};
        detail::record(obj_, Op::vol_read, &where, access, &c, carries_value ? &c.read : nullptr,
                       &then);
    }
    T fetch(T arg, bool sub, const sfg::source_location& where) {
        struct context : rmw_context {
            T arg, out;
            bool sub;
        } c{{this}, arg, T{}, sub};
        modify(
            c,
            [](void* p) {
                auto* cx = static_cast<context*>(p);
                cx->out = cx->sub ? cx->self->value_.fetch_sub(cx->arg)
                                  : cx->self->value_.fetch_add(cx->arg);
                using U = std::make_unsigned_t<T>; // wraps, as the atomic did
                const U a = static_cast<U>(cx->out), b = static_cast<U>(cx->arg);
                cx->carry(cx->out, static_cast<T>(cx->sub ? U(a - b) : U(a + b)));
            },
            where);
        return c.out;
    }

    [[no_unique_address]] detail::object obj_;
    std::atomic<T> value_;
};

namespace detail {
struct volatile_access {
    template <class T>
    static const object* of(const volatile_var<T>& v) {
        return &v.obj_;
    }
};
template <class Pred>
void await_on(Pred& pred, const object* const* vars, std::size_t count) {
    await_condition c;
    c.holds = [](void* p) { return static_cast<bool>((*static_cast<Pred*>(p))()); };
    c.context = const_cast<void*>(static_cast<const void*>(std::addressof(pred)));
    c.vars = vars;
    c.count = count;
    await_until(c);
}
} // namespace detail

// Waits until pred() holds, as `await e;` of programs (docs/programs.md): one atomic step whose
// events are the vr of the loads of volatile_vars that pred's last (true) evaluation made. pred
// may only load volatile_vars and read the thread's own state; it may be evaluated many times.
// Naming the volatiles pred may load, sfg::await(pred, v1, v2, ...), makes the step depend on
// writes to all of them, whatever one evaluation reads (as programs' await; docs/explore.md).
// Under sfg::explore the thread is scheduled only when pred holds; live, it spins with
// std::this_thread::yield(), recording only the true evaluation's loads.
template <class Pred, class... T>
void await(Pred&& pred, const volatile_var<T>&... vars) {
    const detail::object* named[sizeof...(T) + 1] = {detail::volatile_access::of(vars)..., nullptr};
    detail::await_on(pred, named, sizeof...(T));
}
// The same, the volatiles named at run time.
template <class Pred, class T>
void await(Pred&& pred, std::span<const volatile_var<T>* const> vars) {
    std::vector<const detail::object*> named;
    named.reserve(vars.size());
    for (const volatile_var<T>* v : vars)
        named.push_back(detail::volatile_access::of(*v));
    detail::await_on(pred, named.data(), named.size());
}

// A barrier on std::barrier: benter is recorded before arriving, bexit after leaving.
class barrier {
public:
    barrier(detail::name_arg name, std::ptrdiff_t count)
        : obj_(std::move(name), Namespace::barrier), b_(count), count_{count} {}
    barrier(const barrier&) = delete;
    barrier& operator=(const barrier&) = delete;
    void arrive_and_wait();

private:
    void record_or_throw(Op op);
    [[no_unique_address]] detail::object obj_;
    std::barrier<> b_;
    [[no_unique_address]] detail::barrier_count count_; // sfg::explore's model of b_
};

// A thread-safe FIFO of shared variables (thesis §5.1, q(o); docs/enforcers.md): push(o) records
// enq(q, o) and then makes o visible to pop; pop() waits for one, takes it and then records
// deq(q, o); try_pop() records deq only when it took one. Its own locking is not recorded: the
// analyses see only enq(q,o) before every later deq(q,o). Under throw_error a finding is thrown
// after the operation took effect (the object pushed, or taken out).
template <class T>
class queue {
public:
    explicit queue(detail::name_arg name) : impl_(detail::make_queue(std::move(name))) {}
    queue(const queue&) = delete;
    queue& operator=(const queue&) = delete;

    void push(shared<T>& obj) {
        if (std::optional<finding> f = detail::queue_push(*impl_, &obj, obj.obj_))
            throw finding_error(std::move(*f));
    }
    shared<T>& pop() {
        void* item = nullptr;
        if (std::optional<finding> f = detail::queue_pop(*impl_, true, item))
            throw finding_error(std::move(*f));
        return *static_cast<shared<T>*>(item);
    }
    std::optional<std::reference_wrapper<shared<T>>> try_pop() {
        void* item = nullptr;
        if (std::optional<finding> f = detail::queue_pop(*impl_, false, item))
            throw finding_error(std::move(*f));
        if (!item)
            return std::nullopt;
        return std::ref(*static_cast<shared<T>*>(item));
    }

private:
    detail::queue_handle impl_;
};

// A deterministic block (docs/determinism.md; SingleTrack's `deterministic`): construction
// records `begin` in the calling thread, destruction `end`. The block's transaction is its
// thread's events in between and every event of the threads forked in it, also after its end;
// the `singletrack` analysis checks that these do not conflict among themselves and serialize
// with the rest of the program. Blocks do not nest: a second one opened in a thread whose block
// is open is a misuse (and ends nothing).
class deterministic {
public:
    explicit deterministic(sfg::source_location where = sfg::source_location::current());
    ~deterministic();
    deterministic(const deterministic&) = delete;
    deterministic& operator=(const deterministic&) = delete;

private:
    [[no_unique_address, maybe_unused]] detail::block_handle block_; // (unused when switched off)
};

#if defined(SFG_DISABLE)
// Switched off: the std counterparts' own operations; the session checks and reports nothing.
inline session::session(const spec&, session_options) {}
inline session::session(session_options) {}
inline session::~session() = default;
inline std::vector<finding> session::findings() const {
    return {};
}
inline std::uint64_t session::events() const {
    return 0;
}
inline void session::close() {}
inline std::size_t session::mark() const {
    return 0;
}
inline bool session::expect(std::size_t, std::string_view, std::string_view) {
    return true;
}
inline std::vector<finding> session::unexpected_findings() const {
    return {};
}
inline session* session::current() {
    return nullptr;
}

inline thread::~thread() = default; // std::jthread joins
inline void thread::join() {
    handle_.join();
}
inline bool thread::joinable() const {
    return handle_.joinable();
}

inline thread_group::~thread_group() = default;
inline void thread_group::add(std::string_view, std::function<void()> f) {
    pending_.push_back(std::move(f));
}
inline void thread_group::start() {
    for (auto& f : pending_)
        group_.emplace_back(std::move(f));
    pending_.clear();
}
inline void thread_group::join() {
    for (auto& t : group_)
        t.join();
}

inline void mutex::lock() {
    m_.lock();
}
inline bool mutex::try_lock() {
    return m_.try_lock();
}
inline void mutex::unlock() {
    m_.unlock();
}

inline void barrier::arrive_and_wait() {
    b_.arrive_and_wait();
}

inline bool condition_variable::explored_wait(std::unique_lock<mutex>&) {
    return false;
}
inline bool condition_variable::explored_notify(Op) noexcept {
    return false;
}

inline deterministic::deterministic(sfg::source_location) {}
inline deterministic::~deterministic() {}
#else
inline deterministic::deterministic(sfg::source_location where)
    : block_{detail::begin_block(where)} {}
inline deterministic::~deterministic() {
    detail::end_block(block_.begin);
}
#endif

} // namespace sfg
