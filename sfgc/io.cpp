#include "io.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

std::string json_text(const nlohmann::ordered_json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace sfgc
