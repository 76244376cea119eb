// A generator of random small programs (docs/programs.md), shared with the DPOR tests: 2-3
// threads of 1-4 statements over two variables, a volatile, two locks and a barrier, with
// forks/joins, awaits and assertions. Locks are always released in the same statement group, so
// most programs end; deadlocks and failures still happen and are findings like the rest.
#pragma once

#include <random>
#include <string>
#include <vector>

namespace sfg::checker::test {

inline std::string random_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* vars[] = {"x", "y", "v"};
    const char* locks[] = {"m", "n"};
    int threads = 2 + pick(2);
    std::string s = "threads t0, t1, t2;\nlock m, n;\nvolatile v;\nbarrier b(t0, t1);\nvar x, y";
    s += pick(2) ? " : [EX(t0) ⊔ EX(t1) ⊔ EX(t2)]^m;\n" : ";\n";
    s += "program p {\n";
    bool fork_t2 = threads == 3 && pick(2);
    bool barrier = pick(3) == 0;
    for (int t = 0; t < threads; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        if (t == 0 && fork_t2)
            s += " fork t2;";
        if (t < 2 && barrier)
            s += " barrier b;";
        int n = 1 + pick(4);
        for (int i = 0; i < n; ++i) {
            std::string v = vars[pick(3)];
            std::string w = vars[pick(3)];
            switch (pick(7)) {
            case 0:
                s += " " + v + " = " + w + " + " + std::to_string(pick(3)) + ";";
                break;
            case 1:
                s += " let r" + std::to_string(i) + " = " + v + ";";
                break;
            case 2: {
                std::string m = locks[pick(2)];
                s += " acq " + m + "; " + v + " = " + std::to_string(pick(3)) + "; rel " + m + ";";
                break;
            }
            case 3:
                s += " assert " + v + " != " + std::to_string(1 + pick(2)) + " || " + w + " == 0;";
                break;
            case 4:
                s += " await v < " + std::to_string(1 + pick(2)) + ";";
                break;
            case 5:
                s += " read " + v + ";";
                break;
            default:
                s += " v = " + std::to_string(pick(3)) + "; if (x == 1) { y = 2 / v; }";
                break;
            }
        }
        if (t == 0 && fork_t2 && pick(2))
            s += " join t2;";
        s += " }\n";
    }
    s += "}\n";
    return s;
}

// More blocking than random_program(): 2-4 threads (t2, t3 forked by t0 when used, joined or
// not), nested locks in random orders (deadlocks), awaits on volatiles and on data variables
// with && and || (short-circuit reads), awaits on locals (local computation), a barrier of t0 and
// t1 crossed a random number of times, volatile hand-offs, failures (assert, division by zero, rel
// without acq), and x, y annotated with one of several disciplines so that the Enforcer has work.
inline std::string blocking_program(std::uint64_t seed, bool* multi_var_await) {
    std::mt19937_64 rng(seed * 7919 + 13);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* vars[] = {"x", "y", "z", "v", "u"};
    const char* locks[] = {"m", "n"};
    const char* disc[] = {
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^m",
        "EX(t0) ▷^v EX(t1) ▷^v EX(t0)",
        "[RS(t0, t1) ▷^b EX(t0)]^b",
        "EX(t0) ▷^fork EX(t2) ▷^join EX(t0)",
        "[EX(t0) ⊔ EX(t1)]^m ▷^n [EX(t0) ⊔ EX(t1)]^n",
        "RS(t0, t1, t2, t3)",
    };
    int threads = 2 + pick(3);
    std::string s = "threads t0, t1, t2, t3;\nlock m, n;\nvolatile v, u;\nbarrier b(t0, t1);\n";
    s += std::string("var x : ") + disc[pick(6)] + ";\n";
    s += std::string("var y : ") + disc[pick(6)] + ";\nvar z;\n";
    s += "program p {\n";
    if (pick(3) == 0)
        s += "  init x = 1;\n";
    bool forks = threads > 2;
    int crossings = pick(4) == 0 ? 1 + pick(2) : 0;
    *multi_var_await = false;
    int budget = 9 + pick(4); // visible steps, roughly: keeps naive exploration small
    // The objects put into each queue so far, in text order: a deq mostly takes one of them (the
    // first), so that most programs have executions that do not deadlock.
    std::vector<std::string> pending[2];
    for (int t = 0; t < threads; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        if (t == 0 && forks) {
            s += threads == 4 && pick(2) ? " fork t2, t3;"
                 : threads == 4          ? " fork t2; fork t3;"
                                         : " fork t2;";
            --budget;
        }
        int n = 1 + pick(3);
        for (int i = 0; i < n && budget > 0; ++i) {
            std::string a = vars[pick(5)], c = vars[pick(5)];
            std::string k = std::to_string(pick(3));
            switch (pick(13)) {
            case 0:
                s += " " + a + " = " + c + " + " + k + ";";
                budget -= 2;
                break;
            case 1: // a third of them then await on that local: no step, maybe stuck for good
                s += " let r" + std::to_string(i) + " = " + a + ";";
                if (k == "0")
                    s += " await r" + std::to_string(i) + " < 1;";
                budget -= 1;
                break;
            case 2: {
                std::string l = locks[pick(2)];
                s += " acq " + l + "; " + a + " = " + k + "; rel " + l + ";";
                budget -= 3;
                break;
            }
            case 3: {
                int first = pick(2);
                std::string l1 = locks[first], l2 = locks[1 - first];
                s += " acq " + l1 + "; acq " + l2 + "; write " + a + "; rel " + l2 + "; rel " + l1 +
                     ";";
                budget -= 5;
                break;
            }
            case 4:
                s += " assert " + a + " != " + std::to_string(1 + pick(2)) + " || " + c + " == 0;";
                budget -= 2;
                break;
            case 5:
                s += " await v < " + std::to_string(1 + pick(2)) + ";";
                budget -= 1;
                break;
            case 6:
                *multi_var_await = true;
                s += pick(2) ? " await x == 1 || y == 0;" : " await v + x > 0 && u == 0;";
                budget -= 2;
                break;
            case 7:
                s += pick(2) ? " read " + a + ";" : " write " + a + ";";
                budget -= 1;
                break;
            case 8:
                s += std::string(" ") + (pick(2) ? "v" : "u") + " = " + k + ";";
                budget -= 1;
                break;
            case 9:
                s += " v = " + k + "; if (x == 1) { y = 2 / v; }";
                budget -= 3;
                break;
            case 10:
                s += pick(4) == 0 ? " rel m;" : " deterministic { " + a + " = 1; }";
                budget -= 3;
                break;
            case 11:
                s += " acq m; let w" + std::to_string(i) + " = x; x = w" + std::to_string(i) +
                     " + 1; rel m;";
                budget -= 4;
                break;
            default:
                s += " repeat 2 { " + a + " = 1; }";
                budget -= 2;
                break;
            }
        }
        if (t < 2)
            for (int k = 0; k < crossings; ++k)
                s += " barrier b; write x;";
        if (t == 0 && forks && pick(3) != 0)
            s += threads == 4 && pick(2) ? " join t2, t3;" : " join t2;";
        s += " }\n";
    }
    s += "}\n";
    return s;
}

// Programs of 2-4 threads that cross barrier b (all of them) 1-3 times, with accesses between
// the crossings to variables annotated with barrier disciplines (the thesis' Figure 4.5 and
// others), a lock, a volatile, asserts, sometimes a second barrier of two threads, a
// deterministic block around a round, a thread forked late, or one crossing missing (a
// deadlock).
inline std::string barrier_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed * 104729 + 7);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const int k = 2 + pick(3), rounds = 1 + pick(3);
    std::string all;
    for (int t = 0; t < k; ++t)
        all += (t ? ", t" : "t") + std::to_string(t);
    const std::string disc[] = {
        "[RS(" + all + ") ▷^b EX(t0)]^b",
        "[EX(t0) ⊔ EX(t1)]^b",
        "EX(t0) ▷^b RS(" + all + ") ▷^b EX(t1)",
        "[EX(t0) ⊔ EX(t1) ⊔ RS(" + all + ")]^b",
        "[EX(t0) ⊔ EX(t1)]^m",
        "RS(" + all + ")",
    };
    std::string s =
        "threads " + all + ";\nlock m;\nvolatile v;\nbarrier b(" + all + ");\nbarrier c(t0, t1);\n";
    s += "var x : " + disc[pick(6)] + ";\nvar y : " + disc[pick(6)] + ";\nvar z;\n";
    s += "program p {\n";
    // Keep naive exploration small: fewer statements when there are more threads and rounds.
    const int per_round = k * rounds >= 6 ? 1 : 2;
    const int short_thread = pick(8) == 0 ? pick(k) : -1; // crosses b once less: deadlock
    const bool late = k >= 3 && pick(4) == 0;             // t0 forks the last thread
    const bool second = pick(4) == 0;                     // t0 and t1 also cross c
    const int block = pick(3) == 0 ? pick(k) : -1;        // a deterministic round
    const char* vars[] = {"x", "y", "z"};
    for (int t = 0; t < k; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        if (t == 0 && late)
            s += " fork t" + std::to_string(k - 1) + ";";
        const int crossings = rounds - (t == short_thread ? 1 : 0);
        for (int r = 0; r < crossings; ++r) {
            const bool det = t == block && r == 0;
            if (det)
                s += " deterministic {";
            for (int i = 0, n = pick(per_round + 1); i < n; ++i) {
                std::string a = vars[pick(3)], o = vars[pick(3)];
                switch (pick(8)) {
                case 0:
                    s += " " + a + " = " + std::to_string(r + t) + ";";
                    break;
                case 1:
                    s += " read " + a + ";";
                    break;
                case 2:
                    s += " " + a + " = " + o + " + 1;";
                    break;
                case 3:
                    s += " acq m; " + a + " = " + std::to_string(t) + "; rel m;";
                    break;
                case 4:
                    s += " v = " + std::to_string(r) + ";";
                    break;
                case 5:
                    s += " assert " + a + " != " + std::to_string(1 + pick(2)) + ";";
                    break;
                case 6:
                    s += " let l" + std::to_string(r) + std::to_string(i) + " = v;";
                    break;
                default:
                    s += " write " + a + ";";
                    break;
                }
            }
            s += " barrier b;";
            if (det)
                s += " }";
            if (second && t < 2 && r == 0)
                s += " barrier c;";
        }
        if (pick(2))
            s += std::string(" read ") + vars[pick(3)] + ";";
        s += " }\n";
    }
    return s + "}\n";
}

// Programs of 2-4 threads that hand objects over through queues q and r (thesis §5.1, q(o)):
// enq and deq of x, y, z in random orders (a deq whose object never comes, or comes behind
// another, blocks: deadlocks), accesses before and after taking an object, a lock, awaits on a
// volatile, a thread forked and joined, x and y annotated with queue hand-offs so that the
// Enforcer has work.
inline std::string queue_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed * 6007 + 3);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* objects[] = {"x", "y", "z"};
    const char* queues[] = {"q", "r"};
    const char* disc[] = {
        "EX(t0) ▷^q [EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^q",
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^q",
        "EX(t0) ▷^r EX(t1) ▷^q EX(t2)",
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^m",
    };
    const int threads = 2 + pick(3);
    std::string s = "threads t0, t1, t2, t3;\nlock m;\nvolatile v;\nqueue q, r;\n";
    s += std::string("var x : ") + disc[pick(4)] + ";\n";
    s += std::string("var y : ") + disc[pick(4)] + ";\nvar z;\n";
    s += "program p {\n";
    const bool forks = threads > 2 && pick(2);
    int budget = 9 + pick(4); // visible steps, roughly: keeps naive exploration small
    // The objects put into each queue so far, in text order: a deq mostly takes one of them (the
    // first), so that most programs have executions that do not deadlock.
    std::vector<std::string> pending[2];
    for (int t = 0; t < threads; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        if (t == 0 && forks) {
            s += " fork t2;";
            --budget;
        }
        const int n = 1 + pick(4);
        for (int i = 0; i < n && budget > 0; ++i) {
            const int qi = pick(4) == 0 ? 1 : 0;
            const std::string q = queues[qi];
            std::string o = objects[pick(3)];
            // A deq's object: the first one still pending in q, nine times out of ten.
            auto taken = [&] {
                auto& p = pending[qi];
                if (!p.empty() && pick(10) != 0) {
                    o = p.front();
                    p.erase(p.begin());
                }
            };
            switch (pick(9)) {
            case 0:
            case 1:
                s += " " + o + " = " + std::to_string(pick(3)) + "; enq " + q + " " + o + ";";
                pending[qi].push_back(o);
                budget -= 2;
                break;
            case 2:
            case 3:
                taken();
                s += " deq " + q + " " + o + "; " + o + " = " + o + " + 1;";
                budget -= 3;
                break;
            case 4:
                taken();
                s += " deq " + q + " " + o + "; enq " + q + " " + o + ";";
                pending[qi].push_back(o);
                budget -= 2;
                break;
            case 5:
                s += " read " + o + ";";
                budget -= 1;
                break;
            case 6:
                s += " acq m; " + o + " = 1; rel m;";
                budget -= 3;
                break;
            case 7:
                s += pick(2) ? " v = 1;" : " await v == 1;";
                budget -= 1;
                break;
            default:
                s += " enq " + q + " " + o + ";";
                pending[qi].push_back(o);
                budget -= 1;
                break;
            }
        }
        if (t == 0 && forks && pick(2))
            s += " join t2;";
        s += " }\n";
    }
    s += "}\n";
    return s;
}

// Programs of 2-3 threads around atomic read-modify-writes of volatiles v and u
// (docs/programs.md): xchg, fadd and cas with literal and computed operands, results into locals
// and data variables, a try-lock made of `cas v 0 1` guarding x, hand-offs of y through the value
// of u, awaits on v, asserts on the results; x and y annotated with disciplines that the
// read-modify-writes' vr/vw events take part in (volatile and value edges), so that the Enforcer
// has work.
inline std::string rmw_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed * 3571 + 11);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* disc[] = {
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2)]^v",
        "EX(t0) ▷^(u == 1) EX(t1) ▷^(u == 2) EX(t2)",
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2)]^m",
        "RS(t0, t1, t2)",
    };
    const int threads = 2 + pick(2);
    std::string s = "threads t0, t1, t2;\nlock m;\nvolatile v, u;\n";
    s += std::string("var x : ") + disc[pick(4)] + ";\n";
    s += std::string("var y : ") + disc[pick(4)] + ";\n";
    s += "program p {\n";
    if (pick(3) == 0)
        s += "  init v = 1;\n";
    for (int t = 0; t < threads; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        const int n = 1 + pick(3);
        for (int i = 0; i < n; ++i) {
            const std::string r = "r" + std::to_string(i), k = std::to_string(pick(3));
            const char* vol = pick(3) ? "v" : "u";
            switch (pick(9)) {
            case 0:
                s += " let " + r + " = xchg " + vol + " " + k + ";";
                break;
            case 1:
                s += " let " + r + " = fadd " + vol + " " + std::to_string(pick(3) - 1) + ";";
                break;
            case 2: // a try-lock: the cas that takes v from 0 to 1 owns x until v = 0
                s += " let " + r + " = cas v 0 1; if (" + r + " == 1) { x = x + 1; v = 0; }";
                break;
            case 3: // a computed operand: its read is a step of its own, before the cas
                s += " let " + r + " = cas " + vol + " " + k + " x + 1;";
                break;
            case 4: // the hand-off of y through u's value: the writer publishes with fadd
                s += " y = " + k + "; let " + r + " = fadd u 1;";
                break;
            case 5:
                s += " x = xchg v " + k + ";";
                break;
            case 6:
                s += " await v < " + std::to_string(1 + pick(2)) + "; read y;";
                break;
            case 7:
                s += " let " + r + " = fadd v 1; assert " + r +
                     " != " + std::to_string(1 + pick(2)) + ";";
                break;
            default:
                s += " " + std::string(vol) + " = " + k + ";";
                break;
            }
        }
        s += " }\n";
    }
    s += "}\n";
    return s;
}

// Programs of 2-4 threads around condition variables c and d of lock m (docs/programs.md,
// "Condition variables"): waiters that wait in a loop until a flag is set (or, sometimes, only
// once, under an `if`: a lost wake-up when the notify came first), notifiers that set a flag
// and notify or notifyall (under m or after letting it go), hand-offs of x through m, a wait
// without holding m (ill-formed), asserts on what a woken thread sees.
inline std::string cond_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed * 2713 + 5);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    const char* disc[] = {
        "[EX(t0) ⊔ EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^m",
        "EX(t0) ▷^m [EX(t1) ⊔ EX(t2) ⊔ EX(t3)]^m",
        "RS(t0, t1, t2, t3)",
    };
    const int threads = 2 + pick(3);
    std::string s = "threads t0, t1, t2, t3;\nlock m;\ncond c, d;\n";
    s += std::string("var x : ") + disc[pick(3)] + ";\nvar f, g;\n";
    s += "program p {\n";
    for (int t = 0; t < threads; ++t) {
        s += "  thread t" + std::to_string(t) + " {";
        const int n = 1 + pick(2);
        for (int i = 0; i < n; ++i) {
            const char* cv = pick(3) ? "c" : "d";
            const char* flag = cv[0] == 'c' ? "f" : "g";
            switch (pick(t == 0 ? 4 : 7)) {
            case 0: // a notifier under m
                s += std::string(" acq m; x = ") + std::to_string(1 + pick(3)) + "; " + flag +
                     " = 1; " + (pick(3) ? "notify " : "notifyall ") + cv + "; rel m;";
                break;
            case 1: // a notifier after letting m go
                s += std::string(" acq m; ") + flag + " = 1; rel m; " +
                     (pick(2) ? "notify " : "notifyall ") + cv + ";";
                break;
            case 2: // a notify with no flag: wakes a waiter for nothing, or is lost
                s += std::string(" notify ") + cv + ";";
                break;
            case 3:
                s += " acq m; x = x + 1; rel m;";
                break;
            case 4: // a waiter that checks its flag in a loop
                s += std::string(" acq m; while (") + flag + " == 0) { wait " + cv + " m; } let r" +
                     std::to_string(i) + " = x; rel m;";
                break;
            case 5: // a waiter that waits once: a lost wake-up when the notify came first
                s += std::string(" acq m; if (") + flag + " == 0) { wait " + cv + " m; } assert " +
                     flag + " == 1; rel m;";
                break;
            default:
                s += pick(6) == 0 ? std::string(" wait ") + cv + " m;" // not holding m
                                  : std::string(" acq m; x = 0; rel m;");
                break;
            }
        }
        s += " }\n";
    }
    s += "}\n";
    return s;
}

} // namespace sfg::checker::test
