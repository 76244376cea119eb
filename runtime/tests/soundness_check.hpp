// The soundness property of the random enforcement tests (Theorem 4.2.2, and its analogue for
// LOCK modes, value labels and queue labels, docs/enforcement.md): on one random trace checked
// against random disciplines, every enforcer reports the first violation of each variable that
// Figure 4.15 applied literally does, and a variable it admits is race-free by the brute-force
// happens-before oracle.
#pragma once

#include "enforce_testlib.hpp"
#include "random_trace.hpp"

#include "sfg/runtime/enforce/enforcer.hpp"
#include "sfg/runtime/trace.hpp"

#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace sfg::testlib {

// What check_admitted_race_free counted, summed over the traces it was given.
struct SoundnessCounts {
    int traces = 0;
    int violated = 0;         // variables with a violation
    int admitted_shared = 0;  // admitted variables accessed by two threads or more
    int admitted_flagged = 0; // of those, the ones whose discipline `flagged` picks (coverage)
};

// Runs `text` against `vars` through the default enforcer, one without one-token grouping and
// candidate factoring, one with memoization only, and RefEnforcer; checks the property above
// and that every violation is explained.
inline void check_admitted_race_free(const std::vector<std::pair<std::string, Net>>& vars,
                                     const std::string& text,
                                     const std::function<bool(const Net&)>& flagged,
                                     SoundnessCounts& counts) {
    Symbols syms;
    sfg::testing::Collector col;
    Enforcer enf, plain({.group_one_token = false, .factor_candidates = false});
    Enforcer memo({.factor_candidates = false});
    RefEnforcer ref;
    for (const auto& var : vars) {
        enf.add_variable(var.first, var.second);
        plain.add_variable(var.first, var.second);
        memo.add_variable(var.first, var.second);
        ref.add_variable(var.first, var.second);
    }
    Fanout all;
    all.add(col), all.add(enf), all.add(plain), all.add(memo), all.add(ref);
    const TraceResult res = read_trace_text(text, "random.std", syms, all);
    INFO(text);
    REQUIRE_MESSAGE(res.ok(), res.error->to_string());
    const auto races = sfg::testing::HbOracle(col.events, syms).first_races();
    ++counts.traces;
    for (const auto& var : vars) {
        // Named, not bound: Clang 14 does not let INFO's lambda capture a structured binding.
        const std::string& x = var.first;
        INFO("variable " << x);
        const std::uint64_t mine = first_violation_of(enf, x);
        CHECK(mine == ref.first_violation(x));
        CHECK(first_violation_of(plain, x) == mine);
        CHECK(first_violation_of(memo, x) == mine);
        if (mine != 0) {
            ++counts.violated;
            continue;
        }
        const ObjId id = syms.vars.find(x);
        if (id == no_object)
            continue;
        CHECK(races.count(id) == 0); // admitted implies race-free
        const bool shared = accessors_of(col.events, id).size() > 1;
        counts.admitted_shared += shared;
        counts.admitted_flagged += shared && flagged(var.second);
    }
    for (const EnforceViolation& v : enf.violations())
        CHECK_FALSE(explain(v).empty());
}

} // namespace sfg::testlib
