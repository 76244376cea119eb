// `sfgc check FILE --infer OUT.sfg` (docs/infer.md): the disciplines inferred from every
// execution the checker explores, checked on each of them, written to OUT.
#pragma once

#include "sfg/checker/explore.hpp"
#include "sfg/checker/model.hpp"

#include <string>
#include <vector>

namespace sfgc {

// Explores each model (one thread, options' mode and bounds), infers from every execution and
// writes the spec to `out` ('-': standard output). Exit status as `sfgc infer`'s: 0, 2 when `out`
// cannot be written, 3 when the spec rejects one of its executions.
int infer_executions(const std::vector<const sfg::checker::Model*>& models,
                     const sfg::checker::CheckOptions& options, const std::string& out);

} // namespace sfgc
