// Text -> AST with the ANTLR-generated parser; lexer and parser errors become our diagnostics.
#pragma once

#include "sfg/compiler/ast.hpp"
#include "sfg/compiler/diagnostics.hpp"

namespace sfg {

// Deepest bracket nesting accepted (Clang's -fbracket-depth is 256): deeper input is an error,
// not a stack overflow.
inline constexpr int max_nesting_depth = 256;
// Longest declaration or statement accepted, in tokens (operator chains nest as deeply).
inline constexpr int max_tokens_per_item = 200000;

// Parses `file`. Invalid UTF-8, unknown characters, unterminated comments, syntax errors and
// over-deep nesting are reported to `diags`; the AST is only meaningful without errors.
ast::Spec parse_spec(const SourceFile& file, Diagnostics& diags);

} // namespace sfg
