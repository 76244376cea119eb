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

// For --threads: `auto` or a count from 1 to 64.
inline CLI::Validator thread_count() {
    return CLI::Validator(
        [](std::string& v) {
            if (v == "auto")
                return std::string();
            const bool digits = !v.empty() && v.size() <= 2 &&
                                v.find_first_not_of("0123456789") == std::string::npos;
            if (digits && std::stoi(v) >= 1 && std::stoi(v) <= 64)
                return std::string();
            return "expected auto or a number from 1 to 64, found '" + v + "'";
        },
        "auto|N");
}

} // namespace sfgc
