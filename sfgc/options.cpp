// The --max-memory option: RLIMIT_DATA for the whole command (docs/limits.md).
#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include <sys/resource.h>

namespace sfgc {

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

unsigned reading_threads(const std::string& threads, const std::string& file) {
    if (threads != "auto")
        return static_cast<unsigned>(std::stoul(threads));
    std::error_code ec;
    const auto size = file == "-" ? 0 : std::filesystem::file_size(file, ec);
    if (ec || size < (1u << 20))
        return 1;
    return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

} // namespace sfgc
