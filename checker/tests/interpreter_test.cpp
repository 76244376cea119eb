// Interpreter semantics (docs/programs.md).
#include "support.hpp"

#include "sfg/checker/explore.hpp"
#include "sfg/checker/report.hpp"

#include <limits>
#include <map>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {
// Final value of shared variable `var` in the single execution of a one-thread program.
std::int64_t final_value(const std::string& body, const std::string& var = "x") {
    auto l = load("threads t; var x, y; volatile v;\nprogram p { thread t { " + body + " } }");
    REQUIRE(l);
    Interpreter in(l->model);
    State s;
    std::vector<ThreadId> sched(100000, 0);
    replay(in, sched, &s);
    for (std::size_t i = 0; i < l->model.shared.size(); ++i)
        if (l->model.shared[i].name == var)
            return s.shared[i];
    FAIL("no var");
    return 0;
}

// The ops of the first `steps` steps of thread 0, as reports spell them.
std::vector<std::string> ops_of(const Model& m, std::size_t steps) {
    Interpreter in(m);
    std::vector<std::string> ops;
    for (const Step& s : replay(in, std::vector<ThreadId>(steps, 0)))
        for (const Action& a : s.actions)
            ops.push_back(op_text(m, a));
    return ops;
}
} // namespace

TEST_CASE("arithmetic: 64-bit wrapping, C precedence, truncating division") {
    CHECK(final_value("x = 1 + 2 * 3 - 4 / 2;") == 5);
    CHECK(final_value("x = -7 / 2;") == -3);
    CHECK(final_value("x = -7 % 2;") == -1);
    CHECK(final_value("x = 9223372036854775807 + 1;") == std::numeric_limits<std::int64_t>::min());
    CHECK(final_value("let a = -9223372036854775807 - 1; x = a / -1;") ==
          std::numeric_limits<std::int64_t>::min());
    CHECK(final_value("x = 1 < 2 == 1;") == 1);
    CHECK(final_value("x = !0 + !5;") == 1);
    CHECK(final_value("repeat 3 { x = x + 2; }") == 6);
    CHECK(final_value("let i = 0; while (i < 4) { i = i + 1; } x = i;") == 4);
    CHECK(final_value("if (0) { x = 1; } else if (1) { x = 2; } else { x = 3; }") == 2);
    CHECK(final_value("write x; x = 5; write x;") == 5);
}

TEST_CASE("each shared occurrence is one read, left to right; && and || short-circuit") {
    auto l = load("threads t; var x, y;\nprogram p { thread t { let a = x + y + x; "
                  "let b = 0 && x; let c = 1 || y; let d = 1 && y; } }");
    REQUIRE(l);
    const std::vector<std::string> ops = ops_of(l->model, 100);
    CHECK(ops == std::vector<std::string>{"r(x)", "r(y)", "r(x)", "r(y)"});
}

TEST_CASE("volatile accesses carry the value written or read; data accesses carry none") {
    // Thesis §5.1: a value label v==K waits for vw(v=K) / vr(v=K) (docs/traces.md).
    auto l = load("threads t; var x; volatile v;\nprogram p { thread t { v = 3; let a = v; "
                  "write v; read v; await v == 3; v = -2; x = a; let b = x; } }");
    REQUIRE(l);
    const std::vector<std::string> ops = ops_of(l->model, 100);
    CHECK(ops == std::vector<std::string>{"vw(v=3)", "vr(v=3)", "vw(v=3)", "vr(v=3)", "vr(v=3)",
                                          "vw(v=-2)", "w(x)", "r(x)"});
}

TEST_CASE("read-modify-writes: one step each, vr(v=old) then vw(v=new); a failed cas reads") {
    // docs/programs.md: xchg and fadd give the old value, cas 1 when it swapped; operands are
    // evaluated first (their shared reads are steps of their own).
    auto l = load("threads t; var x; volatile v;\nprogram p { thread t { v = 5; "
                  "let a = xchg v 7; let b = fadd v -9; let c = cas v 3 x + 4; "
                  "let d = cas v -2 a; x = fadd v a + b + c + d; } }");
    REQUIRE(l);
    Interpreter in(l->model);
    std::vector<std::string> ops;
    std::vector<std::size_t> sizes;
    for (const Step& st : replay(in, std::vector<ThreadId>(100, 0))) {
        sizes.push_back(st.actions.size());
        for (const Action& a : st.actions)
            ops.push_back(op_text(l->model, a));
    }
    // a = 5 (v = 7), b = 7 (v = -2), cas v 3 4 fails (c = 0), cas v -2 5 swaps (d = 1),
    // x = fadd v 13: x = 5, v = 18.
    CHECK(ops == std::vector<std::string>{"vw(v=5)", "vr(v=5)", "vw(v=7)", "vr(v=7)", "vw(v=-2)",
                                          "r(x)", "vr(v=-2)", "vr(v=-2)", "vw(v=5)", "vr(v=5)",
                                          "vw(v=18)", "w(x)"});
    CHECK(sizes == std::vector<std::size_t>{1, 2, 2, 1, 1, 2, 2, 1});
    CHECK(final_value("v = 5; let a = xchg v 7; let b = fadd v -9; let c = cas v 3 x + 4; "
                      "let d = cas v -2 a; x = fadd v a + b + c + d;") == 5);
    CHECK(final_value("v = 5; let a = xchg v 7; let b = fadd v -9; let c = cas v 3 x + 4; "
                      "let d = cas v -2 a; x = fadd v a + b + c + d;",
                      "v") == 18);
    // fadd wraps like every 64-bit operation.
    CHECK(final_value("v = 9223372036854775807; let a = fadd v 1; x = a;", "v") ==
          std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("condition variables: a notify wakes any one waiter; a lost notify is a deadlock") {
    // docs/programs.md, "Condition variables": `wait c m;` is rel(m) then, once notified and m
    // is free, acq(m); a notify with no waiter is lost.
    auto two = load("threads p, a, b; lock m; cond c; var x;\nprogram q {\n"
                    "  thread p { acq m; notify c; rel m; }\n"
                    "  thread a { acq m; wait c m; x = 1; rel m; }\n"
                    "  thread b { acq m; wait c m; x = 2; rel m; }\n}\n");
    REQUIRE(two);
    const CheckResult r = run(two->model, Mode::naive);
    // Either waiter may be the one woken (x is 1 or 2), or the notify comes before both waits
    // or between them; one waiter is left waiting in every execution.
    CHECK(r.final_states == 3); // x = 0 (lost), 1, 2
    CHECK(has(r, FindingKind::deadlock));
    REQUIRE(!r.findings.empty());
    bool waits = false;
    for (const CheckFinding& f : r.findings)
        waits = waits || f.message.find("wait(c), not notified") != std::string::npos;
    CHECK(waits);

    auto all = load("threads p, a, b; lock m; cond c; var x;\nprogram q {\n"
                    "  thread p { await x == 2; acq m; notifyall c; rel m; }\n"
                    "  thread a { acq m; x = x + 1; wait c m; rel m; }\n"
                    "  thread b { acq m; x = x + 1; wait c m; rel m; }\n}\n");
    REQUIRE(all);
    const CheckResult ra = run(all->model, Mode::naive);
    // p takes m only once both waits let it go: its notifyall wakes both (the await's read of
    // x races with their writes, and that is all).
    CHECK_FALSE(has(ra, FindingKind::deadlock));
    CHECK(has(ra, FindingKind::race));

    auto bad = load("threads t; lock m; cond c;\nprogram q { thread t { wait c m; } }\n");
    REQUIRE(bad);
    const CheckResult rb = run(bad->model, Mode::naive);
    CHECK(has(rb, FindingKind::ill_formed)); // a wait is a rel(m): m must be held
}

TEST_CASE("failures stop only the failing thread, which counts as ended and keeps its locks") {
    auto l = load("threads a, b, main; lock m; var x;\nprogram p {\n"
                  " thread main { fork a, b; join a, b; x = 1; }\n"
                  " thread a { acq m; assert 0; }\n"
                  " thread b { x = 1 / 0; }\n}");
    REQUIRE(l);
    CheckResult r = run(l->model);
    CHECK(has(r, FindingKind::assert_));
    CHECK(has(r, FindingKind::divzero));
    CHECK_FALSE(has(r, FindingKind::deadlock)); // main's join sees a and b as ended
}

TEST_CASE("ill-formed ops: releasing a lock not held, re-acquiring, forking twice, joining a "
          "thread never forked") {
    auto rel = load("threads t; lock m;\nprogram p { thread t { rel m; } }");
    CHECK(has(run(rel->model), FindingKind::ill_formed));
    auto acq = load("threads t; lock m;\nprogram p { thread t { acq m; acq m; } }");
    CHECK(has(run(acq->model), FindingKind::ill_formed));
    auto fork2 = load("threads t, u;\nprogram p { thread t { fork u; fork u; } }");
    CHECK(has(run(fork2->model), FindingKind::ill_formed));
    auto never = load("threads t, u, w;\nprogram p { thread t { join u; } thread w { if (0) { "
                      "fork u; } } }");
    CheckResult r = run(never->model);
    CHECK(has(r, FindingKind::ill_formed));
    CHECK(has(r, FindingKind::deadlock));
}

TEST_CASE("barriers are reusable; await is one step; deadlocks say who waits for what") {
    auto l =
        load("threads a, b; barrier bb(a, b); var x, y;\nprogram p {\n"
             " thread a { x = x + 1; barrier bb; let r = y; barrier bb; x = r; barrier bb; }\n"
             " thread b { y = y + 1; barrier bb; let r = x; barrier bb; y = r; barrier bb; }\n}");
    REQUIRE(l);
    CheckResult r = run(l->model);
    CHECK(r.findings.empty());
    CHECK(r.final_states == 1);
    auto d = load("threads a, b; lock m, n;\nprogram p { thread a { acq m; acq n; } "
                  "thread b { acq n; acq m; } }");
    CheckResult rd = run(d->model);
    REQUIRE(has(rd, FindingKind::deadlock));
    for (const CheckFinding& f : rd.findings)
        if (f.kind == FindingKind::deadlock)
            CHECK(f.message.find("held by") != std::string::npos);
    auto w = load("threads a; volatile v;\nprogram p { thread a { await v == 1; } }");
    CHECK(has(run(w->model), FindingKind::deadlock));
}

TEST_CASE("bounds are findings, never silent") {
    auto l = load("threads a; var x;\nprogram p { thread a { while (1) { x = x + 1; } } }");
    CheckOptions o;
    o.max_steps = 50;
    CheckResult r = check_model(l->model, o);
    CHECK(has(r, FindingKind::bound));
    CHECK_FALSE(r.stats.complete);
    auto spin = load("threads a; var x;\nprogram p { thread a { while (1) { skip; } } }");
    CheckResult rs = run(spin->model);
    CHECK(has(rs, FindingKind::bound));
    auto many = load("threads a, b; var x, y;\nprogram p { thread a { x = 1; x = 2; } "
                     "thread b { y = 1; y = 2; } }");
    CheckResult rm = run(many->model, Mode::naive, 3);
    CHECK(has(rm, FindingKind::bound));
    CHECK_FALSE(rm.stats.complete);
}

TEST_CASE("classes: independent steps commute (Foata normal form)") {
    auto l = load("threads a, b; var x, y;\nprogram p { thread a { x = 1; x = 2; } "
                  "thread b { y = 1; y = 2; } }");
    CheckResult r = run(l->model);
    CHECK(r.stats.executions == 6);
    CHECK(r.classes == 1);
    auto c = load("threads a, b; var x;\nprogram p { thread a { x = 1; } thread b { x = 2; } }");
    CHECK(run(c->model).classes == 2);
}

TEST_CASE("init gives shared variables their values, negative ones too") {
    auto l = load("threads t; var x, y;\nprogram p { init x = -5; init y = 7; thread t { } }");
    REQUIRE(l);
    Interpreter in(l->model);
    State s;
    std::vector<ThreadId> sched(10, 0);
    replay(in, sched, &s);
    std::map<std::string, std::int64_t> values;
    for (std::size_t i = 0; i < l->model.shared.size(); ++i)
        values[l->model.shared[i].name] = s.shared[i];
    CHECK(values["x"] == -5); // the sign was read from the wrong token: x was 5
    CHECK(values["y"] == 7);
}

TEST_CASE("queues: enq appends, deq waits for its object at the front (FIFO)") {
    // docs/programs.md, thesis §5.1 q(o): events enq(q,o) / deq(q,o) naming the queue and object.
    auto l = load("threads a; queue q, r; var x, y;\nprogram p { thread a { enq q x; enq r y; "
                  "enq q y; deq q x; deq r y; deq q y; } }");
    REQUIRE(l);
    const std::vector<std::string> ops = ops_of(l->model, 6);
    CHECK(ops == std::vector<std::string>{"enq(q,x)", "enq(r,y)", "enq(q,y)", "deq(q,x)",
                                          "deq(r,y)", "deq(q,y)"});
    CHECK(run(l->model).findings.empty());

    // b waits for y behind x, which nobody takes: a deadlock naming the front.
    auto d = load("threads a, b; queue q; var x, y;\nprogram p {\n thread a { enq q x; enq q y; }\n"
                  " thread b { deq q y; }\n}");
    REQUIRE(d);
    CheckResult rd = run(d->model);
    REQUIRE(has(rd, FindingKind::deadlock));
    for (const CheckFinding& f : rd.findings)
        if (f.kind == FindingKind::deadlock) {
            CHECK(f.line() == 4u);
            CHECK(f.message.find("deq(q,y), x first in q") != std::string::npos);
        }
    // An empty queue: the wait says so; the queue's contents are not in final states.
    auto e = load("threads a, b; queue q; var x;\nprogram p {\n thread a { x = 1; }\n"
                  " thread b { deq q x; }\n}");
    REQUIRE(e);
    CheckResult re = run(e->model);
    REQUIRE(has(re, FindingKind::deadlock));
    for (const CheckFinding& f : re.findings)
        if (f.kind == FindingKind::deadlock)
            CHECK(f.message.find("deq(q,x), q is empty") != std::string::npos);
    auto left = load("threads a; queue q; var x;\nprogram p { thread a { x = 1; enq q x; } }");
    REQUIRE(left);
    CheckResult rl = run(left->model);
    CHECK(rl.findings.empty());
    CHECK(rl.final_states == 1);
}

TEST_CASE("queues: enq -> deq orders accesses (no race); taking the object late is a race") {
    // Happens-before of docs/traces.md: every enq(q,o) before every later deq(q,o).
    auto ok = load("threads a, b; queue q; var x;\nprogram p { thread a { x = 1; enq q x; } "
                   "thread b { deq q x; x = 2; } }");
    REQUIRE(ok);
    CHECK(run(ok->model).findings.empty());
    auto racy = load("threads a, b; queue q; var x;\nprogram p { thread a { enq q x; x = 1; } "
                     "thread b { deq q x; x = 2; } }");
    REQUIRE(racy);
    CHECK(has(run(racy->model), FindingKind::race));
}

TEST_CASE("queues: enq and deq are statement words only where a statement starts") {
    // docs/programs.md: elsewhere they are names, of a variable, a local or even the object.
    auto l = load("threads a; queue q; var enq;\nprogram p { thread a { enq = 1; enq q enq; "
                  "let deq = enq + 1; deq q enq; deq = deq * 2; enq = deq; } }");
    REQUIRE(l);
    const std::vector<std::string> ops = ops_of(l->model, 10);
    CHECK(ops ==
          std::vector<std::string>{"w(enq)", "enq(q,enq)", "r(enq)", "deq(q,enq)", "w(enq)"});
    CheckResult r = run(l->model);
    CHECK(r.findings.empty());
    CHECK(r.final_states == 1);
}

TEST_CASE("an await on locals only is local computation: no step, no scheduling point") {
    // docs/programs.md, "Step semantics": `await 1;` and an await that reads only locals do not
    // change a program's executions, in any mode; a read of an unused variable in their place
    // is one more scheduling point (what such an await used to cost).
    const std::string head = "threads a, b; var x, y, z;\nprogram p {\n";
    const std::string b = " thread b { x = 2; y = 2; let s = x; }\n}";
    auto plain = load(head + " thread a { x = 1; y = 1; let r = y; }\n" + b);
    auto awaits = load(head + " thread a { await 1; x = 1; let q = 1; await q == 1 && 2 > q; " +
                       "y = 1; let r = y; await r + 1 != r; }\n" + b);
    auto step = load(head + " thread a { read z; x = 1; y = 1; let r = y; }\n" + b);
    REQUIRE(plain);
    REQUIRE(awaits);
    REQUIRE(step);
    for (Mode mode : {Mode::naive, Mode::dpor, Mode::random}) {
        CAPTURE(to_string(mode));
        CheckResult p = run(plain->model, mode, 1000, 7), w = run(awaits->model, mode, 1000, 7);
        CHECK(w.stats.executions == p.stats.executions);
        CHECK(w.classes == p.classes);
        CHECK(w.final_states == p.final_states);
        CHECK(w.findings.size() == p.findings.size());
    }
    const std::uint64_t naive = run(plain->model).stats.executions;
    CHECK(run(step->model).stats.executions > naive);
    // On several threads and in parts, the same counts.
    CheckOptions o;
    o.mode = Mode::naive;
    o.jobs = 2;
    o.task_budget = 8;
    CHECK(check_model(awaits->model, o).stats.executions == naive);
    std::uint64_t in_parts = 0;
    o.split_above = 1;
    o.shard_count = 2;
    for (o.shard_index = 1; o.shard_index <= 2; ++o.shard_index)
        in_parts += check_model(awaits->model, o).stats.executions;
    CHECK(in_parts == naive);
    // The thread's steps are its accesses alone.
    CHECK(ops_of(awaits->model, 10) == std::vector<std::string>{"w(x)", "w(y)", "r(y)"});
}

TEST_CASE("a false await on locals stops its thread for good: a deadlock at its line") {
    auto l = load("threads a, b; var x;\nprogram p {\n thread a { let r = 0; x = 1;\n"
                  "  await r == 1; x = 3; }\n thread b { x = 2; }\n}");
    REQUIRE(l);
    for (Mode mode : {Mode::naive, Mode::dpor}) {
        CheckResult r = run(l->model, mode);
        CHECK(r.stats.executions == 2); // a's write and b's, in either order
        REQUIRE(has(r, FindingKind::deadlock));
        for (const CheckFinding& f : r.findings)
            if (f.kind == FindingKind::deadlock) {
                CHECK(f.line() == 4u);
                CHECK(f.message ==
                      "deadlock: a waits at line 4: await at line 4 (condition false)");
            }
    }
    // Alone, at its start: no step at all, still a deadlock.
    auto alone = load("threads a; var x;\nprogram p { thread a { await 0; x = 1; } }");
    REQUIRE(alone);
    CheckResult ra = run(alone->model);
    CHECK(ra.stats.executions == 1);
    CHECK(has(ra, FindingKind::deadlock));
    // Dividing by zero is a finding of the thread's local computation.
    auto dz = load("threads a; var x;\nprogram p { thread a { let z = 0; await 1 / z; x = 1; } }");
    REQUIRE(dz);
    CheckResult rz = run(dz->model);
    CHECK(has(rz, FindingKind::divzero));
    CHECK_FALSE(has(rz, FindingKind::deadlock));
}
