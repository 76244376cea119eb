// DPOR against naive exploration (docs/programs.md): on random small programs (random_program.hpp
// and a generator here with more blocking: nested locks, awaits on data, joins, barriers in
// loops, failures, annotated variables under lock, volatile, barrier and fork/join
// disciplines) and on every specs/programs example, dpor finds the same findings (kind and
// variable or line), the same final states and exactly the same Mazurkiewicz classes as naive,
// and runs one execution per class.
#include "compare.hpp"
#include "random_program.hpp"

#include <filesystem>
#include <random>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;
namespace fs = std::filesystem;

TEST_CASE("dpor: the findings, final states and classes of naive on random programs") {
    Totals totals;
    const std::uint64_t n = seeds(400, 100);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = random_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        // Every await of random_program reads one volatile: dpor's dependence is
        // docs/programs.md's.
        compare(l->model, 4000, true, totals);
    }
    MESSAGE(totals.text());
    CHECK(totals.compared >= at_least(250, n, 400));
}

TEST_CASE("dpor: the same on programs with more blocking, failures and disciplines") {
    Totals single, multi_var;
    int deadlocks = 0, violations = 0, races = 0, failures = 0;
    const std::uint64_t n = seeds(450, 120);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        bool multi = false;
        std::string text = blocking_program(seed, &multi);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::optional<CheckResult> d = compare(l->model, 5000, !multi, multi ? multi_var : single);
        if (!d)
            continue;
        const CheckResult& r = *d;
        deadlocks += has(r, FindingKind::deadlock);
        violations += has(r, FindingKind::violation);
        races += has(r, FindingKind::race);
        failures += has(r, FindingKind::assert_) || has(r, FindingKind::divzero) ||
                    has(r, FindingKind::ill_formed);
    }
    const int compared = single.compared + multi_var.compared;
    MESSAGE("compared ", compared, ": ", deadlocks, " with deadlocks, ", violations,
            " with violations, ", races, " with races, ", failures, " with failures");
    MESSAGE("awaits on one variable or none: ", single.text());
    MESSAGE("awaits on several variables: ", multi_var.text());
    CHECK(compared >= at_least(300, n, 450));
    CHECK(deadlocks >= at_least(20, n, 450));
    CHECK(violations >= at_least(20, n, 450));
    CHECK(failures >= at_least(20, n, 450));
}

TEST_CASE("dpor: the same on programs with queues (blocked deqs, FIFO order, hand-offs)") {
    // enq/deq on one queue are dependent; a deq blocks until its object is at the front.
    Totals totals;
    int deadlocks = 0, violations = 0, races = 0;
    const std::uint64_t n = seeds(300, 100);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = queue_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::optional<CheckResult> d = compare(l->model, 5000, false, totals);
        if (!d)
            continue;
        deadlocks += has(*d, FindingKind::deadlock);
        violations += has(*d, FindingKind::violation);
        races += has(*d, FindingKind::race);
    }
    MESSAGE(totals.text());
    MESSAGE(deadlocks, " with deadlocks, ", violations, " with violations, ", races, " with races");
    CHECK(totals.compared >= at_least(200, n, 300));
    CHECK(deadlocks >= at_least(20, n, 300));
    CHECK(violations >= at_least(20, n, 300));
    CHECK(races >= at_least(20, n, 300));
}

TEST_CASE("dpor: the same on programs with read-modify-writes (xchg, cas, fadd)") {
    // A read-modify-write is one step, vr(v) then vw(v); dpor takes every cas as a write (a cas
    // that fails only reads: one class may then be explored twice).
    Totals totals;
    int violations = 0, races = 0, failures = 0, failed_cas = 0;
    const std::uint64_t n = seeds(300, 100);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = rmw_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::optional<CheckResult> d = compare(l->model, 5000, false, totals);
        if (!d)
            continue;
        violations += has(*d, FindingKind::violation);
        races += has(*d, FindingKind::race);
        failures += has(*d, FindingKind::assert_);
        failed_cas += d->stats.executions > d->classes;
    }
    MESSAGE(totals.text());
    MESSAGE(violations, " with violations, ", races, " with races, ", failures,
            " with failed asserts, ", failed_cas, " with more executions than classes");
    CHECK(totals.compared >= at_least(250, n, 300));
    CHECK(violations >= at_least(20, n, 300));
    CHECK(races >= at_least(20, n, 300));
    CHECK(failures >= at_least(10, n, 300));
}

TEST_CASE("dpor: the same on programs with condition variables (wait, notify, notifyall)") {
    // A wake waits for a notify meant for it and for the lock; which waiter a notify wakes is
    // which one takes the next wake step.
    Totals totals;
    int deadlocks = 0, failures = 0, violations = 0, races = 0;
    const std::uint64_t n = seeds(300, 100);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        std::string text = cond_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        std::optional<CheckResult> d = compare(l->model, 5000, true, totals);
        if (!d)
            continue;
        deadlocks += has(*d, FindingKind::deadlock);
        failures += has(*d, FindingKind::assert_) || has(*d, FindingKind::ill_formed);
        violations += has(*d, FindingKind::violation);
        races += has(*d, FindingKind::race);
    }
    MESSAGE(totals.text());
    MESSAGE(deadlocks, " with deadlocks, ", failures, " with failures, ", violations,
            " with violations, ", races, " with races");
    CHECK(totals.compared >= at_least(200, n, 300));
    CHECK(deadlocks >= at_least(30, n, 300));
    CHECK(failures >= at_least(20, n, 300));
    CHECK(violations >= at_least(10, n, 300));
}

TEST_CASE("dpor: an await blocked by several writes races with each when it blocks") {
    // Found by the soak (SFG_DPOR_SEEDS): t2's await runs only before both x = 0 and t1's
    // writes of u. Each reversal alone leaves it blocked, so it must race with x = 0 as soon as
    // that write blocks it (dpor.cpp, change 2).
    const char* programs[] = {
        "threads t0, t1, t2;\nlock n;\nvolatile v, u;\nvar x, z;\nprogram p {\n  init x = 1;\n"
        "  thread t0 { fork t2; z = x + 2; acq n; x = 0; rel n; join t2; }\n"
        "  thread t1 { repeat 2 { u = 1; } }\n"
        "  thread t2 { await v + x > 0 && u == 0; }\n}\n",
        "threads t0, t1, t2, t3;\nvolatile v, u;\nvar x, y;\nprogram p {\n"
        "  thread t0 { fork t2; fork t3; write y; v = 2; }\n"
        "  thread t1 { let r0 = y; v = 0; if (x == 1) { y = 2 / v; } }\n"
        "  thread t2 { u = 1; }\n"
        "  thread t3 { await v < 1; await v + x > 0 && u == 0; }\n}\n",
        "threads t0, t1, t2;\nvar x, u, z;\nprogram p {\n  init x = 1;\n"
        "  thread t0 { x = 0; }\n  thread t1 { u = 1; }\n"
        "  thread t2 { read z; await x > 0 && u == 0; }\n}\n",
    };
    for (const char* text : programs) {
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        Totals totals;
        CHECK(compare(l->model, 100000, false, totals));
    }
}

TEST_CASE("dpor: one execution per class when nothing blocks") {
    // Threads of accesses only. Sleep sets make two delivered executions never equivalent:
    // the step explored first at a node sleeps in every later branch until a dependent step
    // runs, so a branch that would repeat its class ends sleep-set blocked instead.
    Totals totals;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        std::mt19937_64 rng(seed);
        auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
        const char* vars[] = {"x", "y", "z", "v"};
        std::string s = "threads t0, t1, t2;\nvolatile v;\nvar x, y, z;\nprogram p {\n";
        for (int t = 0; t < 3; ++t) {
            s += "  thread t" + std::to_string(t) + " {";
            for (int i = 0, n = 1 + pick(3); i < n; ++i)
                s += pick(2) ? std::string(" read ") + vars[pick(4)] + ";"
                             : std::string(" ") + vars[pick(4)] + " = " + std::to_string(i) + ";";
            s += " }\n";
        }
        s += "}\n";
        CAPTURE(s);
        auto l = load(s);
        REQUIRE(l);
        CHECK(compare(l->model, 100000, true, totals));
    }
    MESSAGE(totals.text());
}

TEST_CASE("dpor: every example gives naive's findings, final states and classes") {
    Totals totals;
    for (const auto& entry :
         fs::directory_iterator(std::string(SFG_SOURCE_DIR) + "/specs/programs")) {
        if (!entry.is_directory())
            continue;
        std::string name = entry.path().filename().string();
        CAPTURE(name);
        std::string path = (entry.path() / (name + ".sfg")).string();
        auto l = load(read_file(path), path);
        REQUIRE(l);
        // One execution per class, unless a cas may fail (dpor takes it as a write).
        bool cas = false;
        for (const ThreadCode& t : l->model.threads)
            for (const Instr& in : t.code)
                cas = cas || in.code == Code::cas;
        if (!compare(l->model, 100000, !cas, totals)) {
            // naive is incomplete (particles): dpor still completes
            Outcome dpor = explore(l->model, Mode::dpor);
            CHECK(dpor.result.stats.complete);
            CHECK(dpor.result.stats.executions == dpor.result.classes);
        }
    }
    MESSAGE(totals.text());
    CHECK(totals.compared >= 11);
}

TEST_CASE("dpor: bounds behave as in naive") {
    auto l = load("threads t0, t1;\nvar x;\nprogram p {\n"
                  "  thread t0 { while (x == 0) { skip; } }\n"
                  "  thread t1 { x = 1; }\n}\n");
    REQUIRE(l);
    CheckOptions o;
    o.mode = Mode::dpor;
    o.max_steps = 20;
    CheckResult r = check_model(l->model, o);
    CHECK_FALSE(r.stats.complete);
    CHECK(r.stats.hit_max_steps);
    CHECK(has(r, FindingKind::bound));
    o.mode = Mode::naive;
    CHECK(has(check_model(l->model, o), FindingKind::bound));

    auto many = load(random_program(3));
    REQUIRE(many);
    o = CheckOptions();
    o.max_executions = 1;
    r = check_model(many->model, o);
    CHECK(r.stats.executions == 1);
    CHECK_FALSE(r.stats.complete);
    CHECK(r.stats.hit_max_executions);
    CHECK(has(r, FindingKind::bound));
}

TEST_CASE("dpor: a preemption bound falls back to naive") {
    auto l = load(random_program(5));
    REQUIRE(l);
    CheckOptions o;
    o.preemption_bound = 1;
    CheckResult d = check_model(l->model, o);
    CHECK(d.fell_back);
    o.mode = Mode::naive;
    CheckResult n = check_model(l->model, o);
    CHECK_FALSE(n.fell_back);
    CHECK(d.stats.executions == n.stats.executions);
    CHECK(d.classes == n.classes);
}
