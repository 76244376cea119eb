// sfg::explore as a user sees it from outside the test binary: the progress line (docs/explore.md,
// "Progress") that an exploration of more than a second draws on standard error when that is a
// terminal (script(1)'s pseudo-terminal here), erased, the report untouched; and the parts of a
// search on several machines merged by `sfgc check --merge` ("More than one machine").
#include "support.hpp"

#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace explore_e2e_test {

// Computes for `d` (code between two operations runs as it is; a sleep's granularity is coarse).
void spin(std::chrono::microseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
}

// The child: 1,300 random runs of two threads that compute 0.4 ms each between operations, so
// that the exploration lasts more than a second.
TEST_CASE("explore progress: child" * doctest::skip(std::getenv("SFG_PROGRESS_CHILD") == nullptr)) {
    sfg::explore_options o;
    o.mode = sfg::explore_mode::random;
    o.max_executions = 1300;
    o.seed = 3;
    const sfg::explore_report r = sfg::explore(
        [] {
            sfg::volatile_var<int> v("v");
            sfg::thread a("a", [&] {
                spin(std::chrono::microseconds(400));
                v.store(1);
            });
            spin(std::chrono::microseconds(400));
            v.store(2);
            a.join();
        },
        o);
    std::printf("report: %s\n", r.to_string().c_str());
    CHECK(r.executions == 1300);
}

TEST_CASE("explore progress: drawn on a terminal, erased, the report untouched") {
    if (std::system("command -v script >/dev/null 2>&1") != 0) {
        MESSAGE("script (util-linux) not installed: skipped");
        return;
    }
    const std::string log = (sfg::testing::scratch() / "explore_progress.log").string();
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string cmd = "SFG_PROGRESS_CHILD=1 timeout 120 script -qfec \"'" + self +
                            "' -tc='explore progress: child'\" '" + log + "' >/dev/null 2>&1";
    const int status = std::system(cmd.c_str());
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    std::ifstream in(log);
    std::stringstream tty;
    tty << in.rdbuf();
    const std::string s = tty.str();
    INFO(s);
    CHECK(s.find(" executions, ") != std::string::npos);
    CHECK(s.find(", 1300 in all, ") != std::string::npos); // random: its size is known
    CHECK(s.find("\r\033[K") != std::string::npos);
    CHECK(s.find("report: sfg::explore: 1300 executions") != std::string::npos);
}

// Two threads each take a lock or not and bump a counter: a lost update and a race, over a search
// that divides into several tasks.
void counters() {
    sfg::mutex m("m");
    sfg::shared<int> x("x", 0);
    sfg::volatile_var<int> c("c", 0);
    sfg::thread a("a", [&] {
        c.store(c.load() + 1);
        std::lock_guard g(m);
        x = x.load() + 1;
    });
    sfg::thread b("b", [&] {
        c.store(c.load() + 1);
        x = x.load() + 1;
    });
    a.join();
    b.join();
    sfg::check(c.load() == 2, "no lost update");
}

struct Run {
    int status = -1;
    std::string out, err;
};

Run sfgc(const std::string& args) {
    const std::string out = (sfg::testing::scratch() / "merge.out").string();
    const std::string err = (sfg::testing::scratch() / "merge.err").string();
    const int status = std::system(
        (std::string("'") + SFGC_PATH + "' " + args + " >'" + out + "' 2>'" + err + "'").c_str());
    const auto slurp = [](const std::string& path) {
        std::ifstream in(path);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

TEST_CASE("explore parts: sfgc check --merge prints the whole search's report") {
    const std::filesystem::path dir = sfg::testing::scratch() / "explore_parts";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // A small budget, so that the root hands tasks on that the parts share.
    sfg::explore_options small;
    small.task_budget = 4;
    const sfg::explore_report whole = sfg::explore(counters, small);
    REQUIRE(!whole.findings.empty());
    std::string files;
    unsigned busy = 0;
    for (unsigned k = 1; k <= 3; ++k) {
        sfg::explore_options o = small;
        o.shard = k;
        o.shards = 3;
        o.part_file = (dir / ("part_" + std::to_string(k) + ".json")).string();
        busy += sfg::explore(counters, o).executions > 0;
        files += " '" + o.part_file + "'";
    }
    CHECK(busy >= 2);
    const Run text = sfgc("check --merge" + files);
    CHECK(text.status == 1); // findings
    CHECK(text.err.empty());
    CHECK(text.out == whole.to_string());
    const Run json = sfgc("check --merge" + files + " --format json");
    CHECK(json.status == 1);
    CHECK(json.out.find("\"executions\": " + std::to_string(whole.executions)) !=
          std::string::npos);
    CHECK(json.out.find("\"schedule\": \"" + whole.findings[0].schedule + "\"") !=
          std::string::npos);
    // Parts that do not fit: exit status 2 and the problem.
    const Run missing = sfgc("check --merge '" + (dir / "part_1.json").string() + "'");
    CHECK(missing.status == 2);
    CHECK(missing.err.find("part 2 of 3 is missing") != std::string::npos);
    const Run traces = sfgc("check --merge" + files + " --trace-out '" + dir.string() + "'");
    CHECK(traces.status == 2);
    CHECK(traces.err.find("--trace-out") != std::string::npos);
    // And an sfgc check part among them.
    const std::string check_part = (dir / "check_part.json").string();
    const int made = std::system((std::string("'") + SFGC_PATH +
                                  "' check '" SFG_SOURCE_DIR "/specs/programs/fig2_3_bank/"
                                  "fig2_3_bank.sfg' --shard 1/3 --format json > '" +
                                  check_part + "'")
                                     .c_str());
    CHECK(WIFEXITED(made));
    CHECK(WEXITSTATUS(made) <= 1);
    const Run mixed = sfgc("check --merge" + files + " '" + check_part + "'");
    CHECK(mixed.status == 2);
    CHECK(mixed.err.find("is a part of an sfg::explore search") != std::string::npos);
    std::filesystem::remove_all(dir);
}

} // namespace explore_e2e_test
