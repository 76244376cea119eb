// The scheduler under sfg::explore (docs/explore.md, "How it works"), private to
// runtime/src/explore: the live runtime's Control. One of the body's threads holds the baton at a
// time; at a scheduling point it parks, and the controller, with its model of every sfg object
// (lock holders, barrier generations, queue lengths, condition variables' waiters, ended
// threads), hands the baton to the thread the strategy chooses among the enabled ones.
#pragma once

#include "explore/dependence.hpp"
#include "explore/model.hpp"
#include "explore/strategy.hpp"

#include "sfg/explore.hpp"
#include "sfg/runtime/live/control.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sched.h>

namespace sfg::explore_detail {

// A step of a run as its report shows it.
struct StepRecord {
    StepKey key;
    const char* file = nullptr;
    std::uint32_t line = 0;
    bool attempt = false, rmw = false, succeeded = true;
};

// One of the explorer's own findings in a run (assert, deadlock, bound, nondeterminism).
struct OwnFinding {
    std::string kind, var, message;
};

// Runs the calling thread on `cpu` only (Linux; elsewhere, and for -1, nothing).
void pin(int cpu);

// The thread the body runs on, the main thread of every run of the controllers it serves, one
// job (a task's or a probe's runs) at a time: so that explore returns even when the body's own
// thread is stuck outside sfg (docs/explore.md, "What it refuses").
class RunThread {
public:
    RunThread();
    ~RunThread(); // not for a thread left to its job
    RunThread(const RunThread&) = delete;
    RunThread& operator=(const RunThread&) = delete;

    void post(std::function<void()> job);
    // Its job is stuck: the thread ends when (if ever) the job returns, and this object must
    // never be destroyed.
    void leave();

private:
    void serve();

    std::mutex mu_;
    std::condition_variable cv_;
    std::function<void()> job_;
    bool quit_ = false, left_ = false;
    std::thread thread_;
};

// How a thread of a run sleeps until it is handed the baton: on Linux a futex word of its own, so
// that a hand-off is one futex wake and one futex wait, without a condition variable's own
// bookkeeping (bench/README.md, "Per execution, third round"); elsewhere a condition variable.
// Whatever it waits for is guarded by the controller's mutex.
class Wakeup {
public:
    // With `lk` held: returns once `done()` holds, sleeping until notify() meanwhile. `first`
    // (the thread handed the baton) is notified once the mutex is let go, before the sleep: one
    // unlock for both.
    template <class Done>
    void wait(std::unique_lock<std::mutex>& lk, Done done, Wakeup* first = nullptr) {
#if defined(__linux__)
        while (!done()) {
            word_.store(0, std::memory_order_relaxed); // before the unlock: a notify() after it
            lk.unlock();                               // finds 0 and sets 1
            if (first)
                std::exchange(first, nullptr)->notify();
            sleep();
            lk.lock();
        }
#endif
        if (first) {
            lk.unlock();
            first->notify();
            lk.lock();
        }
#if !defined(__linux__)
        cv_.wait(lk, done);
#endif
    }
    // Wakes the waiter, if any (after what it waits for was changed under the mutex).
    void notify();

private:
#if defined(__linux__)
    void sleep();
    std::atomic<std::uint32_t> word_{0};
#else
    std::condition_variable cv_;
#endif
};

class Controller final : public detail::Control {
public:
    // `uncontrolled_after`: how long a thread may run without reaching an sfg operation while
    // the others wait (a watchdog thread looks; 0: never).
    // Its strategy comes with use(), before a run.
    Controller(std::uint64_t max_steps, std::chrono::milliseconds uncontrolled_after);
    ~Controller() override;

    // Runs `job` (runs, each begin_run(), the body, run_ends()) on `rt`, and waits until it is
    // done. False when a thread of a run was uncontrolled and the run did not end within a grace
    // period after (a run that does end in time lets the job go on): the run is left to its threads
    // (docs/explore.md, "What it refuses"), and so are `rt` (left) and the controller (orphaned),
    // which must never be destroyed, since they may still call it; nothing of it changes after.
    bool run(RunThread& rt, std::function<void()> job);
    // The next job's strategy (a controller serves the probes and tasks of an exploration in
    // turn, with its kept threads; not an orphaned one).
    void use(Strategy& strategy);
    bool orphaned() const { return orphaned_; }
    // Whether a kept controller can serve an exploration with these options; then, before its
    // first run, begin_exploration() numbers its objects anew.
    bool fits(std::uint64_t max_steps, std::chrono::milliseconds uncontrolled_after) const {
        return max_steps == max_steps_ && uncontrolled_after == uncontrolled_after_;
    }
    void begin_exploration();

    // A run: the calling thread is its main thread (0) until run_ends(), which waits until every
    // thread of the run has ended; false when the run was left meanwhile (its job must touch
    // nothing of the exploration's then).
    void begin_run();
    bool run_ends();

    const std::vector<StepRecord>& path() const { return path_; }
    std::span<const Event> events() const { return {events_.data(), steps_}; }
    std::vector<std::uint32_t> schedule() const;
    const std::vector<std::string>& thread_names() const { return names_; }
    // Each object's number in events() as a hash of its name: the same in every controller.
    std::span<const std::uint64_t> object_keys() const { return object_keys_; }
    const std::vector<OwnFinding>& findings() const { return findings_; }
    // An assert of sfg::check in the calling thread (a thread of the run).
    void check_failed(const std::string& what, const char* file, std::uint32_t line);
    bool abandoned() const { return abandon_; }
    // The strategy gave the run up (dpor: sleep-set blocked): it is no execution.
    bool blocked() const { return blocked_; }
    // A thread of the run ran too long without an sfg operation: the exploration stops.
    bool uncontrolled() const { return uncontrolled_; }
    // A run met an sfg object an earlier run used (docs/explore.md, "What it refuses"): the
    // exploration stops.
    bool refused() const { return refused_; }

    // detail::Control
    detail::Scheduled point(const detail::Point& p) override;
    bool attempt_succeeds() override;
    void forked(const detail::GroupImpl& g, const std::vector<std::string>& names) override;
    void thread_begins(const detail::GroupImpl& g, std::size_t index) override;
    void thread_ends(std::exception_ptr error) override;
    bool swallows_thread_errors() const override { return true; }
    void launch(const detail::GroupImpl& g, std::size_t index, std::function<void()> fn) override;
    void await(const detail::GroupImpl& g) override;
    void await_turned_false() override;
    bool outlived(const detail::object& o) const override;

private:
    enum class Status : std::uint8_t { fresh, first, running, parked, ended };
    struct Thread {
        std::string name;
        Status status = Status::fresh;
        detail::Point pending; // its call site and pointers, valid while it waits
        Event next;            // the same as the engine sees it
        std::string object;    // the pending op's object, by name
        bool yielded = false;
        bool attempt_ok = false;
        bool holds = false;                       // an await's condition, as last peeked
        std::vector<const detail::object*> reads; // the volatiles that peek loaded
        bool sleeping = false; // waiting on *sleeps_on: a hand-off must notify it
        bool joining = false;  // in await(): waiting for other threads to end
        // Its place among the run's threads, the same in every run of a deterministic body: its
        // creator's key, the creator's fork it came from, its index there (forked()).
        std::uint64_t key = 0;
        std::uint32_t forks = 0; // forks it made so far
        // Not started: its first step is the one the thread of its key took first in an earlier
        // run (first_points_), checked once it reaches it.
        bool predicted = false;
        // Whether it has received nothing from another thread so far (receives() in
        // controller.cpp), and whether its creator had not when it forked it: then what it does
        // up to its first step is its code's alone, the same in every run.
        bool clean = true, created_clean = true;
        Wakeup cv;
        Wakeup* sleeps_on = &cv; // a worker's, until it runs the thread
    };
    // An OS thread of the controller's that runs the threads of its runs, one after the other
    // (launch()), so that a run creates none.
    struct Worker {
        Wakeup cv;
        std::function<void()> job; // launched, to run once the baton comes
        bool quit = false;
        std::thread thread;
    };

    std::uint32_t me() const;
    bool refuse_outlived(const detail::Point& p);
    void park(std::unique_lock<std::mutex>& lk, std::uint32_t t);
    // The baton to t (a futex wake only when t sleeps, by wake() or wait_turn() once mu_ is let
    // go); t's wait for it, until `ready` holds or the run is given up. No spinning: on a loaded
    // machine it takes the core from the thread that is to run.
    void hand(std::uint32_t t);
    void wake(std::unique_lock<std::mutex>& lk);
    void add_thread(std::string name); // a fresh one, or a spare one reset
    template <class Ready>
    void wait_turn(std::unique_lock<std::mutex>& lk, std::uint32_t t, Ready ready);
    // Under mu_, by the thread that holds the baton and parks or ends: hands it on.
    void decide();
    bool run_fresh();
    bool enabled(std::uint32_t t) const;
    // A parked await: its condition peeked at (detail::peek_await), its step's actions the vr of
    // each volatile it names, or else of each it loaded.
    void peek(Thread& th);
    void take(std::uint32_t t);
    void give_up(std::string kind, std::string var, std::string message);
    std::string describe_wait(std::uint32_t t) const;
    std::string object_of(const detail::Point& p) const;
    std::uint32_t intern(Namespace space, const std::string& name);
    std::uint32_t intern(Namespace space, const detail::object& o);
    void event_of(Event& e, std::uint32_t t, const detail::Point& p);
    void watch();
    // How long a run has to end once it is given up (uncontrolled, or any other reason).
    std::chrono::milliseconds grace() const;
    void unwinding_stuck();
    void serve(Worker& w);

    Strategy* strategy_ = nullptr;
    std::uint64_t max_steps_;
    mutable std::mutex mu_;
    std::condition_variable done_cv_;
    std::vector<std::unique_ptr<Thread>> threads_;
    std::vector<std::unique_ptr<Thread>> spare_; // of earlier runs: their cvs stay valid
    Wakeup* wake_ = nullptr;                     // to notify once mu_ is let go (hand())
    std::vector<std::uint32_t> enabled_;         // decide()'s
    std::vector<const Event*> next_;
    std::vector<std::uint8_t> yielded_;
    std::vector<StepKey> keys_; // run_ends()'s
    std::vector<std::string> names_;
    std::atomic<std::uint32_t> current_{0}; // the baton's holder (written under mu_)
    std::atomic<bool> abandon_{false};      // written under mu_
    bool blocked_ = false, uncontrolled_ = false, refused_ = false;
    std::uint64_t run_number_ = 0; // this run's, unique in the process (detail::object's stamp)
    bool in_run_ = false, stopping_ = false;
    std::uint64_t runs_ = 0;     // begun
    std::uint64_t progress_ = 0; // bumped whenever the baton moves
    std::chrono::milliseconds uncontrolled_after_;
    std::condition_variable watch_cv_;
    bool watch_idle_ = false; // the watchdog waits for a run (watch())
    std::thread watchdog_;
    int cpu_ = -1; // where the run's threads run (pin() in controller.cpp); -1: anywhere
    // The end of run()'s job (written under mu_).
    bool job_done_ = false;
    std::atomic<bool> orphaned_{false};
    std::condition_variable explorer_cv_;
    std::optional<std::uint32_t> last_;
    std::vector<StepRecord> path_;
    // The run's steps, as the engine sees them: the first steps_; the rest are earlier runs',
    // kept so that their vectors' storage serves the next run's steps.
    std::vector<Event> events_;
    std::size_t steps_ = 0;
    std::vector<OwnFinding> findings_;
    Model model_;
    std::map<const detail::GroupImpl*, std::vector<std::uint32_t>> groups_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::vector<Worker*> idle_; // workers without a job
    // Objects by namespace and name, numbered in the order the exploration meets them (the same
    // in every run of a deterministic body).
    std::map<std::pair<Namespace, std::string>, std::uint32_t> objects_;
    std::vector<std::string> object_names_;  // by number
    std::vector<std::uint64_t> object_keys_; // by number
    // The objects met last by address, for intern(): checked by kind and name, since a run's
    // objects may be where an earlier run's were.
    struct Met {
        const detail::object* at = nullptr;
        Namespace space{};
        std::uint32_t number = 0;
    };
    std::array<Met, 64> met_{};
    // The first step of each thread by key, as an earlier run of the exploration took it (a
    // point's call site and flags, its event, its object's name): a fresh thread whose first
    // step is known waits, parked there, until it is chosen, instead of a hand-off to run it
    // to its first point (docs/explore.md, "How it works").
    struct FirstPoint {
        detail::Point p;
        Event next;
        std::string object;
    };
    std::unordered_map<std::uint64_t, FirstPoint> first_points_;
    // p is the thread's first point, which it was predicted to take: whether it is that step.
    bool as_predicted(std::uint32_t t, const detail::Point& p);
};

} // namespace sfg::explore_detail
