// sfgc check with `deterministic` blocks (docs/determinism.md, "Model checking"): conflicts and
// cycles on every interleaving, and dpor finds exactly naive's (one key per block line for
// conflicts, one for cycles) on random programs whose blocks fork threads.
#include "support.hpp"

#include <cstdlib>
#include <random>
#include <set>

using namespace sfg;
using namespace sfg::checker;
using namespace sfg::checker::test;

namespace {

// main opens a block that forks t1 and t2 (joined inside or after the block's end, or never);
// t1 and t2 access x, y, a volatile v and a lock m and may pass barrier b, may open blocks of
// their own (flattened into main's); t3, a root thread, works outside or inside blocks of its
// own.
std::string random_block_program(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    auto stmts = [&](int n, bool blocks) { // blocks: may open blocks of its own
        std::string s;
        for (int i = 0; i < n; ++i) {
            const std::string a = pick(2) ? "x" : "y";
            switch (pick(blocks ? 5 : 4)) {
            case 0:
                s += " " + a + " = 1;";
                break;
            case 1:
                s += " read " + a + ";";
                break;
            case 2:
                s += " acq m; write " + a + "; rel m;";
                break;
            case 3:
                s += pick(2) ? " v = 1;" : " read v;";
                break;
            default:
                s += " deterministic { write " + a + "; }";
                break;
            }
        }
        return s;
    };
    const bool barrier = pick(3) == 0; // t1 and t2 pass it the same number of times
    std::string s = "threads main, t1, t2, t3;\nlock m;\nvolatile v;\nvar x, y;\n"
                    "barrier b(t1, t2);\nprogram p {\n";
    const int join = pick(3);
    const int before = pick(2);
    s += "  thread main { deterministic {" + stmts(before, false) + " fork t1, t2;" +
         stmts(1 - before, false) + (join == 0 ? " join t1, t2;" : "") + " }" +
         (join == 1 ? " join t1, t2;" : "") + stmts(pick(2), false) + " }\n";
    for (const char* t : {"t1", "t2"}) {
        std::string body = stmts(1 + pick(2), true);
        if (barrier)
            body += " barrier b;" + stmts(pick(2), true);
        s += std::string("  thread ") + t + " {" + body + " }\n";
    }
    const int t3 = pick(3); // 0: no events
    s += "  thread t3 {" +
         (t3 == 1   ? " deterministic {" + stmts(1, false) + " }"
          : t3 == 2 ? stmts(1, true)
                    : "") +
         " }\n}\n";
    return s;
}

std::set<std::pair<int, std::string>> keys(const CheckResult& r) {
    std::set<std::pair<int, std::string>> out;
    for (const CheckFinding& f : r.findings)
        out.insert({static_cast<int>(f.kind),
                    f.var.empty() ? std::to_string(f.line().value_or(0)) : f.var});
    return out;
}

} // namespace

TEST_CASE("determinism: conflicts and cycles of small programs") {
    // Two children of one block write x: a conflict, keyed by the block's line.
    auto l = load("threads main, t1, t2;\nvar x;\nprogram p {\n"
                  "  thread main { deterministic { fork t1, t2; join t1, t2; } }\n"
                  "  thread t1 { x = 1; }\n  thread t2 { x = 2; }\n}\n");
    REQUIRE(l);
    for (Mode mode : {Mode::naive, Mode::dpor}) {
        CheckResult r = run(l->model, mode);
        REQUIRE(has(r, FindingKind::conflict));
        for (const CheckFinding& f : r.findings)
            if (f.kind == FindingKind::conflict) {
                CHECK(f.line() == std::optional<std::uint32_t>(4));
                CHECK(f.message.find("the write of x by") != std::string::npos);
                CHECK(!f.steps.empty());
            }
        CHECK(!has(r, FindingKind::cycle));
    }
    // A block that is not atomic against another thread's write: a cycle.
    auto a = load("threads main, u;\nvar x;\nprogram p {\n"
                  "  thread main { deterministic { read x; x = 1; } }\n"
                  "  thread u { x = 2; }\n}\n");
    REQUIRE(a);
    CheckResult r = run(a->model, Mode::dpor);
    REQUIRE(has(r, FindingKind::cycle));
    for (const CheckFinding& f : r.findings)
        if (f.kind == FindingKind::cycle) {
            CHECK(!f.line());
            CHECK(f.message.find("the block of main at line 4") != std::string::npos);
        }
    // Children joined after the block: still in it, no finding.
    auto c = load("threads main, t1, t2;\nvar x, y;\nprogram p {\n"
                  "  thread main { deterministic { fork t1, t2; } join t1, t2; x = 3; }\n"
                  "  thread t1 { x = 1; }\n  thread t2 { y = 2; }\n}\n");
    REQUIRE(c);
    CHECK(!run(c->model, Mode::naive).found());
}

TEST_CASE("determinism: nested deterministic blocks are a static error") {
    CHECK(!load("threads main;\nvar x;\nprogram p {\n"
                "  thread main { deterministic { deterministic { x = 1; } } }\n}\n"));
    CHECK(load("threads main;\nvar x;\nprogram p {\n"
               "  thread main { deterministic { x = 1; } deterministic { x = 2; } }\n}\n"));
}

TEST_CASE(
    "determinism: dpor finds naive's conflicts and cycles on random programs (200 with --full)") {
    int compared = 0, conflicts = 0, cycles = 0;
    const std::uint64_t n = seeds(200, 50);
    for (std::uint64_t seed = 1; seed <= n; ++seed) {
        const std::string text = random_block_program(seed);
        CAPTURE(text);
        auto l = load(text);
        REQUIRE(l);
        CheckResult naive = run(l->model, Mode::naive, 30000);
        if (!naive.stats.complete)
            continue;
        CheckResult dpor = run(l->model, Mode::dpor);
        REQUIRE(dpor.stats.complete);
        ++compared;
        CHECK(keys(dpor) == keys(naive));
        CHECK(dpor.classes == naive.classes);
        conflicts += has(naive, FindingKind::conflict);
        cycles += has(naive, FindingKind::cycle);
    }
    MESSAGE(compared << " programs compared; with conflicts " << conflicts << ", with cycles "
                     << cycles);
    CHECK(compared >= at_least(120, n, 200));
    CHECK(conflicts >= at_least(30, n, 200));
    CHECK(cycles >= at_least(30, n, 200));
}
