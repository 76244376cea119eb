// Every schedule of a C++ test (docs/explore.md): sfg::explore runs a test body again and again
// under a scheduler that decides, at every operation of the sfg types, which thread goes next,
// with the checks of a session (discipline, races, determinism) on every run.
//
//     sfg::explore_report r = sfg::explore([] {
//         sfg::volatile_var<int> x("x", 0);
//         sfg::thread t("t", [&] { x.store(x.load() + 1); });
//         x.store(x.load() + 1);
//         t.join();
//         sfg::check(x.load() == 2, "no lost update");
//     });
//     // r.findings: an "assert" finding with the schedule that loses an update
#pragma once

#include "sfg/sfg.hpp"

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sfg {

// How the schedules are chosen (docs/explore.md, "Modes").
enum class explore_mode {
    dpor,   // one run per Mazurkiewicz class of the dependence of docs/programs.md
    naive,  // every interleaving
    random, // max_executions runs, each thread chosen uniformly at every point
    pct,    // max_executions runs of probabilistic concurrency testing (Burckhardt et al. 2010)
};

struct explore_options {
    explore_mode mode = explore_mode::dpor;
    std::string analyses = "enforce,hb";      // the session's analyses on every run
    std::uint64_t max_executions = 1'000'000; // then the report says complete == false
    std::uint64_t max_steps = 100'000;        // one run's operations; past it: finding "bound"
    std::optional<unsigned> max_preemptions;  // schedules with at most this many preemptions
    std::uint64_t seed = 0;                   // random and pct
    unsigned pct_depth = 3;                   // pct: the bug depth d
    unsigned jobs = 1; // processes exploring (dpor, naive; docs/explore.md): the same report
    // dpor, naive: every this many runs a task hands the rest of its search's top on as tasks
    // (0: never); the report depends on it, not on `jobs`.
    std::uint64_t task_budget = 256;
    // Part `shard` of `shards` (1-based; docs/explore.md, "More than one machine"): only that
    // part's share of the search, whose reports add up to the whole one's.
    unsigned shard = 1, shards = 1;
    // Non-empty: the part is also written to this file, for merge_explore_parts or `sfgc check
    // --merge` ("%n" in it: this exploration's number in the process, from 1).
    std::string part_file;
    std::string replay; // non-empty (or env SFG_REPLAY): run that one schedule
    // A thread that runs this long without reaching an sfg operation while the others wait is
    // "uncontrolled", and the exploration stops (0: never looked at).
    std::uint64_t uncontrolled_after_ms = 3000;
};

struct explore_finding {
    // As `sfgc check` names them: violation, race, warning, conflict, cycle, misuse; and the
    // explorer's own: assert, deadlock, bound, nondeterminism, uncontrolled.
    std::string kind;
    std::string analysis; // as in sfg::finding; "" for the explorer's own kinds
    std::string var;      // the variable or object, where there is one
    std::string message;  // the report, with its schedule as a step table
    std::string schedule; // a replay string: explore_options::replay runs that run again
};

struct explore_report {
    std::uint64_t executions = 0; // runs of the body
    std::uint64_t classes = 0;    // Mazurkiewicz classes of the runs (naive: every run counts)
    bool complete = false;        // every schedule (dpor, naive) within the bounds was run
    std::vector<explore_finding> findings; // one per (kind, analysis, var): the shortest run
    std::string to_string() const;         // what a test prints on failure
};

#if defined(SFG_DISABLE)
// Switched off (docs/enforcers.md, "Switching it off"): the body runs once, on the schedule the
// system picks, and nothing is checked.
inline explore_report explore(std::function<void()> body, explore_options = {}) {
    body();
    explore_report r;
    r.executions = r.classes = 1;
    return r;
}
inline explore_report explore(const spec&, std::function<void()> body, explore_options o = {}) {
    return explore(std::move(body), std::move(o));
}
#else
explore_report explore(const spec& s, std::function<void()> body, explore_options o = {});
explore_report explore(std::function<void()> body, explore_options o = {}); // no spec
// The report of a whole search from the files its N parts wrote (part_file; parts 1..N of one
// search, in any order): executions and classes add up, each finding key keeps the shortest run
// of any part. std::invalid_argument naming the file and the problem when they do not fit.
explore_report merge_explore_parts(const std::vector<std::string>& files);
#endif

// Thrown by a false sfg::check under sfg::explore, after the "assert" finding is recorded: it
// unwinds the calling thread, whose end the others do not wait for.
class check_failure : public std::exception {
public:
    explicit check_failure(std::string what) : what_(std::move(what)) {}
    const char* what() const noexcept override { return what_.c_str(); }

private:
    std::string what_;
};

// An assertion of a test body: when false, an "assert" finding of the run (under sfg::explore)
// and a check_failure thrown in the calling thread; outside an exploration, check_failure only.
#if defined(SFG_DISABLE)
inline void check(bool condition, std::string_view what,
                  sfg::source_location = sfg::source_location::current()) {
    if (!condition)
        throw check_failure("sfg::check failed: " + std::string(what));
}
inline std::string explore_report::to_string() const {
    return "sfg::explore: switched off (SFG_DISABLE): the body ran once\n";
}
#else
void check(bool condition, std::string_view what,
           sfg::source_location where = sfg::source_location::current());
#endif

} // namespace sfg
