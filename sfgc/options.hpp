// Command-line option checks shared by the sub-commands.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace sfgc {

// For unsigned counts: CLI11 2.1 reads "-1" into an unsigned option as its maximum; refuse it.
inline CLI::Validator non_negative() {
    return CLI::Validator(
        [](std::string& v) {
            return v.rfind('-', 0) == 0 ? "must not be negative: " + v : std::string();
        },
        "N");
}

} // namespace sfgc
