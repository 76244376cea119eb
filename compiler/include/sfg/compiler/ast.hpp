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

// A transition label z: `^m`, `^fork`, `^join`, `{m}`, `{fork(t -> U)}`, `{join(S -> t)}`, and
// the value labels `^(v == K)`, `{v == K}` (thesis §5.1).
struct Label {
    enum class Kind { named, bare_fork, bare_join, fork, join, value };
    Kind kind = Kind::named;
    SourceLoc loc;
    Ident name;                 // named: the lock, volatile, barrier or queue; value: the volatile
    Ident thread;               // fork: the forking thread; join: the joining thread
    std::vector<Ident> threads; // fork: U; join: S (thread or group names)
    Ident value;                // value: K as written, with its '-' if any (sema checks its range)
};

// A discipline term (thesis §4.2.1 grammar, with LOCK_m(T) of §5.2 and EX(each W) = ⊔_{t∈W} EX(t)).
struct Disc {
    enum class Kind { ex, rs, disj, seq, loop, name, lock, each };
    Kind kind = Kind::ex;
    SourceLoc loc;                  // the term's first token; for disj/seq the operator
    std::vector<Ident> threads;     // ex, rs, lock (thread or group names as written)
    Ident name;                     // name: a named discipline; lock: the lock; each: the group
    std::unique_ptr<Disc> lhs, rhs; // disj, seq: both; loop: lhs
    Label label;                    // seq, loop
};

struct Decl {
    enum class Kind { threads, lock, volatile_, barrier, discipline, var, queue, group, cond };
    Kind kind = Kind::threads;
    SourceLoc loc;
    std::vector<Ident> names;           // the declared names (one for barrier, discipline, group)
    std::vector<Ident> barrier_threads; // barrier (thread or group names)
    std::vector<Ident> members;         // group: its threads
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
