// Semantic analysis (docs/language.md): names, kinds, arities, recursion; then one SFG per
// annotated variable, with Valid's dropped edges, edgeless operators and unreachable modes as
// warnings.
#pragma once

#include "sfg/compiler/ast.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/limits.hpp"

namespace sfg {

// Checks `spec`, reporting every problem; the result's variables carry their SFGs (no nets).
// Stops with an error when the SFGs would exceed `limits` (modes, candidate edges).
CompiledSpec analyze(const ast::Spec& spec, const std::string& file_name, Diagnostics& diags,
                     const CompileLimits& limits = {});

} // namespace sfg
