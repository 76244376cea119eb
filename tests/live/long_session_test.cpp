// A long live session keeps flat memory after warm-up (docs/enforcers.md, "Cost"): variables that
// are never accessed again (each worker's own counter, written once) must not make any analysis
// keep state that grows with the run, Goldilocks' list of sync events included.
#include "support.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace sfg::testing;

namespace {

// The resident set of this process, in KiB (Linux).
long rss_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return -1;
}

} // namespace

TEST_CASE("live: 10^7 events with flat memory after warm-up") {
    constexpr int workers = 8;
    constexpr std::uint64_t total = 10'000'000;
    sfg::session s(collecting("hb,fasttrack,goldilocks"));
    std::vector<std::unique_ptr<sfg::shared<long>>> counters;
    for (int w = 0; w < workers; ++w)
        counters.push_back(std::make_unique<sfg::shared<long>>("counter" + std::to_string(w)));
    std::vector<std::unique_ptr<sfg::mutex>> locks;
    std::vector<std::unique_ptr<sfg::shared<long>>> guarded;
    for (int k = 0; k < 4; ++k) {
        locks.push_back(std::make_unique<sfg::mutex>("m" + std::to_string(k)));
        guarded.push_back(std::make_unique<sfg::shared<long>>("v" + std::to_string(k)));
    }
    // Each phase: workers loop on the guarded variables (4 events an iteration) until the
    // session has seen `until` events.
    auto phase = [&](std::uint64_t until, bool first) {
        sfg::thread_group g;
        for (int w = 0; w < workers; ++w)
            g.add("w" + std::to_string(w) + (first ? "a" : "b"), [&, w] {
                if (first)
                    counters[static_cast<std::size_t>(w)]->store(1); // never accessed again
                for (std::uint64_t i = static_cast<std::uint64_t>(w); s.events() < until; ++i) {
                    const std::size_t k = i % 4;
                    std::lock_guard lock(*locks[k]);
                    guarded[k]->store(guarded[k]->load() + 1);
                }
            });
        g.start();
        g.join();
    };
    phase(total / 4, true);
    const long warm = rss_kib();
    phase(total, false);
    const long end = rss_kib();
    MESSAGE("events " << s.events() << ", RSS after warm-up " << warm << " KiB, at the end " << end
                      << " KiB");
    CHECK(s.findings().empty());
    CHECK(s.events() >= total);
    REQUIRE(warm > 0);
    // 7.5 * 10^6 more events; Goldilocks' list alone pinned by the counters would grow by more
    // than 60 MiB.
    CHECK(end - warm < 16 * 1024);
}
