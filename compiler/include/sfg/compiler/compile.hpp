// The front end in one call: text -> AST -> Spec (sema) -> SFG -> Petri net per variable.
#pragma once

#include "sfg/compiler/ast.hpp"
#include "sfg/compiler/diagnostics.hpp"
#include "sfg/compiler/limits.hpp"
#include "sfg/runtime/core/petri_net.hpp"
#include "sfg/runtime/net.hpp"

#include <optional>
#include <string>
#include <vector>

namespace sfg {

// A declared lock, volatile, barrier or queue (barriers carry their thread set, sorted).
struct MechanismDecl {
    std::string name;
    MechKind kind = MechKind::lock; // lock, volatile_, barrier or queue
    std::vector<std::string> threads;
    SourceLoc loc;
};

// A declared thread group (docs/language.md, "Thread groups"): only sugar, already expanded in
// every SFG and net; kept so that writers can list it.
struct GroupDecl {
    std::string name;
    std::vector<std::string> threads; // sorted
    SourceLoc loc;
};

// A declared condition variable (docs/programs.md, "Condition variables"): programs wait on it
// and notify it; disciplines never name it (its waits are its lock's rel and acq).
struct CondDecl {
    std::string name;
    SourceLoc loc;
};

struct CompiledVariable {
    std::string name;
    SourceLoc loc;
    std::optional<Discipline> sfg; // its SFG (§4.2.1); empty for a variable without a discipline
    std::optional<Net> net;        // N(sfg), Figure 4.11
};

struct CompiledSpec {
    std::string file;
    std::vector<std::string> threads; // sorted by name
    std::vector<MechanismDecl> mechanisms;
    std::vector<GroupDecl> groups;           // in declaration order
    std::vector<CondDecl> conds;             // in declaration order
    std::vector<CompiledVariable> variables; // in declaration order
    std::vector<ast::Program> programs;      // checked by program_sema; run by `sfgc check`
};

// Parses and checks `file`; every problem goes to `diags`. Returns the compiled spec unless
// there was an error; a graph or net that would exceed `limits` is an error.
std::optional<CompiledSpec> compile_spec(const SourceFile& file, Diagnostics& diags,
                                         const CompileLimits& limits = {});

// The spec with every edge family (net.hpp) listed edge by edge, in its SFG and its net
// (expand_families, build_petri_net): what the DOT, JSON and PNML writers and --verify-net take
// (docs/language.md). False, after an error in `diags`, when the nets would exceed
// limits.net_size.
// The declared mechanisms by kind, each in declaration order: the name tables of a generated
// header (write_cpp, render.hpp) and of spec data built from the spec in memory.
struct MechanismsByKind {
    std::vector<std::string> locks, volatiles, queues;
    std::vector<const MechanismDecl*> barriers; // into the spec
};
MechanismsByKind mechanisms_by_kind(const CompiledSpec& spec);

bool expand_families(CompiledSpec& spec, Diagnostics& diags, const CompileLimits& limits = {});
bool has_families(const CompiledSpec& spec);
// The writers' precondition: throws std::invalid_argument, naming `writer`, when the spec still
// has edge families (expand_families lists them).
void require_listed(const CompiledSpec& spec, const char* writer);

} // namespace sfg
