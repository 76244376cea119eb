// Command-line option checks shared by the sub-commands.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace sfgc {

// For unsigned counts: CLI11 2.1 reads "-1" into an unsigned option as its maximum and an empty
// value as zero; refuse both.
inline CLI::Validator non_negative() {
    return CLI::Validator(
        [](std::string& v) {
            return v.empty()              ? std::string("expected a number, found nothing")
                   : v.rfind('-', 0) == 0 ? "must not be negative: " + v
                                          : std::string();
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

// --max-memory MiB (docs/limits.md): the heap of the whole command, enforced by the kernel
// (RLIMIT_DATA), so state that grows faster than the input (vector clocks over thousands of
// threads, exploration state) ends in an error naming the option instead of swapping. main()
// turns the failed allocation into that error.
inline constexpr std::uint64_t default_max_memory_mib = 2048;
CLI::Option* add_memory_option(CLI::App& app, std::uint64_t& mib);
// Applies the limit (not under AddressSanitizer or ThreadSanitizer, whose shadow memory is
// itself counted as data); remembers it for the error message.
void apply_memory_limit(std::uint64_t mib);
// The limit in force, for main()'s message; 0 when none was applied.
std::uint64_t memory_limit_mib();

// How many threads parse a trace (read_trace_file_parallel; `sfgc trace`, `sfgc infer`): `auto`
// uses every core, up to 8 (beyond that the caller's thread, which checks and analyses, is the
// bottleneck), for a file of 1 MB or more; a smaller one is read before a thread would have
// started.
unsigned reading_threads(const std::string& threads, const std::string& file);

} // namespace sfgc
