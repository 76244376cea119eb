// One variable in one trace: its runs as phases joined by mechanisms, repeated phases folded
// into loops (docs/infer.md, "How it decides").
#pragma once

#include "sfg/infer/infer.hpp"

#include <string>
#include <variant>
#include <vector>

namespace sfg::infer {

// What a variable's runs add up to: its accesses, its threads in the order of first access.
struct RunTotals {
    std::uint64_t accesses = 0;
    std::vector<ThreadId> threads;
};
RunTotals run_totals(const RunLog& runs);

// The chain, or why none exists: two consecutive phases that no single mechanism orders. With
// `totals`, the run totals too (from the phases: the runs are decoded once).
std::variant<Chain, std::string> infer_chain(const RunLog& runs, const TraceRecorder& rec,
                                             const Symbols& syms, ObjId var,
                                             RunTotals* totals = nullptr);

// Folds repeated phases into loops: a pattern of phases and labels that repeats becomes
// [p1 ▷ … ▷ pk]^z, a run of phases joined by one label in which a mode recurs [p1 ⊔ … ⊔ pk]^z.
Chain fold_loops(const std::vector<Phase>& phases, const std::vector<Label>& labels,
                 const std::vector<std::string>& whys);

// A chain's text: elements joined by ` ▷^z `; a loop of alternatives EX(t) over a declared
// group's threads as `EX(each W)`.
std::string render_chain(const Chain& c, const Declarations& decls);
std::string render_label(const Label& l);
// A mode's text; with `decls`, a thread list that is a declared group's is the group's name.
std::string render_mode(const Mode& m, const Declarations* decls = nullptr);

} // namespace sfg::infer
