// A generator of random small programs (docs/programs.md), shared with the DPOR tests: 2-3
// threads of 1-4 statements over two variables, a volatile, two locks and a barrier, with
// forks/joins, awaits and assertions. Locks are always released in the same statement group, so
// most programs end; deadlocks and failures still happen and are findings like the rest.
#pragma once

#include <random>
#include <string>

namespace sfg::check::test {

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

} // namespace sfg::check::test
