// sfg::thread and sfg::thread_group (docs/enforcers.md): a fork event before the threads run, a
// join event after they have ended, and each thread's identity in the session for its own events.
#include "event_lock.hpp"
#include "event_queue.hpp"
#include "global_state.hpp"
#include "schedule.hpp"
#include "session_impl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <system_error>

namespace sfg {

namespace detail {

struct GroupImpl {
    std::vector<std::string> names;
    std::vector<std::thread> threads;
    Control* launcher = nullptr; // under sfg::explore: whose kept threads run the group's
    std::vector<std::exception_ptr> errors; // written by each thread before it ends
    std::uint64_t serial = 0;               // the session that recorded the fork (0: none)
    ObjId set = no_object;                  // the fork's operand in that session
    bool joined = false;
};

namespace {

void destroy(GroupImpl* g) {
    delete g;
}

// The operand of fork/join: the set's index in Symbols::thread_sets (sorted, distinct ids).
ObjId thread_set(SessionImpl& s, std::vector<ThreadId> ids) {
    std::sort(ids.begin(), ids.end());
    const auto adding = s.adding_names();
    s.syms.thread_sets.push_back(std::move(ids));
    return static_cast<ObjId>(s.syms.thread_sets.size() - 1);
}

// The fork event of a group about to start: its names, the session's ids of its threads.
void start_recorded(GroupImpl& group, const group_tasks& tasks, std::vector<ThreadRecord>& records,
                    std::optional<finding>& pending) {
    GroupImpl* g = &group;
    drain_before_misuse(); // a thread's name may be a misuse
    reserve_event();       // the fork is appended under EventLock: no waiting then
    {
        EventLock lock;
        SessionImpl* s = global().current;
        const std::string label = fmt::format("{}", fmt::join(g->names, ","));
        if (!s) {
            orphan(object(label, Namespace::thread), "started");
        } else if (this_thread.serial != s->serial) {
            s->add_misuse(label, no_object,
                          fmt::format("thread {} started by a thread not started through "
                                      "sfg::thread or sfg::thread_group (nor the session's main "
                                      "thread)",
                                      label));
            pending = s->take_fresh();
        } else {
            std::vector<ThreadId> ids;
            for (const std::string& n : g->names) {
                s->check_name(n, Namespace::thread, this_thread.id);
                ThreadId id;
                {
                    const auto adding = s->adding_names();
                    id = s->syms.threads.intern(n);
                }
                if (std::find(ids.begin(), ids.end(), id) == ids.end())
                    ids.push_back(id);
            }
            const ObjId set = thread_set(*s, ids);
            if (s->event(this_thread.id, Op::fork, set, label)) {
                g->serial = s->serial;
                g->set = set;
                for (std::size_t i = 0; i < tasks.size(); ++i)
                    records[i] = {s->serial, s->syms.threads.find(g->names[i])};
            }
            pending = s->take_fresh();
        }
    }
}

} // namespace

group_handle start_group(group_tasks tasks) {
    group_handle g(new GroupImpl, destroy);
    std::vector<ThreadRecord> records(tasks.size());
    std::optional<finding> pending;
    for (const auto& t : tasks)
        g->names.push_back(t.first);
    // Under sfg::explore the fork is a scheduling point, and the threads are the controller's.
    Control* const ctl = control();
    Point point;
    point.op = Op::fork;
    point.group = g.get();
    point.names = &g->names;
    if (!ctl || ctl->point(point) == Scheduled::run)
        start_recorded(*g, tasks, records, pending);
    if (pending) // under throw_error the threads do not start
        throw finding_error(std::move(*pending));
    // The fork is recorded: now the threads may run.
    g->errors.resize(tasks.size());
    if (ctl)
        ctl->forked(*g, g->names);
    g->launcher = ctl;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        auto run = [gp = g.get(), i, rec = records[i], t = std::move(tasks[i].second),
                    ctl]() mutable {
            if (ctl)
                ctl->thread_begins(*gp, i);
            this_thread = rec;
            try {
                t->run();
                t.reset(); // what the body captured dies in this thread, as its events
            } catch (...) {
                gp->errors[i] = std::current_exception();
                t.reset();
            }
            flush_pending_of_this_thread(); // before the thread ends, so before its join
            this_thread = {};
            if (ctl) {
                // The OS thread serves later threads: what ended with this one goes now, as at
                // a thread's exit (its ring, a lock count left by an exception).
                forget_stale_ring(0);
                mutexes_held = 0;
                ctl->thread_ends(gp->errors[i]);
            }
        };
        if (ctl) // std::function needs a copyable callable
            ctl->launch(*g, i, [r = std::make_shared<decltype(run)>(std::move(run))] { (*r)(); });
        else
            g->threads.emplace_back(std::move(run));
    }
    return g;
}

bool group_joinable(const GroupImpl& g) {
    return !g.joined;
}

void join_group(GroupImpl& g, bool quiet) {
    if (g.joined)
        throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                                "sfg: join of threads already joined");
    // Under sfg::explore: scheduled once every thread of g has ended, so the join below is quick;
    // a thread's exception was reported where it happened, and is not thrown again.
    Control* const ctl = control();
    Point point;
    point.op = Op::join;
    point.group = &g;
    point.names = &g.names;
    point.quiet = quiet;
    const bool recorded = !ctl || ctl->point(point) == Scheduled::run;
    for (std::thread& t : g.threads)
        t.join();
    if (g.launcher)
        g.launcher->await(g);
    g.joined = true;
    if (ctl && ctl->swallows_thread_errors())
        for (std::exception_ptr& e : g.errors)
            e = nullptr;
    if (!recorded)
        return;
    std::optional<finding> pending;
    reserve_event();
    {
        EventLock lock;
        SessionImpl* s = global().current;
        const std::string label = fmt::format("{}", fmt::join(g.names, ","));
        if (s && g.serial == s->serial) {
            if (this_thread.serial != s->serial)
                s->add_misuse(label, no_object,
                              fmt::format("thread {} joined by a thread not started through "
                                          "sfg::thread or sfg::thread_group (nor the session's "
                                          "main thread)",
                                          label));
            else
                s->event(this_thread.id, Op::join, g.set, label);
            pending = s->take_fresh();
        }
    }
    if (pending)
        throw finding_error(std::move(*pending));
    for (std::exception_ptr& e : g.errors)
        if (e)
            std::rethrow_exception(std::exchange(e, nullptr));
}

namespace {

// A destructor joins (like std::jthread) and cannot throw: what join() would have thrown is
// reported on standard error.
void join_quietly(GroupImpl& g) noexcept {
    try {
        join_group(g, true);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "sfg: thread %s: %s\n",
                     fmt::format("{}", fmt::join(g.names, ",")).c_str(), e.what());
    } catch (...) {
        std::fprintf(stderr, "sfg: thread %s ended with an exception\n",
                     fmt::format("{}", fmt::join(g.names, ",")).c_str());
    }
}

} // namespace

thread_handle start_one(std::string name, std::unique_ptr<task> t) {
    group_tasks tasks;
    tasks.emplace_back(std::move(name), std::move(t));
    return start_group(std::move(tasks));
}

} // namespace detail

thread::~thread() {
    if (handle_ && detail::group_joinable(*handle_))
        detail::join_quietly(*handle_);
}

void thread::join() {
    if (!handle_)
        throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                                "sfg::thread::join: no thread");
    detail::join_group(*handle_);
}

bool thread::joinable() const {
    return handle_ && detail::group_joinable(*handle_);
}

thread_group::~thread_group() {
    if (group_ && detail::group_joinable(*group_))
        detail::join_quietly(*group_);
}

void thread_group::add(std::string name, std::function<void()> f) {
    if (group_)
        throw std::logic_error("sfg::thread_group::add: the group has started");
    pending_.emplace_back(std::move(name), detail::make_task(std::move(f)));
}

void thread_group::start() {
    if (group_)
        throw std::logic_error("sfg::thread_group::start: the group has started");
    if (pending_.empty())
        throw std::logic_error("sfg::thread_group::start: no thread was added");
    group_ = detail::start_group(std::move(pending_));
    pending_.clear();
}

void thread_group::join() {
    if (!group_)
        throw std::logic_error("sfg::thread_group::join: the group has not started");
    detail::join_group(*group_);
}

} // namespace sfg
