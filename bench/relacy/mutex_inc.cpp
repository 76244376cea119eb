// N threads each add one to x under one mutex: Relacy's full search (the comparison of
// bench/README.md's explore section). Not part of sfg's build.
#include <chrono>
#include <cstdio>
#include <relacy/relacy_std.hpp>

template <int N>
struct inc_test : rl::test_suite<inc_test<N>, N> {
    std::mutex m;
    rl::var<int> x;
    void before() { x($) = 0; }
    void thread(unsigned) {
        m.lock($);
        x($) = x($) + 1;
        m.unlock($);
    }
    void after() { RL_ASSERT(x($) == N); }
};

template <int N>
void run() {
    rl::test_params p;
    p.search_type = rl::sched_full;
    p.output_history = false;
    auto t0 = std::chrono::steady_clock::now();
    rl::simulate<inc_test<N>>(p);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("relacy full search, %d threads: %llu executions, %.3f s\n", N,
                (unsigned long long)p.stop_iteration, s);
}

int main(int argc, char**) {
    run<3>();
    run<4>();
    if (argc > 1)
        run<5>();
}
