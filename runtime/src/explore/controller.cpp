// The scheduler under sfg::explore (controller.hpp; docs/explore.md, "How it works").
#include "explore/controller.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <limits>

namespace sfg::explore_detail {

namespace {

constexpr std::uint32_t no_thread = std::numeric_limits<std::uint32_t>::max();
// The calling thread's number in the run (creation order; main is 0).
thread_local std::uint32_t this_index = no_thread;

} // namespace

Controller::Controller(Strategy& strategy, std::uint64_t max_steps)
    : strategy_(strategy), max_steps_(max_steps) {}

Controller::~Controller() = default;

std::uint32_t Controller::me() const {
    return this_index;
}

void Controller::begin_run() {
    std::lock_guard lk(mu_);
    threads_.clear();
    names_.clear();
    threads_.push_back(std::make_unique<Thread>());
    threads_[0]->name = "main";
    threads_[0]->status = Status::running;
    names_.push_back("main");
    current_ = 0;
    returns_to_ = 0;
    abandon_ = false;
    last_.reset();
    path_.clear();
    findings_.clear();
    lock_holder_.clear();
    barriers_.clear();
    queue_length_.clear();
    conds_.clear();
    groups_.clear();
    this_index = 0;
    strategy_.begin_run();
}

void Controller::run_ends(std::exception_ptr) {
    std::unique_lock lk(mu_);
    threads_[0]->status = Status::ended;
    if (!abandon_)
        decide(lk, 0);
    done_cv_.wait(lk, [&] {
        return std::all_of(threads_.begin(), threads_.end(),
                           [](const auto& t) { return t->status == Status::ended; });
    });
    this_index = no_thread;
    std::vector<StepKey> keys;
    keys.reserve(path_.size());
    for (const StepRecord& r : path_)
        keys.push_back(r.key);
    strategy_.end_run(keys);
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
    const std::uint32_t t = me();
    findings_.push_back(
        {"assert", what,
         fmt::format("check failed: {} ({}{}thread {})", what, file ? file : "",
                     file ? fmt::format(":{}, ", line) : "", t < names_.size() ? names_[t] : "?")});
}

detail::Scheduled Controller::point(const detail::Point& p) {
    std::unique_lock lk(mu_);
    const std::uint32_t t = me();
    if (t == no_thread || t >= threads_.size())
        return detail::Scheduled::run; // not a thread of the run: the session reports it
    const auto given_up = [&] {
        if (p.quiet || std::uncaught_exceptions() > 0)
            return detail::Scheduled::silent;
        throw detail::abandoned_run{};
    };
    if (abandon_)
        return given_up();
    Thread& th = *threads_[t];
    th.pending = p;
    th.object = object_of(p);
    if (th.status == Status::first) { // its first point: back to the thread that let it run
        th.status = Status::parked;
        current_ = returns_to_;
        threads_[returns_to_]->cv.notify_one();
    } else {
        th.status = Status::parked;
        decide(lk, t);
    }
    park(lk, t);
    if (abandon_)
        return given_up();
    return detail::Scheduled::run;
}

void Controller::park(std::unique_lock<std::mutex>& lk, std::uint32_t t) {
    Thread& th = *threads_[t];
    th.cv.wait(lk, [&] { return abandon_ || (current_ == t && th.status == Status::running); });
}

bool Controller::attempt_succeeds() {
    std::lock_guard lk(mu_);
    const std::uint32_t t = me();
    return t < threads_.size() && threads_[t]->attempt_ok;
}

void Controller::forked(const detail::GroupImpl& g, const std::vector<std::string>& names) {
    std::lock_guard lk(mu_);
    std::vector<std::uint32_t>& ids = groups_[&g];
    ids.clear();
    for (const std::string& n : names) {
        ids.push_back(static_cast<std::uint32_t>(threads_.size()));
        threads_.push_back(std::make_unique<Thread>());
        threads_.back()->name = n;
        names_.push_back(n);
    }
}

void Controller::thread_begins(const detail::GroupImpl& g, std::size_t index) {
    std::unique_lock lk(mu_);
    const auto it = groups_.find(&g);
    if (it == groups_.end() || index >= it->second.size())
        return;
    const std::uint32_t t = it->second[index];
    this_index = t;
    Thread& th = *threads_[t];
    th.cv.wait(lk, [&] { return abandon_ || (current_ == t && th.status == Status::first); });
}

void Controller::thread_ends(std::exception_ptr error) {
    std::unique_lock lk(mu_);
    const std::uint32_t t = me();
    this_index = no_thread;
    if (t == no_thread || t >= threads_.size())
        return;
    Thread& th = *threads_[t];
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
    const bool first = th.status == Status::first;
    th.status = Status::ended;
    if (abandon_) {
        done_cv_.notify_all();
        return;
    }
    if (first) {
        current_ = returns_to_;
        threads_[returns_to_]->cv.notify_one();
        return;
    }
    decide(lk, t);
}

// Every thread that has not run yet runs to its first point (or its end), in creation order,
// so that every next step is known before the choice.
void Controller::run_fresh(std::unique_lock<std::mutex>& lk, std::uint32_t from) {
    for (std::uint32_t t = 0; t < threads_.size() && !abandon_; ++t) {
        if (threads_[t]->status != Status::fresh)
            continue;
        threads_[t]->status = Status::first;
        returns_to_ = from;
        current_ = t;
        threads_[t]->cv.notify_one();
        threads_[from]->cv.wait(lk, [&] { return abandon_ || current_ == from; });
    }
}

void Controller::decide(std::unique_lock<std::mutex>& lk, std::uint32_t from) {
    run_fresh(lk, from);
    if (abandon_)
        return;
    std::vector<std::uint32_t> enabled;
    bool all_ended = true;
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {
        all_ended = all_ended && threads_[t]->status == Status::ended;
        if (this->enabled(t) && !threads_[t]->yielded)
            enabled.push_back(t);
    }
    if (enabled.empty()) // a thread that yielded goes on when no other can
        for (std::uint32_t t = 0; t < threads_.size(); ++t)
            if (this->enabled(t))
                enabled.push_back(t);
    if (enabled.empty()) {
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
    const Decision d{&enabled, last_, path_.size()};
    const std::optional<Strategy::Choice> c = strategy_.choose(d);
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
        give_up("nondeterminism", "",
                fmt::format(
                    "nondeterminism: at step {} thread {} did {} where the same schedule "
                    "did {} before (the body read something sfg does not control: a "
                    "clock, a random number, state outside sfg)",
                    path_.size() + 1, th.name,
                    key.yield ? "yield" : fmt::format("{}({})", to_string(key.op), key.object),
                    c->expected->yield
                        ? "yield"
                        : fmt::format("{}({})", to_string(c->expected->op), c->expected->object)));
        return;
    }
    apply(c->thread);
    last_ = c->thread;
    th.status = Status::running;
    current_ = c->thread;
    th.cv.notify_one();
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

int Controller::token_for(std::uint32_t t, const void* c) const {
    const auto it = conds_.find(c);
    if (it == conds_.end())
        return -1;
    const std::vector<std::uint32_t>& tokens = it->second.tokens;
    const auto k = std::upper_bound(tokens.begin(), tokens.end(), threads_[t]->since);
    return k == tokens.end() ? -1 : static_cast<int>(k - tokens.begin());
}

std::size_t Controller::waiters(const void* c) const {
    std::size_t n = 0;
    for (const auto& t : threads_)
        n += t->status == Status::parked && !t->pending.yield && t->pending.op == Op::cond_wake &&
             t->pending.obj == c;
    return n;
}

bool Controller::enabled(std::uint32_t t) const {
    const Thread& th = *threads_[t];
    if (th.status != Status::parked)
        return false;
    const detail::Point& p = th.pending;
    if (p.yield)
        return true;
    const auto free = [&](const void* m) { return !lock_holder_.contains(m); };
    switch (p.op) {
    case Op::acquire:
        return p.attempt || free(p.obj);
    case Op::barrier_exit: {
        const auto b = barriers_.find(p.obj);
        const auto g = th.generation.find(p.obj);
        return b != barriers_.end() && g != th.generation.end() && b->second.generation > g->second;
    }
    case Op::dequeue: {
        const auto q = queue_length_.find(p.obj);
        return p.attempt || (q != queue_length_.end() && q->second > 0);
    }
    case Op::join: {
        const auto g = groups_.find(p.group);
        if (g == groups_.end())
            return true;
        return std::all_of(g->second.begin(), g->second.end(),
                           [&](std::uint32_t u) { return threads_[u]->status == Status::ended; });
    }
    case Op::cond_wake:
        return token_for(t, p.obj) >= 0 && free(p.lock);
    default:
        return true;
    }
}

// The step's effect on the controller's model of the objects (docs/explore.md), as the model
// checker's interpreter has it for the same operations.
void Controller::apply(std::uint32_t t) {
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
    if (p.yield) {
        th.yielded = true;
        path_.push_back(std::move(r));
        return;
    }
    switch (p.op) {
    case Op::acquire: {
        const bool free = !lock_holder_.contains(p.obj);
        th.attempt_ok = free;
        r.succeeded = free;
        if (free)
            lock_holder_[p.obj] = t;
        break;
    }
    case Op::release:
        if (auto it = lock_holder_.find(p.obj); it != lock_holder_.end() && it->second == t)
            lock_holder_.erase(it);
        break;
    case Op::cond_wait:
        if (auto it = lock_holder_.find(p.lock); it != lock_holder_.end() && it->second == t)
            lock_holder_.erase(it);
        th.since = conds_[p.obj].seq;
        break;
    case Op::cond_wake: {
        Cond& c = conds_[p.obj];
        c.tokens.erase(c.tokens.begin() + token_for(t, p.obj));
        lock_holder_[p.lock] = t;
        break;
    }
    case Op::cond_notify:
    case Op::cond_notifyall: { // one token (all: one a waiter), none beyond the waiters
        Cond& c = conds_[p.obj];
        const std::size_t want =
            p.op == Op::cond_notify ? c.tokens.size() + 1 : std::numeric_limits<std::size_t>::max();
        const std::size_t most = std::min(want, waiters(p.obj));
        if (c.tokens.size() < most)
            ++c.seq;
        while (c.tokens.size() < most)
            c.tokens.push_back(c.seq);
        break;
    }
    case Op::barrier_enter: {
        Barrier& b = barriers_[p.obj];
        if (b.count == 0)
            b.count = std::max<std::ptrdiff_t>(p.count, 1);
        th.generation[p.obj] = b.generation;
        if (++b.arrived >= b.count) {
            ++b.generation;
            b.arrived = 0;
        }
        break;
    }
    case Op::enqueue:
        ++queue_length_[p.obj];
        break;
    case Op::dequeue: {
        std::size_t& n = queue_length_[p.obj];
        th.attempt_ok = n > 0;
        r.succeeded = n > 0;
        if (n > 0)
            --n;
        break;
    }
    default:
        break;
    }
    path_.push_back(std::move(r));
}

std::string Controller::describe_wait(std::uint32_t t) const {
    const Thread& th = *threads_[t];
    const detail::Point& p = th.pending;
    const auto holder = [&](const void* m) {
        const auto it = lock_holder_.find(m);
        return it == lock_holder_.end() ? std::string("free")
                                        : "held by " + threads_[it->second]->name;
    };
    switch (p.op) {
    case Op::acquire:
        return fmt::format("{} waits to acq({}), {}", th.name, th.object, holder(p.obj));
    case Op::barrier_exit:
        return fmt::format("{} waits at barrier {} for the other threads to arrive", th.name,
                           th.object);
    case Op::dequeue:
        return fmt::format("{} waits to deq from {}, empty", th.name, th.object);
    case Op::join:
        return fmt::format("{} waits to join {}", th.name, th.object);
    case Op::cond_wake:
        return token_for(t, p.obj) < 0
                   ? fmt::format("{} waits on {} (no notify since it began waiting)", th.name,
                                 th.object)
                   : fmt::format("{} was notified on {} but waits to acq({}), {}", th.name,
                                 th.object, p.lock ? p.lock->name : "", holder(p.lock));
    default:
        return fmt::format("{} waits at {}({})", th.name, to_string(p.op), th.object);
    }
}

void Controller::give_up(std::string kind, std::string var, std::string message) {
    findings_.push_back({std::move(kind), std::move(var), std::move(message)});
    abandon_ = true;
    for (const auto& t : threads_)
        t->cv.notify_all();
    done_cv_.notify_all();
}

} // namespace sfg::explore_detail
