// The scheduler under sfg::explore (controller.hpp; docs/explore.md, "How it works").
#include "explore/controller.hpp"

#include "sfg/runtime/engine/foata.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <stdexcept>
#include <utility>

#include <sched.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace sfg::explore_detail {

namespace {

constexpr std::uint32_t no_thread = std::numeric_limits<std::uint32_t>::max();
// The calling thread's number in the run (creation order; main is 0).
thread_local std::uint32_t this_index = no_thread;
// The calling thread's Worker, if it is one of a controller's.
thread_local void* this_worker = nullptr;

} // namespace

// Every thread of an exploration runs on one CPU: one runs at a time anyway, and a thread handed
// the baton then runs as soon as the one handing it sleeps, instead of waiting for a slice on
// another, busy CPU.
void pin(int cpu) {
#if defined(__linux__)
    if (cpu < 0)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
#else
    (void)cpu;
#endif
}

// A thread handing the baton wakes the next on its own CPU (pin()), and a woken SCHED_OTHER
// thread preempts it inside the wake: it is switched out holding the turn it is about to give
// up, switched back in only to sleep on its cv (two switches a hand-off, not one). A woken
// SCHED_BATCH thread does not preempt (sched(7)); the threads are the controller's own.
namespace {
void batch() {
#if defined(__linux__)
    const sched_param none{};
    sched_setscheduler(0, SCHED_BATCH, &none);
#endif
}
} // namespace

#if defined(__linux__)
void Wakeup::sleep() {
    // Returns at once when notify() came first (the word is 1), else when woken or spuriously.
    syscall(SYS_futex, &word_, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
}

void Wakeup::notify() {
    word_.store(1, std::memory_order_release);
    syscall(SYS_futex, &word_, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}
#else
void Wakeup::notify() {
    cv_.notify_all();
}
#endif

RunThread::RunThread()
    : thread_([this] {
          batch();
          serve();
      }) {}

RunThread::~RunThread() {
    {
        std::lock_guard lk(mu_);
        quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void RunThread::post(std::function<void()> job) {
    {
        std::lock_guard lk(mu_);
        job_ = std::move(job);
    }
    cv_.notify_all();
}

void RunThread::leave() {
    std::lock_guard lk(mu_);
    left_ = true;
    thread_.detach();
}

void RunThread::serve() {
    std::unique_lock lk(mu_);
    for (;;) {
        cv_.wait(lk, [&] { return job_ || quit_; });
        if (quit_)
            return;
        {
            const std::function<void()> job = std::move(job_);
            job_ = nullptr;
            lk.unlock();
            job();
        }
        lk.lock();
        if (left_) // the exploration has gone on without it
            return;
    }
}

Controller::Controller(std::uint64_t max_steps, std::chrono::milliseconds uncontrolled_after)
    : max_steps_(max_steps), uncontrolled_after_(uncontrolled_after) {
    if (uncontrolled_after_.count() > 0)
        watchdog_ = std::thread([this] { watch(); });
#if defined(__linux__)
    cpu_ = sched_getcpu(); // the run thread and the threads it starts run there
#endif
}

Controller::~Controller() {
    {
        std::lock_guard lk(mu_); // every run has ended: the workers wait for a job
        for (const auto& w : workers_) {
            w->quit = true;
            w->cv.notify();
        }
    }
    for (const auto& w : workers_)
        w->thread.join();
    if (watchdog_.joinable()) {
        {
            std::lock_guard lk(mu_);
            stopping_ = true;
        }
        watch_cv_.notify_all();
        watchdog_.join();
    }
}

void Controller::use(Strategy& strategy) {
    std::lock_guard lk(mu_);
    strategy_ = &strategy;
    uncontrolled_ = false;
}

void Controller::begin_exploration() {
    std::lock_guard lk(mu_);
    objects_.clear();
    object_names_.clear();
    object_keys_.clear();
    met_ = {};
    first_points_.clear(); // their events name objects by number
}

bool Controller::run(RunThread& rt, std::function<void()> job) {
    {
        std::lock_guard lk(mu_);
        job_done_ = false;
    }
    rt.post([this, job = std::move(job)] {
        pin(cpu_);
        detail::bind_control(this);
        job();
        detail::bind_control(nullptr);
        std::lock_guard lk(mu_);
        job_done_ = true;
        explorer_cv_.notify_all();
    });
    std::unique_lock lk(mu_);
    // Woken only for the job's end and for an uncontrolled run (give_up(), run_ends()). Runs are
    // told apart by number: the one that ended in time may be followed by the next at once.
    std::uint64_t waited = 0; // the run last found uncontrolled, by number
    for (;;) {
        explorer_cv_.wait(
            lk, [&] { return job_done_ || (uncontrolled_ && in_run_ && runs_ != waited); });
        if (job_done_)
            return true;
        waited = runs_;
        // Unwinding the other threads may free the stuck one (a std::lock_guard lets its mutex
        // go): a little longer for the run to end (the job then goes on, not stuck), else it is
        // left to its threads.
        if (!explorer_cv_.wait_for(lk, grace(),
                                   [&] { return job_done_ || !in_run_ || runs_ != waited; }))
            break;
    }
    orphaned_ = true;
    stopping_ = true;
    lk.unlock();
    watch_cv_.notify_all();
    if (watchdog_.joinable())
        watchdog_.join();
    rt.leave();
    return false;
}

// A thread that holds the baton and reaches no sfg operation for uncontrolled_after_ (blocked on
// a std::mutex, sleeping, in I/O) stalls the run: it is reported, and the run given up, which
// unwinds the waiting threads (what they hold may be what it waits for). A run given up whose
// threads have not all ended a grace period later (an unwinding blocked outside sfg) is
// uncontrolled too (docs/explore.md, "What it refuses").
void Controller::watch() {
    std::unique_lock lk(mu_);
    std::uint64_t seen = progress_;
    auto since = std::chrono::steady_clock::now();
    while (!stopping_) {
        if (!in_run_) { // between runs and explorations (a kept controller): asleep until one
            watch_idle_ = true;
            watch_cv_.wait(lk, [&] { return in_run_ || stopping_; });
            watch_idle_ = false;
            seen = progress_;
            since = std::chrono::steady_clock::now();
        }
        watch_cv_.wait_for(lk, grace());
        const auto now = std::chrono::steady_clock::now();
        if (progress_ != seen || !in_run_ || uncontrolled_) {
            seen = progress_;
            since = now;
            continue;
        }
        if (abandon_) {
            if (now - since >= grace())
                unwinding_stuck();
            continue;
        }
        if (now - since < uncontrolled_after_)
            continue;
        const std::uint32_t t = current_;
        std::string last = "none yet";
        for (std::size_t i = path_.size(); i-- > 0;)
            if (path_[i].key.thread == t) {
                const StepRecord& r = path_[i];
                last = fmt::format("{}({}){}", r.key.yield ? "yield" : to_string(r.key.op),
                                   r.key.object,
                                   r.file ? fmt::format(" at {}:{}", r.file, r.line) : "");
                break;
            }
        const std::string name = t < threads_.size() ? threads_[t]->name : "?";
        uncontrolled_ = true;
        give_up("uncontrolled", name,
                fmt::format("uncontrolled: thread {} ran for {} ms without reaching an sfg "
                            "operation while the others waited (its last one: {}); it is blocked "
                            "on something sfg does not control (a std::mutex, a sleep, I/O), or "
                            "computes for long: the exploration stops",
                            name, uncontrolled_after_.count(), last));
    }
}

std::chrono::milliseconds Controller::grace() const {
    return uncontrolled_after_ / 4 + std::chrono::milliseconds(1);
}

// Under mu_: the run was given up, and a thread of it has not ended since: not one waiting for
// others to end (a join, the body's end), which are named only when none else is left.
void Controller::unwinding_stuck() {
    std::string name = "?";
    for (const bool any : {false, true}) {
        for (const auto& t : threads_)
            if (t->status != Status::ended && (any || !t->joining)) {
                name = t->name;
                break;
            }
        if (name != "?")
            break;
    }
    // The reason it was given up: the last finding (give_up's), none for a blocked run.
    const std::string why = blocked_ || findings_.empty() ? "" : " (" + findings_.back().kind + ")";
    uncontrolled_ = true;
    blocked_ = false; // reported: an execution, as a run cut by the watchdog is
    findings_.push_back(
        {"uncontrolled", name,
         fmt::format("uncontrolled: thread {} did not end within {} ms after the run was given "
                     "up{}: its unwinding is blocked on something sfg does not control (a "
                     "std::mutex in a destructor, a sleep, I/O): the exploration stops",
                     name, grace().count(), why)});
    explorer_cv_.notify_all();
}

std::uint32_t Controller::me() const {
    return this_index;
}

void Controller::begin_run() {
    std::lock_guard lk(mu_);
    static std::atomic<std::uint64_t> runs{0}; // of every controller: explorations differ too
    run_number_ = ++runs;
    refused_ = false;
    for (std::unique_ptr<Thread>& t : threads_)
        spare_.push_back(std::move(t));
    threads_.clear();
    names_.clear();
    add_thread("main");
    threads_[0]->status = Status::running;
    threads_[0]->key = 1;
    names_.push_back("main");
    current_.store(0);
    abandon_ = false;
    blocked_ = false;
    last_.reset();
    path_.clear();
    steps_ = 0;
    findings_.clear();
    model_ = Model();
    groups_.clear();
    this_index = 0;
    in_run_ = true;
    if (watch_idle_)
        watch_cv_.notify_all();
    ++runs_;
    ++progress_;
    strategy_->begin_run();
}

bool Controller::run_ends() {
    std::unique_lock lk(mu_);
    threads_[0]->status = Status::ended;
    if (!abandon_)
        decide();
    wake(lk);
    done_cv_.wait(lk, [&] {
        return std::all_of(threads_.begin(), threads_.end(),
                           [](const auto& t) { return t->status == Status::ended; });
    });
    this_index = no_thread;
    in_run_ = false;
    if (orphaned_) // the strategy may be gone
        return false;
    if (uncontrolled_) // the exploring thread waits for the run's end
        explorer_cv_.notify_all();
    keys_.clear();
    for (const StepRecord& r : path_)
        keys_.push_back(r.key);
    strategy_->end_run(keys_);
    return true;
}

std::uint32_t Controller::intern(Namespace space, const std::string& name) {
    const auto [it, fresh] =
        objects_.try_emplace({space, name}, static_cast<std::uint32_t>(objects_.size()));
    if (fresh) {
        object_names_.push_back(name);
        std::uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a
        for (const unsigned char c : name)
            h = (h ^ c) * 0x100000001b3ULL;
        object_keys_.push_back(h);
    }
    return it->second;
}

// A step's objects are mostly those of the steps before: found by address, without the search
// by name.
std::uint32_t Controller::intern(Namespace space, const detail::object& o) {
    Met& m = met_[(reinterpret_cast<std::uintptr_t>(&o) >> 4) % met_.size()];
    if (m.at == &o && m.space == space && object_names_[m.number] == o.name)
        return m.number;
    m = {&o, space, intern(space, o.name)};
    return m.number;
}

// The step as the engine sees it (docs/explore.md, "Dependence"): a condition variable's wait is
// rel(m) and waiting on c, its wake being woken on c and acq(m), as in programs; a
// read-modify-write both a vr and a vw. Written over e, whose vectors keep their storage (a
// thread's next step is rewritten at every point: no allocation a step).
void Controller::event_of(Event& e, std::uint32_t t, const detail::Point& p) {
    e.thread = t;
    e.op = p.op;
    e.attempt = p.attempt;
    e.yield = p.yield;
    e.actions.clear();
    e.names.clear();
    e.lock = no_object;
    e.count = 0;
    e.generation = 0;
    e.reads_vary = p.await && p.await->count == 0;
    if (p.yield || p.await) // an await's actions: peek()
        return;
    const auto on = [&](Op op, const detail::object* o) {
        e.actions.push_back({op, intern(op_info(op).space, *o)});
    };
    switch (p.op) {
    case Op::fork:
        for (std::size_t i = 0; p.names && i < p.names->size(); ++i)
            e.names.push_back(static_cast<std::uint32_t>(threads_.size() + i));
        return;
    case Op::join:
        if (const auto g = groups_.find(p.group); g != groups_.end())
            e.names.assign(g->second.begin(), g->second.end());
        return;
    case Op::begin:
    case Op::end:
        return;
    case Op::cond_wait:
        on(Op::release, p.lock);
        on(Op::cond_wait, p.obj);
        e.lock = e.actions[0].object;
        return;
    case Op::cond_wake:
        on(Op::cond_wake, p.obj);
        on(Op::acquire, p.lock);
        e.lock = e.actions[1].object;
        return;
    default:
        on(p.op, p.obj);
        if (p.rmw)
            on(Op::vol_write, p.obj);
        if (p.op == Op::barrier_enter)
            e.count = static_cast<std::uint32_t>(std::max<std::ptrdiff_t>(p.count, 1));
        return;
    }
}

std::vector<std::uint32_t> Controller::schedule() const {
    std::vector<std::uint32_t> out;
    out.reserve(path_.size());
    for (const StepRecord& r : path_)
        out.push_back(r.key.thread);
    return out;
}

void Controller::check_failed(const std::string& what, const char* file, std::uint32_t line) {
    std::lock_guard lk(mu_);
    if (orphaned_) // the exploration has read the run's findings
        return;
    const std::uint32_t t = me();
    findings_.push_back(
        {"assert", what,
         fmt::format("check failed: {} ({}{}thread {})", what, file ? file : "",
                     file ? fmt::format(":{}, ", line) : "", t < names_.size() ? names_[t] : "?")});
}

detail::Scheduled Controller::point(const detail::Point& p) {
    {
        std::unique_lock lk(mu_);
        const std::uint32_t t = me();
        if (t == no_thread || t >= threads_.size())
            return detail::Scheduled::run; // not a thread of the run: the session reports it
        if (abandon_) {
            ++progress_; // unwinding: the watchdog waits for the run's end
        } else if (!refuse_outlived(p)) {
            Thread& th = *threads_[t];
            if (th.predicted) { // chosen already, at the step it was predicted to take
                th.predicted = false;
                if (as_predicted(t, p)) {
                    th.pending = p;
                    ++progress_;
                    return detail::Scheduled::run;
                }
            } else {
                const bool first = th.status == Status::first;
                th.pending = p;
                th.object = object_of(p);
                event_of(th.next, t, p);
                // Known from now on: the thread of this key waits there in the next runs. Not
                // forks and joins (their steps name threads of this run) nor awaits (peeked).
                if (first && th.created_clean && !p.await && p.op != Op::fork && p.op != Op::join &&
                    !p.quiet) {
                    FirstPoint& fp = first_points_[th.key];
                    fp.p = p;
                    fp.p.obj = fp.p.lock = nullptr;
                    fp.p.group = nullptr;
                    fp.p.names = nullptr;
                    fp.next = th.next;
                    fp.object = th.object;
                }
                ++progress_;
                // Its first point, if it was fresh, goes on with the decision.
                th.status = Status::parked;
                decide();
                park(lk, t); // wakes the thread decide() handed the baton to
                if (!abandon_)
                    return detail::Scheduled::run;
            }
        }
    }
    // Given up. Thrown here, with mu_ let go: the unwinding has no cleanup to land on in this
    // frame, and so no second search of the unwind tables from it (bench/README.md, "Per
    // execution, fifth round").
    if (p.quiet || std::uncaught_exceptions() > 0)
        return detail::Scheduled::silent;
    throw detail::abandoned_run{};
}

// Under mu_: thread t, chosen at the first step an earlier run's thread of its key took, has
// reached its first point p. A different step is the body's nondeterminism: the run is given up.
bool Controller::as_predicted(std::uint32_t t, const detail::Point& p) {
    Thread& th = *threads_[t];
    Event e;
    event_of(e, t, p);
    const std::string object = object_of(p);
    const detail::Point& q = th.pending;
    const bool same_site =
        p.line == q.line &&
        (p.file == q.file || (p.file && q.file && std::strcmp(p.file, q.file) == 0));
    if (e.op == th.next.op && e.attempt == th.next.attempt && e.yield == th.next.yield &&
        e.lock == th.next.lock && e.count == th.next.count && p.rmw == q.rmw && same_site &&
        object == th.object &&
        std::equal(
            e.actions.begin(), e.actions.end(), th.next.actions.begin(), th.next.actions.end(),
            [](const Action& a, const Action& b) { return a.op == b.op && a.object == b.object; }))
        return true;
    const auto said = [](const Event& ev, const std::string& obj) {
        return ev.yield ? std::string("yield") : fmt::format("{}({})", to_string(ev.op), obj);
    };
    give_up("nondeterminism", "",
            fmt::format("nondeterminism: at step {} thread {} did {} where the same thread's "
                        "first step was {} before (before its first sfg operation the thread "
                        "read something sfg does not control: a clock, a random number, state "
                        "outside sfg that other threads change)",
                        path_.size(), th.name, said(e, object), said(th.next, th.object)));
    return false;
}

// Under mu_: an object of the point that an earlier run used lives outside the body (docs/
// explore.md, "What it refuses"): the run is given up with a misuse finding, and true.
bool Controller::refuse_outlived(const detail::Point& p) {
    for (const detail::object* o : {p.obj, p.lock}) {
        const std::uint64_t used = o ? o->explored_run.load(std::memory_order_relaxed) : 0;
        if (!o || used == run_number_)
            continue;
        if (used != 0) { // used by an earlier run: not this run's object
            refused_ = true;
            give_up("misuse", o->name,
                    fmt::format("misuse: '{}' was used by an earlier run: it lives outside the "
                                "body (a global, a static, an object of the test's), so what it "
                                "holds (a value, a lock's holder) carries over from run to run "
                                "and the runs are not independent; create the body's sfg objects "
                                "inside the body: the exploration stops",
                                o->name));
            return true;
        }
        o->explored_run.store(run_number_, std::memory_order_relaxed);
    }
    return false;
}

bool Controller::outlived(const detail::object& o) const {
    const std::uint64_t used = o.explored_run.load(std::memory_order_relaxed);
    std::lock_guard lk(mu_);
    return used != 0 && used != run_number_;
}

void Controller::park(std::unique_lock<std::mutex>& lk, std::uint32_t t) {
    Thread& th = *threads_[t];
    wait_turn(lk, t, [&] { return current_ == t && th.status == Status::running; });
}

void Controller::hand(std::uint32_t t) {
    current_.store(t, std::memory_order_release);
    if (threads_[t]->sleeping)
        wake_ = threads_[t]->sleeps_on;
}

// Notified with mu_ let go: woken under it, the thread would find mu_ held and sleep again on it
// (on one CPU, twice the switches). Every Wakeup a thread sleeps on lives as long as the
// controller (Threads are reused, workers kept), so one woken meanwhile by something else is no
// harm: it looks again and sleeps again.
void Controller::wake(std::unique_lock<std::mutex>& lk) {
    if (Wakeup* cv = std::exchange(wake_, nullptr)) {
        lk.unlock();
        cv->notify();
        lk.lock();
    }
}

void Controller::add_thread(std::string name) {
    std::unique_ptr<Thread> t;
    if (spare_.empty()) {
        t = std::make_unique<Thread>();
    } else {
        t = std::move(spare_.back());
        spare_.pop_back();
        t->status = Status::fresh;
        t->pending = {}; // next: written by its first point before anything reads it (parked)
        t->object.clear();
        t->yielded = t->attempt_ok = t->sleeping = t->holds = t->joining = t->predicted = false;
        t->key = 0;
        t->forks = 0;
        t->clean = t->created_clean = true;
        t->reads.clear();
        t->sleeps_on = &t->cv;
    }
    t->name = std::move(name);
    threads_.push_back(std::move(t));
}

template <class Ready>
void Controller::wait_turn(std::unique_lock<std::mutex>& lk, std::uint32_t t, Ready ready) {
    if (abandon_ || ready()) {
        wake(lk);
        return;
    }
    Thread& th = *threads_[t];
    th.sleeping = true;
    th.sleeps_on = &th.cv;
    th.cv.wait(
        lk, [&] { return abandon_ || ready(); }, std::exchange(wake_, nullptr));
    th.sleeping = false;
}

bool Controller::attempt_succeeds() {
    std::lock_guard lk(mu_);
    const std::uint32_t t = me();
    return t < threads_.size() && threads_[t]->attempt_ok;
}

void Controller::forked(const detail::GroupImpl& g, const std::vector<std::string>& names) {
    std::lock_guard lk(mu_);
    const std::uint32_t creator = me();
    std::uint64_t parent = 0;
    std::uint32_t fork = 0;
    bool clean = false; // a thread of no run: nothing is known of it
    if (creator < threads_.size()) {
        parent = threads_[creator]->key;
        fork = threads_[creator]->forks++;
        clean = threads_[creator]->clean;
    }
    std::vector<std::uint32_t>& ids = groups_[&g];
    ids.clear();
    for (std::size_t i = 0; i < names.size(); ++i) {
        const auto t = static_cast<std::uint32_t>(threads_.size());
        ids.push_back(t);
        add_thread(names[i]);
        Thread& th = *threads_.back();
        th.key = engine::hash_mix(engine::hash_mix(parent, fork), i);
        th.clean = th.created_clean = clean;
        // Only a thread whose creator had received nothing: a value its creator read, or data a
        // lock or a join handed over, may change its first step from run to run.
        const auto fp = clean ? first_points_.find(th.key) : first_points_.end();
        if (fp != first_points_.end() && !abandon_) {
            th.predicted = true;
            th.status = Status::parked;
            th.pending = fp->second.p;
            th.next = fp->second.next;
            th.next.thread = t;
            th.object = fp->second.object;
        }
        if (!orphaned_) // the exploration may be reading them
            names_.push_back(names[i]);
    }
}

void Controller::thread_begins(const detail::GroupImpl& g, std::size_t index) {
    std::unique_lock lk(mu_);
    const auto it = groups_.find(&g);
    if (it == groups_.end() || index >= it->second.size())
        return;
    const std::uint32_t t = it->second[index];
    this_index = t;
    detail::bind_control(this);
    Thread& th = *threads_[t];
    th.sleeping = false; // no longer on its worker's cv
    wait_turn(lk, t, [&] {
        return current_ == t &&
               (th.status == Status::first || (th.predicted && th.status == Status::running));
    });
}

// The thread waits on its worker's cv for the baton (hand() wakes it there): starting it costs
// no more than a hand-off.
void Controller::launch(const detail::GroupImpl& g, std::size_t index, std::function<void()> fn) {
    std::lock_guard lk(mu_);
    const auto it = groups_.find(&g);
    if (it == groups_.end() || index >= it->second.size())
        throw std::logic_error("sfg::explore: a thread launched before its fork");
    Worker* w = nullptr;
    if (idle_.empty()) {
        workers_.push_back(std::make_unique<Worker>());
        w = workers_.back().get();
        w->thread = std::thread([this, w] { serve(*w); });
    } else {
        w = idle_.back();
        idle_.pop_back();
    }
    w->job = std::move(fn);
    Thread& th = *threads_[it->second[index]];
    th.sleeping = true;
    th.sleeps_on = &w->cv;
    if (abandon_)
        w->cv.notify();
}

void Controller::serve(Worker& w) {
    pin(cpu_);
    batch();
    this_worker = &w;
    std::unique_lock lk(mu_);
    for (;;) {
        w.cv.wait(lk, [&] { return w.job || w.quit; });
        if (!w.job)
            return;
        {
            const std::function<void()> job = std::move(w.job);
            w.job = nullptr;
            lk.unlock();
            job(); // idle again from its thread_ends() on
        }
        lk.lock();
    }
}

// Scheduled once the group's threads have ended (the model's join), so at once then; when the
// run is given up, until they have unwound.
void Controller::await(const detail::GroupImpl& g) {
    std::unique_lock lk(mu_);
    const auto it = groups_.find(&g);
    if (it == groups_.end())
        return;
    const std::vector<std::uint32_t> ids = it->second;
    const std::uint32_t t = me();
    const bool mine = t < threads_.size();
    if (mine)
        threads_[t]->joining = true;
    done_cv_.wait(lk, [&] {
        return !in_run_ || std::all_of(ids.begin(), ids.end(), [&](std::uint32_t u) {
            return u >= threads_.size() || threads_[u]->status == Status::ended;
        });
    });
    if (mine && t < threads_.size())
        threads_[t]->joining = false;
}

void Controller::thread_ends(std::exception_ptr error) {
    std::unique_lock lk(mu_);
    const std::uint32_t t = me();
    this_index = no_thread;
    detail::bind_control(nullptr);
    // Its worker may take the next thread now: what is left of this job touches nothing of the
    // run's, and the next job runs once the worker is back in serve().
    if (this_worker)
        idle_.push_back(static_cast<Worker*>(this_worker));
    if (t == no_thread || t >= threads_.size())
        return;
    Thread& th = *threads_[t];
    if (th.predicted && !abandon_) // chosen at a first step it never took
        give_up("nondeterminism", "",
                fmt::format("nondeterminism: thread {} ended before its first sfg operation, "
                            "{}({}), which the same thread took first before (it read something "
                            "sfg does not control)",
                            th.name, to_string(th.next.op), th.object));
    th.predicted = false;
    if (error && !abandon_) {
        try {
            std::rethrow_exception(error);
        } catch (const detail::abandoned_run&) {
        } catch (const check_failure&) { // reported where it was thrown
        } catch (const std::exception& e) {
            findings_.push_back(
                {"assert", th.name,
                 fmt::format("thread {} ended with an exception: {}", th.name, e.what())});
        } catch (...) {
            findings_.push_back(
                {"assert", th.name, fmt::format("thread {} ended with an exception", th.name)});
        }
    }
    th.status = Status::ended;
    ++progress_;
    if (abandon_) {
        done_cv_.notify_all();
        return;
    }
    decide();
    wake(lk);
}

// Every thread that has not run yet runs to its first point (or its end), so that every next
// step is known before the choice: the baton goes to one of them, and its first point (or end)
// decides in turn, so that the next fresh one runs, and the last one chooses; not back to the
// deciding thread after each (one hand-off a fresh thread, not two). The last in creation order
// runs first: the first one, which the strategies choose first where they may, then chooses
// and goes on without a hand-off.
bool Controller::run_fresh() {
    for (std::uint32_t t = static_cast<std::uint32_t>(threads_.size()); t-- > 0;) {
        if (threads_[t]->status != Status::fresh)
            continue;
        threads_[t]->status = Status::first;
        ++progress_;
        hand(t);
        return true;
    }
    return false;
}

void Controller::decide() {
    if (abandon_ || run_fresh())
        return;
    // The controller's, so that a step allocates none of them.
    std::vector<std::uint32_t>& enabled = enabled_;
    std::vector<const Event*>& next = next_;
    std::vector<std::uint8_t>& yielded = yielded_;
    enabled.clear();
    next.assign(threads_.size(), nullptr);
    yielded.assign(threads_.size(), 0);
    bool all_ended = true;
    const bool yield_blocks = strategy_->yield_blocks();
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {
        Thread& th = *threads_[t];
        all_ended = all_ended && th.status == Status::ended;
        if (th.status == Status::parked && th.next.op == Op::fork && !th.next.yield)
            for (std::size_t i = 0; i < th.next.names.size(); ++i) // the numbers they will have
                th.next.names[i] = static_cast<std::uint32_t>(threads_.size() + i);
        if (th.status == Status::parked && th.pending.await)
            peek(th);
        if (th.status == Status::parked) // a barrier step's round, as of now
            th.next.generation = model_.generation(th.next);
        if (th.status == Status::parked)
            next[t] = &th.next;
        yielded[t] = th.yielded;
        if (this->enabled(t) && !(yield_blocks && th.yielded))
            enabled.push_back(t);
    }
    if (enabled.empty() && yield_blocks) // a thread that yielded goes on when no other can
        for (std::uint32_t t = 0; t < threads_.size(); ++t)
            if (this->enabled(t))
                enabled.push_back(t);
    const Decision d{&enabled, last_, path_.size(), &next, &yielded, &model_};
    if (enabled.empty()) {
        strategy_->at_leaf(d);
        if (all_ended) {
            done_cv_.notify_all();
            return;
        }
        std::string who;
        for (std::uint32_t t = 0; t < threads_.size(); ++t)
            if (threads_[t]->status == Status::parked)
                who += (who.empty() ? "" : "; ") + describe_wait(t);
        give_up("deadlock", "", "deadlock: " + who);
        return;
    }
    if (path_.size() >= max_steps_) {
        give_up("bound", "",
                fmt::format("bound: the run took more than max_steps = {} operations", max_steps_));
        return;
    }
    const std::optional<Strategy::Choice> c = strategy_->choose(d);
    if (c && c->abandon) { // no execution: given up without a finding
        blocked_ = true;
        abandon_ = true;
        for (const auto& t : threads_)
            t->sleeps_on->notify();
        done_cv_.notify_all();
        return;
    }
    if (!c) {
        give_up("nondeterminism", "",
                fmt::format("nondeterminism: at step {} the run does not go on as the schedule "
                            "it replays (other threads can run: the body did something else "
                            "than before)",
                            path_.size() + 1));
        return;
    }
    Thread& th = *threads_[c->thread];
    const StepKey key{c->thread, th.pending.op, th.pending.yield, th.object};
    if (c->expected && !(*c->expected == key)) {
        const auto said = [](const StepKey& k) {
            return k.yield ? std::string("yield")
                           : fmt::format("{}({})", to_string(k.op), k.object);
        };
        give_up("nondeterminism", "",
                fmt::format("nondeterminism: at step {} thread {} did {} where the same schedule "
                            "did {} before (the body read something sfg does not control: a "
                            "clock, a random number, state outside sfg)",
                            path_.size() + 1, th.name, said(key), said(*c->expected)));
        return;
    }
    take(c->thread);
    last_ = c->thread;
    th.status = Status::running;
    hand(c->thread);
}

std::string Controller::object_of(const detail::Point& p) const {
    if (p.obj)
        return p.obj->name;
    if (p.names) {
        std::string out;
        for (const std::string& n : *p.names)
            out += (out.empty() ? "" : ",") + n;
        return out;
    }
    return "";
}

void Controller::peek(Thread& th) {
    const detail::await_condition& c = *th.pending.await;
    th.reads.clear();
    try {
        th.holds = detail::peek_await(c, th.reads);
    } catch (...) { // the thread's own evaluation throws it, in the thread
        th.holds = true;
    }
    const std::span<const detail::object* const> vars =
        c.count ? std::span<const detail::object* const>(c.vars, c.count)
                : std::span<const detail::object* const>(th.reads);
    th.next.actions.clear();
    th.object.clear();
    for (std::size_t i = 0; i < vars.size(); ++i) {
        if (std::find(vars.begin(), vars.begin() + static_cast<std::ptrdiff_t>(i), vars[i]) !=
            vars.begin() + static_cast<std::ptrdiff_t>(i))
            continue;
        th.next.actions.push_back({Op::vol_read, intern(Namespace::volatile_, *vars[i])});
        th.object += (th.object.empty() ? "" : ",") + vars[i]->name;
    }
}

void Controller::await_turned_false() {
    {
        std::lock_guard lk(mu_);
        const std::uint32_t t = me();
        if (!abandon_)
            give_up("nondeterminism", "",
                    fmt::format("nondeterminism: at step {} thread {} found the condition of its "
                                "await on {} false, which held when it was scheduled (the body "
                                "read something sfg does not control: a clock, a random number, "
                                "state outside sfg)",
                                path_.size(), t < names_.size() ? names_[t] : "?",
                                t < threads_.size() ? threads_[t]->object : ""));
    }
    if (std::uncaught_exceptions() == 0)
        throw detail::abandoned_run{};
}

bool Controller::enabled(std::uint32_t t) const {
    const Thread& th = *threads_[t];
    if (th.status != Status::parked)
        return false;
    if (th.pending.await)
        return th.holds;
    if (th.next.op == Op::join && !th.next.yield)
        return std::all_of(th.next.names.begin(), th.next.names.end(), [&](std::uint32_t u) {
            return u < threads_.size() && threads_[u]->status == Status::ended;
        });
    return model_.enabled(th.next);
}

namespace {
// Whether a step may hand the thread something another thread did: a value read, data a lock,
// join, barrier, queue or wake-up hands over, an attempt's outcome, an await's evaluation.
bool receives(const detail::Point& p) {
    if (p.yield)
        return false;
    if (p.await || p.rmw || p.attempt)
        return true;
    switch (p.op) {
    case Op::write:
    case Op::release:
    case Op::vol_write:
    case Op::barrier_enter:
    case Op::fork:
    case Op::begin:
    case Op::end:
    case Op::enqueue:
    case Op::cond_wait:
    case Op::cond_notify:
    case Op::cond_notifyall:
        return false;
    default:
        return true;
    }
}
} // namespace

// Thread t takes its pending step: the model follows it, and the run records it.
void Controller::take(std::uint32_t t) {
    ++progress_;
    Thread& th = *threads_[t];
    const detail::Point& p = th.pending;
    StepRecord r;
    r.key = {t, p.op, p.yield, th.object};
    r.file = p.file;
    r.line = p.line;
    r.attempt = p.attempt;
    r.rmw = p.rmw;
    for (std::uint32_t u = 0; u < threads_.size(); ++u)
        if (u != t)
            threads_[u]->yielded = false;
    th.yielded = p.yield;
    th.clean = th.clean && !receives(p);
    th.attempt_ok = model_.apply(th.next);
    r.succeeded = th.attempt_ok;
    path_.push_back(std::move(r));
    if (steps_ < events_.size())
        events_[steps_] = th.next; // copy-assigned: the vectors' storage reused
    else
        events_.push_back(th.next);
    ++steps_;
}

std::string Controller::describe_wait(std::uint32_t t) const {
    const Thread& th = *threads_[t];
    const Event& e = th.next;
    const auto holder = [&](std::uint32_t lock) {
        const std::optional<std::uint32_t> h = model_.holder(lock);
        return h ? "held by " + threads_[*h]->name : std::string("free");
    };
    if (th.pending.await)
        return fmt::format("{} waits until its await on {} holds", th.name, th.object);
    switch (e.op) {
    case Op::acquire:
        return fmt::format("{} waits to acq({}), {}", th.name, th.object,
                           holder(e.actions.front().object));
    case Op::barrier_exit:
        return fmt::format("{} waits at barrier {} for the other threads to arrive", th.name,
                           th.object);
    case Op::dequeue:
        return fmt::format("{} waits to deq from {}, empty", th.name, th.object);
    case Op::join:
        return fmt::format("{} waits to join {}", th.name, th.object);
    case Op::cond_wake:
        return model_.unnotified(t, e.actions.front().object)
                   ? fmt::format("{} waits on {} (no notify since it began waiting)", th.name,
                                 th.object)
                   : fmt::format("{} was notified on {} but waits to acq({}), {}", th.name,
                                 th.object, object_names_.at(e.lock), holder(e.lock));
    default:
        return fmt::format("{} waits at {}({})", th.name, to_string(e.op), th.object);
    }
}

void Controller::give_up(std::string kind, std::string var, std::string message) {
    findings_.push_back({std::move(kind), std::move(var), std::move(message)});
    abandon_ = true;
    for (const auto& t : threads_)
        t->sleeps_on->notify();
    done_cv_.notify_all();
    if (uncontrolled_) // the exploring thread stops waiting for the run
        explorer_cv_.notify_all();
}

} // namespace sfg::explore_detail
