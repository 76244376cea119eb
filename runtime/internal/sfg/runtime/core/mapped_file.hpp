// A read-only view of a whole file: memory-mapped when possible (large traces are never copied),
// read into memory otherwise (pipes, standard input as "-").
#pragma once

#include <string>
#include <string_view>

namespace sfg {

class MappedFile {
public:
    MappedFile() = default;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    // Opens `path` ("-" is standard input). On failure returns false and error() says why.
    bool open(const std::string& path);
    std::string_view data() const { return {data_, size_}; }
    const std::string& error() const { return error_; }

private:
    const char* data_ = "";
    std::size_t size_ = 0;
    void* map_ = nullptr; // the mmap'ed region, if any
    std::string buffer_;  // the contents, when not mapped
    std::string error_;
};

} // namespace sfg
