// Parse tree -> program AST (internal to the front end: it sees ANTLR's generated types).
#pragma once

#include "SfgParser.h"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/program_ast.hpp"

#include <memory>

namespace sfg {

std::shared_ptr<prog::Program> build_program(sfg_gen::SfgParser::ProgramContext* ctx,
                                             Diagnostics& diags);

} // namespace sfg
