// Checks on every execution and findings with shortest counterexamples (checker.hpp).
#include "sfg/checker/checker.hpp"

#include "engine.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/engine/progress_line.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/trace/ill_formed.hpp"
#include "sfg/runtime/trace/well_formed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_set>

namespace sfg::checker {

namespace {

std::uint64_t count_events(const std::vector<Step>& steps, std::size_t upto) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < upto && i < steps.size(); ++i)
        for (const Action& a : steps[i].actions)
            n += a.emitted;
    return n;
}

} // namespace

bool operator<(const ExecOrder& a, const ExecOrder& b) {
    // Pre-order: a task's own executions before its children's (whose paths extend its path).
    if (a.task != b.task) {
        const std::size_t n = std::min(a.task.size(), b.task.size());
        for (std::size_t i = 0; i < n; ++i)
            if (a.task[i] != b.task[i])
                return a.task[i] < b.task[i];
        return a.task.size() < b.task.size();
    }
    return a.index < b.index;
}

std::optional<std::uint32_t> CheckFinding::line() const {
    switch (kind) {
    case FindingKind::bound:
    case FindingKind::cycle:
        return std::nullopt;
    case FindingKind::conflict: { // the line of the block's `begin`, an event of `steps`
        std::uint64_t n = 0;
        for (const Step& s : steps)
            for (const Action& a : s.actions)
                if (a.emitted && ++n == block.value_or(0))
                    return a.line;
        return 0;
    }
    default:
        return access.line;
    }
}

FindingKey key_of(const CheckFinding& f) {
    // Conflicts: their block's line; cycles: none (docs/determinism.md, "Model checking"): keys
    // that every execution of a Mazurkiewicz class shares.
    const bool by_var = f.kind == FindingKind::race || f.kind == FindingKind::violation;
    return FindingKey{f.kind, by_var ? f.var : std::string(), by_var ? 0 : f.line().value_or(0)};
}

namespace {

// Is a counterexample of `events` events and `steps` steps from execution `order` shorter than
// `f`'s? Fewer events, then fewer steps, then the execution first in canonical order.
bool shorter(std::uint64_t events, std::size_t steps, const ExecOrder& order,
             const CheckFinding& f) {
    if (events != f.events)
        return events < f.events;
    if (steps != f.steps.size())
        return steps < f.steps.size();
    return order < f.order;
}

} // namespace

void CheckPartial::add(CheckFinding&& f) {
    auto [it, fresh] = findings.try_emplace(key_of(f));
    if (fresh) {
        it->second = std::move(f);
        return;
    }
    const std::uint64_t executions = it->second.executions + f.executions;
    if (shorter(f.events, f.steps.size(), f.order, it->second))
        it->second = std::move(f);
    it->second.executions = executions;
}

void CheckPartial::merge(CheckPartial&& o) {
    stats.executions += o.stats.executions;
    stats.sleep_blocked += o.stats.sleep_blocked;
    stats.max_depth = std::max(stats.max_depth, o.stats.max_depth);
    stats.complete = stats.complete && o.stats.complete;
    stats.hit_max_executions = stats.hit_max_executions || o.stats.hit_max_executions;
    stats.hit_max_steps = stats.hit_max_steps || o.stats.hit_max_steps;
    stats.hit_max_states = stats.hit_max_states || o.stats.hit_max_states;
    stats.pruned = stats.pruned || o.stats.pruned;
    states += o.states;
    counted_classes += o.counted_classes;
    if (classes.size() < o.classes.size())
        std::swap(classes, o.classes);
    classes.insert(o.classes.begin(), o.classes.end());
    if (finals.size() < o.finals.size())
        std::swap(finals, o.finals);
    finals.merge(o.finals);
    for (auto& [key, f] : o.findings)
        add(std::move(f));
}

struct Checker::Impl {
    const Interpreter& in;
    const Model& m;
    CheckPartial own;
    CheckPartial* into = &own;
    ExecOrder order;              // of the current execution
    std::vector<FindingKey> last; // the keys recorded for the current execution
    // The model's names and the values its volatile accesses carry (Symbols::values, interned
    // as executions meet them; docs/traces.md "Values of volatiles").
    Symbols syms = m.syms;

    // Records `f` (its steps: the prefix `steps[0, upto)`), keeping the shortest.
    void record(CheckFinding f, const std::vector<Step>& steps, std::size_t upto) {
        last.push_back(key_of(f));
        f.events = count_events(steps, upto);
        f.executions = 1;
        auto it = into->findings.find(last.back());
        if (it != into->findings.end() && !shorter(f.events, upto, order, it->second)) {
            ++it->second.executions; // not shorter: the steps are not copied
            return;
        }
        f.order = order;
        f.steps.assign(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(upto));
        into->add(std::move(f));
    }

    // The analyses of every execution (docs/programs.md), made once from the registry and
    // reset between executions: the enforcer keeps its nets and index.
    std::unique_ptr<RunningAnalysis> fasttrack = make_analysis("fasttrack");
#ifndef NDEBUG
    // Cross-check (docs/programs.md): precise detectors agree exactly.
    std::unique_ptr<RunningAnalysis> goldilocks = make_analysis("goldilocks");
#endif
    std::unique_ptr<RunningAnalysis> enforce = [this] {
        AnalysisInputs inputs;
        for (const auto& [name, net] : m.nets)
            inputs.disciplines.emplace_back(name, &net);
        return make_analysis("enforce", inputs);
    }();
    // Determinism (docs/determinism.md) when the program has `deterministic` blocks.
    std::unique_ptr<RunningAnalysis> singletrack = [this]() -> std::unique_ptr<RunningAnalysis> {
        for (const ThreadCode& t : m.threads)
            for (const Instr& i : t.code)
                if (i.code == Code::begin)
                    return make_analysis("singletrack");
        return nullptr;
    }();

    void analyse(const std::vector<Step>& steps) {
        Fanout fan;
        fasttrack->reset();
        fan.add(fasttrack->analysis());
#ifndef NDEBUG
        goldilocks->reset();
        fan.add(goldilocks->analysis());
#endif
        if (!m.nets.empty()) {
            enforce->reset();
            fan.add(enforce->analysis());
        }
        if (singletrack) {
            singletrack->reset();
            fan.add(singletrack->analysis());
        }
        WellFormedStream stream(syms, fan);
        std::vector<std::size_t> step_of; // event number - 1 -> step index
        for (std::size_t i = 0; i < steps.size(); ++i)
            for (const Action& a : steps[i].actions) {
                if (!a.emitted)
                    continue;
                if (!stream.push(a.thread, a.op, a.target, no_object, a.line,
                                 a.has_value ? syms.values.intern(a.value) : no_object))
                    throw std::logic_error("checker produced an ill-formed stream: " +
                                           stream.error());
                step_of.push_back(i);
            }
        stream.finish();
        fan.finish(syms);
        const std::vector<Finding> races = fasttrack->findings(syms);
#ifndef NDEBUG
        const std::vector<Finding> gl = goldilocks->findings(syms);
        if (gl.size() != races.size())
            throw std::logic_error("goldilocks and fasttrack disagree on an execution");
        for (std::size_t i = 0; i < gl.size(); ++i)
            if (gl[i].var != races[i].var || gl[i].access.event != races[i].access.event)
                throw std::logic_error("goldilocks and fasttrack disagree on an execution");
#endif
        auto tname = [&](ThreadId t) { return m.syms.threads.name(t); };
        auto record_finding = [&](const Finding& x, CheckFinding f) {
            if (x.access.event == 0 || x.access.event > step_of.size())
                return;
            f.var = x.var;
            f.access = x.access;
            record(std::move(f), steps, step_of[x.access.event - 1] + 1);
        };
        for (const Finding& r : races) {
            CheckFinding f;
            f.kind = FindingKind::race;
            f.message =
                fmt::format("{} of {} by {} (line {}) races with the {} by {} (line {})",
                            describe(r.access.op), r.var, tname(r.access.thread), r.access.line,
                            describe(r.with->op), tname(r.with->thread), r.with->line);
            record_finding(r, std::move(f));
        }
        if (singletrack)
            determinism(steps, step_of);
        if (!m.nets.empty())
            for (const Finding& v : enforce->findings(syms)) {
                CheckFinding f;
                f.kind = FindingKind::violation;
                f.message = v.message; // explain()
                record_finding(v, std::move(f));
            }
    }

    // Conflicts per block, keyed by the block's line, and cycles, one key for all: whether a
    // block has a conflict and whether the transactions have a cycle are the same in every
    // execution of a Mazurkiewicz class; which event shows it first is not.
    void determinism(const std::vector<Step>& steps, const std::vector<std::size_t>& step_of) {
        if (std::optional<StreamError> err = singletrack->stream_error())
            throw std::logic_error("checker produced nested deterministic blocks: " + err->message);
        auto tname = [&](ThreadId t) { return m.syms.threads.name(t); };
        std::vector<const Action*> ev; // event number - 1 -> its action
        for (const Step& s : steps)
            for (const Action& a : s.actions)
                if (a.emitted)
                    ev.push_back(&a);
        // A transaction: a block by its `begin`, any other event by itself.
        auto node = [&](std::uint64_t n) {
            if (n == 0 || n > ev.size())
                return std::string("?");
            const Action& a = *ev[n - 1];
            return a.op == Op::begin
                       ? fmt::format("the block of {} at line {}", tname(a.thread), a.line)
                       : fmt::format("the {} of {} at line {}", to_string(a.op), tname(a.thread),
                                     a.line);
        };
        for (const Finding& x : singletrack->findings(syms)) {
            if (x.access.event == 0 || x.access.event > step_of.size())
                continue;
            CheckFinding f;
            f.kind = x.kind;
            f.access = x.access;
            if (x.kind == FindingKind::conflict) {
                f.block = x.block;
                f.message = fmt::format(
                    "in the deterministic block at line {}, the {} of {} by {} (line {}) and the "
                    "{} by {} (line {}) are not ordered by program order, fork, join or a barrier",
                    x.block && *x.block <= ev.size() ? ev[*x.block - 1]->line : 0,
                    describe(x.with->op), x.var, tname(x.with->thread), x.with->line,
                    describe(x.access.op), tname(x.access.thread), x.access.line);
            } else {
                std::string cycle;
                for (std::uint64_t n : x.cycle)
                    cycle += (cycle.empty() ? "" : " -> ") + node(n);
                f.message = fmt::format(
                    "transactions that no serial order can follow: {} -> back to the first, "
                    "closed by the {}{} by {} at line {}",
                    cycle, describe(x.access.op), x.var.empty() ? "" : " of " + x.var,
                    tname(x.access.thread), x.access.line);
            }
            record(std::move(f), steps, step_of[x.access.event - 1] + 1);
        }
    }

    void on_execution(const Execution& e) {
        last.clear();
        const std::vector<Step>& steps = *e.steps;
        into->stats.executions += 1;
        into->states += steps.size();
        into->classes.insert(foata_class(m, steps));
        into->finals.insert(e.final_state->shared);
        analyse(steps);
        auto failure = [&](const Failure& x, std::size_t upto) {
            CheckFinding f;
            f.kind = x.kind;
            f.access.thread = x.thread;
            f.access.line = x.line;
            f.message = x.message;
            record(std::move(f), steps, upto);
        };
        for (const Failure& x : *e.initial_failures)
            failure(x, 0);
        for (std::size_t i = 0; i < steps.size(); ++i)
            for (const Failure& x : steps[i].failures)
                failure(x, i + 1);
        if (e.end == EndKind::deadlock) {
            std::vector<Wait> waits = in.waits(*e.final_state);
            std::string who;
            for (const Wait& w : waits)
                who += fmt::format("{}{} waits at line {}: {}", who.empty() ? "" : "; ",
                                   m.syms.threads.name(w.thread), w.line, w.what);
            CheckFinding f;
            f.kind = FindingKind::deadlock;
            if (!waits.empty()) {
                f.access.thread = waits.front().thread;
                f.access.line = waits.front().line;
            }
            f.message = "deadlock: " + who;
            record(std::move(f), steps, steps.size());
            for (const Wait& w : waits)
                if (w.never_forked) {
                    CheckFinding g;
                    g.kind = FindingKind::ill_formed;
                    g.access.thread = w.thread;
                    g.access.line = w.line;
                    g.message = ill_formed::join_unforked(m.syms.threads.name(w.thread),
                                                          m.syms.threads.name(*w.never_forked));
                    record(std::move(g), steps, steps.size());
                }
        } else if (e.end == EndKind::steps) {
            CheckFinding f;
            f.kind = FindingKind::bound;
            f.message = "an execution reached --max-steps; the search is incomplete";
            record(std::move(f), steps, steps.size());
        }
    }
};

Checker::Checker(const Interpreter& in, std::uint64_t max_states)
    : impl_(new Impl{in, in.model(), {}, nullptr, {}, {}}), max_states_(max_states) {
    impl_->into = &impl_->own;
}
Checker::~Checker() = default;

void Checker::on_execution(const Execution& e) {
    states_ += e.steps->size();
    impl_->on_execution(e);
    ++impl_->order.index;
}

void Checker::begin_task(const std::vector<std::uint32_t>& path, CheckPartial* into) {
    impl_->into = into ? into : &impl_->own;
    impl_->order = ExecOrder{path, 0};
}

std::vector<FindingKey> Checker::last_findings() const {
    std::vector<FindingKey> out = impl_->last;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool Checker::stop() const {
    return states_ >= max_states_;
}

CheckResult Checker::finish(const ExploreStats& stats, const CheckOptions& options) {
    CheckPartial part = std::move(impl_->own);
    impl_->own = CheckPartial();
    part.stats = stats;
    part.stats.hit_max_states = stats.hit_max_states || (stop() && !stats.complete);
    return checker::finish(impl_->m, std::move(part), options, false);
}

CheckResult finish(const Model& model, CheckPartial&& part, const CheckOptions& options,
                   bool fell_back) {
    CheckResult r;
    r.program = model.name;
    r.mode = options.mode;
    r.fell_back = fell_back;
    r.stats = part.stats;
    r.classes = part.classes.size() + part.counted_classes;
    r.final_states = part.finals.size();
    // A bound without a counterexample: it replaces a step bound's unless that one is as short
    // (docs/programs.md: one finding per kind and line).
    auto bound = [&](std::string message) {
        CheckFinding f;
        f.kind = FindingKind::bound;
        f.message = std::move(message);
        f.executions = 1;
        f.order = ExecOrder{{std::numeric_limits<std::uint32_t>::max()},
                            std::numeric_limits<std::uint64_t>::max()};
        part.add(std::move(f));
    };
    if (part.stats.hit_max_executions)
        bound(fmt::format("stopped after {} executions (--max-executions); the search is "
                          "incomplete",
                          part.stats.executions));
    else if (part.stats.hit_max_states)
        bound(fmt::format("stopped after {} executions of {} steps in all (--max-states); the "
                          "search is incomplete",
                          part.stats.executions, part.states));
    for (auto& [key, f] : part.findings)
        r.findings.push_back(std::move(f));
    return r;
}

namespace {

// A Checker per thread of the search (engine.hpp).
class CheckerSink : public TaskSink {
public:
    explicit CheckerSink(const Interpreter& in) : checker_(in, TaskLimits::none) {}
    void on_execution(const Execution& e) override { checker_.on_execution(e); }
    void begin_task(const std::vector<std::uint32_t>& path, CheckPartial* into) override {
        checker_.begin_task(path, into);
    }

private:
    Checker checker_;
};

} // namespace

CheckPartial explore_model(const Model& model, const CheckOptions& options, bool* fell_back) {
    Interpreter in(model);
    Exploration x(in, options);
    if (fell_back)
        *fell_back = x.fell_back;
    std::vector<Task> tasks = top_tasks(x);
    if (options.shard_count > 1)
        tasks = shard_tasks(std::move(tasks), options.shard_index, options.shard_count);
    // Knuth's estimate of this search's size: the top tasks' estimates, or, for one task,
    // random probes from its root, more at every tick.
    std::uint64_t estimate_sum = 0;
    for (const Task& t : tasks)
        estimate_sum += t.estimate;
    // (A copy: the tasks move into the search.)
    const std::optional<Task> probed =
        tasks.size() == 1 && !sampled(options.mode) ? std::optional<Task>(tasks[0]) : std::nullopt;
    double probe_mean = 0; // of every probe so far (a progress line needs no more precision)
    std::uint64_t probes = 0;
    std::atomic<std::uint64_t> delivered{0};
    // "N executions, R/s, ~T in all": T is Knuth's estimate, refined by more probes every tick.
    engine::ProgressLine line(options.progress);
    auto tick = [&] {
        if (probed) {
            // About 20 ms of probing per tick; the threads keep the cores meanwhile.
            const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
            do {
                const double w = static_cast<double>(
                    checker::estimate(x, *probed, 0x9e3779b97f4a7c15ULL * (probes + 1), 1));
                ++probes;
                probe_mean += (w - probe_mean) / static_cast<double>(probes);
            } while (std::chrono::steady_clock::now() < until);
            estimate_sum = static_cast<std::uint64_t>(std::min(probe_mean, 1.8e19));
        }
        line.show(delivered.load(std::memory_order_relaxed), estimate_sum, true);
    };
    CheckPartial out;
    explore_tasks(
        x, std::move(tasks), [&] { return std::make_unique<CheckerSink>(in); }, out, delivered,
        line.enabled() ? std::function<void()>(tick) : std::function<void()>());
    return out;
}

CheckResult check_model(const Model& model, const CheckOptions& options) {
    bool fell_back = false;
    CheckPartial part = explore_model(model, options, &fell_back);
    return finish(model, std::move(part), options, fell_back);
}

} // namespace sfg::checker
