// Where a token or a parse-tree node starts, as a SourceLoc (diagnostics.hpp: 1-based line, column
// in code points: ANTLR reads the text as code points). Internal to the front end, for the two
// parse-tree walkers: parse.cpp (specs) and program_builder.cpp (programs).
#pragma once

#include "antlr4-runtime.h"
#include "sfg/compiler/diagnostics.hpp"

namespace sfg {

inline SourceLoc loc_of(antlr4::Token* t) {
    return {static_cast<int>(t->getLine()), static_cast<int>(t->getCharPositionInLine()) + 1};
}
inline SourceLoc loc_of(antlr4::tree::TerminalNode* n) {
    return loc_of(n->getSymbol());
}
inline SourceLoc loc_of(antlr4::ParserRuleContext* c) {
    return loc_of(c->getStart());
}

} // namespace sfg
