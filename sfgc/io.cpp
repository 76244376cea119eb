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

} // namespace sfgc
