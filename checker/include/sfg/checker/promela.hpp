// `sfgc check --emit-promela` (docs/programs.md, part 6): a program as a Promela model with
// the same visible steps, blocking and findings, so that Spin can cross-check our verdicts.
// The mapping and its limits are described in docs/promela.md.
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/program_ast.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sfg {

struct PromelaModel {
    std::string text;                  // the model; its header repeats the warnings as comments
    std::vector<std::string> warnings; // e.g. "line 3: constant 5000000000 exceeds 32 bits"
    // Not empty when the program cannot be exported faithfully (then `text` is empty): what,
    // e.g. "cannot export 'enq q x': an enq inside a while loop has no bound ...", at error_loc.
    std::string error;
    SourceLoc error_loc;
};

// The most objects a queue may hold in an exported program (a Spin channel's capacity).
inline constexpr std::uint64_t max_promela_queue = 255;

// Translates `program` (which passed sema against `spec`) into Promela: one active proctype per
// declared thread, one `atomic` per visible step, findings as `assert` of a variable named after
// the finding (ASSERTION_FAILED_line_N, DIVISION_BY_ZERO_line_N, ILL_FORMED_<op>_line_N).
// Names come resolved against `spec` by program_sema (prog::Ref).
PromelaModel emit_promela(const prog::Program& program, const CompiledSpec& spec);

// The model text only.
std::string to_promela(const prog::Program& program, const CompiledSpec& spec);

} // namespace sfg
