// sfgc: a thin driver. The first argument picks the sub-command; everything else is a library.
#include "commands.hpp"

#include <cstring>

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "trace") == 0)
        return sfgc::run_trace(argc - 1, argv + 1);
    if (argc > 1 && std::strcmp(argv[1], "check") == 0)
        return sfgc::run_check(argc - 1, argv + 1);
    return sfgc::run_compile(argc, argv);
}
