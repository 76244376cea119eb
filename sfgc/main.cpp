// sfgc: a thin driver. The first argument picks the sub-command; everything else is a library.
#include "commands.hpp"

#include "options.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <new>

int main(int argc, char** argv) {
    try {
        if (argc > 1 && std::strcmp(argv[1], "trace") == 0)
            return sfgc::run_trace(argc - 1, argv + 1);
        if (argc > 1 && std::strcmp(argv[1], "check") == 0)
            return sfgc::run_check(argc - 1, argv + 1);
        if (argc > 1 && std::strcmp(argv[1], "infer") == 0)
            return sfgc::run_infer(argc - 1, argv + 1);
        if (argc > 1 && std::strcmp(argv[1], "compress") == 0)
            return sfgc::run_compress(argc - 1, argv + 1);
        if (argc > 1 && std::strcmp(argv[1], "decompress") == 0)
            return sfgc::run_decompress(argc - 1, argv + 1);
        return sfgc::run_compile(argc, argv);
    } catch (const std::bad_alloc&) {
        // The unwinding freed what the command held, so there is memory to say so.
        std::fflush(stdout);
        if (std::uint64_t mib = sfgc::memory_limit_mib())
            fmt::print(stderr,
                       "sfgc: error: out of memory: the command needs more than {} MiB; raise the "
                       "limit with --max-memory\n",
                       mib);
        else
            fmt::print(stderr, "sfgc: error: out of memory\n");
        return 2;
    }
}
