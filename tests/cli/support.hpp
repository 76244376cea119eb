// Helpers shared by the end-to-end tests: run sfgc (or any command) and read files back.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <doctest/doctest.h>

namespace sfg_cli_test {

namespace fs = std::filesystem;

struct Run {
    int status = -1;
    std::string out, err;
    double seconds = 0;     // wall clock
    double cpu_seconds = 0; // user + system time of sfgc (and the shell around it)
};

// CPU time of waited-for children so far: unlike the wall clock, it does not grow when a loaded
// machine (ctest -j, CI neighbours) leaves sfgc waiting for a core.
inline double children_cpu_seconds() {
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return sec(u.ru_utime) + sec(u.ru_stime);
}

inline std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// One scratch directory per test process, so that parallel ctest runs do not collide.
inline fs::path scratch() {
    static fs::path dir = [] {
        fs::path d = fs::temp_directory_path() / ("sfg-cli-" + std::to_string(::getpid()));
        fs::create_directories(d);
        return d;
    }();
    return dir;
}

// Runs `sfgc ARGS` (a shell word list) from the source directory; stdin is empty.
inline Run sfgc(const std::string& args) {
    Run r;
    fs::path out = scratch() / "stdout", err = scratch() / "stderr";
    std::string cmd = "cd '" SFG_SOURCE_DIR "' && timeout 20 '" SFGC_PATH "' " + args + " >'" +
                      out.string() + "' 2>'" + err.string() + "' </dev/null";
    auto t0 = std::chrono::steady_clock::now();
    double cpu0 = children_cpu_seconds();
    int raw = std::system(cmd.c_str());
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.cpu_seconds = children_cpu_seconds() - cpu0;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline int shell(const std::string& cmd) {
    int raw = std::system(cmd.c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

// A file of the test's scratch directory with `text` in it.
inline fs::path write_scratch(const std::string& name, const std::string& text) {
    fs::path p = scratch() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

// p in single quotes, for a command line.
inline std::string quote(const fs::path& p) {
    return "'" + p.string() + "'";
}

// The names (without .sfg) of the specs in SFG_SOURCE_DIR/dir, sorted.
inline std::vector<std::string> spec_names(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(fs::path(SFG_SOURCE_DIR) / dir))
        if (e.path().extension() == ".sfg")
            out.push_back(e.path().stem().string());
    std::sort(out.begin(), out.end());
    return out;
}

// `actual` against the golden file tests/golden/<name>; SFG_UPDATE_GOLDEN=1 rewrites it instead.
inline void check_golden(const std::string& name, const std::string& actual) {
    const fs::path golden = fs::path(SFG_SOURCE_DIR) / "tests/golden" / name;
    if (std::getenv("SFG_UPDATE_GOLDEN") != nullptr) {
        fs::create_directories(golden.parent_path());
        std::ofstream(golden, std::ios::binary) << actual;
        return;
    }
    REQUIRE_MESSAGE(fs::exists(golden), "missing golden file " << golden);
    CHECK_MESSAGE(slurp(golden) == actual, "output differs from " << golden);
}

} // namespace sfg_cli_test
