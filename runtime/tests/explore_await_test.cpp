// sfg::await (docs/explore.md, "What the body may do"): under sfg::explore one step, taken only
// when its condition holds, with the dependence of programs' `await e;` (docs/programs.md); live,
// a spin whose last, true evaluation alone is recorded.
#include "random_trace.hpp"
#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

sfg::explore_options mode(sfg::explore_mode m) {
    sfg::explore_options o;
    o.mode = m;
    return o;
}

const sfg::explore_finding* find(const sfg::explore_report& r, const std::string& kind) {
    for (const sfg::explore_finding& f : r.findings)
        if (f.kind == kind)
            return &f;
    return nullptr;
}

// A payload handed over through a volatile flag: t writes data then raises the flag; main awaits
// the flag and reads data. The flag's vw -> vr orders the accesses to data: no race.
void handshake() {
    sfg::shared<int> data("data", 0);
    sfg::volatile_var<int> flag("flag", 0);
    sfg::thread t("t", [&] {
        data = 42;
        flag.store(1);
    });
    sfg::await([&] { return flag.load() == 1; }, flag);
    sfg::check(data.load() == 42, "data handed over");
    t.join();
}

} // namespace

TEST_CASE("explore: await hands a payload over through a flag, one step, no race") {
    // One class: t's write of data, its vw(flag), then main's await (enabled only after the vw),
    // its read of data. A spin loop would have one class more per failed load.
    const sfg::explore_report dpor = sfg::explore(handshake);
    CHECK_MESSAGE(dpor.findings.empty(), dpor.to_string());
    CHECK(dpor.complete);
    CHECK(dpor.classes == 1);
    CHECK(dpor.executions == 1);
    const sfg::explore_report naive = sfg::explore(handshake, mode(sfg::explore_mode::naive));
    CHECK_MESSAGE(naive.findings.empty(), naive.to_string());
    CHECK(naive.executions == 1);
}

TEST_CASE("explore: an await on what its condition reads races with each write it may see") {
    // main awaits x + y >= 1 without naming them: its step reads what the evaluation read. Two
    // writers; the await is enabled after either write: the classes are the orders of the await
    // among the writes that can precede it.
    const auto body = [](bool named) {
        return [named] {
            sfg::volatile_var<int> x("x", 0), y("y", 0);
            sfg::thread a("a", [&] { x.store(1); });
            sfg::thread b("b", [&] { y.store(1); });
            const auto cond = [&] { return x.load() + y.load() >= 1; };
            if (named)
                sfg::await(cond, x, y);
            else
                sfg::await(cond);
            a.join();
            b.join();
        };
    };
    for (const bool named : {false, true}) {
        const sfg::explore_report dpor = sfg::explore(body(named));
        const sfg::explore_report naive = sfg::explore(body(named), mode(sfg::explore_mode::naive));
        CHECK_MESSAGE(dpor.findings.empty(), dpor.to_string());
        CHECK_MESSAGE(naive.findings.empty(), naive.to_string());
        CHECK(dpor.complete);
        // naive: main forks a, forks b, awaits (A), joins a, joins b; x's write comes after the
        // first fork and before the first join, y's after the second fork and before the second
        // join, one of them before A: 8 interleavings
        CHECK(naive.executions == 8);
        CHECK(dpor.classes == 3); // A after both writes, after x's alone, after y's alone
    }
}

TEST_CASE("explore: an await that never holds is a deadlock") {
    const sfg::explore_report r = sfg::explore([] {
        sfg::volatile_var<int> flag("flag", 0);
        sfg::thread t("t", [&] { flag.store(2); });
        sfg::await([&] { return flag.load() == 1; }, flag);
        t.join();
    });
    const sfg::explore_finding* f = find(r, "deadlock");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("main waits until its await on flag holds") != std::string::npos);
}

TEST_CASE("explore: a condition that changes its mind when its thread runs is nondeterminism") {
    // The condition holds when the explorer peeks at it, and not when the thread evaluates it
    // (it counts its evaluations, state sfg does not control).
    const sfg::explore_report r = sfg::explore([] {
        sfg::volatile_var<int> flag("flag", 1);
        int evaluations = 0;
        sfg::await([&] { return flag.load() == 1 && ++evaluations % 2 == 1; }, flag);
    });
    const sfg::explore_finding* f = find(r, "nondeterminism");
    REQUIRE(f != nullptr);
    CHECK(f->message.find("await on flag false") != std::string::npos);
}

TEST_CASE("live: await spins until its condition holds and records its last evaluation alone") {
    sfg::session_options o;
    o.policy = sfg::on_finding::collect;
    o.analyses = "hb,goldilocks";
    const std::string path = (std::filesystem::temp_directory_path() /
                              sfg::testing::scratch_file("sfg_live_await", "std"))
                                 .string();
    o.trace_path = path;
    std::atomic<int> evaluations{0};
    {
        sfg::session s(o);
        sfg::shared<int> data("data", 0);
        sfg::volatile_var<int> flag("flag", 0);
        sfg::thread t("t", [&] {
            while (evaluations.load() < 2) // main's await has found its condition false
                std::this_thread::yield();
            data = 42;
            flag.store(2);
        });
        sfg::await(
            [&] {
                ++evaluations;
                return flag.load() == 2;
            },
            flag);
        CHECK(data.load() == 42);
        t.join();
        CHECK(s.findings().empty());
    }
    CHECK(evaluations >= 3); // one false at least, the true one, its recorded repetition
    std::ifstream in(path);
    std::vector<std::string> main_reads;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("main|vr(flag", 0) == 0)
            main_reads.push_back(line.substr(0, line.find('|', 5)));
    }
    in.close();
    std::remove(path.c_str());
    CHECK(main_reads == std::vector<std::string>{"main|vr(flag=2)"});
}
