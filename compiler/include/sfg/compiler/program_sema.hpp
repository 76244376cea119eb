// Static checks of `program` blocks (docs/programs.md 4, "The program language"): every name
// used by a statement or expression is declared and of the right kind, locals are declared once
// per thread and used after their declaration, `barrier b;` only by b's threads, no thread twice
// in one fork/join, no assignment to a lock, etc. Errors go to the front end's one diagnostics
// engine with exact line:col, so `sfgc` and `sfgc check` report them alike (exit 2).
// The same pass resolves every name to its prog::Ref, once for all later passes (the checker's
// model, the Promela writer).
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
// queues, variables), reporting every problem to `diags`, and sets the Ref of every name it
// resolves and each thread's locals. A program without errors has every Ref set.
void resolve_program(prog::Program& program, const CompiledSpec& spec, Diagnostics& diags);
// Every program of a file: each resolved, and no two with the same name.
void resolve_programs(std::vector<ast::Program>& programs, const CompiledSpec& spec,
                      Diagnostics& diags);

} // namespace sfg
