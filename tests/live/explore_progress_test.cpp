// sfg::explore's progress line (docs/explore.md, "Progress"), as a user sees it: a test binary
// whose exploration runs longer than a second draws it on standard error when that is a
// terminal (script(1)'s pseudo-terminal here), erases it, and leaves the report untouched.
#include "support.hpp"

#include "sfg/explore.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace explore_progress_test {

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

} // namespace explore_progress_test
