// Helpers for the checker tests: compile a .sfg text, lower one program, run the checker.
#pragma once

#include "sfg/checker/checker.hpp"
#include "sfg/checker/model.hpp"
#include "sfg/compiler/compile.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace sfg::checker::test {

struct Loaded {
    CompiledSpec spec;
    Model model;
};

inline std::optional<Loaded> load(const std::string& text, const std::string& name = "test.sfg") {
    Diagnostics diags;
    SourceFile file(name, text);
    std::optional<CompiledSpec> spec = compile_spec(file, diags);
    if (!spec || spec->programs.empty())
        return std::nullopt;
    Loaded l{std::move(*spec), {}};
    l.model = lower(l.spec, l.spec.programs.front());
    return l;
}

inline CheckResult run(const Model& m, Mode mode = Mode::naive, std::uint64_t max_exec = 1000000,
                       std::uint64_t seed = 0) {
    CheckOptions o;
    o.mode = mode;
    o.max_executions = max_exec;
    o.seed = seed;
    return check_model(m, o);
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline bool has(const CheckResult& r, FindingKind k, const std::string& var = "") {
    for (const CheckFinding& f : r.findings)
        if (f.kind == k && (var.empty() || f.var == var))
            return true;
    return false;
}

// The random-program tests' sizes: `full` seeds under SFG_FULL=1 (scripts/test.sh --full), else
// `quick` (the first seeds of the full run); SFG_DPOR_SEEDS=N runs N seeds (a longer soak).
inline std::uint64_t seeds(std::uint64_t full, std::uint64_t quick) {
    if (const char* env = std::getenv("SFG_DPOR_SEEDS"))
        return std::strtoull(env, nullptr, 10);
    const char* all = std::getenv("SFG_FULL");
    return all && std::string(all) != "0" ? full : quick;
}

// A lower bound `bound` on a count over `full` seeds, scaled to the `n` seeds run (at most the
// full bound on a longer soak).
inline int at_least(int bound, std::uint64_t n, std::uint64_t full) {
    return static_cast<int>(static_cast<std::uint64_t>(bound) * std::min(n, full) / full);
}

} // namespace sfg::checker::test
