// Semantic analysis (contract §1): names, kinds, arities, recursion; then one SFG per annotated
// variable, with Valid's dropped edges, edgeless operators and unreachable modes as warnings.
#pragma once

#include "sfg/compiler/ast.hpp"
#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"

namespace sfg {

// Checks `spec`, reporting every problem; the result's variables carry their SFGs (no nets).
CompiledSpec analyze(const ast::Spec& spec, const std::string& file_name, Diagnostics& diags);

} // namespace sfg
