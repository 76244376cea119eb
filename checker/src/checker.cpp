// Checks on every execution and findings with shortest counterexamples (checker.hpp).
#include "sfg/checker/checker.hpp"

#include "sfg/runtime/analyses.hpp"
#include "sfg/runtime/trace.hpp"
#include "sfg/runtime/well_formed.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_set>

namespace sfg::check {

namespace {

FindingKind kind_of(FailureKind k) {
    switch (k) {
    case FailureKind::assert_:
        return FindingKind::assert_;
    case FailureKind::divzero:
        return FindingKind::divzero;
    case FailureKind::ill_formed:
        return FindingKind::ill_formed;
    case FailureKind::bound:
        return FindingKind::bound;
    }
    return FindingKind::bound;
}

std::uint64_t count_events(const std::vector<Step>& steps, std::size_t upto) {
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < upto && i < steps.size(); ++i)
        for (const Action& a : steps[i].actions)
            n += a.emitted;
    return n;
}

} // namespace

struct Checker::Impl {
    const Interpreter& in;
    const Model& m;
    std::unordered_set<ClassId, ClassIdHash> classes;
    std::set<std::vector<std::int64_t>> finals;
    // (kind, var, line) -> finding; var empty or line 0 as docs/programs.md groups them.
    std::map<std::tuple<int, std::string, std::uint32_t>, CheckFinding> findings;
    std::vector<FindingKey> last; // the keys recorded for the current execution

    // Records `f` (its steps: the prefix `steps[0, upto)`), keeping the shortest.
    void record(CheckFinding f, const std::vector<Step>& steps, std::size_t upto) {
        // Conflicts: f.line is their block's; cycles: none (docs/determinism.md, "Model
        // checking"): keys that every execution of a Mazurkiewicz class shares.
        std::uint32_t key_line = f.kind == FindingKind::race || f.kind == FindingKind::violation
                                     ? 0
                                     : f.line.value_or(0);
        auto key = std::make_tuple(
            static_cast<int>(f.kind),
            f.kind == FindingKind::race || f.kind == FindingKind::violation ? f.var : std::string(),
            key_line);
        last.push_back(FindingKey{f.kind, std::get<1>(key), key_line});
        f.events = count_events(steps, upto);
        auto it = findings.find(key);
        if (it != findings.end()) {
            ++it->second.executions;
            if (it->second.events < f.events ||
                (it->second.events == f.events && it->second.steps.size() <= upto))
                return;
            f.executions = it->second.executions;
            f.steps.assign(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(upto));
            it->second = std::move(f);
            return;
        }
        f.executions = 1;
        f.steps.assign(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(upto));
        findings.emplace(key, std::move(f));
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
        WellFormedStream stream(m.syms, fan);
        std::vector<std::size_t> step_of; // event number - 1 -> step index
        for (std::size_t i = 0; i < steps.size(); ++i)
            for (const Action& a : steps[i].actions) {
                if (!a.emitted)
                    continue;
                if (!stream.push(a.thread, a.op, a.target, no_object, a.line))
                    throw std::logic_error("checker produced an ill-formed stream: " +
                                           stream.error());
                step_of.push_back(i);
            }
        stream.finish();
        fan.finish(m.syms);
        const std::vector<Finding> races = fasttrack->findings(m.syms);
#ifndef NDEBUG
        const std::vector<Finding> gl = goldilocks->findings(m.syms);
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
            f.line = x.access.line;
            f.event = x.access.event;
            f.thread = x.access.thread;
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
            for (const Finding& v : enforce->findings(m.syms)) {
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
        for (const Finding& x : singletrack->findings(m.syms)) {
            if (x.access.event == 0 || x.access.event > step_of.size())
                continue;
            CheckFinding f;
            f.kind = x.kind;
            f.event = x.access.event;
            f.thread = x.access.thread;
            if (x.kind == FindingKind::conflict) {
                f.line = x.block && *x.block <= ev.size() ? ev[*x.block - 1]->line : 0;
                f.message = fmt::format(
                    "in the deterministic block at line {}, the {} of {} by {} (line {}) and the "
                    "{} by {} (line {}) are not ordered by program order, fork, join or a barrier",
                    *f.line, describe(x.with->op), x.var, tname(x.with->thread), x.with->line,
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
        classes.insert(foata_class(m, steps));
        finals.insert(e.final_state->shared);
        analyse(steps);
        auto failure = [&](const Failure& x, std::size_t upto) {
            CheckFinding f;
            f.kind = kind_of(x.kind);
            if (f.kind != FindingKind::bound)
                f.line = x.line;
            f.thread = x.thread;
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
            f.line = waits.empty() ? 0 : waits.front().line;
            f.thread = waits.empty() ? std::optional<ThreadId>() : waits.front().thread;
            f.message = "deadlock: " + who;
            record(std::move(f), steps, steps.size());
            for (const Wait& w : waits)
                if (w.ill_formed) {
                    CheckFinding g;
                    g.kind = FindingKind::ill_formed;
                    g.line = w.line;
                    g.thread = w.thread;
                    g.message = fmt::format("{} waits at line {}: {}: a join of a thread that is "
                                            "never forked",
                                            m.syms.threads.name(w.thread), w.line, w.what);
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
    : impl_(new Impl{in, in.model(), {}, {}, {}, {}}), max_states_(max_states) {}
Checker::~Checker() = default;

void Checker::on_execution(const Execution& e) {
    states_ += e.steps->size();
    impl_->on_execution(e);
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
    CheckResult r;
    r.program = impl_->m.name;
    r.mode = options.mode;
    r.stats = stats;
    r.classes = impl_->classes.size();
    r.final_states = impl_->finals.size();
    if (stats.hit_max_executions) {
        CheckFinding f;
        f.kind = FindingKind::bound;
        f.message = fmt::format("stopped after {} executions (--max-executions); the search is "
                                "incomplete",
                                stats.executions);
        impl_->record(std::move(f), {}, 0);
    } else if (stop() && !stats.complete) {
        CheckFinding f;
        f.kind = FindingKind::bound;
        f.message = fmt::format("stopped after {} executions of {} steps in all (--max-states); "
                                "the search is incomplete",
                                stats.executions, states_);
        impl_->record(std::move(f), {}, 0);
    }
    for (auto& [key, f] : impl_->findings)
        r.findings.push_back(std::move(f));
    impl_->findings.clear();
    return r;
}

CheckResult check_model(const Model& model, const CheckOptions& options) {
    Interpreter in(model);
    Checker checker(in, options.max_states);
    bool fell_back = false;
    std::unique_ptr<Explorer> ex = make_explorer(options, &fell_back);
    ExploreStats stats = ex->explore(in, options, checker);
    CheckResult r = checker.finish(stats, options);
    r.fell_back = fell_back;
    return r;
}

} // namespace sfg::check
