#include "sfg/runtime/core/mapped_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sfg {

MappedFile::~MappedFile() {
    if (map_)
        ::munmap(map_, size_);
}

bool MappedFile::open(const std::string& path) {
    int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error_ = std::strerror(errno);
        return false;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        error_ = std::strerror(errno);
        if (fd != STDIN_FILENO)
            ::close(fd);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        error_ = "is a directory";
        ::close(fd);
        return false;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void* p =
            ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            ::madvise(p, static_cast<std::size_t>(st.st_size), MADV_SEQUENTIAL);
            map_ = p;
            data_ = static_cast<const char*>(p);
            size_ = static_cast<std::size_t>(st.st_size);
            if (fd != STDIN_FILENO)
                ::close(fd);
            return true;
        }
    }
    // Not mappable (pipe, empty file, special file): read it.
    char buf[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error_ = std::strerror(errno);
            if (fd != STDIN_FILENO)
                ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        buffer_.append(buf, static_cast<std::size_t>(n));
    }
    if (fd != STDIN_FILENO)
        ::close(fd);
    data_ = buffer_.data();
    size_ = buffer_.size();
    return true;
}

} // namespace sfg
