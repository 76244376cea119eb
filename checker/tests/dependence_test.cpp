// The dependence relation (docs/programs.md, "Dependence"): two arrivals at one barrier are
// independent, and so are two departures; an arrival and a departure are not. The property the
// relation must have — every execution of a Mazurkiewicz class shows the same findings, the same
// final state and ends the same way — is checked on every interleaving (naive exploration) of
// random programs rich in barriers (2-4 threads, 1-3 rounds, disciplines with barrier edges,
// overlapping rounds, deterministic blocks), and of the other generators; and dpor, which
// relies on the relation, gives naive's findings, final states and classes on them.
#include "compare.hpp"
#include "random_program.hpp"

#include <map>
#include <random>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {

// Runs the Checker on every execution and keeps, per Mazurkiewicz class, what the first
// execution of the class showed; any other execution of the class must show the same.
class ClassInvariance : public ExecutionSink {
public:
    ClassInvariance(const Interpreter& in) : m_(in.model()), checker_(in) {}
    void on_execution(const Execution& e) override {
        checker_.on_execution(e);
        Seen now{checker_.last_findings(), e.final_state->shared, e.end};
        ClassId c = foata_class(m_, *e.steps);
        auto [it, fresh] = seen_.try_emplace({c.a, c.b}, now);
        if (!fresh && !(it->second == now))
            ++differing;
        ++executions;
    }
    std::size_t classes() const { return seen_.size(); }
    std::uint64_t executions = 0, differing = 0;

private:
    struct Seen {
        std::vector<FindingKey> findings;
        std::vector<std::int64_t> final_state;
        EndKind end;
        friend bool operator==(const Seen&, const Seen&) = default;
    };
    const Model& m_;
    Checker checker_;
    std::map<std::pair<std::uint64_t, std::uint64_t>, Seen> seen_;
};

// Every interleaving of `m` (naive, up to max_exec); false when it did not complete.
bool same_within_classes(const Model& m, std::uint64_t max_exec, std::uint64_t* executions) {
    Interpreter in(m);
    ClassInvariance sink(in);
    CheckOptions o;
    o.mode = Mode::naive;
    o.max_executions = max_exec;
    ExploreStats st = make_explorer(o)->explore(in, o, sink);
    *executions = sink.executions;
    if (!st.complete)
        return true; // nothing to conclude from a cut search
    CHECK(sink.differing == 0);
    return sink.differing == 0;
}

// For programs too big for naive exploration: each execution dpor delivers, and `samples`
// random linearizations of its class (random topological orders of the dependence between its
// steps), replayed from their thread sequences: each must be an execution (every step
// enabled) that shows the same findings, final state and end.
class SampledClasses : public ExecutionSink {
public:
    SampledClasses(const Interpreter& in, std::uint64_t seed, int samples)
        : in_(in), m_(in.model()), checker_(in), replayed_(in), rng_(seed), samples_(samples) {}
    void on_execution(const Execution& e) override {
        checker_.on_execution(e);
        const std::vector<FindingKey> findings = checker_.last_findings();
        const std::vector<Step>& steps = *e.steps;
        const std::size_t n = steps.size();
        std::vector<std::vector<std::size_t>> after(n);
        std::vector<std::size_t> before(n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (dependent(m_, steps[i], steps[j])) {
                    after[i].push_back(j);
                    ++before[j];
                }
        for (int k = 0; k < samples_; ++k) {
            std::vector<std::size_t> left = before, ready;
            for (std::size_t i = 0; i < n; ++i)
                if (left[i] == 0)
                    ready.push_back(i);
            std::vector<ThreadId> schedule;
            while (!ready.empty()) {
                std::size_t pick = rng_() % ready.size();
                std::size_t i = ready[pick];
                ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
                schedule.push_back(steps[i].thread);
                for (std::size_t j : after[i])
                    if (--left[j] == 0)
                        ready.push_back(j);
            }
            State final_state;
            std::vector<Step> again = replay(in_, schedule, &final_state);
            ++replays;
            if (again.size() != n) {
                ++not_executable;
                continue;
            }
            std::vector<Failure> init;
            in_.initial(init);
            std::vector<ThreadId> enabled;
            in_.enabled(final_state, enabled);
            EndKind end = EndKind::normal;
            if (!enabled.empty())
                end = EndKind::steps;
            else
                for (const ThreadState& t : final_state.threads)
                    if (t.status == ThreadStatus::ready)
                        end = EndKind::deadlock;
            Execution x{&init, &again, &final_state, end};
            replayed_.on_execution(x);
            if (replayed_.last_findings() != findings ||
                final_state.shared != e.final_state->shared || end != e.end)
                ++differing;
        }
    }
    std::uint64_t replays = 0, not_executable = 0, differing = 0;

private:
    const Interpreter& in_;
    const Model& m_;
    Checker checker_, replayed_;
    std::mt19937_64 rng_;
    int samples_;
};

} // namespace

TEST_CASE("dependence: arrivals commute, departures commute, an arrival and a departure do not") {
    auto l = load("threads a, b;\nbarrier r(a, b);\nbarrier s(a, b);\nprogram p {\n"
                  "  thread a { barrier r; }\n  thread b { barrier r; barrier s; }\n}\n");
    REQUIRE(l);
    const Model& m = l->model;
    auto act = [](ThreadId t, Op op, ObjId target) { return Action{t, op, target, 1, true}; };
    CHECK_FALSE(dependent(m, act(0, Op::barrier_enter, 0), act(1, Op::barrier_enter, 0)));
    CHECK_FALSE(dependent(m, act(0, Op::barrier_exit, 0), act(1, Op::barrier_exit, 0)));
    CHECK(dependent(m, act(0, Op::barrier_enter, 0), act(1, Op::barrier_exit, 0)));
    CHECK(dependent(m, act(0, Op::barrier_exit, 0), act(1, Op::barrier_enter, 0)));
    CHECK_FALSE(dependent(m, act(0, Op::barrier_enter, 0), act(1, Op::barrier_exit, 1)));
    CHECK(dependent(m, act(0, Op::barrier_enter, 0), act(0, Op::barrier_enter, 0)));
    // Two threads crossing a barrier once: the arrivals in either order, then the departures in
    // either order, are one class (naive runs all four interleavings).
    auto once = load("threads a, b;\nbarrier r(a, b);\nprogram p {\n"
                     "  thread a { barrier r; }\n  thread b { barrier r; }\n}\n");
    REQUIRE(once);
    CheckResult naive = run(once->model, Mode::naive);
    CHECK(naive.stats.executions == 4);
    CHECK(naive.classes == 1);
    CheckResult dpor = run(once->model, Mode::dpor);
    CHECK(dpor.stats.executions == 1);
}

TEST_CASE("dependence: two joins of a thread commute, and a later fork of it follows both") {
    // u is joined by a (after three steps of its own) and by b; then c forks u a second time.
    // The two joins are independent, so both orders are one class: the fork's Foata level must
    // be above both joins, not only above the one that came last.
    auto l = load("threads a, b, c, u;\nvar y, z;\nprogram p {\n"
                  "  thread c { fork u; fork u; }\n  thread u { z = 1; }\n"
                  "  thread a { y = 1; y = 2; y = 3; join u; }\n  thread b { join u; }\n}\n");
    REQUIRE(l);
    const CheckResult naive = run(l->model, Mode::naive);
    const CheckResult dpor = run(l->model, Mode::dpor);
    CHECK(dpor.stats.executions == dpor.classes);
    CHECK(naive.classes == dpor.classes);
}

TEST_CASE("dependence: the next round's arrival and this round's departure commute") {
    // docs/programs.md, "Dependence": with coloured tokens (docs/enforcement.md, "Barrier
    // rounds"), whether t0 arrives at round 2 before t1 leaves round 1 changes no verdict, so the
    // two orders are one class; the read and the write of p1 in round 1 still race, in every
    // class, and dpor finds it.
    auto l = load("threads t0, t1;\nbarrier b(t0, t1);\nvar p1 : [RS(t0, t1) ▷^b EX(t1)]^b;\n"
                  "program overlap {\n"
                  "  thread t0 { barrier b; read p1; barrier b; }\n"
                  "  thread t1 { barrier b; write p1; barrier b; }\n}\n");
    REQUIRE(l);
    std::uint64_t executions = 0;
    CHECK(same_within_classes(l->model, 100000, &executions));
    Totals totals;
    std::optional<CheckResult> dpor = compare(l->model, 100000, true, totals);
    REQUIRE(dpor);
    CHECK(has(*dpor, FindingKind::race, "p1"));
    CHECK(dpor->stats.executions == dpor->classes);
    // The round-1 read and write of p1 in either order, times the orders of the two departures
    // against the next arrivals, which now commute.
    CHECK(dpor->classes == 2);
}

TEST_CASE("dependence: every execution of a class shows the same findings (barrier programs)") {
    int compared = 0, with_findings = 0, deadlocks = 0, violations = 0, several = 0;
    std::uint64_t replays = 0, programs = 0;
    Totals totals;
    const std::uint64_t n = seeds(260, 80);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = barrier_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        // Every program: samples of every class dpor explores.
        Interpreter in(l->model);
        SampledClasses sampled(in, seed, 3);
        CheckOptions o;
        o.max_executions = 3000;
        make_explorer(o)->explore(in, o, sampled);
        CHECK(sampled.not_executable == 0);
        CHECK(sampled.differing == 0);
        replays += sampled.replays;
        ++programs;
        // Those naive completes: every interleaving, and dpor against naive.
        std::uint64_t executions = 0;
        if (!same_within_classes(l->model, 8000, &executions) || executions >= 8000)
            continue;
        std::optional<CheckResult> d = compare(l->model, 8000, true, totals);
        if (!d)
            continue;
        ++compared;
        with_findings += d->found();
        deadlocks += has(*d, FindingKind::deadlock);
        violations += has(*d, FindingKind::violation);
        several += d->classes > 1;
    }
    MESSAGE(programs, " programs, ", replays,
            " linearizations of dpor's classes replayed; against "
            "naive: ",
            totals.text(), "; ", with_findings, " with findings, ", deadlocks, " deadlocks, ",
            violations, " violations");
    CHECK(compared >= at_least(90, n, 260));
    CHECK(deadlocks >= at_least(5, n, 260));
    CHECK(violations >= at_least(20, n, 260));
    // Overlapping rounds commute now: most of these programs are one class; some still split.
    CHECK(several >= 1);
}

TEST_CASE("dependence: every execution of a class shows the same findings (other programs)") {
    // The whole relation, on the generators of the DPOR tests: locks, volatiles, awaits, forks
    // and joins, failures, deterministic blocks.
    int checked = 0;
    const std::uint64_t n = seeds(150, 50);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = random_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::uint64_t executions = 0;
        checked += same_within_classes(l->model, 4000, &executions) && executions < 4000;
        bool multi = false;
        std::string blocking = blocking_program(seed, &multi);
        CAPTURE(blocking);
        auto b = load(blocking);
        REQUIRE(b);
        checked += same_within_classes(b->model, 4000, &executions) && executions < 4000;
    }
    CHECK(checked >= at_least(200, n, 150));
}

TEST_CASE("dependence: enq and deq on one queue are dependent, on two queues independent") {
    // docs/programs.md "Dependence", from the op table: enq/deq access their queue exclusively.
    auto l = load("threads a, b; queue q, r; var x, y;\nprogram p {\n"
                  "  thread a { enq q x; enq r y; }\n  thread b { deq q x; deq r y; }\n}\n");
    REQUIRE(l);
    const Model& m = l->model;
    const ObjId qx = m.syms.queue_items.find(m.syms.queues.find("q"), m.syms.vars.find("x"));
    const ObjId ry = m.syms.queue_items.find(m.syms.queues.find("r"), m.syms.vars.find("y"));
    REQUIRE(qx != no_object);
    REQUIRE(ry != no_object);
    auto act = [](ThreadId t, Op op, ObjId target) { return Action{t, op, target, 1, true}; };
    CHECK(dependent(m, act(0, Op::enqueue, qx), act(1, Op::dequeue, qx)));
    CHECK(dependent(m, act(0, Op::enqueue, qx), act(1, Op::enqueue, qx)));
    CHECK(dependent(m, act(0, Op::dequeue, qx), act(1, Op::dequeue, qx)));
    CHECK_FALSE(dependent(m, act(0, Op::enqueue, qx), act(1, Op::dequeue, ry)));
    CHECK_FALSE(dependent(m, act(0, Op::enqueue, qx), act(1, Op::write, m.syms.vars.find("x"))));
    // enq q x before deq q x is forced; r's pair is independent of q's: one class, though
    // naive runs every interleaving the blocking allows.
    CheckResult naive = run(m, Mode::naive);
    CHECK(naive.stats.executions == 2);
    CHECK(naive.classes == 1);
    CHECK(run(m, Mode::dpor).stats.executions == 1);
    // Two enqs on one queue do not commute (FIFO order): two classes.
    auto two = load("threads a, b; queue q; var x, y;\nprogram p {\n"
                    "  thread a { enq q x; }\n  thread b { enq q y; }\n}\n");
    REQUIRE(two);
    CHECK(run(two->model, Mode::naive).classes == 2);
}

namespace {

// How many of the first `n` programs of `generate` naive explores completely (within 4,000
// executions), every execution of each class showing the same findings.
template <class Generate>
int same_within_classes_of(Generate generate, std::uint64_t n) {
    int checked = 0;
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = generate(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::uint64_t executions = 0;
        checked += same_within_classes(l->model, 4000, &executions) && executions < 4000;
    }
    return checked;
}

} // namespace

TEST_CASE("dependence: every execution of a class shows the same findings (queue programs)") {
    const std::uint64_t n = seeds(150, 50);
    CHECK(same_within_classes_of(queue_program, n) >= at_least(100, n, 150));
}

TEST_CASE("dependence: every execution of a class shows the same findings (read-modify-writes)") {
    // A failed cas is a read alone, so it commutes with other reads of its volatile.
    const std::uint64_t n = seeds(150, 50);
    CHECK(same_within_classes_of(rmw_program, n) >= at_least(100, n, 150));
}

TEST_CASE("dependence: every execution of a class shows the same findings (condition variables)") {
    // A notify and a wait or wake of one cond are dependent; of two conds, independent.
    const std::uint64_t n = seeds(150, 50);
    CHECK(same_within_classes_of(cond_program, n) >= at_least(100, n, 150));
}
