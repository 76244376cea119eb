#include "sfg/compiler/compile.hpp"

#include "sfg/compiler/parse.hpp"
#include "sfg/compiler/program_sema.hpp"
#include "sfg/compiler/sema.hpp"

#include "big_stack.hpp"

#include <fmt/format.h>
#include <stdexcept>

#include <algorithm>

namespace sfg {

namespace {
std::optional<CompiledSpec> compile(const SourceFile& file, Diagnostics& diags,
                                    const CompileLimits& limits) {
    ast::Spec tree = parse_spec(file, diags);
    if (diags.has_errors())
        return std::nullopt;
    CompiledSpec spec = analyze(tree, file.name(), diags, limits);
    resolve_programs(tree.programs, spec, diags);
    if (diags.has_errors())
        return std::nullopt;
    spec.programs = tree.programs;
    // The nets' size follows from the SFGs (Figure 4.11), so it is checked before building any.
    std::size_t total = 0;
    for (const CompiledVariable& v : spec.variables) {
        if (!v.sfg)
            continue;
        total += petri_net_size(*v.sfg);
        if (total > limits.net_size) {
            diags.error(v.loc, fmt::format("the Petri net of '{}' brings the places and "
                                           "transitions of the nets to {}, more than {}; raise "
                                           "the limit with --max-net-size",
                                           v.name, total, limits.net_size));
            return std::nullopt;
        }
    }
    for (CompiledVariable& v : spec.variables)
        if (v.sfg)
            v.net = build_petri_net(*v.sfg);
    return spec;
}
} // namespace

bool has_families(const CompiledSpec& spec) {
    return std::any_of(spec.variables.begin(), spec.variables.end(),
                       [](const CompiledVariable& v) { return v.sfg && !v.sfg->families.empty(); });
}

void require_listed(const CompiledSpec& spec, const char* writer) {
    if (has_families(spec))
        throw std::invalid_argument(std::string(writer) +
                                    ": the spec has edge families; list them first "
                                    "(expand_families, docs/language.md)");
}

bool expand_families(CompiledSpec& spec, Diagnostics& diags, const CompileLimits& limits) {
    std::size_t total = 0;
    for (const CompiledVariable& v : spec.variables) {
        if (!v.sfg)
            continue;
        // Counted without listing: a family's edges join modes of one thread, 5 elements each.
        total += petri_net_size({v.sfg->modes, v.sfg->edges, v.sfg->in, v.sfg->out, {}});
        for (const EdgeFamily& f : v.sfg->families)
            total += 5 * f.from.size() * f.to.size();
        if (total > limits.net_size) {
            diags.error(v.loc, fmt::format("the Petri net of '{}' with its edge families listed "
                                           "edge by edge brings the places and transitions of "
                                           "the nets to {}, more than {}; raise the limit with "
                                           "--max-net-size",
                                           v.name, total, limits.net_size));
            return false;
        }
    }
    for (CompiledVariable& v : spec.variables)
        if (v.sfg && !v.sfg->families.empty()) {
            v.sfg = expand_families(*v.sfg);
            v.net = build_petri_net(*v.sfg);
        }
    return true;
}

std::optional<CompiledSpec> compile_spec(const SourceFile& file, Diagnostics& diags,
                                         const CompileLimits& limits) {
    // Sema and the AST's destructor recurse as deep as the longest operator chain.
    std::optional<CompiledSpec> out;
    run_with_big_stack([&] { out = compile(file, diags, limits); });
    return out;
}

MechanismsByKind mechanisms_by_kind(const CompiledSpec& spec) {
    MechanismsByKind out;
    for (const MechanismDecl& m : spec.mechanisms) {
        if (m.kind == MechKind::lock)
            out.locks.push_back(m.name);
        else if (m.kind == MechKind::volatile_)
            out.volatiles.push_back(m.name);
        else if (m.kind == MechKind::queue)
            out.queues.push_back(m.name);
        else
            out.barriers.push_back(&m);
    }
    return out;
}

} // namespace sfg
