// Promela emitter (docs/programs.md, part 6): structure of the emitted models, and, when Spin
// is installed, Spin's verdicts (assertion violation, invalid end state) on small programs.
#include "random_program.hpp"
#include "support.hpp"

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/checker/promela.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace sfg;

// The program passed the front end and the program sema (compile_spec runs both).
PromelaModel emit(const std::string& text) {
    SourceFile file("test.sfg", text);
    Diagnostics diags;
    std::optional<CompiledSpec> spec = compile_spec(file, diags);
    std::string messages;
    for (const Diagnostic& d : diags.sorted())
        messages += std::to_string(d.loc.line) + ": " + d.message + "\n";
    INFO(messages);
    REQUIRE(spec.has_value());
    REQUIRE(spec->programs.size() == 1);
    REQUIRE(spec->programs[0].body != nullptr);
    return emit_promela(*spec->programs[0].body, *spec);
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + what.size()))
        ++n;
    return n;
}

const char* const bank_racy = R"(
threads main, deposit, withdraw;
var balance;
program bank {
  init balance = 0;
  thread main {
    balance = 500;
    fork deposit, withdraw;
    join deposit, withdraw;
    assert balance == 500;
  }
  thread deposit  { let t = balance; balance = t + 100; }
  thread withdraw { let t = balance; balance = t - 100; }
}
)";

const char* const bank_locked = R"(
threads main, deposit, withdraw;
lock m;
var balance : EX(main) |>^fork [EX(deposit) | EX(withdraw)]^m |>^join EX(main);
program bank {
  init balance = 0;
  thread main {
    balance = 500;
    fork deposit, withdraw;
    join deposit, withdraw;
    assert balance == 500;
  }
  thread deposit  { acq m; let t = balance; balance = t + 100; rel m; }
  thread withdraw { acq m; let t = balance; balance = t - 100; rel m; }
}
)";

const char* const lock_order = R"(
threads t1, t2;
lock a, b;
var x;
program order {
  thread t1 { acq a; acq b; x = 1; rel b; rel a; }
  thread t2 { acq b; acq a; x = 2; rel a; rel b; }
}
)";

// Particles (thesis Figure 3.4 shape): each round both threads write their own cell, meet,
// read the other's, meet again.
const char* const barrier_ok = R"(
threads p, q;
barrier b(p, q);
var x, y;
program particles {
  thread p { let i = 0; repeat 3 { i = i + 1; x = i; barrier b; let o = y; assert o == i; barrier b; } }
  thread q { let j = 0; repeat 3 { j = j + 1; y = j; barrier b; let o = x; assert o == j; barrier b; } }
}
)";

// Without the second barrier a fast thread overwrites its cell before the other read it.
const char* const barrier_racy = R"(
threads p, q;
barrier b(p, q);
var x, y;
program particles {
  thread p { let i = 0; repeat 3 { i = i + 1; x = i; barrier b; let o = y; assert o == i; } }
  thread q { let j = 0; repeat 3 { j = j + 1; y = j; barrier b; let o = x; assert o == j; } }
}
)";

const char* const handshake_ok = R"(
threads producer, consumer;
volatile flag;
var data;
program handshake {
  thread producer { data = 42; flag = 1; }
  thread consumer { await flag == 1; assert data == 42; }
}
)";

const char* const handshake_racy = R"(
threads producer, consumer;
volatile flag;
var data;
program handshake {
  thread producer { flag = 1; data = 42; }
  thread consumer { await flag == 1; assert data == 42; }
}
)";

// ---- running Spin ----

bool have_tools() {
    return std::system("command -v spin >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1") == 0;
}

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct SpinVerdict {
    bool assertion = false; // some assertion can fail (pan -E: invalid end states ignored)
    bool deadlock = false;  // some invalid end state (pan -A: assertions ignored)
    std::string assert_output, deadlock_output;
};

SpinVerdict run_spin(const std::string& model, const std::string& name) {
    namespace fs = std::filesystem;
    // A directory of this run's own: several builds may run this test at once.
    std::string templ = (fs::temp_directory_path() / ("sfg-promela-" + name + "-XXXXXX")).string();
    REQUIRE(mkdtemp(templ.data()) != nullptr);
    const fs::path dir = templ;
    {
        std::ofstream out(dir / "m.pml");
        out << model;
    }
    const std::string cd = "cd '" + dir.string() + "' && ";
    int rc = std::system((cd + "spin -a m.pml > spin.out 2>&1").c_str());
    INFO(slurp(dir / "spin.out"));
    INFO(model);
    REQUIRE(rc == 0);
    rc = std::system((cd + "gcc -w -o pan pan.c > gcc.out 2>&1").c_str());
    INFO(slurp(dir / "gcc.out"));
    REQUIRE(rc == 0);
    std::system((cd + "./pan -E -m200000 -w18 > assert.out 2>&1").c_str());
    std::system((cd + "./pan -A -m200000 -w18 > deadlock.out 2>&1").c_str());
    SpinVerdict v;
    v.assert_output = slurp(dir / "assert.out");
    v.deadlock_output = slurp(dir / "deadlock.out");
    v.assertion = v.assert_output.find("assertion violated") != std::string::npos;
    v.deadlock = v.deadlock_output.find("pan:1: invalid end state") != std::string::npos;
    // A search cut short by the depth bound would not be a verdict.
    CHECK(v.assert_output.find("max search depth too small") == std::string::npos);
    CHECK(v.deadlock_output.find("max search depth too small") == std::string::npos);
    fs::remove_all(dir);
    return v;
}

struct Expected {
    const char* name;
    const char* text;
    bool assertion;
    bool deadlock;
    const char* finding; // the assert's name in pan's message, when assertion
};

} // namespace

TEST_SUITE_BEGIN("promela");

TEST_CASE("promela: one atomic per visible step, locks as owner+1, forks and joins") {
    PromelaModel m = emit(bank_locked);
    const std::string& t = m.text;
    CHECK(m.warnings.empty());
    CHECK(count(t, "active proctype") == 3);
    CHECK(t.find("active proctype p_main()") != std::string::npos);
    CHECK(t.find("int v_balance = 0;") != std::string::npos);
    CHECK(t.find("byte lk_m = 0;") != std::string::npos);
    // deposit is thread 0 (threads sorted by name): lock value 1; withdraw is 2: value 3.
    CHECK(t.find("(lk_m == 0) -> lk_m = 1") != std::string::npos);
    CHECK(t.find("(lk_m == 0) -> lk_m = 3") != std::string::npos);
    CHECK(t.find("ILL_FORMED_acq_m_line_") != std::string::npos);
    CHECK(t.find("ILL_FORMED_rel_m_line_") != std::string::npos);
    // main: w(balance), fork, join, r(balance) = 4 steps; deposit and withdraw: acq, r, w, rel.
    CHECK(count(t, ": atomic { /* ") == 12);
    CHECK(count(t, "r(balance)") == 3);
    CHECK(count(t, "w(balance)") == 3);
    // Forked threads wait for the fork at a valid end state; join waits for both ends.
    CHECK(count(t, "end_unforked:") == 2);
    CHECK(t.find("sfg_started[0] = 1; sfg_started[2] = 1") != std::string::npos);
    CHECK(t.find("(sfg_ended[0] && sfg_ended[2])") != std::string::npos);
    CHECK(t.find("ASSERTION_FAILED_line_11") != std::string::npos);
    // The local computation after the read runs in the read's atomic (no separate step).
    CHECK(t.find("l_t = tmp_") != std::string::npos);
}

TEST_CASE("promela: expressions: reads left to right, short-circuit, division by zero") {
    PromelaModel m = emit(R"(
threads a;
var x, y;
program p {
  thread a {
    let r = 0;
    r = x / y;
    if (r != 0 && 10 / r > 1) { skip; }
    r = 1 || x;
    await y != 0 && x / y > 0;
  }
}
)");
    const std::string& t = m.text;
    // r = x / y: two read steps, then the divisor is checked before dividing.
    CHECK(t.find("(tmp_2 == 0)") != std::string::npos);
    CHECK(t.find("DIVISION_BY_ZERO_line_7") != std::string::npos);
    // Local short-circuit: 10 / r only divides when r != 0.
    CHECK(t.find("DIVISION_BY_ZERO_line_8") != std::string::npos);
    CHECK(t.find("((l_r != 0) && (l_r == 0))") != std::string::npos);
    // `1 || x` never reads x: the read is behind a branch on the left operand.
    CHECK(t.find("(!1) ->") != std::string::npos);
    // await: one step whose guard is safe to evaluate; a division by zero enables it too.
    CHECK(t.find("DIVISION_BY_ZERO_line_10") != std::string::npos);
    CHECK(t.find("(v_y != 0 -> v_x / v_y : 0)") != std::string::npos);
}

TEST_CASE("promela: an await on locals only is a guard inside the previous step's atomic") {
    const std::string text =
        emit("threads a; var x;\nprogram p { thread a { x = 1; let r = 1; await r == 1; "
             "await 1; x = 2; } }")
            .text;
    CHECK(count(text, ": await") == 0);  // no event of its own
    CHECK(count(text, "atomic {") == 2); // the two writes' steps
    CHECK(count(text, "(l_r == 1);") == 1);
    CHECK(count(text, "(1);") == 1);
}

TEST_CASE("promela: barriers, volatiles, repeat, deterministic, 32-bit warning") {
    PromelaModel m = emit(R"(
threads p, q;
barrier b(p, q);
volatile flag;
var x;
program bp {
  init x = 5000000000;
  thread p { repeat 2 { barrier b; } deterministic { x = 1; } flag = 1; }
  thread q { repeat 2 { barrier b; } await flag == 1; }
}
)");
    const std::string& t = m.text;
    CHECK(t.find("byte bar_b[2];") != std::string::npos);
    CHECK(t.find("bar_b[0] = (bar_b[0] + 1) % 3") != std::string::npos);
    CHECK(t.find("((bar_b[1] + 3 - bar_b[0]) % 3 != 2)") != std::string::npos);
    CHECK(t.find("int v_flag = 0; /* volatile flag */") != std::string::npos);
    CHECK(t.find("begin deterministic") != std::string::npos);
    CHECK(t.find("end deterministic") != std::string::npos);
    CHECK(t.find("rep_1 < 2") != std::string::npos);
    REQUIRE(m.warnings.size() == 1);
    CHECK(m.warnings[0].find("5000000000") != std::string::npos);
    CHECK(t.find("/* WARNING: line 7: constant 5000000000") != std::string::npos);
}

TEST_CASE("promela: queues as channels of variable ids, as large as their enqs need") {
    // docs/promela.md: enq q x is `q_q!id`, deq q x is `q_q?id` (executable when x is first).
    PromelaModel m = emit(R"(
threads a, b;
queue q, r, idle;
var x, y;
program qp {
  thread a { repeat 3 { enq q x; } if (x == 0) { enq q y; } enq r y; }
  thread b { deq q x; deq r y; }
}
)");
    const std::string& t = m.text;
    CHECK(m.error.empty());
    CHECK(t.find("chan q_q = [4] of { int }; /* queue q") != std::string::npos);
    CHECK(t.find("chan q_r = [1] of { int }; /* queue r") != std::string::npos);
    CHECK(t.find("chan q_idle = [1] of { int }; /* queue idle") != std::string::npos);
    CHECK(t.find("q_q!0;") != std::string::npos);
    CHECK(t.find("q_q!1;") != std::string::npos);
    CHECK(t.find("q_q?0;") != std::string::npos);
    CHECK(t.find("q_r?1;") != std::string::npos);
    CHECK(t.find("/* line 6: enq(q,x) */") != std::string::npos);
    CHECK(t.find("/* line 7: deq(r,y) */") != std::string::npos);
}

TEST_CASE("promela: a queue without a bound is refused, naming the statement or the queue") {
    PromelaModel w = emit("threads a; queue q; var x;\nprogram p { thread a {\n"
                          "  while (x == 0) { x = 1; enq q x; } } }");
    CHECK(w.text.empty());
    CHECK(w.error_loc.line == 3);
    CHECK(w.error_loc.col == 27);
    CHECK(w.error == "cannot export 'enq q x': an enq inside a while loop has no bound, and a "
                     "Spin channel has a fixed capacity");
    PromelaModel big = emit("threads a; queue q; var x;\nprogram p { thread a {\n"
                            "  repeat 16 { repeat 16 { enq q x; } } } }");
    CHECK(big.text.empty());
    CHECK(big.error_loc.line == 1);
    CHECK(big.error == "cannot export queue 'q': it may hold 256 objects, more than a Spin "
                       "channel's 255");
    PromelaModel fits = emit("threads a; queue q; var x;\nprogram p { thread a {\n"
                             "  repeat 15 { repeat 17 { enq q x; } } } }");
    CHECK(fits.error.empty());
    CHECK(fits.text.find("chan q_q = [255]") != std::string::npos);
}

TEST_CASE("promela: Spin's verdicts equal the expected ones") {
    if (!have_tools()) {
        MESSAGE("spin or gcc not installed: Spin cross-check skipped");
        return;
    }
    const Expected cases[] = {
        {"bank_racy", bank_racy, true, false, "ASSERTION_FAILED_line_10"},
        {"bank_locked", bank_locked, false, false, ""},
        {"lock_order", lock_order, false, true, ""},
        {"barrier_ok", barrier_ok, false, false, ""},
        {"barrier_racy", barrier_racy, true, true, "ASSERTION_FAILED_line"},
        {"handshake_ok", handshake_ok, false, false, ""},
        {"handshake_racy", handshake_racy, true, false, "ASSERTION_FAILED_line_7"},
        // Ill-formed ops and division by zero: the failing thread stops, others go on.
        {"rel_not_held", R"(
threads a; lock m;
program p { thread a { rel m; } }
)",
         true, false, "ILL_FORMED_rel_m_line_3"},
        {"acq_held", R"(
threads a; lock m;
program p { thread a { acq m; acq m; } }
)",
         true, false, "ILL_FORMED_acq_m_line_3"},
        {"fork_twice", R"(
threads a, b, c;
program p { thread a { fork c; } thread b { fork c; } thread c { skip; } }
)",
         true, false, "ILL_FORMED_fork_line_3"},
        {"divzero", R"(
threads a; var x;
program p { thread a { let r = 1 / x; } }
)",
         true, false, "DIVISION_BY_ZERO_line_3"},
        // A failed thread keeps its lock: the other one then waits forever.
        {"fail_keeps_lock", R"(
threads a, b; lock m; var x;
program p { thread a { acq m; assert x == 1; rel m; } thread b { acq m; x = 1; rel m; } }
)",
         true, true, "ASSERTION_FAILED_line_3"},
        // A failed thread counts as ended for joins.
        {"fail_counts_as_ended", R"(
threads a, b;
program p { thread a { fork b; join b; } thread b { assert 0; } }
)",
         true, false, "ASSERTION_FAILED_line_3"},
        // Joining a thread that is never forked: ill-formed and a deadlock.
        {"join_never_forked", R"(
threads a, b, c;
program p { thread a { join b; } thread b { skip; } thread c { if (0) { fork b; } } }
)",
         false, true, ""},
        // A thread never forked is not a deadlock; nor is an await on a volatile.
        {"never_forked_ok", R"(
threads a, b; volatile f;
program p { thread a { if (f) { fork b; } f = 1; } thread b { await f == 2; } }
)",
         false, false, ""},
        // An await on locals only is local computation (docs/programs.md): true goes on, false
        // blocks its thread for good (a deadlock), a division by zero is a finding.
        {"local_await_true", R"(
threads a, b; var x;
program p { thread a { let r = 1; await r == 1; await 1; x = 1; } thread b { x = 2; } }
)",
         false, false, ""},
        {"local_await_false", R"(
threads a, b; var x;
program p { thread a { let r = 0; x = 1; await r == 1; x = 3; } thread b { x = 2; } }
)",
         false, true, ""},
        {"local_await_divzero", R"(
threads a; var x;
program p { thread a { let z = 0; await 1 / z; x = 1; } }
)",
         true, false, "DIVISION_BY_ZERO_line_3"},
        // Queues (docs/promela.md): deq waits for its object at the front, FIFO; the hand-off
        // orders the accesses, and a deq whose object stays behind another never returns.
        {"queue_fifo", R"(
threads a, b; queue q; var x, y;
program p { thread a { x = 1; enq q x; enq q y; } thread b { deq q x; deq q y; assert x == 1; } }
)",
         false, false, ""},
        {"queue_wrong_order", R"(
threads a, b; queue q; var x, y;
program p { thread a { enq q x; enq q y; } thread b { deq q y; } }
)",
         false, true, ""},
        {"queue_after_assert", R"(
threads a, b; queue q; var x;
program p { thread a { enq q x; x = 2; } thread b { deq q x; assert x == 0; } }
)",
         true, false, "ASSERTION_FAILED_line_3"},
    };
    for (const Expected& c : cases) {
        const std::string name = c.name;
        CAPTURE(name);
        SpinVerdict v = run_spin(emit(c.text).text, c.name);
        INFO(v.assert_output);
        INFO(v.deadlock_output);
        CHECK(v.assertion == c.assertion);
        CHECK(v.deadlock == c.deadlock);
        if (c.assertion)
            CHECK(v.assert_output.find(c.finding) != std::string::npos);
    }
}

// Spin agrees with our verdicts on the example programs. Ours come from the
// checker itself (naive exploration); programs whose search is incomplete are left out.
TEST_CASE("promela: Spin agrees with the checker on specs/programs") {
    if (!have_tools()) {
        MESSAGE("spin or gcc not installed: Spin cross-check skipped");
        return;
    }
    namespace fs = std::filesystem;
    const fs::path root = fs::path(SFG_SOURCE_DIR) / "specs" / "programs";
    if (!fs::exists(root)) {
        MESSAGE("no specs/programs: skipped");
        return;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.path().extension() == ".sfg")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    int compared = 0;
    for (const fs::path& path : files) {
        const std::string name = path.stem().string();
        CAPTURE(name);
        SourceFile file(path.string(), slurp(path));
        Diagnostics diags;
        std::optional<CompiledSpec> spec = compile_spec(file, diags);
        REQUIRE(spec.has_value());
        for (const ast::Program& p : spec->programs) {
            checker::CheckOptions options;
            options.mode = checker::Mode::dpor; // complete on every example (naive is not on 3.4)
            options.max_executions = 200000;
            checker::CheckResult r = checker::check_model(checker::lower(*spec, p), options);
            if (!r.stats.complete)
                continue;
            bool assertion = false, deadlock = false;
            for (const checker::CheckFinding& f : r.findings) {
                deadlock = deadlock || f.kind == checker::FindingKind::deadlock;
                // A join of a never-forked thread is a deadlock to Spin, not an assertion.
                const bool never_forked = f.message.find("never forked") != std::string::npos;
                assertion = assertion || f.kind == checker::FindingKind::assert_ ||
                            f.kind == checker::FindingKind::divzero ||
                            (f.kind == checker::FindingKind::ill_formed && !never_forked);
            }
            SpinVerdict v = run_spin(emit_promela(*p.body, *spec).text, name + "-" + p.name.name);
            INFO(v.assert_output);
            INFO(v.deadlock_output);
            CHECK(v.assertion == assertion);
            CHECK(v.deadlock == deadlock);
            ++compared;
        }
    }
    MESSAGE("Spin agreed on " << compared << " example programs");
}

// Random hand-offs through queues (random_program.hpp): FIFO order, deqs that wait forever.
TEST_CASE("promela: Spin agrees with the checker on random queue programs") {
    if (!have_tools()) {
        MESSAGE("spin or gcc not installed: Spin cross-check skipped");
        return;
    }
    int deadlocks = 0;
    const std::uint64_t n = checker::test::seeds(30, 10); // a Spin run each: a third by default
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        const std::string text = checker::test::queue_program(seed);
        CAPTURE(text);
        SourceFile file("queue.sfg", text);
        Diagnostics diags;
        std::optional<CompiledSpec> spec = compile_spec(file, diags);
        REQUIRE(spec.has_value());
        const ast::Program& p = spec->programs.at(0);
        checker::CheckOptions options;
        options.max_executions = 200000;
        checker::CheckResult r = checker::check_model(checker::lower(*spec, p), options);
        REQUIRE(r.stats.complete);
        bool deadlock = false;
        for (const checker::CheckFinding& f : r.findings)
            deadlock = deadlock || f.kind == checker::FindingKind::deadlock;
        deadlocks += deadlock;
        SpinVerdict v =
            run_spin(emit_promela(*p.body, *spec).text, "queue-" + std::to_string(seed));
        INFO(v.deadlock_output);
        CHECK_FALSE(v.assertion);
        CHECK(v.deadlock == deadlock);
    }
    MESSAGE("Spin agreed on ", n, " queue programs, ", deadlocks, " with deadlocks");
    CHECK(deadlocks >= checker::test::at_least(5, n, 30));
    CHECK(static_cast<std::uint64_t>(deadlocks) + 2 <= n);
}

// Read-modify-writes (random_program.hpp): one atomic each in Promela, as one step in sfg.
TEST_CASE("promela: Spin agrees with the checker on random read-modify-write programs") {
    if (!have_tools()) {
        MESSAGE("spin or gcc not installed: Spin cross-check skipped");
        return;
    }
    int asserts = 0;
    const std::uint64_t n = checker::test::seeds(30, 8); // a Spin run each: 4/15 by default
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        const std::string text = checker::test::rmw_program(seed);
        CAPTURE(text);
        SourceFile file("rmw.sfg", text);
        Diagnostics diags;
        std::optional<CompiledSpec> spec = compile_spec(file, diags);
        REQUIRE(spec.has_value());
        const ast::Program& p = spec->programs.at(0);
        checker::CheckOptions options;
        options.max_executions = 200000;
        checker::CheckResult r = checker::check_model(checker::lower(*spec, p), options);
        REQUIRE(r.stats.complete);
        bool failed = false, deadlock = false;
        for (const checker::CheckFinding& f : r.findings) {
            failed = failed || f.kind == checker::FindingKind::assert_;
            deadlock = deadlock || f.kind == checker::FindingKind::deadlock;
        }
        asserts += failed;
        SpinVerdict v = run_spin(emit_promela(*p.body, *spec).text, "rmw-" + std::to_string(seed));
        INFO(v.deadlock_output);
        CHECK(v.assertion == failed);
        CHECK(v.deadlock == deadlock);
    }
    MESSAGE("Spin agreed on ", n, " read-modify-write programs, ", asserts, " with failed asserts");
    CHECK(asserts >= checker::test::at_least(6, n, 30));
}

// Condition variables (random_program.hpp): Promela makes the notify's choice of a waiter
// explicitly (docs/promela.md); the checker leaves it to which waiter wakes first. The verdicts
// must agree.
TEST_CASE("promela: Spin agrees with the checker on random condition variable programs") {
    if (!have_tools()) {
        MESSAGE("spin or gcc not installed: Spin cross-check skipped");
        return;
    }
    int deadlocks = 0, asserts = 0;
    const std::uint64_t n = checker::test::seeds(60, 10); // a Spin run each: a sixth by default
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        const std::string text = checker::test::cond_program(seed);
        CAPTURE(text);
        SourceFile file("cond.sfg", text);
        Diagnostics diags;
        std::optional<CompiledSpec> spec = compile_spec(file, diags);
        REQUIRE(spec.has_value());
        const ast::Program& p = spec->programs.at(0);
        checker::CheckOptions options;
        options.max_executions = 200000;
        checker::CheckResult r = checker::check_model(checker::lower(*spec, p), options);
        REQUIRE(r.stats.complete);
        bool assertion = false, deadlock = false;
        for (const checker::CheckFinding& f : r.findings) {
            deadlock = deadlock || f.kind == checker::FindingKind::deadlock;
            assertion = assertion || f.kind == checker::FindingKind::assert_ ||
                        f.kind == checker::FindingKind::ill_formed;
        }
        deadlocks += deadlock;
        asserts += assertion;
        SpinVerdict v = run_spin(emit_promela(*p.body, *spec).text, "cond-" + std::to_string(seed));
        INFO(v.assert_output);
        INFO(v.deadlock_output);
        CHECK(v.assertion == assertion);
        CHECK(v.deadlock == deadlock);
    }
    MESSAGE("Spin agreed on ", n, " condition variable programs, ", deadlocks, " with deadlocks, ",
            asserts, " with failed asserts or ill-formed waits");
    CHECK(deadlocks >= checker::test::at_least(15, n, 60));
    CHECK(asserts >= checker::test::at_least(4, n, 60));
}

TEST_SUITE_END();
