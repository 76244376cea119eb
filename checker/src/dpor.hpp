// The DPOR explorer (docs/programs.md), internal to the checker: make_runner() returns its task
// runner in Mode::dpor. See dpor.cpp and docs/programs.md ("Modes").
#pragma once

#include "engine.hpp"

#include "sfg/checker/explore.hpp"

#include <memory>
#include <vector>

namespace sfg::checker {

// A visible instruction as DPOR sees it before running it: the step's thread and actions, an
// await's being a read of every shared variable of its condition (dpor.cpp, change 3).
struct Summary {
    Code code = Code::halt;
    std::uint32_t arg = 0;
    Step step;
};

// The summaries of every visible instruction of a model, built once and shared (read-only) by
// the threads of the search.
class DporModel {
public:
    explicit DporModel(const Model& m);
    // Thread t's next step in s (t must be ready, or the summary has no action).
    const Summary& summary(const State& s, ThreadId t) const { return sums_[t][s.threads[t].pc]; }
    // The barrier generation of t's next step in s, if it is an arrival or a departure (else
    // 0): the count of t's arrivals at the barrier, that one included.
    std::uint32_t generation(const State& s, ThreadId t) const;
    // Whether t's and u's next steps in s are dependent, with their generations.
    bool dependent_in(const State& s, ThreadId t, ThreadId u) const;
    // The sleep set after p's step from a node with sleep set `sleep` and state `s`: the
    // sleeping threads whose next steps are independent of p's (Algorithm 1, line 12).
    std::vector<std::uint8_t> sleep_after(const State& s, const std::vector<std::uint8_t>& sleep,
                                          ThreadId p) const;

private:
    const Model& m_;
    std::vector<std::vector<Summary>> sums_; // [thread][pc], for visible instructions
};

// dependent() of two steps given the generations of their barrier actions (0: none): an arrival
// and a departure of different generations commute (docs/programs.md, "Dependence"). The
// summaries' actions carry no generation (it depends on the state), the steps taken do.
bool dependent_at(const Model& m, const Step& a, std::uint32_t ga, const Step& b, std::uint32_t gb);

} // namespace sfg::checker
