// sfgc: a thin driver. The first argument picks the sub-command; everything else is a library.
#include "commands.hpp"

#include <cstdio>
#include <cstring>

// Until the trace command lands, `sfgc trace` says so instead of failing to link.
namespace sfgc {
[[gnu::weak]] int run_trace(int argc, char** argv);
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "trace") == 0) {
        if (&sfgc::run_trace == nullptr) {
            std::fputs("sfgc: error: 'trace' is not available in this build\n", stderr);
            return 2;
        }
        return sfgc::run_trace(argc - 1, argv + 1);
    }
    return sfgc::run_compile(argc, argv);
}
