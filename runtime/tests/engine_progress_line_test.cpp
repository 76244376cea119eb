// The progress line of `sfgc check` and sfg::explore (sfg/runtime/engine/progress_line.hpp):
// drawn only when enabled and once the search has run a while, at most about twice a second,
// with the search's size when known, and erased at the end.
#include "sfg/runtime/engine/progress_line.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace engine_progress_line_test {

// What was written to `f` so far.
std::string contents(std::FILE* f) {
    std::fflush(f);
    std::rewind(f);
    std::string out;
    for (int c; (c = std::fgetc(f)) != EOF;)
        out += static_cast<char>(c);
    return out;
}

TEST_CASE("engine progress line: drawn when enabled, with the size when known, then erased") {
    using Line = sfg::engine::ProgressLine;
    std::FILE* f = std::tmpfile();
    REQUIRE(f);
    {
        Line line(true, f, std::chrono::milliseconds(0));
        CHECK(line.enabled());
        line.show(120);
        const std::string first = contents(f);
        CHECK(first.rfind("\r\033[K120 executions, ", 0) == 0);
        CHECK(first.find("/s") != std::string::npos);
        CHECK(first.find("in all") == std::string::npos); // no size given
        line.show(121);                                   // too soon after the last one
        CHECK(contents(f) == first);
        std::this_thread::sleep_for(std::chrono::milliseconds(450));
        line.show(500, 1000); // a sampling search's exact size
        const std::string exact = contents(f).substr(first.size());
        CHECK(exact.rfind("\r\033[K500 executions, ", 0) == 0);
        CHECK(exact.find(", 1000 in all, 50% done") != std::string::npos);
        std::this_thread::sleep_for(std::chrono::milliseconds(450));
        line.show(300, 200, true); // an estimate passed: never above 100%
        const std::string estimated = contents(f).substr(first.size() + exact.size());
        CHECK(estimated.find(", ~200 in all (estimate), 100% done") != std::string::npos);
    }
    const std::string all = contents(f);
    CHECK(all.size() >= 4);
    CHECK(all.substr(all.size() - 4) == "\r\033[K"); // erased for the report
    std::fclose(f);
}

TEST_CASE("engine progress line: nothing when disabled (not a terminal) or in a short search") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f);
    {
        sfg::engine::ProgressLine off(false, f, std::chrono::milliseconds(0));
        CHECK_FALSE(off.enabled());
        off.show(10, 100);
        sfg::engine::ProgressLine soon(true, f); // drawn only after a second
        soon.show(10, 100);
    }
    CHECK(contents(f).empty()); // and nothing to erase
    std::fclose(f);
}

} // namespace engine_progress_line_test
