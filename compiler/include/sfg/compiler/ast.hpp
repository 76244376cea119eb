// The AST of a .sfg file (docs/language.md), built from ANTLR's parse tree by compiler/parse.
// Every node keeps its source location for diagnostics.
#pragma once

#include "sfg/compiler/diagnostics.hpp"

#include <memory>
#include <string>
#include <vector>

namespace sfg::prog {
struct Program;
}

namespace sfg::ast {

struct Ident {
    std::string name;
    SourceLoc loc;
};

// A transition label z: `^m`, `^fork`, `^join`, `{m}`, `{fork(t -> U)}`, `{join(S -> t)}`.
struct Label {
    enum class Kind { named, bare_fork, bare_join, fork, join };
    Kind kind = Kind::named;
    SourceLoc loc;
    Ident name;                 // named: the lock, volatile or barrier
    Ident thread;               // fork: the forking thread; join: the joining thread
    std::vector<Ident> threads; // fork: U; join: S
};

// A discipline term (thesis §4.2.1 grammar).
struct Disc {
    enum class Kind { ex, rs, disj, seq, loop, name };
    Kind kind = Kind::ex;
    SourceLoc loc;                  // the term's first token; for disj/seq the operator
    std::vector<Ident> threads;     // ex, rs (as written; sema checks arity)
    Ident name;                     // name: a named discipline
    std::unique_ptr<Disc> lhs, rhs; // disj, seq: both; loop: lhs
    Label label;                    // seq, loop
};

struct Decl {
    enum class Kind { threads, lock, volatile_, barrier, discipline, var };
    Kind kind = Kind::threads;
    SourceLoc loc;
    std::vector<Ident> names;           // the declared names (one for barrier and discipline)
    std::vector<Ident> barrier_threads; // barrier
    std::unique_ptr<Disc> disc;         // discipline; var (may be null)
};

// A program block (model checking); its body is in program_ast.hpp, checked and resolved by
// program_sema.
struct Program {
    Ident name;
    SourceLoc loc;
    std::shared_ptr<prog::Program> body;
};

struct Spec {
    std::vector<Decl> decls;
    std::vector<Program> programs;
};

} // namespace sfg::ast
