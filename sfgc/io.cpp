#include "io.hpp"
#include "options.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <sys/stat.h>

namespace sfgc {

std::optional<std::string> read_input(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        fmt::print(stderr, "{}: error: cannot open file: {}\n", path, std::strerror(errno));
        return std::nullopt;
    }
    if (S_ISDIR(st.st_mode)) {
        fmt::print(stderr, "{}: error: is a directory\n", path);
        return std::nullopt;
    }
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        fmt::print(stderr, "{}: error: cannot open file: {}\n", path, std::strerror(errno));
        return std::nullopt;
    }
    std::string text;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
        text.append(buf, n);
        if (text.size() > max_input_bytes) {
            std::fclose(f);
            fmt::print(stderr, "{}: error: file is larger than {} MiB\n", path,
                       max_input_bytes >> 20);
            return std::nullopt;
        }
    }
    bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed) {
        fmt::print(stderr, "{}: error: cannot read file\n", path);
        return std::nullopt;
    }
    return text;
}

std::streamsize BoundedOutput::xsputn(const char* s, std::streamsize n) {
    const auto want = static_cast<std::uint64_t>(n);
    if (exceeded_ || want > left_) {
        exceeded_ = true;
        return 0; // the stream sets badbit
    }
    left_ -= want;
    return dest_->sputn(s, n);
}

std::streambuf::int_type BoundedOutput::overflow(std::streambuf::int_type c) {
    using traits = std::streambuf::traits_type;
    if (traits::eq_int_type(c, traits::eof()))
        return traits::not_eof(c);
    const char ch = traits::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits::eof();
}

void print_output_limit_error(const std::string& what, std::uint64_t limit) {
    fmt::print(stderr,
               "sfgc: error: the output to {} is larger than {} bytes and was cut; raise the "
               "limit with --max-output\n",
               what, limit);
}

namespace {
std::uint64_t applied_memory_mib = 0;
}

CLI::Option* add_memory_option(CLI::App& app, std::uint64_t& mib) {
    return app
        .add_option(
            "--max-memory", mib,
            fmt::format("MiB of memory the command may use (default {})", default_max_memory_mib))
        ->check(non_negative());
}

void apply_memory_limit(std::uint64_t mib) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)mib;
#else
    const rlim_t bytes =
        mib > (RLIM_INFINITY >> 20) ? RLIM_INFINITY : static_cast<rlim_t>(mib) << 20;
    rlimit now{};
    if (::getrlimit(RLIMIT_DATA, &now) != 0)
        return;
    if (now.rlim_max != RLIM_INFINITY && bytes > now.rlim_max)
        return; // a stricter limit is already in force
    now.rlim_cur = bytes;
    if (::setrlimit(RLIMIT_DATA, &now) == 0)
        applied_memory_mib = mib;
#endif
}

std::uint64_t memory_limit_mib() {
    return applied_memory_mib;
}

std::string json_text(const nlohmann::ordered_json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace sfgc
