// sfg::explore (docs/explore.md): the body run once per schedule under the Controller, each run a
// session with the options' analyses, the findings of all runs merged by (kind, analysis, var)
// with the shortest run's schedule.
#include "explore/controller.hpp"
#include "explore/dependence.hpp"
#include "explore/exploration.hpp"
#include "explore/part.hpp"
#include "explore/strategy.hpp"

#include "sfg/runtime/engine/progress_line.hpp"
#include "sfg/runtime/engine/task_tree.hpp"

#include "sfg/explore.hpp"
#include "sfg/runtime/live/env_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sfg {

namespace explore_detail {
namespace {

// Whether an exploration is under way in this process: explore() inside explore() is refused.
std::atomic<bool> busy{false};

std::uint64_t parse_number(const std::string& key, const std::string& v) {
    std::uint64_t out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size())
        throw std::invalid_argument("SFG_EXPLORE: " + key + "='" + v + "' is not a number");
    return out;
}

explore_mode parse_mode(const std::string& v) {
    for (const explore_mode m : all_modes)
        if (v == mode_name(m))
            return m;
    throw std::invalid_argument("SFG_EXPLORE: mode '" + v +
                                "' is none of dpor, naive, random, pct");
}

// shard=K/N: part K of N.
void parse_shard(const std::string& v, explore_options& o) {
    const std::size_t slash = v.find('/');
    if (slash == std::string::npos)
        throw std::invalid_argument("SFG_EXPLORE: shard='" + v + "' is not K/N");
    o.shard = static_cast<unsigned>(parse_number("shard", v.substr(0, slash)));
    o.shards = static_cast<unsigned>(parse_number("shard", v.substr(slash + 1)));
}

// SFG_EXPLORE overrides the options a test gives, as SFG_OPTIONS does a session's; SFG_REPLAY
// sets the schedule to replay.
void apply_environment(explore_options& o) {
    detail::for_each_env_option(
        "SFG_EXPLORE", [&](const std::string& key, const std::string& value) {
            if (key == "mode")
                o.mode = parse_mode(value);
            else if (key == "max_executions")
                o.max_executions = parse_number(key, value);
            else if (key == "max_steps")
                o.max_steps = parse_number(key, value);
            else if (key == "max_preemptions")
                o.max_preemptions = static_cast<unsigned>(parse_number(key, value));
            else if (key == "seed")
                o.seed = parse_number(key, value);
            else if (key == "pct_depth")
                o.pct_depth = static_cast<unsigned>(parse_number(key, value));
            else if (key == "jobs")
                o.jobs = static_cast<unsigned>(parse_number(key, value));
            else if (key == "task_budget")
                o.task_budget = parse_number(key, value);
            else if (key == "shard")
                parse_shard(value, o);
            else if (key == "analyses")
                o.analyses = value;
            else if (key == "part_file")
                o.part_file = value;
            else if (key == "uncontrolled_after_ms")
                o.uncontrolled_after_ms = parse_number(key, value);
            else
                throw std::invalid_argument("SFG_EXPLORE: unknown option '" + key +
                                            "' (known: mode, max_executions, max_steps, "
                                            "max_preemptions, seed, pct_depth, jobs, task_budget, "
                                            "shard, part_file, analyses, "
                                            "uncontrolled_after_ms)");
        });
    if (const char* env = std::getenv("SFG_REPLAY"); env && *env)
        o.replay = env;
}

std::unique_ptr<Strategy> make_strategy(const explore_options& o, TaskRoot root = {}) {
    if (!o.replay.empty())
        return make_replay(parse_replay(o.replay));
    switch (o.mode) {
    case explore_mode::random:
        return make_random(o.seed);
    case explore_mode::pct:
        return make_pct(o.seed, o.pct_depth);
    case explore_mode::dpor:
        // A preemption bound prunes branches, and a pruned branch may be the only one that
        // reverses some race (Coons et al., OOPSLA'13): bounded searches are naive.
        if (!o.max_preemptions)
            return make_dpor(std::move(root));
        break;
    case explore_mode::naive:
        break;
    }
    return make_naive(o.max_preemptions, std::move(root));
}

// The run's steps as a table (thread, op, object, call site).
std::string step_table(const Controller& c) {
    std::string out = "  step  thread        op         object              at\n";
    const std::vector<StepRecord>& path = c.path();
    for (std::size_t i = 0; i < path.size(); ++i) {
        const StepRecord& r = path[i];
        std::string op = r.key.yield ? "yield" : to_string(r.key.op);
        if (r.rmw)
            op += "+vw";
        if (r.attempt)
            op = (r.key.op == Op::acquire ? "try_lock" : "try_deq") +
                 std::string(r.succeeded ? "" : " (fails)");
        const std::string where = r.file ? fmt::format("{}:{}", r.file, r.line) : "";
        out += fmt::format("  {:<5} {:<13} {:<10} {:<19} {}\n", i + 1,
                           c.thread_names()[r.key.thread], op, r.key.object, where);
    }
    return out;
}

using Key = std::tuple<std::string, std::string, std::string>; // kind, analysis, var

struct Kept {
    explore_finding f;
    std::size_t steps = 0;
    std::vector<std::uint32_t> path; // where in the canonical order: the task's path, its run
    std::uint64_t run = 0;
};

// One key's findings in a task, each from a shorter run than the one before, with the number of
// the execution that showed it: the finding kept from the task's first r executions is the last
// record before r (docs/explore.md, "More than one process").
struct Record {
    std::uint64_t run = 0;
    std::size_t steps = 0;
    explore_finding f;
};

// What exploring a task gives, whichever process explores it.
struct TaskResult {
    std::uint64_t runs = 0;     // executions
    bool exhausted = false;     // its search ended (not cut by the budget or uncontrolled)
    bool ended_at_last = false; // ... right after its last execution (no given-up run after it)
    bool pruned = false, uncontrolled = false;
    std::vector<ClassId> classes; // of each execution
    std::map<Key, std::vector<Record>> records;
    std::uint32_t handed = 0; // children handed on so far (engine/task_tree.hpp)
    std::string first_run;    // the root's: its first run's steps, hashed (division())
    // Not this part's (a shard): its executions are not merged here (the exploring process's).
    bool elsewhere = false;
};

using TaskTree = engine::TaskTree<TaskRoot, TaskResult>;

#if defined(__SANITIZE_THREAD__)
constexpr bool can_fork = false; // ThreadSanitizer does not support threads after a fork
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool can_fork = false;
#else
constexpr bool can_fork = true;
#endif
#else
constexpr bool can_fork = true;
#endif

// A controller or run thread left to a stuck thread (Controller::run) is kept for good, since
// that thread may still call it: never destroyed, and reachable, so that leak checkers say
// nothing.
template <class T>
void leave(T* p) {
    static std::mutex mu;
    static auto* left = new std::vector<T*>;
    std::lock_guard lk(mu);
    left->push_back(p);
}

struct LeaveOrphaned {
    void operator()(Controller* c) const {
        if (c->orphaned())
            leave(c);
        else
            delete c;
    }
};
using ControllerPtr = std::unique_ptr<Controller, LeaveOrphaned>;

// The controller and run thread of the last exploration of this process, kept for the next one:
// their OS threads (the run thread, the watchdog, a worker a thread of a run) cost more than a
// small exploration's runs (bench/README.md, "Per execution, on the programs"). Never destroyed:
// idle threads are left to the process's exit. A fork's child has none of their threads: it keeps
// nothing of its parent's (pid).
struct KeptThreads {
    std::mutex mu;
    ControllerPtr controller;
    std::unique_ptr<RunThread> run_thread;
    pid_t pid = 0;
};

KeptThreads& kept_threads() {
    static auto* k = new KeptThreads;
    return *k;
}

// Task results over a pipe: numbers and length-prefixed strings.
class Writer {
public:
    void number(std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void text(const std::string& v) {
        number(v.size());
        out += v;
    }
    std::string out;
};

class Reader {
public:
    explicit Reader(const std::string& in) : in_(in) {}
    std::uint64_t number() {
        std::uint64_t v = 0;
        if (at_ + sizeof v > in_.size())
            throw std::runtime_error("sfg::explore: a worker's result is cut short");
        std::memcpy(&v, in_.data() + at_, sizeof v);
        at_ += sizeof v;
        return v;
    }
    std::string text() {
        const std::uint64_t n = number();
        if (n > in_.size() - at_)
            throw std::runtime_error("sfg::explore: a worker's result is cut short");
        std::string v = in_.substr(at_, n);
        at_ += n;
        return v;
    }

private:
    const std::string& in_;
    std::size_t at_ = 0;
};

void encode(Writer& w, const std::vector<std::uint32_t>& v) {
    w.number(v.size());
    for (std::uint32_t x : v)
        w.number(x);
}

std::vector<std::uint32_t> decode_numbers(Reader& r) {
    std::vector<std::uint32_t> v(r.number());
    for (std::uint32_t& x : v)
        x = static_cast<std::uint32_t>(r.number());
    return v;
}

void encode(Writer& w, const TaskRoot& t) {
    encode(w, t.path);
    encode(w, t.prefix);
    w.text(std::string(t.sleep.begin(), t.sleep.end()));
    w.number(t.keys.size());
    for (const StepKey& k : t.keys) {
        w.number(k.thread);
        w.number(static_cast<std::uint64_t>(k.op) << 1 | (k.yield ? 1 : 0));
        w.text(k.object);
    }
}

TaskRoot decode_root(Reader& r) {
    TaskRoot t;
    t.path = decode_numbers(r);
    t.prefix = decode_numbers(r);
    const std::string sleep = r.text();
    t.sleep.assign(sleep.begin(), sleep.end());
    t.keys.resize(r.number());
    for (StepKey& k : t.keys) {
        k.thread = static_cast<std::uint32_t>(r.number());
        const std::uint64_t op = r.number();
        k.op = static_cast<Op>(op >> 1);
        k.yield = op & 1;
        k.object = r.text();
    }
    return t;
}

std::string encode(const TaskRoot& t) {
    Writer w;
    encode(w, t);
    return std::move(w.out);
}

TaskRoot decode_root(const std::string& in) {
    Reader r(in);
    return decode_root(r);
}

// The children a task hands on at once (a worker's, sent as soon as they are handed on).
std::string encode(const std::vector<TaskRoot>& batch) {
    Writer w;
    w.number(batch.size());
    for (const TaskRoot& c : batch)
        encode(w, c);
    return std::move(w.out);
}

std::vector<TaskRoot> decode_batch(const std::string& in) {
    Reader r(in);
    std::vector<TaskRoot> out;
    for (std::uint64_t n = r.number(); n > 0; --n)
        out.push_back(decode_root(r));
    return out;
}

std::string encode(const TaskResult& r) {
    Writer w;
    w.number(r.runs);
    w.number(static_cast<std::uint64_t>(r.exhausted) | r.ended_at_last << 1 | r.pruned << 2 |
             r.uncontrolled << 3);
    w.text(r.first_run);
    for (const ClassId& c : r.classes) {
        w.number(c.a);
        w.number(c.b);
    }
    w.number(r.records.size());
    for (const auto& [key, records] : r.records) {
        w.text(std::get<0>(key));
        w.text(std::get<1>(key));
        w.text(std::get<2>(key));
        w.number(records.size());
        for (const Record& rec : records) {
            w.number(rec.run);
            w.number(rec.steps);
            w.text(rec.f.message);
            w.text(rec.f.schedule);
        }
    }
    return std::move(w.out);
}

TaskResult decode(const std::string& in) {
    Reader r(in);
    TaskResult t;
    t.runs = r.number();
    const std::uint64_t flags = r.number();
    t.exhausted = flags & 1;
    t.ended_at_last = flags & 2;
    t.pruned = flags & 4;
    t.uncontrolled = flags & 8;
    t.first_run = r.text();
    t.classes.resize(t.runs);
    for (ClassId& c : t.classes) {
        c.a = r.number();
        c.b = r.number();
    }
    for (std::uint64_t k = r.number(); k > 0; --k) {
        Key key;
        std::get<0>(key) = r.text();
        std::get<1>(key) = r.text();
        std::get<2>(key) = r.text();
        std::vector<Record>& records = t.records[key];
        for (std::uint64_t n = r.number(); n > 0; --n) {
            Record rec;
            rec.run = r.number();
            rec.steps = static_cast<std::size_t>(r.number());
            rec.f = {std::get<0>(key), std::get<1>(key), std::get<2>(key), r.text(), r.text()};
            records.push_back(std::move(rec));
        }
    }
    return t;
}

// A worker's message to the exploring process: a length, its top bits saying what follows.
constexpr std::uint64_t error_bit = std::uint64_t{1} << 63;    // what the task threw
constexpr std::uint64_t children_bit = std::uint64_t{1} << 62; // children handed on

void write_all(int fd, const void* data, std::size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t k = ::write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            throw std::runtime_error("sfg::explore: writing to a worker's pipe failed");
        p += k;
        n -= static_cast<std::size_t>(k);
    }
}

void send_message(int fd, const std::string& body, std::uint64_t bits) {
    const std::uint64_t head = body.size() | bits;
    write_all(fd, &head, sizeof head);
    write_all(fd, body.data(), body.size());
}

// False at the end of the pipe before anything was read.
bool read_all(int fd, void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    std::size_t done = 0;
    while (done < n) {
        const ssize_t k = ::read(fd, p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || (k == 0 && done > 0))
            throw std::runtime_error("sfg::explore: a worker's pipe broke");
        if (k == 0)
            return false;
        done += static_cast<std::size_t>(k);
    }
    return true;
}

// The whole exploration: the search divided into tasks (dpor and naive), each explored by a run
// of the strategy from its root, here or in worker processes, and the tasks' results merged in
// their order, as one process exploring them in turn would have seen them.
class Exploration {
public:
    Exploration(const spec* s, std::function<void()> body, explore_options o)
        : spec_(s), body_(std::make_shared<const std::function<void()>>(std::move(body))),
          o_(std::move(o)) {}

    explore_report run() {
        if (session::current())
            throw std::invalid_argument(
                "sfg::explore: called while an sfg::session is open (explore opens one per run)");
        bool idle = false;
        if (!busy.compare_exchange_strong(idle, true))
            throw std::invalid_argument("sfg::explore: called inside an exploration");
        struct Done {
            ~Done() { busy.store(false); }
        } done;
        // Bounded searches, replays, the sampling modes and task_budget 0 are one task.
        divided_ = o_.replay.empty() && !o_.max_preemptions && o_.task_budget != 0 &&
                   (o_.mode == explore_mode::dpor || o_.mode == explore_mode::naive);
        loads_.assign(o_.shards, 0);
        loads_[0] = root_share_;
        drive_all();
        if (forking())
            in_workers(*tree_);
        return report(*tree_);
    }

    // The controller and run thread go on serving the next exploration (KeptThreads), unless
    // they were left to a stuck thread.
    ~Exploration() {
        if (!controller_ || controller_->orphaned() || !run_thread_ || in_worker_)
            return;
        KeptThreads& k = kept_threads();
        std::lock_guard lk(k.mu);
        k.controller = std::move(controller_);
        k.run_thread = std::move(run_thread_);
        k.pid = ::getpid();
    }
    Exploration(const Exploration&) = delete;
    Exploration& operator=(const Exploration&) = delete;

    std::uint64_t distinct_classes() const { return classes_.size(); }
    // After run(), with part_file: the part to write.
    const ExplorePart& part() const { return part_; }

private:
    // Takes a controller for a task's runs.
    class Installed {
    public:
        explicit Installed(Controller& c) { detail::set_control(&c); }
        ~Installed() { detail::set_control(nullptr); }
        Installed(const Installed&) = delete;
        Installed& operator=(const Installed&) = delete;
    };

    // What a run leaves to the exploring thread, shared with the run thread, which outlives the
    // exploration when the run is left to a stuck thread (Controller::run).
    struct RunState {
        std::optional<session> s;
        std::exception_ptr error; // what the body ended with
    };

    // A task's runs on the run thread, with what they leave to the exploring thread when the
    // run thread is left to a stuck thread: shared, since that thread may return from the stuck
    // run much later (and then touches nothing of it).
    struct Unit {
        std::unique_ptr<Strategy> strategy;
        TaskResult r;
        std::shared_ptr<RunState> st; // the last run's
        bool more = true;             // the task's search goes on
    };

    // Worker processes explore the tasks (not under ThreadSanitizer, nor for an undivided search).
    bool forking() const { return can_fork && o_.jobs > 1 && divided_; }

    // Every run of the exploration on the run thread, as one job (bench/README.md, "Per
    // execution, fifth round": no hand-off between threads a task); the exploring thread waits
    // for it. A run left to a stuck thread ends its task here, and the rest goes on with a fresh
    // controller and run thread.
    void drive_all() {
        for (;;) {
            Controller& ctl = controller();
            Installed in(ctl);
            std::exception_ptr failure;
            if (run_jobs(ctl, [this, &ctl, &failure] {
                    try {
                        drive(ctl); // false when left: nothing here is the run thread's any more
                    } catch (...) {
                        failure = std::current_exception();
                    }
                })) {
                if (failure)
                    std::rethrow_exception(failure);
                return;
            }
            const std::shared_ptr<Unit> u = std::move(unit_);
            end_task(*task_, task_result(*u, ctl, true));
        }
    }

    // On the run thread: in one process, the tasks one after the other in canonical order, each
    // the next to merge, with exactly the budget left. False when a run was left to a stuck
    // thread (unit_ is its task).
    bool drive(Controller& ctl) {
        if (!tree_)
            tree_.emplace(top());
        if (forking())
            return true;
        while (TaskTree::Node* n = tree_->take()) {
            if (n->task.other_part) {
                end_task(*n, elsewhere(false));
                continue;
            }
            task_ = n;
            const std::shared_ptr<Unit> u = unit_ = std::make_shared<Unit>();
            u->strategy = make_strategy(o_, n->task);
            ctl.use(*u->strategy);
            if (!task_runs(*u, ctl, n->task, budget(n->task)))
                return false;
            end_task(*n, task_result(*u, ctl, false));
        }
        return true;
    }

    // The runs a task may take: the budget left; for the root in a part other than the first,
    // every run, since every part needs all the children it hands on.
    std::uint64_t budget(const TaskRoot& t) const {
        return shared_root(t) ? std::numeric_limits<std::uint64_t>::max()
                              : o_.max_executions - report_.executions;
    }

    // The root of a divided search in a part other than the first: each part explores it to know
    // the tasks it hands on, the first part reports it.
    bool shared_root(const TaskRoot& t) const {
        return divided_ && o_.shard != 1 && t.path.size() == 1;
    }

    // A result that merges nothing: a task dealt to another part, or the shared root (which keeps
    // whether it was uncontrolled: the part cannot go on).
    static TaskResult elsewhere(bool uncontrolled) {
        TaskResult r;
        r.elsewhere = true;
        r.uncontrolled = uncontrolled;
        r.exhausted = !uncontrolled;
        r.ended_at_last = true;
        return r;
    }

    void end_task(TaskTree::Node& n, TaskResult r) {
        if (divided_ && n.task.path.size() == 1)
            division_ = r.first_run;
        if (shared_root(n.task))
            r = elsewhere(r.uncontrolled);
        tree_->done(n, std::move(r),
                    [&](TaskTree::Node& c) { return commit(*c.result, c.task.path); });
    }

    // Children a task handed on at once join the tree (engine/task_tree.hpp). With shards, the
    // root's are dealt to the parts as they come, each to the part with the least so far, a
    // child's size taken as its share of the root's if every hand-off split what the root had
    // left evenly between the root and the children (docs/explore.md, "More than one machine").
    void adopt(TaskTree::Node& parent, std::vector<TaskRoot> batch) {
        if (parent.task.path.size() == 1 && o_.shards > 1) {
            const std::uint64_t share = root_share_ / (batch.size() + 1);
            loads_[0] -= root_share_ - share;
            root_share_ = share;
            for (TaskRoot& c : batch) {
                const auto part = static_cast<std::size_t>(
                    std::min_element(loads_.begin(), loads_.end()) - loads_.begin());
                loads_[part] += share;
                c.other_part = part + 1 != o_.shard;
            }
        }
        for (TaskRoot& c : batch)
            tree_->hand_on(parent, std::move(c));
    }

    // The steps of the search's first run, which every part of a divided search takes (what
    // tells the parts of one search from those of another body's with the same options).
    static std::string division(const std::vector<StepRecord>& path) {
        std::uint64_t h = engine::hash_mix(0x5f9e, path.size());
        for (const StepRecord& r : path) {
            h = engine::hash_mix(h, r.key.thread);
            h = engine::hash_mix(h, static_cast<std::uint64_t>(r.key.op) << 1 | r.key.yield);
            for (const char c : r.key.object)
                h = engine::hash_mix(h, static_cast<unsigned char>(c));
        }
        return fmt::format("{}:{:016x}", path.size(), h);
    }

    // The top of the search: its root, one task, which hands on the rest as it goes (an undivided
    // search is all in part 1).
    std::vector<TaskRoot> top() const {
        if (!divided_ && o_.shard != 1)
            return {};
        TaskRoot root;
        root.path = {0};
        return {root};
    }

    // On the run thread: a task's runs, up to `budget` of them; false when one was left.
    bool task_runs(Unit& u, Controller& ctl, const TaskRoot& root, std::uint64_t budget) {
        while (u.more && u.r.runs < budget) {
            u.st = std::make_shared<RunState>();
            if (!body_run(ctl, u.st))
                return false;
            finish(ctl, *u.st, u.r, false);
            if (root.path.size() == 1 && u.r.first_run.empty())
                u.r.first_run = division(ctl.path());
            count(ctl, u.r);
            if (!in_worker_) // this process explores: what it merged and this task's
                progress_.show(report_.executions + u.r.runs, sampled_total());
            if (divided_ && o_.task_budget && u.r.ended_at_last && u.r.runs % o_.task_budget == 0 &&
                !ctl.uncontrolled())
                hand_off(*u.strategy, root, u.r);
            u.more = !ctl.uncontrolled() && !ctl.refused() && u.strategy->next_run();
        }
        return true;
    }

    // After a run's findings are recorded.
    void count(const Controller& ctl, TaskResult& r) {
        r.ended_at_last = !ctl.blocked();
        if (!ctl.blocked()) {
            ++r.runs;
            r.classes.push_back(foata_class(ctl.events(), ctl.object_keys(), foata_));
        }
    }

    // A task's result once its runs are done, or `left` to a stuck thread (its last run's
    // session is closed here).
    TaskResult task_result(Unit& u, Controller& ctl, bool left) {
        if (left) {
            finish(ctl, *u.st, u.r, true);
            count(ctl, u.r);
            u.more = false;
        }
        u.r.uncontrolled = ctl.uncontrolled();
        u.r.exhausted = !u.more && !u.r.uncontrolled && !ctl.refused();
        u.r.pruned = u.strategy->pruned();
        return std::move(u.r);
    }

    // A task of a worker process, as a job of its own.
    TaskResult explore_task(const TaskRoot& root, std::uint64_t budget) {
        Controller& ctl = controller();
        Installed in(ctl);
        const std::shared_ptr<Unit> u = std::make_shared<Unit>();
        u->strategy = make_strategy(o_, root);
        ctl.use(*u->strategy);
        std::exception_ptr failure;
        const bool ended = run_jobs(ctl, [&, u] {
            try {
                task_runs(*u, ctl, root, budget); // false when left: nothing here is the run
            } catch (...) {                       // thread's any more
                failure = std::current_exception();
            }
        });
        if (ended && failure)
            std::rethrow_exception(failure);
        return task_result(*u, ctl, !ended);
    }

    // Another budget of runs is spent: the strategy's alternatives at its shallowest node become
    // the task's children (engine/task_tree.hpp), numbered on from those handed on before. They
    // join the tree at once: a worker sends them to the exploring process, whose other workers
    // may take them while this task goes on.
    void hand_off(Strategy& strategy, const TaskRoot& root, TaskResult& r) {
        std::vector<TaskRoot> batch;
        strategy.hand_off(batch);
        if (batch.empty())
            return;
        for (TaskRoot& c : batch) {
            c.path = root.path;
            c.path.push_back(r.handed++);
        }
        if (to_parent_ >= 0)
            send_message(to_parent_, encode(batch), children_bit);
        else
            adopt(*task_, std::move(batch));
    }

    // The controller of the exploration's tasks, one after the other, so that the OS
    // threads it keeps serve them all; a fresh one after one was left to a stuck thread.
    Controller& controller() {
        if (controller_ && controller_->orphaned())
            controller_.reset();        // left, not destroyed (LeaveOrphaned)
        if (!controller_ && !reused_) { // the last exploration's, if it fits
            reused_ = true;
            KeptThreads& k = kept_threads();
            std::lock_guard lk(k.mu);
            if (k.pid == ::getpid() && k.controller &&
                k.controller->fits(o_.max_steps,
                                   std::chrono::milliseconds(o_.uncontrolled_after_ms))) {
                controller_ = std::move(k.controller);
                run_thread_ = std::move(k.run_thread);
                controller_->begin_exploration();
            } else if (k.pid != ::getpid()) { // a fork's child: their threads are not here
                (void)k.controller.release();
                (void)k.run_thread.release();
            }
        }
        if (!controller_)
            controller_.reset(
                new Controller(o_.max_steps, std::chrono::milliseconds(o_.uncontrolled_after_ms)));
        return *controller_;
    }

    // Runs `job` on the run thread through `ctl`; false when it was left to a stuck thread (a
    // fresh run thread serves the next one).
    bool run_jobs(Controller& ctl, std::function<void()> job) {
        if (!run_thread_)
            run_thread_ = std::make_unique<RunThread>();
        if (ctl.run(*run_thread_, std::move(job)))
            return true;
        leave(run_thread_.release());
        return false;
    }

    // `jobs` processes forked from this one explore the tasks, each taking the first one in
    // canonical order when it is done with its last, with the whole budget (the merge cuts them);
    // the children a task hands on come back as they are handed on and join the tree. A worker
    // whose task was uncontrolled ends after its result (its stuck threads with it); the tasks
    // after that one are not needed: workers on them are stopped, and none is given out. Once the
    // merge is done (a bound, or every task), the workers are stopped.
    void in_workers(TaskTree& tree) {
        const std::size_t n = o_.jobs;
        std::vector<int> cpus;
#if defined(__linux__)
        cpu_set_t allowed;
        if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
                if (CPU_ISSET(c, &allowed))
                    cpus.push_back(c);
#endif
        struct Worker {
            pid_t pid = -1;
            int to = -1, from = -1;
            TaskTree::Node* task = nullptr;
        };
        std::vector<Worker> workers(n);
        std::size_t busy_workers = 0;
        const auto end_worker = [&](Worker& w) {
            if (w.to >= 0)
                ::close(w.to);
            if (w.from >= 0)
                ::close(w.from);
            if (w.pid > 0) {
                ::kill(w.pid, SIGKILL);
                ::waitpid(w.pid, nullptr, 0);
            }
            if (w.task)
                --busy_workers;
            w = Worker{};
        };
        const auto stop_all = [&] {
            for (Worker& w : workers)
                end_worker(w);
        };
        const auto spawn = [&](std::size_t k) {
            int down[2], up[2];
            if (::pipe(down) != 0)
                throw std::runtime_error("sfg::explore: no pipe for a worker process");
            if (::pipe(up) != 0) {
                ::close(down[0]);
                ::close(down[1]);
                throw std::runtime_error("sfg::explore: no pipe for a worker process");
            }
            const pid_t pid = ::fork();
            if (pid == 0) { // the worker: tasks in, results out, then gone without unwinding
                ::close(down[1]);
                ::close(up[0]);
                for (const Worker& w : workers) {
                    if (w.to >= 0)
                        ::close(w.to);
                    if (w.from >= 0)
                        ::close(w.from);
                }
                work(down[0], up[1], cpus.empty() ? -1 : cpus[k % cpus.size()]);
            }
            ::close(down[0]);
            ::close(up[1]);
            if (pid < 0) {
                ::close(down[1]);
                ::close(up[0]);
                throw std::runtime_error("sfg::explore: fork failed");
            }
            workers[k] = {pid, down[1], up[0], nullptr};
        };
        // The path of the first uncontrolled task: the tasks after it are not needed.
        std::optional<std::vector<std::uint32_t>> cut;
        std::uint64_t delivered = 0; // the workers' executions so far, for the progress line
        const auto give = [&](Worker& w) {
            TaskTree::Node* t = tree.take(cut ? &*cut : nullptr);
            while (t && t->task.other_part) {
                end_task(*t, elsewhere(false));
                t = tree.take(cut ? &*cut : nullptr);
            }
            if (!t)
                return;
            const std::string message = encode(t->task);
            const std::uint64_t size = message.size();
            write_all(w.to, &size, sizeof size);
            write_all(w.to, message.data(), message.size());
            w.task = t;
            ++busy_workers;
        };
        try {
            while (!tree.finished()) {
                for (std::size_t k = 0; k < n; ++k) {
                    if (workers[k].task || !tree.any_pending())
                        continue;
                    if (workers[k].pid < 0)
                        spawn(k);
                    give(workers[k]);
                }
                if (tree.finished()) // by tasks of other parts, ended in give()
                    break;
                if (busy_workers == 0) // nothing running, nothing to give: not expected
                    throw std::logic_error("sfg::explore: the task tree stalled");
                std::vector<pollfd> fds;
                for (const Worker& w : workers)
                    fds.push_back({w.task ? w.from : -1, POLLIN, 0});
                if (::poll(fds.data(), fds.size(), -1) < 0) {
                    if (errno == EINTR)
                        continue;
                    throw std::runtime_error("sfg::explore: poll failed");
                }
                for (std::size_t k = 0; k < n && !tree.finished(); ++k) {
                    Worker& w = workers[k];
                    if (!w.task || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                        continue;
                    std::uint64_t size = 0;
                    if (!read_all(w.from, &size, sizeof size))
                        throw std::runtime_error(fmt::format(
                            "sfg::explore: worker process {} ended without its result", w.pid));
                    std::string payload(size & ~(error_bit | children_bit), '\0');
                    if (!read_all(w.from, payload.data(), payload.size()))
                        throw std::runtime_error("sfg::explore: a worker's pipe broke");
                    if (size & error_bit) // the worker's task threw
                        throw std::runtime_error(payload);
                    if (size & children_bit) { // its task goes on
                        adopt(*w.task, decode_batch(payload));
                        continue;
                    }
                    TaskResult r = decode(payload);
                    delivered += r.runs;
                    progress_.show(delivered);
                    TaskTree::Node& t = *w.task;
                    w.task = nullptr;
                    --busy_workers;
                    if (r.uncontrolled) {
                        end_worker(w); // it ends after this result
                        if (!cut || t.task.path < *cut)
                            cut = t.task.path;
                        for (Worker& o : workers)
                            if (o.task && !(o.task->task.path < *cut)) // not needed
                                end_worker(o);
                    }
                    end_task(t, std::move(r));
                }
            }
        } catch (...) {
            stop_all();
            throw;
        }
        // Done: the idle workers are told so, the busy ones are not needed.
        for (Worker& w : workers) {
            if (w.pid < 0)
                continue;
            if (w.task) {
                end_worker(w);
                continue;
            }
            const std::uint64_t none = ~std::uint64_t{0};
            write_all(w.to, &none, sizeof none);
            ::close(w.to);
            ::close(w.from);
            ::waitpid(w.pid, nullptr, 0);
        }
    }

    [[noreturn]] void work(int in, int out, int cpu) {
        pin(cpu);                    // the controller runs its runs on the CPU it starts on
        in_worker_ = true;           // the parent draws the progress line
        (void)run_thread_.release(); // the parent's: its thread is not in this process
        (void)controller_.release(); // nor are the parent's controller's threads
        std::signal(SIGPIPE, SIG_IGN);
        to_parent_ = out;
        try {
            for (std::uint64_t size = 0;
                 read_all(in, &size, sizeof size) && size != ~std::uint64_t{0};) {
                std::string message(size, '\0');
                if (!read_all(in, message.data(), message.size()))
                    break;
                std::string payload, error;
                bool stuck = false;
                try {
                    const TaskRoot root = decode_root(message);
                    const TaskResult r = explore_task(
                        root, shared_root(root) ? std::numeric_limits<std::uint64_t>::max()
                                                : o_.max_executions);
                    stuck = r.uncontrolled;
                    payload = encode(r);
                } catch (const std::exception& e) {
                    error = e.what();
                }
                if (error.empty())
                    send_message(out, payload, 0);
                else
                    send_message(out, error, error_bit);
                if (stuck) // a thread of this process may be stuck for good: the process goes
                    break;
            }
        } catch (...) {
            ::_exit(3);
        }
        ::_exit(0);
    }

    // Merges one task's result, in canonical order, cut where one process exploring the tasks in
    // turn would have stopped; false there (max_executions, a task cut short, an uncontrolled
    // run).
    bool commit(TaskResult& t, const std::vector<std::uint32_t>& path) {
        if (t.elsewhere) {
            uncontrolled_ = uncontrolled_ || t.uncontrolled;
            return !t.uncontrolled;
        }
        const std::uint64_t left = o_.max_executions - report_.executions;
        if (left == 0) { // not explored: the budget was spent
            stopped_ = true;
            return false;
        }
        const std::uint64_t r = std::min(t.runs, left);
        for (auto& [key, records] : t.records) {
            Record* best = nullptr;
            for (Record& rec : records)
                if (rec.run < r)
                    best = &rec;
            if (!best)
                continue;
            auto [it, fresh] = kept_.try_emplace(key);
            if (fresh || best->steps < it->second.steps)
                it->second = {std::move(best->f), best->steps, path, best->run};
        }
        classes_.insert(t.classes.begin(), t.classes.begin() + static_cast<std::ptrdiff_t>(r));
        report_.executions += r;
        pruned_ = pruned_ || t.pruned;
        if (t.uncontrolled && r == t.runs) {
            uncontrolled_ = true;
            return false;
        }
        if (r < t.runs || !t.exhausted || (r == left && !t.ended_at_last)) {
            stopped_ = true;
            return false;
        }
        return true;
    }

    // A sampling search's executions, known before it starts (the progress line's "in all").
    std::uint64_t sampled_total() const {
        const bool sampled =
            o_.replay.empty() && (o_.mode == explore_mode::random || o_.mode == explore_mode::pct);
        return sampled ? o_.max_executions : 0;
    }

    // The report of what was merged.
    explore_report report(const TaskTree& tree) {
        explore_report out = std::move(report_);
        const bool sampled =
            !o_.replay.empty() || o_.mode == explore_mode::random || o_.mode == explore_mode::pct;
        bool hit_bound = false;
        for (auto& [key, k] : kept_) {
            hit_bound = hit_bound || std::get<0>(key) == "bound";
            if (!o_.part_file.empty())
                part_.findings.push_back({k.f, k.steps, k.path, k.run});
            out.findings.push_back(std::move(k.f));
        }
        // Naive: every run counts (as `sfgc check` counts them); dpor delivers one run a class.
        const bool by_executions = o_.mode == explore_mode::naive || o_.max_preemptions;
        out.classes = by_executions ? out.executions : classes_.size();
        out.complete =
            !sampled && !tree.stopped() && !stopped_ && !pruned_ && !hit_bound && !uncontrolled_;
        if (!o_.part_file.empty()) {
            part_.index = o_.shard;
            part_.count = o_.shards;
            part_.options = options_text(o_, spec_ != nullptr);
            part_.division = !divided_ ? "undivided" : division_.empty() ? "none" : division_;
            part_.executions = out.executions;
            part_.classes_are_executions = by_executions;
            if (!by_executions)
                part_.classes.assign(classes_.begin(), classes_.end());
            part_.complete = out.complete;
        }
        return out;
    }

    // On the run thread: a run's session, the body, the run's end. False when the run was left
    // to a stuck thread meanwhile: the job must then touch nothing of the exploration's.
    bool body_run(Controller& ctl, std::shared_ptr<RunState> st) {
        session_options so;
        so.policy = on_finding::collect;
        so.analyses = o_.analyses;
        if (spec_)
            st->s.emplace(*spec_, so);
        else
            st->s.emplace(so);
        const std::shared_ptr<const std::function<void()>> body = body_; // kept if left
        ctl.begin_run();
        try {
            (*body)();
        } catch (const detail::abandoned_run&) {
        } catch (const check_failure&) {
        } catch (...) {
            st->error = std::current_exception();
        }
        if (!ctl.run_ends())
            return false;
        st->s->close();
        return true;
    }

    // A run's findings go to `into`. `left`: its threads were left stuck (its session is closed
    // here).
    void finish(Controller& ctl, RunState& st, TaskResult& into, bool left) {
        if (left)
            st.s->close();
        else if (st.error && !ctl.abandoned())
            main_error(ctl, st.error);
        if (ctl.blocked()) { // no execution (dpor: equivalent to one explored)
            main_findings_.clear();
            return;
        }
        const std::vector<finding> session_findings = st.s->findings();
        // Written out only for a finding that is kept (most runs repeat a finding of a run no
        // longer than theirs).
        std::optional<std::string> schedule, table;
        const auto keep = [&](const std::string& kind, const std::string& analysis,
                              const std::string& var, const std::string& message) {
            if (!kept(into, kind, analysis, var, ctl.path().size()))
                return;
            if (!schedule) {
                schedule = replay_string(ctl.schedule());
                table = step_table(ctl);
            }
            record(into, kind, analysis, var, message, *schedule, *table, ctl.path().size());
        };
        for (const finding& f : session_findings)
            keep(f.kind, f.analysis, f.var, f.message);
        for (const OwnFinding& f : ctl.findings())
            keep(f.kind, "", f.var, f.message);
        for (const OwnFinding& f : main_findings_)
            keep(f.kind, "", f.var, f.message);
        main_findings_.clear();
    }

    void main_error(Controller&, std::exception_ptr error) {
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            main_findings_.push_back(
                {"assert", "main", fmt::format("the body ended with an exception: {}", e.what())});
        } catch (...) {
            main_findings_.push_back({"assert", "main", "the body ended with an exception"});
        }
    }

    // Whether a finding of a run of `steps` steps is kept: when it is the key's first or comes
    // from a shorter run than the last kept.
    static bool kept(const TaskResult& t, const std::string& kind, const std::string& analysis,
                     const std::string& var, std::size_t steps) {
        const auto it = t.records.find(Key{kind, analysis, var});
        return it == t.records.end() || it->second.empty() || it->second.back().steps > steps;
    }

    // A finding of the task's execution number t.runs, if kept().
    static void record(TaskResult& t, const std::string& kind, const std::string& analysis,
                       const std::string& var, const std::string& message,
                       const std::string& schedule, const std::string& table, std::size_t steps) {
        std::vector<Record>& records = t.records[Key{kind, analysis, var}];
        if (!records.empty() && records.back().steps <= steps)
            return;
        records.push_back({t.runs,
                           steps,
                           {kind, analysis, var,
                            fmt::format("{}\nschedule ({} steps; replay: {}):\n{}", message, steps,
                                        schedule, table),
                            schedule}});
    }

    const spec* spec_;
    // Shared with the run threads: a run left to a stuck thread keeps it.
    std::shared_ptr<const std::function<void()>> body_;
    explore_options o_;
    bool divided_ = false; // the search is divided into tasks (dpor and naive, unbounded)
    // Shards: what the root has left of the search, and each part's share so far (adopt()).
    std::uint64_t root_share_ = std::uint64_t{1} << 62;
    std::vector<std::uint64_t> loads_;
    int to_parent_ = -1; // a worker's pipe to the exploring process
    // What commit() merged so far.
    explore_report report_;
    std::map<Key, Kept> kept_;
    bool stopped_ = false, pruned_ = false, uncontrolled_ = false;
    std::optional<TaskTree> tree_;
    // The task whose runs are under way on the run thread, and its node.
    std::shared_ptr<Unit> unit_;
    TaskTree::Node* task_ = nullptr;
    std::unique_ptr<RunThread> run_thread_;
    ControllerPtr controller_; // see controller()
    bool reused_ = false;      // controller() looked at the kept one
    std::vector<OwnFinding> main_findings_;
    std::set<ClassId> classes_;
    FoataScratch foata_;
    std::string division_; // of the whole search (parts of one search have the same): adopt()
    ExplorePart part_;
    // On standard error when it is a terminal (docs/explore.md, "Progress"); erased before the
    // report is returned.
    engine::ProgressLine progress_;
    bool in_worker_ = false; // this process is one of `jobs` workers
};

} // namespace

explore_report explore_counting(const spec* s, std::function<void()> body, explore_options o,
                                std::uint64_t& distinct_classes) {
    apply_environment(o);
    if (!body)
        throw std::invalid_argument("sfg::explore: no body");
    if (o.shards == 0 || o.shard == 0 || o.shard > o.shards)
        throw std::invalid_argument(fmt::format(
            "sfg::explore: shard {} of {}: a part is 1 to the number of parts", o.shard, o.shards));
    // Numbered in the order they are called, so that "%n" names each exploration's part.
    static std::atomic<std::uint64_t> explorations{0};
    const std::uint64_t number = ++explorations;
    std::string part_file = o.part_file;
    for (std::size_t at = 0; (at = part_file.find("%n", at)) != std::string::npos;)
        part_file.replace(at, 2, std::to_string(number));
    Exploration x(s, std::move(body), std::move(o));
    explore_report r = x.run();
    distinct_classes = x.distinct_classes();
    if (!part_file.empty()) {
        std::ofstream out(part_file, std::ios::binary | std::ios::trunc);
        out << write_part(x.part());
        if (!out.flush())
            throw std::runtime_error(
                fmt::format("sfg::explore: cannot write the part to '{}'", part_file));
    }
    return r;
}

namespace {

explore_report explore_with(const spec* s, std::function<void()> body, explore_options o) {
    std::uint64_t classes = 0;
    return explore_counting(s, std::move(body), std::move(o), classes);
}

} // namespace
} // namespace explore_detail

explore_report explore(const spec& s, std::function<void()> body, explore_options o) {
    return explore_detail::explore_with(&s, std::move(body), std::move(o));
}

explore_report explore(std::function<void()> body, explore_options o) {
    return explore_detail::explore_with(nullptr, std::move(body), std::move(o));
}

void check(bool condition, std::string_view what, sfg::source_location where) {
    if (condition)
        return;
    // The calling thread's run's controller, or the active one for a thread of no run.
    if (auto* c = dynamic_cast<explore_detail::Controller*>(detail::control()))
        c->check_failed(std::string(what), where.file_name(), where.line());
    throw check_failure(
        fmt::format("sfg::check failed: {} ({}:{})", what, where.file_name(), where.line()));
}

std::string explore_report::to_string() const {
    std::string out = fmt::format("sfg::explore: {} executions, {} classes, {}; {} finding{}\n",
                                  executions, classes, complete ? "complete" : "not complete",
                                  findings.size(), findings.size() == 1 ? "" : "s");
    for (const explore_finding& f : findings)
        out += fmt::format("\n[{}{}{}{}] {}\n", f.kind, f.analysis.empty() ? "" : " ", f.analysis,
                           f.var.empty() ? "" : " " + f.var, f.message);
    return out;
}

} // namespace sfg
