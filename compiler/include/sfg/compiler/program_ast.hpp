// The AST of a `program` block (docs/programs.md): threads, statements, expressions. Built by
// the front end from ANTLR's parse tree; program_sema checks it and resolves every name to a Ref;
// checker/ lowers and runs it.
#pragma once

#include "sfg/compiler/ast.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sfg::prog {

// What a name denotes, filled in by program_sema: an index into the declarations of the
// CompiledSpec the program was checked against, or into its thread's locals. Later passes read
// it and look no name up again.
struct Ref {
    enum class Kind : std::uint8_t {
        none,
        local,
        variable,
        volatile_,
        lock,
        barrier,
        thread,
        queue,
        cond,
    };
    Kind kind = Kind::none;  // none: not resolved (the program has errors)
    std::uint32_t index = 0; // local: Thread::locals; variable: CompiledSpec::variables;
                             // volatile_, lock, barrier, queue: CompiledSpec::mechanisms;
                             // thread: CompiledSpec::threads; cond: CompiledSpec::conds
};

struct Ident {
    std::string name;
    SourceLoc loc;
    Ref ref;
};

struct Expr {
    enum class Kind { integer, name, unary, binary };
    Kind kind = Kind::integer;
    SourceLoc loc;             // the first token; for binary, the operator
    std::int64_t value = 0;    // integer
    std::string name;          // name: a local or a shared variable / volatile
    Ref ref;                   // name: what it denotes
    std::string op;            // unary: "-" "!"; binary: "+" "-" "*" "/" "%" "==" ... "&&" "||"
    std::unique_ptr<Expr> lhs; // unary operand; binary left
    std::unique_ptr<Expr> rhs; // binary right
};

struct Stmt {
    enum class Kind {
        let,           // let r = e;
        assign,        // x = e;   (shared write, volatile write, or local assignment)
        read,          // read x;
        write,         // write x;
        acq,           // acq m;
        rel,           // rel m;
        fork,          // fork t, ...;
        join,          // join t, ...;
        barrier,       // barrier b;
        await_,        // await e;
        assert_,       // assert e;
        if_,           // if (e) {...} else {...}
        while_,        // while (e) {...}
        repeat,        // repeat N {...}
        skip,          // skip;
        deterministic, // deterministic {...}
        enq,           // enq q x;  (thesis §5.1, q(o))
        deq,           // deq q x;
        wait,          // wait c m;  (condition variables, docs/programs.md)
        notify,        // notify c;
        notifyall,     // notifyall c;
    };
    // let/assign whose value is an atomic read-modify-write of the volatile `object`
    // (docs/programs.md): r = xchg v e (the old value; v = e), r = cas v e expr2 (1 and v = expr2
    // when v == e, else 0), r = fadd v e (the old value; v += e).
    enum class Rmw : std::uint8_t { none, xchg, cas, fadd };
    Kind kind = Kind::skip;
    Rmw rmw = Rmw::none;
    SourceLoc loc;
    Ident target; // let/assign/read/write/acq/rel/barrier; enq/deq: the queue; wait/notify/
                  // notifyall: the condition variable
    Ident object; // enq/deq: the variable put into / taken out of the queue; rmw: the volatile;
                  // wait: the lock
    std::vector<Ident> threads;  // fork/join
    std::unique_ptr<Expr> expr;  // let/assign value (rmw: its operand); await/assert/if/while
                                 // condition
    std::unique_ptr<Expr> expr2; // cas: the value written
    std::int64_t count = 0;      // repeat
    std::vector<Stmt> body;      // if-then, while, repeat, deterministic
    std::vector<Stmt> else_body;
    bool has_else = false;
};

struct Init {
    Ident var;
    std::int64_t value = 0;
    SourceLoc loc;
};

struct Thread {
    Ident name;
    SourceLoc loc;
    std::vector<Stmt> body;
    std::vector<std::string> locals; // its `let`s in text order, as Ref::local numbers them
};

struct Program {
    Ident name;
    SourceLoc loc;
    std::vector<Init> inits;
    std::vector<Thread> threads;
};

} // namespace sfg::prog
