// The particle simulator (thesis Figure 3.4): each step, every thread reads every particle, then
// writes its own; barrier b separates the phases. Without the barrier between reading and
// writing, a thread writes its particle while the others still read it.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "particles.sfg.hpp"

#include <sfg/doctest.hpp>

#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int n = 3, steps = 20;

void simulate(bool barrier_after_reads) {
    sfg::barrier b("b", n);
    std::vector<std::unique_ptr<sfg::shared<double>>> p;
    for (int i = 0; i < n; ++i)
        p.push_back(std::make_unique<sfg::shared<double>>("p" + std::to_string(i), i));
    sfg::thread_group threads;
    for (int i = 0; i < n; ++i)
        threads.add("t" + std::to_string(i), [&, i] {
            for (int step = 0; step < steps; ++step) {
                double force = 0;
                for (const auto& q : p) // read phase: RS(t0, t1, t2)
                    force += q->load();
                if (barrier_after_reads)
                    b.arrive_and_wait();
                auto& mine = *p[static_cast<std::size_t>(i)]; // write phase: EX(ti)
                mine.store(mine.load() + force / 100);
                b.arrive_and_wait();
            }
        });
    threads.start();
    threads.join();
}

} // namespace

TEST_CASE("two barriers a step: read phase, write phase") {
    sfg::doctest_session s(particles::spec());
    simulate(true);
}

TEST_CASE("the barrier between reading and writing missing: every particle, every run") {
    for (int run = 0; run < 5; ++run) {
        sfg::doctest_session s(particles::spec());
        const std::size_t before = s.mark();
        simulate(false);
        for (const char* var : {"p0", "p1", "p2"}) {
            CAPTURE(var);
            CHECK(s.expect(before, "violation", var)); // the discipline: no write in RS(...)
            CHECK(s.expect(before, "race", var));      // hb and goldilocks: unordered accesses
        }
    }
}
