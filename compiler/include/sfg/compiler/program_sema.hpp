// Static checks of `program` blocks (docs/programs.md 4, "The program language"): every name
// used by a statement or expression is declared and of the right kind, locals are declared once
// per thread and used after their declaration, `barrier b;` only by b's threads, no thread twice
// in one fork/join, no assignment to a lock, etc. Errors go to the front end's one diagnostics
// engine with exact line:col, so `sfgc` and `sfgc check` report them alike (exit 2).
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/program_ast.hpp"

namespace sfg {

// Largest `repeat N` count accepted (the checker unrolls nothing, but such loops only hit
// --max-steps).
inline constexpr std::int64_t max_repeat_count = 1000000;
// Deepest expression nesting accepted in a program (the checker evaluates recursively).
inline constexpr int max_expression_depth = 1000;

// Checks `program` against the declarations of `spec` (threads, locks, volatiles, barriers,
// variables), reporting every problem to `diags`.
void check_program(const prog::Program& program, const CompiledSpec& spec, Diagnostics& diags);
// Every program of a file: each checked, and no two with the same name.
void check_programs(const std::vector<ast::Program>& programs, const CompiledSpec& spec,
                    Diagnostics& diags);

} // namespace sfg
