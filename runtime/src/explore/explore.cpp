// sfg::explore (docs/explore.md): the body run once per schedule under the Controller, each run a
// session with the options' analyses, the findings of all runs merged by (kind, analysis, var)
// with the shortest run's schedule.
#include "explore/controller.hpp"
#include "explore/dependence.hpp"
#include "explore/exploration.hpp"
#include "explore/strategy.hpp"

#include "sfg/explore.hpp"
#include "sfg/runtime/live/env_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace sfg {

namespace explore_detail {
namespace {

// The exploration running in this process, if any: explore() inside explore() is refused.
std::atomic<Controller*> running{nullptr};

std::uint64_t parse_number(const std::string& key, const std::string& v) {
    std::uint64_t out = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
    if (v.empty() || ec != std::errc() || end != v.data() + v.size())
        throw std::invalid_argument("SFG_EXPLORE: " + key + "='" + v + "' is not a number");
    return out;
}

explore_mode parse_mode(const std::string& v) {
    if (v == "dpor")
        return explore_mode::dpor;
    if (v == "naive")
        return explore_mode::naive;
    if (v == "random")
        return explore_mode::random;
    if (v == "pct")
        return explore_mode::pct;
    throw std::invalid_argument("SFG_EXPLORE: mode '" + v +
                                "' is none of dpor, naive, random, pct");
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
            else if (key == "analyses")
                o.analyses = value;
            else if (key == "uncontrolled_after_ms")
                o.uncontrolled_after_ms = parse_number(key, value);
            else
                throw std::invalid_argument("SFG_EXPLORE: unknown option '" + key +
                                            "' (known: mode, max_executions, max_steps, "
                                            "max_preemptions, seed, pct_depth, jobs, analyses, "
                                            "uncontrolled_after_ms)");
        });
    if (const char* env = std::getenv("SFG_REPLAY"); env && *env)
        o.replay = env;
}

std::unique_ptr<Strategy> make_strategy(const explore_options& o) {
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
            return make_dpor();
        break;
    case explore_mode::naive:
        break;
    }
    return make_naive(o.max_preemptions);
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

struct Kept {
    explore_finding f;
    std::size_t steps = 0;
};

class Exploration {
public:
    Exploration(const spec* s, std::function<void()> body, explore_options o)
        : spec_(s), body_(std::move(body)), o_(std::move(o)) {}

    explore_report run() {
        if (session::current())
            throw std::invalid_argument(
                "sfg::explore: called while an sfg::session is open (explore opens one per run)");
        std::unique_ptr<Strategy> strategy = make_strategy(o_);
        Controller ctl(*strategy, o_.max_steps,
                       std::chrono::milliseconds(o_.uncontrolled_after_ms));
        Controller* expected = nullptr;
        if (!running.compare_exchange_strong(expected, &ctl))
            throw std::invalid_argument("sfg::explore: called inside an exploration");
        detail::set_control(&ctl);
        explore_report report;
        try {
            report = runs(ctl, *strategy);
        } catch (...) {
            detail::set_control(nullptr);
            running.store(nullptr);
            throw;
        }
        detail::set_control(nullptr);
        running.store(nullptr);
        return report;
    }

    std::uint64_t distinct_classes() const { return classes_.size(); }

private:
    explore_report runs(Controller& ctl, Strategy& strategy) {
        explore_report report;
        const bool replaying = !o_.replay.empty();
        const bool bounded = o_.mode == explore_mode::random || o_.mode == explore_mode::pct;
        bool more = true;
        while (more) {
            if (report.executions >= o_.max_executions)
                break;
            one_run(ctl);
            if (!ctl.blocked()) {
                ++report.executions;
                classes_.insert(foata_class(ctl.events()));
            }
            more = strategy.next_run() && !ctl.uncontrolled();
        }
        // Naive: every run counts (as `sfgc check` counts them); dpor delivers one run a class.
        report.classes = o_.mode == explore_mode::naive || o_.max_preemptions ? report.executions
                                                                              : classes_.size();
        report.complete = !replaying && !bounded && !more && !strategy.pruned() && !hit_bound_ &&
                          !ctl.uncontrolled();
        for (auto& [key, k] : kept_)
            report.findings.push_back(std::move(k.f));
        return report;
    }

    void one_run(Controller& ctl) {
        std::vector<finding> session_findings;
        {
            session_options so;
            so.policy = on_finding::collect;
            so.analyses = o_.analyses;
            std::optional<session> s;
            if (spec_)
                s.emplace(*spec_, so);
            else
                s.emplace(so);
            ctl.begin_run();
            std::exception_ptr error;
            try {
                body_();
            } catch (const detail::abandoned_run&) {
            } catch (const check_failure&) {
            } catch (...) {
                error = std::current_exception();
            }
            ctl.run_ends();
            if (error && !ctl.abandoned())
                main_error(ctl, error);
            s->close();
            session_findings = s->findings();
        }
        if (ctl.blocked()) { // no execution (dpor: equivalent to one explored)
            main_findings_.clear();
            return;
        }
        const std::string schedule = replay_string(ctl.schedule());
        const std::string table = step_table(ctl);
        for (const finding& f : session_findings)
            keep(f.kind, f.analysis, f.var, f.message, schedule, table, ctl.path().size());
        for (const OwnFinding& f : ctl.findings()) {
            hit_bound_ = hit_bound_ || f.kind == "bound";
            keep(f.kind, "", f.var, f.message, schedule, table, ctl.path().size());
        }
        for (const OwnFinding& f : main_findings_)
            keep(f.kind, "", f.var, f.message, schedule, table, ctl.path().size());
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

    void keep(const std::string& kind, const std::string& analysis, const std::string& var,
              const std::string& message, const std::string& schedule, const std::string& table,
              std::size_t steps) {
        auto [it, fresh] = kept_.try_emplace(std::make_tuple(kind, analysis, var));
        if (!fresh && it->second.steps <= steps)
            return;
        it->second.steps = steps;
        it->second.f = {kind, analysis, var,
                        fmt::format("{}\nschedule ({} steps; replay: {}):\n{}", message, steps,
                                    schedule, table),
                        schedule};
    }

    const spec* spec_;
    std::function<void()> body_;
    explore_options o_;
    bool hit_bound_ = false;
    std::vector<OwnFinding> main_findings_;
    std::map<std::tuple<std::string, std::string, std::string>, Kept> kept_;
    std::set<ClassId> classes_;
};

} // namespace

explore_report explore_counting(const spec* s, std::function<void()> body, explore_options o,
                                std::uint64_t& distinct_classes) {
    apply_environment(o);
    if (!body)
        throw std::invalid_argument("sfg::explore: no body");
    Exploration x(s, std::move(body), std::move(o));
    explore_report r = x.run();
    distinct_classes = x.distinct_classes();
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
    if (explore_detail::Controller* c = explore_detail::running.load())
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
