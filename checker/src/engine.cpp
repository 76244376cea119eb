// The task tree and the threads that explore it (engine.hpp; docs/programs.md, "More than one
// core"). After the work-stealing searches of Nidhugg and GenMC's -nthreads, with one
// difference: their trees depend on the schedule, ours is fixed by the program (and
// options.task_budget, options.split_above), so every report is the same for any number of
// threads or machines, and the bounds cut the same executions.
#include "engine.hpp"

#include "dpor.hpp"
#include "explore_detail.hpp"

#include "sfg/runtime/engine/task_tree.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <queue>
#include <random>
#include <system_error>
#include <thread>

namespace sfg::checker {

std::vector<Step> Task::steps() const {
    std::vector<Step> out;
    out.reserve((base ? base->size() : 0) + extra.size());
    if (base)
        out = *base;
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

Exploration::Exploration(const Interpreter& in_, const CheckOptions& o)
    : in(in_), m(in_.model()), options(o) {
    if (options.mode == Mode::dpor && options.preemption_bound) {
        // A preemption bound prunes branches, and a pruned branch may be the only one that
        // reverses some race (Coons et al., OOPSLA'13): bounded DPOR is not simply DPOR plus a
        // bound. Bounded searches use naive DFS instead.
        options.mode = Mode::naive;
        fell_back = true;
    }
    initial = in.initial(init_failures);
    if (options.mode == Mode::dpor)
        dpor = std::make_unique<DporModel>(m);
    if (options.mode == Mode::pct)
        pct_steps = checker::pct_steps(*this);
}

Exploration::~Exploration() = default;

std::unique_ptr<TaskRunner> make_runner(const Exploration& x) {
    switch (x.options.mode) {
    case Mode::dpor:
        return make_dpor_runner(x);
    case Mode::random:
    case Mode::pct:
        return make_random_runner(x);
    case Mode::naive:
        break;
    }
    return make_naive_runner(x);
}

namespace {

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
        return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}

// The children of a node explored one by one (dpor: in thread order, with sleep sets; naive:
// every enabled thread, within the preemption bound), as `choose` sees them.
struct Node {
    State state;
    std::vector<std::uint8_t> sleep;
    std::uint32_t preemptions = 0;
    std::size_t depth = 0;
    std::optional<ThreadId> last; // the thread of the step into the node
};

// The threads to explore at `n`; false when n is a leaf (maximal, or cut by max_steps).
bool choices(const Exploration& x, const Node& n, std::vector<ThreadId>& enabled,
             std::vector<ThreadId>& out) {
    x.in.enabled(n.state, enabled);
    out.clear();
    if (enabled.empty() || n.depth >= x.options.max_steps)
        return false;
    if (x.options.mode == Mode::dpor) {
        for (ThreadId t : enabled)
            if (!n.sleep[t])
                out.push_back(t);
        return true;
    }
    out = enabled;
    const auto& bound = x.options.preemption_bound;
    if (bound && n.last && n.preemptions >= *bound && enabled.size() > 1 &&
        std::find(enabled.begin(), enabled.end(), *n.last) != enabled.end())
        out = {*n.last};
    return true;
}

// Moves n to its child through `choice[i]` (the choices before it explored first).
void descend(const Exploration& x, Node& n, const std::vector<ThreadId>& choice,
             const std::vector<ThreadId>& enabled, std::size_t i, Step& step) {
    const ThreadId q = choice[i];
    if (x.options.mode == Mode::dpor) {
        for (std::size_t j = 0; j < i; ++j)
            n.sleep[choice[j]] = 1;
        n.sleep = x.dpor->sleep_after(n.state, n.sleep, q);
    }
    if (n.last && *n.last != q &&
        std::find(enabled.begin(), enabled.end(), *n.last) != enabled.end())
        ++n.preemptions;
    x.in.step(n.state, q, step);
    ++n.depth;
    n.last = q;
}

// The child of n through `choice[i]`.
Node child(const Exploration& x, const Node& n, const std::vector<ThreadId>& choice,
           const std::vector<ThreadId>& enabled, std::size_t i, Step& step) {
    Node c = n;
    descend(x, c, choice, enabled, i, step);
    return c;
}

Node node_of(const Exploration& x, const Task& t) {
    Node n;
    n.state = t.state;
    n.sleep = t.sleep.empty() ? std::vector<std::uint8_t>(x.m.threads.size(), 0) : t.sleep;
    n.preemptions = t.preemptions;
    n.depth = (t.base ? t.base->size() : 0) + t.extra.size();
    if (!t.extra.empty())
        n.last = t.extra.back().thread;
    else if (t.base && !t.base->empty())
        n.last = t.base->back().thread;
    return n;
}

// Does some path below n reach a leaf that is not sleep-set blocked? Tried the cheap way: the
// first path of a depth-first search (always the smallest choice), which is the one dpor itself
// runs first. `budget` bounds the steps taken; none left counts as yes.
bool reaches_leaf(const Exploration& x, Node n, std::uint64_t& budget) {
    std::vector<ThreadId> enabled, choice;
    Step step;
    while (choices(x, n, enabled, choice)) {
        // Taking the smallest choice puts no thread to sleep: with none asleep, the path
        // goes on to a leaf.
        if (std::find(n.sleep.begin(), n.sleep.end(), 1) == n.sleep.end())
            return true;
        if (choice.empty())
            return false;
        if (budget == 0)
            return true;
        --budget;
        descend(x, n, choice, enabled, 0, step);
    }
    return true;
}

// One probe: a random path from n, and the product of the branching factors on it. Where sleep
// sets leave most paths blocked (independent threads: every path that runs a thread before a
// smaller one it does not depend on), a uniform choice almost never reaches a leaf, so the
// choice is among the children from which reaches_leaf() does (a slight underestimate where it
// misses a leaf).
std::uint64_t probe(const Exploration& x, Node n, std::mt19937_64& rng, bool lookahead) {
    std::uint64_t w = 1;
    std::vector<ThreadId> enabled, choice, viable;
    Step step;
    while (choices(x, n, enabled, choice)) {
        if (choice.empty())
            return 0; // sleep-set blocked: no execution here
        std::size_t i = 0;
        if (choice.size() > 1 && lookahead) {
            viable.clear();
            std::uint64_t budget = 4 * x.options.max_steps;
            for (std::size_t j = 0; j < choice.size(); ++j) {
                Step scratch;
                if (reaches_leaf(x, child(x, n, choice, enabled, j, scratch), budget))
                    viable.push_back(static_cast<ThreadId>(j));
            }
            if (viable.empty())
                return 0;
            i = viable[rng() % viable.size()];
            w = saturating_mul(w, viable.size());
        } else {
            i = rng() % choice.size();
            w = saturating_mul(w, choice.size());
        }
        descend(x, n, choice, enabled, i, step);
    }
    return w;
}

// The mean of `probes` weights, without overflow: their sum divided as it goes.
std::uint64_t mean_of(const Exploration& x, const Node& n, std::mt19937_64& rng, int probes,
                      bool lookahead, int* nonzero) {
    std::uint64_t quotient = 0, remainder = 0;
    const std::uint64_t k = static_cast<std::uint64_t>(std::max(probes, 1));
    for (int i = 0; i < probes; ++i) {
        const std::uint64_t w = probe(x, n, rng, lookahead);
        *nonzero += w != 0;
        quotient = saturating_add(quotient, w / k);
        remainder += w % k;
        quotient = saturating_add(quotient, remainder / k);
        remainder %= k;
    }
    return quotient;
}

} // namespace

std::uint64_t estimate(const Exploration& x, const Task& t, std::uint64_t seed, int probes) {
    std::mt19937_64 rng(seed);
    const Node n = node_of(x, t);
    // Uniform probes first (cheap); when sleep sets blocked most of them, half as many probes
    // that look ahead (reaches_leaf: a probe's length times as dear).
    int nonzero = 0;
    const std::uint64_t uniform = mean_of(x, n, rng, probes, false, &nonzero);
    if (x.options.mode != Mode::dpor || 2 * nonzero >= probes)
        return uniform;
    return mean_of(x, n, rng, std::max(1, probes / 2), true, &nonzero);
}

namespace {

std::uint64_t path_seed(const std::vector<std::uint32_t>& path) {
    std::uint64_t h = 0x5851f42d4c957f2dULL;
    for (std::uint32_t i : path)
        h = (h ^ (i + 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

// The children of task t as tasks (every choice at its root), in canonical order; empty when t
// is a leaf. `blocked`: t is sleep-set blocked (no execution below it).
std::vector<Task> expand(const Exploration& x, const Task& t, bool& leaf) {
    const Node n = node_of(x, t);
    std::vector<ThreadId> enabled, choice;
    std::vector<Task> out;
    leaf = !choices(x, n, enabled, choice);
    for (std::size_t i = 0; i < choice.size(); ++i) {
        Step step;
        Node c = child(x, n, choice, enabled, i, step);
        Task k;
        k.path = t.path;
        k.path.push_back(static_cast<std::uint32_t>(i));
        // Keep the shared part long and the copied part short.
        if (t.extra.size() >= 64) {
            auto all = std::make_shared<std::vector<Step>>(t.steps());
            k.base = std::move(all);
        } else {
            k.base = t.base;
            k.extra = t.extra;
        }
        k.extra.push_back(std::move(step));
        k.state = std::move(c.state);
        k.sleep = std::move(c.sleep);
        k.preemptions = c.preemptions;
        out.push_back(std::move(k));
    }
    return out;
}

bool path_less(const Task& a, const Task& b) {
    return a.path < b.path;
}

} // namespace

std::vector<Task> top_tasks(const Exploration& x) {
    const CheckOptions& o = x.options;
    std::vector<Task> out;
    if (sampled(o.mode)) {
        constexpr std::uint64_t block = 64;
        for (std::uint64_t first = 0; first < o.max_executions; first += block) {
            Task t;
            t.path = {static_cast<std::uint32_t>(first / block)};
            t.first = first;
            t.last = std::min(o.max_executions, first + block);
            t.estimate = t.last - t.first;
            out.push_back(std::move(t));
        }
        return out;
    }
    Task root;
    root.state = x.initial;
    if (o.mode == Mode::dpor)
        root.sleep.assign(x.m.threads.size(), 0);
    // No division when it is off, or when the bound on executions stops the search before a
    // tree worth dividing: the estimates' probes would cost more than the search.
    if (o.split_above == 0 || (o.max_executions != 0 && o.max_executions < o.split_above)) {
        out.push_back(std::move(root));
        return out;
    }
    root.estimate = estimate(x, root, path_seed({}), 32);
    const std::uint64_t whole = root.estimate;
    if (whole < o.split_above) {
        out.push_back(std::move(root));
        return out;
    }
    // Divide the largest estimate until none is above a 64th of the whole (at most 1024 tasks):
    // expanding a node gives each choice at it its own task, as a split node does.
    constexpr std::size_t parts = 64, most = 1024;
    auto smaller = [](const Task& a, const Task& b) {
        return a.estimate != b.estimate ? a.estimate < b.estimate : b.path < a.path;
    };
    std::priority_queue<Task, std::vector<Task>, decltype(smaller)> heap(smaller);
    heap.push(std::move(root));
    while (!heap.empty() && heap.size() + out.size() < most) {
        if (heap.top().estimate <= whole / parts)
            break;
        Task t = std::move(const_cast<Task&>(heap.top()));
        heap.pop();
        bool leaf = false;
        std::vector<Task> kids = expand(x, t, leaf);
        if (leaf) {
            out.push_back(std::move(t));
            continue;
        }
        if (kids.size() == 1) { // one way on: the same subtree
            kids[0].estimate = t.estimate;
            heap.push(std::move(kids[0]));
            continue;
        }
        for (Task& k : kids) { // none: sleep-set blocked, no execution below t
            k.estimate = estimate(x, k, path_seed(k.path), 16);
            heap.push(std::move(k));
        }
    }
    while (!heap.empty()) {
        out.push_back(std::move(const_cast<Task&>(heap.top())));
        heap.pop();
    }
    std::sort(out.begin(), out.end(), path_less);
    return out;
}

std::vector<Task> shard_tasks(std::vector<Task> top, std::uint32_t k, std::uint32_t n) {
    if (n <= 1)
        return top;
    std::vector<std::uint64_t> estimates;
    for (const Task& t : top)
        estimates.push_back(t.estimate);
    const std::vector<std::uint32_t> part = engine::deal_to_parts(estimates, n);
    std::vector<Task> out;
    for (std::size_t i = 0; i < top.size(); ++i)
        if (part[i] == k)
            out.push_back(std::move(top[i]));
    return out;
}

// ---- the threads ----

namespace {

class Scheduler {
public:
    Scheduler(const Exploration& x, std::vector<Task> tasks, CheckPartial& out)
        : x_(x), out_(out), bounded_(!sampled(x.options.mode)), tree_(std::move(tasks)) {}

    // A worker: takes the first task in canonical order, explores it, repeats.
    void work(TaskRunner& runner, TaskSink& sink, std::atomic<std::uint64_t>& delivered) {
        CountingSink counting(sink, delivered);
        std::unique_lock<std::mutex> lk(mu_);
        for (;;) {
            work_cv_.wait(lk, [&] { return tree_.finished() || stop_ || tree_.any_pending(); });
            if (tree_.finished() || stop_)
                return;
            Tree::Node* n = tree_.take();
            TaskLimits lim;
            lim.budget = x_.options.task_budget;
            lim.abort = &abort_;
            // Children go to the tree as soon as they are handed on, for idle threads.
            lim.on_child = [this, n](Task&& c) {
                std::lock_guard<std::mutex> g(mu_);
                tree_.hand_on(*n, std::move(c));
                if (!stop_)
                    work_cv_.notify_one();
            };
            // The next task to merge: the executions before it are known, so it can stop
            // exactly at a bound; any other runs whole and is cut when merged.
            const bool exact = tree_.is_next(*n);
            if (exact) {
                if (bounded_)
                    lim.executions = x_.options.max_executions -
                                     std::min(x_.options.max_executions, executions_);
                lim.states = x_.options.max_states - std::min(x_.options.max_states, states_);
            }
            lk.unlock();
            auto part = std::make_unique<CheckPartial>();
            TaskOutcome r;
            try {
                sink.begin_task(n->task.path, part.get());
                r = runner.run(n->task, lim, counting);
            } catch (...) {
                lk.lock();
                if (!error_)
                    error_ = std::current_exception();
                stop_ = true;
                abort_ = true;
                work_cv_.notify_all();
                done_cv_.notify_all();
                return;
            }
            lk.lock();
            part->stats = r.stats;
            part->stats.complete = true;
            part->states = r.states;
            if (!stop_)
                tree_.done(*n, Done{std::move(part), exact},
                           [this](Tree::Node& c) { return merge(c); });
            work_cv_.notify_all();
            done_cv_.notify_all();
        }
    }

    // Stops the threads as soon as they can.
    void abort() {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
        abort_ = true;
        work_cv_.notify_all();
    }

    // Waits for the end, calling `tick` about twice a second meanwhile.
    void wait(const std::function<void()>& tick) {
        using clock = std::chrono::steady_clock;
        const auto period = std::chrono::milliseconds(500);
        auto next = clock::now() + period;
        std::unique_lock<std::mutex> lk(mu_);
        while (!tree_.finished() && !stop_) {
            done_cv_.wait_until(lk, next);
            if (clock::now() >= next) {
                next = clock::now() + period;
                if (tick) {
                    lk.unlock();
                    tick();
                    lk.lock();
                }
            }
        }
    }

    // After the threads are done: the task a bound cut and that ran whole, again with exact
    // limits; then the flags.
    void finish(TaskRunner& runner, TaskSink& sink) {
        if (error_)
            std::rethrow_exception(error_);
        if (rerun_) {
            // With the same budget: a task's own executions depend on where it hands on (its
            // children, handed on again, are dropped).
            TaskLimits lim;
            lim.budget = x_.options.task_budget;
            if (bounded_)
                lim.executions = x_.options.max_executions - executions_;
            lim.states = x_.options.max_states - states_;
            CheckPartial part;
            sink.begin_task(rerun_->task.path, &part);
            TaskOutcome r = runner.run(rerun_->task, lim, sink);
            part.stats = r.stats;
            part.stats.complete = true;
            part.states = r.states;
            commit(part);
        }
        out_.stats.complete = !out_.stats.hit_max_executions && !out_.stats.hit_max_states &&
                              !out_.stats.hit_max_steps && !out_.stats.pruned &&
                              !sampled(x_.options.mode);
    }

private:
    struct Done {
        std::unique_ptr<CheckPartial> part;
        bool exact = false; // run with the limits left (TaskTree::is_next when it was taken)
    };
    using Tree = engine::TaskTree<Task, Done>;

    // Counts executions for the progress line, 64 at a time (one cache line for all threads).
    class CountingSink : public ExecutionSink {
    public:
        CountingSink(ExecutionSink& next, std::atomic<std::uint64_t>& n) : next_(next), n_(n) {}
        ~CountingSink() override { n_.fetch_add(local_, std::memory_order_relaxed); }
        CountingSink(const CountingSink&) = delete;
        CountingSink& operator=(const CountingSink&) = delete;
        void on_execution(const Execution& e) override {
            next_.on_execution(e);
            if (++local_ == 64) {
                n_.fetch_add(local_, std::memory_order_relaxed);
                local_ = 0;
            }
        }

    private:
        ExecutionSink& next_;
        std::atomic<std::uint64_t>& n_;
        std::uint64_t local_ = 0;
    };

    // Does merging `part` reach a bound?
    bool crosses(const CheckPartial& part) const {
        return (bounded_ && executions_ + part.stats.executions >= x_.options.max_executions) ||
               states_ + part.states >= x_.options.max_states;
    }

    // Merges one task's results, in canonical order; true when a bound is reached.
    bool commit(CheckPartial& part) {
        const bool cross = crosses(part);
        executions_ += part.stats.executions;
        states_ += part.states;
        out_.merge(std::move(part));
        if (cross) {
            if (bounded_ && executions_ >= x_.options.max_executions)
                out_.stats.hit_max_executions = true;
            else
                out_.stats.hit_max_states = true;
        }
        return cross;
    }

    // The tree's merge of a task done, in canonical order (TaskTree::done); false stops it.
    bool merge(Tree::Node& c) {
        if (!c.result->exact && crosses(*c.result->part)) {
            rerun_ = &c; // ran whole: the bound falls inside it
            stop_ = true;
            abort_ = true;
            return false;
        }
        if (commit(*c.result->part)) {
            stop_ = true;
            abort_ = true;
            return false;
        }
        return true;
    }

    const Exploration& x_;
    CheckPartial& out_;
    const bool bounded_; // max_executions bounds the search (random: it is the runs)
    std::mutex mu_;
    std::condition_variable work_cv_, done_cv_;
    Tree tree_;
    std::uint64_t executions_ = 0, states_ = 0; // merged so far
    bool stop_ = false;
    std::atomic<bool> abort_{false};
    Tree::Node* rerun_ = nullptr;
    std::exception_ptr error_;
};

} // namespace

void explore_tasks(const Exploration& x, std::vector<Task> tasks,
                   const std::function<std::unique_ptr<TaskSink>()>& make_sink, CheckPartial& out,
                   std::atomic<std::uint64_t>& delivered, const std::function<void()>& progress) {
    Scheduler sched(x, std::move(tasks), out);
    const std::uint32_t jobs = std::max<std::uint32_t>(1, x.options.jobs);
    std::vector<std::thread> threads;
    std::vector<std::unique_ptr<TaskRunner>> runners(jobs);
    std::vector<std::unique_ptr<TaskSink>> sinks(jobs);
    for (std::uint32_t j = 0; j < jobs; ++j) {
        runners[j] = make_runner(x);
        sinks[j] = make_sink();
    }
    if (jobs == 1 && !progress) { // no thread to start: the same tasks, in the same order
        sched.work(*runners[0], *sinks[0], delivered);
        sched.finish(*runners[0], *sinks[0]);
        return;
    }
    // As many threads as the system gives (each has a stack within --max-memory): the report
    // does not depend on their number.
    for (std::uint32_t j = 0; j < jobs; ++j) {
        try {
            threads.emplace_back([&, j] { sched.work(*runners[j], *sinks[j], delivered); });
        } catch (const std::system_error&) {
            break;
        }
    }
    if (threads.empty()) {
        sched.work(*runners[0], *sinks[0], delivered);
        sched.finish(*runners[0], *sinks[0]);
        return;
    }
    try {
        sched.wait(progress);
    } catch (...) { // the progress line's: the threads stop before their sinks go
        sched.abort();
        for (std::thread& t : threads)
            t.join();
        throw;
    }
    for (std::thread& t : threads)
        t.join();
    sched.finish(*runners[0], *sinks[0]);
}

// ---- one thread, one sink (Explorer) ----

namespace {

// The task tree in canonical order into one sink: what tests compare explorers with.
class TaskExplorer : public Explorer {
public:
    ExploreStats explore(const Interpreter& in, const CheckOptions& options,
                         ExecutionSink& sink) override {
        Exploration x(in, options);
        const CheckOptions& o = x.options;
        std::unique_ptr<TaskRunner> runner = make_runner(x);
        std::vector<Task> stack = top_tasks(x);
        std::reverse(stack.begin(), stack.end());
        const bool bounded = !sampled(o.mode);
        ExploreStats st;
        bool cut = false; // stopped with work left
        while (!stack.empty()) {
            if ((bounded && st.executions >= o.max_executions) || sink.stop()) {
                cut = true;
                break;
            }
            Task t = std::move(stack.back());
            stack.pop_back();
            TaskLimits lim;
            lim.budget = o.task_budget;
            if (bounded)
                lim.executions = o.max_executions - st.executions;
            TaskOutcome r = runner->run(t, lim, sink);
            st.executions += r.stats.executions;
            st.sleep_blocked += r.stats.sleep_blocked;
            st.max_depth = std::max(st.max_depth, r.stats.max_depth);
            st.hit_max_steps = st.hit_max_steps || r.stats.hit_max_steps;
            st.pruned = st.pruned || r.stats.pruned;
            if (r.stopped) {
                cut = true;
                break;
            }
            for (auto it = r.children.rbegin(); it != r.children.rend(); ++it)
                stack.push_back(std::move(*it));
        }
        st.hit_max_executions = bounded && st.executions >= o.max_executions;
        st.complete =
            !cut && !st.hit_max_executions && !st.hit_max_steps && !st.pruned && !sampled(o.mode);
        return st;
    }
};

} // namespace

std::unique_ptr<Explorer> make_explorer(const CheckOptions& options, bool* fell_back) {
    if (fell_back)
        *fell_back = options.mode == Mode::dpor && options.preemption_bound.has_value();
    return std::make_unique<TaskExplorer>();
}

} // namespace sfg::checker
