// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte, "A
// Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010): the one
// scheduler of `sfg::explore`'s and `sfgc check`'s pct mode (docs/explore.md, docs/programs.md).
// Every thread gets a random priority above d when it first appears; the enabled thread of highest
// priority runs; at d-1 random steps among the first k the running thread's priority drops below
// every initial one, to the change point's number. A bug of depth d is found with probability
// at least 1/(n k^(d-1)) a run, n threads and k steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace sfg::engine {

class PctScheduler {
public:
    // A new run: its random stream, k the steps a run is expected to take (the change points are
    // drawn among them) and d the bug depth (at least 1).
    void begin(std::uint64_t stream, std::uint64_t k, unsigned depth) {
        rng_.seed(stream);
        depth_ = std::max(depth, 1u);
        priority_.clear();
        changes_.clear();
        k = std::max<std::uint64_t>(k, 1);
        for (unsigned i = 1; i < depth_; ++i)
            changes_.push_back(std::uniform_int_distribution<std::uint64_t>(0, k - 1)(rng_));
    }

    // The thread to take the run's step number `step` (from 0), among `enabled` (ascending, not
    // empty).
    std::uint32_t choose(const std::vector<std::uint32_t>& enabled, std::uint64_t step) {
        for (std::uint32_t t : enabled) {
            if (t >= priority_.size())
                priority_.resize(t + 1, 0);
            if (priority_[t] == 0) // initial priorities are above every change point's (1 .. d-1)
                priority_[t] = depth_ + (rng_() >> 1);
        }
        std::uint32_t best = highest(enabled);
        for (std::size_t i = 0; i < changes_.size(); ++i)
            if (changes_[i] == step) {
                priority_[best] = i + 1;
                best = highest(enabled);
            }
        return best;
    }

private:
    std::uint32_t highest(const std::vector<std::uint32_t>& enabled) const {
        std::uint32_t best = enabled.front();
        for (std::uint32_t t : enabled)
            if (priority_[t] > priority_[best])
                best = t;
        return best;
    }

    std::mt19937_64 rng_;
    unsigned depth_ = 1;
    std::vector<std::uint64_t> priority_; // by thread; 0: not seen yet
    std::vector<std::uint64_t> changes_;  // the steps at which a priority drops
};

} // namespace sfg::engine
