// A checked program lowered for the interpreter (docs/programs.md): each thread's statements become
// a flat code of stack-machine instructions, so that an interpreter state is a few small vectors
// (cheap to copy and hash during exploration). Shared-variable reads, writes and every
// synchronization op are "visible" instructions: one event and one scheduling point each.
#pragma once

#include "sfg/compiler/compile.hpp"
#include "sfg/compiler/program_ast.hpp"
#include "sfg/runtime/event.hpp"
#include "sfg/runtime/net.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sfg::checker {

enum class Code : std::uint8_t {
    // invisible (local computation)
    push,         // push value
    load_l,       // push local[arg]
    store_l,      // local[arg] = pop
    unary,        // op on top: 0 "-", 1 "!"
    binary,       // rhs = pop, lhs = pop, push lhs op rhs (op: BinOp)
    and_,         // && : if top == 0 jump to arg (keeping 0), else pop
    or_,          // || : if top != 0 replace by 1 and jump to arg, else pop
    norm,         // top = (top != 0)
    jump,         // pc = arg
    jump_if_zero, // if pop == 0: pc = arg
    assert_,      // if pop == 0: the thread fails (assert)
    // `await e;` whose condition awaits[arg] reads no shared variable: local computation
    // (docs/programs.md). True: the thread goes on; false: it stops there for good, never
    // enabled (a deadlock when nothing else can run).
    await_local,
    halt, // the thread ends
    // visible (one event each, except await: the reads of its condition)
    load_s,  // push shared[arg] (r(x) or vr(v))
    store_s, // shared[arg] = pop (w(x) or vw(v))
    read_s,  // r(x) / vr(v), no value
    write_s, // w(x) / vw(v), value unchanged
    acq,     // acq(lock arg)
    rel,     // rel(lock arg)
    fork,    // fork(thread set arg)
    join,    // join(thread set arg)
    benter,  // benter(barrier arg)
    bexit,   // bexit(barrier arg)
    await_,  // one atomic step when the condition code awaits[arg] (which reads a shared
             // variable) yields non-zero
    begin,   // deterministic {
    end,     // }
    enq,     // enq(q,o): o at the back of q (arg: Symbols::queue_items id; thesis §5.1)
    deq,     // deq(q,o): when o is at the front of q, takes it out
    // Atomic read-modify-write of volatile shared[arg] (docs/programs.md): vr(v) then, when it
    // writes, vw(v), in one step; the operands are on the stack, the result is pushed.
    xchg, // pop e; push v; v = e
    cas,  // pop e2, pop e1; v == e1: v = e2, push 1; else push 0 (vr alone)
    fadd, // pop e; push v; v += e (wrapping)
    // Condition variable arg, with lock `value` (docs/programs.md, "Condition variables"):
    // `wait c m;` is cwait then cwake.
    cwait,     // rel(m); waits on c from now on
    cwake,     // enabled once a notify meant for this wait came and m is free: acq(m)
    notify,    // wakes one waiter of c (which: the waiter that takes the next cwake step)
    notifyall, // wakes every waiter of c
};

enum class BinOp : std::uint8_t { add, sub, mul, div, mod, eq, ne, lt, le, gt, ge };

bool is_visible(Code c);

struct Instr {
    Code code = Code::halt;
    std::uint8_t op = 0;    // unary / binary operator
    std::uint32_t arg = 0;  // local, shared, lock, barrier, thread set, queue item, await or jump
                            // target
    std::int64_t value = 0; // push
    std::uint32_t line = 0; // the source line of the statement or operator
};

// Whether an await's condition code reads a shared variable (else the await is `await_local`).
bool reads_shared(const std::vector<Instr>& cond);

struct SharedVar {
    std::string name;
    bool is_volatile = false;
    std::int64_t init = 0;
    ObjId sym = no_object; // Symbols::vars or Symbols::volatiles id
};

struct ThreadCode {
    std::string name;
    std::vector<Instr> code; // ends with halt
    std::uint32_t locals = 0;
    bool root = true; // not named in any fork: starts at once
    std::uint32_t line = 0;
};

struct BarrierInfo {
    std::string name;
    std::vector<ThreadId> members; // sorted
};

// The lowered program. Thread ids are indices into `threads` (the spec's threads, sorted) and
// equal the ids interned in `syms.threads`; likewise locks, barriers, queues and thread sets; an
// enq/deq's (queue, variable) pair is interned in `syms.queue_items` as the program is lowered.
struct Model {
    std::string name; // the program's name
    std::string file; // the .sfg file
    std::vector<ThreadCode> threads;
    std::vector<SharedVar> shared; // variables in declaration order, then volatiles
    std::vector<std::string> locks;
    std::vector<BarrierInfo> barriers;
    std::vector<std::string> queues;                // = syms.queues
    std::vector<std::string> conds;                 // = syms.conds
    std::vector<std::vector<ThreadId>> thread_sets; // = syms.thread_sets
    std::vector<std::vector<Instr>> awaits; // condition codes of `await`, each ending with halt
    Symbols syms;
    // Annotated variables and their nets (for the Enforcer), in declaration order.
    std::vector<std::pair<std::string, Net>> nets;
};

// Lowers a program of a compiled spec (`compile_spec` already checked it and resolved its names
// against `spec`: program_sema.hpp).
Model lower(const CompiledSpec& spec, const ast::Program& program);

} // namespace sfg::checker
