// Helpers of the live runtime's tests: findings as comparable tuples, a scratch directory.
#pragma once

#include "sfg/sfg.hpp"

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

namespace sfg::testing {

using Seen = std::vector<std::tuple<std::string, std::string, std::string>>; // kind, analysis, var

inline Seen seen(const std::vector<finding>& fs) {
    Seen out;
    for (const finding& f : fs)
        out.emplace_back(f.kind, f.analysis, f.var);
    return out;
}

inline session_options collecting(std::string analyses = "enforce,hb,goldilocks") {
    session_options o;
    o.policy = on_finding::collect;
    o.analyses = std::move(analyses);
    return o;
}

inline std::filesystem::path scratch() {
    std::filesystem::path p = std::filesystem::temp_directory_path() / "sfg_live_tests";
    std::filesystem::create_directories(p);
    return p;
}

} // namespace sfg::testing
