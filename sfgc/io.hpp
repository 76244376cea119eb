// Input and output for the sub-commands: reading files (errors worded like the diagnostics), the
// --max-output bound, and JSON that survives names that are not UTF-8.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

namespace sfgc {

// Largest input file accepted (specs, programs): larger ones are refused, not read.
inline constexpr std::size_t max_input_bytes = std::size_t{64} << 20;

// Reads `path` whole. On failure prints `PATH: error: ...` to stderr and returns nothing.
std::optional<std::string> read_input(const std::string& path);

// Output bound (docs/limits.md): a stream that passes at most `limit` bytes on to `dest`, then
// fails, so the writers stop formatting and the command reports the limit (exit 2).
class BoundedOutput : private std::streambuf, public std::ostream {
public:
    BoundedOutput(std::streambuf* dest, std::uint64_t limit)
        : std::ostream(static_cast<std::streambuf*>(this)), dest_(dest), left_(limit) {}
    bool exceeded() const { return exceeded_; }

private:
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    std::streambuf::int_type overflow(std::streambuf::int_type c) override;
    int sync() override { return dest_->pubsync(); }

    std::streambuf* dest_;
    std::uint64_t left_;
    bool exceeded_ = false;
};

// The error for an output that hit --max-output; `what` names it ("standard output", a file).
void print_output_limit_error(const std::string& what, std::uint64_t limit);

// JSON for people and tools, pretty-printed; bytes that are not UTF-8 (names in a trace, file
// names) are written as U+FFFD instead of failing.
std::string json_text(const nlohmann::ordered_json& j);

} // namespace sfgc
