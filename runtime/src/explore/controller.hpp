// The scheduler under sfg::explore (docs/explore.md, "How it works"), private to
// runtime/src/explore: the live runtime's Control. One of the body's threads holds the baton at a
// time; at a scheduling point it parks, and the controller, with its model of every sfg object
// (lock holders, barrier generations, queue lengths, condition variables' waiters, ended
// threads), hands the baton to the thread the strategy chooses among the enabled ones.
#pragma once

#include "explore/strategy.hpp"

#include "sfg/explore.hpp"
#include "sfg/runtime/live/control.hpp"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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

class Controller final : public detail::Control {
public:
    Controller(Strategy& strategy, std::uint64_t max_steps);
    ~Controller() override;

    // A run: the calling thread is its main thread (0) until run_ends(), which waits until every
    // thread of the run has ended. `error`: what the body ended with.
    void begin_run();
    void run_ends(std::exception_ptr error);

    const std::vector<StepRecord>& path() const { return path_; }
    std::vector<std::uint32_t> schedule() const;
    const std::vector<std::string>& thread_names() const { return names_; }
    const std::vector<OwnFinding>& findings() const { return findings_; }
    // An assert of sfg::check in the calling thread (a thread of the run).
    void check_failed(const std::string& what, const char* file, std::uint32_t line);
    bool abandoned() const { return abandon_; }

    // detail::Control
    detail::Scheduled point(const detail::Point& p) override;
    bool attempt_succeeds() override;
    void forked(const detail::GroupImpl& g, const std::vector<std::string>& names) override;
    void thread_begins(const detail::GroupImpl& g, std::size_t index) override;
    void thread_ends(std::exception_ptr error) override;
    bool swallows_thread_errors() const override { return true; }

private:
    enum class Status : std::uint8_t { fresh, first, running, parked, ended };
    struct Thread {
        std::string name;
        Status status = Status::fresh;
        detail::Point pending;
        std::string object; // the pending op's object, by name
        bool yielded = false;
        bool attempt_ok = false;
        std::uint32_t since = 0;                         // condition variables: waiting since
        std::map<const void*, std::uint64_t> generation; // barrier: the one it arrived in
        std::condition_variable cv;
    };
    struct Barrier {
        std::ptrdiff_t count = 0, arrived = 0;
        std::uint64_t generation = 0;
    };
    struct Cond {
        std::uint32_t seq = 0;
        std::vector<std::uint32_t> tokens; // increasing (as the model checker's)
    };

    std::uint32_t me() const;
    void park(std::unique_lock<std::mutex>& lk, std::uint32_t t);
    void decide(std::unique_lock<std::mutex>& lk, std::uint32_t from);
    void run_fresh(std::unique_lock<std::mutex>& lk, std::uint32_t from);
    bool enabled(std::uint32_t t) const;
    void apply(std::uint32_t t);
    void give_up(std::string kind, std::string var, std::string message);
    std::string describe_wait(std::uint32_t t) const;
    std::string object_of(const detail::Point& p) const;
    int token_for(std::uint32_t t, const void* c) const;
    std::size_t waiters(const void* c) const;

    Strategy& strategy_;
    std::uint64_t max_steps_;
    mutable std::mutex mu_;
    std::condition_variable done_cv_;
    std::vector<std::unique_ptr<Thread>> threads_;
    std::vector<std::string> names_;
    std::uint32_t current_ = 0;    // the baton's holder
    std::uint32_t returns_to_ = 0; // a fresh thread's first run hands the baton back to it
    bool abandon_ = false;
    std::optional<std::uint32_t> last_;
    std::vector<StepRecord> path_;
    std::vector<OwnFinding> findings_;
    std::map<const void*, std::uint32_t> lock_holder_;
    std::map<const void*, Barrier> barriers_;
    std::map<const void*, std::size_t> queue_length_;
    std::map<const void*, Cond> conds_;
    std::map<const detail::GroupImpl*, std::vector<std::uint32_t>> groups_;
};

} // namespace sfg::explore_detail
